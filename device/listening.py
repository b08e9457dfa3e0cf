"""One utterance: microphone → recogniser in a worker thread, from press to release + tail."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .asr import Recogniser
from .audio_in import CaptureError, CaptureGuard

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Heard:
    """What one utterance produced: the transcript and facts about the audio."""

    transcript: str
    seconds: float
    peak: int
    clipped_fraction: float
    mic_ok: bool
    released_at: float | None = None
    finished_at: float | None = None

    @property
    def level(self) -> str:
        """`silence`, `clipping` or `ok`, for the log line."""
        if self.peak < 64:
            return "silence"
        if self.clipped_fraction > 0.05:
            return "clipping"
        return "ok"


class Listening:
    """Reads the capture device and feeds the recogniser until `finish` or `abort`.

    Runs in its own thread (capture reads and Vosk block). A device that cannot be opened
    is retried with backoff by `CaptureGuard` for as long as the button is held.
    """

    def __init__(self, guard: CaptureGuard | None, recogniser: Recogniser | None) -> None:
        self._guard = guard
        self._recogniser = recogniser
        self._stop = threading.Event()
        self._abort = threading.Event()
        self._loop = asyncio.get_running_loop()
        self._future: asyncio.Future[Heard] = self._loop.create_future()
        self.released_at: float | None = None
        self.partial = ""
        """The transcript so far (the recogniser's partial result, written as the final one
        would be), updated as the audio is recognised."""
        self.on_partial: Callable[[str], None] | None = None
        """Called on the event loop with `partial` whenever it changes."""
        self.speculation: Any = None
        """What was started on `partial` (an `agent.speculate.Speculation`); closed by
        `abort`."""
        self._thread = threading.Thread(target=self._run, name="xiaoting-listen", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            heard = self._listen()
        except Exception as err:  # never let the worker die silently
            _LOGGER.exception("listening failed")
            heard = Heard("", 0.0, 0, 0.0, mic_ok=False)
            _LOGGER.debug("listening error: %s", err)
        try:
            self._loop.call_soon_threadsafe(self._set, heard)
        except RuntimeError:  # the loop has closed (shutdown): nobody is waiting
            pass

    def _partial_changed(self, stream: Any, partial: str | None) -> None:
        so_far = getattr(stream, "so_far", None)
        text = so_far() if callable(so_far) else (partial or "")
        if text == self.partial:
            return
        self.partial = text
        _LOGGER.debug("partial: %s", text)
        try:
            self._loop.call_soon_threadsafe(self._tell_partial, text)
        except RuntimeError:  # the loop has closed
            pass

    def _tell_partial(self, text: str) -> None:
        if self.on_partial is not None:
            try:
                self.on_partial(text)
            except Exception:
                _LOGGER.exception("partial transcript listener failed")

    def _set(self, heard: Heard) -> None:
        if not self._future.done():
            self._future.set_result(heard)

    def _listen(self) -> Heard:
        stream = self._recogniser.stream() if self._recogniser is not None else None
        guard = self._guard
        opened = False
        samples = 0
        peak = 0
        clipped = 0
        while not self._stop.is_set() and not self._abort.is_set():
            if guard is None:
                self._stop.wait(0.05)
                continue
            if not opened:
                opened = guard.try_open()
                if not opened:
                    self._stop.wait(0.05)
                    continue
            try:
                pcm = guard.capture.read()
            except CaptureError as err:
                guard.lost(err)
                opened = False
                continue
            if not pcm:
                continue
            data = np.frombuffer(pcm, dtype="<i2")
            samples += len(data)
            if len(data):
                magnitude = np.abs(data.astype(np.int32))
                peak = max(peak, int(magnitude.max()))
                clipped += int((magnitude >= 32700).sum())
            if stream is not None:
                partial = stream.accept(pcm)
                self._partial_changed(stream, partial)
        if opened and guard is not None:
            guard.capture.close()
        if self._abort.is_set():
            return Heard("", samples / 16000, peak, 0.0, mic_ok=opened)
        transcript = stream.final() if stream is not None else ""
        rate = guard.capture.sample_rate if guard is not None else 16000
        return Heard(
            transcript,
            samples / rate,
            peak,
            clipped / samples if samples else 0.0,
            mic_ok=guard is not None and not guard.failing,
            released_at=self.released_at,
            finished_at=time.monotonic(),
        )

    async def finish(self, tail_seconds: float, *, released_at: float | None = None) -> Heard:
        """Keep recording `tail_seconds` after release, then return the final result."""
        self.released_at = released_at if released_at is not None else time.monotonic()
        if tail_seconds > 0:
            await asyncio.sleep(tail_seconds)
        self._stop.set()
        return await self._future

    def abort(self) -> None:
        """Stop at once and discard the audio (tap, barge-in, shutdown)."""
        self._abort.set()
        self._stop.set()
        self.on_partial = None
        if self.speculation is not None:
            self.speculation.close()
            self.speculation = None

    def join(self, timeout: float) -> None:
        """Wait for the worker thread (shutdown)."""
        self._thread.join(timeout)
