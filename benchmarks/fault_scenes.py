"""The scenes of the fault matrix's scenarios (``benchmarks/fault_scenarios.py``): the
commands a scenario starts as a user types them, what the user saw of them, the waits for
conditions, and the study's counts afterwards, as the package counts them
(:func:`paretostab._tuning.coordination.counted_trials` and ``counts``)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import optuna  # noqa: E402
from optuna.artifacts import get_all_artifact_meta  # noqa: E402
from optuna.trial import TrialState  # noqa: E402

from paretostab._storage import artifact_store, open_storage  # noqa: E402
from paretostab._tuning.coordination import counted_trials, counts  # noqa: E402
from paretostab.spec import builtin_spec_path  # noqa: E402
from tests import servers  # noqa: E402
from tests.waiting import current  # noqa: E402

__all__ = ["QUICKSTART", "Broken", "Case", "Process", "Said", "Scene", "environment",
           "missing", "played", "wait_for"]

QUICKSTART = builtin_spec_path("quickstart")


class Broken(Exception):
    """A scenario that could not reach its fault (a command ended early, a wait ran out)."""


# --------------------------------------------------------------------------- processes


@dataclass
class Said:
    """What a user saw of a finished command."""

    code: int
    out: str
    err: str

    def count(self, words: str, *, start: bool = False) -> int:
        return sum(line.startswith(words) if start else words in line
                   for line in self.err.splitlines())

    def words(self) -> str:
        parts = [f"exit {self.code}"]
        for what, n in (("`error:`", self.count("error:", start=True)),
                        ("Interrupted", self.count("Interrupted (")),
                        ("wait", self.count("unreachable (") + self.count("reachable again"))):
            if n:
                parts.append(f"{n} {what} line" + "s" * (n > 1))
        parts += [bad for bad in ("Traceback", "Exception ignored") if bad in self.err]
        return ", ".join(parts)

    def problems(self, code: int, *, errors: int = 0, interrupted: int = 0,
                 who: str = "") -> list[str]:
        """How this differs from what the docs promise (exit code, lines, no traceback)."""
        found = []
        if self.code != code:
            found.append(f"{who}exit {self.code}, expected {code}")
        for words, n, start in (("error:", errors, True), ("Interrupted (", interrupted, False)):
            if self.count(words, start=start) != n:
                found.append(f"{who}{self.count(words, start=start)} {words.rstrip(' (')} "
                             f"lines, expected {n}")
        found += [f"{who}{bad} in stderr" for bad in ("Traceback", "Exception ignored", "leaked")
                  if bad in self.err]
        return found


class Process:
    """A command started as a user types it; its output read as it comes."""

    def __init__(self, command: list[str], *, cwd: Path, env: dict[str, str],
                 preexec_fn: Callable[[], object] | None = None) -> None:
        self.popen = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, preexec_fn=preexec_fn)
        self.out: list[str] = []
        self.err: list[str] = []
        self.readers = [threading.Thread(target=lines.extend, args=(stream,), daemon=True)
                        for lines, stream in ((self.out, self.popen.stdout),
                                              (self.err, self.popen.stderr))]
        for reader in self.readers:
            reader.start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def ended(self) -> bool:
        return self.popen.poll() is not None

    def signal(self, signum: int) -> None:
        self.popen.send_signal(signum)

    def wait(self, timeout: float = 900) -> Said:
        try:
            code = self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
            raise Broken(f"a command still ran after {timeout:g} s") from None
        for reader in self.readers:
            reader.join(30)
        return Said(code, "".join(self.out), "".join(self.err))


def wait_for(condition: Callable[[], object], what: str, *, seconds: float = 300,
             unless: tuple[Process, ...] = (), every: float = 0.2) -> None:
    """Until ``condition()``, asked ``every`` seconds; :class:`Broken` after ``seconds``
    or once a process of ``unless`` ended (the fault would land after the command)."""
    deadline = time.monotonic() + seconds
    while not condition():
        for process in unless:
            if process.ended():
                said = process.wait()
                raise Broken(f"ended before {what}: {said.words()}")
        if time.monotonic() > deadline:
            raise Broken(f"no {what} in {seconds:g} s")
        time.sleep(every)


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """This process's environment with ``values`` (boto3 reads its credentials there)."""
    before = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


# --------------------------------------------------------------------------- one scenario


