"""The App closes the language models it was given when it stops: the remote model's HTTP
session (no "Unclosed client session" in the log) and every other backend."""

from __future__ import annotations

import asyncio
import gc
import json
import logging

import numpy as np
from aiohttp import web
from device_fakes import FakeCapture, FakePlayer, FakeRecogniser, FakeSynthesiser, RecordingOutput

from agent import Agent, ScriptedModel, ToolRegistry, build_model
from agent.remote import RemoteModel
from device.app import App, AppState
from device.audio_out import Mixer
from device.events import Inbox

LOUD = (np.sin(np.arange(16000) / 3) * 8000).astype("<i2").tobytes()


async def _answer(request: web.Request) -> web.StreamResponse:
    await request.json()
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    delta = {"content": "Thought: x\nFinal Answer: 好"}
    chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": "stop"}]}
    await response.write(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode())
    return response


async def test_stop_closes_the_remote_session_and_the_local_model(tmp_path, caplog) -> None:
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
    model = build_model("remote-then-local", local, remote)
    agent = Agent(ToolRegistry([]), model, fast_path=False)
    turn = await asyncio.wait_for(agent.run("你好"), timeout=10)
    assert turn.answer == "好" and remote._session is not None
    session = remote._session

    inbox = Inbox()
    mixer = Mixer(RecordingOutput(realtime=True), period_frames=1024, duck_volume=0.0)
    mixer.start()
    app = App(
        inbox,
        mixer,
        agent,
        player=FakePlayer(mixer.book),
        capture=FakeCapture(LOUD),
        recogniser=FakeRecogniser("你好"),
        synthesiser=FakeSynthesiser(0.1),
        buttons=[],
        control_path=str(tmp_path / "control.sock"),
    )
    task = asyncio.create_task(app.run())
    try:
        await asyncio.wait_for(app.wait_state(AppState.IDLE), 5)
        app.request_stop("test")
        assert await asyncio.wait_for(task, 10) == 0
    finally:
        await runner.cleanup()
    assert session.closed and local.closed
    assert "language model closed" in caplog.text
    del session, remote, model, agent, app
    gc.collect()
    await asyncio.sleep(0)
    assert "Unclosed client session" not in caplog.text
