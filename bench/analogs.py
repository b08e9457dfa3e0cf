"""Build the analog bank (``words/analogs/bank.tsv``) from the dev requests.

Each dev request of ``bench/requests_typed.jsonl``, ``bench/books_typed.jsonl`` and
``bench/requests_asr.jsonl`` whose expected outcome is one intent (`intent_of`: "louder",
"skip the intro", "stop at the chapter's end", a question…) becomes one line: the intent,
a TAB, the utterance masked as `words.analogs.masked` masks it (the generated library's
titles as ``§``, numbers as ``#``). Requests that expect two things at once, or nothing
this module can name, are left out, and so is every request that shares a clause with a
held-out request (the check of tests/bench/test_bench_heldout.py, which reads the bank as
it reads all product data): the held-out requests are read only to leave such words out,
and nothing of them is printed.

It then trains the bank's weights (``words/analogs/weights.tsv``, `words.analogs.Weights`):
multinomial logistic regression (scikit-learn, a dev dependency; the box reads the file
alone) over the TF-IDF of the bank's features, hashed to buckets, so that the file holds
numbers and no words. Its header names the SHA-256 of the bank it was trained on.

    python bench/analogs.py                 # writes words/analogs/bank.tsv and weights.tsv
    python bench/analogs.py --check         # exit 1 when either is not up to date
    python bench/analogs.py --exclude ids.txt --out /tmp/bank.tsv   # leave some requests out

`--exclude` takes a file of request ids (whitespace-separated) to leave out: a round of
new requests is measured with a bank that has not seen it (the weights go beside `--out`,
as ``weights.tsv``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.library import ALBUMS  # noqa: E402
from words import TitleIndex, read  # noqa: E402
from words.analogs import INTENTS, bucket, features, masked, parse_bank  # noqa: E402

DEV_FILES = ("requests_typed.jsonl", "books_typed.jsonl", "requests_asr.jsonl")
BANK = ROOT / "words" / "analogs" / "bank.tsv"
WEIGHTS_NAME = "weights.tsv"
C = 30.0
"""The inverse regularisation strength of the logistic regression."""
PRUNE = 0.05
"""Weights smaller than this (in absolute value) are left out of the file."""
HEADER = (
    "# The analog bank: one dev request a line, its intent TAB its masked text.\n"
    "# Made by bench/analogs.py from the dev requests' expected outcomes; do not edit.\n"
)


def intent_of(request: dict[str, Any]) -> str | None:
    """The one intent `request`'s expectation names (`words.analogs.INTENTS`), or None
    when it names none or several."""
    setup, expect = request.get("setup", {}), request.get("expect", {})
    playing = setup.get("playing")
    found: set[str] = set()
    volume = expect.get("volume")
    if isinstance(volume, dict):
        found.add("volume:up" if "above" in volume else "volume:down")
    elif volume is not None:
        found.add("volume:set")
    speed = expect.get("speed")
    if isinstance(speed, (int, float)):
        old = setup.get("speed", 1.0)
        if speed != old:
            found.add("speed:up" if speed > old else "speed:down")
    skip = expect.get("skip")
    if isinstance(skip, dict):
        before = setup.get("skip") or {}
        changed = [e for e in ("intro", "outro") if e in skip and skip[e] != before.get(e, 0)]
        on = [e for e in changed if skip[e]]
        if on:
            found.add("skip:" + "+".join(on))
        elif changed:
            found.add("skip:off")
    if expect.get("sleep_end_of_episode") is True:
        found.add("sleep:end")
    if expect.get("sleep"):
        found.add("sleep:minutes")
    elif expect.get("sleep") == 0 or (
        expect.get("sleep_end_of_episode") is False and setup.get("sleep_end_of_episode")
    ):
        found.add("sleep:off")
    if expect.get("paused"):
        found.add("pause")
    if expect.get("stopped"):
        found.add("stop")
    plays = expect.get("plays")
    if isinstance(plays, dict) and not expect.get("unchanged"):
        if playing and plays.get("album") == playing[0]:
            episode = plays.get("episode")
            if "position" in expect and episode in (None, playing[1]):
                found.add("seek:fwd" if expect["position"] > playing[2] else "seek:back")
            elif episode in (None, playing[1]):
                if plays.get("position") == 0:
                    found.add("replay")
                elif setup.get("paused"):
                    found.add("resume")
            elif episode == playing[1] + 1:
                found.add("next")
            elif episode == playing[1] - 1:
                found.add("previous")
            else:
                found.add("episode")
        else:
            found.add("play")
    if not found:
        if expect.get("asks"):
            found.add("asks")
        elif expect.get("declines"):
            found.add("declines")
        elif {"says_number", "says_any", "lists_library"} & expect.keys():
            found.add("question")
    if len(found) != 1:
        return None
    (intent,) = found
    assert intent in INTENTS, intent
    return intent


def build(exclude: set[str] = frozenset()) -> str:
    """The bank's text from the dev files, leaving out the ids in `exclude`."""
    index = TitleIndex(
        (a.title, a.aliases, tuple(p for p in (a.author, a.narrator) if p)) for a in ALBUMS
    )
    lines, seen = [], set()
    for name in DEV_FILES:
        for raw in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines():
            if not raw.strip():
                continue
            request = json.loads(raw)
            if "utterance" not in request or request["id"] in exclude:
                continue
            intent = intent_of(request)
            if intent is None:
                continue
            reading = read(request["utterance"], request["lang"], index)
            if intent == "asks" and _no_book_to_move(request, reading):
                continue
            text = " ".join(masked(reading).split())
            if text and (intent, text) not in seen:
                seen.add((intent, text))
                lines.append(f"{intent}\t{text}")
    return HEADER + "\n".join(_without_heldout(lines)) + "\n"


