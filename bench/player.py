"""Benchmark of the audiobook player: decode speed, CPU share, start latency, peak memory.

Run: ``.venv/bin/python bench/player.py [--seconds 120]``. Everything is generated here:
a 64 kbit/s MP3 and a 32 kbit/s Opus episode (tone plus noise, mono) are encoded with PyAV.
Printed figures:

- decode speed as a multiple of real time through the player's pipeline (decode, resample
  to 48 kHz stereo S16_LE), next to a baseline measured in the same run (PyAV decode alone);
- CPU share of one core while playing in real time into a paced sink (process CPU seconds
  per wall second over a few seconds of playback);
- time from `play_book` on a cached episode to the tool's return and to the first
  PCM frame written to the sink (median and worst of several runs);
- peak resident memory while playing, and its growth over the idle process;
- audio under load (`bench/audio_load.py`): the longest interval between device writes and
  the underruns of a 60 s book while the local model generates with the default threads.
- catalog figures (bench/catalog.py): the longest event-loop stall while a 500 x 100 library
  is rescanned, and `search_album` latency over it plus 3 feeds, one of them dead.
- audiobook figures (bench/books.py): reading and indexing the chapters of a 20-hour M4B
  with 200 chapters, 60 s of book at 1.5x as seconds of output and its pitch, and the CPU
  while playing at 1.5x. ``--books-only`` prints just these.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import av
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import audio_load  # bench/ is on sys.path when this runs as a script
from books import book_figures
from catalog import catalog_figures

from player import Player
from player.engine import Decoder, Playback

DEFAULT_MODEL = (
    Path(__file__).resolve().parent.parent / "models" / ("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
)


def rss_kib() -> int:
    """Current resident set size in KiB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def encode(path: Path, fmt: str, codec: str, rate: int, bitrate: int, seconds: float) -> Path:
    """A mono speech-like test episode: a wavering tone with noise, at `bitrate` bit/s."""
    rng = np.random.default_rng(7)
    with av.open(str(path), "w", format=fmt) as out:
        stream = out.add_stream(codec, rate=rate, layout="mono")
        stream.bit_rate = bitrate
        pts = 0
        block = 1024
        for start in range(0, int(rate * seconds), block):
            t = (start + np.arange(block)) / rate
            wave = 0.25 * np.sin(2 * np.pi * (200 + 80 * np.sin(t)) * t)
            wave += rng.normal(0, 0.03, block)
            frame = av.AudioFrame.from_ndarray(
                wave.astype(np.float32)[None, :], format="fltp", layout="mono"
            )
            frame.sample_rate, frame.pts = rate, pts
            pts += block
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return path


def decode_only(path: Path) -> float:
    """Wall seconds to decode the whole file with PyAV alone (the baseline)."""
    started = time.perf_counter()
    with av.open(str(path)) as container:
        for _frame in container.decode(audio=0):
            pass
    return time.perf_counter() - started


def pipeline(path: Path) -> tuple[float, float]:
    """(wall seconds, audio seconds) to decode and resample the file to 48 kHz stereo."""
    decoder = Decoder(path, rate=48000, channels=2)
    started = time.perf_counter()
    samples = sum(chunk.size for chunk in decoder.pcm())
    wall = time.perf_counter() - started
    decoder.close()
    return wall, samples / 2 / 48000


class PacedSink:
    """A sink that blocks like a sound card: real time, 48 kHz stereo S16_LE."""

    sample_rate = 48000
    channels = 2

    def __init__(self) -> None:
        self.first_write: float | None = None
        self.written = threading.Event()

    def write(self, pcm: bytes) -> None:
        if self.first_write is None:
            self.first_write = time.perf_counter()
            self.written.set()
        time.sleep(len(pcm) / 4 / self.sample_rate)

    def drop(self) -> None:
        pass

    def close(self) -> None:
        pass


