"""What a study's numbers are worth beyond its own resamples: chance-level trials flagged,
the front scored on held-out examples, and the nested evaluation of the whole procedure.

- :func:`chance_flags`: the trials whose metric does not exceed the no-information value
  by a one-sided test at the report's level, and the settings whose selection ignores the
  labels (which may classify well, but whose stability is not evidence of signal;
  :mod:`paretostab.evaluation`); the γ choice passes them over unless asked, and
  :func:`with_flags` says why of each trial in a table;
- :func:`held_out_evaluation`: each front trial's setting refitted on the development part
  and scored on the held-out part (``[protocol] holdout``), beside its out-of-bag value
  and its replicate mean;
- :func:`nested_evaluation`: the procedure — tune, choose by γ, refit — in each outer fold
  (``[protocol] outer_folds``): the outer folds' metric and the stability of the K chosen
  selections.

Each takes a study as read (:class:`~paretostab.report._study_data.StudyData`) and its
:class:`~paretostab.report._refits.Refits` (which looks the refits up in the study's cache
or computes them); the results are frozen objects the pages show.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from paretostab._errors import InvalidInputError
from paretostab._progress import progress_bar
from paretostab.evaluation import (
    ChanceFlags,
    HeldOutScore,
    chance_p_value,
    no_information_value,
    outer_study_name,
)
from paretostab.front import choose, dominance_area, pareto_front
from paretostab.measures import stability
from paretostab.report._refits import Refits
from paretostab.report._study_data import StudyData

__all__ = ["HeldOutEvaluation", "NestedEvaluation",
           "chance_flags", "eligible_area", "eligible_choice", "eligible_front",
           "held_out_evaluation", "nested_evaluation", "with_flags"]


# --------------------------------------------------------------------------- chance


def with_flags(table: pd.DataFrame, flags: ChanceFlags | None) -> pd.DataFrame:
    """``table`` (rows of trials) with the column ``flag``: why each trial is flagged
    (:meth:`ChanceFlags.reason`, "" when it is not), as the page and ``front.csv`` show
    it; ``table`` as it is without ``flags`` (a study without its spec, never checked)."""
    if flags is None:
        return table
    return table.assign(flag=[flags.reason(n) for n in table["trial"]])


def _points(table: pd.DataFrame, objective: str) -> np.ndarray:
    return table[["accuracy", objective]].to_numpy(dtype=float)


def chance_flags(data: StudyData, refits: Refits, table: pd.DataFrame, objective: str, *,
                 level: float) -> ChanceFlags:
    """:class:`ChanceFlags` of the trials of ``table``: every trial's p-value against the
    no-information value of the development labels; the label probe for the trials on the
    front of all trials and, until it holds none unprobed, on the front of the trials not
    flagged (the front the γ choice picks from)."""
    y, metric = data.problem.y, data.checked_spec.protocol.metric
    numbers = [int(n) for n in table["trial"]]
    p_values = {n: chance_p_value(float(a), y, metric)
                for n, a in zip(numbers, table["accuracy"], strict=True)}
    flags = ChanceFlags(metric, no_information_value(y, metric), level, p_values, {})
    points = _points(table, objective)
    probed: dict[int, bool] = {}
    for row in pareto_front(points):
        probed[numbers[row]] = refits.ignores_labels(numbers[row])
    while True:
        flags = ChanceFlags(metric, flags.no_information, level, p_values, dict(probed))
        new = [numbers[r] for r in eligible_front(table, objective, flags)
               if numbers[r] not in probed]
        if not new:
            return flags
        for number in new:
            probed[number] = refits.ignores_labels(number)


def eligible_front(table: pd.DataFrame, objective: str,
                   flags: ChanceFlags | None) -> np.ndarray:
    """The rows of ``table`` on the front of the trials not flagged (all trials without
    ``flags``), by increasing accuracy."""
    points = _points(table, objective)
    keep = np.array([flags is None or not flags.flagged(n) for n in table["trial"]],
                    dtype=bool)
    rows = np.flatnonzero(keep)
    return rows[pareto_front(points[rows])] if rows.size else rows


def eligible_choice(table: pd.DataFrame, objective: str, gamma: float,
                    flags: ChanceFlags | None) -> int:
    """The row of ``table`` γ chooses among the front of the trials not flagged (003
    §7.1); among all trials when every front trial is flagged, or without ``flags``."""
    rows = eligible_front(table, objective, flags)
    if not rows.size:
        rows = eligible_front(table, objective, None)
    return int(rows[choose(_points(table, objective)[rows], gamma)])


def eligible_area(table: pd.DataFrame, objective: str, flags: ChanceFlags,
                  weight: object) -> float:
    """The dominance area of the trials not flagged (0 when all are)."""
    rows = eligible_front(table, objective, flags)
    return dominance_area(_points(table, objective)[rows], weight=weight) if rows.size else 0.0


# --------------------------------------------------------------------------- held out


@dataclass(frozen=True, eq=False)
class HeldOutEvaluation:
    """The front trials' settings scored on the examples the study never saw.

    Attributes
    ----------
    description : str
        What was held out ("held-out 25 %").
    n_development, n_test : int
    scores : mapping
        Trial number → :class:`~paretostab.evaluation.HeldOutScore` (refitted on the whole
        development part).
    table : pandas.DataFrame
        One row per front trial: ``trial``, ``out-of-bag`` (its own value), ``replicate
        mean`` (NaN without replicates), ``held-out``, ``held-out low`` / ``high``.
    """

    description: str
    n_development: int
    n_test: int
    scores: Mapping[int, HeldOutScore]
    table: pd.DataFrame

    @property
    def retained(self) -> float:
        """The front's mean held-out value over its mean out-of-bag value."""
        return float(self.table["held-out"].mean() / self.table["out-of-bag"].mean())

    def to_dict(self) -> dict:
        return {"description": self.description, "n_development": self.n_development,
                "n_test": self.n_test, "retained": self.retained,
                "trials": {str(n): s.to_dict() for n, s in self.scores.items()}}


