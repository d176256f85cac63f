"""Your own selector (issue 20, part 3): any scikit-learn estimator as a selector — by
``"module:Class"`` in a spec, as an instance in the Python API, or through an entry
point — with its final model, importances and rankings."""

from __future__ import annotations

import importlib.metadata
import json
import pickle
import re

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_wine
from sklearn.feature_selection import SelectFromModel, SelectKBest
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import NearestCentroid
from sklearn.svm import LinearSVC

from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab._problem import Problem, measure_values
from paretostab._protocol import run_protocol
from paretostab._runset import RunSet
from paretostab._tuning import run_study
from paretostab.data import simulate_correlated_groups
from paretostab.selectors import (
    ENTRY_POINT_GROUP,
    ExternalSelector,
    Range,
    SelectorInfo,
    TTestSelector,
    get_selector,
)
from paretostab.spec import json_schema, parse_spec
from tests.user_studies import MySelector

MY_SELECTOR = "tests.user_studies:MySelector"


class CentroidSelector(ClassifierMixin, MySelector):
    """A selector that predicts itself (nearest centroid on its features) and has no
    weights: its final model gives no importances."""

    def fit(self, X, y):
        super().fit(X, y)
        self.centroid_ = NearestCentroid().fit(X[:, self.mask_], y)
        self.classes_ = self.centroid_.classes_
        return self

    def predict(self, X):
        return self.centroid_.predict(X[:, self.mask_])


#: What an entry point may load: a registry entry (registered under the entry's name).
PLUGIN_INFO = SelectorInfo("ignored", TTestSelector, search_space={"n_features": Range(2, 5)})


@pytest.fixture(scope="module")
def binary():
    data = simulate_correlated_groups(n_per_class=25, n_other=20, random_state=0)
    return data.X, data.y


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True)


def one_line(exc_info) -> str:
    message = str(exc_info.value)
    assert "\n" not in message
    return message


def base_spec(selector: dict, source: str = "breast_cancer", **objective) -> dict:
    return {"study": {"name": "own", "trials": 3, "seed": 0, "sampler": "random"},
            "data": {"source": source}, "protocol": {"runs": 3}, "selector": selector,
            "objective": {"stability": "nogueira", "record": ["pearson", "iw"], **objective}}


def wine_csv(folder) -> str:
    """The wine data (K = 3 classes, 13 features) as a CSV file with a ``label`` column."""
    X, y = load_wine(return_X_y=True)
    path = folder / "wine.csv"
    header = ",".join(f"f{j}" for j in range(X.shape[1]))
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header + ",label",
               comments="", fmt=["%.6g"] * X.shape[1] + ["%d"])
    return str(path)


# ----------------------------------------------------------------------- by name


def test_a_class_of_a_test_module_is_a_selector_by_its_name(binary):
    spec = parse_spec(base_spec({"name": MY_SELECTOR, "search": {"n_keep": [2, 6]},
                                 "fixed": {"final_reg": 0.5}}))
    selector = spec.selectors[0]
    assert selector.name == MY_SELECTOR and dict(selector.fixed) == {"final_reg": 0.5}
    assert [(p.name, p.low, p.high, p.integer) for p in selector.search] == [
        ("n_keep", 2, 6, True)]  # no default search space: only the spec's
    info = get_selector(MY_SELECTOR)
    assert info.estimator is MySelector and not info.search_space
    assert info.parameters() == {"final_reg": 1.0, "n_keep": 3}  # no n_features: it selects
    estimator = info.make(final_reg=0.5, n_keep=4)
    assert isinstance(estimator, ExternalSelector) and estimator.final_reg == 0.5
    assert estimator.estimator.n_keep == 4
    copy = pickle.loads(pickle.dumps(estimator))  # what worker processes receive
    assert copy.get_params()["estimator__n_keep"] == 4

    X, y = binary
    runs = run_protocol(estimator, X, y, runs=4, random_state=1)
    assert runs.selector == "MySelector" and runs.has_importances
    assert (runs.selection_matrix.sum(axis=1) == 4).all()
    assert np.all((runs.importance_matrix > 0) == runs.selection_matrix)
    assert runs.rank_matrix is not None  # ranked by its scores_, the kept features first
    assert np.all(runs.rank_matrix[runs.selection_matrix] <= 4)
    assert runs.accuracy > 0.6


