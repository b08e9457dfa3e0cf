"""The SDK's own MCP client against our server, over Streamable HTTP and stdio."""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from agent.mcp_server import McpBridgeError, McpHttpServer, ToolAlias, is_loopback, serve_http

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_tools import SLOW_TIMEOUT, sample_registry

HERE = Path(__file__).resolve().parent
T = 10.0  # upper bound of any single await in these tests, seconds
CLIENT = types.Implementation(name="pytest-client", version="1")


@asynccontextmanager
async def http_session(url: str, headers: dict[str, str] | None = None):
    async with httpx2.AsyncClient(headers=headers or {}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, client_info=CLIENT) as session:
                await asyncio.wait_for(session.initialize(), T)
                yield session


@asynccontextmanager
async def running(registry, **options):
    server = McpHttpServer(registry, port=0, **options)
    url = await asyncio.wait_for(server.start(), T)
    try:
        yield server, url
    finally:
        await asyncio.wait_for(server.close(), T)


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def test_http_lists_exactly_the_registry_and_follows_changes():
    registry = sample_registry()
    async with running(registry) as (_, url), http_session(url) as session:
        listing = await asyncio.wait_for(session.list_tools(), T)
        offered = [
            {"name": t.name, "description": t.description, "parameters": t.input_schema}
            for t in listing.tools
        ]
        assert offered == registry.specs()
        read_only = {t.name: t.annotations.read_only_hint for t in listing.tools}
        assert read_only == {"echo": False, "add": True, "download": False, "nap": False}

        async def later(city: str) -> str:
            """Added while the server runs."""
            return city

        registry.add(later)
        registry.remove("add")
        listing = await asyncio.wait_for(session.list_tools(), T)
        names = [t.name for t in listing.tools]
        assert "later" in names and "add" not in names


async def test_http_calls_go_through_the_registry(caplog):
    caplog.set_level(logging.INFO, logger="agent.tools")
    calls: list[tuple[str, str, bool]] = []
    hook = lambda caller, result: calls.append((caller, result.name, result.ok))  # noqa: E731
    async with (
        running(sample_registry(), on_call=hook) as (_, url),
        http_session(url) as session,
    ):
        result = await asyncio.wait_for(session.call_tool("echo", {"text": "ab", "times": 3}), T)
        assert not result.is_error and text_of(result) == "ababab"
        result = await asyncio.wait_for(session.call_tool("add", {"a": 2, "b": "40"}), T)
        assert text_of(result) == "42"  # the registry's coercion applies to MCP calls too

        bad = await asyncio.wait_for(session.call_tool("add", {"a": 1, "c": 2}), T)
        assert bad.is_error and "invalid arguments for add" in text_of(bad)
        unknown = await asyncio.wait_for(session.call_tool("nope", {}), T)
        assert unknown.is_error and "unknown tool 'nope'" in text_of(unknown)

        slow = await asyncio.wait_for(session.call_tool("nap", {"seconds": 5}), T)
        assert slow.is_error and f"within {SLOW_TIMEOUT:g} s" in text_of(slow)
    assert calls[0] == ("mcp:pytest-client", "echo", True)
    assert ("mcp:pytest-client", "nap", False) in calls
    assert "tool echo by mcp:pytest-client ok" in caplog.text
    assert "tool nap by mcp:pytest-client failed" in caplog.text


async def play_book(keyword: str = "", section: int | None = None) -> str:
    """Find an audiobook and play it."""
    return f"playing {keyword} {section}"


async def test_http_alias_is_listed_and_called_as_its_target():
    registry = sample_registry()
    registry.add(play_book)
    alias = ToolAlias("search_and_play", "play_book", "The design note's name for play_book.")
    async with (
        running(registry, aliases=[alias]) as (_, url),
        http_session(url) as session,
    ):
        listing = await asyncio.wait_for(session.list_tools(), T)
        offered = {t.name: t for t in listing.tools}
        assert list(offered) == [*registry.names(), "search_and_play"]
        assert offered["search_and_play"].input_schema == offered["play_book"].input_schema
        assert offered["search_and_play"].description == (
            "The design note's name for play_book. Find an audiobook and play it."
        )
        args = {"keyword": "西游记", "section": 2}
        by_alias = await asyncio.wait_for(session.call_tool("search_and_play", args), T)
        by_name = await asyncio.wait_for(session.call_tool("play_book", args), T)
        assert not by_alias.is_error and text_of(by_alias) == text_of(by_name) == "playing 西游记 2"
        bad = await asyncio.wait_for(session.call_tool("search_and_play", {"page": 1}), T)
        assert bad.is_error and "invalid arguments for play_book" in text_of(bad)

        registry.remove("play_book")  # no target, no alias
        listing = await asyncio.wait_for(session.list_tools(), T)
        assert "search_and_play" not in [t.name for t in listing.tools]
        gone = await asyncio.wait_for(session.call_tool("search_and_play", args), T)
        assert gone.is_error and "unknown tool 'search_and_play'" in text_of(gone)
    assert "search_and_play" not in registry.names()  # the agent keeps one name per tool


