"""The phrase data (words/phrases/*.toml): well formed, keyed by real tools, and every cue
read alone asks for its own tool."""

from __future__ import annotations

import pytest

from player.tools import PlayerTools
from words import TitleIndex, read
from words.phrases import LANGUAGES, PhraseError, load, parse

TOOL_NAMES = {f.__name__ for f in PlayerTools.tools(PlayerTools())}
INDEX = TitleIndex([("西游记", ()), ("Dracula", ())])
PLAIN = ("pause", "resume", "stop", "next_episode", "previous_episode", "volume_up",
         "volume_down", "list_albums", "help")  # fmt: skip
"""Tools whose cues call them with no argument."""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_data_loads_and_names_real_tools(language: str) -> None:
    phrases = load(language)
    assert set(phrases.tools) <= TOOL_NAMES, set(phrases.tools) - TOOL_NAMES
    assert {"pause", "play_book", "get_status", "help"} <= set(phrases.tools)
    for name in ("fillers", "question_words", "negations", "polite_requests"):
        assert phrases.words(name), name
    assert phrases.cue_pattern is not None and phrases.patterns


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_cue_is_listed_twice_for_one_tool(language: str) -> None:
    phrases = load(language)
    for word, cues in phrases.cues.items():
        assert len(cues) == len(set(cues)), (word, cues)


@pytest.mark.parametrize(
    ("language", "tool", "word"),
    [
        (language, cue.tool, word)
        for language in LANGUAGES
        for word, cues in load(language).cues.items()
        for cue in cues
        if cue.tool in PLAIN and cue.kind == "cues" and len(cues) == 1
    ],
)
def test_every_plain_cue_read_alone_asks_for_its_tool(language: str, tool: str, word: str) -> None:
    reading = read(word, language, INDEX)
    assert [c.tool for c in reading.calls] == [tool], (word, reading.why)


STEPS = {"faster": {"step": 1}, "slower": {"step": -1}, "normal": {"rate": 1.0}}
"""What each kind of set_speed cue asks for ("ask" asks which way: its own test)."""


@pytest.mark.parametrize(
    ("language", "word"),
    [
        (language, word)
        for language in LANGUAGES
        for word, cues in load(language).cues.items()
        for cue in cues
        if (cue.tool, cue.kind) == ("set_speed", "ask")
    ],
)
def test_every_speed_cue_without_a_way_asks_faster_or_slower(language: str, word: str) -> None:
    reading = read(word, language, INDEX)
    assert (reading.calls, reading.clarify) == ((), "speed"), (word, reading.why)


@pytest.mark.parametrize(
    ("language", "word", "arguments"),
    [
        (language, word, STEPS[cue.kind])
        for language in LANGUAGES
        for word, cues in load(language).cues.items()
        for cue in cues
        if cue.tool == "set_speed" and cue.kind in STEPS
    ],
)
def test_every_speed_cue_read_alone_changes_the_speed(
    language: str, word: str, arguments: dict
) -> None:
    reading = read(word, language, INDEX)
    assert [(c.tool, c.arguments) for c in reading.calls] == [("set_speed", arguments)], (
        word,
        reading.why,
    )


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("[tools.pause]\ncues = 3\n", "list of non-empty strings"),
        ("[tools.seek]\npatterns = ['(unclosed']\n", "tools.seek.patterns"),
        ("[lexicon]\nfillers = ['']\n", "lexicon.fillers"),
        ("[tools.seek]\ndefault_seconds = -1\n", "positive whole number"),
        ("lexicon = 1\n", "[lexicon] must be a table"),
        ("[lexicon]\n", "no [tools.<name>] tables"),
        ("[tools\n", "x.toml"),
    ],
)
def test_a_malformed_file_is_named_with_its_key(text: str, error: str) -> None:
    with pytest.raises(PhraseError, match=error.replace("[", r"\[").replace(".", r"\.")):
        parse("zh", text, "x.toml")
