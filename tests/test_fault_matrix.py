"""The fault matrix of ``benchmarks/`` (the bad inputs and the scenarios): each half
imports, names its cases once, has the count the docs quote, and plays one cheap case
for real, so that its table cannot silently rot."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks import fault_scenarios

ROOT = Path(__file__).resolve().parents[1]


def test_fault_scenarios_are_named_once_and_as_many_as_the_docs_quote():
    names = [case.name for case in fault_scenarios.CASES]
    assert len(names) == len(set(names)) == 35
    docs = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = docs[docs.index("## The fault matrix: scenarios"):]
    quoted = re.search(r"(\d+) of (\d+) scenarios held, (\d+) skipped", section)
    assert quoted is not None and int(quoted[2]) == len(names)
    assert section.count("\n| ") - 1 == len(names)  # a row per scenario under the header


def test_fault_scenarios_play_a_cheap_one_for_real(tmp_path):
    said = []
    (row,) = fault_scenarios.run(tmp_path, only="dollar-names", log=said.append)
    assert row["ok"] is True, row
    assert row["counted"] == 4 and row["lost"] == row["running"] == 0
    assert said == [f"dollar-names: held ({row['seconds']} s)"]
    table = fault_scenarios.table([row])
    assert table.splitlines()[2].startswith("| dollar-names | feature names with `$` |")
    assert fault_scenarios.totals([row]) == "1 of 1 scenarios held, 0 skipped"
