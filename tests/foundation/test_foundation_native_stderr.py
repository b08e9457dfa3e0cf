"""libasound's and llama.cpp's own stderr lines become whole log records with a priority."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from device.logs import classify

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import logging, os, threading
    from device import logs
    logs.setup("DEBUG")
    log = logging.getLogger("player.player")
    with logs.NativeStderr():
        # libasound writes a line in pieces; a record is logged between the pieces.
        os.write(2, b"ALSA lib confmisc.c:855:(parse_card) ")
        log.info("book: playing")
        os.write(2, b"cannot find card '0'\\n")
        os.write(2, b"decode: removing memory module entries for seq_id = 0, pos = [5, +inf)\\n")
        os.write(2, b"llama_model_load: error loading model: bad magic\\n")
        try:
            import alsaaudio
            alsaaudio.PCM(alsaaudio.PCM_PLAYBACK, device="xiaoting_no_such_pcm")
        except Exception as err:
            log.warning("speaker: %s", err)
        log.info("done")
    """
)


def _run(env_extra: dict[str, str]) -> list[str]:
    env = {**os.environ, **env_extra}
    result = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, env=env,
        timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stderr.splitlines()


def test_native_lines_are_whole_records_with_priorities_under_journald() -> None:
    lines = _run({"JOURNAL_STREAM": "8:1"})
    assert "<6>player.player: book: playing" in lines
    assert "<7>alsa: ALSA lib confmisc.c:855:(parse_card) cannot find card '0'" in lines
    assert any(line.startswith("<7>llama_cpp: decode: removing memory") for line in lines)
    assert "<4>llama_cpp: llama_model_load: error loading model: bad magic" in lines
    # Every line is one record: a priority prefix, a logger name, never a piece of another.
    for line in lines:
        assert line[:3] in ("<4>", "<6>", "<7>", "<3>"), line
        assert line.count("<") == 1 or "ALSA" in line or "inf)" in line, line
    if any("xiaoting_no_such_pcm" in line for line in lines):
        real = [line for line in lines if line.startswith("<4>alsa: ALSA lib pcm")]
        assert real, lines  # the real libasound line of the failed open, as its own record
    assert "<6>player.player: done" in lines  # (the pipe's lines may arrive a moment later)


def test_terminal_format_keeps_native_lines_apart() -> None:
    lines = _run({"JOURNAL_STREAM": ""})
    alsa = [line for line in lines if " alsa: " in line]
    assert any(line.endswith("(parse_card) cannot find card '0'") for line in alsa)
    assert all("player.player" not in line for line in alsa)


@pytest.mark.parametrize(
    ("line", "name", "level"),
    [
        ("ALSA lib pcm.c:2664:(snd_pcm_open_noupdate) Unknown PCM x", "alsa", 30),
        ("ALSA lib confmisc.c:855:(parse_card) cannot find card '0'", "alsa", 10),
        ("llama_context: n_ctx = 2048", "llama_cpp", 10),
        ("ggml_vulkan: failed to init", "llama_cpp", 30),
        ("something else", "stderr", 30),
    ],
)
def test_classify(line: str, name: str, level: int) -> None:
    assert classify(line) == (name, level)
