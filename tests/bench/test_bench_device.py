"""The benchmark's device (bench/agent.py `Device`): a turn the benchmark stopped waiting for
goes on in the service, and the next request waits for it instead of being refused as busy
(and judged a failure that no word of its own caused)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

import device.control
from bench.agent import Device, DeviceStuck
from device.app import AppState
from device.control import ControlError


class SlowApp:
    """An App whose turn outlasts the client's wait: THINKING until `finish`."""

    def __init__(self) -> None:
        self.state = AppState.IDLE
        self.changed = asyncio.Event()

    def begin(self) -> None:
        self.state = AppState.THINKING

    def finish(self) -> None:
        self.state = AppState.IDLE
        self.changed.set()

    async def wait_state(self, state: AppState) -> None:
        while self.state != state:
            self.changed.clear()
            await self.changed.wait()

    def ask(self, text: str) -> dict:
        if self.state != AppState.IDLE:
            return {"ok": False, "error": f"busy ({self.state})"}
        return {"ok": True, "answer": f"done: {text}"}


def _device(app: SlowApp, step_timeout: float = 0.2) -> Device:
    config = SimpleNamespace(
        runtime_dir="/nonexistent",
        llm=SimpleNamespace(max_rounds=2, step_timeout=step_timeout),
    )
    dev = Device(config)
    dev.runtime = SimpleNamespace(app=app)
    return dev


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> SlowApp:
    app = SlowApp()

    async def ask(path, text, *, speak=True, wait=120.0):
        if text == "slow":
            app.begin()  # the service's turn goes on past the client's wait
            asyncio.get_running_loop().call_later(0.3, app.finish)
            await asyncio.sleep(wait)
            raise ControlError(f"{path}: no answer within {wait:g} s")
        return app.ask(text)

    monkeypatch.setattr(device.control, "ask", ask)
    return app


async def test_a_timed_out_turn_is_waited_for_before_the_next_request(
    app: SlowApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bench.agent.SETTLE_MARGIN", 1.0)
    dev = _device(app)
    with pytest.raises(ControlError):
        await dev.ask("slow", 0.05)
    assert app.state == AppState.IDLE  # the late turn ended before ask gave up
    reply = await dev.ask("next", 1.0)
    assert reply == {"ok": True, "answer": "done: next"}


async def test_a_device_that_never_comes_back_stops_the_run(
    app: SlowApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bench.agent.SETTLE_MARGIN", 0.0)
    dev = _device(app, step_timeout=0.01)  # bound 0.02 s: the turn takes 0.3 s
    with pytest.raises(DeviceStuck):
        await dev.ask("slow", 0.01)
