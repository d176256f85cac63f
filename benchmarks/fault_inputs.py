"""The bad inputs of the fault matrix: each a command a new user may type, or a file they
may give, run for real and checked to be refused cleanly.

Run from the repository root::

    python benchmarks/fault_matrix.py --part inputs                  # every case
    python benchmarks/fault_matrix.py --part inputs --only predict   # names holding "predict"

An audit of the package's fault handling typed 132 bad inputs by hand (issue 36: "117 of
132 bad inputs were clean"); its last requirement is that the matrix can be rerun from
``benchmarks/``. Each case runs ``python -m paretostab …`` in a subprocess, in a fresh
folder of its own holding only the files the case gives (a spec, a data file, a copy of a
small tuned study, a saved model), as a new user would. A case is *clean* when:

- the exit status is 2, the command line's status for a usage or input error;
- stderr holds exactly one error line: ``error: …``, or argparse's ``PROG: error: …``
  under its usage for a malformed command line;
- stderr holds no ``Traceback`` and no Python warning line (``…Warning: …``);
- nothing was created in the case's folder or beside it (no database, no
  ``paretostab-artifacts/``, no report folder, no file an imported module wrote), and no
  file the case gives was changed (a journal appended to);
- no password given in a storage URL appears in the output (it is shown as ``***``).

A few inputs are not errors but must stay contained (a study name holding ``../``): those
cases expect exit 0 and check only that nothing was written outside the case's folder.
Every row records the exit status, the number of error lines, the error line (first 160
characters) and what was created. The command exits 0 whether or not the cases are clean:
it is a measurement.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

__all__ = ["CASES", "Case", "PASSWORD", "run", "table"]

PASSWORD = "Pw-n0t-shown"  # given in storage URLs; no output may hold it
TIMEOUT = 300  # seconds a case may run before it counts as hanging
DIR = object()  # a file's content: make a directory of that name
WARNING = re.compile(r"\b[A-Z]\w*Warning: ")
ERROR = re.compile(r"^(python -m paretostab[\w ]*: )?error: ")

# ------------------------------------------------------------------------ the files given

#: The base spec of every case (and of the small study the stored-study cases read):
#: TOML literals by table, as a user writes them.
BASE_SPEC: dict[str, dict[str, str]] = {
    "study": {"name": '"s"', "trials": "2", "seed": "0", "sampler": '"random"'},
    "data": {"source": '"data.csv"'},
    "protocol": {"runs": "3", "replicates": "3"},
    "selector": {"name": '"hybrid_rfe"'},
    "selector.fixed": {"n_features": "3"},
    "selector.search": {"n_stable": "[0, 3]"},
    "objective": {"stability": '"iw"'},
}


def spec(changes: Mapping[str, str | None] | None = None, extra: str = "") -> str:
    """The base spec's TOML with ``changes`` ({"table.key": literal, or None to drop the
    key}) and ``extra`` lines at the end."""
    tables = {name: dict(keys) for name, keys in BASE_SPEC.items()}
    for dotted, literal in (changes or {}).items():
        name, _, key = dotted.rpartition(".")
        if literal is None:
            tables[name].pop(key, None)
        else:
            tables.setdefault(name, {})[key] = literal
    lines = [line for name, keys in tables.items()
             for line in (f"[{name}]", *(f"{key} = {value}" for key, value in keys.items()))]
    return "\n".join([*lines, extra]) + "\n"


def table_text(rows: int = 40, *, cell: Callable[[int, int, float], str] | None = None,
               header: str | None = None, labels: tuple[str, str] = ("a", "b")) -> str:
    """A CSV of ``rows`` samples: ``label`` first, then eight features f1…f8 of which f1
    and f2 carry the class; ``cell(row, column, value)`` rewrites a value's text."""
    rng = np.random.default_rng(0)
    y = np.arange(rows) % 2
    x = rng.normal(size=(rows, 8))
    x[:, :2] += 1.5 * y[:, None]
    out = [header or "label," + ",".join(f"f{j}" for j in range(1, 9))]
    for i in range(rows):
        values = [f"{v:.4f}" if cell is None else cell(i, j, v) for j, v in enumerate(x[i])]
        out.append(",".join([labels[y[i]], *values]))
    return "\n".join(out) + "\n"


def _constant(i: int, j: int, v: float) -> str:
    return "1"


