"""Decoding with PyAV and the playback worker thread that feeds an `AudioSink`.

`probe` checks that a file is playable audio. `Playback` plays one file: its worker thread
opens it with PyAV (MP3, M4A/AAC, Opus, Ogg Vorbis, FLAC, WAV, ...), resamples to the sink's
sample rate and channel count as interleaved S16_LE (`av.AudioResampler`), scales by the
volume and writes chunks of `chunk_seconds` to the sink. Pause, seek and stop are flags
the worker reads between chunks, plus `sink.drop()` so they act within one period; pause
keeps the exact sample position and resume continues at it.
"""

from __future__ import annotations

import collections
import concurrent.futures
import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import av
import numpy as np

from .errors import DecodeError, SinkError
from .models import AudioSink

_LOGGER = logging.getLogger(__name__)

_LAYOUTS = {1: "mono", 2: "stereo"}
HISTORY_SECONDS = 2.0

# on_event(playback, kind, detail): kind is "ended" (end of what is readable), "error"
# (DecodeError: the file yields no audio at all) or "sink_error" (SinkError: writing to the
# output failed).
EventCallback = Callable[["Playback", str, object], None]


def probe(path: Path) -> float:
    """Open `path` with PyAV and decode its first audio frame; returns the duration in seconds.

    Damaged packets before the first good frame are skipped, as in playback. The duration is
    the container's (0.0 when it states none). Raises DecodeError when the file is missing,
    empty, not audio, or yields no audio at all.
    """
    decoder = Decoder(path, rate=48000, channels=2, quiet=True)
    try:
        for _frame in decoder.frames():
            return decoder.duration
    finally:
        decoder.close()
    raise DecodeError("音频文件是空的" if not decoder.skipped else "音频文件坏了，无法播放")


def _duration(container, stream) -> float:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / 1_000_000
    return 0.0


# Consecutive demuxer errors with no packet in between after which the rest of a file is
# taken as unreadable (each error has already skipped ahead in the file).
MAX_DEMUX_ERRORS = 64
# A file ending this much before the duration its container states is logged as cut short.
SHORT_END_SECONDS = 2.0
# A jump forward in frame timestamps longer than this counts as audio lost to damage.
GAP_SECONDS = 0.1


