"""Downloads over a link that behaves like a real one (NetServer): stalls, drops, changed
files, redirect loops, 503s, no Content-Length, gzip, two at a time, full disks."""

from __future__ import annotations

import asyncio
import errno
import os
import subprocess
import time

import pytest

from player.cache import Cache, episode_key
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


@pytest.fixture
def mp3(audio_dir) -> bytes:
    return (audio_dir / "long.mp3").read_bytes()  # 6 s, ~48 KB, with a Xing header


def ep(net, path: str, section: int = 1, duration: float = 0.0) -> Episode:
    return Episode("rss:abc", section, f"ep {section}", net.url(path), duration)


async def finish(job, limit: float = 15.0):
    """The job's result, or its exception (bounded)."""
    try:
        return await asyncio.wait_for(asyncio.shield(job.task), limit)
    except asyncio.CancelledError:
        return asyncio.CancelledError()
    except Exception as err:  # the test inspects it
        return err


def downloader(cache, store, **options) -> Downloader:
    options.setdefault("retry_delay", 0.01)
    options.setdefault("reserve_bytes", 0)
    return Downloader(cache, store, **options)


async def test_stall_keeps_partial_and_resumes_with_if_range(net, cache, store, mp3):
    route = net.add("/a.mp3", mp3, content_type="audio/mpeg", etag='"v1"', stall_at=20000)
    d = downloader(cache, store, read_timeout=0.3, retries=0)
    try:
        job = d.start(ep(net, "/a.mp3"), "A")
        started = time.monotonic()
        err = await finish(job)
        assert isinstance(err, InterruptedDownloadError) and "卡住" in str(err)
        assert time.monotonic() - started < 3
        assert job.state == "interrupted" and job.error
        part = cache.part_path(job.episode)
        assert part.stat().st_size == 20000  # kept, not deleted as a "write failure"
        route.stall_at = None  # the link is back
        job = d.start(ep(net, "/a.mp3"), "A")
        path = await finish(job)
        assert path.read_bytes() == mp3
        last = net.hits[-1].headers
        assert last["Range"] == "bytes=20000-" and last["If-Range"] == '"v1"'
        assert job.resumed_from == 20000
    finally:
        await d.close()


async def test_changed_file_restarts_instead_of_splicing(net, cache, store, mp3, audio_dir):
    new = (audio_dir / "tone.mp3").read_bytes() * 1  # another file, other size
    route = net.add("/c.mp3", mp3, content_type="audio/mpeg", etag='"v1"', drop_at=16000)
    d = downloader(cache, store, retries=0)
    try:
        err = await finish(d.start(ep(net, "/c.mp3"), "C"))
        assert isinstance(err, InterruptedDownloadError)
        route.body, route.etag = new, '"v2"'  # replaced on the server meanwhile
        path = await finish(d.start(ep(net, "/c.mp3"), "C"))
        assert path.read_bytes() == new
    finally:
        await d.close()


async def test_changed_file_by_last_modified(net, cache, store, mp3, audio_dir):
    new = (audio_dir / "tone.mp3").read_bytes()
    stamp = "Mon, 01 Jan 2024 00:00:00 GMT"
    route = net.add("/m.mp3", mp3, content_type="audio/mpeg", last_modified=stamp, drop_at=16000)
    d = downloader(cache, store, retries=0)
    try:
        await finish(d.start(ep(net, "/m.mp3"), "M"))
        route.body, route.last_modified = new, "Tue, 02 Jan 2024 00:00:00 GMT"
        path = await finish(d.start(ep(net, "/m.mp3"), "M"))
        assert path.read_bytes() == new
        assert net.hits[-1].headers["If-Range"] == stamp
    finally:
        await d.close()


