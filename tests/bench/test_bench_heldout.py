"""Held out means held out: no held-out request, nor any clause of one, is in the product.

``bench/heldout_requests.jsonl`` measures how the agent generalises to requests nobody on
the team wrote (written blind, committed before the change it measures), and so does
``bench/books_heldout.jsonl`` for books in chapters and their settings (checked the same
way once it is there). Every text file
of the product — `agent/` (prompts, examples, grammar, loop), `player/` (tool hints,
texts, examples), `device/` and the words layer with its phrase data (`words/`) — is
folded the way titles are compared (NFKC, case, traditional to simplified), Chinese without
spaces or punctuation and other text as its words one space apart, so a phrasing split
across a Python list or re-spaced still counts as found. A clause is a piece of a request
between punctuation marks: four Chinese characters or more, or three words or more (a
single "thanks" is every product's word, not a phrasing). A failure names the request's id
and the file, never its words: whoever reads the held-out phrasings may no longer tune
anything against them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from words.text import fold, normalize

ROOT = Path(__file__).resolve().parents[2]
HELDOUT = ROOT / "bench" / "heldout_requests.jsonl"
BOOKS_HELDOUT = ROOT / "bench" / "books_heldout.jsonl"
"""Held-out requests about books in chapters (may be missing)."""
PRODUCT = ("agent", "player", "device", "words")
TEXT_SUFFIXES = {".py", ".txt", ".md", ".toml", ".json", ".gbnf", ".jsonl", ".yaml", ".tsv", ""}
CLAUSE = re.compile(r"[，,。.!！?？;；、…:：]+")
MIN_CLAUSE = 4


def _heldout() -> tuple[dict, list[dict]]:
    lines = [json.loads(x) for x in HELDOUT.read_text(encoding="utf-8").splitlines() if x.strip()]
    return lines[0], [r for r in lines[1:] if "utterance" in r]


def _all_heldout() -> list[dict]:
    """Every held-out request: those of `HELDOUT`, then those of `BOOKS_HELDOUT` if any."""
    _, records = _heldout()
    if BOOKS_HELDOUT.is_file():
        lines = BOOKS_HELDOUT.read_text(encoding="utf-8").splitlines()
        records = records + [
            r for r in map(json.loads, filter(str.strip, lines)) if "utterance" in r
        ]
    return records


def _folded(text: str) -> tuple[str, str]:
    """`text` folded twice: its Chinese characters run together, and its words (Latin
    letters and digits) one space apart with a space at each end."""
    cjk = "".join(re.findall(r"[\u3400-\u9fff]+", normalize(text)))
    words = " " + " ".join(re.findall(r"[a-z0-9]+", fold(text).replace("'", ""))) + " "
    return cjk, words


def clauses(utterance: str) -> set[str]:
    """The clauses of a request worth looking for (and the whole request), folded: a
    Chinese one of four characters or more, another of three words or more."""
    found = set()
    for piece in [utterance, *CLAUSE.split(utterance)]:
        cjk, words = _folded(piece)
        if len(cjk) >= MIN_CLAUSE:
            found.add(cjk)
        elif len(words.split()) >= 3 and not re.search(r"[\u3400-\u9fff]", piece):
            found.add(words)
    return found


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
            cjk, words = _folded(text)
            texts[str(path.relative_to(ROOT))] = cjk + "\n" + words
    return texts


def test_the_file_says_it_is_held_out_first() -> None:
    header, records = _heldout()
    assert "utterance" not in header
    assert "never" in header["header"] and "clause" in header["header"]
    assert len(records) >= 120
    assert {r["lang"] for r in records} == {"zh", "en"}
    assert len({r["id"] for r in records}) == len(records)


def test_held_out_requests_are_long_enough_to_mean_something() -> None:
    records = _all_heldout()
    short = [r["id"] for r in records if len(normalize(r["utterance"])) < 3]
    assert not short


def test_no_held_out_request_nor_clause_is_in_the_product() -> None:
    records = _all_heldout()
    texts = _product_texts()
    assert any(name.startswith("agent/prompts") for name in texts)
    assert "player/examples.py" in texts
    assert "words/analogs/bank.tsv" in texts
    found = sorted(
        {
            (r["id"], name)
            for r in records
            for clause in clauses(r["utterance"])
            for name, text in texts.items()
            if clause in text
        }
    )
    assert not found, f"held-out requests (id, file) whose words are in the product: {found}"


def test_the_books_held_out_requests_are_their_own() -> None:
    if not BOOKS_HELDOUT.is_file():
        pytest.skip("bench/books_heldout.jsonl not written yet")
    first = BOOKS_HELDOUT.read_text(encoding="utf-8").split("\n", 1)[0]
    assert json.loads(first) == _heldout()[0]  # the same warning first
    records = _all_heldout()
    assert len({r["id"] for r in records}) == len(records)
    assert len({normalize(r["utterance"]) for r in records}) == len(records)


@pytest.mark.parametrize(
    "name", ["requests_typed.jsonl", "requests_asr.jsonl", "books_typed.jsonl"]
)
def test_no_held_out_request_is_in_the_other_request_files(name: str) -> None:
    if not (ROOT / "bench" / name).is_file():
        pytest.skip(f"bench/{name} not written yet")
    records = _all_heldout()
    other = {
        normalize(json.loads(line)["utterance"])
        for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines()
        if line.strip() and "utterance" in line
    }
    assert not [r["id"] for r in records if normalize(r["utterance"]) in other]


def test_the_check_would_find_a_planted_clause() -> None:
    planted = "暂停一下吧，我去开个门"
    assert "我去开个门" in clauses(planted)
    cjk, _ = _folded('TABLE = ["我去开", "个门"]')
    assert any(c in cjk for c in clauses(planted))
    assert not clauses("好的")  # too short to mean anything
    english = "Hold on, the kettle is boiling"
    _, words = _folded('CUES = ["The Kettle", "is boiling!"]')
    assert " the kettle is boiling " in clauses(english)
    assert any(c in words for c in clauses(english))
    assert not clauses("thanks")  # one word is every product's, not a phrasing
