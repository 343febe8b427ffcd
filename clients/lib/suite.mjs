// What every client checks against the server, as node:test cases.
//
// - tools/list: the seven tools, each with an output schema that compiles;
// - resources/list followed to the last cursor, and the two templates;
// - every tool with valid input: a result whose structuredContent matches
//   the tool's outputSchema (ajv, draft 2020-12) and whose text is the same
//   JSON;
// - every tool with invalid input: an isError result whose only content is
//   readable text `<code>: <message>`, without structuredContent;
// - list_competent_authorities followed from cursor to cursor to the end;
// - a bad cursor: a tool error on the tool, -32602 on resources/list;
// - resources/read of a record and a code.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

import { target } from "./env.mjs";

const TOOLS = [
  "get_competent_authority",
  "list_competent_authorities",
  "search_competent_authorities",
  "get_authority_history",
  "classify_waste",
  "plan_shipment",
  "lookup_basel_code",
];

const VALID = [
  ["get_competent_authority", { country_code: "DE" }],
  ["get_competent_authority", { country_code: "Germany" }],
  ["list_competent_authorities", {}],
  ["list_competent_authorities", { verified: true, page_size: 1 }],
  ["search_competent_authorities", { query: "korea" }],
  ["get_authority_history", { country_code: "DE" }],
  ["classify_waste", { description: "Spent lead-acid car batteries", origin: "DE", destination: "NG" }],
  ["classify_waste", { description: "Spent lead-acid car batteries", origin: "Germany", destination: "Nigeria" }],
  ["plan_shipment", { description: "used lead-acid batteries", origin: "Germany", destination: "Nigeria", transit: ["France"] }],
  ["plan_shipment", { code: "B3020", origin: "FR", destination: "DE" }],
  ["list_competent_authorities", { has_contact: true }],
  ["lookup_basel_code", { code: "Y31" }],
  ["lookup_basel_code", { code: "a1010" }],
];

const INVALID = [
  ["get_competent_authority", {}, "invalid_argument"],
  ["get_competent_authority", { country_code: "Atlantis" }, "country_not_found"],
  ["list_competent_authorities", { page_size: 0 }, "invalid_argument"],
  ["list_competent_authorities", { cursor: "garbage" }, "invalid_cursor"],
  ["list_competent_authorities", { verified: "yes" }, "invalid_argument"],
  ["search_competent_authorities", { query: "" }, "invalid_argument"],
  ["get_authority_history", { country_code: 5 }, "invalid_argument"],
  ["classify_waste", { description: "" }, "invalid_argument"],
  ["classify_waste", { description: "batteries", origin: "Atlantis" }, "country_not_found"],
  ["plan_shipment", { code: "A1160", origin: "DE" }, "invalid_argument"],
  ["plan_shipment", { code: "A1160", origin: "DE", destination: "NG", transit: ["Atlantis"] }, "country_not_found"],
  ["lookup_basel_code", { code: "Z99" }, "not_found"],
  ["lookup_basel_code", { code: "Y31", extra: 1 }, "invalid_argument"],
];

/** The text of a result's single text block. */
function onlyText(result) {
  assert.equal(result.content?.length, 1, JSON.stringify(result));
  assert.equal(result.content[0].type, "text");
  return result.content[0].text;
}

/**
 * Registers the checks for one kind of client; `modern` (revision
 * 2026-07-28) also expects the server's identity in each result's `_meta`.
 */
