"""A call the local model guessed is asked about first; a yes next turn makes it."""

from __future__ import annotations

import asyncio
import re

import pytest
from agent_books import FakeLibrary

from agent import Agent, Completion, ScriptedModel, ToolRegistry, tool_from_function
from agent import loop as loop_module
from agent.fastpath import FastMatch, FastPath, Plan
from agent.propose import describe
from words.analogs import Analogs


def _agent(library: FakeLibrary, replies: list[str], *, backend: str = "local", **options) -> Agent:
    model = ScriptedModel(
        [Completion(text=r, backend=backend) if r.startswith("Thought") else r for r in replies],
        name=backend,
    )
    registry = ToolRegistry([tool_from_function(f) for f in library.tools()])
    options.setdefault("fast_path", False)
    return Agent(registry, model, language="en", **options)


def _catalog_agent(library: FakeLibrary, replies: list[str], *, language: str = "en") -> Agent:
    """An agent whose library holds 西游记, 三国演义 and Treasure Island."""
    model = ScriptedModel([Completion(text=r, backend="local") for r in replies], name="local")
    registry = ToolRegistry([tool_from_function(f) for f in library.tools()])
    titles = ["西游记", "三国演义", "Treasure Island"]
    return Agent(registry, model, fast_path=False, language=language, catalog=lambda: titles)


async def run(agent: Agent, utterance: str):
    return await asyncio.wait_for(agent.run(utterance), timeout=10)


PAUSE = "Thought: pause.\nAction: pause\nAction Input: {}"
REMARK = "my grandson just walked in with his trumpet"  # no word of any tool


async def test_a_guess_is_asked_about_and_a_yes_makes_it() -> None:
    library = FakeLibrary()
    agent = _agent(library, [PAUSE])
    turn = await run(agent, REMARK)
    assert turn.answer == "Do you want me to pause?"
    assert library.calls == []  # nothing the listener hears changed
    assert "asked first: pause" in turn.steps[-1].thought
    yes = await run(agent, "yes please")
    assert library.calls == [("pause", {})]
    assert yes.answer and yes.answer != turn.answer and yes.backend == "fastpath"
    await run(agent, "yes")  # the proposal was used up: the model's turn, which acts not
    assert library.calls == [("pause", {})]


async def test_a_no_drops_the_guess() -> None:
    library = FakeLibrary()
    agent = _agent(library, [PAUSE])
    await run(agent, REMARK)
    turn = await run(agent, "no thanks")
    assert turn.answer == "Okay." and library.calls == []


async def test_another_request_drops_the_guess(monkeypatch: pytest.MonkeyPatch) -> None:
    library = FakeLibrary()
    agent = _agent(library, [PAUSE, "Thought: x\nFinal Answer: Sure."])
    await run(agent, REMARK)
    await run(agent, "what a day it has been")  # not an answer: the model's turn
    await run(agent, "yes")  # too late for the guess: no call
    assert library.calls == []


async def test_a_yes_after_the_wait_makes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    library = FakeLibrary()
    agent = _agent(library, [PAUSE, "Thought: x\nFinal Answer: Sure."])
    await run(agent, REMARK)
    now = loop_module.time.monotonic()
    monkeypatch.setattr(
        loop_module.time, "monotonic", lambda: now + loop_module.PROPOSAL_WAIT_S + 1
    )
    await run(agent, "yes")
    assert library.calls == []


async def test_words_that_point_at_the_tool_act_at_once() -> None:
    library = FakeLibrary()
    agent = _agent(library, [PAUSE])
    turn = await run(agent, "pause it")
    assert library.calls == [("pause", {})] and "?" not in turn.answer


async def test_a_title_named_plays_at_once() -> None:
    library = FakeLibrary()
    play = 'Thought: play.\nAction: play_book\nAction Input: {"keyword": "三国演义"}'
    agent = _catalog_agent(library, [play], language="zh")
    await run(agent, "奶奶最爱三国演义")
    assert library.calls == [("play_book", {"keyword": "三国演义", "section": None})]


