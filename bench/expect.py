"""What counts as success for one benchmark request: the real player's state and the answer.

A request (one JSON object per line of ``bench/requests_*.jsonl``) carries:

- ``id``, ``lang`` ("zh"/"en"), ``category`` (play, play_episode, relative, continue, pause,
  stop, resume, status, volume, seek, sleep, count, library, search, decline, story, marker;
  for books in chapters and their settings: chapter, speed, skip, sleep_end), ``utterance``;
- ``setup``: the state before the turn — ``playing`` [title, episode, seconds], ``paused``
  (bool), ``bookmarks`` [[title, episode, seconds], …], ``volume`` (percent, default 60);
  ``speed`` (0.5–2.0) and ``skip`` {"intro": seconds?, "outro": seconds?}: set for the book
  in ``playing`` (else the last of ``bookmarks``) before it starts; ``sleep_end_of_episode``
  (bool): the sleep timer waits for the end of the episode playing. Every other book plays
  at 1.0 with nothing skipped, and no timer is set;
- ``expect``: what must hold after the turn (every key), and optionally ``alt``: a list of
  other ``expect`` objects that also count as success.

Keys of ``expect``:

- ``plays`` {album, episode?, position?}: playing that album (and episode; position in
  seconds, ± the turn's own duration);
- ``paused`` {album?, episode?}: paused (the same book as before unless named);
- ``stopped``: true — nothing loaded;
- ``unchanged``: true — the same book, episode and play/pause state as before, same volume,
  speed, skips and end-of-episode sleep (unless ``expect`` names them);
- ``volume``: a percent, or {"above": p} / {"below": p};
- ``position``: seconds into the episode (a seek), ± the turn's duration;
- ``sleep``: minutes of the sleep timer;
- ``speed``: the playback speed of the book loaded after the turn (else the book last
  heard, whose speed a request sets), ± 0.01;
- ``skip`` {"intro": seconds?, "outro": seconds?}: that book's intro and outro skips (the
  keys given; 0 is none), ± 0.5;
- ``sleep_end_of_episode``: true — the player pauses at the end of the episode (chapter)
  playing; false — it does not;
- ``says_number``: the answer states this number (digits or Chinese numerals; a number
  with a fraction, such as a speed of 1.75, in digits);
- ``says_any``: the answer contains one of these strings (case and script folded);
- ``declines``: the answer declines (a refusal word, or "没有" / "there is no" for a
  number past the book's end); no digits outside a library title named other than the
  numbers the request said and the episode counts of the books named (no invented facts);
- ``offers_books``: the answer names a book of the library, or one started playing;
- ``lists_library``: the answer names two books of the library, or how many it holds;
- ``asks``: true — the answer is a question back to the listener (a question mark: "想听哪一
  本？", "Which book would you like?"), and no other book or episode started.

A failed request whose turn changed the player (play/pause state, book, episode, volume,
sleep timer, end-of-episode sleep, the book's speed or skips, or a jump in position) is a
*wrong action* (`wrong_action`): worse than a question or a refusal, and counted on its own.

Every answer, whatever the request, must be non-empty, name no album id (``lib:…``), and be
short enough to speak (no raw listing, no "第001集", no "(本地)").
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from words.numbers import numbers_said
from words.text import clean_transcript, normalize, word_run

from .library import ALBUMS, chinese_numeral

ID_PATTERN = re.compile(r"\b(?:lib|rss|lv|json)\s*[:：]\s*[0-9A-Za-z]", re.I)
"""An album id as the player makes them ("lib:3ea9489e79", "rss:…", "lv:…", "json:…")."""

PADDED_EPISODE = re.compile(r"第\s*0\d+\s*[集回章]|\b(?:episode|chapter)\s+0\d", re.I)
SOURCE_TAG = re.compile(r"[(（]\s*(?:本地|缓存|远程|local|cached|remote)\s*[)）]", re.I)
"""A tool's source tag ("(本地)") read out: raw tool output, not a sentence."""

