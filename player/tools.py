"""The tools the agent calls: typed async methods with docstrings, mixed into `Player`.

Names and parameters follow the product's design note (search_album, get_album_detail,
pause, resume, stop, get_status) plus next_episode, previous_episode, seek, set_volume,
volume_up, volume_down, sleep_timer, set_speed, set_skip, list_albums and help; the note's
search_and_play is
called play_book, because a small model took it for search_album (on bench/agent.py's
typed and ASR-shaped requests, 0.5B: 82% with the note's name, 88% with this one). Each carries its
contract (`player.contract`): parameter roles and bounds, return-direct, zh/en hints.
Each returns a dict: a short speakable ``message`` in the configured language plus data
(albums with id, title and episode count; the episode now loaded; positions in seconds).
Each failure raises a `PlayerError` subclass whose message is speakable.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import re
import time
from typing import Any

from words.numbers import chinese_number, english_number
from words.text import CJK, fold, normalize
from words.titles import EXACT, SUBSTRING, is_stop_word, sounds_alike, sounds_inside

from .contract import (
    ALBUM,
    ATTR_EXAMPLES,
    BOOKMARK,
    CONTEXT,
    MAX_RATE,
    MAX_SKIP_SECONDS,
    MIN_RATE,
    NOW,
    OFFER,
    SPEED_STEP,
    AlbumId,
    EpisodeNo,
    EpisodeTitle,
    Keyword,
    Page,
    Percent,
    Rate,
    Seconds,
    SkipSeconds,
    SleepMinutes,
    SpeedStep,
    StatusTopic,
    result_schema,
    returns,
    tool,
)
from .errors import (
    BadInputError,
    DecodeError,
    DownloadError,
    NotFoundError,
    PlayerError,
    SinkError,
    SourceError,
)
from .examples import EXAMPLES
from .models import Album, AlbumDetail, PlayerState
from .sources.base import album_score, rank
from .texts import (
    MESSAGES,
    album_name,
    clock,
    episode_title,
    join_choices,
    join_titles,
    say,
    title_part,
)

_LOGGER = logging.getLogger(__name__)

MAX_LISTED_EPISODES = 10
VOLUME_STEP = 10
"""Percentage points one "louder"/"quieter" moves the book volume."""
LISTED_TITLES = 5
"""Titles a spoken library overview names before "…"."""
NOTE_NAMES = {"search_and_play": "play_book"}
"""The design note's tool names that these tools go by otherwise: {note's name: ours}.

