"""The catalog Protocol and `Catalog`, which spans every configured source in one search.

A source answers `search(keyword, page=, page_size=)` with a `SearchPage` and
`album(album_id)` with an `AlbumDetail`. Ids are prefixed with the source's `prefix`
("lib:", "rss:", "lv:", "json:"), which is how `Catalog.album` routes them. Sources are asked
concurrently, each within its own timeout; a failing one is logged and named in the page's
`failed`, so one dead server never hides the others and is never mistaken for "not found".
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import time
from collections.abc import Awaitable
from typing import Protocol, TypeVar

from words.text import normalize
from words.titles import AUTHOR, SUBSTRING, match_score

from ..errors import NotFoundError, PlayerError, SourceError
from ..models import Album, AlbumDetail, Episode, SearchPage
from ..texts import say

_LOGGER = logging.getLogger(__name__)
T = TypeVar("T")


def stable_id(*parts: str, length: int = 10) -> str:
    """A short hex id derived from `parts` (sha1), stable across runs and path-safe."""
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:length]


class CatalogSource(Protocol):
    """One place albums come from. `prefix` ends in ":" and starts every album id it makes."""

    prefix: str
    remote: bool

    async def search(self, keyword: str, *, page: int = 1, page_size: int = 10) -> SearchPage:
        """Albums matching `keyword`, best first; raises SourceError when the source fails."""
        ...

    async def album(self, album_id: str) -> AlbumDetail:
        """The album and its episodes; raises NotFoundError or SourceError."""
        ...

    def known_titles(self) -> list[str]:
        """Album titles this source already knows without a network request."""
        ...


def fill_numbers(numbers: list[int | None], order: list[int] | None = None) -> list[int]:
    """Section numbers for items that may state one: stated ones kept (a repeat counts as
    none), the others given the free numbers from 1 up, in `order` (indices; default as
    listed)."""
    result: list[int | None] = []
    taken: set[int] = set()
    for number in numbers:
        keep = number if number and number > 0 and number not in taken else None
        if keep:
            taken.add(keep)
        result.append(keep)
    pending = [i for i in (order if order is not None else range(len(numbers)))
               if result[i] is None]  # fmt: skip
    free = (n for n in range(1, len(numbers) + len(taken) + 1) if n not in taken)
    for i in pending:
        result[i] = next(free)
    return [int(n or 0) for n in result]


def album_score(keyword: str, album: Album) -> int:
    """How well `keyword` matches `album`: its title and author, or one of its aliases (its
    title in the other language, from album.json), 0..100 (`words.titles.match_score`);
    a name the catalog of well-known works gives its title one less (`known_score`); a
    narrator's name (two characters or more) as an author's."""
    return max(_own_score(keyword, album), known_score(keyword, album))


def known_score(keyword: str, album: Album) -> int:
    """How well `keyword` matches a name the catalog of well-known works gives `album`'s
    title (`Album.known_as`), one less than `match_score`: a book of that very title or
    alias comes first; 0 for none."""
    return max((match_score(keyword, name) - 1 for name in album.known_as()), default=0)


def _own_score(keyword: str, album: Album) -> int:
    """`album_score` by the album's own names and people only."""
    score = match_score(keyword, album.title, album.author)
    for alias in album.aliases:
        score = max(score, match_score(keyword, alias))
    key = normalize(keyword)
    if album.narrator and len(key) >= 2 and key in normalize(album.narrator):
        score = max(score, AUTHOR)
    return score


def rank(keyword: str, albums: list[Album]) -> list[Album]:
    """Albums that match `keyword`, exact titles first (stable for equal scores); by the
    catalog's names of well-known works only when none matches by its own names as well as
    a substring (a search for 西游记 lists 西游记, not also the library's "Journey to the
    West"; "harry potter two" is the catalog's name of the Chamber of Secrets, not a near
    match of the Philosopher's Stone's words)."""
    scored = [(_own_score(keyword, a), i, a) for i, a in enumerate(albums)]
    best = max((score for score, _i, _a in scored), default=0)
    if best < SUBSTRING:
        known = [(known_score(keyword, a), i, a) for i, a in enumerate(albums)]
        if any(score > best for score, _i, _a in known):
            scored = [
                (max(s, k), i, a) for (s, i, a), (k, _j, _b) in zip(scored, known, strict=True)
            ]
    return [a for score, _i, a in sorted(scored, key=lambda s: (-s[0], s[1])) if score > 0]


