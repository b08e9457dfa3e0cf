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
    milliseconds per phase ("model", "tool"); `tokens` is completion tokens.
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
            parts.append(f"({timing}, {self.tokens} tok)")
        return " ".join(parts)


@dataclass
class TurnResult:
    """The outcome of one turn: what to say, and every step on the way.

    `backend` is the producer of the last model step ("fastpath" or "none" if no model
    ran); `elapsed_ms` is the turn's wall time; `error` summarises what went wrong.
    """

    utterance: str
    answer: str
    steps: list[Step] = field(default_factory=list)
    backend: str = "none"
    elapsed_ms: float = 0.0
    error: str | None = None
    cancelled: bool = False
    started_at: float = field(default_factory=time.time)

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
            "steps": [s.to_dict() for s in self.steps],
        }


def short_text(text: str, limit: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"
