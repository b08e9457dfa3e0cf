"""The catalog Protocol and `Catalog`, which spans every configured source in one search.

A source answers `search(keyword, page=, page_size=)` with a `SearchPage` and
`album(album_id)` with an `AlbumDetail`. Ids are prefixed with the source's `prefix`
("lib:", "rss:", "lv:", "json:"), which is how `Catalog.album` routes them. A failing source
is logged and skipped, so one dead server never hides the local library.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from typing import Protocol

from ..errors import NotFoundError, PlayerError, SourceError
from ..models import Album, AlbumDetail, SearchPage
from ..textmatch import match_score

_LOGGER = logging.getLogger(__name__)


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


def rank(keyword: str, albums: list[Album]) -> list[Album]:
    """Albums that match `keyword`, exact titles first (stable for equal scores)."""
    scored = [(match_score(keyword, a.title, a.author), i, a) for i, a in enumerate(albums)]
    return [a for score, _i, a in sorted(scored, key=lambda s: (-s[0], s[1])) if score > 0]


class Catalog:
    """All configured sources as one: merged, ranked search and id-routed album lookup."""

    def __init__(self, sources: list[CatalogSource], *, source_timeout: float = 8.0) -> None:
        """`source_timeout`: seconds one source may take before it is skipped in a search."""
        self.sources = list(sources)
        self.source_timeout = source_timeout

    def source_for(self, album_id: str) -> CatalogSource:
        """The source whose prefix starts `album_id`; raises NotFoundError."""
        for source in self.sources:
            if album_id.startswith(source.prefix):
                return source
        raise NotFoundError(f"没有这个专辑: {album_id}")

    async def _one(self, source: CatalogSource, keyword: str, limit: int) -> SearchPage | None:
        try:
            return await asyncio.wait_for(
                source.search(keyword, page=1, page_size=limit), self.source_timeout
            )
        except (PlayerError, TimeoutError, OSError) as err:
            _LOGGER.warning("catalog %s: search %r failed: %s", source.prefix, keyword, err)
            return None

    async def search(
        self, keyword: str, *, page: int = 1, page_size: int = 5, remote: bool = True
    ) -> SearchPage:
        """One page of albums from every source (or only local ones when `remote` is False).

        Each source is asked for its first `page * page_size` matches; the union is ranked
        (exact title first) and sliced. Raises SourceError only when every source failed.
        """
        sources = [s for s in self.sources if remote or not s.remote]
        limit = min(max(page, 1) * page_size, 100)
        pages = await asyncio.gather(*(self._one(s, keyword, limit) for s in sources))
        if sources and all(p is None for p in pages):
            raise SourceError("有声书来源暂时都连不上，请稍后再试")
        albums: list[Album] = []
        total = 0
        for result in pages:
            if result is not None:
                albums.extend(result.albums)
                total += result.total
        ranked = rank(keyword, albums)
        # Sources that search server-side may return matches our ranking cannot see
        # (e.g. by author); keep them after the ranked ones.
        seen = {a.id for a in ranked}
        ranked.extend(a for a in albums if a.id not in seen)
        start = (max(page, 1) - 1) * page_size
        return SearchPage(tuple(ranked[start : start + page_size]), max(total, len(ranked)), page)

    async def album(self, album_id: str) -> AlbumDetail:
        """The album with this id and its episodes; raises NotFoundError or SourceError."""
        source = self.source_for(album_id)
        try:
            return await asyncio.wait_for(source.album(album_id), self.source_timeout)
        except TimeoutError as err:
            raise SourceError("来源响应太慢，请稍后再试") from err

    def known_titles(self) -> list[str]:
        """Titles every source knows without a network request, deduplicated, in order."""
        seen: dict[str, None] = {}
        for source in self.sources:
            for title in source.known_titles():
                seen.setdefault(title, None)
        return list(seen)
