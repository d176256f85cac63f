"""The Pareto search inside scikit-learn: :class:`ParetoSearchCV`, a meta-estimator that
tunes a feature selector for accuracy *and* stability (a study of the package), chooses
the trade-off with γ (003 §7.1) and is, once fitted, the chosen setting refitted on all the
data: a selector (``get_support``, ``transform``) and a classifier (``predict``,
``score``) that a ``Pipeline``, ``cross_validate`` and ``clone`` take as any
``*SearchCV``.

It is a layer over the main jobs: ``fit`` writes the study spec the arguments describe
(:func:`search_spec`), runs it with :func:`paretostab.tune` on the data in memory, and
chooses with :func:`paretostab.choose` (never a trial flagged at chance level, unless every
trial is); the chosen model is :meth:`paretostab.Choice.model`.

>>> from paretostab.search import ParetoSearchCV
>>> search = ParetoSearchCV("t_test", {"n_features": (2, 10)}, runs=10, n_trials=20)
>>> search.fit(X, y).pareto_front_                          # doctest: +SKIP
>>> search.set_params(gamma=0.8).rechoose().best_params_    # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from paretostab._errors import InvalidInputError
from paretostab._validation import COUNT, Interval, is_int, is_number

if TYPE_CHECKING:
    import pandas as pd

    from paretostab._api import Choice, Report, TunedStudy

__all__ = ["STUDY_PREFIX", "ParetoSearchCV", "search_distributions", "search_spec"]

#: The protocol's runs: two at least (a stability needs two selections).
_RUNS = Interval("integer", 2, why=" (the resampled runs of every trial)")
#: γ, the weight of accuracy in γA + (1 − γ)φ (003 §7.1).
_GAMMA = Interval("number", 0, 1, why=" (the weight of accuracy in the trade-off)")
#: The start of the name of every study a search runs: ``ParetoSearchCV-<hash>``, the
#: hash of its spec and data.
STUDY_PREFIX = "ParetoSearchCV"


def _distribution(name: str, value: object) -> dict[str, object]:
    """One entry of ``param_distributions`` as the spec's ``[selector.search]`` holds it."""
    if isinstance(value, Mapping):  # the spec's own form: {low, high, log} or {choices}
        return dict(value)
    if isinstance(value, list):
        return {"choices": list(value)}
    if isinstance(value, tuple) and len(value) == 2 and all(is_number(v) for v in value):
        return {"low": value[0], "high": value[1]}
    if hasattr(value, "choices"):  # optuna's CategoricalDistribution
        return {"choices": list(value.choices)}
    if all(hasattr(value, a) for a in ("low", "high", "log")):  # Int/FloatDistribution
        step = getattr(value, "step", None)
        if step not in (None, 1):
            raise InvalidInputError(
                f"param_distributions[{name!r}]: a range with step {step!r} is not searched "
                "(a study searches ranges without steps); give [choices] instead.")
        low, high, log = (getattr(value, a) for a in ("low", "high", "log"))
        return {"low": low, "high": high, "log": bool(log)}
    raise InvalidInputError(
        f"param_distributions[{name!r}] must be a range (low, high), a list of choices or "
        f"an optuna distribution; got {value!r}.")


def search_distributions(param_distributions: Mapping[str, object] | None
                         ) -> dict[str, dict[str, object]]:
    """``param_distributions`` as a spec's ``[selector.search]`` table: a tuple
    ``(low, high)`` is a range (integers when both bounds are), a list its choices (as
    scikit-learn's ``RandomizedSearchCV`` reads a list), an optuna ``IntDistribution`` /
    ``FloatDistribution`` (without a step) a range with its ``log``, a
    ``CategoricalDistribution`` its choices, and a mapping the spec's own
    ``{low, high, log}`` or ``{choices}``.

    Parameters
    ----------
    param_distributions : mapping of str to range, list or distribution, or None
        None: the registry's default search space alone.
    """
    if param_distributions is None:
        return {}
    if not isinstance(param_distributions, Mapping):
        raise InvalidInputError(
            "param_distributions must be a dict of parameter name to a range (low, high), a "
            f"list of choices or an optuna distribution; got "
            f"{type(param_distributions).__name__}.")
    return {str(name): _distribution(str(name), value)
            for name, value in param_distributions.items()}


