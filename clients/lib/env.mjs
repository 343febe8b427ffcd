// Where the server under test is and how to call it, from the environment:
// BASEL_MCP_URL (base URL, e.g. http://127.0.0.1:8081) and BASEL_MCP_KEY
// (an API key, sent as X-API-Key). Both are required: a run without them
// fails, it never passes by skipping.

export function target() {
  const base = process.env.BASEL_MCP_URL;
  const key = process.env.BASEL_MCP_KEY;
  if (!base || !key) {
    throw new Error(
      "set BASEL_MCP_URL (e.g. http://127.0.0.1:8081) and BASEL_MCP_KEY (an API key) " +
        "to the server under test",
    );
  }
  return { base: base.replace(/\/+$/, ""), key };
}

/** The headers every request carries. */
export function headers(key) {
  return { "X-API-Key": key };
}
