"""An in-memory audiobook world with the real tool names and signatures of the player.

Used by the agent's unit and real-model tests (the benchmark, ``bench/agent.py``, runs on the
real player instead): it records every call so a request's tool calls can be checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ALBUMS = [
    ("xyj01", "西游记", 100),
    ("sgyy02", "三国演义", 120),
    ("st03", "三体", 30),
    ("hlm04", "红楼梦", 80),
    ("ti05", "Treasure Island", 34),
    ("sh06", "Sherlock Holmes", 12),
    ("aw07", "Alice in Wonderland", 12),
    ("xw08", "小王子", 27),
    ("yy09", "음악", 3),
]


@dataclass
class FakeLibrary:
    """Albums, one playback state and a log of calls [(tool, arguments)].

    Like the real player, a search that finds nothing or an episode out of range raises
    (`LookupError`, a speakable message), so the registry reports ``ok=False``.
    """

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    playing: tuple[str, int] | None = ("西游记", 3)
    paused: bool = False
    volume: int = 60

    def reset(self, *, playing: tuple[str, int] | None = ("西游记", 3)) -> None:
        """Forget the calls; start from `playing` (title, episode) or from silence."""
        self.calls.clear()
        self.playing = playing
        self.paused = False
        self.volume = 60

    def _find(self, keyword: str) -> list[tuple[str, str, int]]:
        key = keyword.strip().lower()
        return [a for a in ALBUMS if key and (key in a[1].lower() or a[1].lower() in key)]

    async def search_album(self, keyword: str, page: int = 1) -> str:
        """Search the catalog for albums whose title matches the keyword."""
        self.calls.append(("search_album", {"keyword": keyword, "page": page}))
        found = self._find(keyword)
        if not found:
            raise LookupError(f"No album matches '{keyword}'.")
        return "Found: " + "; ".join(f"{t} (album_id: {i}, {n} episodes)" for i, t, n in found)

    async def get_album_detail(self, album_id: str, keyword: str = "") -> str:
        """Show an album's episode count and first episode titles."""
        self.calls.append(("get_album_detail", {"album_id": album_id, "keyword": keyword}))
        for i, title, n in ALBUMS:
            if i == album_id:
                return f"album_id: {i}, {title}, {n} episodes: 1. Opening, 2. The journey, ..."
        return f"Error: no album with album_id {album_id}; search first."

    async def search_and_play(self, keyword: str, section: int = 1) -> str:
        """Find an album by keyword and play the given episode (section, from 1)."""
        self.calls.append(("search_and_play", {"keyword": keyword, "section": section}))
        found = self._find(keyword)
        if not found:
            raise LookupError(f"No album matches '{keyword}'.")
        _, title, n = found[0]
        if not 1 <= section <= n:
            raise LookupError(f"{title} has episodes 1 to {n}.")
        self.playing = (title, section)
        self.paused = False
        return f"Now playing {title}, episode {section}."

    async def pause(self) -> str:
        """Pause playback."""
        self.calls.append(("pause", {}))
        self.paused = True
        return "Paused." if self.playing else "Nothing is playing."

    async def resume(self) -> str:
        """Resume paused playback."""
        self.calls.append(("resume", {}))
        self.paused = False
        return f"Resumed {self.playing[0]}." if self.playing else "Nothing to resume."

    async def stop(self) -> str:
        """Stop playback."""
        self.calls.append(("stop", {}))
        self.playing = None
        return "Stopped."

    async def get_status(self) -> str:
        """What is playing now."""
        self.calls.append(("get_status", {}))
        if not self.playing:
            return "Nothing is playing."
        state = "paused" if self.paused else "playing"
        return f"{state}: {self.playing[0]}, episode {self.playing[1]}, volume {self.volume}%."

    async def next_episode(self) -> str:
        """Play the next episode of the current album."""
        self.calls.append(("next_episode", {}))
        if not self.playing:
            return "Nothing is playing."
        self.playing = (self.playing[0], self.playing[1] + 1)
        return f"Now playing {self.playing[0]}, episode {self.playing[1]}."

    async def previous_episode(self) -> str:
        """Play the previous episode of the current album."""
        self.calls.append(("previous_episode", {}))
        if not self.playing:
            return "Nothing is playing."
        self.playing = (self.playing[0], max(1, self.playing[1] - 1))
        return f"Now playing {self.playing[0]}, episode {self.playing[1]}."

    async def seek(self, seconds: float) -> str:
        """Skip forward (positive) or back (negative) within the episode, in seconds."""
        self.calls.append(("seek", {"seconds": seconds}))
        return f"Moved {seconds:+g} s."

    async def set_volume(self, percent: int) -> str:
        """Set the volume, 0 to 100 percent."""
        self.calls.append(("set_volume", {"percent": percent}))
        self.volume = max(0, min(100, percent))
        return f"Volume {self.volume}%."

    async def sleep_timer(self, minutes: int) -> str:
        """Stop playback after the given minutes; 0 cancels the timer."""
        self.calls.append(("sleep_timer", {"minutes": minutes}))
        return f"Stopping in {minutes} minutes." if minutes else "Sleep timer off."

    def titles(self) -> list[str]:
        """The album titles, as `Player.titles()` gives them."""
        return [title for _, title, _ in ALBUMS]

    def tools(self) -> list[Any]:
        """The bound tool methods, as the player offers them."""
        return [
            self.search_album,
            self.get_album_detail,
            self.search_and_play,
            self.pause,
            self.resume,
            self.stop,
            self.get_status,
            self.next_episode,
            self.previous_episode,
            self.seek,
            self.set_volume,
            self.sleep_timer,
        ]


def calls_match(expected: list[list[Any]], calls: list[tuple[str, dict[str, Any]]]) -> bool:
    """True when every expected ``[tool, {arg: value}]`` appears, in order, among `calls`.

    String values match case-insensitively when one contains the other; other values
    must be equal. An empty `expected` means "no tool may be called".
    """
    if not expected:
        return not calls
    position = 0
    for tool, args in expected:
        while position < len(calls):
            name, got = calls[position]
            position += 1
            if name == tool and all(_same(v, got.get(k)) for k, v in (args or {}).items()):
                break
        else:
            return False
    return True


def _same(want: Any, got: Any) -> bool:
    if isinstance(want, str) and isinstance(got, str):
        a, b = want.lower().strip(), got.lower().strip()
        return bool(b) and (a in b or b in a)
    return want == got


PLAYBACK_TOOLS = (
    "search_and_play",
    "pause",
    "resume",
    "stop",
    "next_episode",
    "previous_episode",
    "seek",
    "set_volume",
    "sleep_timer",
)
"""Tools whose successful result is itself the answer (registered with return_direct)."""


def books_registry(library: FakeLibrary, *, return_direct: bool = True):
    """A ToolRegistry of `library`'s tools, playback commands marked return_direct."""
    from agent import ToolRegistry

    registry = ToolRegistry()
    for func in library.tools():
        registry.add(func, return_direct=return_direct and func.__name__ in PLAYBACK_TOOLS)
    return registry
