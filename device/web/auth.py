"""Who may use the page: the password (scrypt, in the state directory), session cookies
and CSRF tokens made from a secret kept beside it, a login rate limit, and the checks that
keep the page on the local network (client address, Host and Origin headers).

The password file ``<state_dir>/web-password.json`` (mode 0600) holds the scrypt hash of
the password with its salt and parameters, and a random session secret. A session cookie
is ``<expiry>.<nonce>.<mac>`` (the mac an HMAC-SHA256 of expiry and nonce under the
secret), so sessions outlive a restart and a new password (a new secret) ends them all.
The CSRF token of a session is an HMAC of its cookie under the same secret.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import ipaddress
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_LOGGER = logging.getLogger(__name__)

PASSWORD_FILE = "web-password.json"
MIN_PASSWORD = 8
"""Characters a password needs at least."""
MAX_PASSWORD = 256
SCRYPT = {"n": 2**14, "r": 8, "p": 1}
"""scrypt cost: 16 MiB of memory and a few tens of milliseconds on a Pi 4 per try."""
SESSION_SECONDS = 30 * 24 * 3600
"""A login lasts 30 days on that phone."""
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
"""Characters of a generated password: no 0/o, 1/l/i to misread from a screen."""


class PasswordError(ValueError):
    """A password cannot be set (too short, too long) or the file cannot be written."""


def password_path(state_dir: str | os.PathLike[str]) -> Path:
    """Where the page's password hash lives under the state directory."""
    return Path(state_dir).expanduser() / PASSWORD_FILE


def generate_password(groups: int = 3, size: int = 4) -> str:
    """A random password easy to type on a phone, e.g. ``k7pm-q2xa-9fhd`` (about 59 bits)."""
    return "-".join("".join(secrets.choice(ALPHABET) for _ in range(size)) for _ in range(groups))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32, maxmem=64 << 20
    )