class Catalog:
    """All configured sources as one: merged, ranked search and id-routed album lookup.

    Every source is asked at once and may take at most `source_timeout` seconds, so a dead
    source costs its own timeout and never hides the others. A source that fails is named
    in the page's `failed`; its last good answer for the same keyword, when there is one,
    is served instead and named in `stale`. A source that timed out is not waited for again
    for `rest_seconds`, so a dead one costs its timeout once, not on every search.
    """

    def __init__(
        self, sources: list[CatalogSource], *, source_timeout: float = 8.0, language: str = "zh"
    ) -> None:
        """`source_timeout`: seconds one source may take before it is skipped in a search."""
        self.sources = list(sources)
        self.source_timeout = source_timeout
        self.language = language
        self._last_good: dict[tuple[str, str, int], SearchPage] = {}
        self._resting: dict[str, float] = {}  # prefix -> monotonic time it may be asked again
        self.rest_seconds = 20.0  # a source that timed out is not waited for again this long
        self.last_errors: dict[str, tuple[float, PlayerError]] = {}
        """{source prefix: (Unix time, the error)} of each source whose last request failed
        (a search, an album, a play URL); cleared by its next answer."""

    def source_for(self, album_id: str) -> CatalogSource:
        """The source whose prefix starts `album_id`; raises NotFoundError."""
        for source in self.sources:
            if album_id.startswith(source.prefix):
                return source
        raise NotFoundError(f"没有这个专辑: {album_id}")

    def label(self, source: CatalogSource) -> str:
        """The speakable name of a source ("本地", "LibriVox", "懒人听书")."""
        if not source.remote and source.prefix == "lib:":
            return say(self.language, "local_label")
        return str(getattr(source, "label", "") or source.prefix.rstrip(":"))

    async def _one(self, source: CatalogSource, keyword: str, limit: int) -> SearchPage:
        """One source's answer; on failure its last good one, or an empty page naming it."""
        key = (source.prefix, keyword, limit)
        started = time.monotonic()
        try:
            if started < self._resting.get(source.prefix, 0.0):
                raise SourceError(say(self.language, "source_timeout", source=self.label(source)))
            async with asyncio.timeout(self.source_timeout):
                result = await source.search(keyword, page=1, page_size=limit)
        except (PlayerError, TimeoutError, OSError) as err:
            if isinstance(err, TimeoutError):
                self._resting[source.prefix] = time.monotonic() + self.rest_seconds
            reason = str(err) or say(self.language, "source_timeout", source=self.label(source))
            _LOGGER.warning(
                "catalog %s: search %r failed after %.1f s: %s",
                source.prefix, keyword, time.monotonic() - started, reason,
            )  # fmt: skip
            self._failed(source, err if isinstance(err, PlayerError) else SourceError(reason))
            earlier = self._last_good.get(key)
            name = self.label(source)
            if earlier is not None:
                return dataclasses.replace(earlier, failed=(name,), stale=(name,))
            return SearchPage((), 0, 1, failed=(name,))
        self._resting.pop(source.prefix, None)
        if result.failed:  # a source of several (feeds) that could not all answer
            joined = ("、" if self.language == "zh" else ", ").join(result.failed)
            self._failed(source, SourceError(say(self.language, "sources_down", sources=joined)))
        else:
            self.last_errors.pop(source.prefix, None)
        if not result.failed:
            self._last_good[key] = result
            if len(self._last_good) > 256:
                self._last_good.pop(next(iter(self._last_good)))
        return result

    async def search(
        self, keyword: str, *, page: int = 1, page_size: int = 5, remote: bool = True
    ) -> SearchPage:
        """One page of albums from every source (or only local ones when `remote` is False).

        Each source is asked for its first `page * page_size` matches; the union is ranked
        (exact title first) and sliced. Sources that failed are named in `failed` (and in
        `stale` when their earlier answer was used); raises SourceError only when every
        source failed and nothing earlier can be served.
        """
        sources = [s for s in self.sources if remote or not s.remote]
        limit = min(max(page, 1) * page_size, 100)
        pages = await asyncio.gather(*(self._one(s, keyword, limit) for s in sources))
        failed = tuple(dict.fromkeys(n for p in pages for n in p.failed))
        stale = tuple(dict.fromkeys(n for p in pages for n in p.stale))
        if sources and all(p.failed and not p.albums for p in pages):
            raise SourceError(say(self.language, "all_down"))
        albums: list[Album] = []
        total = 0
        for result in pages:
            albums.extend(result.albums)
            total += result.total
        ranked = rank(keyword, albums)
        # Sources that search server-side may return matches our ranking cannot see
        # (e.g. by author); keep them after the ranked ones.
        seen = {a.id for a in ranked}
        ranked.extend(a for a in albums if a.id not in seen)
        unique = list({a.id: a for a in reversed(ranked)}.values())[::-1]
        start = (max(page, 1) - 1) * page_size
        return SearchPage(
            tuple(unique[start : start + page_size]), max(total, len(unique)), page,
            failed=failed, stale=stale,
        )  # fmt: skip

    def note(self, found: SearchPage) -> str:
        """A speakable note on the sources that failed in `found` ("懒人听书暂时连不上"), or ""."""
        down = [n for n in found.failed if n not in found.stale]
        parts = []
        if down:
            parts.append(say(self.language, "sources_down", sources="、".join(down)
                             if self.language == "zh" else ", ".join(down)))  # fmt: skip
        if found.stale:
            joined = ("、" if self.language == "zh" else ", ").join(found.stale)
            parts.append(say(self.language, "sources_stale", sources=joined))
        return ("；" if self.language == "zh" else "; ").join(parts)

    def _failed(self, source: CatalogSource, err: PlayerError) -> None:
        """Remember `err` as `source`'s last error (`last_errors`)."""
        self.last_errors[source.prefix] = (time.time(), err)

    def sources_status(self) -> list[dict[str, object]]:
        """Every source: ``{"prefix", "name" (speakable), "remote", "error" (its last
        request's failure, "" when it answered), "error_at" (Unix time or None)}``."""
        rows: list[dict[str, object]] = []
        for source in self.sources:
            at, err = self.last_errors.get(source.prefix, (None, None))
            rows.append({"prefix": source.prefix, "name": self.label(source),
                         "remote": bool(source.remote), "error": str(err or ""),
                         "error_at": at})  # fmt: skip
        return rows

    async def _asked(self, source: CatalogSource, call: Awaitable[T]) -> T:
        """`call`, a request to `source`, within `source_timeout` (a timeout raised as the
        source's SourceError); a failure is kept as its last error, an answer clears it."""
        try:
            async with asyncio.timeout(self.source_timeout):
                value = await call
        except TimeoutError as err:
            error = SourceError(say(self.language, "source_timeout", source=self.label(source)))
            self._failed(source, error)
            raise error from err
        except SourceError as err:
            self._failed(source, err)
            raise
        self.last_errors.pop(source.prefix, None)
        return value

    async def album(self, album_id: str) -> AlbumDetail:
        """The album with this id and its episodes; raises NotFoundError or SourceError."""
        source = self.source_for(album_id)
        return await self._asked(source, source.album(album_id))

    async def play_url(self, episode: Episode) -> str:
        """The URL to download `episode` from: its location, or what its source's play-URL
        call answers (`JsonSource.play_url`). Raises SourceError."""
        source = self.source_for(episode.album_id)
        resolve = getattr(source, "play_url", None)
        if resolve is None:
            return episode.location
        return await self._asked(source, resolve(episode))

    def known_titles(self) -> list[str]:
        """Titles every source knows without a network request, deduplicated, in order."""
        seen: dict[str, None] = {}
        for source in self.sources:
            for title in source.known_titles():
                seen.setdefault(title, None)
        return list(seen)
