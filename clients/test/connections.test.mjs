// The TypeScript SDK 1.x over streamable HTTP, making calls that fail with a
// JSON-RPC error: it must not pile up connections. (1.x reopens its
// standalone GET stream after each error; a server that accepted any number
// of them per session kept one connection per error open: 12 after ten
// errors.) After ten failing calls the client holds at most two connections
// to the server: the one its POSTs reuse and its one event stream.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";

import { kinds } from "../lib/connect.mjs";
import { target } from "../lib/env.mjs";

const run = promisify(execFile);

/** Established TCP connections to the server's port (`ss`, iproute2). */
async function connectionsTo(port) {
  const { stdout } = await run("ss", ["-tnH", "state", "established", `( dport = :${port} )`]);
  return stdout.split("\n").filter((line) => line.trim() !== "").length;
}

describe("sdk1 streamable HTTP, ten failing calls", () => {
  let session;
  after(async () => session?.client.close());

  it("ends with at most two open connections", async () => {
    const { base } = target();
    const port = new URL(base).port;
    session = await kinds["sdk1 streamable HTTP"](target());
    let refused = 0;
    for (let i = 0; i < 10; i += 1) {
      await assert.rejects(
        session.client.callTool({ name: `no_such_tool_${i}`, arguments: {} }),
        (error) => {
          refused += 1;
          return typeof error.code === "number";
        },
      );
    }
    assert.equal(refused, 10);
    // Reconnections the client schedules end (each refused at once), and
    // Node's fetch closes the connections it pooled after 4 s idle: within
    // 15 s at most two remain. Without the server's one-stream rule, one
    // stream per error stays open (12 here) however long one waits.
    let open = Infinity;
    for (let waited = 0; waited <= 15_000 && open > 2; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      open = await connectionsTo(port);
    }
    assert.ok(open <= 2, `${open} connections open 15 s after ten failing calls`);
    const answer = await session.client.callTool({ name: "lookup_basel_code", arguments: { code: "Y1" } });
    assert.notEqual(answer.isError, true, "the session still works");
  });
});
