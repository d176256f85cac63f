"""What the commands write for people and programs that are not at a terminal: plain
progress lines on a piped stderr (none with ``--quiet``), strict JSON, ASCII CSV headers,
and one ``error:`` line with exit code 2 for every error."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from paretostab._cli import main
from paretostab._progress import SECONDS_VARIABLE, ProgressLines, duration
from tests.once import made_once
from tests.waiting import wait_until

SPEC = """\
[study]
name = "{name}"
trials = 6
seed = {seed}
sampler = "random"

[data]
source = "simulated:n_other=30,n_per_class=20"

[protocol]
runs = 4
replicates = 3

[selector]
name = "hybrid_rfe"
fixed = {{ n_features = 4 }}
search = {{ n_stable = [0, 4], reg = {{ low = 0.01, high = 100.0, log = true }} }}

[objective]
stability = "iw"
record = ["nogueira"]
"""
TIME = r"\d+ s"
TUNE_LINE = re.compile(rf"study a: [1-6]/6 trials, front \d+, flagged \d+, area \d\.\d{{3}}, {TIME} elapsed"
                       rf"(, about {TIME} left)?")
TUNE_END = re.compile(rf"study a: 6/6 trials, front \d+, flagged \d+, area \d\.\d{{3}}, done in {TIME}")


def run(*args, cwd, quiet=False) -> subprocess.CompletedProcess:
    """``python -m paretostab ARGS`` with stderr piped (not a terminal) and a line at
    every step (``PARETOSTAB_PROGRESS_SECONDS=0``)."""
    env = {**os.environ, SECONDS_VARIABLE: "0"}
    return subprocess.run([sys.executable, "-m", "paretostab", *args,
                           *(["--quiet"] if quiet else [])],
                          cwd=cwd, env=env, capture_output=True, text=True, check=True)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Two tiny studies in one storage, ``a`` tuned, reported and compared with ``b`` with
    progress lines, ``b`` tuned, reported (without replicates) and compared ``--quiet``:
    the folder and each command's stderr."""
    def run_commands(folder: Path) -> None:
        storage = ("--storage", "sqlite:///s.db")
        stderr = {}
        for seed, name in enumerate("ab"):
            (folder / f"{name}.toml").write_text(SPEC.format(name=name, seed=seed),
                                                 encoding="utf-8")
            stderr[f"tune {name}"] = run("tune", f"{name}.toml", *storage, cwd=folder,
                                         quiet=name == "b").stderr
        for key, args, quiet in [
                ("report a", ("report", "--study-name", "a", "--out", "report-a"), False),
                ("compare", ("compare", "a", "b", "--out", "comparison"), False),
                ("report b", ("report", "--study-name", "b", "--out", "report-b",
                              "--replicates", "0"), True),
                ("quiet compare", ("compare", "a", "b", "--out", "quiet-comparison"), True)]:
            stderr[key] = run(*args, *storage, cwd=folder, quiet=quiet).stderr
        (folder / "stderr.json").write_text(json.dumps(stderr), encoding="utf-8")

    folder = made_once(tmp_path_factory, "cli-output", run_commands)
    return folder, json.loads((folder / "stderr.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_tune_prints_plain_progress_lines_on_a_pipe(outputs):
    _, stderr = outputs
    lines = stderr["tune a"].splitlines()
    assert len(lines) >= 2 and all(TUNE_LINE.fullmatch(line) for line in lines[:-1]), lines
    assert TUNE_END.fullmatch(lines[-1]), lines[-1]
    assert "5/6 trials" in lines[-2]  # a line each step here (0 s between lines)
    assert "6/6 trials" in lines[-1]  # the last step's: the final line
    assert stderr["tune b"] == ""  # --quiet


@pytest.mark.slow
def test_report_and_compare_print_progress_lines_unless_quiet(outputs):
    _, stderr = outputs
    report = stderr["report a"].splitlines()
    assert report, "no progress line"
    assert all(re.fullmatch(rf"replicates \(B = 3\): \d+/(\d+) runs, ({TIME} elapsed"
                            rf"(, about {TIME} left)?|done in {TIME})", line)
               for line in report), report
    total = re.search(r"/(\d+) runs", report[-1])[1]
    assert int(total) % (3 * 4) == 0  # B = 3 protocols of M = 4 runs per front trial
    assert report[-1].startswith(f"replicates (B = 3): {total}/{total} runs, done in ")
    compare = stderr["compare"].splitlines()
    # a's front replicated by its report, cached: nothing to run, no line
    assert {line.split(":")[0] for line in compare} == {"replicates of b (B = 3)"}
    assert sum("done in" in line for line in compare) == 1
    assert stderr["report b"] == stderr["quiet compare"] == ""  # --quiet


def strict_json(text: str) -> object:
    def refuse(constant: str):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.slow
def test_json_is_strict_and_csv_headers_ascii(outputs):
    """Every JSON file report and compare write parses without NaN or Infinity (with
    replicates, and without them: NaN intervals), and every CSV header is ASCII: k̄ is
    ``kbar``, the measures their registry names; the page keeps the symbols."""
    folder, _ = outputs
    written = [folder / name for name in ("report-a", "report-b", "comparison")]
    files = [f for out in written for f in out.iterdir() if f.suffix in (".json", ".csv")]
    assert {f.name for f in files} == {"front.csv", "summary.json", "stable_set.csv",
                                       "comparison.csv", "comparison.json"}
    for path in files:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            strict_json(text)
        else:
            assert text.splitlines()[0].isascii(), (path, text.splitlines()[0])
    front = pd.read_csv(folder / "report-a" / "front.csv")
    assert {"trial", "accuracy", "iw", "nogueira", "kbar", "n_stable", "reg"} <= set(front)
    summary = strict_json((folder / "report-a" / "summary.json").read_text(encoding="utf-8"))
    assert summary["gamma_table"][-1]["gamma to"] == 1.0
    assert summary["gamma_table"][-1]["willingness to"] is None  # unbounded: null
    bare = strict_json((folder / "report-b" / "summary.json").read_text(encoding="utf-8"))
    assert bare["chosen_trade_off"]["values"][0]["replicate mean"] is None  # NaN: null
    page = (folder / "report-a" / "index.html").read_text(encoding="utf-8")
    assert "<th>k̄</th>" in page and "φ_iw" in page and "null in summary.json" in page


def test_dashboard_without_its_extra_is_an_error_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "optuna_dashboard", None)  # import fails
    with pytest.raises(SystemExit) as stop:
        main(["dashboard"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err == ("error: the dashboard needs optuna-dashboard: "
                   "pip install 'paretostab[dashboard]'.\n")


def test_progress_lines_every_ten_steps_then_a_final_line(capsys):
    with ProgressLines(25, "replicates", unit="trials", seconds=3600) as lines:
        for _ in range(25):
            lines.update()
    out = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in out] == ["replicates: 10/25 trials",
                                                     "replicates: 20/25 trials",
                                                     "replicates: 25/25 trials"]
    assert re.fullmatch(rf"replicates: 10/25 trials, {TIME} elapsed, about {TIME} left",
                        out[0])
    assert re.fullmatch(rf"replicates: 25/25 trials, done in {TIME}", out[-1])


def test_progress_lines_show_the_time_going_during_a_long_step(capsys):
    lines = ProgressLines(3, "study x", unit="trials", seconds=0.02)
    lines.set_postfix(front=2, area="0.500")
    try:  # the background thread writes without any update
        wait_until(lambda: "elapsed" in capsys.readouterr().err, poll=0.01,
                   what="a progress line while a step ran")
    finally:
        lines.close(stopped=True)
    assert re.fullmatch(rf"study x: 0/3 trials, front 2, area 0\.500, stopped after {TIME}\n",
                        capsys.readouterr().err.splitlines(keepends=True)[-1])


def test_nothing_to_do_writes_nothing(capsys):
    with ProgressLines(0, "selector replicates", seconds=0):
        pass
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("seconds", "text"), [(0.4, "0 s"), (42, "42 s"),
                                               (194, "3 min 14 s"), (7500, "2 h 05 min")])
def test_durations_read_as_a_person_reads_them(seconds, text):
    assert duration(seconds) == text
