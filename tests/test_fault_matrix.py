"""The fault matrix of ``benchmarks/`` (``fault_matrix.py``: the bad inputs of
``fault_inputs.py`` and the scenarios of ``fault_scenarios.py``): each half names its cases
once, has the count the docs quote, and plays one cheap case for real, so that its table
cannot silently rot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import fault_scenarios
from tests.benchmark_modules import benchmark_module

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fault_inputs():
    with benchmark_module("fault_inputs") as module:
        yield module


def test_fault_inputs_cases_are_named_once_and_as_many_as_the_docs_say(fault_inputs):
    names = [case.name for case in fault_inputs.CASES]
    assert len(set(names)) == len(names) == 132
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = page.partition("## The fault matrix: bad inputs")[2]
    assert f"of {len(names)} bad inputs were clean" in section
    assert section.count("\n| `") >= len(names)  # a row per case


@pytest.mark.slow
def test_fault_inputs_a_case_runs_and_gives_a_clean_row(fault_inputs, tmp_path):
    lines = []
    rows = fault_inputs.run(tmp_path, only="tune-timeout-nan", log=lines.append)
    assert [row["name"] for row in rows] == ["tune-timeout-nan"] and len(lines) == 1
    row = rows[0]
    assert row["ok"] is True and row["why"] == "" and row["exit"] == 2 and row["errors"] == 1
    assert row["line"].startswith("error: timeout must be a finite number > 0")
    assert row["created"] == []


@pytest.mark.slow
def test_fault_inputs_an_accepted_input_and_a_password_are_not_clean(fault_inputs, tmp_path):
    shown = fault_inputs.case("shown", f"studies {fault_inputs.PASSWORD}", "a secret echoed")
    row = fault_inputs.check(shown, tmp_path / "shown" / "here", tmp_path)
    assert row["ok"] is False and row["why"] == "a password shown"  # else clean: exit 2
    assert fault_inputs.PASSWORD not in repr(row)  # never printed into a row
    listed = fault_inputs.case("listed", "studies", "valid")
    row = fault_inputs.check(listed, tmp_path / "listed" / "here", tmp_path)
    assert row["ok"] is False and row["why"] == "exit 0, expected 2; 0 error: lines"
    table = fault_inputs.table([row])
    assert table.count("\n") == 2 and "**no**" in table
    assert fault_inputs.totals([row, {**row, "ok": True}, {**row, "ok": None}]) == (
        "1 of 2 bad inputs were clean (1 skipped)")


def test_fault_scenarios_are_named_once_and_as_many_as_the_docs_quote():
    names = [case.name for case in fault_scenarios.CASES]
    assert len(names) == len(set(names)) == 35
    docs = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = docs[docs.index("## The fault matrix: scenarios"):]
    quoted = re.search(r"(\d+) of (\d+) scenarios held, (\d+) skipped", section)
    assert quoted is not None and int(quoted[2]) == len(names)
    assert section.count("\n| ") - 1 == len(names)  # a row per scenario under the header


@pytest.mark.slow
def test_fault_scenarios_play_a_cheap_one_for_real(tmp_path):
    said = []
    (row,) = fault_scenarios.run(tmp_path, only="dollar-names", log=said.append)
    assert row["ok"] is True, row
    assert row["counted"] == 4 and row["lost"] == row["running"] == 0
    assert said == [f"dollar-names: held ({row['seconds']} s)"]
    table = fault_scenarios.table([row])
    assert table.splitlines()[2].startswith("| dollar-names | feature names with `$` |")
    assert fault_scenarios.totals([row]) == "1 of 1 scenarios held, 0 skipped"


@pytest.mark.slow
def test_fault_matrix_runs_the_halves_asked_for_in_one_command(tmp_path, capsys):
    """``python benchmarks/fault_matrix.py``: a section per half with its totals line and
    table, then the totals of all; ``--out`` writes what it prints."""
    with benchmark_module("fault_matrix") as fault_matrix:
        out = tmp_path / "matrix.md"
        assert fault_matrix.main(["--part", "inputs", "--only", "tune-timeout-nan",
                                  "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("## inputs (") and "| `tune` | --timeout nan | yes | 2 | 1 |" in text
    assert text.endswith("\n1 of 1 bad inputs were clean\n")
    assert text in capsys.readouterr().out
