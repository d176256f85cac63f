"""The fault matrix, scenarios: 35 faults of the environment injected into real commands.

Run from the repository root (as root for the full and read-only disks, which are
size-limited tmpfs mounts; PostgreSQL rows need Debian's postgresql-15 server binaries
and psycopg, S3 rows boto3 and moto, Dask rows distributed, the dashboard row
optuna-dashboard: a row whose server or package is missing is skipped, and says why)::

    python benchmarks/fault_matrix.py --part scenarios               # about 25 minutes
    python benchmarks/fault_matrix.py --part scenarios --only s3 --keep
    python benchmarks/fault_matrix.py --part scenarios --long-outage 600

Each scenario runs the commands a user types (``python -m paretostab tune …`` and the
others, in subprocesses, in a fresh folder of its own), injects its fault — a signal, a
kill -9, a database server stopped (``tests/servers.py``), a full or read-only disk, an S3
endpoint killed or frozen (a relay in front of the moto server is killed or stopped with
SIGSTOP, so the stored objects survive), a Dask process killed — waits for conditions
(trials counted in the storage, a line on stderr), never for fixed times (but the
outages' own lengths), then mends the fault and runs the same command again where the
docs say to (the "resume"). A scenario *held* when the user saw what
``docs/user-guide/many-machines.md`` promises for that fault (the exit code, the number
of ``error:``, "Interrupted" and wait lines, no traceback, "Exception ignored" nor
leaked-semaphore warning) and the study then ends with exactly its N counted
trials, as the package counts them (:func:`paretostab._tuning.coordination.counted_trials`
and ``counts``, as ``tests/test_faults.py`` does): none repeated (two trials of the same
parameters where the sampler draws continuous ones, or a grid cell twice), none lost (a
COMPLETE trial without its values or a readable RunSet artifact), none left RUNNING, and
no password or secret in any output. The "10 minutes" down of the audit is
``--long-outage`` (default 45 s, with ``--storage-wait`` a third of it).

The table's counts are of the study after the resume; "failed, not counted" are the
trials the fault cut short, whose slots were run again.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import optuna  # noqa: E402

from benchmarks.bench_many import full_disk  # noqa: E402
from benchmarks.fault_scenes import (  # noqa: E402
    Broken,
    Case,
    Process,
    Scene,
    environment,
    missing,
    played,
    wait_for,
)
from paretostab._storage import open_storage  # noqa: E402
from paretostab._tuning.coordination import process_ended  # noqa: E402
from tests import servers  # noqa: E402
from tests.user_studies import BROKEN, DOLLARS, FIXED, trial_pids, write_selector  # noqa: E402

__all__ = ["CASES", "run", "table", "totals"]

#: Dask's wait for a lost scheduler to come back (30 s by default), shortened as the tests do.
DASK_ENV = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"}
GRID = ('[study]\nname = "grid"\nsampler = "grid"\nseed = 0\n'
        '[data]\nsource = "simulated:n_other=30,n_per_class=20"\n[protocol]\nruns = 3\n'
        '[selector]\nname = "hybrid_rfe"\n'
        '[selector.fixed]\nn_features = 4\nalpha = 0.5\nepsilon = 0.1\nfinal_reg = 1.0\n'
        '[selector.search]\nn_stable = { choices = [0, 1, 2, 3, 4] }\n'
        'reg = { choices = [0.1, 1.0, 10.0] }\n[objective]\nstability = "iw"\n')
#: A TCP relay (``python -c RELAY LISTEN TARGET``): the S3 endpoint a scenario kills or
#: freezes while the moto server behind it keeps the stored objects.
RELAY = """
import socket, sys, threading
server = socket.create_server(("127.0.0.1", int(sys.argv[1])))
def pipe(source, sink):
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    for end in (source, sink):
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
while True:
    client, _ = server.accept()
    upstream = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
    for ends in ((client, upstream), (upstream, client)):
        threading.Thread(target=pipe, args=ends, daemon=True).start()
