"""Durations, times of day and percents said; titles found in any form a listener uses."""

from __future__ import annotations

import pytest

from words import TitleIndex, clock_said, durations_said, match_score, percents_said


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("快进三十秒", {30}),
        ("半小时后关掉", {1800}),
        ("一个半小时后停", {5400}),
        ("stop in half an hour", {1800}),
        ("三分二十秒", {180, 20, 200}),
        ("跳到5:30", {330}),
        ("播放西游记第3集", set()),
        ("a timer of twenty five minutes", {1500}),  # never 5 minutes
        ("讲小时候的故事", set()),  # a unit without a number
        ("an hour and a half", {5400}),
        ("the music is one minute and half", {90}),  # as a learner says it
    ],
)
def test_durations_said(text: str, seconds: set[int]) -> None:
    assert durations_said(text) == seconds


def test_a_second_is_no_amount_when_counted() -> None:
    assert durations_said("wait a second", counted=True) == set()
    assert durations_said("wait a second") == {1}


@pytest.mark.parametrize(
    ("text", "said"),
    [("明早七点的闹钟", True), ("turn it off at ten pm", True), ("十点半", True),
     ("大声一点", False), ("快进三十秒", False), ("midnight", True)],
)  # fmt: skip
def test_times_of_day(text: str, said: bool) -> None:
    assert clock_said(text) is said


@pytest.mark.parametrize(
    ("text", "percents"),
    [("音量调到七十五", [75]), ("volume seventy five", [75]), ("音量调到零", [0]),
     ("十分钟后把音量调到30", [30]), ("明早七点", []), ("三国演义", [])],
)  # fmt: skip
def test_percents_are_numbers_said_never_times_or_durations(text: str, percents: list) -> None:
    from words import clean_transcript

    assert percents_said(clean_transcript(text)) == percents


INDEX = TitleIndex(
    [
        ("西游记", ("Journey to the West",)),
        ("三体", ()),
        ("三体2", ()),
        ("It", ()),
        ("哈利波特与魔法石", ()),
        ("水浒传", ()),
        ("水浒传少儿版", ()),
        ("The Count of Monte Cristo", ()),
        ("Harry Potter and the Philosopher's Stone", ()),
        ("Harry Potter and the Chamber of Secrets", ()),
        ("我们仨", ()),
        ("Les Misérables", ()),
        ("The Time Machine", ()),
    ]
)


@pytest.mark.parametrize(
    ("text", "titles", "how"),
    [
        ("我想听西遊記", ["西游记"], "title"),
        ("play journey to the west", ["西游记"], "alias"),
        ("三体第二部", ["三体2"], "edition"),
        ("三体第一部", ["三体"], "edition"),
        ("放哈利波特", ["哈利波特与魔法石"], "short"),
        ("play monte cristo please", ["The Count of Monte Cristo"], "short"),
        ("西游季第三集", ["西游记"], "sound"),
        ("播放水浒传少儿版", ["水浒传少儿版"], "title"),
        ("how many chapters are in It", ["It"], "title"),
        ("harry potter and the philosophers stone", ["Harry Potter and the Philosopher's Stone"],
         "title"),
    ],
)  # fmt: skip
def test_titles_named_in_any_form(text: str, titles: list[str], how: str) -> None:
    found = INDEX.find(text)
    assert [n.title for n in found] == titles
    assert found[0].how == how


@pytest.mark.parametrize(
    "text",
    ["turn it off", "It's late", "我们去吃饭吧", "what time is it", "do you have anything by Jules "
     "Verne", "放点别的"],
)  # fmt: skip
def test_no_title_where_none_is_named(text: str) -> None:
    assert INDEX.find(text) == []


def test_a_slot_is_looked_up_short_exact_or_by_sound() -> None:
    assert INDEX.lookup("哈利波特") == ["哈利波特与魔法石"]
    assert set(INDEX.lookup("harry potter")) == {
        "Harry Potter and the Philosopher's Stone",
        "Harry Potter and the Chamber of Secrets",
    }
    assert set(INDEX.lookup("水浒")) == {"水浒传", "水浒传少儿版"}
    assert INDEX.lookup("西游季") == ["西游记"]
    assert INDEX.lookup("鬼灭之刃") == []
    assert INDEX.exact("it") == ["It"] and INDEX.exact("It ") == ["It"]