def test_json_schema_takes_module_class_names():
    name = json_schema()["properties"]["selector"]["properties"]["name"]
    patterns = [part["pattern"] for part in name["anyOf"] if "pattern" in part]
    assert patterns and re.match(patterns[0], MY_SELECTOR)
    assert re.match(patterns[0], "sklearn.feature_selection:SelectKBest")
    assert not re.match(patterns[0], "lasoo")
    assert "lasso" in name["anyOf"][0]["enum"]


@pytest.mark.parametrize(("name", "fragments"), [
    ("no_such_package.mod:X", ["cannot import module 'no_such_package.mod'",
                               "ModuleNotFoundError"]),
    ("tests.test_external_selector:Missing", ["module 'tests.test_external_selector' has "
                                              "no attribute 'Missing'"]),
    ("tests.test_external_selector:one_line", ["is not a scikit-learn estimator class"]),
    ("sklearn.feature_selection:SelectFromModel", ["SelectFromModel() fails without "
                                                   "arguments", "needs a default"]),
    ("lasoo", ["Unknown selector 'lasoo'. Did you mean 'lasso'?"]),
])
def test_bad_names_fail_in_one_line(name, fragments):
    with pytest.raises(UnknownNameError) as exc_info:
        parse_spec(base_spec({"name": name}))
    message = one_line(exc_info)
    assert message.startswith("<dict>: selector.name: ")
    for fragment in fragments:
        assert fragment in message


def test_a_class_object_is_named_by_its_module_and_name():
    """The shortest module that exports it: the name a person writes, not the private
    module that defines it."""
    assert get_selector(SelectKBest).name == "sklearn.feature_selection:SelectKBest"
    assert get_selector(MySelector).name == MY_SELECTOR
    with pytest.raises(UnknownNameError) as exc_info:
        get_selector(SelectKBest(k=5))
    assert "selector instance carries parameters" in one_line(exc_info)


def test_the_python_api_takes_a_class_or_an_instance_as_the_selector():
    """Stored as the "module:Class" text and fixed parameters a file would write: the
    same spec, the same hash, resumable; the table's own values win."""
    written = parse_spec(base_spec({"name": "sklearn.feature_selection:SelectKBest",
                                    "fixed": {"k": 5}}))
    assert parse_spec(base_spec({"name": SelectKBest(k=5)})) == written
    assert parse_spec(base_spec({"name": SelectKBest(k=5)})).content_hash() == \
        written.content_hash()
    (selector,) = parse_spec(base_spec({"name": SelectKBest})).selectors
    assert selector.name == "sklearn.feature_selection:SelectKBest" and not selector.fixed
    (selector,) = parse_spec(base_spec({"name": SelectKBest(k=5), "fixed": {"k": 7},
                                        })).selectors
    assert dict(selector.fixed) == {"k": 7}
    (selector,) = parse_spec(base_spec({"name": SelectKBest(k=5),
                                        "search": {"k": [2, 9]}})).selectors
    assert not selector.fixed and [p.name for p in selector.search] == ["k"]
    (selector,) = parse_spec(base_spec({"name": ExternalSelector(MySelector(n_keep=4),
                                                                 final_reg=0.5)})).selectors
    assert (selector.name, dict(selector.fixed)) == (MY_SELECTOR, {"final_reg": 0.5,
                                                                   "n_keep": 4})
    spec = parse_spec(base_spec({"name": [MySelector(n_keep=2), "t_test"]}))
    assert [(s.name, dict(s.fixed)) for s in spec.selectors][0] == (MY_SELECTOR,
                                                                    {"n_keep": 2})
    assert json.loads(json.dumps(spec.to_dict()))["selector"]["name"][0] == MY_SELECTOR


