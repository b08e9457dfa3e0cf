"""The service's MCP wiring: the configured server offers the agent's registry, and a call
arriving over MCP lands in the trace with its caller."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

import httpx2
import mcp_types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "player"))

from player_fixtures import RecordingSink, make_album

from agent.tools import ToolRegistry
from agent.trace import TraceWriter, read_last
from device import config as config_mod
from device.config import dev_config
from device.runtime import _make_registry, start_mcp
from player import Player, PlayerState

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


async def test_the_design_notes_search_and_play_is_play_book_over_mcp(tmp_path: Path) -> None:
    library = tmp_path / "library"
    make_album(library, "西游记", ["第1集", "第2集"], seconds=2.0)
    port = _free_port()
    cfg = dev_config(
        tmp_path,
        language="zh",
        library={"paths": [str(library)]},
        mcp={"serve": True, "port": port},
    )
    player = Player(
        library_paths=[library],
        cache_dir=cfg.path("cache_dir"),
        state_dir=cfg.path("state_dir"),
        sink=RecordingSink(speed=20.0),
        language="zh",
    )
    await asyncio.wait_for(player.start(), T)
    registry = _make_registry(cfg, player)
    names = registry.names()
    rt = SimpleNamespace(registry=registry, trace=None)
    closers = await asyncio.wait_for(start_mcp(cfg, rt), T)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            httpx2.AsyncClient() as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(
                read, write, client_info=types.Implementation(name="note", version="1")
            ) as session,
        ):
            await asyncio.wait_for(session.initialize(), T)
            listing = await asyncio.wait_for(session.list_tools(), T)
            offered = {t.name: t for t in listing.tools}
            assert list(offered) == [*names, "search_and_play"]
            alias, target = offered["search_and_play"], offered["play_book"]
            assert alias.input_schema == target.input_schema
            assert set(alias.input_schema["properties"]) == {"keyword", "section", "episode_title"}
            assert alias.description.startswith("The design note's name for play_book.")
            assert alias.description.endswith(target.description)
            args = {"keyword": "西游记", "section": 2}
            result = await asyncio.wait_for(session.call_tool("search_and_play", args), T)
            assert not result.is_error, result
            assert "西游记第2集" in "".join(b.text for b in result.content)
            assert player.state in (PlayerState.LOADING, PlayerState.PLAYING)
    finally:
        for close in closers:
            await asyncio.wait_for(close(), T)
        await asyncio.wait_for(player.close(), T)
    assert registry.names() == names and "search_and_play" not in names