def test_search_ranks_titles_and_aliases() -> None:
    assert match_score("西游记", "西游记") == 100
    assert match_score("西游", "西游记") == 95
    assert match_score("jorney west", "Journey to the West") > 0
    assert match_score("鬼灭之刃", "西游记") == 0
    # a plural said for the title's singular is the same book, never a near miss
    assert match_score("three bodies problem", "The Three-Body Problem") > 0
    assert match_score("three bodies problem", "Three Men in a Boat") == 0


PEOPLE = TitleIndex(
    [
        ("天龙八部", (), ("金庸", "王刚")),
        ("射雕英雄传", (), ("金庸", "李野墨")),
        ("三毛流浪记", (), ("张乐平",)),
        ("撒哈拉的故事", (), ("三毛",)),
        ("Pride and Prejudice", (), ("Jane Austen", "Juliet Stevenson")),
        ("Emma", (), ("Jane Austen",)),
        ("The Odyssey", (), ("Homer", "Stephen Fry")),
        ("Homer Price", (), ("Robert McCloskey",)),
        ("Dune", ("沙丘",), ("Frank Herbert", "Will")),
        ("西游记", ("Journey to the West",)),  # a pair: no people
    ]
)


@pytest.mark.parametrize(
    ("text", "title", "said"),
    [
        ("我想听王刚讲的那个", "天龙八部", "王刚"),
        ("put on the Stephen Fry one", "The Odyssey", "stephen fry"),
        ("放三毛的书", "撒哈拉的故事", "三毛"),
        ("play something by Homer", "The Odyssey", "homer"),
        ("the one Will reads", "Dune", "will"),  # a word, written as a name
        ("李野墨演播的", "射雕英雄传", "李野墨"),
    ],
)
def test_a_person_of_one_book_names_that_book(text: str, title: str, said: str) -> None:
    [named] = PEOPLE.find(text)
    assert (named.title, named.said, named.how) == (title, said, "person")


@pytest.mark.parametrize(
    ("text", "people", "titles"),
    [
        ("有没有金庸的武侠小说？", ["金庸"], []),
        ("I want to hear something by Jane Austen", ["Jane Austen"], []),
        ("stuff by JANE AUSTEN or Juliet Stevenson", ["Jane Austen", "Juliet Stevenson"],
         ["Pride and Prejudice"]),  # she reads one book
    ],
)  # fmt: skip
def test_a_person_of_several_books_is_no_title_but_is_said(
    text: str, people: list, titles: list
) -> None:
    assert [n.title for n in PEOPLE.find(text)] == titles
    assert PEOPLE.people_in(text) == people


@pytest.mark.parametrize(
    ("text", "titles"),
    [
        ("我想听三毛流浪记", ["三毛流浪记"]),  # 三毛 inside a title said is no person
        ("play homer price", ["Homer Price"]),
        ("play homer", []),  # one word, also a title's: only "Homer"
        ("I will listen to dune", ["Dune"]),  # "will" is a word
        ("jane austen's emma", ["Emma"]),  # the title; the person of two books beside it
    ],
)
def test_a_name_inside_a_title_or_a_plain_word_is_no_person(text: str, titles: list) -> None:
    found = PEOPLE.find(text)
    assert [n.title for n in found] == titles
    assert all(n.how != "person" for n in found)
    if titles:
        assert not set(PEOPLE.people_in(text)) & {"三毛", "Homer", "Will"}


def test_the_speeds_a_transcript_states_are_the_marked_spans() -> None:
    from words.amounts import rates_said

    assert rates_said("make him talk at one point two five") == [1.25]
    assert rates_said("给我整个一点二五倍数") == [1.25]
    assert rates_said("double time please im running late") == [2.0]
    assert rates_said("play at 1.5x") == [1.5]
    assert rates_said("一点五倍 不对 一点二五倍") == [1.5, 1.25]
    assert rates_said("speed it up by two notches") == []  # a bare number is no speed
    assert rates_said("skip two chapters") == []
