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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
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
        self._read = False
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
        self._read = True
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
        if start > 0 or self._read:  # back to 0 too, once anything was read
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


MIN_SPEED, MAX_SPEED = 0.5, 2.0
"""The playback speeds `Tempo` takes (FFmpeg's atempo keeps the pitch over this range)."""


def clamp_speed(speed: float) -> float:
    """`speed` held to MIN_SPEED..MAX_SPEED (1.0 when it is not a number)."""
    try:
        value = float(speed)
    except (TypeError, ValueError):
        return 1.0
    if value != value:  # NaN
        return 1.0
    return max(MIN_SPEED, min(MAX_SPEED, value))


class Tempo:
    """Interleaved int16 PCM played `speed` times as fast with its pitch kept: FFmpeg's
    atempo filter (WSOLA) through PyAV's filter graph (abuffer -> atempo -> abuffersink).

    `process` returns what the filter gives back for a block (it holds a few tens of
    milliseconds); `flush` returns the rest, after which the object is spent.
    """

    def __init__(self, rate: int, channels: int, speed: float) -> None:
        """`rate` Hz, `channels` 1 or 2, `speed` 0.5..2.0 (see `clamp_speed`)."""
        self.rate = rate
        self.layout = _LAYOUTS[channels]
        self.speed = clamp_speed(speed)
        self.graph = av.filter.Graph()
        source = self.graph.add_abuffer(
            format="s16", sample_rate=rate, layout=self.layout, time_base=Fraction(1, rate)
        )
        tempo = self.graph.add("atempo", f"{self.speed:.4f}")
        shape = self.graph.add(
            "aformat", f"sample_fmts=s16:sample_rates={rate}:channel_layouts={self.layout}"
        )
        sink = self.graph.add("abuffersink")
        source.link_to(tempo)
        tempo.link_to(shape)
        shape.link_to(sink)
        self.graph.configure()
        self._pts = 0

    def process(self, pcm: np.ndarray) -> np.ndarray:
        """The output for interleaved int16 `pcm` (may be empty while the filter fills)."""
        if pcm.size == 0:
            return _EMPTY
        frame = av.AudioFrame.from_ndarray(
            np.ascontiguousarray(pcm).reshape(1, -1), format="s16", layout=self.layout
        )
        frame.sample_rate = self.rate
        frame.pts = self._pts
        self._pts += frame.samples
        self.graph.push(frame)
        return self._pull()

    def flush(self) -> np.ndarray:
        """What the filter still holds; the object is spent afterwards."""
        self.graph.push(None)
        return self._pull()

    def _pull(self) -> np.ndarray:
        outs = []
        while True:
            try:
                frame = self.graph.pull()
            except (av.BlockingIOError, av.EOFError):
                break
            outs.append(frame.to_ndarray().reshape(-1))
        return np.concatenate(outs) if outs else _EMPTY


_EMPTY = np.empty(0, dtype=np.int16)


@dataclass(frozen=True)
class Cut:
    """A point of the file where the worker does more than play on (a chapter's end with
    its outro and the next one's intro skipped, the end of an episode where a sleep timer
    stops): at `at` seconds from the start of the file, it jumps to `jump` (when set),
    then pauses (`pause`), or ends the playback as the end of the file would (`end`).
    Audio is written up to `at` to the sample, never past it."""

    at: float
    jump: float | None = None
    pause: bool = False
    end: bool = False


