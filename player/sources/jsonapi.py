"""A catalog served as JSON over HTTP, described by URL templates and field paths.

Plugs in a service such as a 懒人听书-style API (``?type=search&keyword=…&page=…``,
``?type=detail&album_id=…&page=…``, ``?type=url&id=…``) with a key and no code. Templates may
use ``{keyword}``, ``{page}``, ``{album_id}``, ``{episode_id}`` and ``{api_key}`` (values are
URL-encoded). Field paths are dotted, with list indices as numbers: ``"data.list"``,
``"result.0.tracks"``. Ids are ``"<name>:<the service's id>"``.

- Search follows the service's pages (``{page}``) until it has what was asked for.
- Detail follows its pages too, until ``detail_total_path`` says all are there, a page
  brings nothing new, or ``detail_max_pages`` is reached.
- An episode's number is the API's (``episode_number_field``), else one in its title
  ("第3集"), else the free numbers in the order the service lists them.
- Episode URLs are resolved against the API URL; only http(s) ones are kept. With
  ``play_url`` set, an episode without a URL gets one from a second call just before its
  download (``play_url_path`` in that answer).
- An answer whose ``error_code_path`` holds a code not in ``ok_codes`` is an error that
  names the service and carries its ``error_message_path`` text ("懒人听书报错: key无效");
  code 404 means "no such album" (or no results).
- Album titles come from search answers, the detail answer (``detail_title_path``) or what
  was remembered before a restart, never from a raw id when anything better is known.
- The API key is masked in every log line, also URL-encoded inside URLs.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from ..errors import NotFoundError, SourceError
from ..http import Http, mask_secrets
from ..models import PLAY_URL_SCHEME, Album, AlbumDetail, Episode, SearchPage
from ..texts import say
from .base import fill_numbers
from .rss import remote_url, title_number

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class JsonSourceSpec:
    """How to call and read one JSON catalog (field names match the config's [[json_sources]]).

    See the module docstring and ``config.example.toml`` for what each field means.
    """

    name: str = "json"
    label: str = ""
    method: str = "GET"
    search_url: str = ""
    detail_url: str = ""
    play_url: str = ""
    results_path: str = "data"
    total_path: str = ""
    album_id_field: str = "id"
    album_title_field: str = "title"
    album_author_field: str = "author"
    album_count_field: str = "count"
    album_description_field: str = ""
    detail_title_path: str = ""
    episodes_path: str = "data.episodes"
    detail_total_path: str = ""
    detail_max_pages: int = 50
    episode_id_field: str = "id"
    episode_title_field: str = "title"
    episode_url_field: str = "url"
    episode_number_field: str = ""
    episode_duration_field: str = ""
    play_url_path: str = "data.url"
    error_code_path: str = "code"
    error_message_path: str = "msg"
    ok_codes: tuple[str, ...] = ("0", "200")
    max_search_pages: int = 3
    api_key: str = dataclasses.field(default="", repr=False)

    @classmethod
    def from_any(cls, value: object) -> JsonSourceSpec:
        """A spec from a dict or from any object with same-named attributes (a config)."""
        if isinstance(value, cls):
            return value
        names = [f.name for f in dataclasses.fields(cls)]
        if isinstance(value, dict):
            items = {k: v for k, v in value.items() if k in names}
        else:
            items = {n: getattr(value, n) for n in names if hasattr(value, n)}
        if "ok_codes" in items:
            items["ok_codes"] = tuple(str(c) for c in items["ok_codes"])
        return cls(**items)


def field_path(data: Any, path: str) -> Any:
    """The value at a dotted path ("data.list", "items.0.url"); None when absent."""
    if not path:
        return data
    for part in path.split("."):
        if isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and part.lstrip("-").isdigit():
            index = int(part)
            data = data[index] if -len(data) <= index < len(data) else None
        else:
            return None
        if data is None:
            return None
    return data


def _int(value: object) -> int | None:
    try:
        number = int(float(str(value).strip()))
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None


def _seconds(value: object) -> float:
    """Seconds from a number or a "mm:ss"/"hh:mm:ss" text; 0.0 when unknown."""
    try:
        parts = [float(p) for p in str(value).split(":")]
    except ValueError:
        return 0.0
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + part
    return seconds


class JsonSource:
    """A configurable JSON-over-HTTP catalog; ids "<spec.name>:<id>".

    `remembered(album_id)` answers an album known from before a restart (or None); it keeps
    a remembered title from being replaced by a raw id.
    """

    remote = True

    def __init__(
        self,
        spec: JsonSourceSpec,
        http: Http,
        *,
        remembered: Callable[[str], Album | None] | None = None,
    ) -> None:
        """`spec`: templates and field paths; raises ValueError when search_url is empty."""
        if not spec.search_url:
            raise ValueError(f"json source {spec.name!r}: search_url is empty")
        if spec.method.upper() not in ("GET", "POST"):
            raise ValueError(f"json source {spec.name!r}: method must be GET or POST")
        self.spec = spec
        self.http = http
        self.prefix = f"{spec.name}:"
        self.label = spec.label or spec.name
        self.remembered = remembered
        self._titles: dict[str, str] = {}
        self._authors: dict[str, str] = {}
        if spec.api_key:
            http.secrets.append(spec.api_key)

    def _url(self, template: str, **values: object) -> str:
        safe = {k: quote(str(v), safe="") for k, v in values.items()}
        safe["api_key"] = quote(self.spec.api_key, safe="")
        try:
            return template.format(**safe)
        except (KeyError, IndexError, ValueError) as err:
            raise SourceError(
                say(self.http.language, "source_bad_data", source=self.label)
            ) from err

    def _masked(self, text: str) -> str:
        return mask_secrets(text, [self.spec.api_key])

    async def _call(self, template: str, **values: object) -> tuple[Any, str]:
        """(parsed answer, URL) of one call; raises SourceError, also for an API error body."""
        url = self._url(template, **values)
        if self.spec.method.upper() == "POST":
            parts = urlsplit(url)
            form = dict(parse_qsl(parts.query, keep_blank_values=True))
            bare = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
            data = await self.http.post_json(bare, form=form, name=self.label)
        else:
            data = await self.http.get_json(url, name=self.label)
        code = field_path(data, self.spec.error_code_path) if self.spec.error_code_path else None
        if (
            code is not None
            and not isinstance(code, (dict, list))
            and (str(code) not in self.spec.ok_codes)
        ):
            message = field_path(data, self.spec.error_message_path) or f"code {code}"
            _LOGGER.warning(
                "json source %s: API error %s: %s", self.label, code, self._masked(str(message))
            )
            text = say(self.http.language, "source_api_error", source=self.label,
                       msg=self._masked(str(message))[:120])  # fmt: skip
            raise NotFoundError(text) if str(code) == "404" else SourceError(text)
        return data, url

    def _items(self, data: Any, path: str) -> list[dict[str, Any]]:
        items = field_path(data, path)
        if items is None:
            return []
        if isinstance(items, dict):  # some services key their list by id
            items = list(items.values())
        if not isinstance(items, list):
            _LOGGER.warning("json source %s: %r is not a list", self.label, path)
            raise SourceError(say(self.http.language, "source_bad_data", source=self.label))
        return [i for i in items if isinstance(i, dict)]

    def _album(self, item: dict[str, Any]) -> Album | None:
        spec = self.spec
        raw_id = field_path(item, spec.album_id_field)
        title = field_path(item, spec.album_title_field)
        if raw_id is None or title is None or not str(title).strip():
            return None
        album_id = f"{self.prefix}{raw_id}"
        title = " ".join(str(title).split())
        self._titles[album_id] = title
        count = _int(field_path(item, spec.album_count_field)) or 0
        author = str(field_path(item, spec.album_author_field) or "")
        self._authors[album_id] = author
        description = ""
        if spec.album_description_field:
            description = str(field_path(item, spec.album_description_field) or "")[:500]
        return Album(album_id, title, author, count, self.label, description)

    async def search(self, keyword: str, *, page: int = 1, page_size: int = 10) -> SearchPage:
        """Albums the service finds for `keyword`; as many of its pages as `page_size` needs."""
        albums: dict[str, Album] = {}
        total = 0
        service_page = 1
        while len(albums) < page * page_size and service_page <= self.spec.max_search_pages:
            try:
                data, _url = await self._call(
                    self.spec.search_url, keyword=keyword, page=service_page
                )
            except NotFoundError:  # the service's way of saying "no results"
                break
            found = [a for a in (self._album(i) for i in self._items(data, self.spec.results_path))
                     if a]  # fmt: skip
            new = [a for a in found if a.id not in albums]
            albums.update((a.id, a) for a in new)
            stated = _int(field_path(data, self.spec.total_path)) if self.spec.total_path else None
            total = stated if stated is not None else len(albums)
            if not new or "{page}" not in self.spec.search_url or len(albums) >= total:
                break
            service_page += 1
        start = (max(page, 1) - 1) * page_size
        listed = list(albums.values())
        return SearchPage(tuple(listed[start : start + page_size]), max(total, len(listed)), page)

    def _title(self, album_id: str, data: Any) -> str:
        """The album's title: from the detail answer, a search, or memory; the id last."""
        if self.spec.detail_title_path:
            value = field_path(data, self.spec.detail_title_path)
            if value and str(value).strip():
                return " ".join(str(value).split())
        if album_id in self._titles:
            return self._titles[album_id]
        known = self.remembered(album_id) if self.remembered else None
        if known is not None and known.title:
            return known.title
        return album_id.removeprefix(self.prefix)

    async def album(self, album_id: str) -> AlbumDetail:
        """The album's episodes from the detail URL (all its pages); raises NotFoundError."""
        raw_id = album_id.removeprefix(self.prefix)
        spec = self.spec
        if not spec.detail_url:
            raise NotFoundError(f"来源 {self.label} 不提供专辑详情")
        items: list[dict[str, Any]] = []
        seen: set[str] = set()
        first: Any = None
        base = ""
        for page in range(1, max(1, spec.detail_max_pages) + 1):
            data, url = await self._call(spec.detail_url, album_id=raw_id, page=page)
            if first is None:
                first, base = data, url
            new = []
            for item in self._items(data, spec.episodes_path):
                key = str(
                    field_path(item, spec.episode_id_field)
                    or field_path(item, spec.episode_url_field)
                    or len(items) + len(new)
                )
                if key not in seen:
                    seen.add(key)
                    new.append(item)  # fmt: skip
            items.extend(new)
            stated = _int(field_path(data, spec.detail_total_path)) if spec.detail_total_path else 0
            if not new or "{page}" not in spec.detail_url or (stated and len(items) >= stated):
                break
        else:
            _LOGGER.warning("json source %s: %s has more than %d pages; listing %d episodes",
                            self.label, album_id, spec.detail_max_pages, len(items))  # fmt: skip
        episodes = self._episodes(album_id, base, items)
        if not episodes:
            raise NotFoundError(f"没有这个专辑: {album_id}")
        author = self._authors.get(album_id, "")
        known = self.remembered(album_id) if self.remembered else None
        if not author and known is not None:
            author = known.author
        album = Album(album_id, self._title(album_id, first), author, len(episodes), self.label)
        return AlbumDetail(album, episodes)

    def _episodes(self, album_id: str, base: str, items: list[dict]) -> tuple[Episode, ...]:
        spec = self.spec
        rows = []
        for item in items:
            href = field_path(item, spec.episode_url_field)
            url = remote_url(base, href)
            episode_id = field_path(item, spec.episode_id_field)
            if url is None and spec.play_url and episode_id is not None:
                url = f"{PLAY_URL_SCHEME}{album_id}/{quote(str(episode_id), safe='')}"
            if url is None:
                if href:
                    _LOGGER.warning("json source %s: episode URL %r refused", self.label,
                                    self._masked(str(href))[:100])  # fmt: skip
                continue
            title = " ".join(str(field_path(item, spec.episode_title_field) or "").split())
            number = None
            if spec.episode_number_field:
                number = _int(field_path(item, spec.episode_number_field)) or None
            if number is None and title:
                number = title_number(title)
            duration = 0.0
            if spec.episode_duration_field:
                duration = _seconds(field_path(item, spec.episode_duration_field))
            rows.append((number, title, url, duration))
        sections = fill_numbers([r[0] for r in rows])
        episodes = [
            Episode(album_id, section, title or f"第{section}集", url, duration)
            for section, (_n, title, url, duration) in zip(sections, rows, strict=True)
        ]
        return tuple(sorted(episodes, key=lambda e: e.section))

    async def play_url(self, episode: Episode) -> str:
        """The audio URL of an episode listed without one, from the `play_url` call."""
        if not self.spec.play_url or not episode.location.startswith(PLAY_URL_SCHEME):
            return episode.location
        album_id, _sep, episode_id = episode.location.removeprefix(PLAY_URL_SCHEME).rpartition("/")
        raw_album = album_id.removeprefix(self.prefix)
        from urllib.parse import unquote

        data, url = await self._call(
            self.spec.play_url, album_id=raw_album, episode_id=unquote(episode_id)
        )
        found = remote_url(url, field_path(data, self.spec.play_url_path))
        if found is None:
            _LOGGER.warning("json source %s: no usable play URL at %r", self.label,
                            self.spec.play_url_path)  # fmt: skip
            raise SourceError(say(self.http.language, "source_bad_data", source=self.label))
        return found

    def known_titles(self) -> list[str]:
        """Titles seen in answers so far."""
        return list(self._titles.values())
