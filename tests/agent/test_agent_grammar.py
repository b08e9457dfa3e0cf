"""The GBNF grammar with llama.cpp for real: a tiny random-weight GGUF replies in seconds."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

import pytest
from agent_books import FakeLibrary
from agent_reading import said

from agent import Agent, Constraints, ToolRegistry, build_grammar, parse
from agent.local import LocalModel

llama_cpp = pytest.importorskip("llama_cpp")


def _registry() -> ToolRegistry:
    return ToolRegistry(FakeLibrary().tools())


def _search(album_id: str = "xyj01", title: str = "西游记", episodes: int = 100) -> dict:
    return {"message": "Found", "albums": [{"id": album_id, "title": title, "episodes": episodes}]}


def _learn(constraints: Constraints, data: dict, tool: str = "search_album") -> None:
    constraints.learn(data, _registry().get(tool).output_schema)


def test_grammar_shape() -> None:
    constraints = Constraints()
    _learn(constraints, _search())
    text = build_grammar(_registry(), constraints=constraints)
    assert text.startswith('root ::= "Thought: "')
    assert '"play_book\\nAction Input: "' in text
    assert '"\\"xyj01\\""' in text  # album_id limited to the id seen
    assert '"Final Answer: "' in text


def test_ids_are_learned_by_role_from_data_never_from_prose() -> None:
    constraints = Constraints()
    _learn(constraints, _search("lib:3ea9489e79"))
    assert constraints.choices["album-id"] == ["lib:3ea9489e79"]
    assert constraints.names == {"lib:3ea9489e79": "西游记"}
    text = build_grammar(_registry(), constraints=constraints)
    assert '"\\"lib:3ea9489e79\\""' in text  # the real player's id shape, whole
    prose = Constraints()
    prose.learn({"message": "album_id: xyj01, id: lib:abc"}, {"type": "object"})
    assert prose.choices["album-id"] == []  # prose is never read
    untagged = Constraints()
    untagged.learn({"albums": [{"id": "x1"}]}, {"type": "object", "properties": {}})
    assert untagged.choices["album-id"] == []  # a field without a role is not an id


def test_tool_needing_an_unseen_id_is_not_admitted() -> None:
    registry = _registry()
    detail = registry.get("get_album_detail")
    constraints = Constraints()
    assert not constraints.admits(detail)
    _learn(constraints, _search())
    assert constraints.admits(detail)


def test_llama_cpp_accepts_the_grammar(vocab_gguf) -> None:
    llm = llama_cpp.Llama(str(vocab_gguf), vocab_only=True, verbose=False)
    constraints = Constraints()
    constraints.quote(said("播放西游记第二集"))
    _learn(constraints, _search())
    for grammar in (
        build_grammar(_registry()),
        build_grammar(_registry(), constraints=constraints),
        build_grammar(_registry(), allow_final=False),
        build_grammar([], allow_final=True),
    ):
        sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar.encode(), b"root")
        assert sampler, grammar
        llama_cpp.llama_sampler_free(sampler)
    broken = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, b"root ::= nothing", b"root")
    assert not broken  # the check above can fail


async def test_every_sampled_reply_parses(tiny_gguf) -> None:
    registry = _registry()
    constraints = Constraints()
    constraints.quote(said("播放西游记第二集"))
    _learn(constraints, _search())
    grammar = build_grammar(
        registry, constraints=constraints, thought_chars=24, answer_chars=24, string_chars=12
    )
    # llama.cpp's own grammar sampler (jump-forward off); the same seeds draw the same replies.
    model = LocalModel(
        tiny_gguf, n_ctx=512, max_tokens=200, temperature=1.0, n_threads=2, jump_forward=False
    )
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "播放西游记"}]
    kinds = set()
    try:
        for seed in range(8):
            model.seed = seed
            result = await asyncio.wait_for(model.complete(messages, grammar=grammar), timeout=60)
            assert result.finish_reason == "stop", result
            reply = parse(result.text, tools=registry.names())
            kinds.add(type(reply).__name__)
            if type(reply).__name__ == "Action":
                registry.validate(reply.tool, reply.arguments)  # matches the tool's schema
                if reply.tool == "get_album_detail":
                    assert reply.arguments["album_id"] == "xyj01"
                if reply.arguments.get("section") is not None:
                    assert reply.arguments["section"] == 2  # the number said
    finally:
        model.close()
    assert kinds  # replies were produced


async def test_system_prompt_kv_cache_is_reused(tiny_gguf) -> None:
    model = LocalModel(tiny_gguf, n_ctx=1024, max_tokens=4, n_threads=2)
    system = {"role": "system", "content": "你是小听。" * 40}
    try:
        first = await asyncio.wait_for(
            model.complete([system, {"role": "user", "content": "一"}]), 60
        )
        second = await asyncio.wait_for(
            model.complete([system, {"role": "user", "content": "二"}]), 60
        )
        system_tokens = model.count_tokens(system["content"])
    finally:
        model.close()
    assert first.cached_tokens == 0
    assert system_tokens > 100
    assert second.cached_tokens >= system_tokens
    assert second.prompt_tokens - second.cached_tokens < 10


async def test_cancel_stops_local_generation_quickly(tiny_gguf) -> None:
    model = LocalModel(tiny_gguf, n_ctx=2048, max_tokens=1500, temperature=1.0, n_threads=2)
    cancel = asyncio.Event()
    first_token = asyncio.Event()
    messages = [{"role": "user", "content": "hi"}]
    try:
        task = asyncio.ensure_future(
            model.complete(messages, cancel=cancel, on_token=lambda _: first_token.set())
        )
        await asyncio.wait_for(first_token.wait(), timeout=30)
        pressed = time.perf_counter()
        cancel.set()
        result = await asyncio.wait_for(task, timeout=5)
        latency = time.perf_counter() - pressed
    finally:
        model.close()
    assert result.finish_reason == "cancelled"
    assert latency < 0.1


async def test_agent_turn_on_the_tiny_model_always_ends(tiny_gguf) -> None:
    library = FakeLibrary()
    model = LocalModel(tiny_gguf, n_ctx=4096, max_tokens=120, temperature=1.0, n_threads=2)
    agent = Agent(ToolRegistry(library.tools()), model, fast_path=False, max_rounds=3)
    try:
        turn = await asyncio.wait_for(agent.run("播放西游记第二集"), timeout=120)
    finally:
        model.close()
    assert turn.answer
    assert all(s.kind.value != "format_error" for s in turn.steps)


def test_missing_model_file_is_unavailable(tmp_path) -> None:
    from agent import ModelUnavailable

    model = LocalModel(tmp_path / "missing.gguf")
    with pytest.raises(ModelUnavailable):
        asyncio.run(model.complete([{"role": "user", "content": "x"}]))


async def test_greedy_replies_parse_under_the_grammar(tiny_gguf) -> None:
    registry = _registry()
    grammar = build_grammar(registry, thought_chars=24, answer_chars=24, string_chars=12)
    model = LocalModel(tiny_gguf, n_ctx=512, max_tokens=200, temperature=0.0, n_threads=2)
    streamed: list[str] = []
    try:
        for utterance in ("播放西游记", "pause", "三体有几集", "what's on"):
            messages = [{"role": "user", "content": utterance}]
            result = await asyncio.wait_for(
                model.complete(messages, grammar=grammar, on_token=streamed.append), timeout=60
            )
            assert result.finish_reason == "stop", result
            reply = parse(result.text, tools=registry.names())
            if type(reply).__name__ == "Action":
                registry.validate(reply.tool, reply.arguments)
    finally:
        model.close()
    assert streamed


def test_keywords_are_spans_of_the_utterance_or_titles_in_data() -> None:
    constraints = Constraints()
    constraints.quote(said("给我放三体第五集"))
    keywords = constraints.choices["title"]
    assert "三体" in keywords and "水浒传" not in keywords
    _learn(constraints, {"message": "playing", "now": {"id": "hlm04", "title": "红楼梦"}},
           "get_status")  # fmt: skip
    assert "红楼梦" in constraints.choices["title"]
    english = Constraints()
    english.quote(said("play chapter 3 of Sherlock Holmes"))
    assert "Sherlock Holmes" in english.choices["title"]
    assert "Treasure Island" not in english.choices["title"]
    text = build_grammar(_registry(), constraints=english)
    assert '"\\"Sherlock Holmes\\""' in text
    free = Constraints()
    free.quote(said("x" * 200))  # too long to enumerate: left free
    assert "title" not in free.choices


def test_no_keyword_is_part_of_an_episode_phrase_or_a_duration() -> None:
    """ "上一" of 上一集 or "第几" of 第几集 is never searched as a title: the spans are taken
    around episode phrases, not across them."""
    for utterance, banned, kept in [
        ("再听一遍上一集", {"上一", "一集", "遍上", "再听一遍上"}, {"再听一遍"}),
        ("第几集了", {"第几", "几集", "第几集", "集了"}, set()),
        ("这集听过了，放下一集", {"这集", "下一", "放下一", "下一集"}, {"听过了"}),
        ("西游记有多少集", {"多少", "有多少", "少集"}, {"西游记"}),
        ("play the next episode of Dune", {"next", "the next", "next episode"}, {"Dune"}),
        ("skip to chapter 10 of It", {"chapter", "10"}, {"It"}),
        ("skip ahead 30 seconds", {"30 seconds", "seconds", "ahead 30"}, {"skip ahead"}),
        ("快进三十秒", {"三十秒", "秒", "进三十"}, {"快进"}),
        ("play Dune for ten minutes", {"ten minutes", "Dune for ten"}, {"Dune"}),
    ]:
        constraints = Constraints()
        constraints.quote(said(utterance))
        titles = set(constraints.choices["title"])
        assert not banned & titles, (utterance, banned & titles)
        assert kept <= titles, utterance


def test_one_character_is_a_keyword_only_when_it_is_a_title() -> None:
    """With the library's titles, "家" stays a keyword of "播放家" but "一", "放" or "听" of
    "再听一遍上一集" do not; without titles (no catalog) one character stays admitted."""
    titles = ["家", "西游记", "一千零一夜"]
    constraints = Constraints()
    constraints.quote(said("播放家", titles), titles=titles)
    assert "家" in constraints.choices["title"] and "放" not in constraints.choices["title"]
    constraints = Constraints()
    constraints.quote(said("再听一遍上一集", titles), titles=titles)
    chosen = constraints.choices["title"]
    assert not {"一", "再", "听", "遍", "再听一遍"} & set(chosen)
    free = Constraints()
    free.quote(said("再听一遍上一集"))
    assert "一" in free.choices["title"]


def test_a_keyword_of_function_words_only_is_no_title_unless_the_library_has_it() -> None:
    """Spans made only of function words ("听过了", "这个", "this book", "sorry") are no
    keyword; a library title made of them ("It", "Just So Stories") still is, and so is
    any span without the library's titles (no catalog)."""
    titles = ["西游记", "It", "Just So Stories", "Little Women"]
    for utterance, banned, kept in [
        ("这集听过了，放下一集", {"听过了", "过了", "这集听过了"}, set()),
        ("我正在听的这个，总共几回", {"听的这个", "这个", "我正在听的这个", "总共"}, set()),
        ("how long is this book, like how many parts", {"this book", "long", "like"}, set()),
        ("sorry, what chapter did we get to?", {"sorry", "sorry what"}, set()),
        ("what time is it", {"what", "is it"}, {"time", "it"}),
        ("play just so stories", {"just so"}, {"just so stories"}),
        ("put on little women", {"little"}, {"little women", "women"}),
        ("播放西游记", set(), {"西游记"}),
    ]:
        constraints = Constraints()
        constraints.quote(said(utterance, titles), titles=titles)
        chosen = set(constraints.choices["title"])
        assert not banned & chosen, (utterance, banned & chosen)
        assert kept <= chosen, (utterance, kept - chosen)
    free = Constraints()
    free.quote(said("这集听过了，放下一集"))
    assert "听过了" in free.choices["title"]