@dataclass
class Scene:
    """One scenario's folder, settings, processes and the secrets no output may hold."""

    folder: Path
    n_trials: int
    long_outage: float
    postgres: Callable[[], tuple[Path, str]]
    env: dict[str, str] = field(default_factory=dict)
    secrets: set[str] = field(default_factory=set)
    processes: list[Process] = field(default_factory=list)
    cleanups: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    @property
    def art(self) -> Path:
        return self.folder / "art"

    def start(self, command: list[str], *, env: dict[str, str] | None = None,
              preexec_fn: Callable[[], object] | None = None) -> Process:
        """``command`` started as a terminal's shell starts it (SIGINT and SIGHUP heeded,
        even when this script runs as a background job, which ignores SIGINT), or as
        ``preexec_fn`` then makes it."""
        (self.folder / "tmp").mkdir(exist_ok=True)
        process = Process(command, cwd=self.folder, preexec_fn=_foreground(preexec_fn), env={
            **os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(self.folder)]),
            "TMPDIR": str(self.folder / "tmp"), **self.env, **(env or {})})
        self.processes.append(process)
        return process

    def paretostab(self, *args: object, launcher: tuple[str, ...] = (),
                   **options) -> Process:
        return self.start([*launcher, sys.executable, "-m", "paretostab", *map(str, args)],
                          **options)

    def tune(self, url: str, *extra: object, spec: Path | str = QUICKSTART,
             n: int | None = -1, art: Path | str | None = None, **options) -> Process:
        """``tune`` of the quickstart study (``--n-trials`` the scene's; ``n=None``: the
        spec's), its artifacts in the scene's ``art``."""
        trials = () if n is None else ("--n-trials", self.n_trials if n == -1 else n)
        return self.paretostab("tune", spec, "--storage", url, "--artifacts",
                               art or self.art, *trials, *extra, **options)

    def sqlite(self, name: str = "s.db") -> str:
        return f"sqlite:///{self.folder / name}"

    def wait_counted(self, url: str, n: int, *running: Process,
                     name: str = "quickstart") -> None:
        def done() -> bool:
            study = current(url, name)
            return study is not None and counted_trials(study) >= n
        wait_for(done, f"{n} counted trials", unless=running)

    def resumed(self, url: str, *extra: object, **options) -> list[str]:
        """The same ``tune`` again, the fault mended: what went wrong with it."""
        return self.tune(url, *extra, **options).wait().problems(0, who="resume: ")

    def outcome(self, url: str, name: str = "quickstart", *, n: int | None = None,
                distinct: bool = True, art: Path | str | None = None
                ) -> tuple[dict[str, int], list[str]]:
        """The counts of the study now, and how they differ from exactly ``n`` counted
        trials, none repeated, lost or running."""
        n = self.n_trials if n is None else n
        storage = open_storage(url)
        study = optuna.load_study(study_name=name, storage=storage)
        trials = study.get_trials(deepcopy=False)
        params = [tuple(sorted(t.params.items())) for t in trials
                  if t.params and t.state != TrialState.PRUNED]
        with environment(self.env):
            store = artifact_store(url, str(art or self.art), create=False, must_exist=True)
            lost = sum(not _whole(t, storage, store) for t in trials
                       if t.state == TrialState.COMPLETE)
        found = {"counted": counted_trials(study),
                 "failed": sum(t.state == TrialState.FAIL and not counts(t) for t in trials),
                 "repeated": len(params) - len(set(params)),
                 "lost": lost,
                 "running": sum(t.state == TrialState.RUNNING for t in trials)}
        if not distinct:  # a sampler that may draw a setting twice: nothing to count
            del found["repeated"]
        problems = [] if found["counted"] == n else [f"{found['counted']} counted, expected {n}"]
        problems += [f"{found[key]} {key}" for key in ("repeated", "lost", "running")
                     if found.get(key)]
        return found, problems

    def log(self) -> str:
        """Every command of the scene and its output, as a person would read them."""
        return "\n".join(f"$ {' '.join(map(str, p.popen.args))}\n# exit {p.popen.returncode}\n"
                         + "".join(p.out) + "".join(p.err) for p in self.processes)

    def leaked(self) -> list[str]:
        """A secret in any output of the scene's commands."""
        said = "".join(line for p in self.processes for line in (*p.out, *p.err))
        return ["a secret in the output" for secret in self.secrets if secret in said][:1]


def _foreground(then: Callable[[], object] | None) -> Callable[[], None]:
    def start() -> None:
        for signum in (signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        if then is not None:
            then()
    return start


def _whole(trial, storage, store) -> bool:
    """Whether a COMPLETE trial has its values and a readable RunSet artifact."""
    if trial.values is None:
        return False
    for meta in get_all_artifact_meta(trial, storage=storage):
        if meta.filename.endswith(".npz"):
            try:
                with contextlib.closing(store.open_reader(meta.artifact_id)) as reader:
                    return bool(reader.read(4))
            except Exception:  # noqa: BLE001 - any failure to read it back: lost
                return False
    return False


@dataclass(frozen=True)
class Case:
    """A scenario: its short ``name``, the table's words (``fault``, ``storage``), what it
    needs (``postgres``, ``s3``, ``root``, ``dask``, ``dashboard``, ``nohup``) and its
    function (a :class:`Scene` → what the user saw, the problems, the study's counts)."""

    name: str
    fault: str
    storage: str
    play: Callable[[Scene], tuple[str, list[str], dict[str, int] | None]]
    needs: tuple[str, ...] = ()


def missing(need: str) -> str | None:
    """Why this machine cannot play a scenario that needs ``need`` (None: it can)."""
    packages = {"postgres": "psycopg", "s3": "moto", "dask": "distributed",
                "dashboard": "optuna_dashboard"}
    if need == "postgres" and not servers.postgres_available():
        return servers.POSTGRES_MISSING
    if need == "s3" and importlib.util.find_spec("boto3") is None:
        return "boto3 is not installed"
    if need in packages and importlib.util.find_spec(packages[need]) is None:
        return f"{packages[need]} is not installed"
    if need == "root" and (os.geteuid() != 0 or shutil.which("mount") is None):
        return "a size-limited tmpfs needs root and mount(8)"
    if need == "nohup" and shutil.which("nohup") is None:
        return "no nohup on this machine"
    return None


def played(scene: Scene, seen: str, problems: list[str], url: str, name: str = "quickstart",
           **expected) -> tuple[str, list[str], dict[str, int]]:
    """A scenario's result: its counts read from the study and every problem found."""
    found, wrong = scene.outcome(url, name, **expected)
    return seen, problems + wrong + scene.leaked(), found