"""


# --------------------------------------------------------------------------- signals and kills


def stop_signal(signum: int, workers: int, code: int):
    def play(scene: Scene):
        url = scene.sqlite()
        first = scene.tune(url, "--workers", workers)
        scene.wait_counted(url, 3, first)
        first.signal(signum)
        said = first.wait()
        return played(scene, said.words(), said.problems(code, interrupted=1)
                      + scene.resumed(url), url)
    return play


def ignored_signal(signum: int, launcher: tuple[str, ...]):
    """A signal ignored when ``tune --workers 2`` starts (``nohup``, a shell's background
    job) sent to the parent and each worker: the study goes on to its end."""
    def play(scene: Scene):
        url = scene.sqlite()
        first = scene.tune(url, "--workers", 2, launcher=launcher, preexec_fn=None if launcher
                           else lambda: signal.signal(signum, signal.SIG_IGN))
        wait_for(lambda: len(trial_pids(url, "quickstart")) >= 2, "both workers' trials",
                 unless=(first,))
        for pid in {first.pid, *trial_pids(url, "quickstart")}:
            os.kill(pid, signum)
        said = first.wait()
        seen, problems, found = played(scene, said.words(), said.problems(0), url)
        return seen, problems + [f"{found['failed']} failed"] * bool(found["failed"]), found
    return play


def kill_tune(storage: str, *, others: int = 0):
    def play(scene: Scene):
        url = scene.sqlite() if storage == "sqlite" else f"journal:{scene.folder / 'j.log'}"
        first, *rest = [scene.tune(url) for _ in range(1 + others)]
        scene.wait_counted(url, 3, first)
        first.signal(signal.SIGKILL)
        first.wait()
        saids = [p.wait() for p in rest]
        problems = [p for said in saids for p in said.problems(0, who="the other: ")]
        seen = "killed" + "".join(f"; the other {said.words()}" for said in saids)
        return played(scene, seen, problems + scene.resumed(url), url)
    return play


def kill_worker(scene: Scene):
    url = scene.sqlite()
    parent = scene.tune(url, "--workers", 2)
    wait_for(lambda: len(trial_pids(url, "quickstart") - {parent.pid}) >= 2,
             "both workers' trials", unless=(parent,))
    os.kill(min(trial_pids(url, "quickstart") - {parent.pid}), signal.SIGKILL)
    said = parent.wait()
    return played(scene, said.words(), said.problems(2, errors=1) + scene.resumed(url), url)


def kill_parent(scene: Scene):
    url = scene.sqlite()
    parent = scene.tune(url, "--workers", 2)
    wait_for(lambda: len(trial_pids(url, "quickstart") - {parent.pid}) >= 2,
             "both workers' trials", unless=(parent,))
    workers = trial_pids(url, "quickstart") - {parent.pid}
    parent.signal(signal.SIGKILL)
    parent.wait()
    wait_for(lambda: all(map(process_ended, workers)), "the workers' end", seconds=30)
    return played(scene, "killed; its workers ended", scene.resumed(url), url)


def leftover_data(scene: Scene):
    """kill -9 of a whole ``tune --workers 2`` job: its data folder is left in TMPDIR,
    and the same command run again removes it."""
    url = scene.sqlite()
    parent = scene.tune(url, "--workers", 2)
    wait_for(lambda: len(trial_pids(url, "quickstart") - {parent.pid}) >= 2,
             "both workers' trials", unless=(parent,))
    job = trial_pids(url, "quickstart") | {parent.pid}
    for pid in job:
        os.kill(pid, signal.SIGKILL)
    parent.wait()
    wait_for(lambda: all(map(process_ended, job)), "the job's end", seconds=60)
    left = len(list((scene.folder / "tmp").glob("paretostab-data-*")))
    problems = ["no data folder left by the kill"] * (not left) + scene.resumed(
        url, "--workers", 2)  # the same command: it makes its own folder, and removes that
    still = len(list((scene.folder / "tmp").glob("paretostab-data-*")))
    problems += [f"{still} data folder left after the next tune"] * bool(still)
    return played(scene, f"killed, {left} data folder left; the next tune: {still}", problems,
                  url)


def grid_of_four(scene: Scene):
    spec = scene.folder / "grid.toml"
    spec.write_text(GRID, encoding="utf-8")
    url = scene.sqlite()
    saids = [p.wait() for p in [scene.tune(url, spec=spec, n=None) for _ in range(4)]]
    problems = [p for said in saids for p in said.problems(0)]
    return played(scene, " / ".join(sorted({s.words() for s in saids})), problems, url, "grid",
                  n=15)


# --------------------------------------------------------------------------- PostgreSQL


def new_database(scene: Scene, *, user: str = "postgres", password: str = "") -> str:
    """A new database on the scenario's PostgreSQL server, owned by ``user``."""
    import psycopg

    _, url = scene.postgres()
    name = f"s{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url, autocommit=True) as connection:
        if password:
            connection.execute(f"CREATE ROLE {user} LOGIN PASSWORD '{password}'")
        connection.execute(f"CREATE DATABASE {name} OWNER {user}")
    host = url.split("@", 1)[1].rsplit("/", 1)[0]
    return f"postgresql://{user}{':' + password if password else ''}@{host}/{name}"