def _missing(i: int, j: int, v: float) -> str:
    return ""


def _huge(i: int, j: int, v: float) -> str:
    return "1e308" if (i + j) % 2 else "-1e308"


def _one_word(i: int, j: int, v: float) -> str:
    return "high" if (i, j) == (3, 2) else f"{v:.4f}"


def _one_gap(i: int, j: int, v: float) -> str:
    return "" if (i, j) == (3, 2) else f"{v:.4f}"


DATA = table_text()
SPEC = spec()
EVIL_MODULE = ('import pathlib\npathlib.Path("imported.txt").write_text("the module ran")\n'
               "from sklearn.feature_selection import SelectKBest\n\n\n"
               "class Evil(SelectKBest):\n    pass\n")
PICKLE = (b"\x80\x04\x95\x1f\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94"
          b"\x93\x94\x8c\x04true\x94\x85\x94R\x94.")  # pickle of os.system("true")


@dataclass(frozen=True)
class Case:
    """One bad input: ``argv`` after ``python -m paretostab``, the ``files`` the case's
    folder holds first (name → text, bytes or :data:`DIR`), the ``prepared`` studies or
    model copied in (``study``: a tuned two-study storage ``study.db``; ``model``: its
    ``m.skops``; ``empty``, ``plain``, ``evil``: a ``stored.db`` of a study without
    trials, of a study paretostab did not make, of a stored spec naming
    ``evilmod:Evil`` with ``evilmod.py`` beside), the environment ``env`` adds, and the
    exit status ``expect``-ed (0: an input that is not an error, which must stay in the
    case's folder)."""

    name: str
    argv: tuple[str, ...]
    input: str
    files: Mapping[str, object] = field(default_factory=dict)
    prepared: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    expect: int = 2

    @property
    def command(self) -> str:
        return self.argv[0] if self.argv else ""


def case(name: str, line: str, input: str, files: Mapping[str, object] | None = None,
         prepared: str = "", **options) -> Case:
    """A :class:`Case` from its command ``line`` (shell words) and what it gives."""
    return Case(name, tuple(shlex.split(line)), input, dict(files or {}),
                tuple(prepared.split()), **options)


SPEC_FILES = {"s.toml": SPEC, "data.csv": DATA}
PG = f"postgresql://u:{PASSWORD}@127.0.0.1:1/x"


def tune_spec(name: str, input: str, changes: Mapping[str, str | None] | None = None,
              extra: str = "") -> Case:
    """``tune s.toml`` with the base spec changed."""
    return case(name, "tune s.toml", input, {"s.toml": spec(changes, extra), "data.csv": DATA})


def tune_data(name: str, input: str, content: object, *, file: str = "data.csv",
              changes: Mapping[str, str | None] | None = None) -> Case:
    """``tune s.toml`` on a data file ``file`` holding ``content``."""
    return case(name, "tune s.toml", input,
                {"s.toml": spec({"data.source": f'"{file}"', **(changes or {})}),
                 file: content})


STORAGES = [  # (name, URL, what it is, files)
    ("journal-empty", "journal:", "a journal URL naming no file", {}),
    ("sqlite-empty", "sqlite:///", "a SQLite URL naming no file", {}),
    ("sqlite-root", "sqlite:////", "a SQLite URL naming the root", {}),
    ("blank", "", "a blank storage ('$DB' unset)", {}),
    ("sqlite-nodir", "sqlite:///nodir/s.db", "a SQLite file in a missing folder", {}),
    ("journal-nodir", "journal:nodir/s.log", "a journal in a missing folder", {}),
    ("scheme-typo", "postgresl://u@h/d", "a mistyped scheme", {}),
    ("no-scheme", "s.db", "a file name without a scheme", {}),
    ("sqlite-two-slashes", "sqlite://s.db", "sqlite:// with two slashes", {}),
    ("sqlite-directory", "sqlite:///adir", "a SQLite URL naming a folder", {"adir": DIR}),
    ("sqlite-not-a-database", "sqlite:///junk.db", "a SQLite URL naming a text file",
     {"junk.db": "not a database\n"}),
    ("journal-not-a-journal", "journal:junk.log", "a journal URL naming another file",
     {"junk.log": "not a journal\n"}),
    ("postgres-password", PG, "PostgreSQL with a password, nothing listening", {}),
    ("mysql-password", f"mysql://u:{PASSWORD}@127.0.0.1:1/x",
     "MySQL with a password, nothing listening", {}),
]