Offered as aliases at the MCP boundary only, so a client written for the note's tool set
works; the agent sees one name per tool.
"""

_ALBUMS = {"type": "array", "items": ALBUM}
_ID = re.compile(r"\b[a-z]{2,8}:[0-9a-z_-]{4,}", re.IGNORECASE)
"""An album id ("lib:c5340936b5"): never part of a spoken sentence."""
_ERROR_KEYS = (
    (NotFoundError, "no_album"),
    (DecodeError, "err_decode"),
    (SinkError, "status_speaker"),
    (DownloadError, "err_download"),
    (SourceError, "err_source"),
    (BadInputError, "err_other"),
)

_PLAYING = result_schema(now=NOW)


def album_data(album: Album, count: int | None = None) -> dict[str, Any]:
    """``{"id", "title", "episodes"}`` of an album (the `ALBUM` shape)."""
    return {"id": album.id, "title": album.title, "episodes": count or album.episode_count}


class PlayerTools:
    """Tool methods of `Player` (see `Player.tools()`)."""

    def tools(self) -> list:
        """The tool functions, bound and made to speak their errors in the configured
        language (`speakable`): pass each to the agent's tool registry."""
        return [self.speakable(f) for f in self._tool_methods()]

    def _tool_methods(self) -> list:
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
            self.volume_up,
            self.volume_down,
            self.sleep_timer,
            self.set_speed,
            self.set_skip,
            self.list_albums,
            self.help,
        ]

    def speakable(self, method: Any) -> Any:
        """`method` with its `PlayerError` made speakable for the listener: a message in
        the other language (a source's or the decoder's) or holding an album id becomes
        the sentence of its kind in the configured language. Signature, docstring and
        contract attributes are kept (`functools.wraps`)."""

        @functools.wraps(method)
        async def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return await method(*args, **kwargs)
            except PlayerError as err:
                text = self.speakable_error(err)
                if text == str(err):
                    raise
                raise type(err)(text) from err

        return call

    def speakable_error(self, err: PlayerError) -> str:
        """The sentence the listener hears for `err`: its own message when it is in the
        configured language and names no album id, else the sentence of its kind."""
        text = str(err)
        foreign = (
            bool(re.search(r"[\u4e00-\u9fff]", text))
            if self.language == "en"
            else (not re.search(r"[\u4e00-\u9fff]", text))
        )
        if foreign and self.language == "en":
            foreign = not any(t in text for t in self.titles())  # a Chinese title is fine
        if not foreign and not _ID.search(text):
            return text
        for kind, key in _ERROR_KEYS:
            if isinstance(err, kind):
                return say(self.language, key)
        return say(self.language, "err_other")

    @staticmethod
    def fold(text: str) -> str:
        """The folding the title matcher uses (NFKC, case, traditional to simplified)."""
        return fold(text)

    # -- data shared by the tools and the listener's context ---------------------------

    def now_data(self) -> dict[str, Any] | None:
        """The album and episode loaded now (the `NOW` shape), or None when idle."""
        now = self.now
        if now is not None:
            state = "paused" if self.state == PlayerState.PAUSED else "playing"
            detail = now.detail
            episode, position = now.at(now.playback.position)
            duration = now.length(episode)
        elif self.pending is not None:
            state = "loading"
            detail, episode = self.pending.detail, self.pending.episode
            position, duration = self.pending.position, episode.duration
        else:
            return None
        data = album_data(detail.album, len(detail.episodes))
        data.update(state=state, episode=episode.section, position=round(position, 1))
        if duration:
            data["duration"] = round(duration, 1)
        speed, intro, outro = self.book_settings(detail.album)
        data.update(speed=speed, intro=intro, outro=outro)
        if title := episode_title(episode, detail.album.title):
            data["episode_title"] = title
        return data

    def is_album_id(self, keyword: str) -> bool:
        """True when `keyword` is an album id of one of the catalog's sources ("lib:…")."""
        return any(keyword.startswith(s.prefix) for s in self.catalog.sources)

    def _played(self, message: str) -> dict[str, Any]:
        """The result of a play: its message (with a word that the end-of-episode timer of
        the book before was dropped, when it was) and the player's `now`."""
        if getattr(self, "timer_dropped", False):
            self.timer_dropped = False
            message = say(self.language, "sleep_dropped", message=message.rstrip("。."))
        result: dict[str, Any] = {"message": message}
        if (now := self.now_data()) is not None:
            result["now"] = now
        return result

    def bookmark_data(self, album: Album, count: int = 0) -> dict[str, Any] | None:
        """Where `album` was left off (the `BOOKMARK` shape), or None."""
        mark = self.store.bookmark(album.id)
        if mark is None:
            return None
        data = album_data(album, count)
        data.update(episode=mark.section, position=round(mark.position, 1))
        return data

    def _item(self, album: Album, *, said: str = "") -> str:
        """How `album` is named in a list: title, author, narrator and count, leaving out
        the person `said` already (a search by their name)."""
        said = normalize(said)
        author = album.author if normalize(album.author) != said else ""
        narrator = album.narrator if normalize(album.narrator) != said else ""
        by = say(self.language, "by", author=author) if author else ""
        if narrator:
            by += say(self.language, "read_by", narrator=narrator)
        title = album_name(self.language, album)
        return say(self.language, "item", title=title, count=album.episode_count, author=by)

    async def left_off(self) -> tuple[AlbumDetail, Any] | None:
        """The most recent bookmark whose album is still here, with that album's detail
        (``(detail, Bookmark)``), or None. A bookmark of a book gone from the library is
        passed over (logged), never played nor spoken as an id."""
        for mark in self.store.recent_bookmarks(5):
            try:
                detail = await self.album_detail(mark.album_id)
            except PlayerError as err:
                _LOGGER.info(
                    "bookmark of %s passed over: %s", mark.album_title or mark.album_id, err
                )
                continue
            if detail.episodes:
                return detail, mark
        return None

    def check_keyword(self, keyword: str) -> str:
        """`keyword` cleaned; BadInputError when it is empty, one letter or a stop word."""
        keyword = self.clean_keyword(keyword)
        if not keyword or self.stop_word(keyword):
            raise BadInputError(say(self.language, "empty_keyword"))
        return keyword

    def stop_word(self, keyword: str) -> bool:
        """True for a keyword never searched ("I", "the", "书") unless it is a title here."""
        if not is_stop_word(keyword):
            return False
        key = normalize(keyword)
        return not any(normalize(title) == key for title in self.titles())

    # -- the tools ----------------------------------------------------------------------

    @tool(
        read_only=True,
        zh="用户说“搜一下”“找找”“有没有”“有多少集”时用；只查找，不播放。",
        en="Use for search, find, look for, do you have, how many episodes; it only looks.",
        output=result_schema(
            albums=_ALBUMS,
            total={"type": "integer"},
            page={"type": "integer", "x-role": "page"},
            pages={"type": "integer", "x-role": "page-count"},
        ),
    )
    async def search_album(self, keyword: Keyword, page: Page = 1) -> dict[str, Any]:
        """Search audiobook albums by title, author or narrator; returns albums with ids
        and counts. Several albums and none of the very title said: the answer asks which.

        Args:
            keyword: book title, author or narrator, Chinese or English (small typos and
                traditional characters are tolerated; words around a person's name of the
                library, "金庸的武侠", search by the name).
            page: 1-based result page, 5 albums per page.
        """
        keyword = self.check_keyword(keyword)
        page = max(1, int(page))
        found = await self.catalog.search(keyword, page=page, page_size=self.page_size)
        note = self.catalog.note(found)
        person = ""
        if not found.total:
            # "金庸的武侠", "stuff by jane austen": nothing by these words, but a person of
            # the library is named in them; the search is by that name.
            names = await asyncio.to_thread(lambda: self.title_index().people_in(keyword))
            for name in names:
                by_name = await self.catalog.search(name, page=page, page_size=self.page_size)
                if by_name.total:
                    person, found, note = name, by_name, self.catalog.note(by_name)
                    break
        pages = max(1, math.ceil(found.total / self.page_size)) if found.total else 0
        if not found.albums:
            if page > 1 and found.total:
                raise NotFoundError(say(self.language, "no_page", keyword=keyword, page=page))
            if note:  # a source that could not answer is not a "not found"
                raise NotFoundError(
                    say(self.language, "none_found_partial", keyword=keyword, note=note)
                )
            raise NotFoundError((await self._not_found(keyword))[0])
        key = normalize(keyword)
        # the album of that very name (its title or an alias: "Journey to the West" for 西游记)
        exact = [a for a in found.albums if key in map(normalize, (a.title, *a.aliases))][:1]
        shown = exact + [a for a in found.albums if a not in exact]  # the title named first
        albums = [album_data(a) for a in shown]
        items = join_titles(self.language, [self._item(a, said=person) for a in shown])
        if exact and page == 1:
            # "家有几集": the album of that very title and its count first, not "4 albums".
            message = say(self.language, "found_exact" if found.total > 1 else "found_one",
                          item=self._item(exact[0]), others=found.total - 1)  # fmt: skip
        elif page > 1:
            message = say(self.language, "found_page", page=page, total=found.total, items=items)
        elif person:  # "金庸的专辑有3个：…", the name said once
            message = say(self.language, "found_person" if found.total > 1 else "found_person_one",
                          name=person, total=found.total, items=items)  # fmt: skip
        else:
            key = "found" if found.total != 1 else "found_single"
            message = say(self.language, key, total=found.total, items=items)
        if note:
            message = say(self.language, "found_partial", found=message, note=note)
        if found.total > 1 and not exact:  # several, none of the title said: which one?
            message = say(self.language, "found_which", found=message)
        return {"message": message, "albums": albums, "total": found.total, "page": page,
                "pages": pages}  # fmt: skip

    @tool(
        read_only=True,
        zh="用户问某本书某集叫什么、上次听到哪时用；album_id 必须来自之前的结果。",
        en="Use to learn an album's episode titles or where it was left off; album_id must "
        "come from an earlier result.",
        output=result_schema(
            album=ALBUM,
            listed={
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "episode": {"type": "integer", "x-role": "episode"},
                        "title": {"type": "string"},
                    },
                },
            },
            bookmark=BOOKMARK,
        ),
    )
    async def get_album_detail(self, album_id: AlbumId, keyword: Keyword = "") -> dict[str, Any]:
        """An album's episode count, its first episodes' titles and where it was left off.

        Args:
            album_id: an id from search_album, such as "lib:3f2a9c01d2".
            keyword: optional words to pick episodes by title; when album_id is unknown,
                the album is searched by this keyword instead.
        """
        album_id = self.clean_keyword(album_id)
        keyword = self.clean_keyword(keyword)
        try:
            detail = await self.album_detail(album_id)
        except NotFoundError:
            if not keyword or self.stop_word(keyword):
                raise NotFoundError(say(self.language, "no_album")) from None
            detail = await self.resolve(keyword)
            keyword = ""
        episodes = list(detail.episodes)
        if keyword:
            key = normalize(keyword)
            chosen = [e for e in episodes if key and key in normalize(e.title)]
            episodes = chosen or episodes
        album_title = detail.album.title
        listed = [
            {"episode": e.section, "title": episode_title(e, album_title) or e.title}
            for e in episodes[:MAX_LISTED_EPISODES]
        ]
        count = len(detail.episodes)
        names = [
            say(self.language, "episode", section=e.section,
                title=title_part(self.language, e, album_title))
            for e in episodes[:3]
        ]  # fmt: skip
        items = join_titles(self.language, names, more=len(episodes) > 3)
        message = say(self.language, "detail", title=album_name(self.language, detail.album),
                      count=count, items=items)  # fmt: skip
        result: dict[str, Any] = {
            "message": message,
            "album": album_data(detail.album, count),
            "listed": listed,
        }
        mark = self.bookmark_data(detail.album, count)
        if mark is not None:
            result["bookmark"] = mark
            result["message"] += say(self.language, "left_at", section=mark["episode"],
                                     time=clock(self.language, mark["position"]))  # fmt: skip
        return result

    @tool(
        return_direct=True,
        zh="用户要播放或接着听某本书时用。keyword 是书名；section 是用户说的集数，"
        "没说集数就不填（从上次听到的地方继续），最后一集填 -1；用户说了某一集的标题就填 "
        "episode_title；不填 keyword 就是现在这本书。",
        en="Use to play a book or continue one. keyword is the title; section is the "
        "episode the listener said (-1 for the last); episode_title for words of an "
        "episode's title; leave section out to continue where the book was left; "
        "leave keyword out for the book loaded now.",
        output=result_schema(now=NOW, albums=_ALBUMS, total={"type": "integer"}, offer=OFFER),
    )
    async def play_book(
        self, keyword: Keyword = "", section: EpisodeNo = None, episode_title: EpisodeTitle = ""
    ) -> dict[str, Any]:
        """Find an audiobook and play it; without a section it continues where it was left.

        Cached or local episodes start at once; others download in the background and play
        when ready. A keyword that names no album here but the title of one episode of the
        book loaded now (else the one listened to last, else the one episode of the local
        library so titled: "大闹天宫") plays that episode; a title said loosely with its
        author after "by" ("the habit by tolkien") plays that author's book.

        Args:
            keyword: book title, or an album id from search_album; omitted = the book
                loaded now, else the last one listened to.
            section: episode number, 1-based; negative counts from the end (-1 the last
                episode, -2 the one before it); omitted = continue from the bookmark
                where this book was left, or from episode 1.
            episode_title: words of an episode's title ("未初", "Sol 9"): play the episode
                of this book whose title they are, or are in (with no keyword, of the
                book loaded now, else of the one episode of the local library so titled);
                a title with no such episode is an error and nothing starts, unless a
                section is given too ("part 2": the episode titled "… Part 2", else
                episode 2).
        """
        keyword = self.clean_keyword(keyword)
        episode_words = self.clean_keyword(episode_title)
        if section is not None and int(section) == 0:
            raise BadInputError(say(self.language, "bad_section"))
        if keyword and self.stop_word(keyword):
            raise BadInputError(say(self.language, "empty_keyword"))
        if keyword and not await self.names_album(keyword):
            # "播放未初": no book of that title, but an episode of the book heard now
            found = await self._episode_named(keyword)
            if found is None:
                found = await self._episode_anywhere(keyword)
            if found is not None:
                return self._played(await self.play(*found))
            by = await self._titled_by(keyword)
            if by is not None:  # "play the habit by tolkien": that author's book
                keyword = by
        several: list[Album] = []
        if keyword:
            keyword, several = await self._several(keyword)
        if several:
            # "harry potter" with two of its books here and neither listened to: which one,
            # never the first that comes
            return self._offer("which_of", several, 3, choice=True)
        if not keyword:
            holder = self.now or self.pending
            if episode_words and section is None:
                # "孙悟空大闹天宫那集": of the book heard now or left off, else of the library
                found = await self._episode_named(episode_words)
                if found is None:
                    found = await self._episode_anywhere(episode_words)
                if found is not None:
                    return self._played(await self.play(*found))
            if holder is not None:
                keyword = holder.detail.album.id
            elif (left := await self.left_off()) is not None:
                keyword = left[0].album.id
            else:
                return await self._which_book()
        try:
            detail = await self.resolve(keyword)
        except NotFoundError:
            if self.is_album_id(keyword):
                # An album id that is gone: the model may search again by title.
                raise NotFoundError(say(self.language, "no_album")) from None
            # Nothing of that title ("给我讲个笑话" played "笑话"): nothing starts, and the
            # listener hears what can be played instead; a second search cannot help. A
            # near title is asked about ("Did you mean Treasure Island?"): a yes plays it.
            message, near = await self._not_found(keyword)
            result: dict[str, Any] = {"message": message, "albums": [], "total": 0}
            if near:
                result["offer"] = {"keyword": near, "section": section}
            return result
        if not detail.episodes:
            raise NotFoundError(
                say(self.language, "no_episodes", album=album_name(self.language, detail.album))
            )
        if episode_words:
            chosen = episodes_titled(detail.episodes, episode_words)
            if not chosen and section is None:
                # "三体死神永生那一集": of a series, the book holding that episode, or which?
                found = await self._in_series(detail, episode_words)
                if isinstance(found, dict):
                    return found
                if found is not None:
                    detail, chosen = found[0], [found[1]]
            if not chosen and section is not None:
                chosen = [self.find_episode(detail, int(section))]
            if not chosen:
                raise NotFoundError(say(self.language, "no_episode_title",
                                        album=album_name(self.language, detail.album),
                                        words=episode_words))  # fmt: skip
            message = await self.play(detail, chosen[0])
        elif section is not None:
            message = await self.play(detail, self.find_episode(detail, int(section)))
        elif (resume := self.bookmark_for(detail)) is not None:
            message = await self.play(detail, *resume)
        else:
            message = await self.play(detail, detail.episodes[0])
        return self._played(message)

    async def _in_series(
        self, detail: AlbumDetail, words: str
    ) -> tuple[AlbumDetail, Any] | dict[str, Any] | None:
        """For an episode title `words` the book `detail` lacks: the one other book of its
        series here ("三体2" beside "三体": titles that begin with its title) and that
        book's one episode so titled; else, when the series has other books here, the
        question which of them is meant (`_offer`, a choice); None when it has none."""
        own = normalize(detail.album.title)
        if len(own) < 2:
            return None
        albums = await asyncio.to_thread(self.library_albums)
        others = [
            a
            for a in albums
            if a.id != detail.album.id
            and (key := normalize(a.title)) != own
            and key.startswith(own)
        ]
        if not others:
            return None
        held = []
        for album in others:
            other = await self.resolve(album.id)
            chosen = episodes_titled(other.episodes, words)
            if len(chosen) == 1:
                held.append((other, chosen[0]))
        if len(held) == 1:
            return held[0]
        return self._offer("which_of", [detail.album, *others], 3, choice=True)

    async def _several(self, keyword: str) -> tuple[str, list[Album]]:
        """When `keyword` names several of the library's albums equally well ("harry
        potter": two of its books, each title holding the words; "andy weir": two books of
        that author): the id of the one loaded now or listened to most recently among
        them, which is the one meant, with no others; else `keyword` and all of them, for
        the listener to choose. `keyword` and [] when it names one album, or none."""
        if self.is_album_id(keyword):
            return keyword, []
        scores = await asyncio.to_thread(
            lambda: [(album_score(keyword, a), a) for a in self.library_albums()]
        )  # every title scored: off the event loop, as the library is read
        top = max((score for score, _ in scores), default=0)
        if top >= EXACT:
            return keyword, []
        if top >= SUBSTRING:
            tied = {a.id: a for score, a in scores if score == top}
        else:  # a person's name: the books they wrote or read, when no title holds it
            key = normalize(keyword)
            tied = {
                a.id: a
                for _, a in scores
                if len(key) >= 2 and key in normalize(f"{a.author or ''} {a.narrator or ''}")
            }
        if len(tied) < 2:
            return keyword, []
        holder = self.now or self.pending
        if holder is not None and holder.detail.album.id in tied:
            return holder.detail.album.id, []
        for mark in self.store.recent_bookmarks(20):
            if mark.album_id in tied:
                return mark.album_id, []
        # "Harry Potter and the Sorcerer's Stone" with its English and Chinese editions
        # here: the one whose title is written as the listener said it
        script = bool(re.search(f"[{CJK}]", keyword))
        written = [a for a in tied.values() if bool(re.search(f"[{CJK}]", a.title)) == script]
        if len(written) == 1 and top >= SUBSTRING:
            return written[0].id, []
        return keyword, list(tied.values())

    async def _titled_by(self, keyword: str) -> str | None:
        """The id of the album `keyword` names as a title said loosely (near in spelling,
        or its words sounding alike) and the name of its author or narrator after "by"
        ("the habit by tolkien"); None when there is no such name, or not exactly one of
        that person's books is near the title said."""
        said = _TITLE_BY.fullmatch(keyword.strip())
        if said is None:
            return None
        who = normalize(said["who"])
        albums = await asyncio.to_thread(self.library_albums)
        theirs = [
            a for a in albums
            if len(who) >= 3 and who in normalize(f"{a.author or ''} {a.narrator or ''}")
        ]  # fmt: skip
        near = [
            a for a in theirs
            if album_score(said["title"], a) > 0 or _sounds_like(said["title"], a.title)
        ]  # fmt: skip
        return near[0].id if len(near) == 1 else None

    async def _episode_named(self, words: str) -> tuple[AlbumDetail, Any] | None:
        """The book loaded now (else the one left off last) and its one episode whose title
        `words` are (`episodes_titled`), or None: none, or more than one."""
        holder = self.now or self.pending
        detail = holder.detail if holder is not None else await self._left_off_here()
        if detail is None:
            return None
        chosen = episodes_titled(detail.episodes, words)
        return (detail, chosen[0]) if len(chosen) == 1 else None

    async def _episode_anywhere(self, words: str) -> tuple[AlbumDetail, Any] | None:
        """The one episode of the local library whose title `words` are, or hold as whole
        tokens ("大闹天宫", with no book named or loaded that has it), or whose title's own
        words (its number left out) they hold ("孙悟空大闹天宫" for "第五回 大闹天宫"); None:
        none, more than one, or words too short to name one title among all (fewer than
        three characters of Chinese, or one word). The titles' tokens are read once per
        library scan (`_episode_index`)."""
        want = title_tokens(words)
        squashed = "".join(want)
        if (
            squashed.isdigit()
            or len(squashed) < 3
            or (squashed.isascii() and len(words.split()) < 2)
        ):
            return None
        index = await asyncio.to_thread(self._episode_index)
        found = [
            (detail, episode)
            for detail, episode, tokens, joined, _own in index
            if squashed in joined and _holds(tokens, want)
        ]
        if not found and _CJK_CHAR.fullmatch(squashed[0]):
            found = [
                (detail, episode)
                for detail, episode, _tokens, _joined, own in index
                if len(own) >= 3 and not own.isdigit() and own in squashed
            ]
        return found[0] if len(found) == 1 else None

    def _episode_index(self) -> list[tuple[AlbumDetail, Any, list[str], str, str]]:
        """Every local episode with its title's tokens, their join and the join without the
        episode's number (``(detail, episode, tokens, joined, own)``); built again only
        when the library's scan changed (blocking: call it off the event loop)."""
        details = self.library.details()
        key = tuple(id(d) for d in details)
        if self._titles_seen is None or self._titles_seen[0] != key:
            rows = []
            for detail in details:
                for episode in detail.episodes:
                    tokens = title_tokens(episode.title)
                    joined = "".join(tokens)
                    rows.append((detail, episode, tokens, joined, _EPISODE_NUMBER.sub("", joined)))
            self._titles_seen = (key, rows)
        return self._titles_seen[1]

    async def _left_off_here(self) -> AlbumDetail | None:
        """The album of the most recent bookmark as known without a network request (a
        remote one's remembered copy), or None; unlike `left_off`, a keyword that may be a
        title never waits for a remote source here."""
        for mark in self.store.recent_bookmarks(5):
            try:
                remote = self.catalog.source_for(mark.album_id).remote
                detail = (self.store.album_load(mark.album_id) if remote
                          else await self.album_detail(mark.album_id))  # fmt: skip
            except PlayerError:
                continue
            if detail is not None and detail.episodes:
                return detail
        return None

    async def _not_found(self, keyword: str) -> tuple[str, str]:
        """The answer to a search that found nothing, and the library title it asks about
        ("" for none): a near title as a question back, never a guess ("你是说三侠五义吗？"),
        else two books that can be played instead (the one listened to last first), so
        the listener is never left with a bare "not found" ("没有找到“笑话”相关的有声书。
        我只能播放书库里的书，比如…")."""
        near = rank(keyword, await asyncio.to_thread(self.library_albums))[:1]
        if near:
            said = say(self.language, "none_found_near", keyword=keyword,
                       title=album_name(self.language, near[0]))  # fmt: skip
            return said, near[0].title
        suggested = await self._suggested(2)
        if not suggested:
            return say(self.language, "none_found", keyword=keyword), ""
        items = join_titles(self.language, [name for _title, name in suggested])
        return say(self.language, "none_found_offer", keyword=keyword, items=items), ""

    async def _which_book(self) -> dict[str, Any]:
        """No title, nothing loaded, no bookmark ("play something"): nothing starts, and the
        answer offers the library's first titles (``{"message", "albums", "total"}``)."""
        albums = await asyncio.to_thread(self.library_albums)
        if not albums:
            raise BadInputError(say(self.language, "library_empty"))
        return self._offer("which_book", albums, 3)

    @tool(
        return_direct=True,
        zh="用户说暂停、停一下、等一下时用。",
        needs_loaded=True,
        en="Use when the listener says pause, hold on, wait.",
        output=_PLAYING,
    )
    async def pause(self) -> dict[str, Any]:
        """Pause the audiobook; resume continues at the same point."""
        now = self.now
        if self.pending is not None and now is None:
            self.pending = None
            self._set_state(PlayerState.IDLE)
            return {"message": say(self.language, "stopped")}
        if now is None:
            return {"message": say(self.language, "nothing")}
        now.playback.pause()
        self._set_state(PlayerState.PAUSED)
        self.save_bookmark()
        name = album_name(self.language, now.detail.album)
        key = "paused_chapter" if now.episode.is_chapter else "paused"  # a chapter said as one
        return self._played(say(self.language, key, album=name, section=now.episode.section))

    @tool(
        return_direct=True,
        zh="用户说继续、接着放、恢复播放时用（不提书名）。",
        en="Use when the listener says continue, resume, keep playing (no title named).",
        output=_PLAYING,
    )
    async def resume(self) -> dict[str, Any]:
        """Continue the paused audiobook (or the last book listened to, when idle)."""
        now = self.now
        if now is None:
            if self.pending is not None:
                return self._played(
                    say(self.language, "status_loading",
                        album=album_name(self.language, self.pending.detail.album),
                        section=self.pending.episode.section)
                )  # fmt: skip
            if await self.left_off() is None:
                return await self._which_book()  # nothing to continue: which book?
            return await self.play_book("")
        if self.state != PlayerState.PAUSED:
            return self._played(say(self.language, "not_paused"))
        now.playback.resume()
        self._set_state(PlayerState.PLAYING)
        name = album_name(self.language, now.detail.album)
        key = "resumed_chapter" if now.episode.is_chapter else "resumed"  # a chapter said as one
        return self._played(say(self.language, key, album=name, section=now.episode.section))

    @tool(
        return_direct=True,
        zh="用户说停止、别放了、不听了、关掉（现在就停）时用。",
        needs_loaded=True,
        en="Use when the listener says stop, stop playing, switch off, that's enough (now).",
    )
    async def stop(self) -> dict[str, Any]:
        """Stop playing; the bookmark is kept so the book can be continued later. A sleep
        timer is cancelled with it: it would otherwise pause the next book played."""
        self.stop_all()
        self._cancel_sleep()
        return {"message": say(self.language, "stopped")}

    @tool(
        read_only=True,
        zh="用户问现在在播什么、播到哪了、还剩几集、还剩多久、谁写的、谁读的、音量多少、"
        "片头片尾跳过几秒时用；about 是问的事，不填就是全部。",
        en="Use when the listener asks what is playing, where we are, how many episodes are "
        "left, how long, who wrote or reads it, the volume, or how much of each episode is "
        "skipped; about is what they ask.",
        output=result_schema(
            now=NOW,
            left_off=BOOKMARK,  # nothing loaded: where the last book was left
            volume={"type": "integer", "x-role": "percent"},
            sleep_minutes={"type": "integer", "x-role": "minutes"},
            sleep_end_of_episode={"type": "boolean", "x-role": "sleep-at-end"},
            intro={"type": "number", "x-role": "seconds"},
            outro={"type": "number", "x-role": "seconds"},
        ),
    )
    async def get_status(self, about: StatusTopic = "now") -> dict[str, Any]:
        """What is playing or paused, the position, volume, downloads, sleep timer and the
        book's skips; or, with `about`, one fact of it, the number stated.

        Args:
            about: "now" (everything), "episodes" (how many), "left" (episodes still to
                come), "time_left" (of this episode), "length" (of this episode), "author",
                "narrator", "description" (what the book is about), "volume", "sleep"
                (the sleep timer) or "skip" (the seconds skipped at the start and end of
                every episode of the book, ``intro`` and ``outro`` in the result).
        """
        if about != "now" and (answer := await self._about(about)) is not None:
            return answer
        lang = self.language
        parts = []
        result: dict[str, Any] = {}
        now = self.now
        if now is not None:
            key = "status_paused" if self.state == PlayerState.PAUSED else "status_playing"
            episode, position = now.at(now.playback.position)
            album = now.detail.album
            parts.append(
                say(lang, key, album=album_name(lang, album), section=episode.section,
                    count=len(now.detail.episodes), title=title_part(lang, episode, album.title),
                    pos=clock(lang, position), dur=clock(lang, now.length(episode)))
            )  # fmt: skip
        elif self.pending is not None:
            parts.append(say(lang, "status_loading",
                             album=album_name(lang, self.pending.detail.album),
                             section=self.pending.episode.section))  # fmt: skip
        elif (left := await self.left_off()) is not None:
            # "播到哪了" after a timer stopped the book: where it was left, not only "idle"
            detail, mark = left
            album = detail.album
            key = "status_left_off" if mark.position >= 1 else "status_left_off_start"
            parts.append(say(lang, key, album=album_name(lang, album),
                             section=mark.section, pos=clock(lang, mark.position)))  # fmt: skip
            result["left_off"] = self.bookmark_data(album, len(detail.episodes))
        else:
            parts.append(say(lang, "status_idle"))
        if (data := self.now_data()) is not None:
            result["now"] = data
        volume = round(self.volume_now() * 100)
        result["volume"] = volume
        parts.append(say(lang, "status_volume", volume=volume))
        speed = self.speed_now()
        result["speed"] = speed
        if speed != 1.0:
            parts.append(say(lang, "status_speed", rate=rate_text(speed)))
        holder = now or self.pending
        if holder is not None:
            _speed, intro, outro = self.book_settings(holder.detail.album)
            if intro or outro:
                result.update(intro=intro, outro=outro)
                parts.append(self._skip_status(intro, outro))
        downloads = []
        for job in self.downloader.active():
            if job.total:
                progress = f"{job.percent}%"
            else:
                progress = f"{job.done / 1e6:.1f}MB"
            downloads.append({"title": job.title.rsplit(" #", 1)[0], "episode": job.episode.section,
                              "done": job.done, "total": job.total})  # fmt: skip
            parts.append(say(lang, "status_download", album=self._job_album(job),
                             section=job.episode.section, progress=progress))  # fmt: skip
        for job in self.downloader.failed():
            if job.error and job.error != self.last_error:
                parts.append(say(lang, "dl_failed", album=self._job_album(job),
                                 section=job.episode.section, error=job.error))  # fmt: skip
        if downloads:
            result["downloads"] = downloads
        if self.sleep_left is not None:
            minutes = max(1, round(self.sleep_left / 60))
            result["sleep_minutes"] = minutes
            parts.append(say(lang, "status_sleep", minutes=minutes))
        if self.sleep_at_end:
            result["sleep_end_of_episode"] = True
            parts.append(say(lang, "status_sleep_episode"))
        if getattr(self.sink, "problem", ""):
            parts.append(say(lang, "status_speaker"))
        if not self.store.healthy:
            parts.append(say(lang, "status_unsaved"))
        if self.last_error:
            result["error"] = self.last_error
            parts.append(say(lang, "status_error", error=self.last_error))
        return {"message": ("，" if lang == "zh" else "; ").join(parts), **result}

    async def _about(self, about: str) -> dict[str, Any] | None:
        """One fact for `get_status(about=…)`, or None when the full status says it better
        (nothing loaded and nothing left off)."""
        lang = self.language
        volume = round(self.volume_now() * 100)
        if about == "volume":
            return {"message": say(lang, "about_volume", volume=volume), "volume": volume}
        if about == "sleep":
            if self.sleep_at_end:
                return {"message": say(lang, "about_sleep_episode"), "sleep_end_of_episode": True}
            if self.sleep_left is None:
                return {"message": say(lang, "about_no_sleep")}
            minutes = max(1, round(self.sleep_left / 60))
            return {"message": say(lang, "about_sleep", minutes=minutes), "sleep_minutes": minutes}
        if about == "skip":
            return await self._about_skip()
        now = self.now
        if now is not None:
            detail = now.detail
            episode, position = now.at(now.playback.position)
            section, duration = episode.section, now.length(episode)
        elif (left := await self.left_off()) is not None:
            detail, mark = left
            section, position, duration = mark.section, mark.position, 0.0
            episode = detail.episode(section)
            duration = episode.duration if episode is not None else 0.0
        else:
            return None
        album = detail.album
        name = album_name(lang, album)
        count = len(detail.episodes)
        after = sum(1 for e in detail.episodes if e.section > section)
        result: dict[str, Any] = {}
        if (data := self.now_data()) is not None:
            result["now"] = data
        if about == "episodes":
            message = say(lang, "about_episodes", album=name, count=count, section=section)
        elif about == "left":
            message = (say(lang, "about_left", album=name, count=count, section=section, left=after)
                       if after else say(lang, "about_last", album=name))  # fmt: skip
        elif about in ("time_left", "length") and duration:
            key = "about_time_left" if about == "time_left" else "about_length"
            outro = self.book_settings(album)[2]  # the end skipped is not heard: not left
            rest = max(0.0, duration - min(outro, duration) - position)
            # to the nearest second: 299.98 s left is "5:00", not "4:59"
            message = say(lang, key, rest=clock(lang, rest + 0.5),
                          dur=clock(lang, duration), album=name, count=count)  # fmt: skip
        elif about == "author":
            message = (say(lang, "about_author", album=name, author=album.author)
                       if album.author else say(lang, "about_no_author", album=name))  # fmt: skip
        elif about == "description":
            message = (say(lang, "about_description", album=name, text=album.description[:160])
                       if album.description.strip() else
                       say(lang, "about_no_description", album=name, count=count))  # fmt: skip
        elif about == "narrator":
            message = (say(lang, "about_narrator", album=name, narrator=album.narrator)
                       if album.narrator
                       else say(lang, "about_no_narrator", album=name))  # fmt: skip
        else:
            return None
        return {"message": message, **result}

    async def _about_skip(self) -> dict[str, Any] | None:
        """The seconds the book skips at the start and end of every episode, in one
        sentence (the book loaded now, else the one left off), or None with neither."""
        album = await self._settings_book()
        if album is None:
            return None
        _speed, intro, outro = self.book_settings(album)
        if intro and outro:
            key = "about_skip"
        elif intro or outro:
            key = "about_skip_intro" if intro else "about_skip_outro"
        else:
            key = "about_no_skip"
        message = say(self.language, key, album=album_name(self.language, album),
                      intro=_number(intro), outro=_number(outro))  # fmt: skip
        result: dict[str, Any] = {"message": message, "intro": intro, "outro": outro}
        if (data := self.now_data()) is not None:
            result["now"] = data
        return result

    def _skip_status(self, intro: float, outro: float) -> str:
        """The skips in the full status, short: "每集跳过片头25秒、片尾10秒"."""
        lang = self.language
        what = []
        if intro:
            what.append(say(lang, "status_skip_intro", seconds=_number(intro)))
        if outro:
            what.append(say(lang, "status_skip_outro", seconds=_number(outro)))
        return say(lang, "status_skip", what=("、" if lang == "zh" else " and ").join(what))

    async def _step(self, step: int) -> dict[str, Any]:
        holder = self.now or self.pending
        if holder is None:
            left = await self.left_off()
            if left is None:
                return await self._which_book()  # no book to step in: which one?
            detail, mark = left
            current = detail.episode(mark.section) or detail.episodes[0]
        else:
            detail, current = holder.detail, holder.episode
        target = detail.neighbour(current, step)
        if target is None:
            raise NotFoundError(say(self.language, "no_next" if step > 0 else "no_previous"))
        return self._played(await self.play(detail, target))

    @tool(
        return_direct=True,
        zh="用户说下一集、下一章时用。",
        en="Use when the listener says next episode or next chapter.",
        output=_PLAYING,
    )
    async def next_episode(self) -> dict[str, Any]:
        """Play the next episode of the current book."""
        return await self._step(1)

    @tool(
        return_direct=True,
        zh="用户说上一集、上一章时用。",
        en="Use when the listener says previous episode or go back an episode.",
        output=_PLAYING,
    )
    async def previous_episode(self) -> dict[str, Any]:
        """Play the previous episode of the current book."""
        return await self._step(-1)

    @tool(
        return_direct=True,
        zh="用户要在这一集里快进或快退时用；seconds 为秒数，relative=true 时快退用负数。",
        needs_loaded=True,
        en="Use to skip forward or back within an episode; seconds; with relative=true, "
        "negative goes back.",
        output=result_schema(position={"type": "number", "x-role": "seconds"}),
    )
    async def seek(self, seconds: Seconds, relative: bool = False) -> dict[str, Any]:
        """Jump to a position in the current episode.

        Args:
            seconds: position from the start of the episode; with relative=true, seconds to
                move forward (negative: back) from the current position.
            relative: move from the current position instead of from the start.
        """
        now = self.now
        if now is None:
            return {"message": say(self.language, "nothing")}
        episode, position = now.at(now.playback.position)
        target = float(seconds) + (position if relative else 0.0)
        duration = now.length(episode)
        if duration and target >= duration:
            raise BadInputError(say(self.language, "bad_seek", dur=clock(self.language, duration)))
        target = max(0.0, target)
        now.playback.seek(episode.start + target)
        self.store.bookmark_save(now.detail.album, episode, target)
        return {
            "message": say(self.language, "seeked", time=clock(self.language, target)),
            "position": round(target, 1),
        }

    def apply_volume(self, percent: int) -> dict[str, Any]:
        """Set the book volume to `percent`, held between `min_volume_percent` and the
        ceiling now (`max_volume_percent`, lower at bedtime); kept on disk. A request the
        limits change is told in one sentence."""
        ceiling = self.volume_ceiling()
        floor = min(self.min_volume_percent, ceiling)
        capped = max(floor, min(int(percent), ceiling))
        self.volume = capped / 100
        self.store_volume(capped)
        if capped < percent:
            key = "volume_bedtime" if ceiling < self.max_volume_percent else "volume_max"
            message = say(self.language, key, volume=capped)
        elif capped > percent:
            message = say(self.language, "volume_min", volume=capped)
        else:
            message = say(self.language, "volume", volume=capped)
        return {"message": message, "volume": capped}

    @tool(
        return_direct=True,
        zh="用户要把音量调到某个数时用；percent 为 0 到 100。",
        en="Use to set the volume to a number; percent from 0 to 100.",
        output=result_schema(volume={"type": "integer", "x-role": "percent"}),
    )
    async def set_volume(self, percent: Percent) -> dict[str, Any]:
        """Set the audiobook volume (capped at the configured maximum).

        Args:
            percent: 0 (silent) to 100 (full).
        """
        percent = int(percent)
        if not 0 <= percent <= 100:
            raise BadInputError(say(self.language, "bad_volume"))
        return self.apply_volume(percent)

    @tool(
        return_direct=True,
        zh="用户说大声点、声音大一点、听不清时用。",
        en="Use when the listener says louder, turn up the volume, or can't hear.",
        output=result_schema(volume={"type": "integer", "x-role": "percent"}),
    )
    async def volume_up(self) -> dict[str, Any]:
        """Make the audiobook louder by one step (10 points, up to the configured maximum,
        or the bedtime one)."""
        current = round(self.volume_now() * 100)
        ceiling = self.volume_ceiling()
        if current >= ceiling:
            key = "volume_top_bedtime" if ceiling < self.max_volume_percent else "volume_top"
            return {"message": say(self.language, key, volume=current), "volume": current}
        return self.apply_volume(current + VOLUME_STEP)

    @tool(
        return_direct=True,
        zh="用户说小点声、声音小一点、太吵了时用。",
        en="Use when the listener says quieter, turn down the volume, too loud.",
        output=result_schema(volume={"type": "integer", "x-role": "percent"}),
    )
    async def volume_down(self) -> dict[str, Any]:
        """Make the audiobook quieter by one step (10 points, down to the configured
        minimum)."""
        current = round(self.volume_now() * 100)
        if current <= self.min_volume_percent and self.min_volume_percent > 0:
            return {"message": say(self.language, "volume_bottom", volume=current),
                    "volume": current}  # fmt: skip
        return self.apply_volume(max(0, current - VOLUME_STEP))

    @tool(
        return_direct=True,
        zh="用户说几分钟后停、再放几分钟就关、定时关闭时用；minutes 为分钟数，0 表示取消；"
        "用户说听完这一集（这一章）就关时 end_of_episode=true。",
        en="Use when the listener wants playback to stop or turn off after some minutes "
        "(0 cancels), or with end_of_episode=true after this episode or chapter.",
        output=result_schema(
            minutes={"type": "number", "x-role": "minutes"},
            end_of_episode={"type": "boolean"},
        ),
    )
    async def sleep_timer(
        self, minutes: SleepMinutes = None, end_of_episode: bool = False
    ) -> dict[str, Any]:
        """Pause the audiobook after some minutes of listening, or at the end of the
        episode playing (a sleep timer); its end fades out over a few seconds.

        Args:
            minutes: minutes of listening from now, up to 600: the listener's own minutes
                while the book plays, whatever its speed (at 1.5x, 30 minutes hold 45 of
                the book), time paused not counted; 0 cancels the timer.
            end_of_episode: true to pause at the end of the episode (chapter) playing,
                at its boundary, not mid-sentence.
        """
        if end_of_episode:
            self._cancel_sleep()
            if self.now is None and self.pending is None and self.state != PlayerState.LOADING:
                return {"message": say(self.language, "nothing_which")}
            # an episode still loading (a download, the next one starting) gets it when it
            # plays: its cuts are made with it, and its end is waited for
            self.sleep_at_end = True
            self.update_cuts()
            return {"message": say(self.language, "sleep_episode"), "end_of_episode": True}
        if minutes is None or not 0 <= float(minutes) <= 600:
            raise BadInputError(say(self.language, "bad_sleep"))
        minutes = float(minutes)
        was_set = self._sleep_task is not None or self.sleep_at_end
        self._cancel_sleep()
        if minutes == 0:  # nothing to cancel: said so, not "cancelled"
            return {"message": say(self.language, "sleep_off" if was_set else "about_no_sleep"),
                    "minutes": 0}  # fmt: skip
        self.sleep_left = minutes * 60
        self.sleep_deadline = time.monotonic() + minutes * 60
        self._sleep_task = self._track(self._sleep_after(minutes * 60), "sleep timer")
        shown = int(minutes) if minutes == int(minutes) else minutes
        return {"message": say(self.language, "sleep_set", minutes=shown), "minutes": shown}

    def _cancel_sleep(self) -> None:
        """Cancel the sleep timer (minutes or the end of the episode), if one is set."""
        if self._sleep_task is not None:
            self._sleep_task.cancel()
            self._sleep_task = None
        self.sleep_deadline = None
        self.sleep_left = None
        if self.sleep_at_end:
            self.sleep_at_end = False
            self.update_cuts()

    def speed_now(self) -> float:
        """The playback speed of the book loaded now (1.0 when none is)."""
        now = self.now
        return now.playback.speed if now is not None else 1.0

    async def _settings_book(self) -> Album | None:
        """The book a speed or skip is for: the one loaded now, else the last one heard."""
        holder = self.now or self.pending
        if holder is not None:
            return holder.detail.album
        left = await self.left_off()
        return left[0].album if left is not None else None

    @tool(
        return_direct=True,
        zh="用户要调播放速度时用：说了倍速（1.5倍速）就填 rate；快一点 step=1，慢一点 "
        "step=-1；正常速度 rate=1。",
        en="Use to change the playback speed: rate for a speed said (1.5x); step=1 for "
        "faster, step=-1 for slower; rate=1 for normal speed.",
        output=result_schema(speed={"type": "number", "x-role": "rate"}),
    )
    async def set_speed(self, rate: Rate = None, step: SpeedStep = 0) -> dict[str, Any]:
        """Set the playback speed of the book (pitch kept); remembered for that book.

        Args:
            rate: the speed, 0.5 (half) to 2.0 (double); 1.0 is normal.
            step: instead of a rate, steps along the rungs of 0.25 (0.75, 1.0, 1.25…):
                1 faster, -1 slower; from a speed between rungs, the first step goes to
                the next rung (0.8 faster is 1.0, normal).
        """
        album = await self._settings_book()
        if album is None:
            return {"message": say(self.language, "nothing_which")}
        current = self.book_settings(album)[0]
        if rate is not None:
            target = float(rate)
            if not MIN_RATE <= target <= MAX_RATE:
                raise BadInputError(say(self.language, "bad_speed"))
        elif step:
            rungs = current / SPEED_STEP
            on = math.floor(rungs + 1e-6) if step > 0 else math.ceil(rungs - 1e-6)
            target = round((on + int(step)) * SPEED_STEP, 2)
            if not MIN_RATE <= target <= MAX_RATE:
                key = "speed_top" if step > 0 else "speed_bottom"
                return {"message": say(self.language, key, rate=rate_text(current)),
                        "speed": current}  # fmt: skip
        else:
            raise BadInputError(say(self.language, "bad_speed"))
        target = round(target, 2)
        self.book_settings_save(album, speed=target)
        key = "speed_normal" if target == 1.0 else "speed"
        return {"message": say(self.language, key, rate=rate_text(target)), "speed": target}

    @tool(
        return_direct=True,
        zh="用户要每集跳过片头或片尾几秒时用；intro 为片头秒数，outro 为片尾秒数，0 表示不跳；"
        "用户说多跳几秒、少跳几秒时 relative=true，少跳用负数。",
        en="Use when the listener wants to skip seconds at the start (intro) or end (outro) "
        "of every episode; 0 stops skipping; with relative=true the seconds are added "
        "(negative: skip less).",
        output=result_schema(
            intro={"type": "number", "x-role": "seconds"},
            outro={"type": "number", "x-role": "seconds"},
        ),
    )
    async def set_skip(
        self, intro: SkipSeconds = None, outro: SkipSeconds = None, relative: bool = False
    ) -> dict[str, Any]:
        """Skip seconds at the start and end of every episode of the book (a series'
        opening and closing music); remembered for that book.

        Returns ``{"message", "intro", "outro"}``: the seconds skipped now. Raises
        BadInputError when neither is given, or for a value out of bounds.

        Args:
            intro: seconds skipped at the start of every episode, 0 to 600; 0 stops it.
                With relative=true, seconds added to the skip now, -600 to 600
                (negative: skip less).
            outro: seconds skipped at the end of every episode, 0 to 600; 0 stops it.
                With relative=true, seconds added to the skip now, -600 to 600.
            relative: add intro and outro to the book's skips now instead of setting
                them; the result is held within 0 to 600 seconds.
        """
        if intro is None and outro is None:
            raise BadInputError(say(self.language, "bad_skip"))
        low = -MAX_SKIP_SECONDS if relative else 0
        for value in (intro, outro):
            if value is not None and not low <= float(value) <= MAX_SKIP_SECONDS:
                raise BadInputError(say(self.language, "bad_skip"))
        album = await self._settings_book()
        if album is None:
            return {"message": say(self.language, "nothing_which")}
        if relative:
            _speed, held_intro, held_outro = self.book_settings(album)
            if intro is not None:
                intro = held_intro + float(intro)
            if outro is not None:
                outro = held_outro + float(outro)

        def seconds(value: float | None) -> float | None:
            if value is None:
                return None
            return round(min(float(MAX_SKIP_SECONDS), max(0.0, float(value))), 1)

        intro, outro = seconds(intro), seconds(outro)
        self.book_settings_save(album, intro=intro, outro=outro)
        _speed, now_intro, now_outro = self.book_settings(album)
        now = self.now
        if intro and now is not None and now.detail.album.id == album.id:
            episode, position = now.at(now.playback.position)
            length = now.length(episode)
            if position < intro and (not length or intro < length - 1.0):
                now.playback.seek(episode.start + intro)  # the intro playing now, skipped
        parts = []
        if intro is not None:
            parts.append(say(self.language, "skip_intro" if intro else "skip_intro_off",
                             seconds=_number(intro)))  # fmt: skip
        if outro is not None:
            parts.append(say(self.language, "skip_outro" if outro else "skip_outro_off",
                             seconds=_number(outro)))  # fmt: skip
        joined = ("，" if self.language == "zh" else "; ").join(parts)
        name = album_name(self.language, album)
        message = say(self.language, "skip_set", album=name, what=joined)
        return {"message": message, "intro": now_intro, "outro": now_outro}

    @tool(
        read_only=True,
        return_direct=True,
        zh="用户问有什么书、书库里有哪些书时用（不是找某一本）。",
        en="Use when the listener asks which books there are (not for one title).",
        output=result_schema(albums=_ALBUMS, total={"type": "integer"}),
    )
    async def list_albums(self) -> dict[str, Any]:
        """How many albums the library holds and the first few titles, in one sentence."""
        albums = await asyncio.to_thread(self.library_albums)
        if not albums:
            return {"message": say(self.language, "library_empty"), "albums": [], "total": 0}
        return self._offer("library", albums, LISTED_TITLES)

    def _offer(
        self, key: str, albums: list[Album], count: int, *, choice: bool = False
    ) -> dict[str, Any]:
        """The message `key` naming the first `count` of `albums` and how many there are,
        with their data (``{"message", "albums", "total"}``); with `choice`, the names as a
        choice between them ("A or B", `join_choices`)."""
        shown = albums[:count]
        names = [album_name(self.language, a) for a in shown]
        if choice:
            items = join_choices(self.language, names)
        else:
            items = join_titles(self.language, names, more=len(albums) > count)
        if len(albums) == 1 and f"{key}_one" in MESSAGES:
            key = f"{key}_one"  # "one book: …", never "1 books"
        elif len(albums) <= count and f"{key}_all" in MESSAGES:
            key = f"{key}_all"  # all of them named: not "such as"
        return {"message": say(self.language, key, total=len(albums), items=items),
                "albums": [album_data(a) for a in shown], "total": len(albums)}  # fmt: skip

    @tool(
        read_only=True,
        return_direct=True,
        zh="用户问你能做什么，或者要做听书以外的事（天气、新闻、常识、距离、时间、闹钟、提醒、"
        "打电话、购物、笑话、唱歌、比赛、算数、聊天）时用。",
        en="Use when the listener asks what you can do, or for anything that is not about "
        "audiobooks (weather, news, facts, distances, the time, alarms, reminders, calls, "
        "shopping, jokes, songs, sports, sums, chat).",
        output=result_schema(title={"type": "string"}),
    )
    async def help(self) -> dict[str, Any]:
        """What this player can do, in one sentence; the answer to a request it cannot do
        (so the listener hears an honest "I can't" and never an invented fact). The
        example request names a book of this library: the one listened to last, else the
        library's first (``{"message", "title"?}``)."""
        suggested = await self._suggested(1)
        if not suggested:
            return {"message": say(self.language, "help")}
        title, name = suggested[0]
        return {"message": say(self.language, "help_title", title=name), "title": title}

    async def _suggested(self, count: int) -> list[tuple[str, str]]:
        """Up to `count` books to suggest as ``(title, name to speak)``: the book listened to
        last, then the library's first ones."""
        albums = await asyncio.to_thread(self.library_albums)
        by_id = {a.id: a for a in albums}
        suggested: list[tuple[str, str]] = []
        if (mark := self.store.last_bookmark()) is not None and mark.album_title:
            album = by_id.get(mark.album_id)
            name = album_name(self.language, album) if album is not None else mark.album_title
            suggested.append((mark.album_title, name))
        for album in albums:
            if len(suggested) >= count:
                break
            if all(album.title != title for title, _name in suggested):
                suggested.append((album.title, album_name(self.language, album)))
        return suggested[:count]

    def spoken_title(self, title: str) -> str:
        """The name to speak the album titled `title` by in the configured language
        (`album_name`: "西游记" -> "Journey to the West" in English when album.json names
        it so); `title` itself when no album known without network has that title."""
        for album in self.library_albums():
            if album.title == title:
                return album_name(self.language, album)
        return title

    def _job_album(self, job: Any) -> str:
        """The name to speak the album of download `job` by (`album_name`); the title its
        job was started with when the album is no longer known."""
        holder = self.now or self.pending
        if holder is not None and holder.detail.album.id == job.episode.album_id:
            return album_name(self.language, holder.detail.album)
        for album in self.library_albums():
            if album.id == job.episode.album_id:
                return album_name(self.language, album)
        return job.title.rsplit(" #", 1)[0]

    def library_albums(self) -> list[Album]:
        """The albums known without network: the local library first, then remembered ones."""
        seen: dict[str, Album] = {}
        for album in self.library.albums():
            seen.setdefault(album.id, album)
        for album in self.store.albums():
            seen.setdefault(album.id, album)
        return list(seen.values())

    # -- the listener's context ---------------------------------------------------------

    @returns(CONTEXT)
    def listener_context(self, utterance: str = "") -> dict[str, Any]:
        """What the listener's words may refer to: the album loaded now, the bookmarks of
        albums the utterance names (found in any form the listener uses: `title_index`) and
        the book listened to before the one loaded now ("the book before").

        Returns ``{"message": one line, "now": NOW?, "bookmarks": [BOOKMARK, ...],
        "before": [BOOKMARK]?}``; the line is in the configured language, e.g. "正在播放
        西游记 第3集（共100集）".
        """
        lang = self.language
        result: dict[str, Any] = {}
        parts = []
        now = self.now_data()
        if now is not None:
            result["now"] = now
            parts.append(say(lang, f"context_{now['state']}", album=now["title"],
                             section=now["episode"], count=now["episodes"],
                             pos=clock(lang, now.get("position", 0))))  # fmt: skip
        marks = []
        if utterance.strip():
            for album in self._named_albums(utterance):
                if now is not None and album.id == now["id"]:
                    continue
                mark = self.bookmark_data(album)
                if mark is not None:
                    marks.append(mark)
                    parts.append(say(lang, "context_bookmark", album=album.title,
                                     section=mark["episode"],
                                     pos=clock(lang, mark["position"])))  # fmt: skip
        if marks:
            result["bookmarks"] = marks
        here = {a.id: a for a in self.library_albums()}
        loaded = now["id"] if now is not None else None
        for mark in self.store.recent_bookmarks(4):
            album = here.get(mark.album_id)
            if album is None or album.id == loaded:
                continue
            before = album_data(album)
            before.update(episode=mark.section, position=round(mark.position, 1), before=True)
            result["before"] = [before]
            parts.append(say(lang, "context_before", album=album.title, section=mark.section))
            break
        if not parts:
            parts.append(say(lang, "context_idle"))
        return {"message": ("；" if lang == "zh" else "; ").join(parts), **result}

    def _named_albums(self, utterance: str) -> list[Album]:
        """The albums `utterance` names (a title inside a longer one named counts once:
        "水浒传少儿版" names only 水浒传少儿版)."""
        named = dict.fromkeys(n.title for n in self.title_index().find(utterance))
        by_title = {a.title: a for a in self.library_albums()}
        return [by_title[t] for t in named if t in by_title][:3]

    async def _sleep_after(self, seconds: float, settle: float = 30.0) -> None:
        """Fade out and pause after `seconds` of listening: the listener's seconds while the
        book plays, at any speed (the time said is the time they have: "一点五倍速，再定个
        四十分钟" is forty minutes of the evening, not forty of the book); time paused does
        not count. A timer that ends between two episodes (the next one
        loading) pauses that one as soon as it plays, within `settle` seconds, instead of
        being lost while the book plays on."""
        left = float(seconds)
        last = time.monotonic()
        while left > 0:
            self.sleep_left = left
            self.sleep_deadline = last + left
            await asyncio.sleep(min(1.0, max(0.01, left)))
            moment = time.monotonic()
            if self.state == PlayerState.PLAYING:
                left -= moment - last
            last = moment
        self.sleep_deadline = None
        self.sleep_left = None
        waited = 0.0
        while self.state == PlayerState.LOADING or (self.now is None and self.pending is not None):
            if waited >= settle:
                break
            await asyncio.sleep(0.05)
            waited += 0.05
        self._sleep_task = None
        now = self.now
        if now is not None and self.state == PlayerState.PLAYING:
            if self.fade_seconds > 0:
                _LOGGER.info("sleep timer: fading out over %.1f s", self.fade_seconds)
                now.playback.fade_out(self.fade_seconds)
                # the worker pauses when the fade is over ("paused"); a slow or held
                # output gets twice the time, then the pause below
                for _ in range(int((self.fade_seconds * 2 + 2.0) / 0.05)):
                    if self.now is not now or self.state != PlayerState.PLAYING:
                        break
                    await asyncio.sleep(0.05)
            if self.now is now and self.state == PlayerState.PLAYING:
                _LOGGER.info("sleep timer: pausing")
                await self.pause()


