"""The control socket under abuse: many idle clients, long and malformed requests, a second
server on the same path; and requests reaching the App's public methods."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest

from device.control import (
    MAX_LINE,
    ControlServer,
    check_request,
    control_request,
)

T = 5


class Target:
    """A ControlTarget that records what reaches it."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, bool, str | None]] = []
        self.injected: list[str] = []
        self.tools: list[tuple[str, dict]] = []

    def status(self) -> dict:
        return {"ok": True, "state": "idle"}

    async def ask(self, text: str, *, speak: bool = True, language: str | None = None) -> dict:
        self.asked.append((text, speak, language))
        return {"ok": True, "answer": f"echo {text}"}

    def inject(self, text: str) -> dict:
        self.injected.append(text)
        return {"ok": True}

    async def call_tool(self, name: str, arguments: dict) -> dict:
        self.tools.append((name, arguments))
        return {"ok": True, "text": name}


@pytest.fixture
async def served(tmp_path):
    target = Target()
    server = ControlServer(tmp_path / "control.sock", target, idle_seconds=0.5)
    await asyncio.wait_for(server.start(), T)
    yield server, target
    await asyncio.wait_for(server.close(), T)


@pytest.mark.parametrize(
    ("request_", "words"),
    [
        ({"cmd": "ask", "text": None}, "must be a string, got null"),
        ({"cmd": "ask", "text": 5}, "must be a string, got a number"),
        ({"cmd": "ask", "text": "  "}, "is empty"),
        ({"cmd": "ask"}, "'text' is required"),
        ({"cmd": "ask", "text": "hi", "speak": "yes"}, "true or false"),
        ({"cmd": "ask", "text": "hi", "colour": 1}, "unknown field 'colour'"),
        ({"cmd": "inject", "text": True}, "must be a string, got a boolean"),
        ({"cmd": "tool", "name": "x", "arguments": [1]}, "must be a JSON object, got a list"),
        ({"cmd": "tool"}, "'name' is required"),
        ({"cmd": 3}, "unknown command 3"),
        ({"cmd": "dance"}, "unknown command 'dance'"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_every_field_is_type_checked(request_, words) -> None:
    assert words in check_request(request_)


def test_valid_requests_pass() -> None:
    for request in (
        {"cmd": "status"},
        {"cmd": "ask", "text": "hi", "speak": False, "language": "zh"},
        {"cmd": "inject", "text": "不是这本"},
        {"cmd": "tool", "name": "get_status", "arguments": {}},
        {"cmd": "tool", "name": "get_status"},
    ):
        assert check_request(request) == ""


async def test_null_text_is_refused_and_reaches_nothing(served) -> None:
    server, target = served
    reply = await asyncio.wait_for(control_request(server.path, {"cmd": "ask", "text": None}), T)
    assert reply["ok"] is False and "got null" in reply["error"]
    assert target.asked == []
    reply = await asyncio.wait_for(
        control_request(server.path, {"cmd": "ask", "text": " hi ", "language": "zh"}), T
    )
    assert reply == {"ok": True, "answer": "echo hi"}
    assert target.asked == [("hi", True, "zh")]


async def _raw(path, payload: bytes, *, read: bool = True) -> bytes:
    reader, writer = await asyncio.open_unix_connection(str(path), limit=4 * MAX_LINE)
    try:
        writer.write(payload)
        await writer.drain()
        return await reader.readline() if read else b""
    finally:
        writer.close()


async def test_a_long_request_is_answered_request_too_long(served, caplog) -> None:
    server, _ = served
    line = json.dumps({"cmd": "ask", "text": "x" * (MAX_LINE + 10)}).encode() + b"\n"
    with caplog.at_level(logging.WARNING, logger="device.control"):
        reply = json.loads(await asyncio.wait_for(_raw(server.path, line), T))
    assert reply["ok"] is False and reply["error"].startswith("request too long")
    assert any("over" in r.getMessage() for r in caplog.records)
    status = await asyncio.wait_for(control_request(server.path, {"cmd": "status"}), T)
    assert status["ok"]


async def test_idle_clients_cannot_lock_status_out(tmp_path, caplog) -> None:
    server = ControlServer(tmp_path / "c.sock", Target(), idle_seconds=30.0)
    await asyncio.wait_for(server.start(), T)
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    try:
        with caplog.at_level(logging.WARNING, logger="device.control"):
            for _ in range(200):
                idle.append(
                    await asyncio.wait_for(asyncio.open_unix_connection(str(server.path)), T)
                )
                await asyncio.sleep(0.002)
            await asyncio.sleep(0.3)
            assert len(server._clients) <= 8
            started = time.monotonic()
            reply = await asyncio.wait_for(control_request(server.path, {"cmd": "status"}), T)
            assert reply["ok"] and time.monotonic() - started < 1.0
        assert server.evicted + server.refused >= 192 and server.evicted > 0
        # At most about one line per second about them, not one per client.
        lines = [r for r in caplog.records if r.name == "device.control"]
        assert 1 <= len(lines) <= 3, [r.getMessage() for r in lines]
        dropped = await asyncio.wait_for(idle[0][0].readline(), T)
        assert b"idle, disconnected" in dropped
    finally:
        for _, writer in idle:
            writer.close()
        await asyncio.wait_for(server.close(), T)


class SlowTarget(Target):
    """Every ask takes until `release` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def ask(self, text: str, *, speak: bool = True, language: str | None = None) -> dict:
        await self.release.wait()
        return {"ok": True, "answer": text}


async def test_a_ninth_client_is_refused_while_eight_requests_run(tmp_path) -> None:
    target = SlowTarget()
    server = ControlServer(tmp_path / "c.sock", target)
    await asyncio.wait_for(server.start(), T)
    try:
        busy = [
            asyncio.create_task(control_request(server.path, {"cmd": "ask", "text": str(i)}))
            for i in range(8)
        ]
        await asyncio.sleep(0.3)
        reply = await asyncio.wait_for(control_request(server.path, {"cmd": "status"}), T)
        assert reply["ok"] is False and "too many clients" in reply["error"]
        assert server.refused == 1
        target.release.set()
        answers = await asyncio.wait_for(asyncio.gather(*busy), T)
        assert sorted(a["answer"] for a in answers) == [str(i) for i in range(8)]
    finally:
        await asyncio.wait_for(server.close(), T)


async def test_idle_client_is_told_and_disconnected(served) -> None:
    server, _ = served
    reader, writer = await asyncio.open_unix_connection(str(server.path))
    try:
        line = await asyncio.wait_for(reader.readline(), T)
        assert json.loads(line) == {"ok": False, "error": "idle timeout"}
        assert await asyncio.wait_for(reader.read(), T) == b""
    finally:
        writer.close()


async def test_socket_removed_only_by_its_owner(tmp_path) -> None:
    path = tmp_path / "control.sock"
    first = ControlServer(path, Target())
    second = ControlServer(path, Target())
    await asyncio.wait_for(first.start(), T)
    await asyncio.wait_for(second.start(), T)  # takes the path over
    await asyncio.wait_for(first.close(), T)
    assert path.exists(), "the first server removed the second one's socket"
    reply = await asyncio.wait_for(control_request(path, {"cmd": "status"}), T)
    assert reply["ok"]
    await asyncio.wait_for(second.close(), T)
    assert not path.exists()
