"""Decode steps, forced tokens and prefill tokens of play turns, and what they would cost on a
Raspberry Pi 5 — shared by `bench/agent.py` (the same run as its accuracy figures) and
`bench/speed.py`.

A decode step is one token the model chose (one single-token llama.cpp evaluation); forced
tokens are the ones jump-forward decoding appended in batches because the grammar admitted
nothing else; prefill tokens are the prompt tokens evaluated for a step (the prompt less
what the KV cache reused).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Awaitable, Callable
from typing import Any

PLAY_CATEGORIES = ("play", "play_episode", "continue", "resume")
"""The request categories (bench/expect.py) whose turn starts a book."""

# Published llama.cpp rates for Qwen2.5-0.5B-Instruct Q4_K_M on CPU: 10.4 tokens/s generation
# and 16.6 tokens/s prompt processing, measured on 2026-09-06 and published in
# https://github.com/emigazp/companion-alzheimer/issues/7 ("0.7 · Benchmark de llama.cpp",
# the same table gives 3.55 / 5.44 tokens/s for the 1.5B). The board is not named there. No
# figure for this model on a board named "Raspberry Pi 5" was found (llama.cpp, Ollama and
# Jeff Geerling's issues, Pi blogs): the closest board-named one is "around 26 tokens/s" of
# generation for sub-1B models (qwen3:0.6b, gemma3:270m) on a Pi 5 through Ollama, in
# https://github.com/ollama/ollama/issues/13819, with no prompt rate. So the estimate below
# is a pessimistic one for a Pi 5 (Cortex-A76), closer to what a Pi 4 class board does.
PI_DECODE_TPS = 10.4
PI_PREFILL_TPS = 16.6
PI_SOURCE = "github.com/emigazp/companion-alzheimer/issues/7, Qwen2.5-0.5B Q4_K_M, llama.cpp"
PI_NOTE = (
    "no Pi 5-named figure for this model found; a Pi 5 is reported at ~26 tokens/s generation "
    "for sub-1B models (github.com/ollama/ollama/issues/13819), so this is an upper bound"
)

Setup = Callable[[Any, dict[str, Any]], Awaitable[None]]


def with_llm(config: Any, **changes: Any) -> Any:
    """`config` (a `device.config.Config`) with some `llm` settings changed."""
    return dataclasses.replace(config, llm=dataclasses.replace(config.llm, **changes))


def model_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps a language model produced (not the fast path's or a person's)."""
    return [s for s in steps if s.get("backend") not in ("fastpath", "human", None, "")]


def turn_counts(steps: list[dict[str, Any]]) -> dict[str, int]:
    """``decoded``, ``forced`` and ``prefill`` tokens of one turn's steps (trace dicts)."""
    model = model_steps(steps)
    tokens = sum(int(s.get("tokens") or 0) for s in model)
    forced = sum(int(s.get("forced_tokens") or 0) for s in model)
    prefill = sum(
        max(0, int(s.get("prompt_tokens") or 0) - int(s.get("cached_tokens") or 0)) for s in model
    )
    return {"decoded": tokens - forced, "forced": forced, "prefill": prefill}


async def play_turns(
    device: Any, requests: list[dict[str, Any]], timeout: float, setup: Setup
) -> list[dict[str, Any]]:
    """Each request through `device` (`bench.agent.Device`) after `setup(player, request's
    setup)`: one row of `turn_counts` (plus ``id``, ``ms``, ``calls``) per turn a model
    answered (fast-path turns are left out)."""
    rows = []
    for request in requests:
        await setup(device.player, request.get("setup", {}))
        reply = await device.ask(request["utterance"], timeout)
        steps = list(reply.get("steps") or [])
        if not model_steps(steps):
            continue
        calls = [s["action"] for s in steps if s.get("action")]
        row = {
            "id": request["id"],
            **turn_counts(steps),
            "ms": float(reply.get("elapsed_ms") or 0.0),
            "calls": calls,
        }
        rows.append(row)
        print(
            f"    {request['id']:<10} decode {row['decoded']:3d} forced {row['forced']:3d} "
            f"prefill {row['prefill']:4d}  {request['utterance']!r} -> {' '.join(calls) or '-'}",
            flush=True,
        )
    return rows


def pi_seconds(row: dict[str, Any]) -> float:
    """Model time of one turn at the published rates: prefill and forced tokens at the prompt
    rate (both are batched evaluations), decode steps at the generation rate."""
    return (row["prefill"] + row["forced"]) / PI_PREFILL_TPS + row["decoded"] / PI_DECODE_TPS


def summary(on: list[dict[str, Any]], off: list[dict[str, Any]]) -> list[str]:
    """The printed lines: decode steps per play turn with jump-forward on and off (same run),
    prefill tokens per turn, and the Raspberry Pi 5 estimate with its source and rates."""
    if not on:
        return ["decode steps per play turn: no play turn reached the model"]
    steps_on = statistics.median(r["decoded"] for r in on)
    forced_on = statistics.median(r["forced"] for r in on)
    lines = [
        f"decode steps per play turn: median {steps_on:g} (forced tokens batched: "
        f"{forced_on:g} median, {sum(r['forced'] for r in on)} in {len(on)} turns)"
    ]
    if off:
        steps_off = statistics.median(r["decoded"] for r in off)
        lines.append(f"decode steps per play turn (jump-forward off): median {steps_off:g}")
        lines.append(
            f"  ratio off/on: {steps_off / max(steps_on, 1e-9):.2f} "
            f"(done when >= 1.8 and on <= 18: {'yes' if steps_off >= 1.8 * steps_on and steps_on <= 18 else 'no'})"
        )
    for label, rows in (("on", on), ("off", off)):
        if rows:
            lines.append(
                f"prefill tokens per play turn (jump-forward {label}): median "
                f"{statistics.median(r['prefill'] for r in rows):g}, mean "
                f"{statistics.mean(r['prefill'] for r in rows):.0f}; model turn here: median "
                f"{statistics.median(r['ms'] for r in rows) / 1000:.2f} s"
            )
    pi_off = f", {statistics.median(pi_seconds(r) for r in off):.1f} s without" if off else ""
    lines.append(
        f"Raspberry Pi 5 estimate at {PI_DECODE_TPS:g} tokens/s decode and {PI_PREFILL_TPS:g} "
        f"tokens/s prefill (source: {PI_SOURCE}; {PI_NOTE}): model time per play turn median "
        f"{statistics.median(pi_seconds(r) for r in on):.1f} s with jump-forward{pi_off}"
    )
    return lines