def pg_restart(scene: Scene):
    folder, _ = scene.postgres()
    url = new_database(scene)
    tunes = [scene.tune(url), scene.tune(url, "--workers", 2)]
    scene.wait_counted(url, 3, *tunes)
    wait_for(lambda: len(trial_pids(url, "quickstart")) >= 2, "two processes' trials",
             unless=tuple(tunes))
    servers.restart_postgres(folder, down_seconds=8)
    saids = [p.wait() for p in tunes]
    problems = [p for said in saids for p in said.problems(0)]
    if not any(said.count("reachable again") for said in saids):
        problems.append("no wait line")
    return played(scene, " / ".join(s.words() for s in saids), problems, url)


def pg_down(long: bool):
    def play(scene: Scene):
        folder, _ = scene.postgres()
        url = new_database(scene)
        wait = max(5, round(scene.long_outage / 3))
        extra = ("--storage-wait", wait) if long else ()
        first = scene.tune(url, *extra)
        scene.wait_counted(url, 3, first)
        servers.pause_postgres(folder)
        down = time.monotonic()
        if long:
            said = first.wait()
            time.sleep(max(0.0, scene.long_outage - (time.monotonic() - down)))
        else:
            wait_for(lambda: any("unreachable (" in line for line in first.err),
                     "wait line", seconds=60, unless=(first,))
            time.sleep(max(0.0, 30 - (time.monotonic() - down)))
        servers.resume_postgres(folder)
        if long:
            problems = said.problems(2, errors=1) + scene.resumed(url, *extra)
        else:
            said = first.wait()
            problems = said.problems(0) + ["no wait lines"] * (said.count("reachable again") < 1)
        return played(scene, said.words(), problems, url)
    return play


def pg_secret(scene: Scene):
    """A role with a password: not in any output, in a worker's argv or environment, in
    a stored attribute, a note or a file of the report."""
    password = f"pw{uuid.uuid4().hex[:12]}"
    scene.secrets.add(password)
    url = new_database(scene, user=f"u{uuid.uuid4().hex[:8]}", password=password)
    parent = scene.tune(url, "--workers", 2)
    wait_for(lambda: len(trial_pids(url, "quickstart") - {parent.pid}) >= 2,
             "both workers' trials", unless=(parent,))
    seen_in = []
    for pid in trial_pids(url, "quickstart") - {parent.pid}:
        for what in ("cmdline", "environ"):
            with contextlib.suppress(OSError):
                if password.encode() in Path(f"/proc/{pid}/{what}").read_bytes():
                    seen_in.append(f"a worker's {what}")
    problems = parent.wait().problems(0) + [f"the password in {w}" for w in seen_in]
    report = scene.paretostab("report", "--storage", url, "--artifacts", scene.art, "--out",
                              scene.folder / "report", "--replicates", 0).wait()
    problems += report.problems(0, who="report: ")
    storage = open_storage(url)
    study = optuna.load_study(study_name="quickstart", storage=storage)
    study_id = storage.get_study_id_from_name("quickstart")
    stored = json.dumps([study.user_attrs, storage.get_study_system_attrs(study_id)]
                        + [[t.user_attrs, t.system_attrs] for t in study.trials], default=str)
    problems += ["the password in a stored attribute or note"] * (password in stored)
    problems += ["the password in a report file"] * any(
        password.encode() in p.read_bytes() for p in (scene.folder / "report").rglob("*")
        if p.is_file())
    return played(scene, "exit 0; masked everywhere" if not problems else "exit 0", problems,
                  url)


# --------------------------------------------------------------------------- disks


