"""The first model step started on the partial transcript (`agent.speculate`), on llama.cpp."""

from __future__ import annotations

import asyncio

import pytest
from agent_books import FakeLibrary

from agent import Agent, ToolRegistry
from agent.local import LocalModel
from agent.speculate import Speculation

pytest.importorskip("llama_cpp")

UTTERANCE = "播放西游记第2集"


def _calls_of(result) -> list[str]:
    """The tools the turn's steps ran: not repeated calls, nor calls whose arguments the
    registry refused before the tool (the random model's JSON may not fit the schema)."""
    return [
        s.action
        for s in result.steps
        if s.action
        and s.observation != "(repeated call, not run again)"
        and not (s.ok is False and "invalid arguments" in (s.observation or s.error or ""))
    ]


async def _kept(model: LocalModel, other: object = None) -> object:
    """The model's speculative reply once the speculative turn has asked for it."""
    for _ in range(500):
        if model._speculative is not None and model._speculative is not other:
            return model._speculative
        await asyncio.sleep(0.01)
    raise AssertionError("the speculative turn never reached the model")


async def _device(tiny_gguf) -> tuple[FakeLibrary, LocalModel, Agent]:
    library = FakeLibrary()
    model = LocalModel(tiny_gguf, n_ctx=1024, max_tokens=40, n_threads=2)
    agent = Agent(ToolRegistry(library.tools()), model, language="zh", fast_path=False,
                  max_rounds=2)  # fmt: skip
    await asyncio.wait_for(agent.warm(), 120)
    return library, model, agent


async def test_a_right_guess_gives_the_turn_its_first_reply(tiny_gguf) -> None:
    library, model, agent = await _device(tiny_gguf)
    try:
        speculation = Speculation(agent)
        assert speculation.enabled
        speculation.guess(UTTERANCE)
        kept = await _kept(model)
        first = await asyncio.wait_for(asyncio.shield(kept.future), 60)
        await asyncio.sleep(0.05)
        assert library.calls == []  # a guess runs no tool, whatever the reply asks for
        assert speculation.settle(UTTERANCE)
        result = await asyncio.wait_for(agent.run(UTTERANCE), 120)
        speculation.close()
        assert model.speculative_hits == 1
        assert result.steps and result.steps[0].raw == first.text
        assert model._speculative is None
        # Only the real turn's calls reached the tools.
        assert [name for name, _ in library.calls] == _calls_of(result)
    finally:
        model.close()


async def test_a_wrong_guess_is_stopped_and_the_turn_runs_as_usual(tiny_gguf) -> None:
    library, model, agent = await _device(tiny_gguf)
    try:
        speculation = Speculation(agent)
        speculation.guess("播放三体")
        kept = await _kept(model)
        assert not speculation.settle(UTTERANCE)
        assert kept.halt.is_set()
        stopped = await asyncio.wait_for(asyncio.shield(kept.future), 60)
        assert stopped.finish_reason in ("cancelled", "stop", "length")
        result = await asyncio.wait_for(agent.run(UTTERANCE), 120)
        assert model.speculative_hits == 0
        assert result.utterance == UTTERANCE and result.steps
        assert [name for name, _ in library.calls] == _calls_of(result)
    finally:
        model.close()


async def test_a_newer_guess_replaces_the_older_one(tiny_gguf) -> None:
    _library, model, agent = await _device(tiny_gguf)
    try:
        speculation = Speculation(agent)
        speculation.guess("播放西游")
        older = await _kept(model)
        speculation.guess(UTTERANCE)
        newer = await _kept(model, older)
        assert older.halt.is_set() and not newer.halt.is_set()
        assert speculation.guesses == 2
        assert speculation.settle(UTTERANCE)
        await asyncio.wait_for(agent.run(UTTERANCE), 120)
        speculation.close()
        assert model.speculative_hits == 1
    finally:
        model.close()
