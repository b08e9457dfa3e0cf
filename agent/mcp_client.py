"""Take tools from other MCP servers into the agent's `ToolRegistry`, kept alive with backoff.

Each configured server (a stdio command or a Streamable HTTP URL) gets one supervising
task: connect with the official `mcp` SDK's `ClientSession`, list its tools, add each as
``<server>.<tool>`` to the registry (so the grammar and the system prompt are rebuilt by
the registry's subscribers), then ping every `ping_interval` seconds. When the server is
down at start, stops answering, or drops, its tools are withdrawn (`registry.remove`) and
the connection is retried after 1, 2, 4 ... up to `backoff_max` seconds.

Remote tools are checked before they join: a name that collides with an existing tool, a
schema larger than `MAX_SCHEMA_BYTES`, a recursive schema (``$ref`` cycle), a ``$ref`` that
points outside the schema, or one that is not valid JSON Schema (Draft 2020-12) is refused
with a log line naming the server and tool; the server's other tools are kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from .errors import ToolError
from .tools import Tool, ToolRegistry

_LOGGER = logging.getLogger(__name__)
CLOSE_TIMEOUT = 3.0  # seconds close() waits for the connections to end

__all__ = [
    "MAX_SCHEMA_BYTES",
    "McpClientManager",
    "ServerSpec",
    "schema_problem",
]

MAX_SCHEMA_BYTES = 16 * 1024
"""A remote tool's input schema larger than this (as compact JSON) is refused."""

MAX_SCHEMA_DEPTH = 32
"""Nesting depth beyond which a remote schema is refused (the GBNF grammar must stay small)."""

MAX_TOOLS_PER_SERVER = 64
"""Tools beyond this many from one server are refused (each one lengthens the prompt)."""

MAX_DESCRIPTION_CHARS = 1000
"""Remote tool descriptions are cut to this many characters."""

_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_CLIENT_INFO = types.Implementation(name="xiaoting", version="0.1.0")


@dataclass(frozen=True)
class ServerSpec:
    """One MCP server to use: `name` becomes the tool prefix (``weather.get_forecast``).

    Exactly one of `command` (argv of a stdio server, e.g. ``["uvx", "mcp-weather"]``) or
    `url` (a Streamable HTTP endpoint, e.g. ``http://10.0.0.2:8000/mcp``) is set. `timeout`
    is seconds per request (connect, list, each tool call). `headers` are sent with every
    HTTP request (e.g. ``{"Authorization": "Bearer ..."}``). Raises ValueError otherwise.
    """

    name: str
    command: list[str] | None = None
    url: str | None = None
    timeout: float = 10.0
    headers: dict[str, str] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not _SERVER_NAME.match(self.name or ""):
            raise ValueError(f"MCP server name {self.name!r}: use 1-32 of A-Z a-z 0-9 _ -")
        if bool(self.command) == bool(self.url):
            raise ValueError(f"MCP server {self.name}: set exactly one of command or url")
        if not 0 < self.timeout <= 600:
            raise ValueError(f"MCP server {self.name}: timeout must be in (0, 600] s")

    @classmethod
    def from_config(cls, config: Any) -> ServerSpec:
        """From an object with `name`, `command` (sequence, empty = none), `url`, `timeout`."""
        command = list(getattr(config, "command", ()) or ()) or None
        return cls(
            name=config.name,
            command=command,
            url=getattr(config, "url", "") or None,
            timeout=float(getattr(config, "timeout", 10.0)),
        )

    @property
    def target(self) -> str:
        """The command line or URL, for logs and `status()`."""
        return " ".join(self.command) if self.command else str(self.url)


# --------------------------------------------------------------------------- schemas


def _walk(node: Any, depth: int = 0):
    """Yield (value, depth) for every dict/list node of a JSON document."""
    yield node, depth
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value, depth + 1)


def _refs(node: Any) -> list[str]:
    return [
        n["$ref"] for n, _ in _walk(node) if isinstance(n, dict) and isinstance(n.get("$ref"), str)
    ]


def _resolve_pointer(schema: Any, ref: str) -> Any:
    """The node a local ``#/a/b`` reference points at; raises KeyError when it is missing."""
    node = schema
    if ref == "#":
        return node
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(ref)
    return node


