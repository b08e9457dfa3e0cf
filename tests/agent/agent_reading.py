"""The words layer's reading of an utterance, as the agent's loop takes it, for unit tests
of the grammar's constraints (`Constraints.quote` and `mention` take a `words.Reading`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from words import Reading, TitleIndex, read

_CJK = re.compile(r"[\u3400-\u9fff]")


def index_of(titles: Iterable[str]) -> TitleIndex:
    """A library index of `titles`, without aliases (as the agent builds it from a catalog)."""
    return TitleIndex([(title, ()) for title in titles])


def said(
    utterance: str, titles: Iterable[str] | None = None, *, language: str | None = None
) -> Reading:
    """The reading of `utterance` with the library `titles` (None: no library), on a box
    speaking `language` (by default Chinese when the utterance has Chinese characters)."""
    if language is None:
        language = "zh" if _CJK.search(utterance) else "en"
    return read(utterance, language, None if titles is None else index_of(titles))
