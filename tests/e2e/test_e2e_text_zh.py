"""The Chinese turn as text: `xiaoting run` as a service, `xiaoting ask` over its socket.

No Chinese Vosk model is reachable here, so the requests go in as text through the CLI,
against a local library, with the real Qwen2.5-Coder-0.5B and the grammar. The words layer
understands six of them whole (the fast path); one it leaves to the model (a question about
the book, which must not change what plays). Each is checked in the trace and in the
player's state; the service then stops on SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.trace import read_last
from device.demo import encode_episode

pytestmark = [pytest.mark.models, pytest.mark.slow]

CLI = [sys.executable, "-m", "device.cli"]


def _noise_mp3(path: Path, seed: int, seconds: float) -> None:
    import numpy as np

    rate = 22050
    samples = np.random.default_rng(seed).integers(-8000, 8000, int(rate * seconds), dtype="<i2")
    encode_episode(samples.tobytes(), rate, path)


def _cli(config: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "--config", str(config), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _status(config: Path) -> dict:
    result = _cli(config, "status", "--json", timeout=30)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def service(tmp_path: Path, llm_path: Path):
    """`xiaoting run` with a library holding 西游记 (3 episodes); yields the config path."""
    album = tmp_path / "library" / "西游记"
    album.mkdir(parents=True)
    for n in (1, 2, 3):
        _noise_mp3(album / f"第{n}集.mp3", seed=n, seconds=60)
    config = tmp_path / "config.toml"
    config.write_text(
        f"""
language = "zh"
state_dir = "{tmp_path / "state"}"
cache_dir = "{tmp_path / "cache"}"
models_dir = "{llm_path.parent}"
runtime_dir = "{tmp_path / "run"}"
[audio]
playback_device = "xt_play:OUTFILE={tmp_path / "speaker.raw"}"
capture_device = "xt_cap"
playback_rate = 16000
[button]
gpio = false
keyboard = false
[llm]
model = "{llm_path.stem}"
policy = "local"
n_ctx = 4096
[tts]
voice_zh = "no-such-voice"
[library]
paths = ["{tmp_path / "library"}"]
[web]
enabled = false
""",
        encoding="utf-8",
    )
    log = (tmp_path / "service.log").open("w")
    proc = subprocess.Popen(
        [*CLI, "--config", str(config), "run"], stdout=log, stderr=subprocess.STDOUT
    )
    socket = tmp_path / "run" / "control.sock"
    deadline = time.monotonic() + 120
    while not socket.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("service did not start:\n" + (tmp_path / "service.log").read_text())
        time.sleep(0.2)
    try:
        yield config, tmp_path / "state", proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        log.close()


def _last_calls(state: Path) -> tuple[list[tuple[str, dict]], str]:
    calls, answer, _ = _last_turn(state)
    return calls, answer


def _last_turn(state: Path) -> tuple[list[tuple[str, dict]], str, set[str]]:
    """The last turn's tool calls, its answer and the backends of its steps."""
    turn = read_last(state, 1)[0]
    calls = [(s["action"], s.get("arguments", {})) for s in turn["steps"] if s.get("action")]
    return calls, turn["answer"], {s.get("backend", "") for s in turn["steps"]}


def test_six_chinese_requests_through_the_cli(service) -> None:
    config, state, proc = service

    result = _cli(config, "ask", "帮我播放西游记第2集")
    assert result.returncode == 0, result.stderr
    calls, answer, backends = _last_turn(state)
    assert backends == {"fastpath"}, backends  # understood whole: no model step
    assert ("play_book", {"keyword": "西游记", "section": 2}) in [
        (name, {k: v for k, v in args.items() if k in ("keyword", "section")})
        for name, args in calls
    ], calls
    assert answer and answer in result.stdout
    status = _status(config)
    assert status["player"] == "playing"

    result = _cli(config, "ask", "现在在播什么")
    assert result.returncode == 0, result.stderr
    calls, answer = _last_calls(state)
    assert calls[0][0] == "get_status", calls
    assert "西游记" in answer and "2" in answer, answer

    # The model's turn: a question about the book, which never changes what plays.
    before = _status(config)
    result = _cli(config, "ask", "西游记这部书你觉得好听吗")
    assert result.returncode == 0, result.stderr
    calls, answer, backends = _last_turn(state)
    assert "local" in backends, backends
    assert answer and answer in result.stdout
    after = _status(config)
    assert (after["player"], after.get("album"), after.get("episode")) == (
        before["player"],
        before.get("album"),
        before.get("episode"),
    ), (before, after, calls)

    for request, tool, player_state in (
        ("暂停", "pause", "paused"),
        ("继续", "resume", "playing"),
        ("别放了", "stop", "idle"),
    ):
        result = _cli(config, "ask", request)
        assert result.returncode == 0, result.stderr
        calls, answer = _last_calls(state)
        assert calls and calls[0][0] == tool, (request, calls)
        assert answer, request
        assert _status(config)["player"] == player_state, request

    # The book by its title, continued where it was stopped.
    result = _cli(config, "ask", "接着听西游记")
    assert result.returncode == 0, result.stderr
    calls, answer, backends = _last_turn(state)
    assert backends == {"fastpath"}, backends
    assert [(n, a.get("keyword"), a.get("section")) for n, a in calls] == [
        ("play_book", "西游记", None)
    ], calls
    status = _status(config)
    assert status["player"] == "playing", status
    assert "西游记" in answer and "2" in answer, answer  # resumed at episode 2

    assert len(read_last(state, 10)) == 7
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 0
    assert time.monotonic() - started < 5
    assert not (Path(os.fspath(config)).parent / "run" / "control.sock").exists()