def test_a_seek_or_a_timer_takes_the_duration_said(vocab_gguf) -> None:
    """Seconds and minutes come from the durations the listener said (either sign for a
    seek, 0 to cancel); nothing said leaves the amount free; llama.cpp compiles it."""
    from agent.gbnf import Matcher
    from words.amounts import durations_said

    assert durations_said("快进三十秒") == {30}
    assert durations_said("半小时后关掉") == {1800}
    assert durations_said("一个半小时后停") == {5400}
    assert durations_said("stop in half an hour") == {1800}
    assert durations_said("三分二十秒") == {180, 20, 200}
    assert durations_said("跳到5:30") == {330}
    assert durations_said("播放西游记第3集") == set()
    assert durations_said("a timer of twenty five minutes") == {1500}  # never 5 minutes
    assert durations_said("讲小时候的故事") == set()  # a unit without a number
    constraints = Constraints()
    constraints.quote(said("快进三十秒"))
    grammar = build_grammar(_registry(), constraints=constraints)
    matcher = Matcher(grammar)
    assert _admits(matcher, "seek", '{"seconds": 30}')
    assert _admits(matcher, "seek", '{"seconds": -30}')
    assert not _admits(matcher, "seek", '{"seconds": 120}')
    assert _llama_compiles(vocab_gguf, grammar)
    timer = Constraints()
    timer.quote(said("半小时后关掉"))
    matcher = Matcher(build_grammar(_registry(), constraints=timer))
    assert _admits(matcher, "sleep_timer", '{"minutes": 30}')
    assert not _admits(matcher, "sleep_timer", '{"minutes": 3}')
    free = Constraints()
    free.quote(said("快进一点"))
    matcher = Matcher(build_grammar(_registry(), constraints=free))
    assert _admits(matcher, "seek", '{"seconds": 45}')


