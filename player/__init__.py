"""The audiobook domain: catalogs, cache, downloads, decoding, playback, bookmarks, tools.

Public API: `Player` (construct with plain arguments, `await start()`, `tools()`),
`AudioSink` (the output Protocol), `PlayerState`, the domain types `Album`, `Episode`,
`AlbumDetail`, and the errors (`PlayerError` and subclasses).
"""

from __future__ import annotations

from .errors import (
    BadInputError,
    DecodeError,
    DownloadError,
    InterruptedDownloadError,
    NotFoundError,
    PlayerError,
    SinkError,
    SourceError,
)
from .models import Album, AlbumDetail, AudioSink, Episode, PlayerState, SearchPage
from .player import Player
from .sources import CatalogSource, JsonSourceSpec

__all__ = [
    "Album",
    "AlbumDetail",
    "AudioSink",
    "BadInputError",
    "CatalogSource",
    "DecodeError",
    "DownloadError",
    "Episode",
    "InterruptedDownloadError",
    "JsonSourceSpec",
    "NotFoundError",
    "Player",
    "PlayerError",
    "PlayerState",
    "SearchPage",
    "SinkError",
    "SourceError",
]