MOVES = frozenset(
    {"pause", "resume", "stop", "seek", "next_episode", "previous_episode", "set_speed",
     "set_skip", "sleep_timer"}
)  # fmt: skip
"""The tools that act on the book loaded now."""


def _no_book_to_move(request: dict[str, Any], reading: Any) -> bool:
    """True when `request` is asked about only for want of a book: nothing is loaded or
    left off in its setup, and its words say a move of the book loaded ("skip to the next
    one, please", "调快一点", "put on chapter 3": its tools, or an episode of no book
    named). Its question back belongs to the empty player, not to the words, which mean
    that move wherever a book is loaded; in the bank it would teach the vote to doubt them
    there."""
    setup = request.get("setup", {})
    if setup.get("playing") or setup.get("bookmarks") or not reading.calls:
        return False
    return all(
        c.tool in MOVES
        or (c.tool == "play_book" and not c.arguments.get("keyword") and "section" in c.arguments)
        for c in reading.calls
    )


def bank_hash(bank: str) -> str:
    """The SHA-256 of a bank file's text, as the weights' header names it."""
    return hashlib.sha256(bank.encode("utf-8")).hexdigest()


def train(bank: str) -> str:
    """The weights file's text for the bank file's text `bank` (`words.analogs.Weights`)."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.linear_model import LogisticRegression

    entries = parse_bank(bank)
    rows = []
    for _, text in entries:
        counts: dict[str, int] = {}
        for feature, n in features(text).items():
            key = str(bucket(feature))
            counts[key] = counts.get(key, 0) + n
        rows.append(counts)
    vectorizer = DictVectorizer()
    tfidf = TfidfTransformer(sublinear_tf=True)
    matrix = tfidf.fit_transform(vectorizer.fit_transform(rows))
    model = LogisticRegression(C=C, max_iter=5000).fit(matrix, [i for i, _ in entries])
    intents = [str(i) for i in model.classes_]
    lines = [
        "# The analog bank's weights: multinomial logistic regression over its hashed features'",
        "# TF-IDF (words.analogs.Weights). Made by bench/analogs.py; do not edit.",
        f"# bank sha256 {bank_hash(bank)}",
        "\t".join(["intents", *intents]),
        "\t".join(["bias", *(f"{b:.4f}" for b in model.intercept_)]),
    ]
    names = vectorizer.get_feature_names_out()
    for column in sorted(range(len(names)), key=lambda j: int(names[j])):
        pairs = " ".join(
            f"{k}:{w:.4f}" for k, w in enumerate(model.coef_[:, column]) if abs(w) >= PRUNE
        )
        lines.append(f"{names[column]}\t{tfidf.idf_[column]:.4f}\t{pairs}")
    return "\n".join(lines) + "\n"


def _without_heldout(lines: list[str]) -> list[str]:
    """`lines` without those holding a held-out clause, as the product check folds the
    file (all its Chinese characters run together, all its words one space apart: a
    clause may span two lines, and then both go)."""
    from tests.bench.test_bench_heldout import _all_heldout, _folded, clauses

    held = set().union(*(clauses(r["utterance"]) for r in _all_heldout()))
    while True:
        owners: list[list[int]] = [[], []]  # for each character of the folded file, its line
        joined = ["", ""]
        for number, line in enumerate(lines):
            for part, text in enumerate(_folded(line)):
                text = text if part == 0 else text.strip() + " "
                joined[part] += text
                owners[part] += [number] * len(text)
        cjk, words = joined[0], " " + joined[1]
        owners[1] = [owners[1][0] if owners[1] else 0, *owners[1]]
        bad: set[int] = set()
        for clause in held:
            for part, text in ((0, cjk), (1, words)):
                start = text.find(clause)
                while start >= 0:
                    bad.update(owners[part][start : start + len(clause)])
                    start = text.find(clause, start + 1)
        if not bad:
            return lines
        lines = [line for number, line in enumerate(lines) if number not in bad]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BANK, help="where to write the bank")
    parser.add_argument("--exclude", type=Path, help="a file of request ids to leave out")
    parser.add_argument("--check", action="store_true", help="exit 1 if --out is not up to date")
    args = parser.parse_args(argv)
    exclude = set(args.exclude.read_text().split()) if args.exclude else set()
    text = build(exclude)
    weights_path = args.out.parent / WEIGHTS_NAME
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is not up to date: run python bench/analogs.py", file=sys.stderr)
            return 1
        trained = weights_path.read_text(encoding="utf-8") if weights_path.exists() else ""
        if f"# bank sha256 {bank_hash(text)}\n" not in trained:
            print(
                f"{weights_path} was not trained on this bank: run python bench/analogs.py",
                file=sys.stderr,
            )
            return 1
        print(
            f"{args.out} and {weights_path.name} are up to date ({text.count(chr(10)) - 2} requests)"
        )
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}: {text.count(chr(10)) - 2} requests")
    weights_path.write_text(train(text), encoding="utf-8")
    print(f"wrote {weights_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
