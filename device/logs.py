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
import threading
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


_HANDLER: logging.StreamHandler | None = None


def setup(level: str | int = "INFO", *, debug: bool = False) -> None:
    """Configure the `xiaoting` loggers (agent, player, device) on stderr; idempotent."""
    global _HANDLER
    handler = logging.StreamHandler(sys.stderr)
    _HANDLER = handler
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
    logging.captureWarnings(True)  # a Python warning is one record, not two stderr lines
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


# ---------------------------------------------------------------- native stderr

_LLAMA_PREFIXES = (
    "llama", "ggml", "gguf", "decode:", "print_info:", "load", "init_tokenizer", "common_",
    "sched_", "graph_", "set_abort_callback", "clip_", "encode:", "kv_cache", "state_",
)  # fmt: skip
_TROUBLE = ("error", "fail", "warn", "cannot", "unable", "invalid")


def classify(line: str) -> tuple[str, int]:
    """(logger name, level) of one line a C library wrote to stderr.

    libasound's lines come with a failed open that xiaoting reports itself: the one naming
    the PCM ("ALSA lib pcm.c:2664:(snd_pcm_open_noupdate) Unknown PCM x") is a WARNING under
    ``alsa``, the configuration chain before it DEBUG. llama.cpp's
    progress lines are DEBUG under ``llama_cpp``, its errors WARNING. Anything else is a
    WARNING under ``stderr``.
    """
    lower = line.lower()
    if line.startswith("ALSA lib") or line.startswith("ALSA "):
        # A failed open prints its config evaluation chain, then the line naming the PCM.
        return "alsa", logging.WARNING if "(snd_pcm_open" in line else logging.DEBUG
    if line.lstrip().startswith(_LLAMA_PREFIXES):
        return "llama_cpp", logging.WARNING if any(w in lower for w in _TROUBLE) else logging.DEBUG
    return "stderr", logging.WARNING


class NativeStderr:
    """File descriptor 2 becomes a pipe read by a thread: each line that a C library
    (libasound, llama.cpp) or anything else writes there becomes one log record with a
    priority (`classify`), so it is never cut into another record. The log handler writes
    to a copy of the original stderr instead."""

    def __init__(self) -> None:
        self._saved: int | None = None
        self._read: int | None = None
        self._thread: threading.Thread | None = None
        self._stream = None

    def start(self) -> None:
        """Redirect fd 2 (no-op when it cannot be duplicated)."""
        try:
            saved = os.dup(2)
            read, write = os.pipe()
        except OSError:
            return
        sys.stderr.flush()
        os.dup2(write, 2)
        os.close(write)
        self._saved, self._read = saved, read
        self._stream = open(saved, "w", encoding="utf-8", errors="replace", closefd=False)
        if _HANDLER is not None:
            _HANDLER.setStream(self._stream)
        self._thread = threading.Thread(target=self._pump, name="native-stderr", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._read, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for raw in lines:
                self._emit(raw)
        if buffer:
            self._emit(buffer)

    @staticmethod
    def _emit(raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace").rstrip()
        if line:
            name, level = classify(line)
            logging.getLogger(name).log(level, "%s", line)

    def stop(self) -> None:
        """Give fd 2 back and log what was left in the pipe."""
        if self._saved is None:
            return
        sys.stderr.flush()
        os.dup2(self._saved, 2)  # closes the pipe's last write end: the thread sees EOF
        if self._thread is not None:
            self._thread.join(2.0)
        if _HANDLER is not None:
            _HANDLER.setStream(sys.stderr)
        with contextlib.suppress(OSError):
            os.close(self._read)
        self._stream.close()
        os.close(self._saved)
        self._saved = self._read = self._thread = None

    def __enter__(self) -> NativeStderr:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