def schema_problem(schema: Any) -> str | None:
    """Why a remote tool's input schema is refused, or None when it is acceptable.

    Refused: not a JSON object with ``"type": "object"``; more than `MAX_SCHEMA_BYTES` as
    compact JSON; nested deeper than `MAX_SCHEMA_DEPTH`; invalid under Draft 2020-12
    (`jsonschema.Draft202012Validator.check_schema`); a ``$ref`` outside the document, a
    dangling one, ``$dynamicRef``/``$recursiveRef``, or a cycle of ``$ref`` (recursive).
    """
    if not isinstance(schema, dict):
        return f"schema is a {type(schema).__name__}, not a JSON object"
    try:
        size = len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode())
    except (TypeError, ValueError, RecursionError) as exc:
        return f"schema is not JSON: {exc}"
    if size > MAX_SCHEMA_BYTES:
        return f"schema is huge ({size} bytes, limit {MAX_SCHEMA_BYTES})"
    if max(depth for _, depth in _walk(schema)) > MAX_SCHEMA_DEPTH:
        return f"schema is nested deeper than {MAX_SCHEMA_DEPTH} levels"
    if schema.get("type") != "object":
        return 'schema root is not {"type": "object"}'
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "root"
        return f"not valid JSON Schema (Draft 2020-12) at {where}: {exc.message}"
    for node, _ in _walk(schema):
        if isinstance(node, dict) and ("$dynamicRef" in node or "$recursiveRef" in node):
            return "schema is recursive ($dynamicRef/$recursiveRef)"
    # $ref graph: a target's subtree may hold further refs; a cycle means recursion.
    edges: dict[str, list[str]] = {}
    pending = _refs(schema)
    while pending:
        ref = pending.pop()
        if ref in edges:
            continue
        if ref != "#" and not ref.startswith("#/"):
            return f"schema has a $ref outside the document ({ref!r})"
        try:
            target = _resolve_pointer(schema, ref)
        except KeyError:
            return f"schema has a dangling $ref ({ref!r})"
        edges[ref] = _refs(target)
        pending.extend(edges[ref])
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def cyclic(ref: str) -> bool:
        state[ref] = 1
        for nxt in edges.get(ref, []):
            if state.get(nxt) == 1 or (nxt not in state and cyclic(nxt)):
                return True
        state[ref] = 2
        return False

    for ref in edges:
        if ref not in state and cyclic(ref):
            return f"schema is recursive ($ref cycle through {ref!r})"
    return None


def _result_text(result: types.CallToolResult) -> str:
    """Observation text of a remote tool result: its text blocks, else structured content."""
    parts: list[str] = []
    for block in result.content:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            parts.append(f"[{getattr(block, 'type', 'content')}]")
    if (
        not any(p and not p.startswith("[") for p in parts)
        and result.structured_content is not None
    ):
        return json.dumps(result.structured_content, ensure_ascii=False, default=str)
    return "\n".join(parts) if parts else "OK"


