"""The fast path: the calls of a request the words layer understood, made for this registry."""

from __future__ import annotations

from agent import tool_from_function
from agent.fastpath import FastMatch, FastPath
from player.contract import CONTEXT
from player.tools import PlayerTools
from words import TitleIndex, read

TOOLS = [tool_from_function(f) for f in PlayerTools.tools(PlayerTools())]
INDEX = TitleIndex(
    [("西游记", ()), ("Harry Potter and the Chamber of Secrets", ()),
     ("Harry Potter and the Philosopher's Stone", ()), ("三体", ())]
)  # fmt: skip

PLAYING = {
    "message": "正在播放 西游记 第3集（共100集），1分00秒",
    "now": {"id": "lib:1", "title": "西游记", "episodes": 100, "state": "playing",
            "episode": 3, "position": 60.0},
    "before": [{"id": "lib:2", "title": "三体", "episodes": 30, "episode": 7, "position": 9.0,
                "before": True}],
}  # fmt: skip

MARKED = {
    "message": "…",
    "bookmarks": [{"id": "lib:9", "title": "Harry Potter and the Chamber of Secrets",
                   "episodes": 18, "episode": 4, "position": 30.0}],
}  # fmt: skip
"""Nothing loaded; one of two Harry Potter books left off."""


def plan(utterance: str, context: dict | None = None, tools=TOOLS):
    lang = "en" if utterance.isascii() else "zh"
    return FastPath().plan(read(utterance, lang, INDEX), tools, context, CONTEXT)


def test_a_plain_command_is_one_call() -> None:
    assert plan("暂停一下，我五分钟后回来").calls == (FastMatch("pause"),)


def test_several_calls_in_order() -> None:
    assert plan("放西游记第三集，音量调到30").calls == (
        FastMatch("play_book", {"keyword": "西游记", "section": 3}),
        FastMatch("set_volume", {"percent": 30}),
    )


def test_the_episode_loaded_now_and_the_book_before_come_from_the_context() -> None:
    assert plan("再放一遍这一集", PLAYING).calls == (FastMatch("play_book", {"section": 3}),)
    assert plan("换回之前那本", PLAYING).calls == (FastMatch("play_book", {"keyword": "三体"}),)
    # Nothing in the context: the episode is left to the tool (its bookmark) ...
    assert plan("再放一遍这一集", {"message": "没有在播放"}).calls == (FastMatch("play_book"),)
    # ... and no book before means the model decides.
    assert plan("换回之前那本", {"message": "没有在播放"}) is None


def test_the_episode_just_heard_is_the_one_before_when_this_one_has_only_begun() -> None:
    begun = {**PLAYING, "now": {**PLAYING["now"], "position": 8.0, "duration": 900.0}}
    before = plan("刚才那个故事再放一遍", begun)
    # the one before, but the listener may have jumped here: asked about first
    assert before.calls == (FastMatch("play_book", {"section": 2}),)
    assert before.ask == ("propose", ())
    heard = plan("刚才那个故事再放一遍", PLAYING)
    assert heard.calls == (FastMatch("play_book", {"section": 3}),) and heard.ask is None
    assert plan("这一集再放一遍", begun).calls == (FastMatch("play_book", {"section": 3}),)


def test_several_books_named_ask_which_unless_the_context_says() -> None:
    asked = plan("play harry potter")
    assert asked.ask is not None and asked.ask[0] == "choose" and len(asked.ask[1]) == 2
    assert plan("play harry potter", MARKED).calls == (
        FastMatch("play_book", {"keyword": "Harry Potter and the Chamber of Secrets"}),
    )


def test_acknowledgements_and_another_book_are_answers_not_calls() -> None:
    assert plan("谢谢").ask == ("ack", ())
    assert plan("换一本").ask == ("which", ())


def test_no_plan_when_a_tool_is_missing_or_switched_off() -> None:
    assert plan("暂停", tools=[t for t in TOOLS if t.name != "pause"]) is None
    assert FastPath(enabled=False).plan(read("暂停", "zh", INDEX), TOOLS) is None
    assert plan("三体好听吗") is None  # not said plainly: the model's


def test_arguments_that_do_not_fit_drop_the_plan() -> None:
    def check(name: str, arguments: dict) -> str:
        return "no" if name == "set_volume" else ""

    reading = read("音量调到五十", "zh", INDEX)
    assert FastPath().plan(reading, TOOLS, None, None, check=check) is None


