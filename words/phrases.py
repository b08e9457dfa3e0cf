"""The phrase data: what listeners say to each tool, one TOML file per language.

``words/phrases/zh.toml`` and ``en.toml`` hold a ``[lexicon]`` of word classes (fillers,
question words, negations, function words …), ``[mends]`` for a recogniser's slips of
command words, and one ``[tools.<name>]`` table per tool of the player: its cue words by
kind (``<kind>_patterns``: cues of that kind as regular expressions) and its patterns with
slots (``{n}`` a number, ``{d}`` a duration, ``{p}`` a decimal in words, ``{r}`` a speed,
``{rp}`` a speed with a part of one); word lists a tool's reading needs
(``backward``, ``small_words``, ``outro_words``, the skip's ``intro_topic`` …) and whole
seconds (``default_seconds``, ``small_seconds``: a seek without an amount, a little one;
``step_seconds``: "a few more seconds" of a skip). `load` reads and checks a file once; a malformed entry raises `PhraseError` naming the file and the key.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from .text import fold

__all__ = ["LANGUAGES", "PhraseError", "Phrases", "load"]

LANGUAGES = ("zh", "en")

_LIST_KEYS = {"patterns", "stop_words", "backward", "outro_words", "small_words",
              "intro_topic", "outro_topic", "intro_weak", "outro_weak", "verbs", "more_words",
              "less_words", "off_words", "keep_words", "ask_words", "both_words", "intro_bare",
              "outro_bare", "half_words", "double_words", "once_here_words"}  # fmt: skip
"""Keys of a tool's table that hold no cue words."""
_LEXICON_LISTS = {
    "fillers", "acknowledgements", "question_words", "polite_requests", "negations",
    "remark_subjects", "episode_words", "book_words", "title_wrappers", "phrasal_verbs",
    "phrasal_objects", "phrasal_particles", "keyword_trim", "describers", "later_words",
    "interjections", "louder_signals", "quieter_signals", "later_patterns", "edition_words", "past_patterns",
    "head_lead", "corrections", "hesitations", "cancel_words", "volume_nouns", "set_before",
    "yes_words", "no_words", "louder_situations", "quieter_situations", "clause_starts",
    "clause_keepers", "clause_ends", "subject_starts", "clause_finals",
    "clause_alone", "heard_words", "not_heads",
    "leaving_situations", "every_episode", "not_negations", "own_tasks", "waiting_leads", "listening_words",
    "episode_nouns", "finish_words", "openers", "openers_bare", "closers",
    "chinese_edition", "english_edition", "particle_words",
    "final_particles", "until_words", "then_words", "conditional_words", "auxiliaries", "amount_reply_words",
}  # fmt: skip
SLOT_NUMBER = (
    r"(?P<n>\d{1,4}|[零〇一二两三四五六七八九十百千]+|(?:(?:a|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|"
    r"nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)[\s-]*)+)"
)
SLOT_POINT = (
    r"(?:(?:zero|oh|one|two) )?point (?:twenty five|seventy five|(?:zero|oh|one|two|three|four|"
    r"five|six|seven|eight|nine)(?: (?:zero|one|two|three|four|five|six|seven|eight|nine))?)"
)
"""A decimal said in words ("one point two five", "point nine"): a slot ``{p}``, inside a
pattern's own group."""
SLOT_RATE_PART = (
    r"\d\.\d{1,2}|" + SLOT_POINT + r"|one and a (?:half|quarter)|one and three quarters"
    r"|three[- ]quarters?|(?:one|two) and (?:a )?half"
)
"""A speed with a part of one in it ("1.25", "one point five", "one and a half", a
learner's "one and half"): a slot
``{rp}``, inside a pattern's own group; never a count or a time."""
SLOT_RATE = r"\d|" + SLOT_RATE_PART + r"|one|two|three|four|five|six|ten"
"""A speed said ("1.5", "two", "one and a half"): a slot ``{r}``, inside a pattern's own
group."""
SLOT_DURATION = "§D(?P<d>\\d+)§"
"""How a duration stands in the text patterns are matched on (see `reading`)."""


class PhraseError(ValueError):
    """A phrase file that cannot be used: bad TOML, a wrong type, a pattern that does not
    compile. The message names the file and the key."""


@dataclass(frozen=True)
class Cue:
    """One cue word: the tool it asks for and of which kind ("cues" is the plain kind)."""

    tool: str
    kind: str


