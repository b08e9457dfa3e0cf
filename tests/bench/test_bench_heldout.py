"""Held out means held out: no held-out phrasing appears in the product's prompts or tables.

Every text file of `agent/` (prompts, the fast path's phrase tables, grammar and loop),
`player/` (tool hints, texts) and `device/` (phrase lists, spoken numbers, data) is folded
the way the player folds titles (NFKC, case, traditional → simplified, no spaces or
punctuation), so a phrasing split across a Python list or re-spaced still counts as found.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from player.textmatch import normalize

ROOT = Path(__file__).resolve().parents[2]
HELDOUT = ROOT / "bench" / "heldout_requests.jsonl"
PRODUCT = ("agent", "player", "device")
TEXT_SUFFIXES = {".py", ".txt", ".md", ".toml", ".json", ".gbnf", ".jsonl", ".yaml", ""}


def _heldout() -> tuple[dict, list[dict]]:
    lines = [json.loads(x) for x in HELDOUT.read_text(encoding="utf-8").splitlines() if x.strip()]
    return lines[0], [r for r in lines[1:] if "utterance" in r]


def _product_texts() -> dict[str, str]:
    texts = {}
    for top in PRODUCT:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or path.suffix not in TEXT_SUFFIXES:
                continue
            if "__pycache__" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            texts[str(path.relative_to(ROOT))] = normalize(text)
    return texts


def test_the_file_says_it_is_held_out_first() -> None:
    header, records = _heldout()
    assert "utterance" not in header
    assert "never" in header["header"] and "fast path" in header["header"]
    assert len(records) >= 40
    assert {r["lang"] for r in records} == {"zh", "en"}


def test_held_out_phrasings_are_long_enough_to_mean_something() -> None:
    _, records = _heldout()
    for r in records:
        assert len(normalize(r["utterance"])) >= 5, r["id"]


def test_no_held_out_phrasing_is_in_the_product() -> None:
    _, records = _heldout()
    texts = _product_texts()
    assert any(name.startswith("agent/prompts") for name in texts)
    assert "agent/fastpath.py" in texts
    found = [
        (r["id"], r["utterance"], name)
        for r in records
        for name, text in texts.items()
        if normalize(r["utterance"]) in text
    ]
    assert not found, f"held-out phrasings found in the product: {found}"


@pytest.mark.parametrize("name", ["requests_typed.jsonl", "requests_asr.jsonl"])
def test_no_held_out_phrasing_is_in_the_other_request_files(name: str) -> None:
    _, records = _heldout()
    other = {
        normalize(json.loads(line)["utterance"])
        for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines()
        if line.strip() and "utterance" in line
    }
    assert not [r["id"] for r in records if normalize(r["utterance"]) in other]


def test_the_check_would_find_a_planted_phrasing(tmp_path: Path) -> None:
    _, records = _heldout()
    planted = normalize(
        f'TABLE = ["{records[0]["utterance"][:4]}", "{records[0]["utterance"][4:]}"]'
    )
    assert normalize(records[0]["utterance"]) in planted
