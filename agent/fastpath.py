"""Fast path: a request the words layer understood whole becomes tool calls, with no model.

`words.read` gives the calls an utterance means when its words say them plainly ("暂停一下，
我五分钟后回来" pauses; "再放一遍这一集" plays the episode loaded now from its start;
"how many chapters are left in this one" asks the player). `FastPath.plan` turns them into
calls of this registry: a `words.Ref` argument is filled from the listener's context by
role (the episode beside the ``playback-state``; the title beside ``book-before``), a
call whose tool is not registered or whose arguments do not fit its schema drops the
whole plan (the model then decides), and an utterance that names several books the
context cannot choose between gets a question instead of a guess. They cost
milliseconds rather than a model step and work with no language model loaded.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from words import Reading, Ref

from .grammar import (
    EPISODE,
    EPISODE_COUNT,
    INTRO_SECONDS,
    OUTRO_SECONDS,
    PLAYBACK_STATE,
    SECONDS,
    TITLE,
    role_values,
)

_LOGGER = logging.getLogger(__name__)

__all__ = ["BOOK_BEFORE", "FastMatch", "FastPath", "Plan"]

BOOK_BEFORE = "book-before"
"""The role of the context's mark on the book listened to before the one loaded now."""


@dataclass(frozen=True)
class FastMatch:
    """One fast-path call: `tool` with `arguments`."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """What the fast path does for one utterance: `calls` in order, or, with none, the
    question `ask` puts to the listener: ``("choose", titles)`` when the words name several
    books, ``("which", ())`` when they ask for another book without naming one,
    ``("clarify", (what,))`` when they say what to change but not how much (`Reading.clarify`:
    "skip", "speed", "when") or which end ("skip_end": a change of the skip that names no
    end, of a book that skips both), ``("ack", ())`` when they ask for nothing, or, with `calls`,
    ``("propose", ())`` when the calls are a guess (`Reading.guess`: an amount said that
    they do not carry, "play it"; or the episode before taken as the one just heard): asked
    about, made on a yes."""

    calls: tuple[FastMatch, ...] = ()
    ask: tuple[str, tuple[str, ...]] | None = None


class FastPath:
    """Plans the calls of an understood request; `enabled=False` plans nothing."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled

    def plan(
        self,
        reading: Reading,
        tools: Sequence[Any],
        context: dict[str, Any] | None = None,
        schema: dict[str, Any] | None = None,
        check: Any = None,
    ) -> Plan | None:
        """The plan for `reading` with these `tools` (`Tool` objects), the listener's
        `context` data and its JSON `schema` (roles); `check(name, arguments)` returns an
        error text when arguments do not fit the tool. None: the model's turn."""
        if not self.enabled:
            return None
        if reading.acknowledgement:
            return Plan(ask=("ack", ()))
        names = {t.name for t in tools}
        if reading.choices:
            chosen = _bookmarked(reading.choices, context, schema)
            if chosen is None:
                return Plan(ask=("choose", tuple(reading.choices)))
            asked = [c.tool for c in reading.calls]
            loaded = role_values(context, schema, TITLE, beside=PLAYBACK_STATE)
            if asked == ["get_status"] and chosen in loaded:
                calls = [FastMatch("get_status", {})]  # a question of the part heard now
            elif asked == ["get_status"] and "get_album_detail" in names:
                # "明朝那些事儿听到哪了": where the part listened to was left off
                calls = [FastMatch("get_album_detail", {"album_id": chosen, "keyword": chosen})]
            else:
                calls = [FastMatch("play_book", {"keyword": chosen})]
        elif reading.ask_which and not reading.calls:
            return Plan(ask=("which", ()))
        elif reading.clarify and not reading.calls:
            return Plan(ask=("clarify", (reading.clarify,)))
        else:
            loaded = role_values(context, schema, TITLE, beside=PLAYBACK_STATE)
            asked = [c for c in reading.calls if c.book and c.book not in loaded]
            if (
                len(asked) == 1 == len(reading.calls)
                and (asked[0].tool, asked[0].arguments) == ("get_status", {})
                and "get_album_detail" in names
            ):  # "西游记我上回听到哪儿了": where that book was left off, from its bookmark
                book = asked[0].book
                calls = [FastMatch("get_album_detail", {"album_id": book, "keyword": book})]
            elif asked:
                return None  # "鹿鼎记还剩几集" while another book is loaded: the model's
            else:
                calls = [FastMatch(c.tool, dict(c.arguments)) for c in reading.calls]
        if not calls:
            return None
        if _past_the_ends(calls, context, schema):
            return Plan(ask=("clarify", ("episode",)))  # "go forward five episodes" of 3 left
        out = []
        # the episode before, as the one just heard: maybe it was, maybe the listener
        # jumped here; asked about first ("刚才那集再放一遍" a few seconds in)
        unsure: list[str] = []
        for call in calls:
            if call.tool not in names:
                return None
            open_ends: list[str] = []
            arguments = _resolve(call.arguments, context, schema, unsure, open_ends)
            if arguments is None and open_ends:
                return Plan(ask=("clarify", ("skip_end",)))
            if arguments is None:
                return None
            if check is not None and (error := check(call.tool, arguments)):
                _LOGGER.info("fast path: %s%s does not fit: %s", call.tool, arguments, error)
                return None
            out.append(FastMatch(call.tool, arguments))
        if reading.guess or unsure:
            return Plan(calls=tuple(out), ask=("propose", ()))
        return Plan(calls=tuple(out))


