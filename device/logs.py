"""Logging set-up: journald-friendly under systemd, readable timestamps on a terminal.

Under systemd (``JOURNAL_STREAM`` set) each line starts with a syslog priority prefix such
as ``<4>`` (sd-daemon(3)), so ``journalctl -p warning`` filters by level; journald adds its
own timestamps, so none are printed, and there are never ANSI colours. Secrets registered
with `add_secret` are masked in every record.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator

_SYSLOG_PRIORITY = {
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    logging.INFO: 6,
    logging.DEBUG: 7,
}
_SECRETS: set[str] = set()


def add_secret(value: str) -> None:
    """Mask `value` (e.g. an API key) as ``***`` in every log line from now on."""
    if value and len(value) >= 4:
        _SECRETS.add(value)


def _mask(text: str) -> str:
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, "***")
    return text


class _MaskingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return _mask(super().format(record))


class JournalFormatter(_MaskingFormatter):
    """``<priority>logger.name: message`` — the form journald parses (sd-daemon(3))."""

    def __init__(self) -> None:
        super().__init__("%(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        priority = _SYSLOG_PRIORITY.get(record.levelno, 6)
        text = super().format(record)
        # Continuation lines (tracebacks) keep the same priority.
        return "\n".join(f"<{priority}>{line}" for line in text.splitlines() or [""])


def under_systemd() -> bool:
    """True when stderr is connected to the journal (systemd sets JOURNAL_STREAM)."""
    return bool(os.environ.get("JOURNAL_STREAM"))


def setup(level: str | int = "INFO", *, debug: bool = False) -> None:
    """Configure the `xiaoting` loggers (agent, player, device) on stderr; idempotent."""
    handler = logging.StreamHandler(sys.stderr)
    if under_systemd():
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(
            _MaskingFormatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")
        )
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_xiaoting", False):
            root.removeHandler(old)
    handler._xiaoting = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else level)
    # Libraries that are chatty at DEBUG stay at WARNING unless asked.
    for noisy in ("asyncio", "aiohttp.access", "urllib3", "httpx", "httpcore", "mcp"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Silence C libraries (ALSA) that print straight to file descriptor 2."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
