"""Small studies for the tests: a tiny study's spec (parsed, or written as a user writes
it) and its storage, and a tuned study read, analysed and noted as the report and
optuna-dashboard read them."""

from __future__ import annotations

import json
from collections.abc import Sequence

import optuna

from paretostab._optuna_internals import trial_id_of
from paretostab.report._analysis import StudyReport
from paretostab.report._build import analysed_study
from paretostab.report._load import open_source, read_study
from paretostab.report._study_data import StudyData
from paretostab.spec import StudySpec, parse_spec
from tests.extras import need

__all__ = ["TINY", "analysed", "note_of", "read", "storage_url", "tiny", "write_spec"]

#: A study of three trials of the hybrid RFE on small simulated data, as a spec's tables.
TINY = {
    "study": {"name": "tiny", "trials": 3, "seed": 0, "sampler": "random"},
    "data": {"source": "simulated:n_other=30,n_per_class=20"},
    "protocol": {"runs": 3},
    "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 4},
                 "search": {"n_stable": [0, 4],
                            "epsilon": {"low": 0.01, "high": 1.0, "log": True}}},
    "objective": {"stability": "iw", "record": ["nogueira", "pearson"]},
}


def tiny(**changes) -> StudySpec:
    """:data:`TINY` parsed, each table of ``changes`` updating the table of that name."""
    spec = json.loads(json.dumps(TINY))
    for table, values in changes.items():
        spec[table].update(values)
    return parse_spec(spec)


def write_spec(folder, name, *, trials):
    """A TOML spec of a small study, as a user would write it."""
    path = folder / f"{name}.toml"
    path.write_text(
        f'[study]\nname = "{name}"\ntrials = {trials}\nseed = 0\nsampler = "random"\n'
        '[data]\nsource = "simulated:n_other=30,n_per_class=20"\n'
        '[protocol]\nruns = 3\n'
        '[selector]\nname = "hybrid_rfe"\n[selector.fixed]\nn_features = 4\n'
        '[selector.search]\nn_stable = [0, 4]\n'
        '[objective]\nstability = "iw"\n', encoding="utf-8")
    return path


def storage_url(tmp_path, name="study.db"):
    """The URL of a SQLite storage ``name`` in the test's folder."""
    return f"sqlite:///{tmp_path / name}"


def note_of(study, trial=None):
    """The optuna-dashboard note of the study or of one of its (frozen) trials, read by
    optuna-dashboard itself."""
    get_note = need("optuna_dashboard").get_note
    if trial is None:
        return get_note(study)
    return get_note(optuna.trial.Trial(study, trial_id_of(trial)))


def read(url: str, study_name: str | None = None, *, data: object = None,
         measures: Sequence[str] | None = None) -> StudyData:
    """The study ``study_name`` of ``url`` as the report reads it."""
    return read_study(open_source(url, study_name, data=data), measures)


def analysed(url: str, study_name: str | None = None, *, data: object = None,
             **options) -> StudyReport:
    """The analysis ``build_report`` writes (its refits stored in the study)."""
    return analysed_study(url, study_name=study_name, data=data, **options).analysis
