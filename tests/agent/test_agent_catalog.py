"""Album titles in the prompt and grammar, questions kept from playing, no repeated failures."""

from __future__ import annotations

import asyncio

import pytest
from agent_books import FakeLibrary, books_registry

from agent import Agent, Constraints, ScriptedModel, StepKind, ToolRegistry
from agent.intent import about_current, asks_only, wants_books

TITLES = ["西游记", "三国演义", "음악", "Treasure Island"]


async def run(agent: Agent, utterance: str):
    return await asyncio.wait_for(agent.run(utterance), timeout=10)


def _keywords(constraints: Constraints) -> list[str]:
    return constraints.choices.get("keyword", [])


async def test_a_repeated_failed_call_is_not_run_again() -> None:
    library = FakeLibrary()
    bad = 'Thought: 播放。\nAction: search_and_play\nAction Input: {"keyword": "2", "section": 2}'
    model = ScriptedModel([bad] * 6)
    agent = Agent(ToolRegistry(library.tools()), model, fast_path=False)
    turn = await run(agent, "음악 2번 재생")
    assert library.calls == [("search_and_play", {"keyword": "2", "section": 2})]
    assert model.pending == 4  # two model steps, not six
    assert turn.steps[-1].observation == "(repeated failed call, not run again)"
    assert turn.steps[-1].ok is False
    assert turn.answer == "No album matches '2'."  # the tool's own words, spoken
    assert "repeated failed call" in turn.error


async def test_a_different_call_after_a_failure_still_runs() -> None:
    library = FakeLibrary()
    bad = 'Thought: x\nAction: search_and_play\nAction Input: {"keyword": "2", "section": 2}'
    good = 'Thought: x\nAction: search_and_play\nAction Input: {"keyword": "음악", "section": 2}'
    model = ScriptedModel([bad, good])
    turn = await run(Agent(books_registry(library), model, fast_path=False), "음악 2번 재생")
    assert [c[1]["keyword"] for c in library.calls] == ["2", "음악"]
    assert turn.answer == "Now playing 음악, episode 2."


async def test_titles_are_listed_and_rerendered_only_when_they_change() -> None:
    titles = list(TITLES)
    model = ScriptedModel(["Thought: x\nFinal Answer: 好。"] * 3)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, catalog=lambda: list(titles))
    await run(agent, "你好")
    first = agent.system_prompt()
    assert "书库里的专辑：西游记、三国演义、음악、Treasure Island" in first
    assert model.history[0]["messages"][0]["content"] == first
    await run(agent, "你好")
    assert agent.system_prompt() is first  # unchanged list: the very same (cached) text
    titles.append("红楼梦")
    await run(agent, "你好")
    assert "、红楼梦" in agent.system_prompt()
    assert model.history[2]["messages"][0]["content"] != first


async def test_english_prompt_and_the_registry_catalog() -> None:
    registry = ToolRegistry(FakeLibrary().tools(), catalog=lambda: ["Dracula", "Emma"])
    agent = Agent(registry, ScriptedModel(), language="en", catalog_size=1)
    agent.titles()
    text = agent.system_prompt()
    assert "Albums in the library: Dracula\n" in text
    assert "Emma" not in text


async def test_a_failing_catalog_keeps_the_last_titles() -> None:
    calls = []

    def catalog() -> list[str]:
        calls.append(1)
        if len(calls) > 1:
            raise OSError("disk gone")
        return ["西游记"]

    agent = Agent(ToolRegistry(FakeLibrary().tools()), ScriptedModel(), catalog=catalog)
    assert agent.titles() == ["西游记"]
    assert agent.titles() == ["西游记"]


@pytest.mark.parametrize(
    ("utterance", "title", "section", "not_keywords"),
    [
        ("play 음악 episode 2", "음악", [2], ["episode 2", "2", "episode"]),
        ("음악 2번 재생", "음악", [2], ["2번", "재생"]),
        ("我想听三国演义", "三国演义", [1], ["我想听", "听"]),
        ("put on treasure island chapter 5", "Treasure Island", [5], ["chapter 5"]),
    ],
)
def test_a_named_title_is_the_keyword(utterance, title, section, not_keywords) -> None:
    constraints = Constraints()
    constraints.quote(utterance)
    assert constraints.mention(TITLES, utterance) == [title]
    keywords = _keywords(constraints)
    assert keywords[0] == title
    for word in not_keywords:
        assert word not in keywords
    assert constraints.choices["section"] == section


def test_spans_containing_the_title_stay_admissible() -> None:
    constraints = Constraints()
    constraints.quote("음악 2화 재생")
    constraints.mention(TITLES, "음악 2화 재생")
    keywords = _keywords(constraints)
    assert "음악 2화 재생" in keywords and "음악 2화" in keywords
    assert "재생" not in keywords and "2화" not in keywords


def test_no_title_named_changes_nothing() -> None:
    constraints = Constraints()
    constraints.quote("播放聊斋第七集")
    before = list(_keywords(constraints))
    assert constraints.mention(TITLES, "播放聊斋第七集") == []
    assert _keywords(constraints) == before


def test_hangul_words_are_keyword_spans() -> None:
    constraints = Constraints()
    constraints.quote("음악 2번 재생")
    assert "음악" in _keywords(constraints)
    assert constraints.choices["section"] == [2]


