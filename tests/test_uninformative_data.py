"""Data without information (issue 36, point 9): every feature constant, every value
missing and imputed, values whose variance overflows. ``tune`` refuses them before the
study with one ``error:`` line and no storage; never a front of φ = 1 at the majority
class's accuracy, never numpy's RuntimeWarnings with their source lines."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from paretostab._cli import main
from paretostab._errors import InvalidInputError
from paretostab._problem import _check_information
from paretostab.data import as_dataset

LABELS = np.r_[np.zeros(25, int), np.ones(15, int)]


def table(columns: dict[str, np.ndarray]) -> pd.DataFrame:
    return pd.DataFrame({"label": LABELS, **columns})


def write_study(folder, frame: pd.DataFrame, impute: str = "") -> str:
    frame.to_csv(folder / "data.csv", index=False)
    (folder / "study.toml").write_text(
        '[study]\nname = "s"\ntrials = 2\nseed = 0\n[data]\nsource = "data.csv"\n'
        + (f'impute = "{impute}"\n' if impute else "")
        + '[protocol]\nruns = 3\n[selector]\nname = "hybrid_rfe"\n'
        '[selector.fixed]\nn_features = 2\n[objective]\nstability = "nogueira"\n',
        encoding="utf-8")
    return str(folder / "study.toml")


CONSTANT = {f"f{i}": np.full(LABELS.size, 3.0) for i in range(6)}
NO_VALUE = {f"f{i}": np.full(LABELS.size, np.nan) for i in range(6)}
HUGE = {"big": np.resize([1e308, -1e308, 0.0], LABELS.size),
        "ok": np.arange(LABELS.size, 0, -1.0) % 7}


@pytest.mark.parametrize("columns, impute, said", [
    (CONSTANT, "", "every feature is constant (one value in every row)"),
    (NO_VALUE, "mean", "a missing value counts as the imputed one, [data] impute = 'mean'"),
    (NO_VALUE, "median", "impute = 'median'"),
    (HUGE, "", "1 feature(s) hold values too large to compute with (big; largest |value| "
               "1e+308)"),
])
def test_tune_refuses_data_without_information_in_one_line(tmp_path, monkeypatch, capsys,
                                                           columns, impute, said):
    monkeypatch.chdir(tmp_path)
    spec = write_study(tmp_path, table(columns), impute)
    with warnings.catch_warnings(), pytest.raises(SystemExit) as exit:
        warnings.simplefilter("error")  # no numpy RuntimeWarning on the way
        main(["tune", spec, "--storage", f"sqlite:///{tmp_path / 'study.db'}"])
    err = capsys.readouterr().err
    assert exit.value.code == 2
    assert err.startswith("error: data.csv: ") and said in err and "expected" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "study.db").exists()


def test_one_varying_feature_among_constant_and_empty_ones_is_data():
    data = as_dataset(table({**CONSTANT, **{"e": NO_VALUE["f0"]},
                             "v": np.resize([1.0, 2.0, 0.5], LABELS.size)}), impute="mean")
    _check_information(data.X, data.feature_names, "data", "mean")
    with pytest.raises(InvalidInputError, match="every feature is constant"):
        _check_information(data.X[:, :-1], data.feature_names, "data", "mean")


@settings(max_examples=60)
@given(st.lists(st.floats(min_value=-1e170, max_value=1e170), min_size=4, max_size=30))
def test_values_are_refused_exactly_when_their_variance_overflows(column):
    # brute force: the sum of squared deviations in exact rational arithmetic
    exact = [Fraction(v) for v in column]
    mean = sum(exact) / len(exact)
    squares = sum((v - mean) ** 2 for v in exact)
    limit = Fraction(np.finfo(float).max)
    assume(abs(squares - limit) > limit / 10**6)  # clear of float rounding at the edge
    X = np.column_stack([column, np.resize([1.0, 2.0, 0.5], len(column))])
    try:
        _check_information(X, ("x", "v"), "data", None)
    except InvalidInputError as exc:
        assert squares > limit and "too large to compute with (x;" in str(exc), exc
    else:
        assert squares <= limit