@dataclass
class Phrases:
    """One language's phrase data, folded and compiled (see `load`)."""

    language: str
    lexicon: dict[str, Any]
    tools: dict[str, dict[str, Any]]
    mends: tuple[tuple[re.Pattern[str], str], ...]
    cues: dict[str, list[Cue]] = field(default_factory=dict)
    heads: dict[str, list[Cue]] = field(default_factory=dict)
    cue_pattern: re.Pattern[str] | None = None
    head_pattern: re.Pattern[str] | None = None
    patterns: list[tuple[str, re.Pattern[str]]] = field(default_factory=list)
    kind_patterns: list[tuple[Cue, re.Pattern[str]]] = field(default_factory=list)

    def words(self, name: str) -> tuple[str, ...]:
        """A lexicon list, folded ("fillers", "question_words", …); empty when absent. An
        English phrase of two words or more with an apostrophe is also there without it
        ("phone's ringing", "phones ringing"), as a recogniser writes it; a single word is
        not ("we're" would be "were")."""
        folded = [fold(w) for w in self.lexicon.get(name, ())]
        if self.language == "en":
            folded += [w.replace("'", "") for w in folded if "'" in w and " " in w.strip()]
        return tuple(dict.fromkeys(folded))

    @functools.cached_property
    def vocabulary(self) -> frozenset[str]:
        """Every word of the phrase lists (the lexicon's and the tools', not the patterns'),
        folded: the words a request to the box is made of, English written with spaces."""
        found: set[str] = set()

        def walk(value: Any) -> None:
            if isinstance(value, str):
                found.update(re.findall(r"[a-z']+", fold(value)))
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        for table in (self.lexicon, *self.tools.values()):
            for key, value in table.items():
                if not key.endswith("patterns"):
                    walk(value)
        return frozenset(found)

    def bounded(self, alternatives: list[str]) -> str:
        """A regex alternation of `alternatives` (escaped, the longest first), held to
        whole words in a language written with spaces."""
        body = "|".join(re.escape(a) for a in sorted(set(alternatives), key=len, reverse=True))
        if self.language == "zh":
            return f"(?:{body})"
        return rf"(?<![\w'])(?:{body})(?![\w'])"


def _strings(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise PhraseError(f"{where}: a list of non-empty strings is needed")
    return list(value)


def _pattern(text: str, where: str) -> re.Pattern[str]:
    body = text.replace("{n}", SLOT_NUMBER).replace("{d}", SLOT_DURATION)
    body = body.replace("{rp}", SLOT_RATE_PART).replace("{r}", SLOT_RATE)
    body = body.replace("{p}", SLOT_POINT)
    try:
        return re.compile(body, re.IGNORECASE)
    except re.error as err:
        raise PhraseError(f"{where}: {err}") from None


def parse(language: str, text: str, name: str = "<phrases>") -> Phrases:
    """Phrases from the TOML `text` of `language`; raises PhraseError."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise PhraseError(f"{name}: {err}") from None
    lexicon = data.get("lexicon", {})
    if not isinstance(lexicon, dict):
        raise PhraseError(f"{name}: [lexicon] must be a table")
    for key in _LEXICON_LISTS & set(lexicon):
        lexicon[key] = _strings(lexicon[key], f"{name} lexicon.{key}")
    mends = []
    for raw, replacement in (data.get("mends") or {}).items():
        try:
            mends.append((re.compile(raw, re.IGNORECASE), str(replacement)))
        except re.error as err:
            raise PhraseError(f"{name} mends.{raw!r}: {err}") from None
    tools = data.get("tools", {})
    if not isinstance(tools, dict) or not tools:
        raise PhraseError(f"{name}: no [tools.<name>] tables")
    phrases = Phrases(language, lexicon, tools, tuple(mends))
    for tool, table in tools.items():
        if not isinstance(table, dict):
            raise PhraseError(f"{name} tools.{tool}: must be a table")
        for key, value in table.items():
            where = f"{name} tools.{tool}.{key}"
            if key == "patterns":
                table[key] = [_pattern(p, where) for p in _strings(value, where)]
                phrases.patterns += [(tool, p) for p in table[key]]
            elif key.endswith("_patterns"):
                cue = Cue(tool, key.removesuffix("_patterns"))
                table[key] = [_pattern(p, where) for p in _strings(value, where)]
                phrases.kind_patterns += [(cue, p) for p in table[key]]
            elif key in ("default_seconds", "small_seconds", "step_seconds"):
                if not isinstance(value, int) or value <= 0:
                    raise PhraseError(f"{where}: a positive whole number of seconds is needed")
            elif key in _LIST_KEYS:
                table[key] = [fold(v) for v in _strings(value, where)]
            else:
                target = phrases.heads if key == "head" else phrases.cues
                kind = "cues" if key == "head" else key
                for word in _strings(value, where):
                    target.setdefault(fold(word).strip(), []).append(Cue(tool, kind))
    if phrases.cues:
        phrases.cue_pattern = re.compile(phrases.bounded(list(phrases.cues)))
    if phrases.heads:
        phrases.head_pattern = re.compile(phrases.bounded(list(phrases.heads)))
    return phrases


@functools.cache
def load(language: str) -> Phrases:
    """The phrase data of `language` ("zh" or "en"), read once; raises PhraseError."""
    if language not in LANGUAGES:
        raise PhraseError(f"no phrase data for language {language!r} (zh or en)")
    name = f"words/phrases/{language}.toml"
    text = resources.files("words").joinpath("phrases", f"{language}.toml").read_text("utf-8")
    return parse(language, text, name)
