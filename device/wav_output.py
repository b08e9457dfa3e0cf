"""A `PcmOutput` that writes a WAV file, for machines with no sound card (demo, CLI).

Writes interleaved S16_LE frames with the stdlib `wave` module, paced to real time like a
sound card (so a book advances at listening speed), unless `realtime=False`. The header is
rewritten on every `close`, so the file is valid as soon as the process has stopped.
"""

from __future__ import annotations

import logging
import threading
import wave
from pathlib import Path

from .audio_out import PlaybackError
from .pacing import Pacer

_LOGGER = logging.getLogger(__name__)


class WavFileOutput:
    """Playback into `path`: `sample_rate` Hz, `channels`, 16-bit; the parent is created."""

    def __init__(
        self,
        path: str | Path,
        *,
        sample_rate: int = 48000,
        channels: int = 2,
        realtime: bool = True,
    ) -> None:
        self.path = Path(path)
        self.device = str(self.path)
        self.sample_rate = sample_rate
        self.channels = channels
        self.realtime = realtime
        self.underruns = 0
        self.frames_written = 0
        self._wav: wave.Wave_write | None = None
        self._lock = threading.Lock()
        self._pacer = Pacer(sample_rate)

    def open(self) -> None:
        """Create (truncate) the file; raises PlaybackError when it cannot be written."""
        with self._lock:
            if self._wav is not None:
                return
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                wav = wave.open(str(self.path), "wb")
            except OSError as err:
                raise PlaybackError(f"cannot write {self.path}: {err}") from err
            wav.setnchannels(self.channels)
            wav.setsampwidth(2)
            wav.setframerate(self.sample_rate)
            self._wav = wav
            _LOGGER.info(
                "audio goes to %s (%d Hz, %d ch)", self.path, self.sample_rate, self.channels
            )

    def write(self, pcm: bytes) -> None:
        """Append whole frames, sleeping to keep real-time pace; raises PlaybackError."""
        frames = len(pcm) // (2 * self.channels)
        with self._lock:
            if self._wav is None:
                raise PlaybackError("WAV output not open")
            try:
                self._wav.writeframesraw(pcm)
            except OSError as err:
                raise PlaybackError(f"cannot write {self.path}: {err}") from err
            self.frames_written += frames
        if self.realtime:
            self._pacer.wrote(frames)

    @property
    def seconds_written(self) -> float:
        """Audio written so far, in seconds."""
        return self.frames_written / self.sample_rate

    def close(self) -> None:
        """Finish the header; safe to call twice."""
        with self._lock:
            if self._wav is not None:
                try:
                    self._wav.close()
                finally:
                    self._wav = None