class Decoder:
    """An open audio file yielding interleaved int16 PCM at `rate` Hz and `channels`.

    Decoding goes on past damage, as mpg123 and FFmpeg's command line do: a packet the
    demuxer or decoder rejects is skipped (the next packet resynchronises; an MP3 frame is
    26 ms, an AAC frame 23 ms, an Ogg page about 1 s), and `skipped` counts them. A change
    of sample rate, sample format or channel layout inside the file (``cat a.mp3 b.mp3``,
    inserted adverts) re-creates the resampler at the change. `close` logs the count of
    skipped packets once per file.
    """

    def __init__(self, path: Path, *, rate: int, channels: int, quiet: bool = False) -> None:
        """Open `path`; raises DecodeError when it is not an audio file PyAV can open.

        `quiet`: do not log skipped packets on close (probing).
        """
        if channels not in _LAYOUTS:
            raise ValueError(f"unsupported channel count {channels}")
        self.path = Path(path)
        self.rate = rate
        self.channels = channels
        self.quiet = quiet
        self.skipped = 0
        self.first_skip: float | None = None
        self.last_error = ""
        self.formats_seen = 0
        self.produced = False
        self.lost_seconds = 0.0
        self._next_time: float | None = None
        try:
            self.container = av.open(str(path))
        except (av.FFmpegError, OSError, ValueError) as err:
            raise DecodeError("音频文件坏了，无法播放") from err
        if not self.container.streams.audio:
            self.container.close()
            raise DecodeError("文件里没有音频")
        self.stream = self.container.streams.audio[0]
        self.duration = _duration(self.container, self.stream)

    def close(self) -> None:
        """Close the container; logs, once, how many damaged packets were skipped."""
        if self.skipped and not self.quiet:
            _LOGGER.warning(
                "%s: skipped %d damaged packet(s), the first at %.1f s (%s); playback went on",
                self.path.name, self.skipped, self.first_skip or 0.0, self.last_error,
            )  # fmt: skip
            self.quiet = True
        self.container.close()

    def _skip(self, err: Exception, packet) -> None:
        self.skipped += 1
        self.last_error = str(err) or type(err).__name__
        if self.first_skip is None:
            when = None
            if packet is not None and packet.pts is not None and packet.time_base is not None:
                when = float(packet.pts * packet.time_base)
            self.first_skip = when if when is not None else 0.0
        _LOGGER.debug("%s: skipping a damaged packet: %s", self.path.name, err)

    def frames(self) -> Iterator[av.AudioFrame]:
        """Decoded frames from the current position to the end, damaged packets skipped."""
        demuxer = self.container.demux(self.stream)
        self._next_time = None
        failures = 0
        while True:
            try:
                packet = next(demuxer)
            except StopIteration:
                return
            except av.EOFError:
                return
            except (av.FFmpegError, ValueError) as err:
                # The demuxer lost sync: it has moved past the bad bytes; read on from there.
                self._skip(err, None)
                failures += 1
                if failures >= MAX_DEMUX_ERRORS:
                    _LOGGER.warning("%s: unreadable from here on: %s", self.path.name, err)
                    return
                demuxer = self.container.demux(self.stream)
                continue
            failures = 0
            try:
                decoded = packet.decode()
            except (av.FFmpegError, ValueError) as err:
                self._skip(err, packet)
                continue
            for frame in decoded:
                self._check_gap(frame)
                self.produced = True
                yield frame

    def _check_gap(self, frame: av.AudioFrame) -> None:
        """Count a jump forward in the timestamps (a lost Ogg page, a dropped packet)."""
        begin = frame.time
        if begin is None or not frame.sample_rate:
            self._next_time = None
            return
        expected = self._next_time
        self._next_time = begin + frame.samples / frame.sample_rate
        if expected is not None and begin - expected > GAP_SECONDS:
            self.skipped += 1
            self.lost_seconds += begin - expected
            self.last_error = f"{begin - expected:.2f} s missing"
            if self.first_skip is None:
                self.first_skip = expected

    def pcm(self, start: float = 0.0) -> Iterator[np.ndarray]:
        """Interleaved int16 arrays from `start` seconds on (samples before it trimmed).

        Damage is skipped (see the class); the iterator ends at the end of what is readable.
        """
        if start > 0:
            try:
                self.container.seek(int(start * 1_000_000), backward=True, any_frame=False)
            except av.FFmpegError as err:
                _LOGGER.warning("%s: seek to %.1f s failed: %s", self.path.name, start, err)
                return
        resampler = None
        layout = None
        trimming = start > 0
        for frame in self.frames():
            shape = (frame.format.name, frame.layout.name, frame.sample_rate)
            if shape != layout:
                if resampler is not None:
                    yield from _flush(resampler)
                    _LOGGER.info(
                        "%s: audio changes to %s %s %d Hz at %.1f s",
                        self.path.name, *shape, frame.time or 0.0,
                    )  # fmt: skip
                self.formats_seen += 1
                resampler = av.AudioResampler(
                    format="s16", layout=_LAYOUTS[self.channels], rate=self.rate
                )
                layout = shape
            try:
                outs = resampler.resample(frame)
            except (av.FFmpegError, ValueError) as err:
                self._skip(err, None)
                continue
            if not outs:
                continue
            data = np.concatenate([o.to_ndarray().reshape(-1) for o in outs])
            if trimming:
                begin = frame.time
                if begin is None:
                    trimming = False
                else:
                    skip = round((start - begin) * self.rate) * self.channels
                    if skip >= data.size:
                        continue
                    if skip > 0:
                        data = data[skip:]
                    trimming = False
            yield data
        if resampler is not None:
            yield from _flush(resampler)


# Nice value asked for the decoding thread, so a busy CPU (the language model) delays it last.
DECODER_NICE = -5


