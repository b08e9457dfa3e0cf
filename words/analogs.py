"""Analogs: what requests like this one asked for, as a second opinion on a model's guess.

The phrase rules understand a request when its words say a command plainly. When they do
not ("哎哟这声音震得我耳朵嗡嗡的"), the local model chooses a tool, and its choice is a
guess: the box asks before it acts (agent/propose.py). A small model guesses wrong often
(louder for "it rings in my ears"), so asking is right; but it also asks when the guess
was right, and a question where the words were clear enough is a failure too.

This module gives an independent judge. The bank (``words/analogs/bank.tsv``, built from
the dev requests' expected outcomes by ``bench/analogs.py``; never from held-out ones) holds
requests as masked text (titles as ``§``, numbers as ``#``) with the *intent* each one
asked for: ``volume:down``, ``skip:intro``, ``sleep:end``, ``replay``… `Analogs.vote`
finds the requests most like an utterance (character n-grams for Chinese, words and word
pairs for English, weighted by rarity, cosine similarity) and weighs their intents by
similarity. The bank's weights (``weights.tsv``, `Weights`: logistic regression over the
same features, trained by ``bench/analogs.py``) then name the intent and its probability;
the vote stands only where the nearest requests vote for that intent too. The agent acts on
a model's guess when this vote agrees with it
(`call_intent` of the call equals the vote's intent, with at least `AGREE` of the weight).
When it does not, and the vote is sure (`SURE` of the weight, a neighbour `NEAR` alike) of
an intent that needs no amount and no book (`Vote.call`: a step of the volume, pause,
resume, stop, next, previous), the agent makes that call
instead of the guess. So it does for a timer, an intro or outro skip and a speed when the
words say that one amount alone (`Vote.amount_call`: "knock fifteen seconds off both ends
of every chapter", "make him talk at one point two five"), and then even when the words
cue the model's tool but its amount is not the one said. Otherwise it still asks. And when the phrase rules read a request
as one change but the vote is sure, from requests very like it, of another intent
(`Vote.doubts`: "ow that's hurting my ears" read as louder), the vote's own call is made
in its place when it needs nothing more (`Vote.call`), and otherwise the reading is asked
about before it is made.

    analogs = Analogs.load()
    vote = analogs.vote(read("哎哟这声音震得我耳朵嗡嗡的", "zh"))
    vote.intent, round(vote.share, 2)     # ("volume:down", 0.8…)
"""

from __future__ import annotations

import math
import re
import zlib
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import Any

from .amounts import rates_said
from .phrases import load
from .reading import Reading
from .text import has_cjk

__all__ = [
    "AGREE",
    "BUCKETS",
    "CHANGES",
    "DOUBT_NEAR",
    "INTENTS",
    "NEAR",
    "SURE",
    "Analogs",
    "Vote",
    "Weights",
    "bucket",
    "call_intent",
    "masked",
]

INTENTS = (
    "play",  # another book, or the one named, from its bookmark or start
    "episode",  # an episode of the book loaded, by number (not the next or the previous)
    "next",
    "previous",
    "replay",  # the episode loaded, from its start
    "resume",
    "pause",
    "stop",
    "seek:fwd",
    "seek:back",
    "volume:up",
    "volume:down",
    "volume:set",
    "speed:up",
    "speed:down",
    "skip:intro",
    "skip:outro",
    "skip:intro+outro",
    "skip:off",
    "sleep:end",  # stop at the end of the episode or chapter playing
    "sleep:minutes",
    "sleep:off",  # no timer: the one set, or the end-of-episode one, cancelled
    "question",  # answered from the player's data; playback unchanged
    "asks",  # the right answer is a question back
    "declines",
)
"""The intents a bank request is labelled with, and a call is read as (`call_intent`)."""

CHANGES = frozenset(INTENTS) - {"question", "asks", "declines"}
"""The intents that change what plays."""

AGREE = 0.6
"""The share of the neighbours' weight an intent needs for the vote to back a guess."""

SURE = 0.8
"""The share an intent needs for the vote to stand on its own (`Vote.call`)."""

NEAR = 0.3
"""The cosine similarity the nearest request needs for the vote to stand on its own."""