MAX_SPOKEN_CHARS = {"zh": 120, "en": 300}
"""Longer answers are a listing, not a sentence (about 25 s of speech at piper's pace)."""

DECLINE_WORDS = {
    "zh": ("抱歉", "不能", "无法", "不会", "没办法", "不支持", "做不到", "只能", "不知道",
           "帮不了", "不提供", "不清楚", "没有这个功能", "不了", "没有第"),
    "en": ("sorry", "can't", "cannot", "can not", "unable", "not able", "only", "don't know",
           "do not know", "not something i", "no way to", "there is no", "there's no"),
}  # fmt: skip


SPEED_SLACK = 0.01
"""How far an observed speed may be from the one expected."""
SKIP_SLACK = 0.5
"""How far an observed intro or outro skip (seconds) may be from the one expected."""


@dataclass(frozen=True)
class Observed:
    """The player as seen from outside: state, book, episode (a chapter's number in a book
    of chapters), position (s into that episode), volume (%), sleep timer (minutes left), and the settings of the book loaded (else of the book last
    heard; None without either): speed, intro and outro skip (s); `sleep_at_end`: the
    player pauses at the end of the episode playing."""

    state: str
    album: str | None
    episode: int | None
    position: float | None
    volume: int
    sleep_minutes: float | None
    speed: float | None = None
    intro: float | None = None
    outro: float | None = None
    sleep_at_end: bool = False

    def short(self) -> str:
        """One line for a failure report."""
        book = f"{self.album} #{self.episode} @{self.position:.0f}s" if self.album else "-"
        sleep = f" sleep {self.sleep_minutes:.0f} min" if self.sleep_minutes else ""
        if self.sleep_at_end:
            sleep += " sleep at episode end"
        extra = ""
        if self.speed is not None and abs(self.speed - 1.0) > SPEED_SLACK:
            extra += f" x{self.speed:g}"
        if self.intro:
            extra += f" intro {self.intro:g}s"
        if self.outro:
            extra += f" outro {self.outro:g}s"
        return f"{self.state} {book}{extra} vol {self.volume}{sleep}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def observe(player: Any) -> Observed:
    """Read the real player's state (its public attributes) into an `Observed`."""
    import time

    now = getattr(player, "now", None)
    deadline = getattr(player, "sleep_deadline", None)
    speed, intro, outro = _book_settings(player)
    return Observed(
        state=str(getattr(player, "state", "")),
        album=now.detail.album.title if now is not None else None,
        episode=now.episode.section if now is not None else None,
        position=float(now.position) if now is not None else None,
        volume=round(float(getattr(player, "volume", 0.0)) * 100),
        sleep_minutes=None if deadline is None else max(0.0, (deadline - time.monotonic()) / 60),
        speed=speed,
        intro=intro,
        outro=outro,
        sleep_at_end=bool(getattr(player, "sleep_at_end", False)),
    )


def _book_settings(player: Any) -> tuple[float | None, float | None, float | None]:
    """(speed, intro s, outro s) of the book loaded (playing, paused or awaited), else of
    the book last heard (the one `set_speed` and `set_skip` change then); the speed of a
    book loaded is the one its decoder plays at. (None, None, None) without either."""
    if not hasattr(player, "book_settings"):
        return None, None, None
    holder = getattr(player, "now", None) or getattr(player, "pending", None)
    if holder is not None:
        speed, intro, outro = player.book_settings(holder.detail.album)
        playback = getattr(holder, "playback", None)
        if playback is not None:
            speed = float(playback.speed)
        return float(speed), float(intro), float(outro)
    mark = player.store.last_bookmark()
    if mark is None:
        return None, None, None
    held = player.store.book(mark.album_id)
    speed = held.speed if held.speed is not None else 1.0
    return float(speed), float(held.intro or 0.0), float(held.outro or 0.0)


