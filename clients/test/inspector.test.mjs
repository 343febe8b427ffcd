// The MCP Inspector CLI (`@modelcontextprotocol/inspector`, `--cli`) against
// the server under test, over streamable HTTP and legacy SSE. `tools/list`
// runs with `--strict` (the tool-schema portability report on stderr, exit 6
// on an error); every run must exit 0 with 0 errors and 0 warnings. The
// schemas spell nullable values as `anyOf` branches, never as type arrays
// (which the Inspector warns about): the test checks that too.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";

import { target } from "../lib/env.mjs";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const launcher = join(
  dirname(require.resolve("@modelcontextprotocol/inspector/package.json")),
  "clients/launcher/build/index.js",
);

// The Inspector keeps a catalog and storage under $HOME: give it its own.
const home = mkdtempSync(join(tmpdir(), "basel-inspector-"));
after(() => rmSync(home, { recursive: true, force: true }));

/** Runs the Inspector CLI; its exit code, stdout and stderr. */
async function inspector(path, args) {
  const { base, key } = target();
  const argv = [
    launcher,
    "--cli",
    `${base}${path}`,
    "--transport",
    path === "/sse" ? "sse" : "http",
    "--header",
    `X-API-Key: ${key}`,
    ...args,
  ];
  try {
    const { stdout, stderr } = await run(process.execPath, argv, {
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: "1", HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json") },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code ?? 1, stdout: error.stdout ?? "", stderr: error.stderr ?? String(error) };
  }
}

/** Asserts a clean run: exit 0 and no error or warning on stderr. */
function clean(what, { code, stdout, stderr }) {
  const report = `${what}: exit ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`;
  assert.equal(code, 0, report);
  assert.doesNotMatch(stderr, /error|warn/i, report);
  return JSON.parse(stdout);
}

/** The paths (`outputSchema.properties.x`) of every `type` array in a tool's schemas. */
function typeArrays(tool) {
  const paths = [];
  const walk = (node, path) => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}[${i}]`));
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node.type)) paths.push(`${tool.name} ${path}`);
    for (const [key, value] of Object.entries(node)) walk(value, path ? `${path}.${key}` : key);
  };
  walk({ inputSchema: tool.inputSchema, outputSchema: tool.outputSchema }, "");
  return paths.sort();
}

/** The warnings of a --strict report, as `tool path` and issue. */
function warnings(stderr) {
  const found = [];
  const pattern = /(Error|Warning): tool "([^"]+)"\s+Path: (\S+)\s+Issue: ([^\n]*)/g;
  for (const [, severity, tool, path, issue] of stderr.matchAll(pattern)) {
    found.push({ severity, at: `${tool} ${path}`, issue });
  }
  return found;
}

for (const path of ["/mcp", "/sse"]) {
  describe(`MCP Inspector CLI over ${path}`, () => {
    it("lists the tools with --strict: 0 errors, 0 warnings", async () => {
      const out = await inspector(path, ["--method", "tools/list", "--strict"]);
      const report = `exit ${out.code}\n--- stderr\n${out.stderr}`;
      assert.equal(out.code, 0, report);
      const listed = JSON.parse(out.stdout);
      assert.equal(listed.tools.length, 7);
      assert.deepEqual(listed.tools.flatMap(typeArrays), [], "no schema has a type array");
      assert.deepEqual(warnings(out.stderr), [], report);
      const summary = out.stderr.match(/(\d+) errors?, (\d+) warnings?/);
      assert.ok(summary === null || (summary[1] === "0" && summary[2] === "0"), report);
    });

    it("calls a tool", async () => {
      const out = await inspector(path, [
        "--method", "tools/call", "--tool-name", "lookup_basel_code", "--tool-arg", "code=Y31",
      ]);
      const result = clean("tools/call", out);
      assert.equal(result.structuredContent.code, "Y31");
    });

    it("reads tool errors as results", async () => {
      const out = await inspector(path, [
        "--method", "tools/call", "--tool-name", "get_competent_authority", "--tool-arg", "country_code=Atlantis",
      ]);
      const result = JSON.parse(out.stdout || "{}");
      assert.equal(result.isError, true, `${out.stdout}\n${out.stderr}`);
      assert.match(result.content[0].text, /^country_not_found: /);
    });

    it("lists resources and templates and reads one", async () => {
      clean("resources/list", await inspector(path, ["--method", "resources/list"]));
      clean("resources/templates/list", await inspector(path, ["--method", "resources/templates/list"]));
      const read = clean("resources/read", await inspector(path, ["--method", "resources/read", "--uri", "basel://ca/DE"]));
      assert.equal(JSON.parse(read.contents[0].text).country_code, "DE");
    });
  });
}
