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
- an amount said with a command that the command does not carry ("bump it up two
  notches", "next chapter, 40 seconds") means the words were not understood whole: the
  calls are a guess, asked about before they are made;
- a stop beside the end of the episode playing, composed of its parts ("when chapter
  finish, you stop", "讲完这个故事就别讲了"), is the end-of-episode timer;
- no book named, none playing, none left off: the listener is asked which.

The result, a `Reading`, carries every fact for the agent's grammar and prompt, and
`calls` when the request was understood whole (the fast path makes them with no model).
`Ref` values in a call's arguments stand for what only the listener's context knows (the
episode loaded now, the book listened to before). The layer may rank and hint; it never
removes a tool from the model's choice.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .amounts import NUMERAL_IN_WORD, clock_spans, duration_spans, percents_said, rate_said
from .catalog import known_as
from .clauses import (
    A_NOT_A,
    BEHAVES,
    COMMANDS,
    GROUP,
    HAPPENED,
    PLACEHOLDER,
    PLAYBACK,
    Clause,
    Hit,
    Scanner,
    mask,
    said_in,
    script_of,
    strip_words,
)
from .numbers import (
    EN_NUMBER_WORDS,
    chinese_number,
    count_value,
    english_number,
    number_value,
    numbers_said,
    spoken_to_digits,
)
from .phrases import Phrases, load
from .text import clean_transcript, fold, has_cjk, normalize
from .titles import Named, TitleIndex, _capitalised, function_only

__all__ = ["Call", "Reading", "Ref", "amount_reply", "read"]


_ORDINAL = re.compile(r"(?:first|second|third|th|\d(?:st|nd|rd))$", re.IGNORECASE)
"""The end of a number said as an ordinal ("first", "eleventh", "2nd"): a place, no amount."""


_EPISODE_OVER = re.compile(r"[放播听]完|完了|结束")
"""Words that an episode is over ("这集放完"): a question of stopping then is of the timer."""


_SETTINGS = frozenset({"set_speed", "set_skip", "sleep_timer", "set_volume"})
"""Tools that set how the book loaded plays: said before a book to play, they are of it."""
_SET_TO = re.compile(
    r"(?:改成|换成|调成|设成|变成|改为|设为|定成|改到|调到)(?:跳过?)?§D|\b(?:to|make it)\s+(?:about\s+|just\s+)?§D",
    re.IGNORECASE,
)
"""An amount said as what a setting becomes ("改成四十五秒", "change it to 45 seconds")."""


class Ref(StrEnum):
    """An argument only the listener's context can give."""

    EPISODE = "<episode loaded now>"
    """The episode loaded now (or, with none, the one left off last)."""
    OTHER_BOOK = "<book listened to before>"
    """The title of the book listened to before the one loaded now."""
    HEARD = "<episode just heard>"
    """The episode just heard: the one loaded now, or the one before it when this one has
    only just begun ("刚才那个故事再讲一遍" a few seconds into the next)."""
    SKIPPED = "<end skipped now>"
    """As a key of set_skip's arguments: the end (intro or outro) the book loaded skips
    now, when the words change a skip without naming its end ("再多跳五秒", "take it down
    by fifteen"); a book that skips both ends, or neither, leaves it open."""
    HALF = "<half the skip now>"
    """As a value of set_skip's arguments: half the seconds that end skips now ("cut the
    outro skip in half")."""
    DOUBLE = "<twice the skip now>"
    """As a value of set_skip's arguments: twice the seconds that end skips now ("double
    the intro skip")."""

    def __repr__(self) -> str:  # a reading's `why` and the trace show "<episode loaded now>"
        return str(self.value)


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
    `clarify` what the listener is asked when the words say what to change but not by how
    much ("skip": how many seconds of the intro or outro);
    `calls` the tool calls it means when understood whole, in order; `tools` the tools
    its words point at, best first (a hint for the model); `why` one line on the reading;
    `reply` "yes" or "no" when the utterance is only that, an answer to a question the box
    asked ("对", "no thanks"), else ""; `guess` the calls are a guess, to be asked about
    before they are made: an amount said that they do not carry ("bump it up two
    notches"), or a title made of pronouns named by them ("play it"); `whether`, for a
    yes-or-no question about the timer, what it asks will happen ("stop", "go on", or
    "which" for both), so that the answer can begin with yes or no.
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
    clarify: str = ""
    calls: tuple[Call, ...] = ()
    tools: tuple[str, ...] = ()
    why: str = ""
    reply: str = ""
    guess: bool = False
    whether: str = ""

    @property
    def named(self) -> list[str]:
        """The titles named, each once, in order."""
        return list(dict.fromkeys(n.title for n in self.titles))


# -- how tools group and rank ---------------------------------------------------------------

_TOPICS = (
    "skip",
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

_DECIMAL = re.compile(
    r"\d+\s*\.\s*\d+|[零一二两三四五六七八九十]+\s*点\s*[零一二三四五六七八九]+"
    r"|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|\d+)?\s*point"
    r"(?:\s+(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|\d+)\b)+"
    r"|\b(?:one|two|three|\d)\s*quarters?\b",
    re.IGNORECASE,
)
"""A number said with its decimals ("1.25", "零点七五", "one point two five"): a rate."""

_NOW = re.compile(r"(?<!not )\b(?:now|right away|immediately)\b|(?<![不别])(?:现在|马上|立刻)")
"""A word of now beside a stop: the stop is not the episode end's ("stop it now")."""


def _now_beside(clause: Clause, hit: Hit) -> bool:
    """True when a word of now stands beside the stop `hit` in `clause`: within two words
    before it or three after it ("now stop", "stop it right now", "现在就停"), not in a
    reason further on ("please stop i go to sleep now")."""
    text = clause.text
    if script_of(text) == "zh":
        near = text[max(0, hit.start - 4) : hit.end + 4]
    else:
        before = text[: hit.start].split()[-2:]
        after = text[hit.end :].split()[:3]
        near = " ".join([*before, text[hit.start : hit.end], *after])
    return re.search(_NOW, near) is not None


_SPEED_ASKED = re.compile(
    r"快一?点|慢一?点|快些|慢些|加快|放慢|加速|减速|调快|调慢|快一档|慢一档"
    r"|\b(?:speed|slow (?:it |things )?down|faster|slower|quicker)\b",
    re.IGNORECASE,
)
"""A speed step asked for, not a remark on the pace ("再快点", "slow down"; not "太拖了")."""

_EPISODE_CALLED = re.compile(
    r"\b(?:chapter|episode|part|section)\s+(?:called|named|titled)\s+\S", re.IGNORECASE
)
"""An episode said by its title ("the chapter called Sol 15")."""

_SKIP_SCOPES = ("once_words", "still_words", "keep_words")
"""Kinds of the skip's words that tell which episodes a skip is for, or that an end is
kept: no request alone ("just for this episode, …", "keep the start as it is")."""

_VOLUME_NOT_SPEED = re.compile(r"^(?!.*(?:speed|pace|速|快|慢)).*(?:\bvolume\b|\bloud|声音|音量)")
"""Words of the volume and none of the speed ("put the volume back to normal")."""

_TIMES = re.compile(
    r"\S+\s*times\b(?!\s*(?:speed|faster|slower|as fast|the speed))|\S+\s*(?:遍|次)", re.IGNORECASE
)
"""A number of times something happened ("three times", "听了三遍")."""

_EPISODE_MARKED = re.compile(
    r"(?<!倒数)第\s*(?P<zh>\d+)\s*[集回章节话讲期]"
    r"|(?<![这那上下每哪前后本])(?P<zh2>\d+)\s*[集回]"
    r"|(?<=[到去])(?P<zh3>\d+|[一二两三四五六七八九十百]+)\s*[章节]"  # "直接到二十章那里": a place to go, not a count
    r"|(?<!each )(?<!every )\b(?:episode|chapter|ep|ch|chap|section|track)\.?\s*(?:number\s*)?"
    r"(?P<en>\d+)\b"
    r"|\bpart\s+(?P<part>\d+)\b"
    r"|(?<=to )number\s+(?P<num>\d+)\b"
    r"|\b(?P<ord>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
    r"twelfth|\d+(?:st|nd|rd|th))\s+(?:episode|chapter|part|section)\b"
    r"|\bthe\s+(?P<ord2>second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
    r"twelfth|\d+(?:st|nd|rd|th))(?=\s*(?:one|please)?\s*(?:$|[,.!?]))"
    r"|\d+\s*[번화회]"
    # counted from the end: "最后一章", "倒数第2章", "the last chapter" (not "back to the last
    # episode": the one before), "the second to last chapter"
    r"|(?P<last>最后一\s*[集回章节]|(?<!back to )(?<!back to the )(?<!back )(?<!back the )\b(?:the\s+)?(?:very\s+)?(?:last|final)"
    r"\s+(?:episode|chapter|part|section)\b|\bfinal\s+(?:episode|chapter)\b"
    r"|\bthe\s+very\s+(?:last|final)(?:\s+one)?\b)"
    r"|倒数第\s*(?P<back>\d+)\s*[集回章节]"
    r"|\b(?P<back2>second|2nd|third|3rd)[\s-]+(?:to[\s-]+)?last\s+(?:episode|chapter)\b"
    r"|\bpenultimate\s+(?:episode|chapter)\b(?P<pen>)",
    re.IGNORECASE,
)
_EPISODE_DESCRIBED = re.compile(
    r"\b(?:the|that) (?:episode|chapter|part)(?: of §B\d+§)? "
    r"(?:where|when|in which|with the|about the|about how)\b"
)
"""An episode told by what happens in it, with no number ("the episode where the Monkey
King causes havoc"): which one is asked."""
_POINTERS = frozenset(
    {
        "it",
        "that",
        "this",
        "one",
        "them",
        "that one",
        "this one",
        "the one",
        "它",
        "那个",
        "这个",
        "一个",
        "那本",
        "这本",
        "一下",
        "的",
    }
)
"""Words that point back at a book said before ("do you have dune? put it on"), and
`_keyword`'s "的" (a book described, no title of its own)."""
_ROUGH_AMOUNT = re.compile(
    r"(?:[\d一二两三四五六七八九十]多|一个多)(?:个)?\s*(?:小时|钟头|分钟|分)"
    r"|\b(?:hours?|minutes?|§D\d+§) and a (?:bit|little|little bit|while)\b"
)
"""An amount of time said roughly ("二十多分钟", "an hour and a bit"): no timer's length."""
_EPISODE_BEFORE_TITLE = re.compile(r"(?:[上下前后]一个|[上下]个|\bthe (?:previous|next) )$")
"""Words before a title that make it one of the book's episodes ("上一个成语故事")."""

_PART_SAID = re.compile(
    r"第\s*(?P<n>[\d一二三四五六七八九十]+)\s*[部本卷册季]"
    r"|\b(?:part|book|volume)\s+(?P<n2>\d+|one|two|three|four|five|six|seven)\b",
    re.IGNORECASE,
)


class _Reader:
    def __init__(self, utterance: str, language: str, index: TitleIndex | None) -> None:
        self.utterance = utterance
        self.language = language
        self.index = index
        self.zh, self.en = load("zh"), load("en")
        self.scan = Scanner()
        self.episodes: list[int] = []
        self.clauses: list[Clause] = []
        self.folded = ""
        self.text = ""
        self.durations: list[int] = []
        self.titles_found: list[Named] = []
        self._at = 0  # where the act being read stands in its clause
        self._given: set[int] = set()  # clauses whose amount a skip said before took
        self._described: set[int] = set()  # clauses whose amount only told how long
        self._pronoun_title = False  # a title made of pronouns named by them ("play it")

    def phrases(self, script: str) -> Phrases:
        return self.zh if script == "zh" else self.en

    # -- the facts -------------------------------------------------------------------

    def _longer_title(self, named: Named) -> bool:
        """True when a Latin title is said as part of a longer one: its next word (past
        "and the") or the word before it written with a capital as a name is ("Dune
        Messiah", "The Martian Chronicles by Ray Bradbury", "Muppet Treasure Island",
        "Let It Go"); said "by" someone who is none of its people ("the jungle by upton
        sinclair"); or, in words all small or all capitalised, alone and followed by a word
        that no request to the box is made of ("the martian chronicles"): another book,
        which the library may not hold, not this one. A word of the request's own (a
        function word, an episode's or a volume's noun, a courtesy), a word of a book or
        person of the library, or a title written all in capitals is no such word."""
        if has_cjk(named.title) or named.how == "person":
            return False
        by = re.match(r"\s*,?\s+by\s+([A-Za-z][a-z'’]+)", self.text[named.end :])
        if by is not None and self.index is not None:
            # "play the jungle by upton sinclair": by someone who is none of its people
            word = by.group(1).lower()
            known = self.index.of_person(named.title, word)
            if word not in self.en.words("function_words") and known is not None:
                return not known
        if named.how not in ("title", "alias"):
            return False  # a short form may stand before more of it
        if self.text.isupper():
            return False
        p = self.en
        own = {
            *p.words("function_words"),
            *p.words("episode_counters"),
            *p.words("edition_counters"),
            *p.words("closers"),
            *p.words("fillers"),
            "i",
            "sol",
        }
        # With no capitals to tell names from words ("the martian chronicles", alone), or
        # with a capital on every word ("Play Dune Messiah"), a word that no request to the
        # box is made of and that no book or person of the library has is a name's.
        cased = not (self.text.islower() or self.text.istitle())
        if self.text.islower() and strip_words(
            self.text[: named.start], (*self.en.words("fillers"), "the", "a", "an"), "en"
        ).strip(" ,.!?"):
            return False  # in words all small, only a title said alone ("the martian chronicles")
        m = re.match(r"\s+((?:(?:and|of|[Tt]he|in|a|an)\s+)*)([A-Z][a-z'’]+)\b" if cased
                     else r"\s+()([A-Za-z][a-z'’]+)\b", self.text[named.end :])  # fmt: skip
        before = re.search(r"(?<=[\w,;:] )([A-Z][a-z'’]+)\s+$", self.text[: named.start])
        if cased and before is not None:
            # "Play Muppet Treasure Island", "asking for Let It Go": a name's word before it
            said = re.sub(r"['’]s$", "", before.group(1).lower())  # "Stephen Fry's"
            verbs = {c for c in (*p.tools["play_book"].get("cues", ()),
                                 *p.tools["play_book"].get("head", ())) if " " not in c}  # fmt: skip
            flanked = m is not None and m.group(1) == "" and said not in verbs
            if flanked or (said not in own and said not in p.vocabulary):
                return not (self.index is not None and self.index.knows_word(said))
        if m is None:
            return False
        word = m.group(2).lower()
        if m.group(1) and self.index is not None and self.index.knows_word(word):
            return False  # "Play Dune and The Martian": two books
        if word in own:
            return False
        return cased or not (
            word in p.vocabulary
            or (self.index is not None and self.index.knows_word(word))
            or number_value(word) is not None
        )

    def read(self) -> Reading:
        # what is said around the request ("Okay, …", "…, thanks", "…就行啊") is read away
        # before the recogniser's slips are mended, as they may stand only at an end
        text = self.scan.edges(clean_transcript(self.utterance, digits=False))
        text = clean_transcript(text, self.zh.mends + self.en.mends)
        # "Action: stop 播放三体第三集": a ReAct label and the tool name written after it are
        # no request of the listener's; the words after them are.
        text = self.scan.clean(text)
        folded = fold(text)
        self.folded = folded
        self.text = text
        titles = self.index.find(text) if self.index is not None else []
        amounts = [(s, e) for _, s, e in duration_spans(folded, counted=True)] + clock_spans(folded)
        titles = [
            n
            for n in titles
            if n.how in ("title", "alias", "edition")
            or not any(n.start < e and s < n.end for s, e in amounts)
        ]  # "半小时后关掉" names no 半小时漫画中国史
        # "上一个成语故事没听懂": after 上一个 / "the previous" a title is a common noun, one of
        # the book's episodes (a book is never "the previous 成语故事")
        titles = [n for n in titles if not _EPISODE_BEFORE_TITLE.search(folded[: n.start])]
        self._longer = [n for n in titles if self._longer_title(n)]
        titles = [n for n in titles if n not in self._longer]
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
        episodes, parts = [], set()
        for match in _EPISODE_MARKED.finditer(folded):
            if not free(match.start(), match.end()):
                continue
            value = self._episode_value(match)
            if value:
                spans.append((match.start(), match.end(), f"§E{value}§"))
                episodes.append(value)
                if value > 0 and re.search(r"\bpart\b|部分", match.group()):
                    parts.add(value)
        self.episodes = episodes
        self.parts = parts
        self.durations = durations
        masked, where = mask(folded, spans)
        plain = PLACEHOLDER.sub(" ", masked)
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
            "reply": self.scan.reply(folded),
        }
        if self.scan.hesitation(folded):
            return Reading(**base, clarify="what", why="only sounds of thinking")
        if re.fullmatch(
            r"(?:小听|xiao\s*ting|hey|嘿|喂|[\s,.!?，。！？~…])+", folded
        ) and re.search(r"小听|xiao\s*ting", folded):
            return Reading(**base, clarify="what", why="the box's name alone")  # "小听小听"
        if self.scan.acknowledgement(folded):
            return Reading(**base, acknowledgement=True, why="asks for nothing")
        clauses = self.scan.clauses(masked, where, titles)
        self.clauses = clauses
        self.titles_found = titles
        self._scope_starts(clauses, titles)
        if base["episode"] is None and any(
            h.kind == "from_start" and not h.negated for c in clauses for h in c.hits
        ):
            base["episode"] = 1  # "从头开始", "from the beginning": the first episode is said
        base["clauses"] = tuple(c.text for c in clauses)
        base["question"] = any(c.question for c in clauses) and not any(
            h.tool in COMMANDS and not h.negated for c in clauses if not c.question for h in c.hits
        )
        return self._decide(base, clauses, titles)

    @staticmethod
    def _episode_value(match: re.Match[str]) -> int | None:
        """The episode `match` says; counted from the end, negative (-1: the last)."""
        if match.group("last"):
            return -1
        if match.group("back"):
            return -int(match.group("back"))
        if match.group("back2"):
            return -2 if match.group("back2").lower() in ("second", "2nd") else -3
        if match.group("pen") is not None:
            return -2
        if match.group("zh3") and not match.group("zh3").isdigit():
            return chinese_number(match.group("zh3"))
        for group in ("zh", "zh2", "zh3", "en", "part", "num"):
            if match.group(group):
                return int(match.group(group))
        if match.group("ord") or match.group("ord2"):
            word = (match.group("ord") or match.group("ord2")).lower()
            digits = re.match(r"\d+", word)
            return int(digits.group()) if digits else english_number(word)
        digits = re.match(r"\d+", match.group())
        return int(digits.group()) if digits else None

    def _scope(self, clause: Clause) -> str | None:
        """What `clause` speaks of: "book" ("这部书", "the book"), "episode" ("这一集",
        "that chapter"), or None. A word of both ("this one") is the episode's only when no
        word of the book is said."""
        script = script_of(clause.text)
        p = self.phrases(script)
        text = PLACEHOLDER.sub(" ", clause.text)
        episode_words = set(p.words("episode_words"))
        if any(said_in(w, text, script) for w in p.words("book_words") if w not in episode_words):
            return "book"
        if any(said_in(w, text, script) for w in episode_words):
            return "episode"
        return None

    def _scope_starts(self, clauses: list[Clause], titles: list[Named]) -> None:
        """Reads each "again" and "from the start" by what it is said of: of the book
        ("这部书打头儿再来一遍", "begin the book again") the book from its first episode; of
        an episode ("从这集最开始", "that chapter ... from the very first line") the episode
        again. Said of nothing, with no title and no episode named, "从头开始" restarts the
        episode playing: the smaller step, which loses no place in the book."""
        scopes = [self._scope(c) for c in clauses]
        told = [s for s in scopes if s]
        for clause, scope in zip(clauses, scopes, strict=True):
            scope = scope or (told[-1] if told else None)
            for hit in clause.hits:
                if hit.tool != "play_book" or hit.negated:
                    continue
                if hit.kind == "replay" and scope == "book" and self._scope(clause) != "episode":
                    hit.kind = "from_start"
                elif hit.kind == "from_start" and "§E" not in clause.text:
                    if scope == "episode" or (
                        scope is None
                        and not titles
                        and not self.episodes
                        and not self._book_said(clauses)
                        and self._near_title(clause, hit) is None
                    ):
                        hit.kind = "replay"
        # "上一集没听懂，再放一遍", "the previous chapter, play it again": the again is of
        # the episode before, which the earlier clause named
        for at, clause in enumerate(clauses):
            before = [h for c in clauses[:at] for h in c.hits]
            if (
                "§E" in clause.text
                or clause.titles
                or not any(h.tool == "previous_episode" and not h.negated for h in before)
            ):
                continue
            if any(h.tool == "play_book" and h.kind == "replay" for h in clause.hits):
                clause.hits = [h for h in clause.hits if h.tool != "play_book" or h.negated]

    def _book_said(self, clauses: list[Clause]) -> bool:
        """True when a verb asking for a book has words after it that may name one ("play
        dune from the beginning", with no library title found)."""
        for clause in clauses:
            for hit in clause.hits:
                if hit.tool == "play_book" and hit.kind == "cues" and not hit.negated:
                    if self._keyword(clause, hit) not in ("", "的"):
                        return True
        return False

    def _near_title(self, clause: Clause, hit: Hit) -> str | None:
        """The one library title the words around `hit` name when no title was found in
        the request ("火枪手那本从头放", "Les Mis, please, from the start"): the words before
        in its clause, then each clause that asks for nothing; None when they
        name no title or several. The words after it are not read ("from chapter one this
        time" names no book)."""
        if self.index is None:
            return None
        pieces = [clause.text[: hit.start]]
        pieces += [
            c.text
            for c in self.clauses
            if c is not clause and not any(not h.negated for h in c.hits)
        ]
        for piece in pieces:
            script = script_of(piece)
            p = self.phrases(script)
            piece = PLACEHOLDER.sub(" ", re.sub(r"§[DTE]-?\d*§", " ", piece))
            words = (*p.words("fillers"), *p.words("title_wrappers"), *p.words("polite_requests"),
                     *p.words("episode_words"), *p.words("book_words"), *p.words("keyword_trim"),
                     "的")  # fmt: skip
            keyword = strip_words(re.sub(r"\s+", " ", piece), words, script)
            if not keyword or len(keyword) > 24 or self._describes(keyword, script):
                continue
            if script == "zh":
                chars = set(self.zh.lexicon.get("function_chars", ""))
                if all(ch in chars or not ch.strip() for ch in keyword):
                    continue
            elif all(w in set(self.en.words("function_words")) for w in keyword.split()):
                continue
            found = self.index.lookup(keyword)
            choice = found[0] if len(found) == 1 else _one_of(found) if found else None
            if choice:
                return choice
        return None

    def _decide(self, base: dict[str, Any], clauses: list[Clause], titles: list[Named]) -> Reading:
        acts: list[tuple[Clause, Hit]] = []
        for clause in clauses:
            hit = self._act(clause)
            if hit is not None:
                hit = self._then_stop(clauses, clause, hit)
                acts.extend((clause, h) for h in sorted([hit, *self._beside(clause, hit)],
                                                        key=lambda h: h.start))  # fmt: skip
        earlier = [
            c for c, h in acts
            if h.tool == "sleep_timer"
            and any(said_in(w, c.text, script_of(c.text))
                    for w in self.phrases(script_of(c.text)).words("set_before"))
        ]  # fmt: skip
        if earlier and any(c.question for c in clauses):
            # a timer spoken of as set before, and a question: whether it still holds
            acts = [(c, h) for c, h in acts if h.tool != "sleep_timer"]
            acts.append((earlier[0], Hit("get_status", "sleep", 0, 0)))
        if acts and all(h.tool == "" for _c, h in acts) and not titles and self._complaint(clauses):
            return self._complained(base)  # "这集咋这么没意思呢": a complaint, not a question
        commands = [(c, h) for c, h in acts if h.tool in COMMANDS]
        questions = [(c, h) for c, h in acts if c.question]
        if questions and commands and all(self.scan.interjection(c) for c, _ in commands):
            commands = []  # "wait, which book is this again?": a question, not a pause
        elif any(not self.scan.interjection(c) for c, _ in commands):
            # "wait, what did she say? go back ten seconds": the seek, no pause
            commands = [(c, h) for c, h in commands if not self.scan.interjection(c)]
        chosen = commands or [(c, h) for c, h in acts if h.tool not in COMMANDS]
        chosen = [
            (c, Hit("volume_up", h.kind, h.start, h.end))
            if h.tool == "volume_down"
            and h.kind == "cues"
            and self.scan.nearest(c.text, h.start, "louder_situations", "quieter_situations")
            == "louder_situations"
            else (c, h)
            for c, h in chosen
        ]  # "电钻吵死了": the drill's noise is loud, the book is drowned out
        if commands:
            # "先别放，我就问问这集还差几分钟到头": the question is answered beside the command
            chosen = chosen + [
                (c, h) for c, h in questions if h.tool == "get_status" and h.kind in _TOPICS
            ]
        hints = tuple(dict.fromkeys(h.tool for _, h in acts))
        # Acts a remark's words may make by accident: a bare verb ("讲故事"), a question of no
        # topic ("讲的啥"), a question of what the book is about.
        weak = [
            h for c, h in chosen
            if (h.tool == "play_book" and h.kind == "cues") or h.tool == ""
            or (h.tool == "get_status" and h.kind == "description"
                and not self.scan.said(c.text, "episode_words", "book_words"))  # "这集讲的啥"
            or (h.tool == "play_book" and h.kind == "replay" and not c.titles
                and "§E" not in c.text and self._scope(c) is None
                and self.scan.loudness([c]) is not None)  # "…banging on the ceiling again"
        ]  # fmt: skip
        if chosen and all(h.tool == "help" for _c, h in chosen) and self.scan.leaving(clauses):
            # "我下楼拿个快递，回来接着听": the errand tells of stepping away, no task for the box
            return Reading(**base, calls=(Call("pause"),), tools=("pause",),
                           why="pause (the listener steps away)")  # fmt: skip
        if len(weak) == len(chosen) and not titles:
            # A remark on the room means a step any listener would take: a pause when they
            # step away ("锅开了，我得去看一眼", "someone's at the door"), else a volume step
            # ("宝宝刚哄睡着", "I'm out in the garage"); both undone as easily as made, and
            # what the listeners of the blind rounds expected, so made, not asked.
            if self.scan.leaving(clauses):
                return Reading(**base, calls=(Call("pause"),), tools=("pause",),
                               why="pause (the listener steps away)")  # fmt: skip
            if self.scan.asleep(clauses):
                # "宝宝睡着了" alone: the one the book was for sleeps (what 10 of the 12
                # writers of such words alone expected; "刚睡着", "just fell asleep": quieter)
                return Reading(**base, calls=(Call("pause"),), tools=("pause",),
                               why="pause (the listener fell asleep)")  # fmt: skip
            # "you're skipping too much": too much of the skip, not of the sound
            skipping = self._skip_verb_in(clauses, "both_words")
            loudness = None if skipping else self.scan.loudness(clauses)
            if loudness is not None:
                return Reading(**base, calls=(Call(loudness),), tools=(loudness,),
                               why=f"{loudness} (said of the room)")  # fmt: skip
        if not chosen:
            paused = [(c, h) for c in clauses if c.later and not c.question for h in c.hits
                      if h.tool in ("stop", "pause") and not h.negated]  # fmt: skip
            if paused and self.scan.episode_end(clauses):
                # "等这回书说完了再暂停": a stop planned for the episode's end is its timer
                clause, hit = paused[0]
                chosen = [(clause, Hit("sleep_timer", "episode_end", hit.start, hit.end))]
        if not chosen:
            return self._bare(base, clauses, titles, hints)
        # The last of each group is meant ("暂停，算了，继续" resumes), but an amount said
        # beats a complaint beside it ("声音开到八十吧，太小了"); of questions, the last.
        kept: dict[str, tuple[Clause, Hit]] = {}
        replaced: dict[str, tuple[Clause, Hit]] = {}  # what a later act of its group took over
        for clause, hit in chosen:
            group = GROUP.get(hit.tool, hit.tool) if hit.tool in COMMANDS else "question"
            held = kept.get(group)
            if held and held[1].kind == "pattern" and hit.kind != "pattern" and group != "playback":
                continue
            if held and group == "question" and held[1].tool and not hit.tool:
                continue  # of two questions, the one with a topic is answered
            if (
                held
                and (held[1].tool, hit.tool) == ("volume_up", "volume_down")
                and self.scan.loudness([clause]) == "volume_up"
            ):
                continue  # "我听不清，洗碗机太吵了": the noise is too loud, the book too quiet
            if (
                held
                and hit.tool == "play_book"
                and hit.kind == "cues"
                and held[1].tool == "play_book"
                and (held[0].titles or "§E" in held[0].text)
                and not clause.titles
                and "§E" not in clause.text
            ):
                continue  # "放草房子第五集，老师布置的作业要听": the book or episode said, not
                # the bare verb ("skip to the last chapter, I want to know how it ends")
            if (
                held
                and hit.tool == "play_book"
                and hit.kind == "cues"
                and held[1].tool == "play_book"
                and not clause.titles
                and "§E" not in clause.text
                and self._keyword(clause, hit) in ("", "的")
                and self._keyword(*held) not in ("", "的")
            ):
                continue  # "儿子想听斗罗大陆，给他放一个": the words after the first verb say which
            if (
                held
                and held[1].tool == "play_book"
                and "§E" in held[0].text
                and hit.tool in ("stop", "pause")
                and hit.kind == "cues"
                and re.search(r"[那这两几\d一二三四五六七八九十]\s*[集回章节]", clause.text)
            ):
                continue  # "放第四十三回，中间那两回不听了": the episodes passed over, no stop
            if (
                held
                and held[1].tool in ("play_book", "next_episode", "resume")
                and hit.tool == "stop"
                and re.match(
                    r"(?:we're|i'm|we are|i am|im|were) done\b", clause.text[hit.start : hit.end]
                )
                and re.match(r"\s*with\b", clause.text[hit.end :])
            ):
                continue  # "go on to the next one, we're done with this one": the reason
            if (
                held
                and held[1].tool in ("play_book", "next_episode", "resume")
                and hit.tool in ("stop", "pause")
                and hit.kind == "cues"
                and re.match(r"(?:and )?then\b|然后|再", clause.text)
                and "sleep" not in kept
                and not self.scan.episode_end(self.clauses)
            ):  # "play this one and the next, then switch off": a stop to come, said no when
                kept["sleep"] = (clause, Hit("sleep_timer", "vague", hit.start, hit.end))
                continue
            if (
                held
                and (held[1].tool, hit.tool) == ("set_speed", "set_speed")
                and held[1].kind in ("normal", "pattern")
                and hit.kind in ("faster", "slower")
            ):
                continue  # "back to normal speed, he sounds like a chipmunk": the reason
            if held and group == "skip" and (held[1].kind, hit.kind) == ("topic", "topic"):
                # "skip intro one minute, and outro thirty": both ends, each its own amount
                merged = {**held[1].args, **hit.args}
                if "relative" not in hit.args and set(held[1].args) - {"relative"} <= set(
                    hit.args
                ):  # "the end runs longer than that. make the end skip 35 seconds": the amount
                    merged.pop("relative", None)
                hit = Hit(hit.tool, hit.kind, hit.start, hit.end, merged)
            if group in kept:
                replaced[group] = kept.pop(group)
            kept[group] = (clause, hit)
        speed = kept.get("speed")
        if (
            speed is not None
            and speed[1].kind in ("faster", "slower")
            and not _SPEED_ASKED.search(speed[0].text[speed[1].start : speed[1].end])
            and (
                kept.get("seek")
                or kept.get("skip")  # "一分半的片头每集都给跳了吧，太磨叽": the skip's reason
                or (
                    kept.get("playback")
                    and (
                        kept["playback"][1].tool in ("next_episode", "previous_episode")
                        or "§E" in kept["playback"][0].text
                    )
                )
            )
        ):  # "这章太拖了，换下一章": the pace is the reason to move on, not a speed asked
            del kept["speed"]
        sleep = kept.get("sleep")
        if sleep is not None and "d" in sleep[1].args and sleep[1].kind == "pattern":
            at = self.clauses.index(sleep[0])
            later = self.clauses[at + 1 :]
            if self.scan.count(later, "corrections", "clause_alone") and self.scan.episode_end(
                later
            ):  # "turn off in forty minutes no wait just when this chapter ends": the end
                kept["sleep"] = (
                    later[-1],
                    Hit("sleep_timer", "pattern", 0, 0, {"episode_end": "end"}),
                )
        elif sleep is not None and (
            sleep[1].kind in ("episode_end", "cancel") or "episode_end" in sleep[1].args
        ):  # "stop at the end of the episode - no wait, make it twenty minutes": the minutes;
            # "forget the end of the chapter — make it fifteen minutes instead"
            at = self.clauses.index(sleep[0])
            later = self.clauses[at + 1 :]
            said = [d for c in later for d in re.findall(r"§D(\d+)§", c.text)]
            if (
                len(said) == 1
                and (
                    self.scan.count(later, "corrections", "clause_alone")
                    or (
                        sleep[1].kind == "cancel"
                        and any(re.search(r"\binstead\b|改成|换成", c.text) for c in later)
                    )
                )
                and not self.scan.episode_end(later)
                and not any(h.tool in ("seek", "set_skip") for c in later for h in c.hits)
            ):
                kept["sleep"] = (later[-1], Hit("sleep_timer", "pattern", 0, 0, {"d": said[0]}))
        playback = kept.get("playback")
        if (
            playback is not None
            and "skip" in kept
            and playback[1].tool == "stop"
            and re.fullmatch(
                r"cut(?: it| that| them)?(?: out| off)?|剪掉|去掉",
                playback[0].text[playback[1].start : playback[1].end],
            )
        ):  # "a sponsor read at the end of every episode, a full minute. cut it": the skip's verb
            del kept["playback"]
        volume = kept.get("volume")
        amount = volume and re.match(
            r"\s*(?:by\s+)?(?:another\s+|about\s+)?(?=§D)|[个了]?(?=§D)",
            volume[0].text[volume[1].end :],
        )
        if (
            volume is not None
            and volume[1].kind != "pattern"
            and amount
            and any(g in kept for g in ("skip", "seek", "sleep"))
            and not any(
                held[0] is volume[0] and held[1].start == volume[1].end + amount.end()
                for held in kept.values()
            )  # "声音小点半小时后关掉": the amount begins a timer of its own
        ):  # "the intro skip isn't enough, bump it up by fifteen seconds": seconds are no volume
            del kept["volume"]
        elif (
            volume is not None
            and volume[1].kind == "pattern"
            and "skip" in kept
            and kept["skip"][0].start <= volume[0].start
            and not self.scan.said(volume[0].text, "volume_nouns")
        ):  # "the intro skip is way too long … set it to ten": the skip's amount, no volume
            del kept["volume"]
        self._settle(kept, replaced)
        sleep, playback = kept.get("sleep"), kept.get("playback")
        if (
            sleep is not None
            and sleep[1].kind != "cancel"
            and "episode_end" not in sleep[1].args
            and _ROUGH_AMOUNT.search(self.folded)
        ) or (
            playback is not None
            and playback[1].tool in ("stop", "pause")
            and _ROUGH_AMOUNT.search(playback[0].text)
        ):  # "switch it off in an hour and a bit", "二十多分钟后关掉": when, said roughly
            return Reading(**base, clarify="when", tools=hints, why="asks: when (said roughly)")
        if kept and "playback" not in kept and set(kept) <= {"sleep", "speed", "skip", "volume"}:
            # "Chapter 3 of The Martian, and stop when it's done": a clause that is a book
            # (and its episode) alone, beside what is set of it, asks for that book
            alone = [
                c for c in clauses
                if c.titles and not c.hits and not c.question and not c.later
                and not strip_words(
                    PLACEHOLDER.sub(" ", c.text).strip(" ,.!?，。！？"),
                    (*self.phrases(script_of(c.text)).words("fillers"), "of", "the", "的"),
                    script_of(c.text),
                ).strip()
            ]  # fmt: skip
            if len(alone) == 1:
                kept["playback"] = (alone[0], Hit("play_book", "cues", 0, 0))
                self._given.add(id(alone[0]))  # its episode is the book's, no other amount
        playback = kept.get("playback")
        if playback is not None and playback[1].tool in ("play_book", "resume"):
            instead = self._corrected_book(playback[0])
            if instead is not None:  # "play dracula no wait treasure island": the later book
                kept["playback"] = (instead, Hit("play_book", "cues", 0, 0))
                playback = kept["playback"]
        if (
            playback is not None
            and playback[1].tool in ("stop", "pause")
            and "sleep" not in kept
            and not playback[0].question
            and not _now_beside(*playback)
            and self.scan.episode_end(clauses)
        ):  # "讲完这个故事就别讲了", "when chapter finish, you stop": at the episode's end
            kept["sleep"] = (playback[0], Hit("sleep_timer", "episode_end", playback[1].start,
                                              playback[1].end))  # fmt: skip
        ending = kept.get("sleep")
        if (
            ending is not None
            and "episode_end" in ending[1].args
            and ending[0].titles
            and not ending[0].question
            and "playback" not in kept
        ):  # "read one chapter of Matilda and then turn off": that book first, then the timer
            rest = dict(kept)
            kept.clear()
            kept["playback"] = (
                ending[0],
                Hit("play_book", "cues", ending[1].start, ending[1].start),
            )
            kept.update(rest)
        if ending is not None and ending[1].args.get("keep_playing") and "playback" not in kept:
            kept["playback"] = (ending[0], Hit("resume", "cues", ending[1].start, ending[1].end))
        if ending is not None and ending[1].kind == "episode_end":
            playback = kept.get("playback")
            if playback is not None and playback[1].tool in ("stop", "pause"):
                del kept["playback"]  # "after this chapter, stop": the stop is the timer's
                before = replaced.get("playback")
                if before is not None and before[1].tool == "play_book":
                    kept["playback"] = before  # "play X, just the one chapter, then off"
            else:
                del kept["sleep"]  # "after this chapter" alone commands nothing
                if not kept:
                    return self._bare(base, clauses, titles, hints)
        calls: list[Call] = []
        extra: dict[str, Any] = {}
        asked = [(c, h) for c, h in acts if h.tool == "search_album"]
        by_clause: dict[int, tuple[Clause, list[Call]]] = {}
        stepped: list[Call] = []  # episode moves said as seeks
        for clause, hit in sorted(kept.values(), key=lambda ch: ch[0].start + ch[1].start):
            if asked and hit.tool in ("play_book", "resume") and not clause.titles:
                # "有X吗？放一下", "do you have X? put it on": the book asked about
                found = self._call(*asked[-1], titles, {})
                said = (found.arguments.get("keyword") if found is not None else "") or ""
                own = self._keyword(clause, hit) if hit.tool == "play_book" else ""
                if (
                    said
                    and found is not None
                    and script_of(clause.text) == "en"
                    and own
                    and own not in _POINTERS
                    and fold(own) not in fold(said)
                ):
                    # "got any scary stories? … the kids want a fright": a wish told, the
                    # question answered
                    calls.append(found)
                    continue
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
                times = count_value(hit.args.get("n", "")) if hit.tool in (
                    "next_episode", "previous_episode", "volume_up", "volume_down"
                ) else None  # fmt: skip
                made = [call] * min(times or 1, 9)  # "go back two chapters", "调大两格"
                if hit.tool == "seek" and call.tool in ("next_episode", "previous_episode"):
                    stepped.append(call)  # "往前倒一集": a move said as a step
                by_clause.setdefault(id(clause), (clause, []))[1].extend(made)
                calls.extend(made)
        for call in stepped:
            if calls.count(call) > 1:  # "往前倒一集，上一回没听明白": one move, said twice
                calls.remove(call)
        # an amount said beside a command that the command does not carry ("skip fifteen
        # seconds at both ends" read as the next episode): not understood whole, asked first
        unsaid = [v for clause, made in by_clause.values() for v in self._unsaid(clause, made)]
        calls = [self._part(c) for c in calls]
        named = {n.title for n in titles}
        loads = [
            i
            for i, c in enumerate(calls)
            if c.tool == "play_book" and c.arguments.get("keyword") in named
        ]
        if loads and all(c.tool in _SETTINGS for c in calls[: loads[0]]):
            # "一点五倍速，从挽救计划第三章开始": the book first, then what is set of it
            calls.insert(0, calls.pop(loads[0]))
        why = "; ".join(f"{c.tool}{c.arguments or ''}" for c in calls) or (
            f"asks: {extra['clarify']}" if extra.get("clarify") else "asks which book"
        )
        if unsaid and calls:
            why += f" (asked first: {', '.join(map(str, unsaid))} said and not carried)"
        return Reading(
            **base,
            **extra,
            calls=tuple(calls),
            tools=hints or tuple(c.tool for c in calls),
            why=why,
            guess=self._pronoun_title or bool(unsaid and calls),
            whether=self._whether(clauses, calls),
        )

    def _whether(self, clauses: list[Clause], calls: list[Call]) -> str:
        """For a yes-or-no question about the timer alone (the one call get_status about
        "sleep"), what it asks will happen: "stop" ("这集完了它会自己停吧？", "is it gonna
        stop at the end of the chapter?"), "go on" ("会一直放下去吗", "will it keep going
        into the next chapter?") or "which" when it asks both ("…, or stop by itself?");
        else ""."""
        if [(c.tool, c.arguments) for c in calls] != [("get_status", {"about": "sleep"})]:
            return ""
        asked = [c for c in clauses if c.question and self._asks_yes_no(c)]
        if not asked:
            return ""
        text = " ".join(PLACEHOLDER.sub(" ", c.text) for c in asked)
        on = re.search(
            r"接着|继续|一直|往下|下一[集章回节]|不停|\bkeep (?:going|playing|on)\b|\bgo(?:es)? on\b"
            r"|\bcarry on\b|\bcontinue|\bnext (?:one|chapter|episode)\b",
            text,
        )
        stop = re.search(
            r"停|关|歇|\b(?:stop|pause|switch off|turn off|shut off|go quiet|cut out)",
            re.sub(r"不停", "", text),
        )
        if on and stop:
            return "which"
        return "go on" if on else "stop" if stop else ""

    def _correction_only(self, clause: Clause) -> bool:
        """True when `clause` says only a correction ("no wait", "i mean", "哦不对") once its
        titles, amounts and episodes are set aside."""
        script = script_of(clause.text)
        p = self.phrases(script)
        return not strip_words(
            PLACEHOLDER.sub(" ", clause.text).strip(" ,.!?，。！？"),
            (*p.words("corrections"), *p.words("fillers"), "no", "oh", "sorry", "哦", "啊"),
            script,
        )

    def _ordinal_corrected(self, clause: Clause, keyword: str) -> str:
        """`keyword`, or with its opening ordinal replaced by the one a correction after
        `clause` says alone ("play the second harry potter, no wait, the first one": "first
        harry potter")."""
        said = re.match(rf"({_EN_ORDINAL_WORDS})\s+\S", keyword)
        if said is None:
            return keyword
        at = self.clauses.index(clause)
        corrected = False
        for later in self.clauses[at + 1 :]:
            if self._correction_only(later):
                corrected = True
                continue
            other = re.fullmatch(
                rf"(?:no wait |wait |sorry |i mean |actually )*(?:the )?({_EN_ORDINAL_WORDS}|§E\d§)"
                r"(?: one| book| part)?(?: please)?",
                later.text.strip(" ,.!?"),
            )  # "the second one" is read as an episode (§E2§) before it is known a correction
            if corrected and other:
                word = other.group(1)
                if word.startswith("§E"):
                    word = _EN_ORDINAL_WORDS.split("|")[int(word[2]) - 1]
                return word + keyword[said.end(1) :]
        return keyword

    def _corrected_book(self, clause: Clause) -> Clause | None:
        """The clause after a correction that follows `clause` and names a book with no
        command of its own ("play dracula no wait treasure island", "放西游记第三集不对是
        红楼梦第二集"): the book meant instead. None when there is none."""
        at = self.clauses.index(clause)
        corrected = False
        for later in self.clauses[at + 1 :]:
            fillers = self.phrases(script_of(later.text)).words("fillers")
            said = strip_words(later.text.strip(" ,.!?，。！？"), fillers, script_of(later.text))
            if "§" not in later.text and said and self._correction_only(later):
                corrected = True
                continue
            if (
                corrected
                and later.titles
                and not any(h.tool in COMMANDS and not h.negated for h in later.hits)
            ):
                return later
            corrected = False
        return None

    def _unsaid(self, clause: Clause, made: list[Call]) -> list[int]:
        """The amounts said in `clause` that none of `made` (the calls its acts mean)
        carries: seconds, episodes and numbers past 1, none of a rate ("1.25", "one point
        five") or before a correction ("chapter five, no wait, six")."""
        made = [
            c for c in made if c.tool not in ("get_status", "search_album", "list_albums", "help")
        ]
        if not made:
            return []
        at = self.clauses.index(clause)
        rest = " ".join(c.text for c in self.clauses[at:])
        rest = re.sub(r"[\s,.!?，。！？、…]+", " ", PLACEHOLDER.sub(" ", rest))
        if any(
            said_in(w, rest, script_of(w))
            for p in (self.zh, self.en)
            for w in p.words("corrections")
        ):
            return []  # "chapter five, no wait, six": the amount before is taken back
        values: set[float] = {float(len(made))}
        for call in made:
            for value in call.arguments.values():
                if isinstance(value, str):
                    # "second harry potter": an ordinal opening a keyword is read after "the"
                    values |= {
                        float(n.value)
                        for said in (value, f"the {value}")
                        for n in numbers_said(said, lone_one=False)
                    }
                elif isinstance(value, (int, float)) and not isinstance(value, bool):
                    value = abs(float(value))
                    values |= {value, value * 60, value / 60}
                    if call.tool == "set_speed":
                        values.add(round(value * 100))  # "set the speed to 150 percent"
        # an amount said alone beside it is its amount ("skip the start music, quarter of
        # minute, for every chapter")
        near = [c for c in self.clauses[max(at - 1, 0) : at + 2]
                if c is clause or (not c.hits and id(c) not in self._given
                                   and self._amount_alone(c))]  # fmt: skip
        said: list[int] = []
        for piece in near:
            if id(piece) in self._described:
                continue
            if piece is not self.clauses[-1] and (
                piece.question
                or re.search(r"(?:是吧|对吧|对不对|right|isn't it|is it)\s*$", piece.text)
            ):
                continue  # "片头现在跳五十秒是吧？太多了，改成半分钟": the amount asked about
            said += [int(s) for s in re.findall(r"§D(\d+)§", piece.text)]
            said += [abs(int(e)) for e in re.findall(r"§E(-?\d+)§", piece.text)]
            plain = _DECIMAL.sub(" ", PLACEHOLDER.sub(" ", piece.text))
            plain = NUMERAL_IN_WORD.sub(lambda m: " " * len(m.group()), plain)
            plain = _TIMES.sub(" ", plain)  # "heard it like three times": how often
            said += [n.value for n in numbers_said(plain, lone_one=False)]
        return [v for v in said if v > 1 and float(v) not in values]

    def _amount_alone(self, clause: Clause) -> bool:
        """True when `clause` says an amount and next to nothing else ("40 seconds", "大概
        四十秒"): a word at most, besides fillers."""
        if "§D" not in clause.text and not re.search(r"\d", clause.text):
            return False
        script = script_of(clause.text)
        if any(said_in(w, clause.text, script) for w in self.phrases(script).words("negations")):
            return False  # "不要半小时了": an amount taken back
        rest = re.sub(r"§[A-Z]-?\d*§|\d+", " ", clause.text)
        rest = strip_words(
            rest.strip(" ,.!?，。！？"), self.phrases(script).words("fillers"), script
        )
        return len(rest.split()) <= 1 if script == "en" else len(rest) <= 2

    def _asks_yes_no(self, clause: Clause) -> bool:
        """True when `clause` asks whether something is so ("are you going to …", "会不会
        …", "…吗"), as a question of how or when does not."""
        plain = PLACEHOLDER.sub(" ", clause.text).strip()
        if script_of(clause.text) == "zh":
            return bool(
                re.search(
                    r"(?:有没有|吗|么|会[^，。！？]{0,8}[^不]不)[?？]?$|会[^，。！？]{0,8}吧[?？]?$"
                    r"|是不是|会不会|是[^，。！？还]{1,4}还是",
                    plain,
                )
                or A_NOT_A.search(plain)
                or HAPPENED.search(plain)
                or BEHAVES.search(plain)
            )
        return bool(
            re.match(
                r"(?:are you|is it|will it|does it|would it|will this|does this|would this|is this"
                r" going|will you be|did you|did it|have you|is the|did i|have i)\b",
                plain,
            )
            or re.match(r"(?:you'?re|you are|it'?s|it is) (?:gonna|going to)\b.*\bright\W*$", plain)
            or re.match(r"or\b", plain)
        )

    def _settle(
        self, kept: dict[str, tuple[Clause, Hit]], replaced: dict[str, tuple[Clause, Hit]]
    ) -> None:
        """Drops from `kept` what another kept act says better:

        - an amount to move beats an "again" said in a clause of its own ("rewind about two
          minutes, I need to hear that again"); an episode again beats a step back said
          with no amount ("这集重来……刚才压根没听清");
        - a timer with its amount owns the stop said after it ("再听二十分钟就得出门了，到点儿
          自动关了吧" is a 20-minute timer, not a stop now);
        - a speed set beside a remark of the ears in a clause of its own ("调成零点七五倍，爷爷
          说听不清"): the remark is the speed's reason, not a volume step; a verb of up or
          down beside a speed said in its clause ("crank it up to 1.5x") moves the speed.
        """
        skip, playback = kept.get("skip"), kept.get("playback")
        if (
            skip
            and playback
            and playback[0] is not skip[0]
            and (playback[1].tool, playback[1].kind)
            in (("next_episode", "cues"), ("play_book", "cues"))
            and not playback[0].titles
            and "§E" not in playback[0].text
            and not re.search(
                r"[集章回节]|\b(?:episode|chapter|part|track)",
                playback[0].text[playback[1].start : playback[1].end],
            )  # "…然后播下一集": the next episode said
        ):  # "每集开头那段音乐烦死了，给我跳过去": the skip's verb, not the next episode;
            del kept["playback"]  # "…，开头几句都没了": a remark on the skip, no book
        playback, sleep = kept.get("playback"), kept.get("sleep")
        if sleep and sleep[1].tool == "sleep_timer" and "episode_end" in sleep[1].args:
            own = sleep[0]
            if any(
                said_in(w, PLACEHOLDER.sub(" ", c.text), script_of(c.text))
                and (c is not own or self._cancels(own, w, sleep[1]))
                for c in self.clauses[self.clauses.index(own) :]
                for w in self.phrases(script_of(c.text)).words("cancel_words")
            ):  # "cancel the stop at the end of the chapter", "…这章完了就停的那个，取消掉";
                # not "forget the timer, just stop it when this chapter ends"
                kept["sleep"] = (sleep[0], Hit("sleep_timer", "cancel", 0, 0))
            elif (
                playback
                and playback[1].tool in ("stop", "pause")
                and self._now_instead(sleep[0], *playback)
            ):  # "这集完了停吧，哎不对，现在就停": now, not at the episode's end
                del kept["sleep"]
                kept["playback"] = (playback[0], Hit("pause", "cues", playback[1].start,
                                                     playback[1].end))  # fmt: skip
            elif (
                playback
                and playback[1].tool in ("stop", "pause")
                and playback[1].kind == "cues"
                and (playback[0] is not sleep[0] or not _now_beside(*playback))
            ):  # "听完这一集咱们就睡觉了。这集放完就停", "after this chapter we have to stop so
                # stop after this chapter": the stop is the timer's
                del kept["playback"]
                playback = None
                before = replaced.get("playback")
                if before is not None and before[1].tool in ("next_episode", "previous_episode"):
                    kept["playback"] = playback = before  # "next chapter and pause at its end"
        speed, volume = kept.get("speed"), kept.get("volume")
        if (
            speed
            and volume
            and volume[0] is not speed[0]
            and speed[1].kind in ("faster", "slower")
            and volume[1].tool in ("volume_up", "volume_down")
            and volume[1].kind == "cues"
            and not any(
                said_in(w, PLACEHOLDER.sub(" ", volume[0].text), script_of(volume[0].text))
                for w in self.phrases(script_of(volume[0].text)).words("volume_nouns")
            )
        ):  # "way too fast for the kids, bring it down a notch": the speed, down a step
            kept.pop("volume", None)
        if (
            speed
            and volume
            and volume[1].kind == "cues"
            and re.search(r"\b(?:slow|speed)\s*$", volume[0].text[: volume[1].start])
        ):  # "slow down a bit": the verb of speed's own particle, no volume
            kept.pop("volume", None)
            volume = None
        if (
            speed
            and volume
            and volume[1].tool in ("volume_up", "volume_down")
            and volume[1].kind == "cues"
            and self.scan.loudness([volume[0]]) is not None
            and (
                volume[0] is not speed[0]
                or all(
                    self.scan.said(
                        volume[0].text[h.start : h.end], "louder_signals", "quieter_signals"
                    )
                    for h in volume[0].hits
                    if h.tool in ("volume_up", "volume_down") and not h.negated
                )
            )
        ):  # "奶奶耳朵不好使你念慢点儿": the ears are the speed's reason, not the volume's
            kept.pop("volume", None)
        if (
            speed
            and volume
            and volume[0] is speed[0]
            and speed[1].kind == "pattern"
            and volume[1].kind == "cues"
            and not any(
                said_in(w, PLACEHOLDER.sub(" ", volume[0].text), script_of(volume[0].text))
                for w in self.phrases(script_of(volume[0].text)).words("volume_nouns")
            )
            and not re.search(
                r"\b(?:and|then)\b|[,，、]|然后|再",
                volume[0].text[volume[1].end : speed[1].start],
            )  # "turn it down a little and slow it to point eight": two acts
        ):  # "crank it up to three x": up to a speed, no volume said
            kept.pop("volume", None)
        playback, seek, sleep = kept.get("playback"), kept.get("seek"), kept.get("sleep")
        if (
            playback
            and len(kept) > 1
            and (playback[1].tool, playback[1].kind) == ("play_book", "cues")
            and not playback[0].titles
            and "§E" not in playback[0].text
            and self._keyword(*playback) in ("", "的")
        ):  # "别跳片尾了，…我想听": a bare verb beside another command asks for nothing more
            del kept["playback"]
            playback = None
        if playback and seek and (playback[1].tool, playback[1].kind) == ("play_book", "replay"):
            segment = (
                seek[0] is playback[0]
                and seek[1].kind == "back"
                and re.search(r"[段句]", seek[0].text[seek[1].start : seek[1].end])
                and not re.search(r"[整这本全]一?[集章回节]", seek[0].text)
            )
            if segment and self._scope(playback[0]) != "episode":
                # "前面那一小段能再来一遍不": a stretch of words heard again, not the episode
                # ("刚那段没听明白 整集重放": the episode, said in a clause of its own)
                del kept["playback"]
            elif seek[1].kind != "pattern":
                del kept["seek"]
            elif self._scope(playback[0]) != "episode" and "§E" not in playback[0].text:
                # "往回倒十五秒再放一遍": those seconds again, not the episode
                del kept["playback"]
        playback = kept.get("playback")
        said = re.search(r"§D(\d+)§", playback[0].text) if playback else None
        if (
            said
            and (playback[1].tool, playback[1].kind) == ("play_book", "replay")
            and "seek" not in kept
            and self._scope(playback[0]) != "episode"
            and "§E" not in playback[0].text
            and not playback[0].titles
        ):  # "play the last ten seconds again": back by the seconds said, not the episode
            del kept["playback"]
            kept["seek"] = (
                playback[0],
                Hit("seek", "pattern", playback[1].start, playback[1].end,
                    {"d": said.group(1), "dir": "back"}),
            )  # fmt: skip
        playback = kept.get("playback")
        if (
            playback
            and sleep
            and sleep[1].kind == "pattern"
            and playback[1].tool in ("stop", "pause")
            and playback[0].start + playback[1].start >= sleep[0].start + sleep[1].start
        ):
            del kept["playback"]

    def _now_instead(self, timer: Clause, clause: Clause, stop: Hit) -> bool:
        """True when the stop `stop` in `clause` comes after the end-of-episode timer's
        clause `timer` and a correction between them, with a word of now beside it ("这集
        完了停吧，哎不对，现在就停"): the stop is now, and the timer is taken back."""
        if clause is timer or not _now_beside(clause, stop):
            return False
        at, to = self.clauses.index(timer), self.clauses.index(clause)
        return to > at and self.scan.count(self.clauses[at + 1 : to + 1], "corrections",
                                           "clause_alone") > 0  # fmt: skip

    def _cancels(self, clause: Clause, word: str, hit: Hit) -> bool:
        """True when the cancel `word` of `clause` takes back the end-of-episode `hit`, not
        a timer it names before it ("forget the timer, just stop it when this chapter ends":
        the minutes' timer off, the episode's end on)."""
        at = clause.text.find(word)
        if at < 0 or at >= hit.start:
            return True
        between = clause.text[at + len(word) : hit.start]
        script = script_of(clause.text)
        return not any(said_in(w, between, script)
                       for w in self.phrases(script).tools.get("sleep_timer", {}).get("cues", ()))  # fmt: skip

    def _beside(self, clause: Clause, hit: Hit) -> list[Hit]:
        """Commands of other kinds said in the same clause as `hit` ("跳到下一集顺便声音大点":
        the next episode and louder), the best of each, never a question's or a plan's."""
        if clause.question or clause.later or hit.tool not in COMMANDS:
            return []
        taken = {GROUP.get(hit.tool, "question")}
        out = []
        if hit.tool == "set_skip":
            taken |= {"playback", "seek"}  # "…直接跳过去", "片头多跳十秒": the skip's own verb
            if clause.titles and not clause.question:
                # "play Charlotte's Web and skip the intros": that book first, then its skip
                out.append(Hit("play_book", "cues", -1, -1))  # before the skip's words
        for other in sorted(clause.hits, key=lambda h: -h.rank):
            group = GROUP.get(other.tool)
            if group is None or group in taken or other.negated:
                continue
            if other.start < hit.end and hit.start < other.end:
                continue  # the same words
            if other.tool == "set_skip" and other.kind in _SKIP_SCOPES:
                continue  # "就这一集往后跳一分钟": which episodes, not a skip of its own
            if (
                group == "playback"
                and other.tool == "play_book"
                and other.kind == "cues"
                and "§E" not in clause.text
                and not clause.titles
            ):
                continue  # a bare verb beside another command is no second request
            if other.tool == "seek" and other.kind != "pattern" and "§E" in clause.text:
                # "turn it up and skip ahead to chapter 3": that episode, not a seek
                other = Hit("play_book", "cues", other.start, other.end)
                group = "playback"
            taken.add(group)
            out.append(other)
        return out

    def _act(self, clause: Clause) -> Hit | None:
        """The one hit of `clause` that says what it asks for, or None (a remark)."""
        # words that tell of which episodes a skip is for, or that one is kept, ask nothing
        # alone ("just for this episode, jump to the one minute mark", "keep the start as
        # it is"): `_skip_of` reads them beside a skip
        live = [
            h
            for h in clause.hits
            if not h.negated and not (h.tool == "set_skip" and h.kind in _SKIP_SCOPES)
        ]
        held = [h for h in live if h.tool == "pause"]
        rest = clause.text  # without the words of waiting ("等会儿等会儿")
        for h in sorted(held, key=lambda h: -h.start):
            rest = rest[: h.start] + " " + rest[h.end :]
        if (
            clause.later
            and held
            and not strip_words(
                PLACEHOLDER.sub(" ", rest),
                self.phrases(script_of(clause.text)).words("fillers"),
                script_of(clause.text),
            )
        ):
            return held[0]  # "等会儿啊": wait, now; no plan for later follows in its clause
        if self.scan.own_task(clause):
            live = [h for h in live if h.tool not in ("resume", "play_book")]
            if not live:
                return None  # "I need to pick up the kids": the listener's errand, no resume
        skip = self._skip_topic(clause)  # a skip is a setting from now on ("以后…开头都跳过")
        if skip is not None:
            return skip if skip.kind != "keep" else None
        if clause.later:  # a plan for later: its commands are not for now (a timer is)
            live = [
                h
                for h in live
                if h.tool not in COMMANDS
                or (h.kind in ("pattern", "vague") and h.tool == "sleep_timer")
            ]
            if not live and not clause.question:
                return None
        if self._correction_only(clause):
            return None  # "no wait", "哦不对": a correction asks for nothing itself
        if id(clause) in self._given and not clause.titles and "§E" not in clause.text:
            return None
        cancel = [h for h in clause.hits if (h.tool, h.kind) == ("sleep_timer", "cancel")]
        ends = [h for h in live if h.tool == "sleep_timer" and h.start >= cancel[-1].end
                and (h.kind == "episode_end" or "episode_end" in h.args)] if cancel else []  # fmt: skip
        if ends and not clause.question:
            # "别定时了就放完这一集自动停": the timer's minutes off, the episode's end on
            return ends[-1]
        if cancel and not clause.question:  # "不用等这集完了再停": no timer, whatever else
            return cancel[0]
        negated = [h for h in clause.hits if h.negated and h.tool in ("pause", "stop")]
        unset = [h for h in clause.hits if h.negated and h.tool == "sleep_timer"]
        onward = [h for h in clause.hits if h.negated and h.tool == "next_episode"
                  and re.search(r"下|\bnext\b|\bon\b", clause.text[h.start : h.end])]  # fmt: skip
        # ("别跳过去", "don't skip it": no skip, no end of anything)
        if (
            onward
            and not clause.question
            and not any(h.tool in COMMANDS and h.tool != "resume" for h in live)
        ):  # "别放下一集", "don't carry on into the next one": this episode is the last
            if re.search(r"\byet\b|先别|还别|暂时别", clause.text):
                # "don't skip to the next chapter yet": not now, and no end set either
                return Hit("resume", "cues", onward[0].start, onward[0].end)
            return Hit(
                "sleep_timer", "pattern", onward[0].start, onward[0].end, {"episode_end": "next"}
            )
        if unset and not clause.question:  # "don't stop at the end of the chapter": no timer
            return Hit("sleep_timer", "cancel", unset[0].start, unset[0].end)
        if (
            clause.question
            and self._asks_yes_no(clause)
            and any(h.tool in ("pause", "stop") and not h.negated for h in live)
            and (
                re.match(r"\s*did\b", clause.text)
                or not any(h.tool in ("sleep_timer", "stop") for h in live)
            )
            and not _EPISODE_OVER.search(clause.text)
        ):  # "did it pause?", "did you stop it?": what it is doing now, not a pause (at an
            # episode's end, "这集放完它能自己停下吧", what the timer is set to)
            return Hit("get_status", "now", 0, 0)
        if (
            clause.question
            and self._asks_yes_no(clause)
            and (
                any(h.tool in ("sleep_timer", "stop") for h in live)
                or (any(h.tool == "pause" for h in live) and _EPISODE_OVER.search(clause.text))
            )
        ):  # "are you going to stop after this chapter?", "is it going to stop on its own?":
            # what the timer is set to
            return Hit("get_status", "sleep", 0, 0)
        if (
            clause.question
            and self._asks_yes_no(clause)
            and any(h.tool in ("resume", "next_episode") or h.kind == "continue" for h in live)
            and not (self._skip_spoken() and self._skip_verb_in([clause]))
        ):  # "will it keep going into the next chapter?", "会不会一直放下去": the timer; not
            # "是不是设了跳过", a skip asked about
            return Hit("get_status", "sleep", 0, 0)
        if clause.question and any(h.tool == "set_speed" for h in live):
            return Hit("get_status", "now", 0, 0)  # "is this normal speed?": what it plays at
        if clause.question:
            info = [h for h in live if h.tool not in COMMANDS]
            ends = [
                h
                for h in live
                if h.kind == "episode_end"
                or (  # "when this chapter finishes, just pause it"; not "how long till the end"
                    "episode_end" in h.args
                    and re.search(
                        r"\b(?:stop|pause|off|lights out|bedtime)\b|[停关]",
                        clause.text[h.start : h.end],
                    )
                )
            ]
            if ends:  # "when this chapter ends, switch off": a time, not a question
                return max(ends, key=lambda h: h.kind == "pattern")
            missed = [
                h
                for h in live
                if h.tool == "seek"
                and h.kind == "back"
                and h.start <= 3
                and h.end >= len(clause.text.rstrip(" ?？!.。啊呢呀"))
            ]
            if missed and not info:
                return missed[0]  # "what did he just say?": the words missed, heard again
            if (
                not info
                and re.search(r"\bskip(?:s|ped|ping)?\b|跳", clause.text)
                and not self._skip_verb_in([c for c in self.clauses if c is not clause])
            ):
                return Hit("get_status", "skip", 0, 0)  # "what are you skipping at the moment?"
            if not info:
                return Hit("", "question", 0, 0)
            status = [h for h in info if h.tool == "get_status"]
            if status:
                topic = min(
                    status, key=lambda h: _TOPICS.index(h.kind) if h.kind in _TOPICS else 99
                ).kind
                return Hit("get_status", topic, status[0].start, status[0].end)
            return max(info, key=lambda h: (h.rank, h.start))
        if not live:
            stops = [h for h in negated if h.tool == "stop"]
            if stops:  # "别停", "不用停了": no stop planned either, and keep playing
                return Hit("sleep_timer", "cancel", stops[0].start, stops[0].end,
                           {"keep_playing": True})  # fmt: skip
            if negated:  # "不要暂停": keep playing
                return Hit("resume", "cues", negated[0].start, negated[0].end)
            held = [
                h
                for h in clause.hits
                if h.negated
                and (h.tool == "resume" or (h.tool, h.kind) == ("play_book", "continue"))
            ]
            if held:  # "书先别往下讲了": no more for now, a pause
                return Hit("pause", "cues", held[0].start, held[0].end)
            return None

        def rank(hit: Hit) -> int:
            if hit.tool == "play_book" and hit.kind in ("cues", "continue") and clause.titles:
                return 45  # "放书库里的西游记": the book named, not the library
            if hit.tool == "play_book" and hit.kind == "cues" and "§E" in clause.text:
                return 58  # "从第八章开始放吧": the episode said, not "放吧" to resume
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
        # "§E" or an episode's words ("这一集"); a word of both ("this one") beside a word of
        # the book ("begin the book again") speaks of the book
        episode_said = any("§E" in c.text or self._scope(c) == "episode" for c in self.clauses)
        if (
            hit.kind == "replay"
            and starts
            and not episode_said
            and (self.titles_found or any(self._scope(c) == "book" for c in self.clauses))
        ):
            hit = starts[-1]  # "把活着从头再听一遍": the book from its start; with no book
            # said, "start it from the beginning again" is the episode heard, again
        elif hit.kind == "from_start" and episode_said and "§E" not in clause.text:
            hit = Hit(hit.tool, "replay", hit.start, hit.end)  # "这集开头错过了，从头放"
        if hit.tool == "play_book" and hit.kind == "replay":
            # "再听一遍上一集": the episode before, again
            relative = [h for h in live if h.tool in ("previous_episode", "next_episode")]
            if relative:
                return relative[-1]
        if (
            hit.tool == "seek"
            and hit.kind != "pattern"
            and ("§E" in clause.text or _EPISODE_CALLED.search(clause.text))
        ):  # "jump ahead to chapter 20", "skip ahead to the chapter called Sol 15"
            return Hit("play_book", "cues", hit.start, hit.end)
        return hit

    def _call(
        self, clause: Clause, hit: Hit, titles: list[Named], extra: dict[str, Any]
    ) -> Call | None:
        """The call `hit` of `clause` means (None: the model's; a call with no tool: a
        question back, its titles in `extra`)."""
        self._at = hit.start
        return self._call_at(clause, hit, titles, extra)

    def _call_at(
        self, clause: Clause, hit: Hit, titles: list[Named], extra: dict[str, Any]
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
                said = self._keyword(clause, hit)
                found = self.index.lookup(said) if said else []
                named = found[:1] if len(found) == 1 else []
            if not named and kind == "now" and self.index is not None:
                # "明朝那些事儿我上回听到第几集了": a series named, its parts the choices; the
                # one listened to says which (see `Reading.choices`)
                found = self.index.series_in(clause.text)
                if len(found) > 1:
                    extra["choices"] = tuple(found[:5])
                    return Call("get_status", {}, book=found[0])
            if named and kind in ("episodes", "author", "narrator", "description"):
                return Call("search_album", {"keyword": named[-1]})
            if named:
                return Call("get_status", {"about": kind} if kind != "now" else {}, book=named[-1])
            return Call("get_status", {"about": kind} if kind != "now" else {})
        if tool == "set_volume":
            if "percent_max" in hit.args:
                return Call("set_volume", {"percent": 100})
            if "percent_half" in hit.args:
                return Call("set_volume", {"percent": 50})  # "音量开到一半", "volume to half"
            value = number_value(hit.args.get("n", "").strip())
            return (
                Call("set_volume", {"percent": value})
                if value is not None and value <= 100
                else None
            )
        if tool == "sleep_timer":
            if kind == "vague":  # "过一会儿就停吧": when?
                extra["clarify"] = "when"
                return Call("")
            if kind == "cancel":
                return Call("sleep_timer", {"minutes": 0})
            if "episode_end" in hit.args or kind == "episode_end":
                # "听完这一集就关", "stop after this chapter", "after this chapter, stop"
                return Call("sleep_timer", {"end_of_episode": True})
            seconds = self._slot_seconds(hit)
            if kind == "cues" and len(self.durations) == 1:
                seconds = self.durations[0]  # "put a timer on it, say an hour and ten"
            elif kind == "cues" and (beside := _amount_beside(clause.text, hit)) is not None:
                seconds = beside  # "skip 20 seconds of intro and set a 30 minute timer"
            elif kind == "cues" and not self.durations and not clause.question:
                extra["clarify"] = "when"  # "set a sleep timer": for how long?
                return Call("")
            elif kind != "pattern":
                return None
            if seconds is None:
                return None
            minutes = seconds / 60
            return Call(
                "sleep_timer",
                {"minutes": int(minutes) if minutes == int(minutes) else round(minutes, 1)},
            )
        if tool == "seek":
            return self._seek(clause, hit)
        if tool == "set_speed":
            if kind == "ask":  # "调一下速度": faster or slower?
                extra["clarify"] = "speed"
                return Call("")
            if hit.kind == "normal" and re.search(_VOLUME_NOT_SPEED, fold(self.utterance)):
                return None  # "put the volume back to normal": no speed
            call = self._speed(hit)
            if call is not None and not 0.5 <= call.arguments.get("rate", 1.0) <= 2.0:
                extra["clarify"] = "speed_range"  # "三倍速": past what the player holds, ask
                return Call("")
            return call
        if tool == "set_skip":
            if kind == "ask":
                extra["clarify"] = "skip"
                return Call("")
            call = Call("set_skip", dict(hit.args)) if kind == "topic" else self._skip(clause)
            return self._once(call)
        if tool == "search_album":
            said = hit.args.get("k", "")
            inside = [titles[int(i)].title for i in re.findall(r"§B(\d+)§", said)]
            if said and not inside:
                script = script_of(said)
                trim = (*self.phrases(script).words("title_wrappers"), "的")
                if script == "en":  # "something by roald dahl for my kids"
                    trim += self.phrases(script).words("keyword_trim")
                said = strip_words(PLACEHOLDER.sub(" ", said), trim, script)
            keyword = (inside or named or [None])[-1] or said or self._keyword(clause, hit)
            if keyword in ("的", "") or re.match(r"^(?:什么|啥|哪些)", keyword or ""):
                return Call("list_albums")  # "有没有适合小孩听的": what there is
            if keyword and function_only(keyword):
                return Call("list_albums")  # "list the books": the library, no title
            if (
                keyword
                and not inside
                and not named
                and self._describes(keyword, script_of(keyword))
            ):
                return Call("list_albums")  # "有我朋友推荐的那本吗": a book described, no title
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
            if (
                kind == "cues"
                and "§E" not in clause.text
                and _EPISODE_DESCRIBED.search(clause.text)
            ):  # "play the episode of Journey to the West where the Monkey King …": which one?
                extra["clarify"] = "episode"
                return Call("")
            if kind == "replay":
                if (
                    named
                    and self._episode(clause) is None
                    and self.scan.count(self.clauses, "heard_words")
                ):  # "把X刚才听的那集再放一遍": that book's episode listened to, not its first
                    return self._play(clause, named, extra)
                if named:  # "我想把活着再听一遍": that book again, from its start
                    return self._play(clause, named, extra, episode=self._episode(clause) or 1)
                said = self._episode(clause)
                if said == -1:
                    return Call("previous_episode")  # "play the last chapter again": the one before
                heard = self.scan.count(self.clauses, "heard_words") > 0
                return Call("play_book", {"section": said or (Ref.HEARD if heard else Ref.EPISODE)})
            if kind == "from_start":
                if named:
                    return self._play(clause, named, extra, episode=1)
                near = self._near_title(clause, hit)
                if near:  # "火枪手那本从头放": the book the other words name
                    return self._play(clause, [near], extra, episode=1)
                return Call("play_book", {"section": 1})
            if kind == "other_book":
                return Call("play_book", {"keyword": Ref.OTHER_BOOK})
            if kind == "another" and not named:
                extra["ask_which"] = True
                return Call("")
            if named and not clause.titles and self._keyword(clause, hit) == "的":
                extra["ask_which"] = True  # "put on the one about the, um, the war": described
                return Call("")
            if named:
                call = self._play(clause, named, extra)
                if (
                    call.tool == "play_book"
                    and not clause.titles
                    and set(call.arguments) == {"keyword"}
                    and (said := self._episode_words(self._keyword(clause, hit)))
                ):  # "给俺放那个大闹天宫，就西游记里头那段": the book's episode so titled
                    return Call("play_book", {**call.arguments, "episode_title": said})
                return call
            keyword = self._keyword(clause, hit)
            episode = self._episode(clause)
            if keyword and re.fullmatch(
                r"第?[\d一二三四五六七八九十两]*[部本卷册季]?|(?:book|part|volume) \d+", keyword
            ):
                extra["ask_which"] = True  # "放第二部": a part of which series?
                return Call("")
            if keyword == "的":
                if self._last_heard(clause):
                    return self._left_off(clause, extra)  # "接着听昨天那本书"
                extra["ask_which"] = True
                return Call("")
            if keyword:
                found = self.index.lookup(keyword) if self.index is not None else []
                if not found and self.index is not None:
                    found = self._edition_of(keyword)  # "哈利波特第1部": that book's part
                if len(found) > 1 and (edition := self._edition_elsewhere()):
                    # "放水浒，给小孩听的那个版本": the edition said in another clause
                    narrowed = self.index.lookup(f"{edition}的{keyword}") if self.index else []
                    found = narrowed if len(narrowed) == 1 else found
                if len(found) == 1:
                    return self._play(clause, found, extra)
                if len(found) > 1:
                    choice = _one_of(found) or self._part_of(found)
                    if choice:
                        return self._play(clause, [choice], extra)
                    extra["choices"] = tuple(found[:5])
                    return Call("")
                if self._last_heard(clause):
                    return self._left_off(clause, extra)  # "the book from last night"
                named_episode = self._episode_title()
                if named_episode and (
                    re.fullmatch(rf"{re.escape(named_episode)}\s*那一?\s*[章集回段节]", keyword)
                    or re.fullmatch(
                        rf"(?:the\s+)?{re.escape(named_episode.split()[0])}\s+[\w\s-]+?\s+"
                        r"(?:chapter|episode|part|section|entry|log|one)",
                        keyword,
                        re.IGNORECASE,
                    )
                ):  # "放一下申正那章", "play the Sol 15 chapter": an episode of the book heard
                    # now, by its title
                    return Call("play_book", {"episode_title": named_episode})
                corrected = self._ordinal_corrected(clause, keyword)
                extra["keyword"] = corrected
                args: dict[str, Any] = {"keyword": corrected}
                if episode and corrected == keyword:
                    args["section"] = episode
                return Call("play_book", args)
            if episode:
                if found := self._title_said_alone([c for c in self.clauses if c is not clause]):
                    return self._play(clause, found, extra)  # "Huck Finn, start at episode 2"
                return Call("play_book", {"section": episode})
            if named_episode := self._episode_title():
                # "午正那一章，直接给我放那个": that episode of the book heard now
                return Call("play_book", {"episode_title": named_episode})
            if kind == "continue":
                return self._left_off(clause, extra)
            if said := self._episode_said_alone(clause):
                # "鲁提辖拳打镇关西，放这个": the words of an episode's title, then play it
                return Call("play_book", {"episode_title": said})
            return Call("play_book")
        return None

    def _play(
        self, clause: Clause, named: list[str], extra: dict[str, Any], episode: int | None = None
    ) -> Call:
        distinct = list(dict.fromkeys(named))
        if len(distinct) > 1:
            choice = _one_of(distinct)
            if choice is None:
                # "A还是B": ask which, unless the later one corrects the earlier
                distinct = [distinct[-1]]
            else:
                distinct = [choice]
        siblings = self._siblings(clause, distinct[0])
        if siblings:  # "播放三体死神永生": which of 三体's books is 死神永生? Ask.
            extra["choices"] = siblings
            return Call("")
        args: dict[str, Any] = {"keyword": distinct[0]}
        section = episode if episode is not None else self._episode(clause)
        if section:
            args["section"] = section
        elif named_episode := self._episode_title() or self._lone_name(clause):
            args["episode_title"] = named_episode  # "长安十二时辰，放午正那一章"
        elif after := self._after_title(clause):
            args["episode_title"] = after  # "播放西游记大闹天宫"
        return Call("play_book", args)

    def _edition_elsewhere(self) -> str:
        """A word of an edition (the lexicon's ``edition_same``: 少儿版, 给孩子听的) said in
        the request, or ""."""
        folded = fold(self.utterance)
        for group in self.zh.lexicon.get("edition_same", ()):
            for word in group:
                if fold(word) in folded:
                    return word
        return ""

    def _lone_name(self, clause: Clause) -> str:
        """An episode's own name said as the clause right after `clause`, a word and its
        number alone ("Play The Martian, Sol nine": "sol 9"); else ""."""
        at = next((i for i, c in enumerate(self.clauses) if c is clause), len(self.clauses))
        if at + 1 >= len(self.clauses):
            return ""
        after = self.clauses[at + 1]
        if after.hits or after.titles or after.question:
            return ""
        # "play 三体, the Chinese one": which book, not an episode's name
        return _lone_episode_name(after.text, one=False)

    def _episode_said_alone(self, clause: Clause) -> str:
        """Chinese words that are a clause of their own beside `clause` (four to sixteen
        characters, none of a sentence's, no act, no title), as an episode's title
        may be ("鲁提辖拳打镇关西，放这个"); else ""."""
        chars = set(self.zh.lexicon.get("sentence_chars", ""))
        for other in self.clauses:
            words = other.text.strip(" ,.!?，。！？")
            if (
                other is not clause
                and not other.hits
                and not other.titles
                and not other.question
                and re.fullmatch(r"[\u3400-\u9fff]{4,16}", words)
                and not any(ch in chars for ch in words)
            ):
                return words
        return ""

    def _after_title(self, clause: Clause) -> str:
        """Chinese words said right after the title in `clause` (and a word for inside it,
        `inside_words`), to its end or a pointer to them ("那段"), that may be an episode's
        title ("播放西游记大闹天宫": 大闹天宫, `_episode_words`); else ""."""
        inside = "|".join(map(re.escape, self.zh.words("inside_words")))
        found = re.search(
            rf"§B\d+§\s*(?:{inside})?\s*的?\s*([\u3400-\u9fff]{{2,12}}?)\s*(?:[那这]一?[段集回章节])?"
            r"\s*[。！!]?\s*$",
            clause.text,
        )  # "放西游记里头大闹天宫那段": 大闹天宫
        if found is None or (clause.hits and any(h.start >= found.start(1) for h in clause.hits)):
            return ""
        return self._episode_words(found.group(1))

    def _episode_words(self, words: str) -> str:
        """`words` when they may be an episode's title: two to twelve Chinese characters,
        none of them a sentence's (`sentence_chars`: so "给孩子听", "吧" are none), no word of
        a kind of book (`book_kinds`: "评书", "原著", "全集") and no library title; else ""."""
        chars = set(self.zh.lexicon.get("sentence_chars", ""))
        if not re.fullmatch(r"[\u3400-\u9fff]{2,12}", words) or any(ch in chars for ch in words):
            return ""
        if any(w in words for w in self.zh.words("book_kinds")):
            return ""
        if self.index is not None and self.index.lookup(words):
            return ""  # "金宇澄的繁华": the title itself, after its author's name
        return words

    def _part(self, call: Call) -> Call:
        """ "part two of The Martian": the episode titled "… Part 2" if the book has one (else
        episode 2, the player's choice): a part said, beside its section."""
        section = call.arguments.get("section")
        if (
            call.tool != "play_book"
            or section not in self.parts
            or "episode_title" in call.arguments
        ):
            return call
        return Call("play_book", {**call.arguments, "episode_title": f"part {section}"}, call.book)

    def _edition_of(self, keyword: str) -> list[str]:
        """The library's part a keyword names as a title and a part number after it
        ("哈利波特第1部" is 哈利波特与魔法石 when the library has that one only), or []."""
        said = re.fullmatch(r"(?P<base>.+?)\s*第?\s*(?P<n>\d{1,2}|[一二三四五六七八九十两]{1,3})\s*[部本卷册季]",
                            keyword) or re.fullmatch(
            r"(?P<base>.+?) (?:book |part |volume |number )(?P<n>\d|one|two|three|four|five|six|seven)",
            keyword, re.IGNORECASE)  # fmt: skip
        if said is None or self.index is None:
            return []
        base = self.index.lookup(said.group("base"))
        n = number_value(said.group("n"))
        if len(base) != 1 or not n:
            return []  # several books: which is the second is not the library's order to say
        part = self.index.edition(base[0], int(n)) or (base[0] if n == 1 else None)
        return [part] if part else []  # a book of one part is its own first

    def _episode_title(self) -> str:
        """Words said as an episode's title ("午正那一章", "从Sol 12那段", "the chapter called
        Sol 12"), or ""."""
        inside_words = self.zh.words("inside_words")
        inside = "|".join(map(re.escape, sorted(inside_words, key=len, reverse=True)))
        for clause in self.clauses:
            text = clause.text
            found = re.search(
                rf"(?:(?:从|放|听|播|到|去)(?:一下)?)?(?P<in>{inside}|中)?(?P<t>[^§，,。的从放听播到去]{{1,12}}?)\s*"
                # "大闹天宫那一集", "大闹天宫的那一集"; a story inside the book named just
                # before ("三体里那个射手和农场主的故事"), not any story ("小兔子的故事")
                r"(?:的?\s*那一?\s*(?:章|集|回|段|节)|的(?:那个)?故事)"
                r"|\b(?:chapter|episode|part)\s+(?:called|named|titled)\s+(?P<e>[\w' ]{1,30}?)"
                r"(?:\s+(?:please|thanks|thank you|now))?\s*$",  # "… called 大闹天宫 please"
                text,
            )
            if not found:
                # "put on the martian from sol ten", "jump to Sol 12 in The Martian": an
                # episode's own name
                latin = re.search(
                    r"§B\d+§(?:的|那个|里的|里|中的)\s*([a-z]+)\s*(\d+)(?![\d.])", text
                )  # "火星救援那个sol 10放一下": a Latin episode name in Chinese words
                if latin and latin.group(1) not in ("chapter", "episode", "part", "ch", "ep"):
                    return f"{latin.group(1)} {latin.group(2)}"
                named = _numbered_name(
                    r"(?:\b(?:from|to|play|put on)|§B\d+§,?)(?!\s+(?:chapter|episode|part|"
                    r"volume|speed|minute|second|level|percent|number|page|track|ch|ep|book|"
                    r"season|vol|times?)\b)",
                    re.sub(r"\s+(?:in|of|from)\s+§B\d+§[\s?!.]*$", "", text),
                )
                if named:
                    return named
                # "the Sol 10 chapter", "take me to the sol sixteen log": a name said before
                # the word for an episode
                before = re.search(
                    r"\bthe\s+(?!(?:chapter|episode|part|volume|book|track|section|number|"
                    r"last|first|next|previous|other|same|very)\b)([a-z]+)\s+(\d+|[a-z]+"
                    r"(?:[\s-][a-z]+)?)\s+(?:chapter|episode|part|section|entry|log|one)\b",
                    text,
                    re.IGNORECASE,
                )
                said = before.group(2) if before else ""
                n = int(said) if said.isdigit() else english_number(said) if said else None
                if before and n is not None:
                    return f"{before.group(1).lower()} {n}"
                continue
            if found.group(0).endswith("故事") and not (
                found.group("in") and text[: found.start("in")].rstrip().endswith("§")
            ):
                continue  # "讲个小兔子的故事": a story, none of a book named
            words = (found.group("t") or found.group("e") or "").strip()
            if found.group("t"):  # "就是鲁提辖拳打镇关西那段": the title, not the filler
                words = strip_words(words, self.zh.words("hesitations"), "zh") or words
            if found.group("t") and any(
                text[: found.end("t")].endswith(w) and len(w) > len(words) for w in inside_words
            ):
                continue  # "西游记里头那段": 头 is of 里头, inside the book
            if words and words not in (
                "这",
                "那",
                "上",
                "下",
                "哪",
                "每",
                "前",
                "后",
                *inside_words,
            ):
                return words
        return ""

    def _siblings(self, clause: Clause, title: str) -> tuple[str, ...]:
        """The books of `title`'s series ("三体", "三体2", "三体3") when words right after the
        title in `clause` name something more that no title of the library holds ("三体死神
        永生", "三体的黑暗森林那部"): the listener means one of them, not surely the first.
        Empty when nothing follows, or the series has one book."""
        if self.index is None:
            return ()
        for m in re.finditer(r"§B(\d+)§的?([\u3400-\u9fff]+)", clause.text):
            if self.titles_found[int(m.group(1))].title != title:
                continue
            p = self.zh
            # up to the next command's words ("放三体声音大点": the volume, nothing more named)
            after = [h.start for h in clause.hits if h.start >= m.start(2)
                     and h.tool in COMMANDS and GROUP.get(h.tool) != "playback"]  # fmt: skip
            said = m.group(2)[: min(after, default=m.end(2)) - m.start(2)]
            residue = strip_words(
                said,
                (*p.words("title_wrappers"), *p.words("keyword_trim"), *p.words("fillers"),
                 *p.words("book_words"), "那部", "那本", "那个", "那套", "的"),
                "zh",
            )  # fmt: skip
            chars = set(p.lexicon.get("function_chars", ""))
            if len(residue) < 2 or all(ch in chars for ch in residue):
                continue
            if re.fullmatch(r"第?[\d一二三四五六七八九十两]+[部本卷册季]", residue) or (
                _PART_SAID.search(residue)
            ):
                continue  # "平凡的世界先从第一部听起": a part said, read by the title's edition
            if re.search(r"^[^，。！？]{0,3}?(?:那|这)一?[集章回节]", clause.text[m.end(2) :]) or (
                re.search(r"(?:那|这)一?[集章回节]$", said)
            ):
                continue  # "三体疯狂年代那一集": an episode's title, found by the player
            own = fold(title)
            series = [t for t in self.index.titles if fold(t).startswith(own)]
            if len(series) > 1:
                return tuple(series[:5])
        return ()

    def _part_of(self, titles: list[str]) -> str | None:
        """Of several parts of one series, the one whose part the request says ("来点明朝那些
        事，第三部那个", "harry potter book two"); None when it says none or no such part."""
        mark = _PART_SAID.search(self.folded)
        if mark is None or self.index is None:
            return None
        n = number_value(mark.group("n") or mark.group("n2") or "")
        part = self.index.edition(titles[0], n or 0) if n else None
        return part if part in titles else None

    def _titles_for(self, clause: Clause, titles: list[Named]) -> list[str]:
        if clause.titles:
            return [n.title for n in clause.titles]
        return [n.title for n in titles]

    def _episode(self, clause: Clause) -> int | None:
        """The episode said in `clause`: the first one after the act's verb ("放鹿鼎记第十集
        昨天听到第九集了" is 10), else the last before it; else, when the clause names no
        book, the one said elsewhere in the request ("围城，第二集")."""
        marks = [(m.start(), int(m.group(1))) for m in re.finditer(r"§E(-?\d+)§", clause.text)]
        corrected = any(
            said_in(w, re.sub(r"\s*[,，]\s*", " ", self.text.lower()), script_of(self.text))
            for p in (self.zh, self.en)
            for w in p.words("corrections")
        )
        if corrected and len(self.episodes) > 1:
            return self.episodes[-1]  # "跳到第五章，哦不对，第六章": the one said last
        if corrected and self.episodes and self.clauses:
            for later in reversed(self.clauses):  # "chapter five, no wait, six, of Matilda"
                bare = strip_words(later.text, self.phrases(script_of(later.text)).words("fillers"),
                                   script_of(later.text)).strip(" ,.!?，。！？")  # fmt: skip
                value = number_value(bare) if bare and "§" not in bare else None
                if value is not None and 0 < value < 1000:
                    return value  # "go to chapter seven? no wait, eight": the number corrects it
        if marks:
            after = [n for at, n in marks if at >= self._at]
            return after[0] if after else marks[-1][1]
        for other in self.clauses:
            said = re.findall(r"§E(-?\d+)§", other.text)
            if said and (
                not other.titles
                or not clause.titles  # "挽救计划我听到第二十章了，从那儿接着来"
                or {n.title for n in other.titles} <= {n.title for n in clause.titles}
            ):
                return int(said[-1])  # "神雕侠侣，第十二集"
        return None

    @staticmethod
    def _slot_seconds(hit: Hit) -> int | None:
        if "d" in hit.args:
            return int(hit.args["d"])
        if "n" in hit.args:
            minutes = number_value(hit.args["n"].strip())
            return None if minutes is None else minutes * 60
        return None

    def _seek(self, clause: Clause, hit: Hit) -> Call | None:
        p = self.phrases(script_of(clause.text))
        if hit.kind == "pattern":
            if "minute" in hit.args:
                minute = number_value(hit.args["minute"].strip())
                return Call("seek", {"seconds": minute * 60}) if minute is not None else None
            seconds = self._slot_seconds(hit)
            direction = hit.args.get("dir", "")
            if seconds is None:
                return None
            if not direction:
                return Call("seek", {"seconds": seconds})
            back = fold(direction) in {
                *self.zh.tools["seek"].get("backward", ()),
                *self.en.tools["seek"].get("backward", ()),
            }
            return Call("seek", {"seconds": -seconds if back else seconds, "relative": True})
        named = _numbered_name(r"\bto", clause.text[hit.end :])
        if named:  # "jump ahead to Sol twelve": an episode's title, not a step
            return Call("play_book", {"keyword": named})
        if "§D" not in clause.text and re.search(
            r"(?<![第\d上下这那前每同])(?:一|1)\s*个?(?:集|章|回|节)|\b(?:one|a|an|1)\s+(?:chapter|episode|part|track)\b",
            clause.text,
            re.IGNORECASE,
        ):  # "往后跳一集", "skip ahead one chapter": a step of one episode, not of seconds
            return Call("previous_episode" if hit.kind == "back" else "next_episode")
        step = int(p.tools["seek"].get("default_seconds", 30))
        own = re.findall(r"§D(\d+)§", clause.text)
        claimed = any(h.kind == "pattern" and "d" in h.args for h in clause.hits)
        if len(own) == 1 and not claimed and int(own[0]) <= 600:
            # "back up a little like fifteen seconds": the amount said after the verb
            step = int(own[0])
            return Call(
                "seek", {"seconds": -step if hit.kind == "back" else step, "relative": True}
            )
        if len(self.durations) == 1 and "§D" not in clause.text:
            # "back up a little, like fifteen seconds": the amount said in a clause of its own
            step = self.durations[0]
            return Call(
                "seek", {"seconds": -step if hit.kind == "back" else step, "relative": True}
            )
        plain = PLACEHOLDER.sub(" ", clause.text)
        script = script_of(clause.text)
        if any(said_in(w, plain, script) for w in p.tools["seek"].get("small_words", ())):
            step = int(p.tools["seek"].get("small_seconds", step))  # "倒回去一丢丢", "a touch"
        return Call("seek", {"seconds": -step if hit.kind == "back" else step, "relative": True})

    @staticmethod
    def _speed(hit: Hit) -> Call | None:
        """set_speed: a speed said ("1.5倍速": rate 1.5), faster or slower by a step, or
        normal (rate 1); a speed past 0.5..2 is returned as said (the caller asks)."""
        if hit.kind == "faster":
            return Call("set_speed", {"step": 1})
        if hit.kind == "slower":
            return Call("set_speed", {"step": -1})
        if hit.kind == "normal":
            return Call("set_speed", {"rate": 1.0})
        if "by" in hit.args:  # "再快零点二五": steps of a quarter, that many
            by = rate_said(hit.args["by"])
            steps = round(by / 0.25) if by else 0
            if not steps or abs(by - steps * 0.25) > 0.01:
                return None
            return Call("set_speed", {"step": steps if hit.args.get("dir") == "快" else -steps})
        if "pct" in hit.args:  # "set the speed to 150 percent"
            return Call("set_speed", {"rate": int(hit.args["pct"]) / 100})
        said = hit.args.get("rate", "").strip().lower()
        quarters = {"one and a quarter": 1.25, "one and three quarters": 1.75}
        rate = quarters.get(said) or rate_said(said)
        if rate is None or rate <= 0:
            return None
        rate += 0.5 if hit.args.get("half") else 0.0
        return Call("set_speed", {"rate": rate})

    def _skip_topic(self, clause: Clause) -> Hit | None:
        """`_skip_of` the clause; for one that names no end in a request that speaks of
        skipping, a change of the skip alone: more or fewer seconds, or half as many ("跳多了，
        少跳二十秒", "take it down by fifteen", "make it half that") of the end said elsewhere
        in the request ("开头还是带了点儿音乐，再多跳五秒"), or else of the end the book
        skips now (`Ref.SKIPPED`). None: no end named and no such change."""
        hit = self._skip_of(clause)
        if hit is not None or not self._skip_spoken():
            return hit
        if any(h.tool == "seek" and not h.negated for h in clause.hits):
            return None  # "skip ahead another thirty seconds": a move in the episode
        given, described = set(self._given), set(self._described)
        hit = self._skip_of(clause, unnamed=True)
        if (
            hit is not None
            and hit.kind == "topic"
            and (hit.args.get("relative") or {Ref.HALF, Ref.DOUBLE} & set(hit.args.values()))
        ):
            return hit
        self._given, self._described = given, described  # nothing of it taken
        return None

    def _skip_spoken(self) -> bool:
        """True when the request speaks of the skip, not only of a jump: the skipping
        itself ("you're skipping too much"), an end named by more than a bare word ("theme
        tune", "开头那段"), or a Chinese word of more or fewer made with a verb of skipping
        ("少跳", "跳多了"), in any clause."""
        keys = ("both_words", "intro_topic", "outro_topic", "intro_weak", "outro_weak")
        if any(self._skip_verb_in(self.clauses, key) for key in keys):
            return True
        data = self.zh.tools.get("set_skip", {})
        compounds = [
            w
            for w in (*data.get("more_words", ()), *data.get("less_words", ()))
            if any(v in w for v in data.get("verbs", ()))
        ]
        return any(said_in(w, fold(self.utterance), "zh") for w in compounds)

    def _end_said(self) -> str | None:
        """The one end ("intro" or "outro") the request's words name, by a word of that
        end's topic ("theme tune") or else a bare one ("开头", "the end"); None for none or
        both; an end said only to be kept as it is ("片头不用动") is none."""
        changed = [
            c
            for c in self.clauses
            if not any(
                said_in(w, PLACEHOLDER.sub(" ", c.text), script_of(c.text))
                for key in ("still_words", "keep_words")
                for w in self.phrases(script_of(c.text)).tools.get("set_skip", {}).get(key, ())
            )
        ]
        for keys in (("_topic", "_weak"), ("_bare",)):
            named = [
                end
                for end in ("intro", "outro")
                if any(self._skip_verb_in(changed, end + key) for key in keys)
            ]
            if named:
                return named[0] if len(named) == 1 else None
        return None

    def _skip_of(self, clause: Clause, unnamed: bool = False) -> Hit | None:
        """A clause about the intro or outro skip, read whole ("片头多跳十秒", "片尾也跳了吧，
        大概四十秒", "skip intro one minute, and outro thirty", "现在片头跳多少秒"): a
        question is get_status "skip"; an amount said (here or in the clauses after it that
        name no end, "不对，三十五秒") sets it, or adds to it beside a word of more or fewer
        ("少跳五秒"); a word of no skip without an amount stops it; "a few more" is a step;
        a word of keeping asks for nothing ("keep"); anything else asks how many seconds
        ("ask"). None: the clause names no end, or only a weak word with no verb of
        skipping said in the request; with `unnamed`, the end said elsewhere in the request
        (`_end_said`) or else `Ref.SKIPPED` stands for the one the clause does not name."""
        if any(
            h.tool == "sleep_timer" and "episode_end" in h.args for h in clause.hits
        ) and not self._skip_verb_in([clause]):
            return None  # "…, and stop at the end of this one": the end of the episode
        script = script_of(clause.text)
        data = self.phrases(script).tools.get("set_skip", {})
        text = PLACEHOLDER.sub(" ", clause.text)

        def said(key: str, piece: str = text) -> list[str]:
            return [w for w in data.get(key, ()) if said_in(w, piece, script)]

        verb = self._skip_verb_in(self.clauses)
        every = self.scan.count(self.clauses, "every_episode") > 0
        if (
            not every
            and "§D" not in clause.text
            and any(
                h.tool == "next_episode"
                and re.search(
                    r"\bnext (?:chapter|episode|part|one)\b|下一[集章回节]",
                    clause.text[h.start : h.end],
                )
                for h in clause.hits
            )
        ):  # "skip to the next chapter the ending is just music anyway": the move, its reason
            return None
        # "cut off the end": a verb of cutting, not a word of no skip
        uncut = re.sub(r"\b(cut|cutting|chop|chopping|trim|trimming)\s+off\b", r"\1", text)
        # a skip turned off, said with a negation, or asked about speaks of the setting,
        # whose bare words of start and end then count as beside a word of every episode
        negated = any(said_in(w, text, script) for w in self.phrases(script).words("negations"))
        setting = (
            (script == "en" or clause.question)
            and self._skip_verb_in([clause])
            and (clause.question or bool(said("off_words", uncut)) or negated)
        )

        def ends_in(piece: str) -> set[str]:
            found = set()
            for first in re.finditer(r"\b(?:skip|skipping|cut|trim|drop|leave\s+out|leave\s+off|"
                                     r"lose|chop|cut\s+out)\s+(?:off\s+)?the\s+"
                                     r"(first|last)\s+§D", piece):  # fmt: skip
                # "skip the first 30 seconds": the start of every episode
                found.add("intro" if first.group(1) == "first" else "outro")
            if verb:  # "把最后二十秒给我跳了", "开头都跳过一分钟"
                # "前面唱的那段跳一分钟": a few words between the end and its amount
                if re.search(r"(?:最后|结尾|末尾)[^，。！？§]{0,6}§D", piece):
                    found.add("outro")
                if re.search(r"(?:开头|最前面|前面)[^，。！？§]{0,6}§D", piece):
                    found.add("intro")
                # "cut the intro, and the last five seconds of each chapter too"
                # "skip the first 45 seconds and the last 15": each one said
                for said_first in re.finditer(r"\bthe (first|last) §D", piece):
                    found.add("intro" if said_first.group(1) == "first" else "outro")
            piece = PLACEHOLDER.sub(" ", piece)
            for end in ("intro", "outro"):
                if said(f"{end}_topic", piece) or ((verb or every) and said(f"{end}_weak", piece)):
                    found.add(end)
                elif (every or setting) and said(f"{end}_bare", piece):
                    found.add(end)  # "for every chapter skip the beginning part, 40 seconds"
            return found

        # "…, and stop at the end of this one": no end of the skip's
        ends = ends_in(
            _blanked(clause.text, [h for h in clause.hits
                                   if h.tool == "sleep_timer" and "episode_end" in h.args])
        )  # fmt: skip
        if not ends and said("both_words") and said("off_words", uncut):
            ends = {"intro", "outro"}  # "turn off all the skipping stuff"
        if not ends and not unnamed:
            return None
        if not ends:  # `_skip_topic`: the end said elsewhere, or skipped now
            ends = {self._end_said() or Ref.SKIPPED}
        if said("still_words") or (said("keep_words") and not said("verbs")):
            return Hit("set_skip", "keep", 0, 0)  # "片头照旧跳", "keep skipping the intro"
        changes = said("more_words") or said("less_words")
        polite = self.phrases(script).words("polite_requests")
        asked = clause.question and not (
            said("verbs") and any(text.strip().startswith(w) for w in polite)
        )  # "can you cut the credits off the end of each chapter?": a request, not a question
        if (asked or said("ask_words")) and not changes:
            return Hit("get_status", "skip", 0, 0)
        volumes = [  # "skip the intro and turn the volume to twenty": the volume's amount
            h
            for h in clause.hits
            if h.tool == "set_volume"
            and h.kind == "pattern"
            and self.scan.said(clause.text[h.start : h.end], "volume_nouns")
        ]
        amounts = self._amounts(dataclasses.replace(clause, text=_blanked(clause.text, volumes)))
        timed = [
            _amount_beside(clause.text, h)
            for h in clause.hits
            if h.tool == "sleep_timer" and h.kind == "cues"
        ]  # "skip 20 seconds of intro and set a 30 minute timer": the timer's amount
        if len(amounts) > 1:
            amounts = [a for a in amounts if a not in timed] or amounts
        sign_here = True  # a word of more or fewer counts with an amount of its own clause
        sign = 1 if said("more_words") else -1 if said("less_words") else 0
        at = next((i for i, c in enumerate(self.clauses) if c is clause), len(self.clauses))
        followers: list[Clause] = []
        for later in self.clauses[at + 1 :]:
            if ends_in(later.text):
                break
            followers.append(later)
            free = not any(h.tool in COMMANDS and not h.negated for h in later.hits)
            claimed = any(h.kind == "pattern" and "d" in h.args for h in later.hits)
            if (
                claimed
                and every
                and (not amounts or not self._skip_verb_in([clause]))
                and self._skip_verb_in([later])
                and all(h.tool in ("seek", "set_skip") for h in later.hits if h.tool in COMMANDS)
            ):  # "每集最后那段主题曲，跳过半分钟就行": the skip's amount, not a seek
                claimed, free = False, True
            given = [] if claimed else self._amounts(later, numbers=free)
            if given and amounts and _SET_TO.search(clause.text):
                self._described.add(id(later))  # "片头跳过改成四十五秒吧，三十秒不够": the
                given = []  # new amount is the one set to; the later one tells of the old
            if given:
                # "shorter than that, make it 10": the amount is all; "…，少跳五秒": its own
                # word of fewer
                sign_here = bool(said("more_words", later.text) or said("less_words", later.text))
                if sign_here:
                    sign = 1 if said("more_words", later.text) else -1
                self._given.add(id(later))  # "十五秒就够了": its words are the amount's
                if amounts and not self._skip_verb_in([clause]) and self._skip_verb_in([later]):
                    # "每回前面那个回顾都一分多钟，以后直接跳过七十秒": the first told how
                    # long it is, the verb's amount is the one to set
                    self._described.add(id(clause))
                    amounts = []
                amounts += given
        if amounts and not sign_here:
            sign = 0
        if amounts and re.search(
            r"\b(?:make|set|change|put)\s+(?:it|that|this)\s+(?:to\s+)?"
            rf"(?:about\s+|like\s+|just\s+)?(?:§D\d+§|\d+|(?:{_EN_COUNT_WORDS})\b)",
            clause.text,
        ):
            sign = 0  # "the intro's shorter than that make it 10": the amount is all
        if amounts and re.search(
            r"\b(?:take|knock|shave|cut|trim)\s+(?:about\s+|like\s+)?"
            r"(?:§D\d+§|\d+)\s+(?:seconds?\s+|secs?\s+)?off\s+(?:that|it|this|the\s+(?:\w+\s+)?"
            r"skip(?:ping)?)\b",
            clause.text,
        ):
            sign = -1  # "take ten seconds off the intro skip": less by that much
        by = re.search(r"\bby\s+(?:about\s+|another\s+)?§D", clause.text)
        if by and not sign:  # "drop the end skip by ten seconds": a change of it
            fewer = re.search(r"\b(?:drop|cut|reduce|lower|down|shorten|trim)\b", text)
            sign = -1 if fewer else 1
        acted = said("verbs") or said("off_words", uncut) or changes or amounts
        if not acted and not self._skip_verb_in(followers):
            # "…，还是能听到那个开场白", "that recap at the start of every episode again": a
            # remark on the skip alone asks how many seconds; beside another act, nothing
            alone = not any(
                c is not clause and (ends_in(c.text) or any(h.tool in COMMANDS for h in c.hits))
                for c in self.clauses
            )
            return Hit("set_skip", "ask" if alone else "keep", 0, 0)
        spelled = re.sub(r"§D(\d+)§", r" \1 ", clause.text)
        spelled = re.sub(r"\bthe first(?=\s+\d)", "the", spelled)  # an end, not a count of 1
        own = [s.value for s in numbers_said(PLACEHOLDER.sub(" ", spelled), lone_one=False)]
        if len(ends) == 2 and len(own) == 2 and not sign:
            # "skip 45 seconds of intro and 30 of outro": each end its own amount, in order
            def first_at(words: list[str], marked: str) -> float:
                """Where the first of `words` (or a span `marked` matches) stands."""
                spots = [clause.text.find(w) for w in words if clause.text.find(w) >= 0]
                spots += [m.start() for m in re.finditer(marked, clause.text)]
                return min(spots, default=float("inf"))

            bare = ("intro_bare", "outro_bare") if every else ("", "")
            at_intro = first_at(said("intro_topic") + said("intro_weak") + said(bare[0]),
                                r"\bthe first §D")  # fmt: skip
            at_outro = first_at(said("outro_topic") + said("outro_weak") + said(bare[1]),
                                r"\bthe last §D")  # fmt: skip
            first, second = ("intro", "outro") if at_intro <= at_outro else ("outro", "intro")
            return Hit("set_skip", "topic", 0, 0, {first: own[0], second: own[1]})
        if len(ends) == 2 and amounts and said("more_words") and said("less_words"):
            # "make the intro skip 5 seconds longer and the outro 5 seconds shorter": each
            # end by the word of more or fewer said after it
            each = self._each_end_signed(clause, said, own or [amounts[-1]])
            if each:
                return Hit("set_skip", "topic", 0, 0, {**each, "relative": True})
        if not amounts and any(said("half_words", c.text) for c in [clause, *followers]):
            # "cut the outro skip in half", "…, make it half that": of the seconds skipped now
            return Hit("set_skip", "topic", 0, 0, dict.fromkeys(sorted(ends), Ref.HALF))
        if not amounts and any(said("double_words", c.text) for c in [clause, *followers]):
            # "double the intro skip, the music is longer than that"
            return Hit("set_skip", "topic", 0, 0, dict.fromkeys(sorted(ends), Ref.DOUBLE))
        if amounts:
            value = amounts[-1]
            if sign:
                return Hit("set_skip", "topic", 0, 0,
                           {**dict.fromkeys(sorted(ends), sign * value), "relative": True})  # fmt: skip
            return Hit("set_skip", "topic", 0, 0, dict.fromkeys(sorted(ends), value))
        if said("off_words", uncut) or (
            setting and negated and not clause.question
        ):  # a negated verb of skipping and no amount: no more skipping that end
            return Hit("set_skip", "topic", 0, 0, dict.fromkeys(sorted(ends), 0))
        if sign:
            step = int(data.get("step_seconds", 5))
            return Hit("set_skip", "topic", 0, 0,
                       {**dict.fromkeys(sorted(ends), sign * step), "relative": True})  # fmt: skip
        return Hit("set_skip", "ask", 0, 0)

    @staticmethod
    def _each_end_signed(clause: Clause, said: Any, amounts: list[int]) -> dict[str, int]:
        """The intro and the outro each with its amount (`amounts`: one for both, or one
        for each in the order said) signed by the first word of more or fewer after it
        in `clause`; {} when either has none after it."""
        text = clause.text

        def spots(words: list[str]) -> list[int]:
            return sorted(m.start() for w in words for m in re.finditer(re.escape(w), text))

        starts = {
            end: min(spots(said(f"{end}_topic") + said(f"{end}_weak")), default=-1)
            for end in ("intro", "outro")
        }
        if min(starts.values()) < 0:
            return {}
        more, less = spots(said("more_words")), spots(said("less_words"))
        order = sorted(starts, key=starts.get)
        out = {}
        for i, end in enumerate(order):
            until = starts[order[1]] if i == 0 else len(text)
            signs = [(at, 1) for at in more if starts[end] < at < until]
            signs += [(at, -1) for at in less if starts[end] < at < until]
            if not signs:
                return {}
            amount = amounts[i] if len(amounts) == 2 else amounts[-1]
            out[end] = min(signs)[1] * amount
        return out

    @staticmethod
    def _then_stop(clauses: list[Clause], clause: Clause, hit: Hit) -> Hit:
        """`hit`, or for a stop said after "then" right after a clause that is a duration
        alone ("fifteen minutes, then shut off", "再放二十分钟，然后关了吧") the sleep timer of
        that duration."""
        if hit.tool not in ("stop", "pause") or hit.negated or clause.question:
            return hit
        at = next((i for i, c in enumerate(clauses) if c is clause), 0)
        if at == 0 or clauses[at - 1].hits:
            return hit
        lone = re.fullmatch(
            r"(?:(?:about|around|like|maybe|just|only|another|play|give it|keep going|for|"
            r"再放|再听|再讲|放|听|大概|就)\s*)*§D(\d+)§(?:\s*(?:more|longer|吧))?",
            clauses[at - 1].text.strip(" ,.!?，。！？"),
        )
        then = re.match(r"\s*(?:and then|then|after that|然后|之后|再|就)", clause.text)
        if lone is None or then is None or hit.start > then.end() + 2:
            return hit
        return Hit("sleep_timer", "pattern", hit.start, hit.end, {"d": lone.group(1)})

    def _once(self, call: Call | None) -> Call | None:
        """`call`, or for a skip of the intro alone said of this episode alone ("just this
        once hop over the opening music, about thirty seconds", the skip's ``once_words``;
        "这集开头跳过去", its ``once_here_words``, when no word of every episode is said) a
        jump to the end of that opening: no setting of every episode."""
        if call is None or call.tool != "set_skip" or set(call.arguments) != {"intro"}:
            return call
        seconds = call.arguments["intro"]
        folded = fold(self.utterance)
        if not isinstance(seconds, int) or seconds <= 0:
            return call
        every = any(said_in(w, folded, script_of(w))
                    for p in (self.zh, self.en) for w in p.words("every_episode"))  # fmt: skip
        for p in (self.zh, self.en):
            for word in p.tools.get("set_skip", {}).get("once_words", ()):
                if every and word in p.tools["set_skip"].get("once_here_words", ()):
                    continue  # "这集开头跳过去，以后每集都这样": every one
                for at in (m.start() for m in re.finditer(re.escape(fold(word)), folded)):
                    if re.search(r"(?:不|不光|不只|not|not just|not only)\s*$", folded[:at]):
                        continue  # "以后每一集开头都跳过一分半，不光这一集": every one
                    if said_in(fold(word), folded[at:], script_of(word)):
                        return Call("seek", {"seconds": seconds})
        return call

    def _skip_verb_in(self, clauses: list[Clause], key: str = "verbs") -> bool:
        """True when a word of the skip's list `key` is said in one of `clauses`: by default
        a verb of skipping ("跳", "skip", "cut"); "both_words" the skipping itself."""
        return any(
            said_in(w, PLACEHOLDER.sub(" ", c.text), script_of(c.text))
            for c in clauses
            for w in self.phrases(script_of(c.text)).tools.get("set_skip", {}).get(key, ())
        )

    @staticmethod
    def _amounts(clause: Clause, numbers: bool = True) -> list[int]:
        """Seconds said in `clause`: its durations, and (with `numbers`) a bare number
        ("and outro thirty"), in order; an ordinal is no amount ("it cuts off the first
        line", "第一句")."""
        found = [int(s) for s in re.findall(r"§D(\d+)§", clause.text)]
        if not found and numbers:
            plain = PLACEHOLDER.sub(" ", clause.text)
            found = [
                s.value
                for s in numbers_said(plain, lone_one=False)
                if 0 < s.value <= 600
                and not _ORDINAL.search(plain[s.start : s.end])
                and not plain[: s.start].endswith("第")
            ]
        return found

    def _skip(self, clause: Clause) -> Call | None:
        """set_skip: the seconds of intro and outro every pattern of `clause` says
        ("跳过片头30秒，片尾10秒" gives both); one without an amount is the model's."""
        ends = {
            fold(w)
            for p in (self.zh, self.en)
            for w in p.tools.get("set_skip", {}).get("outro_words", ())
        }
        arguments: dict[str, Any] = {}
        for hit in clause.hits:
            if hit.tool != "set_skip" or hit.kind != "pattern" or hit.negated:
                continue
            key = "outro" if fold(hit.args.get("which", "")) in ends else "intro"
            keys = ("intro", "outro") if "both" in hit.args else (key,)
            if "off" in hit.args:
                arguments.update(dict.fromkeys(keys, 0))
                continue
            seconds = self._slot_seconds(hit)
            if seconds is None:
                return None
            arguments.update(dict.fromkeys(keys, seconds))
        return Call("set_skip", arguments) if arguments else None

    def _keyword(self, clause: Clause, hit: Hit) -> str:
        """The words of `clause` that say which book when no library title is named: what
        follows the verb (for a search or a question, with nothing after it, what comes
        before: "鬼灭之刃有吗"), without fillers, episode phrases and words around a title."""
        script = script_of(clause.text)
        p = self.phrases(script)
        # the words up to the next act's ("play chapter 3 at 1.5 speed": no title in "at …")
        stops = [h.start for h in clause.hits if h.start >= hit.end and h.tool != hit.tool]
        after = clause.text[hit.end : min(stops, default=len(clause.text))]
        before = clause.text[: hit.start]
        if hit.tool in PLAYBACK and self.index is not None:
            # "明朝那些事儿接着听": before the verb only a name of the library's books
            said = strip_words(PLACEHOLDER.sub(" ", re.sub(r"§[DTE]-?\d*§", " ", before)),
                               self.phrases(script).words("fillers"), script).strip()  # fmt: skip
            before = (
                before
                if said and said not in p.words("listeners") and self.index.lookup(said)
                else ""
            )  # "孙子要听": who listens, not 孙子兵法
        for n, piece in enumerate((after, before)):
            if n == 0 and re.match(r"\s*(?:§E-?\d*§\s*)+(?:and|then|after that)\b", piece):
                continue  # "go to chapter 3 and set a timer": the words of the next act
            piece = re.sub(r"§[DTE]-?\d*§", " ", piece)
            piece = PLACEHOLDER.sub(" ", piece)
            words = (*p.words("fillers"), *p.words("title_wrappers"), *p.words("polite_requests"),
                     *p.words("episode_words"), *p.words("book_words"))  # fmt: skip
            light = strip_words(re.sub(r"\s+", " ", piece), words, script)
            if (
                light
                and self.index is not None
                and self.index.exact(light)
                and (
                    script == "zh"
                    or not self._pronoun(light)
                    or (len(self.clauses) == 1 and not clause.text[: hit.start].strip())
                )  # "play it" alone names It; "… and play it" after another act does not
            ):
                if script == "en" and self._pronoun(light):
                    self._pronoun_title = True  # "play it": the book It is a guess, asked about
                return light  # "Us", "It", "家": a title made of words that are stripped below
            words += (*p.words("keyword_trim"), "的")
            keyword = strip_words(
                re.sub(r"\s+", " ", piece), [w for w in words if w != "的"], script
            )
            if script == "zh" and keyword.endswith("的") and len(keyword) > 1:
                if self.index is None or not self.index.lookup(keyword[:-1]):
                    if n == 0 and before.strip():
                        continue  # "人世间有吗梁晓声写的": the title is said before
                    return "的"  # "好听的", "有意思的": a kind of book, not a title
            keyword = strip_words(keyword, words, script)
            if not keyword:
                continue
            if self._describes(keyword, script):
                return "的"  # "我朋友推荐的那本", "the one we were listening to": no title
            if script == "en" and keyword.endswith(" one"):
                keyword = keyword.removesuffix(" one")  # "the monte christo one" (_describes)
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

    def _pronoun(self, words: str) -> bool:
        """True when `words`, all function words ("it", "us"), are written as such: a title
        made of them is named only with a capital not at a sentence's start ("play It")."""
        function = set(self.en.words("function_words"))
        if not all(w in function for w in words.lower().split()):
            return False
        for m in re.finditer(rf"(?<![\w']){re.escape(words)}(?![\w'])", self.text, re.IGNORECASE):
            if _capitalised(self.text, m.start(), m.end()):
                return False
        return True

    def _title_said_alone(self, clauses: list[Clause], *, several: bool = False) -> list[str]:
        """The one library title a clause of `clauses` is, said another way (misspelt, cut
        short: "Frankenstien", "Huck Finn"), when that clause asks for nothing else and
        names nothing found; with `several`, all the titles it may be ("明朝那些事儿": the
        series' parts); else empty."""
        if self.index is None:
            return []
        for clause in clauses:
            text = re.sub(r"§E-?\d+§", " ", clause.text)  # "mobi dick chapter three"
            if clause.hits or clause.titles or "§" in text:
                continue
            script = script_of(clause.text)
            p = self.phrases(script)
            words = strip_words(
                re.sub(r"\s+", " ", text).strip(" ,.!?，。！？"),
                (*p.words("fillers"), *p.words("title_wrappers"), "the", "a", "an"),
                script,
            ).strip()
            if len(words) < (2 if script == "zh" else 4) or len(words.split()) > 4:
                continue
            found = self.index.lookup(words)
            if len(found) == 1 or (several and found):
                return found
        return []

    def _left_off(self, clause: Clause, extra: dict[str, Any]) -> Call:
        """Continue the book left off (resume), or, when another clause names books alone
        ("明朝那些事儿，接着上回那儿听"), that book, or of its several the one left off
        (`Reading.choices`)."""
        others = [c for c in self.clauses if c is not clause]
        found = self._title_said_alone(others, several=True)
        if len(found) == 1:
            return self._play(clause, found, extra)
        if found:
            extra["choices"] = tuple(found[:5])
            return Call("")
        return Call("resume")

    def _last_heard(self, clause: Clause) -> bool:
        """True when `clause` describes the book by when it was heard last ("昨天那本书",
        "the one I was listening to yesterday"): the book left off, which resume plays."""
        script = script_of(clause.text)
        p = self.phrases(script)
        plain = PLACEHOLDER.sub(" ", clause.text)
        return any(said_in(w, plain, script) for w in p.words("last_heard")) or any(
            re.search(x, plain, re.IGNORECASE) for x in p.lexicon.get("last_heard_patterns", ())
        )

    def _describes(self, keyword: str, script: str) -> bool:
        """True when `keyword` speaks of people or times ("我朋友推荐的", "we were
        listening to"), as a description of a book does and a title seldom does."""
        words = self.phrases(script).words("describers")
        if script == "zh":
            return any(w in keyword for w in words)
        said = keyword.split()
        found = [w for w in said if w in words]
        if found == ["one"] and said[-1] == "one" and self.index is not None:
            # "the Dorian Grey one": a title the scan missed (a letter off) with "one" after
            # it, when the words before it name one book, and nothing else describes
            return len(self.index.lookup(" ".join(said[:-1]))) != 1
        if found and self.index is not None and len(self.index.spelled(keyword)) == 1:
            return False  # "treasure i land": a title as a recogniser splits it
        return bool(found)

    def _bare(
        self,
        base: dict[str, Any],
        clauses: list[Clause],
        titles: list[Named],
        hints: tuple[str, ...],
    ) -> Reading:
        """A request without a cue: a title alone plays it ("西游记", "西游记第三集"), an
        episode alone plays it on the book loaded now; anything else is the model's."""
        named = list(dict.fromkeys(n.title for n in titles))
        rest = "".join(c.text for c in clauses)
        rest = PLACEHOLDER.sub("", rest)
        script = script_of(rest) if rest.strip() else self.language
        p = self.phrases(script)
        articles = ("the", "a", "an", "of") if script == "en" else ()
        editions = (*p.words("chinese_edition"), *p.words("english_edition"))
        leftover = strip_words(
            rest,
            (*p.words("fillers"), *p.words("title_wrappers"), *articles, *editions, "的", "吧",
             "啊", "呢"),
            script,
        )  # fmt: skip
        if leftover and any(
            re.fullmatch(x, leftover) for x in p.lexicon.get("purpose_patterns", ())
        ):
            leftover = ""  # "Wind in the Willows, chapter 2, it's for bedtime": a reason
        if leftover and len(named) == 1:
            # "harry potter chamber of secrets": words of the title the finder left
            own = fold(named[0])
            if script == "zh":
                leftover = "" if leftover in own else leftover
            elif all(w in re.findall(r"[\w']+", own) for w in re.findall(r"[\w']+", leftover)):
                leftover = ""
        question = base.get("question", False)
        if leftover and not named and not question:
            # "Frankenstien, chapter five", "明朝那些事二": a title misspelt or cut short
            found = self._title_said_alone(clauses)
            named, leftover = (found, "") if found else (named, leftover)
        named_episode = self._episode_title() if len(named) == 1 and not base["episode"] else ""
        if len(named) == 1 and not base["episode"] and not named_episode:
            # "The Martian, Sol 14 please": a clause that is an episode's name alone
            for clause in clauses:
                named_episode = _lone_episode_name(clause.text) or named_episode
        if named_episode and not question:  # "长安十二时辰 午正那一章"
            return Reading(
                **base,
                calls=(Call("play_book", {"keyword": named[0], "episode_title": named_episode}),),
                tools=("play_book",),
                why="a title and an episode's title",
            )
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
        if not named and not question and self._complaint(clauses):
            return self._complained(base)
        if (
            leftover
            and not named
            and not question
            and self._longer
            and not any(c.hits for c in clauses)
            and not base["episode"]
        ):  # "the martian chronicles": a longer title alone, asked for as said
            return Reading(**base, calls=(Call("play_book", {"keyword": leftover}),),
                           tools=("play_book",), why="a longer title alone")  # fmt: skip
        return Reading(**base, tools=hints, why="no reading: the model's")

    def _complaint(self, clauses: list[Clause]) -> bool:
        """True when the words are only a complaint about the episode playing ("this chapter
        is boring", "这集咋这么没意思呢": the lexicon's ``episode_complaints``)."""
        rest = PLACEHOLDER.sub("", "".join(c.text for c in clauses))
        p = self.phrases(script_of(rest) if rest.strip() else self.language)
        complaint = re.sub(r"[\s,.!?，。！？~～]+", " ", rest).strip().lower()
        return any(re.fullmatch(x, complaint) for x in p.lexicon.get("episode_complaints", ()))

    @staticmethod
    def _complained(base: dict[str, Any]) -> Reading:
        """A complaint about the episode: the next one, asked about before it is made."""
        return Reading(
            **base,
            calls=(Call("next_episode"),),
            tools=("next_episode",),
            why="a complaint about the episode: the next one, asked first",
            guess=True,
        )


_EN_COUNT_WORDS = "|".join(
    sorted((w for w in EN_NUMBER_WORDS if not w.endswith(("th", "st", "nd", "rd"))), key=len)[::-1]
)
"""English number words as a regex alternation, longest first ("ten", "forty")."""

_EN_ORDINAL_WORDS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last"

_LONE_NAME = re.compile(
    r"(?:the\s+)?(?!(?:the|a|an|um|uh|chapter|episode|part|volume|speed|level|number|page|track|book|"
    r"season|minute|second|times?)\b)([a-z]+)\s+(\d+|[a-z]+(?:[\s-][a-z]+)?)"
    r"(?:\s+(?:please|thanks|now))?"
)
"""A clause that is an episode's name alone, a word and its number ("sol 14 please")."""


def _lone_episode_name(text: str, *, one: bool = True) -> str:
    """The episode's name a clause's `text` is alone (`_LONE_NAME`: "sol 14 please" ->
    "sol 14", "Sol nine" -> "sol 9"), or ""; with `one` False, a name of "one" is none
    ("the Chinese one")."""
    lone = _LONE_NAME.fullmatch(PLACEHOLDER.sub(" ", text).strip(" ,.!?"))
    if lone is None or (not one and lone.group(2) == "one"):
        return ""
    said = lone.group(2)
    number = int(said) if said.isdigit() else english_number(said)
    return f"{lone.group(1)} {number}" if number else ""


def _blanked(text: str, hits: list[Hit]) -> str:
    """`text` with the words of `hits` replaced by spaces (positions kept)."""
    for h in hits:
        text = text[: h.start] + " " * (h.end - h.start) + text[h.end :]
    return text


def _amount_beside(text: str, hit: Hit) -> int | None:
    """The one duration said right beside `hit`'s words in `text` ("a §D1800§ timer",
    "timer for §D1800§", "定个§D2400§的定时"), in seconds; None for none or two."""
    before = re.findall(r"§D(\d+)§[^§,，。.!?！？]{0,4}$", text[: hit.start])
    after = re.findall(r"^[^§,，。.!?！？]{0,6}?§D(\d+)§", text[hit.end :])
    found = before + after
    return int(found[0]) if len(found) == 1 else None


def _numbered_name(lead: str, text: str) -> str:
    """ "sol 12" for `text` ending in `lead` then a word and a number ("to Sol twelve",
    "from sol 10"): a name an episode may have; "" when the text does not end so."""
    for lead_at in re.finditer(lead, text):
        found = re.match(
            r"\s+(?!(?:the|a|at|in|on|by|for|to|with)\b)([a-z]+)\s+(?!one\s*$)"
            r"(\d+|[a-z]+(?:[\s-][a-z]+)?)"
            r"\s*(?:(?:please|thanks|thank you|now)\s*)?"
            r"(?:$|(?=(?:and|then)\b(?!\s+an?\s+(?:half|quarter))))",  # "…sol 9 and stop"
            text[lead_at.end() :],
        )
        if found:
            said = found.group(2)
            n = int(said) if said.isdigit() else english_number(said)
            if n is not None:
                return f"{found.group(1)} {n}"
    return ""


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
    return _in_language(_Reader(utterance, language, index).read(), index)


def _in_language(reading: Reading, index: TitleIndex | None) -> Reading:
    """`reading` with a book asked for in one language ("the Chinese version of Alice in
    Wonderland", "英文版的爱丽丝梦游仙境") played in that language's edition: the library's
    title in that script that the catalog gives as the same work (`words.catalog`). When
    the library holds none, the play is asked about first (`Reading.guess`: a wrong
    edition is a wrong action); a keyword no title is keeps the book's words, not the
    edition's ("the chinese edition of harry potter": "harry potter")."""
    if index is None or not any(c.tool == "play_book" for c in reading.calls):
        return reading
    wants = {
        cjk
        for cjk, words in _edition_words().items()
        if any(said_in(w, reading.folded, script_of(w)) for w in words)
    }
    if len(wants) != 1:
        return reading
    cjk = wants.pop()
    said = (w for words in _edition_words().values() for w in words)
    edition = "|".join(re.escape(w) for w in sorted(said, key=len, reverse=True))
    calls = list(reading.calls)
    for i, call in enumerate(calls):
        keyword = call.arguments.get("keyword")
        if call.tool == "play_book" and isinstance(keyword, str) and keyword not in index.titles:
            cut = re.sub(edition, " ", keyword).strip()
            cut = re.sub(r"^\W*(?:of\s+(?:the\s+)?|的)|\s+(?:of|in)\W*$|的$", "", cut).strip()
            if cut:
                keyword = cut
                calls[i] = call = Call("play_book", {**call.arguments, "keyword": keyword})
        if call.tool != "play_book" or keyword not in index.titles or has_cjk(keyword) == cjk:
            continue
        names = {normalize(n) for n in known_as(keyword)}
        same = [
            t
            for t in index.titles
            if has_cjk(t) == cjk
            and (normalize(t) in names or normalize(keyword) in map(normalize, known_as(t)))
        ]
        if len(same) != 1:
            # "play the Chinese version of Dracula" with Dracula in English alone: asked
            # first ("Do you want me to play Dracula?"), never played on the words alone
            return dataclasses.replace(
                reading, guess=True, why=f"no {'Chinese' if cjk else 'English'} edition: asked"
            )
        calls[i] = Call("play_book", {**call.arguments, "keyword": same[0]})
    why = "; ".join(f"{c.tool}{c.arguments}" for c in calls)
    return dataclasses.replace(reading, calls=tuple(calls), why=f"the edition asked for: {why}")


@functools.cache
def _edition_words() -> dict[bool, tuple[str, ...]]:
    """The words of an edition in one language, both languages' phrase data together:
    True (Chinese: "中文版", "the chinese version") and False (English)."""
    return {
        cjk: tuple(w for p in (load("zh"), load("en")) for w in p.words(name))
        for cjk, name in ((True, "chinese_edition"), (False, "english_edition"))
    }


def amount_reply(utterance: str, language: str = "zh") -> bool:
    """True when `utterance` says an amount and next to nothing else ("二十秒", "大概半分钟吧",
    "thirty seconds please", "make it 1.5", "twenty minutes instead"): the answer to a
    question of how much the box asked, to be read with the request that was asked about.
    False when it says no amount or says more ("二十秒后暂停")."""
    text = spoken_to_digits(clean_transcript(utterance)).strip().lower()
    if not text:
        return False
    spans = [(a, b) for _, a, b in duration_spans(text)]
    for said in numbers_said(text):
        spans.append((said.start, said.end))
    spans += [(m.start(), m.end()) for m in _DECIMAL.finditer(text)]
    if not spans:
        return False
    rest = list(text)
    for a, b in spans:
        rest[a:b] = " " * (b - a)
    rest_text = re.sub(r"[\s,.!?，。！？、…倍x]+", " ", "".join(rest))
    rest_text = re.sub(r"\b(?:seconds?|secs?|minutes?|mins?|times?|speed)\b|秒钟?|分钟?|倍速?", " ",
                       rest_text)  # fmt: skip
    p = load(language if language in ("zh", "en") else script_of(text))
    words = sorted({*p.words("amount_reply_words"), *p.words("fillers")}, key=len, reverse=True)
    left = strip_words(rest_text.strip(), words, p.language).strip()
    if p.language == "en":
        return not left.split()
    return len(re.sub(r"\s", "", left)) == 0
