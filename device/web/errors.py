"""One error for everything the page refuses: an HTTP status, a message key of
`device.web.texts` and its values; the server answers it as JSON in the asker's language."""

from __future__ import annotations

from .texts import say


class WebError(Exception):
    """A refused request: `status` (HTTP), `key` (a `texts.TEXTS` key, also the JSON
    ``error`` code) and the `values` its message names."""

    def __init__(self, code: str, /, status: int = 400, **values: object) -> None:
        super().__init__(say(code, "en", **values))
        self.key = code
        self.status = status
        self.values = values

    def message(self, language: str) -> str:
        """The refusal in words, in `language`."""
        return say(self.key, language, **self.values)
