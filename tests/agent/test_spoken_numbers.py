"""Spoken numbers in transcripts become digits next to episode counters, nothing else."""

from __future__ import annotations

import pytest

from agent.spoken_numbers import normalize


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
