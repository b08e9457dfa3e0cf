"""Cache paths, downloads (Range resume, bad servers, disk full), eviction, reconcile."""

from __future__ import annotations

import asyncio
import errno

import pytest
from player_fixtures import AudioFile

from player.cache import Cache, episode_key, file_name
from player.download import Downloader
from player.errors import DownloadError, InterruptedDownloadError
from player.models import Episode
from player.store import Store


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "state" / "db.sqlite3")
    yield store
    store.close()


@pytest.fixture
def cache(tmp_path, store):
    return Cache(tmp_path / "cache", store, max_bytes=10**9)


def episode(server, name, section=1) -> Episode:
    return Episode("lv:1", section, f"ep {section}", server.url(f"/audio/{name}"))


async def run(downloader: Downloader, ep: Episode):
    job = downloader.start(ep, "test")
    return job, await asyncio.wait_for(job.task, 10)


@pytest.mark.parametrize(
    "location", ["http://x/../../etc/passwd", "http://x/a\x00b.mp3", "../../x", "/etc/passwd"]
)
def test_cache_names_come_from_hashes(cache, location):
    ep = Episode("lib:../..", 1, "../../x", location)
    name = file_name(ep)
    assert ".." not in name and "\x00" not in name and not name.startswith("/")
    assert cache.path_of(name).is_relative_to(cache.root)
    for bad in ("../x", "/etc/passwd", "a/../../x", "a\x00b"):
        with pytest.raises(DownloadError):
            cache.path_of(bad)


async def test_download_checks_and_renames(server, cache, store, audio_dir):
    body = (audio_dir / "long.mp3").read_bytes()
    server.audio["a.mp3"] = AudioFile(body, delay=0.01)
    downloader = Downloader(cache, store)
    try:
        ep = episode(server, "a.mp3")
        job = downloader.start(ep, "test")
        again = downloader.start(ep, "test")
        assert again is job  # a second request joins the same download
        path = await asyncio.wait_for(job.task, 10)
        assert path.read_bytes() == body and path.suffix == ".mp3"
        assert job.state == "done" and job.percent == 100
        assert cache.lookup(ep) == path
        assert not list(cache.root.glob("*/*.part"))
        assert len([n for n, _r in server.requests if n == "a.mp3"]) == 1
    finally:
        await downloader.close()


async def test_dropped_connection_resumes_with_range(server, cache, store, audio_dir):
    body = (audio_dir / "long.mp3").read_bytes()
    server.audio["d.mp3"] = AudioFile(body, drop_after=20000)
    downloader = Downloader(cache, store, retry_delay=0.01)
    try:
        job, path = await run(downloader, episode(server, "d.mp3"))
        assert path.read_bytes() == body
        ranges = [r for n, r in server.requests if n == "d.mp3"]
        assert ranges[0] is None and ranges[1] is not None and ranges[1].startswith("bytes=")
        assert int(ranges[1][6:-1]) >= 16384
        assert job.resumed_from > 0
    finally:
        await downloader.close()


async def test_network_gone_keeps_partial_and_resumes_later(server, cache, store, audio_dir):
    body = (audio_dir / "long.mp3").read_bytes()
    server.audio["g.mp3"] = AudioFile(body, drop_after=16384, drops_left=10)
    downloader = Downloader(cache, store, retries=1, retry_delay=0.01)
    ep = episode(server, "g.mp3")
    try:
        with pytest.raises(InterruptedDownloadError):
            await run(downloader, ep)
        assert cache.lookup(ep) is None  # never a partial file in the cache
        part = cache.part_path(ep)
        assert part.exists() and 0 < part.stat().st_size < len(body)
        assert store.downloads()[0][4] == "interrupted"
        server.audio["g.mp3"].drops_left = 0  # the network is back
        _job, path = await run(downloader, ep)
        assert path.read_bytes() == body
        assert store.downloads() == []
    finally:
        await downloader.close()


