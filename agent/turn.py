"""What one turn produced: its steps (Thought/Action/Observation) and the spoken answer."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Step", "StepKind", "TurnResult"]


class StepKind(StrEnum):
    """What one step of a turn was."""

    ACTION = "action"
    FINAL = "final"
    FORMAT_ERROR = "format_error"
    MODEL_ERROR = "model_error"
    INJECTED = "injected"


@dataclass
class Step:
    """One round: the model's reply and what the framework did with it.

    `backend` names the producer ("local", "remote", "fastpath", "human"); `ms` holds
    milliseconds per phase ("model", "tool"); `tokens` is completion tokens, of which
    `forced_tokens` were appended in batches (jump-forward); `prompt_tokens` -
    `cached_tokens` were evaluated (prefill) in `prefill_ms`.
    """

    index: int
    kind: StepKind
    backend: str = ""
    thought: str = ""
    action: str | None = None
    arguments: dict[str, Any] | None = None
    observation: str | None = None
    ok: bool | None = None
    answer: str | None = None
    error: str | None = None
    raw: str = ""
    tokens: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    first_token_ms: float | None = None
    ms: dict[str, float] = field(default_factory=dict)
    forced_tokens: int = 0
    prefill_ms: float | None = None

    @property
    def prefill_tokens(self) -> int:
        """Prompt tokens evaluated for this step (not reused from the KV cache)."""
        return max(0, self.prompt_tokens - self.cached_tokens) if self.prompt_tokens else 0

    @property
    def decoded_tokens(self) -> int:
        """Tokens the model chose one step at a time."""
        return max(0, self.tokens - self.forced_tokens)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (None fields dropped)."""
        return {k: v for k, v in asdict(self).items() if v not in (None, "", {})}

    def log_line(self) -> str:
        """One readable line for the journal."""
        parts = [f"step {self.index} {self.kind.value} [{self.backend}]"]
        if self.action:
            args = json.dumps(self.arguments or {}, ensure_ascii=False)
            parts.append(f"{self.action}({args})")
        if self.observation is not None:
            parts.append("-> " + short_text(self.observation, 80))
        if self.answer is not None:
            parts.append("answer: " + short_text(self.answer, 80))
        if self.error:
            parts.append("error: " + short_text(self.error, 80))
        timing = " ".join(f"{k}={v:.0f}ms" for k, v in self.ms.items())
        if timing:
            tokens = f"{self.tokens} tok"
            if self.prompt_tokens:
                tokens = f"prefill {self.prefill_tokens} tok, decode {self.decoded_tokens} tok"
                tokens += f", forced {self.forced_tokens} tok"
            parts.append(f"({timing}, {tokens})")
        return " ".join(parts)


@dataclass
class TurnResult:
    """The outcome of one turn: what to say, and every step on the way.

    `backend` is the producer of the last model step ("fastpath" or "none" if no model
    ran); `elapsed_ms` is the turn's wall time; `error` summarises what went wrong.
    `stages` gives the turn's marks in seconds from its origin (the button release when
    the turn was spoken, else the start of the agent's work): ``release``,
    ``transcript``, ``agent`` (the agent starts), ``first_token``, ``answer`` (the
    agent is done) and ``first_audio`` (the first sample of the spoken answer reached
    the speaker); see `mark` and `timing_line`.
    """

    utterance: str
    answer: str
    steps: list[Step] = field(default_factory=list)
    backend: str = "none"
    elapsed_ms: float = 0.0
    error: str | None = None
    cancelled: bool = False
    reading: str = ""
    """How the words layer read the utterance, in one line (`words.Reading.why`)."""
    started_at: float = field(default_factory=time.time)
    marks: dict[str, float] = field(default_factory=dict, repr=False)
    """Stage name -> time.monotonic() when it happened (see `mark`)."""

    def mark(self, stage: str, at: float | None = None) -> None:
        """Record `stage` at monotonic time `at` (now by default); the first mark wins."""
        if stage not in self.marks:
            self.marks[stage] = time.monotonic() if at is None else at

    @property
    def stages(self) -> dict[str, float]:
        """The marks in seconds from the origin (the release if marked, else the earliest),
        in time order."""
        if not self.marks:
            return {}
        origin = self.marks.get("release", min(self.marks.values()))
        ordered = sorted(self.marks.items(), key=lambda item: item[1])
        return {name: round(max(0.0, at - origin), 4) for name, at in ordered}

    def step_totals(self) -> dict[str, float]:
        """Sums over the steps: model and tool ms, prefill/decoded/forced tokens."""
        totals = {"model_ms": 0.0, "tool_ms": 0.0, "prefill": 0, "decode": 0, "forced": 0}
        for step in self.steps:
            totals["model_ms"] += step.ms.get("model", 0.0)
            totals["tool_ms"] += step.ms.get("tool", 0.0)
            totals["prefill"] += step.prefill_tokens
            totals["decode"] += step.decoded_tokens
            totals["forced"] += step.forced_tokens
        return totals

    def timing_line(self) -> str:
        """One journal line: ``turn 1.21 s: asr 0.10, model 0.84 (prefill 38 tok, decode
        14 tok, forced 22 tok), tool 0.01, tts 0.06`` (stages that did not happen are
        left out; the total runs from the origin to the first audio, else to the answer)."""
        st = self.stages
        totals = self.step_totals()
        end = st.get("first_audio", st.get("answer", self.elapsed_ms / 1000.0))
        parts = []
        if "transcript" in st:
            parts.append(f"asr {st['transcript'] - st.get('release', 0.0):.2f}")
        if totals["model_ms"] or any(s.prompt_tokens for s in self.steps):
            parts.append(
                f"model {totals['model_ms'] / 1000:.2f} (prefill {totals['prefill']} tok, "
                f"decode {totals['decode']} tok, forced {totals['forced']} tok)"
            )
        if totals["tool_ms"]:
            parts.append(f"tool {totals['tool_ms'] / 1000:.2f}")
        if "first_audio" in st and "answer" in st:
            parts.append(f"tts {st['first_audio'] - st['answer']:.2f}")
        line = f"turn {end:.2f} s"
        return line + (": " + ", ".join(parts) if parts else "")

    @property
    def tokens(self) -> int:
        """Completion tokens over all steps."""
        return sum(s.tokens for s in self.steps)

    def tool_calls(self) -> list[tuple[str, dict[str, Any]]]:
        """[(tool name, arguments)] of the actions taken, in order."""
        return [
            (s.action, s.arguments or {})
            for s in self.steps
            if s.kind == StepKind.ACTION and s.action
        ]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as written to the trace."""
        return {
            "time": self.started_at,
            "utterance": self.utterance,
            "answer": self.answer,
            "backend": self.backend,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "tokens": self.tokens,
            "error": self.error,
            "cancelled": self.cancelled,
            "reading": self.reading,
            "stages": dict(self.stages),
            "steps": [s.to_dict() for s in self.steps],
        }


def short_text(text: str, limit: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"
