"""``made_once`` (tests/once.py): a fixture's folder made once for a pytest-xdist run, made
again after a failed attempt; made by each caller outside xdist."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.once import made_once


def factory(tmp_path):
    """A TempPathFactory as a pytest-xdist process has it: its base folder inside the
    run's shared one, ``tmp_path``."""
    return SimpleNamespace(getbasetemp=lambda: tmp_path / "popen-gw0",
                           mktemp=lambda name, numbered: pytest.fail("not under xdist"))


def test_under_xdist_a_folder_is_made_once_and_again_after_a_failed_attempt(
        tmp_path, monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    made = []

    def failing(folder):
        (folder / "half").touch()
        raise RuntimeError("the build failed")

    def working(folder):
        made.append(folder)
        (folder / "whole").touch()

    with pytest.raises(RuntimeError, match="the build failed"):
        made_once(factory(tmp_path), "site", failing)
    folder = made_once(factory(tmp_path), "site", working)
    assert folder == tmp_path / "site" and made == [folder]
    assert sorted(p.name for p in folder.iterdir()) == ["whole"]  # the failed half gone
    assert made_once(factory(tmp_path), "site", working) == folder and made == [folder]


def test_without_xdist_each_caller_makes_its_own_folder(tmp_path_factory, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    made = []
    first = made_once(tmp_path_factory, "site", made.append)
    second = made_once(tmp_path_factory, "site", made.append)
    assert made == [first, second] and first != second
