"""Folders a process killed with kill -9 leaves behind (issue 36, point 10): the data a
``tune --workers`` parent writes for its workers, a report's hidden staging folder. Each
is named for its owner (``<pid>@<host>``), and the next process that makes one removes
those of owners that no longer run: killed for real here, then the next run."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from paretostab._faults import owned_folder
from paretostab._tuning.coordination import process_ended
from paretostab.report._write import written_folder
from tests.studies import storage_url
from tests.user_studies import selector_spec
from tests.waiting import current, wait_until

ROOT = Path(__file__).resolve().parents[1]


def environment(temporary: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(temporary), "PYTHONPATH": str(ROOT)}


@pytest.mark.slow
def test_a_data_folder_left_by_a_killed_tune_is_removed_by_the_next(tmp_path):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    spec = selector_spec(tmp_path, "left", "tests.user_studies:Held")
    (tmp_path / "hold").touch()  # each worker stays in its first trial until the kill
    url = storage_url(tmp_path)
    command = [sys.executable, "-m", "paretostab", "tune", str(spec), "--storage", url,
               "--workers", "2"]
    parent = subprocess.Popen(command, cwd=tmp_path, env=environment(temporary),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def processes() -> set[int]:
        study = current(url, "left")
        return set() if study is None else {
            t.user_attrs["process"]["pid"] for t in study.get_trials()
            if "process" in t.user_attrs} | {parent.pid}

    try:
        wait_until(lambda: len(processes()) == 3, what="both workers running trials",
                   process=parent)
    finally:  # the whole job killed at once (an out-of-memory killer, a batch system's kill)
        killed = processes()
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        parent.communicate(timeout=60)
    wait_until(lambda: all(process_ended(pid) for pid in killed),
               what="the killed processes to end")
    left = list(temporary.glob("paretostab-data-*"))
    assert len(left) == 1 and left[0].name.startswith(f"paretostab-data-{parent.pid}@")
    alive = owned_folder("paretostab-data-", temporary)  # this test's own: it runs
    elsewhere = temporary / "paretostab-data-1@another-host-abcdefgh"
    elsewhere.mkdir()
    (tmp_path / "hold").unlink()

    done = subprocess.run([*command, "--n-trials", "2"], cwd=tmp_path, timeout=300,
                          env=environment(temporary), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert set(temporary.glob("paretostab-data-*")) == {alive, elsewhere}


@pytest.mark.slow
def test_a_staging_folder_left_by_a_killed_report_is_removed_by_the_next(tmp_path):
    out = tmp_path / "report"
    writer = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import time
            from pathlib import Path
            from paretostab.report._write import written_folder
            with written_folder(Path({str(out)!r}), "report") as folder:
                (folder / "index.html").write_text("half")
                print("writing", flush=True)
                time.sleep(600)
            """)], stdout=subprocess.PIPE, text=True, env=environment(tmp_path))
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "writing\n"
    finally:
        writer.kill()  # kill -9 while the report is written
        writer.wait(timeout=60)
    left = [p for p in tmp_path.iterdir() if p.name.startswith(".report-")]
    host = socket.gethostname()
    assert len(left) == 1 and left[0].name.startswith(f".report-{writer.pid}@{host}-")
    with written_folder(out, "report") as folder:
        (folder / "index.html").write_text("whole")
    assert [p.name for p in tmp_path.iterdir()] == ["report"]
    assert (out / "index.html").read_text() == "whole"