def test_counts_are_small_integers_and_an_episode_may_count_from_the_end() -> None:
    text = build_grammar(_registry())
    assert "json-count ::= [1-9] [0-9]{0,3}" in text
    # section -1 is the last episode ("最后一集"): the rule admits a sign, four digits at most
    assert '"\\"section\\"" ws ":" ws int-m9999-9999' in text
    assert 'int-m9999-9999 ::= "-"' in text


def test_episode_numbers_come_from_the_utterance() -> None:
    fifth = Constraints()
    fifth.quote(said("放一下三体第五集"))
    assert fifth.choices["episode"] == [5]
    english = Constraints()
    english.quote(said("start Alice in Wonderland from chapter two"))
    assert english.choices["episode"] == [2]
    unsaid = Constraints()
    unsaid.quote(said("来点小王子"))
    assert unsaid.choices["episode"] == []
    text = build_grammar(_registry(), constraints=fifth)
    assert '"\\"section\\"" ws ":" ws ("5")' in text
    text = build_grammar(_registry(), constraints=unsaid)
    assert '"\\"section\\""' not in text  # no number said: the episode is left out


def test_pages_stay_within_those_that_exist() -> None:
    constraints = Constraints()
    constraints.quote(said("搜一下西游记"))
    assert constraints.choices["page"] == [1]
    pages = {"type": "object", "properties": {"pages": {"type": "integer", "x-role": "page-count"}}}
    constraints.learn({"message": "x", "albums": [], "pages": 3}, pages)
    assert constraints.choices["page"] == [1, 2, 3]
    text = build_grammar(_registry(), constraints=constraints)
    assert '"\\"page\\"" ws ":" ws ("1" | "2" | "3")' in text


