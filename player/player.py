"""`Player`: the catalog, cache, downloads, playback worker and bookmarks, wired together.

Constructed from plain arguments; the tool methods the agent calls live in
`player.tools.PlayerTools` (a base class), and `Player.tools()` lists them bound. All
methods run on the event loop; decoding and `sink.write` run in a worker thread.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from words.catalog import library_names
from words.text import normalize
from words.titles import FUZZY_MAX, SUBSTRING, TitleIndex

from .cache import PART_SUFFIX, Cache, episode_key, file_name
from .chapters import ChapterIndex
from .download import Downloader, DownloadJob, Opener
from .engine import Cut, Playback, clamp_speed, probe
from .errors import BadInputError, DecodeError, NotFoundError, PlayerError, SourceError
from .http import Http
from .models import Album, AlbumDetail, AudioSink, Episode, PlayerState
from .sources import (
    Catalog,
    CatalogSource,
    FeedSource,
    JsonSource,
    JsonSourceSpec,
    LibriVoxSource,
    LocalLibrary,
)
from .sources.base import album_score, rank
from .store import BookSettings, CacheEntry, Store
from .texts import album_name, clock, say, title_part
from .tools import PlayerTools

_LOGGER = logging.getLogger(__name__)

MAX_KEYWORD_CHARS = 100


CHAPTER_SLACK = 0.001
"""Seconds before a chapter's start that already count as in it (a cut lands to the sample,
its position to within rounding)."""


@dataclass
class NowPlaying:
    """The file loaded in the playback worker, with its album: `chapters` are the album's
    episodes in this file, by their start (one, the whole file, for a plain file). The
    episode now is the one the position heard lies in, so the worker moving on from one
    chapter to the next (without reopening the file) moves it too."""

    detail: AlbumDetail
    playback: Playback
    path: Path
    cached: bool
    chapters: tuple[Episode, ...]

    def at(self, seconds: float) -> tuple[Episode, float]:
        """The episode holding `seconds` of the file, and the seconds into it."""
        chosen = self.chapters[0]
        for episode in self.chapters[1:]:
            if episode.start > seconds + CHAPTER_SLACK:
                break
            chosen = episode
        return chosen, max(0.0, seconds - chosen.start)

    @property
    def episode(self) -> Episode:
        """The episode heard now."""
        return self.at(self.playback.position)[0]

    @property
    def position(self) -> float:
        """Seconds into the episode heard now (book time)."""
        return self.at(self.playback.position)[1]

    def length(self, episode: Episode) -> float:
        """Seconds of `episode` (0.0 when unknown): a chapter's span, else the file's."""
        if not episode.is_chapter:
            return self.playback.duration or episode.duration
        following = [e.start for e in self.chapters if e.start > episode.start]
        end = following[0] if following else (episode.end or self.playback.duration)
        return max(0.0, end - episode.start)

    @property
    def duration(self) -> float:
        """Seconds of the episode heard now (0.0 when unknown)."""
        return self.length(self.episode)


@dataclass
class PendingPlay:
    """A request waiting for a download: play `episode` from `position` seconds when ready."""

    detail: AlbumDetail
    episode: Episode
    position: float
    job: DownloadJob


class Player(PlayerTools):
    """The audiobook player: search, play, pause, bookmarks, cache and downloads.

    ``Player(*, library_paths, cache_dir, state_dir, sink, feeds=(), librivox_url=None,
    json_sources=(), sources=(), cache_max_bytes=2 GiB, bookmark_interval=5.0 s,
    prefetch_next=True, language="zh", page_size=5, download_retries=3, source_timeout=8.0 s,
    volume_percent=100, max_volume_percent=100, min_volume_percent=0, bedtime="",
    bedtime_max_volume_percent=100, fade_seconds=3.0)``. `volume_percent` is the book volume
    of the first start; a volume set later is remembered across restarts; every way of
    setting it is held between `min_volume_percent` (a child turning it down to nothing
    would think the box broken) and `max_volume_percent`, and within the `bedtime` window
    ("20:00-07:00", local time from `clock`) the book plays at most at
    `bedtime_max_volume_percent`. A sleep timer's end fades out over `fade_seconds`.
    `json_sources` items are `JsonSourceSpec`s, dicts or config objects with the same field
    names; `sources` adds any other `CatalogSource`. Call `await start()` before use and
    `await close()` at exit (it saves the bookmark; the sink is the caller's to close).
    """

    def __init__(
        self,
        *,
        library_paths: Iterable[Path],
        cache_dir: Path,
        state_dir: Path,
        sink: AudioSink,
        feeds: Iterable[str] = (),
        librivox_url: str | None = None,
        json_sources: Iterable[object] = (),
        sources: Iterable[CatalogSource] = (),
        cache_max_bytes: int = 2 * 1024**3,
        bookmark_interval: float = 5.0,
        prefetch_next: bool = True,
        language: str = "zh",
        page_size: int = 5,
        download_retries: int = 3,
        download_retry_delay: float = 0.5,
        opener: Opener | None = None,
        source_timeout: float = 8.0,
        free_space: Callable[[Path], int] | None = None,
        volume_percent: int = 100,
        max_volume_percent: int = 100,
        min_volume_percent: int = 0,
        bedtime: str = "",
        bedtime_max_volume_percent: int = 100,
        fade_seconds: float = 3.0,
        clock: Callable[[], datetime.datetime] = datetime.datetime.now,
    ) -> None:
        """See the class docstring; `opener(path, mode)` opens partial download files;
        `clock` gives the local time (bedtime). Raises ValueError for a malformed
        `bedtime`."""
        self.language = "en" if language == "en" else "zh"
        self.sink = sink
        self.bookmark_interval = bookmark_interval
        self.prefetch_next = prefetch_next
        self.page_size = page_size
        self.state_dir = Path(state_dir)
        self.store = Store(
            self.state_dir / "player.sqlite3", retry_max=min(5.0, max(0.5, bookmark_interval))
        )
        self.cache = _open_cache(Path(cache_dir), self.store, cache_max_bytes)
        self.http = Http(timeout=source_timeout, language=self.language)
        self.library = LocalLibrary(
            [Path(p).expanduser() for p in library_paths], chapters=ChapterIndex(self.store)
        )
        all_sources: list[CatalogSource] = [self.library]
        feeds = list(feeds)
        if feeds:
            all_sources.append(FeedSource(feeds, self.http, timeout=source_timeout))
        if librivox_url:
            all_sources.append(LibriVoxSource(self.http, base_url=librivox_url))
        for spec in json_sources:
            all_sources.append(
                JsonSource(JsonSourceSpec.from_any(spec), self.http, remembered=self._remembered)
            )
        all_sources.extend(sources)
        self.catalog = Catalog(
            all_sources, source_timeout=source_timeout + 0.25, language=self.language
        )
        self.downloader = Downloader(
            self.cache,
            self.store,
            retries=download_retries,
            retry_delay=download_retry_delay,
            opener=opener,
            on_done=self._download_done,
            resolve=self.catalog.play_url,
            language=self.language,
            protect=self.protected_keys,
            **({"free_space": free_space} if free_space is not None else {}),
        )
        self.state = PlayerState.IDLE
        self.max_volume_percent = max(0, min(100, int(max_volume_percent)))
        self.min_volume_percent = max(0, min(self.max_volume_percent, int(min_volume_percent)))
        self.bedtime = bedtime_window(bedtime)
        self.bedtime_max_volume_percent = max(
            self.min_volume_percent, min(self.max_volume_percent, int(bedtime_max_volume_percent))
        )
        self.fade_seconds = max(0.0, float(fade_seconds))
        self.clock = clock
        self._night: tuple[float, bool] = (float("-inf"), False)
        self.volume = self._initial_volume(volume_percent) / 100
        self.now: NowPlaying | None = None
        self.pending: PendingPlay | None = None
        self.last_error = ""
        self.sleep_deadline: float | None = None
        self.sleep_left: float | None = None
        # the local episodes' title tokens, read once per library scan (_episode_index)
        self._titles_seen: tuple[tuple[int, ...], list[tuple]] | None = None
        self.sleep_at_end = False
        self.timer_dropped = False
        self._index: tuple[tuple, TitleIndex] | None = None
        self._subscribers: list[Callable[[PlayerState], object]] = []
        self._tasks: set[asyncio.Task[object]] = set()
        self._sleep_task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._loading: Playback | None = None
        self._stopped: Playback | None = None  # the last worker stopped, maybe still finishing

    def _initial_volume(self, configured: int) -> int:
        """The remembered volume (percent), else `configured`, held within the limits."""
        try:
            stored = self.store.setting("volume")
            percent = int(stored) if stored is not None else int(configured)
        except ValueError:
            percent = int(configured)
        return max(self.min_volume_percent, min(percent, self.max_volume_percent))

    def set_volume_limits(
        self,
        *,
        min_volume_percent: int,
        max_volume_percent: int,
        bedtime: str,
        bedtime_max_volume_percent: int,
    ) -> None:
        """Change the volume limits while playing (the household's page), held as the
        constructor holds them; the volume set is brought within them at once (and kept
        on disk). Raises ValueError for a malformed `bedtime`, changing nothing."""
        window = bedtime_window(bedtime)
        self.max_volume_percent = max(0, min(100, int(max_volume_percent)))
        self.min_volume_percent = max(0, min(self.max_volume_percent, int(min_volume_percent)))
        self.bedtime = window
        self.bedtime_max_volume_percent = max(
            self.min_volume_percent, min(self.max_volume_percent, int(bedtime_max_volume_percent))
        )
        self._night = (float("-inf"), False)
        percent = round(self.volume * 100)
        held = max(self.min_volume_percent, min(percent, self.max_volume_percent))
        if held != percent:
            self.volume = held / 100
            self.store_volume(held)
        _LOGGER.info(
            "volume limits: %d-%d%%, bedtime %s at most %d%%",
            self.min_volume_percent, self.max_volume_percent, bedtime or "none",
            self.bedtime_max_volume_percent,
        )  # fmt: skip

    def bedtime_now(self) -> bool:
        """True within the bedtime window (checked at most once a second)."""
        if self.bedtime is None:
            return False
        checked, night = self._night
        now = time.monotonic()
        if now - checked >= 1.0:
            moment = self.clock()
            night = in_window(self.bedtime, moment.hour * 60 + moment.minute)
            self._night = (now, night)
        return night

    def volume_ceiling(self) -> int:
        """The highest volume (percent) allowed now: the maximum, or the bedtime one."""
        if self.bedtime_now():
            return min(self.max_volume_percent, self.bedtime_max_volume_percent)
        return self.max_volume_percent

    def volume_now(self) -> float:
        """The book's gain now (0.0..1.0): the volume set, held under the bedtime ceiling."""
        return min(self.volume, self.volume_ceiling() / 100)

    def book_settings(self, album: Album) -> tuple[float, float, float]:
        """(speed, intro s, outro s) of a book: what the listener set, else 1.0 and the
        skips of its album.json."""
        held = self.store.book(album.id)
        speed = clamp_speed(held.speed) if held.speed is not None else 1.0
        intro = held.intro if held.intro is not None else album.skip_intro
        outro = held.outro if held.outro is not None else album.skip_outro
        return speed, max(0.0, intro), max(0.0, outro)

    def book_settings_save(
        self,
        album: Album,
        *,
        speed: float | None = None,
        intro: float | None = None,
        outro: float | None = None,
    ) -> None:
        """Remember a book's speed and skips (the ones given), then apply them to the
        book loaded now when it is this one."""
        held = self.store.book(album.id)
        self.store.book_save(
            album.id,
            BookSettings(
                speed if speed is not None else held.speed,
                intro if intro is not None else held.intro,
                outro if outro is not None else held.outro,
            ),
        )
        now = self.now
        if now is not None and now.detail.album.id == album.id:
            if speed is not None:
                now.playback.set_speed(speed)
            self.update_cuts()

    def store_volume(self, percent: int) -> None:
        """Remember the book volume (percent) for the next start."""
        self.store.setting_save("volume", str(int(percent)))

    # lifecycle --------------------------------------------------------------------------
    async def start(self) -> None:
        """Reconcile the cache with its index, scan the library, start the bookmark task."""
        self._loop = asyncio.get_running_loop()
        if self.store.recovered is not None or not self.store.persistent:
            await asyncio.to_thread(self._rebuild_cache_index)
        if self.store.persistent:
            await asyncio.to_thread(self.cache.reconcile)
        else:  # an index in memory must not decide which files on disk are strays
            _LOGGER.info("cache: files left as they are (state in memory)")
        await asyncio.to_thread(self.library.refresh, force=True)
        await asyncio.to_thread(normalize, "繁體")  # load the opencc tables off the loop
        self.cache.evict(set())
        self._track(self._bookmark_loop(), "bookmarks")

    async def close(self) -> None:
        """Stop playback (and a file still loading), save the bookmark, stop downloads,
        close the database."""
        if self._closed:
            return
        self._closed = True
        workers = [p for p in (self._loading,) if p is not None]
        if self.now is not None:
            position = self.now.playback.position
            self.now.playback.stop()
            self._save(self.now, position)
            workers.append(self.now.playback)
        for playback in workers:
            playback.stop()
            playback.loaded.cancel()
        for playback in workers:
            await asyncio.to_thread(playback.join, 2.0)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.downloader.close()
        await self.http.close()
        self.store.close()
        self._set_state(PlayerState.IDLE)

    def health(self) -> dict[str, object]:
        """Facts for ``xiaoting status``: position (s, as the device took it), speaker and
        state-saving trouble."""
        now = self.now
        return {
            "state": str(self.state),
            "position": round(now.position, 2) if now is not None else None,
            "speaker_problem": str(getattr(self.sink, "problem", "") or ""),
            "state_persistent": self.store.persistent,
            "state_problem": self.store.problem,
            "unsaved_writes": self.store.pending,
            "state_write_error": self.store.last_write_error,
        }

    def subscribe(self, callback: Callable[[PlayerState], object]) -> None:
        """Call `callback(new_state)` on the event loop after every state change."""
        self._subscribers.append(callback)

    def _remembered(self, album_id: str) -> Album | None:
        """The album as remembered from an earlier run (remote sources), or None."""
        try:
            detail = self.store.album_load(album_id)
        except Exception as err:  # a damaged row must not stop a search
            _LOGGER.warning("remembered album %s unreadable: %s", album_id, err)
            return None
        return detail.album if detail is not None else None

    def titles(self) -> list[str]:
        """Album titles known without network (library, feeds seen, remembered albums)."""
        titles = dict.fromkeys(self.catalog.known_titles())
        titles.update(dict.fromkeys(a.title for a in self.store.albums()))
        return list(titles)

    def sources_status(self) -> list[dict[str, object]]:
        """Every catalog source with its last error in the configured language's words
        (`Catalog.sources_status`; a message in the other language or naming an album id
        becomes the sentence of its kind, as the listener would hear it)."""
        rows = self.catalog.sources_status()
        for row in rows:
            _at, err = self.catalog.last_errors.get(str(row["prefix"]), (None, None))
            if err is not None:
                row["error"] = self.speakable_error(err)
        return rows

    def title_index(self) -> TitleIndex:
        """The titles known without network with their aliases and people (author,
        narrator), for the words layer to find in what the listener says
        (`words.TitleIndex`), with the catalog's names of a series volume by its series and
        part ("Harry Potter two", 哈利波特第二部: `words.catalog.library_names`). Built again
        only when they change."""
        entries = tuple(
            (a.title, a.aliases, tuple(p for p in (a.author, a.narrator) if p))
            for a in self.library_albums()
        )
        if self._index is None or self._index[0] != entries:
            others = library_names((title, aliases) for title, aliases, _ in entries)
            named = [
                (title, aliases, people, more)
                for (title, aliases, people), more in zip(entries, others, strict=True)
            ]
            self._index = (entries, TitleIndex(named))
        return self._index[1]

    def _track(self, coro, name: str) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            err = task.exception()
            if isinstance(err, PlayerError):
                self.last_error = str(err)
                _LOGGER.warning("%s: %s", task.get_name(), err)
            else:
                _LOGGER.error("%s failed", task.get_name(), exc_info=err)

    def _set_state(self, state: PlayerState) -> None:
        if state == self.state:
            return
        _LOGGER.info("player: %s -> %s", self.state, state)
        self.state = state
        for callback in list(self._subscribers):
            try:
                callback(state)
            except Exception:
                _LOGGER.exception("state subscriber failed")

    # bookmarks --------------------------------------------------------------------------
    def save_bookmark(self) -> None:
        """Write where the current book is (album, episode, position) to the database.

        Never raises: a write the disk refuses is kept in memory and retried.
        """
        now = self.now
        if now is not None:
            self._save(now, now.playback.position)

    def _save(self, now: NowPlaying, position: float) -> None:
        """Bookmark `position` (seconds of the file) as its episode and the seconds into it."""
        self.store.bookmark_save(now.detail.album, *now.at(position))

    async def _bookmark_loop(self) -> None:
        """Save the position every `bookmark_interval` s while playing; retry failed writes
        when the store's backoff says so. Survives any exception."""
        next_save = time.monotonic() + self.bookmark_interval
        failures = 0
        while True:
            wake = next_save
            retry = self.store.retry_at
            if retry is not None:
                wake = min(wake, retry)
            await asyncio.sleep(max(0.05, wake - time.monotonic()))
            try:
                if time.monotonic() >= next_save:
                    next_save = time.monotonic() + self.bookmark_interval
                    if self.state == PlayerState.PLAYING:
                        self.save_bookmark()
                self.store.flush()
                failures = 0
            except Exception:
                failures += 1
                if failures == 1:
                    _LOGGER.exception("bookmark saving failed; trying again")
                next_save = time.monotonic() + self.bookmark_interval

    def _rebuild_cache_index(self) -> None:
        """Index the cached files of every remembered album again (after a corrupt or
        unreadable database): a file whose name matches an episode is complete and kept;
        a partial one becomes an interrupted download to resume."""
        indexed = {entry.key for entry in self.store.cache_entries()}
        jobs = {key for key, *_ in self.store.downloads()}
        found = partial = 0
        for album in self.store.albums():
            detail = self.store.album_load(album.id)
            for episode in detail.episodes if detail else ():
                if not episode.is_remote:
                    continue
                key, name = episode_key(episode), file_name(episode)
                path = self.cache.path_of(name)
                part = self.cache.path_of(name + PART_SUFFIX)
                if key not in indexed and path.is_file():
                    stat = path.stat()
                    self.store.cache_put(CacheEntry(key, episode.album_id, episode.section,
                                                    episode.location, name, stat.st_size, None,
                                                    stat.st_mtime))  # fmt: skip
                    found += 1
                elif key not in jobs and part.is_file():
                    self.store.download_update(key, episode, name, done=part.stat().st_size,
                                               total=None, state="interrupted")  # fmt: skip
                    partial += 1
        _LOGGER.info(
            "cache index rebuilt from %s: %d file(s), %d partial download(s)",
            self.cache.directory, found, partial,
        )  # fmt: skip

    # resolving keywords -----------------------------------------------------------------
    def clean_keyword(self, keyword: str) -> str:
        """`keyword` without NUL/control characters, trimmed and capped at 100 characters."""
        cleaned = "".join(ch for ch in str(keyword) if ch.isprintable()).strip()
        return cleaned[:MAX_KEYWORD_CHARS]

    async def album_detail(self, album_id: str) -> AlbumDetail:
        """Details of an album by id: remembered copy for remote ones when offline."""
        source = self.catalog.source_for(album_id)
        try:
            detail = await self.catalog.album(album_id)
        except PlayerError:
            remembered = self.store.album_load(album_id) if source.remote else None
            if remembered is None:
                raise
            return remembered
        if source.remote:
            self.store.album_save(detail)
        return detail

    async def resolve(self, keyword: str) -> AlbumDetail:
        """The album `keyword` means: an album id, else the best local, remembered or remote
        match (in that order). Raises NotFoundError."""
        if self.is_album_id(keyword):
            return await self.album_detail(keyword)
        best = await self.local_match(keyword)
        if best is not None and album_score(keyword, best) >= SUBSTRING:
            return await self.album_detail(best.id)
        note = ""
        if any(s.remote for s in self.catalog.sources):
            try:
                found = await self.catalog.search(keyword, page_size=1)
            except SourceError:
                if best is None:
                    raise
            else:
                if found.albums:
                    return await self.album_detail(found.albums[0].id)
                note = self.catalog.note(found)
        if best is not None and album_score(keyword, best) >= FUZZY_MAX - 10:
            return await self.album_detail(best.id)  # one typo away ("西游季")
        if note:  # a source that could not answer is not a "not found"
            raise SourceError(say(self.language, "none_found_partial", keyword=keyword, note=note))
        raise NotFoundError(say(self.language, "none_found", keyword=keyword))

    async def local_match(self, keyword: str) -> Album | None:
        """The album of the library or remembered ones that `keyword` matches best (no
        network), or None; `album_score` says how well."""
        local = await self.catalog.search(keyword, page_size=1, remote=False)
        candidates = [*local.albums, *rank(keyword, self.store.albums())[:1]]
        return max(candidates, key=lambda a: album_score(keyword, a), default=None)

    async def names_album(self, keyword: str) -> bool:
        """True when `keyword` is an album id or a title (or author) of an album here, not
        only one typo away from one."""
        if self.is_album_id(keyword):
            return True
        best = await self.local_match(keyword)
        return best is not None and album_score(keyword, best) >= SUBSTRING

    def find_episode(self, detail: AlbumDetail, section: int) -> Episode:
        """The episode `section` of an album, 1-based; a negative one counts from the end
        (-1: the last, -2: the one before). Raises BadInputError for 0, NotFoundError for
        one the album does not have."""
        if section == 0:
            raise BadInputError(say(self.language, "bad_section"))
        name = album_name(self.language, detail.album)
        if section < 0:
            if -section > len(detail.episodes):
                raise NotFoundError(
                    say(self.language, "no_section_back", album=name,
                        count=len(detail.episodes), back=-section)
                )  # fmt: skip
            return detail.episodes[section]
        episode = detail.episode(section)
        if episode is None:
            raise NotFoundError(
                say(self.language, "no_section", album=name,
                    count=len(detail.episodes), section=section)
            )  # fmt: skip
        return episode

    def bookmark_for(self, detail: AlbumDetail) -> tuple[Episode, float] | None:
        """The bookmarked episode and position (seconds) of an album, or None."""
        mark = self.store.bookmark(detail.album.id)
        if mark is None:
            return None
        episode = detail.episode(mark.section)
        if episode is None:
            return None
        if episode.is_chapter and episode.duration and mark.position > episode.duration:
            # left before the file's chapters were read (the whole file was one episode):
            # the same place in the file, in the chapter that holds it
            at = episode.start + mark.position
            for chapter in file_chapters(detail, episode):
                if chapter.start <= at:
                    episode = chapter
            return episode, at - episode.start
        return episode, mark.position

    # playing ----------------------------------------------------------------------------
    async def play(self, detail: AlbumDetail, episode: Episode, position: float = 0.0) -> str:
        """Play `episode` now if it is local or cached (returns at once), else start its
        download and play when it is complete and checked. Returns the result text."""
        async with self._lock:
            holder = self.now or self.pending
            if (
                self.sleep_at_end
                and holder is not None
                and holder.detail.album.id != detail.album.id
            ):  # "stop after this chapter", then another book: that chapter is gone
                self.sleep_at_end = False
                self.timer_dropped = True  # said with the answer (`PlayerTools._played`)
                _LOGGER.info("end-of-episode timer of %s dropped: another book plays",
                             holder.detail.album.title)  # fmt: skip
            position = self._past_intro(detail, episode, position)
            path = self._playable_path(episode)
            if path is not None and self._same_file(detail, episode, path):
                position = self._move(detail, episode, position)
            elif path is not None:
                position = await self._start(detail, episode, path, position)
            if path is not None:
                intro = self.book_settings(detail.album)[1]
                chapter = episode.is_chapter  # a chapter of a file is said as one
                name = album_name(self.language, detail.album)
                if position > 1 and abs(position - intro) > 0.5:
                    return say(self.language, "resuming_chapter" if chapter else "resuming",
                               album=name, section=episode.section,
                               time=clock(self.language, position))  # fmt: skip
                key = "playing_cached" if episode.is_remote else "playing_local"
                key = "playing_chapter" if chapter else key
                return say(self.language, key, album=name, section=episode.section,
                           title=title_part(self.language, episode, detail.album.title))  # fmt: skip
            self._stop_current()
            job = self.downloader.start(
                episode, f"{detail.album.title} #{episode.section}", supersede=True
            )
            if self.catalog.source_for(detail.album.id).remote:
                self.store.album_save(detail)
            request = PendingPlay(detail, episode, position, job)
            self.pending = request
            self._set_state(PlayerState.LOADING)
            self._track(
                self._play_when_ready(request), f"play {episode.album_id}#{episode.section}"
            )
            return say(self.language, "downloading", album=album_name(self.language, detail.album),
                       section=episode.section)  # fmt: skip

    def _past_intro(self, detail: AlbumDetail, episode: Episode, position: float) -> float:
        """`position` (seconds into `episode`), moved past the book's intro skip: a start
        or a resume never lands inside a skipped intro."""
        intro = self.book_settings(detail.album)[1]
        length = episode.duration
        if intro and position < intro and (not length or intro < length - 1.0):
            return intro
        return position

    def _same_file(self, detail: AlbumDetail, episode: Episode, path: Path) -> bool:
        """True when `episode` is a chapter of the file playing now (a move within it)."""
        now = self.now
        return (
            now is not None
            and episode.is_chapter
            and now.path == path
            and now.detail.album.id == detail.album.id
            and now.playback.alive
            and not self._closed
        )

    def _move(self, detail: AlbumDetail, episode: Episode, position: float) -> float:
        """Go to `position` seconds into `episode`, a chapter of the file playing now: the
        worker seeks within the open file (nothing is reopened). Returns the position."""
        now = self.now
        assert now is not None
        self.pending = None
        now.detail = detail
        now.chapters = file_chapters(detail, episode)
        length = now.length(episode)
        if position < 0 or (length and position >= length - 0.5):
            position = 0.0
        now.playback.seek(episode.start + position)
        if now.playback.paused:
            now.playback.resume()
        self._set_state(PlayerState.PLAYING)
        self.update_cuts()
        self.store.bookmark_save(detail.album, episode, position)
        _LOGGER.info("playing %s #%d from %.1f s (same file)", detail.album.title,
                     episode.section, position)  # fmt: skip
        return position

    def _playable_path(self, episode: Episode) -> Path | None:
        if not episode.is_remote:
            path = Path(episode.location)
            if not self.library.allows(path):  # only files under a library root
                _LOGGER.warning("refused to open %s: outside the library folders", path)
                raise BadInputError(say(self.language, "bad_location", album=episode.album_id,
                                        section=episode.section))  # fmt: skip
            return path
        return self.cache.lookup(episode)

    async def _play_when_ready(self, request: PendingPlay) -> None:
        assert request.job.task is not None
        try:
            path = await asyncio.shield(request.job.task)
        except Exception:
            if self.pending is request:
                self.pending = None
                if self.now is None:
                    self.sleep_at_end = False  # for the episode that never came
                self._set_state(PlayerState.IDLE if self.now is None else self.state)
            raise
        async with self._lock:
            if self.pending is not request:
                return
            self.pending = None
            await self._start(request.detail, request.episode, path, request.position)

    async def _start(
        self, detail: AlbumDetail, episode: Episode, path: Path, position: float
    ) -> float:
        """Probe `path`, then hand it to a new worker; returns the start position (seconds
        into `episode`, 0 when the bookmark was at the very end). Raises DecodeError for a
        corrupt file."""
        cached = episode.is_remote
        try:
            duration = await asyncio.to_thread(probe, path)
        except DecodeError as err:
            self._corrupt(detail, episode, cached)
            raise self._corrupt_error(detail, episode, cached) from err
        chapters = file_chapters(detail, episode)
        if episode.is_chapter:
            following = [e.start for e in chapters if e.start > episode.start]
            end = following[0] if following else (episode.end or duration)
            duration = max(0.0, end - episode.start)
        if position < 0 or (duration and position >= duration - 0.5):
            position = 0.0
        self._stop_current()
        previous = self._stopped if self._stopped is not None and self._stopped.alive else None
        self.pending = None
        speed, _intro, outro = self.book_settings(detail.album)
        playback = Playback(
            path, self.sink, start=episode.start + position, volume=self.volume_now,
            on_event=self._from_worker, previous=previous, speed=speed,
            cuts=self._cuts(detail.album, chapters), end_trim=outro,
        )  # fmt: skip
        self._set_state(PlayerState.LOADING)
        self._loading = playback
        playback.start()
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(playback.loaded)), 10.0)
        except DecodeError as err:
            self._corrupt(detail, episode, cached)
            self._set_state(PlayerState.IDLE)
            raise self._corrupt_error(detail, episode, cached) from err
        except BaseException:  # cancelled (closing, a newer request) or timed out
            playback.stop()
            playback.loaded.cancel()
            if self._loading is playback and not self._closed:
                self._set_state(PlayerState.IDLE if self.now is None else self.state)
            raise
        finally:
            if self._loading is playback:
                self._loading = None
        if self._closed:
            playback.stop()
            raise PlayerError(say(self.language, "stopped"))
        self.now = NowPlaying(detail, playback, path, cached, chapters)
        if self.sleep_at_end:
            self.update_cuts()  # asked for while this episode was loading
        self.last_error = ""
        self._set_state(PlayerState.PLAYING)
        self.store.bookmark_save(detail.album, episode, position)
        if cached:
            self.cache.touch(episode)
        _LOGGER.info("playing %s #%d from %.1f s", detail.album.title, episode.section, position)
        self._prefetch()
        return position

    def _corrupt(self, detail: AlbumDetail, episode: Episode, cached: bool) -> None:
        _LOGGER.warning("corrupt audio: %s #%d", detail.album.title, episode.section)
        if cached:
            self.cache.remove(episode)

    def _corrupt_error(self, detail: AlbumDetail, episode: Episode, cached: bool) -> DecodeError:
        key = "corrupt" if cached else "corrupt_local"
        name = album_name(self.language, detail.album)
        return DecodeError(say(self.language, key, album=name, section=episode.section))

    def _cuts(self, album: Album, chapters: tuple[Episode, ...]) -> list[Cut]:
        """Where the worker does more than play on from one chapter of a file to the next:
        the book's outro and intro skipped, and a pause at the boundary while a sleep timer
        waits for the end of the episode."""
        _speed, intro, outro = self.book_settings(album)
        cuts = []
        starts = [e.start for e in chapters]
        for i, following in enumerate(chapters[1:], 1):
            length = following.start - starts[i - 1]
            after = (starts[i + 1] if i + 1 < len(starts) else following.end) - following.start
            cut_outro = outro if outro and outro < length - 1.0 else 0.0
            cut_intro = intro if intro and (after <= 0 or intro < after - 1.0) else 0.0
            jump = following.start + cut_intro if cut_outro or cut_intro else None
            if jump is None and not self.sleep_at_end:
                continue
            cuts.append(Cut(following.start - cut_outro, jump=jump, pause=self.sleep_at_end))
        return cuts

    def update_cuts(self) -> None:
        """Hand the worker the cuts and outro of the book loaded now (after a change)."""
        now = self.now
        if now is None:
            return
        outro = self.book_settings(now.detail.album)[2]
        now.playback.set_cuts(self._cuts(now.detail.album, now.chapters), end_trim=outro)

    def _stop_current(self) -> Playback | None:
        """Stop the worker, then save its bookmark; returns it so the next one can wait."""
        now = self.now
        if now is None:
            return None
        position = now.playback.position
        now.playback.stop()  # act first: the book stops even when the disk is failing
        self.now = None
        self._stopped = now.playback
        self._save(now, position)
        return now.playback

    def stop_all(self) -> None:
        """Stop playback and forget a pending request (downloads go on into the cache)."""
        self._stop_current()
        self.pending = None
        self._set_state(PlayerState.IDLE)

    def _prefetch(self) -> None:
        now = self.now
        if now is None or not self.prefetch_next:
            return
        following = now.detail.neighbour(now.episode, 1)
        if following is not None and following.is_remote and self.cache.lookup(following) is None:
            self.downloader.start(following, f"{now.detail.album.title} #{following.section}")

    def protected_keys(self) -> set[str]:
        """Cache keys eviction must spare: the episode playing (or awaited) and the next."""
        keys = set()
        for holder in (self.now, self.pending):
            if holder is not None:
                keys.add(episode_key(holder.episode))
                following = holder.detail.neighbour(holder.episode, 1)
                if following is not None:
                    keys.add(episode_key(following))
        return keys

    def _download_done(self, job: DownloadJob) -> None:
        if job.state == "done" and not self._closed:
            self.cache.evict(self.protected_keys())

    # events from the worker thread -------------------------------------------------------
    def _from_worker(self, playback: Playback, kind: str, detail: object) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._on_worker_event, playback, kind, detail)

    def _on_worker_event(self, playback: Playback, kind: str, detail: object) -> None:
        now = self.now
        if now is None or now.playback is not playback or self._closed:
            return
        if kind == "paused":  # at a chapter's end for the sleep timer, or after its fade
            self._set_state(PlayerState.PAUSED)
            self.save_bookmark()
            _LOGGER.info("sleep timer: paused %s #%d (%s)", now.detail.album.title,
                         now.episode.section, "end of episode" if detail == "cut" else "fade")  # fmt: skip
            self.sleep_at_end = False
            self.update_cuts()
            return
        if kind in ("error", "sink_error"):
            self.last_error = str(detail)
            position = now.playback.position
            self.now = None
            self._set_state(PlayerState.IDLE)
            if kind == "error":  # the file yields no audio at all
                self._corrupt(now.detail, now.episode, now.cached)
            self._save(now, position)
            return
        following = now.detail.neighbour(now.chapters[-1], 1)
        if following is None:
            self.store.bookmark_save(now.detail.album, now.chapters[-1], 0.0)
            self.now = None
            self._set_state(PlayerState.IDLE)
            _LOGGER.info("finished %s", now.detail.album.title)
            if self.sleep_at_end or self.sleep_deadline is not None:
                # the listening is over: a timer kept would stop the next book played
                self._cancel_sleep()
                _LOGGER.info("sleep timer: cancelled, %s is finished", now.detail.album.title)
            return
        self.store.bookmark_save(now.detail.album, following, 0.0)
        self.now = None
        if self.sleep_at_end or now.playback.fading:
            # the sleep timer ends with this episode: the next one waits for "continue"
            self.sleep_at_end = False
            self._cancel_sleep()
            self._set_state(PlayerState.IDLE)
            _LOGGER.info("sleep timer: stopped at the end of %s #%d", now.detail.album.title,
                         now.chapters[-1].section)  # fmt: skip
            return
        self._track(self.play(now.detail, following), f"advance to #{following.section}")