def full(where: str):
    def play(scene: Scene):
        size, free = (3072, 400) if where == "artifacts" else (8192, 140)
        with full_disk(scene.folder / "disk", size, free) as (disk, make_room):
            url = scene.sqlite() if where == "artifacts" else f"sqlite:///{disk / 's.db'}"
            art = disk / "art" if where == "artifacts" else scene.art
            said = scene.tune(url, art=art).wait()
            make_room()
            return played(scene, said.words(), said.problems(2, errors=1)
                          + scene.resumed(url, art=art), url, art=art)
    return play


def read_only(scene: Scene):
    with full_disk(scene.folder / "disk", 1024, 1024) as (disk, _):
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        url = scene.sqlite()
        said = scene.tune(url, art=disk / "art").wait()
        problems = said.problems(2, errors=1)
        problems += ["created s.db"] * (scene.folder / "s.db").exists()
        subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
        problems += scene.resumed(url, art=disk / "art")
        return played(scene, said.words(), problems, url, art=disk / "art")


# --------------------------------------------------------------------------- S3


def s3_server(scene: Scene, *, auth: bool = False) -> tuple[int, Process, int]:
    """A moto server for the scene (with ``auth``, it checks signatures, and the scene's
    credentials are of a key allowed everything), behind a relay that is the scene's
    ``AWS_ENDPOINT_URL``: the server's port, the relay and its port."""
    import boto3

    with environment({"INITIAL_NO_AUTH_ACTION_COUNT": "4" if auth else "inf"}):
        moto, endpoint = servers.start_s3()
    scene.cleanups.callback(servers.stop_s3, moto)
    nowhere = str(scene.folder / "no-aws-config")
    credentials = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                   "AWS_DEFAULT_REGION": "us-east-1", "AWS_CONFIG_FILE": nowhere,
                   "AWS_SHARED_CREDENTIALS_FILE": nowhere}
    if auth:
        iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                           aws_access_key_id="x", aws_secret_access_key="x")
        iam.create_user(UserName="tuner")
        key = iam.create_access_key(UserName="tuner")["AccessKey"]
        iam.put_user_policy(UserName="tuner", PolicyName="all", PolicyDocument=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        credentials.update(AWS_ACCESS_KEY_ID=key["AccessKeyId"],
                           AWS_SECRET_ACCESS_KEY=key["SecretAccessKey"])
        scene.secrets.add(key["SecretAccessKey"])
    port, moto_port = servers.free_port(), int(endpoint.rsplit(":", 1)[1])
    scene.env.update(credentials, AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}")
    return moto_port, start_relay(scene, port, moto_port), port


def start_relay(scene: Scene, port: int, target: int) -> Process:
    relay = scene.start([sys.executable, "-c", RELAY, str(port), str(target)])

    def answers() -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return True
        return False
    wait_for(answers, "relay", seconds=30, unless=(relay,))
    return relay


def bucket(scene: Scene, name: str = "bucket-a", *, delete: bool = False) -> str:
    import boto3

    with environment(scene.env):
        s3 = boto3.client("s3")
        if delete:
            for listed in s3.list_objects_v2(Bucket=name).get("Contents", []):
                s3.delete_object(Bucket=name, Key=listed["Key"])
            s3.delete_bucket(Bucket=name)
        else:
            s3.create_bucket(Bucket=name)
    return f"s3://{name}/study"


def s3_wrong_secret(scene: Scene):
    s3_server(scene, auth=True)
    art = bucket(scene)
    right = scene.env["AWS_SECRET_ACCESS_KEY"]
    wrong = f"wrong{uuid.uuid4().hex[:12]}"
    scene.secrets.add(wrong)
    url = scene.sqlite()
    said = scene.tune(url, art=art, env={"AWS_SECRET_ACCESS_KEY": wrong}).wait()
    problems = said.problems(2, errors=1) + ["created s.db"] * (scene.folder / "s.db").exists()
    scene.env["AWS_SECRET_ACCESS_KEY"] = right
    return played(scene, said.words(), problems + scene.resumed(url, art=art), url, art=art)


def s3_no_bucket(scene: Scene):
    s3_server(scene)
    art = bucket(scene, delete=False)
    bucket(scene, delete=True)
    url = scene.sqlite()
    said = scene.tune(url, art=art).wait()
    problems = said.problems(2, errors=1) + ["created s.db"] * (scene.folder / "s.db").exists()
    bucket(scene)
    return played(scene, said.words(), problems + scene.resumed(url, art=art), url, art=art)


def s3_endpoint(freeze: bool):
    def play(scene: Scene):
        moto_port, relay, port = s3_server(scene)
        art = bucket(scene)
        url = scene.sqlite()
        first = scene.tune(url, art=art)
        scene.wait_counted(url, 3, first)
        if not freeze:
            relay.signal(signal.SIGKILL)
            said = first.wait()
            start_relay(scene, port, moto_port)
            problems = said.problems(2, errors=1) + scene.resumed(url, art=art)
            return played(scene, said.words(), problems, url, art=art)
        relay.signal(signal.SIGSTOP)
        problems = []
        try:
            wait_for(lambda: any("no answer from" in line for line in first.err),
                     "'no answer from' line", seconds=60, unless=(first,))
        except Broken as missing:
            problems.append(str(missing))
        relay.signal(signal.SIGCONT)
        said = first.wait()
        seen = said.words() + ", 1 'no answer' line" * (not problems)
        return played(scene, seen, problems + said.problems(0), url, art=art)
    return play


# --------------------------------------------------------------------------- Dask


def dask_cluster(scene: Scene, address: str, workers: int) -> list[Process]:
    """A scheduler at ``address`` and ``workers`` one-thread workers, processes of their own."""
    port = address.rsplit(":", 1)[1]
    started = [scene.start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                            "127.0.0.1", "--port", port, "--no-dashboard"], env=DASK_ENV)]
    started += [scene.start([sys.executable, "-m", "distributed.cli.dask_worker", address,
                             "--nthreads", "1", "--no-dashboard"], env=DASK_ENV)
                for _ in range(workers)]
    return started


