"""Fixtures of the foundation tests: leave the root logger as each test found it."""

from __future__ import annotations

import logging

import pytest


@pytest.fixture
def restore_logging():
    """Undo `device.logs.setup` (handlers on a captured stderr, levels) after the test."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    noisy = {name: logging.getLogger(name).level for name in ("asyncio", "aiohttp.access")}
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
    for name, old in noisy.items():
        logging.getLogger(name).setLevel(old)