DOUBT_NEAR = 0.5
"""The cosine similarity the nearest request needs for the neighbours' vote to doubt a
reading of the phrase rules (`Vote.doubts`): they are right far more often than a model's
guess. A vote the weights make (`Weights`) needs `NEAR` alone: with each blind round left
out of the bank in turn, its sure votes with a nearest request 0.3 to 0.5 alike were wrong
5 times in 330, the neighbours' 11 times in 283."""

_ALIKE = {
    frozenset(pair)
    for pair in (
        ("play", "episode"),
        ("play", "resume"),
        ("next", "episode"),
        ("previous", "episode"),
        ("replay", "episode"),
    )
}
"""Pairs of intents a vote does not hold against each other, two names of one move: a
book's episode named while another book plays is a "play" in the bank and an "episode"
in a call; three episodes on is an "episode" in the bank and three "next" calls."""


_WHEN = {frozenset(pair) for pair in (("stop", "sleep:end"), ("pause", "sleep:end"))}
"""Pairs of intents that differ only in when: a stop now and the stop at the episode's end.
The words that tell them apart ("今天就听到这儿，关了吧", "finish up this episode and then go
quiet") are ones a look at like requests does not weigh, so a vote for one never replaces
a reading of the other (`Vote.replaces`): the box asks."""


def _alike(one: str, other: str) -> bool:
    if one == other or frozenset({one, other}) in _ALIKE:
        return True
    if one.startswith("skip:") and other.startswith("skip:"):  # one end of both said
        ends = [set(i.split(":")[1].split("+")) - {"off"} for i in (one, other)]
        return bool(ends[0] & ends[1])
    return False


_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "volume:up": ("volume_up", {}),
    "volume:down": ("volume_down", {}),
    "pause": ("pause", {}),
    "resume": ("resume", {}),
    "stop": ("stop", {}),
    "next": ("next_episode", {}),
    "previous": ("previous_episode", {}),
    "speed:up": ("set_speed", {"step": 1}),
    "speed:down": ("set_speed", {"step": -1}),
    "sleep:end": ("sleep_timer", {"end_of_episode": True}),
    "sleep:off": ("sleep_timer", {"minutes": 0}),
}
"""The intents whose call needs no amount and no book from the words: one step of the
volume, pause, resume, stop, next, previous, one step of the speed, the stop at the end of
the episode playing and no timer at all. The speed only for words that say no rate
(`_RATE`): "fine, double then" is no number the reading counts, and one step of 0.25 for
it would be a wrong action. The two timer intents were left out at first, for fear that the
vote, blind to a negation's scope, would take "算了不定时了" (never mind the timer) for the
end-of-episode stop it is most like; measured with each blind round of r20-r31 left out of
the bank, a sure vote for either was right in 88 of 88 requests, 42 of them with a
negation."""

_SIMPLE = {tool: intent for intent, (tool, arguments) in _CALLS.items() if not arguments}
"""The intent of each call that takes no arguments (`call_intent`): `_CALLS` read backwards."""

_RATE = re.compile(
    r"\d|\b(?:double|twice|triple|half|times|point|normal|regular|usual|x)\b|倍|点[一二三四五六七八九]|半|正常|原速",
    re.IGNORECASE,
)
"""Words that say a rate or a speed to go back to: a step of the speed is not what they ask."""

_AMOUNT_CALLS = frozenset(
    {"speed:up", "speed:down", "sleep:minutes", "skip:intro", "skip:outro", "skip:intro+outro"}
)
"""The intents `Vote.call` makes with the one amount the words say: a rate, or a duration
(`Vote.duration`). Not a seek ("跳到五分钟那儿" is a place, "five minutes on" a move, and a
vote does not tell them apart), nor a volume or an episode, which a number alone says."""

NEIGHBOURS = 5
"""How many of the most similar bank requests vote."""

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_WORD = re.compile(r"[a-z#§']+")
_CJK_RUN = re.compile(r"[\u3400-\u9fff§#]+")


def masked(reading: Reading) -> str:
    """The folded utterance with each library title named as ``§`` and each number as
    ``#``: "播放西游记第3集" -> "播放§第#集"."""
    text = reading.folded
    for named in sorted(reading.titles, key=lambda n: -n.start):
        text = text[: named.start] + "§" + text[named.end :]
    return _NUMBER.sub("#", text)


