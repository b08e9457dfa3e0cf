"""State that survives full disks, read-only disks and broken databases; clean close.

The disks are real: a small tmpfs mounted for the test (root only; skipped otherwise),
filled with a file until ENOSPC and freed again while the book plays. The databases are
real SQLite files truncated or overwritten in place.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from player_fixtures import (
    AudioFile,
    RecordingSink,
    make_album,
    make_episode,
    rss_feed,
    wait_for_state,
    wait_until,
)

from player import Player, PlayerState
from player.store import Store, diagnose

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _can_mount() -> bool:
    return os.geteuid() == 0 and Path("/proc/filesystems").read_text().count("tmpfs") > 0


needs_root = pytest.mark.skipif(not _can_mount(), reason="mounting a tmpfs needs root")


@contextlib.contextmanager
def tmpfs(path: Path, size: str = "2m"):
    """A tmpfs of `size` mounted at `path` for the block; always unmounted."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def remount_read_only(path: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)


def fill(directory: Path) -> Path:
    """Write files into `directory` until the disk is full; returns one (`free` frees all)."""
    filler = directory / "filler"
    for name, size in (("filler", 16384), ("filler2", 512)):
        fd = os.open(directory / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            while True:
                os.write(fd, bytes(size))
        except OSError as err:
            assert err.errno == errno.ENOSPC
        finally:
            os.close(fd)
    return filler


def free(directory: Path) -> None:
    for name in ("filler", "filler2"):
        (directory / name).unlink(missing_ok=True)


def bookmark_on_disk(state_dir: Path) -> tuple[int, float] | None:
    """(section, position) of the newest bookmark as another process would read it."""
    db = sqlite3.connect(state_dir / "player.sqlite3")
    try:
        row = db.execute(
            "SELECT section, position FROM bookmarks ORDER BY updated DESC LIMIT 1"
        ).fetchone()
    finally:
        db.close()
    return row


# --- closing while a downloaded episode is loading -------------------------------------


class GateSink(RecordingSink):
    """A sink whose writes block until `gate` is set, like a device that stopped taking."""

    def __init__(self) -> None:
        super().__init__(speed=0.0)
        self.gate = threading.Event()

    def write(self, pcm: bytes) -> None:
        super().write(pcm)
        self.gate.wait(10)


def open_files(path: Path) -> int:
    """How many descriptors of this process point at `path`."""
    count = 0
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            if os.readlink(fd) == str(path):
                count += 1
    return count


async def test_close_while_a_downloaded_episode_loads(tmp_path, server, monkeypatch, caplog):
    errors: list = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_value))
    library = tmp_path / "library"
    make_album(library, "本地书", ["第1集"], seconds=5.0)
    body = make_episode(tmp_path / "r.mp3", seconds=3.0).read_bytes()
    server.audio["r.mp3"] = AudioFile(body)
    server.feeds["f.xml"] = rss_feed("远程书", [("第1集", server.url("/audio/r.mp3"), 1)])
    sink = GateSink()
    player = Player(library_paths=[library], cache_dir=tmp_path / "cache",
                    state_dir=tmp_path / "state", sink=sink,
                    feeds=[server.url("/feeds/f.xml")])  # fmt: skip
    await asyncio.wait_for(player.start(), 5)
    await asyncio.wait_for(player.play_book("本地书", section=1), 5)
    await wait_until(lambda: sink.frames > 0)  # the local book is stuck in a write
    await asyncio.wait_for(player.play_book("远程书", section=1), 5)
    await wait_until(lambda: player._loading is not None, 10)  # downloaded, now loading
    loading = player._loading
    await asyncio.wait_for(player.close(), 5)
    written = sink.frames
    sink.gate.set()
    await asyncio.to_thread(loading.join, 5)
    assert not loading.alive
    assert loading.loaded.cancelled()
    assert errors == []  # no InvalidStateError (or anything else) in the playback thread
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    cached = list((tmp_path / "cache").rglob("*.mp3"))
    assert cached and all(open_files(p.resolve()) == 0 for p in cached)  # the file is closed
    await asyncio.sleep(0.2)
    assert sink.frames == written  # nothing of the new episode was played after close


# --- the store on its own ---------------------------------------------------------------


