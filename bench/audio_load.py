"""Audio under load, a section of ``bench/player.py``: the book while llama.cpp generates.

The real `Player` plays a generated 60 s book into the real `Mixer`, whose output is a
`SimulatedCard`: a sound card's ring buffer (the period and buffer `AlsaPlayback` asks for,
1024 frames and 10 periods at 48 kHz) that drains in real time, blocks a write until there
is room, and counts an underrun when it runs dry while the mixer had audio to give. At the
same time the real local model (`LocalModel`, default thread count) generates replies back
to back. Printed: the longest interval between the starts of two device writes (a period
is 21.3 ms; beyond the buffer the sound breaks), the 99th percentile, the underruns, and
the same without the model as the baseline.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from device.audio_out import AlsaPlayback, Mixer
from player import Player, PlayerState


class SimulatedCard:
    """A `PcmOutput` with a sound card's timing: ring buffer of `buffer_frames`, real-time
    drain, blocking writes, underruns counted (not after `idle`)."""

    def __init__(
        self, *, sample_rate: int = 48000, channels: int = 2, period_frames: int = 1024,
        buffer_frames: int | None = None,
    ) -> None:  # fmt: skip
        self.sample_rate = sample_rate
        self.channels = channels
        self.period_frames = period_frames
        defaults = AlsaPlayback(sample_rate=sample_rate, period_frames=period_frames)
        self.buffer_frames = buffer_frames or defaults.buffer_frames
        self.device = "simulated card"
        self.underruns = 0
        self.starts: list[float] = []
        self._level = 0.0
        self._at = time.monotonic()
        self._idle = True
        self._lock = threading.Lock()

    def open(self) -> None:
        """Nothing to open."""

    def idle(self) -> None:
        """The mixer has nothing to play; running dry now is silence, not an underrun."""
        self._idle = True

    def write(self, pcm: bytes) -> None:
        """Queue frames, blocking while the ring buffer is full."""
        frames = len(pcm) // (2 * self.channels)
        now = time.monotonic()
        with self._lock:
            self.starts.append(now)
            level = self._level - (now - self._at) * self.sample_rate
            if level < 0:
                if not self._idle:
                    self.underruns += 1
                level = 0.0
            self._idle = False
            wait = (level + frames - self.buffer_frames) / self.sample_rate
            if wait > 0:
                time.sleep(wait)
                now = time.monotonic()
                level = max(0.0, level - wait * self.sample_rate)
            self._level, self._at = level + frames, now

    def close(self) -> None:
        """Nothing to close."""

    def intervals(self) -> list[float]:
        """Seconds between the starts of consecutive writes."""
        return [b - a for a, b in zip(self.starts, self.starts[1:], strict=False)]


@dataclass
class LoadResult:
    """What one run measured."""

    played: float
    longest_ms: float
    p99_ms: float
    underruns: int
    writes: int
    tokens: int = 0
    tokens_per_s: float = 0.0
    threads: int = 0


async def generate_until(model, stop: asyncio.Event) -> int:
    """Ask the model for long replies back to back until `stop`; returns tokens generated."""
    tokens = 0
    n = 0
    while not stop.is_set():
        n += 1
        messages = [
            {"role": "system", "content": "You are a storyteller."},
            {"role": "user", "content": f"Tell story number {n} about a monkey king, slowly."},
        ]
        reply = await model.complete(messages, max_tokens=160, cancel=stop)
        tokens += reply.completion_tokens
    return tokens


async def play_under_load(
    library: Path, seconds: float, model=None, *, buffer_frames: int | None = None,
    priority: bool = True,
) -> LoadResult:  # fmt: skip
    """Play the book for `seconds` (while `model` generates, if given) and measure.

    `buffer_frames` and `priority` False reproduce the earlier settings (a 4-period buffer,
    audio threads at the default priority) for comparison.
    """
    card = SimulatedCard(buffer_frames=buffer_frames)
    mixer = Mixer(card, period_frames=card.period_frames)
    patches = contextlib.ExitStack()
    if not priority:
        import device.audio_out
        import player.engine

        for module, name in ((device.audio_out, "raise_thread_priority"),
                             (player.engine, "_raise_priority")):  # fmt: skip
            original = getattr(module, name)
            setattr(module, name, lambda *_a, **_k: False)
            patches.callback(setattr, module, name, original)
    with patches:
        return await _play(library, seconds, model, card, mixer)


async def _play(library: Path, seconds: float, model, card: SimulatedCard, mixer: Mixer):
    mixer.start()
    with tempfile.TemporaryDirectory() as tmp:
        player = Player(library_paths=[library], cache_dir=Path(tmp, "c"),
                        state_dir=Path(tmp, "s"), sink=mixer.book)  # fmt: skip
        await player.start()
        stop = asyncio.Event()
        load = asyncio.create_task(generate_until(model, stop)) if model is not None else None
        started = time.monotonic()
        try:
            ended = asyncio.Event()
            player.subscribe(lambda state: ended.set() if state == PlayerState.IDLE else None)
            await player.play_book("长书", section=1)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ended.wait(), seconds)
            played = player.now.playback.position if player.now is not None else seconds
        finally:
            wall = time.monotonic() - started
            stop.set()
            tokens = await load if load is not None else 0
            await player.close()
            mixer.close()
    gaps = sorted(card.intervals()[5:])  # the first writes fill the buffer at once
    return LoadResult(
        played=played,
        longest_ms=1000 * max(gaps, default=0.0),
        p99_ms=1000 * (gaps[int(len(gaps) * 0.99)] if gaps else 0.0),
        underruns=card.underruns,
        writes=len(card.starts),
        tokens=tokens,
        tokens_per_s=tokens / wall if wall else 0.0,
        threads=getattr(model, "n_threads", 0),
    )


def report(model_path: Path, seconds: float, encode, *, compare: bool = False) -> None:
    """Print the audio-under-load figures (`encode` makes the book, as bench/player.py does)."""
    from agent.local import LocalModel

    with tempfile.TemporaryDirectory() as tmp:
        library = Path(tmp, "lib")
        (library / "长书").mkdir(parents=True)
        encode(library / "长书" / "第1集.mp3", "mp3", "libmp3lame", 44100, 64000, seconds + 5)
        card = SimulatedCard()
        period_ms = 1000 * card.period_frames / card.sample_rate
        buffer_ms = 1000 * card.buffer_frames / card.sample_rate
        print(
            f"audio under load: real Player and Mixer into a simulated card (period "
            f"{period_ms:.1f} ms, buffer {buffer_ms:.1f} ms), {seconds:.0f} s book"
        )
        quiet = asyncio.run(play_under_load(library, min(seconds, 20.0)))
        print(
            f"  without the model: longest interval between writes {quiet.longest_ms:.1f} ms "
            f"(p99 {quiet.p99_ms:.1f} ms), {quiet.underruns} underruns in {quiet.played:.1f} s"
        )
        if not model_path.is_file():
            print(f"  with the model: skipped ({model_path} missing)")
            return
        model = LocalModel(model_path, n_ctx=1024, max_tokens=160)

        async def run(**options) -> LoadResult:
            await model.load()
            return await play_under_load(library, seconds, model, **options)

        try:
            busy = asyncio.run(run())
            print(
                f"  while {model_path.name} generates on {busy.threads} threads (default; "
                f"{busy.tokens_per_s:.1f} tokens/s): longest interval between writes "
                f"{busy.longest_ms:.1f} ms (p99 {busy.p99_ms:.1f} ms), {busy.underruns} "
                f"underruns in {busy.played:.1f} s of book ({busy.writes} writes)"
            )
            if compare:
                old = asyncio.run(run(buffer_frames=4 * card.period_frames, priority=False))
                print(
                    f"  same, earlier settings (buffer {4 * period_ms:.1f} ms, no priority): "
                    f"longest {old.longest_ms:.1f} ms (p99 {old.p99_ms:.1f} ms), "
                    f"{old.underruns} underruns in {old.played:.1f} s"
                )
        finally:
            model.close()


__all__ = ["LoadResult", "SimulatedCard", "play_under_load", "report"]