def test_an_episode_said_as_one_must_be_given() -> None:
    from agent.gbnf import Matcher

    hundred = Constraints()
    hundred.quote(said("我要听三国演义第一百二十集"))
    assert hundred.choices["episode"] == [120] and "episode" in hundred.required
    matcher = Matcher(build_grammar(_registry(), constraints=hundred))
    reply = "Thought: x\nAction: play_book\nAction Input: "
    assert not matcher.advance(matcher.start(), reply + '{"keyword": "三国演义"}')
    assert matcher.complete(
        matcher.advance(matcher.start(), reply + '{"keyword": "三国演义", "section": 120}')
    )
    english = Constraints()
    english.quote(said("put on chapter four of Heidi"))
    assert english.choices["episode"] == [4] and "episode" in english.required
    # Not an episode said: a part of a title, a count of chapters, 一 inside a word.
    for utterance in (
        "播放明朝那些事儿第二部",
        "go back one chapter",
        "这本书一共有多少集",
        "放一下家",
    ):
        constraints = Constraints()
        constraints.quote(said(utterance))
        assert "episode" not in constraints.required, utterance
    for utterance in (
        "go back one chapter",
        "这本书一共有多少集",
        "放一下家",
        "这一集完了放下一集",
    ):
        constraints = Constraints()
        constraints.quote(said(utterance))
        assert constraints.choices["episode"] == [], utterance
    named = Constraints()
    reading = said("播放三体第5集", ["三体"])
    named.quote(reading)
    assert named.mention(reading) == ["三体"]
    assert named.choices["episode"] == [5] and "episode" in named.required
    title_only = Constraints()
    reading = said("播放明朝那些事儿 第二部", ["明朝那些事儿 第二部"])
    title_only.quote(reading)
    assert title_only.mention(reading) == ["明朝那些事儿 第二部"]
    assert "episode" not in title_only.required


