"""LibriVox's public JSON API: search by title (then author), sections with MP3 URLs.

Requests ``{base}/audiobooks/?title=^…&format=json&extended=1&limit=…`` (a title prefix),
``…?author=<last name>`` at the same time, and
``{base}/audiobooks/?id=…``; the answer is ``{"books": [{"id", "title", "authors":
[{"first_name", "last_name"}], "num_sections", "description", "sections": [{"section_number",
"title", "listen_url", "playtime"}]}]}``. "Not found" comes as HTTP 404 with
``{"error": …}``. The base URL is configurable (default https://librivox.org/api/feed).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from ..errors import NotFoundError, SourceError
from ..http import Http
from ..models import Album, AlbumDetail, Episode, SearchPage
from .base import rank

_LOGGER = logging.getLogger(__name__)

DEFAULT_URL = "https://librivox.org/api/feed"
_TAGS = re.compile(r"<[^>]+>")
_ARTICLE = re.compile(r"^(?:the|a|an|le|la|les|der|die|das)\s+", re.I)


def _author(book: dict[str, Any]) -> str:
    names = []
    for person in book.get("authors") or []:
        if isinstance(person, dict):
            name = f"{person.get('first_name', '')} {person.get('last_name', '')}".strip()
            if name:
                names.append(name)
    return ", ".join(names)


def _float(value: object) -> float:
    try:
        return float(str(value))
    except ValueError:
        return 0.0


class LibriVoxSource:
    """Public-domain audiobooks from LibriVox (or any server answering its API); "lv:<id>"."""

    prefix = "lv:"
    remote = True
    label = "LibriVox"

    def __init__(self, http: Http, *, base_url: str = DEFAULT_URL) -> None:
        """`base_url`: the API root, without a trailing "/audiobooks"."""
        self.http = http
        self.base_url = base_url.rstrip("/")
        self._titles: dict[str, str] = {}

    def _album(self, book: dict[str, Any]) -> Album:
        album_id = f"{self.prefix}{book.get('id')}"
        sections = book.get("sections") or []
        count = int(_float(book.get("num_sections")) or len(sections))
        title = str(book.get("title") or album_id)
        self._titles[album_id] = title
        description = _TAGS.sub("", str(book.get("description") or ""))[:500]
        return Album(album_id, title, _author(book), count, "librivox", description)

    async def _books(self, **params: str) -> list[dict[str, Any]]:
        params = {"format": "json", "extended": "1", **params}
        data = await self.http.get_json(
            f"{self.base_url}/audiobooks/", params=params, missing_ok=True, name=self.label
        )
        if not isinstance(data, dict):
            raise SourceError("LibriVox 返回的数据格式不对")
        books = data.get("books")
        if books is None:
            return []  # {"error": "Audiobooks could not be found"}
        if isinstance(books, dict):  # some answers key books by id
            books = list(books.values())
        if not isinstance(books, list):
            raise SourceError("LibriVox 返回的数据格式不对")
        return [b for b in books if isinstance(b, dict) and b.get("id") is not None]

    async def search(self, keyword: str, *, page: int = 1, page_size: int = 10) -> SearchPage:
        """Books whose title starts with `keyword` (with and without a leading article) or
        whose author's last name is its last word, merged and ranked with the player's matcher.

        LibriVox matches `title` exactly unless it starts with "^" (then as a prefix), and
        `author` against last names; both are asked at once.
        """
        keyword = " ".join(keyword.split())
        if not keyword:
            return SearchPage((), 0, page)
        title = _ARTICLE.sub("", keyword) or keyword
        want = max(page, 1) * page_size
        paging = {"limit": str(min(100, want)), "offset": "0"}
        queries = [self._books(title="^" + title, **paging)]
        if title != keyword:  # stored with its article, or without: ask both ways
            queries.append(self._books(title="^" + keyword, **paging))
        last_name = keyword.split()[-1]
        if last_name.isascii() and len(last_name) > 1:
            queries.append(self._books(author=last_name, **paging))
        results = await asyncio.gather(*queries, return_exceptions=True)
        books: dict[str, dict[str, Any]] = {}
        errors = []
        for result in results:
            if isinstance(result, BaseException):
                if not isinstance(result, SourceError):
                    raise result
                errors.append(result)
                continue
            for book in result:
                books.setdefault(str(book["id"]), book)
        if errors and not books:
            raise errors[0]
        albums = [self._album(b) for b in books.values()]
        ranked = rank(keyword, albums)
        if title != keyword:
            ranked += [a for a in rank(title, albums) if a not in ranked]
        ranked += [a for a in albums if a not in ranked]  # found by LibriVox, e.g. by author
        start = (max(page, 1) - 1) * page_size
        return SearchPage(tuple(ranked[start : start + page_size]), len(ranked), page)

    async def album(self, album_id: str) -> AlbumDetail:
        """The book and its sections; raises NotFoundError for an unknown or non-numeric id."""
        number = album_id.removeprefix(self.prefix)
        if not number.isdigit():
            raise NotFoundError(f"没有这个专辑: {album_id}")
        books = await self._books(id=number)
        if not books:
            raise NotFoundError(f"没有这个专辑: {album_id}")
        book = books[0]
        album = self._album(book)
        episodes = []
        for position, section in enumerate(book.get("sections") or [], start=1):
            if not isinstance(section, dict) or not section.get("listen_url"):
                continue
            number_ = int(_float(section.get("section_number"))) or position
            episodes.append(
                Episode(
                    album_id=album.id,
                    section=number_,
                    title=str(section.get("title") or f"Section {number_}"),
                    location=str(section["listen_url"]),
                    duration=_float(section.get("playtime")),
                )
            )
        episodes.sort(key=lambda e: e.section)
        return AlbumDetail(album, tuple(episodes))

    def known_titles(self) -> list[str]:
        """Titles seen in answers so far."""
        return list(self._titles.values())
