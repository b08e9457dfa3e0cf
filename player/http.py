"""A small shared aiohttp client for catalog requests (JSON and feeds), with size limits.

Downloads of audio files do not go through here; see `player.download`.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import aiohttp

from .errors import SourceError

_LOGGER = logging.getLogger(__name__)

MAX_BODY_BYTES = 8 * 1024 * 1024


class Http:
    """Lazily-opened `aiohttp.ClientSession`; `get_bytes`/`get_json` raise SourceError."""

    def __init__(self, *, timeout: float = 8.0, user_agent: str = "xiaoting/0.1") -> None:
        """`timeout`: total seconds per request."""
        self.timeout = timeout
        self.user_agent = user_agent
        self._session: aiohttp.ClientSession | None = None

    @property
    def session(self) -> aiohttp.ClientSession:
        """The shared session, opened on first use (must be inside a running loop)."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.timeout, sock_connect=5.0),
                headers={"User-Agent": self.user_agent},
            )
        return self._session

    async def get_bytes(
        self, url: str, *, params: dict[str, str] | None = None, missing_ok: bool = False
    ) -> bytes:
        """The body of a GET (at most 8 MiB); raises SourceError on HTTP or network errors.

        With `missing_ok`, a 404 answers its body instead of raising.
        """
        try:
            async with self.session.get(url, params=params) as response:
                if response.status >= 400 and not (missing_ok and response.status == 404):
                    raise SourceError(f"来源返回错误 {response.status}")
                body = await response.content.read(MAX_BODY_BYTES + 1)
        except (aiohttp.ClientError, TimeoutError) as err:
            _LOGGER.warning("GET %s failed: %s", url, err)
            raise SourceError("网络连不上有声书来源") from err
        if len(body) > MAX_BODY_BYTES:
            raise SourceError("来源返回的数据太大")
        return body

    async def get_json(
        self, url: str, *, params: dict[str, str] | None = None, missing_ok: bool = False
    ) -> Any:
        """The parsed JSON body of a GET; raises SourceError when it is not JSON."""
        body = await self.get_bytes(url, params=params, missing_ok=missing_ok)
        try:
            return json.loads(body)
        except ValueError as err:
            raise SourceError("来源返回的不是JSON") from err

    async def close(self) -> None:
        """Close the session (idempotent)."""
        if self._session is not None and not self._session.closed:
            await self._session.close()
