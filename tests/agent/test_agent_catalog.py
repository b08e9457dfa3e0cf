"""Album titles in the prompt and grammar (by role), no tool removed by words, no repeats."""

from __future__ import annotations

import asyncio

import pytest
from agent_books import FakeLibrary, books_registry
from agent_reading import said

from agent import Agent, Constraints, ScriptedModel, StepKind, ToolRegistry

TITLES = ["西游记", "三国演义", "음악", "Treasure Island"]
WITHOUT_HANGUL = [t for t in TITLES if t != "음악"]
"""The same library without its Korean title, for tests about something else."""


async def run(agent: Agent, utterance: str):
    return await asyncio.wait_for(agent.run(utterance), timeout=10)


def _keywords(constraints: Constraints) -> list[str]:
    return constraints.choices.get("title", [])


async def test_a_repeated_failed_call_is_not_run_again() -> None:
    library = FakeLibrary()
    bad = 'Thought: 播放。\nAction: play_book\nAction Input: {"keyword": "2", "section": 2}'
    model = ScriptedModel([bad] * 6)
    agent = Agent(ToolRegistry(library.tools()), model, fast_path=False)
    turn = await run(agent, "음악 2번 재생")
    assert library.calls == [("play_book", {"keyword": "2", "section": 2})]
    assert model.pending == 4  # two model steps, not six
    assert turn.steps[-1].observation == "(repeated failed call, not run again)"
    assert turn.steps[-1].ok is False
    assert turn.answer == "No album matches '2'."  # the tool's own words, spoken
    assert "repeated failed call" in turn.error


async def test_a_different_call_after_a_failure_still_runs() -> None:
    library = FakeLibrary()
    bad = 'Thought: x\nAction: play_book\nAction Input: {"keyword": "2", "section": 2}'
    good = 'Thought: x\nAction: play_book\nAction Input: {"keyword": "음악", "section": 2}'
    model = ScriptedModel([bad, good])
    turn = await run(Agent(books_registry(library), model, fast_path=False), "음악 2번 재생")
    assert [c[1]["keyword"] for c in library.calls] == ["2", "음악"]
    assert turn.answer == "Now playing 음악, episode 2."


async def test_titles_are_listed_and_rerendered_only_when_they_change() -> None:
    titles = list(TITLES)
    model = ScriptedModel(["Thought: x\nFinal Answer: 好。"] * 3)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, catalog=lambda: list(titles))
    await run(agent, "你好")
    prefix = agent.prompt_prefix()
    first = agent.system_prompt()
    assert prefix[-1]["role"] == "system"  # the titles come last, after the examples
    assert prefix[-1]["content"] == "书库里的专辑：西游记、三国演义、음악、Treasure Island"
    assert "西游记" not in first  # not in the stable system text
    assert model.history[0]["messages"][: len(prefix)] == prefix
    assert model.history[0]["messages"][len(prefix)]["content"].endswith("用户：你好")
    await run(agent, "你好")
    assert agent.system_prompt() is first  # unchanged list: the very same (cached) text
    titles.append("红楼梦")
    await run(agent, "你好")
    changed = agent.prompt_prefix()
    assert changed[-1]["content"].endswith("、红楼梦")
    assert changed[:-1] == prefix[:-1]  # only the tail changed
    assert model.history[2]["messages"][len(prefix) - 1]["content"] != prefix[-1]["content"]


async def test_english_prompt_and_the_registry_catalog() -> None:
    registry = ToolRegistry(FakeLibrary().tools(), catalog=lambda: ["Dracula", "Emma"])
    agent = Agent(registry, ScriptedModel(), language="en", catalog_size=1)
    agent.titles()
    text = agent.prompt_prefix()[-1]["content"]
    assert text == "Albums in the library: Dracula"
    assert "Emma" not in agent.system_prompt()


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
    ("utterance", "title", "section", "not_keywords", "library"),
    [
        ("play 음악 episode 2", "음악", [2], ["episode 2", "2", "episode"], TITLES),
        ("음악 2번 재생", "음악", [2], ["2번", "재생"], TITLES),
        ("我想听三国演义", "三国演义", [], ["我想听", "听"], WITHOUT_HANGUL),
        ("put on treasure island chapter 5", "Treasure Island", [5], ["chapter 5"], WITHOUT_HANGUL),
    ],
)
def test_a_named_title_is_the_keyword(utterance, title, section, not_keywords, library) -> None:
    constraints = Constraints()
    reading = said(utterance, library)
    constraints.quote(reading)
    assert constraints.mention(reading) == [title]
    assert _keywords(constraints) == [title]
    for word in not_keywords:
        assert word not in _keywords(constraints)
    assert constraints.choices["episode"] == section  # 三 of 三国演义 is no episode
    assert "title" in constraints.required


