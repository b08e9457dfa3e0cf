"""Jump-forward decoding: the GBNF recogniser, and the local model's batched forced text."""

from __future__ import annotations

import asyncio

import pytest
from agent_books import FakeLibrary
from agent_reading import said

from agent import Constraints, ToolRegistry, build_grammar, parse
from agent.gbnf import GrammarSyntaxError, Matcher
from agent.local import LocalModel


def _registry() -> ToolRegistry:
    return ToolRegistry(FakeLibrary().tools())


def _grammar() -> str:
    constraints = Constraints()
    constraints.quote(said("播放西游记第1集"))
    return build_grammar(_registry(), constraints=constraints)


def test_forced_text_follows_the_grammar() -> None:
    matcher = Matcher(_grammar())
    state = matcher.start()
    forced, state = matcher.forced(state)
    assert forced == "Thought: "
    state = matcher.advance(state, "用户要听西游记\nA")
    forced, state = matcher.forced(state)
    assert forced == "ction: "
    state = matcher.advance(state, "p")
    forced, state = matcher.forced(state)
    assert forced == ""  # pause, play_book, previous_episode
    state = matcher.advance(state, "l")
    forced, state = matcher.forced(state)
    assert forced == "ay_book\nAction Input: {"
    state = matcher.advance(state, '"k')  # the keyword is optional: "k" or "s" could start
    forced, state = matcher.forced(state)
    assert forced == 'eyword"'
    state = matcher.advance(state, ': "西游')
    forced, state = matcher.forced(state)
    assert forced == ""  # "西游" and "西游记" are both admissible
    state = matcher.advance(state, '记", ')
    forced, state = matcher.forced(state)
    assert forced == '"section"'  # the episode said (第1集) must be given
    state = matcher.advance(state, ": 1")
    assert matcher.next_chars(state) == {" ", "}"}
    state = matcher.advance(state, "}")
    assert matcher.complete(state)


def test_recogniser_rejects_what_the_grammar_does_not_admit() -> None:
    matcher = Matcher(_grammar())
    assert not matcher.advance(matcher.start(), "Thought: x\nAction: play_everything")
    assert not matcher.advance(matcher.start(), "Thought: x\nAction Input")
    assert matcher.admits(matcher.advance(matcher.start(), "Thought: x"), "\n")
    assert not matcher.admits(matcher.start(), "\n")
    state = matcher.advance(matcher.start(), "Thought: x\nAction: pau")
    forced, state = matcher.forced(state)
    assert forced == "se\nAction Input: {}"
    assert matcher.complete(state)


def test_repetition_bounds_and_classes() -> None:
    matcher = Matcher('root ::= "a"{2,3} [0-9]+ ( "x" | "y" )? # comment\n')
    assert not matcher.advance(matcher.start(), "a1")
    state = matcher.advance(matcher.start(), "aa")
    assert matcher.next_chars(state) == {"a"}  # a digit class is not a written character
    assert matcher.admits(state, "7")
    assert not matcher.advance(state, "aa")  # at most three
    state = matcher.advance(state, "42")
    assert not matcher.complete(state)  # more digits, x, y or the end
    assert matcher.complete(matcher.advance(state, "y"))


def test_unreadable_grammar_is_reported() -> None:
    with pytest.raises(GrammarSyntaxError):
        Matcher('root ::= "a" missing')
    with pytest.raises(GrammarSyntaxError):
        Matcher('other ::= "a"')
    with pytest.raises(GrammarSyntaxError):
        Matcher('root ::= "unterminated')


llama_cpp = pytest.importorskip("llama_cpp")


async def test_recogniser_agrees_with_llama_cpp_on_sampled_replies(tiny_gguf) -> None:
    """Every reply llama.cpp's own grammar sampler lets through is admitted, to the end."""
    grammar = build_grammar(_registry(), thought_chars=24, answer_chars=24, string_chars=12)
    matcher = Matcher(grammar)
    model = LocalModel(
        tiny_gguf, n_ctx=512, max_tokens=200, temperature=1.0, n_threads=2, jump_forward=False
    )
    try:
        for seed, utterance in enumerate(("播放西游记", "pause", "三体有几集", "what's on")):
            model.seed = seed
            messages = [{"role": "user", "content": utterance}]
            result = await asyncio.wait_for(model.complete(messages, grammar=grammar), 60)
            assert result.finish_reason == "stop", result
            state = matcher.advance(matcher.start(), result.text)
            assert state, result.text
            assert matcher.complete(state), result.text
    finally:
        model.close()


