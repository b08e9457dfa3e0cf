"""The CLI's commands in this process: `tool` through the real player to ALSA, the WAV
output and its pacing, the demo library, and commands without a running service."""

from __future__ import annotations

import asyncio
import json
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from device import commands, demo
from device import config as config_mod
from device.pacing import Pacer
from device.wav_output import WavFileOutput


def _tone_mp3(path: Path, hz: float, seconds: float) -> None:
    demo.encode_episode(
        (np.sin(2 * np.pi * hz * np.arange(int(16000 * seconds)) / 16000) * 9000)
        .astype("<i2")
        .tobytes(),
        16000,
        path,
    )


def _config(tmp_path: Path, **audio) -> config_mod.Config:
    return config_mod.from_dict(
        {
            "language": "zh",
            "state_dir": str(tmp_path / "state"),
            "cache_dir": str(tmp_path / "cache"),
            "models_dir": str(tmp_path / "models"),
            "runtime_dir": str(tmp_path / "run"),
            "audio": {"playback_rate": 16000, **audio},
            "button": {"gpio": False, "keyboard": False},
            "library": {"paths": [str(tmp_path / "library")]},
        },
        "<test>",
    )


def test_pacer_holds_a_fast_writer_to_real_time() -> None:
    pacer = Pacer(1000, lead=0.05)
    started = time.monotonic()
    for _ in range(10):
        pacer.wrote(25)  # 10 x 25 ms of audio
    elapsed = time.monotonic() - started
    assert 0.15 <= elapsed < 0.6, elapsed


def test_wav_output_writes_a_valid_file(tmp_path: Path) -> None:
    out = WavFileOutput(tmp_path / "sub" / "out.wav", sample_rate=8000, channels=2, realtime=False)
    out.open()
    out.write(b"\x01\x00\x02\x00" * 800)
    out.close()
    out.close()
    with wave.open(str(tmp_path / "sub" / "out.wav")) as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getnframes()) == (8000, 2, 800)
    assert out.seconds_written == pytest.approx(0.1)


async def test_tool_command_plays_the_library_through_alsa(
    tmp_path: Path, alsa_file_devices, capsys
) -> None:
    album = tmp_path / "library" / "西游记"
    album.mkdir(parents=True)
    for n in (1, 2):
        _tone_mp3(album / f"第{n}集.mp3", 300 * n, 3.0)
    out = tmp_path / "speaker.raw"
    cfg = _config(tmp_path, playback_device=f"xt_play:OUTFILE={out}")
    code = await asyncio.wait_for(
        commands.call_tool(cfg, "play_book", {"keyword": "西游记", "section": 2}, wait=1.0),
        60,
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "西游记" in printed and "2" in printed
    pcm = np.frombuffer(out.read_bytes(), dtype="<i2").reshape(-1, 2)[:, 0].astype(float)
    assert len(pcm) > 16000 * 0.5  # about a second played, paced to real time
    assert len(pcm) < 16000 * 3.0
    spectrum = np.abs(np.fft.rfft(pcm[:8000]))
    assert abs(np.argmax(spectrum) * 16000 / 8000 - 600) < 5  # episode 2 is the 600 Hz tone


async def test_tool_command_names_an_unknown_tool(tmp_path: Path, capsys) -> None:
    cfg = _config(tmp_path, playback_device="null")
    code = await asyncio.wait_for(commands.call_tool(cfg, "no_such_tool", {}), 60)
    err = capsys.readouterr().err
    assert code == 2
    assert "no_such_tool" in err and "play_book" in err


async def test_status_and_inject_without_a_service_say_so(tmp_path: Path, capsys) -> None:
    cfg = _config(tmp_path)
    assert await asyncio.wait_for(commands.status(cfg), 10) == 1
    assert await asyncio.wait_for(commands.inject(cfg, "不对"), 10) == 1
    err = capsys.readouterr().err
    assert err.count("xiaoting is not running (start it with `xiaoting run`") == 2


async def test_the_hint_to_start_the_service_keeps_its_config(tmp_path: Path, capsys) -> None:
    data = {"runtime_dir": str(tmp_path / "run"), "state_dir": str(tmp_path / "state")}
    cfg = config_mod.from_dict(data, str(tmp_path / "my.toml"))
    assert await asyncio.wait_for(commands.status(cfg), 10) == 1
    err = capsys.readouterr().err
    assert f"(start it with `xiaoting --config {tmp_path / 'my.toml'} run`" in err


def test_demo_library_is_made_once(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    folder = demo.make_library(cfg, synthesiser=None)
    files = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    assert [p.suffix for p in files] == [".mp3", ".mp3", ".opus"]
    import av

    for path in files:
        with av.open(str(path)) as container:
            assert container.duration and container.duration > 5_000_000  # > 5 s
    mtimes = [p.stat().st_mtime_ns for p in files]
    demo.make_library(cfg, synthesiser=None)
    assert [p.stat().st_mtime_ns for p in files] == mtimes


async def test_tool_command_prints_the_structured_result(tmp_path: Path, capsys) -> None:
    album = tmp_path / "library" / "西游记"
    album.mkdir(parents=True)
    _tone_mp3(album / "第1集.mp3", 300, 1.0)
    cfg = _config(tmp_path, playback_device="null")
    code = await asyncio.wait_for(
        commands.call_tool(cfg, "search_album", {"keyword": "西游记"}, as_json=True), 60
    )
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert result["message"] == "有西游记，1集"
    assert result["albums"][0]["id"].startswith("lib:") and result["albums"][0]["episodes"] == 1