class Playback:
    """One file being played by a worker thread into `sink`.

    `loaded` resolves to the duration (seconds) once the file is open, or to DecodeError;
    cancelling it (the caller gave up waiting) makes the worker close the file without
    playing. `position` is in seconds from the start of the file, in the book's time
    whatever the `speed` (FFmpeg's atempo, `Tempo`: at 1.5, 60 s of the file are written
    as 40 s of output). `cuts` (`Cut`) and `end_trim` (seconds cut off the file's end: an
    outro) act in the worker to the sample; `fade_out` lowers the volume to nothing over
    some seconds of output, then pauses where the fade began. `on_event` is called from the
    worker thread with "ended" (the end of what is readable, or of the cut), "paused" (a
    `Cut` or a fade paused it; detail "cut" or "fade"), "error" (the file yields no audio
    at all) or "sink_error".
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
        speed: float = 1.0,
        cuts: Sequence[Cut] = (),
        end_trim: float = 0.0,
    ) -> None:
        """`start`: seconds; `volume`: callable giving 0.0..1.0; `previous`: a playback the
        worker waits for before its first write, so two never write at once; `speed`
        0.5..2.0; `cuts` and `end_trim` (seconds) as in the class docstring."""
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
        self._speed = clamp_speed(speed)
        self._segment_speed = self._speed
        self._cuts = tuple(sorted(cuts, key=lambda c: c.at))
        self._end_trim = max(0.0, end_trim)
        self._fade_total = 0
        self._fade_left = 0
        self._fade_from: float | None = None
        self._frames = 0  # output frames written since `_base`
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
        """Seconds from the start of the file that the output has taken (book time).

        Frames still queued in the sink (its optional ``delay()``) are not counted, so the
        position stands still while the device accepts nothing (no speaker, held book).
        """
        with self._cond:
            return self._position()

    def _position(self) -> float:
        heard = self._frames - self._rewind
        if not self._paused:
            heard -= min(max(0, self._sink_delay()), heard)
        return self._base + heard * self._segment_speed / self.rate

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
    def speed(self) -> float:
        """The playback speed (1.0 normal)."""
        return self._speed

    @property
    def fading(self) -> bool:
        """True while a `fade_out` is lowering the volume."""
        return self._fade_left > 0

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
            self._fade_left = 0
            self._rewind = max(0, min(queued, self._history_frames, self._frames))
        self.sink.drop()

    def resume(self) -> None:
        """Continue at the sample where pause left off."""
        with self._cond:
            self._paused = False
            self._cond.notify_all()

    def seek(self, seconds: float) -> None:
        """Jump to `seconds` from the start of the file (clamped at 0); `position` says so
        at once (the worker starts decoding there within one chunk)."""
        with self._cond:
            self._seek = max(0.0, seconds)
            self._base, self._frames, self._rewind = self._seek, 0, 0
            self._cond.notify_all()
        self.sink.drop()

    def set_speed(self, speed: float) -> None:
        """Play on at `speed` (0.5..2.0) from the sample heard now, pitch kept."""
        speed = clamp_speed(speed)
        with self._cond:
            if speed == self._speed:
                return
            self._speed = speed
            self._seek = self._position() if self._seek is None else self._seek
            self._cond.notify_all()
        self.sink.drop()

    def set_cuts(self, cuts: Sequence[Cut], end_trim: float | None = None) -> None:
        """Replace the cuts (and, when given, the seconds trimmed off the file's end)."""
        with self._cond:
            self._cuts = tuple(sorted(cuts, key=lambda c: c.at))
            if end_trim is not None:
                self._end_trim = max(0.0, end_trim)

    def fade_out(self, seconds: float) -> None:
        """Lower the volume to nothing over `seconds` of output, then pause where the fade
        began (resume replays what faded)."""
        with self._cond:
            if self._paused or self._stopped:
                return
            self._fade_total = self._fade_left = max(1, int(seconds * self.rate))
            self._fade_from = None

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

    def _plan(self) -> list[Cut]:
        """The cuts, with the end of the file less `end_trim` as one that ends."""
        cuts = list(self._cuts)
        if self._end_trim > 0 and self.duration > self._end_trim + 1.0:
            cuts.append(Cut(self.duration - self._end_trim, end=True))
        return cuts

    def _faded(self, chunk: np.ndarray) -> np.ndarray:
        """`chunk` under the fade ramp (a linear fall to nothing); counts the fade down."""
        frames = chunk.size // self.channels
        left, total = self._fade_left, self._fade_total
        gains = np.clip((left - np.arange(frames)) / total, 0.0, 1.0).astype(np.float32)
        self._fade_left = max(0, left - frames)
        shaped = chunk.reshape(-1, self.channels).astype(np.float32) * gains[:, None]
        return shaped.reshape(-1)

    def _loop(self, decoder: Decoder) -> None:
        state = _Segment(decoder.pcm(self._base), self._new_tempo())
        ended = False
        while True:
            with self._cond:
                while True:
                    if self._stopped:
                        return
                    if self._seek is not None:
                        target, self._seek = self._seek, None
                        state = self._restart(decoder, state, target)
                        ended = False
                    if not self._paused:
                        break
                    self._cond.wait()
                if self._rewind:
                    tail = np.concatenate(list(self._history))[-self._rewind * self.channels :]
                    state.ready = np.concatenate([tail, state.ready])
                    self._frames -= self._rewind
                    self._rewind = 0
                    self._history.clear()
                    self._history_frames = 0
                cuts = self._plan()
            if not ended and state.action is None:
                ended = self._fill(state, cuts)
            if state.ready.size == 0:
                with self._cond:
                    if self._seek is not None or self._stopped:
                        state.action = None  # a seek came while decoding: it goes first
                        continue
                action = state.action
                if action is None:
                    if not decoder.produced and decoder.skipped:
                        raise DecodeError("音频文件坏了，没有能播放的声音")
                    break
                state.action = None
                if action.end:
                    break
                if action.jump is not None:
                    with self._cond:
                        state = self._restart(decoder, state, action.jump)
                    ended = False
                elif state.tempo is None and abs(self._segment_speed - 1.0) >= 1e-3:
                    state.tempo = Tempo(self.rate, self.channels, self._segment_speed)
                if action.pause:
                    with self._cond:
                        self._paused = True
                        self._fade_left = 0
                    self._emit("paused", "cut")
                continue
            chunk, state.ready = state.ready[: self._chunk], state.ready[self._chunk :]
            gain = self.volume()
            out = chunk
            fading = False
            with self._cond:
                if self._fade_left > 0:
                    fading = True
                    if self._fade_from is None:
                        self._fade_from = (
                            self._base + self._frames * self._segment_speed / self.rate
                        )
                    shaped = self._faded(chunk) * gain
                    out = np.clip(shaped, -32768, 32767).astype(np.int16)
            if not fading and gain < 0.999:
                out = np.clip(chunk.astype(np.float32) * gain, -32768, 32767).astype(np.int16)
            with self._cond:
                if self._paused or self._stopped or self._seek is not None:
                    # it came while this chunk was decoded: not one more chunk is written
                    state.ready = np.concatenate([chunk, state.ready])
                    continue
            self.sink.write(out.tobytes())
            with self._cond:
                self._frames += chunk.size // self.channels
                self.frames_written += chunk.size // self.channels
                self._remember(chunk)
                faded = fading and self._fade_left == 0 and self._fade_from is not None
                if faded:
                    # the fade is over: pause where it began, so resume replays the words
                    self._paused = True
                    state = self._restart(decoder, state, self._fade_from)
                    self._fade_from = None
                    ended = False
            if faded:
                self._emit("paused", "fade")
        end = self.position
        if decoder.duration and end < decoder.duration - self._end_trim - SHORT_END_SECONDS:
            _LOGGER.warning(
                "%s ended at %.1f s of the %.1f s its header states (the rest is missing)",
                self.path.name, end, decoder.duration,
            )  # fmt: skip
        self._emit("ended")

    def _new_tempo(self) -> Tempo | None:
        """A fresh atempo filter for the current speed; None at 1.0 (no filter)."""
        self._segment_speed = self._speed
        if abs(self._speed - 1.0) < 1e-3:
            return None
        return Tempo(self.rate, self.channels, self._speed)

    def _restart(self, decoder: Decoder, state: _Segment, target: float) -> _Segment:
        """Decode on from `target` seconds (a seek, a jump of a cut, a new speed, the start
        of a fade); called with the lock held (the sink's queue is the caller's)."""
        state.pcm.close()
        self._base = max(0.0, target)
        self._frames = 0
        self._rewind = 0
        self._history.clear()
        self._history_frames = 0
        return _Segment(decoder.pcm(self._base), self._new_tempo())

    def _fill(self, state: _Segment, cuts: list[Cut]) -> bool:
        """Decode until `state.ready` holds a chunk of output, a cut is reached (its action
        set) or the file ends; True at the end of the file (all output flushed)."""
        channels = self.channels
        while state.ready.size < self._chunk and state.action is None:
            want = max(channels, int(self._chunk * self._segment_speed) // channels * channels)
            while state.pending.size < want and not state.done:
                try:
                    state.pending = np.concatenate([state.pending, next(state.pcm)])
                except StopIteration:
                    state.done = True
            if state.pending.size == 0:
                state.emit(state.flush())
                return True
            piece = state.pending[:want]
            begin = self._base + state.consumed / self.rate
            finish = begin + piece.size / channels / self.rate
            for cut in cuts:
                # half a frame of slack: a cut just acted on is not met again on resume
                if begin + 0.5 / self.rate < cut.at <= finish:
                    keep = min(piece.size, round((cut.at - begin) * self.rate) * channels)
                    piece = piece[:keep]
                    state.action = cut
                    break
            state.pending = state.pending[piece.size :]
            state.consumed += piece.size // channels
            state.emit(state.tempo.process(piece) if state.tempo is not None else piece)
            if state.action is not None:
                state.emit(state.flush())
        return False


@dataclass
class _Segment:
    """What the worker decodes from one start point: the PCM iterator, input not yet
    taken (`pending`), output not yet written (`ready`), input frames taken, the tempo
    filter, the cut reached and whether the input is exhausted."""

    pcm: Iterator[np.ndarray]
    tempo: Tempo | None
    pending: np.ndarray = field(default_factory=lambda: _EMPTY)
    ready: np.ndarray = field(default_factory=lambda: _EMPTY)
    consumed: int = 0
    action: Cut | None = None
    done: bool = False

    def emit(self, out: np.ndarray) -> None:
        if out.size:
            self.ready = np.concatenate([self.ready, out]) if self.ready.size else out

    def flush(self) -> np.ndarray:
        """What the tempo filter still holds (it is spent: a new one follows a restart)."""
        if self.tempo is None:
            return _EMPTY
        out = self.tempo.flush()
        self.tempo = None
        return out
