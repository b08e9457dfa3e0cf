"""Push-to-talk: gesture logic with explicit timestamps, and the real gpiozero Button."""

from __future__ import annotations

import asyncio

import pytest

from device.button import Gesture, GpioButton, PushToTalk
from device.events import EventType, Inbox


def ptt() -> PushToTalk:
    return PushToTalk(tap_seconds=0.35, bounce_seconds=0.05, max_utterance_seconds=20.0)


def test_hold_then_release_is_talk_then_end() -> None:
    p = ptt()
    assert p.edge(True, 10.0) == Gesture.TALK
    assert p.edge(False, 12.0) == Gesture.END


def test_short_press_is_a_tap() -> None:
    p = ptt()
    assert p.edge(True, 10.0) == Gesture.TALK
    assert p.edge(False, 10.2) == Gesture.TAP


def test_bounce_edges_are_ignored_and_the_level_settles() -> None:
    p = ptt()
    assert p.edge(True, 1.000) == Gesture.TALK
    assert p.edge(False, 1.004) is None  # contact bounce
    assert p.edge(True, 1.008) is None  # already down
    assert p.bounces == 1
    assert p.check_at == pytest.approx(1.05)
    # At check time the button is still held: nothing changes.
    assert p.settle(True, 1.05) is None
    assert p.edge(False, 3.0) == Gesture.END


def test_two_presses_20ms_apart_do_not_lose_the_release() -> None:
    p = ptt()
    assert p.edge(True, 5.0) == Gesture.TALK
    assert p.edge(False, 5.01) is None  # inside the bounce window
    # The re-read after the window finds the button up: a tap, not a stuck button.
    assert p.settle(False, p.check_at) == Gesture.TAP
    assert p.edge(True, 5.02) is None  # second press 20 ms after the first: bounce
    assert p.settle(False, 5.07) is None


def test_sixty_second_hold_ends_at_max_utterance() -> None:
    p = ptt()
    assert p.edge(True, 100.0) == Gesture.TALK
    assert p.deadline == pytest.approx(120.0)
    assert p.expire(119.9) is None
    assert p.expire(120.0) == Gesture.TIMEOUT
    assert p.expire(130.0) is None  # only once per hold
    assert p.edge(False, 160.0) is None  # the late release is not a second end
    assert p.edge(True, 161.0) == Gesture.TALK


@pytest.fixture
def mock_factory():
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory()
    yield factory
    factory.reset()
    Device.pin_factory = None


async def drain(inbox: Inbox, n: int) -> list:
    return [await asyncio.wait_for(inbox.get(), 1.0) for _ in range(n)]


async def test_gpiozero_button_posts_edges_from_its_callbacks(mock_factory) -> None:
    inbox = Inbox()
    button = GpioButton(inbox, 17, pull_up=True, bounce_time=0.05, pin_factory=mock_factory)
    pin = mock_factory.pin(17)
    try:
        assert not button.is_pressed()
        pin.drive_low()  # pull-up: pressed pulls the pin low
        assert button.is_pressed()
        pin.drive_high()
        events = await drain(inbox, 2)
        assert [e.type for e in events] == [EventType.BUTTON_DOWN, EventType.BUTTON_UP]
        assert events[0].time <= events[1].time
        assert events[0].source == "gpio"
    finally:
        button.close()


async def test_gpiozero_bounce_tap_hold_and_bargein_through_the_logic(mock_factory) -> None:
    """Real Button callbacks feed PushToTalk; the App does exactly this."""
    inbox = Inbox()
    button = GpioButton(inbox, 27, pull_up=True, pin_factory=mock_factory)
    pin = mock_factory.pin(27)
    p = PushToTalk(tap_seconds=0.35, bounce_seconds=0.05, max_utterance_seconds=1.0)
    try:
        for _ in range(3):  # a bouncing press: low/high/low/high/low
            pin.drive_low()
            pin.drive_high()
        pin.drive_low()
        events = await drain(inbox, 7)
        gestures = [p.edge(e.type == EventType.BUTTON_DOWN, e.time) for e in events]
        assert gestures[0] == Gesture.TALK
        assert [g for g in gestures if g is not None] == [Gesture.TALK]
        assert p.bounces >= 1
        # Still held after the bounce window: the level check keeps it down.
        assert p.settle(button.is_pressed(), events[-1].time + 0.06) is None
        # Held past the maximum utterance, then let go.
        assert p.expire(p.pressed_at + 1.0) == Gesture.TIMEOUT
        pin.drive_high()
        (up,) = await drain(inbox, 1)
        assert p.edge(False, max(up.time, p.pressed_at + 1.1)) is None
        # Barge-in is a fresh press, whatever the App is doing.
        pin.drive_low()
        (down,) = await drain(inbox, 1)
        assert p.edge(True, down.time + 2.0) == Gesture.TALK
    finally:
        button.close()


async def test_unknown_pin_factory_is_a_button_error() -> None:
    from device.button import ButtonError

    with pytest.raises(ButtonError):
        GpioButton(Inbox(), 17, pin_factory="no-such-factory")
