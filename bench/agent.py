"""Task success of the agent on the real player, over a generated 300-album library.

The device is built the way ``xiaoting run`` builds it (`device.runtime.build`: the
real `Player` on a local-folder library, the tool registry, the `Agent` over the local GGUF
model with its grammar, fast path and cached system prompt), with ALSA's ``null`` device as
the speaker. Each request goes in as a text turn over the control socket, as
``xiaoting ask`` sends it to a running service; before it, the player is put in the state
the request needs (a book playing or paused, bookmarks, volume), and after it the player's
state and the spoken answer are checked (`bench/expect.py`) — not the tool calls.

Requests come in three forms: typed (``requests_typed.jsonl``, and ``books_typed.jsonl``:
chapters, speed, intro/outro skip and sleep at an episode's end on the library's
chapter-marked books), shaped like a speech recogniser's transcript
(``requests_asr.jsonl``: spaces between characters, homophones, no punctuation) and
held-out phrasings (``heldout_requests.jsonl`` and ``books_heldout.jsonl``), which no
prompt, example, phrase file or rule may contain; a form's second file may be missing.
``--forms spoken`` runs the typed requests as a recogniser writes them (no punctuation or
capitals: what the box hears from Vosk), those that read otherwise.
Printed: success per form and per category, replies that failed to parse, decode and
prefill tokens per turn, median turn time, every failure with its calls, answer and reason
(held-out requests are counted, never listed: ``--show-heldout`` lists them for a
reviewer), ``held-out: N/M ok (P%), wrong actions: K``, the same line for the books
requests (categories chapter, speed, skip, sleep_end, held-out ones counted too), the wrong
actions of all requests (a failed turn that changed the player: another book, a stop, a
skip, a volume, speed or intro skip nobody asked for), and as the last line
``agent benchmark: N/M ok (P%) real player, <model>``. With ``--baseline N`` the first N
requests also go through the design note's plain loop (``bench/baseline_react.py``) on the
same player and model, for the ratio of success and turn time. The play requests run a second
time with jump-forward off (``--no-decode-steps`` skips it), for the decode steps per play
turn on and off, prefill tokens and the Raspberry Pi 5 estimate (`bench/decode_steps.py`).

    .venv/bin/python bench/agent.py --limit 10          # a quick look
    nice .venv/bin/python bench/agent.py --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import logging
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# This file is named agent.py: keep its folder off the path so `agent` is the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.expect import Observed, changed, check, observe, spoken_problems  # noqa: E402
from bench.library import ALBUMS, cached_library  # noqa: E402

DEFAULT_MODEL = ROOT / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
FORMS = {
    "typed": (ROOT / "bench" / "requests_typed.jsonl", ROOT / "bench" / "books_typed.jsonl"),
    "asr": (ROOT / "bench" / "requests_asr.jsonl",),
    "heldout": (
        ROOT / "bench" / "heldout_requests.jsonl",
        ROOT / "bench" / "books_heldout.jsonl",
    ),
}
"""The request files of each form; the first must be there, the others may be missing."""
DERIVED = {"spoken": "typed"}
"""Forms made from another's requests: ``spoken`` is each typed request as a recogniser
writes it (`unpunctuated`)."""
DEFAULT_FORMS = ("typed", "asr", "heldout")
BOOK_CATEGORIES = ("chapter", "speed", "skip", "sleep_end")
"""Requests about books in chapters and their settings (issue 24), summed on their own."""
DEFAULT_VOLUME = 60


def unpunctuated(utterance: str, lang: str) -> str:
    """`utterance` as a speech recogniser writes it: no punctuation (a decimal point kept:
    "1.5"), no capitals, one space between words; numbers stay as typed. This is what
    Vosk gives the box: "pause it, I'll be back" arrives as "pause it i'll be back"."""
    text = re.sub(r"(?<!\d)\.|\.(?!\d)|[,;:!?，。！？；：、…\"“”《》()（）~～—–-]", " ", utterance)
    text = re.sub(r"\s+", " ", text).strip()
    return text if lang == "zh" else text.lower()


def load_requests(path: Path, form: str) -> list[dict[str, Any]]:
    """The requests of one file (records with an ``utterance``; header records skipped)."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        if "utterance" not in record:
            continue  # the header of the held-out file
        for key in ("id", "lang", "category", "utterance"):
            if key not in record:
                raise ValueError(f"{path}:{number}: no {key!r}")
        record["form"] = form
        rows.append(record)
    return rows


