"""One service per state directory, `ask` waiting for a starting service, `--language`,
and the readable `status`: real processes, real sockets."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from device_fakes import FakeAgent, FakeCapture, FakePlayer, RecordingOutput

from device import commands
from device import config as config_mod
from device.control import ControlServer, socket_path
from device.lock import AlreadyRunning, ServiceLock, holder
from device.runtime import build

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "import sys; from device.cli import main; sys.exit(main())"]
T = 10

HOLD_LOCK = """
import sys, time
from device.lock import ServiceLock
lock = ServiceLock(sys.argv[1]); lock.acquire(); print("locked", flush=True); time.sleep(60)
"""


def _config_file(tmp_path: Path, language: str = "en") -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f'language = "{language}"\nlog_level = "INFO"\n'
        f'state_dir = "{tmp_path / "state"}"\ncache_dir = "{tmp_path / "cache"}"\n'
        f'models_dir = "{tmp_path / "models"}"\nruntime_dir = "{tmp_path / "run"}"\n'
        '[audio]\nplayback_device = "null"\ncapture_device = "null"\n'
        "[button]\ngpio = false\nkeyboard = false\n"
        f'[library]\npaths = ["{tmp_path / "library"}"]\n'
        "[web]\nenabled = false\n"  # no page on port 8080 from a test
    )
    return path


def _holder_process(state: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(state)], stdout=subprocess.PIPE, cwd=ROOT, text=True
    )
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_lock_names_the_holder_and_dies_with_it(tmp_path: Path) -> None:
    state = tmp_path / "state"
    proc = _holder_process(state)
    try:
        assert holder(state) == proc.pid
        with pytest.raises(AlreadyRunning, match=f"pid {proc.pid}"):
            ServiceLock(state).acquire()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
    assert holder(state) is None  # the kernel dropped it with the process
    with ServiceLock(state) as lock:
        assert holder(state) is not None or lock.path.read_text().strip() == str(os.getpid())
    assert holder(state) is None


def test_a_second_run_exits_1_naming_the_first_and_leaves_its_socket(tmp_path: Path) -> None:
    config = _config_file(tmp_path)
    log = (tmp_path / "first.log").open("w")
    first = subprocess.Popen(
        [*CLI, "--config", str(config), "run"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
    )
    sock = tmp_path / "run" / "control.sock"
    try:
        deadline = time.monotonic() + 60
        while not sock.exists():
            assert first.poll() is None, (tmp_path / "first.log").read_text()
            assert time.monotonic() < deadline, "the first service did not start"
            time.sleep(0.2)
        second = subprocess.run(
            [*CLI, "--config", str(config), "run"], cwd=ROOT, capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip
        assert second.returncode == 1
        lines = [line for line in second.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, second.stderr
        assert f"already running (pid {first.pid}" in lines[0]
        status = subprocess.run(
            [*CLI, "--config", str(config), "status", "--json"], cwd=ROOT, capture_output=True,
            text=True, timeout=30,
        )  # fmt: skip
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["state"] == "idle"
        first.send_signal(signal.SIGTERM)
        assert first.wait(15) == 0
        assert not sock.exists()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(5)
        log.close()


def _cfg(tmp_path: Path, language: str = "en") -> config_mod.Config:
    return config_mod.load(_config_file(tmp_path, language))


class Answering:
    """A ControlTarget answering every ask."""

    def status(self) -> dict:
        return {"ok": True, "state": "idle"}

    async def ask(self, text: str, *, speak: bool = True, language: str | None = None) -> dict:
        return {"ok": True, "answer": f"answered {text}", "steps": [], "elapsed_ms": 1.0}

    def inject(self, text: str) -> dict:
        return {"ok": True}

    async def call_tool(self, name: str, arguments: dict) -> dict:
        return {"ok": True, "text": name}


async def test_ask_waits_for_a_starting_service_instead_of_running_its_own(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    cfg = _cfg(tmp_path)
    proc = _holder_process(cfg.path("state_dir"))  # the service, still loading its models
    server = ControlServer(socket_path(cfg.runtime_dir), Answering())
    try:

        async def come_up() -> None:
            await asyncio.sleep(1.5)
            await server.start()

        up = asyncio.create_task(come_up())
        code = await asyncio.wait_for(commands.ask(cfg, "现在在播什么"), T)
        await up
    finally:
        await server.close()
        proc.kill()
        proc.wait(5)
    out, err = capsys.readouterr()
    assert code == 0
    assert f"(pid {proc.pid}) is starting" in err
    assert "own process" not in err
    assert "answered 现在在播什么" in out


async def test_ask_gives_up_on_a_service_that_never_starts(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    cfg = _cfg(tmp_path)
    monkeypatch.setattr(commands, "START_WAIT_SECONDS", 1.0)
    proc = _holder_process(cfg.path("state_dir"))
    try:
        code = await asyncio.wait_for(commands.ask(cfg, "hi"), T)
    finally:
        proc.kill()
        proc.wait(5)
    err = capsys.readouterr().err
    assert code == 1 and "was not ready within 1 s" in err


async def _service(cfg: config_mod.Config):
    rt = await asyncio.wait_for(
        build(
            cfg,
            agent=FakeAgent("好的"),
            player=FakePlayer(),
            output=RecordingOutput(),
            capture=FakeCapture(),
            recogniser=None,
            synthesiser=None,
        ),
        T,
    )
    await rt.start_control()
    task = asyncio.create_task(rt.serve())
    await asyncio.wait_for(rt.app.wait_state("idle"), T)
    return rt, task


async def test_ask_in_another_language_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    cfg = _cfg(tmp_path, "en")
    rt, task = await _service(cfg)
    try:
        asked = config_mod.validate(
            __import__("dataclasses").replace(cfg, language="zh")
        )  # what `--language zh` gives
        code = await asyncio.wait_for(commands.ask(asked, "现在在播什么", language="zh"), T)
        err = capsys.readouterr().err
        assert code == 1
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and 'language = "en"' in lines[0], err
        assert rt.agent.utterances == []
        code = await asyncio.wait_for(commands.ask(cfg, "what is playing", language="en"), T)
        assert code == 0 and rt.agent.utterances == ["what is playing"]
    finally:
        rt.app.request_stop()
        await asyncio.wait_for(task, T)


async def test_status_prints_readable_lines_and_json(tmp_path: Path, capsys) -> None:
    cfg = _cfg(tmp_path, "zh")
    rt, task = await _service(cfg)
    try:
        assert await asyncio.wait_for(commands.status(cfg), T) == 0
        text = capsys.readouterr().out
        assert await asyncio.wait_for(commands.status(cfg, as_json=True), T) == 0
        data = json.loads(capsys.readouterr().out)
    finally:
        rt.app.request_stop()
        await asyncio.wait_for(task, T)
    assert text.splitlines()[:2] == ["语音：空闲 (idle)", "播放：空闲 (idle)"]
    assert "断音（欠载）：0" in text and "下载：无" in text
    assert "{" not in text
    assert data["state"] == "idle" and data["underruns"] == 0


async def test_status_of_a_service_still_loading_its_models_is_starting(
    tmp_path: Path, capsys
) -> None:
    zh = _cfg(tmp_path, "zh")
    en = config_mod.validate(dataclasses.replace(zh, language="en"))
    with ServiceLock(zh.path("state_dir")):  # as `xiaoting run` holds it while loading
        pid = os.getpid()
        assert await asyncio.wait_for(commands.status(zh), T) == 0
        assert capsys.readouterr().out == f"状态：启动中 (starting)（pid {pid}）\n"
        assert await asyncio.wait_for(commands.status(en), T) == 0
        assert capsys.readouterr().out == f"state: starting (pid {pid})\n"
        assert await asyncio.wait_for(commands.status(en, as_json=True), T) == 0
        assert json.loads(capsys.readouterr().out) == {"state": "starting", "pid": pid}

        stale = socket.socket(socket.AF_UNIX)  # left by a service killed before this start
        path = socket_path(zh.runtime_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        stale.bind(str(path))
        stale.close()
        assert await asyncio.wait_for(commands.status(en), T) == 0
        assert capsys.readouterr().out == f"state: starting (pid {pid})\n"
    assert await asyncio.wait_for(commands.status(en), T) == 1  # lock dropped: not running
    out, err = capsys.readouterr()
    assert out == "" and "connection refused" in err


def test_status_lines_show_album_episode_position_volume_downloads() -> None:
    lines = commands.format_status(
        {
            "state": "idle",
            "player": "playing",
            "album": "西游记",
            "episode": 2,
            "episode_title": "第02集",
            "position_s": 125.0,
            "volume_percent": 60,
            "downloads": [{"album": "三体", "episode": 3, "percent": 40}],
            "underruns": 2,
            "speaker_ok": True,
            "turns": 1,
            "barge_ins": 0,
            "last_turn": {"utterance": "play", "answer": "ok"},
            "language": "en",
        },
        "en",
    )
    assert lines[:6] == [
        "voice: idle",
        "playback: playing",
        "album: 西游记",
        "episode: 2 第02集",
        "position: 2:05",
        "volume: 60%",
    ]
    assert "downloads: 三体 #3 40%" in lines and "audio gaps (underruns): 2" in lines


def test_status_lines_say_a_chapter_and_the_name_the_answers_use() -> None:
    """A chapter of a chapter-marked file is said as one, and the album by the name the
    answers speak it by, its title beside it (a new user's trial read "episode: 3" for a
    chapter and an English title in a Chinese status)."""
    reply = {"state": "idle", "player": "playing", "album": "The Martian", "episode": 3,
             "album_name": "火星救援", "chapter": True, "episode_title": "Sol 6"}  # fmt: skip
    lines = commands.format_status(reply, "zh")
    assert "专辑：火星救援 (The Martian)" in lines and "章：3 Sol 6" in lines
    lines = commands.format_status({**reply, "chapter": False, "album_name": None}, "en")
    assert "album: The Martian" in lines and "episode: 3 Sol 6" in lines


def test_tool_list_names_every_player_tool(tmp_path: Path, capsys) -> None:
    from device.cli import main

    assert main(["--config", str(_config_file(tmp_path)), "tool", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("play_book(", "get_status(", "pause("):
        assert name in out
    assert main(["--config", str(_config_file(tmp_path)), "tool"]) == 2
    assert "--list" in capsys.readouterr().err


def test_a_reader_that_goes_away_ends_the_output_quietly(tmp_path: Path) -> None:
    """`xiaoting tool --list | head -1`: the pipe closed early is no error to report."""
    config = _config_file(tmp_path)
    listing = subprocess.Popen(
        [*CLI, "--config", str(config), "tool", "--list"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    listing.stdout.read(1)
    listing.stdout.close()  # the reader goes away after one byte
    err = listing.stderr.read().decode()
    listing.wait(T)
    assert "BrokenPipeError" not in err and "Traceback" not in err, err
