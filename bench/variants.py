"""How steady the reading of a request is under words that change nothing of it.

Each dev request (``bench/requests_typed.jsonl``, ``bench/books_typed.jsonl``,
``bench/requests_asr.jsonl``) is read by the words layer (`words.read`, with the generated
library's titles as the player indexes them) as written, and again with words a listener
says around a request: a sound of thinking or a pause word before it ("Um, …", "嗯，…",
"Okay so …"), the box's name ("小听，…"), a courtesy after it ("…, thanks", "…，谢谢") or a
particle ending it ("…啊"), and as a recogniser writes it, with no punctuation. A variant is steady when its reading (the tool calls, and
whether it asks) is the request's own. Requests that a variant leaves as they are (a
question does not take "please") are not counted for it.

    python bench/variants.py                  # figures per variant
    python bench/variants.py --show 10        # and up to 10 unsteady requests of each

This reads dev requests only: the held-out ones are never read here.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.library import ALBUMS  # noqa: E402
from words import TitleIndex, read  # noqa: E402
from words.catalog import library_names  # noqa: E402

DEV_FILES = ("requests_typed.jsonl", "books_typed.jsonl", "requests_asr.jsonl")


def _lower_first(u: str) -> str:
    return u[:1].lower() + u[1:]


def _asks(u: str) -> bool:
    return u.rstrip().endswith(("?", "？", "吗", "呢"))


def _unpunctuated(u: str) -> str:
    """`u` as a recogniser writes it: no punctuation (a decimal point kept), lower case."""
    u = re.sub(r"(?<!\d)[.](?!\d)|[,，。！!？?；;：:、…—\"“”]", " ", u)
    return re.sub(r"\s+", " ", u).strip().lower()


VARIANTS: dict[str, dict[str, Callable[[str], str]]] = {
    "en": {
        "um,": lambda u: "Um, " + _lower_first(u),
        "hey,": lambda u: "Hey, " + _lower_first(u),
        "okay so": lambda u: "Okay so " + _lower_first(u),
        ", please": lambda u: u if _asks(u) else u.rstrip(".!") + ", please",
        "thanks": lambda u: u.rstrip() + " Thanks.",
        "unpunctuated": _unpunctuated,
    },
    "zh": {
        "嗯，": lambda u: "嗯，" + u,
        "那个，": lambda u: "那个，" + u,
        "小听，": lambda u: "小听，" + u,
        "，谢谢": lambda u: u.rstrip("。！!.") + "，谢谢",
        "啊": lambda u: u if _asks(u) else u.rstrip("。！!.") + "啊",
        "unpunctuated": _unpunctuated,
    },
}


def _index() -> TitleIndex:
    albums = list(ALBUMS)
    parts = library_names((a.title, a.aliases) for a in albums)
    return TitleIndex(
        (a.title, a.aliases, tuple(p for p in (a.author, a.narrator) if p), more)
        for a, more in zip(albums, parts, strict=True)
    )


_INDEX: TitleIndex | None = None


def _key(utterance: str, language: str) -> str:
    global _INDEX
    if _INDEX is None:
        _INDEX = _index()
    reading = read(utterance, language, _INDEX)
    calls = [(c.tool, c.arguments) for c in reading.calls]
    return json.dumps([calls, bool(reading.clarify)], ensure_ascii=False, sort_keys=True)


def _check(request: dict) -> list[tuple[str, str, str, str]]:
    """(language and variant, utterance said so, reading as written, reading of the variant) for each
    variant of `request` that changes its words; the readings as JSON."""
    u, lang = request["utterance"], request["lang"]
    own = _key(u, lang)
    out = []
    for name, make in VARIANTS[lang].items():
        said = make(u)
        if said != u:
            out.append((f"{lang} {name}", said, own, _key(said, lang)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=0, help="unsteady requests shown per variant")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    requests = []
    for name in DEV_FILES:
        for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if "utterance" in record and record.get("lang") in VARIANTS:
                requests.append(record)
    with ProcessPoolExecutor(args.workers) as pool:
        rows = [row for found in pool.map(_check, requests, chunksize=64) for row in found]
    print(f"variants: {len(requests)} dev requests")
    total = steady_total = 0
    for lang, variants in VARIANTS.items():
        for name in variants:
            mine = [r for r in rows if r[0] == f"{lang} {name}"]
            steady = sum(r[2] == r[3] for r in mine)
            total += len(mine)
            steady_total += steady
            print(f"  {lang} {name:<13} {steady}/{len(mine)} steady")
            for _n, said, own, other in [r for r in mine if r[2] != r[3]][: args.show]:
                print(f"      {said}\n        {own}\n     -> {other}")
    share = 100 * steady_total / total if total else 0.0
    print(f"steady readings: {steady_total}/{total} ({share:.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
