"""Real-time pacing for audio devices that do not block (ALSA null, the file plugin, WAV)."""

from __future__ import annotations

import time


class Pacer:
    """Keeps a writer from running ahead of the wall clock by more than `lead` seconds.

    A sound card blocks each write at its own pace, so this never waits there; a device that
    does not block (ALSA ``null``, the ``file`` plugin, a WAV file) would let a book race
    through in seconds. A gap of more than `idle` seconds between writes starts a new run.
    """

    def __init__(self, sample_rate: int, *, lead: float = 0.2, idle: float = 0.25) -> None:
        self.sample_rate = sample_rate
        self.lead = lead
        self.idle = idle
        self._start = 0.0
        self._frames = 0

    def wrote(self, frames: int) -> float:
        """Count `frames` just written; sleeps if ahead. Returns the seconds slept."""
        now = time.monotonic()
        if now - (self._start + self._frames / self.sample_rate) > self.idle:
            self._start, self._frames = now, 0
        self._frames += frames
        ahead = self._start + self._frames / self.sample_rate - now - self.lead
        if ahead > 0:
            time.sleep(ahead)
            return ahead
        return 0.0
