"""Runtime start-up checks, closing, and the control client against a dead socket."""

from __future__ import annotations

import asyncio
import logging

import pytest
from device_fakes import FakeAgent, FakeCapture, FakePlayer, RecordingOutput

from device.config import dev_config
from device.control import ControlError, control_request
from device.runtime import build


@pytest.fixture(autouse=True)
def _reset_gpiozero():
    yield
    from gpiozero import Device

    if Device.pin_factory is not None:
        Device.pin_factory.close()
    Device.pin_factory = None


async def test_build_app_logs_missing_parts_and_keeps_working(tmp_path, caplog) -> None:
    config = dev_config(
        tmp_path,
        models_dir=str(tmp_path / "no-models"),
        button={"gpio": True, "pin_factory": "mock", "keyboard": False},
    )
    with caplog.at_level(logging.INFO):
        player = FakePlayer()
        rt = await asyncio.wait_for(
            build(
                config,
                agent=FakeAgent("ok"),
                player=player,
                output=RecordingOutput(),
                capture=FakeCapture(),
            ),
            10,
        )
        app = rt.app
        await rt.start_control()
        task = asyncio.create_task(rt.serve())
        await asyncio.wait_for(app.wait_state("idle"), 3)
        reply = await asyncio.wait_for(
            control_request(rt.control.path, {"cmd": "ask", "text": "hi"}), 5
        )
        app.request_stop()
        assert await asyncio.wait_for(task, 5) == 0
    assert rt.closed and not rt.control.path.exists() and player.bookmarks_saved
    assert reply["ok"] and reply["answer"] == "ok"
    assert app.recogniser is None and app.synthesiser is None
    assert "gpio" in app.buttons
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(m.startswith("speech recognition off: Vosk model not found") for m in lines)
    assert any(m.startswith("speech output off: piper voice not found") for m in lines)


async def test_unusable_gpio_is_one_line_and_not_fatal(tmp_path, caplog) -> None:
    config = dev_config(tmp_path, button={"gpio": True, "pin_factory": "nope", "keyboard": False})
    with caplog.at_level(logging.WARNING):
        rt = await asyncio.wait_for(
            build(
                config,
                agent=FakeAgent(),
                player=FakePlayer(),
                output=RecordingOutput(),
                capture=FakeCapture(),
                recogniser=None,
                synthesiser=None,
            ),
            10,
        )
    await asyncio.wait_for(rt.close(), 5)
    assert rt.app.buttons == {}
    gpio_lines = [r for r in caplog.records if "GPIO button off" in r.getMessage()]
    assert len(gpio_lines) == 1


async def test_control_client_reports_a_missing_service(tmp_path) -> None:
    with pytest.raises(ControlError, match="xiaoting is not running"):
        await asyncio.wait_for(control_request(tmp_path / "none.sock", {"cmd": "status"}), 3)


class ClosingModel:
    """A chat model that records being closed (sync close, as LocalModel's)."""

    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


class AsyncClosingModel(ClosingModel):
    """A chat model with an async close (as RemoteModel's)."""

    async def close(self) -> None:  # type: ignore[override]
        self.closed += 1


async def test_runtime_closes_every_part_once_even_without_running(tmp_path) -> None:
    config = dev_config(tmp_path, button={"gpio": False, "keyboard": False})
    player = FakePlayer()
    output = RecordingOutput()
    rt = await asyncio.wait_for(
        build(
            config,
            agent=FakeAgent(),
            player=player,
            output=output,
            capture=FakeCapture(),
            recogniser=None,
            synthesiser=None,
        ),
        10,
    )
    sync_model, async_model = ClosingModel(), AsyncClosingModel()
    rt.models = [sync_model, async_model, sync_model]
    closed: list[str] = []

    async def mcp_close() -> None:
        closed.append("mcp")

    rt.closers.append(mcp_close)
    await rt.start_control()
    assert rt.control is not None and rt.control.path.exists()
    await asyncio.wait_for(rt.close(), 5)
    await asyncio.wait_for(rt.close(), 5)
    assert sync_model.closed == 1 and async_model.closed == 1 and closed == ["mcp"]
    assert player.bookmarks_saved and not output.is_open
    assert not rt.control.path.exists()


class FailingAgent(FakeAgent):
    """An agent whose turn raises (an implementation error past the agent's own guard)."""

    async def run(self, utterance, *, cancel=None, on_step=None):
        raise RuntimeError("boom")


async def _runtime(tmp_path, agent):
    config = dev_config(tmp_path, button={"gpio": False, "keyboard": False})
    rt = await asyncio.wait_for(
        build(
            config,
            agent=agent,
            player=FakePlayer(),
            output=RecordingOutput(),
            capture=FakeCapture(),
            recogniser=None,
            synthesiser=None,
        ),
        10,
    )
    task = asyncio.create_task(rt.serve())
    await asyncio.wait_for(rt.app.wait_state("idle"), 5)
    return rt, task


async def test_cancelled_failed_and_model_less_turns_reach_the_trace(tmp_path, caplog) -> None:
    from agent.trace import read_last
    from device.runtime import NoModelAgent

    rt, task = await _runtime(tmp_path / "a", FailingAgent())
    reply = await asyncio.wait_for(rt.app.ask("播放西游记"), 5)
    assert reply["ok"] and reply["error"].startswith("RuntimeError")
    rt.app.request_stop()
    await asyncio.wait_for(task, 5)
    failed = read_last(rt.config.path("state_dir"), 5)
    assert [(t["utterance"], t["error"]) for t in failed] == [
        ("播放西游记", "failed: RuntimeError: boom")
    ]

    rt, task = await _runtime(tmp_path / "b", FakeAgent(think_seconds=30))
    with caplog.at_level(logging.INFO, logger="device.app"):
        asking = asyncio.create_task(rt.app.ask("讲个故事"))
        await asyncio.wait_for(rt.app.wait_state("thinking"), 5)
        rt.app.request_stop("SIGTERM")
        await asyncio.wait_for(task, 5)
        await asyncio.wait_for(asking, 5)
    turns = read_last(rt.config.path("state_dir"), 5)
    assert [(t["utterance"], t["cancelled"], t["error"]) for t in turns] == [
        ("讲个故事", True, "cancelled: shutdown")
    ]
    messages = [r.getMessage() for r in caplog.records]
    started = messages.index("turn 1: '讲个故事'")
    assert started < messages.index("idle → thinking")

    rt, task = await _runtime(tmp_path / "c", NoModelAgent("en", "no model file"))
    reply = await asyncio.wait_for(rt.app.ask("what is playing"), 5)
    rt.app.request_stop()
    await asyncio.wait_for(task, 5)
    turns = read_last(rt.config.path("state_dir"), 5)
    assert len(turns) == 1 and turns[0]["utterance"] == "what is playing"
    assert turns[0]["answer"] == reply["answer"] and "no model" in turns[0]["error"]


def test_no_speech_model_is_no_warning_with_no_microphone(tmp_path, caplog) -> None:
    from device.config import from_dict
    from device.runtime import load_recogniser

    caplog.set_level(logging.INFO, logger="device.runtime")
    for capture, level in (("null", logging.INFO), ("default", logging.WARNING)):
        caplog.clear()
        cfg = from_dict({"models_dir": str(tmp_path), "audio": {"capture_device": capture}})
        assert load_recogniser(cfg) is None
        [record] = [r for r in caplog.records if "speech recognition off" in r.getMessage()]
        assert record.levelno == level, capture
