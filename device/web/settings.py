"""Settings the household changes from the page, written back to the config file.

`EDITABLE` names the keys (dotted, as in the file) with whether a running service takes
them at once (the volume limits and the bedtime window: `Player.set_volume_limits`) or at
its next start (the language: prompts, voice and recogniser are loaded for one; the feeds:
the catalog is built at start). A change is made with tomlkit on the file's own text, so
comments, order and layout stay; the new text is checked by the very code that loads the
file (`device.config.from_dict` on `tomllib`'s reading of it) before it replaces the file
(a temporary file beside it, renamed into place, its mode and owner kept).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tomllib
from pathlib import Path
from typing import Any

from device import config as config_mod

from .errors import WebError

LIVE = "live"
RESTART = "restart"
EDITABLE: dict[str, str] = {
    "audio.max_volume_percent": LIVE,
    "audio.min_volume_percent": LIVE,
    "audio.bedtime": LIVE,
    "audio.bedtime_max_volume_percent": LIVE,
    "language": RESTART,
    "library.feeds": RESTART,
}
"""The keys the page changes, and when a running service takes each."""


def value_of(config: config_mod.Config, key: str) -> Any:
    """The value of dotted `key` in `config` (tuples as lists, as JSON has them)."""
    value: Any = config
    for part in key.split("."):
        value = getattr(value, part)
    return list(value) if isinstance(value, tuple) else value


def current(config: config_mod.Config) -> dict[str, Any]:
    """``{key: value}`` of every `EDITABLE` key in `config`."""
    return {key: value_of(config, key) for key in EDITABLE}


def config_file(config: config_mod.Config) -> Path | None:
    """The file `config` was read from, or None (development or built-in defaults)."""
    source = Path(config.source) if config.source and not config.source.startswith("<") else None
    return source if source is not None and source.is_file() else None


def pending_restart(running: config_mod.Config, saved: config_mod.Config) -> list[str]:
    """The keys whose saved value a running service takes only at its next start and that
    differ from what it runs with."""
    return [
        key
        for key, when in EDITABLE.items()
        if when == RESTART and value_of(running, key) != value_of(saved, key)
    ]


def _plain(value: Any) -> Any:
    """A JSON value as TOML takes it (lists of strings stay lists)."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def write(path: Path, changes: dict[str, Any]) -> config_mod.Config:
    """Set `changes` (``{dotted key: value}``, keys of `EDITABLE`) in the TOML file `path`,
    keeping its comments and layout; returns the config the new file gives.

    Raises WebError ``not_setting`` for another key, ``bad_field`` with the loader's own
    message (e.g. ``audio.max_volume_percent: must be between 0 and 100, got 120``) when the
    result would not load, ``config_write`` when the file cannot be replaced. Nothing is
    written unless the whole result loads.
    """
    import tomlkit

    for key in changes:
        if key not in EDITABLE:
            raise WebError("not_setting", key=str(key)[:60])
    try:
        text = path.read_text(encoding="utf-8")
        document = tomlkit.parse(text)
    except (OSError, ValueError) as err:
        raise WebError("config_write", status=500, why=str(err)) from None
    for key, value in changes.items():
        *tables, name = key.split(".")
        node: Any = document
        for table in tables:
            if table not in node:
                node[table] = tomlkit.table()
            node = node[table]
        node[name] = _plain(value)
    new_text = tomlkit.dumps(document)
    try:
        table = tomllib.loads(new_text)
        config = config_mod.from_dict(table, str(path))
    except (tomllib.TOMLDecodeError, config_mod.ConfigError) as err:
        message = str(err).removeprefix(f"{path}: ")
        field = message.split(":", 1)[0]
        raise WebError("bad_field", field=field, why=message.split(": ", 1)[-1]) from None
    _replace(path, new_text)
    return config


def _replace(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path` and rename it over `path`, keeping
    the file's mode and (when allowed) owner."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    try:
        info = path.stat()
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, info.st_mode & 0o7777)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(PermissionError):
            os.chown(temp, info.st_uid, info.st_gid)
        os.replace(temp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise WebError("config_write", status=500, why=err.strerror or str(err)) from None