def features(text: str) -> Counter[str]:
    """The features of masked `text`: for each run of Chinese characters its character
    1-, 2- and 3-grams; for the rest its words and pairs of neighbouring words."""
    found: Counter[str] = Counter()
    if has_cjk(text):
        for run in _CJK_RUN.findall(text):
            for n in (1, 2, 3):
                found.update(run[i : i + n] for i in range(len(run) - n + 1))
    words = _WORD.findall(text)
    found.update(words)
    found.update(f"{a} {b}" for a, b in pairwise(words))
    return found


@dataclass(frozen=True)
class Vote:
    """The intent of the requests most like an utterance: `intent` ("" with no neighbour),
    its `share` of the similarity weight (0..1), the best `similarity` (cosine, 0..1), the
    `neighbours` as (similarity, intent, masked text), most similar first, whether the
    words `corrected` themselves ("no wait", "哦不对": the phrase data's corrections) and
    whether they say `amounts` (a number, a duration or a percent) and whether they say
    a `rate` or a speed to go back to ("double", "1.5倍", "normal": `_RATE`); the one
    `duration` said (seconds), when the words say no other number and no time of day, and
    the one playback `speed` said (`words.amounts.rates_said`), when they say no duration;
    `weighed` when the bank's weights (`Weights`) named the intent and its share."""

    intent: str = ""
    share: float = 0.0
    similarity: float = 0.0
    neighbours: tuple[tuple[float, str, str], ...] = ()
    corrected: bool = False
    amounts: bool = False
    rate: bool = False
    duration: int | None = None
    speed: float | None = None
    weighed: bool = False

    def call(self, now: Mapping[str, Any] | None = None) -> tuple[str, dict[str, Any]] | None:
        """The call the vote makes on its own, (tool, arguments), or None, with at least
        `SURE` of the weight and a nearest request at least `NEAR` alike, for words that do
        not correct themselves:

        - an intent that needs no amount and no book (`_CALLS`: a step, pause, resume, stop,
          next, previous, the end-of-episode stop or no timer), for words that say no amount
          (`amounts`; for a step of the speed, no `rate`);
        - with `now`, the book loaded (``speed``: its rate, ``skipping``: whether it skips
          any of its intro or outro), an intent whose amount the words say alone
          (`_AMOUNT_CALLS`): a timer of the one `duration` said, the intro or outro skip (or
          both) of it when the book skips nothing yet (with a skip set, "take fifteen off
          the end" may be a change of it), the one `speed` said when it goes the way the
          vote says from the book's rate. Two judges that share nothing, the requests like
          it and the amount said, make the call together."""
        if self.share < SURE or self.similarity < NEAR or self.corrected:
            return None
        if self.intent in _CALLS and not self.amounts:
            if not (self.intent.startswith("speed:") and self.rate):
                tool, arguments = _CALLS[self.intent]
                return tool, dict(arguments)
        return self.amount_call(now)

    def amount_call(self, now: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]] | None:
        """The call of `call` that carries the amount the words say (`_AMOUNT_CALLS`), or
        None: a sure vote's timer, skip or speed."""
        if self.share < SURE or self.similarity < NEAR or self.corrected:
            return None
        if now is None or self.intent not in _AMOUNT_CALLS:
            return None
        if self.intent.startswith("speed:"):
            rate, speed = float(now.get("speed") or 1.0), self.speed
            if speed is None or speed == rate or (speed > rate) != (self.intent == "speed:up"):
                return None
            return "set_speed", {"rate": speed}
        if self.duration is None:
            return None
        if self.intent == "sleep:minutes":
            minutes = self.duration / 60
            return "sleep_timer", {"minutes": int(minutes) if minutes.is_integer() else minutes}
        if now.get("skipping", True):
            return None
        ends = self.intent.removeprefix("skip:").split("+")
        return "set_skip", dict.fromkeys(ends, self.duration)

    def doubts(self, intents: Iterable[str | None]) -> bool:
        """True when the vote is sure (`SURE` of the weight, a neighbour `DOUBT_NEAR` alike,
        or `NEAR` for a vote the weights make) of an intent other than the one of `intents`
        (the calls of one reading, all of one intent): then the agent makes `call` in its
        place, or with none asks about the reading before it is made. Calls of several
        intents, or of one `call_intent` cannot name, are never doubted; nor is a reading of words that correct themselves
        (`corrected`: the vote does not see which came last), nor by a vote for a refusal
        (what the box could do for those requests, not what their words asked). A vote
        for a question back doubts a reading of words that say no amount: "skip the
        boring bit" read as the next episode is what requests like it were asked about
        (with each blind round of r20-r34 left out of the bank, a sure vote for a
        question back against a reading's change stood before 3 wrong actions and 1 right
        reading). Words that say an amount may say what the like requests were asked
        ("skip the boring music at the start, like twenty seconds": how many seconds)."""
        found = set(intents)
        if len(found) != 1 or None in found or self.corrected:
            return False
        (intent,) = found
        if self.share < SURE or self.similarity < (NEAR if self.weighed else DOUBT_NEAR):
            return False
        if self.intent == "asks" and self.amounts:
            return False
        return self.intent in (*CHANGES, "question", "asks") and not _alike(self.intent, intent)

    def replaces(self, intents: Iterable[str | None]) -> tuple[str, dict[str, Any]] | None:
        """The call the agent makes in place of a reading of `intents` the vote `doubts`:
        its own `call`, when it has one and the two do not differ only in when (`_WHEN`:
        a stop now, or at the episode's end); else None (the reading is asked about)."""
        found = set(intents)
        if not self.doubts(found):
            return None
        if any(frozenset({self.intent, intent}) in _WHEN for intent in found):
            return None
        return self.call()

    def backs(self, intent: str | None) -> bool:
        """True when the vote agrees with `intent`: the same intent, one that changes what
        plays, with at least `AGREE` of the weight."""
        return (
            bool(intent) and intent == self.intent and intent in CHANGES and (self.share >= AGREE)
        )


