"""Audio in: ALSA capture (pyalsaaudio) delivering 16 kHz mono S16_LE, as Vosk requires.

A card that cannot record at 16 kHz mono is opened at what it offers and converted. A
device that is busy or gone raises `CaptureError` from `open`; `CaptureGuard` reports that
once, retries with growing backoff and never lets it crash the process.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

from .pacing import Pacer
from .resample import Resampler, apply_gain

_LOGGER = logging.getLogger(__name__)

VOSK_RATE = 16000
"""Hz; the sample rate the Vosk models are trained on."""


class AudioError(Exception):
    """Base class of the audio errors."""


class CaptureError(AudioError):
    """The capture device is busy, gone or refuses the format."""


class Capture(Protocol):
    """A source of 16 kHz mono S16_LE PCM, one period per `read`."""

    sample_rate: int

    def open(self) -> None:
        """Open the device; raises CaptureError."""
        ...

    def read(self) -> bytes:
        """Block for up to one period; returns S16_LE mono bytes (may be empty)."""
        ...

    def close(self) -> None:
        """Close the device; safe to call twice."""
        ...


class AlsaCapture:
    """ALSA capture of `device` (e.g. ``default``, ``plughw:1,0``) in `period_frames` periods.

    Output is always 16 kHz mono S16_LE scaled by `gain` (clipped); the card's own rate and
    channel count, if different, are converted with `Resampler`.
    """

    sample_rate = VOSK_RATE

    def __init__(
        self, device: str = "default", *, period_frames: int = 1024, gain: float = 1.0
    ) -> None:
        self.device = device
        self.period_frames = period_frames
        self.gain = gain
        self._pcm = None
        self._resampler: Resampler | None = None
        self._pacer = Pacer(VOSK_RATE, lead=0.2)
        self.overruns = 0

    def open(self) -> None:
        """Open the capture device; raises CaptureError when busy, gone or unusable."""
        try:
            import alsaaudio
        except ImportError as err:
            raise CaptureError(f"pyalsaaudio not installed: {err}") from err
        try:
            pcm = alsaaudio.PCM(
                alsaaudio.PCM_CAPTURE,
                alsaaudio.PCM_NORMAL,
                device=self.device,
                channels=1,
                rate=VOSK_RATE,
                format=alsaaudio.PCM_FORMAT_S16_LE,
                periodsize=self.period_frames,
            )
        except alsaaudio.ALSAAudioError as err:
            raise CaptureError(f"capture device {self.device!r}: {err}") from err
        info = pcm.info()
        rate, channels = int(info.get("rate", VOSK_RATE)), int(info.get("channels", 1))
        if info.get("format_name", "S16_LE") != "S16_LE":
            pcm.close()
            raise CaptureError(f"capture device {self.device!r} refuses S16_LE")
        self._resampler = Resampler(rate, channels, VOSK_RATE, 1)
        if not self._resampler.passthrough:
            _LOGGER.info("capture at %d Hz x%d, converted to 16 kHz mono", rate, channels)
        self._pcm = pcm

    def read(self) -> bytes:
        """One period as 16 kHz mono S16_LE; raises CaptureError when the device is gone."""
        if self._pcm is None:
            raise CaptureError("capture device not open")
        import alsaaudio

        try:
            frames, data = self._pcm.read()
        except alsaaudio.ALSAAudioError as err:
            raise CaptureError(f"capture device {self.device!r}: {err}") from err
        if frames < 0:  # -EPIPE: overrun; pyalsaaudio has re-prepared the stream
            self.overruns += 1
            _LOGGER.debug("capture overrun (%d so far)", self.overruns)
            return b""
        assert self._resampler is not None
        pcm = apply_gain(self._resampler.convert(data), self.gain)
        # A microphone delivers in real time; a device that returns faster (ALSA `file`
        # plugin over `null`) is paced so an utterance lasts as long as it was spoken.
        self._pacer.wrote(len(pcm) // 2)
        return pcm

    def close(self) -> None:
        """Close the device."""
        if self._pcm is not None:
            try:
                self._pcm.close()
            finally:
                self._pcm = None


class CaptureGuard:
    """Opens a `Capture` with backoff: the first failure is logged, repeats only at debug.

    `try_open(now)` returns True when the device is open; it does not retry before the
    backoff (`backoff_min` doubling up to `backoff_max` seconds) has passed.
    """

    def __init__(
        self, capture: Capture, *, backoff_min: float = 0.2, backoff_max: float = 30.0
    ) -> None:
        self.capture = capture
        self.backoff_min = backoff_min
        self.backoff_max = backoff_max
        self.backoff = backoff_min
        self.next_try = 0.0
        self.failing = False
        self.failures = 0
        self.last_error = ""

    def try_open(self, now: float | None = None) -> bool:
        """Open the device unless in backoff; reports the first failure once."""
        now = time.monotonic() if now is None else now
        if now < self.next_try:
            return False
        try:
            self.capture.open()
        except CaptureError as err:
            self.failures += 1
            self.last_error = str(err)
            if not self.failing:
                _LOGGER.warning("microphone unavailable (will retry): %s", err)
            else:
                _LOGGER.debug("microphone still unavailable: %s", err)
            self.failing = True
            self.next_try = now + self.backoff
            self.backoff = min(self.backoff * 2, self.backoff_max)
            return False
        if self.failing:
            _LOGGER.info("microphone back after %d failed attempts", self.failures)
        self.failing = False
        self.backoff = self.backoff_min
        self.next_try = 0.0
        return True

    def lost(self, err: Exception, now: float | None = None) -> None:
        """The open device failed mid-stream: close it and start the backoff."""
        now = time.monotonic() if now is None else now
        self.capture.close()
        self.last_error = str(err)
        if not self.failing:
            _LOGGER.warning("microphone lost (will retry): %s", err)
        self.failing = True
        self.next_try = now + self.backoff