def _selector_table(selector: object, search: dict[str, dict[str, object]]) -> dict:
    """The spec's ``[selector]`` table of ``selector``: a registry name as it is; an
    instance of a selector class of the registry as the registry's entry of that class
    that fixes nothing (``HybridRFE(...)`` is ``hybrid_rfe``, whose default search space
    applies), the parameters set on it fixed unless searched; any other estimator as its
    ``"module:Class"`` with its parameters fixed (:func:`~paretostab.selectors.
    selector_reference`)."""
    from paretostab.selectors import SELECTORS, selector_reference

    table: dict[str, object] = {"search": search}
    if isinstance(selector, str):
        return {"name": selector, **table}
    entries = {info.estimator: name for name, info in reversed(SELECTORS.items())
               if not info.fixed}
    if type(selector) in entries:
        _, given = selector_reference(selector)
        return {"name": entries[type(selector)],
                "fixed": {k: v for k, v in given.items() if k not in search}, **table}
    return {"name": selector, **table}


def search_spec(search: ParetoSearchCV, seed: int) -> dict[str, Any]:
    """The study spec (in the TOML layout, without its name and data) that ``search``'s
    parameters describe, with the sampler's and resamples' ``seed``; it records the
    stability measure of the objective alone (``[objective] record``: no other measure is
    computed on each trial).

    Parameters
    ----------
    search : ParetoSearchCV
    seed : int
        ``[study] seed``.
    """
    if search.classifier is not None:
        raise InvalidInputError(
            "classifier: a study scores each run with the selector's own final model (SPEC "
            "§1), and its spec cannot hold another classifier; leave classifier=None (a "
            "scikit-learn selector that cannot predict is followed by the package's "
            "L2-logistic model, its final_reg searchable).")
    return {"study": {"trials": COUNT.integer("n_trials", search.n_trials), "seed": seed},
            "protocol": {"runs": _RUNS.integer("runs", search.runs), "metric": search.metric},
            "selector": _selector_table(search.selector,
                                        search_distributions(search.param_distributions)),
            "objective": {"stability": search.stability, "record": [search.stability]}}


def _chosen_has(name: str):
    """Whether a search offers the chosen model's method ``name`` (``available_if``:
    unfitted, it offers it; fitted, as its ``best_estimator_`` does)."""
    return lambda search: (not hasattr(search, "best_estimator_")
                           or hasattr(search.best_estimator_, name))


def _chosen_method(name: str, what: str):
    """The search's method ``name``: the chosen model's, on ``X`` checked against the
    fitted features and given the names it was fitted with."""
    def method(self, X) -> np.ndarray:
        X = self._frame(X)
        return getattr(self.best_estimator_, name)(X)

    method.__name__, method.__qualname__ = name, f"ParetoSearchCV.{name}"
    method.__doc__ = (f"The chosen model's {what} for ``X``.\n\nParameters\n----------\n"
                      "X : array-like or DataFrame (n, d)\n"
                      "    The d fitted features (named as fitted, when on a DataFrame).\n")
    return method


def _rank(values: np.ndarray) -> np.ndarray:
    """scikit-learn's ``rank_test_*``: 1 for the highest, ties the lowest rank, NaN last."""
    from scipy.stats import rankdata

    filled = np.where(np.isnan(values), -np.inf, values)
    return rankdata(-filled, method="min").astype(np.int32)


