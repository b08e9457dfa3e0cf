"""Audio out: one owner of the ALSA playback device, mixing the book and the voice.

`Mixer` runs one thread that writes periods to a `PcmOutput` (ALSA through pyalsaaudio,
or a recorder in tests). Its `book` channel implements `player.AudioSink`; its `voice`
channel takes synthesised speech at any rate. While the person talks the book is *held*
(nothing is taken from its buffer, so the player's `write` blocks and the position does not
move); while the assistant speaks it is ducked to `duck_volume`, or held when that is 0.

Under load (llama.cpp generating on the other cores) the writer thread asks the OS for a
higher priority, the book channel keeps at least `MIN_QUEUED_PERIODS` periods of decoded
audio ahead of the device, and underruns (``EPIPE``, short writes) are counted for
``xiaoting status``. The book's position follows what the device accepted: `delay()` is
the audio still queued here, and with no working speaker nothing is taken at all.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Callable
from enum import StrEnum
from typing import Protocol

import numpy as np

from .audio_in import AudioError
from .pacing import Pacer
from .resample import convert_once

_LOGGER = logging.getLogger(__name__)

# The book channel holds at least this many periods of decoded audio ahead of the device.
MIN_QUEUED_PERIODS = 3
# Nice value asked for the writer thread (lower runs first; needs CAP_SYS_NICE below 0).
WRITER_NICE = -10


def raise_thread_priority(name: str, nice: int = WRITER_NICE) -> bool:
    """Give the calling thread the nice value `nice` (Linux: per thread); True on success.

    A refusal (no CAP_SYS_NICE, another OS) is one debug line: audio still plays, only
    with less protection against a busy CPU.
    """
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    except (AttributeError, OSError) as err:
        _LOGGER.debug("%s thread keeps its priority (%s)", name, err)
        return False
    _LOGGER.debug("%s thread runs at nice %d", name, nice)
    return True


class PlaybackError(AudioError):
    """The playback device is busy, gone or refuses the format."""


class PcmOutput(Protocol):
    """A playback device taking interleaved S16_LE frames at a fixed rate and channel count."""

    sample_rate: int
    channels: int

    def open(self) -> None:
        """Open the device; raises PlaybackError."""
        ...

    def write(self, pcm: bytes) -> None:
        """Write whole frames; blocks at the device's pace; raises PlaybackError."""
        ...

    def close(self) -> None:
        """Close the device; safe to call twice."""
        ...