def cpu_while_playing(path: Path, seconds: float) -> tuple[float, int]:
    """(CPU share of one core, peak RSS KiB) while playing `seconds` in real time."""
    sink = PacedSink()
    playback = Playback(path, sink)
    peak = rss_kib()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    playback.start()
    while time.perf_counter() - wall0 < seconds:
        time.sleep(0.05)
        peak = max(peak, rss_kib())
    cpu = time.process_time() - cpu0
    wall = time.perf_counter() - wall0
    playback.stop()
    playback.join(2)
    return cpu / wall, peak


async def start_latency(library: Path, runs: int) -> tuple[list[float], list[float]]:
    """Milliseconds from play_book (cached) to its return, and to the first write."""
    returned, first = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            sink = PacedSink()
            player = Player(library_paths=[library], cache_dir=Path(tmp, "c"),
                            state_dir=Path(tmp, "s"), sink=sink)  # fmt: skip
            await player.start()
            started = time.perf_counter()
            await player.play_book("测试书", section=1)
            returned.append((time.perf_counter() - started) * 1000)
            await asyncio.to_thread(sink.written.wait, 5)
            first.append((sink.first_write - started) * 1000)
            await player.close()
    return returned, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="episode length")
    parser.add_argument("--play", type=float, default=5.0, help="seconds of real-time play")
    parser.add_argument("--runs", type=int, default=15, help="start-latency repetitions")
    parser.add_argument("--load-seconds", type=float, default=60.0,
                        help="book length for the audio-under-load figures (0: skip)")  # fmt: skip
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL,
                        help="GGUF model generating meanwhile")  # fmt: skip
    parser.add_argument("--compare-old", action="store_true",
                        help="also run the load figures with the earlier audio settings")  # fmt: skip
    parser.add_argument("--books-only", action="store_true",
                        help="only the audiobook figures (chapters, speed)")  # fmt: skip
    args = parser.parse_args()
    if args.books_only:
        book_figures(encode, args.play)
        return
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "MP3 64 kbit/s": encode(Path(tmp, "e.mp3"), "mp3", "libmp3lame", 44100, 64000,
                                    args.seconds),
            "Opus 32 kbit/s": encode(Path(tmp, "e.opus"), "ogg", "libopus", 48000, 32000,
                                     args.seconds),
        }  # fmt: skip
        idle_rss = rss_kib()
        print(f"episode length {args.seconds:.0f} s; output 48 kHz stereo S16_LE")
        peak_all = idle_rss
        for name, path in files.items():
            base = decode_only(path)
            wall, audio = pipeline(path)
            share, peak = cpu_while_playing(path, args.play)
            peak_all = max(peak_all, peak)
            print(
                f"{name}: pipeline {audio / wall:6.1f}x real time "
                f"(PyAV decode alone {args.seconds / base:6.1f}x; pipeline costs "
                f"{wall / base:4.2f}x the baseline); CPU while playing {share * 100:4.1f}% "
                f"of one core"
            )
        library = Path(tmp, "lib")
        (library / "测试书").mkdir(parents=True)
        encode(library / "测试书" / "第1集.mp3", "mp3", "libmp3lame", 44100, 64000, 30.0)
        returned, first = asyncio.run(start_latency(library, args.runs))
        print(
            f"play_book (cached) -> tool returned: median {statistics.median(returned):.1f}"
            f" ms, worst {max(returned):.1f} ms; -> first PCM frame written: median "
            f"{statistics.median(first):.1f} ms, worst {max(first):.1f} ms ({args.runs} runs)"
        )
        print(
            f"peak RSS while playing {peak_all / 1024:.1f} MiB "
            f"(idle process {idle_rss / 1024:.1f} MiB, +{(peak_all - idle_rss) / 1024:.1f} MiB)"
        )
    if args.load_seconds > 0:
        audio_load.report(args.model, args.load_seconds, encode, compare=args.compare_old)
    catalog_figures()
    book_figures(encode, args.play)


if __name__ == "__main__":
    main()
