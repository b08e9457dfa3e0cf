"""RemoteModel against a real in-process OpenAI-compatible server, and the fallback chain."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque

import pytest
from agent_books import FakeLibrary
from aiohttp import web

from agent import (
    Agent,
    FallbackModel,
    ModelTimeout,
    ModelUnavailable,
    RemoteHTTPError,
    ScriptedModel,
    ToolRegistry,
    build_model,
)
from agent.errors import ModelError
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


class FakeApi:
    """Serves /chat/completions; each request takes the next behaviour from `plan`."""

    def __init__(self) -> None:
        self.plan: deque[str | tuple[str, str]] = deque()
        self.requests: list[dict] = []
        self.headers: list[dict] = []

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        self.headers.append(dict(request.headers))
        step = self.plan.popleft() if self.plan else ("ok", "Thought: x\nFinal Answer: 好")
        kind, text = step if isinstance(step, tuple) else (step, "Thought: x\nFinal Answer: 好")
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
    agent = Agent(ToolRegistry(library.tools()), model, fast_path=False)
    turn = await asyncio.wait_for(agent.run("请暂停一下吧"), timeout=10)
    assert turn.answer == "已暂停" and library.calls == [("pause", {})]
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
    local = ScriptedModel(["gibberish", "more gibberish"], name="local")
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