def held_out_evaluation(data: StudyData, refits: Refits, table: pd.DataFrame,
                        front: Sequence[int],
                        replicates: Mapping[int, Mapping], *, level: float,
                        progress: bool | None = None) -> HeldOutEvaluation:
    """:class:`HeldOutEvaluation` of the trials ``front`` (numbers) of ``table``, with
    their ``replicates`` (trial number → ``{"accuracy": [...]}``, possibly empty);
    ``progress`` of the refits as :func:`~paretostab._progress.progress_bar` shows it."""
    problem = data.problem
    split, test_y = problem.split, problem.test_y
    if split is None or test_y is None:
        raise InvalidInputError(f"Study {data.name!r} holds no examples out "
                                "([protocol] holdout): nothing to score them on.")
    by_number = table.set_index("trial")
    scores, rows = {}, []
    with progress_bar(len(front), "held-out refits", progress=progress, unit="trials",
                      leave=False) as bar:
        for number in front:
            score = refits.held_out_score(int(number), level)
            scores[int(number)] = score
            sample = np.asarray(replicates.get(int(number), {}).get("accuracy", []),
                                dtype=float)
            rows.append({"trial": int(number),
                         "out-of-bag": float(by_number.loc[number, "accuracy"]),
                         "replicate mean": (float(np.nanmean(sample)) if sample.size
                                            else math.nan),
                         "held-out": score.value, "held-out low": score.low,
                         "held-out high": score.high})
            bar.update()
    return HeldOutEvaluation(split.description, int(problem.y.size), int(test_y.size),
                             scores, pd.DataFrame(rows))


# --------------------------------------------------------------------------- nested


