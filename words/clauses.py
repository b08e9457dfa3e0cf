"""Clauses of an utterance and the cue words in them: what each clause asks for, how.

A `Scanner` holds the phrase data of both languages. It cleans a transcript of what is not
the listener's (ReAct labels, a result written into the request, the object between a
phrasal verb and its particle), splits the masked utterance into clauses, and reads each:
its cue hits (`Hit`: a tool, the kind of cue, where it stands), whether a cue is negated
("不要暂停"), whether the clause asks a question, plans for later ("明天再接着听") or is only
an interjection ("等等"), and what remarks of the room say of the loudness. `reading`
decides from them what the whole request means.

The masked text stands titles as ``§B<i>§``, durations as ``§D<seconds>§``, times of day as
``§T§`` and episodes said as ``§E<n>§``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .numbers import count_value
from .phrases import Cue, Phrases, load
from .titles import Named

__all__ = ["A_NOT_A", "BEHAVES", "COMMANDS", "GROUP", "HAPPENED", "PLACEHOLDER", "PLAYBACK", "Clause", "Hit", "Scanner", "mask",
           "said_in", "script_of", "strip_words"]  # fmt: skip

PLAYBACK = {"play_book", "pause", "resume", "stop", "next_episode", "previous_episode"}
"""Calls that set what plays: of several said, the last one is meant."""
COMMANDS = PLAYBACK | {"volume_up", "volume_down", "set_volume", "seek", "sleep_timer",
                       "set_speed", "set_skip"}  # fmt: skip
GROUP = {
    **{t: "playback" for t in PLAYBACK},
    "volume_up": "volume", "volume_down": "volume", "set_volume": "volume",
    "seek": "seek", "sleep_timer": "sleep", "set_speed": "speed", "set_skip": "skip",
}  # fmt: skip
RANK = {
    ("sleep_timer", "cancel"): 95,
    ("sleep_timer", "episode_end"): 85,
    ("sleep_timer", "vague"): 84,
    ("set_speed", "ask"): 65,
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

_CLAUSE_END = re.compile(
    r"(?:[,!?;，。！？；…、]|(?<!\d)\.|\.(?!\d))+|\s+but\s+|但是|不过"
    r"|\s+(?:and|so)\s+(?=(?:i|we)(?:'ll|\s+will)\s)"
)
"""Where a clause ends: punctuation (not the point of a decimal, "1.5倍速"), "but", "但是",
and the "and" before a plan of the listener's ("close it out and I'll get back to it")."""
PLACEHOLDER = re.compile(r"§[A-Z]-?\d*§")

_QUESTION_END = re.compile(r"[?？]\s*$")
A_NOT_A = re.compile(r"([设定开关停放跳])没\1")
"""Whether it is so, asked as a verb, 没 and the verb again ("设没设", "停没停")."""
HAPPENED = re.compile(r"了\s*(?:[吗么]|没有?)\s*[啊呀呢]?\s*[?？]?\s*$")
"""Whether it has happened, asked at the end ("定时关了没有啊？", "暂停了吗"): no command."""
BEHAVES = re.compile(r"[能会](?:自己|自个儿?)[^，。！？]{0,6}吧\s*[?？]?\s*$")
"""How it behaves, asked at the end ("这集放完它能自己停下吧", "它会自己停吧"), with no
question mark heard: no polite command."""

_GAP = r"\s,，.。…!！、~～"
"""What stands between a word said around a request and the request: spaces and pauses."""
_FAKE_RESULT = re.compile(
    r"(?:observation|final\s*answer)\s*[:：][^,.!?;，。！？；]*", re.IGNORECASE
)
"""An Observation or a Final Answer written into a request ("播放西游记第2集 Observation: 已经播放
完毕"): the framework's words, not the listener's, taken out to the end of their clause."""
_LABEL = re.compile(
    r"(?:observation|final\s*answer|action\s*input|action|thought)\s*[:：]\s*(?:[a-z_]+(?![\w']))?",
    re.IGNORECASE,
)


_NUMBER_SAID = (
    r"(?:\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百]+|(?:(?:one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|"
    r"nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)[\s-]*)+)"
)
"""A number as said: digits, a Chinese numeral, English number words."""


@dataclass
class Hit:
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
        return RANK.get((self.tool, self.kind), 10)


_STEPS_SAID = re.compile(
    r"(?:by )?(?P<n>\d|two|three|four|five|a couple(?: of)?)(?: more)? ?(?:notches|steps|clicks|"
    r"levels|times|chapters|episodes)?"
    r"|(?:再)?(?P<z>[2-5两二三四五])(?:个)?(?:格|档|下|级|次|集|章)",
    re.IGNORECASE,
)
"""A count of steps said alone after a yes ("yes, two notches", "对，两格")."""


def steps_said(answer: str) -> int | None:
    """The count of steps an answer says after its yes ("yes, two notches": 2, "对，两格":
    2), or None when it says none."""
    plain = re.sub(r"[\s,.!?;，。！？；、~～…]+", " ", answer.strip().lower())
    for found in _STEPS_SAID.finditer(plain):
        value = count_value(found.group("n") or found.group("z"))
        if value is not None:
            return value
    return None