def _results(study, choice: Choice, metric: str, stability: str) -> dict[str, np.ndarray]:
    """``cv_results_`` of a tuned ``study``: one entry per completed or failed trial (NaN
    values for a failed one, as scikit-learn's ``error_score``)."""
    from paretostab._tuning import front_points
    from paretostab.front import pareto_front

    trials = [t for t in study.get_trials(deepcopy=False) if t.state.name in ("COMPLETE", "FAIL")]
    completed, points = front_points(study, trials)
    front = {completed[i].number for i in (pareto_front(points) if len(points) else [])}
    values = np.array([t.values if t.state.name == "COMPLETE" else (np.nan, np.nan)
                       for t in trials], dtype=float).reshape(-1, 2)
    names = sorted({name for t in trials for name in t.params})
    results: dict[str, Any] = {"trial": np.array([t.number for t in trials])}
    for name in names:
        cells = np.empty(len(trials), dtype=object)
        cells[:] = [t.params.get(name) for t in trials]
        results[f"param_{name}"] = np.ma.MaskedArray(
            cells, mask=[name not in t.params for t in trials])
    results["params"] = [dict(t.params) for t in trials]
    for column, name in enumerate((metric, stability)):
        results[f"mean_test_{name}"] = values[:, column]
        results[f"rank_test_{name}"] = _rank(values[:, column])
    results["mean_n_selected"] = np.array([t.user_attrs.get("mean_selected", np.nan)
                                           for t in trials], dtype=float)
    results["on_front"] = np.array([t.number in front for t in trials])
    results["flagged"] = np.array([t.number in choice.flagged for t in trials])
    return results