async def test_a_reading_tool_runs_on_a_guess() -> None:
    library = FakeLibrary()
    status = "Thought: look.\nAction: get_status\nAction Input: {}"
    agent = _agent(library, [status, "Thought: x\nFinal Answer: Playing."])
    await run(agent, REMARK)
    assert library.calls == [("get_status", {})]


async def test_a_backend_not_asked_about_acts() -> None:
    library = FakeLibrary()
    agent = _agent(library, [PAUSE], backend="remote")
    await run(agent, REMARK)
    assert library.calls == [("pause", {})]


@pytest.mark.parametrize(
    ("tool", "arguments", "zh", "en"),
    [
        ("pause", {}, "暂停", "pause"),
        ("volume_down", {}, "把声音调小", "turn it down"),
        ("set_volume", {"percent": 30}, "把音量调到30%", "set the volume to 30%"),
        ("seek", {"seconds": -15, "relative": True}, "后退15秒", "go back 15 seconds"),
        ("seek", {"seconds": 90, "relative": True}, "快进1分30秒", "skip ahead 1 minute 30 seconds"),
        ("seek", {"seconds": 125}, "跳到2分5秒", "jump to 2:05"),
        ("set_speed", {"step": -1}, "调慢一点", "slow it down"),
        ("set_speed", {"rate": 1.5}, "把速度调到1.5倍", "set the speed to 1.5 times"),
        ("set_speed", {"rate": 1.0}, "恢复正常速度", "go back to normal speed"),
        ("sleep_timer", {"end_of_episode": True}, "这一集放完就停", "stop at the end of this episode"),
        ("sleep_timer", {"minutes": 20}, "20分钟后停", "stop in 20 minutes"),
        ("sleep_timer", {"minutes": 0}, "取消定时", "cancel the sleep timer"),
        ("set_skip", {"intro": 30}, "每集片头跳过30秒", "skip the first 30 seconds of every episode"),
        ("play_book", {"keyword": "西游记", "section": 3}, "播放西游记第3集", "play 西游记, episode 3"),
        ("play_book", {"section": 2}, "播放第2集", "play episode 2"),
        ("play_book", {}, "接着播放上次的书", "go on with the last book"),
        ("next_episode", {}, "播放下一集", "play the next episode"),
    ],
)  # fmt: skip
def test_describe_says_the_call(tool, arguments, zh, en) -> None:
    assert describe(tool, arguments, "zh") == zh
    assert describe(tool, arguments, "en") == en


def test_describe_knows_no_other_tool() -> None:
    assert describe("weather.forecast", {"city": "Paris"}, "en") is None
    assert describe("seek", {}, "en") is None  # no amount: nothing to say


async def test_a_guessed_book_is_offered_by_its_library_title() -> None:
    library = FakeLibrary()
    play = 'Thought: play.\nAction: play_book\nAction Input: {"keyword": "treasure isle"}'
    agent = _catalog_agent(library, [play])
    turn = await run(agent, REMARK)
    assert turn.answer == "Do you want me to play Treasure Island?" and library.calls == []
    await run(agent, "yes")
    assert library.calls == [("play_book", {"keyword": "Treasure Island", "section": None})]


async def test_a_guessed_book_the_library_lacks_asks_which_book() -> None:
    library = FakeLibrary()
    play = 'Thought: play.\nAction: play_book\nAction Input: {"keyword": "dinner"}'
    agent = _catalog_agent(library, [play, "Thought: x\nFinal Answer: Sure."])
    turn = await run(agent, "i am just starting on dinner")
    assert turn.answer.startswith("Which book would you like? For example 西游记")
    assert "dinner" not in turn.answer and "asked which book" in turn.steps[-1].thought
    await run(agent, "yes")  # nothing was offered: a yes plays nothing
    assert library.calls == []


