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