async def test_too_large_content_length_is_settled_by_range(server, cache, store, audio_dir):
    body = (audio_dir / "tone.mp3").read_bytes()
    server.audio["w.mp3"] = AudioFile(body, lie_length=5000)
    downloader = Downloader(cache, store, retries=1, retry_delay=0.01)
    try:
        # The body falls short of the stated length; the Range follow-up answers 416 with
        # the real total, which confirms the file is complete.
        _job, path = await run(downloader, episode(server, "w.mp3"))
        assert path.read_bytes() == body
    finally:
        await downloader.close()


async def test_wrong_content_length_without_ranges_never_completes(server, cache, store, audio_dir):
    server.audio["w.mp3"] = AudioFile(
        (audio_dir / "tone.mp3").read_bytes(), lie_length=5000, ranges=False
    )
    downloader = Downloader(cache, store, retries=1, retry_delay=0.01)
    ep = episode(server, "w.mp3")
    try:
        with pytest.raises(DownloadError):
            await run(downloader, ep)
        assert cache.lookup(ep) is None
        assert not list(cache.root.glob("*/*.mp3"))
    finally:
        await downloader.close()


@pytest.mark.parametrize(
    ("item", "message"),
    [(None, "找不到"), (AudioFile(b"<!DOCTYPE html><html>login</html>", "text/html"), "网页"),
     (AudioFile(b"<html><body>oops</body></html>" * 50, "audio/mpeg"), "网页"),
     (AudioFile(bytes(3000), "audio/mpeg"), "不是能播放的音频"),
     (AudioFile(b"", "audio/mpeg"), "不是能播放的音频"),
     (AudioFile(b"x", status=403), "403")],
)  # fmt: skip
async def test_bad_answers_are_clear_errors(server, cache, store, item, message):
    if item is not None:
        server.audio["bad.mp3"] = item
    downloader = Downloader(cache, store, retries=0)
    ep = episode(server, "bad.mp3")
    try:
        with pytest.raises(DownloadError, match=message):
            await run(downloader, ep)
        assert cache.lookup(ep) is None
        assert not cache.part_path(ep).exists()
        assert store.downloads() == []
    finally:
        await downloader.close()


class FullDisk:
    """A file that accepts `room` bytes and then fails with ENOSPC, like a full disk."""

    def __init__(self, path, mode, room):
        self.file = open(path, mode)
        self.room = room

    def write(self, data):
        if self.room < len(data):
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(data)
        return self.file.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()


async def test_disk_full_removes_the_partial_file(server, cache, store, audio_dir):
    server.audio["f.mp3"] = AudioFile((audio_dir / "long.mp3").read_bytes())
    downloader = Downloader(cache, store, opener=lambda p, m: FullDisk(p, m, 30000))
    ep = episode(server, "f.mp3")
    try:
        with pytest.raises(DownloadError, match="存储空间不够"):
            await run(downloader, ep)
        assert not cache.part_path(ep).exists()
        assert cache.lookup(ep) is None
    finally:
        await downloader.close()


async def test_eviction_spares_protected_and_recently_played(server, store, tmp_path, audio_dir):
    body = (audio_dir / "tone.mp3").read_bytes()
    cache = Cache(tmp_path / "cache", store, max_bytes=len(body) * 2)
    downloader = Downloader(cache, store)
    eps = [episode(server, f"e{i}.mp3", i) for i in range(1, 5)]
    try:
        for ep in eps:
            server.audio[ep.location.rsplit("/", 1)[1]] = AudioFile(body)
            await run(downloader, ep)
        store.cache_touch(episode_key(eps[1]))
        removed = cache.evict({episode_key(eps[0])})
        assert episode_key(eps[0]) not in removed  # the playing one, least recent, survives
        assert episode_key(eps[1]) not in removed  # recently played
        assert cache.total_bytes() <= len(body) * 2
        assert [cache.lookup(e) is not None for e in eps] == [True, True, False, False]
    finally:
        await downloader.close()


def test_reconcile_after_a_crash(cache, store, tmp_path):
    ep = Episode("lv:1", 1, "x", "http://x/1.mp3")
    stray = cache.path_of(file_name(ep))
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_bytes(b"renamed but never indexed")
    orphan_part = cache.path_of("ab/abc.mp3.part")
    orphan_part.parent.mkdir(parents=True, exist_ok=True)
    orphan_part.write_bytes(b"...")
    cache.reconcile()
    assert not stray.exists() and not orphan_part.exists()