def number_forms(n: int) -> list[str]:
    """Ways an answer may state `n`: "12", "十二" (and "两" for 2)."""
    forms = [str(n)]
    if 0 < n < 10000:
        forms.append(chinese_numeral(n))
    if n == 2:
        forms.append("两")
    return forms


def says_number(answer: str, n: float) -> bool:
    """True when `answer` contains `n` as a whole number (not as part of a longer one); a
    number with a fraction ("1.75") in digits, not as part of a longer one either."""
    if n != int(n):
        return bool(re.search(rf"(?<![\d.]){re.escape(format(n, 'g'))}(?![\d])", answer))
    n = int(n)
    for form in number_forms(n):
        if form.isdigit():
            if re.search(rf"(?<!\d){form}(?!\d)", answer):
                return True
        elif re.search(
            rf"(?<![零一二三四五六七八九十百千两]){form}(?![零一二三四五六七八九十百千])", answer
        ):
            return True
    return False


NAMES: dict[str, tuple[str, ...]] = {a.title: (a.title, *a.aliases) for a in ALBUMS}
"""Each library title with the book's other names (album.json's aliases): an answer in the
configured language may name a book by the one of them in that language."""


def _names(answer: str, name: str) -> bool:
    """True when `answer` names `name` (two or more folded characters; Latin letters only
    as whole words: "Us" is not named by "pause")."""
    key = normalize(name)
    if len(key) < 2:
        return False
    if key.isascii():
        return word_run(name) in word_run(answer)
    return key in normalize(answer)


def mentioned_titles(answer: str, titles: list[str]) -> list[str]:
    """Library titles that `answer` names by the title or by another name of the book
    (`NAMES`)."""
    return [t for t in titles if any(_names(answer, n) for n in NAMES.get(t, (t,)))]


def _without_titles(answer: str, titles: list[str]) -> str:
    """`answer` without the library titles it names ("播放1984" is no invented figure)."""
    for title in sorted(mentioned_titles(answer, titles), key=len, reverse=True):
        answer = re.sub(re.escape(title), "", answer, flags=re.IGNORECASE)
    return answer


def spoken_problems(answer: str, lang: str, album_ids: set[str] = frozenset()) -> list[str]:
    """Why `answer` is not fit to be spoken (empty list when it is)."""
    problems = []
    text = answer.strip()
    if not text:
        return ["silence: no answer"]
    if ID_PATTERN.search(text) or any(i and i in text for i in album_ids):
        problems.append("an album id is spoken")
    if PADDED_EPISODE.search(text):
        problems.append("a padded episode number is spoken")
    if SOURCE_TAG.search(text):
        problems.append("a source tag such as (本地) is spoken")
    if len(text) > MAX_SPOKEN_CHARS.get(lang, 300):
        problems.append(f"{len(text)} characters: a listing, not a sentence")
    return problems


def _near(actual: float | None, wanted: float, slack: float) -> bool:
    return actual is not None and wanted - 2.0 <= actual <= wanted + slack


