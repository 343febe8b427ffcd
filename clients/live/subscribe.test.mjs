// Live updates through the official TypeScript clients: each SDK kind
// subscribes to basel://ca/DE, a steward's write goes through REST, and the
// client must hear notifications/resources/updated for that record.
//
// Needs, besides BASEL_MCP_URL and BASEL_MCP_KEY: BASEL_REST_URL (the same
// deployment's REST API) and BASEL_STEWARD_TOKEN (a steward's bearer token).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

import { kinds } from "../lib/connect.mjs";
import { target } from "../lib/env.mjs";

const URI = "basel://ca/DE";

function rest() {
  const base = process.env.BASEL_REST_URL;
  const token = process.env.BASEL_STEWARD_TOKEN;
  if (!base || !token) {
    throw new Error("set BASEL_REST_URL and BASEL_STEWARD_TOKEN (a steward of the same deployment)");
  }
  return { base: base.replace(/\/+$/, ""), token };
}

/** A promise of the next update of `uri`, and the handler that settles it. */
function nextUpdate(uri, ms) {
  let heard;
  const promise = new Promise((resolve, reject) => {
    heard = (notification) => {
      if (notification.params?.uri === uri) resolve(notification.params.uri);
    };
    setTimeout(() => reject(new Error(`no notifications/resources/updated for ${uri} within ${ms} ms`)), ms).unref();
  });
  return { promise, heard };
}

async function stewardWrite(label) {
  const { base, token } = rest();
  const response = await fetch(`${base}/api/v1/ca/DE/verifications`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      verified: false,
      checked_on: new Date().toISOString().slice(0, 10),
      method: "email",
      source: `subscription check (${label})`,
      changes: { notes: `subscription check (${label})` },
    }),
  });
  assert.equal(response.status, 200, await response.text());
}

describe("live updates", () => {
  for (const name of ["sdk1 streamable HTTP", "sdk1 legacy SSE", "sdk2 streamable HTTP", "sdk2 legacy SSE"]) {
    it(`${name}: a subscribed client hears of a steward's write`, async () => {
      const { client } = await kinds[name](target());
      try {
        const update = nextUpdate(URI, 5000);
        if (name.startsWith("sdk1")) {
          client.setNotificationHandler(ResourceUpdatedNotificationSchema, update.heard);
        } else {
          client.setNotificationHandler("notifications/resources/updated", update.heard);
        }
        await client.subscribeResource({ uri: URI });
        await stewardWrite(name);
        assert.equal(await update.promise, URI);
      } finally {
        await client.close();
      }
    });
  }
});