export function suite(name, connect, { modern = false } = {}) {
  describe(name, () => {
    let session;
    const validators = new Map();

    before(async () => {
      session = await connect(target());
    });
    after(async () => {
      await session?.client.close();
    });

    it("lists the seven tools with output schemas that compile", async () => {
      const { tools } = await session.client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
      const ajv = new Ajv2020({ allErrors: true, strict: false });
      addFormats(ajv);
      for (const tool of tools) {
        assert.ok(tool.outputSchema, `${tool.name} has an outputSchema`);
        assert.equal(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
        validators.set(tool.name, ajv.compile(tool.outputSchema));
      }
    });

    it("answers every tool with valid input, matching its output schema", async () => {
      for (const [tool, args] of VALID) {
        const result = await session.client.callTool({ name: tool, arguments: args });
        assert.notEqual(result.isError, true, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(result)}`);
        const validate = validators.get(tool);
        assert.ok(validate(result.structuredContent), `${tool}: ${JSON.stringify(validate.errors)}`);
        assert.deepEqual(JSON.parse(onlyText(result)), result.structuredContent);
        const info = result._meta?.["io.modelcontextprotocol/serverInfo"];
        if (modern) assert.equal(info?.name, "basel", `serverInfo in _meta: ${JSON.stringify(result._meta)}`);
        else assert.equal(info, undefined, "no serverInfo in _meta before 2026-07-28");
      }
    });

    it("answers invalid input with readable isError text and no structuredContent", async () => {
      for (const [tool, args, code] of INVALID) {
        const result = await session.client.callTool({ name: tool, arguments: args });
        const what = `${tool} ${JSON.stringify(args)}: ${JSON.stringify(result)}`;
        assert.equal(result.isError, true, what);
        assert.equal(result.structuredContent, undefined, what);
        const text = onlyText(result);
        assert.match(text, new RegExp(`^${code}: \\S`), what);
      }
    });

    it("follows list_competent_authorities cursors to the end", async () => {
      const first = await session.client.callTool({
        name: "list_competent_authorities",
        arguments: { page_size: 2 },
      });
      const total = first.structuredContent.total;
      const seen = [...first.structuredContent.items];
      let cursor = first.structuredContent.nextCursor;
      for (let pages = 0; cursor && pages < 1000; pages += 1) {
        const page = await session.client.callTool({
          name: "list_competent_authorities",
          arguments: { page_size: 2, cursor },
        });
        assert.notEqual(page.isError, true, JSON.stringify(page));
        assert.ok(validators.get("list_competent_authorities")(page.structuredContent));
        seen.push(...page.structuredContent.items);
        cursor = page.structuredContent.nextCursor;
      }
      assert.equal(cursor, undefined, "the last page has no nextCursor");
      assert.equal(seen.length, total);
      const codes = seen.map((r) => r.country_code);
      assert.deepEqual(codes, [...codes].sort(), "sorted by code, no repeats");
      assert.equal(new Set(codes).size, codes.length);
    });

    it("lists resources to the last cursor, and the two templates", async () => {
      const uris = [];
      let cursor;
      let pages = 0;
      do {
        const page = await session.client.listResources(cursor ? { cursor } : {});
        uris.push(...page.resources.map((r) => r.uri));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor && pages < 100);
      assert.equal(cursor, undefined);
      assert.ok(uris.length > 100, "every record and every code");
      assert.ok(uris.includes("basel://ca/DE"));
      assert.ok(uris.includes("basel://codes/Y31"));
      assert.equal(new Set(uris).size, uris.length);
      const { resourceTemplates } = await session.client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
        "basel://ca/{country_code}",
        "basel://codes/{code}",
      ]);
    });

    it("refuses a bad resources/list cursor with -32602", async () => {
      await assert.rejects(session.client.listResources({ cursor: "garbage" }), (error) => {
        assert.equal(error.code, -32602, String(error));
        return true;
      });
    });

    it("reads a record and a code", async () => {
      for (const [uri, field, value] of [
        ["basel://ca/DE", "country_code", "DE"],
        ["basel://codes/Y31", "code", "Y31"],
      ]) {
        const { contents } = await session.client.readResource({ uri });
        assert.equal(contents.length, 1);
        assert.equal(contents[0].mimeType, "application/json");
        assert.equal(JSON.parse(contents[0].text)[field], value);
      }
    });
  });
}
