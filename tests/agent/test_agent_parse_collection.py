"""The parser over a collection of varied replies; reports the share it reads correctly."""

from __future__ import annotations

from typing import Any

from parse_fixtures import SCHEMAS, TOOLS
from reply_collection import ACT, ANS, REPLIES

from agent.parse import Action, FinalAnswer, FormatError, parse


def _outcome(reply: str, expected: tuple[Any, ...]) -> str | None:
    """None when `reply` is read as `expected`, else what went wrong."""
    try:
        result = parse(reply, tools=TOOLS, schemas=SCHEMAS)
    except FormatError as exc:
        if expected[0] not in (ACT, ANS) and expected[1] in exc.reason:
            return None
        return f"error: {exc.reason}"
    if expected[0] == ACT and isinstance(result, Action):
        if (result.tool, result.arguments) == (expected[1], expected[2]):
            return None
    if expected[0] == ANS and isinstance(result, FinalAnswer) and result.answer == expected[1]:
        return None
    return f"read as {result!r}"


def test_collection_is_large_and_varied() -> None:
    assert len(REPLIES) >= 90
    assert len({reply for reply, _ in REPLIES}) == len(REPLIES)
    kinds = {expected[0] for _, expected in REPLIES}
    assert kinds == {"act", "ans", "err"}


def test_share_of_the_collection_read() -> None:
    misses = []
    for reply, expected in REPLIES:
        problem = _outcome(reply, expected)
        if problem is not None:
            misses.append(f"{reply!r}\n    expected {expected}\n    {problem}")
    read = len(REPLIES) - len(misses)
    print(f"\nparser read {read}/{len(REPLIES)} replies ({100.0 * read / len(REPLIES):.1f}%)")
    assert not misses, "\n".join(misses)