class Analogs:
    """A bank of labelled requests and its index; `vote` finds an utterance's neighbours.

    `entries` are (intent, masked text) pairs; raises ValueError for an intent not in
    `INTENTS`. With `weights` (`Weights`, trained on these entries), a vote's intent and
    share are theirs, and stand only where the nearest requests vote for the same intent."""

    def __init__(self, entries: Iterable[tuple[str, str]], weights: Weights | None = None) -> None:
        self.weights = weights
        self.entries: list[tuple[str, str]] = []
        for intent, text in entries:
            if intent not in INTENTS:
                raise ValueError(f"unknown intent {intent!r} for {text!r}")
            self.entries.append((intent, text))
        counted = [features(text) for _, text in self.entries]
        self._bare = [_bare(text) for _, text in self.entries]
        documents: Counter[str] = Counter()
        for found in counted:
            documents.update(found.keys())
        total = len(counted)
        self._idf = {f: math.log((1 + total) / (1 + n)) + 1.0 for f, n in documents.items()}
        self._postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for index, found in enumerate(counted):
            for feature, weight in self._weights(found).items():
                self._postings[feature].append((index, weight))

    @classmethod
    @cache
    def load(cls) -> Analogs:
        """The bank shipped with the package (``words/analogs/bank.tsv``: one request a line,
        intent TAB masked text) and its weights (``weights.tsv``, `Weights`), read once."""
        folder = resources.files("words").joinpath("analogs")
        text = folder.joinpath("bank.tsv").read_text("utf-8")
        weights = Weights.parse(folder.joinpath("weights.tsv").read_text("utf-8"))
        return cls(parse_bank(text), weights)

    def _weights(self, found: Mapping[str, int]) -> dict[str, float]:
        weights = {
            f: (1.0 + math.log(n)) * self._idf.get(f, 0.0) for f, n in found.items() if n > 0
        }
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {f: w / norm for f, w in weights.items() if w}

    def nearest(self, text: str, count: int = NEIGHBOURS) -> list[tuple[float, int]]:
        """The `count` bank entries most like masked `text`, as (cosine similarity, index)
        pairs, most similar first; an entry with the same letters and digits is left out (a
        request is never its own analog, however it was spelt or spaced)."""
        scores: dict[int, float] = defaultdict(float)
        for feature, weight in self._weights(features(text)).items():
            for index, other in self._postings.get(feature, ()):
                scores[index] += weight * other
        same = _bare(text)
        ranked = sorted(
            ((score, index) for index, score in scores.items() if self._bare[index] != same),
            key=lambda pair: (-pair[0], pair[1]),
        )
        return ranked[:count]

    def vote(self, reading: Reading | str, count: int = NEIGHBOURS) -> Vote:
        """The intent the `count` requests most like `reading` (a `Reading`, or masked text)
        asked for, weighed by similarity; with `weights`, the intent they give the words
        and its probability as the share, or a share of 0 when the nearest requests vote
        for another intent (two judges of one bank that disagree)."""
        text = masked(reading) if isinstance(reading, Reading) else reading
        near = self.nearest(text, count)
        if not near:
            return Vote()
        corrected = isinstance(reading, Reading) and any(
            word in reading.folded for word in load(reading.language).words("corrections")
        )
        weight: Counter[str] = Counter()
        for score, index in near:
            weight[self.entries[index][0]] += score
        intent, best = weight.most_common(1)[0]
        total = sum(weight.values()) or 1.0
        share = best / total
        if self.weights is not None:
            probabilities = self.weights.probabilities(text)
            weighed = max(probabilities, key=lambda i: (probabilities[i], i == intent))
            share = probabilities[weighed] if _alike(weighed, intent) else 0.0
            intent = weighed
        neighbours = tuple((round(s, 3), *self.entries[i]) for s, i in near)
        amounts = isinstance(reading, Reading) and bool(
            reading.numbers or reading.durations or reading.percents
        )
        rate = isinstance(reading, Reading) and bool(_RATE.search(reading.text))
        duration = speed = None
        if isinstance(reading, Reading):
            if len(reading.durations) == 1 and not (reading.numbers or reading.clock):
                duration = reading.durations[0]
            speeds = set(rates_said(reading.text))
            if len(speeds) == 1 and not reading.durations:
                (speed,) = speeds
        return Vote(
            intent,
            share,
            near[0][0],
            neighbours,
            corrected,
            amounts,
            rate,
            duration,
            speed,
            weighed=self.weights is not None,
        )


