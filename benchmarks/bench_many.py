"""Many processes on one study: throughput, and what kills leave behind.

Run from the repository root (PostgreSQL rows need Debian's postgresql-15 server binaries
and the psycopg driver, ``pip install -e '.[postgres]'``; without them they are skipped)::

    python benchmarks/bench_many.py                 # both parts, about 15 minutes
    python benchmarks/bench_many.py --part matrix --matrix-trials 12
    python benchmarks/bench_many.py --part faults --matrix-trials 20   # as root: full disks

1. Throughput: one, two and three independent ``tune`` processes (as machines would run
   them; here they share the machine's cores) with ``--n-jobs 1`` on one fresh study of
   ``--spec`` (default the shipped singh spec: M = 100, pre-filter 1 250, about 2 s a
   trial; it reads ``../shared/data``), SQLite and PostgreSQL: wall time, counted trials
   per minute, trials pruned unrun (two processes that raced for the last slots),
   repeated parameter sets.
2. The kill/resume matrix: per storage (SQLite, journal file, PostgreSQL) and kill kind
   (Ctrl-C; kill -9 of a ``tune``; kill -9 of a ``--workers 2`` parent; kill -9 of one of
   two ``tune`` processes, the other running on), a study of ``--matrix-trials`` trials
   killed after three counted trials, then the same command run again: counted trials,
   trials failed as stale or interrupted, pruned unrun, repeated parameter sets, lost
   trials (n_trials − counted) and running trials left.

3. Faults (``--part faults``): per fault of the environment — the artifact store or the
   SQLite file on a full disk (a size-limited tmpfs, needs root), a PostgreSQL restart
   under two ``tune`` processes, PostgreSQL down longer than ``--storage-wait``, SIGTERM
   or SIGHUP to a ``tune`` or a ``--workers 2`` parent — what the user sees (exit code,
   ``error:`` lines, tracebacks), then, after the fault is mended, the same command run
   again: counted trials, trials failed without counting, repeated parameter sets, lost
   trials and running trials left.

Every ``tune`` is the command a user types (``python -m paretostab tune …``); the matrix
tunes the quickstart spec's study (breast cancer, M = 30, HybridRFE k = 5).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import optuna  # noqa: E402
from optuna.trial import TrialState  # noqa: E402

from paretostab._errors import InvalidInputError  # noqa: E402
from paretostab._storage import open_storage  # noqa: E402
from paretostab._tuning.coordination import counted_trials, counts  # noqa: E402
from paretostab.spec import builtin_spec_path, load_spec  # noqa: E402
from tests import servers  # noqa: E402

QUICKSTART = builtin_spec_path("quickstart")


def tune(url: str, n_trials: int, *extra: str, cwd: Path,
         spec: Path = QUICKSTART) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "paretostab", "tune", str(spec),
                             "--storage", url, "--n-trials", str(n_trials), *extra],
                            cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)


def finish(processes: list[subprocess.Popen], allowed=(0,)) -> None:
    for process in processes:
        _, err = process.communicate()
        if process.returncode not in allowed:
            raise RuntimeError(f"tune exited with {process.returncode}: {err[-2000:]}")


def outcome(url: str, n_trials: int, name: str = "quickstart") -> dict:
    study = optuna.load_study(study_name=name, storage=open_storage(url))
    everything = study.trials
    run = [t for t in everything if t.state != TrialState.PRUNED]
    params = [tuple(sorted(t.params.items())) for t in run if t.params]
    reasons = [t.user_attrs.get("fail_reason", "") for t in everything
               if t.state == TrialState.FAIL]
    counted = counted_trials(study)
    return {"counted": counted,
            "stale": sum(r.startswith("went stale") for r in reasons),
            "interrupted": sum(r.startswith("interrupted") for r in reasons),
            "pruned unrun": sum(t.state == TrialState.PRUNED for t in everything),
            "repeated": len(params) - len(set(params)),
            "lost": n_trials - counted,
            "running left": sum(t.state == TrialState.RUNNING for t in everything)}


def wait_counted(url: str, at_least: int) -> None:
    """Until the study has ``at_least`` counted trials (polls never create the storage)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if counted_trials(optuna.load_study(study_name="quickstart", storage=open_storage(
                    url, must_exist=True))) >= at_least:
                return
        except (InvalidInputError, KeyError):  # the storage or the study is not made yet
            pass
        time.sleep(0.3)
    raise RuntimeError("the study did not reach its first trials in 300 s")


