"""A clock for tests of waiting code: it stands still until slept on."""

from __future__ import annotations


class FakeClock:
    """Now is ``now``; :meth:`sleep` records the wait and moves it on. Pass the clock as a
    ``clock=`` function, or put it in place of a module's ``time`` (``monotonic``,
    ``sleep``)."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    monotonic = __call__

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.slept.append(seconds)
        self.now += seconds