def set_password(path: Path, password: str) -> None:
    """Store the scrypt hash of `password` (and a new session secret, which ends every
    session) at `path`, mode 0600, written to a temporary file and renamed into place.
    Run as root on a state directory owned by another user, the file is given to that
    user (the service's). Raises PasswordError for a password shorter than
    `MIN_PASSWORD` or longer than `MAX_PASSWORD` characters, or when it cannot be written.
    """
    if len(password) < MIN_PASSWORD:
        raise PasswordError(f"the password needs at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise PasswordError(f"the password may have at most {MAX_PASSWORD} characters")
    salt = secrets.token_bytes(16)
    record = {
        "kdf": "scrypt",
        **SCRYPT,
        "salt": _b64(salt),
        "hash": _b64(_scrypt(password, salt, **SCRYPT)),
        "secret": _b64(secrets.token_bytes(32)),
        "set": int(time.time()),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle)
            handle.flush()
            os.fsync(handle.fileno())
        if os.geteuid() == 0:
            owner = path.parent.stat()
            os.chown(temp, owner.st_uid, owner.st_gid)
        os.replace(temp, path)
    except OSError as err:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(temp)
        raise PasswordError(f"{path}: cannot write the password: {err.strerror or err}") from None


@dataclass
class Password:
    """The password file at `path`, read again whenever it changes on disk (so `xiaoting
    web password` takes effect without a restart)."""

    path: Path
    _record: dict[str, Any] | None = None
    _stamp: tuple[int, int] | None = None

    def _load(self) -> dict[str, Any] | None:
        try:
            stat = self.path.stat()
        except OSError:
            self._record, self._stamp = None, None
            return None
        stamp = (stat.st_mtime_ns, stat.st_ino)
        if stamp != self._stamp:
            try:
                record = json.loads(self.path.read_text(encoding="utf-8"))
                _unb64(record["salt"]), _unb64(record["hash"]), _unb64(record["secret"])
                int(record["n"]), int(record["r"]), int(record["p"])
            except (OSError, ValueError, KeyError, TypeError) as err:
                _LOGGER.warning("%s unreadable (%s): the page stays locked", self.path, err)
                record = None
            self._record, self._stamp = record, stamp
        return self._record

    @property
    def is_set(self) -> bool:
        """True when a readable password file exists."""
        return self._load() is not None

    def verify(self, password: str) -> bool:
        """True when `password` matches (constant-time compare; about 50 ms of scrypt:
        call it in a worker thread). False when no password is set."""
        record = self._load()
        if record is None or not 0 < len(password) <= MAX_PASSWORD:
            return False
        got = _scrypt(password, _unb64(record["salt"]), int(record["n"]), int(record["r"]),
                      int(record["p"]))  # fmt: skip
        return hmac.compare_digest(got, _unb64(record["hash"]))

    def secret(self) -> bytes | None:
        """The session secret, or None when no password is set."""
        record = self._load()
        return None if record is None else _unb64(record["secret"])


def _mac(secret: bytes, text: str) -> str:
    return _b64(hmac.new(secret, text.encode(), hashlib.sha256).digest())


@dataclass
class Sessions:
    """Session cookies and their CSRF tokens, made and checked under the password's secret.

    `clock` gives Unix seconds (tests move it). `end` revokes one cookie (log out) until
    it would have expired.
    """

    password: Password
    lifetime: float = SESSION_SECONDS
    clock: Callable[[], float] = time.time
    _revoked: dict[str, float] = field(default_factory=dict)

    def make(self) -> str | None:
        """A new session cookie value, or None when no password is set."""
        secret = self.password.secret()
        if secret is None:
            return None
        body = f"{int(self.clock() + self.lifetime)}.{secrets.token_hex(12)}"
        return f"{body}.{_mac(secret, 's:' + body)}"

    def valid(self, cookie: str | None) -> bool:
        """True for a cookie made under the current secret, not expired nor revoked."""
        secret = self.password.secret()
        if not cookie or secret is None or cookie in self._revoked:
            return False
        body, _, mac = cookie.rpartition(".")
        expiry = body.split(".", 1)[0]
        if not expiry.isdigit() or int(expiry) < self.clock():
            return False
        return hmac.compare_digest(mac, _mac(secret, "s:" + body))

    def csrf(self, cookie: str) -> str:
        """The CSRF token of a session cookie (sent back as the X-CSRF-Token header)."""
        secret = self.password.secret() or b""
        return _mac(secret, "c:" + cookie)

    def csrf_ok(self, cookie: str, token: str | None) -> bool:
        """True when `token` is the CSRF token of `cookie`."""
        return bool(token) and hmac.compare_digest(str(token), self.csrf(cookie))

    def end(self, cookie: str) -> None:
        """Revoke `cookie` (log out)."""
        now = self.clock()
        self._revoked = {c: t for c, t in self._revoked.items() if t > now}
        expiry = cookie.split(".", 1)[0]
        self._revoked[cookie] = float(expiry) if expiry.isdigit() else now + self.lifetime


@dataclass
class LoginLimiter:
    """At most `attempts` failed logins per client address in `window` seconds (and
    `attempts_all` over every address), then logins wait: `wait(ip)` says how long."""

    attempts: int = 5
    attempts_all: int = 30
    window: float = 300.0
    clock: Callable[[], float] = time.monotonic
    _failures: dict[str, list[float]] = field(default_factory=dict)

    def _recent(self, key: str) -> list[float]:
        since = self.clock() - self.window
        kept = [t for t in self._failures.get(key, []) if t > since]
        if kept:
            self._failures[key] = kept
        else:
            self._failures.pop(key, None)
        return kept

    def wait(self, ip: str) -> float:
        """Seconds before `ip` may try again (0.0: now)."""
        waits = []
        for key, limit in ((ip, self.attempts), ("*", self.attempts_all)):
            recent = self._recent(key)
            if len(recent) >= limit:
                waits.append(recent[-limit] + self.window - self.clock())
        return max(waits, default=0.0)

    def failed(self, ip: str) -> None:
        """Count one failed login from `ip`."""
        now = self.clock()
        for key in (ip, "*"):
            self._failures.setdefault(key, []).append(now)
            del self._failures[key][: -max(self.attempts, self.attempts_all)]

    def succeeded(self, ip: str) -> None:
        """Forget `ip`'s failures."""
        self._failures.pop(ip, None)


# ---------------------------------------------------------------- the local network only


def local_client(address: str | None) -> bool:
    """True for a client address of this machine or the local network (loopback, private
    ranges, link-local; IPv4-mapped IPv6 too); False for any other or an unparsable one."""
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_private or ip.is_link_local


def split_host(host: str) -> tuple[str, str]:
    """``"box.local:8080"`` -> ``("box.local", "8080")``; ``"[::1]:80"`` -> ``("::1", "80")``."""
    host = host.strip()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        return name, rest.removeprefix(":")
    name, _, port = host.partition(":") if host.count(":") == 1 else (host, "", "")
    return name, port


def own_names(extra: Iterable[str] = ()) -> set[str]:
    """The names this box answers to: localhost, its host name and ``<name>.local``
    (mDNS), its fully qualified name, and `extra` (``web.hosts``), all lower case."""
    names = {"localhost"}
    with contextlib.suppress(OSError):
        hostname = socket.gethostname().lower()
        names.update({hostname, f"{hostname}.local"})
        names.add(socket.getfqdn().lower())
    names.update(h.lower() for h in extra)
    return names


def host_allowed(host: str | None, names: set[str]) -> bool:
    """True when a request's Host header names this box: an IP address, or one of `names`
    (`own_names`). Any other name is refused, so a web page elsewhere cannot reach the box
    through a name of its own that resolves here (DNS rebinding), as the MCP SDK's
    transport security refuses it for the MCP server."""
    if not host:
        return False
    name, port = split_host(host)
    if port and not port.isdigit():
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name.lower().rstrip(".") in names


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """True when a request's Origin header is absent (a script, not a browser) or is this
    very page (``http://<Host>``); a foreign origin or ``null`` is refused."""
    if origin is None:
        return True
    if not host:
        return False
    for scheme in ("http://", "https://"):
        if origin.lower() == f"{scheme}{host.lower()}":
            return True
    return False
