"""The problem every trial of a study solves, and the evaluation of its measures.

A study spec (:mod:`paretostab.spec`) names data, a protocol, selectors and measures; a
:class:`Problem` is that spec with its data loaded: the matrix, labels, feature names and
groups, the feature similarity its measures use, and what a trial does with them — build
the trial's estimator from its parameters, run the resampling protocol (SPEC §4) on fresh
or shared resamples, evaluate the stability measures of the resulting RunSet, refit the
selector on the whole data. Tuning (every trial) and the report (replicates, refits,
measures a study did not record) share it, so that both compute a trial the same way.

Pure computation: no Optuna, no files but the data set's.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import numpy as np
import pandas as pd

from paretostab._data_formats import ORIENTATIONS, some_names
from paretostab._errors import InvalidInputError, StabilityWarning
from paretostab._metrics import metric_advice, metric_output
from paretostab._protocol import replicate_protocols, run_protocol
from paretostab._run_cache import DEFAULT_CACHE_BYTES, RunCache
from paretostab._runset import RunSet
from paretostab._similarity import FeatureSimilarity
from paretostab.data import as_dataset, load_dataset, variance_prefilter
from paretostab.evaluation import (
    HeldOutScore,
    Split,
    evaluation_split,
    ignores_labels,
    score_interval,
)
from paretostab.measures import get_measure
from paretostab.selectors import get_selector, groups_follow_columns
from paretostab.spec import (
    DATA_GROUPS,
    MEMORY_SOURCE,
    Param,
    SelectorSpec,
    StudySpec,
    check_builtin_data,
    fit_to_data,
    trial_selector,
)

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline

__all__ = ["DEFAULT_SIMILARITY", "Problem", "ProtocolOptions", "measure_values"]

#: The similarity of a measure that needs one when the spec names none (the report
#: recomputing a measure the study did not record): |Spearman|, the papers' choice.
DEFAULT_SIMILARITY = "spearman"


def measure_values(runs: RunSet, names: Iterable[str], *,
                   options: Mapping[str, object] | None = None,
                   similarity: object = None,
                   required: Iterable[str] = ()) -> dict[str, float]:
    """The stability measures ``names`` of ``runs``.

    Each measure gets the ``options`` that apply to it (those among its registry
    options) and, when it needs one, ``similarity``. An undefined value is NaN (its
    :class:`~paretostab.StabilityWarning` silenced: a trial records it as NaN); a
    ranking measure is left out when the RunSet kept no rankings, an importance measure
    when its selector gives no importances — unless it is ``required`` (a study's
    objective): its one-line error is then raised.

    Parameters
    ----------
    runs : RunSet
    names : iterable of str
        Registry names of measures.
    options : mapping, optional
        Measure options (a spec's ``[objective.options]``).
    similarity : FeatureSimilarity or array, optional
        For the measures that need one (001, 000).
    required : iterable of str
        Measures computed even when the runs lack their input.

    Returns
    -------
    dict
        Measure name → value, in the order of ``names``.
    """
    options = dict(options or {})
    required = set(required)
    values = {}
    for name in dict.fromkeys(names):
        info = get_measure(name)
        lacking = ((info.input == "ranking" and runs.rank_matrix is None)
                   or (info.input == "importance" and not runs.has_importances))
        if lacking and name not in required:
            continue
        own = {k: v for k, v in options.items() if k in info.options}
        extra = {"similarity": similarity} if info.needs_similarity else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StabilityWarning)
            values[name] = runs.stability(name, **extra, **own)
    return values


def _probe_setting(selector: SelectorSpec) -> dict[str, object]:
    """One setting of ``selector``: its fixed parameters, each searched one at its first
    choice or its low bound."""
    drawn = {param.name: _first_value(param) for param in selector.search}
    return {**selector.fixed, **drawn}


def _first_value(param: Param) -> object:
    """A searched parameter's first choice, else its low bound (an integer's as int)."""
    if param.choices is not None:
        return param.choices[0]
    if param.integer and param.low is not None:
        return int(param.low)
    return param.low


def _gives_importances(spec: StudySpec, selector: SelectorSpec, X: np.ndarray,
                       y: np.ndarray) -> bool | None:
    """Whether ``selector``'s runs have importances: what its class tells, else what one
    fit on the (pre-filtered) data at one setting of it shows (None: that fit failed, the
    trials will say why)."""
    info = get_selector(selector.name)
    known = info.gives_importances()
    if known is not None:
        return known
    columns = (variance_prefilter(X, spec.data.prefilter) if spec.data.prefilter
               else np.arange(X.shape[1]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator = info.make(**_probe_setting(selector)).fit(X[:, columns], y)
    except Exception:  # whatever the user's estimator raises: each trial records it
        return None
    return hasattr(estimator, "importances_")


def _importance_notes(spec: StudySpec, X: np.ndarray, y: np.ndarray) -> tuple[str, ...]:
    """The selectors whose runs have no importances, before a study opens: a study whose
    stability objective needs them is refused in one line (each trial would fail); the
    recorded measures that need them are left out of every trial, and a note says so."""
    needing = [name for name in spec.objective.measures
               if get_measure(name).input == "importance"]
    if not needing:
        return ()
    notes = []
    for selector in spec.selectors:
        if _gives_importances(spec, selector, X, y) is not False:
            continue
        estimator = get_selector(selector.name).estimator.__name__
        why = (f"{estimator} gives no feature importances (its own final model has no coef_ "
               "or feature_importances_)")
        objective = spec.objective.stability
        if objective in needing:
            other = (f", or leave {selector.name} out of selector.name"
                     if spec.selector_choice else "")
            raise InvalidInputError(
                f"{spec.path or '<spec>'}: objective.stability: "
                f"{get_measure(objective).label} ({objective}) needs feature importances; "
                f"{why}: choose a subset measure such as nogueira{other}.")
        labels = ", ".join(f"{get_measure(name).label} ({name})" for name in needing)
        notes.append(f"objective.record: {labels} left out of every trial"
                     + (f" of {selector.name}" if spec.selector_choice else "")
                     + f": they need feature importances, and {why}.")
    return tuple(notes)


#: Features per block of :func:`_check_information` (its copies held at once: n × 1 024).
_BLOCK = 1024


def _check_information(X: np.ndarray, names: Sequence[str], where: str,
                       impute: str | None) -> None:
    """Refuse data that carry nothing a study can compute from, before any
    trial: features whose variance overflows 64-bit floats (values near ±1e308: every
    selector's standardisation and every similarity would turn them into NaN), or every
    feature constant (nothing to select or classify by: a study would tune to a front of
    perfect stability at the majority class's accuracy). Each in one line saying what was
    expected. ``impute`` is the spec's: a feature without any value is imputed as a
    constant."""
    overflowing, varying = [], False
    for start in range(0, X.shape[1], _BLOCK):
        block = X[:, start:start + _BLOCK]
        with np.errstate(over="ignore", invalid="ignore"):
            variance = block.var(axis=0)
        overflowing.extend((start + np.flatnonzero(~np.isfinite(variance))).tolist())
        varying = varying or bool((block.max(axis=0) != block.min(axis=0)).any())
    if overflowing:
        raise InvalidInputError(
            f"{where}: {len(overflowing)} feature(s) hold values too large to compute with "
            f"({some_names([names[j] for j in overflowing])}; largest |value| "
            f"{np.abs(X[:, overflowing]).max():.3g}): their "
            "variance overflows 64-bit floats; expected values whose squared deviations sum "
            "to a finite number: rescale them (a log, another unit).")
    if not varying:
        imputed = (f"; a missing value counts as the imputed one, [data] impute = {impute!r}"
                   if impute in ("mean", "median") else "")
        raise InvalidInputError(
            f"{where}: every feature is constant (one value in every row{imputed}): the data "
            "carry nothing to select or classify by; expected at least one feature whose "
            "values vary.")


def _search_notes(spec: StudySpec) -> tuple[str, ...]:
    """A note when the study searches nothing: every trial runs the same setting."""
    if spec.selector_choice or spec.sampler == "grid" or spec.selectors[0].search:
        return ()
    selector = spec.selectors[0]
    parameters = get_selector(selector.name).parameters()
    numeric = [name for name, value in parameters.items()
               if name not in selector.fixed and isinstance(value, int | float)
               and not isinstance(value, bool)]
    example = next((name for name in ("k", "n_features_to_select", "n_features",
                                      "target_features") if name in numeric),
                   numeric[0] if numeric else None)
    hint = (f", e.g. {example} = {{ low = …, high = … }}" if example else "")
    same = (" (on the same resamples: the same result)"
            if spec.protocol.resamples == "shared" else "")
    return (f"selector.search: nothing is searched: every trial runs {selector.name} at the "
            f"same setting{same}; add the ranges to tune to [selector.search]{hint}.",)


class ProtocolOptions(TypedDict):
    """The keyword arguments of :func:`~paretostab._protocol.run_protocol` that a spec
    fixes (:meth:`Problem.protocol_options`)."""

    runs: int
    resampling: str
    sample_fraction: float
    prefilter: int | None
    metric: str


@dataclass(frozen=True, eq=False)
class Problem:
    """A study spec with its data: what every trial of the study solves.

    Attributes
    ----------
    spec : StudySpec
    X : float array (n, d)
    y : array (n,)
    feature_names : tuple of str
    similarity : FeatureSimilarity or None
        The spec's ``objective.similarity`` on ``X`` (None when the spec names none).
    groups : int array (d,) or None
        The data set's feature groups (−1: a feature in no group), if it has any.
    notes : tuple of str
        What fitting the spec to the data changed (:func:`~paretostab.spec.fit_to_data`),
        the recorded measures left out for a selector without importances, that nothing
        is searched, and advice on the metric for imbalanced classes.
    split : Split or None
        With ``[protocol] holdout`` or ``outer_fold``: the development part (``X``, ``y``
        are its rows) and the held-out part (:attr:`test_X`, :attr:`test_y`), which
        nothing but :meth:`held_out_score` sees.
    test_X, test_y : arrays or None
        The held-out examples.
    """

    spec: StudySpec
    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    similarity: FeatureSimilarity | None = None
    groups: np.ndarray | None = None
    notes: tuple[str, ...] = ()
    split: Split | None = None
    test_X: np.ndarray | None = None
    test_y: np.ndarray | None = None

    @classmethod
    def from_spec(cls, spec: StudySpec, data: object = None) -> Problem:
        """Load the spec's data (a simulated source with seed 0: every process, every
        report of the study sees the same data), or take ``data`` given in memory
        (:func:`~paretostab.data.as_dataset`: ``(X, y)``, a DataFrame with the spec's
        label column, an AnnData, a :class:`~paretostab.data.Dataset`; the problem's spec
        then has ``source = "memory"`` and the data's content hash, so a study resumed with
        other data is refused as one with another spec), and its similarity. A selector that takes
        the data set's feature groups when the data set has none, and the spec's limits
        that depend on the data's size (:func:`~paretostab.spec.fit_to_data`: the
        pre-filter, the selectors' feature counts, a top-k ``k``), fail now, not in every
        trial; a selector's default range or default value of a feature count beyond the
        data is clipped (the problem's ``spec`` is the clipped one; its ``notes`` say what
        was clipped, and when plain accuracy scores imbalanced classes,
        :func:`~paretostab._metrics.metric_advice`). So does a stability objective that
        needs importances, for a selector whose runs have none: its class tells, or, for an
        external estimator that selects and predicts itself (``RFE``), one fit on the data
        at one setting shows it; the recorded measures that need them are left out of its
        trials, and a note says so. A note also says when nothing is searched (every trial
        runs the same setting)."""
        if data is not None:
            data = as_dataset(data, label=spec.data.label, impute=spec.data.impute,
                              id=spec.data.id)
            spec = replace(spec, data=spec.data.in_memory(data.content_hash()))
        elif spec.data.source == MEMORY_SOURCE:
            known = spec.data.content_hash
            raise InvalidInputError(
                f"[data] source = {MEMORY_SOURCE!r}: the data are given in memory"
                + (f" (content hash {known[:12]})" if known else "") + "; pass them as "
                "data= (tune(spec, data=...): (X, y), a DataFrame or an AnnData), or name a "
                "data file.")
        else:
            check_builtin_data(spec)
            data = load_dataset(spec.data.source, label=spec.data.label,
                                impute=spec.data.impute,
                                orientation=spec.data.orientation or ORIENTATIONS[0],
                                labels=spec.data.labels, id=spec.data.id, random_state=0)
        _check_information(data.X, data.feature_names, Path(spec.data.source).name,
                           spec.data.impute)
        protocol = spec.protocol
        split = evaluation_split(data.y, holdout=protocol.holdout,
                                 outer_folds=protocol.outer_folds,
                                 outer_fold=protocol.outer_fold, seed=protocol.split_seed)
        X, y, test_X, test_y = data.X, data.y, None, None
        if split is not None:  # the held-out part leaves here: nothing below sees it
            X, y = data.X[split.development], data.y[split.development]
            test_X, test_y = data.X[split.test], data.y[split.test]
        spec, notes = fit_to_data(spec, y.size, data.n_features)
        notes = (*notes, *_importance_notes(spec, X, y), *_search_notes(spec))
        advice = metric_advice(y, spec.protocol.metric)
        notes = notes if advice is None else (*notes, advice)
        if data.id_column is not None and spec.data.id is None:
            notes = (*notes, f"data.id: column {data.id_column!r} of {data.name} read as the "
                             "sample IDs, not a feature (an index-like first column); "
                             "[data] id names the ID column")
        problem = cls(spec, X, y, tuple(data.feature_names),
                      FeatureSimilarity(X, spec.objective.similarity)
                      if spec.objective.similarity else None, data.groups, notes,
                      split, test_X, test_y)
        for selector in spec.selectors:
            problem.takes_data_groups(selector)
        return problem

    def read_only(self) -> Problem:
        """The same problem with data no one can change (copied where they view other
        memory, unless that is a read-only memory map: the data ``tune``'s worker processes
        share): a :class:`~paretostab._run_cache.RunCache` then recognises them without
        hashing them at every trial."""
        def frozen(array: np.ndarray) -> np.ndarray:
            if isinstance(array, np.memmap) and not array.flags.writeable:
                # a plain view in the canonical dtype, which np.asarray returns as it is
                return array.view(type=np.ndarray, dtype=np.dtype(array.dtype.str))
            array = array if array.flags.owndata else array.copy()
            array.flags.writeable = False
            return array

        return replace(self, X=frozen(self.X), y=frozen(self.y))

    # ------------------------------------------------------------------ the estimator

    def takes_data_groups(self, selector: SelectorSpec) -> bool:
        """Whether ``selector`` takes the data set's feature groups (a fixed ``groups =
        "data"``); raises when it does and the data set has none."""
        value = selector.fixed.get("groups")
        if not (isinstance(value, str) and value == DATA_GROUPS):
            return False
        if self.groups is None:
            raise InvalidInputError(
                f"{selector.name}: groups = {DATA_GROUPS!r} takes the data set's feature "
                f"groups, but {self.spec.data.source!r} has none; give the groups as an array "
                "(one label per feature, -1 for a feature in no group).")
        return True

    def estimator(self, params: Mapping[str, object]):
        """The estimator a trial with the Optuna parameters ``params`` fits: its
        selector's registry entry with the spec's fixed parameters and the trial's (and
        the data set's feature groups for a fixed ``groups = "data"``)."""
        selector, own = trial_selector(self.spec, params)
        kwargs = {**selector.fixed, **own}
        if self.takes_data_groups(selector):
            kwargs["groups"] = self.groups
        return get_selector(selector.name).make(**kwargs)

    # ------------------------------------------------------------------ the protocol

    def protocol_options(self) -> ProtocolOptions:
        """The keyword arguments of :func:`~paretostab._protocol.run_protocol` that the
        spec fixes: runs, resampling, sample fraction, pre-filter, metric."""
        protocol = self.spec.protocol
        return {"runs": protocol.runs, "resampling": protocol.resampling,
                "sample_fraction": protocol.sample_fraction,
                "prefilter": self.spec.data.prefilter, "metric": protocol.metric}

    def run(self, params: Mapping[str, object], *, random_state: object,
            n_jobs: int | None = None, cache: RunCache | None = None,
            on_run: Callable[[], object] | None = None) -> RunSet:
        """The protocol of a trial with ``params`` on the resamples of ``random_state``
        (``n_jobs`` processes, default the spec's; prepared runs kept in ``cache``;
        ``on_run`` called after each run)."""
        return run_protocol(self.estimator(params), self.X, self.y,
                            random_state=random_state,
                            n_jobs=n_jobs or self.spec.protocol.n_jobs, cache=cache,
                            progress=False, on_run=on_run, **self.protocol_options())

    def decoy_state(self, number: int) -> list[int]:
        """The random state of trial ``number``'s decoy run (:meth:`decoy_run`): its decoy
        columns and resamples, of its own, apart from the study's and the replicates'."""
        return [self.spec.seed or 0, int(number), 2]

    def decoy_run(self, params: Mapping[str, object], *, random_state: int | Sequence[int],
                  n_jobs: int | None = None) -> RunSet:
        """The protocol of a trial with ``params`` on the data with decoys (Stabl, Hédou
        et al. 2024): every feature's permuted copy appended
        (:func:`~paretostab.stable_set.permuted_decoys`), the d real columns first; a
        spec's pre-filter keeps twice its count of these 2d columns, and feature groups
        are given to the decoys as groups of their own. Its runs draw their resamples from
        ``random_state`` too (:meth:`decoy_state`). What
        :func:`~paretostab.stable_set.stable_set` reads with ``fdp``."""
        from paretostab.stable_set import permuted_decoys  # only a stable set needs it

        seed, resamples = np.random.SeedSequence(random_state).spawn(2)
        decoys = permuted_decoys(self.X, random_state=seed)
        estimator = self.estimator(params)
        groups = estimator.get_params().get("groups")
        if groups is not None:  # a decoy's group is its original's, moved past every real one
            groups = np.asarray(groups)
            shift = int(groups.max()) + 1
            estimator.set_params(groups=np.concatenate(
                [groups, np.where(groups < 0, groups, groups + shift)]))
        options = self.protocol_options()
        if options["prefilter"] is not None:
            options["prefilter"] = 2 * options["prefilter"]
        return run_protocol(estimator, np.hstack([self.X, decoys]), self.y,
                            random_state=int(resamples.generate_state(1)[0]),
                            n_jobs=n_jobs or self.spec.protocol.n_jobs,
                            progress=False, **options)

    def replicate_state(self, number: int) -> list[int]:
        """The random state of trial ``number``'s replicates (002 §3): in a study whose
        trials share their resamples (``[protocol] resamples = "shared"``), the same for
        every trial — replicate b of each front trial runs on the b-th set of fresh
        resamples, as the study's trials run on its shared ones, and each is prepared once
        (:meth:`replicate_protocols`) — else one of the trial's own. Either way each
        trial's B replicates are B protocols on fresh resamples, independent of the
        study's."""
        seed = self.spec.seed or 0
        return [seed, 1] if self.spec.protocol.resamples == "shared" else [seed, int(number), 1]

    def replicate_protocols(self, settings: Sequence[Mapping[str, object]],
                            n_replicates: int, *, random_states: Sequence[object],
                            on_runs: Callable[[int], object] | None = None
                            ) -> Iterator[tuple[int, int, RunSet]]:
        """``n_replicates`` fresh protocols of each trial setting in ``settings`` with its
        random state (002 §3: the replicates behind its confidence region), all in one pool
        of the spec's ``n_jobs`` processes, as the memory allows
        (:func:`~paretostab._protocol.replicate_protocols`): ``(i, b, RunSet)``, replicate
        ``b`` of setting ``i``, as each ends; ``on_runs(n)``: ``n`` more runs done. The
        prepared runs of settings that share their random state are prepared once in a pool
        of one process (a :class:`~paretostab._run_cache.RunCache`)."""
        return replicate_protocols([self.estimator(params) for params in settings], self.X,
                                   self.y, n_replicates, random_states=random_states,
                                   n_jobs=self.spec.protocol.n_jobs, on_runs=on_runs,
                                   cache=RunCache(DEFAULT_CACHE_BYTES),
                                   **self.protocol_options())

    # ------------------------------------------------------------------ the measures

    @functools.cached_property
    def default_similarity(self) -> FeatureSimilarity:
        """|Spearman| on the data (:data:`DEFAULT_SIMILARITY`), made on first use."""
        return FeatureSimilarity(self.X, DEFAULT_SIMILARITY)

    def similarity_for(self, names: Iterable[str]) -> FeatureSimilarity | None:
        """The similarity the measures ``names`` are evaluated with: the spec's; else,
        when one of them needs a similarity (a measure the spec does not record, which the
        report recomputes), :attr:`default_similarity`; else None."""
        if self.similarity is not None:
            return self.similarity
        if not any(get_measure(name).needs_similarity for name in names):
            return None
        return self.default_similarity

    def measure_values(self, runs: RunSet, names: Iterable[str] | None = None
                       ) -> dict[str, float]:
        """The measures ``names`` of ``runs`` (default: the spec's objective, then its
        recorded measures) with the spec's measure options that apply to each and the
        similarity of :meth:`similarity_for` (:func:`measure_values`; the objective's
        stability measure is required: a selector without importances or rankings it
        needs fails in one line)."""
        names = list(self.spec.objective.measures if names is None else names)
        return measure_values(runs, names, options=self.spec.objective.options,
                              similarity=self.similarity_for(names),
                              required=(self.spec.objective.stability,))

    # ------------------------------------------------------------------ the whole data

    def fitted_selector(self, params: Mapping[str, object], y: np.ndarray | None = None):
        """The selector of a trial with ``params`` fitted once on the whole (development)
        data, pre-filtered as the spec says, and the data's columns it saw (``y``: other
        labels for the same examples, as :meth:`ignores_labels` gives)."""
        selector = self.estimator(params)
        columns = np.arange(self.X.shape[1])
        if self.spec.data.prefilter:
            columns = variance_prefilter(self.X, self.spec.data.prefilter)
            groups_follow_columns(selector, columns)
        selector.fit(self.X[:, columns], self.y if y is None else y)
        return selector, columns

    def final_model(self, params: Mapping[str, object]) -> Pipeline:
        """The setting ``params`` as a model for new samples: the pipeline of the spec's
        pre-filter and the trial's selector, whose final model classifies, fitted on the
        whole (development) data with the features' names
        (:func:`~paretostab._model.final_model`); it selects and predicts as
        :meth:`fitted_selector` does."""
        from paretostab._model import final_model  # a model, when asked for

        return final_model(self.estimator(params), self.X, self.y, self.feature_names,
                           prefilter=self.spec.data.prefilter)

    def whole_data_selection(self, params: Mapping[str, object]) -> pd.DataFrame:
        """The features the selector of a trial with ``params`` selects when fitted once on
        the whole data (pre-filtered as the spec says; the development part of a spec that
        holds examples out): one row per selected feature, by decreasing importance in the
        final model (SPEC §1), with its column ``index`` in the data, ``feature`` name and
        ``importance`` (NaN, in column order, for a selector without importances)."""
        selector, columns = self.fitted_selector(params)
        importances = getattr(selector, "importances_",  # NaN: the selector gives none
                              np.full(selector.support_.size, np.nan))
        order = [f for f in np.argsort(-importances, kind="stable") if selector.support_[f]]
        return pd.DataFrame({"index": columns[order],
                             "feature": [str(self.feature_names[columns[f]]) for f in order],
                             "importance": importances[order]})

    def held_out_score(self, params: Mapping[str, object], *, level: float) -> HeldOutScore:
        """The setting ``params`` refitted on the whole development part and scored by
        the spec's metric on the held-out part, with its ``level`` interval
        (:func:`~paretostab.evaluation.score_interval`); only for a problem with a
        :attr:`split`."""
        if self.split is None or self.test_X is None or self.test_y is None:
            raise InvalidInputError(
                "no examples are held out: set [protocol] holdout (or outer_folds).")
        selector, columns = self.fitted_selector(params)
        metric = self.spec.protocol.metric
        output = metric_output(selector, self.test_X[:, columns], metric)
        return score_interval(self.test_y, output, metric, selector.classes_, level=level)

    def ignores_labels(self, params: Mapping[str, object]) -> bool:
        """Whether the setting ``params`` selects the same features on the development
        data whatever their labels (:func:`~paretostab.evaluation.ignores_labels`: with
        the labels and with two seeded permutations of them)."""
        def support(labels: np.ndarray) -> np.ndarray:
            selector, columns = self.fitted_selector(params, labels)
            support = np.zeros(self.X.shape[1], dtype=bool)
            support[columns] = selector.support_
            return support

        return ignores_labels(support, self.y, seed=self.spec.protocol.split_seed or 0)
