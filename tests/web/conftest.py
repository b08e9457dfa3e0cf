"""Fixtures for the page's tests (helpers in `web_fixtures`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from web_fixtures import Page, T, World, start_world, stop_world, tone_mp3


@pytest.fixture(scope="session")
def mp3_bytes(tmp_path_factory) -> bytes:
    """The bytes of one short playable MP3."""
    return tone_mp3(tmp_path_factory.mktemp("mp3") / "tone.mp3").read_bytes()


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    """A running service's page with the password `PASSWORD` set."""
    found, serving = await start_world(tmp_path)
    try:
        yield found
    finally:
        await stop_world(found, serving)


@pytest.fixture
async def page(world: World) -> AsyncIterator[Page]:
    """A logged-in `Page` on `world`."""
    client = Page(world.url)
    await asyncio.wait_for(client.login(), T)
    try:
        yield client
    finally:
        await client.close()
