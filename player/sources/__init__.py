"""Catalog sources behind one Protocol, and `Catalog`, which searches them all at once."""

from __future__ import annotations

from .base import Catalog, CatalogSource, stable_id
from .jsonapi import JsonSource, JsonSourceSpec
from .librivox import LibriVoxSource
from .local import LocalLibrary
from .rss import FeedSource

__all__ = [
    "Catalog",
    "CatalogSource",
    "FeedSource",
    "JsonSource",
    "JsonSourceSpec",
    "LibriVoxSource",
    "LocalLibrary",
    "stable_id",
]
