"""A small MCP stdio server with hand-picked tool schemas, or a broken one (for MCP tests).

``python raw_stdio.py schemas`` offers good and bad tools straight through the SDK's
low-level `Server` (no registry, so bad schemas reach the client). ``garbage`` writes
lines that are not JSON-RPC, ``silent`` reads requests and never answers.
"""

from __future__ import annotations

import asyncio
import sys

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

GOOD = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
HUGE = {
    "type": "object",
    "properties": {f"field_{i}": {"type": "string", "description": "x" * 40} for i in range(400)},
}
RECURSIVE = {
    "type": "object",
    "properties": {"node": {"$ref": "#/$defs/node"}},
    "$defs": {
        "node": {
            "type": "object",
            "properties": {"child": {"$ref": "#/$defs/node"}},
        }
    },
}
INVALID = {"type": "object", "properties": {"city": {"type": 5}}}
COLLIDING = {"type": "object", "properties": {}}

TOOLS = [
    ("forecast", "Weather forecast for a city.", GOOD),
    ("huge", "A tool with a huge schema.", HUGE),
    ("recursive", "A tool with a recursive schema.", RECURSIVE),
    ("invalid", "A tool whose schema is not JSON Schema.", INVALID),
    ("taken", "A tool whose prefixed name is already used.", COLLIDING),
]


def build() -> Server:
    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=text, input_schema=schema)
                for name, text, schema in TOOLS
            ]
        )

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments or {}
        if params.name == "forecast":
            text = f"sunny in {args.get('city', '?')}"
            return types.CallToolResult(content=[types.TextContent(text=text)])
        return types.CallToolResult(content=[types.TextContent(text="no")], is_error=True)

    return Server("raw", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve() -> None:
    server = build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def garbage() -> None:
    for line in sys.stdin:
        sys.stdout.write("this is not json-rpc {" + line[:10] + "\n")
        sys.stdout.flush()


def silent() -> None:
    for _ in sys.stdin:
        pass


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "schemas"
    if mode == "garbage":
        garbage()
    elif mode == "silent":
        silent()
    else:
        asyncio.run(serve())
