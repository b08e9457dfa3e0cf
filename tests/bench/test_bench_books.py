"""The books of the bench library whose episodes are chapters, and the benchmark's keys for
chapters, speed, intro/outro skip and sleep at the end of an episode, on the real player."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.agent import apply_setup
from bench.expect import Observed, changed, check, observe, wrong_action
from bench.library import BOOKS, BY_TITLE, build_library
from player import Player
from player.models import PlayerState
from tests.player.player_fixtures import wait_for_state

CHAPTER_SECONDS = 60.0
"""Long enough for a 30 s intro skip to fit in a chapter (the player skips one only then)."""
TITLES = list(BY_TITLE)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_library(
        tmp_path_factory.mktemp("bench-books"), clip_seconds=CHAPTER_SECONDS, albums=BOOKS
    )


def _check(expect: dict, before: Observed, after: Observed, lang: str = "en") -> list[str]:
    request = {"lang": lang, "expect": expect}
    return check(request, before=before, after=after, answer="OK.", titles=TITLES, elapsed_s=1.0)


def test_the_books_are_as_the_benchmark_names_them() -> None:
    assert [b.title for b in BOOKS] == ["Project Hail Mary", "The Martian", "长安十二时辰"]
    hail_mary, martian, changan = BOOKS
    assert hail_mary.author == martian.author == "Andy Weir" and changan.author == "马伯庸"
    assert hail_mary.episodes == 30 and [f.name for f in hail_mary.files] == [
        "Project Hail Mary.m4b"
    ]
    assert hail_mary.names[0] == "Chapter 1" and hail_mary.names[-1] == "Chapter 30"
    assert martian.episodes == 14 and martian.names[:2] == ("Sol 6", "Sol 7")
    assert [f.name for f in martian.files] == [
        "The Martian - Part 1.m4b",
        "The Martian - Part 2.mp3",
    ]
    assert changan.episodes == 24 and changan.names[0] == "第一章 巳正"
    assert changan.names[11] == "第十二章 亥初" and changan.names[-1] == "第二十四章 巳初"
    assert len(set(changan.names)) == 24


async def test_the_real_player_reads_the_chapters(player: Player) -> None:
    for spec in BOOKS:
        detail = await player.resolve(spec.title)
        assert detail.album.title == spec.title and detail.album.author == spec.author
        assert [e.section for e in detail.episodes] == list(range(1, spec.episodes + 1))
        assert [e.title for e in detail.episodes] == list(spec.names)
    detail = await player.resolve("Project Hail Mary")
    second = detail.episode(2)
    assert second.is_chapter and second.start == pytest.approx(CHAPTER_SECONDS, abs=0.01)
    assert second.duration == pytest.approx(CHAPTER_SECONDS, abs=0.01)
    martian = await player.resolve("The Martian")
    assert martian.episode(13).is_chapter and not martian.episode(14).is_chapter
    assert Path(martian.episode(14).location).name == "The Martian - Part 2.mp3"


async def test_chapter_two_plays_from_the_setup(player: Player) -> None:
    await apply_setup(player, {"playing": ["Project Hail Mary", 2, 10.0]})
    await wait_for_state(player, PlayerState.PLAYING)
    seen = observe(player)
    assert (seen.album, seen.episode) == ("Project Hail Mary", 2)
    assert seen.position == pytest.approx(10.0, abs=2.0)
    assert (seen.speed, seen.intro, seen.outro, seen.sleep_at_end) == (1.0, 0.0, 0.0, False)
    assert _check({"plays": {"album": "Project Hail Mary", "episode": 2}}, seen, seen) == []
    assert _check({"plays": {"album": "Project Hail Mary", "episode": 3}}, seen, seen)


async def test_setup_sets_speed_skip_and_end_of_episode_sleep_then_forgets_them(
    player: Player,
) -> None:
    setup = {
        "playing": ["长安十二时辰", 3, 40.0],
        "speed": 1.5,
        "skip": {"intro": 20, "outro": 5},
        "sleep_end_of_episode": True,
    }
    await apply_setup(player, setup)
    seen = observe(player)
    assert (seen.album, seen.episode) == ("长安十二时辰", 3)
    assert (seen.speed, seen.intro, seen.outro, seen.sleep_at_end) == (1.5, 20.0, 5.0, True)
    assert player.speed_now() == 1.5
    expect = {"speed": 1.5, "skip": {"intro": 20, "outro": 5}, "sleep_end_of_episode": True}
    assert _check(expect, seen, seen, lang="zh") == []
    await apply_setup(player, {"playing": ["长安十二时辰", 3, 40.0]})
    seen = observe(player)
    assert (seen.speed, seen.intro, seen.outro, seen.sleep_at_end) == (1.0, 0.0, 0.0, False)
    # A book in bookmarks only: its settings are the ones observed (the last book heard).
    await apply_setup(player, {"bookmarks": [["The Martian", 4, 0.0]], "speed": 0.75})
    seen = observe(player)
    assert seen.album is None and seen.speed == 0.75
    with pytest.raises(ValueError):
        await apply_setup(player, {"speed": 1.5})


async def test_a_speed_is_judged_by_the_player(player: Player) -> None:
    await apply_setup(player, {"playing": ["Project Hail Mary", 2, 5.0]})
    before = observe(player)
    await player.set_speed(rate=1.5)
    after = observe(player)
    assert after.speed == 1.5
    assert _check({"speed": 1.5}, before, after) == []
    assert _check({"speed": 1.5, "plays": {"album": "Project Hail Mary", "episode": 2}},
                  before, after) == []  # fmt: skip
    assert _check({"speed": 1.25}, before, after)
    assert _check({"speed": 1.0}, before, after)
    assert _check({"unchanged": True}, before, after)  # a changed speed is a change
    assert _check({"unchanged": True, "speed": 1.5}, before, after) == []
    assert changed(before, after, 1.0) == ["speed 1 -> 1.5"]
    # Asked to pause, it changed the speed: a wrong action, not a missed one.
    why = _check({"paused": {}}, before, after)
    assert why and wrong_action(why, before, after, 1.0)
    await player.set_speed(step=-1)
    assert observe(player).speed == 1.25


async def test_a_skip_is_judged_by_the_player(player: Player) -> None:
    await apply_setup(player, {"playing": ["The Martian", 2, 45.0]})
    before = observe(player)
    await player.set_skip(intro=30)
    after = observe(player)
    assert (after.intro, after.outro) == (30.0, 0.0)
    assert _check({"skip": {"intro": 30}}, before, after) == []
    assert _check({"skip": {"intro": 30.4, "outro": 0}}, before, after) == []
    assert _check({"skip": {"intro": 20}}, before, after)
    assert _check({"skip": {"outro": 30}}, before, after)
    assert _check({"unchanged": True}, before, after)
    assert changed(before, after, 1.0) == ["intro skip 0 -> 30"]
    assert wrong_action(_check({"speed": 1.5}, before, after), before, after, 1.0)
    await player.set_skip(outro=15)
    assert observe(player).outro == 15.0


async def test_the_end_of_episode_sleep_is_judged_by_the_player(player: Player) -> None:
    await apply_setup(player, {"playing": ["长安十二时辰", 1, 5.0]})
    before = observe(player)
    assert _check({"sleep_end_of_episode": True}, before, before, lang="zh")
    assert _check({"sleep_end_of_episode": False}, before, before, lang="zh") == []
    await player.sleep_timer(end_of_episode=True)
    after = observe(player)
    assert after.sleep_at_end and "sleep at episode end" in after.short()
    assert _check({"sleep_end_of_episode": True}, before, after, lang="zh") == []
    assert _check({"sleep": 30}, before, after, lang="zh")
    assert _check({"unchanged": True}, before, after, lang="zh")
    assert changed(before, after, 1.0) == ["end-of-episode sleep False -> True"]
    assert wrong_action(_check({"volume": 70}, before, after), before, after, 1.0)
    await player.sleep_timer(0)
    assert not observe(player).sleep_at_end


async def test_a_question_leaves_the_settings_alone(player: Player) -> None:
    setup = {"playing": ["Project Hail Mary", 7, 20.0], "speed": 1.25, "skip": {"intro": 30}}
    await apply_setup(player, setup)
    before = observe(player)
    status = await player.get_status()
    assert status["speed"] == 1.25
    after = observe(player)
    assert changed(before, after, 1.0) == []
    assert _check({"unchanged": True, "says_number": 7}, before, after)  # "OK." says no 7
    assert not wrong_action(["answer does not state 7"], before, after, 1.0)


def test_settings_in_observations() -> None:
    base = Observed("playing", "Project Hail Mary", 2, 10.0, 60, None, 1.0, 0.0, 0.0, False)
    faster = Observed("playing", "Project Hail Mary", 2, 11.0, 60, None, 1.5, 0.0, 0.0, False)
    other = Observed("playing", "The Martian", 1, 0.0, 60, None, 1.5, 0.0, 0.0, False)
    nothing = Observed("idle", None, None, None, 60, None)
    assert changed(base, faster, 2.0) == ["speed 1 -> 1.5"]
    assert changed(base, Observed(**{**base.to_dict(), "speed": 1.005}), 2.0) == []
    assert changed(base, Observed(**{**base.to_dict(), "outro": 0.4}), 2.0) == []
    assert changed(base, Observed(**{**base.to_dict(), "outro": 15.0}), 2.0) == [
        "outro skip 0 -> 15"
    ]
    # Another book has its own speed: the change named is the book.
    assert len(changed(base, other, 2.0)) == 1 and "The Martian" in changed(base, other, 2.0)[0]
    assert _check({"speed": 1.5}, nothing, nothing)  # no book: no speed to be right
    assert "x1.5" in faster.short() and "x1" not in base.short()
    assert Observed(**faster.to_dict()) == faster  # as the JSON report keeps it


def _row(rid: str, form: str, category: str, ok: bool, wrong: bool = False) -> dict:
    state = Observed("playing", "Project Hail Mary", 2, 10.0, 60, None, 1.0, 0.0, 0.0, False)
    return {
        "id": rid, "form": form, "lang": "en", "category": category, "utterance": f"words {rid}",
        "ok": ok, "wrong_action": wrong, "changed": [], "state_ok": ok,
        "reasons": [] if ok else ["speed should be 1.5, is 1.0"], "answer": "OK.", "calls": [],
        "before": state.to_dict(), "after": state.to_dict(), "ms": 10.0, "fast": True,
        "model_steps": 0, "format_errors": 0, "decode_tokens": 0, "prefill_tokens": 0,
        "forced_tokens": 0,
    }  # fmt: skip


def test_the_books_line_counts_held_out_requests_without_naming_them() -> None:
    from bench.agent import summary

    rows = [
        _row("b-1", "typed", "speed", True),
        _row("b-2", "typed", "chapter", False, wrong=True),
        _row("b-3", "heldout", "skip", False),
        _row("b-4", "heldout", "sleep_end", True),
        _row("t-1", "typed", "play", False),
    ]
    lines = summary(rows, "model")
    books = "books (chapters, speed, skip, end-of-episode sleep): 2/4 ok (50%), wrong actions: 1"
    assert books in lines
    text = "\n".join(lines)
    assert "b-2" in text and "t-1" in text
    assert "b-3" not in text and "words b-3" not in text
    assert not any(line.startswith("books") for line in summary(rows[-1:], "model"))


def test_wrong_actions_are_split_by_who_decided() -> None:
    from bench.agent import summary

    model_wrong = {**_row("m-1", "typed", "indirect", False, wrong=True), "fast": False,
                   "model_steps": 1}  # fmt: skip
    asked = {**_row("m-2", "typed", "indirect", False), "fast": False, "model_steps": 1,
             "asked_first": True}  # fmt: skip
    rows = [_row("f-1", "typed", "play", False, wrong=True), model_wrong, asked,
            _row("f-2", "typed", "play", True)]  # fmt: skip
    room = {**_row("f-3", "typed", "indirect", False), "asked_first": True}
    rows.append(room)
    line = ("  by the fast path 1, by the model 1; guesses asked about first: 2 "
            "(1 of the model's 2 turns)")  # fmt: skip
    assert line in summary(rows, "model")
