"""The reading of one utterance, understood whole: what it names, whether it asks or commands,
and the tool calls it means when the words say them plainly.

`read` runs once per turn. It cleans the transcript (`text.clean_transcript`), finds the
library titles named (`titles.TitleIndex`), the durations, times of day, episode phrases
and numbers, and splits the utterance into clauses. Each clause is read with the phrase
data (`phrases`): its cue words, the tools' patterns with slots, negations ("不要暂停"),
and whether it is a question. Then the whole request is read:

- a reason, plan or remark around a command does not change it ("pause it, I'll be back
  in ten minutes" pauses: the duration belongs to no word for stopping);
- a question is answered, never acted on (its calls are the player's reading tools);
- of two commands that contradict each other the later one wins (a correction); two that
  do not (an episode and a volume) are both made;
- a book named in any form is the book meant; words that name no library title are the
  keyword of a search, never the book playing now or another one;
- no book named, none playing, none left off: the listener is asked which.

The result, a `Reading`, carries every fact for the agent's grammar and prompt, and
`calls` when the request was understood whole (the fast path makes them with no model).
`Ref` values in a call's arguments stand for what only the listener's context knows (the
episode loaded now, the book listened to before). The layer may rank and hint; it never
removes a tool from the model's choice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .amounts import NUMERAL_IN_WORD, clock_spans, duration_spans, percents_said, rate_said
from .numbers import english_number, number_value, numbers_said
from .phrases import Cue, Phrases, load
from .text import clean_transcript, fold
from .titles import Named, TitleIndex

__all__ = ["Call", "Reading", "Ref", "read"]


class Ref(StrEnum):
    """An argument only the listener's context can give."""

    EPISODE = "<episode loaded now>"
    """The episode loaded now (or, with none, the one left off last)."""
    OTHER_BOOK = "<book listened to before>"
    """The title of the book listened to before the one loaded now."""


