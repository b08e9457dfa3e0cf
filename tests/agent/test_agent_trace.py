"""Trace files: one JSON line per turn, rotation by size, reading back, formatting."""

from __future__ import annotations

import json

from agent import Step, StepKind, TraceWriter, TurnResult, format_turns, read_last


def _turn(i: int) -> TurnResult:
    step = Step(
        1,
        StepKind.ACTION,
        backend="local",
        thought="想",
        action="pause",
        arguments={},
        observation="Paused.",
        ok=True,
        tokens=12,
        ms={"model": 800.0, "tool": 1.0},
    )
    final = Step(
        2, StepKind.FINAL, backend="local", answer=f"好的 {i}", tokens=5, ms={"model": 300.0}
    )
    return TurnResult(
        utterance=f"暂停 {i}",
        answer=f"好的 {i}",
        steps=[step, final],
        backend="local",
        elapsed_ms=1101,
    )


def test_one_line_per_turn_and_rotation(tmp_path) -> None:
    writer = TraceWriter(tmp_path, max_bytes=2000, keep=2)
    for i in range(20):
        writer.write(_turn(i))
    current = (tmp_path / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line)["utterance"].startswith("暂停") for line in current)
    assert (tmp_path / "trace.jsonl").stat().st_size <= 2000
    assert (tmp_path / "trace.jsonl.1").exists() and (tmp_path / "trace.jsonl.2").exists()
    assert not (tmp_path / "trace.jsonl.3").exists()
    last = read_last(tmp_path, 6)
    assert [t["utterance"] for t in last] == [f"暂停 {i}" for i in range(14, 20)]


def test_torn_line_is_skipped(tmp_path) -> None:
    writer = TraceWriter(tmp_path)
    writer.write(_turn(1))
    with open(tmp_path / "trace.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"utterance": "half')
    assert [t["utterance"] for t in read_last(tmp_path / "trace.jsonl", 5)] == ["暂停 1"]


def test_format_is_readable(tmp_path) -> None:
    writer = TraceWriter(tmp_path)
    writer.write(_turn(1))
    text = format_turns(read_last(tmp_path, 1))
    assert "Utterance: 暂停 1" in text
    assert "Thought: 想" in text and "Action: pause {}" in text and "Observation: Paused." in text
    assert "Final Answer: 好的 1" in text and "model 800 ms" in text
    assert "\x1b[" not in text


def test_missing_trace_reads_empty(tmp_path) -> None:
    assert read_last(tmp_path, 3) == []


def test_timing_line_names_every_stage() -> None:
    from agent.turn import Step, StepKind, TurnResult

    turn = TurnResult(utterance="播放西游记", answer="好的")
    step = Step(1, StepKind.ACTION, backend="local", tokens=36, prompt_tokens=1200)
    step.cached_tokens, step.forced_tokens = 1162, 22
    step.ms = {"model": 840.0, "tool": 10.0}
    turn.steps.append(step)
    for stage, at in (("release", 100.0), ("transcript", 100.1), ("answer", 101.15)):
        turn.mark(stage, at)
    turn.mark("first_audio", 101.21)
    turn.mark("release", 150.0)  # the first mark of a stage wins
    assert turn.timing_line() == (
        "turn 1.21 s: asr 0.10, model 0.84 (prefill 38 tok, decode 14 tok, forced 22 tok), "
        "tool 0.01, tts 0.06"
    )
    assert list(turn.to_dict()["stages"]) == ["release", "transcript", "answer", "first_audio"]
