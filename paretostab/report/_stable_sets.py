"""The chosen trial's stable sets: its features kept under an error control.

:func:`trial_runs` gathers what a trial's stable set is computed from — its runs as the
study stored them, the importances of its whole-data fit, and its decoy run, computed by
the study's :class:`~paretostab.report._refits.Refits` on first use and kept in the
study — and :func:`with_stable_sets` adds to a report the stable sets of its chosen trial
under the controls asked for (:func:`paretostab.stable_set.stable_set`: a PFER bound,
Meinshausen & Bühlmann 2010 and Shah & Samworth 2013; an FDP⁺ over decoys, Hédou et al.
2024).
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pandas as pd

from paretostab._choice import TrialRuns
from paretostab._runset import RunSet
from paretostab.report._analysis import StudyReport
from paretostab.report._refits import Refits
from paretostab.report._study_data import StudyData

__all__ = ["trial_runs", "with_stable_sets"]


def trial_runs(data: StudyData, refits: Refits, number: int, runs: RunSet,
               selection: pd.DataFrame | None) -> TrialRuns:
    """What trial ``number``'s stable set is computed from: its ``runs`` (the RunSet it
    stored), the importances of its ``selection`` on the whole data
    (:meth:`~paretostab.report._refits.Refits.whole_data_selection`; None: none), and its
    decoy run through ``refits`` (for a study that holds its spec).

    Parameters
    ----------
    data : StudyData
    refits : Refits
    number : int
        The trial.
    runs : RunSet
        Its runs.
    selection : pandas.DataFrame or None
        Its whole-data selection (columns ``index``, ``importance``).
    """
    d = runs.n_features
    names = (data.problem.feature_names if data.has_spec else
             runs.feature_names or tuple(f"feature {j}" for j in range(d)))
    importances = None
    if selection is not None:
        importances = np.full(d, np.nan)
        importances[selection["index"].to_numpy(dtype=np.intp)] = selection["importance"]
    protocol = runs.params.get("protocol", {})
    fraction = protocol.get("sample_fraction") if runs.resampling == "subsample" else None
    return TrialRuns(runs.selection_matrix, runs.resampling, fraction, tuple(names),
                     importances,
                     functools.partial(refits.decoy_selection, number) if data.has_spec
                     else None)


def with_stable_sets(report: StudyReport, runs: TrialRuns, *, pfer: float | None,
                     fdp: float | None, assumption: str | None = None) -> StudyReport:
    """``report`` with its chosen trial's ``runs`` and its stable sets under ``pfer`` and
    under ``fdp`` (each when given; the decoy run of ``fdp`` computed or looked up).

    Parameters
    ----------
    report : StudyReport
    runs : TrialRuns
        Of its chosen trial (:func:`trial_runs`).
    pfer, fdp : float or None
        The error controls' targets (:func:`paretostab.stable_set.stable_set`).
    assumption : str, optional
        The PFER bound's.
    """
    sets = []
    if pfer is not None:
        sets.append(runs.stable_set(pfer=pfer, assumption=assumption))
    if fdp is not None:
        sets.append(runs.stable_set(fdp=fdp))
    return replace(report, chosen_runs=runs, stable_sets=tuple(sets))