async def test_forced_text_is_batched_not_decoded(tiny_gguf) -> None:
    """A reply the grammar fixes entirely costs no decode step with jump-forward on."""
    grammar = 'root ::= "Thought: play it\\nAction: play_book\\nAction Input: {}"\n'
    messages = [{"role": "user", "content": "播放西游记"}]
    results = {}
    for jump in (True, False):
        model = LocalModel(tiny_gguf, n_ctx=512, max_tokens=64, jump_forward=jump, n_threads=2)
        try:
            results[jump] = await asyncio.wait_for(model.complete(messages, grammar=grammar), 60)
        finally:
            model.close()
    on, off = results[True], results[False]
    assert on.text == off.text == "Thought: play it\nAction: play_book\nAction Input: {}"
    assert off.forced_tokens == 0 and off.decoded_tokens >= 10
    assert on.decoded_tokens <= 2 < on.forced_tokens
    assert on.finish_reason == off.finish_reason == "stop"


async def test_forced_text_is_batched_under_sampling_too(tiny_gguf) -> None:
    """With temperature > 0 the text the grammar fixes is still appended, not drawn: it is
    the only admissible continuation, so every draw would give it."""
    grammar = 'root ::= "Thought: play it\\nAction: search_and_play\\nAction Input: {}"\n'
    messages = [{"role": "user", "content": "播放西游记"}]
    model = LocalModel(tiny_gguf, n_ctx=512, max_tokens=64, temperature=1.5, n_threads=2)
    try:
        for seed in range(3):
            model.seed = seed
            result = await asyncio.wait_for(model.complete(messages, grammar=grammar), 60)
            assert result.text == "Thought: play it\nAction: search_and_play\nAction Input: {}"
            assert result.decoded_tokens <= 2 < result.forced_tokens
    finally:
        model.close()


async def test_sampled_jump_forward_replies_follow_the_grammar(tiny_gguf) -> None:
    """Sampling with jump-forward: every reply is admitted to the end, forced text is batched,
    a seed repeats its reply and other seeds draw other replies."""
    registry = _registry()
    grammar = build_grammar(registry, thought_chars=24, answer_chars=24, string_chars=12)
    matcher = Matcher(grammar)
    model = LocalModel(tiny_gguf, n_ctx=512, max_tokens=200, temperature=1.0, n_threads=2)
    messages = [{"role": "user", "content": "播放西游记"}]
    texts = []
    forced = 0
    try:
        for seed in (0, 1, 2, 3, 0):
            model.seed = seed
            result = await asyncio.wait_for(model.complete(messages, grammar=grammar), 60)
            assert result.finish_reason == "stop", result
            state = matcher.advance(matcher.start(), result.text)
            assert state and matcher.complete(state), result.text
            parse(result.text, tools=registry.names())  # raises FormatError if it does not
            forced += result.forced_tokens
            texts.append(result.text)
    finally:
        model.close()
    assert forced > 0
    assert texts[0] == texts[-1]  # the same seed, the same draws
    assert len(set(texts[:4])) >= 2  # sampling, not greedy


async def test_greedy_jump_forward_replies_parse(tiny_gguf) -> None:
    registry = _registry()
    grammar = build_grammar(registry, thought_chars=24, answer_chars=24, string_chars=12)
    model = LocalModel(tiny_gguf, n_ctx=512, max_tokens=200, n_threads=2, thought_tokens=6)
    streamed: list[str] = []
    forced = 0
    try:
        for utterance in ("播放西游记", "pause", "三体有几集", "what's on"):
            messages = [{"role": "user", "content": utterance}]
            result = await asyncio.wait_for(
                model.complete(messages, grammar=grammar, on_token=streamed.append), 60
            )
            assert result.finish_reason == "stop", result
            assert result.decoded_tokens + result.forced_tokens == result.completion_tokens
            reply = parse(result.text, tools=registry.names())
            if type(reply).__name__ == "Action":
                registry.validate(reply.tool, reply.arguments)
            forced += result.forced_tokens
            first_line = result.text.split("\n", 1)[0]
            assert model.count_tokens(first_line) <= 6 + 4  # the Thought cut at 6 tokens
    finally:
        model.close()
    assert forced > 0
    assert "".join(streamed).startswith("Thought:")


