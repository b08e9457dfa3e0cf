"""Background downloads into the cache: temporary name, HTTP Range resume, checked, renamed.

A `DownloadJob` fetches one episode to ``<name>.part``. What makes it robust on a real link:

- Resume: a partial file is continued with ``Range: bytes=N-`` and ``If-Range`` carrying the
  ETag (or Last-Modified) of the first attempt, kept beside it in ``<name>.part.json``; a
  file that changed on the server comes back whole (200) and the download starts over
  instead of splicing two versions.
- A stall (no bytes for `read_timeout` seconds), a dropped connection and a 5xx are network
  errors: the partial file is kept and the download retried a few times, then left for a
  later resume. A 503/429 with Retry-After waits that long when it is short.
- Every other failure (a redirect loop, a malformed or non-http URL, 404, other 4xx, a body
  longer than announced, HTML instead of audio, a full or read-only disk) ends the job with a
  speakable reason in `DownloadJob.error`; nothing is left "running".
- Complete files only: a file is complete when its length matches Content-Length, or, when
  the server gave none (or compressed the body), when the duration its container states
  matches the audio actually in it (packets demuxed over the whole file) and, where the
  catalog listed one, that duration. Anything less stays a ``.part`` to resume.
- At most `max_parallel` downloads run at a time (others wait, state "queued"); a request
  marked `supersede` cancels the other waiting or running requests (their partial files
  stay); prefetches are never superseded by each other.
- Before a download, and when the disk fills up during one, least recently played cached
  episodes are evicted until the free space (`free_space(path)`, bytes) covers what is
  still to come plus `reserve_bytes`.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import shutil
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

import aiohttp

from .cache import Cache, episode_key, file_name
from .engine import probe
from .errors import DecodeError, DownloadError, InterruptedDownloadError, PlayerError
from .models import PLAY_URL_SCHEME, Episode
from .store import Store
from .texts import say

_LOGGER = logging.getLogger(__name__)

NOT_AUDIO_TYPES = ("text/", "application/json", "application/xml", "application/xhtml")
META_SUFFIX = ".json"
MAX_RETRY_AFTER = 10.0  # seconds a 503/429 may ask us to wait within one job
Opener = Callable[[Path, str], BinaryIO]
Resolver = Callable[[Episode], Awaitable[str]]
FreeSpace = Callable[[Path], int]


class _Interrupted(Exception):
    """A network error; the partial file is kept for a Range resume. `key`: message key."""

    def __init__(self, detail: str, key: str = "dl_dropped", **values: object) -> None:
        super().__init__(detail)
        self.key = key
        self.values = values


@dataclass
class DownloadJob:
    """One episode download: `done` bytes of `total` (None while unknown), and its state.

    `state` is "queued", "running", "checking", "done", "interrupted", "cancelled" or
    "failed"; `error` is the speakable reason of the last failure; `ended` is the
    time.monotonic() at which it stopped (None while it runs).
    """

    key: str
    episode: Episode
    title: str
    done: int = 0
    total: int | None = None
    state: str = "queued"
    error: str = ""
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    resumed_from: int = 0
    wanted: bool = False
    task: asyncio.Task[Path] | None = None

    @property
    def percent(self) -> int | None:
        """Whole percent done, or None when the size is unknown."""
        if not self.total:
            return None
        return min(100, int(self.done * 100 / self.total))

    @property
    def finished(self) -> bool:
        """True once the job has stopped, whatever the outcome."""
        return self.state in ("done", "interrupted", "cancelled", "failed")


def disk_free(path: Path) -> int:
    """Free bytes on the file system holding `path` (its nearest existing parent)."""
    path = Path(path)
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free


def measure(path: Path) -> tuple[float, float]:
    """(stated, present) seconds of audio in a file: the container's stated duration (0.0
    when it states none) and the sum of the durations of the packets demuxed over the whole
    file. Raises DownloadError when PyAV cannot open it."""
    import av

    try:
        with av.open(str(path)) as container:
            streams = [s for s in container.streams if s.type == "audio"]
            if not streams:
                raise DownloadError("no audio stream")
            stream = streams[0]
            stated = 0.0
            if stream.duration is not None and stream.time_base is not None:
                stated = float(stream.duration * stream.time_base)
            elif container.duration is not None:
                stated = container.duration / 1_000_000
            present = 0.0
            last_end = 0.0
            try:
                for packet in container.demux(stream):
                    if packet.duration and packet.time_base is not None:
                        present += float(packet.duration * packet.time_base)
                        if packet.pts is not None:
                            end = float((packet.pts + packet.duration) * packet.time_base)
                            last_end = max(last_end, end)
            except av.error.FFmpegError:
                pass  # a damaged tail: what was read so far is what is there
            start = float(stream.start_time * stream.time_base) if stream.start_time else 0.0
            return stated, max(present, last_end - start)
    except av.error.FFmpegError as err:
        raise DownloadError(str(err)) from err


def _complete_by_duration(stated: float, present: float, listed: float) -> bool:
    """True when the audio present covers the duration the container states (1 % or 0.5 s
    of slack: encoder padding) and the one the catalog listed (5 % or 5 s: catalogs round,
    and some containers, such as Ogg, state only what is present)."""
    if present <= 0:
        return False
    if stated > 0 and present < stated - max(0.5, 0.01 * stated):
        return False
    return not (listed > 0 and present < listed - max(5.0, 0.05 * listed))


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
        resolve: Resolver | None = None,
        max_parallel: int = 2,
        free_space: FreeSpace = disk_free,
        reserve_bytes: int = 16 << 20,
        language: str = "zh",
        protect: Callable[[], set[str]] | None = None,
    ) -> None:
        """`retries`: reconnects after a network error; `retry_delay`: seconds between
        them; `read_timeout`: seconds without a byte that count as a stall; `opener(path,
        mode)`: opens the partial file; `resolve(episode)`: the URL of a play-URL episode;
        `free_space(path)`: free bytes; `protect()`: cache keys eviction must spare."""
        self.cache = cache
        self.store = store
        self.retries = retries
        self.retry_delay = retry_delay
        self.read_timeout = read_timeout
        self.opener: Opener = opener or (lambda path, mode: open(path, mode))
        self.chunk_bytes = chunk_bytes
        self.on_done = on_done
        self.resolve = resolve
        self.free_space = free_space
        self.reserve_bytes = reserve_bytes
        self.language = language
        self.protect = protect or (lambda: set())
        self.jobs: dict[str, DownloadJob] = {}
        self._slots = asyncio.Semaphore(max(1, max_parallel))
        self._session: aiohttp.ClientSession | None = None
        self._store_failed = False

    def _say(self, key: str, **values: object) -> str:
        return say(self.language, key, **values)

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(sock_connect=10.0, sock_read=self.read_timeout),
                headers={"User-Agent": "xiaoting/0.1", "Accept-Encoding": "identity"},
            )
        return self._session

    def active(self) -> list[DownloadJob]:
        """Jobs still queued, running or checking."""
        return [j for j in self.jobs.values() if not j.finished]

    def failed(self, within: float = 600.0) -> list[DownloadJob]:
        """Jobs that ended without a file in the last `within` seconds (not cancelled ones)."""
        now = time.monotonic()
        return [
            j for j in self.jobs.values()
            if j.state in ("failed", "interrupted") and j.ended and now - j.ended < within
        ]  # fmt: skip

    def status(self) -> list[dict[str, object]]:
        """Every job known: album title, section, state, bytes, percent and error (speakable)."""
        return [
            {"title": j.title, "album_id": j.episode.album_id, "section": j.episode.section,
             "state": j.state, "done": j.done, "total": j.total, "percent": j.percent,
             "error": j.error}
            for j in self.jobs.values()
        ]  # fmt: skip

    def start(self, episode: Episode, title: str, *, supersede: bool = False) -> DownloadJob:
        """Start downloading `episode` (or return the job already doing so).

        With `supersede`, this is what the listener asked for now: other requested jobs that
        are still waiting or running are cancelled (their partial files stay).
        """
        key = episode_key(episode)
        job = self.jobs.get(key)
        if supersede:
            for other in self.active():
                if other.key != key and other.wanted and other.task is not None:
                    other.error = self._say("dl_superseded")
                    other.task.cancel()
        if job is not None and job.task is not None and not job.task.done():
            job.wanted = job.wanted or supersede
            return job
        job = DownloadJob(key, episode, title, wanted=supersede)
        job.task = asyncio.get_running_loop().create_task(
            self._run(job), name=f"download {episode.album_id}#{episode.section}"
        )
        job.task.add_done_callback(lambda _t: self._finished(job))
        self.jobs[key] = job
        return job

    def _finished(self, job: DownloadJob) -> None:
        job.ended = time.monotonic()
        task = job.task
        if task is not None and task.cancelled() and job.state not in ("done", "failed"):
            job.state = "cancelled"
        elif task is not None and not task.cancelled() and task.exception() is not None:
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

    def _record(self, job: DownloadJob, *, delete: bool = False) -> None:
        """Write the job's row; a failing database is logged once and never stops a job."""
        try:
            if delete:
                self.store.download_delete(job.key)
            else:
                self.store.download_update(
                    job.key, job.episode, file_name(job.episode),
                    done=job.done, total=job.total, state=job.state, error=job.error or None,
                )  # fmt: skip
        except sqlite3.Error as err:
            if not self._store_failed:
                _LOGGER.warning("download state not saved (%s); downloads go on", err)
            self._store_failed = True

    async def _run(self, job: DownloadJob) -> Path:
        cached = self.cache.lookup(job.episode)
        if cached is not None:
            job.state = "done"
            return cached
        part = self.cache.part_path(job.episode)
        try:
            async with self._slots:
                job.state = "running"
                try:
                    part.parent.mkdir(parents=True, exist_ok=True)
                except OSError as err:
                    raise self._disk_error(err, part) from err
                return await self._attempts(job, part)
        except asyncio.CancelledError:
            job.state = "cancelled" if job.error else "interrupted"
            self._record(job)
            raise
        except DownloadError as err:
            job.error = str(err)
            job.state = "interrupted" if isinstance(err, InterruptedDownloadError) else "failed"
            if job.state == "failed":
                self._restart(part)
            self._record(job, delete=job.state == "failed")
            _LOGGER.warning("download %s failed: %s", job.title, err)
            raise

    async def _attempts(self, job: DownloadJob, part: Path) -> Path:
        url = await self._url(job)
        for attempt in range(self.retries + 1):
            try:
                await self._fetch(job, part, url)
                break
            except _Interrupted as err:
                job.state, job.error = "interrupted", self._say(err.key, **err.values)
                self._record(job)
                _LOGGER.warning(
                    "download %s interrupted at %d bytes (%s), attempt %d of %d",
                    job.title, job.done, err, attempt + 1, self.retries + 1,
                )  # fmt: skip
                if attempt == self.retries:
                    raise InterruptedDownloadError(job.error) from err
                wait = err.values.get("seconds")
                delay = float(wait) if isinstance(wait, (int, float)) else 0.0
                await asyncio.sleep(max(delay, self.retry_delay * (attempt + 1)))
                job.state, job.error = "running", ""
        job.state = "checking"
        path = await self._check_and_commit(job, part)
        job.state = "done"
        _LOGGER.info("download %s complete: %d bytes", job.title, job.done)
        return path

    async def _url(self, job: DownloadJob) -> str:
        location = job.episode.location
        if location.startswith(PLAY_URL_SCHEME):
            if self.resolve is None:
                raise DownloadError(self._say("dl_bad_url"))
            try:
                location = await self.resolve(job.episode)
            except PlayerError as err:
                raise InterruptedDownloadError(str(err)) from err
        parts = urlsplit(location.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise DownloadError(self._say("dl_bad_url"))
        return location.strip()

    # one HTTP request -------------------------------------------------------------------
    def _meta_path(self, part: Path) -> Path:
        return part.with_name(part.name + META_SUFFIX)

    def _load_meta(self, part: Path) -> dict[str, object]:
        try:
            data = json.loads(self._meta_path(part).read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save_meta(self, part: Path, meta: dict[str, object]) -> None:
        try:
            self._meta_path(part).write_text(json.dumps(meta))
        except OSError as err:
            _LOGGER.debug("resume data not saved: %s", err)

    def _restart(self, part: Path) -> None:
        part.unlink(missing_ok=True)
        self._meta_path(part).unlink(missing_ok=True)

    async def _fetch(self, job: DownloadJob, part: Path, url: str) -> None:
        """One request, read to its end; raises _Interrupted (network) or DownloadError."""
        offset = _size(part)
        meta = self._load_meta(part) if offset else {}
        headers = {}
        if offset:
            headers["Range"] = f"bytes={offset}-"
            validator = meta.get("etag") or meta.get("last_modified")
            if isinstance(validator, str) and not validator.startswith("W/"):
                headers["If-Range"] = validator
        try:
            async with self._http().get(url, headers=headers) as response:
                offset = self._answer(job, part, response, offset, meta)
                if offset is None:
                    return  # already complete
                encoded = response.headers.get("Content-Encoding", "identity") != "identity"
                length = None if encoded else response.content_length
                job.total = offset + length if length is not None else None
                job.done = offset
                self._make_room(job)
                self._record(job)
                await self._write(job, part, response, append=bool(offset))
        except (_Interrupted, DownloadError):
            raise
        except aiohttp.TooManyRedirects as err:
            raise DownloadError(self._say("dl_redirects")) from err
        except (aiohttp.InvalidURL, ValueError) as err:
            raise DownloadError(self._say("dl_bad_url")) from err
        except TimeoutError as err:
            raise _Interrupted(f"no data for {self.read_timeout:g} s", "dl_stalled") from err
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, OSError) as err:
            raise _Interrupted(str(err) or type(err).__name__) from err
        if job.total is not None:
            if job.done > job.total:
                self._restart(part)
                raise DownloadError(self._say("dl_size"))
            if job.done < job.total:
                raise _Interrupted(f"short body: {job.done} of {job.total} bytes", "dl_short")

    def _answer(
        self, job: DownloadJob, part: Path, response: aiohttp.ClientResponse, offset: int,
        meta: dict[str, object],
    ) -> int | None:  # fmt: skip
        """Check the status and headers; returns the offset to write at (None: complete)."""
        status = response.status
        if status == 416 and offset:
            total = _range_total(response.headers.get("Content-Range", ""))
            if total == offset:
                job.done = job.total = offset
                return None
            self._restart(part)
            raise _Interrupted("the server refused the Range; starting over")
        if status in (404, 410):
            raise DownloadError(self._say("dl_not_found"))
        if status in (429, 503):
            wait = _retry_after(response.headers.get("Retry-After", ""))
            if wait is not None and wait <= MAX_RETRY_AFTER:
                raise _Interrupted(f"HTTP {status}, retry after {wait:g} s", "dl_server",
                                   status=status, seconds=wait)  # fmt: skip
            raise InterruptedDownloadError(self._say("dl_busy", seconds=round(wait or 60)))
        if status >= 500:
            raise _Interrupted(f"HTTP {status}", "dl_server", status=status)
        if status >= 400:
            raise DownloadError(self._say("dl_http", status=status))
        kind = response.headers.get("Content-Type", "").lower()
        if kind.startswith(NOT_AUDIO_TYPES):
            raise DownloadError(self._say("dl_not_audio"))
        etag = response.headers.get("ETag")
        modified = response.headers.get("Last-Modified")
        if status == 206:
            start = _range_start(response.headers.get("Content-Range", ""))
            changed = (meta.get("etag") and etag and etag != meta.get("etag")) or (
                meta.get("last_modified") and modified and modified != meta.get("last_modified")
            )
            if start != offset or changed:
                self._restart(part)
                raise _Interrupted("the file changed on the server; starting over")
            job.resumed_from = offset
            return offset
        if offset:
            _LOGGER.info("download %s: the server sent the whole file; starting over", job.title)
        self._save_meta(part, {"etag": etag, "last_modified": modified, "url": str(response.url)})
        return 0

    async def _write(
        self, job: DownloadJob, part: Path, response: aiohttp.ClientResponse, *, append: bool
    ) -> None:
        """Append the body to `part`. A full disk first evicts old episodes; when that made
        room, the attempt ends as interrupted so the next one resumes from what is on disk
        (always a prefix of the body, whatever a failed buffered write left)."""
        logged = time.monotonic()
        recorded = logged
        room_made = False
        try:
            with self.opener(part, "ab" if append else "wb") as out:
                first = True
                async for chunk in response.content.iter_chunked(self.chunk_bytes):
                    if (
                        first
                        and not append
                        and chunk.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html"))
                    ):
                        raise DownloadError(self._say("dl_not_audio"))
                    first = False
                    try:
                        out.write(chunk)
                    except OSError as err:
                        full = err.errno in (errno.ENOSPC, errno.EDQUOT)
                        if full and self._make_room(job, need=4 * self.chunk_bytes, urgent=True):
                            room_made = True
                            break
                        raise self._disk_error(err, part) from err
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
        except (aiohttp.ClientError, TimeoutError):
            raise  # network errors are sorted out by the caller
        except OSError as err:  # opening, or closing (flushing) the file
            if not room_made:
                raise self._disk_error(err, part) from err
        if room_made:
            raise _Interrupted("the disk was full; old episodes evicted", "dl_disk_full")

    def _disk_error(self, err: OSError, part: Path) -> DownloadError:
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            self._restart(part)
            return DownloadError(self._say("dl_disk_full"))
        if err.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return DownloadError(self._say("dl_read_only"))
        return DownloadError(self._say("dl_write", error=err.strerror or err))

    def _make_room(
        self, job: DownloadJob, *, need: int | None = None, urgent: bool = False
    ) -> bool:
        """Evict least recently played episodes until the rest of `job` fits; True if it does."""
        if need is None:
            need = (job.total - job.done) if job.total else self.chunk_bytes
        need += self.reserve_bytes if not urgent else 0
        try:
            free = 0 if urgent else self.free_space(self.cache.root)  # ENOSPC said: none
        except OSError:
            return True
        if free >= need:
            return True
        protect = self.protect() | {job.key}
        freed = self.cache.evict_for(need - free, protect)
        if freed:
            _LOGGER.info("download %s: evicted %d bytes to make room", job.title, freed)
        if urgent:
            return freed > 0  # nothing to free: the disk stays full
        return self.free_space(self.cache.root) >= need

    # checking ---------------------------------------------------------------------------
    async def _check_and_commit(self, job: DownloadJob, part: Path) -> Path:
        by_length = job.total is not None and job.done == job.total
        try:
            if by_length:
                await asyncio.to_thread(probe, part)
            stated, present = await asyncio.to_thread(measure, part)
        except (DecodeError, DownloadError) as err:
            if not by_length:  # no length to go by: an unreadable file may just be cut short
                _LOGGER.warning("download %s: unreadable without its end (%s); kept as partial",
                                job.title, err)  # fmt: skip
                raise InterruptedDownloadError(self._say("dl_short")) from err
            self._restart(part)
            raise DownloadError(self._say("dl_undecodable")) from err
        if present <= 0 and by_length:
            self._restart(part)
            raise DownloadError(self._say("dl_undecodable"))
        if not by_length and not _complete_by_duration(stated, present, job.episode.duration):
            _LOGGER.warning(
                "download %s: %.1f s of audio, the file states %.1f s, the catalog %.1f s;"
                " kept as partial", job.title, present, stated, job.episode.duration,
            )  # fmt: skip
            raise InterruptedDownloadError(self._say("dl_short"))
        try:
            path = self.cache.commit(job.episode, part)
        except (OSError, sqlite3.Error) as err:
            _LOGGER.warning("download %s: cannot index the file: %s", job.title, err)
            raise DownloadError(self._say("dl_disk_full")) from err
        self._meta_path(part).unlink(missing_ok=True)
        self._record(job, delete=True)
        return path


def _retry_after(value: str) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), or None."""
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    from email.utils import parsedate_to_datetime

    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


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


__all__ = ["DownloadJob", "Downloader", "disk_free", "measure"]