def _describe(exc: BaseException) -> str:
    """One line for an exception, looking inside (single-leaf) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return f"MCP error {exc.code}: {exc.message}"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# --------------------------------------------------------------------------- links


class _ConnectionLost(Exception):
    """The live connection to a server ended (it closed, or stopped answering pings)."""


@dataclass
class _Link:
    """Live state of one configured server."""

    spec: ServerSpec
    session: ClientSession | None = None
    tools: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    last_error: str = ""
    connects: int = 0
    lost: str = ""
    relist: bool = False
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    attempted: asyncio.Event = field(default_factory=asyncio.Event)
    connected_at: float = 0.0
    http_error: str = ""


class McpClientManager:
    """Connects the configured MCP servers and keeps their tools in `registry` while they live.

    ``await start()`` tries every server once (bounded by its timeout) and then keeps
    reconnecting in the background; ``await close()`` disconnects and withdraws every
    remote tool. `status()` reports each server for `xiaoting doctor`.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        servers: Sequence[ServerSpec],
        *,
        ping_interval: float = 5.0,
        backoff_initial: float = 1.0,
        backoff_max: float = 60.0,
    ) -> None:
        names = [s.name for s in servers]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise ValueError(f"MCP server names used twice: {', '.join(duplicated)}")
        self.registry = registry
        self.ping_interval = ping_interval
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self._links = [_Link(spec) for spec in servers]
        self._tasks: list[asyncio.Task[None]] = []

    # -- lifecycle

    async def start(self) -> None:
        """Start one supervising task per server and wait for each first connection attempt.

        Never raises for a server that is down: it is logged, reported by `status()` and
        retried with backoff.
        """
        if self._tasks:
            return
        for link in self._links:
            task = asyncio.create_task(self._supervise(link), name=f"mcp-client:{link.spec.name}")
            self._tasks.append(task)
        if self._links:
            limit = max(link.spec.timeout for link in self._links) * 2 + 1.0
            waits = [link.attempted.wait() for link in self._links]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*waits), timeout=limit)

    async def close(self) -> None:
        """Disconnect every server (stdio servers are stopped) and withdraw their tools."""
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        if tasks:
            # Bounded: a connection stuck in the SDK's teardown must not hold up a shutdown
            # that systemd expects within a few seconds.
            _, pending = await asyncio.wait(tasks, timeout=CLOSE_TIMEOUT)
            if pending:
                _LOGGER.warning("MCP client: %d connections did not close in time", len(pending))
        for link in self._links:
            self._withdraw(link)

    def status(self) -> list[dict[str, Any]]:
        """Per server: name, transport, target, connected, tools, refused, last_error, connects.

        `tools` are the registry names (``weather.get_forecast``) currently offered;
        `refused` maps remote tool names to the reason they were not added.
        """
        return [
            {
                "name": link.spec.name,
                "transport": "stdio" if link.spec.command else "http",
                "target": link.spec.target,
                "connected": link.session is not None,
                "tools": list(link.tools),
                "refused": dict(link.refused),
                "last_error": link.last_error,
                "connects": link.connects,
            }
            for link in self._links
        ]

    # -- supervision

    async def _supervise(self, link: _Link) -> None:
        delay = self.backoff_initial
        while True:
            started = time.monotonic()
            try:
                await self._serve_link(link)
            except asyncio.CancelledError:
                self._withdraw(link)
                raise
            except Exception as exc:  # every failure of one server stays with that server
                previous = link.last_error
                link.last_error = _describe(exc)
                if link.http_error and link.http_error not in link.last_error:
                    link.last_error += f" ({link.http_error})"
                if link.connected_at < started and link.last_error == previous:
                    _LOGGER.debug("MCP server %s still unavailable: %s", link.spec.name, previous)
                elif link.connected_at >= started:
                    _LOGGER.warning(
                        "MCP server %s lost: %s; its tools are withdrawn",
                        link.spec.name,
                        link.last_error,
                    )
                else:
                    _LOGGER.warning(
                        "MCP server %s (%s) unavailable: %s; retrying in %.1f s (and then less often)",
                        link.spec.name,
                        link.spec.target,
                        link.last_error,
                        delay,
                    )
            self._withdraw(link)
            link.attempted.set()
            if link.connected_at >= started:
                delay = self.backoff_initial
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff_max)

    async def _serve_link(self, link: _Link) -> None:
        """Connect, register tools, then watch the connection until it ends (raises)."""
        spec = link.spec
        link.lost = ""
        link.http_error = ""
        link.relist = False
        link.wakeup.clear()

        async def on_message(message: Any) -> None:
            if isinstance(message, Exception):
                _LOGGER.warning("MCP server %s sent garbage: %s", spec.name, _describe(message))
                return
            method = getattr(getattr(message, "root", message), "method", "")
            if method == "notifications/tools/list_changed":
                link.relist = True
                link.wakeup.set()

        async with contextlib.AsyncExitStack() as stack:
            if spec.command:
                params = StdioServerParameters(command=spec.command[0], args=spec.command[1:])
                read, write = await stack.enter_async_context(stdio_client(params))
            else:
                import httpx2

                # httpx2 is the SDK's HTTP client; the long read timeout is for SSE streams.
                http = httpx2.AsyncClient(
                    headers=dict(spec.headers or {}),
                    timeout=httpx2.Timeout(spec.timeout, read=300.0),
                )

                async def on_response(response: Any) -> None:
                    if response.status_code >= 400:
                        link.http_error = f"HTTP {response.status_code}"

                http.event_hooks["response"].append(on_response)
                await stack.enter_async_context(http)
                read, write = await stack.enter_async_context(
                    streamable_http_client(str(spec.url), http_client=http)
                )
            session = await stack.enter_async_context(
                ClientSession(
                    read,
                    write,
                    read_timeout_seconds=spec.timeout,
                    client_info=_CLIENT_INFO,
                    message_handler=on_message,
                )
            )
            await asyncio.wait_for(session.initialize(), spec.timeout)
            listing = await asyncio.wait_for(session.list_tools(), spec.timeout)
            link.session = session
            link.connects += 1
            link.connected_at = time.monotonic()
            link.last_error = ""
            self._register(link, listing.tools)
            link.attempted.set()
            _LOGGER.info(
                "MCP server %s connected (%s): %d tools",
                spec.name,
                spec.target,
                len(link.tools),
            )
            while True:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(link.wakeup.wait(), self.ping_interval)
                link.wakeup.clear()
                if link.lost:
                    raise _ConnectionLost(link.lost)
                if link.relist:
                    link.relist = False
                    listing = await asyncio.wait_for(session.list_tools(), spec.timeout)
                    self._register(link, listing.tools)
                else:
                    await asyncio.wait_for(session.send_ping(), spec.timeout)

    # -- registry

    def _register(self, link: _Link, remote_tools: Sequence[types.Tool]) -> None:
        """Add the acceptable remote tools as ``<server>.<tool>``; drop ones no longer listed."""
        spec = link.spec
        wanted: dict[str, Tool] = {}
        refused: dict[str, str] = {}
        for remote in remote_tools:
            reason = self._refusal(link, remote, wanted)
            if reason:
                refused[remote.name] = reason
                if link.refused.get(remote.name) != reason:
                    _LOGGER.warning(
                        "MCP server %s: tool %r refused: %s", spec.name, remote.name, reason
                    )
                continue
            full = f"{spec.name}.{remote.name}"
            description = (remote.description or remote.title or remote.name).strip()
            if len(description) > MAX_DESCRIPTION_CHARS:
                description = description[: MAX_DESCRIPTION_CHARS - 1] + "…"
            wanted[full] = Tool(
                name=full,
                description=f"{description} (from {spec.name})",
                parameters=remote.input_schema,
                func=self._remote_func(link, remote.name),
                timeout=spec.timeout,
                read_only=bool(remote.annotations and remote.annotations.read_only_hint),
            )
        link.refused = refused
        for name in [n for n in link.tools if n not in wanted]:
            self.registry.remove(name)
        link.tools = []
        for full, tool in wanted.items():
            current = self.registry.get(full)
            if current is None or current.spec() != tool.spec():
                try:
                    self.registry.add(tool)
                except ValueError as exc:
                    link.refused[full.split(".", 1)[1]] = str(exc)
                    _LOGGER.warning("MCP server %s: tool %r refused: %s", spec.name, full, exc)
                    continue
            link.tools.append(full)

    def _refusal(self, link: _Link, remote: types.Tool, wanted: dict[str, Tool]) -> str:
        full = f"{link.spec.name}.{remote.name}"
        if not _TOOL_NAME.match(remote.name):
            return "name must be 1-64 of A-Z a-z 0-9 _ . -"
        if full in wanted:
            return "listed twice"
        if full in self.registry and full not in link.tools:
            return f"name {full!r} collides with an existing tool"
        if len(wanted) >= MAX_TOOLS_PER_SERVER:
            return f"more than {MAX_TOOLS_PER_SERVER} tools from one server"
        return schema_problem(remote.input_schema) or ""

    def _withdraw(self, link: _Link) -> None:
        link.session = None
        tools, link.tools = link.tools, []
        for name in tools:
            self.registry.remove(name)

    def _remote_func(self, link: _Link, remote_name: str):
        spec = link.spec

        async def call_remote(**arguments: Any) -> str:
            session = link.session
            if session is None:
                raise ToolError(f"MCP server {spec.name} is unavailable; try again later")
            try:
                result = await session.call_tool(
                    remote_name, arguments, read_timeout_seconds=spec.timeout
                )
            except MCPError as exc:
                if exc.code == types.CONNECTION_CLOSED:
                    link.lost = "connection closed"
                    link.wakeup.set()
                    raise ToolError(f"MCP server {spec.name} disconnected") from exc
                if exc.code == types.REQUEST_TIMEOUT:
                    raise ToolError(
                        f"MCP server {spec.name} did not answer within {spec.timeout:g} s"
                    ) from exc
                raise ToolError(f"MCP server {spec.name}: {exc.message}") from exc
            except (OSError, RuntimeError) as exc:
                raise ToolError(f"MCP server {spec.name}: {_describe(exc)}") from exc
            text = _result_text(result)
            if result.is_error:
                raise ToolError(text)
            return text

        call_remote.__name__ = f"{spec.name}.{remote_name}"
        return call_remote