async def test_an_amount_not_carried_is_asked_about_and_a_yes_makes_the_step() -> None:
    from player.contract import CONTEXT
    from player.tools import PlayerTools

    made: list[str] = []

    class Tools(PlayerTools):
        async def volume_up(self):  # the step, recorded
            made.append("volume_up")
            return {"message": "音量已调到70%"}

    tools = Tools()
    registry = ToolRegistry([tool_from_function(f) for f in Tools.tools(tools)])

    def context(utterance: str) -> dict:
        return {"message": "正在播放 西游记 第3集", "now": {"id": "lib:1", "title": "西游记",
                "episodes": 100, "state": "playing", "episode": 3, "position": 60.0}}  # fmt: skip

    context.tool_output_schema = CONTEXT
    agent = Agent(registry, ScriptedModel([]), context=context)
    # "再大个二十": twenty more, which no step carries; the step is asked about first
    turn = await run(agent, "声音再大个二十")
    assert turn.answer == "你是要我把声音调大吗？" and made == []
    done = await run(agent, "嗯，对")
    assert made == ["volume_up"] and done.answer == "音量已调到70%"
    # a yes that counts the steps makes as many ("对，两格"; a trial's "yes, two notches")
    made.clear()
    await run(agent, "声音再大个二十")
    await run(agent, "对，两格")
    assert made == ["volume_up", "volume_up"]


async def test_forget_drops_the_guess_asked_about() -> None:
    library = FakeLibrary()
    agent = _agent(library, [PAUSE, PAUSE])
    await run(agent, REMARK)
    agent.forget()  # the benchmark's next request is a new exchange
    await run(agent, "yes please")
    assert library.calls == []


BANK = Analogs(
    [
        ("pause", "hold on someone is at the door"),
        ("pause", "hold it someone is at the door a moment"),
        ("next", "heard this one already on to the following one"),
        ("next", "on to the following one please"),
        ("next", "we heard this bit already the following one"),
        ("question", "what is this one called"),
    ]
)


async def test_a_guess_the_like_requests_back_is_made() -> None:
    # "door": like the bank's requests for a pause, too faintly (0.28) for the model to be
    # told so; its guess and the vote are two opinions, and they agree
    library = FakeLibrary()
    agent = _agent(library, [PAUSE, "Thought: x\nFinal Answer: Paused."], analogs=BANK)
    turn = await run(agent, "door")
    assert library.calls == [("pause", {})]
    assert "made: the requests most like it ask for pause" in turn.steps[0].thought


async def test_a_guess_that_follows_what_the_model_was_told_is_asked_about() -> None:
    # the model was told the like requests ask for a pause (77% of their weight): its
    # pause is no second opinion, and the vote is not sure enough to make it on its own
    bank = Analogs([("pause", "my grandson just walked in with his drum"),
                    ("pause", "my grandson walked in with a trumpet"),
                    ("question", "did my grandson just walk in"),
                    ("question", "whose trumpet is it")])  # fmt: skip
    library = FakeLibrary()
    agent = _agent(library, [PAUSE], analogs=bank)
    turn = await run(agent, REMARK)
    assert (
        "Requests like this one asked for: pause"
        in agent.model.history[0]["messages"][-1]["content"]
    )
    assert library.calls == [] and turn.answer == "Do you want me to pause?"


async def test_a_told_vote_sure_of_its_own_call_makes_it_and_backs_no_model_amount() -> None:
    # every like request asks for a pause: the model told so and following it makes the
    # vote's own call (`Vote.call`), not a question
    bank = Analogs([("pause", "my grandson just walked in with his drum"),
                    ("pause", "my grandson walked in with a trumpet")])  # fmt: skip
    library = FakeLibrary()
    agent = _agent(library, [PAUSE, "Thought: x\nFinal Answer: Paused."], analogs=bank)
    turn = await run(agent, REMARK)
    assert (
        "Requests like this one asked for: pause"
        in (agent.model.history[0]["messages"][-1]["content"])
    )
    assert library.calls == [("pause", {})]
    assert "made, their own call: the requests most like it ask for pause" in (
        turn.steps[0].thought
    )
    # told "rewind", the model's two minutes are its own: the vote cannot back an amount
    # it never saw ("这集重新来过 刚走神了" went back two minutes in a blind round)
    bank = Analogs([("seek:back", "i zoned out go back a bit"),
                    ("seek:back", "zoned out there go back a little")])  # fmt: skip
    rewind = 'Thought: back.\nAction: seek\nAction Input: {"seconds": -120, "relative": true}'
    library = FakeLibrary()
    agent = _agent(library, [rewind], analogs=bank)
    turn = await run(agent, "i zoned out again there")
    assert library.calls == [] and turn.answer.startswith("Do you want me to")


