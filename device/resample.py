"""Sample-rate and channel conversion of S16_LE PCM with libswresample (through PyAV)."""

from __future__ import annotations

import numpy as np

_LAYOUTS = {1: "mono", 2: "stereo"}


class Resampler:
    """Streaming converter from (`in_rate`, `in_channels`) to (`out_rate`, `out_channels`).

    Input and output are interleaved S16_LE bytes; rates in Hz; 1 or 2 channels. State is
    kept between calls, so a stream can be fed period by period; `flush` returns the tail.
    When the formats already match, bytes pass through untouched.
    """

    def __init__(self, in_rate: int, in_channels: int, out_rate: int, out_channels: int) -> None:
        if in_channels not in _LAYOUTS or out_channels not in _LAYOUTS:
            raise ValueError("only mono or stereo S16_LE is supported")
        self.in_rate, self.in_channels = in_rate, in_channels
        self.out_rate, self.out_channels = out_rate, out_channels
        self.passthrough = (in_rate, in_channels) == (out_rate, out_channels)
        self._resampler = None
        if in_rate != out_rate:
            import av

            self._av = av
            self._resampler = self._new()

    def _new(self):
        # Rate only: channels are mixed here, because libswresample's mono->stereo
        # up-mix lowers the level by 3 dB.
        return self._av.AudioResampler(
            format="s16", layout=_LAYOUTS[self.in_channels], rate=self.out_rate
        )

    def _channels(self, pcm: bytes) -> bytes:
        if self.in_channels == self.out_channels or not pcm:
            return pcm
        samples = np.frombuffer(pcm, dtype="<i2")
        if self.out_channels == 2:  # mono -> both sides at full level
            return np.repeat(samples, 2).tobytes()
        pairs = samples[: len(samples) - len(samples) % 2].reshape(-1, 2).astype(np.int32)
        return (pairs.sum(axis=1) // 2).astype("<i2").tobytes()

    def convert(self, pcm: bytes) -> bytes:
        """Convert one block; may return fewer or more frames than the ratio implies."""
        if self.passthrough or not pcm:
            return pcm
        if self._resampler is None:
            return self._channels(pcm)
        samples = np.frombuffer(pcm, dtype="<i2")
        usable = len(samples) - len(samples) % self.in_channels
        frame = self._av.AudioFrame.from_ndarray(
            samples[:usable].reshape(1, -1), format="s16", layout=_LAYOUTS[self.in_channels]
        )
        frame.sample_rate = self.in_rate
        out = b"".join(f.to_ndarray().tobytes() for f in self._resampler.resample(frame))
        return self._channels(out)

    def flush(self) -> bytes:
        """The samples still held inside the converter (end of a stream)."""
        if self.passthrough or self._resampler is None:
            return b""
        out = b"".join(f.to_ndarray().tobytes() for f in self._resampler.resample(None))
        self._resampler = self._new()
        return self._channels(out)


def convert_once(
    pcm: bytes, in_rate: int, in_channels: int, out_rate: int, out_channels: int
) -> bytes:
    """Convert a whole clip (e.g. one synthesised sentence) in one call."""
    resampler = Resampler(in_rate, in_channels, out_rate, out_channels)
    return resampler.convert(pcm) + resampler.flush()


def apply_gain(pcm: bytes, gain: float) -> bytes:
    """Scale S16_LE samples by `gain`, clipping to the 16-bit range."""
    if gain == 1.0 or not pcm:
        return pcm
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) * gain
    return np.clip(samples, -32768, 32767).astype("<i2").tobytes()


def peak(pcm: bytes) -> int:
    """The largest absolute sample value of S16_LE `pcm` (0 for silence)."""
    if len(pcm) < 2:
        return 0
    return int(np.abs(np.frombuffer(pcm, dtype="<i2").astype(np.int32)).max())
