"""The MCP bridge: xiaoting's tools offered over MCP, and other MCP servers' tools taken in.

One import point for the device wiring; the server half lives in `agent.mcp_server`, the
client half in `agent.mcp_client`.
"""

from __future__ import annotations

from .mcp_client import MAX_SCHEMA_BYTES, McpClientManager, ServerSpec, schema_problem
from .mcp_server import (
    McpBridgeError,
    McpHttpServer,
    ToolAlias,
    build_mcp_server,
    is_loopback,
    serve_http,
    serve_stdio,
)

__all__ = [
    "MAX_SCHEMA_BYTES",
    "McpBridgeError",
    "McpClientManager",
    "McpHttpServer",
    "ServerSpec",
    "ToolAlias",
    "build_mcp_server",
    "is_loopback",
    "schema_problem",
    "serve_http",
    "serve_stdio",
]
