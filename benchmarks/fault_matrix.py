"""The fault matrix, in one command: the faults of the environment
(``fault_scenarios.py``) and the bad inputs (``fault_inputs.py``), each run for real as a
user meets them, and their two tables with the totals line the docs quote.

Run from the repository root::

    python benchmarks/fault_matrix.py --out matrix.md          # both halves
    python benchmarks/fault_matrix.py --part inputs            # one half
    python benchmarks/fault_matrix.py --only sigterm --part scenarios

An audit of the package's fault handling ran 35 scenarios and 132 bad inputs by hand (issue
36: "28 of 35 scenarios held and 117 of 132 bad inputs were clean"); this reruns that matrix.
Each half's module says what its cases are and when a case held (a scenario) or was clean
(a bad input); ``docs/benchmarks.md`` quotes the tables of a run. The command exits 0
whatever the cases show: it is a measurement.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import fault_inputs, fault_scenarios  # noqa: E402

__all__ = ["main"]

PARTS = ("scenarios", "inputs")


def main(argv: list[str] | None = None) -> int:
    """The command line: run the halves asked for, print (with ``--out``, also write) a
    section per half with its table and totals, then the totals of both."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=PARTS, action="append",
                        help="run this half only (repeatable; default: both)")
    parser.add_argument("--only", help="the cases whose name holds this text")
    parser.add_argument("--long-outage", type=float, default=45.0, metavar="SECONDS",
                        help="how long the database is down past --storage-wait in the "
                             "scenarios (45; the audit's was 600)")
    parser.add_argument("--trials", type=int, default=12,
                        help="N of each scenario's study (12)")
    parser.add_argument("--out", type=Path, help="write the sections to this file")
    parser.add_argument("--keep", action="store_true", help="keep the work folders")
    args = parser.parse_args(argv)
    sections, totals = [], []
    for part in args.part or PARTS:
        # in /tmp: the postgres user goes through it to the scenarios' cluster
        workdir = Path(tempfile.mkdtemp(prefix=f"paretostab-{part}-", dir="/tmp"))
        start = time.perf_counter()
        log = functools.partial(print, flush=True)  # each case's line as it comes
        try:
            if part == "scenarios":
                rows = fault_scenarios.run(workdir, only=args.only,
                                           long_outage=args.long_outage,
                                           n_trials=args.trials, log=log)
                table, total = fault_scenarios.table(rows), fault_scenarios.totals(rows)
            else:
                rows = fault_inputs.run(workdir, only=args.only, log=log)
                table, total = fault_inputs.table(rows), fault_inputs.totals(rows)
        finally:
            if args.keep:
                print(f"work folder kept: {workdir}")
            else:
                shutil.rmtree(workdir, ignore_errors=True)
        minutes = (time.perf_counter() - start) / 60
        sections.append(f"## {part} ({minutes:.0f} min)\n\n{total}\n\n{table}\n")
        totals.append(total)
    text = "\n".join(sections) + "\n" + "; ".join(totals) + "\n"
    print("\n" + text, end="")
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
