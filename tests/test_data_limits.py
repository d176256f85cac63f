"""Limits that depend on the data, checked before a study opens; duplicate column names.

``fit_to_data`` refuses, with one line naming the key as the spec file writes it
and the data's size, what would make every trial fail inside the trial: a pre-filter
larger than the data, a feature count (fixed, searched, or an estimator's default) beyond
the features each run's selector sees, per-feature arrays of the wrong size, a top-k
``k`` beyond the features, data with a single feature. ``tune`` then exits 2 having
created nothing. Every shipped study passes against its real data. A data file that
names a column twice is refused with the names (pandas would rename the copies).
"""

from __future__ import annotations

import functools
import gzip
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_selection import RFE
from sklearn.linear_model import LogisticRegression

from paretostab._errors import InvalidInputError
from paretostab._problem import Problem
from paretostab.data import load_dataset
from paretostab.spec import (
    BUILTIN_SOURCES,
    fit_to_data,
    load_spec,
    parse_spec,
)

STUDIES = Path(__file__).resolve().parents[1] / "studies"


class LogisticRFE(RFE):
    """scikit-learn's RFE of a logistic regression, a class a spec can name."""

    def __init__(self, estimator=None, *, n_features_to_select=None, step=1):
        super().__init__(estimator if estimator is not None else LogisticRegression(),
                         n_features_to_select=n_features_to_select, step=step)
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def spec_of(*, data=None, selector=None, objective=None):
    """A spec on a data file named tiny.csv (only its name is used here)."""
    return parse_spec({"study": {"name": "limits"},
                       "data": {"source": "tiny.csv", **(data or {})},
                       "protocol": {"runs": 2},
                       "selector": selector or {"name": "hybrid_rfe",
                                                "fixed": {"n_features": 3}},
                       "objective": objective or {"stability": "iw", "record": []}})


def accepted(spec, n_samples: int, n_features: int) -> None:
    """``spec`` fits data of this size as it is: returned unchanged, without a note (a
    limit checked too eagerly would refuse it, one applied too eagerly would change it)."""
    assert fit_to_data(spec, n_samples, n_features) == (spec, ())


def refusal(spec, n_samples: int, n_features: int) -> str:
    with pytest.raises(InvalidInputError) as caught:
        fit_to_data(spec, n_samples, n_features)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --------------------------------------------------------------------------- the pre-filter


def test_a_prefilter_larger_than_the_data_is_refused():
    message = refusal(spec_of(data={"prefilter": 50}), 40, 5)
    assert message == ("<spec>: data.prefilter: must be at most 5, the data's features "
                       "(tiny.csv: n = 40 samples, d = 5 features); got 50.")
    accepted(spec_of(data={"prefilter": 5}), 40, 5)  # every feature kept


def test_data_with_fewer_than_two_features_are_refused():
    message = refusal(spec_of(selector={"name": "hybrid_rfe",
                                        "fixed": {"n_features": 1, "n_stable": 0}}), 40, 1)
    assert message.startswith("<spec>: data.source: selecting features needs at least 2 "
                              "features; the data have 1 (tiny.csv: n = 40 samples, d = 1 "
                              "feature).")
    accepted(spec_of(selector={"name": "hybrid_rfe",
                               "fixed": {"n_features": 1, "n_stable": 0}}), 40, 2)


# --------------------------------------------------------------------------- feature counts


def test_a_fixed_feature_count_beyond_the_data_is_refused():
    message = refusal(spec_of(selector={"name": "hybrid_rfe", "fixed": {"n_features": 9}}),
                      40, 5)
    assert message.startswith("<spec>: selector.fixed.n_features: must be an integer in "
                              "[1, 5], the features selected, of the 5 features each run's "
                              "selector sees (tiny.csv: n = 40 samples, d = 5 features); "
                              "got 9.")
    accepted(spec_of(selector={"name": "hybrid_rfe", "fixed": {"n_features": 5}}), 40, 5)


def test_feature_counts_are_checked_after_the_prefilter():
    spec = spec_of(data={"prefilter": 4},
                   selector={"name": "hybrid_rfe", "fixed": {"n_features": 5}})
    message = refusal(spec, 40, 100)
    assert "selector.fixed.n_features: must be an integer in [1, 4]" in message
    assert "(tiny.csv: n = 40 samples, d = 100 features, 4 kept by data.prefilter)" in message
    accepted(spec_of(data={"prefilter": 5},
                     selector={"name": "hybrid_rfe", "fixed": {"n_features": 5}}), 40, 100)


