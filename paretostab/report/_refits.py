"""A study's trial settings fitted again for the report: replicates, held-out scores, label
probes, decoy runs and whole-data selections.

These are computations on the study's data (:class:`~paretostab._problem.Problem`), not
reads: :class:`Refits` looks each up in the refits cached in the study (read with it,
:attr:`~paretostab.report._study_data.StudyData.cache`), computes what is missing, and
hands each new value to ``keep`` as soon as it is computed — the report's writer
(:func:`~paretostab.report._write.write_refit`), so that a second report, ``choose`` or a
comparison re-runs nothing, even after this one was interrupted or killed. It neither
reads nor writes a storage itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from paretostab._progress import EVERY, progress_bar
from paretostab.evaluation import INTERVAL_METHODS, HeldOutScore
from paretostab.report._study_data import (
    DECOYS_KEY,
    HELD_OUT_KEY,
    LABELS_KEY,
    REPLICATES_KEY,
    StudyData,
)

__all__ = ["Keep", "Refits"]

#: Where a refit goes once computed: ``keep(study name, key, value)``.
Keep = Callable[[str, str, object], None]


class Refits:
    """The refits of the study ``data`` (see the module's docstring).

    Parameters
    ----------
    data : StudyData
    keep : callable, optional
        ``keep(study name, key, value)``, called with each value computed here that the
        study's cache did not hold (None: kept in memory only).
    """

    def __init__(self, data: StudyData, keep: Keep | None = None) -> None:
        self.data = data
        self._keep = keep
        self._new: dict[str, object] = {}
        self._outer: dict[int, Refits] = {}

    def outer(self, fold: int) -> Refits | None:
        """The refits of the study of outer fold ``fold`` (None: not created yet), kept
        in that study."""
        data = self.data.outer[fold - 1]
        if data is None:
            return None
        return self._outer.setdefault(fold, Refits(data, self._keep))

    def _lookup(self, key: str) -> object | None:
        return self._new[key] if key in self._new else self.data.cache.get(key)

    def _store(self, key: str, value: object) -> None:
        self._new[key] = value
        if self._keep is not None:
            self._keep(self.data.name, key, value)

    def _cached(self, key: str, compute: Callable[[], object]) -> object:
        found = self._lookup(key)
        if found is None:
            found = compute()
            self._store(key, found)
        return found

    def held_out_score(self, number: int, level: float) -> HeldOutScore:
        """Trial ``number``'s setting refitted on the development part and scored on the
        held-out part (:meth:`~paretostab._problem.Problem.held_out_score`; cached as
        ``paretostab:held-out:N:level``; one cached with another interval than the
        metric's :data:`~paretostab.evaluation.INTERVAL_METHODS`, such as the collapsing
        bootstrap of earlier versions, is computed again)."""
        key = f"{HELD_OUT_KEY}{int(number)}:{level}"
        found = self._lookup(key)
        method = INTERVAL_METHODS[self.data.checked_spec.protocol.metric]
        if not isinstance(found, dict) or found.get("method") != method:
            found = self.data.problem.held_out_score(self.data.params[int(number)],
                                                     level=level).to_dict()
            self._store(key, found)
        return HeldOutScore(**found)

    def ignores_labels(self, number: int) -> bool:
        """Whether trial ``number``'s setting selects the same features whatever the
        labels (:meth:`~paretostab._problem.Problem.ignores_labels`; cached as
        ``paretostab:ignores-labels:N``)."""
        params = self.data.params[int(number)]
        return bool(self._cached(f"{LABELS_KEY}{int(number)}",
                                 lambda: self.data.problem.ignores_labels(params)))

    def whole_data_selection(self, number: int) -> pd.DataFrame:
        """The features trial ``number``'s setting selects when fitted once on the whole
        (development) data (:meth:`~paretostab._problem.Problem.whole_data_selection`)."""
        return self.data.problem.whole_data_selection(self.data.params[int(number)])

    def decoy_selection(self, number: int) -> np.ndarray:
        """The selection matrix (M × 2d, the d real columns first) of trial ``number``'s
        setting run on the data with decoys
        (:meth:`~paretostab._problem.Problem.decoy_run`; cached as
        ``paretostab:decoys:N``: the columns each run selected)."""
        number = int(number)
        problem = self.data.problem

        def run() -> dict:
            runs = problem.decoy_run(self.data.params[number],
                                     random_state=problem.decoy_state(number))
            return {"columns": int(runs.n_features),
                    "selected": [np.flatnonzero(row).tolist()
                                 for row in runs.selection_matrix]}

        found = self._cached(f"{DECOYS_KEY}{number}", run)
        assert isinstance(found, dict)
        selection = np.zeros((len(found["selected"]), int(found["columns"])), dtype=bool)
        for row, columns in zip(selection, found["selected"], strict=True):
            row[np.asarray(columns, dtype=np.intp)] = True
        return selection

    def replicates(self, number: int, n_replicates: int, measures: Iterable[str]) -> dict:
        """The accuracy and ``measures`` of ``n_replicates`` fresh protocols of trial
        ``number``'s setting: ``{"accuracy": [...], measure: [...]}`` (cached as
        ``paretostab:replicates:N:B``; a cached entry lacking a measure is run again and
        extended)."""
        return self.replicate_trials([number], n_replicates, list(measures),
                                     progress=False)[int(number)]

    def replicate_trials(self, numbers: Sequence[int], n_replicates: int,
                         measures: Sequence[str], *, progress: bool | None = None,
                         description: str = "replicates") -> dict[int, dict]:
        """:meth:`replicates` of each of the trials ``numbers`` (trial number → values).

        The protocols of every trial not cached run in one pool of processes
        (:meth:`~paretostab._problem.Problem.replicate_protocols`; the same values as
        trial by trial), and each trial's values are kept as soon as its B protocols are
        done. Their progress counts runs — M for each protocol, of every trial to compute;
        each run as it ends in a pool of one — with the pace and the time left (counted
        in trials, a slow study's report showed ``0/2 trials`` for minutes): a bar on a
        terminal and plain lines
        on stderr otherwise (``progress`` None; a line every ten protocols or every 30 s),
        the bar (True) or nothing (False) (:func:`~paretostab._progress.progress_bar`).
        """
        measures = list(measures)
        found: dict[int, dict] = {}
        missing: dict[int, dict] = {}  # trial → its cached entry lacking a measure, or {}
        for number in map(int, numbers):
            cached = self._lookup(f"{REPLICATES_KEY}{number}:{n_replicates}")
            if isinstance(cached, dict) and all(m in cached for m in measures):
                found[number] = cached
            else:
                missing[number] = cached if isinstance(cached, dict) else {}
        if missing:
            found.update(self._run_replicates(missing, n_replicates, measures,
                                              progress=progress, description=description))
        return {int(number): found[int(number)] for number in numbers}

    def _run_replicates(self, missing: dict[int, dict], n_replicates: int,
                        measures: list[str], *, progress: bool | None,
                        description: str) -> dict[int, dict]:
        """The replicates of the trials ``missing``, run in one pool, each trial's kept
        as soon as its B protocols are done (:meth:`replicate_trials`)."""
        todo = list(missing)
        problem = self.data.problem
        runs = problem.spec.protocol.runs
        found: dict[int, dict] = {}
        values: dict[int, dict[int, dict[str, float]]] = {number: {} for number in todo}
        with progress_bar(len(todo) * n_replicates * runs,
                          f"{description} (B = {n_replicates})", progress=progress,
                          unit="runs", leave=False, every=EVERY * runs) as bar:
            for i, b, runset in problem.replicate_protocols(
                    [self.data.params[number] for number in todo], n_replicates,
                    random_states=[problem.replicate_state(number) for number in todo],
                    on_runs=bar.update):
                number = todo[i]
                measured = problem.measure_values(runset, measures)
                values[number][b] = {"accuracy": runset.accuracy,
                                     **{m: measured.get(m, math.nan) for m in measures}}
                if len(values[number]) == n_replicates:
                    done = values.pop(number)
                    found[number] = self._keep_replicates(
                        number, n_replicates, missing[number],
                        [done[r] for r in range(n_replicates)])
        return found

    def _keep_replicates(self, number: int, n_replicates: int, cached: dict,
                         replicates: list[dict[str, float]]) -> dict:
        """Store trial ``number``'s replicates, one list per value (``cached``: its entry
        lacking a measure, extended)."""
        values = {name: [replicate[name] for replicate in replicates]
                  for name in replicates[0]}
        self._store(f"{REPLICATES_KEY}{number}:{n_replicates}", {**cached, **values})
        return values
