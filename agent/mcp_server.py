"""Offer the tools of a `ToolRegistry` as an MCP server (stdio or Streamable HTTP).

Built on the official `mcp` SDK's low-level `Server`: ``tools/list`` answers with
`registry.specs()` at the moment of the request (names, descriptions and JSON Schemas
exactly as the agent sees them), and ``tools/call`` goes through `registry.call` with
``caller="mcp:<client name>"``, so validation, timeouts, observation cuts and the log line
are the same as for the agent's own calls. A failed call is an MCP tool result with
``isError: true`` and the observation text. A `ToolAlias` offers a registry tool under a
second name at this boundary only (the agent's registry and prompt keep one name).

Streamable HTTP listens on 127.0.0.1 by default; any other address needs a bearer token,
and with a token every HTTP request without ``Authorization: Bearer <token>`` gets 401.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

from .errors import AgentError
from .tools import Tool, ToolRegistry, ToolResult

CallHook = Callable[[str, ToolResult], None]
"""Called with (caller, result) after every MCP tool call, e.g. to add it to the trace."""

_LOGGER = logging.getLogger(__name__)

__all__ = [
    "CallHook",
    "McpBridgeError",
    "McpHttpServer",
    "ToolAlias",
    "build_mcp_server",
    "is_loopback",
    "serve_http",
    "serve_stdio",
]

MCP_PATH = "/mcp"
"""URL path of the Streamable HTTP endpoint (the SDK's default)."""

SHUTDOWN_GRACE = 1.0
"""Seconds open HTTP streams get to finish when the server stops."""


class McpBridgeError(AgentError):
    """The MCP bridge cannot do what was asked (bad config, address in use, ...)."""


@dataclass(frozen=True)
class ToolAlias:
    """A second name under which MCP clients see and call the registry tool `target`.

    Listed only while `target` is in the registry and `name` is not; same input schema,
    same call and result as `target`; its description is `note` before the target's.
    """

    name: str
    target: str
    note: str = ""

    def spec(self, tool: Tool) -> dict[str, Any]:
        """The alias as ``{"name", "description", "parameters"}``, from its target `tool`."""
        description = " ".join(part for part in (self.note, tool.description) if part)
        return {"name": self.name, "description": description, "parameters": tool.parameters}


def is_loopback(host: str) -> bool:
    """True for addresses that only this machine can reach (127.0.0.0/8, ::1, "localhost")."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _client_label(ctx: Any, transport: str) -> str:
    """``mcp:<client name>`` from the initialize handshake, else ``mcp:<transport>``."""
    try:
        params = ctx.session.client_params
        name = params.client_info.name if params is not None else ""
    except Exception:  # the context shape differs between protocol eras
        name = ""
    return f"mcp:{name or transport}"


def build_mcp_server(
    registry: ToolRegistry,
    *,
    name: str = "xiaoting",
    transport: str = "mcp",
    on_call: CallHook | None = None,
    aliases: Iterable[ToolAlias] = (),
) -> Server[Any]:
    """An SDK low-level `Server` offering every tool of `registry`, read live on each request.

    `transport` labels calls in the log when the client gave no name ("stdio", "http").
    Tool failures (unknown tool, invalid arguments, timeout, exception) come back as
    ``CallToolResult(isError=True)`` with the registry's observation text. `on_call`
    gets ``(caller, ToolResult)`` after each call; its exceptions are logged and ignored.
    Each of `aliases` is listed after the registry's tools and called as its target.
    """
    by_name = {alias.name: alias for alias in aliases}

    def resolve(tool_name: str) -> str:
        """The registry name behind `tool_name`: its alias target, else itself."""
        alias = by_name.get(tool_name)
        if alias is None or tool_name in registry or alias.target not in registry:
            return tool_name
        return alias.target

    def specs() -> list[dict[str, Any]]:
        offered = registry.specs()
        for alias in by_name.values():
            target = registry.get(alias.target)
            if target is not None and alias.name not in registry:
                offered.append(alias.spec(target))
        return offered

    def _read_only(name: str) -> bool:
        tool = registry.get(resolve(name))
        return bool(tool is not None and tool.read_only)

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = [
            types.Tool(
                name=spec["name"],
                description=spec["description"],
                input_schema=spec["parameters"],
                annotations=types.ToolAnnotations(read_only_hint=_read_only(spec["name"])),
            )
            for spec in specs()
        ]
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        caller = _client_label(ctx, transport)
        name = resolve(params.name)
        if name != params.name:
            caller = f"{caller} as {params.name}"
        result = await registry.call(name, dict(params.arguments or {}), caller=caller)
        if on_call is not None:
            try:
                on_call(caller, result)
            except Exception:
                _LOGGER.exception("MCP call hook failed")
        return types.CallToolResult(
            content=[types.TextContent(text=result.text)],
            is_error=not result.ok,
        )

    def input_schema(tool_name: str) -> dict[str, Any] | None:
        tool = registry.get(resolve(tool_name))
        return tool.parameters if tool is not None else None

    return Server(
        name,
        instructions="Tools of the xiaoting audiobook box.",
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _init_options(server: Server[Any]) -> Any:
    return server.create_initialization_options(NotificationOptions(tools_changed=False))


async def serve_stdio(
    registry: ToolRegistry,
    *,
    name: str = "xiaoting",
    on_call: CallHook | None = None,
    aliases: Iterable[ToolAlias] = (),
) -> None:
    """Serve `registry` (and `aliases`) over MCP on this process's stdin/stdout until EOF.

    Newline-delimited JSON-RPC, as the SDK's `stdio_server` speaks it; while serving,
    fd 1 points at stderr so stray prints cannot corrupt the stream. For `xiaoting mcp`.
    """
    server = build_mcp_server(
        registry, name=name, transport="stdio", on_call=on_call, aliases=aliases
    )
    async with stdio_server() as (read_stream, write_stream):
        _LOGGER.info("MCP server on stdio with %d tools", len(registry.names()))
        await server.run(read_stream, write_stream, _init_options(server))
    _LOGGER.info("MCP stdio client closed the connection")


class _BearerGuard:
    """ASGI wrapper answering 401 to every HTTP request without the right bearer token."""

    def __init__(self, app: Any, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            given = b""
            for key, value in scope.get("headers", []):
                if key.lower() == b"authorization":
                    given = value
                    break
            if not hmac.compare_digest(given, self._expected):
                client = scope.get("client") or ("?", 0)
                _LOGGER.warning("MCP HTTP request from %s refused: bad or missing token", client[0])
                error = {"code": -32600, "message": "HTTP 401: missing or wrong bearer token"}
                body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="xiaoting"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self._app(scope, receive, send)


class McpHttpServer:
    """The registry's tools over MCP Streamable HTTP, served by uvicorn inside this loop.

    ``await start()`` binds (raises McpBridgeError for a non-loopback host without a token,
    or when the address cannot be bound) and returns the endpoint URL; ``await close()``
    stops it. `port` 0 picks a free port (see `port` after start). `aliases` are offered
    beside the registry's tools (see `build_mcp_server`). No signal handlers are
    installed: the app owns SIGTERM/SIGINT.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        host: str = "127.0.0.1",
        port: int = 8765,
        token: str = "",
        name: str = "xiaoting",
        on_call: CallHook | None = None,
        aliases: Iterable[ToolAlias] = (),
    ) -> None:
        if not is_loopback(host) and not token:
            raise McpBridgeError(
                f"refusing to serve MCP on {host}: an address other than loopback needs "
                "[mcp] token set (clients then send Authorization: Bearer <token>)"
            )
        self.host = host
        self.port = port
        self._token = token
        self._name = name
        self._registry = registry
        self._on_call = on_call
        self._aliases = tuple(aliases)
        self._uvicorn: Any = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        """The endpoint URL, e.g. ``http://127.0.0.1:8765/mcp``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{MCP_PATH}"

    def _bind(self) -> socket.socket:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self.port))
            sock.listen(64)
            sock.setblocking(False)
        except OSError as exc:
            sock.close()
            raise McpBridgeError(f"cannot listen on {self.host}:{self.port}: {exc}") from exc
        return sock

    async def start(self) -> str:
        """Bind and start serving; returns the endpoint URL. Raises McpBridgeError."""
        import uvicorn

        server = build_mcp_server(
            self._registry,
            name=self._name,
            transport="http",
            on_call=self._on_call,
            aliases=self._aliases,
        )
        app: Any = server.streamable_http_app(
            streamable_http_path=MCP_PATH, host=self.host, session_idle_timeout=600.0
        )
        if self._token:
            app = _BearerGuard(app, self._token)
        config = uvicorn.Config(
            app,
            host=self.host,
            port=self.port,
            log_config=None,
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=SHUTDOWN_GRACE,
        )
        config.load()
        self._socket = self._bind()
        self.port = self._socket.getsockname()[1]
        userver = uvicorn.Server(config)
        userver.lifespan = config.lifespan_class(config)
        try:
            await userver.startup(sockets=[self._socket])
        except SystemExit as exc:  # uvicorn exits on a lifespan failure
            self._socket.close()
            raise McpBridgeError(f"MCP HTTP server failed to start on {self.url}") from exc
        self._uvicorn = userver
        _LOGGER.info(
            "MCP server on %s (%s) with %d tools",
            self.url,
            "token required" if self._token else "no token",
            len(self._registry.names()),
        )
        return self.url

    async def close(self) -> None:
        """Stop accepting connections, end open streams (after `SHUTDOWN_GRACE`), unbind."""
        userver, self._uvicorn = self._uvicorn, None
        if userver is None:
            return
        userver.should_exit = True
        try:
            await userver.shutdown(sockets=[self._socket] if self._socket else None)
        finally:
            if self._socket is not None:
                self._socket.close()
                self._socket = None
        _LOGGER.info("MCP HTTP server stopped")


async def serve_http(
    registry: ToolRegistry,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str = "",
    name: str = "xiaoting",
    on_call: CallHook | None = None,
    aliases: Iterable[ToolAlias] = (),
) -> None:
    """Serve `registry` over MCP Streamable HTTP at ``http://host:port/mcp`` until cancelled.

    Meant to run as one task of the app's event loop; cancelling it stops the server
    cleanly (open streams get `SHUTDOWN_GRACE` seconds). Raises McpBridgeError when `host`
    is not loopback and `token` is empty, or when the address cannot be bound.
    """
    http = McpHttpServer(
        registry,
        host=host,
        port=port,
        token=token,
        name=name,
        on_call=on_call,
        aliases=aliases,
    )
    await http.start()
    try:
        await asyncio.Event().wait()
    finally:
        # Shield the shutdown from a second cancel so the socket is always released.
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(http.close())