class ParetoSearchCV(ClassifierMixin, SelectorMixin, MetaEstimatorMixin, BaseEstimator):
    """A Pareto search of a feature selector's setting for accuracy and stability, and the
    trade-off γ chooses refitted on all the data (003 §7.1).

    ``fit`` runs a study of the package (:func:`paretostab.tune`, the data in memory):
    each trial a setting of ``selector``, scored by ``metric`` out of bag and by the
    ``stability`` of its selections over ``runs`` resamples; then γ chooses on the front
    (:func:`paretostab.choose`: never a trial flagged at chance level unless every trial
    is) and the chosen setting is refitted on all the data (:meth:`paretostab.Choice.model`).
    Once fitted it is that model: a selector (``get_support``, ``transform``, scikit-learn's
    ``set_output``) and a classifier (``predict``, ``predict_proba``,
    ``decision_function`` where the selector's final model has them; ``score``: the
    ``metric``).

    Parameters
    ----------
    selector : str or estimator
        A registry name (``"hybrid_rfe"``: :data:`paretostab.selectors.SELECTORS`), an
        instance of a registry class (``HybridRFE(n_features=10)``: the registry's entry of
        that class that fixes nothing, the parameters set on it fixed unless searched), or
        a scikit-learn selector (``SelectKBest(k=5)``, any estimator with
        ``get_support()``: :class:`~paretostab.selectors.ExternalSelector`, followed by the
        package's L2-logistic model when it cannot predict).
    param_distributions : dict, optional
        Parameter name → a range ``(low, high)``, a list of choices, or an optuna
        distribution, as :func:`search_distributions` reads them; they override and extend
        the registry's default search space (None: that space alone; a scikit-learn
        selector has none: give what is searched).
    stability : str
        The stability measure, the second objective
        (:func:`paretostab.list_measures`; default φ, ``"nogueira"``).
    metric : {"accuracy", "balanced_accuracy", "f1_macro", "roc_auc"}
        The accuracy objective, out of bag; ``score`` returns it.
    runs : int >= 2
        M, the resampled runs of each trial (``[protocol] runs``).
    n_trials : int >= 1
        The trials of the study.
    gamma : float in [0, 1]
        The weight of accuracy in γA + (1 − γ)φ: 1 chooses by accuracy alone, 0 by
        stability alone. Changed after ``fit``, :meth:`rechoose` chooses again without a
        new search (``set_params`` alone changes nothing fitted, as in scikit-learn).
    classifier : None
        The final model is the selector's own (SPEC §1), which the protocol scores; a
        study cannot hold another classifier, and any other value is refused.
    storage : str, optional
        An Optuna storage URL that keeps the study (the study is named
        ``ParetoSearchCV-<hash of its spec and data>``: fitting again on the same data
        resumes it); None: a temporary folder that lives as long as the estimator.
    n_jobs : int, optional
        Processes for the runs inside a trial (:func:`paretostab.tune`); results do not
        depend on it.
    random_state : int, RandomState or None
        The study's seed (``[study] seed``: the sampler and the resamples); None draws one
        from numpy's global generator.
    verbose : bool
        Show the study's progress (the counted trials, the front's size).

    Attributes
    ----------
    cv_results_ : dict of arrays
        One entry per trial (completed or failed, in trial order): ``trial``,
        ``param_<name>`` (masked where a trial has no such parameter), ``params``,
        ``mean_test_<metric>`` and ``mean_test_<stability>`` (the two objectives: the
        means over the runs), ``rank_test_<metric>`` and ``rank_test_<stability>``,
        ``mean_n_selected`` (k̄), ``on_front`` and ``flagged`` (at chance level).
    pareto_front_ : pandas.DataFrame
        The Pareto-optimal trials with their values, k̄ and parameters
        (:attr:`paretostab.TunedStudy.front`).
    best_index_ : int
        The row of ``cv_results_`` that γ chooses.
    best_params_ : dict
        Its parameters.
    best_score_ : float
        Its ``metric``, out of bag.
    choice_ : paretostab.Choice
        The choice: its values, features and stable sets.
    best_estimator_ : sklearn.pipeline.Pipeline
        The chosen setting refitted on all the data (with the features' names).
    support_ : bool array (d,)
        The features it selects (through the pre-filter, when the spec has one).
    classes_ : array
    n_features_in_ : int
        d, the features seen by ``fit``.
    feature_names_in_ : array of str
        When fitted on a DataFrame.
    study_ : optuna.Study
        The study. A pickled (or deep-copied) search keeps its results and its model but
        not the study: :meth:`report` and :meth:`rechoose` then need ``fit`` again.

    Notes
    -----
    Features of data without names are ``x0``, ``x1``, … (scikit-learn's
    ``get_feature_names_out``); ``best_estimator_`` was fitted on a DataFrame with these
    names, and this estimator's own methods pass it one.
    """

    def __init__(self, selector, param_distributions=None, *, stability="nogueira",
                 metric="accuracy", runs=30, n_trials=60, gamma=0.5, classifier=None,
                 storage=None, n_jobs=None, random_state=None, verbose=False):
        self.selector = selector
        self.param_distributions = param_distributions
        self.stability = stability
        self.metric = metric
        self.runs = runs
        self.n_trials = n_trials
        self.gamma = gamma
        self.classifier = classifier
        self.storage = storage
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.non_deterministic = self.random_state is None
        return tags

    # ------------------------------------------------------------------ fit

    def fit(self, X, y):
        """Run the search on ``X``, ``y``, choose with γ and refit the chosen setting.

        Parameters
        ----------
        X : array-like or DataFrame (n, d)
            The features (a DataFrame's column names are kept).
        y : array-like (n,)
            The class labels.

        Returns
        -------
        self
        """
        from paretostab._api import tune
        from paretostab.data import Dataset

        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2,
                             ensure_min_features=2)
        check_classification_targets(y)
        seed = int(self.random_state if is_int(self.random_state) else
                   check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        spec = search_spec(self, seed)
        _GAMMA.number("gamma", self.gamma)  # refused before the search, not after
        data = Dataset(X, y, tuple(self._names()), "memory")
        key = json.dumps({"spec": spec, "data": data.content_hash()}, sort_keys=True,
                         default=repr)
        spec["study"]["name"] = f"{STUDY_PREFIX}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
        url = self.storage
        if url is None:
            self._folder = tempfile.TemporaryDirectory(prefix="paretostab-search-")
            url = f"journal:{Path(self._folder.name) / 'search.journal'}"
        self._tuned = tune(spec, data=data, storage=url, n_jobs=self.n_jobs,
                           progress=None if self.verbose else False)
        self.study_ = self._tuned.study
        self.pareto_front_ = self._tuned.front
        return self._choose()

    def rechoose(self):
        """Choose again with the current ``gamma`` and refit the chosen setting on all the
        data, without a new search (``search.set_params(gamma=0.8).rechoose()``).

        Returns
        -------
        self
        """
        check_is_fitted(self, "choice_")
        return self._choose()

    def _choose(self):
        from paretostab._api import choose

        choice = choose(self._study(), _GAMMA.number("gamma", self.gamma))
        self.choice_ = choice
        self.cv_results_ = _results(self.study_, choice, self.metric, self.stability)
        self.best_index_ = int(np.flatnonzero(self.cv_results_["trial"] == choice.trial)[0])
        self.best_params_ = dict(choice.params)
        self.best_score_ = float(choice.values["accuracy"])
        self.best_estimator_ = choice.model()
        self.classes_ = self.best_estimator_.classes_
        self.support_ = self._support()
        return self

    def _study(self) -> TunedStudy:
        """The search's study, which a pickle or a copy leaves out."""
        if getattr(self, "_tuned", None) is None:
            raise InvalidInputError(
                "this search holds no study (it was pickled or copied, which keeps its "
                "results and model but not the study): fit it again.")
        return self._tuned

    def _names(self) -> list[str]:
        """The features' names: the DataFrame's, else scikit-learn's ``x0``, ``x1``, …"""
        names = getattr(self, "feature_names_in_", None)
        return ([str(n) for n in names] if names is not None
                else [f"x{j}" for j in range(self.n_features_in_)])

    def _support(self) -> np.ndarray:
        """The features of the input that the chosen model keeps: the selector's support
        mapped back through the pre-filter's."""
        support = np.ones(self.n_features_in_, dtype=bool)
        for _, step in self.best_estimator_.steps:
            kept = np.flatnonzero(support)
            support[kept] = step.get_support()
        return support

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_

    # ------------------------------------------------------------------ the chosen model

    def _frame(self, X) -> pd.DataFrame:
        """``X`` checked against the fitted features, as the DataFrame the chosen model
        was fitted on."""
        import pandas as pd

        check_is_fitted(self, "best_estimator_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return pd.DataFrame(X, columns=self._names())

    predict = _chosen_method("predict", "class of each example")
    predict_proba = available_if(_chosen_has("predict_proba"))(
        _chosen_method("predict_proba", "class probabilities (n, n classes)"))
    decision_function = available_if(_chosen_has("decision_function"))(
        _chosen_method("decision_function", "decision values"))

    def score(self, X, y, sample_weight=None) -> float:
        """The ``metric`` of the chosen model on ``X``, ``y`` (what ``cross_validate``
        reports by default: the nested evaluation's outer score).

        Parameters
        ----------
        X : array-like (n, d)
        y : array-like (n,)
        sample_weight : None
            Not supported (the protocol's metrics weigh every example alike).
        """
        from paretostab._metrics import metric_output, metric_value

        if sample_weight is not None:
            raise InvalidInputError("sample_weight: the metrics of a study weigh every "
                                    "example alike; leave it None.")
        X = self._frame(X)
        output = metric_output(self.best_estimator_, X, self.metric)
        return metric_value(np.asarray(y), output, self.metric, self.classes_)

    def report(self, **options) -> Report:
        """:func:`paretostab.study_report` of the search's study (the same ``Report``);
        ``options`` are its keyword arguments (``gamma`` defaults to this search's).

        Returns
        -------
        paretostab.Report
        """
        check_is_fitted(self, "choice_")
        return self._study().report(**{"gamma": self.gamma, **options})

    # ------------------------------------------------------------------ pickling

    def __getstate__(self) -> dict:
        """The fitted results and model without the study, its temporary folder and its
        data (a study lives in its storage; the pickle holds what predicts): ``choice_``
        keeps its runs (its stable sets) but not what refits from the study (its
        ``model()``; ``fdp``'s run on decoys)."""
        state = dict(super().__getstate__())
        for name in ("study_", "_tuned", "_folder"):
            state.pop(name, None)
        choice = state.get("choice_")
        if choice is not None:
            from paretostab._choice import kept_runs

            runs = None if choice.runs is None else replace(choice.runs, decoy_selection=None)
            state["choice_"] = replace(choice, fit_model=None,
                                       read_runs=kept_runs(runs))
        return state