def test_an_estimator_default_beyond_the_data_is_clipped_and_said():
    """relief selects 20 features unless told otherwise: on 10 features that default (not
    written by the user) is set to 10, and a note says so; a value written is refused."""
    spec = spec_of(selector={"name": "relief"})
    fitted, notes = fit_to_data(spec, 40, 10)
    assert dict(fitted.selectors[0].fixed) == {"n_features": 10}
    assert notes == ("selector.fixed.n_features: relief's default n_features = 20 is more "
                     "than the data have: set to 10, every feature each run's selector sees "
                     "(tiny.csv: n = 40 samples, d = 10 features); set n_features in "
                     "[selector.fixed] to select fewer",)
    assert fit_to_data(fitted, 40, 10) == (fitted, ())  # a stored spec is fitted already
    assert fit_to_data(spec, 40, 20) == (spec, ())
    assert "selector.fixed.n_features: must be an integer in [1, 10]" in refusal(
        spec_of(selector={"name": "relief", "fixed": {"n_features": 20}}), 40, 10)


def test_hybrid_rfe_on_13_features_clips_its_default_n_features_and_n_stable():
    fitted, notes = fit_to_data(spec_of(selector={"name": "hybrid_rfe"}), 178, 13)
    (selector,) = fitted.selectors
    assert selector.fixed["n_features"] == 13
    (n_stable,) = [p for p in selector.search if p.name == "n_stable"]
    assert (n_stable.low, n_stable.high) == (0, 12)  # N = k: a variance filter, left out
    assert notes[1] == ("selector.search.n_stable: the selector's default range [0, 20] "
                        "clipped to [0, 12] (n_stable < n_features = 13 (its default clipped "
                        "to the data): with a stable set ranked by variance, N = k is a "
                        "variance filter, which selects the same features whatever the "
                        "labels; write n_stable in [selector.search] to search it)")
    welch = fit_to_data(spec_of(selector={"name": "hybrid_rfe",
                                          "fixed": {"criterion": "welch_t"}}), 178, 13)[0]
    assert [(p.low, p.high) for p in welch.selectors[0].search if p.name == "n_stable"] == [
        (0, 13)]
    message = refusal(spec_of(selector={"name": "hybrid_rfe", "fixed": {"n_stable": 15}}),
                      178, 13)
    assert message.startswith("<spec>: selector.fixed.n_stable: must be <= n_features = 13 "
                              "(its default clipped to the data)")
    assert "the range reaches 15" in refusal(
        spec_of(selector={"name": "hybrid_rfe", "search": {"n_stable": [0, 15]}}), 178, 13)


def test_an_n_stable_range_within_n_features_is_left_as_it_is():
    """A range within n_features — written so, or clipped to a fixed n_features when the
    spec was read (indistinguishable afterwards) — gets no note."""
    spec = spec_of(selector={"name": "hybrid_rfe", "fixed": {"n_features": 5}})
    assert [(p.low, p.high) for p in spec.selectors[0].search if p.name == "n_stable"] == [
        (0, 4)]  # N = k, a variance filter blind to the labels, is not in the default space
    assert fit_to_data(spec, 40, 30) == (spec, ())
    assert fit_to_data(spec_of(selector={"name": "hybrid_rfe", "fixed": {"n_features": 5},
                                         "search": {"n_stable": [1, 4]}}), 40, 30)[1] == ()


@pytest.mark.parametrize("selector, key, problem", [
    ({"search": {"k": [10, 40]}}, "selector.search.k", "the range [10, 40] must draw an "
     "integer in [1, 13], the features kept, of the 13 features"),
    ({"fixed": {"k": 20}}, "selector.fixed.k", "must be an integer in [1, 13], the features "
     "kept"),
    ({"search": {"k": {"choices": [5, "all", 30]}}}, "selector.search.k",
     "every choice must be an integer in [1, 13]"),
], ids=["range", "fixed", "choices"])
def test_a_scikit_learn_selectors_feature_count_beyond_the_data_is_refused(selector, key,
                                                                           problem):
    spec = spec_of(selector={"name": "sklearn.feature_selection:SelectKBest", **selector})
    assert refusal(spec, 178, 13).startswith(f"<spec>: {key}: {problem}")