def _admits(matcher, tool: str, arguments: str) -> bool:
    reply = f"Thought: x\nAction: {tool}\nAction Input: {arguments}"
    return matcher.complete(matcher.advance(matcher.start(), reply))


def test_numbers_stay_within_the_schema_bounds() -> None:
    """The player's contract: minutes 0..600 (number), seconds -36000..36000 (number),
    percent 0..100 (integer, written out)."""
    from agent.gbnf import Matcher

    text = build_grammar(_registry())
    matcher = Matcher(text)
    minutes = {"0": True, "30": True, "12.5": True, "600": True, "600.0": True, "599.99": True,
               "-54": False, "-0.5": False, "601": False, "600.5": False, "1000": False,
               "007": False}  # fmt: skip
    for value, admitted in minutes.items():
        assert _admits(matcher, "sleep_timer", f'{{"minutes": {value}}}') is admitted, value
    seconds = {"-30": True, "-0.5": True, "30": True, "-36000": True, "36000": True,
               "-36000.5": False, "-36001": False, "36001": False, "-0": False}  # fmt: skip
    for value, admitted in seconds.items():
        assert _admits(matcher, "seek", f'{{"seconds": {value}}}') is admitted, value
    for value, admitted in {"0": True, "100": True, "-5": False, "101": False}.items():
        assert _admits(matcher, "set_volume", f'{{"percent": {value}}}') is admitted, value
    assert 'range-0-100 ::= "0" | "1"' in text  # a small integer range stays written out


async def wait(
    count: Annotated[int, {"minimum": 0, "maximum": 5000}],
    ratio: Annotated[float, {"exclusiveMinimum": 0, "maximum": 2.5}] = 1.0,
    offset: Annotated[int, {"minimum": -20, "maximum": -3}] = -5,
    free: int = 0,
) -> dict:
    """Wait (a tool with bounds of every kind).

    Args:
        count: how many, 0..5000
        ratio: above 0, at most 2.5
        offset: -20..-3
        free: any integer
    """
    return {"message": "ok"}


def _bounded_tools() -> ToolRegistry:
    return ToolRegistry([wait])


def test_bounds_of_any_schema_reach_the_grammar() -> None:
    from agent.gbnf import Matcher

    matcher = Matcher(build_grammar(_bounded_tools(), allow_final=False))

    def admits(arguments: str) -> bool:
        return _admits(matcher, "wait", arguments)

    assert admits('{"count": 0}') and admits('{"count": 5000}') and admits('{"count": 4999}')
    assert not admits('{"count": -1}') and not admits('{"count": 5001}')
    assert not admits('{"count": 10000}') and not admits('{"count": 05}')
    # exclusiveMinimum 0 and a fractional maximum are rounded inwards: 1..2, never 0 or 2.5+.
    assert admits('{"count": 1, "ratio": 1.5}') and admits('{"count": 1, "ratio": 2}')
    assert not admits('{"count": 1, "ratio": 0}') and not admits('{"count": 1, "ratio": 2.6}')
    assert not admits('{"count": 1, "ratio": -1}')
    assert admits('{"count": 1, "offset": -3}') and admits('{"count": 1, "offset": -20}')
    assert not admits('{"count": 1, "offset": 3}') and not admits('{"count": 1, "offset": -2}')
    assert admits('{"count": 1, "free": -54}')  # no bounds: a minus sign stays admissible


