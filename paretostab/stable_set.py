"""The stable set: which features of a chosen trial can be trusted, with a chosen error
control (the issue's question "which features can I trust").

A trial's M runs give a selection matrix Z (M × d, :attr:`~paretostab.RunSet.selection_matrix`);
each feature's selection frequency is its share of the runs, a multiple of 1/M. The
stable set is the features whose frequency reaches a threshold, and the threshold is set
by one of two error controls:

``pfer``
    The expected number of falsely selected features, E[V], bounded as stability
    selection bounds it. Meinshausen & Bühlmann (2010, JRSS-B, Theorem 1), for subsamples
    of ⌊n/2⌋ examples: the features of frequency ≥ π, π > 1/2, satisfy
    E[V] ≤ q² / ((2π − 1) d), with q the mean number of features selected per run.
    Shah & Samworth (2013, JRSS-B), complementary pairs stability selection (CPSS), with
    B complementary pairs (2B runs, each half-sample and its complement): the same bound
    without Meinshausen & Bühlmann's conditions (their Theorem 1, the worst case, R
    stabs' ``assumption = "none"``), and tighter bounds when the frequencies of the
    features of low selection probability have unimodal or r-concave distributions. The
    threshold is the smallest attainable π (a multiple of 1/M above 1/2) whose bound is at
    most the target.
``fdp``
    The false discovery proportion estimated with decoys, as Stabl does (Hédou et al.,
    Nat. Biotech. 2024): the same selector runs on [X, decoys], d real and d decoy
    columns, and FDP⁺(t) = (1 + #{decoys of frequency ≥ t}) / max(1, #{real features of
    frequency ≥ t}). The threshold is the smallest t = j/M with FDP⁺(t) ≤ the target
    (the knockoff+ rule, Barber & Candès 2015); the t minimising FDP⁺ (Stabl's rule) is
    reported too.

The bounds are written from the papers and checked against R stabs 0.6-4 (Hofner,
Boccuto & Göker 2015), ``stabsel_parameters``, whose cutoffs are multiples of 1/(2B) and
whose PFER is rounded to 3 significant digits (the bounds here are not rounded): the
``"none"`` and ``"unimodal"`` bounds are stabs', the ``"r-concave"`` one the supremum of
Shah & Samworth's tail, which stabs' optimiser approaches from below (a median 0.85 % less
on its own grid; :mod:`paretostab._pfer` says why).

Everything here is pure numpy and scipy: inputs are never modified; pandas is imported
by the methods that return a table, the templates when a set is drawn as HTML.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
from markupsafe import Markup

from paretostab._errors import InvalidInputError, UnknownNameError, described
from paretostab._pfer import (
    ASSUMPTIONS,
    FREQUENCY,
    TWO_OR_MORE,
    check_assumption,
    first_met,
    pfer_bound,
    pfer_path,
    pfer_threshold,
    run_thresholds,
)
from paretostab._validation import FRACTION, PAIRED_RUNS, POSITIVE, Interval
from paretostab._vocabulary import RESAMPLINGS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ASSUMPTIONS", "FdpPath", "StableSet", "check_controls", "fdp_path", "fdp_plus",
           "fdp_threshold", "permuted_decoys", "pfer_bound", "pfer_threshold",
           "selection_frequencies", "stable_set"]

#: A target FDP⁺.
_FDP = Interval("number", 0, 1, "right")


def _frequencies(values: object, name: str) -> np.ndarray:
    """``values`` as a float (d,) array of frequencies in [0, 1] (a new array)."""
    try:
        array = np.array(values, dtype=float)
    except (TypeError, ValueError):
        array = np.array(np.nan)
    if array.ndim != 1:
        raise InvalidInputError(f"{name} must be a 1-D array of frequencies in [0, 1], one "
                                f"per feature; got {described(values)}.")
    if not np.all((array >= 0) & (array <= 1)):
        raise InvalidInputError(f"{name} must hold frequencies in [0, 1]; got "
                                f"{array[~((array >= 0) & (array <= 1))][0]:g}.")
    return array


def _selection(matrix: object, name: str) -> np.ndarray:
    """``matrix`` as a bool (M, d) array, M ≥ 2 runs and d ≥ 1 features."""
    array = np.asarray(matrix)
    if array.ndim != 2 or array.shape[0] < 2 or array.shape[1] < 1:
        raise InvalidInputError(f"{name} must be a 2-D array of at least 2 runs (rows) and "
                                f"1 feature (column); got {described(matrix)}.")
    if array.dtype != np.bool_ and not np.all((array == 0) | (array == 1)):
        raise InvalidInputError(f"{name} must hold only 0/1 (selected or not) values.")
    return array.astype(bool)


def selection_frequencies(selection_matrix: object) -> np.ndarray:
    """Each feature's share of the runs that select it.

    Parameters
    ----------
    selection_matrix : array-like (M, d) of bool or 0/1
        Z, one row per run (:attr:`~paretostab.RunSet.selection_matrix`); M ≥ 2.

    Returns
    -------
    float array (d,)
        Its column counts over M: multiples of 1/M, as the thresholds j/M of
        :func:`pfer_threshold` and :func:`fdp_threshold` are computed.
    """
    matrix = _selection(selection_matrix, "selection_matrix")
    return np.count_nonzero(matrix, axis=0) / matrix.shape[0]


@dataclass(frozen=True)
class FdpPath:
    """FDP⁺ at every attainable threshold (Hédou et al. 2024; Barber & Candès 2015).

    Attributes
    ----------
    threshold : float array (M,)
        t = j/M, j = 1 … M.
    n_real, n_decoys : int arrays (M,)
        The real features and the decoys of frequency ≥ t.
    fdp_plus : float array (M,)
        (1 + n_decoys) / max(1, n_real).
    """

    threshold: np.ndarray
    n_real: np.ndarray
    n_decoys: np.ndarray
    fdp_plus: np.ndarray


def _counts_at(frequencies: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """How many ``frequencies`` reach each threshold (by a sort: O((d + M) log d))."""
    ordered = np.sort(frequencies)
    return frequencies.size - np.searchsorted(ordered, thresholds, side="left")


def fdp_plus(real_frequencies: object, decoy_frequencies: object, threshold: float) -> float:
    """FDP⁺(t) = (1 + #{decoys of frequency ≥ t}) / max(1, #{real features of
    frequency ≥ t}) (Hédou et al. 2024, Stabl's estimate of the false discovery
    proportion; the + 1 of Barber & Candès' knockoff+).

    Parameters
    ----------
    real_frequencies, decoy_frequencies : array-like (d,) and (d',)
        Selection frequencies in [0, 1], of the real features and of their decoys.
    threshold : float
        t in [0, 1].
    """
    real = _frequencies(real_frequencies, "real_frequencies")
    decoys = _frequencies(decoy_frequencies, "decoy_frequencies")
    t = FREQUENCY.number("threshold", threshold)
    return (1 + int(np.count_nonzero(decoys >= t))) / max(1, int(np.count_nonzero(real >= t)))


def fdp_path(real_frequencies: object, decoy_frequencies: object, *, runs: int) -> FdpPath:
    """:func:`fdp_plus` at each t = j/M, j = 1 … M.

    Parameters
    ----------
    real_frequencies, decoy_frequencies : array-like (d,) and (d',)
        Selection frequencies over ``runs`` runs (multiples of 1/M, as
        :func:`selection_frequencies` gives them).
    runs : int
        M.
    """
    real = _frequencies(real_frequencies, "real_frequencies")
    decoys = _frequencies(decoy_frequencies, "decoy_frequencies")
    thresholds = run_thresholds(TWO_OR_MORE.integer("runs", runs))
    n_real, n_decoys = _counts_at(real, thresholds), _counts_at(decoys, thresholds)
    return FdpPath(thresholds, n_real, n_decoys, (1 + n_decoys) / np.maximum(1, n_real))


def fdp_threshold(real_frequencies: object, decoy_frequencies: object, *, runs: int,
                  target: float) -> tuple[float | None, float]:
    """The smallest t = j/M with FDP⁺(t) ≤ ``target`` (the knockoff+ rule, Barber &
    Candès 2015, on Stabl's decoys).

    Parameters
    ----------
    real_frequencies, decoy_frequencies : array-like (d,) and (d',)
        As :func:`fdp_path` takes them.
    runs : int
        M.
    target : float
        q in (0, 1]; an FDP⁺ above it by a relative 10⁻¹² or less (rounding) meets it.

    Returns
    -------
    threshold : float or None
        None when no t meets the target.
    estimate : float
        FDP⁺ at the threshold; when there is none, the least FDP⁺ reachable (at the
        smallest t reaching it, Stabl's rule: :meth:`FdpPath` ``.fdp_plus.argmin()``).
    """
    target = _FDP.number("target", target)
    values = fdp_path(real_frequencies, decoy_frequencies, runs=runs).fdp_plus
    threshold = first_met(values, target)
    if threshold is None:
        return None, float(values.min())
    return threshold, float(values[round(threshold * values.size) - 1])


def _bounds_at(q: float, n_features: int, threshold: float | None, resampling: str,
               runs: int) -> dict[str, float]:
    """Every PFER bound that applies at ``threshold``: Meinshausen & Bühlmann's ("mb");
    for complementary pairs also Shah & Samworth's worst case ("cpss", the same number
    without MB's conditions), "unimodal" and "r-concave" where finite."""
    if threshold is None or threshold <= 0.5:
        return {}
    mb = pfer_bound(q, n_features, threshold)
    if resampling != "complementary_pairs":
        return {"mb": mb}
    shah_samworth = {assumption: pfer_bound(q, n_features, threshold, assumption=assumption,
                                            pairs=runs // 2)
                     for assumption in ("unimodal", "r-concave")}
    return {"mb": mb, "cpss": mb, **{k: v for k, v in shah_samworth.items() if v < math.inf}}


def _guarantee(control: str, assumption: str, resampling: str,
               sample_fraction: float | None, runs: int) -> str:
    """What the set's number controls, and under which assumption, in plain words."""
    if control == "fdp":
        return ("FDP⁺ is an estimate of the false discovery proportion, not a guarantee: "
                "the decoys are permuted copies of the features, and permuting breaks the "
                "real features' correlation, which the decoys then lack (Hédou et al. 2024).")
    bound = "the bound on E[V], the expected number of selected noise features,"
    heuristic = ("the Meinshausen–Bühlmann bound is proven for subsamples of half the "
                 "examples, so it is heuristic here; use resampling = "
                 "\"complementary_pairs\" for its guarantee.")
    if resampling == "bootstrap":
        return f"Bootstrap resamples: {heuristic}"
    if resampling == "subsample" and sample_fraction != 0.5:
        return f"Subsamples of {sample_fraction:g} of the examples: {heuristic}"
    if resampling == "subsample":
        return (f"Subsamples of half the examples: {bound} holds under Meinshausen & "
                "Bühlmann's (2010) Theorem 1 conditions (exchangeable noise features, a "
                "selector no worse than random guessing).")
    holds = {
        "none": "with no assumption on the selector (Shah & Samworth 2013, Theorem 1)",
        "unimodal": ("if their selection frequencies have unimodal distributions (Shah & "
                     "Samworth 2013)"),
        "r-concave": ("if their selection frequencies are −1/4-concave and the pairs' joint "
                      "selections −1/2-concave (Shah & Samworth 2013)")}[assumption]
    return (f"{runs // 2} complementary pairs: {bound} counted among the features of "
            f"selection probability at most q/d, holds {holds}.")


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


@dataclass(frozen=True, eq=False)
class StableSet:
    """The features a chosen trial's runs select at least as often as a threshold set by
    an error control (:func:`stable_set`; the module says which).

    Attributes
    ----------
    feature_names : tuple of str
        All d features.
    frequencies : float array (d,)
        Their selection frequencies (with ``"fdp"``, on the real columns of the runs with
        decoys).
    decoy_frequencies : float array (d,) or None
        The decoys' frequencies (``"fdp"``).
    importances : float array (d,) or None
        The features' importances, as given.
    runs : int
        M.
    q : float
        The mean number of (real) features selected per run.
    control : {"pfer", "fdp"}
    target : float
        The largest E[V] (``"pfer"``) or FDP⁺ (``"fdp"``) accepted.
    threshold : float or None
        The smallest j/M meeting the target; None when none does (the set is empty).
    assumption : {"none", "unimodal", "r-concave", "decoys"}
    resampling : {"bootstrap", "subsample", "complementary_pairs"}
    sample_fraction : float or None
        The share of the examples in each subsample (``"subsample"``).
    bounds : dict
        At the threshold, every PFER bound that applies: ``"mb"`` (Meinshausen &
        Bühlmann); for complementary pairs also ``"cpss"`` (Shah & Samworth's worst
        case), ``"unimodal"`` and ``"r-concave"`` (where finite).
    guarantee : str
        What the number controls, and under which assumption.
    path_values : float array (M,)
        The bound (``"pfer"``, infinite where it does not apply) or FDP⁺ (``"fdp"``) at
        each threshold j/M.
    """

    feature_names: tuple[str, ...]
    frequencies: np.ndarray
    decoy_frequencies: np.ndarray | None
    importances: np.ndarray | None
    runs: int
    q: float
    control: Literal["pfer", "fdp"]
    target: float
    threshold: float | None
    assumption: str
    resampling: str
    sample_fraction: float | None
    bounds: Mapping[str, float]
    guarantee: str
    path_values: np.ndarray

    @property
    def value(self) -> float | None:
        """The bound or FDP⁺ at :attr:`threshold` (None without one)."""
        if self.threshold is None:
            return None
        return float(self.path_values[round(self.threshold * self.runs) - 1])

    @property
    def best_threshold(self) -> float | None:
        """The smallest j/M where the bound or FDP⁺ is least (Stabl's rule with
        ``"fdp"``); None when the bound applies nowhere."""
        best = int(np.argmin(self.path_values))
        return (best + 1) / self.runs if math.isfinite(self.path_values[best]) else None

    @property
    def summary(self) -> str:
        """What the set is, in one sentence: its size and threshold and the value it meets,
        or, when no threshold meets the target, the least value reachable and where."""
        what = ("expected false positives" if self.control == "pfer" else "FDP⁺")
        rule = (f"{self.assumption} bound" if self.control == "pfer" else
                "estimated over decoys")
        if self.threshold is None:
            if self.best_threshold is None:
                return (f"no threshold meets the target {self.target:g}: the {rule} applies "
                        "at no threshold (too many features selected per run)")
            return (f"no threshold meets the target {self.target:g}: the least {what} "
                    f"reachable is {self.best_value:.3g} ({rule}), at frequency >= "
                    f"{self.best_threshold:.3g}")
        size = len(self.features)
        return (f"{size} feature{'' if size == 1 else 's'} selected in at least "
                f"{self.threshold:.3g} of the runs: {what} <= {self.value:.3g} "
                f"({rule}; target {self.target:g})")

    @property
    def best_value(self) -> float:
        """The least bound or FDP⁺ reachable (at :attr:`best_threshold`)."""
        return float(self.path_values.min())

    @property
    def in_set(self) -> np.ndarray:
        """bool (d,): the features whose frequency reaches the threshold."""
        if self.threshold is None:
            return np.zeros(len(self.feature_names), dtype=bool)
        return self.frequencies >= self.threshold

    def _ordered(self) -> list[int]:
        """The indices of the set's features by decreasing frequency, ties by name."""
        return sorted(np.flatnonzero(self.in_set).tolist(),
                      key=lambda i: (-self.frequencies[i], self.feature_names[i]))

    @property
    def features(self) -> tuple[str, ...]:
        """The features of the set by decreasing frequency, ties by name."""
        return tuple(self.feature_names[i] for i in self._ordered())

    def to_frame(self) -> pd.DataFrame:
        """One row per feature: feature, frequency, [decoy_frequency], [importance],
        in_set; by decreasing frequency (ties in feature order)."""
        import pandas as pd

        columns: dict[str, object] = {"feature": list(self.feature_names),
                                      "frequency": self.frequencies}
        if self.decoy_frequencies is not None:
            columns["decoy_frequency"] = self.decoy_frequencies
        if self.importances is not None:
            columns["importance"] = self.importances
        columns["in_set"] = self.in_set
        order = np.argsort(-self.frequencies, kind="stable")
        return pd.DataFrame(columns).iloc[order].reset_index(drop=True)

    def path(self) -> pd.DataFrame:
        """One row per threshold j/M: threshold, selected (real features reaching it),
        ``bound`` (``"pfer"``) or ``fdp_plus`` and ``decoys`` (``"fdp"``)."""
        import pandas as pd

        thresholds = run_thresholds(self.runs)
        columns: dict[str, object] = {"threshold": thresholds,
                                      "selected": _counts_at(self.frequencies, thresholds)}
        if self.decoy_frequencies is None:
            columns["bound"] = self.path_values
        else:
            columns["fdp_plus"] = self.path_values
            columns["decoys"] = _counts_at(self.decoy_frequencies, thresholds)
        return pd.DataFrame(columns)

    def to_dict(self, *, per_feature: bool = True) -> dict[str, object]:
        """The set as JSON-ready values (no numpy types; infinite bounds as None).

        Parameters
        ----------
        per_feature : bool
            Include the d-long lists (every feature's name, frequency, decoy frequency
            and importance); without them (a report's ``summary.json``, whose
            ``stable_set.csv`` holds them) the size does not grow with d.
        """
        def floats(values: np.ndarray | None) -> list[float | None] | None:
            return None if values is None else [_finite(v) for v in values.tolist()]

        features = {"feature_names": list(self.feature_names),
                    "frequencies": floats(self.frequencies),
                    "decoy_frequencies": floats(self.decoy_frequencies),
                    "importances": floats(self.importances)} if per_feature else {}
        return {"features": list(self.features), **features, "runs": self.runs,
                "q": float(self.q), "control": self.control, "target": float(self.target),
                "threshold": self.threshold, "value": _finite(self.value),
                "best_threshold": self.best_threshold, "best_value": _finite(self.best_value),
                "assumption": self.assumption, "resampling": self.resampling,
                "sample_fraction": self.sample_fraction,
                "bounds": {k: _finite(v) for k, v in self.bounds.items()},
                "guarantee": self.guarantee, "path_values": floats(self.path_values)}

    def __repr__(self) -> str:
        """The control, its target and what it gives, not the lists (a short repr, as
        :class:`~paretostab.Choice`'s)."""
        head = (f"StableSet({self.control} <= {self.target:g} ({self.assumption}, "
                f"{self.resampling}, {self.runs} runs): ")
        if self.threshold is None:
            least = ("none applies" if self.best_threshold is None else
                     f"least {self.best_value:.3g} at frequency >= {self.best_threshold:.3g}")
            return f"{head}target not met, {least})"
        return (f"{head}{len(self.features)} of {len(self.feature_names)} features at "
                f"frequency >= {self.threshold:.3g}, {self.control} {self.value:.3g})")

    def __html__(self) -> Markup:
        """The set as HTML (``notebook.html``'s ``stable_set``), as markup."""
        from paretostab._templating import render_macro  # the templates, when drawn

        return render_macro(
            "notebook.html", "stable_set",
            control="the PFER bound" if self.control == "pfer" else "FDP⁺",
            target=self.target, threshold=self.threshold, value=self.value,
            best_threshold=self.best_threshold, best_value=self.best_value,
            n_features=len(self.feature_names), guarantee=self.guarantee,
            features=[(self.feature_names[i], float(self.frequencies[i]))
                      for i in self._ordered()])

    def to_html(self) -> str:
        """The set as HTML: a notebook's representation (``_repr_html_``)."""
        return str(self.__html__())

    _repr_html_ = to_html


def check_controls(*, pfer: object = None, fdp: object = None,
                   assumption: object = None) -> None:
    """Check the error controls asked of a report or a choice before any work: ``pfer`` a
    number > 0, ``fdp`` in (0, 1], ``assumption`` one of :data:`ASSUMPTIONS` (each None
    when not asked for).

    Parameters
    ----------
    pfer, fdp, assumption
        As :func:`stable_set` takes them (here both controls may be given).
    """
    if pfer is not None:
        POSITIVE.number("pfer", pfer)
    if fdp is not None:
        _FDP.number("fdp", fdp)
    if assumption is not None:
        check_assumption(assumption)


def permuted_decoys(X: object, *, random_state: int | np.random.SeedSequence | np.random.Generator
                    | None = None) -> np.ndarray:
    """Decoy features in the Stabl manner (Hédou et al. 2024): each column of ``X`` with
    its values permuted over the examples, each column by its own permutation — the same
    distribution as the feature, no tie to the labels or to the other features.

    Parameters
    ----------
    X : array-like (n, d)
    random_state : int, SeedSequence or Generator, optional
        Seeds ``numpy.random.default_rng``.

    Returns
    -------
    float array (n, d)
        A new array; ``X`` is not modified.
    """
    data = np.asarray(X, dtype=float)
    if data.ndim != 2:
        raise InvalidInputError(f"X must be a 2-D array (examples × features); got "
                                f"{described(X)}.")
    return np.random.default_rng(random_state).permuted(data, axis=0)


def _names(feature_names: Sequence[str] | None, n_features: int) -> tuple[str, ...]:
    if feature_names is None:
        return tuple(f"x{j}" for j in range(n_features))
    names = tuple(str(name) for name in feature_names)
    if len(names) != n_features:
        raise InvalidInputError(f"feature_names must name the {n_features} features; got "
                                f"{len(names)} names.")
    return names


def _importances(importances: object, n_features: int) -> np.ndarray | None:
    if importances is None:
        return None
    array = np.array(importances, dtype=float)
    if array.shape != (n_features,) or np.isinf(array).any():
        raise InvalidInputError(f"importances must be {n_features} numbers (one per feature, "
                                f"NaN for none); got {described(importances)}.")
    return array


def stable_set(selection_matrix: object, *, pfer: float | None = None,
               fdp: float | None = None, decoy_selection: object = None,
               resampling: str = "bootstrap", sample_fraction: float | None = None,
               assumption: str | None = None, feature_names: Sequence[str] | None = None,
               importances: object = None) -> StableSet:
    """The stable set of a trial's runs under one error control.

    Parameters
    ----------
    selection_matrix : array-like (M, d) of bool or 0/1
        Z, the trial's runs (:attr:`~paretostab.RunSet.selection_matrix`).
    pfer : float, optional
        The largest E[V] accepted (> 0): the threshold is :func:`pfer_threshold`'s.
    fdp : float, optional
        The largest FDP⁺ accepted, in (0, 1]: the threshold is :func:`fdp_threshold`'s.
        Exactly one of ``pfer`` and ``fdp``.
    decoy_selection : array-like (M', 2d), optional
        With ``fdp``: the same selector's runs on [X, decoys], the d real columns first
        then the d decoys; the frequencies are then its real columns'.
    resampling : {"bootstrap", "subsample", "complementary_pairs"}
        How the runs were drawn: what the bound guarantees (:attr:`StableSet.guarantee`).
        Complementary pairs need an even M (B = M/2 pairs).
    sample_fraction : float, optional
        The share of the examples in each subsample: needed by ``"subsample"`` (the
        Meinshausen–Bühlmann bound is proven for 1/2), refused otherwise.
    assumption : {"none", "unimodal", "r-concave"}, optional
        The bound of ``pfer``: by default ``"unimodal"`` for complementary pairs (R
        stabs' default), ``"none"`` otherwise; the other two need complementary pairs.
    feature_names : sequence of str, optional
        The d names (default ``x0``, ``x1``, …).
    importances : array-like (d,), optional
        The features' importances, kept for the tables (NaN: a feature without one, as
        those the whole-data fit does not select).

    Returns
    -------
    StableSet
    """
    if (pfer is None) == (fdp is None):
        raise InvalidInputError("Give exactly one of pfer= (a bound on the expected number "
                                "of false selections) and fdp= (a target FDP⁺ over decoys); "
                                f"got pfer={pfer!r}, fdp={fdp!r}.")
    if resampling not in RESAMPLINGS:
        raise UnknownNameError.for_name("resampling", resampling, RESAMPLINGS)
    if resampling == "subsample":
        sample_fraction = FRACTION.number("sample_fraction", sample_fraction)
    elif sample_fraction is not None:
        raise InvalidInputError(f"sample_fraction is only for resampling='subsample'; got "
                                f"{sample_fraction!r} with resampling={resampling!r}.")
    matrix = _selection(selection_matrix, "selection_matrix")
    runs, n_features = matrix.shape
    if resampling == "complementary_pairs":
        PAIRED_RUNS.integer("runs", runs)
    names = _names(feature_names, n_features)
    weights = _importances(importances, n_features)
    if fdp is not None:
        if assumption is not None:
            raise InvalidInputError(f"assumption is for pfer= (the bound's); got "
                                    f"{assumption!r} with fdp=.")
        if decoy_selection is None:
            raise InvalidInputError("fdp= needs decoy_selection= (the runs on the data with "
                                    "decoys: d real columns, then d decoys).")
        decoys = _selection(decoy_selection, "decoy_selection")
        if decoys.shape[1] != 2 * n_features:
            raise InvalidInputError(f"decoy_selection must have 2 × {n_features} columns (the "
                                    f"real features, then their decoys); got "
                                    f"{decoys.shape[1]}.")
        runs = decoys.shape[0]
        frequencies = selection_frequencies(decoys[:, :n_features])
        decoy_frequencies = selection_frequencies(decoys[:, n_features:])
        target = _FDP.number("fdp", fdp)
        values = fdp_path(frequencies, decoy_frequencies, runs=runs).fdp_plus
        q = np.count_nonzero(decoys[:, :n_features]) / runs
        control: Literal["pfer", "fdp"] = "fdp"
        assumed = "decoys"
    else:
        if decoy_selection is not None:
            raise InvalidInputError("decoy_selection is for fdp=; got it with pfer=.")
        pairs = resampling == "complementary_pairs"
        assumed = check_assumption(("unimodal" if pairs else "none") if assumption is None
                                    else assumption)
        if assumed != "none" and not pairs:
            raise InvalidInputError(f"The {assumed!r} bound needs complementary pairs "
                                    f"(Shah & Samworth 2013); got resampling={resampling!r}.")
        target = POSITIVE.number("pfer", pfer)
        frequencies, decoy_frequencies = selection_frequencies(matrix), None
        q = np.count_nonzero(matrix) / runs
        values = pfer_path(q, n_features, runs, assumed, runs // 2 if pairs else None)
        control = "pfer"
    threshold = first_met(values, target)
    return StableSet(
        feature_names=names, frequencies=frequencies, decoy_frequencies=decoy_frequencies,
        importances=weights, runs=runs, q=float(q), control=control, target=target,
        threshold=threshold, assumption=assumed, resampling=resampling,
        sample_fraction=sample_fraction,
        bounds=(_bounds_at(q, n_features, threshold, resampling, runs) if control == "pfer"
                else {}),
        guarantee=_guarantee(control, assumed, resampling, sample_fraction, runs),
        path_values=values)