def test_an_instance_a_spec_cannot_store_is_refused_in_one_line():
    with pytest.raises(InvalidInputError) as exc_info:
        parse_spec(base_spec({"name": SelectFromModel(LogisticRegression())}))
    message = one_line(exc_info)
    assert message.startswith("<dict>: selector.name: SelectFromModel(estimator="
                              "LogisticRegression()): a study stores its selector as text")
    assert "estimator is not a number, string, boolean or array of them" in message
    assert "define in a module a subclass" in message

    def local():
        class Local(MySelector):
            pass
        return Local

    with pytest.raises(UnknownNameError) as exc_info:
        parse_spec(base_spec({"name": local()}))
    assert "define the class at the top level of a module" in one_line(exc_info)


def test_run_protocol_wraps_a_scikit_learn_selector(binary):
    X, y = binary
    plain = run_protocol(SelectKBest(k=5), X, y, runs=3, random_state=0, progress=False)
    wrapped = run_protocol(ExternalSelector(SelectKBest(k=5)), X, y, runs=3, random_state=0,
                           progress=False)
    assert plain.same_runs(wrapped) and plain.selector == "SelectKBest"
    with pytest.raises(InvalidInputError) as exc_info:
        run_protocol(LogisticRegression(), X, y, runs=3)
    assert "ExternalSelector(LogisticRegression(...), n_features=k)" in one_line(exc_info)
    with pytest.raises(InvalidInputError, match="needs a selector instance"):
        run_protocol(SelectKBest, X, y, runs=3)


def test_an_unknown_parameter_of_the_wrapped_class_is_refused():
    with pytest.raises(UnknownNameError, match=r"selector.search.kk: not a parameter of "
                                               r"sklearn.feature_selection:SelectKBest "
                                               r"\(SelectKBest\)\. Did you mean 'k'\?"):
        parse_spec(base_spec({"name": "sklearn.feature_selection:SelectKBest",
                              "search": {"kk": [2, 5]}}))


# ----------------------------------------------------------------------- tuned


def test_select_k_best_is_tuned_over_k(tmp_path):
    spec = parse_spec(base_spec({"name": "sklearn.feature_selection:SelectKBest",
                                 "search": {"k": [2, 10]}}, source=wine_csv(tmp_path)))
    study = run_study(spec, storage=f"sqlite:///{tmp_path / 'study.db'}", progress=False)
    trials = study.get_trials(deepcopy=False)
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 3
    for trial in trials:
        assert 2 <= trial.params["k"] <= 10
        assert trial.user_attrs["mean_selected"] == trial.params["k"]
        assert set(trial.user_attrs["measures"]) == {"nogueira", "pearson", "iw"}
        assert 0.8 < trial.values[0] <= 1  # K = 3 classes: the L2-logistic final model
    reloaded = optuna.load_study(study_name="own", storage=f"sqlite:///{tmp_path / 'study.db'}")
    assert json.loads(json.dumps(reloaded.user_attrs))  # the spec is stored as text


def test_a_study_whose_objective_needs_importances_is_refused_before_it_opens(tmp_path):
    """CentroidSelector selects and predicts itself: one fit shows it has no importances,
    and tune refuses in one line, having created nothing."""
    spec = parse_spec(base_spec({"name": "tests.test_external_selector:CentroidSelector"},
                                stability="iw", record=["nogueira"]))
    with pytest.raises(InvalidInputError) as exc_info:
        run_study(spec, storage=f"sqlite:///{tmp_path / 'study.db'}", n_trials=1, progress=False)
    assert one_line(exc_info) == (
        "<spec>: objective.stability: φ_iw (iw) needs feature importances; CentroidSelector "
        "gives no feature importances (its own final model has no coef_ or "
        "feature_importances_): choose a subset measure such as nogueira.")
    assert not (tmp_path / "study.db").exists()


def test_recorded_measures_left_out_and_an_empty_search_are_said():
    spec = parse_spec(base_spec({"name": "tests.test_external_selector:CentroidSelector"}))
    notes = Problem.from_spec(spec).notes
    assert ("objective.record: φ_pears (pearson), φ_iw (iw) left out of every trial: they "
            "need feature importances, and CentroidSelector gives no feature importances (its "
            "own final model has no coef_ or feature_importances_).") in notes
    assert ("selector.search: nothing is searched: every trial runs "
            "tests.test_external_selector:CentroidSelector at the same setting (on the same "
            "resamples: the same result); add the ranges to tune to [selector.search], e.g. "
            "n_keep = { low = …, high = … }.") in notes
    searched = parse_spec(base_spec({"name": "sklearn.feature_selection:SelectKBest",
                                     "search": {"k": [2, 8]}}))
    assert not [n for n in Problem.from_spec(searched).notes
                if n.startswith(("objective.record", "selector.search"))]


