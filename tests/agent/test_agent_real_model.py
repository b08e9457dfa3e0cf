"""The real Qwen2.5-Coder-0.5B model through the whole loop, in Chinese and English.

Each request checks the tool calls made against an in-memory audiobook library with the
player's real tool names and signatures. Playback commands are registered return_direct,
as the device wires them, and the fast path is on, as configured by default; one class of
requests turns the fast path off so the model itself must choose the control tools.
"""

from __future__ import annotations

import asyncio

import pytest
from agent_books import FakeLibrary, books_registry, calls_match

from agent import Agent, StepKind
from agent.local import LocalModel

pytestmark = pytest.mark.models

S = "search_album"
P = "search_and_play"


@pytest.fixture(scope="module")
def local_model(request):
    path = request.getfixturevalue("llm_path")
    model = LocalModel(path, n_ctx=4096, max_tokens=96, temperature=0.0)
    yield model
    model.close()


@pytest.fixture(scope="module")
def world(local_model):
    library = FakeLibrary()
    registry = books_registry(library)
    agents = {
        (lang, fast): Agent(registry, local_model, language=lang, fast_path=fast, max_tokens=96, max_rounds=4)
        for lang in ("zh", "en")
        for fast in (True, False)
    }
    return library, agents


CASES = [
    # (language, fast path, utterance, expected calls)
    ("zh", True, "暂停", [["pause", {}]]),
    ("zh", True, "继续", [["resume", {}]]),
    ("zh", True, "别放了", [["stop", {}]]),
    ("zh", True, "现在在播什么", [["get_status", {}]]),
    ("zh", True, "下一集", [["next_episode", {}]]),
    ("zh", True, "音量调到五十", [["set_volume", {"percent": 50}]]),
    ("zh", True, "播放西游记第1集", [[P, {"keyword": "西游记", "section": 1}]]),
    ("zh", True, "放一下三体第五集", [[P, {"keyword": "三体", "section": 5}]]),
    ("zh", True, "帮我放红楼梦第十集", [[P, {"keyword": "红楼梦", "section": 10}]]),
    ("zh", True, "搜一下红楼梦", [[S, {"keyword": "红楼梦"}]]),
    ("zh", True, "今天天气怎么样", []),
    ("zh", False, "暂停", [["pause", {}]]),
    ("en", True, "pause", [["pause", {}]]),
    ("en", True, "resume", [["resume", {}]]),
    ("en", True, "stop playing", [["stop", {}]]),
    ("en", True, "what's playing", [["get_status", {}]]),
    ("en", True, "play chapter 3 of Sherlock Holmes", [[P, {"keyword": "Sherlock Holmes", "section": 3}]]),
    ("en", True, "put on Treasure Island episode 5", [[P, {"keyword": "Treasure Island", "section": 5}]]),
    ("en", True, "search for Sherlock Holmes", [[S, {"keyword": "Sherlock Holmes"}]]),
    ("en", True, "what's the weather tomorrow", []),
    ("en", False, "stop", [["stop", {}]]),
    ("en", False, "what's playing", [["get_status", {}]]),
]


@pytest.mark.parametrize(("language", "fast", "utterance", "expected"), CASES)
async def test_request(world, language, fast, utterance, expected) -> None:
    library, agents = world
    library.reset()
    turn = await asyncio.wait_for(agents[(language, fast)].run(utterance), timeout=90)
    assert calls_match(expected, library.calls), (library.calls, turn.to_dict())
    assert turn.answer.strip()
    assert not [s for s in turn.steps if s.kind == StepKind.FORMAT_ERROR]
    if fast and expected and expected[0][0] in ("pause", "resume", "stop", "get_status"):
        assert turn.backend == "fastpath"


async def test_question_needing_two_tool_calls(world) -> None:
    """How many episodes has the book now playing? get_status, then search_album."""
    library, agents = world
    library.reset(playing=("三体", 4))
    agent = agents[("en", True)]
    turn = await asyncio.wait_for(
        agent.run("how many episodes does the book I'm listening to have"), timeout=120
    )
    assert calls_match([["get_status", {}], [S, {"keyword": "三体"}]], library.calls), library.calls
    assert "30" in turn.answer


def test_enough_requests() -> None:
    assert len(CASES) >= 20
    assert {c[0] for c in CASES} == {"zh", "en"}
