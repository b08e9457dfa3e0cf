"""What a misbehaving remote model costs a turn, with the real local model as the fallback.

An OpenAI-compatible server runs in this process and misbehaves the ways real ones do:
it stalls before its headers (``stall-headers``), stalls after the first chunk
(``stall-mid``), or answers 500 to everything (``dead``). The agent runs with
``remote-then-local`` (the local GGUF model as the fallback, or a scripted one with
``--scripted``) and with ``remote`` alone. Printed per turn: time, the backend that
answered, and the remote requests sent so far; then, per scenario, the slowest turn
against its bound (``remote.total_timeout`` + the local steps) and the requests sent
while the circuit breaker was open (should be 0).

    nice .venv/bin/python bench/remote.py                 # real 0.5B model, 4 turns each
    .venv/bin/python bench/remote.py --scripted --turns 6
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "agent"))

from agent_books import FakeLibrary, books_registry  # noqa: E402
from aiohttp import web  # noqa: E402

from agent import Agent, ScriptedModel, build_model  # noqa: E402
from agent.remote import RemoteModel  # noqa: E402

DEFAULT_MODEL = ROOT / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
UTTERANCES = ["暂停一下", "播放三体第2集", "红楼梦有多少集", "继续播放", "声音小一点", "停止"]


class Timed:
    """A chat model that records how long each of its own replies took (seconds)."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.seconds: list[float] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    async def complete(self, messages: Any, **options: Any) -> Any:
        started = time.perf_counter()
        try:
            return await self._model.complete(messages, **options)
        finally:
            self.seconds.append(time.perf_counter() - started)


class Server:
    """The misbehaving /chat/completions endpoint; counts requests."""

    def __init__(self) -> None:
        self.kind = "stall-headers"
        self.requests = 0
        self.release = asyncio.Event()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        self.requests += 1
        if self.kind == "dead":
            return web.Response(status=500, text="internal error")
        if self.kind == "stall-headers":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.release.wait(), 120)
            return web.Response(status=503)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        chunk = {"choices": [{"index": 0, "delta": {"content": "Thought: "}}]}
        await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.release.wait(), 120)
        return response


async def scenario(
    name: str, kind: str, policy: str, server: Server, url: str, local: Any, args: Any
) -> dict[str, Any]:
    server.kind = kind
    server.requests = 0
    remote = RemoteModel(
        base_url=url,
        api_key="sk-bench-0123456789",
        total_timeout=args.total_timeout,
        first_token_timeout=args.first_token_timeout,
        max_retries=2,
        backoff=0.05,
    )
    timed = Timed(local)
    model = build_model(
        policy, timed if policy != "remote" else None, remote, step_timeout=args.step_timeout
    )
    library = FakeLibrary()
    agent = Agent(
        books_registry(library),
        model,
        fast_path=False,
        max_tokens=96,
        max_rounds=4,
        step_timeout=args.step_timeout,
        catalog=library.titles,
    )
    print(f"\n== {name}: {policy}, remote {kind}, total_timeout {args.total_timeout:g} s")
    worst_over = -1e9
    sent_while_open = 0
    for index in range(args.turns):
        utterance = UTTERANCES[index % len(UTTERANCES)]
        library.reset()
        was_open = model.is_open(remote)
        before = server.requests
        if isinstance(local, ScriptedModel):
            local.enqueue("Thought: 好\nFinal Answer: 本地的回答")
        timed.seconds.clear()
        started = time.perf_counter()
        turn = await agent.run(utterance)
        elapsed = time.perf_counter() - started
        local_ms = sum(timed.seconds) * 1000.0
        bound = (0.0 if was_open else args.total_timeout) + local_ms / 1000.0 + 0.5
        worst_over = max(worst_over, elapsed - bound)
        if was_open:
            sent_while_open += server.requests - before
        print(
            f"turn {index + 1}: {elapsed:6.2f} s (local steps {local_ms / 1000.0:6.2f} s, "
            f"rest {elapsed - local_ms / 1000.0:5.2f} s)  backend={turn.backend:<7} "
            f"remote requests={server.requests:<3} breaker={'open' if was_open else 'closed'}"
            f"  answer={turn.answer[:30]!r}"
        )
    await remote.close()  # the local model is shared by the scenarios: closed at the end
    print(
        f"{name}: largest overrun {worst_over:+.2f} s over remote budget + local steps "
        "(<= 0: within); "
        f"requests while open: {sent_while_open}"
    )
    return {"over": worst_over, "sent_while_open": sent_while_open}


async def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    server = Server()
    app = web.Application()
    app.router.add_post("/chat/completions", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
    if args.scripted:
        local: Any = ScriptedModel(name="local")
    else:
        from agent.local import LocalModel

        local = LocalModel(args.model, n_ctx=4096, max_tokens=96, temperature=0.0)
        started = time.perf_counter()
        await local.load()
        print(
            f"local model {Path(args.model).name} loaded in {time.perf_counter() - started:.1f} s"
        )
    results = []
    try:
        for name, kind, policy in (
            ("stall before headers", "stall-headers", "remote-then-local"),
            ("stall mid-stream", "stall-mid", "remote-then-local"),
            ("dead remote alone", "dead", "remote"),
        ):
            results.append(await scenario(name, kind, policy, server, url, local, args))
    finally:
        server.release.set()
        close = getattr(local, "close", None)
        if close is not None and not asyncio.iscoroutinefunction(close):
            await asyncio.to_thread(close)
        await runner.cleanup()
    ok = all(r["over"] <= 0 and r["sent_while_open"] == 0 for r in results)
    print(f"\nremote benchmark: {'within budget' if ok else 'OVER BUDGET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(DEFAULT_MODEL))
    parser.add_argument("--scripted", action="store_true", help="a scripted local model")
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--total-timeout", type=float, default=3.0)
    parser.add_argument("--first-token-timeout", type=float, default=2.0)
    parser.add_argument("--step-timeout", type=float, default=240.0)
    sys.exit(asyncio.run(main(parser.parse_args())))