# ----------------------------------------------------------------------- the Python API


def test_missing_importances_are_detected_and_reported_in_one_line(binary, tmp_path):
    X, y = binary
    runs = run_protocol(ExternalSelector(CentroidSelector(n_keep=4)), X, y, runs=3,
                        random_state=0)
    assert not runs.has_importances and runs.selector == "CentroidSelector"
    assert np.array_equal(runs.importance_matrix, runs.selection_matrix.astype(float))
    assert runs.accuracy > 0.6  # its own nearest-centroid prediction
    with pytest.raises(InvalidInputError) as exc_info:
        runs.stability("pearson")
    assert one_line(exc_info) == ("φ_pears (pearson) needs feature importances; "
                                  "CentroidSelector gives none: choose a subset measure such "
                                  "as nogueira.")
    values = measure_values(runs, ["nogueira", "iw"])  # recorded: left out
    assert list(values) == ["nogueira"]
    with pytest.raises(InvalidInputError, match="φ_iw"):
        measure_values(runs, ["nogueira", "iw"], required=["iw"])
    loaded = RunSet.load(runs.save(tmp_path / "runs.npz"))
    assert loaded.same_runs(runs) and not loaded.has_importances


def test_select_k_best_on_three_classes(wine):
    X, y = wine
    selector = ExternalSelector(SelectKBest(k=5), final_reg=0.1).fit(X, y)
    assert selector.support_.sum() == 5 and selector.coef_.shape == (3, 5)
    assert selector.decision_function(X).shape == (len(y), 3)
    assert selector.score(X, y) > 0.9
    scores = selector.estimator_.scores_
    assert set(np.flatnonzero(selector.support_)) == set(np.argsort(-scores)[:5])
    assert np.array_equal(np.argsort(selector.rank_order_), np.argsort(-scores, kind="stable"))
    assert np.all(selector.importances_[~selector.support_] == 0)
    assert np.isclose(selector.importances_.sum(), 5)  # I_lin of the final model
    assert selector.transform(X).shape == (len(y), 5)


@pytest.mark.parametrize("estimator", [
    LinearSVC(C=0.1),
    SelectFromModel(LogisticRegression(l1_ratio=1.0, C=0.2, solver="saga", max_iter=5000)),
], ids=["linear_svc", "select_from_model_l1"])
def test_coef_based_selectors_keep_their_largest_weights(estimator, wine, binary):
    for X, y in (wine, binary):
        ranked = not hasattr(estimator, "get_support")
        selector = ExternalSelector(estimator, n_features=4 if ranked else None).fit(X, y)
        kept = np.flatnonzero(selector.support_)
        coef = np.atleast_2d((selector.estimator_ if ranked
                              else selector.estimator_.estimator_).coef_)
        weight = np.sqrt((coef ** 2).sum(axis=0))
        if ranked:
            assert kept.size == 4
            assert set(kept) == set(np.argsort(-weight, kind="stable")[:4])
            assert selector.final_model_.coef_.shape[1] == 4  # refitted on the kept
        else:
            assert set(kept) == set(np.flatnonzero(weight > 1e-5 * weight.max()))
        assert np.all(selector.rank_order_[kept] <= kept.size)  # the kept ones first
        assert np.all(selector.importances_[kept] >= 0)
        assert np.all(selector.importances_[~selector.support_] == 0)
        assert selector.score(X, y) > 0.8


def test_a_classifier_ranked_by_weight_predicts_on_its_kept_features_only(binary):
    X, y = binary
    selector = ExternalSelector(LinearSVC(), n_features=3).fit(X, y)
    noisy = X.copy()
    noisy[:, ~selector.support_] = 1e6  # the features it did not keep do not matter
    assert np.array_equal(selector.predict(noisy), selector.predict(X))


