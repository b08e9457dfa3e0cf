"""Podcast RSS/Atom feeds as albums, parsed with feedparser.

Each configured feed URL is one album ("rss:<hash of the URL>"). Episodes are the entries
with an audio enclosure (by MIME type, or by file extension when the type is missing or
generic); enclosure URLs are stripped and resolved against the feed's URL, and only http(s)
ones are kept, so a feed can never make the player open a local file. Entries repeating an
earlier guid or URL are dropped. An episode's number is the one the feed gives
(``itunes:episode``), else one in its title ("第3集", "Ep 3", "Chapter 3"); entries with
neither take the free numbers in date order (oldest first), then those without a date in
document order. Titles given as HTML are unescaped once and stripped of tags.

Feeds are fetched concurrently, each within `timeout` seconds, and kept for `ttl` seconds;
a feed that fails is named in the search page's `failed`, its last good copy is used, and
it is not asked again for `rest_seconds` (so a dead feed costs its timeout once, not on
every search).
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
import time
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import urljoin, urlsplit

import feedparser

from words.numbers import ENGLISH_MARKED, MARKED, chinese_number

from ..errors import NotFoundError, SourceError
from ..http import Http, source_name
from ..models import Album, AlbumDetail, Episode, SearchPage
from ..texts import say
from .base import fill_numbers, rank, stable_id

_LOGGER = logging.getLogger(__name__)

AUDIO_SUFFIXES = frozenset(
    {".mp3", ".m4a", ".m4b", ".aac", ".opus", ".ogg", ".oga", ".flac", ".wav", ".wma", ".spx"}
)
_GENERIC_TYPES = ("", "application/octet-stream", "binary/octet-stream")
_LEADING_NUMBER = re.compile(r"^\s*[#№]?\s*(\d{1,3})\s*[.:、．_)\]-]")
_TAGS = re.compile(r"<[^>]+>")


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


def remote_url(base: str, href: object) -> str | None:
    """`href` stripped and resolved against `base`; None unless it is an http(s) URL."""
    if not isinstance(href, str) or not href.strip():
        return None
    url = urljoin(base, href.strip())
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return url


def is_audio(kind: str, url: str) -> bool:
    """True for an enclosure of an audio MIME type, or of a generic one with an audio suffix."""
    kind = (kind or "").split(";")[0].strip().lower()
    if kind.startswith("audio/"):
        return True
    if kind in _GENERIC_TYPES:
        return PurePosixPath(urlsplit(url).path).suffix.lower() in AUDIO_SUFFIXES
    return False


def _audio_url(entry: dict, base: str) -> str | None:
    links = list(entry.get("enclosures", []) or [])
    links += [k for k in entry.get("links", []) or [] if k.get("rel") == "enclosure"]
    for link in links:
        url = remote_url(base, link.get("href") or link.get("url"))
        if url and is_audio(link.get("type") or "", url):
            return url
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


def title_number(title: str) -> int | None:
    """The episode number a title states: "第3集", "Ep 3", "Chapter 3", "03. …"; or None.

    A bare number elsewhere in a title ("2024 年终回顾", "Top 10 books") is not a number.
    """
    for match in MARKED.finditer(title):
        if match.group(0).startswith("第") or match.group(2):
            value = chinese_number(match.group(1) or match.group(2))
            if value:
                return value
    match = ENGLISH_MARKED.search(title) or _LEADING_NUMBER.match(title)
    if match:
        return int(match.group(1)) or None
    return None


def _text(detail: object, value: object) -> str:
    """A feed text field as plain text: HTML ones unescaped once and stripped of tags."""
    text = str(value or "")
    kind = getattr(detail, "get", lambda _k, _d=None: "")("type", "") or ""
    if "html" in kind:
        text = html.unescape(_TAGS.sub("", text))
    return " ".join(text.split())


def parse_feed(
    album_id: str, body: bytes, *, url: str = "", content_type: str = "", language: str = "zh"
) -> AlbumDetail:
    """An album from a feed document fetched from `url`; raises SourceError when unusable.

    `content_type` (the response header) gives the charset when the document does not;
    `language` is that of the error message.
    """
    headers = {"content-location": url} if url else {}
    if content_type:
        headers["content-type"] = content_type
    parsed = feedparser.parse(body, response_headers=headers)
    name = source_name(url) if url else album_id
    seen: set[str] = set()
    entries: list[tuple[dict, str]] = []
    skipped = 0
    for entry in parsed.entries:
        audio = _audio_url(entry, url)
        if audio is None:
            skipped += 1
            continue
        guid = str(entry.get("id") or "")
        if audio in seen or (guid and guid in seen):
            skipped += 1
            continue
        seen.update({audio, guid} - {""})
        entries.append((entry, audio))
    if not entries:
        reason = getattr(parsed, "bozo_exception", None) or "no audio entries"
        _LOGGER.warning("feed %s unusable: %s", name, reason)
        raise SourceError(say(language, "source_bad_feed", source=name))
    if skipped:
        _LOGGER.info("feed %s: %d entries without audio or repeated, skipped", name, skipped)
    titles = [_text(e.get("title_detail"), e.get("title")) for e, _u in entries]
    stated = [_int(e.get("itunes_episode")) or title_number(t)
              for (e, _u), t in zip(entries, titles, strict=True)]  # fmt: skip
    dates = [e.get("published_parsed") or e.get("updated_parsed") for e, _u in entries]
    # Entries without a number take the free ones: dated ones oldest first, then the rest
    # in document order (a second "episode 1", a new season or a repost, counts as none).
    order = sorted(range(len(entries)),
                   key=lambda i: (0, tuple(dates[i]), i) if dates[i] else (1, (), i))  # fmt: skip
    numbers = fill_numbers(stated, order)
    episodes = sorted(
        (
            Episode(
                album_id=album_id,
                section=int(number or 0),
                title=title or f"第{number}集",
                location=audio,
                duration=_duration(entry.get("itunes_duration", 0)),
            )
            for (entry, audio), title, number in zip(entries, titles, numbers, strict=True)
        ),
        key=lambda e: e.section,
    )
    feed = parsed.feed
    album = Album(
        id=album_id,
        title=_text(feed.get("title_detail"), feed.get("title")) or name,
        author=str(feed.get("author") or feed.get("itunes_author") or ""),
        episode_count=len(episodes),
        source="rss",
        description=_text(feed.get("subtitle_detail"), feed.get("subtitle")
                          or feed.get("summary"))[:500],
    )  # fmt: skip
    return AlbumDetail(album, tuple(episodes))


class FeedSource:
    """Albums from podcast RSS/Atom feed URLs; ids "rss:<hash>"."""

    prefix = "rss:"
    remote = True
    label = "RSS"

    def __init__(
        self, urls: list[str], http: Http, *, ttl: float = 600.0, timeout: float = 8.0
    ) -> None:
        """`urls`: feed URLs; `ttl`: seconds a fetched feed is reused; `timeout`: seconds
        one feed may take."""
        self.urls = [u.strip() for u in urls]
        self.http = http
        self.ttl = ttl
        self.timeout = timeout
        self._feeds: dict[str, _Feed] = {}
        self._ids = {self.prefix + stable_id(u): u for u in self.urls}
        self._pending: dict[str, asyncio.Task[AlbumDetail]] = {}
        self._resting: dict[str, tuple[float, SourceError]] = {}
        self.rest_seconds = 20.0  # a feed that failed is not asked again for this long

    def feed_label(self, album_id: str) -> str:
        """A feed's speakable name: its title once fetched, else its host."""
        known = self._feeds.get(album_id)
        return known.detail.album.title if known else source_name(self._ids[album_id])

    async def _download(self, album_id: str) -> AlbumDetail:
        url = self._ids[album_id]
        async with asyncio.timeout(self.timeout):
            body = await self.http.fetch(url, name=self.feed_label(album_id))
        detail = await asyncio.to_thread(
            parse_feed, album_id, body.data, url=body.url, content_type=body.content_type,
            language=self.http.language,
        )  # fmt: skip
        self._feeds[album_id] = _Feed(detail, time.monotonic())
        _LOGGER.info("feed %s: %d episodes", detail.album.title, len(detail.episodes))
        return detail

    async def _fetch(self, album_id: str) -> AlbumDetail:
        cached = self._feeds.get(album_id)
        if cached and time.monotonic() - cached.fetched < self.ttl:
            return cached.detail
        resting = self._resting.get(album_id)
        if resting is not None and time.monotonic() < resting[0]:
            if cached:
                return cached.detail
            raise resting[1]  # failed a moment ago: no second wait for the same answer
        task = self._pending.get(album_id)
        if task is None:  # concurrent searches share one request per feed
            task = asyncio.ensure_future(self._download(album_id))
            self._pending[album_id] = task
            task.add_done_callback(lambda _t: self._pending.pop(album_id, None))
        try:
            detail = await asyncio.shield(task)
        except (SourceError, TimeoutError) as err:
            error = err if isinstance(err, SourceError) else SourceError(
                say(self.http.language, "source_timeout", source=self.feed_label(album_id))
            )  # fmt: skip
            self._resting[album_id] = (time.monotonic() + self.rest_seconds, error)
            if cached:  # keep the last good copy
                _LOGGER.warning("feed %s: %s; using the copy from before", album_id, err)
                return cached.detail
            raise error from err
        self._resting.pop(album_id, None)
        return detail

    async def search(self, keyword: str, *, page: int = 1, page_size: int = 10) -> SearchPage:
        """Feeds whose title matches `keyword`; a feed that fails is named in `failed`."""
        results = await asyncio.gather(*(self._fetch(i) for i in self._ids), return_exceptions=True)
        albums = []
        failed = []
        for album_id, result in zip(self._ids, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, SourceError):
                    raise result
                _LOGGER.warning("feed %s skipped: %s", self._ids[album_id], result)
                failed.append(self.feed_label(album_id))
            else:
                albums.append(result.album)
        ranked = rank(keyword, albums)
        start = (max(page, 1) - 1) * page_size
        page_albums = tuple(ranked[start : start + page_size])
        return SearchPage(page_albums, len(ranked), page, failed=tuple(failed))

    async def album(self, album_id: str) -> AlbumDetail:
        """The feed as an album; raises NotFoundError for an id not in the config."""
        if album_id not in self._ids:
            raise NotFoundError(f"没有这个订阅专辑: {album_id}")
        return await self._fetch(album_id)

    def known_titles(self) -> list[str]:
        """Titles of the feeds fetched so far."""
        return [f.detail.album.title for f in self._feeds.values()]
