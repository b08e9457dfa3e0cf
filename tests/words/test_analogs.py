"""The analog bank (words/analogs/): its intents, the vote, the intent of a call, and that
the shipped bank is the one the dev requests make today."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.analogs import intent_of
from words import TitleIndex, read
from words.analogs import (
    AGREE,
    CHANGES,
    INTENTS,
    Analogs,
    Vote,
    Weights,
    bucket,
    call_intent,
    masked,
    parse_bank,
)

ROOT = Path(__file__).resolve().parents[2]
INDEX = TitleIndex([("西游记", ()), ("Dracula", ())])

SMALL = Analogs(
    [
        ("volume:down", "太吵了 声音小点"),
        ("volume:down", "吵得我耳朵疼"),
        ("volume:up", "听不清 大声点"),
        ("speed:down", "he talks way too fast"),
        ("speed:down", "i can't keep up with her"),
        ("question", "what chapter is this"),
    ]
)


def test_masked_hides_titles_and_numbers() -> None:
    assert masked(read("播放西游记第3集", "zh", INDEX)) == "播放§第#集"
    assert masked(read("play Dracula chapter 12", "en", INDEX)) == "play § chapter #"


def test_the_vote_weighs_the_nearest_requests() -> None:
    vote = SMALL.vote(read("吵死了耳朵疼", "zh", INDEX))
    assert vote.intent == "volume:down"
    assert vote.share >= AGREE and vote.backs("volume:down")
    assert not vote.backs("volume:up")
    english = SMALL.vote("she talks too fast, i can't keep up")
    assert english.intent == "speed:down" and english.neighbours[0][1] == "speed:down"


def test_a_request_is_never_its_own_analog() -> None:
    vote = SMALL.vote("what chapter is this")
    assert all(text != "what chapter is this" for _, _, text in vote.neighbours)


def test_no_neighbour_backs_nothing() -> None:
    vote = SMALL.vote("zzz")
    assert vote == Vote() and not vote.backs("pause")


def test_a_question_never_backs_a_change() -> None:
    bank = Analogs([("question", "is it still playing"), ("question", "is it playing now")])
    vote = bank.vote("is it playing")
    assert vote.intent == "question" and vote.share == 1.0
    assert "question" not in CHANGES and not vote.backs("question")


def test_an_unknown_intent_or_a_line_without_tab_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown intent"):
        Analogs([("louder", "too quiet")])
    with pytest.raises(ValueError, match="no TAB"):
        parse_bank("volume:up too quiet\n")
    assert parse_bank("# a note\nvolume:up\ttoo quiet\n") == [("volume:up", "too quiet")]


@pytest.mark.parametrize(
    ("tool", "arguments", "intent"),
    [
        ("volume_down", {}, "volume:down"),
        ("set_volume", {"percent": 30}, None),
        ("set_speed", {"step": -1}, "speed:down"),
        ("set_speed", {"rate": 1.5}, None),
        ("set_skip", {"intro": 20}, "skip:intro"),
        ("set_skip", {"intro": 20, "outro": 10}, "skip:intro+outro"),
        ("set_skip", {"outro": 0}, "skip:off"),
        ("sleep_timer", {"end_of_episode": True}, "sleep:end"),
        ("sleep_timer", {"minutes": 20}, "sleep:minutes"),
        ("sleep_timer", {"minutes": 0}, "sleep:off"),
        ("seek", {"seconds": -30, "relative": True}, "seek:back"),
        ("seek", {"seconds": 90}, None),
        ("play_book", {"keyword": "Dracula"}, "play"),
        ("play_book", {"keyword": "西游记", "section": 3}, "replay"),
        ("play_book", {"section": 4}, "next"),
        ("play_book", {"section": 9}, "episode"),
        ("play_book", {}, "play"),
        ("get_status", {}, None),
    ],
)
def test_the_intent_of_a_call(tool: str, arguments: dict, intent: str | None) -> None:
    now = {"title": "西游记", "episode": 3, "state": "playing"}
    assert call_intent(tool, arguments, now) == intent


def test_resume_is_a_bare_play_of_a_paused_book() -> None:
    assert call_intent("play_book", {}, {"title": "西游记", "state": "paused"}) == "resume"


@pytest.mark.parametrize(
    ("setup", "expect", "intent"),
    [
        (
            {"playing": ["西游记", 3, 20]},
            {"volume": {"below": 60}, "unchanged": True},
            "volume:down",
        ),
        ({"playing": ["西游记", 3, 20], "speed": 1.5}, {"speed": 1.25}, "speed:down"),
        ({"playing": ["西游记", 3, 20], "skip": {"intro": 30}}, {"skip": {"intro": 0}}, "skip:off"),
        ({"playing": ["西游记", 3, 20]}, {"plays": {"album": "西游记", "episode": 4}}, "next"),
        (
            {"playing": ["西游记", 3, 20]},
            {"plays": {"album": "西游记", "episode": 3, "position": 0}},
            "replay",
        ),
        (
            {"playing": ["西游记", 3, 20]},
            {"position": 50, "plays": {"album": "西游记"}},
            "seek:fwd",
        ),
        ({}, {"asks": True}, "asks"),
        (
            {"playing": ["西游记", 3, 20], "sleep_end_of_episode": True},
            {"unchanged": True, "sleep_end_of_episode": False},
            "sleep:off",
        ),
        ({"playing": ["西游记", 3, 20]}, {"unchanged": True, "says_number": 3}, "question"),
        ({"playing": ["西游记", 3, 20]}, {"volume": {"above": 60}, "sleep": 20}, None),
    ],
)
def test_the_intent_a_dev_request_expects(setup: dict, expect: dict, intent: str | None) -> None:
    assert intent_of({"setup": setup, "expect": expect}) == intent


@pytest.mark.parametrize(
    ("utterance", "setup", "left_out"),
    [
        # asked about for want of a book: the words mean the move wherever one is loaded
        ("skip to the next one, please", {}, True),
        ("调快一点", {}, True),
        ("放第三集", {}, True),
        # the same words with a book loaded, or words that say no book: asked about the words
        ("skip to the next one, please", {"playing": ["西游记", 3, 20]}, False),
        ("把我朋友推荐的那本书放一下", {}, False),
        ("嗯那个放那个就是那个", {}, False),
    ],
)  # fmt: skip
def test_a_question_back_for_want_of_a_book_is_no_analog(
    utterance: str, setup: dict, left_out: bool
) -> None:
    from bench.analogs import _no_book_to_move
    from words import read

    request = {"utterance": utterance, "setup": setup, "expect": {"asks": True}}
    lang = "en" if utterance.isascii() else "zh"
    assert _no_book_to_move(request, read(utterance, lang)) is left_out


def test_the_shipped_bank_loads_and_is_up_to_date() -> None:
    bank = Analogs.load()
    assert len(bank.entries) > 1000
    assert {intent for intent, _ in bank.entries} <= set(INTENTS)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "analogs.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr


def test_a_sure_vote_doubts_another_reading() -> None:
    sure = Vote("volume:down", 0.9, 0.6)
    assert sure.doubts(["volume:up"]) and not sure.doubts(["volume:down"])
    assert not sure.doubts(["volume:up", "pause"])  # a compound reading
    assert not sure.doubts([None])  # a call whose intent cannot be named
    assert not Vote("play", 0.9, 0.6).doubts(["episode"])  # the same thing, two names
    assert not Vote("volume:down", 0.9, 0.4).doubts(["volume:up"])  # not alike enough
    assert Vote("volume:down", 0.9, 0.4, weighed=True).doubts(["volume:up"])  # the weights'
    assert not Vote("volume:down", 0.9, 0.2, weighed=True).doubts(["volume:up"])
    assert not Vote("volume:down", 0.7, 0.9).doubts(["volume:up"])  # not sure enough
    assert Vote("asks", 0.9, 0.7).doubts(["next"])  # "skip the boring bit": asked about
    assert Vote("pause", 1.0, 0.8).replaces(["volume:down"]) == ("pause", {})
    assert Vote("sleep:end", 1.0, 0.8).replaces(["stop"]) is None  # now, or at the end?
    assert Vote("stop", 1.0, 0.8).replaces(["sleep:end"]) is None
    assert Vote("asks", 0.9, 0.7).replaces(["next"]) is None  # doubted, no call of its own
    assert Vote("pause", 1.0, 0.8).replaces(["pause"]) is None  # not doubted
    assert Vote("asks", 1.0, 0.9).doubts(["skip:intro"])
    assert not Vote("asks", 1.0, 0.9, amounts=True).doubts(["skip:intro"])  # "… 20 seconds"
    assert not Vote("declines", 0.9, 0.7).doubts(["next"])


def test_a_sure_vote_makes_only_a_call_that_needs_nothing_more() -> None:
    assert Vote("volume:down", 0.9, 0.4).call() == ("volume_down", {})
    assert Vote("pause", 1.0, 0.4).call() == ("pause", {})
    assert Vote("sleep:end", 1.0, 0.9).call() == ("sleep_timer", {"end_of_episode": True})
    assert Vote("sleep:off", 0.8, 0.4).call() == ("sleep_timer", {"minutes": 0})
    assert Vote("sleep:minutes", 1.0, 0.9).call() is None  # how many minutes: not said here
    assert Vote("speed:down", 0.9, 0.4).call() == ("set_speed", {"step": -1})  # "跟不上"
    assert Vote("speed:up", 1.0, 0.4, rate=True).call() is None  # "fine, double then"
    assert Vote("volume:down", 1.0, 0.4, amounts=True).call() is None  # "down to 20"
    assert Vote("pause", 1.0, 0.4, corrected=True).call() is None
    assert Vote("skip:intro", 1.0, 0.9).call() is None  # how many seconds: not said here
    assert Vote("volume:down", 0.7, 0.9).call() is None
    assert Vote("volume:down", 0.9, 0.2).call() is None


def test_a_sure_vote_makes_the_call_of_the_one_amount_said() -> None:
    still = {"speed": 1.0, "skipping": False}
    both = Vote("skip:intro+outro", 1.0, 0.7, amounts=True, duration=15)
    assert both.call(still) == ("set_skip", {"intro": 15, "outro": 15})
    assert both.call() is None  # the book's settings not known: no amount call
    assert both.call({**still, "skipping": True}) is None  # "take 15 off" may be a change
    assert Vote("skip:outro", 0.9, 0.5, duration=40).call(still) == ("set_skip", {"outro": 40})
    assert Vote("skip:intro", 0.9, 0.5).call(still) is None  # no one duration said
    timer = Vote("sleep:minutes", 1.0, 0.8, amounts=True, duration=1200)
    assert timer.call(still) == ("sleep_timer", {"minutes": 20})
    assert Vote("sleep:minutes", 1.0, 0.8, duration=90).call(still) == (
        "sleep_timer", {"minutes": 1.5}
    )  # fmt: skip
    faster = Vote("speed:up", 0.9, 0.6, amounts=True, rate=True, speed=1.25)
    assert faster.call(still) == ("set_speed", {"rate": 1.25})
    assert faster.call({**still, "speed": 1.5}) is None  # 1.25 is slower than the book now
    assert faster.call({**still, "speed": 1.25}) is None  # no change
    assert Vote("speed:down", 0.9, 0.6, rate=True, speed=0.75).call(still) == (
        "set_speed",
        {"rate": 0.75},
    )
    assert Vote("seek:fwd", 1.0, 0.9, duration=300).call(still) is None  # a place or a move
    assert Vote("skip:intro", 0.7, 0.9, duration=30).call(still) is None  # not sure
    assert Vote("skip:intro", 1.0, 0.9, corrected=True, duration=30).call(still) is None
    assert both.amount_call(still) == both.call(still)
    assert Vote("pause", 1.0, 0.9).amount_call(still) is None


def test_the_vote_keeps_one_duration_and_one_speed_said() -> None:
    bank = Analogs([("skip:intro", "skip # seconds of the opening"),
                    ("speed:up", "play it faster"), ("speed:up", "开快点")])  # fmt: skip
    vote = bank.vote(read("skip forty seconds of the opening music", "en"))
    assert vote.duration == 40 and vote.speed is None
    vote = bank.vote(read("cut 10 secs off the start and 45 off the end", "en"))
    assert vote.duration is None  # another number said: which amount is whose is unknown
    vote = bank.vote(read("play it at one point two five", "en"))
    assert vote.speed == 1.25 and vote.duration is None
    vote = bank.vote(read("开到两倍 俺赶着听完这段", "zh"))
    assert vote.speed == 2.0


def test_a_rate_said_in_words_is_seen() -> None:
    # "double" and "1.5倍" are no number the reading counts, but a rate: no step for them
    bank = Analogs(
        [
            ("speed:up", "double speed please"),
            ("speed:down", "he talks way too fast"),
            ("speed:up", "开快一点"),
        ]
    )
    assert bank.vote(read("fine, double then", "en")).rate
    assert bank.vote(read("开到一倍半", "zh")).rate
    assert bank.vote(read("back to normal speed", "en")).rate
    assert not bank.vote(read("she talks way too fast for me", "en")).rate


def test_two_names_of_one_move_are_not_doubted() -> None:
    assert not Vote("episode", 1.0, 0.9).doubts(["next"])  # "three chapters on": 3 x next
    assert not Vote("play", 1.0, 0.9).doubts(["resume"])
    assert not Vote("skip:outro", 1.0, 0.9).doubts(["skip:intro+outro"])
    assert Vote("skip:outro", 1.0, 0.9).doubts(["skip:intro"])
    assert Vote("question", 1.0, 0.9).doubts(["next"])


def test_a_refusal_or_a_correction_doubts_nothing() -> None:
    assert not Vote("declines", 1.0, 0.9).doubts(["play"])
    bank = Analogs(
        [
            ("sleep:end", "定个半小时 不对 还是这集放完就停"),
            ("sleep:end", "定个半小时算了这集完了停"),
        ]
    )
    vote = bank.vote(read("这集放完就停 不对 还是定个半小时", "zh"))
    assert vote.corrected and vote.intent == "sleep:end" and not vote.doubts(["sleep:minutes"])


WEIGHED_BANK = [
    *SMALL.entries,
    ("volume:down", "太响了 小声点"),
    ("volume:down", "it's too loud, my ears hurt"),
    ("volume:up", "i can barely hear her"),
    ("volume:up", "声音太小 听不见"),
    ("speed:down", "slow down, he reads too fast"),
    ("question", "which chapter are we on"),
    ("question", "这是第几集"),
]


def test_weights_trained_on_a_bank_name_its_intents() -> None:
    from bench.analogs import HEADER, train

    bank_text = HEADER + "".join(f"{intent}\t{text}\n" for intent, text in WEIGHED_BANK)
    weights = Weights.parse(train(bank_text))
    assert set(weights.intents) == {intent for intent, _ in WEIGHED_BANK}
    reading = read("吵死了耳朵疼", "zh", INDEX)
    probabilities = weights.probabilities(masked(reading))
    assert abs(sum(probabilities.values()) - 1.0) < 1e-9
    assert max(probabilities, key=probabilities.get) == "volume:down"
    bank = Analogs(WEIGHED_BANK, weights)
    vote = bank.vote(reading)
    assert vote.weighed and vote.intent == "volume:down"
    assert vote.neighbours[0][1] == "volume:down"  # the neighbours agree: the share stands
    assert vote.share == probabilities["volume:down"]
    assert bank.vote("what chapter is this one").intent == "question"


def test_the_weights_are_a_softmax_over_tfidf() -> None:
    # one feature ("loud", idf 2) known: its TF-IDF vector is 1 after normalisation
    weights = Weights(
        ["volume:down", "volume:up"],
        [0.0, 0.5],
        {bucket("loud"): 2.0},
        {bucket("loud"): [(0, 1.5)]},
    )
    p = weights.probabilities("loud")
    expected = math.exp(1.5) / (math.exp(1.5) + math.exp(0.5))
    assert abs(p["volume:down"] - expected) < 1e-12
    # nothing known: the intercepts alone
    assert abs(weights.probabilities("zzz")["volume:up"] - 1 / (1 + math.exp(-0.5))) < 1e-12


def test_judges_that_disagree_give_the_vote_no_share() -> None:
    # the neighbours say volume:down; the weights, wrongly, say pause: nothing stands
    weights = Weights(
        ["pause", "volume:down"], [0.0, 0.0], {bucket("耳朵"): 1.0}, {bucket("耳朵"): [(0, 5.0)]}
    )
    vote = Analogs(SMALL.entries, weights).vote(read("吵死了耳朵疼", "zh", INDEX))
    assert vote.intent == "pause" and vote.share == 0.0 and vote.weighed
    assert not vote.backs("pause") and vote.call() is None and not vote.doubts(["volume:up"])


def test_a_malformed_weights_file_is_an_error() -> None:
    with pytest.raises(ValueError, match="weights line 2"):
        Weights.parse("intents\tpause\n12\tnot-a-number\t0:1.0\n")
    with pytest.raises(ValueError, match="unknown intents"):
        Weights.parse("intents\tlouder\nbias\t0.0\n")


def test_the_shipped_weights_hold_numbers_alone_and_know_their_bank() -> None:
    text = (ROOT / "words" / "analogs" / "weights.tsv").read_text(encoding="utf-8")
    body = [line for line in text.splitlines() if not line.startswith(("#", "intents", "bias"))]
    assert len(body) > 1000
    assert all(re.fullmatch(r"\d+\t[\d.]+\t(\d+:-?[\d.]+ ?)*", line) for line in body)
    bank = Analogs.load()
    sample = bank.entries[::20]
    right = sum(bank.weights is not None and bank.vote(t).intent == i for i, t in sample)
    assert right >= 0.9 * len(sample)