def dask_kill(what: str):
    def play(scene: Scene):
        address = f"tcp://127.0.0.1:{servers.free_port()}"
        cluster = dask_cluster(scene, address, 2)
        url = scene.sqlite()
        command = ("--backend", "dask", "--scheduler", address)
        first = scene.tune(url, *command, env=DASK_ENV)
        scene.wait_counted(url, 3, first)
        cluster[0 if what == "scheduler" else 1].signal(signal.SIGKILL)
        said = first.wait()
        if what == "scheduler":
            for process in cluster:
                process.signal(signal.SIGKILL)
                process.wait()
            dask_cluster(scene, address, 1)
            problems = said.problems(2, errors=1) + scene.resumed(url, *command, env=DASK_ENV)
        else:
            problems = said.problems(0)
        return played(scene, said.words(), problems, url)
    return play


# --------------------------------------------------------------------------- reports and more


def killed_writer(command: str):
    """``report`` (or ``compare``) killed with kill -9 while it runs, then run again: the
    previous one whole, no staging folder left."""
    def play(scene: Scene):
        url = scene.sqlite()
        names = ["quickstart"] if command == "report" else ["one", "two"]
        for name in names:
            tuned = scene.tune(url, "--study-name", name).wait()
            if tuned.code:
                raise Broken(f"tune: {tuned.words()}")
        out = scene.folder / "out"
        args = [command, *(names if command == "compare" else []), "--storage", url,
                "--artifacts", scene.art, "--out", out, "--replicates", 0]
        stage = f".{out.name}-"

        def written() -> dict[Path, bytes]:  # the files of out, not of a staging folder
            return {p: p.read_bytes() for p in out.rglob("*") if p.is_file()
                    and not p.relative_to(out).parts[0].startswith(stage)}

        def staging() -> bool:
            return any(p.name.startswith(stage) for p in out.iterdir())

        started = time.monotonic()
        first = scene.paretostab(*args).wait()
        took, before = time.monotonic() - started, written()
        writer = scene.paretostab(*args)
        with contextlib.suppress(Broken):  # else killed while it computes
            wait_for(staging, "staging folder", seconds=max(1.0, 0.8 * took),
                     unless=(writer,), every=0.005)  # as it starts writing, before a move
        if writer.ended():
            raise Broken(f"{command} ended before the kill")
        writer.signal(signal.SIGKILL)
        writer.wait()
        when = "while writing" if staging() else "while computing"
        problems = first.problems(0, who=f"first {command}: ")
        problems += [f"the previous {command} changed"] * (written() != before)
        again = scene.paretostab(*args).wait()
        problems += again.problems(0, who="again: ")
        problems += ["a staging folder left"] * staging()
        found, wrong = scene.outcome(url, names[0])
        return (f"killed {when}, the previous {command} whole; again {again.words()}",
                problems + wrong, found)
    return play