_TITLE_TOKEN = re.compile(rf"\d+|[^\W\d_{CJK}\u3040-\u30ff\uac00-\ud7af]+|[^\W_]")
"""A token of a title as `episodes_titled` compares them: a run of digits, a word of
letters (Latin and other alphabets), or one character of any other script (a CJK
ideograph, a kana, a hangul syllable)."""


def title_tokens(text: str) -> list[str]:
    """`text` folded (`fold`: case, width, traditional script) into its tokens, spaces and
    punctuation dropped: "第四章 未初" -> ["第", "四", "章", "未", "初"], "Sol 19" ->
    ["sol", "19"]; English number words are the number ("sol twelve" -> ["sol", "12"])."""
    tokens: list[str] = []
    run: list[str] = []
    for token in [*_TITLE_TOKEN.findall(fold(text)), ""]:
        if token and ((token == "and" and run) or english_number(token) is not None):
            run.append(token)
            continue
        while run and run[-1] == "and":
            tokens.append(run.pop())  # no number ends in "and"
        value = english_number(" ".join(run)) if run else None
        tokens.extend([str(value)] if value is not None else run)
        run = []
        if token:
            tokens.append(token)
    return tokens


_TITLE_BY = re.compile(r"(?P<title>.+?)\s+(?:by|from)\s+(?P<who>[a-z][a-z .'-]+)", re.IGNORECASE)
"""A title and the person after "by" ("the habit by tolkien")."""