class _Guessing(FastPath):
    """The phrase rules' guess of a pause for any words ("propose": asked about first)."""

    def plan(self, reading, tools, context=None, schema=None, *, check=None):
        return Plan(calls=(FastMatch("pause", {}),), ask=("propose", ()))


async def test_a_guess_of_the_rules_is_asked_about_even_when_like_requests_agree() -> None:
    # the vote keys on the same words as the rules' guess: no second opinion, still asked
    library = FakeLibrary()
    agent = _agent(library, [], analogs=BANK, fast_path=_Guessing())
    turn = await run(agent, "hold on someone is at the door now")
    assert library.calls == [] and turn.answer == "Do you want me to pause?"


async def test_a_guess_the_like_requests_contradict_makes_their_call() -> None:
    library = FakeLibrary()
    agent = _agent(library, [PAUSE, "Thought: x\nFinal Answer: Next."], analogs=BANK)
    turn = await run(agent, "been through this bit already, on to the following one")
    assert library.calls == [("next_episode", {})]
    assert "made next_episode instead of pause" in turn.steps[0].thought


async def test_a_sure_vote_for_no_timer_makes_that_call() -> None:
    # the model told "no timer" guesses a pause: the vote, sure, cancels the timer it was
    # asked to, and nothing is paused
    bank = Analogs([("sleep:off", "never mind the timer just let it keep going"),
                    ("sleep:off", "forget that timer let it keep going tonight")])  # fmt: skip
    library = FakeLibrary()
    agent = _agent(library, [PAUSE, "Thought: x\nFinal Answer: ok."], analogs=bank)
    turn = await run(agent, "never mind that timer thing let it keep going")
    assert library.calls == [("sleep_timer", {"minutes": 0})]
    assert "made sleep_timer instead of pause" in turn.steps[0].thought


async def test_like_requests_that_disagree_leave_the_question() -> None:
    library = FakeLibrary()
    agent = _agent(library, [PAUSE], analogs=BANK)
    turn = await run(agent, REMARK)
    assert turn.answer == "Do you want me to pause?" and library.calls == []
    agent = _agent(FakeLibrary(), [PAUSE], analogs=None)
    turn = await run(agent, "the postman is at the door")
    assert turn.answer == "Do you want me to pause?"


async def test_a_reading_the_like_requests_doubt_is_asked_about_or_replaced() -> None:
    # A bank whose requests very like "pause it" are all questions: the reading (pause) is
    # asked about, not made; a yes makes it.
    bank = Analogs([("question", "pause it please"), ("question", "pause it now")])
    library = FakeLibrary()
    agent = _agent(library, [], analogs=bank, fast_path=True)
    turn = await run(agent, "pause it")
    assert turn.answer == "Do you want me to pause?" and library.calls == []
    assert "the requests most like it ask for question" in turn.steps[-1].thought
    await run(agent, "yes")
    assert library.calls == [("pause", {})]
    # When their intent is a call that needs nothing more, it is made in place of the
    # reading's: the rules matched a piece of the words, the like requests the whole.
    bank = Analogs([("stop", "pause it please"), ("stop", "pause it now"), ("stop", "pause")])
    library = FakeLibrary()
    agent = _agent(library, [], analogs=bank, fast_path=True)
    turn = await run(agent, "pause it")
    assert library.calls == [("stop", {})], turn.answer
    assert "made stop instead: the requests most like it ask for stop" in turn.steps[-1].thought
    library = FakeLibrary()
    agent = _agent(library, [], analogs=Analogs([("pause", "pause it please")]), fast_path=True)
    await run(agent, "pause it")
    assert library.calls == [("pause", {})]