def edited_note(scene: Scene):
    import optuna_dashboard

    url = scene.sqlite()
    scene.tune(url).wait()
    report = ("report", "--storage", url, "--artifacts", scene.art, "--out",
              scene.folder / "report", "--replicates", 0)
    problems = scene.paretostab(*report).wait().problems(0, who="report: ")
    study = optuna.load_study(study_name="quickstart", storage=open_storage(url))
    mine, theirs = "Ask Ada before choosing.\n\n", "\n## Our decision\n\nThe sparsest.\n"
    optuna_dashboard.save_note(study, mine + optuna_dashboard.get_note(study) + theirs)
    said = scene.paretostab(*report).wait()
    note = optuna_dashboard.get_note(
        optuna.load_study(study_name="quickstart", storage=open_storage(url)))
    problems += said.problems(0, who="report again: ")
    problems += ["the person's text was not kept"] * (
        not (note.startswith(mine) and note.endswith(theirs)))
    return played(scene, said.words() + ", the note's edits kept" * (not problems), problems,
                  url)


def spec_file(scene: Scene, name: str, trials: int, data: str, selector: str) -> Path:
    """A small random-sampler spec as a user writes it: ``data`` and ``selector`` are the
    lines of its tables."""
    spec = scene.folder / f"{name}.toml"
    spec.write_text(f'[study]\nname = "{name}"\ntrials = {trials}\nseed = 0\n'
                    f'sampler = "random"\n[data]\n{data}\n[protocol]\nruns = 3\nn_jobs = 1\n'
                    f'[selector]\n{selector}\n[objective]\nstability = "iw"\n',
                    encoding="utf-8")
    return spec


def selector_failing(scene: Scene):
    write_selector(scene.folder, BROKEN["raises in fit"])
    spec = spec_file(scene, "mine", 5, 'source = "breast_cancer"',
                     'name = "mysel:Mine"\n[selector.search]\nn_keep = [2, 5]')
    url = scene.sqlite()
    said = scene.tune(url, spec=spec, n=None).wait()
    problems = said.problems(2, errors=1)
    write_selector(scene.folder, FIXED)
    problems += scene.resumed(url, spec=spec, n=None)
    return played(scene, said.words(), problems, url, "mine", n=5, distinct=False)


def dollar_names(scene: Scene):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    pd.DataFrame(X, columns=[*DOLLARS, "c", "d", "e"]).assign(
        label=(X[:, 0] + X[:, 1] > 0).astype(int)).to_csv(scene.folder / "d.csv", index=False)
    spec = spec_file(scene, "dollars", 4, 'source = "d.csv"\nlabel = "label"',
                     'name = "t_test"\n[selector.search]\nn_features = [1, 2]')
    url = scene.sqlite()
    said = scene.tune(url, spec=spec, n=None).wait()
    return played(scene, said.words(), said.problems(0), url, "dollars", n=4, distinct=False)


def dashboard_loopback(scene: Scene):
    url = scene.sqlite()
    scene.tune(url, n=2).wait()
    port = servers.free_port()
    server = scene.paretostab("dashboard", "--storage", url, "--artifacts", scene.art,
                              "--port", port)

    def listening() -> list[str]:
        rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
        rows += Path("/proc/net/tcp6").read_text().splitlines()[1:]
        return [row.split()[1].split(":")[0] for row in rows
                if row.split()[1].endswith(f":{port:04X}") and row.split()[3] == "0A"]
    wait_for(listening, "listening socket", seconds=120, unless=(server,))
    addresses = listening()
    server.signal(signal.SIGINT)
    said = server.wait(60)
    problems = [f"listens on {a}" for a in addresses if a != "0100007F"]
    problems += [f"{bad} in stderr" for bad in ("Traceback",) if bad in said.err]
    found, wrong = scene.outcome(url, n=2)
    return ("listens on 127.0.0.1 only" if not problems else said.words(), problems + wrong,
            found)


