"""Drives `tracekit mcp` with the official Python SDK (`mcp`), as an agent's
client would, and prints what it saw as one JSON document for
crates/cli/tests/mcp.rs to check.

usage: mcp_client.py TRACEKIT ROOT [SERVER_ARGS...]"""

import asyncio
import json
import pathlib
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def text_of(result):
    return {"error": bool(result.is_error), "text": "".join(getattr(c, "text", "") for c in result.content)}


async def main():
    tracekit, root, *server_args = sys.argv[1:]
    params = StdioServerParameters(command=tracekit, args=["mcp", "--root", root, *server_args])
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = [init.server_info.name, init.server_info.version]
            tools = await session.list_tools()
            out["tools"] = {t.name: {"description": t.description, "schema": t.input_schema} for t in tools.tools}
            call = lambda name, args: session.call_tool(name, args)
            out["call_tree"] = text_of(
                await call("call_tree", {"path": "traces/page-load.json.gz", "thread": "CrRendererMain", "max_depth": 2})
            )
            out["bottom_up"] = text_of(
                await call("call_tree", {"path": "traces/page-load.json.gz", "bottom_up": True, "min_percent": 1})
            )
            out["network"] = text_of(await call("network_requests", {"path": "traces/page-load.json.gz", "filter": "PNG"}))
            out["whole"] = text_of(await call("call_tree", {"path": "traces/page-load.json.gz"}))
            out["summary"] = {
                name: text_of(await call("trace_summary", {"path": f"traces/{name}.json.gz"}))
                for name in ["causes", "page-load"]
            }
            out["insight"] = text_of(
                await call(
                    "analyze_insight",
                    {"path": "traces/causes.json.gz", "insight_set_id": "NO_NAVIGATION", "insight_name": "INPBreakdown"},
                )
            )
            out["event"] = text_of(await call("event", {"path": "traces/causes.json.gz", "key": "r-2212"}))
            out["activity"] = {
                "whole": text_of(await call("main_thread_activity", {"path": "traces/page-load.json.gz"})),
                "window": text_of(
                    await call(
                        "main_thread_activity",
                        {"path": "traces/page-load.json.gz", "window": "22594404431,22594628433"},
                    )
                ),
                "bad_window": text_of(
                    await call("main_thread_activity", {"path": "traces/page-load.json.gz", "window": "later"})
                ),
            }
            out["bad_insight"] = text_of(
                await call(
                    "analyze_insight",
                    {"path": "traces/causes.json.gz", "insight_set_id": "NAVIGATION_9", "insight_name": "INPBreakdown"},
                )
            )
            out["bad_key"] = text_of(await call("event", {"path": "traces/causes.json.gz", "key": "q-1"}))
            bad = {
                "outside": {"path": "../Cargo.toml"},
                "missing": {"path": "traces/nope.json"},
                "not_a_trace": {"path": "expected/2026-10/insights/known-differences.txt"},
                "window": {"path": "traces/page-load.json.gz", "window": "later"},
                "thread": {"path": "traces/page-load.json.gz", "thread": "NoSuchThread"},
            }
            out["bad"] = {k: text_of(await call("call_tree", v)) for k, v in bad.items()}
            # Arguments the schema refuses: the tool's error, or the
            # protocol's (which the SDK raises).
            try:
                out["no_path"] = text_of(await call("call_tree", {"thread": "CrRendererMain"}))
            except Exception as e:
                out["no_path"] = {"error": True, "text": str(e)}
            # Two requests at once, and the server still serving after the errors.
            both = await asyncio.gather(
                call("network_requests", {"path": "traces/page-load.json.gz"}),
                call("call_tree", {"path": "traces/causes.json.gz", "max_depth": 1}),
            )
            out["together"] = [text_of(r) for r in both]
    # A client that gives its roots (as file:// URIs) to a server given
    # none: paths are read under them, and only there.
    traces = pathlib.Path(root) / "traces"

    async def roots(context):
        return types.ListRootsResult(roots=[types.Root(uri=traces.as_uri())])

    params = StdioServerParameters(command=tracekit, args=["mcp", *server_args])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=roots) as session:
            await session.initialize()
            out["client_roots"] = {
                "inside": text_of(await session.call_tool("network_requests", {"path": "page-load.json.gz"})),
                "outside": text_of(await session.call_tool("network_requests", {"path": "../diff/README.md"})),
            }
    print(json.dumps(out))


asyncio.run(main())