# -- the device ----------------------------------------------------------------------------


def device_config(lang: str, model: Path, library: Path, work: Path, args: Any) -> Any:
    """The config a person would write for this box: local model only, ALSA null."""
    from device.config import from_dict

    return from_dict(
        {
            "language": lang,
            "state_dir": str(work / "state"),
            "cache_dir": str(work / "cache"),
            "models_dir": str(model.parent),
            "runtime_dir": str(work / "run"),
            "audio": {"playback_device": "null", "volume_percent": 100},
            "button": {"gpio": False, "keyboard": False},
            "llm": {
                "model": model.stem,
                "policy": "local",
                "n_ctx": args.n_ctx,
                "n_threads": args.threads,
                "step_timeout": args.step_timeout,
                "jump_forward": not getattr(args, "no_jump_forward", False),
                **(
                    {"thought_tokens": args.thought_tokens}
                    if getattr(args, "thought_tokens", None) is not None
                    else {}
                ),
            },
            "library": {"paths": [str(library)]},
        },
        "<bench>",
    )


SETTLE_MARGIN = 30.0
"""Seconds beyond its model steps' timeouts that a turn may take (tools, the answer)."""


class DeviceStuck(RuntimeError):
    """The device did not come back to idle after a turn: the run cannot go on."""


class Device:
    """A running device (App, player, agent) for one language, asked over its socket."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.runtime: Any = None
        self.task: asyncio.Task[int] | None = None

    async def start(self) -> None:
        """Build everything the way `xiaoting run` does and serve the control socket."""
        from device.app import AppState
        from device.runtime import build

        self.runtime = await build(self.config, recogniser=None, synthesiser=None, buttons=[])
        if self.runtime.player is None:
            await self.runtime.close()
            raise RuntimeError("the player did not start (see the log)")
        await self.runtime.start_control()
        self.task = asyncio.create_task(self.runtime.serve(), name="device")
        await asyncio.wait_for(self.runtime.app.wait_state(AppState.IDLE), 30)

    @property
    def player(self) -> Any:
        """The real `player.Player` of this device."""
        return self.runtime.player

    async def ask(self, text: str, timeout: float) -> dict[str, Any]:
        """One text turn, as `xiaoting ask` runs it on a service (no speech). A turn that
        outlasts `timeout` goes on in the service: it is waited for (`settle`) before this
        returns or raises, so the next request is neither refused as busy nor acted on by
        this one's late tool calls."""
        from device.control import ask, socket_path

        try:
            return await ask(socket_path(self.config.runtime_dir), text, speak=False, wait=timeout)
        finally:
            await self.settle()

    def turn_bound(self) -> float:
        """Seconds the longest turn may take in the service: every round's model step at
        its timeout, and a margin for the tools."""
        llm = self.config.llm
        return llm.max_rounds * llm.step_timeout + SETTLE_MARGIN

    async def settle(self) -> None:
        """Return once the App is idle again; raises DeviceStuck when it is not within
        `turn_bound` seconds (every later request would be refused as busy)."""
        from device.app import AppState

        app = self.runtime.app
        if app.state == AppState.IDLE:
            return
        try:
            await asyncio.wait_for(app.wait_state(AppState.IDLE), self.turn_bound())
        except TimeoutError:
            raise DeviceStuck(
                f"the device is still {app.state} {self.turn_bound():.0f} s after a turn"
            ) from None

    async def close(self) -> None:
        """Stop the App; the runtime closes the player, mixer and chat models."""
        if self.task is not None:
            self.runtime.app.request_stop("bench")
            await asyncio.wait_for(self.task, 60)
        elif self.runtime is not None:
            await self.runtime.close()


async def album(player: Any, title: str) -> Any:
    """The `AlbumDetail` whose title is exactly `title`; raises LookupError."""
    detail = await player.resolve(title)
    if detail.album.title != title:
        raise LookupError(f"setup: no album titled {title!r} (found {detail.album.title!r})")
    return detail