def test_llama_cpp_accepts_the_bounded_number_rules(vocab_gguf) -> None:
    llm = llama_cpp.Llama(str(vocab_gguf), vocab_only=True, verbose=False)
    for grammar in (
        build_grammar(_registry()),
        build_grammar(_bounded_tools()),
        build_grammar(_bounded_tools(), allow_final=False),
    ):
        assert "num-0-600 ::=" in grammar or "int-0-5000 ::=" in grammar
        sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar.encode(), b"root")
        assert sampler, grammar
        llama_cpp.llama_sampler_free(sampler)
        assert llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)


def _llama_compiles(vocab_gguf, grammar: str) -> bool:
    """llama.cpp's grammar sampler accepts `grammar` (on a vocabulary-only model)."""
    llm = llama_cpp.Llama(str(vocab_gguf), vocab_only=True, verbose=False)
    sampler = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, grammar.encode(), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def test_an_answer_without_a_tool_must_be_grounded_in_the_players_state(vocab_gguf) -> None:
    """With `final_thought`, a Final Answer may follow only a Thought that begins with it;
    any Thought may still lead to an Action; llama.cpp compiles the grammar."""
    from agent.gbnf import Matcher

    grammar = build_grammar(_registry(), final_thought="播放器状态")
    matcher = Matcher(grammar)

    def admitted(text: str) -> bool:
        return bool(matcher.advance(matcher.start(), text))

    assert admitted("Thought: 播放器状态里有答案。\nFinal Answer: 现在是第3集。")
    assert not admitted("Thought: 北京到上海很远。\nFinal Answer: 100公里。")
    assert admitted("Thought: 北京到上海很远。\nAction: get_status\nAction Input: {}")
    assert admitted("Thought: 播放器状态不够。\nAction: get_status\nAction Input: {}")
    plain = Matcher(build_grammar(_registry()))
    assert plain.advance(plain.start(), "Thought: 北京到上海很远。\nFinal Answer: 很远。")
    assert _llama_compiles(vocab_gguf, grammar)


@pytest.mark.parametrize(
    ("utterance", "episodes"),
    [
        ("give it another 15 minutes then stop", []),
        ("再放15分钟就停吧", []),
        ("往后跳30秒", []),
        ("半小时后播放第3集", [3]),
        ("play the one before this", []),  # a pronoun
        ("play one more", []),
        ("is Dune a good one?", []),  # "a <word> one": a pronoun too
        ("play track one", [1]),
        ("play chapter one", [1]),
        ("play 1984", [1984]),
    ],
)
def test_a_duration_is_no_episode_number(utterance: str, episodes: list[int]) -> None:
    """ "15 minutes" is a sleep timer's amount, never the episode of a play."""
    constraints = Constraints()
    constraints.quote(said(utterance))
    assert constraints.choices["episode"] == episodes, utterance


@pytest.mark.parametrize(
    ("utterance", "episodes", "required"),
    [
        ("放个三国演绎吧", [], False),
        ("放一千零一夜", [], False),
        ("三百六十五乘以二是多少", [], False),
        ("声音开到八十吧", [80], False),
        ("西游记三十", [30], False),
        ("嗯，放个三国演绎吧，从头开始", [1], True),
        ("play dune from the beginning", [1], True),
        ("start the book over", [1], True),
        ("三体第五集", [5], True),
    ],
)
def test_a_numeral_inside_a_word_is_no_number_and_from_the_start_is_episode_one(
    utterance: str, episodes: list[int], required: bool
) -> None:
    """三 of "三国演绎" (a title misheard, so no title names it) or 二 of "乘以二是" are
    part of words, not episodes said; "从头开始" / "from the beginning" say episode 1 and
    make it required; a numeral that ends the utterance or stands before a particle counts."""
    constraints = Constraints()
    constraints.quote(said(utterance))
    assert constraints.choices["episode"] == episodes, utterance
    assert ("episode" in constraints.required) == required, utterance


def test_a_misheard_title_of_the_library_takes_its_numeral_with_it() -> None:
    """With the library's titles, "三国演绎" names 三国演义 (by its sound): its 三 is part
    of the title, never an episode, and "从头开始" still plays the book from episode 1."""
    reading = said("嗯，放个三国演绎吧，从头开始", ["三国演义", "西游记"])
    assert reading.named == ["三国演义"]
    constraints = Constraints()
    constraints.quote(reading, titles=["三国演义", "西游记"])
    assert 3 not in constraints.choices["episode"]
    assert constraints.mention(reading) == ["三国演义"]
    assert reading.calls and reading.calls[-1].arguments == {"keyword": "三国演义", "section": 1}