def test_store_write_failures_are_kept_and_retried(tmp_path, caplog):
    clock = [100.0]
    store = Store(tmp_path / "s" / "player.sqlite3", retry_max=4.0, clock=lambda: clock[0])
    from player.models import Album, Episode

    album, ep = Album("lib:1", "书"), Episode("lib:1", 1, "第1集", "/x.mp3")
    store.bookmark_save(album, ep, 10.0)
    real = store.db
    store.db = sqlite3.connect(f"{(tmp_path / 's' / 'player.sqlite3').as_uri()}?mode=ro", uri=True)
    caplog.set_level(logging.DEBUG, logger="player.store")
    store.bookmark_save(album, ep, 20.0)
    store.bookmark_save(album, ep, 30.0)
    assert store.pending == 1 and not store.healthy
    assert store.bookmark("lib:1").position == 30.0  # read back from memory
    assert store.last_bookmark().position == 30.0
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "state not saved" in warnings[0].getMessage()
    assert store.retry_at == pytest.approx(100.5)
    assert not store.flush()  # backoff not over: nothing tried
    clock[0] = 100.6
    assert not store.flush()  # tried, failed again: the backoff doubles
    assert store.retry_at == pytest.approx(101.6)
    store.db.close()
    store.db = real
    clock[0] = 102.0
    assert store.flush()
    assert store.pending == 0 and store.healthy
    assert bookmark_on_disk(tmp_path / "s") == (1, 30.0)
    assert any("state saved again" in r.getMessage() for r in caplog.records)
    store.close()


def make_db(state_dir: Path, marks: int = 200) -> None:
    """A database with `marks` bookmarks and one album, as a long-used player leaves it."""
    from player.models import Album, AlbumDetail, Episode

    store = Store(state_dir / "player.sqlite3")
    for i in range(marks):
        album = Album(f"rss:{i:04d}", f"书{i}" * 20)
        store.bookmark_save(album, Episode(album.id, 1 + i % 7, "第一集" * 10, "x"), float(i))
    detail = AlbumDetail(Album("rss:keep", "留下的书"),
                         (Episode("rss:keep", 1, "第1集", "http://h/1.mp3"),))  # fmt: skip
    store.album_save(detail)
    store.close()


def garble_table(db_path: Path, table: str) -> None:
    """Overwrite the root page of `table` with garbage (the header and schema stay)."""
    db = sqlite3.connect(db_path)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name=?", (table,)).fetchone()[0]
    db.close()
    with open(db_path, "r+b") as out:
        out.seek((root - 1) * page_size)
        out.write(os.urandom(page_size))


def test_garbled_database_is_moved_aside_and_recovered(tmp_path, caplog):
    state = tmp_path / "state"
    make_db(state)
    garble_table(state / "player.sqlite3", "downloads")
    store = Store(state / "player.sqlite3")
    assert store.recovered is not None and store.recovered.name.startswith(
        "player.sqlite3.corrupt-"
    )
    assert store.recovered.exists()
    assert store.salvaged.get("bookmarks") == 200 and store.salvaged.get("albums") == 1
    assert store.bookmark("rss:0042").position == 42.0
    assert store.persistent and store.problem == ""
    store.bookmark_save(*_album_episode(), 5.0)  # the new database takes writes
    store.close()
    assert bookmark_on_disk(state) is not None
    assert any("was corrupt" in r.getMessage() for r in caplog.records)


def _album_episode():
    from player.models import Album, Episode

    return Album("lib:new", "新书"), Episode("lib:new", 1, "第1集", "/n.mp3")


@pytest.mark.parametrize("keep", [0.8, 0.05])
def test_truncated_database_starts_with_what_can_be_read(tmp_path, keep):
    state = tmp_path / "state"
    make_db(state)
    path = state / "player.sqlite3"
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    store = Store(path)
    assert store.recovered is not None and store.recovered.exists()
    recovered = store.salvaged.get("bookmarks", 0)
    assert recovered < 200
    if keep == 0.8:
        assert recovered > 0  # the rows on the pages still there
    store.bookmark_save(*_album_episode(), 1.0)
    assert store.healthy
    store.close()


