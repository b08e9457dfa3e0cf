"""Fakes implementing the device Protocols: agent, player, output, capture, ASR, TTS, button."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from device.audio_out import PlaybackError
from device.tts import Speech


@dataclass
class FakeTurn:
    """Shaped like agent.TurnResult."""

    utterance: str
    answer: str
    steps: list[Any] = field(default_factory=list)
    backend: str = "fake"
    elapsed_ms: float = 0.0
    error: str | None = None
    cancelled: bool = False


class FakeAgent:
    """Answers `answer`; waits `think_seconds` (or until cancelled); records what it was asked."""

    def __init__(
        self,
        answer: str = "Done. It is playing.",
        *,
        think_seconds: float = 0.0,
        player: Any = None,
        action: str | None = None,
    ) -> None:
        self.answer = answer
        self.think_seconds = think_seconds
        self.player = player
        self.action = action
        self.utterances: list[str] = []
        self.injected: list[str] = []
        self.cancelled = 0
        self.started = asyncio.Event()

    async def run(
        self, utterance: str, *, cancel: asyncio.Event | None = None, on_step: Any = None
    ) -> FakeTurn:
        self.utterances.append(utterance)
        self.started.set()
        cancel = cancel or asyncio.Event()
        try:
            await asyncio.wait_for(cancel.wait(), self.think_seconds)
        except TimeoutError:
            pass
        if cancel.is_set():
            self.cancelled += 1
            return FakeTurn(utterance, "", cancelled=True)
        if self.action == "pause" and self.player is not None:
            await self.player.pause()
        return FakeTurn(utterance, self.answer, steps=[{"action": self.action}])

    def inject(self, text: str) -> None:
        self.injected.append(text)


class FakePlayer:
    """A player whose book writes a tone into the sink from a worker thread while playing."""

    def __init__(self, sink: Any = None) -> None:
        self.state = "idle"
        self.sink = sink
        self.closed = False
        self.bookmarks_saved = False
        self.calls: list[str] = []
        self._callbacks: list[Any] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.download: asyncio.Task[Any] | None = None
        self.frames_written = 0

    def subscribe(self, callback: Any) -> None:
        self._callbacks.append(callback)

    def titles(self) -> list[str]:
        return ["西游记", "三体"]

    def tools(self) -> list[Any]:
        return [self.pause, self.resume]

    def _set(self, state: str) -> None:
        self.state = state
        for cb in self._callbacks:
            cb(state)

    async def play(self) -> None:
        self.calls.append("play")
        self._set("playing")
        if self.sink is not None and self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._feed, daemon=True)
            self._thread.start()

    def _feed(self) -> None:
        chunk = (np.full(1024 * self.sink.channels, 1000, dtype="<i2")).tobytes()
        while not self._stop.is_set():
            if self.state != "playing":
                time.sleep(0.005)
                continue
            self.sink.write(chunk)
            self.frames_written += 1024

    async def pause(self) -> str:
        """Pause the book."""
        self.calls.append("pause")
        self._set("paused")
        if self.sink is not None:
            self.sink.drop()
        return "paused"

    async def resume(self) -> str:
        """Resume the book."""
        self.calls.append("resume")
        self._set("playing")
        return "playing"

    def start_download(self) -> None:
        self.download = asyncio.create_task(asyncio.sleep(3600))

    async def close(self) -> None:
        self.calls.append("close")
        if self.download is not None:
            self.download.cancel()
        self._stop.set()
        if self.sink is not None:
            self.sink.drop()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 1.0)
        self.bookmarks_saved = True
        self.closed = True


class RecordingOutput:
    """A PcmOutput that keeps what is written; paced like a device when `realtime`."""

    def __init__(
        self,
        sample_rate: int = 48000,
        channels: int = 2,
        *,
        realtime: bool = False,
        fail_after: int | None = None,
        fail_opens: int = 0,
    ) -> None:
        self.sample_rate = sample_rate
        self.channels = channels
        self.realtime = realtime
        self.fail_after = fail_after
        self.fail_opens = fail_opens
        self.data = bytearray()
        self.writes = 0
        self.opens = 0
        self.is_open = False
        self.underruns = 0
        self.lock = threading.Lock()

    def open(self) -> None:
        self.opens += 1
        if self.fail_opens > 0:
            self.fail_opens -= 1
            raise PlaybackError("fake device gone")
        self.is_open = True

    def write(self, pcm: bytes) -> None:
        if self.fail_after is not None and self.writes >= self.fail_after:
            self.fail_after = None
            self.fail_opens = 1
            raise PlaybackError("fake device unplugged")
        with self.lock:
            self.data += pcm
            self.writes += 1
        if self.realtime:
            time.sleep(len(pcm) / (2 * self.channels) / self.sample_rate)

    def close(self) -> None:
        self.is_open = False

    def samples(self) -> np.ndarray:
        with self.lock:
            return np.frombuffer(bytes(self.data), dtype="<i2")


class FakeCapture:
    """16 kHz mono S16_LE from `pcm` then silence, one 1024-frame period per read, paced."""

    sample_rate = 16000

    def __init__(
        self, pcm: bytes = b"", *, period_frames: int = 1024, pace: bool = True, fail_opens: int = 0
    ) -> None:
        self.pcm = pcm
        self.period = period_frames * 2
        self.pace = pace
        self.fail_opens = fail_opens
        self.pos = 0
        self.opens = 0
        self.is_open = False

    def open(self) -> None:
        from device.audio_in import CaptureError

        self.opens += 1
        if self.fail_opens > 0:
            self.fail_opens -= 1
            raise CaptureError("fake microphone busy")
        self.is_open = True
        self.pos = 0

    def read(self) -> bytes:
        if self.pace:
            time.sleep(self.period / 2 / 16000)
        chunk = self.pcm[self.pos : self.pos + self.period]
        self.pos += self.period
        return chunk + bytes(self.period - len(chunk))

    def close(self) -> None:
        self.is_open = False


class FakeStream:
    def __init__(self, owner: FakeRecogniser) -> None:
        self.owner = owner
        self.peak = 0
        self.fed = 0

    def accept(self, pcm: bytes) -> str | None:
        data = np.frombuffer(pcm, dtype="<i2").astype(np.int32)
        self.fed += len(data)
        if len(data):
            self.peak = max(self.peak, int(np.abs(data).max()))
        return None

    def final(self) -> str:
        self.owner.fed.append(self.fed)
        # Like a recogniser: nothing but silence gives an empty transcript.
        return self.owner.transcript if self.peak > 500 else ""


class FakeRecogniser:
    """Returns `transcript` for an utterance with sound in it, "" for silence."""

    def __init__(self, transcript: str = "播放西游记") -> None:
        self.transcript = transcript
        self.fed: list[int] = []

    def stream(self) -> FakeStream:
        return FakeStream(self)


class FakeSynthesiser:
    """0.2 s of a quiet tone per sentence at 22050 Hz; records the texts."""

    sample_rate = 22050

    def __init__(self, seconds_per_sentence: float = 0.2) -> None:
        self.seconds = seconds_per_sentence
        self.texts: list[str] = []

    def sentences(self, text: str):
        self.texts.append(text)
        for part in [p for p in text.replace("。", ".").split(".") if p.strip()]:
            n = int(self.sample_rate * self.seconds)
            tone = (np.sin(np.arange(n) / 5) * 3000).astype("<i2").tobytes()
            yield Speech(tone, self.sample_rate)
            del part


class FakeButton:
    """A ButtonSource posting edges with chosen timestamps."""

    name = "fake"

    def __init__(self, inbox: Any) -> None:
        self.inbox = inbox
        self.level = False

    def press(self, t: float | None = None) -> None:
        from device.events import Event, EventType

        self.level = True
        self.inbox.post(
            Event(EventType.BUTTON_DOWN, time.monotonic() if t is None else t, self.name)
        )

    def release(self, t: float | None = None) -> None:
        from device.events import Event, EventType

        self.level = False
        self.inbox.post(Event(EventType.BUTTON_UP, time.monotonic() if t is None else t, self.name))

    def is_pressed(self) -> bool:
        return self.level

    def close(self) -> None:
        pass