def _sounds_like(said: str, title: str) -> bool:
    """True when the words `said` sound, word by word, like `title`'s ("the habit", "The
    Hobbit"), articles left out of both."""
    mine = [t for t in title_tokens(said) if t not in ("the", "a", "an")]
    theirs = [t for t in title_tokens(title) if t not in ("the", "a", "an")]
    return bool(mine) and len(mine) == len(theirs) and all(map(sounds_alike, theirs, mine))


_CHINESE_NUMERALS = re.compile(r"[零〇一二两三四五六七八九十百]+")


def episodes_titled(episodes: Any, words: str) -> list[Any]:
    """The episodes whose title `words` name: their title equal to the words (folded, spaces
    and punctuation ignored), else the titles holding them as whole tokens (a word, a
    number, a character of Chinese) when the words are two characters or more and not
    only digits: "未初" is in "第四章 未初", "sol 9" is "Sol 9" but not in "Sol 19". The
    equal ones when there are any, else those holding the words; in section order. With
    neither, Chinese words of three characters or more said with some of the title left out
    ("桃园三结义" for "第一回 宴桃园豪杰三结义"): the one title holding all their characters
    in order, at least half of its own beside its number; none when two titles do. English
    words heard as others that sound alike ("soul ten" for "Sol 10") name the one title
    holding such a run, and Chinese ones the one title holding a run that sounds as they do
    ("大闹天公" for "大闹天宫"). Chinese numerals said with Latin words are digits ("sol十二" is
    "Sol 12")."""
    if re.search(r"[A-Za-z]", words):
        words = _CHINESE_NUMERALS.sub(
            lambda m: f" {chinese_number(m.group()) or m.group()} ", words
        )
    want = title_tokens(words)
    if not want:
        return []
    squashed = "".join(want)
    equal = [e for e in episodes if "".join(title_tokens(e.title)) == squashed]
    if equal or len(squashed) < 2 or squashed.isdigit():
        return equal
    holding = _holding(episodes, want, str.__eq__)
    if holding or len(squashed) < 3:
        return holding
    if all(t.isascii() for t in want) and any(t.isalpha() for t in want):
        # "soul ten" for "Sol 10", as a recogniser hears it: each word sounding alike, the
        # numbers the same, in a run of the one title that holds them
        alike = _holding(episodes, want, sounds_alike)
        return alike if len(alike) == 1 else []
    if not all(_CJK_CHAR.fullmatch(t) for t in want):
        return holding
    in_order = []
    for episode in episodes:
        own = _EPISODE_NUMBER.sub("", "".join(title_tokens(episode.title)))
        rest = iter(own)
        if len(squashed) * 2 >= len(own) and all(ch in rest for ch in squashed):
            in_order.append(episode)
    if in_order:
        return in_order if len(in_order) == 1 else []
    # "大闹天公" for "大闹天宫", as a recogniser writes a word by its sound: the one title
    # holding a run that sounds as the words do
    alike = [e for e in episodes if sounds_inside(squashed, "".join(title_tokens(e.title)))]
    return alike if len(alike) == 1 else []


