"""build_app start-up checks, doctor facts, and the control client against a dead socket."""

from __future__ import annotations

import asyncio
import logging

import pytest
from device_fakes import FakeAgent, FakeCapture, FakePlayer, RecordingOutput

from device.config import dev_config
from device.control import ControlError, control_request
from device.facts import alsa_pcms, check_capture, check_gpio, check_playback
from device.runtime import build_app


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
        app = await asyncio.wait_for(
            build_app(
                config,
                agent=FakeAgent("ok"),
                player=FakePlayer(),
                output=RecordingOutput(),
                capture=FakeCapture(),
            ),
            10,
        )
        task = asyncio.create_task(app.run())
        await asyncio.wait_for(app.wait_state("idle"), 3)
        reply = await asyncio.wait_for(
            control_request(app.control.path, {"cmd": "ask", "text": "hi"}), 5
        )
        app.request_stop()
        assert await asyncio.wait_for(task, 5) == 0
    assert reply["ok"] and reply["answer"] == "ok"
    assert app.recogniser is None and app.synthesiser is None
    assert "gpio" in app.buttons
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(m.startswith("speech recognition off: Vosk model not found") for m in lines)
    assert any(m.startswith("speech output off: piper voice not found") for m in lines)


async def test_unusable_gpio_is_one_line_and_not_fatal(tmp_path, caplog) -> None:
    config = dev_config(tmp_path, button={"gpio": True, "pin_factory": "nope", "keyboard": False})
    with caplog.at_level(logging.WARNING):
        app = await asyncio.wait_for(
            build_app(
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
    app.mixer.close()
    assert app.buttons == {}
    gpio_lines = [r for r in caplog.records if "GPIO button off" in r.getMessage()]
    assert len(gpio_lines) == 1


def test_doctor_facts_never_raise(tmp_path, alsa_file_devices) -> None:
    raw = tmp_path / "in.raw"
    raw.write_bytes(bytes(8192))
    good = dev_config(
        tmp_path,
        audio={"capture_device": f"xt_cap:INFILE={raw}", "playback_device": "xt_play"},
        button={"pin_factory": "mock"},
    )
    assert check_capture(good).ok
    assert check_playback(good).ok
    gpio = check_gpio(good)
    assert gpio.ok and gpio.extra == {"pressed": False}
    bad = dev_config(
        tmp_path,
        audio={"capture_device": "xiaoting_missing", "playback_device": "xiaoting_missing"},
        button={"pin_factory": "nope"},
    )
    for fact in (check_capture(bad), check_playback(bad), check_gpio(bad)):
        assert not fact.ok and fact.detail
    assert "xt_cap" in alsa_pcms()["capture"]


async def test_control_client_reports_a_missing_service(tmp_path) -> None:
    with pytest.raises(ControlError, match="is xiaoting running"):
        await asyncio.wait_for(control_request(tmp_path / "none.sock", {"cmd": "status"}), 3)
