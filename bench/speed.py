"""Decoding work per play turn with jump-forward on and off, start-up with and without the
saved prompt state, and what a library change re-evaluates — on the device as built.

Every figure comes from the device the way ``xiaoting run`` builds it (`bench/agent.py`'s
`Device`: the real `Player` on the generated library, the `Agent` over the local GGUF with
its grammar, ALSA ``null``), asked the typed play requests (categories ``play`` and
``play_episode``) over the control socket. The same requests run with ``llm.jump_forward``
on and off in the same run. A decode step is one token the model chose (one single-token
llama.cpp evaluation); forced tokens are appended in batches.

Run: ``nice .venv/bin/python bench/speed.py [--limit N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.agent import (  # noqa: E402
    DEFAULT_MODEL,
    FORMS,
    Device,
    apply_setup,
    device_config,
    load_requests,
)
from bench.library import cached_library  # noqa: E402

PLAY = ("play", "play_episode")
# Published llama.cpp rates for Qwen2.5-0.5B-Instruct Q4_K_M on a small ARM board (CPU):
# 10.4 tokens/s generation, 16.6 tokens/s prompt processing, measured 2026-09-06 in
# github.com/emigazp/companion-alzheimer issue #7 ("0.7 · Benchmark de llama.cpp"); the
# same figures the issue for this benchmark cites for slower boards. A Raspberry Pi 5
# (Cortex-A76) is no slower, so the estimate is an upper bound for a Pi 5.
PI_DECODE_TPS = 10.4
PI_PREFILL_TPS = 16.6
PI_SOURCE = "github.com/emigazp/companion-alzheimer/issues/7 (Qwen2.5-0.5B Q4_K_M, llama.cpp)"


def with_llm(config: Any, **changes: Any) -> Any:
    """`config` with some `llm` settings changed."""
    return dataclasses.replace(config, llm=dataclasses.replace(config.llm, **changes))


def _model_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in steps if s.get("backend") not in ("fastpath", "human", None, "")]


async def play_turns(device: Device, requests: list[dict[str, Any]], timeout: float) -> list[dict]:
    """Each play request through the device: decoded, forced and prefill tokens of its
    model steps (turns the fast path answered are left out)."""
    rows = []
    for request in requests:
        await apply_setup(device.player, request.get("setup", {}))
        reply = await device.ask(request["utterance"], timeout)
        steps = _model_steps(list(reply.get("steps") or []))
        if not steps:
            continue
        tokens = sum(int(s.get("tokens") or 0) for s in steps)
        forced = sum(int(s.get("forced_tokens") or 0) for s in steps)
        prefill = sum(
            max(0, int(s.get("prompt_tokens") or 0) - int(s.get("cached_tokens") or 0))
            for s in steps
        )
        calls = [s["action"] for s in steps if s.get("action")]
        rows.append(
            {
                "id": request["id"],
                "decoded": tokens - forced,
                "forced": forced,
                "prefill": prefill,
                "ms": float(reply.get("elapsed_ms") or 0.0),
                "calls": calls,
            }
        )
        print(
            f"    {request['id']:<10} decode {tokens - forced:3d} forced {forced:3d} "
            f"prefill {prefill:4d}  {request['utterance']!r} -> {' '.join(calls) or '-'}",
            flush=True,
        )
    return rows


def pi_seconds(row: dict[str, Any]) -> float:
    """Model time of one turn at the published Pi rates: prefill and forced tokens at the
    prompt rate (both are batched evaluations), decode steps at the generation rate."""
    return (row["prefill"] + row["forced"]) / PI_PREFILL_TPS + row["decoded"] / PI_DECODE_TPS


async def start(config: Any) -> tuple[Device, float]:
    device = Device(config)
    began = time.perf_counter()
    await device.start()
    return device, time.perf_counter() - began


async def main_async(args: argparse.Namespace) -> int:
    requests = [r for r in load_requests(FORMS["typed"], "typed") if r["category"] in PLAY]
    if args.lang:
        requests = [r for r in requests if r["lang"] == args.lang]
    if args.limit:
        requests = requests[: args.limit]
    library = cached_library()
    results: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    startup: dict[str, list[float]] = {"cold": [], "saved": []}
    tail: list[str] = []
    with tempfile.TemporaryDirectory(prefix="xiaoting-speed-") as tmp:
        for lang in ("zh", "en"):
            chosen = [r for r in requests if r["lang"] == lang]
            if not chosen:
                continue
            base = device_config(lang, args.model, library, Path(tmp, lang), args)
            for jump in (True, False):
                config = with_llm(base, jump_forward=jump)
                device, seconds = await start(config)
                # The first start of a language has an empty cache: the prompt is cold; the
                # second finds the state the first one saved.
                startup["cold" if jump else "saved"].append(seconds)
                print(
                    f"{lang}, jump-forward {'on' if jump else 'off'}: ready in {seconds:.1f} s",
                    flush=True,
                )
                try:
                    results[jump] += await play_turns(device, chosen, args.turn_timeout)
                    if jump:
                        tail.append(await library_change(device, lang))
                finally:
                    await device.close()
    on, off = results[True], results[False]
    print()
    if on and off:
        steps_on = statistics.median(r["decoded"] for r in on)
        steps_off = statistics.median(r["decoded"] for r in off)
        forced_on = statistics.median(r["forced"] for r in on)
        print(
            f"decode steps per play turn: median {steps_on:g} (forced tokens batched: "
            f"{forced_on:g} median, {sum(r['forced'] for r in on)} in {len(on)} turns)"
        )
        print(f"decode steps per play turn (jump-forward off): median {steps_off:g}")
        print(f"  ratio off/on: {steps_off / max(steps_on, 1e-9):.2f}")
        for jump, rows in ((True, on), (False, off)):
            label = "on" if jump else "off"
            print(
                f"prefill tokens per play turn (jump-forward {label}): median "
                f"{statistics.median(r['prefill'] for r in rows):g}, mean "
                f"{statistics.mean(r['prefill'] for r in rows):.0f}; model turn here: median "
                f"{statistics.median(r['ms'] for r in rows) / 1000:.2f} s"
            )
        print(
            f"Raspberry Pi estimate (Qwen2.5-0.5B Q4_K_M at {PI_DECODE_TPS} tokens/s decode, "
            f"{PI_PREFILL_TPS} tokens/s prefill; source {PI_SOURCE}): model time per play "
            f"turn median {statistics.median(pi_seconds(r) for r in on):.1f} s with "
            f"jump-forward, {statistics.median(pi_seconds(r) for r in off):.1f} s without"
        )
    for line in tail:
        print(line)
    if startup["cold"] and startup["saved"]:
        cold = statistics.median(startup["cold"])
        saved = statistics.median(startup["saved"])
        print(
            f"start-up to READY: {cold:.1f} s cold (prompt evaluated), {saved:.1f} s with the "
            f"saved prompt state ({100 * saved / cold:.0f}% of cold; "
            f"{len(startup['cold'])}+{len(startup['saved'])} starts)"
        )
    return 0


async def library_change(device: Device, lang: str) -> str:
    """Warm the device's own local model with its system prompt plus one new album title:
    what a new book costs (the prompt's tokens evaluated again)."""
    from agent.prompt import render_system_prompt

    agent = device.runtime.app.agent
    local = getattr(agent.model, "primary", agent.model)
    titles = list(agent.titles())[: agent.catalog_size]
    before = render_system_prompt(agent.registry, language=lang, titles=titles)
    after = render_system_prompt(
        agent.registry, language=lang, titles=[*titles[:-1], "新到的一本书", titles[-1]]
    )
    await local.warm([{"role": "system", "content": before}])
    await local.warm([{"role": "system", "content": after}])
    report = local.last_warm
    return (
        f"library change ({lang}, a title added): {report['evaluated']} of {report['tokens']} "
        f"prompt tokens evaluated ({report['ms'] / 1000:.2f} s), the rest reused"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--limit", type=int, default=0, help="first N play requests")
    parser.add_argument("--lang", choices=("zh", "en"))
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--step-timeout", type=float, default=120.0)
    parser.add_argument("--turn-timeout", type=float, default=240.0)
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO if args.debug else logging.WARNING)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
