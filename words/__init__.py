"""The words: one language layer that reads what a listener says, for the agent and the player.

Everything here is about language, never about the agent or the player (it imports
neither): folding text (`text`), numbers in Chinese and English (`numbers`), durations,
clock times and percents (`amounts`), titles named in any form the listener uses
(`titles`), the phrases of each tool as data (`phrases`, files under ``words/phrases/``)
and the reading of a whole utterance (`reading`): its clauses, whether it asks or
commands, what it names, and the one tool call it means when the words say it plainly;
what the requests most like it asked for (`analogs`, a bank of labelled requests under
``words/analogs/``), a judge beside the reading and the model; and the other names of
well-known works (`catalog`, ``words/catalog/works.toml``), for the player's matching.

    from words import TitleIndex, read
    index = TitleIndex([("西游记", ("Journey to the West",)), ("三体2", ())])
    reading = read("暂停一下，我五分钟后回来", "zh", index)
    reading.call            # Call(tool="pause", arguments={})
"""

from __future__ import annotations

from .amounts import clock_said, durations_said, percents_said
from .clauses import steps_said
from .numbers import (
    chinese_number,
    number_value,
    numbers_said,
    ordinal_said,
    section_number,
    spoken_to_digits,
)
from .reading import Call, Reading, Ref, amount_reply, read
from .text import clean_transcript, fold, normalize
from .titles import Named, TitleIndex, match_score, title_named

__all__ = [
    "Call",
    "Named",
    "Reading",
    "Ref",
    "TitleIndex",
    "amount_reply",
    "chinese_number",
    "clean_transcript",
    "clock_said",
    "durations_said",
    "fold",
    "match_score",
    "normalize",
    "number_value",
    "numbers_said",
    "ordinal_said",
    "percents_said",
    "read",
    "section_number",
    "spoken_to_digits",
    "steps_said",
    "title_named",
]
