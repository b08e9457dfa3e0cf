"""Decoding work per play turn with jump-forward on and off, start-up with and without the
saved prompt state, and what a library change re-evaluates — on the device as built.

Every figure comes from the device the way ``xiaoting run`` builds it (`bench/agent.py`'s
`Device`: the real `Player` on the generated library, the `Agent` over the local GGUF with
its grammar, ALSA ``null``), asked the typed play requests (`bench.decode_steps`:
categories ``play``, ``play_episode``, ``continue`` and ``resume``) over the control
socket. The same requests run with ``llm.jump_forward``
on and off in the same run. A decode step is one token the model chose (one single-token
llama.cpp evaluation); forced tokens are appended in batches.

Start-up: each language starts twice on one state directory; the first start evaluates the
prompt prefix (cold), the second loads the prompt state the first one saved. Each start's
line gives the prefix's tokens, how many came from the saved state and how many were
evaluated (`LocalModel.last_warm`), so a start that missed the saved state shows it.

Library change: after both starts, an album folder is added to the library (a second
library root, listed first, so the new title heads the prompt's title list), the player
rescans, and the agent warms its real prompt prefix again (`Agent.warm`: the system text,
the example turns, the titles as the last system message, as every turn starts). The line
gives the tokens of that prefix evaluated again and those reused from the KV cache; with
the new title first, the whole title list (the last system message) is evaluated again,
the worst case of a change (an album past the listed titles changes nothing).

Run: ``nice .venv/bin/python bench/speed.py [--limit N] [--lang zh] [--threads 1]``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import shutil
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

NEW_TITLE = {"zh": "新到的一本书", "en": "The New Arrival"}
"""The album added for the library-change figure, named in the device's language."""


async def start(config: Any) -> tuple[Device, float]:
    device = Device(config)
    began = time.perf_counter()
    await device.start()
    return device, time.perf_counter() - began


def local_model(device: Device) -> Any:
    """The device's own local model (`agent.local.LocalModel`, behind a fallback chain)."""
    model = device.runtime.app.agent.model
    return getattr(model, "primary", model)


def warm_line(report: dict[str, Any]) -> str:
    """A `LocalModel.last_warm` report in words."""
    if not report:
        return "prompt not warmed"
    return (
        f"prompt prefix {report['tokens']} tokens: {report['from_state']} from the saved "
        f"state, {report['evaluated']} evaluated in {report['ms'] / 1000:.1f} s"
    )


async def main_async(args: argparse.Namespace) -> int:
    requests = [
        r for r in load_requests(FORMS["typed"][0], "typed") if r["category"] in PLAY_CATEGORIES
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
            arrivals = Path(tmp, lang, "arrivals")  # empty until the library changes
            arrivals.mkdir(parents=True)
            base = device_config(lang, args.model, library, Path(tmp, lang), args)
            base = dataclasses.replace(
                base,
                library=dataclasses.replace(
                    base.library, paths=(str(arrivals), *base.library.paths)
                ),
            )
            for jump in (True, False):
                config = with_llm(base, jump_forward=jump)
                device, seconds = await start(config)
                # The first start of a language has an empty state directory: the prompt is
                # cold; the second finds the state the first one saved.
                startup["cold" if jump else "saved"].append(seconds)
                print(
                    f"{lang}, jump-forward {'on' if jump else 'off'}: ready in {seconds:.1f} s "
                    f"({warm_line(local_model(device).last_warm)})",
                    flush=True,
                )
                try:
                    results[jump] += await play_turns(
                        device, chosen, args.turn_timeout, apply_setup
                    )
                    if not jump:  # after both starts: the change rewrites the saved state
                        tail.append(await library_change(device, lang, arrivals, library))
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


async def library_change(device: Device, lang: str, arrivals: Path, library: Path) -> str:
    """Add an album to the running device's library and warm the agent's prompt prefix
    again, as the next turn would evaluate it: what a new book costs."""
    agent = device.runtime.app.agent
    local = local_model(device)
    await agent.warm()  # the prefix as it stands (the KV cache holds it after the turns)
    before = dict(local.last_warm)
    folder = arrivals / NEW_TITLE[lang]
    folder.mkdir()
    episode = next(p for p in sorted(library.rglob("*.mp3")) if p.is_file())
    shutil.copyfile(episode, folder / "01.mp3")
    await asyncio.to_thread(device.player.library.refresh, force=True)
    await agent.warm()
    report = local.last_warm
    shown = agent.titles()[: agent.catalog_size]
    if NEW_TITLE[lang] not in shown:
        raise RuntimeError(f"the new album is not among the prompt's titles: {shown[:3]}")
    return (
        f"library change ({lang}, a title added): {report['evaluated']} of {report['tokens']} "
        f"prompt prefix tokens evaluated ({report['ms'] / 1000:.2f} s), the rest reused "
        f"(before the change: {before['evaluated']} of {before['tokens']} evaluated)"
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