def test_an_answer_states_only_the_numbers_given(vocab_gguf) -> None:
    """With `answer_numbers`, the Final Answer writes digits only as one of those numbers,
    each whole: no invented height, no two numbers run together; llama.cpp compiles it."""
    from agent.gbnf import Matcher
    from agent.grammar import numbers_seen

    given = numbers_seen("（播放器：正在播放 三体 第5集（共30集），2分05秒）\n用户：第二十集叫什么")
    assert given == {"3", "5", "30", "2", "05", "20"}  # 三 of 三体 too: a numeral written
    grammar = build_grammar(_registry(), answer_numbers=given)
    matcher = Matcher(grammar)

    def admitted(answer: str) -> bool:
        return bool(matcher.advance(matcher.start(), "Thought: 看数据。\nFinal Answer: " + answer))

    assert admitted("三体一共30集，现在是第5集，2分05秒。")
    assert admitted("30集")  # a number first
    assert admitted("现在是第5集")  # a number last
    assert not admitted("珠穆朗玛峰高8848米。")
    assert not admitted("一共305集")  # 30 and 5 run together
    assert not admitted("第6集")
    none = Matcher(build_grammar(_registry(), answer_numbers=()))
    assert not none.advance(none.start(), "Thought: x\nFinal Answer: 第5集")
    assert none.advance(none.start(), "Thought: x\nFinal Answer: 第五集")
    free = Matcher(build_grammar(_registry()))
    assert free.advance(free.start(), "Thought: x\nFinal Answer: 高8848米")
    assert _llama_compiles(vocab_gguf, grammar)


def test_after_a_result_the_answer_is_its_message(vocab_gguf) -> None:
    """With `answer_text`, the Final Answer is that sentence exactly (quotes and all); a
    tool call stays possible; llama.cpp compiles it."""
    from agent.gbnf import Matcher

    message = '有鬼吹灯（天下霸唱），10集。"书"'
    grammar = build_grammar(_registry(), answer_text=message, answer_numbers={"10"})
    matcher = Matcher(grammar)

    def complete(text: str) -> bool:
        state = matcher.advance(matcher.start(), text)
        return bool(state) and matcher.complete(state)

    assert complete("Thought: 数据里有。\nFinal Answer: " + message)
    assert not complete("Thought: 数据里有。\nFinal Answer: 聊斋一共有10集。")
    assert not complete("Thought: 数据里有。\nFinal Answer: 有鬼吹灯")  # the whole sentence
    assert complete("Thought: 再播。\nAction: get_status\nAction Input: {}")
    assert _llama_compiles(vocab_gguf, grammar)


def test_the_book_playing_now_is_a_keyword_only_with_an_episode_said() -> None:
    """The title of the book playing now (from the listener's context) is admitted only
    when an episode is said: playing it again otherwise changes nothing. A paused book's
    title is admitted; a title the listener named stays the only one admitted."""
    from player.contract import CONTEXT

    def titles(utterance: str, state: str, library: list[str] | None = None) -> list[str]:
        constraints = Constraints()
        reading = said(utterance, library)
        constraints.quote(reading, titles=library)
        constraints.mention(reading)
        now = {"id": "lib:1", "title": "西游记", "episodes": 100, "state": state, "episode": 3}
        constraints.learn({"message": "-", "now": now}, CONTEXT)
        return constraints.choices["title"]

    assert "西游记" not in titles("帮我订一张火车票", "playing")
    assert "西游记" in titles("播第五集", "playing")
    assert "西游记" in titles("接着刚才的放", "paused")
    assert titles("播放三国演义", "playing", ["三国演义", "西游记"]) == ["三国演义"]


def _offered(utterance: str) -> set[str]:
    """The player's tools the grammar offers for `utterance` (no context, no library)."""
    from agent import tool_from_function
    from player.tools import PlayerTools

    constraints = Constraints()
    constraints.quote(said(utterance))
    tools = map(tool_from_function, PlayerTools.tools(PlayerTools()))
    return {tool.name for tool in tools if constraints.admits(tool)}