async def test_http_call_while_a_download_runs():
    async with running(sample_registry()) as (_, url), http_session(url) as session:
        loop = asyncio.get_running_loop()
        download = asyncio.create_task(session.call_tool("download", {"seconds": 1.5}))
        await asyncio.sleep(0.1)
        started = loop.time()
        quick = await asyncio.wait_for(session.call_tool("echo", {"text": "hi"}), T)
        assert text_of(quick) == "hi"
        assert loop.time() - started < 1.0 and not download.done()
        done = await asyncio.wait_for(download, T)
        assert text_of(done) == "downloaded in 1.5 s"


async def raw_post(url: str, headers: dict[str, str]) -> int:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx2.AsyncClient() as http:
        response = await asyncio.wait_for(http.post(url, json=body, headers=base | headers), T)
        return response.status_code


async def test_http_token_required_when_set():
    async with running(sample_registry(), token="s3cret") as (_, url):
        assert await raw_post(url, {}) == 401
        assert await raw_post(url, {"Authorization": "Bearer wrong"}) == 401
        assert await raw_post(url, {"Authorization": "s3cret"}) == 401
        assert await raw_post(url, {"Authorization": "Bearer s3cret"}) == 200
        async with http_session(url, {"Authorization": "Bearer s3cret"}) as session:
            result = await asyncio.wait_for(session.call_tool("echo", {"text": "ok"}), T)
            assert text_of(result) == "ok"


def test_non_loopback_needs_a_token():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    with pytest.raises(McpBridgeError, match="token"):
        McpHttpServer(sample_registry(), host="0.0.0.0")
    McpHttpServer(sample_registry(), host="0.0.0.0", token="t")  # accepted with a token


async def test_address_in_use_is_a_clear_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(McpBridgeError, match="cannot listen"):
            await asyncio.wait_for(serve_http(sample_registry(), port=port), T)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_serve_http_is_a_task_that_stops_on_cancel():
    port = free_port()
    task = asyncio.create_task(serve_http(sample_registry(), port=port))
    url = f"http://127.0.0.1:{port}/mcp"
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            await asyncio.sleep(0.05)
    async with http_session(url) as session:
        result = await asyncio.wait_for(session.call_tool("echo", {"text": "up"}), T)
        assert text_of(result) == "up"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, T)
    with socket.socket() as again:  # the port is free again
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))


async def test_stdio_server_with_the_sdk_client():
    params = StdioServerParameters(command=sys.executable, args=[str(HERE / "registry_stdio.py")])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, client_info=CLIENT) as session:
            init = await asyncio.wait_for(session.initialize(), T)
            assert init.server_info.name == "sample"
            listing = await asyncio.wait_for(session.list_tools(), T)
            assert [t.name for t in listing.tools] == sample_registry().names()
            result = await asyncio.wait_for(session.call_tool("add", {"a": 20, "b": 22}), T)
            assert text_of(result) == "42" and not result.is_error
            bad = await asyncio.wait_for(session.call_tool("add", {"a": "x", "b": 1}), T)
            assert bad.is_error and "invalid arguments for add" in text_of(bad)
            slow = await asyncio.wait_for(session.call_tool("nap", {"seconds": 5}), T)
            assert slow.is_error and "did not finish" in text_of(slow)
            download = asyncio.create_task(session.call_tool("download", {"seconds": 1.0}))
            await asyncio.sleep(0.1)
            quick = await asyncio.wait_for(session.call_tool("echo", {"text": "x"}), T)
            assert text_of(quick) == "x" and not download.done()
            assert text_of(await asyncio.wait_for(download, T)) == "downloaded in 1 s"
