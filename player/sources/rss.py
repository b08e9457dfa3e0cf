"""Podcast RSS/Atom feeds as albums, parsed with feedparser.

Each configured feed URL is one album ("rss:<hash of the URL>"). Episodes are the entries
with an audio enclosure; their sections come from ``itunes:episode`` when every entry has
a distinct one, else from publication date (oldest first) when every entry has a distinct
date, else from document order. Feeds are fetched on demand and kept for `ttl` seconds;
a feed that is not XML, is truncated or has no audio is logged and skipped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import feedparser

from ..errors import NotFoundError, SourceError
from ..http import Http
from ..models import Album, AlbumDetail, Episode, SearchPage
from .base import rank, stable_id

_LOGGER = logging.getLogger(__name__)


@dataclass
class _Feed:
    detail: AlbumDetail
    fetched: float


def _int(value: object) -> int | None:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def _audio_url(entry: dict) -> str | None:
    for link in entry.get("enclosures", []) or []:
        href = link.get("href") or link.get("url")
        kind = (link.get("type") or "").lower()
        if href and (kind.startswith("audio") or not kind or "octet-stream" in kind):
            return href
    for link in entry.get("links", []) or []:
        if link.get("rel") == "enclosure" and link.get("href"):
            return link["href"]
    return None


def _duration(value: object) -> float:
    """Seconds from an itunes:duration ("1:02:03", "62:03", "3723")."""
    try:
        parts = [float(p) for p in str(value).split(":")]
    except ValueError:
        return 0.0
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + part
    return seconds


def parse_feed(album_id: str, body: bytes) -> AlbumDetail:
    """An album from a feed document; raises SourceError when it is unusable."""
    parsed = feedparser.parse(body)
    entries = [e for e in parsed.entries if _audio_url(e)]
    if not entries:
        reason = getattr(parsed, "bozo_exception", None) or "no audio entries"
        raise SourceError(f"订阅源无法读取: {reason}")
    numbers = [_int(e.get("itunes_episode")) for e in entries]
    dates = [e.get("published_parsed") or e.get("updated_parsed") for e in entries]
    if all(numbers) and len(set(numbers)) == len(numbers):
        order = sorted(range(len(entries)), key=lambda i: numbers[i])
        sections = [numbers[i] for i in order]
    else:
        if all(dates) and len(set(map(tuple, dates))) == len(dates):
            order = sorted(range(len(entries)), key=lambda i: tuple(dates[i]))
        else:
            order = list(range(len(entries)))
        sections = list(range(1, len(entries) + 1))
    episodes = tuple(
        Episode(
            album_id=album_id,
            section=int(section),
            title=str(entries[i].get("title") or f"第{section}集"),
            location=str(_audio_url(entries[i])),
            duration=_duration(entries[i].get("itunes_duration", 0)),
        )
        for section, i in zip(sections, order, strict=True)
    )
    feed = parsed.feed
    album = Album(
        id=album_id,
        title=str(feed.get("title") or album_id),
        author=str(feed.get("author") or feed.get("itunes_author") or ""),
        episode_count=len(episodes),
        source="rss",
        description=str(feed.get("subtitle") or feed.get("summary") or "")[:500],
    )
    return AlbumDetail(album, episodes)


class FeedSource:
    """Albums from podcast RSS/Atom feed URLs; ids "rss:<hash>"."""

    prefix = "rss:"
    remote = True

    def __init__(self, urls: list[str], http: Http, *, ttl: float = 600.0) -> None:
        """`urls`: feed URLs; `ttl`: seconds a fetched feed is reused."""
        self.urls = list(urls)
        self.http = http
        self.ttl = ttl
        self._feeds: dict[str, _Feed] = {}
        self._ids = {self.prefix + stable_id(u): u for u in self.urls}

    async def _fetch(self, album_id: str) -> AlbumDetail:
        cached = self._feeds.get(album_id)
        if cached and time.monotonic() - cached.fetched < self.ttl:
            return cached.detail
        url = self._ids[album_id]
        try:
            body = await self.http.get_bytes(url)
            detail = await asyncio.to_thread(parse_feed, album_id, body)
        except SourceError as err:
            if cached:  # keep the last good copy
                _LOGGER.warning("feed %s: %s; using the copy from before", url, err)
                return cached.detail
            raise
        self._feeds[album_id] = _Feed(detail, time.monotonic())
        return detail

    async def search(self, keyword: str, *, page: int = 1, page_size: int = 10) -> SearchPage:
        """Feeds whose title matches `keyword`; a broken feed is logged and skipped."""
        results = await asyncio.gather(*(self._fetch(i) for i in self._ids), return_exceptions=True)
        albums = []
        for album_id, result in zip(self._ids, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, SourceError):
                    raise result
                _LOGGER.warning("feed %s skipped: %s", self._ids[album_id], result)
            else:
                albums.append(result.album)
        ranked = rank(keyword, albums)
        start = (max(page, 1) - 1) * page_size
        return SearchPage(tuple(ranked[start : start + page_size]), len(ranked), page)

    async def album(self, album_id: str) -> AlbumDetail:
        """The feed as an album; raises NotFoundError for an id not in the config."""
        if album_id not in self._ids:
            raise NotFoundError(f"没有这个订阅专辑: {album_id}")
        return await self._fetch(album_id)

    def known_titles(self) -> list[str]:
        """Titles of the feeds fetched so far."""
        return [f.detail.album.title for f in self._feeds.values()]
