"""A tuned study as the report reads it: frozen values, with no Optuna object inside.

:class:`StudyData` is what :func:`~paretostab.report._load.read_study` reads from a storage
in one pass — the completed trials as a table, their parameters, the study's spec, its
objective and recorded measures, the colours of its features, the cache of earlier refits
and the studies of its outer folds — and what every analysis of the report takes in its
place. Nothing here reads or writes a storage: the analyses (:mod:`~paretostab.report.
analysis`, :mod:`~paretostab.report._estimates`) import this module, never the reader.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from paretostab._errors import InvalidInputError
from paretostab._problem import Problem
from paretostab.maps import FeaturePalette, study_palette
from paretostab.spec import SELECTOR_PARAM, StudySpec

__all__ = ["DECOYS_KEY", "HELD_OUT_KEY", "LABELS_KEY", "REFIT_KEYS", "REPLICATES_KEY", "StudyData",
           "no_completed_trial"]

#: Prefix of the study system attributes that cache a front trial's replicates
#: (``paretostab:replicates:<trial number>:<B>``).
REPLICATES_KEY = "paretostab:replicates:"
#: Prefix of those caching a trial's held-out score
#: (``paretostab:held-out:<trial number>:<level>``).
HELD_OUT_KEY = "paretostab:held-out:"
#: Prefix of those caching whether a trial's selection ignores the labels
#: (``paretostab:ignores-labels:<trial number>``).
LABELS_KEY = "paretostab:ignores-labels:"
#: Prefix of those caching a trial's decoy run, the columns each of its runs selected
#: (``paretostab:decoys:<trial number>``; :meth:`~paretostab._problem.Problem.decoy_run`).
DECOYS_KEY = "paretostab:decoys:"
#: Every refit's prefix: what a study's cache holds.
REFIT_KEYS = (REPLICATES_KEY, HELD_OUT_KEY, LABELS_KEY, DECOYS_KEY)


def no_completed_trial(name: str) -> InvalidInputError:
    """The error of a study that has no completed trial yet."""
    return InvalidInputError(f"Study {name!r} has no completed trial yet.")


@dataclass(frozen=True, eq=False)
class StudyData:
    """A tuned study, read (:func:`~paretostab.report._load.read_study`).

    Attributes
    ----------
    name : str
    location : str
        Where it is stored, as the report says it: the storage URL with its password
        masked (:func:`~paretostab._storage.display_url`).
    objective : str
        The registry name of its stability objective.
    recorded : tuple of str
        The measures its spec records on every trial.
    spec : StudySpec or None
        The spec it was made from (None for a study made by an older version, whose
        trials cannot be re-run).
    table : pandas.DataFrame
        One row per completed trial: ``trial`` (its number), ``accuracy`` (the metric),
        every measure read (recorded by the trial, else recomputed from its RunSet), ``kbar``
        (k̄) and its parameters.
    params : mapping
        Trial number → its Optuna parameters (completed trials).
    cache : mapping
        The refits cached in the study (replicates, held-out scores, label probes, decoy
        runs; keys :data:`REFIT_KEYS`) as read.
    feature_colors : tuple of int or None
        The order of the features that its maps colour, as the study stored it (None:
        computed from the data, :func:`~paretostab.maps.study_palette`).
    selector_names : tuple of str
        The selectors its spec names.
    outer : tuple of (StudyData or None)
        The studies of its outer folds (``[protocol] outer_folds``; read for a report) in
        fold order, None
        for a fold not created yet; empty without a nested evaluation.
    data_given : object
        The data of a study tuned on data in memory (None: the spec's source), from which
        :attr:`problem` is made.
    """

    name: str
    location: str
    objective: str
    recorded: tuple[str, ...]
    spec: StudySpec | None
    table: pd.DataFrame
    params: Mapping[int, Mapping[str, object]]
    cache: Mapping[str, object]
    feature_colors: tuple[int, ...] | None = None
    selector_names: tuple[str, ...] = ()
    outer: tuple[StudyData | None, ...] = ()
    data_given: object = None

    @property
    def has_spec(self) -> bool:
        """Whether the study holds its spec: without it no trial can be re-run."""
        return self.spec is not None

    @property
    def checked_spec(self) -> StudySpec:
        """:attr:`spec`, or the error line of a study without one."""
        if self.spec is None:
            raise InvalidInputError(
                f"Study {self.name!r} holds no spec (made by an older version): its "
                "trials cannot be re-run; use --replicates 0.")
        return self.spec

    @functools.cached_property
    def problem(self) -> Problem:
        """The spec with its data (loaded on first use)."""
        return Problem.from_spec(self.checked_spec, self.data_given)

    @functools.cached_property
    def palette(self) -> FeaturePalette | None:
        """The colours of the study's features, which its trials' maps on the dashboard
        took too (:func:`~paretostab.maps.study_palette`; 003 §3: "each feature is assigned
        a color"); None for a study without its spec (no data to compute them from)."""
        if not self.has_spec:
            return None
        return study_palette(self.feature_colors, self.problem.X, self.problem.y)

    @property
    def replicates(self) -> int:
        """``B`` of the study's spec (``protocol.replicates``)."""
        return self.checked_spec.protocol.replicates

    def selectors(self) -> list[str]:
        """The selectors of its trials (the ``selector`` column, in a multi-selector
        study), else its spec's."""
        if SELECTOR_PARAM in self.table.columns:
            return sorted(str(s) for s in self.table[SELECTOR_PARAM].dropna().unique())
        return list(self.selector_names)