JUST_BEGUN_S = 30.0
"""Seconds into an episode within which "the one just heard" is the episode before it."""


def _resolve(
    arguments: dict[str, Any],
    context: dict[str, Any] | None,
    schema: dict[str, Any] | None,
    unsure: list[str] | None = None,
    open_ends: list[str] | None = None,
) -> dict[str, Any] | None:
    """`arguments` with each `Ref` filled from the context; a `Ref.EPISODE` with nothing
    to fill is left out (the tool's default: the bookmark), a `Ref.OTHER_BOOK` with none
    makes the call impossible (None). `Ref.HEARD` is the episode loaded now, or the one
    before it when the position is under `JUST_BEGUN_S` (its key then added to `unsure`:
    the listener may have jumped here rather than heard the one before end).
    `Ref.SKIPPED`, a key, is the one end the loaded book skips now (values of roles
    ``intro-seconds`` and ``outro-seconds``); with both skipped the call is impossible and
    "skip_end" is added to `open_ends` (the listener is asked which), with neither it is
    impossible. `Ref.HALF` is half the seconds its end skips now (whole seconds), `Ref.DOUBLE`
    twice them; impossible when it skips none."""
    skips: dict[str, float] = {}
    if Ref.SKIPPED in arguments or {Ref.HALF, Ref.DOUBLE} & set(arguments.values()):
        skips = {
            end: next((float(v) for v in role_values(context, schema, role, beside=PLAYBACK_STATE)
                       if isinstance(v, (int, float))), 0.0)
            for end, role in (("intro", INTRO_SECONDS), ("outro", OUTRO_SECONDS))
        }  # fmt: skip
    out = {}
    for key, value in arguments.items():
        if key == Ref.SKIPPED:
            skipping = [end for end, seconds in skips.items() if seconds > 0]
            if len(skipping) != 1:
                if len(skipping) == 2 and open_ends is not None:
                    open_ends.append("skip_end")
                return None
            key = skipping[0]
        if value == Ref.HALF:
            if not skips.get(key):
                return None
            out[key] = round(skips[key] / 2)
        elif value == Ref.DOUBLE:
            if not skips.get(key):
                return None
            out[key] = round(skips[key] * 2)
        elif value == Ref.HEARD:
            now = [v for v in role_values(context, schema, EPISODE, beside=PLAYBACK_STATE)
                   if isinstance(v, int) and v >= 1]  # fmt: skip
            # the loaded episode's seconds: its position and its duration, the smaller
            at = [v for v in role_values(context, schema, SECONDS, beside=PLAYBACK_STATE)
                  if isinstance(v, (int, float))]  # fmt: skip
            if now:
                begun = bool(at) and min(at) < JUST_BEGUN_S
                out[key] = now[0] - 1 if begun and now[0] > 1 else now[0]
                if out[key] != now[0] and unsure is not None:
                    unsure.append(key)
        elif value == Ref.EPISODE:
            now = role_values(context, schema, EPISODE, beside=PLAYBACK_STATE)
            before = role_values(context, schema, EPISODE, beside=BOOK_BEFORE)
            found = [v for v in (*now, *before) if isinstance(v, int) and v >= 1]
            if found:
                out[key] = found[0]
        elif value == Ref.OTHER_BOOK:
            before = role_values(context, schema, TITLE, beside=BOOK_BEFORE)
            if not before:
                return None
            out[key] = before[0]
        else:
            out[key] = value
    return out


def _past_the_ends(
    calls: Sequence[FastMatch], context: dict[str, Any] | None, schema: dict[str, Any] | None
) -> bool:
    """True when several steps to the next (or previous) episode would go past the last (or
    the first) episode of the book loaded (``episode`` and ``episode-count`` beside the
    ``playback-state``): which episode is meant is asked, none is played."""
    ahead = sum(c.tool == "next_episode" for c in calls)
    back = sum(c.tool == "previous_episode" for c in calls)
    if max(ahead, back) < 2:
        return False
    now = [v for v in role_values(context, schema, EPISODE, beside=PLAYBACK_STATE)
           if isinstance(v, int)]  # fmt: skip
    total = [v for v in role_values(context, schema, EPISODE_COUNT, beside=PLAYBACK_STATE)
             if isinstance(v, int)]  # fmt: skip
    if not now or not total:
        return False
    return now[0] + ahead > total[0] or now[0] - back < 1


def _bookmarked(
    choices: Sequence[str], context: dict[str, Any] | None, schema: dict[str, Any] | None
) -> str | None:
    """Of the titles the words may mean, the one loaded now or left off (the context's
    titles), or None when the context names none of them or several."""
    known = set(role_values(context, schema, TITLE))
    found = [t for t in choices if t in known]
    return found[0] if len(found) == 1 else None
