"""Errors of the agent package: one base class, one subclass per stage."""

from __future__ import annotations


class AgentError(Exception):
    """Base class of every error the agent package raises on purpose."""


class ToolError(AgentError):
    """A tool could not do what was asked; its message is shown to the model as an observation.

    Tools raise it with a short sentence the model can act on ("no album with id 'x'; search
    first"). The registry also uses it for unknown tools and invalid arguments.
    """


class FormatError(AgentError):
    """A model reply does not follow the ReAct format; `reason` says exactly what is wrong.

    The loop turns it into an observation ("Format error: ...") and counts it as a round.
    """

    def __init__(self, reason: str, *, text: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.text = text


class ModelError(AgentError):
    """A chat model failed to produce a reply (load failure, transport error, bad response)."""


class ModelUnavailable(ModelError):
    """The model cannot be used at all right now (missing file, no key, circuit open)."""


class ModelTimeout(ModelError):
    """The model did not answer within its time limit."""


class RemoteHTTPError(ModelError):
    """The remote API answered with an HTTP error status (after retries, where retried)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class ModelBudgetError(ModelError):
    """The model spent its whole token budget (``finish_reason: "length"``) without an
    Action or a Final Answer, even after one retry with a larger ``max_tokens``."""


_UNAVAILABLE = {
    "remote": {
        "zh": "远程模型暂时不可用，请稍后再试。",
        "en": "The remote model is unavailable for now. Please try again later.",
    },
    "any": {
        "zh": "语言模型暂时不可用，请稍后再试。",
        "en": "The language model is unavailable for now. Please try again later.",
    },
}


class CircuitOpen(ModelUnavailable):
    """Every backend is resting after repeated failures; no request was sent.

    `backends` names them; `retry_in` is the seconds until the first one may be tried
    again. `sentence(language)` is the one sentence the listener hears ("zh" or "en").
    """

    def __init__(self, backends: list[str], retry_in: float) -> None:
        names = ", ".join(backends) or "none"
        super().__init__(f"circuit open for {names}; next attempt in {retry_in:.0f} s")
        self.backends = list(backends)
        self.retry_in = retry_in

    def sentence(self, language: str) -> str:
        """What to say: "远程模型暂时不可用…" when only remote backends are resting."""
        kind = "remote" if all("remote" in b for b in self.backends) else "any"
        return _UNAVAILABLE[kind].get(language, _UNAVAILABLE[kind]["en"])