def check_expect(
    expect: dict[str, Any],
    *,
    lang: str,
    before: Observed,
    after: Observed,
    answer: str,
    titles: list[str],
    elapsed_s: float,
    library_size: int,
    facts: frozenset[int] = frozenset(),
) -> list[str]:
    """Reasons one `expect` object is not met (empty list: met). `facts`: the numbers an
    answer may state (those the request said, the episode counts of the books named)."""
    why: list[str] = []
    slack = elapsed_s + 3.0
    plays = expect.get("plays")
    if plays is not None:
        if after.state not in ("playing", "loading"):
            why.append(f"should play {plays.get('album')}, player is {after.state}")
        elif plays.get("album") and after.album != plays["album"]:
            why.append(f"should play {plays['album']}, plays {after.album}")
        elif plays.get("episode") and after.episode != plays["episode"]:
            why.append(f"should play episode {plays['episode']}, plays {after.episode}")
        elif "position" in plays and not _near(after.position, plays["position"], slack):
            why.append(f"should start near {plays['position']:.0f} s, at {after.position:.0f} s")
    paused = expect.get("paused")
    if paused is not None:
        album = paused.get("album", before.album) if isinstance(paused, dict) else before.album
        episode = paused.get("episode", before.episode) if isinstance(paused, dict) else None
        if after.state != "paused":
            why.append(f"should be paused, player is {after.state}")
        elif album and after.album != album:
            why.append(f"should have {album} paused, has {after.album}")
        elif episode and after.episode != episode:
            why.append(f"should be paused at episode {episode}, is at {after.episode}")
    if expect.get("stopped") and after.album is not None:
        why.append(f"should be stopped, player is {after.state} {after.album}")
    if expect.get("unchanged"):
        if (after.state, after.album, after.episode) != (
            before.state,
            before.album,
            before.episode,
        ):
            why.append(f"playback changed: {before.short()} -> {after.short()}")
        if after.volume != before.volume and "volume" not in expect:
            why.append(f"volume changed: {before.volume} -> {after.volume}")
        kept = [] if "speed" in expect else ["speed"]
        kept += [k for k in ("intro", "outro") if k not in (expect.get("skip") or {})]
        if "sleep_end_of_episode" not in expect:
            kept.append("sleep_at_end")
        why += [f"changed: {what}" for what in _settings_changed(before, after, kept)]
    volume = expect.get("volume")
    if isinstance(volume, int) and after.volume != volume:
        why.append(f"volume should be {volume}, is {after.volume}")
    elif isinstance(volume, dict):
        if "above" in volume and not after.volume > volume["above"]:
            why.append(f"volume should rise above {volume['above']}, is {after.volume}")
        if "below" in volume and not after.volume < volume["below"]:
            why.append(f"volume should fall below {volume['below']}, is {after.volume}")
    if "position" in expect and not _near(after.position, expect["position"], slack):
        shown = "-" if after.position is None else f"{after.position:.0f} s"
        why.append(f"position should be near {expect['position']} s, is {shown}")
    if "sleep" in expect:
        minutes = after.sleep_minutes
        if minutes is None or abs(minutes - expect["sleep"]) > 1.0:
            why.append(f"sleep timer should be {expect['sleep']} min, is {minutes}")
    if "speed" in expect:
        wanted = float(expect["speed"])
        if after.speed is None or abs(after.speed - wanted) > SPEED_SLACK:
            why.append(f"speed should be {wanted:g}, is {after.speed}")
    for key, wanted in (expect.get("skip") or {}).items():
        actual = getattr(after, key)
        if actual is None or abs(actual - float(wanted)) > SKIP_SLACK:
            why.append(f"{key} skip should be {wanted} s, is {actual}")
    if "sleep_end_of_episode" in expect and after.sleep_at_end != bool(
        expect["sleep_end_of_episode"]
    ):
        why.append(
            "should pause at the end of the episode"
            if expect["sleep_end_of_episode"]
            else "should not pause at the end of the episode"
        )
    if "says_number" in expect and not says_number(answer, float(expect["says_number"])):
        why.append(f"answer does not state {expect['says_number']}")
    if "says_any" in expect:
        folded = normalize(answer)
        said = [n for s in expect["says_any"] for n in NAMES.get(s, (s,))]  # a title's names
        if not any(normalize(s) in folded for s in said):
            why.append(f"answer names none of {expect['says_any']}")
    if expect.get("declines"):
        lowered = answer.casefold()
        if not any(w in lowered for w in DECLINE_WORDS[lang]):
            why.append("answer does not decline")
        elif any(int(n) not in facts for n in re.findall(r"\d+", _without_titles(answer, titles))):
            why.append("a declining answer states figures (invented facts?)")
    if expect.get("offers_books"):
        started = after.album is not None and (after.album, after.episode) != (
            before.album,
            before.episode,
        )
        if not started and not mentioned_titles(answer, titles):
            why.append("answer offers no book of the library")
    if expect.get("asks"):
        if not re.search(r"[?？]", answer):
            why.append("answer asks nothing")
        if (after.album, after.episode) != (before.album, before.episode) and after.album:
            why.append(f"should ask, started {after.album} #{after.episode}")
    if expect.get("lists_library"):
        named = mentioned_titles(answer, titles)
        if len(named) < 2 and not says_number(answer, library_size):
            why.append("answer lists neither books of the library nor how many there are")
    return why