CASES: tuple[Case, ...] = (
    # ---- tune: storages and study names
    *(case(f"tune-storage-{name}", f"tune s.toml --storage {shlex.quote(url)}", what,
           {**SPEC_FILES, **files}) for name, url, what, files in STORAGES),
    case("tune-name-long", f"tune s.toml --study-name {'x' * 600}", "a 600-character study name",
         SPEC_FILES),
    case("tune-name-empty", "tune s.toml --study-name ''", "an empty study name", SPEC_FILES),
    case("tune-name-dotdot", "tune s.toml --study-name ../escape",
         "a study name with ../ (accepted, contained)", SPEC_FILES, expect=0),
    # ---- tune: option values
    *(case(f"tune-{option}-{value}", f"tune s.toml --{option} {shlex.quote(value)}",
           f"--{option} {value or repr(value)}", SPEC_FILES)
      for option, value in [
          ("timeout", "-5"), ("timeout", "nan"), ("n-trials", "0"), ("n-jobs", "0"),
          ("n-jobs", "abc"), ("workers", "0"), ("storage-wait", "nan"), ("cache-gib", "-1"),
          ("backend", "foo"), ("objective", "nogeira")]),
    case("tune-dask-no-scheduler", "tune s.toml --backend dask", "--backend dask, no --scheduler",
         SPEC_FILES),
    case("tune-dask-bad-address", "tune s.toml --backend dask --scheduler notaurl",
         "--scheduler that is no address", SPEC_FILES),
    case("tune-artifacts-file", "tune s.toml --artifacts afile", "--artifacts naming a file",
         {**SPEC_FILES, "afile": "x\n"}),
    case("tune-artifacts-s3-empty", "tune s.toml --artifacts s3://",
         "--artifacts s3:// (no bucket)",
         SPEC_FILES),
    case("tune-artifacts-s3-refused", "tune s.toml --artifacts s3://bucket/p",
         "--artifacts s3:// on an endpoint refusing connections", SPEC_FILES,
         env={"AWS_ENDPOINT_URL": "http://127.0.0.1:1", "AWS_ACCESS_KEY_ID": "k",
              "AWS_SECRET_ACCESS_KEY": PASSWORD}),
    case("tune-spec-missing", "tune nope.toml", "a spec file that does not exist"),
    case("tune-spec-blank", "tune ''", "a blank spec ('$SPEC' unset)"),
    case("tune-objective-blank", "tune s.toml --objective ''", "a blank --objective", SPEC_FILES),
    case("tune-spec-unknown-builtin", "tune quickstrat", "a mistyped built-in spec"),
    case("tune-spec-directory", "tune adir", "a spec that is a folder", {"adir": DIR}),
    case("tune-spec-empty", "tune s.toml", "an empty spec file", {"s.toml": ""}),
    case("tune-unknown-option", "tune s.toml --trials 3", "an unknown option", SPEC_FILES),
    # ---- tune: specs
    tune_spec("spec-toml-syntax", "a TOML syntax error", extra="[study\n"),
    tune_spec("spec-unknown-table", "an unknown table", extra="[studdy]\nname = 'x'"),
    tune_spec("spec-unknown-key", "an unknown key", {"study.trails": "2"}),
    tune_spec("spec-no-name", "no study.name", {"study.name": None}),
    tune_spec("spec-trials-string", 'study.trials = "ten"', {"study.trials": '"ten"'}),
    tune_spec("spec-sampler", 'study.sampler = "foo"', {"study.sampler": '"foo"'}),
    tune_spec("spec-runs-one", "protocol.runs = 1", {"protocol.runs": "1"}),
    tune_spec("spec-metric", 'protocol.metric = "foo"', {"protocol.metric": '"foo"'}),
    tune_spec("spec-replicates-two", "protocol.replicates = 2", {"protocol.replicates": "2"}),
    tune_spec("spec-n-jobs-zero", "protocol.n_jobs = 0", {"protocol.n_jobs": "0"}),
    tune_spec("spec-selector-unknown", 'selector.name = "hybrid_rf"',
              {"selector.name": '"hybrid_rf"'}),
    tune_spec("spec-selector-module-missing", 'selector.name = "evilmod:Evil" (no such module)',
              {"selector.name": '"evilmod:Evil"', "selector.fixed.n_features": None,
               "selector.search.n_stable": None}),
    tune_spec("spec-range-reversed", "a range with low > high",
              {"selector.search.n_stable": "{low = 3, high = 1}"}),
    tune_spec("spec-search-unknown", "an unknown searched parameter",
              {"selector.search.n_stabel": "[0, 3]"}),
    tune_spec("spec-fixed-unknown", "an unknown fixed parameter",
              {"selector.fixed.n_featurs": "3"}),
    tune_spec("spec-fixed-too-many", "n_features = 50 on 8 features",
              {"selector.fixed.n_features": "50", "selector.search.n_stable": "[0, 8]"}),
    tune_spec("spec-measure-unknown", 'objective.stability = "nogeira"',
              {"objective.stability": '"nogeira"'}),
    tune_spec("spec-similarity-unneeded", "a similarity for a measure without one",
              {"objective.stability": '"nogueira"', "objective.similarity": '"pearson"'}),
    tune_spec("spec-impute", 'data.impute = "foo"', {"data.impute": '"foo"'}),
    tune_spec("spec-orientation", 'data.orientation = "foo"', {"data.orientation": '"foo"'}),
    tune_spec("spec-label-missing", 'data.label = "nope"', {"data.label": '"nope"'}),
    tune_spec("spec-source-missing", "a data file that does not exist",
              {"data.source": '"nope.csv"'}),
    tune_spec("spec-source-unknown", 'data.source = "simulatd"', {"data.source": '"simulatd"'}),
    # ---- tune: data files
    tune_data("data-empty", "an empty data file", ""),
    tune_data("data-header-only", "a header and no rows", DATA.splitlines()[0] + "\n"),
    tune_data("data-no-label", "no label column", table_text(header="y," + ",".join(
        f"f{j}" for j in range(1, 9)))),
    tune_data("data-one-class", "one class", table_text(labels=("a", "a"))),
    tune_data("data-word", "a word in a numeric column", table_text(cell=_one_word)),
    tune_data("data-gap", "a missing value, no impute", table_text(cell=_one_gap)),
    tune_data("data-duplicate-columns", "duplicate column names",
              table_text(header="label,f1,f2,f3,f4,f1,f6,f7,f8")),
    tune_data("data-constant", "every feature constant", table_text(cell=_constant)),
    tune_data("data-all-missing", 'every value missing, impute = "mean"',
              table_text(cell=_missing), changes={"data.impute": '"mean"'}),
    tune_data("data-huge", "values of ±1e308", table_text(cell=_huge)),
    tune_data("data-not-gzip", "a .csv.gz that is not gzip", DATA, file="data.csv.gz"),
    tune_data("data-directory", "a data file that is a folder", DIR),
    tune_data("data-not-parquet", "a .parquet that is text", DATA, file="data.parquet"),
    tune_data("data-xlsx", "an unsupported extension (.xlsx)", DATA, file="data.xlsx"),
    tune_data("data-one-row-per-class", "one sample of each class", table_text(rows=2)),
    # ---- report
    case("report-no-storage", "report", "no storage in the folder"),
    case("report-storage-missing", "report --storage sqlite:///missing.db",
         "a SQLite file that does not exist"),
    case("report-storage-password", f"report --storage {PG}",
         "PostgreSQL with a password, nothing listening"),
    case("report-study-missing", "report --storage sqlite:///study.db --study-name nope",
         "a study that does not exist", prepared="study"),
    case("report-study-html", "report --storage sqlite:///study.db --study-name '<b>x</b>'",
         "a missing study named with HTML", prepared="study"),
    case("report-study-ambiguous", "report --storage sqlite:///study.db",
         "no --study-name, two studies", prepared="study"),
    case("report-empty-study", "report --storage sqlite:///stored.db", "a study without trials",
         prepared="empty"),
    case("report-plain-optuna", "report --storage sqlite:///stored.db",
         "a study paretostab did not make", prepared="plain"),
    case("report-stored-module", "report --storage sqlite:///stored.db --study-name shared",
         'a stored spec naming "evilmod:Evil"', prepared="evil"),
    *(case(f"report-{option}-{value}",
           f"report --storage sqlite:///study.db --study-name s --{option} {shlex.quote(value)}",
           f"--{option} {value}", prepared="study")
      for option, value in [
          ("measures", "nogeira"), ("weight", "foo"), ("replicates", "2"),
          ("fdp", "2"), ("assumption", "foo")]),
    case("report-out-blank", "report --storage sqlite:///study.db --study-name s --out ''",
         "a blank --out", prepared="study"),
    case("report-out-file", "report --storage sqlite:///study.db --study-name s --out afile",
         "--out naming a file", {"afile": "x\n"}, prepared="study"),
    case("report-artifacts-file",
         "report --storage sqlite:///study.db --study-name s --artifacts afile",
         "--artifacts naming a file", {"afile": "x\n"}, prepared="study"),
    case("report-artifacts-missing",
         "report --storage sqlite:///study.db --study-name s --artifacts nodir",
         "--artifacts that does not exist", prepared="study"),
    # ---- choose
    case("choose-no-gamma", "choose --storage sqlite:///study.db --study-name s", "no --gamma",
         prepared="study"),
    *(case(f"choose-{option}-{value}",
           f"choose --gamma {gamma} --storage sqlite:///study.db --study-name s"
           + (f" --{option} {shlex.quote(value)}" if option != "gamma" else ""),
           f"--{option} {value}", prepared="study")
      for option, value, gamma in [
          ("gamma", "1.5", "1.5"), ("measure", "nogeira", "0.5"),
          ("level", "0", "0.5")]),
    case("choose-save-model-nodir",
         "choose --gamma 0.5 --storage sqlite:///study.db --study-name s "
         "--save-model nodir/m.skops", "--save-model into a missing folder", prepared="study"),
    case("choose-save-model-blank",
         "choose --gamma 0.5 --storage sqlite:///study.db --study-name s --save-model ''",
         "a blank --save-model", prepared="study"),
    case("choose-save-model-directory",
         "choose --gamma 0.5 --storage sqlite:///study.db --study-name s --save-model adir",
         "--save-model naming a folder", {"adir": DIR}, prepared="study"),
    case("choose-study-missing",
         "choose --gamma 0.5 --storage sqlite:///study.db --study-name nope",
         "a study that does not exist", prepared="study"),
    case("choose-empty-study", "choose --gamma 0.5 --storage sqlite:///stored.db",
         "a study without trials", prepared="empty"),
    case("choose-stored-module",
         "choose --gamma 0.5 --storage sqlite:///stored.db --study-name shared",
         'a stored spec naming "evilmod:Evil"', prepared="evil"),
    # ---- compare
    case("compare-one-study", "compare s --storage sqlite:///study.db", "one study",
         prepared="study"),
    case("compare-same-study", "compare s s --storage sqlite:///study.db", "a study twice",
         prepared="study"),
    case("compare-study-missing", "compare s nope --storage sqlite:///study.db",
         "a study that does not exist", prepared="study"),
    case("compare-three-storages",
         "compare s s2 --storage sqlite:///study.db --storage sqlite:///study.db "
         "--storage sqlite:///study.db", "three storages for two studies", prepared="study"),
    case("compare-weight", "compare s s2 --storage sqlite:///study.db --weight foo",
         "--weight foo", prepared="study"),
    case("compare-out-file", "compare s s2 --storage sqlite:///study.db --out afile",
         "--out naming a file", {"afile": "x\n"}, prepared="study"),
    case("compare-stored-module", "compare shared other --storage sqlite:///stored.db",
         'stored specs naming "evilmod:Evil"', prepared="evil"),
    # ---- predict
    case("predict-model-missing", "predict missing.skops data.csv",
         "a model file that does not exist",
         {"data.csv": DATA}),
    case("predict-model-text", "predict m.skops data.csv", "a model file that is text",
         {"m.skops": "not a model\n", "data.csv": DATA}),
    case("predict-model-pickle", "predict m.skops data.csv", "a pickle named .skops",
         {"m.skops": PICKLE, "data.csv": DATA}),
    case("predict-data-missing", "predict m.skops nope.csv", "a data file that does not exist",
         prepared="model"),
    case("predict-data-lacking", "predict m.skops new.csv", "data lacking the model's features",
         {"new.csv": table_text(header="label,g1,g2,g3,g4,g5,g6,g7,g8")}, prepared="model"),
    case("predict-data-word", "predict m.skops new.csv", "a word in a numeric column",
         {"new.csv": table_text(cell=_one_word)}, prepared="model"),
    case("predict-level", "predict m.skops data.csv --level 0", "--level 0", {"data.csv": DATA},
         prepared="model"),
    case("predict-orientation", "predict m.skops data.csv --orientation foo", "--orientation foo",
         {"data.csv": DATA}, prepared="model"),
    case("predict-id", "predict m.skops data.csv --id nope", "--id naming no column",
         {"data.csv": DATA}, prepared="model"),
    case("predict-label", "predict m.skops data.csv --label nope", "--label naming no column",
         {"data.csv": DATA}, prepared="model"),
    case("predict-out-nodir", "predict m.skops data.csv --out nodir/p.csv",
         "--out into a missing folder", {"data.csv": DATA}, prepared="model"),
    # ---- dashboard
    *(case(f"dashboard-port-{port}", f"dashboard --storage sqlite:///study.db --port {port}",
           f"--port {port}", prepared="study") for port in ("-1", "abc")),
    case("dashboard-host-unresolvable", "dashboard --storage sqlite:///study.db --host 999.1.1.1",
         "--host that is no address", prepared="study"),
    case("dashboard-storage-missing", "dashboard --storage sqlite:///missing.db",
         "a SQLite file that does not exist"),
    case("dashboard-storage-empty", "dashboard --storage journal:", "a journal URL naming no file"),
    case("dashboard-artifacts-missing", "dashboard --storage sqlite:///study.db --artifacts nodir",
         "--artifacts that does not exist", prepared="study"),
    # ---- the other commands
    case("studies-unknown", "studies quickstrat", "a mistyped built-in spec"),
    case("measures-runs", "measures --runs 1", "--runs 1"),
    case("unknown-command", "tun s.toml", "a mistyped command", SPEC_FILES),
)


