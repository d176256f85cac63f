"""A study's trial settings fitted again for the report: replicates, held-out scores, label
probes and whole-data selections.

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

import pandas as pd

from paretostab._progress import progress_bar
from paretostab.evaluation import INTERVAL_METHODS, HeldOutScore
from paretostab.report._study_data import (
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

    def replicates(self, number: int, n_replicates: int, measures: Iterable[str]) -> dict:
        """The accuracy and ``measures`` of ``n_replicates`` fresh protocols of trial
        ``number``'s setting: ``{"accuracy": [...], measure: [...]}`` (cached as
        ``paretostab:replicates:N:B``; a cached entry lacking a measure is run again and
        extended)."""
        measures = list(measures)
        key = f"{REPLICATES_KEY}{int(number)}:{n_replicates}"
        cached = self._lookup(key)
        if isinstance(cached, dict) and all(m in cached for m in measures):
            return cached
        problem, spec = self.data.problem, self.data.checked_spec
        runsets = problem.replicates(self.data.params[int(number)], n_replicates,
                                     random_state=[spec.seed or 0, int(number), 1])
        values: dict[str, list[float]] = {"accuracy": [r.accuracy for r in runsets]}
        for runs in runsets:
            found = problem.measure_values(runs, measures)
            for name in measures:
                values.setdefault(name, []).append(found.get(name, math.nan))
        self._store(key, {**(cached if isinstance(cached, dict) else {}), **values})
        return values

    def replicate_trials(self, numbers: Sequence[int], n_replicates: int,
                         measures: Sequence[str], *, progress: bool | None = None,
                         description: str = "replicates") -> dict[int, dict]:
        """:meth:`replicates` of each of the trials ``numbers`` (trial number → values),
        with their progress: a bar on a terminal and plain lines on stderr otherwise
        (``progress`` None), the bar (True) or nothing (False)
        (:func:`~paretostab._progress.progress_bar`)."""
        found = {}
        with progress_bar(len(numbers), f"{description} (B = {n_replicates})",
                          progress=progress, unit="trials", leave=False) as bar:
            for number in numbers:
                found[int(number)] = self.replicates(number, n_replicates, measures)
                bar.update()
        return found