def test_a_scikit_learn_selectors_counts_only_when_integers():
    rfe = "tests.test_data_limits:LogisticRFE"
    assert "selector.fixed.n_features_to_select: must be an integer in [1, 13]" in refusal(
        spec_of(selector={"name": rfe, "fixed": {"n_features_to_select": 14}}), 178, 13)
    accepted(spec_of(selector={"name": rfe, "search": {
        "n_features_to_select": {"low": 0.1, "high": 0.9}}}), 178, 13)  # fractions
    accepted(spec_of(selector={"name": "sklearn.feature_selection:SelectKBest",
                               "search": {"k": [2, 13]}}), 178, 13)
    fitted, notes = fit_to_data(spec_of(selector={
        "name": "sklearn.feature_selection:SelectKBest"}), 40, 6)  # its default k = 10
    assert dict(fitted.selectors[0].fixed) == {"k": 6}
    assert notes[0].startswith("selector.fixed.k: sklearn.feature_selection:SelectKBest's "
                               "default k = 10 is more than the data have: set to 6")


@pytest.mark.parametrize("rng, problem", [
    ([3, 9], "the range [3, 9] must draw an integer in [1, 5]"),
    ([7, 9], "the range [7, 9] must draw an integer in [1, 5]"),
    ({"choices": [2, 4, 6, 8]}, "every choice must be an integer in [1, 5]"),
])
def test_a_searched_feature_count_beyond_the_data_is_refused(rng, problem):
    spec = spec_of(selector={"name": "hybrid_rfe", "fixed": {"n_stable": 0},
                             "search": {"n_features": rng}})
    message = refusal(spec, 40, 5)
    assert message.startswith(f"<spec>: selector.search.n_features: {problem}, the features "
                              "selected, of the 5 features each run's selector sees "
                              "(tiny.csv: n = 40 samples, d = 5 features)")
    if rng == [3, 9]:  # a low bound within the data: the range that would do
        assert message.endswith("; e.g. n_features = [3, 5] in [selector.search].")
    elif isinstance(rng, dict):
        assert message.endswith("got 6, 8.")
    accepted(spec_of(selector={"name": "hybrid_rfe", "fixed": {"n_stable": 0},
                               "search": {"n_features": [3, 5]}}), 40, 5)


def test_a_selectors_default_range_beyond_the_data_is_clipped_and_said():
    """The elastic net's registry range of target_features reaches 50: on 30 features it
    is clipped to [5, 30], the spec returned searches that, and a note says so."""
    spec = spec_of(selector={"name": "elastic_net"})
    fitted, notes = fit_to_data(spec, 569, 30)
    (param,) = [p for p in fitted.selectors[0].search if p.name == "target_features"]
    assert (param.low, param.high, param.integer) == (5, 30, True)
    assert notes == ("selector.search.target_features: the selector's default range [5, 50] "
                     "clipped to [5, 30] (tiny.csv: n = 569 samples, d = 30 features)",)
    assert fitted.content_hash() != spec.content_hash()  # the study stores the clipped one
    assert fit_to_data(fitted, 569, 30) == (fitted, ())  # a stored spec is fitted already
    fitted, _ = fit_to_data(spec_of(data={"prefilter": 3}, selector={"name": "group_lasso"}),
                            569, 30)  # the pre-filter's d, and a low bound above it
    (param,) = [p for p in fitted.selectors[0].search if p.name == "target_features"]
    assert (param.low, param.high) == (3, 3)
    assert fit_to_data(spec, 569, 60) == (spec, ())  # within the data: unchanged


def test_a_range_the_spec_gives_is_refused_not_clipped():
    message = refusal(spec_of(selector={"name": "elastic_net",
                                        "search": {"target_features": [5, 40]}}), 569, 30)
    assert message.startswith("<spec>: selector.search.target_features: the range [5, 40] "
                              "must draw an integer in [1, 30], the features the penalty is "
                              "calibrated to select")
    assert message.endswith("e.g. target_features = [5, 30] in [selector.search].")
    # the registry's own bounds, written in the spec, are the spec's: refused alike
    written = refusal(spec_of(selector={"name": "elastic_net",
                                        "search": {"target_features": [5, 50]}}), 569, 30)
    assert written.startswith("<spec>: selector.search.target_features: the range [5, 50] "
                              "must draw")
    assert "(the selector's default range)" not in written


def test_target_features_is_not_checked_when_the_penalty_is_given():
    """With λ fixed or searched, the estimator does not use target_features: one beyond
    the data is accepted as written (without λ it is refused)."""
    for selector in ({"name": "lasso", "fixed": {"reg": 0.1, "target_features": 6}},
                     {"name": "lasso", "fixed": {"target_features": 6},
                      "search": {"reg": {"low": 0.01, "high": 1.0, "log": True}}}):
        accepted(spec_of(selector=selector), 40, 5)
    assert "selector.fixed.target_features" in refusal(
        spec_of(selector={"name": "lasso", "fixed": {"target_features": 6}}), 40, 5)