BUCKETS = 1 << 20
"""The number of buckets features are hashed to in the weights file (`bucket`)."""


def bucket(feature: str) -> int:
    """The bucket of `feature` in the weights file: its CRC-32 (UTF-8) modulo `BUCKETS`.
    Hashed, the file holds numbers alone, never the words of a request."""
    return zlib.crc32(feature.encode("utf-8")) % BUCKETS


class Weights:
    """A linear classifier of intents over the bank's features: multinomial logistic
    regression over their TF-IDF (sublinear term frequency, smoothed idf, L2-normalised, as
    scikit-learn's ``TfidfTransformer`` computes it), trained by ``bench/analogs.py`` on
    the bank and shipped as ``words/analogs/weights.tsv``. Where the five nearest requests
    weigh a handful of neighbours, it weighs every request of the bank, and on fresh
    requests it names the intent more often: with each blind round left out of the bank in
    turn (31 rounds, 3,129 requests), 91% against the neighbours' 86%.

    `intents` name the classes; `bias` holds one intercept per intent; `idf` maps a
    feature's bucket to its idf; `coefficients` a bucket to (class index, weight) pairs,
    kept as one float32 row a bucket."""

    def __init__(
        self,
        intents: Iterable[str],
        bias: Iterable[float],
        idf: Mapping[int, float],
        coefficients: Mapping[int, Iterable[tuple[int, float]]],
    ) -> None:
        self.intents = tuple(intents)
        self.bias = tuple(bias)
        unknown = set(self.intents) - set(INTENTS)
        if unknown or len(self.bias) != len(self.intents):
            raise ValueError(f"weights: unknown intents {sorted(unknown)} or a bias per intent")
        self.idf = dict(idf)
        # one row of float32 weights a bucket, every intent's: compact on a small board
        self._rows = {b: row for row, b in enumerate(coefficients)}
        width = len(self.intents)
        self._matrix = array("f", bytes(4 * width * len(self._rows)))
        for b, pairs in coefficients.items():
            base = self._rows[b] * width
            for k, weight in pairs:
                self._matrix[base + k] = weight

    @classmethod
    def parse(cls, text: str) -> Weights:
        """The weights of a weights file's `text`: ``intents`` TAB the intents, ``bias`` TAB
        one intercept each, then a line a feature bucket: bucket TAB idf TAB its nonzero
        weights as ``class:weight`` pairs; raises ValueError for a malformed line."""
        intents: list[str] = []
        bias: list[float] = []
        idf: dict[int, float] = {}
        coefficients: dict[int, list[tuple[int, float]]] = {}
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            try:
                if fields[0] == "intents":
                    intents = fields[1:]
                elif fields[0] == "bias":
                    bias = [float(x) for x in fields[1:]]
                else:
                    key = int(fields[0])
                    idf[key] = float(fields[1])
                    pairs = (
                        [pair.split(":") for pair in fields[2].split()] if len(fields) > 2 else []
                    )
                    coefficients[key] = [(int(k), float(w)) for k, w in pairs]
            except (IndexError, ValueError) as error:
                raise ValueError(f"weights line {number}: {error}") from None
        return cls(intents, bias, idf, coefficients)

    def probabilities(self, text: str) -> dict[str, float]:
        """Each intent's probability (0..1, summing to 1) for masked `text`; with no feature
        the weights know, the intercepts alone."""
        found: dict[int, int] = defaultdict(int)
        for feature, count in features(text).items():
            found[bucket(feature)] += count
        values = {
            b: (1.0 + math.log(n)) * self.idf[b] for b, n in found.items() if b in self.idf and n
        }
        norm = math.sqrt(sum(v * v for v in values.values())) or 1.0
        scores = list(self.bias)
        width = len(scores)
        for b, value in values.items():
            row = self._rows.get(b)
            if row is None:
                continue
            scale = value / norm
            for k, weight in enumerate(self._matrix[row * width : (row + 1) * width]):
                scores[k] += weight * scale
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return {intent: e / total for intent, e in zip(self.intents, exps, strict=True)}