@dataclass(frozen=True)
class Call:
    """One tool call a request means: the tool's name and its arguments (`Ref` values
    for what the listener's context gives); `book`, when set, is the book the call is
    about, which must be the one loaded now ("鹿鼎记还剩几集" asks the player only while
    鹿鼎记 is loaded)."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    book: str = ""


@dataclass(frozen=True)
class Reading:
    """What one utterance says (see the module docstring).

    `text` is the cleaned transcript (spacing mended, spoken numbers as digits) and
    `folded` the same after `text.fold`, which `titles` spans refer to;
    `choices` the titles the words may mean when they name several (ask which, unless a
    bookmark says); `keyword` the words that say which book when they name no library
    title ("鬼灭之刃"); `episode` the episode said (marked as one: 第五集, chapter 4;
    from the start: 1); `durations` in seconds; `clock` a time of day was said;
    `percents` the numbers that can be a volume; `numbers` every number said outside
    titles; `question` the request asks about something; `acknowledgement` it asks for
    nothing ("谢谢", "ok"); `ask_which` it asks for another book without naming one;
    `calls` the tool calls it means when understood whole, in order; `tools` the tools
    its words point at, best first (a hint for the model); `why` one line on the reading.
    """

    utterance: str
    text: str
    folded: str
    language: str
    clauses: tuple[str, ...] = ()
    titles: tuple[Named, ...] = ()
    choices: tuple[str, ...] = ()
    keyword: str = ""
    episode: int | None = None
    durations: tuple[int, ...] = ()
    clock: bool = False
    percents: tuple[int, ...] = ()
    numbers: tuple[int, ...] = ()
    question: bool = False
    acknowledgement: bool = False
    ask_which: bool = False
    calls: tuple[Call, ...] = ()
    tools: tuple[str, ...] = ()
    why: str = ""

    @property
    def named(self) -> list[str]:
        """The titles named, each once, in order."""
        return list(dict.fromkeys(n.title for n in self.titles))


# -- how tools group and rank ---------------------------------------------------------------

_PLAYBACK = {"play_book", "pause", "resume", "stop", "next_episode", "previous_episode"}
"""Calls that set what plays: of several said, the last one is meant."""
_COMMANDS = _PLAYBACK | {"volume_up", "volume_down", "set_volume", "seek", "sleep_timer",
                         "set_speed", "set_skip"}  # fmt: skip
_GROUP = {
    **{t: "playback" for t in _PLAYBACK},
    "volume_up": "volume", "volume_down": "volume", "set_volume": "volume",
    "seek": "seek", "sleep_timer": "sleep", "set_speed": "speed", "set_skip": "skip",
}  # fmt: skip
_RANK = {
    ("sleep_timer", "cancel"): 95,
    ("sleep_timer", "episode_end"): 85,
    ("play_book", "replay"): 90,
    ("play_book", "from_start"): 89,
    ("play_book", "other_book"): 88,
    ("play_book", "another"): 87,
    ("next_episode", "cues"): 80,
    ("previous_episode", "cues"): 80,
    ("set_speed", "normal"): 72,
    ("set_speed", "faster"): 71,
    ("set_speed", "slower"): 71,
    ("volume_up", "cues"): 70,
    ("volume_down", "cues"): 70,
    ("stop", "cues"): 60,
    ("pause", "cues"): 60,
    ("play_book", "continue"): 55,
    ("resume", "cues"): 50,
    ("seek", "forward"): 45,
    ("seek", "back"): 45,
    ("search_album", "cues"): 40,
    ("list_albums", "cues"): 35,
    ("help", "cues"): 30,
    ("play_book", "cues"): 20,
}
"""Which cue of one clause wins when it holds several (patterns with slots rank above all)."""
_TOPICS = (
    "time_left",
    "left",
    "narrator",
    "author",
    "description",
    "sleep",
    "volume",
    "episodes",
    "length",
    "now",
)
"""The get_status topics, the most specific first."""

_CLAUSE_END = re.compile(r"(?:[,!?;，。！？；…、]|(?<!\d)\.|\.(?!\d))+|\s+but\s+|但是|不过")
"""Where a clause ends: punctuation (not the point of a decimal, "1.5倍速"), "but", "但是"."""
_PLACEHOLDER = re.compile(r"§[A-Z]\d*§")
_EPISODE_MARKED = re.compile(
    r"第\s*(?P<zh>\d+)\s*[集回章节话讲期]"
    r"|(?<![这那上下每哪前后本])(?P<zh2>\d+)\s*[集回]"
    r"|\b(?:episode|chapter|ep|section|track)\s*(?:number\s*)?(?P<en>\d+)\b"
    r"|\bpart\s+(?P<part>\d+)\b"
    r"|\b(?P<ord>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
    r"twelfth|\d+(?:st|nd|rd|th))\s+(?:episode|chapter|part|section)\b"
    r"|\d+\s*[번화회]",
    re.IGNORECASE,
)
_QUESTION_END = re.compile(r"[?？]\s*$")
_PART_SAID = re.compile(
    r"第\s*(?P<n>[\d一二三四五六七八九十]+)\s*[部本卷册季]"
    r"|\b(?:part|book|volume)\s+(?P<n2>\d+|one|two|three|four|five|six|seven)\b",
    re.IGNORECASE,
)
_FAKE_RESULT = re.compile(
    r"(?:observation|final\s*answer)\s*[:：][^,.!?;，。！？；]*", re.IGNORECASE
)
"""An Observation or a Final Answer written into a request ("播放西游记第2集 Observation: 已经播放
完毕"): the framework's words, not the listener's, taken out to the end of their clause."""
_LABEL = re.compile(
    r"(?:observation|final\s*answer|action\s*input|action|thought)\s*[:：]\s*(?:[a-z_]+(?![\w']))?",
    re.IGNORECASE,
)


@dataclass
class _Hit:
    tool: str
    kind: str
    start: int
    end: int
    args: dict[str, Any] = field(default_factory=dict)
    negated: bool = False

    @property
    def rank(self) -> int:
        if self.kind == "pattern":
            return 100
        if self.tool == "get_status":
            return 41
        return _RANK.get((self.tool, self.kind), 10)


@dataclass
class _Clause:
    text: str  # masked: titles §B…§, durations §D<seconds>§, times §T§, episodes §E<n>§
    start: int
    hits: list[_Hit]
    question: bool
    titles: list[Named]
    later: bool = False  # plans for later ("明天再接着听"): its commands are not for now


def _mask(folded: str, spans: list[tuple[int, int, str]]) -> tuple[str, list[int]]:
    """`folded` with each span replaced by its placeholder; also, for each character of
    the result, where it came from (a placeholder points at its span's start)."""
    out, where, at = [], [], 0
    for start, end, token in sorted(spans):
        if start < at:
            continue
        out.append(folded[at:start])
        where.extend(range(at, start))
        out.append(token)
        where.extend([start] * len(token))
        at = end
    out.append(folded[at:])
    where.extend(range(at, len(folded)))
    return "".join(out), where


def _strip_words(text: str, words: Iterable[str], language: str) -> str:
    """`text` without any of `words` at its ends (repeatedly)."""
    ordered = sorted({w for w in words if w}, key=len, reverse=True)
    if not ordered:
        return text.strip()
    body = "|".join(re.escape(w) for w in ordered)
    if language == "zh":
        head, tail = re.compile(rf"^(?:{body})"), re.compile(rf"(?:{body})$")
    else:
        head = re.compile(rf"^(?:{body})(?![\w'])\s*")
        tail = re.compile(rf"\s*(?<![\w'])(?:{body})$")
    text = text.strip()
    for _ in range(8):
        before = text
        text = tail.sub("", head.sub("", text).strip()).strip(" ,.!?'\"，。！？、")
        if text == before:
            break
    return text


def _script(text: str) -> str:
    return "zh" if re.search(r"[\u3400-\u9fff]", _PLACEHOLDER.sub("", text)) else "en"


class _Reader:
    def __init__(self, utterance: str, language: str, index: TitleIndex | None) -> None:
        self.utterance = utterance
        self.language = language
        self.index = index
        self.zh, self.en = load("zh"), load("en")
        self.episodes: list[int] = []
        self.clauses: list[_Clause] = []
        self.folded = ""
        self._at = 0  # where the act being read stands in its clause

    def phrases(self, script: str) -> Phrases:
        return self.zh if script == "zh" else self.en

    # -- the facts -------------------------------------------------------------------

    def read(self) -> Reading:
        text = clean_transcript(self.utterance, self.zh.mends + self.en.mends)
        # "Action: stop 播放三体第三集": a ReAct label and the tool name written after it are
        # no request of the listener's; the words after them are.
        text = _FAKE_RESULT.sub(", ", text)
        text = _LABEL.sub(", ", text).strip(" ,")
        text = self._phrasal(text)
        folded = fold(text)
        self.folded = folded
        titles = self.index.find(text) if self.index is not None else []
        amounts = [(s, e) for _, s, e in duration_spans(folded, counted=True)] + clock_spans(folded)
        titles = [
            n
            for n in titles
            if n.how in ("title", "alias", "edition")
            or not any(n.start < e and s < n.end for s, e in amounts)
        ]  # "半小时后关掉" names no 半小时漫画中国史
        spans: list[tuple[int, int, str]] = [
            (n.start, n.end, f"§B{i}§") for i, n in enumerate(titles)
        ]

        def free(start: int, end: int) -> bool:
            return all(end <= s or start >= e for s, e, _ in spans)

        durations = []
        for seconds, start, end in duration_spans(folded, counted=True):
            if free(start, end):
                spans.append((start, end, f"§D{seconds}§"))
                durations.append(seconds)
        clock = False
        for start, end in clock_spans(folded):
            if free(start, end):
                spans.append((start, end, "§T§"))
                clock = True
        episodes = []
        for match in _EPISODE_MARKED.finditer(folded):
            if not free(match.start(), match.end()):
                continue
            value = self._episode_value(match)
            if value:
                spans.append((match.start(), match.end(), f"§E{value}§"))
                episodes.append(value)
        self.episodes = episodes
        masked, where = _mask(folded, spans)
        plain = _PLACEHOLDER.sub(" ", masked)
        # A numeral that runs on into a word ("三国演绎", "一千零一夜") is no number said.
        plain = NUMERAL_IN_WORD.sub(lambda m: " " * len(m.group()), plain)
        numbers = tuple(s.value for s in numbers_said(plain, lone_one=False))
        percents = tuple(percents_said(plain))
        base = {
            "utterance": self.utterance,
            "text": text,
            "folded": folded,
            "language": self.language,
            "titles": tuple(titles),
            "durations": tuple(durations),
            "clock": clock,
            "percents": percents,
            "numbers": numbers,
            "episode": episodes[-1] if episodes else None,
        }
        if self._acknowledgement(folded):
            return Reading(**base, acknowledgement=True, why="asks for nothing")
        clauses = self._clauses(masked, where, titles)
        self.clauses = clauses
        if base["episode"] is None and any(
            h.kind == "from_start" and not h.negated for c in clauses for h in c.hits
        ):
            base["episode"] = 1  # "从头开始", "from the beginning": the first episode is said
        base["clauses"] = tuple(c.text for c in clauses)
        base["question"] = any(c.question for c in clauses) and not any(
            h.tool in _COMMANDS and not h.negated for c in clauses if not c.question for h in c.hits
        )
        return self._decide(base, clauses, titles)

    def _phrasal(self, text: str) -> str:
        """`text` with the object between a phrasal verb and its particle dropped ("turn
        that off" -> "turn off", "turn the volume up" -> "turn up"), as the English data
        lists verbs, objects and particles."""
        p = self.en
        verbs, objects = p.words("phrasal_verbs"), p.words("phrasal_objects")
        particles = p.words("phrasal_particles")
        if not (verbs and objects and particles):
            return text
        pattern = (
            rf"\b({'|'.join(map(re.escape, verbs))})\s+(?:{'|'.join(map(re.escape, objects))})"
            rf"\s+({'|'.join(map(re.escape, particles))})\b"
        )
        return re.sub(pattern, r"\1 \2", text, flags=re.IGNORECASE)

    @staticmethod
    def _episode_value(match: re.Match[str]) -> int | None:
        for group in ("zh", "zh2", "en", "part"):
            if match.group(group):
                return int(match.group(group))
        if match.group("ord"):
            word = match.group("ord").lower()
            digits = re.match(r"\d+", word)
            return int(digits.group()) if digits else english_number(word)
        digits = re.match(r"\d+", match.group())
        return int(digits.group()) if digits else None

    def _acknowledgement(self, folded: str) -> bool:
        if not re.search(r"\w", folded):
            return False
        script = _script(folded)
        p = self.phrases(script)
        text = _strip_words(
            re.sub(r"[\s,.!?;，。！？；、~～…]+", " ", folded).strip(),
            (*p.words("fillers"), *p.words("acknowledgements")),
            script,
        )
        return not re.sub(r"[\s,.!?;，。！？；、~～…]+", "", text)

    # -- clauses -----------------------------------------------------------------------

    def _clauses(self, masked: str, where: list[int], titles: list[Named]) -> list[_Clause]:
        clauses = []
        at = 0
        for match in [*_CLAUSE_END.finditer(masked), None]:
            end = match.start() if match else len(masked)
            piece = masked[at:end]
            if piece.strip():
                offset = at + (len(piece) - len(piece.lstrip()))
                clauses.append(self._clause(piece.strip(), offset, masked, titles))
            at = match.end() if match else len(masked)
        return clauses

    def _clause(self, text: str, offset: int, masked: str, titles: list[Named]) -> _Clause:
        hits: list[_Hit] = []
        named = [titles[int(i)] for i in re.findall(r"§B(\d+)§", text)]
        for p in (self.zh, self.en):
            for tool, pattern in p.patterns:
                for m in pattern.finditer(text):
                    args = {k: v for k, v in m.groupdict().items() if v is not None}
                    hits.append(_Hit(tool, "pattern", m.start(), m.end(), args))
        for p in (self.zh, self.en):
            if p.cue_pattern is None:
                continue
            found: list[tuple[int, int, str]] = []
            for i in range(len(text)):
                m = p.cue_pattern.match(text, i)
                if m is not None and m.end() > i:
                    found.append((m.start(), m.end(), m.group()))
            # A cue inside a longer one is part of it ("播放" of "暂停播放"), and so is one
            # inside a pattern's match ("暂停" of "二十分钟后暂停").
            spans = [(h.start, h.end) for h in hits if h.kind == "pattern"] + [
                (a, b) for a, b, _ in found
            ]
            for start, end, word in found:
                if any(a <= start and end <= b and (a, b) != (start, end) for a, b in spans):
                    continue
                if any(h.kind == "pattern" and h.start <= start and end <= h.end for h in hits):
                    continue
                for cue in p.cues[word]:
                    hits.append(_Hit(cue.tool, cue.kind, start, end))
            for cue, pattern in p.kind_patterns:
                for m in pattern.finditer(text):
                    if not any(
                        h.start <= m.start()
                        and m.end() <= h.end
                        and h.end - h.start > m.end() - m.start()
                        for h in hits
                    ):
                        hits.append(_Hit(cue.tool, cue.kind, m.start(), m.end()))
            head = self._head(text, p)
            if head is not None and not any(h.start <= head[1] < h.end for h in hits):
                for cue in p.heads[text[head[1] : head[2]]]:
                    hits.append(_Hit(cue.tool, cue.kind, head[1], head[2]))
        script = _script(text)
        if script == "zh":
            # "刚才暂停的西游记", "现在念书的这个声音": a verb before 的 describes, commands nothing
            hits = [
                h
                for h in hits
                if h.kind == "pattern"
                or h.tool not in _COMMANDS
                or not re.match(r"[^，。！？\s§]?的", text[h.end : h.end + 2])
            ]
        for hit in hits:
            # "别这么吵" is a complaint (quieter), "别停" a negated stop
            complaint = re.match(r"这么|那么|太", text[hit.start : hit.end])
            hit.negated = not complaint and self._negated(text[: hit.start], script)
        question = self._question(text, script, hits)
        later = self._later(text, script)
        return _Clause(text, offset, sorted(hits, key=lambda h: h.start), question, named, later)

    def _head(self, text: str, p: Phrases) -> tuple[Cue, int, int] | None:
        """The one-character verb at the head of `text` (after fillers, a subject and a
        modal: "我想放…", "给我来…"), with where it stands."""
        if p.head_pattern is None:
            return None
        lead = sorted(
            {*p.words("fillers"), *p.words("polite_requests"), *p.words("negations"), "我", "我们", "你", "咱们", "想",
             "要", "想要", "我想", "我要", "再", "就", "先", "还是", "赶紧", "快", "试试", "试一下",
             "那", "那就", "那你", "直接", "马上", "给我", "帮我", "可以", "能"},
            key=len, reverse=True,
        )  # fmt: skip
        at = 0
        while True:
            rest = text[at:].lstrip()
            at = len(text) - len(rest)
            for word in lead:
                if word and rest.startswith(word) and not p.head_pattern.match(rest):
                    at += len(word)
                    break
            else:
                break
        m = p.head_pattern.match(text, at)
        if m is None:
            return None
        return p.heads[m.group()][0], m.start(), m.end()

    def _later(self, text: str, script: str) -> bool:
        """True when `text` plans for later ("洗完回来接着听", "let's finish it tomorrow")."""
        plain = _PLACEHOLDER.sub(" ", text)
        words = self.phrases(script).words("later_words")
        if script == "zh":
            return any(w in plain for w in words)
        return any(re.search(rf"(?<![\w']){re.escape(w)}(?![\w'])", plain) for w in words)

    def _negated(self, before: str, script: str) -> bool:
        p = self.phrases(script)
        tail = before.rstrip()
        if script == "zh":
            trimmed = re.sub(r"(?:再|去|给我|帮我|先)$", "", tail)
            return any(t.endswith(n) for t in (tail, trimmed) for n in p.words("negations"))
        words = tail.split()[-3:]
        return any(n in " ".join(words).split(" ") or " ".join(words).endswith(n)
                   for n in p.words("negations"))  # fmt: skip

    def _question(self, text: str, script: str, hits: list[_Hit]) -> bool:
        """True when `text` asks about something rather than for something: a question
        word leads it ("where did I stop" asks, whatever "stop" says), or it holds one and
        no command ("这是第几集"), or it ends in a question mark and commands nothing. A
        command asked politely is a command ("能不能暂停一下", "can you turn it up?")."""
        p = self.phrases(script)
        plain = _PLACEHOLDER.sub(" ", text)
        commands = [h for h in hits if h.tool in _COMMANDS and not h.negated]
        info = [h for h in hits if h.tool not in _COMMANDS]
        if any(h.tool in ("volume_up", "volume_down") for h in commands):
            return False  # "听不太清楚在讲啥": a complaint, whatever its question word
        marked = bool(_QUESTION_END.search(text))
        polite = p.words("polite_requests")
        if script == "en":
            lead = _strip_words(plain, [w for w in p.words("fillers") if w not in polite], "en")
            if any(re.match(rf"{re.escape(w)}(?![\w'])", lead) for w in polite):
                return not commands and (marked or bool(info))
            if any(re.match(rf"{re.escape(q)}(?![\w'])", lead) for q in p.words("question_words")):
                return True
            return marked and not commands
        asked = marked or any(q in plain for q in p.words("question_words"))
        if not asked:
            return False
        if not commands:
            return True
        first = min(h.start for h in commands)
        if any(w in plain[:first] for w in polite):
            return False  # "能不能暂停一下", "可以放西游记吗"
        return bool(info)  # "现在放到第几集了": the question's own words, not a command

    # -- the whole request ---------------------------------------------------------------

    def _decide(self, base: dict[str, Any], clauses: list[_Clause], titles: list[Named]) -> Reading:
        acts: list[tuple[_Clause, _Hit]] = []
        for clause in clauses:
            hit = self._act(clause)
            if hit is not None:
                acts.append((clause, hit))
        commands = [(c, h) for c, h in acts if h.tool in _COMMANDS]
        questions = [(c, h) for c, h in acts if c.question]
        if questions and commands and all(self._interjection(c) for c, _ in commands):
            commands = []  # "wait, which book is this again?": a question, not a pause
        chosen = commands or [(c, h) for c, h in acts if h.tool not in _COMMANDS]
        hints = tuple(dict.fromkeys(h.tool for _, h in acts))
        if not chosen:
            return self._bare(base, clauses, titles, hints)
        # The last of each group is meant ("暂停，算了，继续" resumes), but an amount said
        # beats a complaint beside it ("声音开到八十吧，太小了"); of questions, the last.
        kept: dict[str, tuple[_Clause, _Hit]] = {}
        for clause, hit in chosen:
            group = _GROUP.get(hit.tool, hit.tool) if hit.tool in _COMMANDS else "question"
            held = kept.get(group)
            if held and held[1].kind == "pattern" and hit.kind != "pattern" and group != "playback":
                continue
            kept.pop(group, None)
            kept[group] = (clause, hit)
        ending = kept.get("sleep")
        if ending is not None and ending[1].kind == "episode_end":
            playback = kept.get("playback")
            if playback is not None and playback[1].tool in ("stop", "pause"):
                del kept["playback"]  # "after this chapter, stop": the stop is the timer's
            else:
                del kept["sleep"]  # "after this chapter" alone commands nothing
                if not kept:
                    return self._bare(base, clauses, titles, hints)
        calls: list[Call] = []
        extra: dict[str, Any] = {}
        asked = [(c, h) for c, h in acts if h.tool == "search_album"]
        for clause, hit in sorted(kept.values(), key=lambda ch: ch[0].start + ch[1].start):
            if asked and hit.tool in ("play_book", "resume") and not clause.titles:
                # "有X吗？放一下", "do you have X? put it on": the book asked about
                found = self._call(*asked[-1], titles, {})
                said = (found.arguments.get("keyword") if found is not None else "") or ""
                if said:
                    args: dict[str, Any] = {"keyword": said}
                    if (episode := self._episode(clause)) is not None:
                        args["section"] = episode
                    calls.append(Call("play_book", args))
                    if not self.index or not self.index.exact(said):
                        extra["keyword"] = said
                    continue
            call = self._call(clause, hit, titles, extra)
            if call is None:
                return Reading(**base, **extra, tools=hints, why=f"{hit.tool} needs the model")
            if call.tool:
                calls.append(call)
        why = "; ".join(f"{c.tool}{c.arguments or ''}" for c in calls) or "asks which book"
        return Reading(
            **base,
            **extra,
            calls=tuple(calls),
            tools=hints or tuple(c.tool for c in calls),
            why=why,
        )

    def _says_episode(self, clause: _Clause) -> bool:
        """True when `clause` speaks of an episode ("这一集", "this chapter")."""
        script = _script(clause.text)
        words = self.phrases(script).words("episode_words")
        text = _PLACEHOLDER.sub(" ", clause.text)
        return "§E" in clause.text or any(w in text for w in words)

    def _interjection(self, clause: _Clause) -> bool:
        """True when `clause` is only an interjection ("wait", "等等") before another."""
        script = _script(clause.text)
        text = _strip_words(
            _PLACEHOLDER.sub(" ", clause.text), self.phrases(script).words("fillers"), script
        )
        return text in self.phrases(script).words("interjections")

    def _act(self, clause: _Clause) -> _Hit | None:
        """The one hit of `clause` that says what it asks for, or None (a remark)."""
        live = [h for h in clause.hits if not h.negated]
        if clause.later:  # a plan for later: its commands are not for now (a timer is)
            live = [
                h
                for h in live
                if h.tool not in _COMMANDS or (h.kind == "pattern" and h.tool == "sleep_timer")
            ]
            if not live and not clause.question:
                return None
        negated = [h for h in clause.hits if h.negated and h.tool in ("pause", "stop")]
        if clause.question:
            info = [
                h
                for h in live
                if h.tool not in _COMMANDS
                or (h.kind == "pattern" and h.tool == "set_volume" and False)
            ]
            ends = [h for h in live if h.kind == "episode_end"]
            if ends:  # "when this chapter ends, switch off": a time, not a question
                return ends[-1]
            if not info:
                return _Hit("", "question", 0, 0)
            status = [h for h in info if h.tool == "get_status"]
            if status:
                topic = min(
                    status, key=lambda h: _TOPICS.index(h.kind) if h.kind in _TOPICS else 99
                ).kind
                return _Hit("get_status", topic, status[0].start, status[0].end)
            return max(info, key=lambda h: (h.rank, h.start))
        if not live:
            if negated:  # "别停", "don't stop": keep playing
                return _Hit("resume", "cues", negated[0].start, negated[0].end)
            return None

        def rank(hit: _Hit) -> int:
            if hit.tool == "play_book" and hit.kind in ("cues", "continue") and clause.titles:
                return 45  # "放书库里的西游记": the book named, not the library
            return hit.rank

        best = max(rank(h) for h in live)
        top = [h for h in live if rank(h) == best]
        # of two patterns, one inside the other's match is part of it ("片头跳过20秒" is
        # an intro skip, not the seek of "跳过20秒")
        top = [
            h
            for h in top
            if not any(
                o.start <= h.start and h.end <= o.end and o.end - o.start > h.end - h.start
                for o in top
            )
        ]
        hit = top[-1]
        starts = [h for h in live if h.tool == "play_book" and h.kind == "from_start"]
        if hit.kind == "replay" and starts and not self._says_episode(clause):
            hit = starts[-1]  # "把活着从头再听一遍": the book from its start
        if hit.tool == "play_book" and hit.kind == "replay":
            # "再听一遍上一集": the episode before, again
            relative = [h for h in live if h.tool in ("previous_episode", "next_episode")]
            if relative:
                return relative[-1]
        if hit.tool == "seek" and hit.kind != "pattern" and "§E" in clause.text:
            return _Hit("play_book", "cues", hit.start, hit.end)  # "jump ahead to chapter 20"
        return hit

    def _call(
        self, clause: _Clause, hit: _Hit, titles: list[Named], extra: dict[str, Any]
    ) -> Call | None:
        """The call `hit` of `clause` means (None: the model's; a call with no tool: a
        question back, its titles in `extra`)."""
        self._at = hit.start
        return self._call_at(clause, hit, titles, extra)

    def _call_at(
        self, clause: _Clause, hit: _Hit, titles: list[Named], extra: dict[str, Any]
    ) -> Call | None:
        tool, kind = hit.tool, hit.kind
        if tool == "":
            # A question no reading tool answers: about a book named, the model's; about
            # nothing here ("三百六十五乘以二是多少"), the honest "I can only play books".
            return None if titles else Call("help")
        named = self._titles_for(clause, titles)
        if tool == "get_status":
            if (
                not named
                and kind in ("episodes", "author", "narrator", "description")
                and self.index is not None
            ):
                said = self._keyword(clause, _Hit(tool, kind, hit.start, hit.start))
                found = self.index.lookup(said) if said else []
                named = found[:1] if len(found) == 1 else []
            if named and kind in ("episodes", "author", "narrator", "description"):
                return Call("search_album", {"keyword": named[-1]})
            if named:
                return Call("get_status", {"about": kind} if kind != "now" else {}, book=named[-1])
            return Call("get_status", {"about": kind} if kind != "now" else {})
        if tool == "set_volume":
            if "percent_max" in hit.args:
                return Call("set_volume", {"percent": 100})
            value = number_value(hit.args.get("n", "").strip())
            return (
                Call("set_volume", {"percent": value})
                if value is not None and value <= 100
                else None
            )
        if tool == "sleep_timer":
            if kind == "cancel":
                return Call("sleep_timer", {"minutes": 0})
            if "episode_end" in hit.args or kind == "episode_end":
                # "听完这一集就关", "stop after this chapter", "after this chapter, stop"
                return Call("sleep_timer", {"end_of_episode": True})
            seconds = self._slot_seconds(hit)
            if seconds is None or kind != "pattern":
                return None
            minutes = seconds / 60
            return Call(
                "sleep_timer",
                {"minutes": int(minutes) if minutes == int(minutes) else round(minutes, 1)},
            )
        if tool == "seek":
            return self._seek(clause, hit)
        if tool == "set_speed":
            return self._speed(hit)
        if tool == "set_skip":
            return self._skip(clause)
        if tool == "search_album":
            said = hit.args.get("k", "")
            inside = [titles[int(i)].title for i in re.findall(r"§B(\d+)§", said)]
            if said and not inside:
                script = _script(said)
                trim = (*self.phrases(script).words("title_wrappers"), "的")
                said = _strip_words(_PLACEHOLDER.sub(" ", said), trim, script)
            keyword = (inside or named or [None])[-1] or said or self._keyword(clause, hit)
            if keyword in ("的", "") or re.match(r"^(?:什么|啥|哪些)", keyword or ""):
                return Call("list_albums")  # "有没有适合小孩听的": what there is
            if not keyword:
                return Call("list_albums") if not clause.question or True else None
            return Call("search_album", {"keyword": keyword})
        if tool in ("list_albums", "help", "pause", "stop", "next_episode", "previous_episode",
                    "volume_up", "volume_down"):  # fmt: skip
            return Call(tool)
        if tool == "resume":
            if named:
                return self._play(clause, named, extra)
            return Call("resume")
        if tool == "play_book":
            if kind == "replay":
                if named:  # "我想把活着再听一遍": that book again, from its start
                    return self._play(clause, named, extra, episode=self._episode(clause) or 1)
                return Call("play_book", {"section": self._episode(clause) or Ref.EPISODE})
            if kind == "from_start":
                if named:
                    return self._play(clause, named, extra, episode=1)
                return Call("play_book", {"section": 1})
            if kind == "other_book":
                return Call("play_book", {"keyword": Ref.OTHER_BOOK})
            if kind == "another" and not named:
                extra["ask_which"] = True
                return Call("")
            if named:
                return self._play(clause, named, extra)
            keyword = self._keyword(clause, hit)
            episode = self._episode(clause)
            if keyword == "的":
                extra["ask_which"] = True
                return Call("")
            if keyword:
                found = self.index.lookup(keyword) if self.index is not None else []
                if len(found) == 1:
                    return self._play(clause, found, extra)
                if len(found) > 1:
                    choice = _one_of(found) or self._part_of(found)
                    if choice:
                        return self._play(clause, [choice], extra)
                    extra["choices"] = tuple(found[:5])
                    return Call("")
                extra["keyword"] = keyword
                args: dict[str, Any] = {"keyword": keyword}
                if episode:
                    args["section"] = episode
                return Call("play_book", args)
            if kind == "continue":
                return Call("resume")
            if episode:
                return Call("play_book", {"section": episode})
            return Call("play_book")
        return None

    def _play(
        self, clause: _Clause, named: list[str], extra: dict[str, Any], episode: int | None = None
    ) -> Call:
        distinct = list(dict.fromkeys(named))
        if len(distinct) > 1:
            choice = _one_of(distinct)
            if choice is None:
                # "A还是B": ask which, unless the later one corrects the earlier
                distinct = [distinct[-1]]
            else:
                distinct = [choice]
        args: dict[str, Any] = {"keyword": distinct[0]}
        section = episode if episode is not None else self._episode(clause)
        if section:
            args["section"] = section
        return Call("play_book", args)

    def _part_of(self, titles: list[str]) -> str | None:
        """Of several parts of one series, the one whose part the request says ("来点明朝那些
        事，第三部那个", "harry potter book two"); None when it says none or no such part."""
        mark = _PART_SAID.search(self.folded)
        if mark is None or self.index is None:
            return None
        n = number_value(mark.group("n") or mark.group("n2") or "")
        part = self.index.edition(titles[0], n or 0) if n else None
        return part if part in titles else None

    def _titles_for(self, clause: _Clause, titles: list[Named]) -> list[str]:
        if clause.titles:
            return [n.title for n in clause.titles]
        return [n.title for n in titles]

    def _episode(self, clause: _Clause) -> int | None:
        """The episode said in `clause`: the first one after the act's verb ("放鹿鼎记第十集
        昨天听到第九集了" is 10), else the last before it; else, when the clause names no
        book, the one said elsewhere in the request ("围城，第二集")."""
        marks = [(m.start(), int(m.group(1))) for m in re.finditer(r"§E(\d+)§", clause.text)]
        if marks:
            after = [n for at, n in marks if at >= self._at]
            return after[0] if after else marks[-1][1]
        for other in self.clauses:
            said = re.findall(r"§E(\d+)§", other.text)
            if said and (
                not other.titles
                or {n.title for n in other.titles} <= {n.title for n in clause.titles}
            ):
                return int(said[-1])  # "神雕侠侣，第十二集"
        return None

    @staticmethod
    def _slot_seconds(hit: _Hit) -> int | None:
        if "d" in hit.args:
            return int(hit.args["d"])
        if "n" in hit.args:
            return int(hit.args["n"]) * 60
        return None

    def _seek(self, clause: _Clause, hit: _Hit) -> Call | None:
        p = self.phrases(_script(clause.text))
        if hit.kind == "pattern":
            seconds = self._slot_seconds(hit)
            if "minute" in hit.args:
                return Call("seek", {"seconds": int(hit.args["minute"]) * 60})
            direction = hit.args.get("dir", "")
            if seconds is None:
                return None
            if not direction:
                return Call("seek", {"seconds": seconds})
            back = direction in p.tools["seek"].get("back", ()) or direction in (
                "earlier", "back up", "快退", "后退", "倒回", "往回", "倒退", "退回", "回退",
                "往前倒", "倒带", "回去", "往回倒")  # fmt: skip
            back = back or any(direction == fold(w) for w in p.tools["seek"].get("back", ()))
            return Call("seek", {"seconds": -seconds if back else seconds, "relative": True})
        step = int(p.tools["seek"].get("default_seconds", 30))
        return Call("seek", {"seconds": -step if hit.kind == "back" else step, "relative": True})

    @staticmethod
    def _speed(hit: _Hit) -> Call | None:
        """set_speed: a speed said ("1.5倍速": rate 1.5), faster or slower by a step, or
        normal (rate 1); a speed out of 0.5..2 is the model's."""
        if hit.kind == "faster":
            return Call("set_speed", {"step": 1})
        if hit.kind == "slower":
            return Call("set_speed", {"step": -1})
        if hit.kind == "normal":
            return Call("set_speed", {"rate": 1.0})
        rate = rate_said(hit.args.get("rate", ""))
        if rate is None:
            return None
        rate += 0.5 if hit.args.get("half") else 0.0
        if not 0.5 <= rate <= 2.0:
            return None
        return Call("set_speed", {"rate": rate})

    def _skip(self, clause: _Clause) -> Call | None:
        """set_skip: the seconds of intro and outro every pattern of `clause` says
        ("跳过片头30秒，片尾10秒" gives both); one without an amount is the model's."""
        ends = {fold(w) for w in ("片尾", "结尾", "最后", "last", "end", "outro", "outros",
                                   "ending", "credits")}  # fmt: skip
        arguments: dict[str, Any] = {}
        for hit in clause.hits:
            if hit.tool != "set_skip" or hit.kind != "pattern" or hit.negated:
                continue
            key = "outro" if fold(hit.args.get("which", "")) in ends else "intro"
            if "off" in hit.args:
                arguments[key] = 0
                continue
            seconds = self._slot_seconds(hit)
            if seconds is None:
                return None
            arguments[key] = seconds
        return Call("set_skip", arguments) if arguments else None

    def _keyword(self, clause: _Clause, hit: _Hit) -> str:
        """The words of `clause` that say which book when no library title is named: what
        follows the verb (for a search or a question, with nothing after it, what comes
        before: "鬼灭之刃有吗"), without fillers, episode phrases and words around a title."""
        script = _script(clause.text)
        p = self.phrases(script)
        after = clause.text[hit.end :]
        before = clause.text[: hit.start] if hit.tool not in _PLAYBACK else ""
        for piece in (after, before):
            piece = re.sub(r"§[DTE]\d*§", " ", piece)
            piece = _PLACEHOLDER.sub(" ", piece)
            words = (*p.words("fillers"), *p.words("title_wrappers"), *p.words("polite_requests"),
                     *p.words("episode_words"), *p.words("book_words"))  # fmt: skip
            light = _strip_words(re.sub(r"\s+", " ", piece), words, script)
            if light and self.index is not None and self.index.exact(light):
                return light  # "Us", "It", "家": a title made of words that are stripped below
            words += (*p.words("keyword_trim"), "的")
            keyword = _strip_words(
                re.sub(r"\s+", " ", piece), [w for w in words if w != "的"], script
            )
            if script == "zh" and keyword.endswith("的") and len(keyword) > 1:
                if self.index is None or not self.index.lookup(keyword[:-1]):
                    return "的"  # "好听的", "有意思的": a kind of book, not a title
            keyword = _strip_words(keyword, words, script)
            if not keyword:
                continue
            if self._describes(keyword, script):
                return "的"  # "我朋友推荐的那本", "the one we were listening to": no title
            if script == "zh":
                chars = set(self.zh.lexicon.get("function_chars", ""))
                if all(ch in chars or not ch.strip() for ch in keyword) or len(keyword) > 16:
                    continue
            else:
                fw = set(self.en.words("function_words"))
                if all(w in fw for w in keyword.split()) or len(keyword.split()) > 8:
                    continue
            return keyword
        return ""

    def _describes(self, keyword: str, script: str) -> bool:
        """True when `keyword` speaks of people or times ("我朋友推荐的", "we were
        listening to"), as a description of a book does and a title seldom does."""
        words = self.phrases(script).words("describers")
        if script == "zh":
            return any(w in keyword for w in words)
        said = keyword.split()
        return any(w in said for w in words)

    def _bare(
        self,
        base: dict[str, Any],
        clauses: list[_Clause],
        titles: list[Named],
        hints: tuple[str, ...],
    ) -> Reading:
        """A request without a cue: a title alone plays it ("西游记", "西游记第三集"), an
        episode alone plays it on the book loaded now; anything else is the model's."""
        named = list(dict.fromkeys(n.title for n in titles))
        rest = "".join(c.text for c in clauses)
        rest = _PLACEHOLDER.sub("", rest)
        script = _script(rest) if rest.strip() else self.language
        p = self.phrases(script)
        leftover = _strip_words(
            rest, (*p.words("fillers"), *p.words("title_wrappers"), "的", "吧", "啊", "呢"), script
        )
        question = base.get("question", False)
        if not leftover and not question:
            if len(named) == 1:
                args: dict[str, Any] = {"keyword": named[0]}
                if base["episode"]:
                    args["section"] = base["episode"]
                return Reading(
                    **base,
                    calls=(Call("play_book", args),),
                    tools=("play_book",),
                    why="a title alone",
                )
            if not named and base["episode"]:
                return Reading(
                    **base,
                    calls=(Call("play_book", {"section": base["episode"]}),),
                    tools=("play_book",),
                    why="an episode alone",
                )
        return Reading(**base, tools=hints, why="no reading: the model's")


def _one_of(titles: list[str]) -> str | None:
    """Of titles the words may mean, the one inside all the others ("水浒" means 水浒传,
    not 水浒传少儿版); None when there is none such."""
    from .text import normalize

    keys = {t: normalize(t) for t in titles}
    for title, key in sorted(keys.items(), key=lambda kv: len(kv[1])):
        if all(key in other for other in keys.values()):
            return title
    return None


def read(utterance: str, language: str = "zh", index: TitleIndex | None = None) -> Reading:
    """The reading of `utterance` on a box speaking `language` ("zh"/"en"), with the
    library's titles from `index` (see the module docstring)."""
    return _Reader(utterance, language, index).read()
