"""The runtime closes the chat models when it stops: the remote model's HTTP session (no
"Unclosed client session" in the log) and the local backend."""

from __future__ import annotations

import asyncio
import gc
import json
import logging

from aiohttp import web
from device_fakes import FakeCapture, FakePlayer, RecordingOutput

from agent import Agent, ScriptedModel, ToolRegistry, build_model
from agent.remote import RemoteModel
from device.config import dev_config
from device.runtime import build


async def _answer(request: web.Request) -> web.StreamResponse:
    await request.json()
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    delta = {"content": "Thought: x\nFinal Answer: 好"}
    chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": "stop"}]}
    await response.write(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode())
    return response


async def test_runtime_close_leaves_no_unclosed_session(tmp_path, caplog) -> None:
    caplog.set_level(logging.INFO)
    server = web.Application()
    server.router.add_post("/chat/completions", _answer)
    runner = web.AppRunner(server)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    remote = RemoteModel(base_url=f"http://127.0.0.1:{port}", api_key="sk-test-0123456789")
    local = ScriptedModel(name="local")
    agent = Agent(ToolRegistry([]), build_model("remote-then-local", local, remote))
    try:
        turn = await asyncio.wait_for(agent.run("你好"), timeout=10)
        assert turn.answer == "好" and remote._session is not None
        session = remote._session
        config = dev_config(tmp_path, button={"gpio": False, "keyboard": False})
        rt = await asyncio.wait_for(
            build(
                config,
                agent=agent,
                player=FakePlayer(),
                output=RecordingOutput(),
                capture=FakeCapture(),
                recogniser=None,
                synthesiser=None,
            ),
            10,
        )
        rt.models = [local, remote]  # as default_agent hands them over
        await asyncio.wait_for(rt.close(), 10)
    finally:
        await runner.cleanup()
    assert session.closed and local.closed
    del session, remote, agent, rt
    gc.collect()
    await asyncio.sleep(0)
    assert "Unclosed client session" not in caplog.text