@pytest.mark.parametrize(
    ("utterance", "expected"),
    [
        ("搜一下红楼梦", True),
        ("有没有三体这本书", True),
        ("西游记有多少集", True),
        ("我现在听的这本书一共有多少集", True),
        ("how many episodes does Alice in Wonderland have", True),
        ("how many episodes does the book I'm listening to have", True),
        ("find me something called Treasure Island", True),
        ("播放西游记第1集", False),
        ("找一下西游记然后播放", False),
        ("find Dracula and play it", False),
        ("I want to listen to Alice in Wonderland", False),
        ("我想听三国演义", False),
    ],
)
def test_asks_only(utterance: str, expected: bool) -> None:
    assert asks_only(utterance) is expected


async def test_a_question_leaves_playback_out_of_the_grammar() -> None:
    model = ScriptedModel(["Thought: x\nFinal Answer: 好。"] * 2, supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False, catalog=lambda: TITLES)
    await run(agent, "搜一下西游记")
    await run(agent, "播放西游记")
    asked, play = (h["grammar"] for h in model.history)
    assert '"search_and_play' not in asked and '"search_album' in asked
    assert '"search_and_play' in play
    assert '"\\"西游记\\""' in play


async def test_titles_do_not_reach_the_fast_path() -> None:
    library = FakeLibrary()
    agent = Agent(books_registry(library), ScriptedModel(), catalog=library.titles)
    turn = await run(agent, "暂停")
    assert turn.steps[0].kind == StepKind.ACTION and turn.backend == "fastpath"


async def test_a_named_title_leaves_only_keyword_tools() -> None:
    model = ScriptedModel(["Thought: x\nFinal Answer: 好。"], supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False, catalog=lambda: TITLES)
    await run(agent, "来点西游记")
    grammar = model.history[0]["grammar"]
    assert '"search_and_play' in grammar and '"search_album' in grammar
    for tool in ("seek", "set_volume", "pause", "get_status"):
        assert f'"{tool}\\n' not in grammar


async def test_the_current_book_is_asked_for_first() -> None:
    library = FakeLibrary()
    status = "Thought: 先看状态。\nAction: get_status\nAction Input: {}"
    search = 'Thought: 再搜索。\nAction: search_album\nAction Input: {"keyword": "西游记"}'
    final = "Thought: 好。\nFinal Answer: 西游记一共一百集。"
    model = ScriptedModel([status, search, final], supports_grammar=True)
    agent = Agent(books_registry(library), model, fast_path=False, catalog=library.titles)
    turn = await run(agent, "我现在听的这本书一共有多少集")
    assert [c[0] for c in library.calls] == ["get_status", "search_album"]
    first, second, _ = (h["grammar"] for h in model.history)
    assert '"get_status' in first and '"search_album' not in first
    assert "Final Answer" not in first
    assert '"search_album' in second and '"\\"西游记\\""' in second
    assert '"\\"书\\""' not in second  # the status named the book: only its title
    assert '"search_and_play' not in second and '"stop' not in second  # a question
    assert "Final Answer" not in second  # no count before the search has given it
    assert turn.answer == "西游记一共一百集。"


@pytest.mark.parametrize(
    ("utterance", "expected"),
    [
        ("how many episodes does the book I'm listening to have", True),
        ("这本书讲的是什么", True),
        ("现在放的这本书有多少集", True),
        ("how many episodes does Dracula have", False),
        ("西游记有多少集", False),
    ],
)
def test_about_current(utterance: str, expected: bool) -> None:
    assert about_current(utterance) is expected


@pytest.mark.parametrize(
    ("utterance", "expected"),
    [
        ("给我讲个笑话", False),
        ("今天天气怎么样", False),
        ("tell me a joke", False),
        ("who won the football game", False),
        ("来点轻松的", True),
        ("有没有聊斋", True),
        ("play something relaxing", True),
        ("do you have Dracula", True),
    ],
)
def test_wants_books(utterance: str, expected: bool) -> None:
    assert wants_books(utterance) is expected


async def test_small_talk_gets_no_search_tools_when_the_library_is_known() -> None:
    model = ScriptedModel(["Thought: x\nFinal Answer: 抱歉。"] * 2, supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False, catalog=lambda: TITLES)
    await run(agent, "给我讲个笑话")
    await run(Agent(books_registry(FakeLibrary()), model, fast_path=False), "给我讲个笑话")
    known, unknown = (h["grammar"] for h in model.history)
    assert "Action" not in known and "Final Answer" in known  # no tool can tell a joke
    assert '"search_and_play' in unknown  # no library known: nothing to judge by


async def test_small_talk_keeps_control_tools_for_control_words() -> None:
    model = ScriptedModel(["Thought: x\nFinal Answer: 好。"], supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False, catalog=lambda: TITLES)
    await run(agent, "声音大一点吧")
    grammar = model.history[0]["grammar"]
    assert '"set_volume' in grammar and '"search_and_play' not in grammar


async def test_a_tool_without_arguments_is_offered_once_per_turn() -> None:
    status = "Thought: x\nAction: get_status\nAction Input: {}"
    model = ScriptedModel([status, "Thought: x\nFinal Answer: 好。"], supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False)
    await run(agent, "现在怎么样")
    first, second = (h["grammar"] for h in model.history)
    assert '"get_status' in first and '"get_status' not in second
    assert '"search_album' in second


@pytest.mark.parametrize(
    ("utterance", "sections"),
    [
        ("could you put on the third chapter of Dracula", [3]),
        ("start Dracula from chapter two", [2]),
        ("음악 2화 재생", [2]),
        ("放一下聊斋第五集", [5]),
        ("skip ahead 60 seconds", [60]),
    ],
)
def test_the_episode_number_is_the_one_marked(utterance: str, sections: list[int]) -> None:
    constraints = Constraints()
    constraints.quote(utterance)
    assert constraints.choices["section"] == sections
