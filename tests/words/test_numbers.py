"""Spoken numbers in transcripts become digits next to episode counters, nothing else."""

from __future__ import annotations

import pytest

from words import spoken_to_digits as normalize


@pytest.mark.parametrize(
    ("heard", "expected"),
    [
        ("播放 西游记 第 二 集", "播放 西游记 第2集"),
        ("第十二回", "第12回"),
        ("第一百零五集", "第105集"),
        ("定时 二十 分钟", "定时 20分钟"),
        ("play episode two", "play episode 2"),
        ("chapter twenty one please", "chapter 21 please"),
        ("sleep in thirty minutes", "sleep in 30 minutes"),
        ("음악 이 번 재생", "음악 2번 재생"),
        ("음악 십이 화 틀어 줘", "음악 12화 틀어 줘"),
        ("我要听三国演义第一百二十集", "我要听三国演义第120集"),
        ("play chapter for of treasure island", "play chapter 4 of treasure island"),
        ("episode to please", "episode 2 please"),
    ],
)
def test_numbers_next_to_counters_become_digits(heard: str, expected: str) -> None:
    assert normalize(heard) == expected


@pytest.mark.parametrize(
    "heard",
    [
        "现在在播什么",
        "一个故事",
        "the second one",
        "이야기 좀",
        "play two books",
        "",
        "明朝那些事儿第二部",
        "go to chapter",
        "looking for a book",
    ],
)
def test_other_words_are_left_alone(heard: str) -> None:
    assert normalize(heard) == heard


@pytest.mark.parametrize(
    ("heard", "expected"),
    [
        ("play nineteen eighty four", "play 1984"),
        ("Play Nineteen Eighty-Four by George Orwell", "Play 1984 by George Orwell"),
        ("twenty twenty", "2020"),
        ("the best of twenty twenty one", "the best of 2021"),
        ("twenty ten", "2010"),
        ("nineteen oh five", "1905"),
        ("twenty oh five", "2005"),
        ("seventeen seventy six", "1776"),
        ("nineteen nineteen", "1919"),
        ("twenty one twelve", "2112"),
        ("eighteen hundred", "1800"),
        ("london in the eighteen hundreds", "london in the 1800s"),
        ("nineteen hundred and eighty four", "1984"),
        ("music of the nineteen eighties", "music of the 1980s"),
        ("two thousand and one a space odyssey", "2001 a space odyssey"),
        ("two thousand twenty", "2020"),
        ("twelve hundred", "1200"),
    ],
)
def test_english_years_become_four_digits(heard: str, expected: str) -> None:
    assert normalize(heard) == expected
    assert normalize(expected) == expected  # digits are never read again


@pytest.mark.parametrize(
    ("heard", "expected"),
    [
        ("chapter twenty one", "chapter 21"),  # an episode counter's number, not 2021
        ("episode nineteen", "episode 19"),
        ("chapter nineteen eighty four", "chapter 19 eighty four"),
        ("play episode twenty twenty", "play episode 20 twenty"),
        ("chapter ninety nine", "chapter 99"),  # sixty..ninety are number words too
        ("twenty minutes", "20 minutes"),
        ("sleep in forty-five minutes", "sleep in 45 minutes"),
        ("stop in seventy five minutes", "stop in 75 minutes"),
        ("nineteen twenty minutes", "nineteen 20 minutes"),
    ],
)
def test_counters_and_durations_are_not_years(heard: str, expected: str) -> None:
    assert normalize(heard) == expected


@pytest.mark.parametrize(
    "heard",
    [
        "twenty one pilots",  # a lone number
        "eleven thirty",  # a clock time
        "twelve fifteen",
        "nineteen",
        "two thousand five hundred",  # a count, not the year 2005
        "nineteen eighty four thousand",
        "twenty two thousand and five",
        "one nineteen eighty four",
        "nineteen eighty four one more time",
        "the eighty four",
        "oh five",
    ],
)
def test_numbers_that_are_not_years_are_left_alone(heard: str) -> None:
    assert normalize(heard) == heard


def test_years_through_the_transcript_clean_up() -> None:
    from words import clean_transcript

    assert clean_transcript("  play   nineteen  eighty four ") == "play 1984"
    assert clean_transcript("play chapter twenty one of twenty twenty") == "play chapter 21 of 2020"
    assert clean_transcript("播 放 西 游 记 第 二 集") == "播放西游记第2集"


def test_a_year_title_is_found_by_the_title_matchers() -> None:
    """The real matchers find the album "1984" once the transcript has its digits (before
    the year reading they could not: "nineteen eighty four" names no title)."""
    from agent.grammar import Constraints
    from words import TitleIndex, clean_transcript, read, title_named

    library = ["1984", "Animal Farm", "Nineteen Stories", "2001: A Space Odyssey", "Emma"]
    heard = "play nineteen eighty four"
    assert not title_named("1984", heard)
    utterance = clean_transcript(heard)
    assert [t for t in library if title_named(t, utterance)] == ["1984"]
    reading = read(heard, "en", TitleIndex((t, ()) for t in library))
    assert reading.named == ["1984"]
    constraints = Constraints()
    constraints.quote(reading)
    assert constraints.mention(reading) == ["1984"]
    assert constraints.choices["title"] == ["1984"] and "title" in constraints.required
    assert constraints.choices["episode"] == []  # the title's digits are not an episode
    odyssey = clean_transcript("put on two thousand and one a space odyssey")
    assert [t for t in library if title_named(t, odyssey)] == ["2001: A Space Odyssey"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("五", 5), ("十五", 15), ("五十", 50), ("一百二十", 120), ("一百零五", 105),
        ("二〇二", 202), ("壹佰", 100), ("两", 2), ("一万", 10000), ("42", 42), ("１２", 12),
        ("", None), ("五个", None), ("abc", None),
    ],
)  # fmt: skip
def test_chinese_numerals_one_reader(text: str, value: int | None) -> None:
    from words import chinese_number

    assert chinese_number(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("twenty five", 25), ("twenty-first", 21), ("a hundred and five", 105),
        ("two thousand", 2000), ("third", 3), ("ninety nine", 99), ("zero", 0),
        ("twenty twenty", None), ("hundred", None), ("apple", None),
    ],
)  # fmt: skip
def test_english_number_words_one_reader(text: str, value: int | None) -> None:
    from words.numbers import english_number

    assert english_number(text) == value


def test_numbers_said_with_where_they_stand() -> None:
    from words import numbers_said

    said = numbers_said("play chapter twenty five, then 3 more, 第十二集")
    assert [s.value for s in said] == [25, 3, 12]
    assert [s.value for s in numbers_said("一下两本书", lone_one=False)] == []
    assert [s.value for s in numbers_said("twenty twenty")] == [20, 20]


@pytest.mark.parametrize(
    ("name", "section"),
    [("第十二集", 12), ("第12回 标题", 12), ("Chapter 03", 3), ("007", 7), ("2024 第5期", 5),
     ("卷一", None)],
)  # fmt: skip
def test_the_section_of_a_file_name(name: str, section: int | None) -> None:
    from words import section_number

    assert section_number(name) == section
