"""A small shared aiohttp client for catalog requests (JSON and feeds): whole bodies, or errors.

A body is read to its end (aiohttp's `StreamReader.read(n)` returns only what has arrived,
which on a real link is one TCP segment), with a size limit that is an error when exceeded,
never a silent cut. gzip/deflate answers are decompressed by aiohttp. A body shorter than its
Content-Length, or a connection that drops mid-body, is an error naming the source. The text
charset comes from the Content-Type header, else from the document (XML declaration, HTML
meta, JSON's UTF-8/16/32 rule), else UTF-8. Downloads of audio files do not go through here;
see `player.download`.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp

from .errors import SourceError
from .texts import say

_LOGGER = logging.getLogger(__name__)

MAX_BODY_BYTES = 8 * 1024 * 1024
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9._-]+)""", re.I)


def mask_secrets(text: str, secrets: tuple[str, ...] | list[str]) -> str:
    """`text` with every non-empty secret (also URL-encoded) replaced by "***"."""
    from urllib.parse import quote, quote_plus

    for secret in secrets:
        if not secret:
            continue
        for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
            text = text.replace(form, "***")
    return text


def source_name(url: str) -> str:
    """A short name of a URL for messages: its host ("librivox.org"), or the URL."""
    host = urlsplit(url).hostname
    return host or url


def safe_url(url: str) -> str:
    """`url` without its query string and user info, for logs ("https://host/path?…")."""
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "…" if parts.query else "", ""))


def charset_of(body: bytes, content_type: str | None) -> str:
    """The charset of a text body: Content-Type's, else the document's, else "utf-8"."""
    if content_type:
        match = re.search(r"charset\s*=\s*[\"']?([A-Za-z0-9._-]+)", content_type, re.I)
        if match:
            return _known(match.group(1))
    head = body[:1024]
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head)
    if match:
        return _known(match.group(1).decode("ascii"))
    return "utf-8"


def _known(name: str) -> str:
    import codecs

    try:
        codecs.lookup(name)
    except LookupError:
        return "utf-8"
    # GB2312 and GBK documents routinely use characters only GB18030 names.
    return "gb18030" if name.lower() in ("gb2312", "gbk", "x-gbk") else name


@dataclass(frozen=True)
class Body:
    """A whole response body: `data` (decompressed), its Content-Type, the final URL."""

    data: bytes
    content_type: str
    url: str

    def text(self) -> str:
        """The body decoded with its charset (undecodable bytes replaced)."""
        return self.data.decode(charset_of(self.data, self.content_type), errors="replace")


class Http:
    """Lazily-opened `aiohttp.ClientSession`; every method raises SourceError naming the source.

    `timeout`: total seconds per request; `max_body`: bytes a body may have; `language`:
    "zh" or "en" for the error messages; `secrets`: strings masked in every log line.
    """

    def __init__(
        self,
        *,
        timeout: float = 8.0,
        max_body: int = MAX_BODY_BYTES,
        user_agent: str = "xiaoting/0.1",
        language: str = "zh",
    ) -> None:
        """See the class docstring."""
        self.timeout = timeout
        self.max_body = max_body
        self.user_agent = user_agent
        self.language = language
        self.secrets: list[str] = []
        self._session: aiohttp.ClientSession | None = None

    @property
    def session(self) -> aiohttp.ClientSession:
        """The shared session, opened on first use (must be inside a running loop)."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.timeout, sock_connect=5.0),
                headers={"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate"},
            )
        return self._session

    def _error(self, key: str, name: str, **values: object) -> SourceError:
        return SourceError(say(self.language, key, source=name, **values))

    def _log(self, text: str, *args: object) -> None:
        _LOGGER.warning(mask_secrets(text % args, self.secrets))

    async def fetch(
        self,
        url: str,
        *,
        params: dict[str, str] | None = None,
        missing_ok: bool = False,
        name: str = "",
        headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
    ) -> Body:
        """The whole body of a GET (a POST of `form`); `name` names the source in errors.

        Raises SourceError when the server answers >= 400 (404 answers its body with
        `missing_ok`), when the body is larger than `max_body`, shorter than its
        Content-Length or cut by a dropped connection, on a timeout or a network error.
        """
        name = name or source_name(url)
        try:
            method = "GET" if form is None else "POST"
            async with self.session.request(
                method, url, params=params, headers=headers, data=form
            ) as response:
                if response.status >= 400 and not (missing_ok and response.status == 404):
                    self._log("GET %s: HTTP %d", safe_url(str(response.url)), response.status)
                    raise self._error("source_status", name, status=response.status)
                declared = response.content_length
                encoded = response.headers.get("Content-Encoding", "identity") != "identity"
                if declared is not None and not encoded and declared > self.max_body:
                    raise self._error("source_too_big", name)
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.content.iter_any():
                    size += len(chunk)
                    if size > self.max_body:
                        raise self._error("source_too_big", name)
                    chunks.append(chunk)
                if declared is not None and not encoded and size != declared:
                    self._log("GET %s: %d of %d bytes", safe_url(url), size, declared)
                    raise self._error("source_cut", name)
                kind = response.headers.get("Content-Type", "")
                return Body(b"".join(chunks), kind, str(response.url))
        except SourceError:
            raise
        except aiohttp.TooManyRedirects as err:
            self._log("GET %s: redirect loop", safe_url(url))
            raise self._error("source_redirects", name) from err
        except aiohttp.ClientPayloadError as err:
            self._log("GET %s: body cut: %s", safe_url(url), err)
            raise self._error("source_cut", name) from err
        except TimeoutError as err:
            self._log("GET %s: no answer within %.1f s", safe_url(url), self.timeout)
            raise self._error("source_timeout", name) from err
        except (aiohttp.ClientError, ValueError, OSError) as err:
            self._log("GET %s failed: %s", safe_url(url), err or type(err).__name__)
            raise self._error("source_unreachable", name) from err

    async def get_bytes(
        self, url: str, *, params: dict[str, str] | None = None, missing_ok: bool = False,
        name: str = "",
    ) -> bytes:  # fmt: skip
        """The whole body of a GET (see `fetch`)."""
        return (await self.fetch(url, params=params, missing_ok=missing_ok, name=name)).data

    async def get_json(
        self, url: str, *, params: dict[str, str] | None = None, missing_ok: bool = False,
        name: str = "",
    ) -> Any:  # fmt: skip
        """The parsed JSON body of a GET; raises SourceError when it is not JSON."""
        body = await self.fetch(url, params=params, missing_ok=missing_ok, name=name)
        return self._json(body, url, name)

    def _json(self, body: Body, url: str, name: str) -> Any:
        charset = charset_of(body.data, body.content_type)
        try:
            if charset.lower().replace("_", "-") in ("utf-8", "utf8"):
                return json.loads(body.data)  # also detects UTF-16/32 and a BOM
            return json.loads(body.data.decode(charset, errors="replace"))
        except ValueError as err:
            self._log("GET %s: not JSON: %s", safe_url(url), err)
            raise self._error("source_not_json", name or source_name(url)) from err

    async def post_json(self, url: str, *, form: dict[str, str], name: str = "") -> Any:
        """The parsed JSON answer of a form POST; errors as for `fetch`."""
        body = await self.fetch(url, form=form, name=name)
        return self._json(body, url, name)

    async def close(self) -> None:
        """Close the session (idempotent)."""
        if self._session is not None and not self._session.closed:
            await self._session.close()
