"""An in-memory audiobook world with the real tool names and signatures of the player.

Used by the agent's unit tests: it records every call so a request's tool calls can be
checked against what counts as success. The real-model tests and the benchmark use the
real `Player` on a generated library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from player.contract import (
    ALBUM,
    CONTEXT,
    NOW,
    AlbumId,
    EpisodeNo,
    Keyword,
    Minutes,
    Page,
    Percent,
    Seconds,
    result_schema,
    returns,
    tool,
)

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


def _now_data(title: str, section: int, paused: bool) -> dict[str, Any]:
    album_id, _, count = next(a for a in ALBUMS if a[1] == title)
    state = "paused" if paused else "playing"
    return {"id": album_id, "title": title, "episodes": count, "episode": section, "state": state}


@dataclass
class FakeLibrary:
    """Albums, one playback state and a log of calls [(tool, arguments)].

    The tools follow the player's contract (`player.contract`): roles on the parameters,
    return-direct playback commands, results as dicts with a ``message`` and data. Like
    the real player, a search that finds nothing or an episode out of range raises
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

    def _now(self, message: str) -> dict[str, Any]:
        result: dict[str, Any] = {"message": message}
        if self.playing:
            result["now"] = _now_data(*self.playing, self.paused)
        return result

    @tool(
        read_only=True,
        zh="搜索、查找、有没有、几集时用；只查找，不播放。",
        en="Use for search, find, do you have, how many episodes; it only looks.",
        output=result_schema(albums={"type": "array", "items": ALBUM}),
    )
    async def search_album(self, keyword: Keyword, page: Page = 1) -> dict[str, Any]:
        """Search the catalog for albums whose title matches the keyword."""
        self.calls.append(("search_album", {"keyword": keyword, "page": page}))
        found = self._find(keyword)
        if not found:
            raise LookupError(f"No album matches '{keyword}'.")
        return {
            "message": "Found: " + "; ".join(f"{t}, {n} episodes" for _, t, n in found),
            "albums": [{"id": i, "title": t, "episodes": n} for i, t, n in found],
        }

    @tool(
        read_only=True,
        zh="问某本书某集叫什么时用；album_id 来自之前的结果。",
        en="Use for episode titles; album_id from an earlier result.",
        output=result_schema(album=ALBUM),
    )
    async def get_album_detail(self, album_id: AlbumId, keyword: Keyword = "") -> dict[str, Any]:
        """Show an album's episode count and first episode titles."""
        self.calls.append(("get_album_detail", {"album_id": album_id, "keyword": keyword}))
        for i, title, n in ALBUMS:
            if i == album_id:
                return {
                    "message": f"{title}, {n} episodes: 1. Opening, 2. The journey",
                    "album": {"id": i, "title": title, "episodes": n},
                }
        raise LookupError("No such album; search first.")

    @tool(
        return_direct=True,
        zh="播放、放、听时用；section 是集数，没说就不填。",
        en="Use for play, put on, listen to; section is the episode, left out if not said.",
        output=result_schema(now=NOW),
    )
    async def play_book(self, keyword: Keyword = "", section: EpisodeNo = None) -> dict[str, Any]:
        """Find an album by keyword and play the given episode (section, from 1)."""
        self.calls.append(("play_book", {"keyword": keyword, "section": section}))
        if not keyword and self.playing:
            keyword = self.playing[0]
        found = self._find(keyword)
        if not found:
            raise LookupError(f"No album matches '{keyword}'.")
        _, title, n = found[0]
        section = section or 1
        if not 1 <= section <= n:
            raise LookupError(f"{title} has episodes 1 to {n}.")
        self.playing = (title, section)
        self.paused = False
        return self._now(f"Now playing {title}, episode {section}.")

    @tool(return_direct=True, zh="暂停时用。", en="Use to pause.")
    async def pause(self) -> dict[str, Any]:
        """Pause playback."""
        self.calls.append(("pause", {}))
        self.paused = True
        return self._now("Paused." if self.playing else "Nothing is playing.")

    @tool(return_direct=True, zh="继续时用。", en="Use to resume.")
    async def resume(self) -> dict[str, Any]:
        """Resume paused playback."""
        self.calls.append(("resume", {}))
        self.paused = False
        return self._now(f"Resumed {self.playing[0]}." if self.playing else "Nothing to resume.")

    @tool(return_direct=True, zh="停止时用。", en="Use to stop.")
    async def stop(self) -> dict[str, Any]:
        """Stop playback."""
        self.calls.append(("stop", {}))
        self.playing = None
        return {"message": "Stopped."}

    @tool(
        read_only=True,
        zh="问在播什么时用。",
        en="Use for what is playing.",
        output=result_schema(now=NOW),
    )
    async def get_status(self) -> dict[str, Any]:
        """What is playing now."""
        self.calls.append(("get_status", {}))
        if not self.playing:
            return {"message": "Nothing is playing."}
        state = "paused" if self.paused else "playing"
        return self._now(
            f"{state}: {self.playing[0]}, episode {self.playing[1]}, volume {self.volume}%."
        )

    @tool(return_direct=True, zh="下一集时用。", en="Use for next episode.")
    async def next_episode(self) -> dict[str, Any]:
        """Play the next episode of the current album."""
        self.calls.append(("next_episode", {}))
        if not self.playing:
            return {"message": "Nothing is playing."}
        self.playing = (self.playing[0], self.playing[1] + 1)
        return self._now(f"Now playing {self.playing[0]}, episode {self.playing[1]}.")

    @tool(return_direct=True, zh="上一集时用。", en="Use for previous episode.")
    async def previous_episode(self) -> dict[str, Any]:
        """Play the previous episode of the current album."""
        self.calls.append(("previous_episode", {}))
        if not self.playing:
            return {"message": "Nothing is playing."}
        self.playing = (self.playing[0], max(1, self.playing[1] - 1))
        return self._now(f"Now playing {self.playing[0]}, episode {self.playing[1]}.")

    @tool(return_direct=True, zh="快进快退时用。", en="Use to skip within an episode.")
    async def seek(self, seconds: Seconds) -> dict[str, Any]:
        """Skip forward (positive) or back (negative) within the episode, in seconds."""
        self.calls.append(("seek", {"seconds": seconds}))
        return {"message": f"Moved {seconds:+g} s."}

    @tool(
        return_direct=True,
        zh="调音量时用。",
        en="Use to set the volume.",
    )
    async def set_volume(self, percent: Percent) -> dict[str, Any]:
        """Set the volume, 0 to 100 percent."""
        self.calls.append(("set_volume", {"percent": percent}))
        self.volume = max(0, min(100, percent))
        return {"message": f"Volume {self.volume}%."}

    @tool(return_direct=True, zh="定时停止时用。", en="Use for a sleep timer.")
    async def sleep_timer(self, minutes: Minutes) -> dict[str, Any]:
        """Stop playback after the given minutes; 0 cancels the timer."""
        self.calls.append(("sleep_timer", {"minutes": minutes}))
        message = f"Stopping in {minutes:g} minutes." if minutes else "Sleep timer off."
        return {"message": message}

    def titles(self) -> list[str]:
        """The album titles, as `Player.titles()` gives them."""
        return [title for _, title, _ in ALBUMS]

    @returns(CONTEXT)
    def context(self, utterance: str = "") -> dict[str, Any]:
        """The listener's context, as `Player.listener_context` gives it."""
        if not self.playing:
            return {"message": "nothing playing"}
        title, section = self.playing
        return {
            "message": f"playing {title}, episode {section}",
            "now": _now_data(title, section, self.paused),
        }

    def tools(self) -> list[Any]:
        """The bound tool methods, as the player offers them."""
        return [
            self.search_album,
            self.get_album_detail,
            self.play_book,
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
    for wanted, args in expected:
        while position < len(calls):
            name, got = calls[position]
            position += 1
            if name == wanted and all(_same(v, got.get(k)) for k, v in (args or {}).items()):
                break
        else:
            return False
    return True


def _same(want: Any, got: Any) -> bool:
    if isinstance(want, str) and isinstance(got, str):
        a, b = want.lower().strip(), got.lower().strip()
        return bool(b) and (a in b or b in a)
    return want == got


def books_registry(library: FakeLibrary, *, return_direct: bool = True, context: bool = False):
    """A ToolRegistry of `library`'s tools (return-direct from their contract, or none
    without `return_direct`); with `context`, the library's listener context too."""
    from agent import ToolRegistry

    if not return_direct:
        return plain_registry(library)
    return ToolRegistry(
        library.tools(),
        catalog=library.titles,
        context=library.context if context else None,
    )


def plain_registry(library: FakeLibrary):
    """A ToolRegistry of `library`'s tools with no return-direct tool (every result goes
    back to the model), for tests of the loop's rounds."""
    import dataclasses

    from agent import ToolRegistry, tool_from_function

    return ToolRegistry(
        [dataclasses.replace(tool_from_function(f), return_direct=False) for f in library.tools()]
    )