def test_keys_of_several_selectors_name_the_selectors_table():
    spec = spec_of(selector={"name": ["t_test", "relief"],
                             "fixed": {"t_test": {"n_features": 3},
                                       "relief": {"n_features": 8}}})
    assert "<spec>: selector.fixed.relief.n_features: must be an integer in [1, 6]" in \
        refusal(spec, 40, 6)
    spec = spec_of(selector={"name": ["t_test", "lasso"],
                             "fixed": {"t_test": {"n_features": 3}},
                             "search": {"lasso": {"target_features": [2, 9]}}})
    assert "<spec>: selector.search.lasso.target_features: the range [2, 9] must draw" in \
        refusal(spec, 40, 6)


def test_errors_name_the_spec_file(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('[study]\nname = "s"\n[data]\nsource = "tiny.csv"\nprefilter = 9\n'
                    '[selector]\nname = "t_test"\n[selector.fixed]\nn_features = 3\n',
                    encoding="utf-8")
    assert refusal(load_spec(path), 40, 5).startswith(f"{path}: data.prefilter: ")


# --------------------------------------------------------------------------- arrays, top-k


def test_per_feature_arrays_must_fit_the_data():
    groups = spec_of(selector={"name": "group_lasso",
                               "fixed": {"groups": [0, 0, 1, 1], "target_features": 2}})
    assert "selector.fixed.groups: must hold one value per feature of the data, 5" in \
        refusal(groups, 40, 5)
    accepted(groups, 40, 4)
    # the protocol takes each run's pre-filtered groups: the groups are the data's
    accepted(spec_of(data={"prefilter": 3},
                     selector={"name": "group_lasso",
                               "fixed": {"groups": [0, 0, 1, 1, 2],
                                         "target_features": 2}}), 40, 5)
    beta = spec_of(data={"prefilter": 3},
                   selector={"name": "biased_rfe",
                             "fixed": {"n_features": 2, "beta": [1.0, 2.0, 3.0, 4.0]}})
    assert "selector.fixed.beta: must hold one value per feature each run's selector sees, " \
           "3" in refusal(beta, 40, 5)
    prior = spec_of(selector={"name": "biased_rfe", "fixed": {"n_features": 2,
                                                              "prior": [0, 4, 7]}})
    assert "selector.fixed.prior: must hold feature indices in [0, 5)" in refusal(prior, 40, 5)
    assert refusal(prior, 40, 5).endswith("got 7.")
    accepted(prior, 40, 8)


def test_a_top_k_beyond_the_features_is_refused():
    """The runs rank every feature of the data (the pre-filtered-out ones last)."""
    spec = spec_of(data={"prefilter": 4},
                   objective={"stability": "canberra", "options": {"k": 6}, "record": []})
    assert refusal(spec, 40, 5).startswith(
        "<spec>: objective.options.k: must be at most 5, the features ranked (tiny.csv: n = "
        "40 samples, d = 5 features, 4 kept by data.prefilter); got 6.")
    accepted(spec, 40, 6)


# --------------------------------------------------------------------------- property


def trial_fails(spec, X: np.ndarray, y: np.ndarray) -> bool:
    """Whether a trial of ``spec`` on ``(X, y)`` fails: it raises, or its accuracy or
    stability is undefined (the tuning objective's reasons)."""
    problem = Problem(spec, X, y, tuple(f"f{j}" for j in range(X.shape[1])))
    params = {p.name: p.low for p in spec.selectors[0].search}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs = problem.run(params, random_state=0)
            stability = problem.measure_values(runs)[spec.objective.stability]
    except InvalidInputError:
        return True
    return math.isnan(runs.accuracy) or math.isnan(stability)


@settings(max_examples=60)
@given(d=st.integers(1, 6), prefilter=st.none() | st.integers(1, 7),
       n_features=st.integers(0, 7), selector=st.sampled_from(["hybrid_rfe", "t_test"]),
       seed=st.integers(0, 2**16))
def test_the_check_refuses_exactly_the_specs_whose_trials_fail(d, prefilter, n_features,
                                                               selector, seed):
    fixed = {"n_features": n_features, **({"n_stable": 0} if selector == "hybrid_rfe" else {})}
    spec = spec_of(data={"prefilter": prefilter} if prefilter else {},
                   selector={"name": selector, "fixed": fixed})
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b"], 8)
    X = rng.standard_normal((16, d)) + (y == "b")[:, None] * rng.uniform(0, 1, d)
    try:
        fit_to_data(spec, 16, d)
        refused = False
    except InvalidInputError:
        refused = True
    assert refused == trial_fails(spec, X, y)


# --------------------------------------------------------------------------- shipped studies


@functools.cache
def data_size(source: str, label: str, impute: str | None) -> tuple[int, int]:
    data = load_dataset(source, label=label, impute=impute, random_state=0)
    return data.n_samples, data.n_features


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(STUDIES.glob("*.toml")), ids=lambda p: p.stem)
def test_every_shipped_study_passes_against_its_data(path):
    spec = load_spec(path)
    source = spec.data.source
    if source.partition(":")[0] not in BUILTIN_SOURCES and not Path(source).exists():
        if not SHARED_DATA.is_dir():
            pytest.skip(f"../shared/data (the shared benchmark data) is absent: {source}")
        pytest.fail(f"{path.name}: its data {source} are not in {SHARED_DATA}")
    accepted(spec, *data_size(source, spec.data.label, spec.data.impute))


