"""GBNF grammar for one ReAct reply, generated from the tool registry.

The grammar admits exactly::

    Thought: <one line, at most `thought_chars` characters>
    Action: <one registered tool name>
    Action Input: <JSON object matching *that* tool's schema>

or ``Thought: ...`` then ``Final Answer: <one line>``. Whitespace inside the JSON is bounded
(at most one space), and the reply ends right after the object or the answer line, so a
model under this grammar can neither invent an Observation nor run to its token limit.

`Constraints` narrows argument values by the role each parameter's schema names
(``x-role``), never by a tool's name: an ``album-id`` only takes ids seen in the data of
earlier results or the listener's context, an ``episode`` only a number the listener said
(none said: it is left out), a ``title`` a span of the utterance or the library title it
names. The loop fills it with `Constraints.quote`, `mention` and `learn`. Integers and
numbers keep within their schema's bounds (``minimum``/``maximum``, exclusive ones too): a
non-negative one admits no minus sign, a bounded one no value past its bounds.
GBNF is llama.cpp's grammar format (grammars/README.md in llama.cpp).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .tools import Tool, ToolRegistry

__all__ = ["Constraints", "build_grammar", "fold_text"]

_MAX_ENUMERATED_RANGE = 400
TITLE, ALBUM_ID, EPISODE, PAGE = "title", "album-id", "episode", "page"
SECONDS, MINUTES, PERCENT = "seconds", "minutes", "percent"
PLAYBACK_STATE = "playback-state"
EPISODE_COUNT, PAGE_COUNT = "episode-count", "page-count"
_STOP_WORDS = frozenset(
    "the a an i me my of to and play book books story audiobook album episode chapter "
    "书 本 集 的 我 你 他 它 这 那 有声书 故事 专辑 小说".split()
)
"""Words never admitted as a title on their own (one Latin letter neither)."""
_FUNCTION_CHARS = frozenset(
    "的了这那个一下遍点听放播吧吗呢啊呀哦嘛嗯哎啦诶我你他她它们是在正现有要想再还就都也把给让"
    "来去过着说讲看声次些么什怎样总共多少几才刚已经没不别很太最会能可以得从对和跟"
    "换切跳继续接停暂开关找搜帮请麻烦谢"
)
_FUNCTION_WORDS = frozenset(
    "the a an i me my you your we us our they them he him his she her it its this that these "
    "those is are was were be been am do does did can could would will should may might what "
    "which who where when how why there here some any one ones more again now then so ok okay "
    "um uh er like just please sorry hey hi wait well yes yeah no not to for of on in at with "
    "from by about up down back out off over into before after go get got let lets make put "
    "give want wanna need know think play playing listen hear book books story stories "
    "audiobook album episode episodes chapter chapters part parts and or but if all thing "
    "something anything kinda really very too also much many little bit long".split()
)
"""Characters and words no title is made of alone: a keyword span of only these ("听过了",
"这个", "一遍", "this book", "the one before this", "sorry") is no title unless it is one
of the library's."""


def fold_text(text: str) -> str:
    """The default folding: NFKC (full-width to half-width) and case (no script change)."""
    return unicodedata.normalize("NFKC", text).casefold()


def _role(schema: dict[str, Any]) -> str | None:
    role = schema.get("x-role")
    return role if isinstance(role, str) else None