@pytest.mark.parametrize(
    ("setup", "location", "message"),
    [
        (lambda net: net.add("/loop.mp3", redirect="/loop.mp3"), "/loop.mp3", "跳转"),
        (None, "ftp://example.org/x.mp3", "地址不对"),
        (None, "http://", "地址不对"),
        (lambda net: net.add("/gone.mp3", status=410), "/gone.mp3", "找不到"),
        (lambda net: net.add("/no.mp3", status=403), "/no.mp3", "403"),
        (lambda net: net.add("/busy.mp3", status=503, retry_after=3600), "/busy.mp3", "3600秒"),
        (lambda net: net.add("/short.mp3", b"x" * 5000, lie_length=3000, ranges=False),
         "/short.mp3", "下次会接着下载"),
    ],
)  # fmt: skip
async def test_every_failure_ends_the_job_with_a_reason(net, cache, store, setup, location,
                                                         message):  # fmt: skip
    if setup is not None:
        setup(net)
    url = location if "://" in location else net.url(location)
    episode = Episode("rss:abc", 1, "ep", url)
    d = downloader(cache, store, retries=1)
    try:
        job = d.start(episode, "X")
        err = await finish(job)
        assert isinstance(err, DownloadError), err
        assert message in str(err) and message in job.error
        assert job.finished and job.state in ("failed", "interrupted")
        assert d.active() == [] and d.status()[0]["error"] == job.error
    finally:
        await d.close()


async def test_short_retry_after_is_waited_for(net, cache, store, mp3):
    route = net.add("/b.mp3", mp3, content_type="audio/mpeg", status=503, retry_after=1)

    def recover(route, _request):
        if net.count("/b.mp3") > 1:
            route.status = 200

    route.on_request = recover
    d = downloader(cache, store, retries=2)
    try:
        started = time.monotonic()
        path = await finish(d.start(ep(net, "/b.mp3"), "B"))
        assert path.read_bytes() == mp3
        assert time.monotonic() - started >= 0.9
    finally:
        await d.close()


async def test_no_content_length_cut_early_stays_partial(net, cache, store, mp3):
    route = net.add("/n.mp3", mp3, content_type="audio/mpeg", no_length=True,
                    close_at=int(len(mp3) * 0.7))  # fmt: skip
    d = downloader(cache, store, retries=0)
    try:
        job = d.start(ep(net, "/n.mp3"), "N")
        err = await finish(job)
        assert isinstance(err, InterruptedDownloadError), err
        assert cache.lookup(job.episode) is None
        assert cache.part_path(job.episode).exists()
        route.close_at = None  # the whole file, still without a length
        path = await finish(d.start(ep(net, "/n.mp3"), "N"))
        assert path.read_bytes() == mp3
    finally:
        await d.close()


async def test_no_content_length_checked_against_the_catalog(net, cache, store, audio_dir):
    body = (audio_dir / "tone.mp3").read_bytes()  # 1.5 s
    net.add("/t.mp3", body, content_type="audio/mpeg", no_length=True)
    d = downloader(cache, store, retries=0)
    try:
        err = await finish(d.start(ep(net, "/t.mp3", duration=60.0), "T"))
        assert isinstance(err, InterruptedDownloadError)  # the feed said 60 s
        path = await finish(d.start(ep(net, "/t.mp3", section=2, duration=1.5), "T"))
        assert path.read_bytes() == body
    finally:
        await d.close()


async def test_gzip_encoded_audio_is_stored_decoded(net, cache, store, mp3):
    net.add("/g.mp3", mp3, content_type="audio/mpeg", encoding="gzip")
    d = downloader(cache, store)
    try:
        path = await finish(d.start(ep(net, "/g.mp3"), "G"))
        assert path.read_bytes() == mp3
    finally:
        await d.close()


async def test_two_at_a_time_and_superseded_requests_cancelled(net, cache, store, mp3):
    for i in range(6):
        net.add(f"/p{i}.mp3", mp3, content_type="audio/mpeg", gap=0.01)
    d = downloader(cache, store)
    try:
        jobs = [d.start(ep(net, f"/p{i}.mp3", section=i + 1), f"P{i}") for i in range(4)]
        peak = 0
        while not all(j.finished for j in jobs):
            peak = max(peak, sum(j.state == "running" for j in jobs))
            await asyncio.sleep(0.005)
        assert peak == 2
        assert all(j.state == "done" for j in jobs)
        # The listener asks for one episode, then another: the first request is cancelled.
        first = d.start(ep(net, "/p4.mp3", section=5), "P4", supersede=True)
        await asyncio.sleep(0.05)
        second = d.start(ep(net, "/p5.mp3", section=6), "P5", supersede=True)
        assert isinstance(await finish(first), asyncio.CancelledError)
        assert first.state == "cancelled" and "取消" in first.error
        assert (await finish(second)).read_bytes() == mp3
        assert cache.part_path(first.episode).exists()  # kept for later
    finally:
        await d.close()