def _amounts(utterance: str) -> tuple[set[str], Constraints]:
    constraints = Constraints()
    constraints.quote(said(utterance))
    return _offered(utterance), constraints


@pytest.mark.parametrize(
    ("utterance", "seconds"),
    [
        ("我要睡了，再给我放个四十分钟然后关掉", 2400),
        ("I'm falling asleep, could you turn it off after twenty minutes", 1200),
        ("往回退三十秒", 30),
        ("wait a second, pause it", None),
        ("hang on a sec", None),
        ("先暂停", None),
    ],
)
def test_an_amount_of_time_said_is_an_argument(utterance: str, seconds: int | None) -> None:
    """A duration with a number ("再放四十分钟然后关掉", "turn it off after twenty minutes")
    is the only amount a sleep timer or a seek may take; "wait a second" or "hang on a sec"
    says no amount (left free). No tool is removed for the words: stop and pause, which take
    no amount, stay offered (the grammar restricts arguments, never tools)."""
    offered, constraints = _amounts(utterance)
    assert {"sleep_timer", "seek", "get_status", "help", "stop", "pause"} <= offered, utterance
    if seconds is None:
        assert "seconds" not in constraints.choices and "minutes" not in constraints.choices
        return
    assert constraints.choices["seconds"] == [-seconds, 0, seconds], utterance
    minutes = [0, seconds // 60] if seconds % 60 == 0 else [0]
    assert constraints.choices["minutes"] == minutes, utterance
    from agent.gbnf import Matcher

    matcher = Matcher(build_grammar(_registry(), constraints=constraints))
    assert _admits(matcher, "seek", f'{{"seconds": {-seconds}}}')
    assert not _admits(matcher, "seek", f'{{"seconds": {seconds + 1}}}')
    assert _admits(matcher, "stop", "{}") and _admits(matcher, "pause", "{}")


@pytest.mark.parametrize(
    ("utterance", "clock"),
    [
        ("明天六点叫醒我", True),
        ("turn it off at ten pm", True),
        ("三点半提醒我吃药", True),
        ("大声一点", False),
        ("快进一点点", False),
        ("半小时后关掉", False),  # an amount: the sleep timer takes 30
    ],
)
def test_a_time_of_day_is_no_amount_of_minutes(utterance: str, clock: bool) -> None:
    """ "明天六点叫醒我", "turn it off at ten pm": no sleep timer or seek takes a time of day
    (their minutes and seconds count from now), so with no amount to give seek is not
    offered and a sleep timer's minutes admit nothing (it stays offered for its
    end_of_episode option); "大声一点" ("a little") says no time. Stop and pause are never
    removed for the words."""
    offered, constraints = _amounts(utterance)
    assert ("seek" not in offered) is clock, utterance
    if clock:
        assert constraints.choices["seconds"] == [] and constraints.choices["minutes"] == []
    assert {"help", "get_status", "stop", "pause"} <= offered, utterance


def test_a_volume_is_a_number_said_never_a_time_or_a_duration() -> None:
    for utterance, percents in [
        ("音量调到五十", [50]),
        ("声音开到八十吧，太小了听着费劲", [80]),
        ("could you bring the volume up to seventy five", [75]),
        ("set the volume to one hundred", [100]),
        ("音量调到零", [0]),
        ("太吵了", []),  # none said: set_volume is not offered
        ("帮我设个明早七点的闹钟", []),  # a time of day
        ("set an alarm for 7 am", []),
        ("再过10分钟音量调到30", [30]),  # a duration is no volume
        ("放个三国演义", []),  # a numeral inside a word
    ]:
        constraints = Constraints()
        constraints.quote(said(utterance))
        assert constraints.choices["percent"] == percents, utterance


def test_an_episode_title_is_left_to_the_fast_path() -> None:
    from agent import tool_from_function
    from player.tools import PlayerTools

    registry = ToolRegistry([tool_from_function(f) for f in PlayerTools.tools(PlayerTools())])
    text = build_grammar(registry, constraints=Constraints())
    assert "episode_title" not in text  # the model writes the words into the keyword
    assert '"\\"section\\""' in text