def check(
    request: dict[str, Any],
    *,
    before: Observed,
    after: Observed,
    answer: str,
    titles: list[str],
    elapsed_s: float,
    album_ids: set[str] = frozenset(),
) -> list[str]:
    """Why `request` failed (empty list: it succeeded): spoken-answer rules, then `expect`
    or any of `alt`."""
    lang = request["lang"]
    problems = spoken_problems(answer, lang, album_ids)
    options = [request.get("expect", {}), *request.get("alt", [])]
    facts: frozenset[int] = frozenset()
    if any(option.get("declines") for option in options):
        named = mentioned_titles(answer, titles)
        facts = frozenset(
            [s.value for s in numbers_said(clean_transcript(request.get("utterance", "")))]
            + [spec.episodes for spec in ALBUMS if spec.title in named]
        )
    reasons: list[str] = []
    for option in options:
        why = check_expect(
            option,
            lang=lang,
            before=before,
            after=after,
            answer=answer,
            titles=titles,
            elapsed_s=elapsed_s,
            library_size=len(titles),
            facts=facts,
        )
        if not why:
            return problems
        reasons = reasons or why
    return problems + reasons


SETTINGS = ("speed", "intro", "outro", "sleep_at_end")
"""The book's settings and the end-of-episode sleep, as `Observed` names them."""


def _settings_changed(before: Observed, after: Observed, keys=SETTINGS) -> list[str]:
    """Which of `keys` (of `SETTINGS`) differ before and after: the end-of-episode sleep,
    and a speed or skip beyond its slack while the same book is loaded (another book has
    its own: `changed` names the book; unknown on either side, no book, is no change)."""
    what: list[str] = []
    for key in keys:
        old, new = getattr(before, key), getattr(after, key)
        if key == "sleep_at_end":
            if old != new:
                what.append(f"end-of-episode sleep {old} -> {new}")
            continue
        if old is None or new is None or before.album != after.album:
            continue
        slack = SPEED_SLACK if key == "speed" else SKIP_SLACK
        if abs(old - new) > slack:
            name = "speed" if key == "speed" else f"{key} skip"
            what.append(f"{name} {old:g} -> {new:g}")
    return what


def changed(before: Observed, after: Observed, elapsed_s: float) -> list[str]:
    """What the turn changed on the player: its play/pause state, book, episode, volume,
    sleep timer, end-of-episode sleep, the book's speed or skips, or a position that moved
    by more than the turn's own duration."""
    what = []
    if (before.state, before.album, before.episode) != (after.state, after.album, after.episode):
        what.append(f"{before.short()} -> {after.short()}")
    if before.volume != after.volume:
        what.append(f"volume {before.volume} -> {after.volume}")
    if (before.sleep_minutes is None) != (after.sleep_minutes is None) or (
        before.sleep_minutes is not None
        and after.sleep_minutes is not None
        and abs(before.sleep_minutes - after.sleep_minutes) > 1.0
    ):
        what.append(f"sleep timer {before.sleep_minutes} -> {after.sleep_minutes}")
    what += _settings_changed(before, after)
    if (
        not what
        and before.position is not None
        and after.position is not None
        and not -1.0 <= after.position - before.position <= elapsed_s + 3.0
    ):
        what.append(f"position {before.position:.0f} s -> {after.position:.0f} s")
    return what


def wrong_action(reasons: list[str], before: Observed, after: Observed, elapsed_s: float) -> bool:
    """True when a request failed (`reasons` not empty) and its turn changed the player
    (`changed`): a wrong action, not a missed one."""
    return bool(reasons) and bool(changed(before, after, elapsed_s))