class AlsaPlayback:
    """ALSA playback of `device` at `sample_rate` Hz, `channels`, S16_LE, `period_frames`.

    The buffer asked for is at least `buffer_seconds` (and 4 periods): a 1024-frame period
    at 48 kHz is 21 ms, so 10 periods let the writer be late by 0.2 s before the sound
    breaks. The negotiated period and buffer are logged at open. An underrun (``-EPIPE``;
    pyalsaaudio re-prepares the stream inside `write`, so it shows as the XRUN state before
    the next write) and a short write count in `underruns`, except the one after the mixer
    said it had nothing to play (`idle`).
    """

    def __init__(
        self,
        device: str = "default",
        *,
        sample_rate: int = 48000,
        channels: int = 2,
        period_frames: int = 1024,
        buffer_seconds: float = 0.2,
    ) -> None:
        self.device = device
        self.sample_rate = sample_rate
        self.channels = channels
        self.period_frames = period_frames
        self.periods = max(4, math.ceil(buffer_seconds * sample_rate / period_frames))
        self.buffer_frames = self.periods * period_frames
        self.underruns = 0
        self.short_writes = 0
        self._idle = True
        self._pcm = None
        self._pacer = Pacer(sample_rate, lead=max(0.2, 8 * period_frames / sample_rate))

    def open(self) -> None:
        """Open the device; raises PlaybackError when busy, gone or the rate is refused."""
        try:
            import alsaaudio
        except ImportError as err:
            raise PlaybackError(f"pyalsaaudio not installed: {err}") from err
        try:
            pcm = alsaaudio.PCM(
                alsaaudio.PCM_PLAYBACK,
                alsaaudio.PCM_NORMAL,
                device=self.device,
                channels=self.channels,
                rate=self.sample_rate,
                format=alsaaudio.PCM_FORMAT_S16_LE,
                periodsize=self.period_frames,
                periods=self.periods,
            )
        except alsaaudio.ALSAAudioError as err:
            raise PlaybackError(f"playback device {self.device!r}: {err}") from err
        info = pcm.info()
        if (
            int(info.get("rate", self.sample_rate)) != self.sample_rate
            or int(info.get("channels", self.channels)) != self.channels
        ):
            pcm.close()
            raise PlaybackError(
                f"playback device {self.device!r} offers {info.get('rate')} Hz x"
                f"{info.get('channels')}, not {self.sample_rate} Hz x{self.channels}; "
                "use a plughw: device or set audio.playback_rate"
            )
        self.period_frames = int(info.get("period_size", self.period_frames))
        self.buffer_frames = int(info.get("buffer_size", self.buffer_frames))
        _LOGGER.info(
            "playback %s: %d Hz x%d S16_LE, period %d frames (%.1f ms), buffer %d frames "
            "(%.1f ms, %d periods)",
            self.device, self.sample_rate, self.channels, self.period_frames,
            1000 * self.period_frames / self.sample_rate, self.buffer_frames,
            1000 * self.buffer_frames / self.sample_rate,
            self.buffer_frames // max(1, self.period_frames),
        )  # fmt: skip
        self._idle = True
        self._pcm = pcm

    def idle(self) -> None:
        """The mixer has nothing to play: the underrun that follows is silence, not a fault."""
        self._idle = True

    def write(self, pcm: bytes) -> None:
        """Write frames; counts an underrun and retries once; raises PlaybackError."""
        if self._pcm is None:
            raise PlaybackError("playback device not open")
        import alsaaudio

        frame_bytes = 2 * self.channels
        frames = len(pcm) // frame_bytes
        try:
            if self._pcm.state() == alsaaudio.PCM_STATE_XRUN and not self._idle:
                self.underruns += 1
            self._idle = False
            view = memoryview(pcm)
            for _attempt in range(8):
                written = self._pcm.write(view)
                if written >= len(view) // frame_bytes:
                    break
                self.short_writes += 1  # the device took less: the rest goes again
                self.underruns += 1
                view = view[max(0, written) * frame_bytes :]
        except alsaaudio.ALSAAudioError as err:
            raise PlaybackError(f"playback device {self.device!r}: {err}") from err
        self._pacer.wrote(frames)

    def close(self) -> None:
        """Close the device (pending frames are dropped)."""
        if self._pcm is not None:
            try:
                self._pcm.close()
            finally:
                self._pcm = None


class BookMode(StrEnum):
    """How the book channel is mixed."""

    PLAY = "play"
    DUCK = "duck"
    HOLD = "hold"


class _Channel:
    """A byte FIFO of output-format frames guarded by the mixer's condition."""

    def __init__(self, mixer: Mixer, max_bytes: int) -> None:
        self._mixer = mixer
        self._buf = bytearray()
        self._max = max_bytes
        self._generation = 0

    def _take(self, nbytes: int) -> bytes:
        chunk = bytes(self._buf[:nbytes])
        del self._buf[:nbytes]
        return chunk


class BookChannel(_Channel):
    """The book's `player.AudioSink`: interleaved S16_LE at the mixer's rate and channels."""

    def __init__(self, mixer: Mixer, max_bytes: int) -> None:
        super().__init__(mixer, max_bytes)
        self.sample_rate = mixer.sample_rate
        self.channels = mixer.channels
        self.frames_written = 0

    def delay(self) -> int:
        """Frames written here that the device has not taken yet (the player's position
        leaves them out)."""
        with self._mixer.cond:
            return len(self._buf) // self._mixer.frame_bytes

    @property
    def problem(self) -> str:
        """Why nothing is heard ("speaker unavailable: ..."), or "" while the device works."""
        mixer = self._mixer
        if mixer.output_ok or mixer.closed:
            return ""
        return f"speaker unavailable: {mixer.last_error or 'not open'}"

    def write(self, pcm: bytes) -> None:
        """Queue frames; blocks (worker thread) while the buffer is full or the book held.

        Returns early, discarding the rest, when `drop` is called meanwhile.
        """
        mixer = self._mixer
        view = memoryview(pcm)
        with mixer.cond:
            generation = self._generation
            while view and not mixer.closed:
                room = self._max - len(self._buf)
                if room <= 0:
                    mixer.cond.wait(0.5)
                    if self._generation != generation:
                        return
                    continue
                take = room - room % mixer.frame_bytes
                self._buf += view[:take]
                view = view[take:]
                mixer.cond.notify_all()
            self.frames_written += len(pcm) // mixer.frame_bytes

    def drop(self) -> None:
        """Discard queued frames and release a blocked `write` (stop, seek, pause)."""
        with self._mixer.cond:
            self._buf.clear()
            self._generation += 1
            self._mixer.cond.notify_all()

    def close(self) -> None:
        """The player is done with the sink; the device stays open (the mixer owns it)."""
        self.drop()

    @property
    def queued_seconds(self) -> float:
        """Seconds of book audio waiting in the buffer."""
        return len(self._buf) / self._mixer.frame_bytes / self.sample_rate