async def test_corrupt_database_player_starts_and_rebuilds_the_cache_index(
    tmp_path, server, make_player
):
    body = make_episode(tmp_path / "r.mp3", seconds=2.0).read_bytes()
    server.audio["r.mp3"] = AudioFile(body)
    server.feeds["f.xml"] = rss_feed("远程书", [("第1集", server.url("/audio/r.mp3"), 1),
                                             ("第2集", server.url("/audio/r.mp3?2"), 2)])  # fmt: skip
    feed = server.url("/feeds/f.xml")
    sink = RecordingSink(speed=1.0)
    first = Player(library_paths=[], cache_dir=tmp_path / "cache", state_dir=tmp_path / "state",
                   sink=sink, feeds=[feed], prefetch_next=False)  # fmt: skip
    await asyncio.wait_for(first.start(), 5)
    await asyncio.wait_for(first.play_book("远程书", section=1), 5)
    await wait_for_state(first, PlayerState.PLAYING, 10)
    cached = first.now.path
    await asyncio.wait_for(first.close(), 5)
    garble_table(tmp_path / "state" / "player.sqlite3", "cache")
    requests = len(server.requests)

    server.audio.clear()  # offline now: the episode must come from the cache
    player = await make_player(feeds=[feed], sink=RecordingSink(speed=1.0))
    assert player.store.recovered is not None
    assert cached.exists()
    assert player.store.cache_entries()  # rebuilt from the cache folder and the albums
    text = (await asyncio.wait_for(player.play_book("远程书", section=1), 5))["message"]
    assert "下载" not in text  # played from the rebuilt cache index
    assert player.now is not None and player.now.path == cached
    assert len(server.requests) == requests
    assert "get_status" in [t.__name__ for t in player.tools()]


# --- full and read-only disks -----------------------------------------------------------


