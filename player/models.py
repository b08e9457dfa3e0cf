"""Domain types of the player: albums, episodes, search pages, states and the audio sink.

An `Album` is one book (or podcast); an `Episode` is one playable part of it, numbered by
a 1-based `section`. Album ids carry their source as a prefix ("lib:3f2a9c01d2",
"rss:…", "lv:…", "json:…"), so any tool can route an id back to the source that made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from words.catalog import known_as


class PlayerState(StrEnum):
    """Playback state: IDLE (nothing loaded), LOADING, PLAYING, PAUSED."""

    IDLE = "idle"
    LOADING = "loading"
    PLAYING = "playing"
    PAUSED = "paused"


PLAY_URL_SCHEME = "play-url:"
"""Location prefix of an episode whose audio URL its source gives only on request."""


@dataclass(frozen=True)
class Episode:
    """One playable part of an album.

    `section` is 1-based; `duration` is in seconds (0.0 when unknown); `location` is an
    absolute file path for the local library or an http(s) URL for remote sources. A
    chapter of a chapter-marked file (M4B chapter list, MP3 ID3 CHAP frames) is an episode
    of its own: `start` and `end` are where it lies in the file, in seconds (`end` 0.0: the
    file's end); a whole file has both 0.0.
    """

    album_id: str
    section: int
    title: str
    location: str
    duration: float = 0.0
    start: float = 0.0
    end: float = 0.0

    @property
    def is_chapter(self) -> bool:
        """True when this episode is a part of its file (a chapter), not the whole file."""
        return self.start > 0.0 or self.end > 0.0

    @property
    def is_remote(self) -> bool:
        """True when `location` is an http(s) URL (or a play-URL request) to download first."""
        return self.location.startswith(("http://", "https://", PLAY_URL_SCHEME))


@dataclass(frozen=True)
class Album:
    """One book or podcast: id (source-prefixed), title, author, episode count, where it
    comes from, a description, the narrator, and `aliases`: the book's other names (its
    title in the other language, from album.json), which a listener may say instead.
    `skip_intro`/`skip_outro`: seconds skipped at the start and end of every episode (a
    series' opening and closing music, from album.json; a listener may set others)."""

    id: str
    title: str
    author: str = ""
    episode_count: int = 0
    source: str = ""
    description: str = ""
    narrator: str = ""
    aliases: tuple[str, ...] = ()
    skip_intro: float = 0.0
    skip_outro: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.aliases, tuple):  # read back from JSON as a list
            object.__setattr__(self, "aliases", tuple(self.aliases or ()))

    def known_as(self) -> tuple[str, ...]:
        """The names the catalog of well-known works gives this book's title besides its
        aliases (`words.catalog.known_as`: "Harry Potter and the Sorcerer's Stone" for
        哈利波特与魔法石), for a search or play keyword to match; never spoken, and not
        looked for in a whole utterance (a catalog's short names are everyday words there)."""
        return tuple(n for n in known_as(self.title) if n not in self.aliases)


@dataclass(frozen=True)
class AlbumDetail:
    """An album with its episodes, ordered by section (1-based, usually contiguous)."""

    album: Album
    episodes: tuple[Episode, ...] = field(default_factory=tuple)

    def episode(self, section: int) -> Episode | None:
        """The episode with this 1-based section number, or None."""
        for episode in self.episodes:
            if episode.section == section:
                return episode
        return None

    def neighbour(self, episode: Episode, step: int) -> Episode | None:
        """The episode `step` places after (or before, when negative) `episode`, or None."""
        sections = [e.section for e in self.episodes]
        try:
            index = sections.index(episode.section) + step
        except ValueError:
            return None
        if 0 <= index < len(self.episodes):
            return self.episodes[index]
        return None


@dataclass(frozen=True)
class SearchPage:
    """One page of search results: the albums on it and the total number of matches.

    `failed` names the sources that could not answer (speakable: "懒人听书", a feed's title);
    `stale` names those whose last good results were served instead.
    """

    albums: tuple[Album, ...]
    total: int
    page: int = 1
    failed: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()


@runtime_checkable
class AudioSink(Protocol):
    """Where decoded PCM goes: interleaved S16_LE frames at `sample_rate` Hz, `channels`.

    `write` may block (it is called from the decoding worker thread, never the event
    loop); `drop` discards what is queued so pause, stop and seek act within one period;
    `close` releases the device. A sink may also offer `delay() -> int`, the number of
    frames written but not yet heard; when present, pause rewinds by that much so resume
    continues at the exact sample that was last heard.
    """

    sample_rate: int
    channels: int

    def write(self, pcm: bytes) -> None:
        """Write interleaved S16_LE frames; may block until there is room."""

    def drop(self) -> None:
        """Discard the frames queued but not yet played."""

    def close(self) -> None:
        """Release the output device."""