@pytest.mark.parametrize(
    ("utterance", "named"),
    [
        ("播放水浒传少儿版", ["水浒传少儿版"]),  # the longer of two nested titles
        ("播放水浒传", ["水浒传"]),
        ("我想听西遊記", ["西游记"]),  # traditional script, folded as the player folds
        ("ＰＬＡＹ ＩＴ ＡＧＡＩＮ", []),  # all capitals: no word is written capitalised
        ("play it", []),  # a pronoun title is named only when written capitalised
        ("play It", ["It"]),
        ("how many chapters are in It", ["It"]),
        ("It's late", []),  # the sentence's first word
        ("play italian stories", []),  # "it" inside a word names nothing
        ("play us please", []),
        ("ＰＬＡＹ ＭＯＢＹ ＤＩＣＫ", ["Moby Dick"]),  # full-width, case
        ("我想听家", []),  # one CJK character is not a named title
    ],
)
def test_titles_are_named_at_token_boundaries(utterance, named) -> None:
    titles = ["西游记", "水浒传", "水浒传少儿版", "It", "Us", "家", "Moby Dick"]
    constraints = Constraints()
    assert constraints.mention(said(utterance, titles)) == named


def test_a_pronoun_title_stays_a_keyword_but_binds_nothing() -> None:
    """ "It" and "Us" are library titles made of function words: "turn it off" names no
    book (no title required, nothing excluded for it), yet "play it" can still search It."""
    titles = ["It", "Us", "Dune"]
    for utterance in ("turn it off after twenty minutes", "play it"):
        constraints = Constraints()
        reading = said(utterance, titles)
        constraints.quote(reading, titles=titles)
        assert constraints.mention(reading) == []
        assert "title" not in constraints.required
        assert not constraints.excluded
    constraints = Constraints()
    constraints.quote(said("play it", titles), titles=titles)
    assert "it" in _keywords(constraints)


def test_spans_skip_stop_words_letters_and_episode_phrases() -> None:
    constraints = Constraints()
    constraints.quote(said("I want the book 第五集"))
    keywords = _keywords(constraints)
    for word in ("I", "the", "book", "第五集", "五集", "第五", "第5集"):
        assert word not in keywords
    assert "want" in keywords
    assert constraints.choices["episode"] == [5]


def test_no_title_named_changes_nothing() -> None:
    constraints = Constraints()
    reading = said("播放聊斋第七集", WITHOUT_HANGUL)
    constraints.quote(reading)
    before = list(_keywords(constraints))
    assert "聊斋" in before
    assert constraints.mention(reading) == []
    assert _keywords(constraints) == before
    assert "title" not in constraints.required


def test_hangul_words_are_keyword_spans() -> None:
    constraints = Constraints()
    constraints.quote(said("음악 2번 재생"))
    assert "음악" in _keywords(constraints)
    assert constraints.choices["episode"] == [2]


def test_no_number_said_leaves_the_episode_out() -> None:
    constraints = Constraints()
    constraints.quote(said("接着听西游记"))
    assert constraints.choices["episode"] == []


async def test_no_tool_is_removed_by_words() -> None:
    model = ScriptedModel(["Thought: x\nFinal Answer: 好。"] * 4, supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False, catalog=lambda: TITLES)
    for utterance in ("搜一下西游记", "暂停西游记", "给我讲个故事", "声音大一点吧"):
        await run(agent, utterance)
    assert len(model.history) == 4  # one model step a turn: each turn reached the model
    for history in model.history:
        for tool in ("search_album", "play_book", "pause", "stop"):
            assert f'"{tool}\\n' in history["grammar"], (tool, history["messages"][-1])


async def test_a_volume_is_set_only_to_a_number_said() -> None:
    """set_volume takes a percent the listener said; with none ("声音大一点吧") it is not
    offered, so no volume is made up (the model steps it instead)."""
    model = ScriptedModel(["Thought: x\nFinal Answer: 好。"] * 2, supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False, catalog=lambda: TITLES)
    await run(agent, "声音大一点吧")
    await run(agent, "把声音调到三十")
    without, said = (h["grammar"] for h in model.history)
    assert '"set_volume\\n' not in without
    rule = next(line for line in said.splitlines() if line.startswith("t-set-volume-args ::="))
    assert '"30"' in rule and '"80"' not in rule, rule


async def test_a_named_title_must_be_the_keyword_in_the_grammar() -> None:
    model = ScriptedModel(["Thought: x\nFinal Answer: 好。"], supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False, catalog=lambda: TITLES)
    await run(agent, "来点西游记")
    grammar = model.history[0]["grammar"]
    rule = next(line for line in grammar.splitlines() if line.startswith("t-play-book-args"))
    assert rule.startswith('t-play-book-args ::= "{" ws "\\"keyword\\""')
    assert '"\\"西游记\\""' in rule and "section" not in rule  # no episode said


async def test_titles_do_not_reach_the_fast_path() -> None:
    library = FakeLibrary()
    agent = Agent(books_registry(library), ScriptedModel(), catalog=library.titles)
    turn = await run(agent, "暂停")
    assert turn.steps[0].kind == StepKind.ACTION and turn.backend == "fastpath"


