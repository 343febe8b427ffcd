// Latency of the MCP server seen from the official TypeScript SDK 1.x over
// streamable HTTP on loopback (scripts/bench-mcp starts the server and runs
// this). Prints, one per line:
//
//   setup  p50/p99 of a session's set-up (connect: initialize + initialized)
//   call   p50/p99 of tools/call round trips, all in one session
//
// and each against its target (set-up p50 <= 5 ms, call p50 <= 2 ms, call
// p99 <= 10 ms). Exits 1 if a call fails. Settings (environment):
// BASEL_MCP_URL, BASEL_MCP_KEY (required), SESSIONS (default 100), CALLS
// (default 2000), WARMUP (default 100).
//
// If the server rate-limits the key (-32029), the calls are paced at 90 % of
// the advertised rate and the report says so: latency is still measured per
// call, but the run takes longer.

import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { headers, target } from "./lib/env.mjs";

const { base, key } = target();
const SESSIONS = Number(process.env.SESSIONS ?? 100);
const CALLS = Number(process.env.CALLS ?? 2000);
const WARMUP = Number(process.env.WARMUP ?? 100);
const INFO = { name: "basel-bench", version: "1.0.0" };
const CALLS_MIX = [
  { name: "lookup_basel_code", arguments: { code: "Y31" } },
  { name: "get_competent_authority", arguments: { country_code: "DE" } },
  { name: "search_competent_authorities", arguments: { query: "korea" } },
];

async function connect() {
  const client = new Client(INFO);
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: headers(key) },
  });
  await client.connect(transport);
  return client;
}

function quantile(samples, q) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const ms = (x) => `${x.toFixed(2)} ms`;
const verdict = (value, limit) => (value <= limit ? "ok" : "MISSED");

// Session set-up.
const setups = [];
for (let i = 0; i < SESSIONS + 5; i += 1) {
  const start = performance.now();
  const client = await connect();
  const took = performance.now() - start;
  if (i >= 5) setups.push(took);
  await client.close();
}

// Tool calls over one session.
const client = await connect();
let pause = 0;
const calls = [];
const byTool = new Map(CALLS_MIX.map((c) => [c.name, []]));
for (let i = 0; i < WARMUP + CALLS; i += 1) {
  const request = CALLS_MIX[i % CALLS_MIX.length];
  const start = performance.now();
  let result;
  try {
    result = await client.callTool(request);
  } catch (error) {
    if (error.code === -32029 && pause === 0) {
      const perSecond = Number(error.data?.per_second ?? 20);
      pause = 1000 / (perSecond * 0.9);
      console.log(`rate-limited by the server (${error.message}); pacing at ${(perSecond * 0.9).toFixed(1)} calls/s`);
      await sleep(Number(error.data?.retry_after_ms ?? 1000) + pause);
      i -= 1;
      continue;
    }
    throw error;
  }
  const took = performance.now() - start;
  if (result.isError) {
    console.error(`${request.name} answered a tool error: ${JSON.stringify(result.content)}`);
    process.exit(1);
  }
  if (i >= WARMUP) {
    calls.push(took);
    byTool.get(request.name).push(took);
  }
  if (pause > 0) await sleep(pause);
}
await client.close();

const setupP50 = quantile(setups, 0.5);
const callP50 = quantile(calls, 0.5);
const callP99 = quantile(calls, 0.99);
console.log(`setup  n=${setups.length}  p50 ${ms(setupP50)} (target <= 5 ms: ${verdict(setupP50, 5)})  p99 ${ms(quantile(setups, 0.99))}`);
for (const [name, samples] of byTool) {
  console.log(`  ${name}: p50 ${ms(quantile(samples, 0.5))}  p99 ${ms(quantile(samples, 0.99))}`);
}
console.log(`call   n=${calls.length}  p50 ${ms(callP50)} (target <= 2 ms: ${verdict(callP50, 2)})  p99 ${ms(callP99)} (target <= 10 ms: ${verdict(callP99, 10)})${pause > 0 ? "  [paced]" : ""}`);