@dataclass(frozen=True, eq=False)
class NestedEvaluation:
    """The nested evaluation of the whole procedure: in each outer fold, tune on the
    fold's training part, choose by γ, refit there and score on the fold's test part.

    Attributes
    ----------
    folds : pandas.DataFrame
        One row per outer fold tuned: ``fold``, ``study``, ``trials``, ``chosen`` (trial),
        ``out-of-bag`` (the chosen trial's own value), ``outer`` (its metric on the fold's
        test part), ``outer low`` / ``high`` (interval), ``n test``, ``selected``.
    missing : tuple of int
        The outer folds whose study does not exist or has no completed trial yet.
    outer_folds : int
        K.
    stability : mapping
        ``nogueira`` (φ) and ``iw`` (φ_iw) of the chosen selections of the folds tuned
        (NaN with fewer than 2).
    frequencies : pandas.DataFrame
        ``feature`` and ``folds`` (how many chosen selections hold it), by decreasing
        count.
    """

    folds: pd.DataFrame
    missing: tuple[int, ...]
    outer_folds: int
    stability: Mapping[str, float]
    frequencies: pd.DataFrame

    @property
    def mean(self) -> float:
        return float(self.folds["outer"].mean()) if len(self.folds) else math.nan

    @property
    def spread(self) -> float:
        """The standard deviation of the outer folds' metric (NaN with fewer than 2)."""
        return float(self.folds["outer"].std(ddof=1)) if len(self.folds) > 1 else math.nan

    def to_dict(self) -> dict:
        return {"outer_folds": self.outer_folds, "missing": list(self.missing),
                "mean": self.mean, "std": self.spread, "stability": dict(self.stability),
                "folds": self.folds.to_dict(orient="records"),
                "frequencies": self.frequencies.to_dict(orient="records")}


def nested_evaluation(data: StudyData, refits: Refits, objective: str, *, gamma: float,
                      level: float, allow_chance: bool,
                      progress: bool | None = None) -> NestedEvaluation:
    """:class:`NestedEvaluation` of the outer-fold studies of the study ``data``
    (:func:`~paretostab.evaluation.outer_study_name`): in each, the γ choice among its
    trials not flagged (all with ``allow_chance``), refitted on the fold's training part
    and scored on its test part; ``progress`` of the folds as
    :func:`~paretostab._progress.progress_bar` shows it. A study without outer folds
    (``protocol.outer_folds`` absent) is an :class:`~paretostab.InvalidInputError`."""
    k = data.checked_spec.protocol.outer_folds
    if k is None:
        raise InvalidInputError(f"study {data.name!r} has no outer folds "
                                "(protocol.outer_folds): nothing to evaluate nested")
    rows, missing, supports, importances = [], [], [], []
    names = data.problem.feature_names
    with progress_bar(k, "outer folds", progress=progress, unit="folds", leave=False) as bar:
        for fold in range(1, k + 1):
            outer = refits.outer(fold)
            table = outer.data.table if outer is not None else pd.DataFrame()
            if outer is None or table.empty:
                missing.append(fold)
                bar.update()
                continue
            flags = (None if allow_chance else
                     chance_flags(outer.data, outer, table, objective, level=level))
            row = table.iloc[eligible_choice(table, objective, gamma, flags)]
            number = int(row["trial"])
            score = outer.held_out_score(number, level)
            selection = outer.whole_data_selection(number)
            support = np.zeros(len(names), dtype=bool)
            support[selection["index"].to_numpy()] = True
            weights = np.zeros(len(names))
            weights[selection["index"].to_numpy()] = selection["importance"].fillna(1.0).abs()
            supports.append(support)
            importances.append(weights)
            rows.append({"fold": fold, "study": outer_study_name(data.name, fold),
                         "trials": len(table), "chosen": number,
                         "out-of-bag": float(row["accuracy"]), "outer": score.value,
                         "outer low": score.low, "outer high": score.high, "n test": score.n,
                         "selected": len(selection)})
            bar.update()
    values = {"nogueira": math.nan, "iw": math.nan}
    if len(supports) >= 2:
        values = {"nogueira": stability("nogueira", np.array(supports)),
                  "iw": stability("iw", np.array(importances))}
    counts = np.sum(supports, axis=0) if supports else np.zeros(len(names), dtype=int)
    order = [f for f in np.argsort(-counts, kind="stable") if counts[f] > 0]
    frequencies = pd.DataFrame({"feature": [str(names[f]) for f in order],
                                "folds": [int(counts[f]) for f in order]})
    return NestedEvaluation(pd.DataFrame(rows), tuple(missing), int(k), values, frequencies)
