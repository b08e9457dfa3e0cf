"""Decoding work per play turn with jump-forward on and off, start-up with and without the
saved prompt state, and what a library change re-evaluates — on the device as built.

Every figure comes from the device the way ``xiaoting run`` builds it (`bench/agent.py`'s
`Device`: the real `Player` on the generated library, the `Agent` over the local GGUF with
its grammar, ALSA ``null``), asked the typed play requests (`bench.decode_steps`:
categories ``play``, ``play_episode``, ``continue`` and ``resume``) over the control
socket. The same requests run with ``llm.jump_forward``
on and off in the same run. A decode step is one token the model chose (one single-token
llama.cpp evaluation); forced tokens are appended in batches.

Run: ``nice .venv/bin/python bench/speed.py [--limit N]``.
"""

from __future__ import annotations

import argparse
import asyncio
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
from bench.decode_steps import PLAY_CATEGORIES, play_turns, summary, with_llm  # noqa: E402
from bench.library import cached_library  # noqa: E402


async def start(config: Any) -> tuple[Device, float]:
    device = Device(config)
    began = time.perf_counter()
    await device.start()
    return device, time.perf_counter() - began


async def main_async(args: argparse.Namespace) -> int:
    requests = [
        r for r in load_requests(FORMS["typed"], "typed") if r["category"] in PLAY_CATEGORIES
    ]
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
                    results[jump] += await play_turns(
                        device, chosen, args.turn_timeout, apply_setup
                    )
                    if jump:
                        tail.append(await library_change(device, lang))
                finally:
                    await device.close()
    on, off = results[True], results[False]
    print()
    for line in summary(on, off):
        print(line)
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