def reset_book_settings(player: Any) -> None:
    """Every book back to normal speed with nothing skipped (what a listener set is
    forgotten; album.json skips, which the bench library has none of, stay)."""
    from player.store import BookSettings

    rows = player.store.db.execute(
        "SELECT album_id FROM books WHERE speed IS NOT NULL OR intro IS NOT NULL "
        "OR outro IS NOT NULL"
    ).fetchall()
    for (album_id,) in rows:
        player.store.book_save(album_id, BookSettings())


async def apply_setup(player: Any, setup: dict[str, Any]) -> None:
    """Put the player in the state `setup` describes (see bench/expect.py)."""
    player.stop_all()
    await player.sleep_timer(0)  # also the sleep at the end of an episode
    player.store.db.execute("DELETE FROM bookmarks")
    reset_book_settings(player)
    player.last_error = ""
    player.volume = setup.get("volume", DEFAULT_VOLUME) / 100
    for title, section, position in setup.get("bookmarks", []):
        detail = await album(player, title)
        player.store.bookmark_save(detail.album, detail.episode(section), float(position))
        await asyncio.sleep(0.01)  # distinct update times: the last one is "the last book"
    playing = setup.get("playing")
    if "speed" in setup or "skip" in setup:
        book = playing or (setup.get("bookmarks") or [None])[-1]
        if not book:
            raise ValueError("setup: speed and skip need a book in playing or bookmarks")
        skip = setup.get("skip") or {}
        player.book_settings_save(
            (await album(player, book[0])).album,
            speed=float(setup["speed"]) if "speed" in setup else None,
            intro=float(skip["intro"]) if "intro" in skip else None,
            outro=float(skip["outro"]) if "outro" in skip else None,
        )
    if playing:
        title, section, position = [*playing, 0.0][:3]
        detail = await album(player, title)
        await player.play(detail, detail.episode(section), float(position))
        if setup.get("sleep_end_of_episode"):
            await player.sleep_timer(end_of_episode=True)
        if setup.get("paused"):
            await player.pause()
    elif setup.get("sleep_end_of_episode"):
        raise ValueError("setup: sleep_end_of_episode needs a book in playing")


# -- one run -------------------------------------------------------------------------------


def _model_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in steps if s.get("backend") not in ("fastpath", "human", None, "")]