CASES: tuple[Case, ...] = (
    Case("sigterm", "SIGTERM to `tune`", "SQLite", stop_signal(signal.SIGTERM, 1, 143)),
    Case("sigterm-workers", "SIGTERM to a `tune --workers 2` parent", "SQLite",
         stop_signal(signal.SIGTERM, 2, 143)),
    Case("sighup", "SIGHUP to `tune`", "SQLite", stop_signal(signal.SIGHUP, 1, 129)),
    Case("sighup-workers", "SIGHUP to a `tune --workers 2` parent", "SQLite",
         stop_signal(signal.SIGHUP, 2, 129)),
    Case("sigint", "SIGINT (Ctrl-C) to `tune`", "SQLite", stop_signal(signal.SIGINT, 1, 130)),
    Case("sigint-workers", "SIGINT (Ctrl-C) to a `tune --workers 2` parent", "SQLite",
         stop_signal(signal.SIGINT, 2, 130)),
    Case("nohup-sighup", "`nohup tune --workers 2`, SIGHUP to the parent and its workers",
         "SQLite", ignored_signal(signal.SIGHUP, ("nohup",)), ("nohup",)),
    Case("ignored-sigint", "SIGINT to a `tune --workers 2` started with SIGINT ignored "
         "(a shell's background job), parent and workers", "SQLite",
         ignored_signal(signal.SIGINT, ())),
    Case("kill9", "kill -9 of `tune`", "SQLite", kill_tune("sqlite")),
    Case("kill9-worker", "kill -9 of a worker of `tune --workers 2`", "SQLite", kill_worker),
    Case("kill9-parent", "kill -9 of a `tune --workers 2` parent", "SQLite", kill_parent),
    Case("kill9-one-of-two", "kill -9 of one of two `tune`", "SQLite",
         kill_tune("sqlite", others=1)),
    Case("grid-four", "four `tune` on one grid study (15 cells)", "SQLite", grid_of_four),
    Case("journal-kill9", "kill -9 of `tune`", "journal", kill_tune("journal")),
    Case("journal-kill9-one-of-two", "kill -9 of one of two `tune`", "journal",
         kill_tune("journal", others=1)),
    Case("pg-restart", "server restarted (down 8 s) under two `tune`, one `--workers 2`",
         "PostgreSQL", pg_restart, ("postgres",)),
    Case("pg-down-30s", "server down 30 s (within `--storage-wait`)", "PostgreSQL",
         pg_down(False), ("postgres",)),
    Case("pg-down-long", "server down `--long-outage` s, past `--storage-wait` (a third)",
         "PostgreSQL", pg_down(True), ("postgres",)),
    Case("pg-secret", "a password in the URL, `tune --workers 2` and `report`", "PostgreSQL",
         pg_secret, ("postgres",)),
    Case("full-artifact-disk", "artifact store on a full disk", "SQLite", full("artifacts"),
         ("root",)),
    Case("full-sqlite-disk", "SQLite file on a full disk", "SQLite", full("sqlite"),
         ("root",)),
    Case("read-only-artifacts", "artifact folder on a read-only file system", "SQLite",
         read_only, ("root",)),
    Case("s3-wrong-secret", "S3 with a wrong secret key", "SQLite + S3", s3_wrong_secret,
         ("s3",)),
    Case("s3-no-bucket", "S3 bucket deleted", "SQLite + S3", s3_no_bucket, ("s3",)),
    Case("s3-endpoint-killed", "S3 endpoint killed mid-study", "SQLite + S3",
         s3_endpoint(False), ("s3",)),
    Case("s3-endpoint-frozen", "S3 endpoint frozen (SIGSTOP) mid-upload, then thawed",
         "SQLite + S3", s3_endpoint(True), ("s3",)),
    Case("dask-worker-killed", "kill -9 of one of two Dask workers", "SQLite + Dask",
         dask_kill("worker"), ("dask",)),
    Case("dask-scheduler-killed", "kill -9 of the Dask scheduler", "SQLite + Dask",
         dask_kill("scheduler"), ("dask",)),
    Case("report-killed", "kill -9 of `report`, then `report` again", "SQLite",
         killed_writer("report")),
    Case("compare-killed", "kill -9 of `compare`, then `compare` again", "SQLite",
         killed_writer("compare")),
    Case("leftover-data", "kill -9 of a whole `tune --workers 2` job, then the same `tune`",
         "SQLite", leftover_data),
    Case("edited-note", "the study note edited on the dashboard, then `report`", "SQLite",
         edited_note, ("dashboard",)),
    Case("selector-failing", "a user's selector raising in every trial, then fixed",
         "SQLite", selector_failing),
    Case("dollar-names", "feature names with `$`", "SQLite", dollar_names),
    Case("dashboard-loopback", "`dashboard`: where it listens", "SQLite", dashboard_loopback,
         ("dashboard",)),
)