# --------------------------------------------------------------------------- duplicate names


def write_csv(path: Path, header: list[str], rows: int = 6) -> Path:
    """Labels a, b, a, …; features of distinct numbers that are not the row numbers (which
    would name the samples)."""
    lines = [",".join(header)]
    lines += [",".join(["ab"[i % 2]] + [str(2 * i + j) for j in range(len(header) - 1)])
              for i in range(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_duplicate_feature_names_are_refused(tmp_path):
    """pandas would read f1, f1.1, f1 as f1, f1.1, f1.2: the names are read as written."""
    path = write_csv(tmp_path / "dup.csv", ["label", "f1", "f1.1", "f1", "f2"])
    with pytest.raises(InvalidInputError) as caught:
        load_dataset(path)
    assert str(caught.value) == ("dup.csv: duplicate column names: f1 (2 times); every "
                                 "column needs a name of its own.")


def test_a_duplicate_label_column_is_refused(tmp_path):
    path = write_csv(tmp_path / "dup.csv", ["label", "f0", "label", "f1"])
    with pytest.raises(InvalidInputError, match=r"^dup.csv: duplicate column names: "
                                                r"label \(2 times\);"):
        load_dataset(path)
    gz = tmp_path / "dup.csv.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    with pytest.raises(InvalidInputError, match=r"^dup.csv.gz: duplicate column names: label"):
        load_dataset(gz)


def test_names_that_only_look_like_renamed_copies_are_kept(tmp_path):
    path = write_csv(tmp_path / "ok.csv", ["label", "f1", "f1.1", "", ""])
    assert load_dataset(path).feature_names == ("f1", "f1.1", "Unnamed: 3", "Unnamed: 4")


def test_duplicate_feature_names_of_an_npz_are_refused(tmp_path):
    path = tmp_path / "dup.npz"
    np.savez(path, X=np.arange(12.0).reshape(4, 3), y=np.array([0, 1, 0, 1]),
             feature_names=np.array(["a", "b", "a"]))
    with pytest.raises(InvalidInputError, match=r"^dup.npz: duplicate column names: a "):
        load_dataset(path)


# --------------------------------------------------------------------------- the command line


def tiny_study(folder: Path, *, d: int = 5, data: str = "", fixed: str = "n_features = 3",
               header: list[str] | None = None, classes: str = "ab") -> Path:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.standard_normal((40, d)), columns=header or
                         [f"f{j}" for j in range(d)])
    frame.insert(0, "label", [classes[i % len(classes)] for i in range(40)])
    frame.to_csv(folder / "tiny.csv", index=False)
    spec = folder / "tiny.toml"
    spec.write_text(f'[study]\nname = "tiny"\n[data]\nsource = "tiny.csv"\n{data}\n'
                    f'[protocol]\nruns = 2\n[selector]\nname = "hybrid_rfe"\n'
                    f'[selector.fixed]\n{fixed}\nn_stable = 0\n', encoding="utf-8")
    return spec


@pytest.mark.slow
@pytest.mark.parametrize("case, storage, expected", [
    ({"data": "prefilter = 50"}, "sqlite:///x.db",
     "data.prefilter: must be at most 5, the data's features (tiny.csv: n = 40 samples, d = 5 "
     "features); got 50."),
    ({"fixed": "n_features = 9"}, None,
     "selector.fixed.n_features: must be an integer in [1, 5], the features selected, of the "
     "5 features each run's selector sees (tiny.csv: n = 40 samples, d = 5 features); got 9."),
    ({"d": 1, "fixed": "n_features = 1"}, "sqlite:///x.db",
     "data.source: selecting features needs at least 2 features; the data have 1 (tiny.csv: "
     "n = 40 samples, d = 1 feature)."),
    ({"header": ["f1", "f1", "f1.1", "f2", "f3"]}, None,
     "tiny.csv: duplicate column names: f1 (2 times)"),
    ({"classes": "a"}, "sqlite:///x.db",
     "the labels have a single class"),
], ids=["prefilter", "n_features", "one-feature", "duplicate-names", "one-class"])
def test_tune_refuses_before_creating_anything(tmp_path, case, storage, expected):
    """Exit 2, one ``error:`` line naming the key and the data's size, no database (the
    default one or the one given), no artifact folder. (The one-class data were refused
    when loaded already.)"""
    spec = tiny_study(tmp_path, **case)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = subprocess.run([sys.executable, "-m", "paretostab", "tune", spec.name,
                             "--n-trials", "2", *(["--storage", storage] if storage else [])],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-2000:]
    assert expected in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_tiny_study_at_the_limits_loads(tmp_path):
    """Every feature kept by the pre-filter and selected: within the limits."""
    spec = load_spec(tiny_study(tmp_path, data="prefilter = 5", fixed="n_features = 5"))
    assert Problem.from_spec(spec).X.shape == (40, 5)


def test_the_whole_data_refit_takes_the_prefilters_groups():
    """A group lasso on the data's groups, pre-filtered: the refit on the whole data
    takes the kept features' groups, as each run does."""
    spec = parse_spec({"study": {"name": "g"},
                       "data": {"source": "simulated:n_groups=3,group_size=3,n_other=10,"
                                          "n_per_class=15", "prefilter": 12},
                       "protocol": {"runs": 2},
                       "selector": {"name": "group_lasso",
                                    "fixed": {"groups": "data", "target_features": 4}},
                       "objective": {"stability": "nogueira", "record": []}})
    problem = Problem.from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        selection = problem.whole_data_selection({})
    assert len(selection) > 0 and selection["index"].between(0, 18).all()



@pytest.mark.slow
def test_tune_says_what_it_clipped_and_the_study_stores_the_clipped_space(tmp_path):
    """The lasso's default target_features range [5, 50] on 8 features: one line on stderr,
    the study's stored spec searches [5, 8], and every trial draws within it."""
    spec = tiny_study(tmp_path, d=8)
    spec.write_text(spec.read_text().replace('name = "hybrid_rfe"', 'name = "lasso"')
                    .replace("[selector.fixed]\nn_features = 3\nn_stable = 0\n", ""),
                    encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "paretostab", "tune", spec.name,
                             "--n-trials", "3", "--storage", "sqlite:///x.db"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert ("selector.search.target_features: the selector's default range [5, 50] clipped "
            "to [5, 8] (tiny.csv: n = 40 samples, d = 8 features)") in result.stderr
    study = optuna.load_study(study_name="tiny", storage=f"sqlite:///{tmp_path / 'x.db'}")
    assert study.user_attrs["spec"]["selector"]["search"]["target_features"] == [5, 8]
    assert {t.state for t in study.trials} == {optuna.trial.TrialState.COMPLETE}
    assert all(5 <= t.params["target_features"] <= 8 for t in study.trials)
    resumed = subprocess.run([sys.executable, "-m", "paretostab", "tune", spec.name,
                              "--n-trials", "4", "--storage", "sqlite:///x.db"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]  # the clipped spec is the study's
    assert len(optuna.load_study(study_name="tiny", storage=f"sqlite:///{tmp_path / 'x.db'}")
               .trials) == 4


@pytest.mark.slow
def test_tune_says_once_that_imbalanced_classes_have_a_balanced_metric(tmp_path):
    spec = tiny_study(tmp_path, classes="aab")  # 27 a, 13 b: 32.5 % < 40 %
    result = subprocess.run([sys.executable, "-m", "paretostab", "tune", spec.name,
                             "--n-trials", "2", "--storage", "sqlite:///x.db"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr.count("note: the classes are imbalanced (the smallest, 'b', holds "
                               "13 of 40 examples; the majority class alone scores accuracy "
                               "0.675)") == 1
