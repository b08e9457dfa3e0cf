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

# on_event(playback, kind, detail): kind is "ended" (end of file), "error" (DecodeError: the
# file is corrupt) or "sink_error" (SinkError: writing to the output failed).
EventCallback = Callable[["Playback", str, object], None]


def probe(path: Path) -> float:
    """Open `path` with PyAV and decode one audio frame; returns the duration in seconds.

    The duration is 0.0 when the container does not state it. Raises DecodeError when the
    file is missing, empty, not audio or corrupt.
    """
    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                raise DecodeError("文件里没有音频")
            stream = container.streams.audio[0]
            for _frame in container.decode(stream):
                break
            else:
                raise DecodeError("音频文件是空的")
            return _duration(container, stream)
    except DecodeError:
        raise
    except (av.FFmpegError, OSError, ValueError, IndexError) as err:
        raise DecodeError("音频文件坏了，无法播放") from err


def _duration(container, stream) -> float:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / 1_000_000
    return 0.0


class Decoder:
    """An open audio file yielding interleaved int16 PCM at `rate` Hz and `channels`."""

    def __init__(self, path: Path, *, rate: int, channels: int) -> None:
        """Open `path`; raises DecodeError when it is not playable audio."""
        if channels not in _LAYOUTS:
            raise ValueError(f"unsupported channel count {channels}")
        self.rate = rate
        self.channels = channels
        try:
            self.container = av.open(str(path))
            self.stream = self.container.streams.audio[0]
        except (av.FFmpegError, OSError, ValueError, IndexError) as err:
            raise DecodeError("音频文件坏了，无法播放") from err
        self.duration = _duration(self.container, self.stream)

    def close(self) -> None:
        """Close the container."""
        self.container.close()

    def pcm(self, start: float = 0.0) -> Iterator[np.ndarray]:
        """Interleaved int16 arrays from `start` seconds on (samples before it trimmed).

        Raises DecodeError when the data is corrupt beyond what the decoder skips.
        """
        try:
            yield from self._pcm(start)
        except (av.FFmpegError, ValueError) as err:
            raise DecodeError("音频文件坏了，播放中断") from err

    def _pcm(self, start: float) -> Iterator[np.ndarray]:
        if start > 0:
            self.container.seek(int(start * 1_000_000), backward=True, any_frame=False)
        resampler = av.AudioResampler(format="s16", layout=_LAYOUTS[self.channels], rate=self.rate)
        trimming = start > 0
        for frame in self.container.decode(self.stream):
            outs = resampler.resample(frame)
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
        for out in resampler.resample(None):
            yield out.to_ndarray().reshape(-1)


class Playback:
    """One file being played by a worker thread into `sink`.

    `loaded` resolves to the duration (seconds) once the file is open, or to DecodeError.
    `position` is in seconds from the start of the file. `on_event` is called from the
    worker thread with "ended" or "error".
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
        """Seconds from the start of the file that have been heard."""
        with self._cond:
            return self._base + (self._frames - self._rewind) / self.rate

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
            self._paused = True
            delay = getattr(self.sink, "delay", None)
            queued = 0
            if callable(delay):
                try:
                    queued = int(delay())
                except Exception:  # a sink's optional method must not break pause
                    queued = 0
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

    def _run(self) -> None:
        if self._previous is not None:
            self._previous.join()
            self._previous = None
        try:
            decoder = Decoder(self.path, rate=self.rate, channels=self.channels)
        except BaseException as err:
            self.loaded.set_exception(err)
            return
        self.duration = decoder.duration
        self.loaded.set_result(decoder.duration)
        try:
            self._loop(decoder)
        except DecodeError as err:
            _LOGGER.warning("playback of %s failed: %s", self.path.name, err.__cause__ or err)
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
                break
            chunk, pending = pending[: self._chunk], pending[self._chunk :]
            gain = self.volume()
            out = chunk
            if gain < 0.999:
                out = np.clip(chunk.astype(np.float32) * gain, -32768, 32767).astype(np.int16)
            self.sink.write(out.tobytes())
            with self._cond:
                self._frames += chunk.size // self.channels
                self.frames_written += chunk.size // self.channels
                self._remember(chunk)
        self._emit("ended")
