// One connected client per kind: the TypeScript SDK 1.x over streamable HTTP
// and legacy SSE, and the 2.x client (`@modelcontextprotocol/client`) over
// streamable HTTP (legacy handshake, and pinned to revision 2026-07-28) and
// legacy SSE. Each returns an object with the SDK's Client as `client`.

import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Streamable1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport as Sse1 } from "@modelcontextprotocol/sdk/client/sse.js";
import {
  Client as Client2,
  SSEClientTransport as Sse2,
  StreamableHTTPClientTransport as Streamable2,
} from "@modelcontextprotocol/client";

import { headers } from "./env.mjs";

const INFO = { name: "basel-client-check", version: "1.0.0" };

/** A fetch that adds the API key to every request (SSE's GET included). */
function keyedFetch(key) {
  return (url, init = {}) => {
    const merged = new Headers(init.headers ?? {});
    for (const [name, value] of Object.entries(headers(key))) merged.set(name, value);
    return fetch(url, { ...init, headers: merged });
  };
}

export const kinds = {
  "sdk1 streamable HTTP": async ({ base, key }) => {
    const client = new Client1(INFO);
    const transport = new Streamable1(new URL(`${base}/mcp`), {
      requestInit: { headers: headers(key) },
    });
    await client.connect(transport);
    return { client, transport, sdk: 1 };
  },
  "sdk1 legacy SSE": async ({ base, key }) => {
    const client = new Client1(INFO);
    const transport = new Sse1(new URL(`${base}/sse`), {
      requestInit: { headers: headers(key) },
      eventSourceInit: { fetch: keyedFetch(key) },
    });
    await client.connect(transport);
    return { client, transport, sdk: 1 };
  },
  "sdk2 streamable HTTP": async ({ base, key }) => {
    const client = new Client2(INFO);
    const transport = new Streamable2(new URL(`${base}/mcp`), {
      requestInit: { headers: headers(key) },
    });
    await client.connect(transport);
    return { client, transport, sdk: 2 };
  },
  "sdk2 streamable HTTP, 2026-07-28": async ({ base, key }) => {
    const client = new Client2(INFO, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    const transport = new Streamable2(new URL(`${base}/mcp`), {
      requestInit: { headers: headers(key) },
    });
    await client.connect(transport);
    return { client, transport, sdk: 2 };
  },
  "sdk2 legacy SSE": async ({ base, key }) => {
    const client = new Client2(INFO);
    const transport = new Sse2(new URL(`${base}/sse`), {
      requestInit: { headers: headers(key) },
      fetch: keyedFetch(key),
    });
    await client.connect(transport);
    return { client, transport, sdk: 2 };
  },
};