async def run_requests(
    device: Device, requests: list[dict[str, Any]], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """Every request through the device; one result row each."""
    player = device.player
    titles = list(player.titles())
    ids: set[str] = set()
    for spec in ALBUMS:  # the ids the player made, with and without their prefix
        album_id = (await album(player, spec.title)).album.id
        ids.update({album_id, album_id.split(":", 1)[-1]})
    rows = []
    agent = device.runtime.app.agent
    for request in requests:
        await apply_setup(player, request.get("setup", {}))
        # each request is a conversation of its own: no yes, nor an amount alone, answers
        # what the box asked the one before
        if hasattr(agent, "forget"):
            agent.forget()
        before = observe(player)
        started = time.perf_counter()
        try:
            reply = await device.ask(request["utterance"], args.turn_timeout)
        except DeviceStuck:
            raise
        except Exception as err:  # a slow turn is a failure, not the end of the run
            reply = {"ok": False, "error": f"{type(err).__name__}: {err}"}
        elapsed = time.perf_counter() - started
        after = observe(player)
        answer = str(reply.get("answer") or "")
        steps = list(reply.get("steps") or [])
        calls = [(s["action"], s.get("arguments") or {}) for s in steps if s.get("action")]
        reasons = [] if reply.get("ok") else [f"turn failed: {reply.get('error')}"]
        reasons += check(
            request,
            before=before,
            after=after,
            answer=answer,
            titles=titles,
            elapsed_s=elapsed,
            album_ids=ids,
        )
        spoken = set(spoken_problems(answer, request["lang"], ids))
        model = _model_steps(steps)
        moved = changed(before, after, elapsed) if reasons else []
        row = {
            "id": request["id"],
            "form": request["form"],
            "lang": request["lang"],
            "category": request["category"],
            "utterance": request["utterance"],
            "ok": not reasons,
            "wrong_action": bool(moved),
            "changed": moved,
            "state_ok": not [r for r in reasons if r not in spoken],
            "reasons": reasons,
            "answer": answer,
            "calls": calls,
            "before": before.to_dict(),
            "after": after.to_dict(),
            "ms": float(reply.get("elapsed_ms") or elapsed * 1000),
            "fast": bool(steps) and not model,
            "asked_first": any(
                mark in str(s.get("thought") or "")
                for s in steps
                for mark in ("(asked first:", "(asked which book:")
            ),
            "model_steps": len(model),
            "format_errors": sum(1 for s in steps if s.get("kind") == "format_error"),
            "decode_tokens": sum(int(s.get("tokens") or 0) for s in model),
            "prefill_tokens": sum(
                max(0, int(s.get("prompt_tokens") or 0) - int(s.get("cached_tokens") or 0))
                for s in model
            ),
            "forced_tokens": sum(
                int(v or 0) for s in model for k, v in s.items() if k.startswith("forced")
            ),
            "error": reply.get("error"),
            "raw": [s.get("raw", "") for s in model],
        }
        rows.append(row)
        if request["form"] == "heldout" and not args.show_heldout:
            continue  # held out: its words and failures are not for the eyes of the team
        mark = "ok  " if row["ok"] else ("WRONG" if row["wrong_action"] else "FAIL")
        call_text = " ".join(f"{n}({json.dumps(a, ensure_ascii=False)})" for n, a in calls)
        print(
            f"  {mark:<5} {request['form']:<7} {request['id']:<10} {row['ms']:6.0f} ms "
            f"{row['decode_tokens']:3d} tok  {request['utterance']!r} -> {call_text or '-'}"
            f" | {answer[:60]!r}",
            flush=True,
        )
    return rows


async def run_baseline(
    device: Device, requests: list[dict[str, Any]], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """The design note's plain loop (bench/baseline_react.py: regex extraction, no grammar,
    no KV cache) over the same player, tools and model file, judged by the same checks."""
    from bench.baseline_react import BaselineAgent

    player = device.player
    titles = list(player.titles())
    local = next(
        (
            m
            for m in device.runtime.models
            if hasattr(m, "cache") and hasattr(m, "supports_grammar")
        ),
        None,
    )
    if local is None:
        print("  baseline skipped: no local model", flush=True)
        return []
    baseline = BaselineAgent(player.tools(), local, max_rounds=6, max_tokens=128)
    saved = (local.cache, local.supports_grammar)
    local.cache, local.supports_grammar = False, False
    rows = []
    try:
        for request in requests:
            await apply_setup(player, request.get("setup", {}))
            before = observe(player)
            started = time.perf_counter()
            try:
                turn = await asyncio.wait_for(baseline.run(request["utterance"]), args.turn_timeout)
                answer, error = turn.answer, None
            except Exception as err:
                turn, answer, error = None, "", f"{type(err).__name__}: {err}"
            elapsed = time.perf_counter() - started
            after = observe(player)
            reasons = [f"turn failed: {error}"] if error else []
            reasons += check(
                request, before=before, after=after, answer=answer, titles=titles,
                elapsed_s=elapsed,
            )  # fmt: skip
            rows.append(
                {
                    "id": request["id"],
                    "ok": not reasons,
                    "ms": elapsed * 1000,
                    "replies": len(turn.replies) if turn else 0,
                    "format_failures": turn.format_failures if turn else 0,
                    "invented": turn.invented_observations if turn else 0,
                }
            )
            mark = "ok  " if not reasons else "FAIL"
            print(
                f"  base {mark} {request['id']:<10} {elapsed * 1000:6.0f} ms  "
                f"{request['utterance']!r} | {answer[:50]!r}",
                flush=True,
            )
    finally:
        local.cache, local.supports_grammar = saved
    return rows


def baseline_summary(base: list[dict[str, Any]], ours: list[dict[str, Any]]) -> list[str]:
    """The design-note loop against ours on the same requests."""
    if not base:
        return []
    ids = {r["id"] for r in base}
    same = [r for r in ours if r["id"] in ids]
    ok_base, ok_ours = sum(r["ok"] for r in base), sum(r["ok"] for r in same)
    replies = sum(r["replies"] for r in base)
    base_ms = statistics.median(r["ms"] for r in base)
    ours_ms = statistics.median(r["ms"] for r in same) if same else 0.0
    return [
        f"design-note loop on the same {len(base)} requests: {_pct(ok_base, len(base))} vs ours "
        f"{_pct(ok_ours, len(same))}; median turn {base_ms / 1000:.1f} s vs "
        f"{ours_ms / 1000:.1f} s ({base_ms / max(ours_ms, 1.0):.1f}x); format failures "
        f"{sum(r['format_failures'] for r in base)}/{replies} replies, invented Observation "
        f"in {sum(r['invented'] for r in base)}/{replies}"
    ]


def _redacted(row: dict[str, Any]) -> dict[str, Any]:
    """A held-out row without its words, calls and answer (its figures kept)."""
    hidden = ("utterance", "answer", "calls", "raw", "reasons", "before", "after", "changed")
    return {k: ("-" if k in hidden else v) for k, v in row.items()}


def _pct(ok: int, total: int) -> str:
    return f"{ok}/{total} ({100 * ok / max(1, total):.0f}%)"


def summary(
    rows: list[dict[str, Any]], model_name: str, *, show_heldout: bool = False
) -> list[str]:
    """The printed figures, one line each; the last is the benchmark's headline. Held-out
    requests are counted, never listed (unless `show_heldout`)."""
    lines = []
    ok = sum(r["ok"] for r in rows)
    by_form: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    by_cat: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for row in rows:
        by_form[row["form"]].append(row)
        by_cat[row["category"]].append(row)
    lines.append("success per form:")
    for form in FORMS:
        if by_form.get(form):
            group = by_form[form]
            langs = " ".join(
                f"{lang} {_pct(sum(r['ok'] for r in group if r['lang'] == lang), sum(1 for r in group if r['lang'] == lang))}"
                for lang in ("zh", "en")
                if any(r["lang"] == lang for r in group)
            )
            lines.append(f"  {form:<8} {_pct(sum(r['ok'] for r in group), len(group)):<14} {langs}")
    lines.append("success per category:")
    for cat in sorted(by_cat):
        group = by_cat[cat]
        lines.append(f"  {cat:<13} {_pct(sum(r['ok'] for r in group), len(group))}")
    model_rows = [r for r in rows if not r["fast"] and r["model_steps"]]
    steps = sum(r["model_steps"] for r in rows)
    errors = sum(r["format_errors"] for r in rows)
    state_ok = sum(r.get("state_ok", r["ok"]) for r in rows)
    lines.append(f"player state right (spoken-answer rules aside): {_pct(state_ok, len(rows))}")
    lines.append(
        f"replies that parse: {_pct(steps - errors, steps)} model replies; "
        f"fast path answered {sum(r['fast'] for r in rows)}/{len(rows)} turns"
    )
    if model_rows:
        decode = [r["decode_tokens"] for r in model_rows]
        prefill = [r["prefill_tokens"] for r in model_rows]
        lines.append(
            f"per model turn ({len(model_rows)}): decode tokens mean {statistics.mean(decode):.0f}"
            f" median {statistics.median(decode):.0f}; prefill tokens mean "
            f"{statistics.mean(prefill):.0f} median {statistics.median(prefill):.0f}; "
            f"model steps mean {statistics.mean(r['model_steps'] for r in model_rows):.2f}"
        )
        forced = [r["forced_tokens"] for r in model_rows]
        if any(forced):
            lines.append(f"  forced (grammar-determined) tokens mean {statistics.mean(forced):.0f}")
        lines.append(
            f"median turn: {statistics.median(r['ms'] for r in rows) / 1000:.2f} s all, "
            f"{statistics.median(r['ms'] for r in model_rows) / 1000:.2f} s model turns"
        )
    fast = [r["ms"] for r in rows if r["fast"]]
    if fast:
        lines.append(f"fast-path turns ({len(fast)}): median {statistics.median(fast):.0f} ms")
    leaked = sum(1 for r in rows if any("album id" in x for x in r["reasons"]))
    silent = sum(1 for r in rows if any(x.startswith("silence") for x in r["reasons"]))
    lines.append(f"answers naming an album id: {leaked}; silent answers: {silent}")
    held = [r for r in rows if r["form"] == "heldout"]
    if held:
        lines.append(
            f"held-out: {sum(r['ok'] for r in held)}/{len(held)} ok "
            f"({100 * sum(r['ok'] for r in held) / len(held):.0f}%), wrong actions: "
            f"{sum(r['wrong_action'] for r in held)}"
        )
    books = [r for r in rows if r["category"] in BOOK_CATEGORIES]
    if books:
        lines.append(
            f"books (chapters, speed, skip, end-of-episode sleep): "
            f"{sum(r['ok'] for r in books)}/{len(books)} ok "
            f"({100 * sum(r['ok'] for r in books) / len(books):.0f}%), wrong actions: "
            f"{sum(r['wrong_action'] for r in books)}"
        )
    lines.append(
        f"wrong actions (a failed turn that changed the player): "
        f"{sum(r['wrong_action'] for r in rows)}/{len(rows)}"
    )
    decided = [r for r in rows if not r["fast"] and r["model_steps"]]
    asked = [r for r in rows if r.get("asked_first")]
    lines.append(
        f"  by the fast path {sum(r['wrong_action'] for r in rows if r['fast'])}, by the model "
        f"{sum(r['wrong_action'] for r in decided)}; guesses asked about first: {len(asked)} "
        f"({sum(r in decided for r in asked)} of the model's {len(decided)} turns)"
    )
    failures = [r for r in rows if not r["ok"] and (show_heldout or r["form"] != "heldout")]
    if failures:
        lines.append(f"failures ({len(failures)}):")
        for r in failures:
            call_text = " ".join(f"{n}({json.dumps(a, ensure_ascii=False)})" for n, a in r["calls"])
            lines.append(
                f"  [{r['form']} {r['id']} {r['category']}] {r['utterance']!r}\n"
                f"      calls: {call_text or '-'}\n"
                f"      answer: {r['answer']!r}\n"
                f"      state: {Observed(**r['before']).short()} -> {Observed(**r['after']).short()}\n"
                f"      why: {'; '.join(r['reasons'])}{'  (WRONG ACTION)' if r['wrong_action'] else ''}"
            )
    lines.append(
        f"agent benchmark: {ok}/{len(rows)} ok ({100 * ok / max(1, len(rows)):.0f}%) "
        f"real player, {model_name}"
    )
    return lines


async def decode_steps_off(
    config: Any, requests: list[dict[str, Any]], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """The play requests again on a second device with ``llm.jump_forward = false`` (same
    model, library and saved prompt state), for `bench.decode_steps.summary`."""
    from bench.decode_steps import PLAY_CATEGORIES, play_turns, with_llm

    play = [r for r in requests if r["category"] in PLAY_CATEGORIES]
    if not play:
        return []
    device = Device(with_llm(config, jump_forward=False))
    await device.start()
    print(f"  {len(play)} play requests with jump-forward off:", flush=True)
    try:
        return await play_turns(device, play, args.turn_timeout, apply_setup)
    finally:
        await device.close()


def decode_steps_lines(rows: list[dict[str, Any]], off: list[dict[str, Any]]) -> list[str]:
    """Decode steps, forced and prefill tokens per play turn (jump-forward on: this run's
    rows; off: `decode_steps_off`) and the Raspberry Pi 5 estimate."""
    from bench.decode_steps import PLAY_CATEGORIES, summary

    on = [
        {
            "decoded": r["decode_tokens"] - r["forced_tokens"],
            "forced": r["forced_tokens"],
            "prefill": r["prefill_tokens"],
            "ms": r["ms"],
        }
        for r in rows
        if r["category"] in PLAY_CATEGORIES and r["model_steps"] and not r["fast"]
    ]
    return summary(on, off)


async def main_async(args: argparse.Namespace) -> int:
    requests: list[dict[str, Any]] = []
    sources = [("typed", tuple(args.requests))] if args.requests else [
        (form, FORMS[DERIVED.get(form, form)]) for form in args.forms
    ]  # fmt: skip
    for form, (main, *extra) in sources:
        if not main.is_file():
            print(f"no {form} requests: {main} missing", file=sys.stderr)
            continue
        chosen = [r for path in (main, *extra) if path.is_file() for r in load_requests(path, form)]
        if form == "spoken":
            chosen = [
                {**r, "utterance": unpunctuated(r["utterance"], r["lang"])}
                for r in chosen
                if unpunctuated(r["utterance"], r["lang"]) != r["utterance"]
            ]  # only those a recogniser would write otherwise
        if args.lang:
            chosen = [r for r in chosen if r["lang"] == args.lang]
        if args.limit and args.limit < len(chosen):
            # Spread over the file (it is ordered by category), not its first lines.
            step = len(chosen) / args.limit
            chosen = [chosen[int(i * step)] for i in range(args.limit)]
        requests.extend(chosen)
    if args.only:
        requests = [r for r in requests if r["id"] in args.only]
    if not args.model.is_file():
        print(f"no model file {args.model}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    library = cached_library()
    print(
        f"library {library.name}: {len(ALBUMS)} albums, {sum(a.episodes for a in ALBUMS)} "
        f"episodes ({time.perf_counter() - started:.1f} s); {len(requests)} requests; "
        f"model {args.model.name}",
        flush=True,
    )
    rows: list[dict[str, Any]] = []
    base: list[dict[str, Any]] = []
    jump_off: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="xiaoting-bench-") as tmp:
        # One language after the other, as on a device (one language per service).
        for lang in ("zh", "en"):
            chosen = [r for r in requests if r["lang"] == lang]
            if not chosen:
                continue
            config = device_config(lang, args.model, library, Path(tmp, lang), args)
            device = Device(config)
            loading = time.perf_counter()
            await device.start()
            print(f"{lang}: device ready in {time.perf_counter() - loading:.1f} s", flush=True)
            try:
                rows += await run_requests(device, chosen, args)
                if args.baseline:
                    half = (
                        args.baseline // 2 if lang == "zh" else args.baseline - args.baseline // 2
                    )
                    base += await run_baseline(device, chosen[:half], args)
            finally:
                await device.close()
            if args.decode_steps:
                jump_off += await decode_steps_off(config, chosen, args)
    print()
    lines = summary(rows, args.model.stem, show_heldout=args.show_heldout)
    decode = decode_steps_lines(rows, jump_off) if args.decode_steps else []
    for line in lines[:-1] + baseline_summary(base, rows) + decode + lines[-1:]:
        print(line)
    if args.json:
        shown = [r if args.show_heldout or r["form"] != "heldout" else _redacted(r) for r in rows]
        args.json.write_text(
            json.dumps(
                {"model": args.model.stem, "rows": shown, "baseline": base},
                ensure_ascii=False,
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="GGUF model file")
    parser.add_argument(
        "--forms",
        type=lambda s: [f.strip() for f in s.split(",") if f.strip()],
        default=list(DEFAULT_FORMS),
        help="comma-separated: typed,asr,heldout (the default), spoken (the typed requests "
        "without punctuation or capitals, as a recogniser writes them)",
    )
    parser.add_argument(
        "--limit", type=int, default=0, help="N requests of each form, spread over its categories"
    )
    parser.add_argument("--lang", choices=("zh", "en"), help="only this language")
    parser.add_argument("--only", nargs="*", help="only these request ids")
    parser.add_argument(
        "--requests",
        type=Path,
        nargs="+",
        help="request files to run instead of the forms' files (read as typed requests)",
    )
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0, help="llm.n_threads (0: all cores)")
    parser.add_argument(
        "--step-timeout", type=float, default=60.0, help="llm.step_timeout, seconds per step"
    )
    parser.add_argument("--turn-timeout", type=float, default=120.0, help="seconds per turn")
    parser.add_argument(
        "--baseline",
        type=int,
        default=0,
        help="also run the first N requests (half zh, half en) through the design note's loop",
    )
    parser.add_argument(
        "--decode-steps",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run the play requests with jump-forward off (decode steps per play turn)",
    )
    parser.add_argument("--json", type=Path, help="write every row to this JSON file")
    parser.add_argument(
        "--show-heldout",
        action="store_true",
        help="also list held-out requests and their failures (for a reviewer: whoever reads "
        "them may no longer tune anything against them)",
    )
    parser.add_argument("--no-jump-forward", action="store_true", help="llm.jump_forward off")
    parser.add_argument(
        "--thought-tokens", type=int, help="llm.thought_tokens (default: the config's, 24)"
    )
    parser.add_argument("--debug", action="store_true", help="the device's log on stderr")
    args = parser.parse_args()
    for form in args.forms:
        if form not in FORMS and form not in DERIVED:
            parser.error(f"unknown form {form!r} (typed, asr, heldout, spoken)")
    logging.basicConfig(
        level=logging.INFO if args.debug else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
