"""The catalog's names of a library's books as the words layer finds them: a series volume
by its series and part said alone (`words.catalog.library_names`), never a name another
book of the library answers to, and a book asked for in the other language's edition."""

from __future__ import annotations

import pytest

from words import TitleIndex, read
from words.catalog import library_names

BOOKS = [
    ("Alice in Wonderland", ()),
    ("爱丽丝梦游仙境", ()),
    ("Harry Potter and the Philosopher's Stone", ()),
    ("Harry Potter and the Chamber of Secrets", ()),
    ("三体", ()),
    ("三体2", ()),
    ("The Martian", ()),
    ("西游记", ()),
]


def index(books=BOOKS) -> TitleIndex:
    more = library_names(books)
    return TitleIndex(
        (title, aliases, (), names) for (title, aliases), names in zip(books, more, strict=True)
    )


def calls(utterance: str, books=BOOKS) -> list[tuple[str, dict]]:
    lang = "en" if utterance.isascii() else "zh"
    return [(c.tool, c.arguments) for c in read(utterance, lang, index(books)).calls]


def test_a_name_another_book_answers_to_is_not_a_part_name() -> None:
    books = [
        ("Harry Potter and the Chamber of Secrets", ()),
        ("哈利波特与密室", ()),
        ("A Wizard's Tale", ("Harry Potter 2",)),  # another book answers to that name
    ]
    english, chinese, _ = library_names(books)
    assert "Harry Potter two" in english and "哈利波特第二部" not in english
    assert "哈利波特第二部" in chinese and not any(n.isascii() for n in chinese)
    assert "Harry Potter 2" not in english  # another book's alias
    alone = library_names([("Harry Potter and the Chamber of Secrets", ())])[0]
    assert "哈利波特第二部" in alone  # with no Chinese edition, its Chinese part name finds it
    assert library_names([("Alice in Wonderland", ())]) == [()]  # no series, no part


@pytest.mark.parametrize(
    ("utterance", "keyword"),
    [
        ("Harry Potter two", "Harry Potter and the Chamber of Secrets"),
        ("the second Harry Potter", "Harry Potter and the Chamber of Secrets"),
        ("哈利波特第二部", "Harry Potter and the Chamber of Secrets"),
        ("Can I get the second book of the Three-Body trilogy?", "三体2"),
        (
            "Play the second Harry Potter... no wait, the first one.",
            "Harry Potter and the Philosopher's Stone",
        ),
        ("放爱丽丝梦游仙境", "爱丽丝梦游仙境"),
        ("play alice in wonderland", "Alice in Wonderland"),
        ("Play the Chinese version of Alice in Wonderland.", "爱丽丝梦游仙境"),
        ("播放英文版的爱丽丝梦游仙境", "Alice in Wonderland"),
    ],
)
def test_a_book_is_found_by_its_catalog_names(utterance: str, keyword: str) -> None:
    assert calls(utterance) == [("play_book", {"keyword": keyword})]


def test_an_edition_the_library_lacks_is_asked_about_first() -> None:
    reading = read("play the chinese version of the martian", "en", index())
    assert [(c.tool, c.arguments) for c in reading.calls] == [
        ("play_book", {"keyword": "The Martian"})
    ]
    assert reading.guess  # "Do you want me to play The Martian?", never played on the words
    assert not read("play the martian", "en", index()).guess


@pytest.mark.parametrize(
    ("utterance", "keyword"),
    [
        ("the Chinese version of Alice in Wonderland", "爱丽丝梦游仙境"),  # no verb
        ("英文版的爱丽丝梦游仙境", "Alice in Wonderland"),
    ],
)
def test_an_edition_said_with_no_verb_plays_it(utterance: str, keyword: str) -> None:
    reading = read(utterance, "en" if utterance.isascii() else "zh", index())
    assert [(c.tool, c.arguments) for c in reading.calls] == [("play_book", {"keyword": keyword})]
    assert not reading.guess