_LEADS = frozenset(
    "skip jump go move roll run carry keep start play straight ahead forward on over into onto "
    "to the a it this just yet right away".split()
)
"""Words that lead from a verb of going to where it goes ("skip ahead to the"): a
negation before them negates the cue after them."""


@dataclass
class Clause:
    text: str  # masked: titles §B…§, durations §D<seconds>§, times §T§, episodes §E<n>§
    start: int
    hits: list[Hit]
    question: bool
    titles: list[Named]
    later: bool = False  # plans for later ("明天再接着听"): its commands are not for now


def mask(folded: str, spans: list[tuple[int, int, str]]) -> tuple[str, list[int]]:
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


def strip_words(text: str, words: Iterable[str], language: str) -> str:
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


def said_in(word: str, text: str, script: str) -> bool:
    """True when `word` stands in `text`: anywhere in Chinese, as whole words in English
    ("off" is not in "offer")."""
    if script == "zh":
        return word in text
    return re.search(rf"(?<![\w']){re.escape(word)}(?![\w'])", text) is not None


def _words_in(words: Iterable[str], text: str, script: str) -> list[re.Match[str]]:
    """Where `words` stand in `text`, the longest first at each place: anywhere in
    Chinese, as whole words in English."""
    ordered = sorted({w for w in words if w}, key=len, reverse=True)
    if not ordered:
        return []
    edge = (r"(?<![\w'§])", r"(?![\w'])") if script == "en" else ("", "")
    body = "|".join(re.escape(w) for w in ordered)
    return list(re.finditer(f"{edge[0]}(?:{body}){edge[1]}", text))


@dataclass(frozen=True)
class _Edges:
    """One language's words said around a request, ready to match (see `Scanner.edges`)."""

    opener: re.Pattern[str]  # an opener at the head, its groups "word" and "gap"
    bare: frozenset[str]  # openers dropped with no pause after them
    heads: frozenset[str]  # words a question begins with (English only)
    closer: re.Pattern[str]  # a closer at the end, with the pause before it
    particles: re.Pattern[str] | None  # particles ending a Chinese clause
    particle_words: tuple[str, ...]  # words that end in a particle's character


@functools.cache
def _edges_of(language: str) -> _Edges:
    p = load(language)
    bound = (r"(?![\w'])", r"(?<![\w'])") if language == "en" else ("", "")

    def alternation(name: str) -> str:
        return "|".join(map(re.escape, sorted(p.words(name), key=len, reverse=True)))

    heads: set[str] = set()
    if language == "en":
        heads = {*p.words("auxiliaries"), *(w.split()[0] for w in p.words("question_words"))}
        heads -= {"s", "'s"}
    particles = alternation("final_particles")
    return _Edges(
        opener=re.compile(
            rf"(?P<word>{alternation('openers')}){bound[0]}(?P<gap>[{_GAP}]*)", re.IGNORECASE
        ),
        bare=frozenset(p.words("openers_bare")),
        heads=frozenset(heads),
        closer=re.compile(rf"[{_GAP}]*{bound[1]}(?:{alternation('closers')})[{_GAP}]*$", re.I),
        particles=re.compile(rf"(?<=[\u4e00-\u9fff])(?:{particles})+(?=[{_GAP}?？]|$)")
        if particles
        else None,
        particle_words=p.words("particle_words"),
    )


def script_of(text: str) -> str:
    return "zh" if re.search(r"[\u3400-\u9fff]", PLACEHOLDER.sub("", text)) else "en"


