"""Section numbers, Chinese numerals, forgiving matching and JSON field paths."""

from __future__ import annotations

import pytest

from player.models import Album
from player.sources.base import rank
from player.sources.jsonapi import field_path
from player.texts import clock
from words.numbers import chinese_number as chinese_to_int
from words.numbers import parse_section, section_number
from words.text import normalize
from words.titles import match_score


@pytest.mark.parametrize(
    ("text", "value"),
    [("十二", 12), ("十", 10), ("二十", 20), ("一百零五", 105), ("两百", 200),
     ("二〇二", 202), ("三千零一十", 3010), ("一万零一", 10001), ("壹拾贰", 12), ("abc", None)],
)  # fmt: skip
def test_chinese_numerals(text, value):
    assert chinese_to_int(text) == value


@pytest.mark.parametrize(
    ("name", "number"),
    [("第十二集", 12), ("第12回", 12), ("西游记 第１２集 三打白骨精", 12), ("第一百零五章", 105),
     ("Chapter 03 - The Storm", 3), ("episode_7", 7), ("007.mp3", 7), ("2021 第3期", 3),
     ("2019 Recording 05", 5), ("猴王出世", None)],
)  # fmt: skip
def test_section_number(name, number):
    assert section_number(name) == number


def test_parse_section_accepts_spoken_forms():
    assert parse_section("三") == 3
    assert parse_section("第三集") == 3
    assert parse_section("12") == 12
    assert parse_section("") is None


def test_normalize_folds_width_case_and_script():
    assert normalize("《西遊記》 ") == "西游记"
    assert normalize("ＪＯＵＲＮＥＹ to") == "journeyto"


@pytest.mark.parametrize(
    ("keyword", "title", "low", "high"),
    [("西游记", "西游记", 100, 100), ("西游记", "西游记|甄齐播讲", 95, 95),
     ("西遊記", "少儿西游记", 90, 90), ("西游纪", "西游记", 60, 79),
     ("jorney to the west", "Journey to the West", 60, 79), ("三体", "西游记", 0, 0)],
)  # fmt: skip
def test_match_score(keyword, title, low, high):
    assert low <= match_score(keyword, title) <= high


def test_rank_puts_exact_title_first_and_drops_non_matches():
    albums = [Album("a", "西游记少儿版"), Album("b", "三体"), Album("c", "西游记")]
    assert [a.id for a in rank("西游记", albums)] == ["c", "a"]


def test_field_path():
    data = {"data": {"list": [{"id": 1}, {"id": 2}]}}
    assert field_path(data, "data.list.1.id") == 2
    assert field_path(data, "data.missing.x") is None
    assert field_path(data, "data.list.9") is None
    assert field_path(data, "") is data


def test_clock():
    assert clock("zh", 185) == "3分05秒"
    assert clock("zh", 7) == "7秒"
    assert clock("en", 3725) == "1:02:05"