@needs_root
async def test_full_disk_during_playback_then_freed(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    library = tmp_path / "library"
    make_album(library, "长篇", ["第1集"], seconds=30.0)
    with tmpfs(tmp_path / "disk", "2m") as disk:
        sink = RecordingSink(speed=1.0)
        player = Player(library_paths=[library], cache_dir=tmp_path / "cache",
                        state_dir=disk / "state", sink=sink, bookmark_interval=0.3)  # fmt: skip
        try:
            await asyncio.wait_for(player.start(), 5)
            await asyncio.wait_for(player.play_book("长篇", section=1), 5)
            await asyncio.sleep(0.8)
            fill(disk)
            await asyncio.sleep(1.5)  # several bookmark writes fail
            assert player.store.pending >= 1
            assert player.state == PlayerState.PLAYING
            # playback commands act first, even with nowhere to write
            await asyncio.wait_for(player.pause(), 2)
            assert player.state == PlayerState.PAUSED
            frames = sink.frames
            await asyncio.sleep(0.3)
            assert sink.frames == frames  # it really paused
            status = (await asyncio.wait_for(player.get_status(), 2))["message"]
            assert "书签暂时存不下" in status
            await asyncio.wait_for(player.resume(), 2)
            assert player.state == PlayerState.PLAYING
            await asyncio.sleep(0.7)
            free(disk)
            await asyncio.sleep(1.5)  # the retry (backoff capped at the interval) lands
            assert player.store.pending == 0
            position = player.now.playback.position
            section, saved = bookmark_on_disk(disk / "state")
            assert section == 1
            assert position - (0.3 + 1.0) <= saved <= position + 0.1
            assert player._tasks and any(t.get_name() == "bookmarks" for t in player._tasks)
        finally:
            await asyncio.wait_for(player.close(), 5)
    warnings = [r.getMessage() for r in caplog.records if "state not saved" in r.getMessage()]
    assert len(warnings) == 1  # logged once, not once per try
    assert any("state saved again" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@needs_root
async def test_read_only_state_dir_runs_in_memory(tmp_path, caplog):
    library = tmp_path / "library"
    make_album(library, "长篇", ["第1集", "第2集"], seconds=5.0)
    with tmpfs(tmp_path / "disk", "4m") as disk:
        state = disk / "state"
        make_db(state, marks=3)
        remount_read_only(disk)
        ok, detail = diagnose(state / "player.sqlite3")
        assert not ok and "read-only" in detail
        caplog.set_level(logging.INFO)
        player = Player(library_paths=[library], cache_dir=tmp_path / "cache", state_dir=state,
                        sink=RecordingSink(speed=1.0))  # fmt: skip
        await asyncio.wait_for(player.start(), 5)
        lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(lines) == 1, lines
        assert "read-only" in lines[0] and "will not survive a restart" in lines[0]
        assert not player.store.persistent
        assert player.store.bookmark("rss:0002").position == 2.0  # what was on disk is read
        await asyncio.wait_for(player.play_book("长篇", section=2), 5)
        await wait_for_state(player, PlayerState.PLAYING)
        await asyncio.wait_for(player.stop(), 2)
        mark = player.store.bookmark(player.store.last_bookmark().album_id)
        assert mark.section == 2  # bookmarks work for this run
        assert "书签暂时存不下" in (await asyncio.wait_for(player.get_status(), 2))["message"]
        await asyncio.wait_for(player.close(), 5)
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert not (state / "player.sqlite3-wal").exists()


@needs_root
async def test_full_state_dir_at_start(tmp_path, caplog):
    library = tmp_path / "library"
    make_album(library, "长篇", ["第1集"], seconds=20.0)
    with tmpfs(tmp_path / "disk", "2m") as disk:
        state = disk / "state"
        make_db(state, marks=3)
        fill(disk)
        caplog.set_level(logging.WARNING, logger="player.store")
        player = Player(library_paths=[library], cache_dir=tmp_path / "cache", state_dir=state,
                        sink=RecordingSink(speed=1.0), bookmark_interval=0.3)  # fmt: skip
        try:
            await asyncio.wait_for(player.start(), 5)
            assert "full" in player.store.problem
            assert any("is full" in r.getMessage() for r in caplog.records)
            await asyncio.wait_for(player.play_book("长篇", section=1), 5)
            await asyncio.sleep(1.0)
            free(disk)
            await wait_until(lambda: player.store.pending == 0, 5)
            await asyncio.sleep(0.5)
            _section, saved = bookmark_on_disk(state)
            assert saved >= player.now.playback.position - 1.3
        finally:
            await asyncio.wait_for(player.close(), 5)


# --- kill -9 after a full disk ------------------------------------------------------------


async def spawn(*args: str) -> asyncio.subprocess.Process:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]))
    return await asyncio.create_subprocess_exec(
        sys.executable, str(HERE / "player_child.py"), *args,
        stdout=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip


@needs_root
@pytest.mark.slow
async def test_kill_9_after_a_full_disk_keeps_the_bookmark(tmp_path):
    library = tmp_path / "library"
    make_album(library, "长篇", ["第1集"], seconds=30.0)
    with tmpfs(tmp_path / "disk", "2m") as disk:
        state = disk / "state"
        child = await spawn("play", str(state), str(tmp_path / "cache"), str(library))
        try:
            while True:
                line = (await asyncio.wait_for(child.stdout.readline(), 30)).decode().strip()
                assert line, "child exited early"
                if line == "READY":
                    break
            started = time.monotonic()
            await asyncio.sleep(1.0)
            fill(disk)
            await asyncio.sleep(2.0)
            stale = bookmark_on_disk(state)
            free(disk)
            await asyncio.sleep(1.5)
            heard = time.monotonic() - started
        finally:
            child.kill()
            await asyncio.wait_for(child.wait(), 10)
        section, saved = bookmark_on_disk(state)
    assert stale is not None and stale[1] < heard - 2.0  # the full disk really held it back
    assert section == 1
    interval = 0.2  # player_child.py's bookmark_interval
    assert heard - (interval + 1.0) <= saved <= heard + 0.5


async def test_unusable_cache_dir_still_starts_the_player(tmp_path, caplog):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    library = tmp_path / "library"
    make_album(library, "长篇", ["第1集"], seconds=1.0)
    player = Player(library_paths=[library], cache_dir=blocker / "cache",
                    state_dir=tmp_path / "state", sink=RecordingSink())  # fmt: skip
    try:
        await asyncio.wait_for(player.start(), 5)
        assert any("cache directory" in r.getMessage() for r in caplog.records)
        assert (
            "正在播放"
            in (await asyncio.wait_for(player.play_book("长篇", section=1), 5))["message"]
        )
    finally:
        await asyncio.wait_for(player.close(), 5)