# ------------------------------------------------------------------------ running a case


def _cli(folder: Path, argv: tuple[str, ...], env: Mapping[str, str] | None = None,
         ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paretostab", *argv], cwd=folder,
                          capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def _files(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


def _content(path: Path) -> bytes | None:
    """A given file's bytes (None for a folder or nothing): a bad input must not change
    the file it names."""
    return path.read_bytes() if path.is_file() else None


def prepare(folder: Path) -> Path:
    """The studies and model the cases copy in, made once in ``folder``: a tuned storage
    ``study/study.db`` of two studies ``s`` and ``s2`` (with ``study-artifacts/``) and
    its chosen model ``model/m.skops``; ``empty/``, ``plain/`` and ``evil/`` as
    :class:`Case` says."""
    import optuna
    import tomllib

    study = folder / "study"
    study.mkdir(parents=True)
    (study / "s.toml").write_text(SPEC)
    (study / "data.csv").write_text(DATA)
    for argv in (("tune", "s.toml", "--storage", "sqlite:///study.db", "--quiet"),
                 ("tune", "s.toml", "--storage", "sqlite:///study.db", "--study-name", "s2",
                  "--quiet"),
                 ("choose", "--gamma", "0.5", "--storage", "sqlite:///study.db",
                  "--study-name", "s", "--save-model", "m.skops", "--allow-chance")):
        done = _cli(study, argv)
        if done.returncode:
            raise RuntimeError(f"preparing the study: {' '.join(argv)}: {done.stderr[-400:]}")
    (folder / "model").mkdir()
    (study / "m.skops").rename(folder / "model" / "m.skops")
    (study / "s.toml").unlink()  # data.csv stays: the stored spec reads it there
    stored = tomllib.loads(SPEC)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for kind in ("empty", "plain", "evil"):
        (folder / kind).mkdir()
        url = f"sqlite:///{folder / kind / 'stored.db'}"
        for name in ("shared", "other") if kind == "evil" else ("s",):
            made = optuna.create_study(storage=url, study_name=name,
                                       directions=["maximize", "maximize"])
            if kind != "plain":
                selector = {"name": "evilmod:Evil", "search": {"k": [2, 5]}}
                made.set_user_attr("spec", {**stored, "study": {**stored["study"], "name": name},
                                            **({"selector": selector} if kind == "evil" else {})})
                made.set_user_attr("objective", "iw")
        (folder / kind / "stored-artifacts").mkdir()
    (folder / "evil" / "evilmod.py").write_text(EVIL_MODULE)
    return folder


def _give(case: Case, here: Path, prepared: Path) -> None:
    for name in case.prepared:
        shutil.copytree(prepared / name, here, dirs_exist_ok=True)
    for name, content in case.files.items():
        if content is DIR:
            (here / name).mkdir()
        elif isinstance(content, bytes):
            (here / name).write_bytes(content)
        else:
            (here / name).write_text(str(content))


def check(case: Case, here: Path, prepared: Path) -> dict:
    """Run ``case`` in the new folder ``here`` (inside a folder of its own, so that a
    file written beside it is seen too); its table row."""
    here.mkdir(parents=True)
    _give(case, here, prepared)
    before, beside = _files(here), _files(here.parent)
    given = {name: _content(here / name) for name in case.files}
    start = time.perf_counter()
    try:
        done = _cli(here, case.argv, case.env)
        status, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as hung:
        status, out = None, str(hung.stdout or "")
        err = hung.stderr.decode() if isinstance(hung.stderr, bytes) else str(hung.stderr or "")
    seconds = time.perf_counter() - start
    created = sorted((_files(here) - before)
                     | {f"../{name}" for name in _files(here.parent) - beside
                        if not name.startswith(here.name)})
    errors = [line for line in err.splitlines() if ERROR.match(line)]
    why = []
    if status is None:
        why.append(f"still running after {TIMEOUT} s")
    elif status != case.expect:
        why.append(f"exit {status}, expected {case.expect}")
    if case.expect and len(errors) != 1:
        why.append(f"{len(errors)} error: lines")
    if "Traceback" in err:
        why.append("Traceback in stderr")
    warned = [line for line in err.splitlines() if WARNING.search(line)]
    if warned:
        why.append(f"warning line: {warned[0][:80]}")
    outside = [name for name in created if name.startswith("../")]
    if created if case.expect else outside:
        shown = created if case.expect else outside
        why.append("created " + ", ".join(shown[:3]) + (" …" if len(shown) > 3 else ""))
    changed = [name for name, content in given.items() if _content(here / name) != content]
    if changed:
        why.append("changed the given " + ", ".join(changed))
    if PASSWORD in out or PASSWORD in err:
        why.append("a password shown")
    line = errors[0] if errors else (err.strip().splitlines() or [""])[-1]
    line = line.replace(f"{here}{os.sep}", "").replace(str(prepared), "…")  # no path of ours
    return {"name": case.name, "command": case.command, "input": case.input,
            "ok": not why, "why": "; ".join(why), "exit": status, "errors": len(errors),
            "line": line.replace(PASSWORD, "<password>")[:160], "created": created,
            "seconds": round(seconds, 1)}


def run(workdir: Path, *, only: str | None = None, log: Callable[[str], object] = print,
        ) -> list[dict]:
    """Run every case (or those whose name holds ``only``), each in its own subfolder of
    ``workdir``; one progress line per case through ``log``; the rows."""
    cases = [c for c in CASES if only is None or only in c.name]
    needed = {name for c in cases for name in c.prepared}
    prepared = workdir / "prepared"
    if needed:
        log("preparing a small tuned study and its model …")
        prepare(prepared)
    rows = []
    for number, each in enumerate(cases, 1):
        row = check(each, workdir / f"{number:03d}-{each.name}" / "here", prepared)
        rows.append(row)
        log(f"[{number}/{len(cases)}] {each.name}: "
            f"{'clean' if row['ok'] else 'NOT clean: ' + row['why']} ({row['seconds']} s)")
    return rows


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(rows: list[dict]) -> str:
    """The rows as a markdown table: command, input, clean, exit status, error lines, and
    the error line or, when not clean, what was seen."""
    lines = ["| command | input | clean | exit | error lines | what the user sees |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        clean = "skipped" if row["ok"] is None else "yes" if row["ok"] else "**no**"
        seen = row["line"] if row["ok"] else f"{row['why']}: {row['line']}"
        lines.append(f"| `{row['command']}` | {_cell(row['input'])} | {clean} | {row['exit']} "
                     f"| {row['errors']} | {_cell(seen)} |")
    return "\n".join(lines)


def totals(rows: list[dict]) -> str:
    """The totals line: "N of M bad inputs were clean" (and the skipped ones)."""
    clean = sum(row["ok"] is True for row in rows)
    skipped = sum(row["ok"] is None for row in rows)
    counted = len(rows) - skipped
    return (f"{clean} of {counted} bad inputs were clean"
            + (f" ({skipped} skipped)" if skipped else ""))