def test_n_features_is_refused_for_a_selector_that_selects_itself(binary):
    X, y = binary
    with pytest.raises(InvalidInputError) as exc_info:
        ExternalSelector(SelectKBest(k=3), n_features=5).fit(X, y)
    assert "set its own parameter instead" in one_line(exc_info)
    with pytest.raises(InvalidInputError) as exc_info:
        ExternalSelector(NearestCentroid()).fit(X, y)
    assert "NearestCentroid cannot select features" in one_line(exc_info)


@pytest.mark.slow
def test_runs_do_not_depend_on_processes_and_seed_the_estimator(binary):
    from sklearn.ensemble import RandomForestClassifier

    X, y = binary
    forest = ExternalSelector(RandomForestClassifier(n_estimators=10), n_features=5)
    first = run_protocol(forest, X, y, runs=3, random_state=4)
    assert first.same_runs(run_protocol(forest, X, y, runs=3, random_state=4))
    k_best = ExternalSelector(SelectKBest, final_reg=2.0)  # a class: its defaults (k=10)
    one = run_protocol(k_best, X, y, runs=4, random_state=2)
    assert one.same_runs(run_protocol(k_best, X, y, runs=4, random_state=2, n_jobs=2))
    assert (one.selection_matrix.sum(axis=1) == 10).all()


# ----------------------------------------------------------------------- entry points


def test_entry_points_register_selectors(monkeypatch, binary):
    entries = importlib.metadata.EntryPoints([
        importlib.metadata.EntryPoint("my_plugin", MY_SELECTOR, ENTRY_POINT_GROUP),
        importlib.metadata.EntryPoint("plugin_t_test", "tests.test_external_selector:PLUGIN_INFO",
                                      ENTRY_POINT_GROUP),
        importlib.metadata.EntryPoint("broken", "tests.test_external_selector:base_spec",
                                      ENTRY_POINT_GROUP),
    ])

    def entry_points(**selection):
        return entries.select(**selection)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    info = get_selector("my_plugin")
    assert info.name == "my_plugin" and info.estimator is MySelector
    plugin = get_selector("plugin_t_test")
    assert plugin.name == "plugin_t_test" and plugin.estimator is TTestSelector
    spec = parse_spec(base_spec({"name": "plugin_t_test"}))
    assert [p.name for p in spec.selectors[0].search] == ["n_features"]  # its default space
    spec = parse_spec(base_spec({"name": ["my_plugin", "t_test"],
                                 "fixed": {"my_plugin": {"n_keep": 2}}}))
    assert dict(spec.selectors[0].fixed) == {"n_keep": 2}
    with pytest.raises(UnknownNameError, match="Did you mean 'my_plugin'?"):
        get_selector("my_plugn")
    with pytest.raises(UnknownNameError) as exc_info:
        get_selector("broken")
    assert "entry point 'tests.test_external_selector:base_spec' is not a scikit-learn " \
           "estimator class" in one_line(exc_info)



class Diverged(ClassifierMixin, BaseEstimator):
    """A classifier whose fit diverged: its weights (``attribute``: ``coef_`` or
    ``feature_importances_``) hold an infinity and a NaN."""

    def __init__(self, attribute="coef_"):
        self.attribute = attribute

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        weights = np.ones(X.shape[1])
        weights[[0, 2]] = [np.inf, np.nan]
        setattr(self, self.attribute, weights[None, :] if self.attribute == "coef_" else weights)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


@pytest.mark.parametrize("attribute", ["coef_", "feature_importances_"])
def test_weights_that_are_not_finite_are_the_estimators_failure(binary, attribute):
    """NaN or infinite weights are refused in one line naming the estimator and the
    attribute, never read as zero weights that select and rank."""
    X, y = binary
    with pytest.raises(InvalidInputError) as exc_info:
        ExternalSelector(Diverged(attribute), n_features=3).fit(X, y)
    assert (f"Diverged.{attribute} holds 2 NaN or infinite values of {X.shape[1]} after fit"
            in one_line(exc_info))