async def test_the_listener_context_is_in_the_user_turn_and_its_ids_admitted() -> None:
    library = FakeLibrary()
    play = 'Thought: 第五集。\nAction: play_book\nAction Input: {"section": 5}'
    model = ScriptedModel([play], supports_grammar=True)
    agent = Agent(books_registry(library, context=True), model, fast_path=False)
    turn = await run(agent, "播第五集")
    prefix = agent.prompt_prefix()
    user = model.history[0]["messages"][len(prefix)]["content"]
    assert user == "（播放器：playing 西游记, episode 3）\n用户：播第5集"
    assert model.history[0]["messages"][0]["content"] == agent.system_prompt()
    grammar = model.history[0]["grammar"]
    assert '"\\"xyj01\\""' in grammar  # the id of the book playing, from the context
    assert library.calls == [("play_book", {"keyword": "", "section": 5})]
    assert turn.answer == "Now playing 西游记, episode 5."


async def test_a_tool_without_arguments_is_offered_once_per_turn() -> None:
    status = "Thought: x\nAction: get_status\nAction Input: {}"
    model = ScriptedModel([status, "Thought: x\nFinal Answer: 好。"], supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False)
    await run(agent, "外面现在怎么样")
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
        ("skip ahead 60 seconds", []),  # a duration, no episode
        ("skip to 60", [60]),
    ],
)
def test_the_episode_number_is_the_one_marked(utterance: str, sections: list[int]) -> None:
    constraints = Constraints()
    constraints.quote(said(utterance))
    assert constraints.choices["episode"] == sections


@pytest.mark.parametrize(
    ("context", "final"),
    [
        ({"message": "没有在播放"}, False),  # no fact to answer from: a tool first
        ({"message": "正在播放 西游记 第3集", "now": {"id": "xyj01", "title": "西游记"}}, True),
    ],
)
async def test_an_answer_without_a_tool_needs_facts_in_the_context(context, final) -> None:
    model = ScriptedModel(["Thought: x\nFinal Answer: 好。"], supports_grammar=True)
    agent = Agent(books_registry(FakeLibrary()), model, fast_path=False, context=lambda u: context)
    await run(agent, "北京到上海有多远")
    grammar = model.history[0]["grammar"]
    assert ('"Final Answer: "' in grammar) is final


async def test_a_play_that_would_restart_the_book_playing_now_must_name_another() -> None:
    """While a book plays and the listener says no episode ("这集听过了，换一个"), a
    play_book call must name a book: left out, the title is the book playing now, and
    playing it again changes nothing. With no title admissible it cannot be called; a
    paused book, an episode said or a title named make it possible again. A title the
    listener named must be given, and is the only one admitted."""
    status = "Thought: x\nAction: get_status\nAction Input: {}"

    async def grammar_for(utterance: str, *, paused: bool = False) -> str:
        library = FakeLibrary()
        library.playing, library.paused = ("西游记", 3), paused
        model = ScriptedModel([status, "Thought: x\nFinal Answer: 好。"], supports_grammar=True)
        agent = Agent(
            books_registry(library, context=True), model, fast_path=False, catalog=library.titles
        )
        await run(agent, utterance)
        return model.history[0]["grammar"]

    grammar = await grammar_for("这集听过了，换一个")
    assert '"play_book' not in grammar and '"next_episode' in grammar
    grammar = await grammar_for("这集听过了，换成三国演义")
    rule = next(line for line in grammar.splitlines() if line.startswith("t-play-book-args ::="))
    assert rule.startswith('t-play-book-args ::= "{" ws "\\"keyword\\""'), rule  # given
    assert '"\\"三国演义\\""' in rule and '"\\"西游记\\""' not in rule, rule
    assert '"play_book' in await grammar_for("这集听过了，换一个", paused=True)
    assert '"play_book' in await grammar_for("这集听过了，放第五集")


async def test_the_thought_names_the_book_the_listener_named() -> None:
    """A model step on a request naming a book begins its Thought with that book, so the
    trace never says one book while the action plays another."""
    library = FakeLibrary()
    model = ScriptedModel(["Thought: 西游记\nFinal Answer: 好。"] * 2, supports_grammar=True)
    agent = Agent(books_registry(library), model, fast_path=False, catalog=library.titles)
    await run(agent, "西游记好听吗")
    root = next(
        line for line in model.history[0]["grammar"].splitlines() if line.startswith("root")
    )
    assert root.startswith('root ::= "Thought: " "西游记" line-char'), root
    plain = ScriptedModel(["Thought: x\nFinal Answer: 好。"] * 2, supports_grammar=True)
    await run(
        Agent(books_registry(library), plain, fast_path=False, catalog=library.titles), "你好"
    )
    root = next(
        line for line in plain.history[0]["grammar"].splitlines() if line.startswith("root")
    )
    assert '"西游记"' not in root