async def test_the_model_is_told_what_like_requests_asked_for() -> None:
    # The vote for "the postman is at the door" is pause (BANK): the model's user message
    # says so, with the tool; a remark like nothing in the bank gets no such line.
    agent = _agent(FakeLibrary(), [PAUSE, "Thought: x\nFinal Answer: Paused."], analogs=BANK)
    await run(agent, "the postman is at the door")
    user = agent.model.history[0]["messages"][-1]["content"]
    assert "(Requests like this one asked for: pause: pause)" in user.splitlines()
    assert user.splitlines()[-1] == "Listener: the postman is at the door"
    agent = _agent(FakeLibrary(), [PAUSE], analogs=BANK)
    await run(agent, REMARK)
    assert "Requests like this one" not in agent.model.history[0]["messages"][-1]["content"]
    agent = _agent(FakeLibrary(), [PAUSE], analogs=None)
    await run(agent, "the postman is at the door")
    assert "Requests like this one" not in agent.model.history[0]["messages"][-1]["content"]


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_intent_has_a_likeness_line_naming_a_player_tool(language: str) -> None:
    from agent.prompt import likeness_line
    from player.tools import PlayerTools
    from words.analogs import INTENTS

    tools = [name for name in vars(PlayerTools) if not name.startswith("_")]
    for intent in INTENTS:
        line = likeness_line(intent, language, tools)
        assert line, intent
        named = [t for t in tools if re.search(rf"\b{t}\b", line)]
        answers = intent in ("question", "asks", "declines")  # no tool needed
        assert named or answers, (intent, line)
        assert likeness_line(intent, language, ()) == (line if answers else ""), intent


async def test_steps_of_one_call_are_answered_by_the_last() -> None:
    # "three chapters on": three calls, and the listener hears where they ended, once
    library = FakeLibrary()
    agent = _agent(library, [], analogs=None, fast_path=True)
    turn = await run(agent, "skip ahead three chapters")
    assert library.calls == [("next_episode", {})] * 3
    assert turn.answer == "Now playing 西游记, episode 6."


async def test_a_place_answers_the_question_of_which_book() -> None:
    # "play harry potter" with two of them: asked which; "the second one" plays the second
    library = FakeLibrary()
    registry = ToolRegistry([tool_from_function(f) for f in library.tools()])
    titles = ["Harry Potter and the Philosopher's Stone", "Harry Potter and the Chamber of Secrets"]
    agent = Agent(registry, ScriptedModel([]), language="en", catalog=lambda: [*titles, "Dracula"])
    turn = await run(agent, "play harry potter")
    assert turn.answer.startswith("Which one would you like") and library.calls == []
    second = max(titles, key=turn.answer.find)  # the one the question named second
    await run(agent, "the second one")
    assert [(c[0], c[1]["keyword"]) for c in library.calls] == [("play_book", second)]
    library.calls.clear()
    await run(agent, "the second one")  # no question asked before: no book chosen
    assert ("play_book", second) not in [(c[0], c[1].get("keyword")) for c in library.calls]
    # a new exchange (`forget`, as the benchmark begins each request) drops the question
    await run(agent, "play harry potter")
    agent.forget()
    library.calls.clear()
    await run(agent, "the second one")
    assert ("play_book", second) not in [(c[0], c[1].get("keyword")) for c in library.calls]


async def test_a_complaint_about_the_episode_asks_about_the_next() -> None:
    # "this chapter is boring" alone: the next one, asked about first; a yes makes it
    library = FakeLibrary()
    agent = _agent(library, [], analogs=None, fast_path=True)
    turn = await run(agent, "this chapter is boring")
    assert library.calls == [] and turn.answer == "Do you want me to play the next episode?"
    await run(agent, "yes")
    assert library.calls == [("next_episode", {})]
