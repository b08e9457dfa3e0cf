"""device.logs: journald lines under systemd, timestamps on a terminal, masked secrets."""

from __future__ import annotations

import io
import logging
import re
import secrets
import sys

import pytest

from device import logs

TIMESTAMP = re.compile(r"\d\d:\d\d:\d\d")


class Logs:
    """`logs.setup` run inside the test body, with sys.stderr swapped for a buffer.

    pytest swaps sys.stderr between the setup and call phases, so the handler (which binds
    sys.stderr when `setup` runs) is installed here rather than in a fixture.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.buffer = io.StringIO()

    def start(self, *, journal: bool, level: str = "DEBUG") -> logging.Logger:
        if journal:
            self.monkeypatch.setenv("JOURNAL_STREAM", "8:12345")
        else:
            self.monkeypatch.delenv("JOURNAL_STREAM", raising=False)
        self.monkeypatch.setattr(sys, "stderr", self.buffer)
        logs.setup(level)
        return logging.getLogger("xiaoting.test")

    def lines(self) -> list[str]:
        return self.buffer.getvalue().splitlines()


@pytest.fixture
def out(monkeypatch, restore_logging) -> Logs:
    return Logs(monkeypatch)


def test_journal_lines_have_priority_and_no_timestamp(out):
    log = out.start(journal=True)
    log.debug("d %d", 1)
    log.info("i %s", "two")
    log.warning("w")
    log.error("e")
    log.critical("c")
    lines = out.lines()
    assert lines == [
        "<7>xiaoting.test: d 1",
        "<6>xiaoting.test: i two",
        "<4>xiaoting.test: w",
        "<3>xiaoting.test: e",
        "<2>xiaoting.test: c",
    ]
    for line in lines:
        assert not TIMESTAMP.search(line)
        assert "\x1b" not in line


def test_journal_traceback_keeps_prefix_on_every_line(out):
    log = out.start(journal=True)
    try:
        raise ValueError("first line\nsecond line")
    except ValueError:
        log.exception("it broke")
    lines = out.lines()
    assert len(lines) > 3
    assert lines[0] == "<3>xiaoting.test: it broke"
    assert all(line.startswith("<3>") for line in lines), lines
    assert any("Traceback" in line for line in lines)
    assert "<3>second line" in lines


def test_terminal_lines_have_timestamp(out):
    log = out.start(journal=False)
    log.info("hello %s", "there")
    (line,) = out.lines()
    assert re.fullmatch(r"\d\d:\d\d:\d\d INFO +xiaoting\.test: hello there", line), line
    assert "\x1b" not in line


def test_setup_twice_does_not_duplicate_lines(out):
    out.start(journal=True)
    log = out.start(journal=True, level="INFO")
    log.warning("once")
    log.debug("below the level now")
    assert out.lines() == ["<4>xiaoting.test: once"]


@pytest.mark.parametrize("journal", [True, False], ids=["journal", "terminal"])
def test_secret_masked_in_message_args_and_traceback(out, journal):
    log = out.start(journal=journal)
    secret = "sk-" + secrets.token_hex(16)
    logs.add_secret(secret)
    log.warning("key in args: %s", secret)
    log.warning("key in message: " + secret)  # noqa: G003 (a secret inside the message itself)
    log.warning("key in a dict: %s", {"Authorization": f"Bearer {secret}"})
    try:
        raise RuntimeError(f"request failed with {secret}")
    except RuntimeError:
        log.exception("remote call")
    text = out.buffer.getvalue()
    assert secret not in text
    assert text.count("***") >= 4
    assert "key in args: ***" in text


def test_short_or_empty_secret_is_ignored(out):
    log = out.start(journal=True)
    logs.add_secret("")
    logs.add_secret("ab")
    log.warning("a normal line about ab")
    assert out.lines() == ["<4>xiaoting.test: a normal line about ab"]
