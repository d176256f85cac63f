"""The trade-off a user chooses: the trial γ chooses, its values, parameters and the
features its selector keeps (003 §7.1), as ``choose`` returns it to Python and the command
line alike (:func:`paretostab.choose`, ``python -m paretostab choose``). It stands below
the report, which computes it, and the API, which returns it: importing it loads neither."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from markupsafe import Markup

from paretostab._errors import InvalidInputError
from paretostab.measures import measure_label

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline

    from paretostab.stable_set import StableSet

__all__ = ["Choice", "TrialRuns", "kept_runs"]


@dataclass(frozen=True, eq=False)
class TrialRuns:
    """What a trial's stable set is computed from (:meth:`Choice.stable_set`).

    Attributes
    ----------
    selection_matrix : bool array (M, d)
        The trial's runs, as the study stored them.
    resampling : str
        How those runs resampled the examples (``[protocol] resampling``).
    sample_fraction : float or None
        A subsample's fraction (None for the other resamplings).
    feature_names : tuple of str
    importances : float array (d,) or None
        Each feature's importance in the selector fitted once on the whole (development)
        data (NaN where it is not selected).
    decoy_selection : callable or None
        Returns the selection matrix of the trial's setting run on the data with decoys
        (M × 2d), computed on the first call and kept in the study
        (:meth:`~paretostab._problem.Problem.decoy_run`); None where the study cannot
        re-run its trials.
    """

    selection_matrix: np.ndarray
    resampling: str
    sample_fraction: float | None
    feature_names: tuple[str, ...]
    importances: np.ndarray | None = None
    decoy_selection: Callable[[], np.ndarray] | None = field(default=None, repr=False)

    def stable_set(self, *, pfer: float | None = None, fdp: float | None = None,
                   assumption: str | None = None) -> StableSet:
        """The stable set under ``pfer`` or ``fdp`` (:func:`paretostab.stable_set.stable_set`).

        Parameters
        ----------
        pfer, fdp, assumption
            As :func:`paretostab.stable_set.stable_set`'s.
        """
        from paretostab.stable_set import stable_set  # the bounds, when asked for

        decoys = None
        if fdp is not None:
            if self.decoy_selection is None:
                raise InvalidInputError(
                    "fdp needs the trial's setting run again on the data with decoys, and "
                    "this study holds no spec to re-run it; use pfer.")
            decoys = self.decoy_selection()
        return stable_set(self.selection_matrix, pfer=pfer, fdp=fdp, decoy_selection=decoys,
                          resampling=self.resampling, sample_fraction=self.sample_fraction,
                          assumption=assumption, feature_names=self.feature_names,
                          importances=self.importances)


def _same(runs: TrialRuns | None) -> TrialRuns | None:
    return runs


def kept_runs(runs: TrialRuns | None) -> Callable[[], TrialRuns | None]:
    """A :attr:`Choice.read_runs` for runs read already (a report's, a pickled choice's):
    it gives ``runs`` back, and pickles with them."""
    return functools.partial(_same, runs)


@dataclass(frozen=True)
class Choice:
    """The front trial γ chooses (003 §7.1).

    Attributes
    ----------
    trial : int
    gamma : float
    values : dict
        Its metric (under ``"accuracy"``) and stability measure, by registry name.
    params : dict
        Its Optuna parameters.
    features : tuple of str
        The features its selector selects when fitted once on the whole (development) data,
        by decreasing importance.
    held_out : dict or None
        Its metric on the held-out part, with its interval (``[protocol] holdout``).
    flagged : dict
        The trials passed over as flagged (their metric not above chance, or their
        selection ignoring the labels), with the reason.
    metric : str
        The study's protocol metric, which ``values["accuracy"]`` holds (``accuracy``,
        ``balanced_accuracy``, …): what :meth:`label` and the command line call it.
    runs : TrialRuns or None
        What :meth:`stable_set` computes from (None: the study does not hold the trial's
        runs): read from the study's artifact store when first asked for (``read_runs``),
        then kept.
    study : str
        The study's name.
    read_runs : callable or None
        Reads :attr:`runs` from the study (None: no runs).
    fit_model : callable or None
        Fits :meth:`model` (None: the study holds no spec to refit the trial's setting).
    """

    trial: int
    gamma: float
    values: Mapping[str, float]
    params: Mapping[str, object]
    features: tuple[str, ...]
    held_out: Mapping[str, object] | None
    flagged: Mapping[int, str]
    metric: str = "accuracy"
    read_runs: Callable[[], TrialRuns | None] | None = field(default=None, repr=False,
                                                             compare=False)
    study: str = ""
    fit_model: Callable[[], Pipeline] | None = field(default=None, repr=False, compare=False)

    @functools.cached_property
    def runs(self) -> TrialRuns | None:
        """The trial's runs (:class:`TrialRuns`), read once, when first asked for."""
        return None if self.read_runs is None else self.read_runs()

    def model(self) -> Pipeline:
        """The chosen trade-off as a model for new samples: a scikit-learn ``Pipeline`` of
        the spec's variance pre-filter (when it has one) and the trial's selector at its
        parameters, whose final model classifies, fitted on the whole (development) data
        with the features' names (``feature_names_in_``: data with other columns is
        refused). Fitted anew at each call.

        Returns
        -------
        sklearn.pipeline.Pipeline
        """
        if self.fit_model is None:
            raise InvalidInputError(
                f"trial {self.trial}'s setting cannot be refitted here: its study's spec and "
                "data are not at hand (a study made by an older version, or a choice "
                "unpickled without its study: choose again from the study).")
        return self.fit_model()

    def save_model(self, path: str | os.PathLike) -> Path:
        """Fit :meth:`model` and save it with what it is — the study, trial, γ, values,
        parameters, selected features, the features it expects (in order), the metric and
        paretostab's version — as a skops file (:func:`paretostab.load_model` reads it;
        ``python -m paretostab predict`` classifies new samples with it). skops, the
        field's safe format for scikit-learn models, never runs a pickle's code on
        loading.

        Parameters
        ----------
        path : str or Path
            The file to write (``.skops`` by convention).

        Returns
        -------
        Path
        """
        from paretostab._model import save_model  # scikit-learn and skops, when asked for

        return save_model(self.model(), path, {
            "study": self.study, "trial": self.trial, "gamma": self.gamma,
            "values": dict(self.values), "params": dict(self.params),
            "features": list(self.features), "metric": self.metric})

    def stable_set(self, *, pfer: float | None = None, fdp: float | None = None,
                   assumption: str | None = None) -> StableSet:
        """The features of the chosen trial that are selected often enough to keep under an
        error control: ``pfer``, the expected number of false positives
        (Meinshausen & Bühlmann 2010; Shah & Samworth 2013 with complementary pairs), or
        ``fdp``, the false discovery proportion estimated with decoys (Hédou et al. 2024),
        whose run is computed once and kept in the study.

        Parameters
        ----------
        pfer : float, optional
            The bound on the expected number of false positives to meet.
        fdp : float, optional
            The FDP⁺ to meet (one of ``pfer`` and ``fdp``).
        assumption : {"none", "unimodal", "r-concave"}, optional
            The PFER bound's assumption (:func:`paretostab.stable_set.stable_set`).

        Returns
        -------
        StableSet
        """
        if self.runs is None:
            raise InvalidInputError(
                f"trial {self.trial}'s runs are not in the study's artifact store: no "
                "stable set can be computed (give the store with artifacts=).")
        return self.runs.stable_set(pfer=pfer, fdp=fdp, assumption=assumption)

    def label(self, name: str) -> str:
        """How a key of :attr:`values` is said: the metric's real name for
        ``"accuracy"`` ("balanced accuracy"), a measure's symbol otherwise.

        Parameters
        ----------
        name : str
            A key of :attr:`values`.
        """
        return self.metric.replace("_", " ") if name == "accuracy" else measure_label(name)

    def __repr__(self) -> str:
        """The trial, γ, its values and how many features and flagged trials, not the
        lists (a short repr, as scikit-learn's estimators have)."""
        values = ", ".join(f"{name}={value:.4g}" for name, value in self.values.items())
        held = "" if self.held_out is None else ", held out"
        return (f"Choice(trial={self.trial}, gamma={self.gamma:g}, {values}, "
                f"{len(self.features)} features, {len(self.flagged)} flagged{held})")

    def __html__(self) -> Markup:
        """The choice as HTML (``notebook.html``), as markup: what a template inserts as it
        is, and what :meth:`to_html` returns."""
        from paretostab._templating import render_macro  # the report, when drawn

        return render_macro(
            "notebook.html", "choice", gamma=self.gamma, trial=self.trial,
            values=[(self.label(k), v) for k, v in self.values.items()],
            params=[(str(k), f"{v:.4g}" if isinstance(v, float) else str(v))
                    for k, v in self.params.items()],
            features=list(self.features), held_out=self.held_out, flagged=list(self.flagged))

    def to_html(self) -> str:
        """The choice as HTML: a notebook's representation (``_repr_html_``)."""
        return str(self.__html__())

    _repr_html_ = to_html