def _raise_priority() -> None:
    """Ask for `DECODER_NICE` for the calling thread; a refusal is one debug line."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), DECODER_NICE)
    except (AttributeError, OSError) as err:
        _LOGGER.debug("decoding thread keeps its priority (%s)", err)


def _flush(resampler) -> Iterator[np.ndarray]:
    try:
        outs = resampler.resample(None)
    except (av.FFmpegError, ValueError):
        return
    for out in outs:
        yield out.to_ndarray().reshape(-1)


class Playback:
    """One file being played by a worker thread into `sink`.

    `loaded` resolves to the duration (seconds) once the file is open, or to DecodeError;
    cancelling it (the caller gave up waiting) makes the worker close the file without
    playing. `position` is in seconds from the start of the file. `on_event` is called from
    the worker thread with "ended" (the end of what is readable: damage on the way is
    skipped), "error" (the file yields no audio at all) or "sink_error".
    """

    def __init__(
        self,
        path: Path,
        sink: AudioSink,
        *,
        start: float = 0.0,
        volume: Callable[[], float] = lambda: 1.0,
        on_event: EventCallback | None = None,
        previous: Playback | None = None,
        chunk_seconds: float = 0.05,
        paused: bool = False,
    ) -> None:
        """`start`: seconds; `volume`: callable giving 0.0..1.0; `previous`: a playback the
        worker waits for before its first write, so two never write at once."""
        self.path = Path(path)
        self.sink = sink
        self.rate = int(sink.sample_rate)
        self.channels = int(sink.channels)
        self.volume = volume
        self.on_event = on_event
        self.loaded: concurrent.futures.Future[float] = concurrent.futures.Future()
        self.duration = 0.0
        self._previous = previous
        self._chunk = max(1, int(self.rate * chunk_seconds)) * self.channels
        self._cond = threading.Condition()
        self._paused = paused
        self._stopped = False
        self._seek: float | None = None
        self._base = max(0.0, start)
        self._frames = 0
        self._rewind = 0
        self._history: collections.deque[np.ndarray] = collections.deque()
        self._history_frames = 0
        self.frames_written = 0
        self._thread = threading.Thread(target=self._run, name="xiaoting-playback", daemon=True)

    def start(self) -> None:
        """Start the worker thread."""
        self._thread.start()

    # control, from any thread -------------------------------------------------------------
    @property
    def position(self) -> float:
        """Seconds from the start of the file that the output has taken.

        Frames still queued in the sink (its optional ``delay()``) are not counted, so the
        position stands still while the device accepts nothing (no speaker, held book). A
        seek the worker has not reached yet is already the position: what the listener
        asked for, and what a status or a bookmark taken now must say.
        """
        with self._cond:
            if self._seek is not None:
                return self._seek
            heard = self._frames - self._rewind
            if not self._paused:
                heard -= min(max(0, self._sink_delay()), heard)
            return self._base + heard / self.rate

    def _sink_delay(self) -> int:
        delay = getattr(self.sink, "delay", None)
        if not callable(delay):
            return 0
        try:
            return int(delay())
        except Exception:  # a sink's optional method must not break the position
            return 0

    @property
    def paused(self) -> bool:
        """True while paused."""
        return self._paused

    @property
    def alive(self) -> bool:
        """True until the worker has finished (end of file, stop or error)."""
        return self._thread.is_alive()

    def pause(self) -> None:
        """Stop writing now; frames queued in the sink are dropped and replayed on resume."""
        with self._cond:
            if self._paused or self._stopped:
                return
            queued = self._sink_delay()
            self._paused = True
            self._rewind = max(0, min(queued, self._history_frames, self._frames))
        self.sink.drop()

    def resume(self) -> None:
        """Continue at the sample where pause left off."""
        with self._cond:
            self._paused = False
            self._cond.notify_all()

    def seek(self, seconds: float) -> None:
        """Jump to `seconds` from the start of the file (clamped at 0)."""
        with self._cond:
            self._seek = max(0.0, seconds)
            self._cond.notify_all()
        self.sink.drop()

    def stop(self) -> None:
        """End playback; the worker exits after at most one chunk."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self.sink.drop()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the worker thread to finish."""
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    # worker -------------------------------------------------------------------------------
    def _emit(self, kind: str, detail: object = None) -> None:
        if self.on_event is not None:
            self.on_event(self, kind, detail)

    def _settle(self, result: float | None = None, error: BaseException | None = None) -> bool:
        """Resolve `loaded` unless the waiting side gave up (cancelled); False then."""
        if not self.loaded.set_running_or_notify_cancel():
            return False
        if error is not None:
            self.loaded.set_exception(error)
        else:
            self.loaded.set_result(result)
        return True

    def _run(self) -> None:
        _raise_priority()
        if self._previous is not None:
            self._previous.join()
            self._previous = None
        if self._stopped or self.loaded.cancelled():
            self.loaded.cancel()
            return
        try:
            decoder = Decoder(self.path, rate=self.rate, channels=self.channels)
        except Exception as err:
            self._settle(error=err)
            return
        try:
            self.duration = decoder.duration
            if not self._settle(decoder.duration):
                return  # closed or cancelled while loading: never write a sample
            self._loop(decoder)
        except DecodeError as err:
            _LOGGER.warning("playback of %s failed: %s", self.path.name, err)
            self._emit("error", err)
        except Exception as err:  # the sink failed; the file is not to blame
            _LOGGER.exception("audio output failed while playing %s", self.path.name)
            self._emit("sink_error", SinkError(f"声音输出出错: {err}"))
        finally:
            decoder.close()

    def _remember(self, chunk: np.ndarray) -> None:
        self._history.append(chunk)
        self._history_frames += chunk.size // self.channels
        limit = int(HISTORY_SECONDS * self.rate)
        while (
            self._history and self._history_frames - self._history[0].size // self.channels >= limit
        ):
            self._history_frames -= self._history.popleft().size // self.channels

    def _loop(self, decoder: Decoder) -> None:
        pcm = decoder.pcm(self._base)
        pending = np.empty(0, dtype=np.int16)
        ended = False
        while True:
            with self._cond:
                while True:
                    if self._stopped:
                        return
                    if self._seek is not None:
                        target, self._seek = self._seek, None
                        pcm.close()
                        pcm = decoder.pcm(target)
                        pending = np.empty(0, dtype=np.int16)
                        self._base, self._frames, self._rewind = target, 0, 0
                        self._history.clear()
                        self._history_frames = 0
                        ended = False
                    if not self._paused:
                        break
                    self._cond.wait()
                if self._rewind:
                    tail = np.concatenate(list(self._history))[-self._rewind * self.channels :]
                    pending = np.concatenate([tail, pending])
                    self._frames -= self._rewind
                    self._rewind = 0
                    self._history.clear()
                    self._history_frames = 0
            while pending.size < self._chunk and not ended:
                try:
                    pending = np.concatenate([pending, next(pcm)])
                except StopIteration:
                    ended = True
            if pending.size == 0:
                if not decoder.produced and decoder.skipped:
                    raise DecodeError("音频文件坏了，没有能播放的声音")
                break
            chunk, pending = pending[: self._chunk], pending[self._chunk :]
            gain = self.volume()
            out = chunk
            if gain < 0.999:
                out = np.clip(chunk.astype(np.float32) * gain, -32768, 32767).astype(np.int16)
            with self._cond:
                if self._paused or self._stopped or self._seek is not None:
                    # it came while this chunk was decoded: not one more chunk is written
                    pending = np.concatenate([chunk, pending])
                    continue
            self.sink.write(out.tobytes())
            with self._cond:
                self._frames += chunk.size // self.channels
                self.frames_written += chunk.size // self.channels
                self._remember(chunk)
        end = self.position
        if decoder.duration and end < decoder.duration - SHORT_END_SECONDS:
            _LOGGER.warning(
                "%s ended at %.1f s of the %.1f s its header states (the rest is missing)",
                self.path.name, end, decoder.duration,
            )  # fmt: skip
        self._emit("ended")
