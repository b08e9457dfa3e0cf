"""Answer audio kept by text and voice: at once the second time, also after a restart."""

from __future__ import annotations

from device_fakes import FakeSynthesiser

from device.tts import CachedSynthesiser


def test_recurring_answer_comes_from_the_cache(tmp_path) -> None:
    inner = FakeSynthesiser(0.1)
    cache = CachedSynthesiser(inner, voice_id="joe|1.0", directory=tmp_path)
    first = list(cache.sentences("好的。正在播放。"))
    assert len(first) == 2 and inner.texts == ["好的。正在播放。"]
    again = list(cache.sentences("好的。正在播放。"))
    assert inner.texts == ["好的。正在播放。"]  # not synthesised again
    assert len(again) == 1 and again[0].pcm == b"".join(s.pcm for s in first)
    assert cache.hits == 1
    # A restart: a new cache over the same directory, the same voice.
    restarted = CachedSynthesiser(FakeSynthesiser(0.1), voice_id="joe|1.0", directory=tmp_path)
    assert restarted.cached("好的。正在播放。") == again[0]
    # Another voice (or speed) never reuses it.
    other = FakeSynthesiser(0.1)
    slower = CachedSynthesiser(other, voice_id="joe|1.2", directory=tmp_path)
    list(slower.sentences("好的。正在播放。"))
    assert other.texts == ["好的。正在播放。"]


def test_long_answers_stream_and_are_not_kept(tmp_path) -> None:
    inner = FakeSynthesiser(0.05)
    cache = CachedSynthesiser(inner, voice_id="v", directory=tmp_path, max_chars=20)
    text = "这是一个很长的回答。" * 5
    assert len(list(cache.sentences(text))) == 5
    assert len(list(cache.sentences(text))) == 5
    assert inner.texts == [text, text]
    assert not list(tmp_path.glob("*.pcm"))


def test_damaged_file_is_synthesised_again_and_limits_hold(tmp_path) -> None:
    inner = FakeSynthesiser(0.05)
    cache = CachedSynthesiser(inner, voice_id="v", directory=tmp_path, max_entries=2, max_files=3)
    assert cache.prepare(["一。", "二。", "三。", "四。"]) == 4
    assert len(list(tmp_path.glob("*.pcm"))) == 3  # the oldest file went
    assert len(cache._memory) == 2
    for path in tmp_path.glob("*.pcm"):
        path.write_bytes(b"\x01")  # torn
    fresh = CachedSynthesiser(FakeSynthesiser(0.05), voice_id="v", directory=tmp_path)
    assert fresh.cached("四。") is None
    assert len(list(fresh.sentences("四。"))) == 1
    assert fresh.cached("四。") is not None


def test_device_llm_follows_the_measured_rate() -> None:
    from device.cli import LARGE_LLM, SMALL_LLM, pick_llm

    small, large = 491_400_032, 1_117_320_736
    assert pick_llm(30.0, small, large)[0] == LARGE_LLM  # ~13 tokens/s for the 1.5B
    choice, estimate = pick_llm(10.4, small, large)  # a slow board: ~4.6 tokens/s
    assert choice == SMALL_LLM and 4.0 < estimate < 5.0
    assert pick_llm(5.0, large, large) == (LARGE_LLM, 5.0)  # measured on the 1.5B itself


def test_a_long_first_sentence_is_spoken_clause_by_clause() -> None:
    from device.tts import first_clause

    assert first_clause("Playing Treasure Island, episode 6.") == [
        "Playing Treasure Island,",
        "episode 6.",
    ]
    assert first_clause("继续播放西游记，第3集，从2分钟开始") == [
        "继续播放西游记，",
        "第3集，从2分钟开始",
    ]
    # Short answers, a short first clause, a clause mark only in a later sentence: whole.
    assert first_clause("OK.") == ["OK."]
    assert first_clause("Yes, ok") == ["Yes, ok"]
    assert first_clause("Sorry. I could not, do it well enough now") == [
        "Sorry. I could not, do it well enough now"
    ]
    assert first_clause("正在播放西游记第1集 猴王出世") == ["正在播放西游记第1集 猴王出世"]


def test_the_transcript_so_far_reads_like_the_final_one() -> None:
    import json

    from device.asr import VoskStream

    class Recognizer:  # KaldiRecognizer's interface: one completed segment, then a partial
        def __init__(self) -> None:
            self.fed = 0

        def AcceptWaveform(self, pcm: bytes) -> bool:
            self.fed += 1
            return self.fed == 1

        def Result(self) -> str:
            return json.dumps({"text": "播放 西游记"})

        def PartialResult(self) -> str:
            return json.dumps({"partial": "第 二 集"})

        def FinalResult(self) -> str:
            return json.dumps({"text": "第 二 集"})

    stream = VoskStream(Recognizer())
    assert stream.accept(b"\0\0") is None  # a completed segment
    first = stream.so_far()
    assert stream.accept(b"\0\0") is not None  # then a partial
    guess = stream.so_far()
    assert guess != first and guess.startswith(first)
    assert guess == stream.final()  # what the turn will hear, numbers written the same way
