"""The spoken form of the benchmark: each typed request as a recogniser writes it."""

from __future__ import annotations

import pytest

from bench.agent import unpunctuated


@pytest.mark.parametrize(
    ("utterance", "lang", "heard"),
    [
        ("Pause it, I'll be back in 10 minutes.", "en", "pause it i'll be back in 10 minutes"),
        ("set the speed to 1.5x, please!", "en", "set the speed to 1.5x please"),
        ("关了吧，明天再听。", "zh", "关了吧 明天再听"),
        ("《西游记》第三集……", "zh", "西游记 第三集"),
        ("Play It", "en", "play it"),
    ],
)
def test_a_typed_request_as_a_recogniser_writes_it(utterance: str, lang: str, heard: str) -> None:
    assert unpunctuated(utterance, lang) == heard
