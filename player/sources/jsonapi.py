"""A catalog served as JSON over HTTP, described by URL templates and field paths.

Plugs in a service such as the lanrentingshu-style API (``?type=search&keyword=…&page=…``,
``?type=detail&album_id=…``) with a key and no code. Templates may use ``{keyword}``,
``{page}``, ``{album_id}`` and ``{api_key}`` (values are URL-encoded). Field paths are dotted,
with list indices as numbers: ``"data.list"``, ``"result.0.tracks"``. Ids are
``"<name>:<the service's id>"``.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..errors import NotFoundError, SourceError
from ..http import Http
from ..models import Album, AlbumDetail, Episode, SearchPage

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class JsonSourceSpec:
    """How to call and read one JSON catalog (field names match the config's [[json_sources]])."""

    name: str = "json"
    search_url: str = ""
    detail_url: str = ""
    results_path: str = "data"
    album_id_field: str = "id"
    album_title_field: str = "title"
    album_author_field: str = "author"
    album_count_field: str = "count"
    total_path: str = ""
    episodes_path: str = "data.episodes"
    episode_title_field: str = "title"
    episode_url_field: str = "url"
    episode_number_field: str = ""
    api_key: str = dataclasses.field(default="", repr=False)

    @classmethod
    def from_any(cls, value: object) -> JsonSourceSpec:
        """A spec from a dict or from any object with same-named attributes (a config)."""
        if isinstance(value, cls):
            return value
        names = [f.name for f in dataclasses.fields(cls)]
        if isinstance(value, dict):
            return cls(**{k: v for k, v in value.items() if k in names})
        return cls(**{n: getattr(value, n) for n in names if hasattr(value, n)})


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


class JsonSource:
    """A configurable JSON-over-HTTP catalog; ids "<spec.name>:<id>"."""

    remote = True

    def __init__(self, spec: JsonSourceSpec, http: Http) -> None:
        """`spec`: templates and field paths; raises ValueError when search_url is empty."""
        if not spec.search_url:
            raise ValueError(f"json source {spec.name!r}: search_url is empty")
        self.spec = spec
        self.http = http
        self.prefix = f"{spec.name}:"
        self._titles: dict[str, str] = {}

    def _url(self, template: str, **values: object) -> str:
        safe = {k: quote(str(v), safe="") for k, v in values.items()}
        safe["api_key"] = quote(self.spec.api_key, safe="")
        try:
            return template.format(**safe)
        except (KeyError, IndexError, ValueError) as err:
            raise SourceError(f"来源 {self.spec.name} 的地址模板有误") from err

    def _album(self, item: dict[str, Any]) -> Album | None:
        spec = self.spec
        raw_id = field_path(item, spec.album_id_field)
        title = field_path(item, spec.album_title_field)
        if raw_id is None or title is None:
            return None
        album_id = f"{self.prefix}{raw_id}"
        self._titles[album_id] = str(title)
        count = field_path(item, spec.album_count_field)
        try:
            count = int(count or 0)
        except (TypeError, ValueError):
            count = 0
        author = field_path(item, spec.album_author_field) or ""
        return Album(album_id, str(title), str(author), count, spec.name)

    async def search(self, keyword: str, *, page: int = 1, page_size: int = 10) -> SearchPage:
        """Albums the service finds for `keyword`; as many of its pages as `page_size` needs."""
        albums: list[Album] = []
        total = 0
        service_page = 1
        while len(albums) < page * page_size and service_page <= 3:
            data = await self.http.get_json(
                self._url(self.spec.search_url, keyword=keyword, page=service_page)
            )
            items = field_path(data, self.spec.results_path)
            if items is None:
                items = []
            if not isinstance(items, list):
                raise SourceError(f"来源 {self.spec.name} 返回的数据格式不对")
            found = [a for a in (self._album(i) for i in items if isinstance(i, dict)) if a]
            total_value = field_path(data, self.spec.total_path) if self.spec.total_path else None
            total = int(total_value) if str(total_value).isdigit() else total + len(found)
            albums.extend(found)
            if not found or "{page}" not in self.spec.search_url:
                break
            service_page += 1
        start = (max(page, 1) - 1) * page_size
        return SearchPage(tuple(albums[start : start + page_size]), total, page)

    async def album(self, album_id: str) -> AlbumDetail:
        """The album's episodes from the detail URL; raises NotFoundError when it has none."""
        raw_id = album_id.removeprefix(self.prefix)
        if not self.spec.detail_url:
            raise NotFoundError(f"来源 {self.spec.name} 不提供专辑详情")
        data = await self.http.get_json(self._url(self.spec.detail_url, album_id=raw_id, page=1))
        items = field_path(data, self.spec.episodes_path)
        if not isinstance(items, list) or not items:
            raise NotFoundError(f"没有这个专辑: {album_id}")
        episodes = []
        for position, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                continue
            url = field_path(item, self.spec.episode_url_field)
            if not url:
                continue
            title = str(field_path(item, self.spec.episode_title_field) or f"第{position}集")
            number = None
            if self.spec.episode_number_field:
                number = field_path(item, self.spec.episode_number_field)
            section = int(number) if str(number).isdigit() and int(number) > 0 else position
            episodes.append(Episode(album_id, section, title, str(url)))
        if len({e.section for e in episodes}) != len(episodes):
            episodes = [dataclasses.replace(e, section=i) for i, e in enumerate(episodes, 1)]
        episodes.sort(key=lambda e: e.section)
        title = self._titles.get(album_id) or raw_id
        album = Album(album_id, title, "", len(episodes), self.spec.name)
        return AlbumDetail(album, tuple(episodes))

    def known_titles(self) -> list[str]:
        """Titles seen in answers so far."""
        return list(self._titles.values())
