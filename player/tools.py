"""The tools the agent calls: typed async methods with docstrings, mixed into `Player`.

Names and parameters follow the product's design note (search_album, get_album_detail,
search_and_play, pause, resume, stop, get_status) plus next_episode, previous_episode,
seek, set_volume and sleep_timer. Each returns a short speakable text; each failure raises
a `PlayerError` subclass whose message is speakable.
"""

from __future__ import annotations

import asyncio
import logging
import time

from .errors import BadInputError, NotFoundError
from .models import PlayerState
from .textmatch import normalize
from .texts import clock, say, title_part

_LOGGER = logging.getLogger(__name__)

MAX_LISTED_EPISODES = 10


class PlayerTools:
    """Tool methods of `Player` (see `Player.tools()`)."""

    def tools(self) -> list:
        """The tool functions, bound: pass each to the agent's tool registry."""
        return [
            self.search_album,
            self.get_album_detail,
            self.search_and_play,
            self.pause,
            self.resume,
            self.stop,
            self.get_status,
            self.next_episode,
            self.previous_episode,
            self.seek,
            self.set_volume,
            self.sleep_timer,
        ]

    async def search_album(self, keyword: str, page: int = 1) -> str:
        """Search audiobook albums by title or author; returns albums with their ids.

        Args:
            keyword: book title or author, Chinese or English (small typos and traditional
                characters are tolerated).
            page: 1-based result page, 5 albums per page.
        """
        keyword = self.clean_keyword(keyword)
        if not keyword:
            raise BadInputError(say(self.language, "empty_keyword"))
        page = max(1, int(page))
        found = await self.catalog.search(keyword, page=page, page_size=self.page_size)
        note = self.catalog.note(found)
        if not found.albums:
            if page > 1 and found.total:
                return say(self.language, "no_page", keyword=keyword, page=page)
            if note:  # a source that could not answer is not a "not found"
                return say(self.language, "none_found_partial", keyword=keyword, note=note)
            return say(self.language, "none_found", keyword=keyword)
        first = (page - 1) * self.page_size
        items = " ".join(
            say(self.language, "item", n=first + i, title=a.title, id=a.id, count=a.episode_count,
                author=say(self.language, "by", author=a.author) if a.author else "")
            for i, a in enumerate(found.albums, start=1)
        )  # fmt: skip
        if page > 1:
            text = say(self.language, "found_page", page=page, total=found.total, items=items)
        else:
            text = say(self.language, "found", total=found.total, items=items)
        return say(self.language, "found_partial", found=text, note=note) if note else text

    async def get_album_detail(self, album_id: str, keyword: str = "") -> str:
        """List an album's episodes (section numbers and titles) and where it was left off.

        Args:
            album_id: an id from search_album, such as "lib:3f2a9c01d2".
            keyword: optional words to pick episodes by title; when album_id is unknown,
                the album is searched by this keyword instead.
        """
        album_id = self.clean_keyword(album_id)
        keyword = self.clean_keyword(keyword)
        try:
            detail = await self.album_detail(album_id)
        except NotFoundError:
            if not keyword:
                raise NotFoundError(say(self.language, "no_album", id=album_id)) from None
            detail = await self.resolve(keyword)
            keyword = ""
        episodes = list(detail.episodes)
        if keyword:
            key = normalize(keyword)
            chosen = [e for e in episodes if key and key in normalize(e.title)]
            episodes = chosen or episodes
        listed = "; ".join(
            say(self.language, "episode", section=e.section, title=title_part(self.language, e))
            for e in episodes[:MAX_LISTED_EPISODES]
        )
        if len(episodes) > MAX_LISTED_EPISODES:
            listed += " " + say(
                self.language, "detail_more", more=len(episodes) - MAX_LISTED_EPISODES
            )
        text = say(self.language, "detail", title=detail.album.title, id=detail.album.id,
                   count=len(detail.episodes), items=listed)  # fmt: skip
        mark = self.store.bookmark(detail.album.id)
        if mark is not None:
            text += "; " + say(self.language, "left_at", section=mark.section,
                               time=clock(self.language, mark.position))  # fmt: skip
        return text

    async def search_and_play(self, keyword: str, section: int | None = None) -> str:
        """Find an audiobook and play it; without a section it continues where it was left.

        Cached or local episodes start at once; others download in the background and play
        when ready.

        Args:
            keyword: book title, or an album id from search_album.
            section: episode number, 1-based; omitted = continue from the bookmark where
                this book was left, or from episode 1.
        """
        keyword = self.clean_keyword(keyword)
        if section is not None and int(section) < 1:
            raise BadInputError(say(self.language, "bad_section"))
        if not keyword:
            mark = self.store.last_bookmark()
            if mark is None:
                raise BadInputError(say(self.language, "empty_keyword"))
            keyword = mark.album_id
        detail = await self.resolve(keyword)
        if not detail.episodes:
            raise NotFoundError(say(self.language, "no_episodes", album=detail.album.title))
        if section is not None:
            return await self.play(detail, self.find_episode(detail, int(section)))
        resume = self.bookmark_for(detail)
        if resume is not None:
            return await self.play(detail, *resume)
        return await self.play(detail, detail.episodes[0])

    async def pause(self) -> str:
        """Pause the audiobook; resume continues at the same point."""
        now = self.now
        if self.pending is not None and now is None:
            self.pending = None
            self._set_state(PlayerState.IDLE)
            return say(self.language, "stopped")
        if now is None:
            return say(self.language, "nothing")
        now.playback.pause()
        self._set_state(PlayerState.PAUSED)
        self.save_bookmark()
        return say(
            self.language, "paused", album=now.detail.album.title, section=now.episode.section
        )

    async def resume(self) -> str:
        """Continue the paused audiobook (or the last book listened to, when idle)."""
        now = self.now
        if now is None:
            if self.store.last_bookmark() is None:
                return say(self.language, "nothing")
            return await self.search_and_play("")
        if self.state != PlayerState.PAUSED:
            return say(self.language, "not_paused")
        now.playback.resume()
        self._set_state(PlayerState.PLAYING)
        return say(
            self.language, "resumed", album=now.detail.album.title, section=now.episode.section
        )

    async def stop(self) -> str:
        """Stop playing; the bookmark is kept so the book can be continued later."""
        self.stop_all()
        return say(self.language, "stopped")

    async def get_status(self) -> str:
        """What is playing or paused, the position, volume, downloads and sleep timer."""
        lang = self.language
        parts = []
        now = self.now
        if now is not None:
            key = "status_paused" if self.state == PlayerState.PAUSED else "status_playing"
            duration = now.playback.duration or now.episode.duration
            parts.append(
                say(lang, key, album=now.detail.album.title, section=now.episode.section,
                    title=title_part(lang, now.episode), pos=clock(lang, now.playback.position),
                    dur=clock(lang, duration))
            )  # fmt: skip
        elif self.pending is not None:
            parts.append(say(lang, "status_loading", album=self.pending.detail.album.title,
                             section=self.pending.episode.section))  # fmt: skip
        else:
            parts.append(say(lang, "status_idle"))
        parts.append(say(lang, "status_volume", volume=round(self.volume * 100)))
        for job in self.downloader.active():
            if job.total:
                progress = f"{job.percent}% ({job.done / 1e6:.1f}/{job.total / 1e6:.1f}MB)"
            else:
                progress = f"{job.done / 1e6:.1f}MB"
            parts.append(say(lang, "status_download", album=job.title.rsplit(" #", 1)[0],
                             section=job.episode.section, progress=progress))  # fmt: skip
        for job in self.downloader.failed():
            if job.error and job.error != self.last_error:
                parts.append(say(lang, "dl_failed", album=job.title.rsplit(" #", 1)[0],
                                 section=job.episode.section, error=job.error))  # fmt: skip
        if self.sleep_deadline is not None:
            minutes = max(1, round((self.sleep_deadline - time.monotonic()) / 60))
            parts.append(say(lang, "status_sleep", minutes=minutes))
        if getattr(self.sink, "problem", ""):
            parts.append(say(lang, "status_speaker"))
        if not self.store.healthy:
            parts.append(say(lang, "status_unsaved"))
        if self.last_error:
            parts.append(say(lang, "status_error", error=self.last_error))
        return ("，" if lang == "zh" else "; ").join(parts)

    async def _step(self, step: int) -> str:
        holder = self.now or self.pending
        if holder is None:
            mark = self.store.last_bookmark()
            if mark is None:
                return say(self.language, "nothing")
            detail = await self.album_detail(mark.album_id)
            current = detail.episode(mark.section) or detail.episodes[0]
        else:
            detail, current = holder.detail, holder.episode
        target = detail.neighbour(current, step)
        if target is None:
            raise NotFoundError(say(self.language, "no_next" if step > 0 else "no_previous"))
        return await self.play(detail, target)

    async def next_episode(self) -> str:
        """Play the next episode of the current book."""
        return await self._step(1)

    async def previous_episode(self) -> str:
        """Play the previous episode of the current book."""
        return await self._step(-1)

    async def seek(self, seconds: float, relative: bool = False) -> str:
        """Jump to a position in the current episode.

        Args:
            seconds: position from the start of the episode; with relative=true, seconds to
                move forward (negative: back) from the current position.
            relative: move from the current position instead of from the start.
        """
        now = self.now
        if now is None:
            return say(self.language, "nothing")
        target = float(seconds) + (now.playback.position if relative else 0.0)
        duration = now.playback.duration
        if duration and target >= duration:
            raise BadInputError(say(self.language, "bad_seek", dur=clock(self.language, duration)))
        target = max(0.0, target)
        now.playback.seek(target)
        self.store.bookmark_save(now.detail.album, now.episode, target)
        return say(self.language, "seeked", time=clock(self.language, target))

    async def set_volume(self, percent: int) -> str:
        """Set the audiobook volume.

        Args:
            percent: 0 (silent) to 100 (full).
        """
        percent = int(percent)
        if not 0 <= percent <= 100:
            raise BadInputError(say(self.language, "bad_volume"))
        self.volume = percent / 100
        return say(self.language, "volume", volume=percent)

    async def sleep_timer(self, minutes: float) -> str:
        """Pause the audiobook after some minutes (a sleep timer).

        Args:
            minutes: minutes from now, up to 600; 0 cancels the timer.
        """
        minutes = float(minutes)
        if not 0 <= minutes <= 600:
            raise BadInputError(say(self.language, "bad_sleep"))
        if self._sleep_task is not None:
            self._sleep_task.cancel()
            self._sleep_task = None
        self.sleep_deadline = None
        if minutes == 0:
            return say(self.language, "sleep_off")
        self.sleep_deadline = time.monotonic() + minutes * 60
        self._sleep_task = self._track(self._sleep_after(minutes * 60), "sleep timer")
        shown = int(minutes) if minutes == int(minutes) else minutes
        return say(self.language, "sleep_set", minutes=shown)

    async def _sleep_after(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        self.sleep_deadline = None
        self._sleep_task = None
        _LOGGER.info("sleep timer: pausing")
        if self.now is not None and self.state == PlayerState.PLAYING:
            await self.pause()