async def test_read_only_disk_is_a_speakable_error(net, cache, store, mp3):
    def read_only(path, mode):
        raise OSError(errno.EROFS, "Read-only file system")

    net.add("/r.mp3", mp3, content_type="audio/mpeg")
    d = downloader(cache, store, opener=read_only)
    try:
        job = d.start(ep(net, "/r.mp3"), "R")
        err = await finish(job)
        assert isinstance(err, DownloadError) and "只读" in str(err)
        assert job.state == "failed"
    finally:
        await d.close()


def _fill_cache(cache: Cache, store: Store, body: bytes, n: int) -> list[Episode]:
    """n cached episodes, played in order 1..n (1 is the least recently played)."""
    episodes = []
    for i in range(1, n + 1):
        episode = Episode("rss:old", i, f"old {i}", f"http://old.example/{i}.mp3")
        part = cache.part_path(episode)
        part.parent.mkdir(parents=True, exist_ok=True)
        part.write_bytes(body)
        cache.commit(episode, part)
        store.cache_touch(episode_key(episode))
        time.sleep(0.002)
        episodes.append(episode)
    return episodes


async def test_short_free_space_evicts_least_recently_played(net, cache, store, mp3):
    old = _fill_cache(cache, store, b"o" * 100_000, 4)
    store.cache_touch(episode_key(old[0]))  # played again just now: the most recent
    base = 20_000  # free bytes beside the cache: a fifth of one episode

    def free_space(_path):
        return base + sum(100_000 for e in old if cache.lookup(e) is None)

    net.add("/e.mp3", mp3 * 3, content_type="audio/mpeg")  # ~145 KB: two must go
    d = downloader(cache, store, free_space=free_space)
    try:
        await finish(d.start(ep(net, "/e.mp3"), "E"))
        assert [cache.lookup(e) is not None for e in old] == [True, False, False, True]
    finally:
        await d.close()


@pytest.fixture
def tmpfs(tmp_path):
    """A 1 MiB tmpfs (root only); skipped where mounting is not allowed."""
    mount = tmp_path / "small"
    mount.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
                            capture_output=True)  # fmt: skip
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {result.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


async def test_full_tmpfs_evicts_then_completes(net, store, tmpfs, mp3):
    cache = Cache(tmpfs / "cache", store, max_bytes=10**9)
    old = _fill_cache(cache, store, b"o" * 300_000, 3)  # 900 KB of a 1 MiB disk
    body = (mp3 * 8)[:350_000]
    net.add("/big.mp3", body, content_type="audio/mpeg", segment=16384, gap=0)
    d = downloader(cache, store)
    try:
        job = d.start(ep(net, "/big.mp3"), "Big")
        path = await finish(job)
        assert not isinstance(path, Exception), path
        assert path.read_bytes() == body
        assert cache.lookup(old[0]) is None and cache.lookup(old[2]) is not None
        assert os.statvfs(tmpfs).f_bfree > 0
    finally:
        await d.close()


async def test_full_tmpfs_with_nothing_to_evict_is_speakable(net, store, tmpfs):
    cache = Cache(tmpfs / "cache", store, max_bytes=10**9)
    net.add("/huge.mp3", b"\xff\xfb" * 700_000, content_type="audio/mpeg", segment=65536, gap=0)
    d = downloader(cache, store, retries=0)
    try:
        job = d.start(ep(net, "/huge.mp3"), "Huge")
        err = await finish(job)
        assert isinstance(err, DownloadError) and "存储空间不够" in str(err)
        assert job.state == "failed" and not cache.part_path(job.episode).exists()
    finally:
        await d.close()