# --------------------------------------------------------------------------- the matrix


def run(workdir: Path, *, only: str | None = None, long_outage: float = 45.0,
        n_trials: int = 12, log: Callable[[str], object] = print) -> list[dict]:
    """Play every scenario (or those whose name holds ``only``, or one of its
    comma-separated parts), each in its own subfolder of ``workdir``: one row each
    (``ok`` None when skipped)."""
    wanted = None if only is None else only.split(",")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    os.chmod(workdir, 0o755)  # the postgres user goes through it to its cluster
    cluster: list[tuple[Path, str]] = []

    def postgres() -> tuple[Path, str]:
        if not cluster:
            cluster.append((workdir / "postgres", servers.start_postgres(workdir / "postgres")))
        return cluster[0]

    rows = []
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    try:
        for case in (c for c in CASES if wanted is None or any(w in c.name for w in wanted)):
            row = {"name": case.name, "fault": case.fault, "storage": case.storage}
            started = time.monotonic()
            lacking = next(filter(None, map(missing, case.needs)), None)
            if lacking:
                row.update(ok=None, why=f"skipped: {lacking}", seen="")
            else:
                scene = Scene(workdir / case.name, n_trials, long_outage, postgres)
                scene.folder.mkdir()
                row.update(_played(case, scene))
            row["seconds"] = round(time.monotonic() - started)
            rows.append(row)
            state = {True: "held", False: "NOT held", None: "skipped"}[row["ok"]]
            said = f": {row['why']}" if row["why"] else ""
            log(f"{case.name}: {state} ({row['seconds']} s){said}")
    finally:
        if cluster:
            servers.stop_postgres(cluster[0][0])
    return rows


def _played(case: Case, scene: Scene) -> dict:
    """A scenario played: its row's fields (its processes ended whatever happened)."""
    try:
        with scene.cleanups:
            try:
                seen, problems, found = case.play(scene)
            except Exception as exc:  # noqa: BLE001 - a row that says what broke
                seen, problems, found = "", [f"{type(exc).__name__}: {exc}"], None
            finally:
                for process in scene.processes:
                    if not process.ended():
                        process.signal(signal.SIGCONT)  # a frozen one too
                        process.popen.kill()
                        process.popen.wait()
    except Exception as exc:  # noqa: BLE001 - a clean-up that failed
        problems = [f"clean-up: {type(exc).__name__}: {exc}"]
    why, log = "; ".join(dict.fromkeys(problems)), scene.log()
    for secret in scene.secrets:
        why, log = why.replace(secret, "***"), log.replace(secret, "***")
    (scene.folder / "commands.log").write_text(log, encoding="utf-8")  # kept with --keep
    return {"ok": not problems, "why": why, "seen": seen, **(found or {})}


def table(rows: list[dict]) -> str:
    """The rows as a markdown table."""
    columns = ("counted", "failed", "repeated", "lost", "running")
    lines = ["| scenario | fault | storage | what the user sees | counted | failed, not "
             "counted | repeated | lost | running left | held |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        held = {True: "yes", False: f"**no**: {row['why']}", None: row["why"]}[row["ok"]]
        cells = [str(row.get(key, "–")) for key in columns]
        seen = row["seen"].replace("|", "\\|")
        lines.append(f"| {row['name']} | {row['fault']} | {row['storage']} | {seen} | "
                     + " | ".join(cells) + f" | {held.replace('|', '/')} |")
    return "\n".join(lines)


def totals(rows: list[dict]) -> str:
    """The totals line: scenarios held of all, the skipped ones counted apart."""
    skipped = sum(row["ok"] is None for row in rows)
    held = sum(row["ok"] is True for row in rows)
    return f"{held} of {len(rows)} scenarios held, {skipped} skipped"
