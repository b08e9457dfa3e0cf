"""The title matcher: titles inside requests, whole words, Chinese around Latin."""

from __future__ import annotations


def test_title_inside_a_spoken_request_matches_below_other_matches() -> None:
    from words.titles import CONTAINED, match_score

    assert match_score("西游记第二集", "西游记") == CONTAINED
    assert match_score("음악 2화 재생", "음악") == CONTAINED
    assert match_score("play moby dick chapter 3", "Moby Dick") >= CONTAINED
    assert match_score("西游记", "西游记") > CONTAINED
    assert match_score("我想听故事", "听") == 0  # one character is not a title match


def test_words_that_are_no_title_match_no_title() -> None:
    """A stop word matches nearly every title and a Latin title only counts as whole words:
    "a taxi" is not Great Expectations, "two plus two" is not Us."""
    from words.titles import match_score

    assert match_score("a taxi", "Great Expectations") == 0
    assert match_score("two plus two", "Us") == 0
    assert match_score("play us", "Us") > 0
    assert match_score("play moby dick chapter 3", "Moby Dick") > 0
    assert match_score("holmes sherlock", "Sherlock Holmes") > 0
    assert match_score("西游记第二集", "西游记") > 0


def test_a_latin_title_is_named_inside_chinese_text() -> None:
    """Chinese characters around a Latin title are a word boundary; Latin letters are not.
    The agent's grammar finds the same titles as the player's matcher."""
    from agent.grammar import Constraints
    from words import TitleIndex, read
    from words.titles import title_named

    for title, text, named in [
        ("Dune", "我想听Dune", True),
        ("Dune", "播放Dune第2集", True),
        ("It", "放It吧", True),  # written with a capital: the title
        ("Dune", "dunes", False),
        ("It", "italy", False),
        ("Us", "pause", False),
        ("Émile", "我要听émile", True),
        ("Emma", "放Emma吧", True),
        ("Emma", "emmanuel", False),
    ]:
        assert title_named(title, text) is named, (title, text)
        # The grammar finds the same.
        reading = read(text, "zh", TitleIndex([(title, ())]))
        assert bool(Constraints().mention(reading)) is named, (title, text)


def test_a_typo_is_one_within_a_word_not_across_two() -> None:
    """ "do you have emma": one edit from "thEMArtian" across "the" and "martian", which
    names neither; a new user's trial heard "Found 1 album: The Martian"."""
    from words.titles import match_score

    assert match_score("emma", "The Martian") == 0
    assert match_score("dracla", "Dracula") > 0 and match_score("harry poter", "Harry Potter") > 0
    assert match_score("the martain", "The Martian") > 0


def test_a_short_chinese_title_one_character_off_is_a_slip_only_when_it_sounds_the_same() -> None:
    from words.titles import match_score

    assert match_score("西游纪", "西游记") > 0  # 纪 and 记 sound the same
    assert match_score("段三国", "三国演义") > 0  # one character more
    assert match_score("小兔子", "小王子") == 0  # another word: 兔 is no slip of 王
    assert match_score("骆驼翔子", "骆驼祥子") > 0  # four characters keep one typo
