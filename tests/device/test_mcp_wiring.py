"""The service's MCP wiring: the configured server offers the agent's registry, and a call
arriving over MCP lands in the trace with its caller."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from types import SimpleNamespace

import httpx2
import mcp_types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agent.tools import ToolRegistry
from agent.trace import TraceWriter, read_last
from device import config as config_mod
from device.runtime import start_mcp

T = 10.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def get_status() -> str:
    """What is playing now."""
    return "空闲"


async def test_configured_mcp_server_offers_the_registry_and_traces_calls(tmp_path: Path) -> None:
    port = _free_port()
    cfg = config_mod.from_dict({"mcp": {"serve": True, "port": port}}, "<test>")
    registry = ToolRegistry()
    registry.add(get_status)
    trace = TraceWriter(tmp_path)
    rt = SimpleNamespace(registry=registry, trace=trace)
    closers = await asyncio.wait_for(start_mcp(cfg, rt), T)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            httpx2.AsyncClient() as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(
                read, write, client_info=types.Implementation(name="probe", version="1")
            ) as session,
        ):
            await asyncio.wait_for(session.initialize(), T)
            listing = await asyncio.wait_for(session.list_tools(), T)
            assert [t.name for t in listing.tools] == ["get_status"]
            result = await asyncio.wait_for(session.call_tool("get_status", {}), T)
            assert not result.is_error
    finally:
        for close in closers:
            await asyncio.wait_for(close(), T)
    turn = read_last(tmp_path, 1)[0]
    assert turn["steps"][0]["action"] == "get_status"
    assert "probe" in turn["backend"]
    assert turn["answer"] == "空闲"


async def test_non_loopback_server_without_token_is_refused_not_fatal(
    tmp_path: Path, caplog
) -> None:
    cfg = config_mod.from_dict({"mcp": {"serve": True, "host": "0.0.0.0"}}, "<test>")
    registry = ToolRegistry()
    registry.add(get_status)
    rt = SimpleNamespace(registry=registry, trace=None)
    closers = await asyncio.wait_for(start_mcp(cfg, rt), T)
    assert closers == []
    assert "MCP server not started" in caplog.text
