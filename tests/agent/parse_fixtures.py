"""Tool names and schemas shared by the parser tests (shaped like the player's tools)."""

from __future__ import annotations

from typing import Any

SCHEMAS: dict[str, dict[str, Any]] = {
    "search_album": {
        "type": "object",
        "properties": {"keyword": {"type": "string"}, "page": {"type": "integer"}},
        "required": ["keyword"],
    },
    "get_album_detail": {
        "type": "object",
        "properties": {"album_id": {"type": "string"}, "keyword": {"type": "string"}},
        "required": ["album_id"],
    },
    "play_book": {
        "type": "object",
        "properties": {"keyword": {"type": "string"}, "section": {"type": "integer"}},
        "required": ["keyword"],
    },
    "set_volume": {
        "type": "object",
        "properties": {"percent": {"type": "integer"}},
        "required": ["percent"],
    },
    "pause": {"type": "object", "properties": {}},
    "resume": {"type": "object", "properties": {}},
    "stop": {"type": "object", "properties": {}},
    "get_status": {"type": "object", "properties": {}},
}
TOOLS = list(SCHEMAS)