def test_a_question_about_a_book_is_the_players_only_while_it_is_loaded() -> None:
    assert plan("西游记还剩几集", PLAYING).calls == (FastMatch("get_status", {"about": "left"}),)
    assert plan("三体还剩几集", PLAYING) is None
    # Where another book was left off: its detail and bookmark, nothing played.
    assert plan("三体我上次听到哪了？", PLAYING).calls == (
        FastMatch("get_album_detail", {"album_id": "三体", "keyword": "三体"}),
    )


def test_a_change_without_its_amount_is_a_question_back() -> None:
    assert plan("片头那段音乐太长了，跳掉吧", PLAYING).ask == ("clarify", ("skip",))
    assert plan("change the speed", PLAYING).ask == ("clarify", ("speed",))
    assert plan("turn it off in a bit", PLAYING).ask == ("clarify", ("when",))
    assert plan("片头多跳六秒", PLAYING).calls == (
        FastMatch("set_skip", {"intro": 6, "relative": True}),
    )


def test_the_last_episode_and_an_episode_title_reach_the_player() -> None:
    assert plan("放西游记最后一集").calls == (
        FastMatch("play_book", {"keyword": "西游记", "section": -1}),
    )
    assert plan("西游记，放石猴出世那一集").calls == (
        FastMatch("play_book", {"keyword": "西游记", "episode_title": "石猴出世"}),
    )


def test_where_a_series_was_left_off_is_the_part_listened_to_and_nothing_plays() -> None:
    assert plan("where was I in harry potter?", MARKED).calls == (
        FastMatch(
            "get_album_detail",
            {"album_id": "Harry Potter and the Chamber of Secrets",
             "keyword": "Harry Potter and the Chamber of Secrets"},
        ),
    )  # fmt: skip
    # no part listened to: which one?
    assert plan("where was I in harry potter?").ask[0] == "choose"
    # a speed past what the player holds is asked, not changed
    assert plan("调到三倍速", PLAYING).ask == ("clarify", ("speed_range",))


def test_a_step_from_a_remark_on_the_room_is_made_at_once() -> None:
    # a volume step is undone by a word; the listeners of the blind rounds expected it made
    asleep = plan("the baby just fell asleep", PLAYING)
    assert asleep.ask is None and asleep.calls == (FastMatch("volume_down"),)
    # the sound itself said ("吵"): the step is made at once too
    noisy = plan("有点吵，宝宝刚睡着", PLAYING)
    assert noisy.ask is None and noisy.calls == (FastMatch("volume_down"),)
    faint = plan("it's so faint from the kitchen", PLAYING)
    assert faint.ask is None and faint.calls == (FastMatch("volume_up"),)


def test_a_change_of_the_skip_that_names_no_end_is_of_the_end_skipped_now() -> None:
    def skipping(intro: float, outro: float) -> dict:
        return {**PLAYING, "now": {**PLAYING["now"], "intro": intro, "outro": outro}}

    less = "跳多了，少跳十秒"
    assert plan(less, skipping(0, 40)).calls == (
        FastMatch("set_skip", {"outro": -10, "relative": True}),
    )
    assert plan(less, skipping(30, 40)).ask == ("clarify", ("skip_end",))  # which end?
    assert plan(less, skipping(0, 0)) is None  # no skip to change: the model decides
    assert plan("cut the intro skip in half", skipping(45, 0)).calls == (
        FastMatch("set_skip", {"intro": 22}),
    )
    assert plan("cut the intro skip in half", skipping(0, 30)) is None
    assert plan("double the intro skip", skipping(15, 0)).calls == (
        FastMatch("set_skip", {"intro": 30}),
    )
    assert plan("double the intro skip", skipping(0, 30)) is None


def test_steps_past_the_last_or_first_episode_ask_which_one() -> None:
    near_end = {**PLAYING, "now": {**PLAYING["now"], "episode": 98}}
    assert plan("go forward five episodes", near_end).ask == ("clarify", ("episode",))
    assert plan("go forward two episodes", near_end).calls == (
        FastMatch("next_episode", {}),
        FastMatch("next_episode", {}),
    )
    assert plan("go back five episodes", PLAYING).ask == ("clarify", ("episode",))