@dataclass
class Constraints:
    """Argument values the grammar admits, by parameter role, learned during a turn.

    `choices` maps a role (``title``, ``album-id``, ``episode``, ``page``) to the values
    admitted so far: an empty list admits none (an optional argument of that role is then
    left out, a tool requiring it is not offered); a role not in `choices` is free within
    its schema's bounds. ``album-id`` starts empty: only ids seen in data are admitted.
    `ranges` maps a role to an inclusive ``(low, high)`` range. `required` holds roles an
    optional argument must be given for (a title the listener named). `names` maps each
    album id seen to its title. `fold` is the text folding of the tools' title matcher
    (NFKC, case, traditional→simplified), used to find titles named in the utterance.
    `playing` is set when the listener's context says a book plays (`learn`), `timed`
    when the utterance states an amount of time (`quote`); both narrow the tools offered
    (`admits`).
    """

    choices: dict[str, list[Any]] = field(default_factory=lambda: {ALBUM_ID: []})
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    excluded: set[str] = field(default_factory=set)
    names: dict[str, str] = field(default_factory=dict)
    fold: Callable[[str], str] = fold_text
    playing: bool = False
    timed: bool = False

    def quote(
        self, utterance: str, *, max_chars: int = 60, titles: Iterable[str] | None = None
    ) -> None:
        """Admit what the listener said: titles only as spans of `utterance` (no stop
        word, one letter or number, nothing of an episode phrase such as "第五集" or
        "上一集" or of a duration such as "30 seconds"), episodes only as the numbers
        said (none said: the episode is left out), pages 1 and the numbers said, a
        percent only a number said (none said: a tool that needs one is not offered).

        Chinese text gives every run of 1–12 characters, other text every run of 1–6
        words; an utterance longer than `max_chars` leaves titles free. With `titles` (the
        library's), a span of one character, or one made only of function words ("听过了",
        "这个", "this book", "sorry"), is admitted only when it is one of them ("家", "It";
        never "一" or "放").
        """
        text = utterance.strip()
        if not text:
            return
        said = _numbers(text)
        self.choices[EPISODE] = sorted(set(said))
        self.choices[PAGE] = sorted({1, *said})
        self._episode_said(text, said)
        # A volume is a number said ("音量调到五十"); none said ("太吵了"), no volume can
        # be set, only stepped: the model never picks 80 for "too loud".
        self.choices[PERCENT] = _percents(text)
        seconds = durations_said(text)
        self.timed = bool(durations_said(text, counted=True))
        if seconds:
            # "快进三十秒" seeks 30 s, never the 120 of an example; "半小时" is 30 minutes.
            # Nothing said ("快进一点"): the amount stays the model's, within the bounds.
            self.choices[SECONDS] = sorted({0, *seconds, *(-v for v in seconds)})
            self.choices[MINUTES] = sorted({0, *(v // 60 for v in seconds if v % 60 == 0)})
        elif _clock_said(text):
            # "明早七点的闹钟", "at ten pm": a time of day is no amount from now. No seek or
            # sleep timer takes it, and no tool on the loaded book is meant (`timed`).
            self.choices[SECONDS] = []
            self.choices[MINUTES] = []
            self.timed = True
        if len(text) > max_chars:
            self.choices.pop(TITLE, None)
            return
        known = None if titles is None else {_squash(self.fold(t)) for t in titles}
        for part in _NOT_TITLE.split(text):  # "再听一遍上一集" never gives "上一"
            for span in _spans(part):
                if not self._searchable(span):
                    continue
                key = _squash(self.fold(span))
                if known is not None and key not in known:
                    if len(key) == 1 or _function_only(self.fold(span)):
                        continue
                self.allow(TITLE, span)
        self.choices.setdefault(TITLE, [])

    def _searchable(self, span: str) -> bool:
        key = self.fold(span).strip()
        squashed = _squash(key)
        if not squashed or key in _STOP_WORDS or squashed.isdigit():
            return False
        if len(squashed) <= 1 and squashed.isascii():
            return False
        return not _EPISODE_PHRASE.search(key)

    def mention(self, titles: Iterable[str], utterance: str, *, numbers: bool = True) -> list[str]:
        """Narrow the title role to the known `titles` the utterance names; returns them.

        A title is named at token boundaries after `fold`: a Chinese one of two characters
        or more anywhere, a Latin one as whole words; of titles inside each other
        ("水浒传" in "水浒传少儿版") only the longest counts. A named title must then be
        given (`required`) and is the only title admitted. A title made only of function
        words ("It", "Us") is never named this way: "turn it off" says the pronoun, and the
        title stays a keyword `quote` admits. Names nothing: no change. With
        `numbers` the episode role takes the numbers said outside the titles.
        """
        named = [
            t
            for t in dict.fromkeys(titles)
            if _named(t, utterance, self.fold) and not _function_only(self.fold(t))
        ]
        keys = [_squash(self.fold(t)) for t in named]
        named = [
            t for t, k in zip(named, keys, strict=True) if not any(k != o and k in o for o in keys)
        ]
        if not named:
            return []
        rest = self.fold(utterance)
        for title in sorted(named, key=len, reverse=True):
            rest = re.sub(_title_pattern(self.fold(title)), " ", rest)
        if numbers:
            said = _numbers(rest)
            self.choices[EPISODE] = sorted(set(said))
            self.choices[PAGE] = sorted({1, *said})
            self._episode_said(rest, said)
        self.choices[TITLE] = list(named)
        self.required.add(TITLE)
        return named

    def _episode_said(self, text: str, said: list[int]) -> None:
        """An episode the listener marked as one ("第120集", "chapter 4") must be given to
        a tool that takes an episode: leaving it out would play another one."""
        if said and (_MARKED_EPISODE.search(text) or _FROM_START.search(text)):
            self.required.add(EPISODE)
        else:
            self.required.discard(EPISODE)

    def allow(self, role: str, value: Any) -> None:
        """Admit `value` for `role` (kept in first-seen order, without repeats)."""
        values = self.choices.setdefault(role, [])
        if value not in values:
            values.append(value)

    def limit(self, role: str, low: int, high: int) -> None:
        """Admit only integers in ``low..high`` (inclusive) for `role`."""
        if high >= low:
            self.ranges[role] = (low, high)

    def learn(self, data: Any, schema: dict[str, Any] | None) -> None:
        """Learn from a result's data through its JSON Schema's roles: album ids (and the
        title beside each), titles, and the page count of a search.

        Only fields whose schema names a role count; values of other fields and prose are
        never read. A title seen becomes admissible unless the listener named one. The
        title of the book playing now (beside a ``playback-state`` of "playing") is
        admitted only when the listener said an episode ("播第五集" plays its episode 5):
        without one, playing it again would change nothing, and a tool's title is left out
        for the book loaded now.
        """
        if schema is None or data is None:
            return
        found: list[tuple[str, Any, dict[str, Any]]] = []
        _walk(data, schema, found, {})
        for role, value, siblings in found:
            if role == PLAYBACK_STATE and value == "playing":
                self.playing = True
            if role == ALBUM_ID and isinstance(value, str) and value:
                self.allow(ALBUM_ID, value)
                title = siblings.get(TITLE)
                if isinstance(title, str) and title:
                    self.names[value] = title
            elif role == TITLE and isinstance(value, str) and value.strip():
                if siblings.get(PLAYBACK_STATE) == "playing" and not self.choices.get(EPISODE):
                    continue
                if TITLE not in self.required and TITLE in self.choices:
                    self.allow(TITLE, value)
            elif role == PAGE_COUNT and isinstance(value, int) and value >= 1:
                for page in range(1, min(value, 50) + 1):
                    self.allow(PAGE, page)

    def admits(self, tool: Tool) -> bool:
        """False when `tool` requires an argument whose role admits no value yet, when
        every call of it would play the book playing now again (`replays`), or when the
        listener said an amount of time (`timed`) and the tool acts on the loaded book
        without taking one (stop, pause: a sleep timer or a seek is meant)."""
        if tool.name in self.excluded:
            return False
        props = tool.parameters.get("properties", {}) or {}
        for name in tool.parameters.get("required", []):
            role = _role(props.get(name, {}))
            if role is not None and role in self.choices and not self.choices[role]:
                return False
        if self.replays(tool) and TITLE in self.choices and not self.choices[TITLE]:
            return False
        if self.timed and tool.needs_loaded:
            # "再放四十分钟然后关掉", "turn it off after twenty minutes": an amount of time
            # said is an argument; a tool on the loaded book that takes none is not meant.
            return any(_role(p) in (SECONDS, MINUTES) for p in props.values())
        return True

    def replays(self, tool: Tool) -> bool:
        """True when leaving `tool`'s title out would play the book playing now again with
        nothing changed: a book plays, the tool's title is optional (left out: the book
        loaded now), it takes an episode and the listener said none. Such a call must then
        give a title (``这集听过了`` while a book plays never restarts it)."""
        if not self.playing or self.choices.get(EPISODE, [None]):
            return False
        props = tool.parameters.get("properties", {}) or {}
        required = set(tool.parameters.get("required", []))
        roles = {_role(p): k for k, p in props.items()}
        title = roles.get(TITLE)
        return title is not None and title not in required and EPISODE in roles

    def copy(self) -> Constraints:
        """An independent copy."""
        return Constraints(
            choices={k: list(v) for k, v in self.choices.items()},
            ranges=dict(self.ranges),
            required=set(self.required),
            excluded=set(self.excluded),
            names=dict(self.names),
            fold=self.fold,
            playing=self.playing,
            timed=self.timed,
        )


def role_values(
    data: Any, schema: dict[str, Any] | None, role: str, *, beside: str | None = None
) -> list[Any]:
    """The values of `data` whose field `schema` gives the ``x-role`` `role`; with
    `beside`, only those with a sibling field of that role (the title beside a
    ``playback-state`` is the loaded book's)."""
    if schema is None or data is None:
        return []
    found: list[tuple[str, Any, dict[str, Any]]] = []
    _walk(data, schema, found, {})
    return [
        value
        for r, value, siblings in found
        if r == role and (beside is None or siblings.get(beside) is not None)
    ]


def _walk(
    value: Any,
    schema: dict[str, Any],
    found: list[tuple[str, Any, dict[str, Any]]],
    siblings: dict[str, Any],
    depth: int = 0,
) -> None:
    """Collect (role, value, {sibling role: value}) from `value` following `schema`."""
    if depth > 6 or not isinstance(schema, dict):
        return
    role = _role(schema)
    if role is not None and not isinstance(value, (dict, list)):
        found.append((role, value, siblings))
        return
    if isinstance(value, dict):
        props = schema.get("properties", {}) or {}
        own = {
            r: value.get(k)
            for k, sub in props.items()
            if isinstance(sub, dict) and (r := _role(sub)) is not None
        }
        for key, item in value.items():
            if key in props:
                _walk(item, props[key], found, own, depth + 1)
    elif isinstance(value, list):
        items = schema.get("items", {})
        for item in value[:50]:
            _walk(item, items, found, siblings, depth + 1)


_LATIN = r"[0-9a-z\u00c0-\u024f]"
"""A character of a Latin word after folding (the player's matcher uses the same)."""


def _title_pattern(folded_title: str) -> str:
    """A regular expression finding a folded title in folded text at token boundaries."""
    words = re.findall(r"[^\W_]+", folded_title)
    if not words:
        return re.escape(folded_title)
    if _squash(folded_title).isascii():
        # Chinese characters around a Latin title are a boundary too ("我想听Dune").
        return rf"(?<!{_LATIN})" + r"[\W_]*".join(map(re.escape, words)) + rf"(?!{_LATIN})"
    return r"\s*".join(re.escape(ch) for ch in "".join(words))


def _named(title: str, utterance: str, fold: Callable[[str], str]) -> bool:
    """True when `utterance` names `title` (see `Constraints.mention`)."""
    folded = fold(title)
    core = _squash(folded)
    if not core or (not core.isascii() and len(core) < 2):
        return False
    return re.search(_title_pattern(folded), fold(utterance)) is not None


_EPISODE_PHRASE = re.compile(
    r"第\s*[\d零〇一二两三四五六七八九十百千几]+\s*[集章回话]?"
    r"|[\d零〇一二两三四五六七八九十百千几]+\s*[集章回]"
    r"|(?:[上下这那前后本每哪]|多少)\s*[一个]?\s*[集章回]"
    r"|\b(?:episode|chapter|part|section)\s+\w+"
    r"|\b(?:next|previous|last|this|that)\s+(?:episode|chapter|part|one)\b",
    re.IGNORECASE,
)
"""A phrase that names an episode, never a title: 第五集, 第几集, 12集, 上一集, 这集, 哪一集,
多少集, chapter 4, the next episode. No keyword span contains or straddles one."""


_MARKED_EPISODE = re.compile(
    r"第\s*[\d零〇一二两三四五六七八九十百千]+\s*[集章回话]|(?<![这那上下每哪前后本])[\d零〇一二两三四五六七八九十百千]+\s*[集回]"
    r"|\d+\s*[번화회]"
    r"|\b(?:episode|chapter|ep)\s+(?:\d+|[a-z]+)\b",
    re.IGNORECASE,
)
"""An episode number marked as one: 第五集, 12集, episode 3, chapter four, 2번 (not 第二部)."""

_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_][\w'’.\-]*")
_SQUASH = re.compile(r"[\W_]+")


def _squash(text: str) -> str:
    """`text` lower-cased without spaces or punctuation, for comparing titles."""
    return _SQUASH.sub("", text.lower())


_EN_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": 0}


def _numbers(text: str) -> list[int]:
    """Numbers said in `text`: digits, Chinese numerals (第二十集) and English words.

    When a number is marked as the episode ("第五集", "2화", "episode 5", "the third
    chapter"), only such numbers count.
    """
    marked = re.findall(
        r"第\s*([\d零〇一二两三四五六七八九十百]+)"
        r"|(?<![这那上下每哪前后本])([\d零〇一二两三四五六七八九十百]+)\s*[集章回번화회]"
        r"|(?:episode|chapter|part|section)\s+(\w+)"
        r"|\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))"
        r"\s+(?:episode|chapter|part|section)",
        text,
        re.IGNORECASE,
    )
    named = _plain_numbers(" ".join(next(g for g in groups if g) for groups in marked))
    if _FROM_START.search(text):
        named = sorted({1, *named})  # "从头开始": the first episode
    if named:
        return named
    # Unmarked: "one chapter" counts chapters (go back one chapter), it names none; nor
    # does a duration ("15 minutes", "二十分钟", "30秒"), the amount of a sleep timer or seek.
    rest = re.sub(r"\b\w+\s+(?:episodes?|chapters?|parts?)\b", " ", text, flags=re.IGNORECASE)
    rest = _DURATION.sub(" ", rest)
    rest = _PRONOUN_ONE.sub(" ", rest)  # "the one before this": a pronoun, not 1
    rest = _NUMERAL_IN_WORD.sub(" ", rest)  # "三国演义", "一千零一夜": part of a word
    return _plain_numbers(rest, words=False)


_NUMERAL_IN_WORD = re.compile(
    r"(?<![零〇一二两三四五六七八九十百千万])[零〇一二两三四五六七八九十百千万]++"
    r"(?=[\u3400-\u9fff])(?![吧呢啊了呀的吗嘛哦])"
)
"""A Chinese numeral an unmarked number is not: one a word goes on from ("三国", "一千零一
夜"), where 八十吧 or 西游记三 end in it."""
_FROM_START = re.compile(
    r"从头|从开头|重头|从最开始|从第一集|\bfrom the (?:very )?(?:beginning|start)\b"
    r"|\bstart (?:it |the book |the story )?over\b|\bfrom scratch\b",
    re.IGNORECASE,
)
"""A book asked for from its start ("从头开始", "from the beginning"): episode 1 is said."""
_PRONOUN_ONE = re.compile(
    r"\b(?:the|this|that|which|next|last|previous|other|another|each|every|any|no)\s+one\b"
    r"|\bone\s+(?:more|of)\b"
    r"|\ban?\s+(?!(?:hundred|thousand)\b)[a-z]+\s+one\b",  # "a long one", "a good one"
    re.IGNORECASE,
)
_CN_NUMERAL = "零〇一二两三四五六七八九十百"
_DURATION_PART = re.compile(
    rf"(?P<n>\d+(?:\.\d+)?|[{_CN_NUMERAL}]+)?\s*(?P<half>个半|半)?\s*个?\s*"
    r"(?P<unit>小时|钟头|刻钟|分钟|分|秒钟|秒)(?P<half2>半)?"
    r"|\b(?P<en>\d+(?:\.\d+)?|[a-z]+|an?)(?P<and_half>\s+and\s+a\s+half)?\s+"
    r"(?P<eunit>hours?|hrs?|minutes?|mins?|seconds?|secs?)\b"
    r"(?P<and_half2>\s+and\s+a\s+half)?"
    r"|\b(?P<half_en>half\s+an?\s+(?P<half_unit>hour|minute))\b"
    r"|\b(?P<quarter>(?:a\s+)?quarter\s+of\s+an\s+hour|(?:a\s+)?quarter\s+hour)\b"
    r"|(?<![\d:])(?P<clock>\d{1,2}(?::\d{2}){1,2})(?![\d:])",
    re.IGNORECASE,
)
_JOINER = re.compile(r"\s*(?:零|又|和|and|,|，)?\s*", re.IGNORECASE)
"""What may stand between two parts of one duration ("三分二十秒", "1 minute and 30 seconds")."""
_UNIT_SECONDS = {"小时": 3600, "钟头": 3600, "刻钟": 900, "分钟": 60, "分": 60, "秒钟": 1,
                 "秒": 1, "hour": 3600, "hr": 3600, "minute": 60, "min": 60, "second": 1,
                 "sec": 1}  # fmt: skip


def _amount(text: str) -> float | None:
    """The number `text` says: digits, a Chinese numeral, an English word, "a"/"an"."""
    from .fastpath import chinese_number

    word = text.strip().lower()
    if word in ("a", "an"):
        return 1.0
    try:
        return float(word)
    except ValueError:
        pass
    if word in _EN_NUMBERS:
        return float(_EN_NUMBERS[word])
    value = chinese_number(word)
    return None if value is None else float(value)


def durations_said(text: str, *, counted: bool = False) -> set[int]:
    """The durations `text` states, in whole seconds: "三十秒" 30, "两分钟" 120, "半小时"
    1800, "一个半小时" 5400, "an hour and a half" 5400, "half an hour" 1800, "5:30" 330,
    and the sum of parts said together ("三分二十秒" gives 180, 20 and 200). Numbers said
    as words are read first ("twenty five minutes" is 25 minutes, never 5). Empty when no
    duration is said ("小时候", "部分": a unit without a number is none). With `counted`,
    "a"/"an" is no number ("wait a second", "just a minute" say no amount)."""
    from .spoken_numbers import normalize

    text = normalize(text)
    found: set[int] = set()
    previous_end, running = -2, 0.0
    for match in _DURATION_PART.finditer(text):
        if match.group("clock"):
            parts = [int(p) for p in match.group("clock").split(":")]
            value = 0.0
            for part in parts:
                value = value * 60 + part
        elif match.group("half_en"):
            value = 1800.0 if match.group("half_unit").lower() == "hour" else 30.0
        elif match.group("quarter"):
            value = 900.0
        else:
            unit = match.group("unit") or match.group("eunit").lower().rstrip("s")
            said = match.group("n") if match.group("unit") else match.group("en")
            if said and counted and said.strip().lower() in ("a", "an"):
                continue
            if said:
                number = _amount(said)
            elif match.group("half") == "半":
                number = 0.0  # "半小时": half of one unit, not one and a half
            else:
                continue  # a unit alone: "小时候", "部分"
            if number is None:
                continue
            half = bool(match.group("half") or match.group("half2") or match.group("and_half")
                        or match.group("and_half2"))  # fmt: skip
            value = (number + (0.5 if half else 0.0)) * _UNIT_SECONDS[unit]
        if value <= 0:
            continue
        joined = _JOINER.fullmatch(text[previous_end : match.start()]) is not None
        running = running + value if joined and previous_end >= 0 else value
        previous_end = match.end()
        found.add(round(value))
        found.add(round(running))
    return found


_DURATION = re.compile(
    r"[\d零〇一二两三四五六七八九十百半]+\s*(?:个)?\s*(?:分钟|分|秒钟|秒|小时|钟头)"
    r"|\b(?:\d+|[a-z]+)(?:[\s-]+[a-z]+)?\s+(?:minutes?|mins?|seconds?|secs?|hours?)\b",
    re.IGNORECASE,
)
_NOT_TITLE = re.compile(f"{_EPISODE_PHRASE.pattern}|{_DURATION.pattern}", re.IGNORECASE)
"""What no keyword span contains or straddles: an episode phrase or a duration."""


MAX_ANSWER_NUMBERS = 6
"""How many numbers one Final Answer may state when its numbers are bounded."""

MAX_KNOWN_NUMBERS = 64
"""How many distinct numbers the answer's rule admits (the smallest kept)."""


def _known_digits(numbers: Iterable[str]) -> list[str]:
    """The digit strings of `numbers` the answer's rule admits, smallest first: whole ASCII
    digit runs of at most 12 characters, the `MAX_KNOWN_NUMBERS` smallest."""
    valid = sorted({n for n in numbers if n.isascii() and n.isdigit() and len(n) <= 12}, key=int)
    return valid[:MAX_KNOWN_NUMBERS]


def numbers_seen(text: str) -> set[str]:
    """The numbers `text` states, as the digit strings a Final Answer may write: its digit
    runs as written ("05" of "2分05秒") and its Chinese numerals and English number words
    as digits ("第二十集" gives "20", "five" gives "5")."""
    return set(re.findall(r"\d+", text)) | {str(n) for n in _plain_numbers(text)}


def _plain_numbers(text: str, *, words: bool = True) -> list[int]:
    """Digits, Chinese numerals and English number words in `text`; without `words`, a
    lone 一 or 两 (一下, 一共, 两本: words, not a number said) does not count."""
    from .fastpath import chinese_number

    found = [int(d) for d in re.findall(r"\d{1,4}", re.sub(r"(\d+)(?:st|nd|rd|th)\b", r"\1", text))]
    for run in re.findall(r"[零〇一二两三四五六七八九十百]+", text):
        if not words and run in ("一", "两"):
            continue
        value = chinese_number(run)
        if value is not None:
            found.append(value)
    for word in re.findall(r"[a-z]+", text.lower()):
        value = _EN_NUMBERS.get(word, _EN_ORDINALS.get(word))
        if value:
            found.append(value)
    return [n for n in found if n > 0]


_EN_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_EN_COMPOUND = re.compile(
    rf"\b({'|'.join(_EN_TENS)})[\s-]+(one|two|three|four|five|six|seven|eight|nine)\b"
    r"|\b(?:a|one)\s+hundred\b",
    re.IGNORECASE,
)
_CLOCK_TIME = re.compile(
    r"[\d零〇一二两三四五六七八九十]+\s*点(?:钟|半)?"
    r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)(?!\w)"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(?:am|pm|a\.m\.|p\.m\.)(?!\w)"
    r"|\b[a-z]+\s+o'clock\b",
    re.IGNORECASE,
)


def _clock_said(text: str) -> bool:
    """True when `text` says a time of day ("七点", "十点半", "7 am", "ten o'clock"); "一点"
    alone is "a little" ("大声一点"), never one o'clock."""
    return any(m.group().strip() != "一点" for m in _CLOCK_TIME.finditer(text))


def _percents(text: str) -> list[int]:
    """The numbers `text` says that can be a volume (0..100): not a duration ("十分钟"),
    a time of day ("七点", "7 am") or a numeral inside a word; "seventy five" is 75."""

    from .fastpath import number_value

    def compound(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return " 100 "
        return f" {number_value(match.group(1)) + _EN_NUMBERS[match.group(2).lower()]} "

    rest = _CLOCK_TIME.sub(" ", _DURATION.sub(" ", text))
    rest = _NUMERAL_IN_WORD.sub(" ", _EN_COMPOUND.sub(compound, rest))
    found = _plain_numbers(rest, words=False)
    found += [number_value(w) for w in re.findall(r"[a-z]+", rest.lower()) if w in _EN_TENS]
    if re.search(
        r"(?<![\d.])0(?![\d.])|\bzero\b|(?<![一二三四五六七八九十百千])零(?![一二三四五六七八九十])",
        rest,
    ):
        found.append(0)  # "音量调到零", "volume zero"
    return sorted({n for n in found if 0 <= n <= 100})


def _function_only(folded: str) -> bool:
    """True when `folded` text is made only of `_FUNCTION_CHARS` and `_FUNCTION_WORDS`."""
    tokens = [*_CJK_RUN.findall(folded), *re.findall(r"[a-z0-9'’]+", folded)]
    if not tokens:
        return False
    for token in tokens:
        if _CJK_RUN.fullmatch(token):
            if any(ch not in _FUNCTION_CHARS for ch in token):
                return False
        elif token.replace("’", "'") not in _FUNCTION_WORDS:
            return False
    return True


def _spans(text: str) -> list[str]:
    """Candidate keyword spans of an utterance, longest first."""
    spans: list[str] = []
    for run in _CJK_RUN.findall(text):
        for size in range(min(12, len(run)), 0, -1):
            spans.extend(run[i : i + size] for i in range(len(run) - size + 1))
    words = _WORD.findall(text)
    for size in range(min(6, len(words)), 0, -1):
        spans.extend(" ".join(words[i : i + size]) for i in range(len(words) - size + 1))
    mixed = re.sub(r"\s+", " ", re.sub(r"[，。！？,.!?；;：:、]", " ", text)).strip()
    if mixed and len(mixed) <= 30:
        spans.insert(0, mixed)
    seen: dict[str, None] = {}
    for span in spans:
        seen.setdefault(span, None)
    return list(seen)


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _rule_name(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower() or "x"


_COUNT_MAX = 9999
_NATURAL_MAX = 9_999_999
_FRACTION = '( "." [0-9]{1,6} )?'
_ZEROS = '( "." "0"{1,6} )?'
_COMMON_NUMBERS = {
    (True, 1, _COUNT_MAX): "json-count",
    (True, 0, _NATURAL_MAX): "json-natural",
    (True, -_NATURAL_MAX, _NATURAL_MAX): "json-integer",
    (False, -_NATURAL_MAX, _NATURAL_MAX): "json-number",
}
"""Bounds whose rule is one of the common ones (`_COMMON`)."""


def _bounds(schema: dict[str, Any]) -> tuple[int | None, int | None]:
    """The schema's inclusive bounds as integers, rounded inwards: ``minimum``/``maximum``
    and ``exclusiveMinimum``/``exclusiveMaximum`` (JSON Schema 2020-12). A number's
    fractional bound is rounded to the whole number inside it, so the grammar admits a
    subset of the schema's values, never one outside (``minimum: 0.5`` starts at 1)."""

    def bound(key: str, exclusive: str, up: bool) -> int | None:
        values = []
        for name, strict in ((key, False), (exclusive, True)):
            value = schema.get(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if not math.isfinite(value):
                continue
            whole = math.ceil(value) if up else math.floor(value)
            if strict and whole == value:
                whole += 1 if up else -1
            values.append(int(whole))
        if not values:
            return None
        return max(values) if up else min(values)

    return bound("minimum", "exclusiveMinimum", True), bound("maximum", "exclusiveMaximum", False)


def _digit_alternatives(a: str, b: str) -> list[str]:
    """GBNF sequences for the decimal strings of one length from `a` to `b` (a <= b)."""
    if a == b:
        return [f'"{a}"']
    if len(a) == 1:
        return [f"[{a}-{b}]"]
    if a[0] == b[0]:
        return [f'"{a[0]}" {rest}' for rest in _digit_alternatives(a[1:], b[1:])]
    tail = len(a) - 1
    low, high = int(a[0]), int(b[0])
    alternatives = []
    if a[1:] != "0" * tail:
        alternatives += [f'"{a[0]}" {r}' for r in _digit_alternatives(a[1:], "9" * tail)]
        low += 1
    upper = [] if b[1:] == "9" * tail else _digit_alternatives("0" * tail, b[1:])
    if upper:
        high -= 1
    if low <= high:
        first = f'"{low}"' if low == high else f"[{low}-{high}]"
        alternatives.append(f"{first} [0-9]" + (f"{{{tail}}}" if tail > 1 else ""))
    alternatives += [f'"{b[0]}" {r}' for r in upper]
    return alternatives


def _digits(low: int, high: int) -> str:
    """A GBNF expression for the integers `low`..`high` (0 <= low <= high) written in
    decimal without leading zeros."""
    alternatives = []
    for size in range(len(str(low)), len(str(high)) + 1):
        a = max(low, 10 ** (size - 1) if size > 1 else 0)
        b = min(high, 10**size - 1)
        if a <= b:
            alternatives += _digit_alternatives(str(a), str(b))
    return alternatives[0] if len(alternatives) == 1 else "( " + " | ".join(alternatives) + " )"


def _number_range(low: int, high: int, integral: bool) -> str:
    """A GBNF expression for the JSON integers (or numbers, with up to six decimals) from
    `low` to `high` inclusive; a fraction only where the value stays within them."""

    def side(first: int, last: int) -> list[str]:
        """Magnitudes first..last (0 <= first <= last): a fraction below `last`."""
        if integral:
            return [_digits(first, last)]
        parts = [f"{_digits(first, last - 1)} {_FRACTION}"] if first < last else []
        return [*parts, f'"{last}" {_ZEROS}']

    alternatives = []
    if low < 0:  # "-" and a magnitude; -0 only with a fraction ("-0.5")
        magnitudes = side(max(1, -high) if high < 0 else 1, -low)
        if not integral and high >= 0:
            magnitudes.insert(0, '"0" "." [0-9]{1,6}')
        joined = magnitudes[0] if len(magnitudes) == 1 else "( " + " | ".join(magnitudes) + " )"
        alternatives.append(f'"-" {joined}')
    if high >= 0:
        alternatives += side(max(low, 0), high)
    return " | ".join(alternatives)


class _Builder:
    def __init__(self, constraints: Constraints | None, string_chars: int) -> None:
        self.rules: dict[str, str] = {}
        self.constraints = constraints or Constraints()
        self.string_chars = string_chars

    def add(self, name: str, body: str) -> str:
        base = name
        n = 2
        while name in self.rules and self.rules[name] != body:
            name = f"{base}-{n}"
            n += 1
        self.rules[name] = body
        return name

    def admissible(self, schema: dict[str, Any]) -> bool:
        """False when the argument's role admits no value now (the key is left out)."""
        role = _role(schema)
        return (
            role is None
            or role not in self.constraints.choices
            or bool(self.constraints.choices[role])
        )

    def value(self, schema: dict[str, Any], argument: str) -> str:
        """A GBNF expression for one JSON value matching `schema`."""
        role = _role(schema)
        choices = self.constraints.choices.get(role) if role else None
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else ([kinds] if kinds else [])
        if choices:
            if "integer" in kinds or "number" in kinds:
                low, high = schema.get("minimum"), schema.get("maximum")
                literals = [
                    str(int(c))
                    for c in choices
                    if str(c).lstrip("-").isdigit()
                    and (low is None or int(c) >= low)
                    and (high is None or int(c) <= high)
                ]
            else:
                literals = [json.dumps(str(c), ensure_ascii=False) for c in choices]
            if literals:
                return "(" + " | ".join(_literal(v) for v in literals) + ")"
        if "enum" in schema:
            return (
                "("
                + " | ".join(_literal(json.dumps(v, ensure_ascii=False)) for v in schema["enum"])
                + ")"
            )
        if "const" in schema:
            return _literal(json.dumps(schema["const"], ensure_ascii=False))
        if "anyOf" in schema or "oneOf" in schema:
            options = schema.get("anyOf") or schema.get("oneOf")
            return "(" + " | ".join(self.value(o, argument) for o in options) + ")"
        if not kinds:
            return "json-value"
        if len(kinds) > 1 and "null" in kinds:
            kinds = [k for k in kinds if k != "null"]  # leave the key out instead
        parts = []
        for kind in kinds:
            if kind == "integer":
                parts.append(self.number(schema, integral=True))
            elif kind == "number":
                parts.append(self.number(schema))
            elif kind == "string":
                parts.append(self.string(schema))
            elif kind == "boolean":
                parts.append('("true" | "false")')
            elif kind == "null":
                parts.append('"null"')
            elif kind == "array":
                items = self.value(schema.get("items", {}), argument + "-item")
                parts.append(f'"[" ( {items} ( "," ws {items} ){{0,15}} )? "]"')
            else:
                parts.append("json-object")
        return parts[0] if len(parts) == 1 else "(" + " | ".join(parts) + ")"

    def number(self, schema: dict[str, Any], *, integral: bool = False) -> str:
        """A rule for a JSON integer or number within the schema's bounds (`_bounds`): a
        non-negative one admits no minus sign, a bounded one no value past its bounds;
        small integer ranges are written out."""
        role = _role(schema)
        known = self.constraints.ranges.get(role) if role else None
        low, high = _bounds(schema)
        if known is not None:
            low = known[0] if low is None else max(low, known[0])
            high = known[1] if high is None else min(high, known[1])
        if integral and low is not None and high is not None:
            if 0 <= high - low < _MAX_ENUMERATED_RANGE:
                return self.add(
                    f"range-{low}-{high}".replace("--", "-m"),
                    " | ".join(_literal(str(i)) for i in range(low, high + 1)),
                )
        # Unbounded above: a count or an ordinal (episode, page, minutes) stays below
        # 10000, any other value below ten million, as the common rules have it.
        count = (low is not None and low >= 1) or (low is None and _positive(schema.get("default")))
        cap = _COUNT_MAX if count else _NATURAL_MAX
        if low is None and count:
            low = 1
        if high is None:
            high = max(cap, low or 0)
        if low is None:
            low = -max(cap, abs(high))
        if low > high:
            return '"0"' if integral else "json-number"  # an empty range: the schema errs
        common = _COMMON_NUMBERS.get((integral, low, high))
        if common is not None:
            return common
        name = f"{'int' if integral else 'num'}-{low}-{high}".replace("--", "-m")
        return self.add(name, _number_range(low, high, integral))

    def string(self, schema: dict[str, Any]) -> str:
        limit = min(int(schema.get("maxLength", self.string_chars)), self.string_chars)
        low = int(schema.get("minLength", 0))
        return self.add(f"string-{low}-{limit}", f'"\\"" json-char{{{low},{limit}}} "\\""')

    def obj(self, schema: dict[str, Any], prefix: str, *, title_needed: bool = False) -> str:
        """A rule for a JSON object with `schema`'s properties in schema order; with
        `title_needed` its title must be given (`Constraints.replays`)."""
        props: dict[str, Any] = schema.get("properties", {}) or {}
        forced = set(schema.get("required", []))
        if title_needed:
            forced |= {k for k, p in props.items() if _role(p) == TITLE}
        if not any(_role(p) == ALBUM_ID for p in props.values()):
            # A title the listener named must be given (not where an id says the album).
            forced |= {k for k, p in props.items() if _role(p) in self.constraints.required}
        props = {k: p for k, p in props.items() if k in forced or self.admissible(p)}
        if not props:
            if schema.get("additionalProperties", True) is False or "properties" in schema:
                return '"{}"'
            return "json-object"
        pair = {
            key: f'{_literal(json.dumps(key, ensure_ascii=False))} ws ":" ws '
            f"{self.value(props[key], key)}"
            for key in props
        }
        # Keys in schema order (as the examples write them); required ones must appear.
        keys = list(props)

        def rest(i: int) -> str:  # keys i.. after one already written
            if i == len(keys):
                return ""
            item = f'"," ws {pair[keys[i]]}'
            item = item if keys[i] in forced else f"( {item} )?"
            return f"{item} {rest(i + 1)}".strip()

        def first(i: int) -> str:  # keys i.. with none written yet ("" or nullable)
            if i == len(keys):
                return ""
            here = f"{pair[keys[i]]} {rest(i + 1)}".strip()
            if keys[i] in forced:
                return here
            later = first(i + 1)
            return f"( {here} | {later} )" if later else f"( {here} )?"

        return self.add(f"{prefix}-args", f'"{{" ws {first(0)} ws "}}"')


_COMMON = r"""
ws ::= " "?
json-char ::= [^"\\\x00-\x1f] | "\\" ["\\/bfnrt]
json-string ::= "\"" json-char{0,80} "\""
json-natural ::= "0" | [1-9] [0-9]{0,6}
json-count ::= [1-9] [0-9]{0,3}
json-integer ::= "-"? json-natural
json-number ::= json-integer ( "." [0-9]{1,6} )?
json-value ::= json-string | json-number | "true" | "false" | "null" | json-array | json-object
json-array ::= "[" ws ( json-value ( "," ws json-value ){0,15} )? ws "]"
json-object ::= "{" ws ( json-string ws ":" ws json-value ( "," ws json-string ws ":" ws json-value ){0,15} )? ws "}"
"""


def build_grammar(
    tools: ToolRegistry | Iterable[Tool],
    *,
    constraints: Constraints | None = None,
    thought_chars: int = 160,
    answer_chars: int = 240,
    string_chars: int = 60,
    allow_final: bool = True,
    answer_numbers: Iterable[str] | None = None,
    final_thought: str = "",
    answer_text: str = "",
) -> str:
    """GBNF text for one reply: a Thought line, then one tool call or a Final Answer.

    `thought_chars`, `answer_chars` and `string_chars` bound the Thought line, the answer
    line and every JSON string value (characters). `allow_final=False` forces a tool call.
    `answer_numbers` (digit strings such as "30", "05") are the only numbers the Final
    Answer may write in ASCII digits, each whole (never two run together): the loop passes
    the numbers of the utterance, the player's state and the observations, so a count, a
    distance or a height cannot be invented. None admits any digits; an empty collection
    none.
    `final_thought` (e.g. "播放器状态") is the start a Thought must have for a Final
    Answer to follow it while a tool call is possible: an answer without a tool is then
    only one the model grounded in the player's state.
    `answer_text`, when given, is the only Final Answer (the loop passes the message of
    the tool result just observed: the listener hears the data, never a retelling); the
    model still chooses between it and another tool call.
    Raises ValueError when there are no tools and no Final Answer is allowed.
    """
    tool_list = tools.tools() if isinstance(tools, ToolRegistry) else list(tools)
    if not tool_list and not allow_final:
        raise ValueError("a grammar needs at least one tool or a Final Answer")
    builder = _Builder(constraints, string_chars)
    calls = []
    for tool in tool_list:
        prefix = "t-" + _rule_name(tool.name)
        args = builder.obj(tool.parameters, prefix, title_needed=builder.constraints.replays(tool))
        calls.append(
            builder.add(prefix, f"{_literal(tool.name + chr(10) + 'Action Input: ')} {args}")
        )
    action = '"Action: " ( ' + " | ".join(calls) + " )" if calls else ""
    final = ""
    extra: list[str] = []
    known = None if answer_numbers is None else _known_digits(answer_numbers)
    if allow_final and answer_text.strip():
        final = '"Final Answer: " ' + _literal(" ".join(answer_text.split()))
    elif allow_final and known is None:
        final = f'"Final Answer: " line-char{{1,{answer_chars}}}'
    elif allow_final and not known:
        final = f'"Final Answer: " answer-char{{1,{answer_chars}}}'
    elif allow_final:
        final = (
            '"Final Answer: " ( answer-number answer-text | answer-text ) '
            f"( answer-number answer-text ){{0,{MAX_ANSWER_NUMBERS - 1}}} answer-number?"
        )
        extra += [
            f"answer-text ::= answer-char{{1,{answer_chars}}}",
            "answer-number ::= " + " | ".join(f'"{n}"' for n in known),
        ]
    thought = f'line-char{{1,{thought_chars}}} "\\n"'
    if action and final and final_thought and len(final_thought) < thought_chars:
        grounded = f"{_literal(final_thought)} line-char{{0,{thought_chars - len(final_thought)}}}"
        body = f'( {thought} {action} | {grounded} "\\n" {final} )'
    else:
        body = f"{thought} ( {' | '.join(b for b in (action, final) if b)} )"
    lines = [
        f'root ::= "Thought: " {body}',
        "line-char ::= [^\\n\\r\\x00-\\x1f]",
        "answer-char ::= [^\\n\\r\\x00-\\x1f0-9]",
        *extra,
    ]
    lines.extend(f"{name} ::= {body}" for name, body in builder.rules.items())
    return "\n".join(lines) + "\n" + _COMMON.strip() + "\n"