def storages(folder: Path, postgres: str | None):
    """(name, a function giving a fresh storage URL)."""
    counter = iter(range(10**6))

    def sqlite():
        return f"sqlite:///{folder / f's{next(counter)}.db'}"

    def journal():
        return f"journal:{folder / f'j{next(counter)}.log'}"

    def postgresql():
        import psycopg

        name = f"bench{next(counter)}"
        with psycopg.connect(postgres, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return postgres.rsplit("/", 1)[0] + f"/{name}"

    found = [("SQLite", sqlite), ("journal", journal)]
    if postgres:
        found.append(("PostgreSQL", postgresql))
    return found


def throughput(kinds, spec: Path, n_trials: int, folder: Path) -> None:
    study_name = load_spec(spec).name
    print(f"\n### Throughput: {n_trials} trials of {spec.name}\n")
    print("| storage | processes | wall s | counted trials / min | counted | pruned unrun "
          "| repeated |")
    print("|---|---|---|---|---|---|---|")
    for name, fresh in kinds:
        if name == "journal":
            continue
        for count in (1, 2, 3):
            url = fresh()
            start = time.perf_counter()
            finish([tune(url, n_trials, "--n-jobs", "1", cwd=folder, spec=spec)
                    for _ in range(count)])
            seconds = time.perf_counter() - start
            result = outcome(url, n_trials, study_name)
            print(f"| {name} | {count} | {seconds:.1f} | {result['counted'] / seconds * 60:.1f} "
                  f"| {result['counted']} | {result['pruned unrun']} | {result['repeated']} |")


def matrix(kinds, n_trials: int, folder: Path) -> None:
    print(f"\n### Kill, then run the same command again: {n_trials} trials\n")
    columns = ["counted", "stale", "interrupted", "pruned unrun", "repeated", "lost",
               "running left"]
    print("| storage | kill | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for name, fresh in kinds:
        for kill in ("Ctrl-C", "kill -9", "kill -9 of the --workers 2 parent",
                     "kill -9 of one of two tune processes"):
            url = fresh()
            extra = ("--workers", "2") if "workers" in kill else ()
            first = tune(url, n_trials, *extra, cwd=folder)
            others = [tune(url, n_trials, cwd=folder)] if "one of two" in kill else []
            wait_counted(url, 3)
            first.send_signal(signal.SIGINT if kill == "Ctrl-C" else signal.SIGKILL)
            finish([first, *others], allowed=(0, 130, -9))
            finish([tune(url, n_trials, cwd=folder)])
            result = outcome(url, n_trials)
            print(f"| {name} | {kill} | " + " | ".join(str(result[c]) for c in columns) + " |")


def seen(process: subprocess.Popen) -> str:
    """What the user saw of a ``tune``: its exit code, its ``error:`` line, a traceback."""
    _, err = process.communicate(timeout=900)
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    waits = sum("unreachable (" in line for line in err.splitlines())
    return (f"exit {process.returncode}" + (f", {len(errors)} error: line" if errors else "")
            + (f", {waits} wait line(s)" if waits else "")
            + (", TRACEBACK" if "Traceback" in err else ""))


@contextlib.contextmanager
def full_disk(folder: Path, size_kib: int, free_kib: int):
    """A tmpfs of ``size_kib`` filled to ``free_kib`` free; yields (folder, make room)."""
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(folder)],
                   check=True, capture_output=True)
    stats = os.statvfs(folder)
    fill = folder / "fill"
    fill.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize - free_kib * 1024))
    try:
        yield folder, fill.unlink
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def faults(kinds, n_trials: int, folder: Path, postgres_folder: Path | None) -> None:
    print(f"\n### Faults, then the same command run again: {n_trials} trials\n")
    columns = ["counted", "failed, not counted", "repeated", "lost", "running left"]
    print("| fault | storage | what the user sees | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    fresh = dict(kinds)
    counter = iter(range(10**6))

    def row(fault: str, storage: str, url: str, saw: str) -> None:
        finish([tune(url, n_trials, cwd=folder)])
        result = outcome(url, n_trials)
        result["failed, not counted"] = result["stale"] + result["interrupted"] + sum(
            t.state == TrialState.FAIL and not counts(t)
            and not t.user_attrs.get("fail_reason", "").startswith(("went stale", "interr"))
            for t in optuna.load_study(study_name="quickstart", storage=url).trials)
        print(f"| {fault} | {storage} | {saw} | "
              + " | ".join(str(result[c]) for c in columns) + " |", flush=True)

    if os.geteuid() == 0 and shutil.which("mount"):
        with full_disk(folder / f"disk{next(counter)}", 3072, 400) as (disk, make_room):
            url = fresh["SQLite"]()
            saw = seen(tune(url, n_trials, "--artifacts", str(disk / "art"), cwd=folder))
            make_room()
            row("artifact store on a full disk", "SQLite", url, saw)
        # 8 MiB: room, once the fill is gone, for the write-ahead log (up to about 4 MiB)
        with full_disk(folder / f"disk{next(counter)}", 8192, 140) as (disk, make_room):
            url = f"sqlite:///{disk / 's.db'}"
            saw = seen(tune(url, n_trials, "--artifacts", str(folder / "art"), cwd=folder))
            make_room()
            row("SQLite file on a full disk", "SQLite", url, saw)
    else:
        print("(full-disk rows skipped: they need root and mount(8))")
    for signum, workers in ((signal.SIGTERM, 1), (signal.SIGTERM, 2), (signal.SIGHUP, 1),
                            (signal.SIGHUP, 2)):
        url = fresh["SQLite"]()
        first = tune(url, n_trials, "--workers", str(workers), cwd=folder)
        wait_counted(url, 3)
        first.send_signal(signum)
        name = signal.Signals(signum).name
        row(f"{name} to tune" + (" --workers 2 (the parent)" if workers > 1 else ""),
            "SQLite", url, seen(first))
    if postgres_folder is None:
        print("(PostgreSQL rows skipped)")
        return
    url = fresh["PostgreSQL"]()
    processes = [tune(url, n_trials, cwd=folder), tune(url, n_trials, "--workers", "2",
                                                      cwd=folder)]
    wait_counted(url, 3)
    servers.restart_postgres(postgres_folder, down_seconds=8)
    saw = " / ".join(seen(p) for p in processes)
    row("server restarted (down 8 s) under two tune, one --workers 2", "PostgreSQL", url, saw)
    url = fresh["PostgreSQL"]()
    first = tune(url, n_trials, "--storage-wait", "5", cwd=folder)
    wait_counted(url, 3)
    servers.pause_postgres(postgres_folder)
    saw = seen(first)
    servers.resume_postgres(postgres_folder)
    row("server down longer than --storage-wait 5", "PostgreSQL", url, saw)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("throughput", "matrix", "faults", "both"),
                        default="both")
    parser.add_argument("--spec", type=Path, default=builtin_spec_path("singh_hybrid_rfe"))
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--matrix-trials", type=int, default=12)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        folder = Path(folder)
        os.chmod(folder, 0o755)
        postgres = None
        if servers.postgres_available():
            postgres = servers.start_postgres(folder / "postgres")
        else:
            print(f"PostgreSQL rows skipped: {servers.POSTGRES_MISSING}")
        try:
            kinds = storages(folder, postgres)
            if args.part in ("throughput", "both"):
                throughput(kinds, args.spec.resolve(), args.trials, folder)
            if args.part in ("matrix", "both"):
                matrix(kinds, args.matrix_trials, folder)
            if args.part == "faults":
                faults(kinds, args.matrix_trials, folder,
                       folder / "postgres" if postgres else None)
        finally:
            if postgres:
                servers.stop_postgres(folder / "postgres")


if __name__ == "__main__":
    main()
