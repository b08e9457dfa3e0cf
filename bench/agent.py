"""Task-success and speed benchmark of the ReAct loop on a real GGUF model.

Runs the requests of ``bench/agent_tasks.jsonl`` (Chinese and English, each with the tool
calls that count as success) through our loop (grammar, prompts, fast path, KV cache) and
the first ``--baseline-limit`` of them through a plain reimplementation of the original
design note's minimal loop (``bench/baseline_react.py``: regex extraction, no grammar, no
cache) on the same model in the same run. Prints: median turn latency, tokens per turn,
format-failure rate and task success for both; grammar overhead (tokens/s with and without
the grammar); time to first token with and without the cached system prompt. Tasks marked
``"heldout": true`` are phrasings the prompts were not tuned on; they are summarised apart.

    .venv/bin/python bench/agent.py --model models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf --limit 20
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# This file is named agent.py: keep its folder off the path so `agent` is the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "agent"))


def _load_baseline() -> Any:
    spec = importlib.util.spec_from_file_location(
        "baseline_react", ROOT / "bench" / "baseline_react.py"
    )
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["baseline_react"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


from agent_books import FakeLibrary, books_registry, calls_match  # noqa: E402

from agent import Agent, StepKind, ToolRegistry  # noqa: E402
from agent.local import LocalModel  # noqa: E402

DEFAULT_MODEL = ROOT / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


def load_tasks(path: Path) -> list[dict[str, Any]]:
    """The benchmark requests, one JSON object per line."""
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def succeeded(task: dict[str, Any], calls: list[tuple[str, dict[str, Any]]], answer: str) -> bool:
    """True when the calls match `expect` or one of the `alt` lists, and an answer was given."""
    options = [task["expect"], *task.get("alt", [])]
    return bool(answer.strip()) and any(calls_match(option, calls) for option in options)


def _playing(task: dict[str, Any]) -> tuple[str, int] | None:
    value = task.get("playing", ["西游记", 3])
    return tuple(value) if value else None  # type: ignore[return-value]


async def run_ours(
    model: LocalModel, tasks: list[dict[str, Any]], args: argparse.Namespace
) -> list[dict]:
    library = FakeLibrary()
    registry = books_registry(library, return_direct=not args.no_return_direct)
    agents = {
        lang: Agent(
            registry,
            model,
            language=lang,
            max_tokens=args.max_tokens,
            fast_path=not args.no_fast_path,
            catalog=None if args.no_catalog else library.titles,
        )
        for lang in ("zh", "en")
    }
    rows = []
    language = None
    for task in tasks:
        if task["lang"] != language:
            # A device runs one language and caches its system prompt at start-up.
            language = task["lang"]
            library.reset(playing=_playing(task))
            await agents[language].warm()
        library.reset(playing=_playing(task))
        turn = await agents[task["lang"]].run(task["utterance"])
        model_steps = [
            s
            for s in turn.steps
            if s.kind in (StepKind.ACTION, StepKind.FINAL, StepKind.FORMAT_ERROR)
            and s.backend != "fastpath"
        ]
        failures = sum(1 for s in turn.steps if s.kind == StepKind.FORMAT_ERROR)
        ok = succeeded(task, library.calls, turn.answer)
        rows.append(
            {
                "id": task["id"],
                "ok": ok,
                "ms": turn.elapsed_ms,
                "tokens": turn.tokens,
                "model_steps": len(model_steps),
                "format_failures": failures,
                "fast": turn.backend == "fastpath",
                "heldout": bool(task.get("heldout")),
            }
        )
        mark = "ok  " if ok else "FAIL"
        print(
            f"  ours {mark} {task['id']} {turn.elapsed_ms:6.0f} ms {turn.tokens:3d} tok  {task['utterance']!r} -> {library.calls} | {turn.answer[:50]!r}",
            flush=True,
        )
    return rows


async def run_baseline(
    model: LocalModel, tasks: list[dict[str, Any]], args: argparse.Namespace
) -> list[dict]:
    library = FakeLibrary()
    baseline = _load_baseline().BaselineAgent(
        library.tools(), model, max_rounds=args.max_rounds, max_tokens=args.max_tokens
    )
    rows = []
    saved = (model.cache, model.supports_grammar)
    model.cache, model.supports_grammar = False, False
    try:
        for task in tasks:
            library.reset(playing=_playing(task))
            turn = await baseline.run(task["utterance"])
            ok = succeeded(task, library.calls, turn.answer)
            rows.append(
                {
                    "id": task["id"],
                    "ok": ok,
                    "ms": turn.elapsed_ms,
                    "tokens": turn.tokens,
                    "model_steps": len(turn.replies),
                    "format_failures": turn.format_failures,
                    "invented": turn.invented_observations,
                }
            )
            mark = "ok  " if ok else "FAIL"
            print(
                f"  base {mark} {task['id']} {turn.elapsed_ms:6.0f} ms {turn.tokens:3d} tok  {task['utterance']!r} -> {library.calls}",
                flush=True,
            )
    finally:
        model.cache, model.supports_grammar = saved
    return rows


def summary(name: str, rows: list[dict]) -> str:
    if not rows:
        return f"{name}: no rows"
    steps = sum(r["model_steps"] for r in rows)
    failures = sum(r["format_failures"] for r in rows)
    success = sum(r["ok"] for r in rows)
    text = (
        f"{name:<28} n={len(rows):3d}  success {success}/{len(rows)} ({100 * success / len(rows):.0f}%)  "
        f"median turn {statistics.median(r['ms'] for r in rows) / 1000:.2f} s  "
        f"tokens/turn {statistics.mean(r['tokens'] for r in rows):.0f}  "
        f"format failures {failures}/{steps} steps ({100 * failures / max(1, steps):.0f}%)"
    )
    if "invented" in rows[0]:
        text += f"  invented Observation in {sum(r['invented'] for r in rows)}/{steps} replies"
    return text


async def grammar_overhead(model: LocalModel, args: argparse.Namespace) -> tuple[float, float]:
    """Decode tokens/s with and without the grammar (same prompts, cache on)."""
    library = FakeLibrary()
    registry = ToolRegistry(library.tools())
    agent = Agent(registry, model, language="zh", fast_path=False)
    from agent.grammar import build_grammar

    grammar = build_grammar(registry)
    rates: dict[bool, list[float]] = {True: [], False: []}
    for utterance in ("播放西游记第三集", "三体有多少集", "play Treasure Island", "给我讲个笑话"):
        messages = [
            {"role": "system", "content": agent.system_prompt()},
            {"role": "user", "content": utterance},
        ]
        for use in (True, False):
            result = await model.complete(messages, grammar=grammar if use else None, max_tokens=48)
            decode_ms = result.elapsed_ms - (result.first_token_ms or 0.0)
            if result.completion_tokens > 1 and decode_ms > 0:
                rates[use].append((result.completion_tokens - 1) / (decode_ms / 1000.0))
    return statistics.median(rates[True]), statistics.median(rates[False])


async def first_token(model: LocalModel, args: argparse.Namespace) -> tuple[float, float, int]:
    """Median time to first token (ms) with the system prompt cached and with a cold cache."""
    registry = ToolRegistry(FakeLibrary().tools())
    agent = Agent(registry, model, language="zh", fast_path=False)
    system = {"role": "system", "content": agent.system_prompt()}
    await model.warm([system])
    warm, cold = [], []
    for utterance in ("播放三体", "搜一下红楼梦", "下一集是什么"):
        messages = [system, {"role": "user", "content": utterance}]
        result = await model.complete(messages, max_tokens=1)
        warm.append(result.first_token_ms or result.elapsed_ms)
        model.cache = False
        result = await model.complete(messages, max_tokens=1)
        cold.append(result.first_token_ms or result.elapsed_ms)
        model.cache = True
        await model.warm([system])
    return statistics.median(warm), statistics.median(cold), model.count_tokens(system["content"])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="GGUF model file")
    parser.add_argument("--tasks", type=Path, default=ROOT / "bench" / "agent_tasks.jsonl")
    parser.add_argument("--limit", type=int, default=0, help="only the first N tasks (0 = all)")
    parser.add_argument(
        "--baseline-limit", type=int, default=12, help="tasks for the baseline loop"
    )
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--max-rounds", type=int, default=6)
    parser.add_argument("--no-fast-path", action="store_true")
    parser.add_argument(
        "--no-catalog", action="store_true", help="do not show the album titles to the agent"
    )
    parser.add_argument(
        "--no-return-direct", action="store_true", help="playback tools not return_direct"
    )
    args = parser.parse_args()
    tasks = load_tasks(args.tasks)
    if args.limit:
        tasks = tasks[: args.limit]
    # One language after the other, as on a device (the system prompt stays cached).
    tasks.sort(key=lambda t: t["lang"] != "zh")
    model = LocalModel(
        args.model, n_ctx=args.n_ctx, n_threads=args.threads, max_tokens=args.max_tokens
    )
    start = time.perf_counter()
    await model.load()
    print(
        f"model {args.model.name} loaded in {time.perf_counter() - start:.1f} s; {len(tasks)} tasks",
        flush=True,
    )
    ours = await run_ours(model, tasks, args)
    half = args.baseline_limit // 2
    subset = [t for t in tasks if t["lang"] == "zh"][: args.baseline_limit - half]
    subset += [t for t in tasks if t["lang"] == "en"][:half]
    base = await run_baseline(model, subset, args) if args.baseline_limit else []
    with_grammar, without_grammar = await grammar_overhead(model, args)
    warm, cold, system_tokens = await first_token(model, args)
    ids = {t["id"] for t in subset}
    print()
    print(summary("ours, all tasks", ours))
    print(summary("ours, model tasks only", [r for r in ours if not r["fast"]]))
    print(summary("ours, held-out phrasings", [r for r in ours if r["heldout"]]))
    print(summary("ours, baseline subset", [r for r in ours if r["id"] in ids]))
    print(summary("design-note loop, subset", base))
    print(f"fast path answered {sum(r['fast'] for r in ours)}/{len(ours)} tasks")
    print(
        f"grammar overhead: {with_grammar:.1f} tok/s with grammar vs {without_grammar:.1f} tok/s without "
        f"({100 * (1 - with_grammar / without_grammar):.0f}% slower)"
    )
    print(
        f"time to first token: {warm:.0f} ms with the {system_tokens}-token system prompt cached vs "
        f"{cold:.0f} ms cold ({cold / max(warm, 1e-3):.1f}x)"
    )
    model.close()


if __name__ == "__main__":
    asyncio.run(main())
