"""Catalog figures for bench/player.py: rescan stalls and search latency on a real network.

Everything is generated: a local library of `albums` x `episodes` empty files (names are
what a scan reads), podcast feeds served by an in-process HTTP server that sends bodies in
1460-byte segments a few milliseconds apart, and one feed that answers its headers and then
nothing. Printed figures:

- the longest event-loop stall while the library is rescanned after a change (a ticker task
  wakes every millisecond; the stall is its longest gap), and how long the rescan took;
- `search_album` latency (the real `Player` tool) over that library plus the feeds, cold (the
  dead feed costs its timeout) and warm, against the source timeout + 0.5 s it must meet.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "player"))

from netserver import NetServer  # noqa: E402

from player import Player  # noqa: E402


def make_library(root: Path, albums: int, episodes: int) -> None:
    """`albums` folders of `episodes` empty .mp3 files named like real ones ("第12集 …")."""
    for a in range(albums):
        folder = root / f"有声书{a:03d} 第{a % 7 + 1}部"
        folder.mkdir(parents=True)
        for n in range(1, episodes + 1):
            (folder / f"第{n}集 章节{n}.mp3").touch()


def feed(title: str, items: int) -> bytes:
    """An RSS feed of `items` audio episodes."""
    entries = "".join(
        f"<item><title>第{i}集</title><itunes:episode>{i}</itunes:episode>"
        f'<enclosure url="/media/{i}.mp3" type="audio/mpeg" length="1000"/></item>'
        for i in range(1, items + 1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" '
        'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>'
        f"<title>{title}</title>{entries}</channel></rss>"
    ).encode()


class Ticker:
    """Measures the event loop's longest gap between 1 ms wake-ups."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last - 0.001)
            last = now

    def __enter__(self) -> Ticker:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


class NullSink:
    sample_rate = 48000
    channels = 2

    def write(self, pcm: bytes) -> None:
        pass

    def drop(self) -> None:
        pass

    def close(self) -> None:
        pass


async def _figures(tmp: Path, albums: int, episodes: int, timeout: float, runs: int) -> None:
    library = tmp / "lib"
    started = time.perf_counter()
    make_library(library, albums, episodes)
    print(
        f"library: {albums} x {episodes} files generated in {time.perf_counter() - started:.1f} s"
    )
    net = NetServer()
    await net.start()
    net.add("/a.xml", feed("有声书 播客甲", 200), content_type="application/rss+xml")
    net.add("/b.xml", feed("有声书 播客乙", 200), content_type="application/rss+xml")
    net.add("/dead.xml", feed("dead", 10), stall_after_headers=3600)
    feeds = [net.url(p) for p in ("/a.xml", "/b.xml", "/dead.xml")]
    player = Player(library_paths=[library], cache_dir=tmp / "cache", state_dir=tmp / "state",
                    sink=NullSink(), feeds=feeds, source_timeout=timeout)  # fmt: skip
    try:
        await player.start()
        player.library.rescan_interval = 0.0
        # Rescan: a new album appears; the loop must keep running meanwhile.
        (library / "新来的书").mkdir()
        (library / "新来的书" / "第1集.mp3").touch()
        with Ticker() as ticker:
            started = time.perf_counter()
            await player.library.fresh(wait=60.0)
            rescan = time.perf_counter() - started
        found = "新来的书" in player.library.known_titles()
        with Ticker() as idle:  # the same time with nothing to do: this machine's own noise
            await asyncio.sleep(rescan)
        print(f"rescan of {albums} x {episodes}: {rescan * 1000:.0f} ms in a worker thread; "
              f"longest event-loop stall {ticker.worst * 1000:.1f} ms (must be < 100 ms; "
              f"idle loop over the same time: {idle.worst * 1000:.1f} ms); "
              f"new album found: {found}")  # fmt: skip
        # Search while a rescan is due (every search checks the tree).
        latencies = []
        with Ticker() as ticker:
            for _ in range(runs):
                started = time.perf_counter()
                text = await player.search_album("有声书")
                latencies.append(time.perf_counter() - started)
        cold, warm = latencies[0], latencies[1:]
        limit = timeout + 0.5
        print(f"search_album over {albums} x {episodes} local + 3 feeds (1 dead), source "
              f"timeout {timeout:g} s: cold {cold * 1000:.0f} ms, warm median "
              f"{statistics.median(warm) * 1000:.0f} ms, worst {max(warm) * 1000:.0f} ms "
              f"(must be < {limit * 1000:.0f} ms: {'ok' if max(latencies) < limit else 'FAIL'});"
              f" longest loop stall {ticker.worst * 1000:.1f} ms")  # fmt: skip
        print(f"  answer: {text[:100]}…")
    finally:
        await player.close()
        await net.close()


def catalog_figures(*, albums: int = 500, episodes: int = 100, timeout: float = 2.0,
                    runs: int = 10) -> None:  # fmt: skip
    """Print the rescan-stall and search-latency figures (see the module docstring)."""
    logging.getLogger("player").setLevel(logging.ERROR)  # the dead feed's warnings
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(_figures(Path(tmp), albums, episodes, timeout, runs))


if __name__ == "__main__":
    catalog_figures()