def _holding(episodes: Any, want: list[str], same: Any) -> list[Any]:
    """The episodes whose title tokens hold a run of `want` (`_holds`), in section order."""
    return [e for e in episodes if _holds(title_tokens(e.title), want, same)]


def _holds(tokens: list[str], want: list[str], same: Any = str.__eq__) -> bool:
    """True when `tokens` hold a run of `want`'s length, token by token the `same`
    (``same(title token, said token)``)."""
    size = len(want)
    return any(
        all(same(t, w) for t, w in zip(tokens[i : i + size], want, strict=True))
        for i in range(len(tokens) - size + 1)
    )


_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")
_EPISODE_NUMBER = re.compile(r"^第[\d一二三四五六七八九十百千零〇两]+[集回章节话讲部卷]")
"""The number a Chinese episode title begins with ("第一回"), left out of its own words."""


def rate_text(rate: float) -> str:
    """A speed as it is said: 1.5 -> "1.5", 2.0 -> "2", 1.25 -> "1.25"."""
    return f"{rate:.2f}".rstrip("0").rstrip(".")


def _number(seconds: float) -> str:
    """Seconds as they are said: 30.0 -> "30", 12.5 -> "12.5"."""
    return f"{seconds:.1f}".rstrip("0").rstrip(".")


# Each tool's prompt examples (player/examples.py), attached by the tool's name.
for _name, _examples in EXAMPLES.items():
    setattr(getattr(PlayerTools, _name), ATTR_EXAMPLES, _examples)

__all__ = [
    "NOTE_NAMES",
    "VOLUME_STEP",
    "AlbumDetail",
    "PlayerTools",
    "album_data",
    "episodes_titled",
    "rate_text",
    "title_tokens",
]
