"""Jump-forward decoding: the GBNF recogniser, and the local model's batched forced text."""

from __future__ import annotations

import asyncio

import pytest
from agent_books import FakeLibrary

from agent import Constraints, ToolRegistry, build_grammar, parse
from agent.gbnf import GrammarSyntaxError, Matcher
from agent.local import LocalModel


def _registry() -> ToolRegistry:
    return ToolRegistry(FakeLibrary().tools())


def _grammar() -> str:
    constraints = Constraints()
    constraints.quote("播放西游记第1集")
    return build_grammar(_registry(), constraints=constraints)


def test_forced_text_follows_the_grammar() -> None:
    matcher = Matcher(_grammar())
    state = matcher.start()
    forced, state = matcher.forced(state)
    assert forced == "Thought: "
    state = matcher.advance(state, "用户要听西游记\nA")
    forced, state = matcher.forced(state)
    assert forced == "ction: "
    state = matcher.advance(state, "search_")
    forced, state = matcher.forced(state)
    assert forced == "a"  # search_album or search_and_play: only the "a" is common
    state = matcher.advance(state, "n")
    forced, state = matcher.forced(state)
    assert forced == "d_play\nAction Input: {"
    state = matcher.advance(state, '"')
    forced, state = matcher.forced(state)
    assert forced == 'keyword"'
    state = matcher.advance(state, ': "西游')
    forced, state = matcher.forced(state)
    assert forced == ""  # "西游" and "西游记" are both admissible
    state = matcher.advance(state, '记", "section": 1')
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
    model = LocalModel(tiny_gguf, n_ctx=512, max_tokens=200, temperature=1.0, n_threads=2)
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
    grammar = 'root ::= "Thought: play it\\nAction: search_and_play\\nAction Input: {}"\n'
    messages = [{"role": "user", "content": "播放西游记"}]
    results = {}
    for jump in (True, False):
        model = LocalModel(tiny_gguf, n_ctx=512, max_tokens=64, jump_forward=jump, n_threads=2)
        try:
            results[jump] = await asyncio.wait_for(model.complete(messages, grammar=grammar), 60)
        finally:
            model.close()
    on, off = results[True], results[False]
    assert on.text == off.text == "Thought: play it\nAction: search_and_play\nAction Input: {}"
    assert off.forced_tokens == 0 and off.decoded_tokens >= 10
    assert on.decoded_tokens <= 2 < on.forced_tokens
    assert on.finish_reason == off.finish_reason == "stop"


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
