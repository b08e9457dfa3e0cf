"""Background downloads into the cache: temporary name, HTTP Range resume, checked, renamed.

A `DownloadJob` fetches one episode to ``<name>.part`` (resuming with ``Range: bytes=N-``
when a partial file exists), retries dropped connections a few times, checks the size
against the server's Content-Length/Content-Range and that PyAV can decode a frame, then
`os.replace`s it into place and indexes it. A second request for the same episode joins
the running job. Progress (bytes, percent) is in the job and logged every few seconds.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import aiohttp

from .cache import Cache, episode_key, file_name
from .engine import probe
from .errors import DecodeError, DownloadError, InterruptedDownloadError
from .models import Episode
from .store import Store

_LOGGER = logging.getLogger(__name__)

NOT_AUDIO_TYPES = ("text/", "application/json", "application/xml", "application/xhtml")
Opener = Callable[[Path, str], BinaryIO]


class _Interrupted(Exception):
    """The connection dropped; the partial file is kept for a Range resume."""


@dataclass
class DownloadJob:
    """One episode download: `done` bytes of `total` (None while unknown), and its state.

    `state` is "running", "checking", "done", "interrupted" or "failed"; `error` is the
    speakable reason of the last failure.
    """

    key: str
    episode: Episode
    title: str
    done: int = 0
    total: int | None = None
    state: str = "running"
    error: str = ""
    started: float = field(default_factory=time.monotonic)
    resumed_from: int = 0
    task: asyncio.Task[Path] | None = None

    @property
    def percent(self) -> int | None:
        """Whole percent done, or None when the size is unknown."""
        if not self.total:
            return None
        return min(100, int(self.done * 100 / self.total))


class Downloader:
    """Runs tracked download tasks into a `Cache`; at most one per episode."""

    def __init__(
        self,
        cache: Cache,
        store: Store,
        *,
        retries: int = 3,
        retry_delay: float = 0.5,
        read_timeout: float = 30.0,
        opener: Opener | None = None,
        chunk_bytes: int = 64 * 1024,
        on_done: Callable[[DownloadJob], None] | None = None,
    ) -> None:
        """`retries`: reconnects after a dropped connection; `retry_delay`: seconds between
        them; `opener(path, mode)`: opens the partial file (injectable, default `open`)."""
        self.cache = cache
        self.store = store
        self.retries = retries
        self.retry_delay = retry_delay
        self.read_timeout = read_timeout
        self.opener: Opener = opener or (lambda path, mode: open(path, mode))
        self.chunk_bytes = chunk_bytes
        self.on_done = on_done
        self.jobs: dict[str, DownloadJob] = {}
        self._session: aiohttp.ClientSession | None = None

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(sock_connect=10.0, sock_read=self.read_timeout),
                headers={"User-Agent": "xiaoting/0.1", "Accept-Encoding": "identity"},
            )
        return self._session

    def active(self) -> list[DownloadJob]:
        """Jobs still running or checking."""
        return [j for j in self.jobs.values() if j.state in ("running", "checking")]

    def start(self, episode: Episode, title: str) -> DownloadJob:
        """Start downloading `episode` (or return the job already doing so)."""
        key = episode_key(episode)
        job = self.jobs.get(key)
        if job is not None and job.task is not None and not job.task.done():
            return job
        job = DownloadJob(key, episode, title)
        job.task = asyncio.get_running_loop().create_task(
            self._run(job), name=f"download {episode.album_id}#{episode.section}"
        )
        job.task.add_done_callback(lambda _t: self._finished(job))
        self.jobs[key] = job
        return job

    def _finished(self, job: DownloadJob) -> None:
        task = job.task
        if task is not None and not task.cancelled() and task.exception() is not None:
            _LOGGER.debug("download %s ended with %s", job.title, task.exception())
        if self.on_done is not None:
            self.on_done(job)

    async def close(self) -> None:
        """Cancel running jobs (their partial files stay for a later resume)."""
        tasks = [j.task for j in self.jobs.values() if j.task and not j.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._session is not None:
            await self._session.close()

    def _record(self, job: DownloadJob) -> None:
        self.store.download_update(
            job.key, job.episode, file_name(job.episode),
            done=job.done, total=job.total, state=job.state, error=job.error or None,
        )  # fmt: skip

    async def _run(self, job: DownloadJob) -> Path:
        cached = self.cache.lookup(job.episode)
        if cached is not None:
            job.state = "done"
            return cached
        part = self.cache.part_path(job.episode)
        part.parent.mkdir(parents=True, exist_ok=True)
        try:
            for attempt in range(self.retries + 1):
                try:
                    await self._fetch(job, part)
                    break
                except _Interrupted as err:
                    job.state, job.error = "interrupted", "网络断了，下载中断"
                    self._record(job)
                    _LOGGER.warning(
                        "download %s interrupted at %d bytes (%s), attempt %d",
                        job.title, job.done, err, attempt + 1,
                    )  # fmt: skip
                    if attempt == self.retries:
                        raise InterruptedDownloadError(
                            "网络断了，下载没完成，下次会接着下载"
                        ) from err
                    await asyncio.sleep(self.retry_delay * (attempt + 1))
                    job.state = "running"
            job.state = "checking"
            try:
                await asyncio.to_thread(probe, part)
            except DecodeError as err:
                raise DownloadError("下载的文件不是能播放的音频") from err
            path = self.cache.commit(job.episode, part)
            self.store.download_delete(job.key)
            job.state = "done"
            _LOGGER.info("download %s complete: %d bytes", job.title, job.done)
            return path
        except asyncio.CancelledError:
            job.state = "interrupted"
            self._record(job)
            raise
        except DownloadError as err:
            job.state, job.error = "failed", str(err)
            if isinstance(err, InterruptedDownloadError):
                self._record(job)
            else:
                _remove(part)
                self.store.download_delete(job.key)
            _LOGGER.warning("download %s failed: %s", job.title, err)
            raise

    async def _fetch(self, job: DownloadJob, part: Path) -> None:
        offset = _size(part)
        headers = {"Range": f"bytes={offset}-"} if offset else {}
        url = job.episode.location
        try:
            async with self._http().get(url, headers=headers) as response:
                if response.status == 416 and offset:
                    total = _range_total(response.headers.get("Content-Range", ""))
                    if total == offset:
                        job.done = job.total = offset  # already complete
                        return
                    _remove(part)
                    raise _Interrupted("the server refused the Range; starting over")
                if response.status == 404:
                    raise DownloadError("找不到这一集的音频文件")
                if response.status >= 500:
                    raise _Interrupted(f"HTTP {response.status}")
                if response.status >= 400:
                    raise DownloadError(f"下载失败，服务器返回{response.status}")
                kind = response.headers.get("Content-Type", "").lower()
                if kind.startswith(NOT_AUDIO_TYPES):
                    raise DownloadError("下载到的是网页，不是音频")
                length = response.content_length
                if response.status == 206:
                    start = _range_start(response.headers.get("Content-Range", ""))
                    if start != offset:
                        _remove(part)
                        raise _Interrupted("server ignored the Range start")
                    job.resumed_from = offset
                elif offset:
                    offset = 0  # the server sent the whole file again
                job.total = offset + length if length is not None else None
                job.done = offset
                self._record(job)
                await self._write(job, part, response, append=bool(offset))
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, TimeoutError) as err:
            raise _Interrupted(str(err) or type(err).__name__) from err
        if job.total is not None and job.done != job.total:
            if job.done > job.total:
                raise DownloadError("下载的文件大小不对")
            raise _Interrupted(f"short body: {job.done} of {job.total} bytes")

    async def _write(
        self, job: DownloadJob, part: Path, response: aiohttp.ClientResponse, *, append: bool
    ) -> None:
        logged = time.monotonic()
        recorded = logged
        try:
            with self.opener(part, "ab" if append else "wb") as out:
                first = True
                async for chunk in response.content.iter_chunked(self.chunk_bytes):
                    if (
                        first
                        and not append
                        and chunk.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html"))
                    ):
                        raise DownloadError("下载到的是网页，不是音频")
                    first = False
                    out.write(chunk)
                    job.done += len(chunk)
                    now = time.monotonic()
                    if now - recorded > 1.0:
                        recorded = now
                        self._record(job)
                    if now - logged > 3.0:
                        logged = now
                        _LOGGER.info(
                            "download %s: %d/%s bytes (%s%%)",
                            job.title, job.done, job.total or "?", job.percent or "?",
                        )  # fmt: skip
        except OSError as err:
            if err.errno in (errno.ENOSPC, errno.EDQUOT):
                _remove(part)
                raise DownloadError("存储空间不够，下载失败") from err
            raise DownloadError(f"写缓存文件失败: {err.strerror or err}") from err


def _range_start(content_range: str) -> int | None:
    """The first byte of a "bytes 100-199/200" Content-Range header, or None."""
    try:
        return int(content_range.split()[1].split("-")[0])
    except (IndexError, ValueError):
        return None


def _range_total(content_range: str) -> int | None:
    """The total of a "bytes */200" or "bytes 0-9/200" Content-Range header, or None."""
    try:
        return int(content_range.rsplit("/", 1)[1])
    except (IndexError, ValueError):
        return None


def _size(path: Path) -> int:
    """Size of a partial file in bytes, 0 when there is none."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)