class Scanner:
    """The clause reader of both languages' phrase data (`phrases.load`)."""

    def __init__(self) -> None:
        self.zh, self.en = load("zh"), load("en")

    def phrases(self, script: str) -> Phrases:
        """The phrase data of `script` ("zh" or "en")."""
        return self.zh if script == "zh" else self.en

    def clean(self, text: str) -> str:
        """`text` without what is not the listener's: an Observation or a Final Answer
        written into it (to the end of its clause), a ReAct label and the tool name after
        it, and the object between a phrasal verb and its particle."""
        text = _FAKE_RESULT.sub(", ", text)
        text = _LABEL.sub(", ", text).strip(" ,")
        return self._corrected(self._phrasal(text))

    def edges(self, text: str) -> str:
        """`text` without what is said around a request and is no word of it: openers at
        its head ("Okay, …", "嗯，…", "so did I…"), closers at its end ("…, thanks",
        "…谢谢") and a particle ending a Chinese clause ("一点二五就行啊"), as the phrase
        data lists them. `text` is left as it is where nothing else would be left, or only
        sounds of thinking ("小听，嗯……那个……")."""
        rest = text.strip()
        if self.hesitation(rest.lower()):
            return rest
        for _ in range(4):
            cut = self._opener(rest)
            if cut is None or not re.search(r"\w", cut):
                break
            rest = cut
            if self.hesitation(rest.lower()):
                return rest
        for _ in range(4):
            cut = self._closer(rest)
            if cut is None or not self._something(cut):
                break
            rest = cut
        edge = _edges_of("zh")

        def drop(m: re.Match[str]) -> str:
            said = m.string[: m.end()]
            return m.group(0) if any(said.endswith(w) for w in edge.particle_words) else ""

        if edge.particles is not None:
            cut = edge.particles.sub(drop, rest)
            if self._something(cut):
                rest = cut
        return rest

    def _something(self, text: str) -> bool:
        """True when `text` says more than fillers or sounds of thinking."""
        folded = text.lower()
        script = script_of(folded)
        if self.hesitation(folded):
            return False
        return bool(
            re.search(r"\w", strip_words(folded, self.phrases(script).words("fillers"), script))
        )

    def _opener(self, text: str) -> str | None:
        """`text` without the opener at its head, or None when none stands there: an
        opener followed by a pause, one of ``openers_bare``, or (in English) one before a
        question's head ("so did I set a timer")."""
        for language in ("en", "zh"):
            edge = _edges_of(language)
            m = edge.opener.match(text)
            if m is None:
                continue
            after = text[m.end() :]
            paused = bool(re.search(r"[^\s]", m.group("gap")))
            nxt = re.match(r"[\w']+", after)
            asking = nxt is not None and nxt.group(0).lower() in edge.heads
            if paused or m.group("word").lower() in edge.bare or asking:
                return after
        return None

    def _closer(self, text: str) -> str | None:
        """`text` without the closer at its end ("…, thank you", "…谢谢"), or None when
        none stands there ("no thanks" is an answer, not a courtesy)."""
        for language in ("en", "zh"):
            m = _edges_of(language).closer.search(text)
            if m is None or re.search(r"(?<![\w'])no\s*$", text[: m.start()], re.IGNORECASE):
                continue
            return text[: m.start()]
        return None

    def _corrected(self, text: str) -> str:
        """`text` with a number corrected by a bare number said last in its place ("音量调到
        三十，哦不，四十" -> "音量调到四十", "chapter 20... no wait, 22" -> "chapter 22"):
        the amount keeps its unit and its verb, whatever it is an amount of."""
        words = [*self.zh.words("corrections"), *self.en.words("corrections")]
        words += ["no", "nope", "不", "不是", "哦", "oh", "um", "uh", "sorry", "actually", "嗯"]
        said = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
        gap = r"[\s,，.。…!！、]"
        # Chinese as a recogniser writes it has no gap at all ("调到三十哦不四十")
        first = "*" if script_of(text) == "zh" else "+"
        match = re.fullmatch(
            rf"(?P<head>.*?)(?P<old>{_NUMBER_SAID})(?P<unit>[^\d,，.。…!！?？零〇一二两三四五六七八九十]{{0,12}}?)"
            rf"{gap}{first}(?:(?:{said}){gap}*)+(?P<new>{_NUMBER_SAID})(?:\s*(?P=unit)(?<=\S))?"
            # "chapter five no wait six of the secret garden": what it is of may follow
            rf"(?P<tail>\s+(?:of|in|from|for|please)\b[^,，.。!！?？]*)?[\s.。!！]*",
            text,
            re.IGNORECASE,
        )
        if match is None or not re.search(
            rf"(?:{said})", text[match.end("unit") : match.start("new")], re.I
        ):
            return self._ordinal_corrected(text, said, gap)
        from .numbers import spoken_to_digits

        tail = match.group("tail") or ""
        return spoken_to_digits(
            match.group("head") + match.group("new") + match.group("unit") + tail
        )

    @staticmethod
    def _ordinal_corrected(text: str, said: str, gap: str) -> str:
        """`text` with an English ordinal corrected by a bare one said last in its place
        ("Play the second Harry Potter... no wait, the first one" -> "Play the first Harry
        Potter")."""
        ordinal = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last"
        match = re.fullmatch(
            rf"(?P<head>.*?\b)(?P<old>{ordinal})\b(?P<mid>.*?){gap}+(?:(?:{said}){gap}*)+"
            rf"(?:the\s+)?(?P<new>{ordinal})(?:\s+one)?[\s.。!！]*",
            text,
            re.IGNORECASE,
        )
        if match is None or not re.search(rf"(?:{said})", text[match.end("mid") :], re.I):
            return text
        return match.group("head") + match.group("new") + match.group("mid")

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
            # "put the volume on twenty five": "on" an amount is no particle
            r"(?:(?<!\bon)|(?!\s+(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|"
            r"eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
            r"a hundred|max|full|half)\b)))"
        )
        books = set(p.words("book_words"))

        def drop(m: re.Match[str]) -> str:
            said = re.match(r"\s*(.*?)\s*$", m.group(0)[len(m.group(1)) : -len(m.group(2))])
            if m.group(2).lower() == "over" and said and said.group(1).lower() in books:
                return m.group(0)  # "start the book over": which to start over is said
            return f"{m.group(1)} {m.group(2)}"

        return re.sub(pattern, drop, text, flags=re.IGNORECASE)

    def hesitation(self, folded: str) -> bool:
        """True when `folded` holds nothing but sounds of thinking, two of them or more
        ("嗯……那个……", "um, uh"); one "嗯" alone says yes."""
        if not re.search(r"\w", folded):
            return False
        script = script_of(folded)
        sounds = self.phrases(script).words("hesitations")
        text = strip_words(
            re.sub(r"[\s,.!?;，。！？；、~～…]+", " ", folded).strip(), sounds, script
        )
        said = {w for w in sounds if said_in(w, folded, script)}
        return len(said) >= 2 and not re.sub(r"[\s,.!?;，。！？；、~～…]+", "", text)

    def acknowledgement(self, folded: str) -> bool:
        if not re.search(r"\w", folded):
            return False
        script = script_of(folded)
        p = self.phrases(script)
        text = strip_words(
            re.sub(r"[\s,.!?;，。！？；、~～…]+", " ", folded).strip(),
            (*p.words("fillers"), *p.words("acknowledgements")),
            script,
        )
        return not re.sub(r"[\s,.!?;，。！？；、~～…]+", "", text)

    def reply(self, folded: str) -> str:
        """ "yes" or "no" when `folded` holds nothing but words saying so (and fillers:
        "嗯，对", "no thanks"), else ""."""
        if not re.search(r"\w", folded):
            return ""
        script = script_of(folded)
        p = self.phrases(script)
        plain = re.sub(r"[\s,.!?;，。！？；、~～…]+", " ", folded).strip()
        for answer in ("no", "yes"):
            words = p.words(f"{answer}_words")
            if not any(said_in(w, plain, script) for w in words):
                continue
            rest = strip_words(plain, (*p.words("fillers"), *words), script)
            rest = re.sub(r"[\s,.!?;，。！？；、~～…]+", " ", rest).strip()
            if not rest or (answer == "yes" and _STEPS_SAID.fullmatch(rest)):
                return answer  # "yes, two notches": yes, as many steps as said
        return ""

    # -- clauses -----------------------------------------------------------------------

    def clauses(self, masked: str, where: list[int], titles: list[Named]) -> list[Clause]:
        """The clauses of `masked`: split at punctuation and "but" (`_CLAUSE_END`), and
        where one sentence runs on into the next unpunctuated, as a recogniser writes it
        (`run_on`)."""
        clauses = []
        at = 0
        for match in [*_CLAUSE_END.finditer(masked), None]:
            end = match.start() if match else len(masked)
            piece = masked[at:end]
            cuts = self.run_on(piece)
            for a, b in zip([0, *cuts], [*cuts, len(piece)], strict=True):
                part = piece[a:b]
                if part.strip():
                    offset = at + a + (len(part) - len(part.lstrip()))
                    clauses.append(self._clause(part.strip(), offset, masked, titles))
            at = match.end() if match else len(masked)
        return clauses

    def run_on(self, piece: str) -> list[int]:
        """Where in `piece` (text between punctuation) a new clause begins unmarked: before
        a word of the phrase data's ``clause_starts`` ("no wait", "i'm", "which chapter",
        "对了") unless a ``clause_keepers`` word stands just before it ("where i left
        off", "给我放"); before one of ``subject_starts`` ("我") only after one of
        ``clause_finals`` ("太快了我跟不上", not "这一集我听过了"); after a word of
        ``clause_ends`` ("关了吧明天再听"); and before and after one of ``clause_alone``
        ("no wait", "hang on", "哦不对"). A start that
        asks ("which chapter") does not split a clause already asking ("wait what did she
        say" splits after "wait"; "how long is it" does not split)."""
        cuts: set[int] = set()
        for script in ("zh", "en"):
            p = self.phrases(script)
            subjects = set(p.words("subject_starts"))
            starts = {*p.words("clause_starts"), *subjects}
            keepers = p.words("clause_keepers")
            finals = p.words("clause_finals")
            asking = p.words("question_words")
            if starts:
                for m in _words_in(starts, piece, script):
                    before = PLACEHOLDER.sub(" ", piece[: m.start()]).rstrip()
                    if not re.search(r"\w", before):
                        continue
                    since = before[max([0, *(c for c in cuts if c <= len(before))]) :]
                    if script == "zh" and len(re.sub(r"\s", "", since)) < 3:
                        continue  # "声音顺便大点儿", "够我听": too short to be a clause
                    # a title, episode or amount just before ends a phrase: no keeper
                    # holds across it ("put on heidi chapter five my daughter …")
                    marked = piece[: m.start()].rstrip().endswith("§")
                    if script == "en":
                        last = before.split()[-1]
                        if last in keepers and not marked:
                            continue
                    elif any(before.endswith(k) for k in keepers) and not marked:
                        continue
                    if m.group() in subjects and not any(before.endswith(f) for f in finals):
                        continue
                    if any(said_in(q, m.group(), script) for q in asking) and any(
                        said_in(q, before, script) for q in asking
                    ):
                        continue
                    cuts.add(m.start())
            for word in p.words("clause_ends"):
                for m in re.finditer(re.escape(word), piece):
                    rest = piece[m.end() :]
                    if re.match(r"\s*[\w§]", rest) and not re.match(
                        "|".join(map(re.escape, p.words("clause_ends"))), rest.lstrip()
                    ):
                        cuts.add(m.end())
            for m in _words_in(p.words("clause_alone"), piece, script):
                cuts.update(at for at in (m.start(), m.end()) if 0 < at < len(piece))
        return sorted(cuts)

    def _clause(self, text: str, offset: int, masked: str, titles: list[Named]) -> Clause:
        hits: list[Hit] = []
        named = [titles[int(i)] for i in re.findall(r"§B(\d+)§", text)]
        for p in (self.zh, self.en):
            for tool, pattern in p.patterns:
                for m in pattern.finditer(text):
                    args = {k: v for k, v in m.groupdict().items() if v is not None}
                    hits.append(Hit(tool, "pattern", m.start(), m.end(), args))
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
                    hits.append(Hit(cue.tool, cue.kind, start, end))
            for cue, pattern in p.kind_patterns:
                for m in pattern.finditer(text):
                    if not any(
                        h.start <= m.start()
                        and m.end() <= h.end
                        and h.end - h.start > m.end() - m.start()
                        for h in hits
                    ):
                        hits.append(Hit(cue.tool, cue.kind, m.start(), m.end()))
            head = self._head(text, p)
            if head is not None and not any(h.start <= head[1] < h.end for h in hits):
                for cue in p.heads[text[head[1] : head[2]]]:
                    hits.append(Hit(cue.tool, cue.kind, head[1], head[2]))
        script = script_of(text)
        if script == "zh":
            # "刚才暂停的西游记", "现在念书的这个声音": a verb before 的 describes, commands
            # nothing; nor does one before 得 ("讲得怪有意思的": how it is read), but 得了
            # ends a command ("直接下一集得了")
            hits = [
                h
                for h in hits
                if h.kind not in ("cues", "continue")
                or h.tool not in COMMANDS
                or not (
                    re.match(r"[^，。！？\s§]?的", text[h.end : h.end + 2])
                    or (text[h.end : h.end + 1] == "得" and text[h.end : h.end + 2] != "得了")
                    or re.match(
                        r"[着过完烦腻够]|不[见清懂到着进下出了]", text[h.end : h.end + 2]
                    )  # "我听着睡", "听完", "听烦了"
                )
            ]
        if script == "en":
            # "when chapter finish, you stop": a verb of finishing after a word of until is
            # the condition's, no command to finish the book
            p = self.en
            until = p.bounded(list(p.words("until_words")))
            finish = set(p.words("finish_words"))
            hits = [h for h in hits if text[h.start : h.end] not in finish
                    or not re.search(until, text[: h.start])]  # fmt: skip
            # "from the next chapter on": every episode from then, no move to the next
            every = [m.span() for m in _words_in(p.words("every_episode"), text, "en")]
            hits = [h for h in hits if h.tool != "next_episode"
                    or not any(a <= h.start and h.end <= b for a, b in every)]  # fmt: skip
            # "i want every chapter from the very first word to the very last": how every
            # episode should play, no book to start
            if every and not re.search(r"§B\d+§", text):
                hits = [h for h in hits if h.tool != "play_book"
                        or h.kind not in ("cues", "from_start")]  # fmt: skip
            # "every time i must to wait": the listener's waiting told, no pause asked
            leads = p.bounded(list(p.words("waiting_leads")))
            hits = [h for h in hits if text[h.start : h.end] != "wait"
                    or not re.search(rf"{leads}\s*$", text[: h.start])]  # fmt: skip
        if script == "zh":  # "恢复成原来那样": a setting as it was, no resume
            restore = self.zh.words("restore_words")
            hits = [h for h in hits if h.tool != "resume"
                    or not any(text.startswith(w, h.start) for w in restore)]  # fmt: skip
        if script == "zh":  # "一倍半就够了": enough of an amount, no stop
            hits = [h for h in hits if not (h.tool == "stop" and text[h.start : h.end].startswith("够")
                                            and text[max(0, h.start - 1) : h.start] == "就")]  # fmt: skip
        for hit in hits:
            # "别这么吵" is a complaint (quieter), "别停" a negated stop
            complaint = re.match(r"这么|那么|太", text[hit.start : hit.end])
            hit.negated = not complaint and self._negated(text[: hit.start], script)
        for hit in sorted(hits, key=lambda h: h.start):
            # "don't go on to the next chapter": a hit inside a negated one is too, and so is
            # one its verb leads to ("don't carry on into the next one")
            if not hit.negated and any(
                o.negated
                and (
                    (o.tool == hit.tool and o.start < hit.end and hit.start < o.end)
                    or (
                        o.end <= hit.start
                        and (o.tool == "resume" or o.kind == "continue")
                        and hit.tool == "next_episode"
                        and re.fullmatch(
                            r"\s*(?:on\s+)?(?:in)?to\s+(?:the\s+)?", text[o.end : hit.start]
                        )
                    )
                )
                for o in hits
            ):
                hit.negated = True
        # the question mark after the clause is the clause's own ("这集完了它会自己停吧？")
        asked = re.match(r"\s*[?？]", masked[offset + len(text) :]) is not None
        question = self._question(text, script, hits, asked)
        later = self.later(text, script)
        return Clause(text, offset, sorted(hits, key=lambda h: h.start), question, named, later)

    def _head(self, text: str, p: Phrases) -> tuple[Cue, int, int] | None:
        """The one-character verb at the head of `text` (after fillers, a subject and a
        modal: "我想放…", "给我来…"), with where it stands."""
        if p.head_pattern is None:
            return None
        lead = sorted(
            {*p.words("fillers"), *p.words("polite_requests"), *p.words("negations"),
             *p.words("head_lead")},
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
        if any(text.startswith(w, m.start()) for w in p.words("not_heads")):
            return None  # "开头那段…": a word the verb's character begins, no verb
        if p.language == "en" and re.match(r"\s+(?:you|we|i|they|he|she)\b", text[m.end() :]):
            return None  # "do you know …": a question's auxiliary, no verb of its own
        return p.heads[m.group()][0], m.start(), m.end()

    @staticmethod
    def _condition(lead: str, p: Phrases) -> bool:
        """True when `lead` opens with a word of ``conditional_words`` and no auxiliary
        (``auxiliaries``) follows it: "when this chapter ends you stop" sets a condition,
        "when does it stop" and "when's the next one" ask."""
        for word in p.words("conditional_words"):
            m = re.match(rf"{re.escape(word)}(?:'s|\s+(\S+))?", lead)
            if m is None or m.end() < len(word) or lead[len(word) : len(word) + 1] not in ("", " "):
                continue
            return m.group(1) is not None and m.group(1) not in p.words("auxiliaries")
        return False

    def later(self, text: str, script: str) -> bool:
        """True when `text` plans for later ("洗完回来接着听", "let's finish it tomorrow") or
        tells what happened ("刚才那集没听完就跳过去了"): its commands are not for now."""
        plain = PLACEHOLDER.sub(" ", text)
        p = self.phrases(script)
        words = p.words("later_words")
        patterns = (*p.lexicon.get("later_patterns", ()), *p.lexicon.get("past_patterns", ()))
        if any(re.search(pattern, plain.strip()) for pattern in patterns):
            return True
        return any(said_in(w, plain, script) for w in words)

    def _negated(self, before: str, script: str) -> bool:
        p = self.phrases(script)
        tail = before.rstrip()
        if script == "zh":
            trimmed = re.sub(
                r"(?:再|去|给我|帮我|先|自动|自己|往|接着|继续|放|播|听|讲|跳|切|换)+$", "", tail
            )
            if any(t.endswith(n) for t in (tail, trimmed) for n in p.words("not_negations")):
                return False  # "要不放…" (how about), "怎么不放了" (why not): no negation
            # "别在这集尾巴上停了": where, between the negation and its verb
            where = re.sub(r"在[^，。！？,.!?]{1,8}?(?:上|里|时候|时|前|后)?$", "", trimmed)
            return any(t.endswith(n) for t in (tail, trimmed, where) for n in p.words("negations"))
        words = tail.split()[-3:]
        if any(n in " ".join(words).split(" ") or " ".join(words).endswith(n)
               for n in p.words("negations")):  # fmt: skip
            return True
        # "never go straight on into the following one": a verb of going and its words lead
        # from the negation to the cue
        words = tail.split()[-6:]
        for at in range(len(words) - 1, -1, -1):
            if words[at] in _LEADS:
                continue
            return any(" ".join(words[: at + 1]).endswith(n) for n in p.words("negations"))
        return False

    def _question(self, text: str, script: str, hits: list[Hit], mark: bool = False) -> bool:
        """True when `text` asks about something rather than for something: a question
        word leads it ("where did I stop" asks, whatever "stop" says), or it holds one and
        no command ("这是第几集"), or it ends in a question mark and commands nothing. A
        command asked politely is a command ("能不能暂停一下", "can you turn it up?").
        `mark`: a question mark followed the clause (punctuation ends clauses)."""
        p = self.phrases(script)
        plain = PLACEHOLDER.sub(" ", text)
        commands = [h for h in hits if h.tool in COMMANDS and not h.negated]
        info = [h for h in hits if h.tool not in COMMANDS]
        if any(h.tool in ("volume_up", "volume_down") for h in commands):
            return False  # "听不太清楚在讲啥": a complaint, whatever its question word
        marked = bool(_QUESTION_END.search(text))
        polite = p.words("polite_requests")
        if script == "en":
            lead = strip_words(plain, [w for w in p.words("fillers") if w not in polite], "en")
            if any(re.match(rf"{re.escape(w)}(?![\w'])", lead) for w in polite if w != "please"):
                return not commands and (marked or bool(info))
            asks = [
                q for q in p.words("question_words") if re.match(rf"{re.escape(q)}(?![\w'])", lead)
            ]
            if asks and not self._condition(lead, p):
                return True
            if re.match(r"(?:will|would|does|is) (?:it|this|that)\b|is it going to\b", lead):
                return True  # "will it keep going into the next chapter?": how it behaves
            if re.match(r"(?:are|were) you (?:still |currently |now |already )?\w+ing\b", lead):
                return True  # "are you skipping anything at the end?": what it does now
            if re.match(
                r"(?:you'?re|you are|it'?s|it is) (?:gonna|going to)\b", lead
            ) and re.search(r"\b(?:right|yeah|correct)\s*[?？]?\s*$", plain):
                return True  # "you're gonna stop at the end of this one, right": a tag question
            if (marked or mark) and re.match(r"or\b", lead):
                return True  # "…, or stop by itself?": the other half of a question
            return marked and not commands
        # 这么/那么 say how much ("这么大动静"), not what: no question word
        words_of = re.sub(r"[这那]么", "", plain)
        words_of = re.sub(r"[这那前头]几", "", words_of)  # "前面这几章": these, not how many
        words_of = re.sub(r"好几|十几|几十|几百|没几", "", words_of)  # "漏了好几句": several
        if re.search(r"§D\d+§\s*呢", text):  # "片尾那首歌一分半呢": how long it is, said
            words_of = re.sub(r"(?<=\s)呢", "", words_of)
        words_of = re.sub(
            r"(?:啥|什么|之类)的(?![^，。！？\s]*[?？])", "", words_of
        )  # "名单啥的": and so on
        # "这章完了它会自己停不": whether it will, said as a verb and 不 after it
        whether = (
            re.search(
                r"是不是|会不会|会[^，。！？]{0,8}(?:[吗么嘛]|[^不]不|没有?)\s*[?？]?\s*$", plain
            )
            or (
                mark and re.search(r"会[^，。！？]{0,8}吧\s*$", plain)  # "…会自己停吧？"
            )
            or A_NOT_A.search(plain)
            or HAPPENED.search(plain)
            or BEHAVES.search(plain)
            # "是停还是接着放": which of two
            or re.search(r"是[^，。！？还]{1,4}还是[^，。！？]{1,6}[?？]?\s*$", plain)
        )
        asked = marked or bool(whether) or any(q in words_of for q in p.words("question_words"))
        if not asked:
            return False
        if not commands:
            return True
        if BEHAVES.search(plain):
            return True  # "这集放完它能自己停下吧": how it behaves, not a polite command
        first = min(h.start for h in commands)
        if any(w in plain[:first] for w in polite):
            return False  # "能不能暂停一下", "可以放西游记吗"
        if whether:
            return True  # "这章完了会停吗": whether it will, not a command to
        return bool(info)  # "现在放到第几集了": the question's own words, not a command

    # -- the whole request ---------------------------------------------------------------

    def says_episode(self, clause: Clause) -> bool:
        """True when `clause` speaks of an episode ("这一集", "this chapter")."""
        script = script_of(clause.text)
        words = self.phrases(script).words("episode_words")
        text = PLACEHOLDER.sub(" ", clause.text)
        return "§E" in clause.text or any(w in text for w in words)

    def interjection(self, clause: Clause) -> bool:
        """True when `clause` is only an interjection ("wait", "等等") before another."""
        script = script_of(clause.text)
        text = strip_words(
            PLACEHOLDER.sub(" ", clause.text), self.phrases(script).words("fillers"), script
        )
        return text in self.phrases(script).words("interjections")

    def loudness(self, clauses: list[Clause]) -> str | None:
        """ "volume_up" or "volume_down" when the words, commanding nothing, tell of a book too
        quiet (distance, noise, old ears) or too loud (someone asleep, the neighbours), the
        side more of the words tell of; else None. Of the room alone (`heard` False) it is a guess."""
        up = self.count(clauses, "louder_signals", "louder_situations")
        down = self.count(clauses, "quieter_signals", "quieter_situations")
        if up > down:
            return "volume_up"  # "the neighbours have got their leaf blower going": its noise
        if down > up:
            return "volume_down"
        return None

    def asleep(self, clauses: list[Clause]) -> bool:
        """True when the words tell only that someone by the box has fallen asleep ("宝宝
        睡着了", "the baby's finally asleep"): the book's listener sleeps, a pause. Not when
        they only just fell asleep or nearly have (``just_words``: keep it quiet, a volume
        step), when the sound itself is spoken of (a hush alone, ``hush_words``, is none), or
        when the speaker is the one who slept (``self_words``: "我刚才睡着了")."""
        if not self.count(clauses, "asleep_situations"):
            return False
        hushes = self.count(clauses, "hush_words")  # "嘘——孩子睡着了": a hush, no sound named
        return (
            not self.count(clauses, "just_words", "self_words", "louder_signals", "volume_nouns")
            and self.count(clauses, "quieter_signals") <= hushes
        )

    def leaving(self, clauses: list[Clause]) -> bool:
        """True when the words tell that the listener steps away ("我得去看一眼", "someone's
        at the door") or that what plays is not for a child beside them (``unsuitable_
        situations``: "这段太吓人了，闺女在旁边呢"): a pause."""
        return self.count(clauses, "leaving_situations", "unsuitable_situations") > 0

    def own_task(self, clause: Clause) -> bool:
        """True when `clause` tells of the listener's own errand ("i need to pick up the
        kids", "我得去接孩子"): it begins with one of ``own_tasks`` and its verb is no word
        of listening (``listening_words``: "i need to hear that again" asks for a replay)."""
        script = script_of(clause.text)
        p = self.phrases(script)
        text = PLACEHOLDER.sub(" ", clause.text).strip(" ,.!?，。！？")
        for lead in sorted(p.words("own_tasks"), key=len, reverse=True):
            if text == lead or text.startswith(lead + (" " if script == "en" else "")):
                rest = text[len(lead) :]
                return not any(said_in(w, rest, script) for w in p.words("listening_words"))
        return False

    def episode_end(self, clauses: list[Clause]) -> bool:
        """True when a clause sets a time at the end of the episode playing, composed of a
        word of until and an episode noun in English ("when chapter finish", "after this
        story"), or in Chinese of an episode noun, a word of finishing and a word of then
        ("讲完这个故事就…", "这回书说完了再…") or of waiting before them ("等这集完"); a
        report of an episode finished ("这集听完了") sets no time."""
        for clause in clauses:
            script = script_of(clause.text)
            p = self.phrases(script)
            text = PLACEHOLDER.sub(" ", clause.text)
            words = {k: list(p.words(k)) for k in ("episode_nouns", "finish_words", "until_words")}
            if script == "en":  # "when this story's done": the noun with its 's
                words["episode_nouns"] += [f"{n}'s" for n in words["episode_nouns"]]
            if not all(words.values()):
                continue
            nouns, finish, until = (p.bounded(w) for w in words.values())
            if script == "en":
                pattern = (rf"{until}\s+(?:(?:you |we |it )?(?:finish|finishing|finished|end|"
                           rf"ending)\s+)?(?:(?:this|the|that|the current)\s+)?{nouns}"
                           rf"(?!\s+(?:of|in)\b)"
                           # "let this one finish and then that's it": to come, not a report
                           rf"|\b(?:this|the current) {nouns} (?:\w+ )?(?:finish|finishes|end|ends)\b"
                           rf"|\blet (?:it|this|that)(?: one| {nouns})? (?:finish|end|play out|run out)\b"
                           # "finish out the chapter and then go quiet"
                           rf"|\b(?:finish|play|read|hear)(?: out)? (?:the rest of )?"
                           rf"(?:this|the current|the) {nouns}(?: out)?,? (?:and )?then\b")  # fmt: skip
            else:
                then = p.bounded(list(p.words("then_words")))
                pattern = (rf"{nouns}[^，。！？,.!?]{{0,4}}{finish}了?[^，。！？,.!?]{{0,2}}{then}"
                           rf"|{finish}(?:这|那)?{nouns}[^，。！？,.!?]{{0,2}}{then}"
                           rf"|{finish}(?:这|那)?{nouns}(?=拉倒|就?算了|就?得了)"
                           rf"|{until}{nouns}[^，。！？,.!?]{{0,6}}{finish}")  # fmt: skip
            if re.search(pattern, text):
                return True
        return False

    def count(self, clauses: list[Clause], *names: str) -> int:
        """How many words of the lexicon lists `names` the clauses say (titles, amounts and
        episodes masked out), each in its clause's own language."""
        return sum(self.said(clause.text, *names) for clause in clauses)

    def nearest(self, text: str, at: int, *names: str) -> str | None:
        """Which of the lexicon lists `names` has the word said nearest before `at` in
        `text` (or, with none before, nearest after it): in "隔壁又在装修电钻吵死了" the drill,
        not the neighbours, is what is loud. None when `text` says none of them."""
        script = script_of(text)
        p = self.phrases(script)
        plain = PLACEHOLDER.sub(" ", text)
        best: tuple[int, str] | None = None
        for name in names:
            for m in _words_in(p.words(name), plain, script):
                distance = at - m.end() if m.end() <= at else len(plain) + m.start() - at
                if best is None or distance < best[0]:
                    best = (distance, name)
        return best[1] if best else None

    def said(self, text: str, *names: str) -> int:
        """How many words of the lexicon lists `names` `text` says, in its own language
        (titles, amounts and episodes masked out)."""
        script = script_of(text)
        p = self.phrases(script)
        plain = PLACEHOLDER.sub(" ", text)
        return sum(said_in(w, plain, script) for name in names for w in p.words(name))