async def test_prompt_state_survives_a_restart_and_a_new_title(tiny_gguf, tmp_path) -> None:
    """A second model loads the saved prompt; a new title re-evaluates only the tail."""
    from agent.prompt import prompt_messages

    registry = _registry()
    messages = prompt_messages(registry, titles=["西游记", "三体"])
    question = [*messages, {"role": "user", "content": "播放西游记"}]
    replies = []
    for run in range(2):
        model = LocalModel(tiny_gguf, n_ctx=4096, max_tokens=8, n_threads=2, state_dir=tmp_path)
        try:
            await asyncio.wait_for(model.warm(messages), 120)
            if run == 0:
                assert model.last_warm["from_state"] == 0
                assert model.last_warm["evaluated"] == model.last_warm["tokens"] > 500
                assert model.state_file() is not None and model.state_file().is_file()
            else:
                assert model.last_warm["from_state"] == model.last_warm["tokens"]
                assert model.last_warm["evaluated"] == 0
            replies.append((await asyncio.wait_for(model.complete(question), 60)).text)
        finally:
            model.close()
    assert replies[0] == replies[1]  # the loaded state is the evaluated one
    changed = prompt_messages(registry, titles=["西游记", "三体", "红楼梦"])
    model = LocalModel(tiny_gguf, n_ctx=4096, max_tokens=8, n_threads=2, state_dir=tmp_path)
    try:
        await asyncio.wait_for(model.warm(changed), 120)
        report = model.last_warm
        assert 0 < report["evaluated"] < 20  # the titles' line and the end of the message
        assert report["from_state"] == report["tokens"] - report["evaluated"]
    finally:
        model.close()
    assert len(list(tmp_path.glob("*.llama-state"))) == 1


async def test_damaged_prompt_state_is_evaluated_again(tiny_gguf, tmp_path) -> None:
    messages = [{"role": "system", "content": "你是小听。" * 20}]
    model = LocalModel(tiny_gguf, n_ctx=1024, max_tokens=4, n_threads=2, state_dir=tmp_path)
    try:
        await asyncio.wait_for(model.warm(messages), 60)
        path = model.state_file()
    finally:
        model.close()
    path.write_bytes(path.read_bytes()[:100])  # a torn file
    model = LocalModel(tiny_gguf, n_ctx=1024, max_tokens=4, n_threads=2, state_dir=tmp_path)
    try:
        await asyncio.wait_for(model.warm(messages), 60)
        assert model.last_warm["from_state"] == 0
        assert model.last_warm["evaluated"] == model.last_warm["tokens"]
    finally:
        model.close()
    assert path.stat().st_size > 100  # saved whole again


async def test_probe_measures_the_rate_and_the_step_budget_follows(tiny_gguf) -> None:
    model = LocalModel(tiny_gguf, n_ctx=512, max_tokens=200, n_threads=2)
    try:
        assert model.budget is None  # no rate yet: the configured step timeout applies
        speed = await asyncio.wait_for(model.probe(steps=8), 60)
        assert speed["decode_tps"] > 0 and speed["prefill_tps"] > 0
        assert model.decode_rate == speed["decode_tps"] or model.decode_rate > 0
        assert model.budget == max(model.budget_floor, 200 / model.decode_rate * 2)
        model.decode_rate = 2.0  # a slow board: 200 tokens at 2 steps/s, twice over
        assert model.budget == 200.0
        model.decode_rate = 1e9
        assert model.budget == model.budget_floor
        messages = [{"role": "user", "content": "播放西游记"}]
        await asyncio.wait_for(model.complete(messages, max_tokens=16), 60)
        assert model.decode_rate < 1e9  # each reply updates the measured rate
    finally:
        model.close()


async def test_each_language_of_the_service_keeps_its_own_saved_prompt(tiny_gguf, tmp_path) -> None:
    """A service switched from zh to en and back starts from a saved prompt each time after
    the first of each language: one state file per language, neither deleting the other."""
    from device.config import dev_config
    from device.runtime import default_agent

    starts = []
    for language in ("zh", "en", "zh"):
        config = dev_config(
            tmp_path,
            language=language,
            models_dir=str(tiny_gguf.parent),
            llm={"policy": "local", "model": tiny_gguf.name, "n_ctx": 4096},
        )
        _agent, models = await asyncio.wait_for(default_agent(config, _registry()), 300)
        try:
            local = next(m for m in models if isinstance(m, LocalModel))
            starts.append(local.last_warm["from_state"])
        finally:
            for model in models:
                closing = model.close()
                if asyncio.iscoroutine(closing):
                    await closing
    saved = sorted(p.parent.name for p in (tmp_path / ".state").rglob("*.llama-state"))
    assert saved == ["en", "zh"], saved
    assert starts[0] == 0 and starts[1] == 0 and starts[2] > 500  # zh again: from its file
