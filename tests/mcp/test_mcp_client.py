"""Our MCP client manager against small MCP servers started by the tests (stdio and HTTP)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.mcp_client import McpClientManager, ServerSpec, schema_problem
from agent.mcp_server import McpHttpServer
from agent.tools import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_tools import sample_registry

HERE = Path(__file__).resolve().parent
T = 10.0  # upper bound of any single await in these tests, seconds
FAST = {"ping_interval": 0.2, "backoff_initial": 0.1, "backoff_max": 0.4}


async def wait_until(registry: ToolRegistry, predicate: Callable[[], bool]) -> None:
    """Wait (at most T seconds) for a registry change after which `predicate()` holds."""
    changed = asyncio.Event()
    unsubscribe = registry.subscribe(changed.set)

    async def watch() -> None:
        while not predicate():
            await changed.wait()
            changed.clear()

    try:
        await asyncio.wait_for(watch(), T)
    finally:
        unsubscribe()


async def local_echo(text: str) -> str:
    """Local tool the agent already has."""
    return text


def stdio(name: str, script: str, *args: str, timeout: float = 3.0) -> ServerSpec:
    return ServerSpec(
        name=name, command=[sys.executable, str(HERE / script), *args], timeout=timeout
    )


async def test_stdio_tools_join_the_registry_and_are_called(caplog):
    caplog.set_level(logging.INFO)
    registry = ToolRegistry([local_echo])
    versions: list[int] = []
    registry.subscribe(lambda: versions.append(registry.version))
    manager = McpClientManager(registry, [stdio("box", "registry_stdio.py")], **FAST)
    await asyncio.wait_for(manager.start(), T)
    try:
        remote = sample_registry()
        assert registry.names() == ["local_echo"] + [f"box.{n}" for n in remote.names()]
        spec = registry.get("box.add").spec()
        assert spec["parameters"] == remote.get("add").parameters
        assert spec["description"].startswith("Add two integers.")
        # the server's readOnlyHint: a read-only tool may run on a model's guess
        assert registry.get("box.add").read_only and not registry.get("box.echo").read_only
        assert versions  # subscribers (grammar, prompt) heard about the new tools

        result = await asyncio.wait_for(registry.call("box.add", {"a": 1, "b": 2}), T)
        assert result.ok and result.text == "3"
        bad = await asyncio.wait_for(registry.call("box.add", {"a": 1}), T)
        assert not bad.ok and "'b' is required" in bad.text  # refused locally, same schema
        remote_fail = await asyncio.wait_for(registry.call("box.nap", {"seconds": 3}), T)
        assert not remote_fail.ok and "did not finish" in remote_fail.text

        [status] = manager.status()
        assert status["connected"] and status["transport"] == "stdio"
        assert status["tools"] == [f"box.{n}" for n in remote.names()]
        assert status["last_error"] == ""
    finally:
        await asyncio.wait_for(manager.close(), T)
    assert registry.names() == ["local_echo"]
    assert "MCP server box connected" in caplog.text


async def test_stdio_server_dies_and_comes_back(tmp_path):
    pidfile = tmp_path / "pid"
    registry = ToolRegistry()
    spec = stdio("box", "registry_stdio.py", "--pidfile", str(pidfile))
    manager = McpClientManager(registry, [spec], **FAST)
    await asyncio.wait_for(manager.start(), T)
    try:
        assert "box.echo" in registry
        first = int(pidfile.read_text())
        os.kill(first, signal.SIGKILL)
        await wait_until(registry, lambda: "box.echo" not in registry)
        failed = await asyncio.wait_for(registry.call("box.echo", {"text": "x"}), T)
        assert not failed.ok and "unknown tool 'box.echo'" in failed.text
        await wait_until(registry, lambda: "box.echo" in registry)
        assert int(pidfile.read_text()) != first
        result = await asyncio.wait_for(registry.call("box.echo", {"text": "back"}), T)
        assert result.ok and result.text == "back"
        assert manager.status()[0]["connects"] == 2
    finally:
        await asyncio.wait_for(manager.close(), T)


async def test_bad_schemas_and_colliding_names_are_refused(caplog):
    caplog.set_level(logging.WARNING, logger="agent.mcp_client")
    registry = ToolRegistry()
    registry.add(local_echo, name="raw.taken")
    manager = McpClientManager(registry, [stdio("raw", "raw_stdio.py", "schemas")], **FAST)
    await asyncio.wait_for(manager.start(), T)
    try:
        assert registry.names() == ["raw.taken", "raw.forecast"]
        assert registry.get("raw.taken").func is local_echo  # ours is kept
        result = await asyncio.wait_for(registry.call("raw.forecast", {"city": "Seoul"}), T)
        assert result.ok and result.text == "sunny in Seoul"
        refused = manager.status()[0]["refused"]
        assert set(refused) == {"huge", "recursive", "invalid", "taken"}
        assert "huge" in refused["huge"]
        assert "recursive" in refused["recursive"]
        assert "not valid JSON Schema" in refused["invalid"]
        assert "collides" in refused["taken"]
    finally:
        await asyncio.wait_for(manager.close(), T)
    for name in ("huge", "recursive", "invalid", "taken"):
        assert f"tool '{name}' refused" in caplog.text
    assert registry.names() == ["raw.taken"]


@pytest.mark.parametrize("mode", ["silent", "garbage"])
async def test_a_broken_server_is_isolated(mode):
    registry = ToolRegistry([local_echo])
    servers = [
        stdio("broken", "raw_stdio.py", mode, timeout=0.5),
        stdio("box", "registry_stdio.py"),
    ]
    manager = McpClientManager(registry, servers, **FAST)
    await asyncio.wait_for(manager.start(), T)
    try:
        broken, box = manager.status()
        assert not broken["connected"] and broken["tools"] == []
        assert broken["last_error"]
        assert box["connected"] and "box.echo" in registry
        result = await asyncio.wait_for(registry.call("box.echo", {"text": "fine"}), T)
        assert result.ok and result.text == "fine"
        assert not any(name.startswith("broken.") for name in registry.names())
    finally:
        await asyncio.wait_for(manager.close(), T)


async def test_http_server_down_at_start_then_up_then_gone_then_back():
    served = sample_registry()
    first = McpHttpServer(served, port=0)
    await asyncio.wait_for(first.start(), T)
    port = first.port
    await asyncio.wait_for(first.close(), T)  # down at start

    registry = ToolRegistry([local_echo])
    spec = ServerSpec(name="net", url=f"http://127.0.0.1:{port}/mcp", timeout=2.0)
    manager = McpClientManager(registry, [spec], **FAST)
    await asyncio.wait_for(manager.start(), T)
    try:
        status = manager.status()[0]
        assert not status["connected"] and status["last_error"]
        assert registry.names() == ["local_echo"]

        server = McpHttpServer(served, port=port)
        await asyncio.wait_for(server.start(), T)
        await wait_until(registry, lambda: "net.download" in registry)
        result = await asyncio.wait_for(registry.call("net.add", {"a": 40, "b": 2}), T)
        assert result.ok and result.text == "42"

        await asyncio.wait_for(server.close(), T)
        await wait_until(registry, lambda: "net.add" not in registry)
        assert not manager.status()[0]["connected"]

        server = McpHttpServer(served, port=port)
        await asyncio.wait_for(server.start(), T)
        try:
            await wait_until(registry, lambda: "net.add" in registry)
            result = await asyncio.wait_for(registry.call("net.echo", {"text": "again"}), T)
            assert result.ok and result.text == "again"
        finally:
            await asyncio.wait_for(server.close(), T)
    finally:
        await asyncio.wait_for(manager.close(), T)


async def test_http_with_token():
    server = McpHttpServer(sample_registry(), port=0, token="s3cret")
    url = await asyncio.wait_for(server.start(), T)
    try:
        good = ServerSpec(name="good", url=url, headers={"Authorization": "Bearer s3cret"})
        bad = ServerSpec(name="bad", url=url, headers={"Authorization": "Bearer nope"})
        registry = ToolRegistry()
        manager = McpClientManager(registry, [good, bad], **FAST)
        await asyncio.wait_for(manager.start(), T)
        try:
            good_status, bad_status = manager.status()
            assert good_status["connected"] and "good.echo" in registry
            assert not bad_status["connected"] and "401" in bad_status["last_error"]
            assert not any(name.startswith("bad.") for name in registry.names())
        finally:
            await asyncio.wait_for(manager.close(), T)
    finally:
        await asyncio.wait_for(server.close(), T)


def test_server_spec_checks():
    with pytest.raises(ValueError, match="exactly one"):
        ServerSpec(name="x")
    with pytest.raises(ValueError, match="exactly one"):
        ServerSpec(name="x", command=["a"], url="http://h/mcp")
    with pytest.raises(ValueError, match="name"):
        ServerSpec(name="has.dot", url="http://h/mcp")

    class Config:
        name = "weather"
        command = ("uvx", "mcp-weather")
        url = ""
        timeout = 4.0

    spec = ServerSpec.from_config(Config())
    assert spec.command == ["uvx", "mcp-weather"] and spec.url is None and spec.timeout == 4.0
    with pytest.raises(ValueError, match="twice"):
        McpClientManager(ToolRegistry(), [spec, spec])


def test_schema_problems():
    ok = {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {}}}
    assert schema_problem(ok) is None
    assert "recursive" in schema_problem({"type": "object", "properties": {"a": {"$ref": "#"}}})
    assert "outside" in schema_problem(
        {"type": "object", "properties": {"a": {"$ref": "https://example.org/s.json"}}}
    )
    assert "dangling" in schema_problem({"type": "object", "properties": {"a": {"$ref": "#/x"}}})
    assert "not {" in schema_problem({"type": "string"})
    assert "JSON object" in schema_problem(["type", "object"])
    deep: dict = {"type": "object"}
    node = deep
    for _ in range(40):
        node["properties"] = {"n": {"type": "object"}}
        node = node["properties"]["n"]
    assert "deeper" in schema_problem(deep)
