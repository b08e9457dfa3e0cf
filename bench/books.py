"""Audiobook figures for bench/player.py: the chapter index of a long book, and speed.

Everything is generated here. Printed figures:

- a 20-hour M4B with 200 chapters (44.1 kHz AAC, 3.1 million packets as a bought or
  ripped book has; they are copies of a few quiet seconds encoded once, so the file is
  made in seconds and small, while PyAV has the same sample tables to read): how long
  reading its chapter marks takes (PyAV opens the file and parses its sample tables), a
  library scan of it with the chapters read and saved to the player's store, and the scan
  of the next start, which answers from the store;
- playback at 1.5x (FFmpeg's atempo through PyAV's filter graph): 60 s of a 440 Hz tone
  as the seconds of output written and the strongest frequency in them (the pitch);
- the CPU share of one core while playing at 1.5x in real time (next to 1.0x), the
  figure a Pi-class budget is held to (under 10% of one core).
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from player.chapters import ChapterIndex, read_chapters
from player.engine import Playback
from player.sources import LocalLibrary
from player.store import Store

HOURS = 20.0
CHAPTERS = 200


def long_book(path: Path, *, hours: float = HOURS, chapters: int = CHAPTERS,
              rate: int = 44100) -> Path:  # fmt: skip
    """An M4B of `hours` with `chapters` evenly spaced marks: a few seconds of silence are
    AAC-encoded once and their packets muxed again and again up to the length."""
    total = hours * 3600
    step = total / chapters
    with av.open(str(path), "w", format="ipod") as out:
        stream = out.add_stream("aac", rate=rate, layout="mono")
        stream.bit_rate = 32000
        out.set_chapters(
            [
                {"id": i + 1, "start": round(i * step * 1000), "end": round((i + 1) * step * 1000),
                 "time_base": Fraction(1, 1000), "metadata": {"title": f"Chapter {i + 1}"}}
                for i in range(chapters)
            ]
        )  # fmt: skip
        wave = np.zeros(rate * 4, dtype=np.float32)
        packets = []
        pts = 0
        for start in range(0, wave.size, 1024):
            frame = av.AudioFrame.from_ndarray(
                np.ascontiguousarray(wave[None, start : start + 1024]), format="fltp", layout="mono"
            )
            frame.sample_rate, frame.pts = rate, pts
            pts += frame.samples
            packets += [bytes(p) for p in stream.encode(frame)]
        packets = [p for p in packets if p][4:]  # past the encoder's start-up
        for index in range(int(total * rate / 1024)):
            packet = av.Packet(packets[index % len(packets)])
            packet.stream = stream
            packet.pts = packet.dts = index * 1024
            packet.duration = 1024
            packet.time_base = Fraction(1, rate)
            out.mux(packet)
    return path


def index_figures(tmp: Path) -> None:
    """Print how long the chapters of a 20-hour, 200-chapter book take to read and index."""
    folder = tmp / "lib" / "长书"
    folder.mkdir(parents=True)
    started = time.perf_counter()
    book = long_book(folder / "book.m4b")
    made = time.perf_counter() - started
    started = time.perf_counter()
    marks = read_chapters(book)
    read = time.perf_counter() - started
    store = Store(tmp / "state" / "player.sqlite3")
    started = time.perf_counter()
    library = LocalLibrary([tmp / "lib"], chapters=ChapterIndex(store))
    library.refresh(force=True)
    scan = time.perf_counter() - started
    count = library.albums()[0].episode_count
    started = time.perf_counter()
    again = LocalLibrary([tmp / "lib"], chapters=ChapterIndex(store))
    again.refresh(force=True)
    rescan = time.perf_counter() - started
    store.close()
    size = book.stat().st_size / 1e6
    print(
        f"chapter index: a {HOURS:.0f} h M4B with {len(marks)} chapters ({size:.1f} MB, made in "
        f"{made:.1f} s): chapters read in {read * 1000:.0f} ms; library scan with the chapters "
        f"read and stored {scan * 1000:.0f} ms ({count} episodes); the next start's scan "
        f"from the store {rescan * 1000:.1f} ms"
    )


class _Sink:
    """A sink at 48 kHz stereo that keeps what is written; paced at real time or not."""

    sample_rate = 48000
    channels = 2

    def __init__(self, *, paced: bool) -> None:
        self.paced = paced
        self.frames = 0
        self.chunks: list[bytes] = []

    def write(self, pcm: bytes) -> None:
        self.frames += len(pcm) // 4
        if not self.paced:
            self.chunks.append(pcm)
            return
        time.sleep(len(pcm) / 4 / self.sample_rate)

    def drop(self) -> None:
        pass

    def close(self) -> None:
        pass


def _play_through(path: Path, speed: float) -> _Sink:
    """Play `path` at `speed` into an unpaced sink to its end."""
    sink = _Sink(paced=False)
    done = threading.Event()
    playback = Playback(path, sink, speed=speed, on_event=lambda *_: done.set())
    playback.start()
    done.wait(120)
    playback.join(5)
    return sink


def cpu_at(path: Path, speed: float, seconds: float) -> float:
    """CPU share of one core (process CPU s per wall s) playing `path` at `speed` in real
    time for `seconds`."""
    sink = _Sink(paced=True)
    playback = Playback(path, sink, speed=speed)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    playback.start()
    time.sleep(seconds)
    cpu = time.process_time() - cpu0
    wall = time.perf_counter() - wall0
    playback.stop()
    playback.join(2)
    return cpu / wall


def speed_figures(tmp: Path, encode: Callable[..., Path], play_seconds: float) -> None:
    """Print what 1.5x makes of 60 s of a 440 Hz tone, and the CPU it costs."""
    tone = tmp / "tone.flac"
    with av.open(str(tone), "w", format="flac") as out:
        stream = out.add_stream("flac", rate=44100, layout="mono")
        wave = 0.3 * np.sin(2 * np.pi * 440.0 * np.arange(44100 * 60) / 44100)
        data = (wave * 32767).astype(np.int16)
        for start in range(0, data.size, 4096):
            frame = av.AudioFrame.from_ndarray(data[None, start : start + 4096], format="s16",
                                               layout="mono")  # fmt: skip
            frame.sample_rate, frame.pts = 44100, start
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    sink = _play_through(tone, 1.5)
    left = np.frombuffer(b"".join(sink.chunks), dtype=np.int16)[::2].astype(np.float64)
    window = left[48000 : 48000 * 11]
    spectrum = np.abs(np.fft.rfft(window * np.hanning(window.size)))
    pitch = np.argmax(spectrum) * 48000 / window.size
    print(
        f"speed 1.5x: 60 s of book written as {sink.frames / 48000:.2f} s of output "
        f"(40 expected); a 440 Hz tone comes out at {pitch:.1f} Hz"
    )
    episode = encode(tmp / "speech.mp3", "mp3", "libmp3lame", 44100, 64000, 120.0)
    normal = cpu_at(episode, 1.0, play_seconds)
    fast = cpu_at(episode, 1.5, play_seconds)
    print(
        f"CPU while playing MP3 64 kbit/s in real time: {normal * 100:.1f}% of one core at 1.0x, "
        f"{fast * 100:.1f}% at 1.5x (atempo)"
    )


def book_figures(encode: Callable[..., Path], play_seconds: float = 5.0) -> None:
    """Every figure of this module (see its docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        index_figures(Path(tmp))
        speed_figures(Path(tmp), encode, play_seconds)
