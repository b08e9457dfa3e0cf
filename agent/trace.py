"""Per-turn traces: one JSON line per turn under the state directory, rotated by size.

Each line is `TurnResult.to_dict()`: time (Unix seconds), utterance, answer, backend,
elapsed_ms, tokens, error, cancelled, the stages (seconds from the button release, or
from the agent's start: transcript, first_token, answer, first_audio) and the steps
(thought, action, arguments, observation, backend, tokens with prompt/cached/forced
counts, milliseconds per phase, prefill_ms, errors). `read_last` reads the
newest turns back across rotated files and `format_turns` prints them for ``xiaoting
trace``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

_LOGGER = logging.getLogger(__name__)

__all__ = ["TRACE_FILE", "TraceWriter", "format_turn", "format_turns", "read_last"]

TRACE_FILE = "trace.jsonl"


class TraceWriter:
    """Appends turns to ``directory/trace.jsonl``; past `max_bytes` it rotates.

    Rotation renames ``trace.jsonl`` to ``trace.jsonl.1`` (and ``.1`` to ``.2`` ...),
    keeping `keep` old files. Writes are flushed and fsync'd, so a power cut loses at most
    the turn being written.
    """

    def __init__(
        self, directory: str | os.PathLike[str], max_bytes: int = 8 << 20, *, keep: int = 3
    ):
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self.keep = keep
        self.path = self.directory / TRACE_FILE
        self._lock = threading.Lock()

    def write(self, turn: Any) -> None:
        """Append one turn (a `TurnResult` or a dict) as one JSON line."""
        record = turn.to_dict() if hasattr(turn, "to_dict") else dict(turn)
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        data = line.encode("utf-8")
        with self._lock:
            self.directory.mkdir(parents=True, exist_ok=True)
            try:
                size = self.path.stat().st_size
            except FileNotFoundError:
                size = 0
            if size and size + len(data) > self.max_bytes:
                self._rotate()
            with open(self.path, "ab") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())

    def _rotate(self) -> None:
        for i in range(self.keep - 1, 0, -1):
            older = self.path.with_name(f"{TRACE_FILE}.{i}")
            if older.exists():
                older.replace(self.path.with_name(f"{TRACE_FILE}.{i + 1}"))
        if self.keep > 0:
            self.path.replace(self.path.with_name(f"{TRACE_FILE}.1"))
        else:
            self.path.unlink()


def read_last(path: str | os.PathLike[str], n: int = 5) -> list[dict[str, Any]]:
    """The newest `n` turns, oldest first, from a trace file or its directory.

    Rotated files (``trace.jsonl.1`` ...) are read when the current one holds fewer than
    `n`. Lines that are not valid JSON (a torn last line) are skipped.
    """
    base = Path(path)
    if base.is_dir():
        base = base / TRACE_FILE
    files = [base] + [base.with_name(f"{base.name}.{i}") for i in range(1, 100)]
    turns: list[dict[str, Any]] = []
    for file in files:
        if len(turns) >= n:
            break
        if not file.exists():
            if file is base:
                continue
            break
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        older = []
        for line in lines:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                older.append(value)
        turns = older + turns
    return turns[-n:] if n > 0 else []


def _clip(text: Any, limit: int = 160) -> str:
    text = str(text).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_turn(turn: dict[str, Any]) -> str:
    """One turn as readable lines: header, then Thought/Action/Observation per step."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(turn.get("time", 0)))
    flags = []
    if turn.get("cancelled"):
        flags.append("cancelled")
    if turn.get("error"):
        flags.append(f"error: {_clip(turn['error'], 100)}")
    lines = [
        f"{when}  [{turn.get('backend', '?')}] {turn.get('elapsed_ms', 0):.0f} ms, "
        f"{turn.get('tokens', 0)} tokens" + (f"  ({'; '.join(flags)})" if flags else ""),
        f"  Utterance: {_clip(turn.get('utterance', ''))}",
    ]
    stages = turn.get("stages") or {}
    if stages:
        lines.append(
            "  Stages: "
            + ", ".join(f"{k.replace('_', ' ')} {v:.2f}" for k, v in stages.items())
            + " s"
        )
    for step in turn.get("steps", []):
        ms = step.get("ms", {})
        timing = ", ".join(f"{k} {v:.0f} ms" for k, v in ms.items())
        head = f"  #{step.get('index', '?')} {step.get('kind', '?')} [{step.get('backend', '?')}]"
        if timing:
            head += f" {timing}"
        if step.get("prompt_tokens"):
            prefill = step["prompt_tokens"] - step.get("cached_tokens", 0)
            decoded = step.get("tokens", 0) - step.get("forced_tokens", 0)
            head += f", prefill {prefill} tok"
            if step.get("prefill_ms"):
                head += f" in {step['prefill_ms']:.0f} ms"
            head += f", decode {decoded} tok, forced {step.get('forced_tokens', 0)} tok"
        elif step.get("tokens"):
            head += f", {step['tokens']} tok"
        lines.append(head)
        if step.get("thought"):
            lines.append(f"     Thought: {_clip(step['thought'])}")
        if step.get("action"):
            args = json.dumps(step.get("arguments") or {}, ensure_ascii=False)
            lines.append(f"     Action: {step['action']} {args}")
        if "observation" in step:
            lines.append(f"     Observation: {_clip(step['observation'])}")
        if step.get("error"):
            lines.append(f"     Error: {_clip(step['error'])}")
        if step.get("answer"):
            lines.append(f"     Final Answer: {_clip(step['answer'])}")
    lines.append(f"  Answer: {_clip(turn.get('answer', ''))}")
    return "\n".join(lines)


def format_turns(turns: list[dict[str, Any]]) -> str:
    """Several turns for ``xiaoting trace``, separated by blank lines."""
    return "\n\n".join(format_turn(t) for t in turns)