class VoiceChannel(_Channel):
    """Synthesised speech, converted to the output format, played over the (ducked) book."""

    def __init__(self, mixer: Mixer) -> None:
        super().__init__(mixer, 0)
        self.started_at: float | None = None
        self.first_sample_at: float | None = None

    def begin(self) -> None:
        """Mark the start of an answer (for the Final-Answer→first-sample figure)."""
        with self._mixer.cond:
            self.started_at = time.monotonic()
            self.first_sample_at = None

    def write(self, pcm: bytes, sample_rate: int, channels: int = 1) -> float:
        """Queue S16_LE speech at `sample_rate` Hz; returns its duration in seconds."""
        mixer = self._mixer
        out = convert_once(pcm, sample_rate, channels, mixer.sample_rate, mixer.channels)
        out = out[: len(out) - len(out) % mixer.frame_bytes]
        with mixer.cond:
            if not mixer.output_ok:
                _LOGGER.debug("voice dropped: no playback device")
                return 0.0
            self._buf += out
            mixer.cond.notify_all()
        return len(out) / mixer.frame_bytes / mixer.sample_rate

    def stop(self) -> None:
        """Discard queued speech at once (barge-in)."""
        with self._mixer.cond:
            self._buf.clear()
            self._generation += 1
            self._mixer.cond.notify_all()

    @property
    def busy(self) -> bool:
        """True while speech is queued or its last period is being written."""
        return bool(self._buf) or self._mixer._voice_in_flight

    def wait_idle(self, timeout: float) -> bool:
        """Block until queued speech has been written (or `stop`); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._mixer.cond:
            while self.busy and not self._mixer.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._mixer.cond.wait(min(left, 0.5))
        return True


class Mixer:
    """The single owner of the playback device: book + voice, one writer thread.

    `volume` (0–1) scales everything; the book is scaled by `duck_volume` in DUCK mode.
    A device that fails is closed, reported once and reopened with backoff; meanwhile the
    book is held (not lost) and speech is dropped.
    """

    def __init__(
        self,
        output: PcmOutput,
        *,
        period_frames: int = 1024,
        volume: float = 1.0,
        duck_volume: float = 0.0,
        book_buffer_seconds: float = 0.5,
        backoff_max: float = 30.0,
    ) -> None:
        self.output = output
        self.sample_rate = output.sample_rate
        self.channels = output.channels
        self.frame_bytes = 2 * self.channels
        self.period_frames = period_frames
        self.volume = volume
        self.duck_volume = duck_volume
        self.backoff_max = backoff_max
        self.cond = threading.Condition()
        self.closed = False
        self.output_ok = False
        self.mode = BookMode.PLAY
        self.periods_written = 0
        self.device_errors = 0
        self.last_error = ""
        self.on_change: Callable[[bool, str], None] | None = None
        self.longest_gap = 0.0  # seconds between the starts of two writes while playing
        self._last_write: float | None = None
        self._voice_in_flight = False
        max_book = int(book_buffer_seconds * self.sample_rate) * self.frame_bytes
        least = MIN_QUEUED_PERIODS * period_frames * self.frame_bytes
        self.book = BookChannel(self, max(max_book, least))
        self.voice = VoiceChannel(self)
        self._thread: threading.Thread | None = None

    @property
    def underruns(self) -> int:
        """Underruns the device reported (each recovered by re-preparing the stream)."""
        return int(getattr(self.output, "underruns", 0))

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change(self.output_ok, self.last_error)
            except Exception:  # a listener must not stop the audio
                _LOGGER.exception("speaker state listener failed")

    def open(self) -> bool:
        """Open the device now (before `start`, to queue audio first); False when it fails."""
        return self.output_ok or self._open()

    def start(self) -> None:
        """Open the device (failure is reported and retried) and start the writer thread."""
        self.open()
        self._thread = threading.Thread(target=self._run, name="xiaoting-mixer", daemon=True)
        self._thread.start()

    def _open(self) -> bool:
        try:
            self.output.open()
        except PlaybackError as err:
            self.device_errors += 1
            first = self.output_ok or not self.last_error
            if first:
                _LOGGER.warning("speaker unavailable (will retry): %s", err)
            self.last_error = str(err)
            self.output_ok = False
            if first:
                self._changed()
            return False
        was_failing = bool(self.last_error)
        if was_failing:
            _LOGGER.info("speaker back: %s", getattr(self.output, "device", "output"))
        self.last_error = ""
        self.output_ok = True
        if was_failing:
            self._changed()
        return True

    def set_book_mode(self, mode: BookMode) -> None:
        """PLAY, DUCK (at `duck_volume`; HOLD when that is 0) or HOLD the book channel."""
        if mode == BookMode.DUCK and self.duck_volume <= 0.0:
            mode = BookMode.HOLD
        with self.cond:
            if mode != self.mode:
                _LOGGER.debug("book channel: %s", mode)
            self.mode = mode
            self.cond.notify_all()

    def _ready(self) -> bool:
        return bool(self.voice._buf) or (self.mode != BookMode.HOLD and bool(self.book._buf))

    def _run(self) -> None:
        raise_thread_priority("audio writer")
        period_bytes = self.period_frames * self.frame_bytes
        backoff = 0.5
        while True:
            with self.cond:
                if not self.closed and self.output_ok and not self._ready():
                    self._last_write = None  # nothing to play: not a gap
                    idle = getattr(self.output, "idle", None)
                    if callable(idle):
                        idle()
                while not self.closed and self.output_ok and not self._ready():
                    self.cond.wait(1.0)
                if self.closed:
                    return
                if not self.output_ok:
                    self.voice._buf.clear()  # speech cannot wait for a device to return
                    self.cond.notify_all()
                    self.cond.wait(backoff)
                    if self.closed:
                        return
                else:
                    mode = self.mode
                    voice = self.voice._take(period_bytes)
                    book = self.book._take(period_bytes) if mode != BookMode.HOLD else b""
                    self._voice_in_flight = bool(voice)
                    if voice and self.voice.first_sample_at is None:
                        self.voice.first_sample_at = time.monotonic()
                    self.cond.notify_all()
            if not self.output_ok:
                backoff = 0.5 if self._open() else min(backoff * 2, self.backoff_max)
                continue
            try:
                started = time.monotonic()
                if self._last_write is not None:
                    self.longest_gap = max(self.longest_gap, started - self._last_write)
                self._last_write = started
                self.output.write(self._mix(book, voice, mode))
                self.periods_written += 1
            except PlaybackError as err:
                self.device_errors += 1
                _LOGGER.warning("speaker lost (will retry): %s", err)
                self.last_error = str(err)
                self._last_write = None
                self.output.close()
                with self.cond:
                    self.output_ok = False
                    if book:  # put the book back: nothing of it is lost
                        self.book._buf[0:0] = book
                self._changed()
            finally:
                with self.cond:
                    self._voice_in_flight = False
                    self.cond.notify_all()

    def _mix(self, book: bytes, voice: bytes, mode: BookMode) -> bytes:
        book_gain = self.volume * (self.duck_volume if mode == BookMode.DUCK else 1.0)
        if not voice:
            if book_gain == 1.0:
                return book
            return _scale(book, book_gain)
        if not book:
            return voice if self.volume == 1.0 else _scale(voice, self.volume)
        b = np.frombuffer(book, dtype="<i2").astype(np.float32) * book_gain
        v = np.frombuffer(voice, dtype="<i2").astype(np.float32) * self.volume
        n = max(len(b), len(v))
        mixed = np.zeros(n, dtype=np.float32)
        mixed[: len(b)] += b
        mixed[: len(v)] += v
        return np.clip(mixed, -32768, 32767).astype("<i2").tobytes()

    def close(self, timeout: float = 2.0) -> None:
        """Stop the writer thread and close the device; pending audio is dropped."""
        with self.cond:
            self.closed = True
            self.cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        self.output.close()
        self.output_ok = False


def _scale(pcm: bytes, gain: float) -> bytes:
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) * gain
    return np.clip(samples, -32768, 32767).astype("<i2").tobytes()
