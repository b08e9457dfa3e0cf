"""RemoteModel against a real in-process OpenAI-compatible server, and the fallback chain."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import time
from collections import deque

import pytest
from agent_books import FakeLibrary, plain_registry
from aiohttp import web

from agent import (
    Agent,
    FallbackModel,
    ModelTimeout,
    ModelUnavailable,
    RemoteHTTPError,
    ScriptedModel,
    StepKind,
    ToolRegistry,
    build_model,
)
from agent.errors import ModelBudgetError, ModelError
from agent.models import close_agent_models
from agent.remote import RemoteModel

KEY = "sk-test-secret-0123456789"


def chunk(
    content: str | None = None, *, reasoning: str | None = None, finish: str | None = None
) -> bytes:
    delta = {}
    if content is not None:
        delta["content"] = content
    if reasoning is not None:
        delta["reasoning_content"] = reasoning
    body = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()


def tool_chunk(index: int, *, name: str | None = None, arguments: str | None = None) -> bytes:
    function = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    call = {"index": index, "type": "function", "function": function}
    if name is not None:
        call["id"] = f"call_{index}"
    body = {"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()


class FakeApi:
    """Serves /chat/completions; each request takes the next behaviour from `plan`.

    Besides good replies it misbehaves the ways real servers do: stalls before the headers
    ("stall-headers") or after the first chunk ("stall-mid"), sends keep-alive comments
    only ("keepalive"), spends the budget on reasoning ("length-reasoning"), answers
    with native tool calls ("tool", text = 'name|{"json": "args"}'), or 401/429/500.
    Stalls last until `release` is set (at teardown) so the server shuts down at once.
    """

    def __init__(self) -> None:
        self.plan: deque[str | tuple[str, str]] = deque()
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.release = asyncio.Event()

    async def stall(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.release.wait(), 30)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        self.headers.append(dict(request.headers))
        step = self.plan.popleft() if self.plan else ("ok", "Thought: x\nFinal Answer: 好")
        kind, text = step if isinstance(step, tuple) else (step, "Thought: x\nFinal Answer: 好")
        if kind == "stall-headers":
            await self.stall()
            return web.Response(status=503, text="gave up")
        if request.headers.get("Authorization") != f"Bearer {KEY}" or kind == "401":
            return web.json_response({"error": {"message": "Authentication Fails"}}, status=401)
        if kind == "429":
            return web.json_response(
                {"error": {"message": "rate limited"}}, status=429, headers={"Retry-After": "0"}
            )
        if kind == "500":
            return web.Response(status=500, text="internal error")
        if kind == "garbage":
            return web.Response(status=200, text="<html>not json</html>", content_type="text/html")
        if kind == "whole":
            body = {
                "choices": [
                    {
                        "message": {"content": text, "reasoning_content": "hmm"},
                        "finish_reason": "stop",
                    }
                ]
            }
            return web.json_response(body)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        if kind == "slow":
            await asyncio.sleep(1.5)
        if kind == "stall-mid":
            await response.write(chunk("Thought: "))
            await self.stall()
            return response
        if kind == "keepalive":
            for _ in range(300):
                await response.write(b": keep-alive\n\n")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.release.wait(), 0.05)
                if self.release.is_set():
                    break
            return response
        if kind == "length-reasoning":
            for _ in range(5):
                await response.write(chunk(reasoning="I should think about Observation: more. "))
            await response.write(chunk(finish="length"))
            await response.write(b"data: [DONE]\n\n")
            return response
        if kind == "tool":
            name, _, arguments = text.partition("|")
            await response.write(chunk("Thought: 先查一下"))
            await response.write(tool_chunk(0, name=name, arguments=""))
            for i in range(0, len(arguments), 4):
                await response.write(tool_chunk(0, arguments=arguments[i : i + 4]))
            await response.write(chunk(finish="tool_calls"))
            await response.write(b"data: [DONE]\n\n")
            return response
        if kind == "reasoning":
            await response.write(chunk(reasoning="Let me think... Final Answer: WRONG"))
        if kind == "sse-garbage":
            for _ in range(5):
                await response.write(b"data: {{{not json\n\n")
        pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
        if kind == "truncated":
            await response.write(chunk(pieces[0]))
            request.transport.close()  # the connection drops mid-stream
            return response
        for piece in pieces:
            await response.write(chunk(piece))
        await response.write(chunk(finish="stop"))
        await response.write(b"data: [DONE]\n\n")
        return response


@pytest.fixture
async def api():
    fake = FakeApi()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", fake.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    fake.url = f"http://127.0.0.1:{port}/v1"
    yield fake
    fake.release.set()
    await runner.cleanup()


@pytest.fixture
async def remote(api):
    model = RemoteModel(
        base_url=api.url,
        api_key=KEY,
        model="deepseek-chat",
        total_timeout=1.0,
        max_retries=2,
        backoff=0.01,
    )
    yield model
    await model.close()


MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


async def complete(model, **kw):
    return await asyncio.wait_for(model.complete(MESSAGES, **kw), timeout=10)


async def test_streaming_reply(api, remote) -> None:
    tokens: list[str] = []
    api.plan.append(("ok", "Thought: 播放\nAction: pause\nAction Input: {}"))
    result = await complete(remote, on_token=tokens.append)
    assert result.text == "Thought: 播放\nAction: pause\nAction Input: {}"
    assert "".join(tokens) == result.text and result.backend == "remote"
    request = api.requests[0]
    assert request["stream"] is True and request["stop"] == ["Observation:"]
    assert request["model"] == "deepseek-chat" and request["messages"] == MESSAGES


async def test_reasoning_is_never_the_answer(api, remote) -> None:
    api.plan.append(("reasoning", "Final Answer: 好"))
    result = await complete(remote)
    assert result.text == "Final Answer: 好"
    assert "WRONG" in result.reasoning
    api.plan.append(("ok", "<think>plan: Final Answer: WRONG</think>Final Answer: 对"))
    result = await complete(remote)
    assert result.text == "Final Answer: 对" and "WRONG" in result.reasoning


async def test_non_streamed_reply_is_read(api, remote) -> None:
    api.plan.append(("whole", "Final Answer: 整体"))
    result = await complete(remote)
    assert result.text == "Final Answer: 整体" and result.reasoning == "hmm"


async def test_401_is_not_retried_and_key_never_logged(api, remote, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    api.plan.append("401")
    with pytest.raises(RemoteHTTPError) as info:
        await complete(remote)
    assert info.value.status == 401 and "Authentication" in str(info.value)
    assert len(api.requests) == 1
    assert api.headers[0]["Authorization"] == f"Bearer {KEY}"
    assert KEY not in caplog.text and KEY not in repr(remote) and KEY not in str(info.value)


async def test_429_and_500_are_retried(api, remote, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    api.plan.extend(["429", "500", ("ok", "Final Answer: 终于")])
    result = await complete(remote)
    assert result.text == "Final Answer: 终于" and len(api.requests) == 3
    assert KEY not in caplog.text


async def test_500_after_retries_raises(api, remote) -> None:
    api.plan.extend(["500", "500", "500"])
    with pytest.raises(RemoteHTTPError) as info:
        await complete(remote)
    assert info.value.status == 500 and len(api.requests) == 3


async def test_slow_server_times_out(api, remote) -> None:
    api.plan.append("slow")
    with pytest.raises(ModelTimeout):
        await complete(remote)


async def test_truncated_stream_is_an_error(api, remote) -> None:
    api.plan.extend(["truncated", "truncated", "truncated"])
    with pytest.raises(ModelError, match="stream"):
        await complete(remote)


async def test_garbage_is_an_error(api, remote) -> None:
    api.plan.append("garbage")
    with pytest.raises(ModelError, match="neither an event stream"):
        await complete(remote)
    api.plan.append("sse-garbage")
    with pytest.raises(ModelError, match="not JSON"):
        await complete(remote)


async def test_no_key_is_unavailable(api) -> None:
    model = RemoteModel(base_url=api.url, api_key="")
    with pytest.raises(ModelUnavailable):
        await complete(model)
    assert api.requests == []


async def test_cancel_stops_the_stream(api, remote) -> None:
    api.plan.append(("ok", "Thought: " + "long " * 200))
    cancel = asyncio.Event()
    seen: list[str] = []

    def on_token(piece: str) -> None:
        seen.append(piece)
        if len(seen) == 3:
            cancel.set()

    result = await complete(remote, cancel=cancel, on_token=on_token)
    assert result.finish_reason == "cancelled" and len(seen) <= 4


# ------------------------------------------------------------------------- fallback


async def test_local_then_remote_on_local_failure(api, remote) -> None:
    library = FakeLibrary()
    local = ScriptedModel([ModelUnavailable("model file not found")], name="local")
    api.plan.extend(
        [
            ("ok", "Thought: x\nAction: pause\nAction Input: {}"),
            ("ok", "Thought: x\nFinal Answer: 已暂停"),
        ]
    )
    model = build_model("local-then-remote", local, remote)
    agent = Agent(plain_registry(library), model, fast_path=False)
    turn = await asyncio.wait_for(agent.run("请暂停一下吧"), timeout=10)
    assert turn.answer == "Paused." and library.calls == [("pause", {})]  # its message
    assert turn.steps[-1].answer == "已暂停"
    assert [s.backend for s in turn.steps] == ["remote", "remote"]
    assert turn.backend == "remote"


async def test_remote_then_local_on_remote_failure(api, remote) -> None:
    local = ScriptedModel(["Thought: x\nFinal Answer: 本地回答"], name="local")
    api.plan.extend(["500", "500", "500"])
    model = build_model("remote-then-local", local, remote)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False)
    turn = await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
    assert turn.answer == "本地回答" and turn.backend == "local"


async def test_repeated_format_errors_switch_backend(api, remote) -> None:
    local = ScriptedModel(["Thought: hmm", '{"oops": '], name="local")
    api.plan.append(("ok", "Thought: x\nFinal Answer: 远程接手"))
    model = FallbackModel(local, remote, max_format_errors=2)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False)
    turn = await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
    assert [s.backend for s in turn.steps] == ["local", "local", "remote"]
    assert turn.answer == "远程接手"


async def test_circuit_breaker_skips_a_failing_backend() -> None:
    now = [100.0]
    first = ScriptedModel([ModelUnavailable("down")] * 5, name="a")
    second = ScriptedModel(["Final Answer: b"] * 5, name="b")
    model = FallbackModel(
        first, second, breaker_failures=1, breaker_seconds=30, clock=lambda: now[0]
    )
    for _ in range(3):
        result = await asyncio.wait_for(model.complete(MESSAGES), timeout=5)
        assert result.backend == "b"
    assert len(first.history) == 1  # skipped while the circuit is open
    now[0] += 31
    await asyncio.wait_for(model.complete(MESSAGES), timeout=5)
    assert len(first.history) == 2


async def test_every_backend_failing_is_spoken() -> None:
    model = FallbackModel(
        ScriptedModel([ModelUnavailable("x")], name="a"),
        ScriptedModel([ModelUnavailable("y")], name="b"),
    )
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False, language="en")
    turn = await asyncio.wait_for(agent.run("play something"), timeout=5)
    assert turn.answer.startswith("Sorry") and "a: x" in turn.error and "b: y" in turn.error


def test_build_model_policies() -> None:
    local, remote = ScriptedModel([], name="local"), ScriptedModel([], name="remote")
    assert build_model("local", local, remote).secondary is None
    assert build_model("local-then-remote", local, None).primary is local
    chain = build_model("remote-then-local", local, remote)
    assert chain.primary is remote and chain.secondary is local
    with pytest.raises(ValueError):
        build_model("sometimes", local, remote)
    with pytest.raises(ValueError):
        build_model("local", None, None)


# ------------------------------------------------------------------- misbehaving servers


def make_remote(api, **options) -> RemoteModel:
    settings = {
        "base_url": api.url,
        "api_key": KEY,
        "model": "deepseek-chat",
        "total_timeout": 2.0,
        "first_token_timeout": 0.4,
        "max_retries": 2,
        "backoff": 0.01,
    }
    settings.update(options)
    return RemoteModel(**settings)


@pytest.mark.parametrize("kind", ["stall-headers", "stall-mid", "keepalive"])
async def test_a_stalling_server_fails_fast(api, kind) -> None:
    model = make_remote(api)
    api.plan.extend([kind] * 3)
    started = time.perf_counter()
    try:
        with pytest.raises(ModelTimeout, match=r"stalled|first token"):
            await complete(model)
    finally:
        await model.close()
    assert time.perf_counter() - started < 1.0  # first_token_timeout, not total_timeout
    assert len(api.requests) == 1  # a stall is not retried


async def test_total_timeout_bounds_retries(api) -> None:
    model = make_remote(api, total_timeout=0.5, first_token_timeout=5.0, max_retries=5)
    api.plan.extend(["slow"] * 6)
    started = time.perf_counter()
    try:
        with pytest.raises(ModelTimeout):
            await complete(model)
    finally:
        await model.close()
    assert time.perf_counter() - started < 0.9 and len(api.requests) == 1


async def test_reasoning_budget_is_retried_once_with_more_tokens(api) -> None:
    model = make_remote(api, max_tokens=256, max_tokens_ceiling=2048)
    api.plan.extend(["length-reasoning", ("ok", "Thought: x\nFinal Answer: 想好了")])
    try:
        result = await complete(model)
    finally:
        await model.close()
    assert result.text == "Thought: x\nFinal Answer: 想好了"
    first, second = api.requests
    assert first["max_tokens"] == 256 and second["max_tokens"] == 1024
    assert "stop" in first and "stop" not in second  # it reasons: no stop words from now on
    assert model.reasoning is True


async def test_reasoning_budget_twice_is_a_budget_error(api) -> None:
    model = make_remote(api, max_tokens=256, max_tokens_ceiling=600)
    api.plan.extend(["length-reasoning", "length-reasoning", "length-reasoning"])
    try:
        with pytest.raises(ModelBudgetError, match="600 tokens"):
            await complete(model)
        assert [r["max_tokens"] for r in api.requests] == [256, 600]
        api.requests.clear()
        capped = make_remote(api, max_tokens=256, max_tokens_ceiling=256)
        with pytest.raises(ModelBudgetError):
            await complete(capped)
        assert len(api.requests) == 1  # no larger budget allowed: no second request
        await capped.close()
    finally:
        await model.close()


async def test_reasoning_model_gets_no_stop_words_and_thinking_is_discarded(api) -> None:
    model = make_remote(api, model="deepseek-reasoner")
    text = "Thought: 好\nFinal Answer: 播放好了\nObservation: 我编的"
    api.plan.append(("reasoning", text))
    try:
        result = await complete(model)
    finally:
        await model.close()
    assert "stop" not in api.requests[0]
    assert result.text == "Thought: 好\nFinal Answer: 播放好了"
    assert "WRONG" in result.reasoning and "WRONG" not in result.text


async def test_native_tool_calls_are_read_as_react(api) -> None:
    model = make_remote(api, tool_calls=True)
    tools = [{"type": "function", "function": {"name": "search_album", "parameters": {}}}]
    api.plan.append(("tool", 'search_album|{"keyword": "西游记"}'))
    try:
        result = await complete(model, tools=tools)
    finally:
        await model.close()
    assert api.requests[0]["tools"] == tools
    assert result.tool_calls == ({"name": "search_album", "arguments": '{"keyword": "西游记"}'},)
    assert (
        result.text
        == 'Thought: 先查一下\nAction: search_album\nAction Input: {"keyword": "西游记"}'
    )


async def test_native_tool_calls_through_the_agent(api) -> None:
    library = FakeLibrary()
    remote = make_remote(api, tool_calls=True)
    api.plan.extend([("tool", 'search_album|{"keyword": "三体"}'), ("ok", "有三体，共30集。")])
    model = build_model("remote", None, remote)
    agent = Agent(ToolRegistry(library.tools()), model, fast_path=False)
    try:
        turn = await asyncio.wait_for(agent.run("有没有三体"), timeout=10)
    finally:
        await model.close()
    assert library.calls == [("search_album", {"keyword": "三体", "page": 1})]
    names = {spec["function"]["name"] for spec in api.requests[0]["tools"]}
    assert {"pause", "play_book"} <= names
    action = turn.steps[0]
    assert action.kind == StepKind.ACTION and action.action == "search_album"
    assert action.thought == "先查一下" and "st03" in action.observation
    assert "st03" in api.requests[1]["messages"][-1]["content"]  # the observation went back
    assert turn.answer == "Found: 三体, 30 episodes"  # the result's message is spoken
    assert turn.steps[-1].answer == "有三体，共30集。"


async def test_plain_remote_text_is_never_spoken(api) -> None:
    raw = 'I am just raw text without any format {"x": }'
    remote = make_remote(api)
    local = ScriptedModel(["Thought: x\nFinal Answer: 本地说话"], name="local")
    api.plan.extend([("ok", raw)] * 4)
    model = build_model("remote-then-local", local, remote)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False)
    try:
        turn = await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
        assert turn.answer == "本地说话"
        assert [s.kind for s in turn.steps][:2] == [StepKind.FORMAT_ERROR] * 2
        alone = Agent(ToolRegistry(FakeLibrary().tools()), build_model("remote", None, remote))
        alone.fast_path.enabled = False
        turn = await asyncio.wait_for(alone.run("讲个笑话"), timeout=10)
        assert "raw text" not in turn.answer and turn.steps
    finally:
        await model.close()


async def test_action_and_final_answer_on_one_line_is_not_played(api) -> None:
    library = FakeLibrary()
    remote = make_remote(api)
    api.plan.extend(
        [("ok", "Action: play_book Final Answer:"), ("ok", "Thought: x\nFinal Answer: 好的")]
    )
    model = build_model("remote", None, remote)
    agent = Agent(ToolRegistry(library.tools()), model, fast_path=False)
    try:
        turn = await asyncio.wait_for(agent.run("播放一本书"), timeout=10)
    finally:
        await model.close()
    assert library.calls == [] and turn.steps[0].kind == StepKind.FORMAT_ERROR
    assert "both" in api.requests[1]["messages"][-1]["content"]


# ---------------------------------------------------------- budgets per backend, breaker


async def test_stalling_remote_falls_to_local_within_budget_and_breaker_opens(api) -> None:
    """remote-then-local with a remote that stalls: every turn is the local model's answer
    within remote.total_timeout + the local step; after 2 such turns no remote request
    until the cool-down."""
    now = [1000.0]
    remote = make_remote(api, total_timeout=0.6, first_token_timeout=5.0)
    api.plan.extend(["stall-headers"] * 10)
    local = ScriptedModel(name="local")
    model = build_model("remote-then-local", local, remote, step_timeout=1.5, clock=lambda: now[0])
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False, step_timeout=1.5)
    try:
        for turn_index in range(4):
            local.enqueue(f"Thought: x\nFinal Answer: 本地{turn_index}")
            started = time.perf_counter()
            turn = await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
            elapsed = time.perf_counter() - started
            assert turn.answer == f"本地{turn_index}" and turn.backend == "local"
            assert elapsed < 0.6 + 1.5, elapsed
            assert len(api.requests) == min(turn_index + 1, 2)
        now[0] += 61  # the cool-down is over: one probe
        local.enqueue("Thought: x\nFinal Answer: 又是本地")
        turn = await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
        assert turn.answer == "又是本地" and len(api.requests) == 3
        local.enqueue("Thought: x\nFinal Answer: 还是本地")
        await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
        assert len(api.requests) == 3  # the probe failed: open again at once
    finally:
        await model.close()


async def test_local_keeps_its_own_budget_behind_a_stalling_remote(api) -> None:
    """The loop's step timeout must not cancel the fallback: the remote stalls for its
    whole budget, then a local step that needs most of its own still completes."""
    remote = make_remote(api, total_timeout=0.8, first_token_timeout=5.0)
    api.plan.extend(["stall-headers"] * 3)

    async def slow_local(messages):
        await asyncio.sleep(0.7)
        return "Thought: x\nFinal Answer: 慢慢的本地"

    local = ScriptedModel([slow_local], name="local")
    model = build_model("remote-then-local", local, remote)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False, step_timeout=1.0)
    try:
        turn = await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
    finally:
        await model.close()
    assert turn.answer == "慢慢的本地", turn.error


async def test_a_local_step_over_its_budget_is_a_failure() -> None:
    async def stalled(messages):
        await asyncio.sleep(5)
        return "Final Answer: 太晚了"

    local = ScriptedModel([stalled], name="local")
    model = FallbackModel(local, None, step_timeout=0.2)
    with pytest.raises(ModelUnavailable, match=r"no reply within 0\.2 s"):
        await asyncio.wait_for(model.complete(MESSAGES), timeout=5)


async def test_stalled_remote_does_not_come_back_within_the_turn(api) -> None:
    library = FakeLibrary()
    remote = make_remote(api, total_timeout=0.5, first_token_timeout=5.0)
    api.plan.extend(["stall-headers"] * 3)
    local = ScriptedModel(
        ["Thought: x\nAction: pause\nAction Input: {}", "Thought: x\nFinal Answer: 停了"],
        name="local",
    )
    model = build_model("remote-then-local", local, remote, breaker_failures=5)
    agent = Agent(plain_registry(library), model, fast_path=False)
    try:
        turn = await asyncio.wait_for(agent.run("请暂停一下吧"), timeout=10)
    finally:
        await model.close()
    assert turn.answer == "Paused." and len(api.requests) == 1
    assert turn.steps[-1].answer == "停了"


@pytest.mark.parametrize("language", ["zh", "en"])
async def test_remote_alone_sends_nothing_while_the_circuit_is_open(api, language) -> None:
    now = [0.0]
    remote = make_remote(api, max_retries=0)
    api.plan.extend(["500"] * 10)
    model = build_model("remote", None, remote, clock=lambda: now[0], breaker_seconds=60)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False, language=language)
    try:
        for _ in range(2):
            await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
        assert len(api.requests) == 2
        for _ in range(3):
            turn = await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
            expected = "远程模型暂时不可用" if language == "zh" else "remote model is unavailable"
            assert expected in turn.answer and "circuit open" in turn.error
        assert len(api.requests) == 2  # 0 requests while open
        now[0] += 61
        await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
        assert len(api.requests) == 3
    finally:
        await model.close()


@pytest.mark.parametrize("status", ["401", "429", "500"])
async def test_http_errors_fall_back_to_local(api, status) -> None:
    remote = make_remote(api, max_retries=1)
    api.plan.extend([status] * 3)
    local = ScriptedModel(["Thought: x\nFinal Answer: 本地"], name="local")
    model = build_model("remote-then-local", local, remote)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False)
    try:
        turn = await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
    finally:
        await model.close()
    assert turn.answer == "本地" and len(api.requests) == (1 if status == "401" else 2)


# -------------------------------------------------------------------------- shutdown


async def test_close_leaves_no_unclosed_session(api, caplog) -> None:
    caplog.set_level(logging.ERROR)
    remote = make_remote(api)
    local = ScriptedModel(name="local")
    model = build_model("remote-then-local", local, remote)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False)
    await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
    session = remote._session
    assert session is not None and not session.closed
    await asyncio.wait_for(close_agent_models(agent), timeout=10)
    assert session.closed and local.closed
    await asyncio.wait_for(close_agent_models(agent), timeout=10)  # twice is harmless
    del session, remote, model, agent
    gc.collect()
    await asyncio.sleep(0)
    assert "Unclosed" not in caplog.text


@pytest.mark.models
async def test_real_local_model_answers_behind_a_stalling_remote(api, llm_path) -> None:
    """The real 0.5B GGUF as the fallback: a stalled remote costs its budget, no more, and
    after two such turns it is not asked at all."""
    from agent_books import books_registry

    from agent.local import LocalModel

    library = FakeLibrary()
    local = LocalModel(llm_path, n_ctx=4096, max_tokens=96, temperature=0.0)
    remote = make_remote(api, total_timeout=1.0, first_token_timeout=5.0)
    api.plan.extend(["stall-headers"] * 5)
    step = 240.0  # the local step's own budget (generous: this machine is shared)
    model = build_model("remote-then-local", local, remote, step_timeout=step)
    agent = Agent(
        books_registry(library), model, fast_path=False, max_tokens=96, catalog=library.titles
    )
    try:
        await asyncio.wait_for(local.load(), timeout=120)
        for index, utterance in enumerate(["暂停一下", "播放三体第2集", "暂停一下"]):
            library.reset()
            started = time.perf_counter()
            turn = await asyncio.wait_for(agent.run(utterance), timeout=900)
            elapsed = time.perf_counter() - started
            model_steps = [s for s in turn.steps if s.backend not in ("fastpath", "human")]
            assert model_steps and all(s.backend == "local" for s in model_steps), turn.steps
            # the local model did the work: a parsed reply of its own (which tool it picks
            # is measured by test_agent_real_model.py and bench/agent.py)
            assert all(s.kind in (StepKind.ACTION, StepKind.FINAL) for s in model_steps)
            assert turn.answer and not turn.error, turn.error
            # the remote's budget once (first model step) + the local steps, each in its own
            assert elapsed < 1.0 + step * len(model_steps)
            assert all(s.ms["model"] < step * 1000 for s in model_steps[1:])
            assert len(api.requests) == min(index + 1, 2)
    finally:
        await asyncio.wait_for(close_agent_models(agent), timeout=30)


async def test_cancel_during_a_stall_returns_at_once(api) -> None:
    model = make_remote(api, total_timeout=5.0, first_token_timeout=5.0)
    api.plan.append("stall-headers")
    cancel = asyncio.Event()
    asyncio.get_running_loop().call_later(0.2, cancel.set)
    started = time.perf_counter()
    try:
        result = await complete(model, cancel=cancel)
    finally:
        await model.close()
    assert result.finish_reason == "cancelled" and time.perf_counter() - started < 1.0


async def test_a_remote_that_only_writes_free_text_rests_after_two_turns(api) -> None:
    remote = make_remote(api)
    api.plan.extend([("ok", "Sure, here is what I think {about: this")] * 10)
    local = ScriptedModel(name="local")
    model = build_model("remote-then-local", local, remote)
    agent = Agent(ToolRegistry(FakeLibrary().tools()), model, fast_path=False)
    try:
        for index in range(4):
            local.enqueue(f"Thought: x\nFinal Answer: 本地{index}")
            turn = await asyncio.wait_for(agent.run("讲个笑话"), timeout=10)
            assert turn.answer == f"本地{index}"
            assert len(api.requests) == min(2 * (index + 1), 4)  # 2 format errors a turn
        assert model.is_open(remote)
    finally:
        await model.close()


def test_openai_tools_from_the_registry() -> None:
    from agent.models import openai_tools, tool_name_from_api
    from agent.tools import Tool

    async def lookup(album_id: str) -> str:
        return album_id

    tool = Tool(
        name="books.lookup",
        description="Look an album up.",
        parameters={
            "type": "object",
            "properties": {"album_id": {"type": "string", "x-role": "album-id"}},
            "required": ["album_id"],
        },
        func=lookup,
    )
    (spec,) = openai_tools([tool])
    assert spec["type"] == "function" and spec["function"]["name"] == "books__lookup"
    assert spec["function"]["parameters"]["properties"] == {"album_id": {"type": "string"}}
    assert tool.parameters["properties"]["album_id"]["x-role"] == "album-id"  # untouched
    assert tool_name_from_api("books__lookup") == "books.lookup"