def _bare(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum())


def parse_bank(text: str) -> list[tuple[str, str]]:
    """The (intent, masked text) pairs of a bank file's `text`; raises ValueError for a
    line without a TAB."""
    pairs = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        intent, tab, masked_text = line.partition("\t")
        if not tab:
            raise ValueError(f"bank line {number}: no TAB between intent and text")
        pairs.append((intent.strip(), masked_text.strip()))
    return pairs


def call_intent(
    tool: str, arguments: Mapping[str, Any], now: Mapping[str, Any] | None = None
) -> str | None:
    """The intent of the call `tool(arguments)` given `now`, the book loaded (the player's
    ``now``: ``title``, ``episode``, ``state``), or None when the call alone does not say
    it (a volume or a rate set to a number: which way it goes depends on the setting)."""
    a = dict(arguments or {})
    now = now or {}
    if tool in _SIMPLE:
        return _SIMPLE[tool]
    if tool == "set_speed":
        step = a.get("step") or 0
        return ("speed:up" if step > 0 else "speed:down") if step else None
    if tool == "set_skip":
        on = [end for end in ("intro", "outro") if a.get(end)]
        said = [end for end in ("intro", "outro") if a.get(end) is not None]
        if on:
            return "skip:" + "+".join(on)
        return "skip:off" if said else None
    if tool == "sleep_timer":
        if a.get("end_of_episode"):
            return "sleep:end"
        minutes = a.get("minutes")
        return None if minutes is None else ("sleep:minutes" if minutes else "sleep:off")
    if tool == "seek":
        seconds = a.get("seconds")
        if seconds is None or not a.get("relative"):
            return None
        return "seek:back" if float(seconds) < 0 else "seek:fwd"
    if tool in ("play_book", "search_and_play"):
        keyword = str(a.get("keyword") or "").strip()
        loaded = str(now.get("title") or "")
        if keyword and keyword != loaded:
            return "play"
        section, episode = a.get("section"), now.get("episode")
        if not section or not episode or section == -1:
            return "resume" if not keyword and now.get("state") == "paused" else "play"
        if section == episode:
            return "replay"
        return {episode + 1: "next", episode - 1: "previous"}.get(section, "episode")
    return None
