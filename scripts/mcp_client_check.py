#!/usr/bin/env python3
"""Drive a running basel MCP server with the official MCP Python SDK.

Usage:
    python3 scripts/mcp_client_check.py --base http://127.0.0.1:8081 --key KEY \
        --transport streamable|sse|discover|both

For each transport asked for it connects (streamable HTTP at <base>/mcp with
the initialize handshake, the same with `server/discover` negotiating
revision 2026-07-28 through the SDK's high-level `Client` in `auto` mode,
or the legacy HTTP+SSE transport at <base>/sse), lists the tools,
calls get_competent_authority and classify_waste, and checks the answers
(the SDK also validates structured results against the tools' output
schemas). It prints one line per check and exits non-zero on the first
failure. The API key is sent as `Authorization: Bearer` on streamable HTTP
and as `X-API-Key` on SSE, so both forms are exercised; it is never printed.
"""

import argparse
import asyncio
import json
import sys

import mcp_types as types
from mcp import ClientSession
from mcp.client.client import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

TOOLS = {
    "get_competent_authority",
    "list_competent_authorities",
    "search_competent_authorities",
    "get_authority_history",
    "classify_waste",
    "plan_shipment",
    "lookup_basel_code",
}


class CheckFailed(Exception):
    """An answer was not what a client needs."""


def check(condition: bool, what: str) -> None:
    if not condition:
        raise CheckFailed(what)
    print(f"  ok: {what}")


def structured(result: types.CallToolResult, what: str) -> dict:
    check(not result.is_error, f"{what}: not an error")
    check(isinstance(result.structured_content, dict), f"{what}: structuredContent is an object")
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    check(len(texts) == 1, f"{what}: one text content")
    check(json.loads(texts[0]) == result.structured_content, f"{what}: text content is the same JSON")
    return result.structured_content


async def exercise(session: ClientSession, label: str) -> None:
    init = await session.initialize()
    check(init.server_info.name == "basel", f"{label}: initialised with basel ({init.protocol_version})")
    check("Disclaimer" in (init.instructions or ""), f"{label}: instructions carry the disclaimer")

    listed = await session.list_tools()
    names = {tool.name for tool in listed.tools}
    check(names == TOOLS, f"{label}: tools/list names the seven tools")
    for tool in listed.tools:
        a = tool.annotations
        check(
            a is not None
            and a.read_only_hint is True
            and a.destructive_hint is False
            and a.idempotent_hint is True
            and a.open_world_hint is False,
            f"{label}: {tool.name} is annotated read-only",
        )
        check(bool(tool.title) and tool.output_schema is not None, f"{label}: {tool.name} has a title and an output schema")

    record = structured(
        await session.call_tool("get_competent_authority", {"country_code": "Germany"}),
        f"{label}: get_competent_authority(Germany)",
    )
    check(record["country_code"] == "DE", f"{label}: the record is Germany's")
    check(isinstance(record["stale"], bool) and "provenance" in record, f"{label}: the record has stale and provenance")

    classified = structured(
        await session.call_tool(
            "classify_waste",
            {
                "description": "Spent lead-acid car batteries, whole, from garages",
                "origin": "DE",
                "destination": "NG",
            },
        ),
        f"{label}: classify_waste(lead-acid batteries)",
    )
    check(classified["list_type"] == "Amber", f"{label}: lead-acid batteries are Amber")
    check(classified["a_codes"][0]["code"] == "A1160", f"{label}: the best code is A1160")
    check(classified["procedure"]["origin"] == "DE", f"{label}: the procedure is for DE to NG")

    plan = structured(
        await session.call_tool(
            "plan_shipment",
            {
                "description": "used lead-acid batteries",
                "origin": "Germany",
                "destination": "Viet Nam",
                "transit": ["Singapore"],
            },
        ),
        f"{label}: plan_shipment(Germany to Viet Nam through Singapore)",
    )
    check(plan["waste"]["code"] == "A1160", f"{label}: the plan's waste is A1160")
    check(
        [s["country_code"] for s in plan["route"]] == ["DE", "SG", "VN"],
        f"{label}: the route is DE, SG, VN",
    )
    check(plan["prohibited"] is True, f"{label}: DE to VN is prohibited (Ban Amendment)")

    missing = await session.call_tool("get_competent_authority", {"country_code": "Atlantis"})
    check(missing.is_error is True, f"{label}: an unknown country is a tool error")
    check(missing.structured_content is None, f"{label}: a tool error has no structuredContent")
    texts = [c.text for c in missing.content if isinstance(c, types.TextContent)]
    check(
        len(texts) == 1 and texts[0].startswith("country_not_found: "),
        f"{label}: a tool error reads `<code>: <message>`",
    )


async def over_streamable_http(base: str, key: str) -> None:
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    async with client:
        async with streamable_http_client(f"{base}/mcp", http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session, "streamable HTTP")


async def over_sse(base: str, key: str) -> None:
    async with sse_client(f"{base}/sse", headers={"X-API-Key": key}) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, "legacy SSE")


async def over_discover(base: str, key: str) -> None:
    label = "server/discover"
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    async with http:
        transport = streamable_http_client(f"{base}/mcp", http_client=http)
        async with Client(transport, mode="auto") as client:
            check(client.protocol_version == "2026-07-28", f"{label}: negotiated 2026-07-28")
            listed = await client.list_tools()
            check({tool.name for tool in listed.tools} == TOOLS, f"{label}: tools/list names the seven tools")
            record = structured(
                await client.call_tool("get_competent_authority", {"country_code": "Germany"}),
                f"{label}: get_competent_authority(Germany)",
            )
            check(record["country_code"] == "DE", f"{label}: the record is Germany's")
            plan = structured(
                await client.call_tool(
                    "plan_shipment",
                    {"code": "A1160", "origin": "DE", "destination": "VN", "transit": ["SG"]},
                ),
                f"{label}: plan_shipment(A1160, DE to VN through SG)",
            )
            check([s["role"] for s in plan["route"]] == ["export", "transit", "import"], f"{label}: export, transit, import")
            missing = await client.call_tool("get_competent_authority", {"country_code": "Atlantis"})
            texts = [c.text for c in missing.content if isinstance(c, types.TextContent)]
            check(
                missing.is_error is True and len(texts) == 1 and texts[0].startswith("country_not_found: "),
                f"{label}: a tool error reads `<code>: <message>`",
            )


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the MCP listener, e.g. http://127.0.0.1:8081")
    parser.add_argument("--key", required=True, help="an API key")
    parser.add_argument("--transport", choices=["streamable", "sse", "discover", "both"], default="both")
    args = parser.parse_args()
    base = args.base.rstrip("/")
    runs = {
        "streamable": [over_streamable_http],
        "sse": [over_sse],
        "discover": [over_discover],
        "both": [over_streamable_http, over_discover, over_sse],
    }
    try:
        for run in runs[args.transport]:
            await asyncio.wait_for(run(base, args.key), timeout=60)
    except CheckFailed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
