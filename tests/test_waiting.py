"""``wait_until`` (tests/waiting.py) with the process expected to bring the condition
about: a process that ends first fails the wait at once, with its exit code and error."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.waiting import wait_until


def test_a_wait_on_a_process_that_ended_fails_at_once_with_its_error():
    """The failure names the process's end, not the bound (60 s here, for a mutant that
    waits it out)."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stderr.write('no trial left'); sys.exit(3)"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with pytest.raises(AssertionError, match=r"(?s)waited for both workers running "
                       r"trials, in vain: the process ended first \(exit code 3\).*"
                       r"no trial left"):
        wait_until(lambda: False, what="both workers running trials", timeout=60,
                   process=process)


def test_a_condition_the_process_met_just_before_it_ended_is_met():
    """The condition is asked again once the process has ended: what it did last counts."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    asked = []

    def condition():  # false when first asked, true from then on
        asked.append(None)
        return len(asked) > 1

    wait_until(condition, what="the last trial", timeout=60, process=process)