def file_chapters(detail: AlbumDetail, episode: Episode) -> tuple[Episode, ...]:
    """The episodes of `detail` that are chapters of `episode`'s file, by their start; just
    `episode` when it is a whole file."""
    if not episode.is_chapter:
        return (episode,)
    found = [e for e in detail.episodes if e.is_chapter and e.location == episode.location]
    return tuple(sorted(found, key=lambda e: e.start)) or (episode,)


_WINDOW = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")


def bedtime_window(text: str) -> tuple[int, int] | None:
    """A bedtime window "20:00-07:00" as (start, end) minutes after midnight (it may pass
    midnight); None for "". Raises ValueError for any other form."""
    if not text or not text.strip():
        return None
    match = _WINDOW.match(text)
    if match is None:
        raise ValueError(f'bedtime must look like "20:00-07:00", got {text!r}')
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    if h1 > 23 or h2 > 24 or m1 > 59 or m2 > 59 or (h2 == 24 and m2):
        raise ValueError(f"bedtime {text!r}: no such time of day")
    start, end = h1 * 60 + m1, h2 * 60 + m2
    if start == end:
        raise ValueError(f"bedtime {text!r}: the window is empty")
    return start, end


def in_window(window: tuple[int, int], minute: int) -> bool:
    """True when `minute` (after midnight) lies in `window` (start included, end not)."""
    start, end = window
    if start < end:
        return start <= minute < end
    return minute >= start or minute < end


def _open_cache(directory: Path, store: Store, max_bytes: int) -> Cache:
    """The cache in `directory`; when that cannot be created (read-only disk, no rights),
    one clear line and a temporary directory instead, so the player still starts."""
    try:
        return Cache(directory, store, max_bytes=max_bytes)
    except OSError as err:
        fallback = Path(tempfile.mkdtemp(prefix="xiaoting-cache-"))
        _LOGGER.warning(
            "cache directory %s unusable (%s): downloads go to %s and will not survive a "
            "restart", directory, err.strerror or err, fallback,
        )  # fmt: skip
        return Cache(fallback, store, max_bytes=max_bytes)


__all__ = ["NowPlaying", "PendingPlay", "Player", "bedtime_window", "file_chapters", "in_window"]
