"""Compare groups of trials — several studies, or the selectors of one study, or one
study alone — by their (accuracy, stability) Pareto fronts (000 §6.2, Fig. 6 and Table 3;
002 §3).

Pure (numpy, pandas, :mod:`paretostab.front`, :mod:`paretostab.report._confidence`): a
:class:`Group` is a table of trials (``"trial"``, ``"accuracy"``, one column per stability
measure, optionally ``"selector"``) with the replicates of its front trials;
:func:`compare_groups` gives, under every measure, each group's front, dominance area (DA)
and DA confidence interval (002 §3), the differences of every pair of groups with an
interval and a verdict, and the front of all groups together; :func:`table3` is 000's
Table 3 (ranges, and which groups reach the combined front). A one-study report is the
comparison of one group (:mod:`paretostab.report._analysis`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, overload

import numpy as np
import pandas as pd

from paretostab._errors import InvalidInputError
from paretostab.front import dominance_area, pareto_front
from paretostab.report._confidence import (
    DominanceAreaInterval,
    Ellipse,
    as_level,
    confidence_regions,
    dominance_area_interval,
)

__all__ = ["NO_INTERVAL", "OVERLAP", "CombinedFront", "Comparison", "Difference", "Group",
           "GroupFront", "compare_groups", "front_trials", "jsonable", "pair_level",
           "table3"]

#: The words of a verdict without replicates.
NO_INTERVAL = "(no replicates: no interval)"
#: The verdict when neither domination nor a DA difference is shown.
OVERLAP = "overlap: no difference shown"


@dataclass(frozen=True)
class Group:
    """One group of trials of a comparison: a study, or one selector of a multi-selector
    study.

    Attributes
    ----------
    name : str
        How the page and the tables name it.
    table : pandas.DataFrame
        One row per trial: ``"trial"`` (its number), ``"accuracy"``, one column per
        stability measure compared, and optionally ``"selector"`` (the trial's selector in
        a multi-selector study). Other columns are ignored; the table is not modified.
    replicates : mapping
        Trial number → its ``B`` replicates, ``{"accuracy": [...], measure: [...]}`` (as
        :class:`~paretostab.report._refits.Refits` computes them); trials without
        replicates are left out.
        A front whose trials all have them (``B >= 3``) gets confidence regions.
    """

    name: str
    table: pd.DataFrame
    replicates: Mapping[int, Mapping[str, Sequence[float]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidInputError(f"a group's name must be a non-empty str; got "
                                    f"{self.name!r}.")
        if not isinstance(self.table, pd.DataFrame):
            raise InvalidInputError(f"group {self.name!r}: table must be a pandas DataFrame; "
                                    f"got {type(self.table).__name__}.")
        missing = [c for c in ("trial", "accuracy") if c not in self.table.columns]
        if missing:
            raise InvalidInputError(f"group {self.name!r}: its table has no {missing[0]!r} "
                                    f"column (columns: {', '.join(map(str, self.table.columns))}).")
        if self.table.empty:
            raise InvalidInputError(f"group {self.name!r} has no trials.")
        if not isinstance(self.replicates, Mapping):
            raise InvalidInputError(f"group {self.name!r}: replicates must map trial numbers "
                                    f"to their replicates; got {type(self.replicates).__name__}.")

    def labels(self) -> list[str]:
        """What each trial is called among several groups: the group's name, or
        ``"group: selector"`` when the table has a ``"selector"`` column naming something
        else than the group (a multi-selector study among studies)."""
        if "selector" not in self.table.columns:
            return [self.name] * len(self.table)
        return [self.name if not isinstance(s, str) or s == self.name else f"{self.name}: {s}"
                for s in self.table["selector"]]


@dataclass(frozen=True)
class GroupFront:
    """One group's front under one measure (002 §3).

    Attributes
    ----------
    group, measure : str
    rows : tuple of int
        Positions in the group's table of its Pareto-optimal trials, by increasing
        accuracy.
    trials : tuple of int
        Their trial numbers.
    points : numpy.ndarray (P, 2)
        Their (accuracy, measure) values.
    dominance_area : float
        The DA of the group's trials' own values (002 eq. 2 with the comparison's weight).
    replicates : int
        ``B``: the fewest replicates of a front trial; 0 when some front trial has none
        (then every field below is None).
    regions : tuple of Ellipse or None
        The Hotelling regions of the front trials' expected (accuracy, measure), each at
        the comparison's level (002 §3 eq. 4).
    interval : DominanceAreaInterval or None
        002's DA interval from ``regions``; its ``estimate`` is the DA of the replicate
        means.
    simultaneous_interval : DominanceAreaInterval or None
        From regions holding the front's expected points simultaneously (Bonferroni over
        the ``P`` front points): covers the expected DA with probability ``≥ level``.
    pair_regions : tuple of Ellipse or None
        Simultaneous regions at level ``1 − (1 − level)/2``: what the pairwise differences
        and verdicts use (Bonferroni over the two groups of a pair).
    pair_interval : DominanceAreaInterval or None
        The DA interval from ``pair_regions``.
    """

    group: str
    measure: str
    rows: tuple[int, ...]
    trials: tuple[int, ...]
    points: np.ndarray
    dominance_area: float
    replicates: int = 0
    regions: tuple[Ellipse, ...] | None = None
    interval: DominanceAreaInterval | None = None
    simultaneous_interval: DominanceAreaInterval | None = None
    pair_regions: tuple[Ellipse, ...] | None = None
    pair_interval: DominanceAreaInterval | None = None


@dataclass(frozen=True)
class Difference:
    """Group ``first`` against group ``second`` under one measure.

    Attributes
    ----------
    measure, first, second : str
    dominance_area : float
        ``DA(first) − DA(second)`` on the trials' own values.
    estimate : float or None
        The same difference for the replicate means (None without replicates).
    low, high : float or None
        ``[low_first − high_second, high_first − low_second]`` from each group's
        :attr:`GroupFront.pair_interval`, each at level ``1 − α/2`` (``α = 1 − level``):
        it holds the difference of the expected DAs with probability ``≥ level``
        (Bonferroni over the two groups; conservative). None without replicates.
    level : float
    verdict : str
        "``first``'s front dominates ``second``'s" (or the reverse) when every point of the
        dominated group's most dominant front (the upper corners of its pair regions) is
        weakly dominated by a point of the other's most dominated front (the lower corners
        of its regions), and not the other way round — the domination of the expected
        fronts then holds at ``level``; "``first`` has the larger dominance area" (or
        ``second``) when ``[low, high]`` excludes 0 but the fronts cross; otherwise
        :data:`OVERLAP`. Without replicates, the same words from the trials' own fronts and
        DAs ("equal dominance areas" when they tie), followed by :data:`NO_INTERVAL`.
    winner : str or None
        The group the verdict favours; None for an overlap or a tie.
    """

    measure: str
    first: str
    second: str
    dominance_area: float
    estimate: float | None
    low: float | None
    high: float | None
    level: float
    verdict: str
    winner: str | None


@dataclass(frozen=True)
class CombinedFront:
    """The Pareto front of all groups' trials together under one measure (000 §6.2 Fig. 6).

    Attributes
    ----------
    measure : str
    table : pandas.DataFrame
        One row per front point, by increasing accuracy: ``group``, ``label`` (the group,
        or ``"group: selector"``), ``trial``, ``accuracy``, every measure compared, and
        ``selector`` when some group has one.
    rows : tuple of int
        The positions of those points in the groups' tables laid one after the other, in
        the groups' order.
    groups : tuple of str
        The groups with a point on it, in the groups' order (000 Table 3's "Pareto front"
        column).
    """

    measure: str
    table: pd.DataFrame
    rows: tuple[int, ...]
    groups: tuple[str, ...]


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare_groups` finds.

    Attributes
    ----------
    groups, measures : tuple of str
    level : float
    weight : object
        The dominance-area weight (:func:`paretostab.front.dominance_area`).
    fronts : dict
        Measure → one :class:`GroupFront` per group, in the groups' order.
    differences : tuple of Difference
        Measure by measure, every pair ``(i, j)``, ``i < j``, in the groups' order.
    combined : dict
        Measure → :class:`CombinedFront`.
    table3 : pandas.DataFrame
        :func:`table3`.
    """

    groups: tuple[str, ...]
    measures: tuple[str, ...]
    level: float
    weight: object
    fronts: dict[str, tuple[GroupFront, ...]]
    differences: tuple[Difference, ...]
    combined: dict[str, CombinedFront]
    table3: pd.DataFrame

    def __repr__(self) -> str:
        """The groups, measures and the dominance area of each group's front under the
        first measure, not the tables."""
        first, n = self.measures[0], len(self.groups)
        areas = ", ".join(f"{front.group!r} {front.dominance_area:.3f}"
                          for front in self.fronts[first])
        return (f"Comparison({n} group{'s' * (n != 1)} under {', '.join(self.measures)}; "
                f"dominance area under {first}: {areas})")

    def front(self, measure: str, group: str) -> GroupFront:
        """The front of ``group`` under ``measure``.

        Parameters
        ----------
        measure : str
            One of :attr:`measures`.
        group : str
            One of :attr:`groups`.
        """
        return self.fronts[measure][self.groups.index(group)]

    def to_frame(self) -> pd.DataFrame:
        """One row per group × measure (``comparison.csv``): the front (size, trials), the
        DAs, ``B``, the intervals, the ranges of accuracy and of the measure (``stability
        min``, ``stability max``), and whether the group reaches the combined front."""
        rows = []
        for measure in self.measures:
            for front in self.fronts[measure]:
                ranges = self.table3.loc[front.group]
                rows.append({
                    "group": front.group, "measure": measure,
                    "trials": int(ranges["trials"]), "front size": len(front.trials),
                    "front trials": " ".join(map(str, front.trials)),
                    "dominance area": front.dominance_area,
                    "dominance area of replicate means": _estimate(front.interval),
                    "replicates": front.replicates, "level": self.level,
                    **_bounds("interval", front.interval),
                    **_bounds("simultaneous", front.simultaneous_interval),
                    "accuracy min": ranges["accuracy min"],
                    "accuracy max": ranges["accuracy max"],
                    "stability min": ranges[f"{measure} min"],
                    "stability max": ranges[f"{measure} max"],
                    "on combined front": bool(ranges[f"{measure} front"])})
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """Everything, as plain JSON-able data (``comparison.json``; NaN and ±∞ as
        None)."""
        def interval(value):
            return None if value is None else {"low": value.low, "high": value.high,
                                               "estimate": value.estimate}

        fronts = [{"group": f.group, "measure": f.measure, "trials": list(f.trials),
                   "points": f.points.tolist(), "dominance_area": f.dominance_area,
                   "replicates": f.replicates,
                   "dominance_area_of_replicate_means": _estimate(f.interval),
                   "interval": interval(f.interval),
                   "simultaneous_interval": interval(f.simultaneous_interval),
                   "pair_interval": interval(f.pair_interval)}
                  for measure in self.measures for f in self.fronts[measure]]
        differences = [{"measure": d.measure, "first": d.first, "second": d.second,
                        "dominance_area": d.dominance_area, "estimate": d.estimate,
                        "interval": None if d.low is None else [d.low, d.high],
                        "level": d.level, "verdict": d.verdict, "winner": d.winner}
                       for d in self.differences]
        combined = {m: {"groups": list(c.groups), "points": c.table.to_dict(orient="records")}
                    for m, c in self.combined.items()}
        return jsonable({
            "groups": list(self.groups), "measures": list(self.measures),
            "level": self.level,
            "pair_level": pair_level(self.level),
            "fronts": fronts, "differences": differences, "combined_front": combined,
            "table3": self.table3.reset_index().to_dict(orient="records")})


def _estimate(interval: DominanceAreaInterval | None) -> float | None:
    return None if interval is None else interval.estimate


def _bounds(name: str, interval: DominanceAreaInterval | None) -> dict:
    low, high = (math.nan, math.nan) if interval is None else (interval.low, interval.high)
    return {f"{name} low": low, f"{name} high": high}


@overload
def jsonable(value: Mapping[Any, object]) -> dict[str, object]: ...


@overload
def jsonable(value: object) -> object: ...


def jsonable(value: object) -> object:
    """``value`` with numpy scalars as Python ones and NaN and ±∞ as None: strict JSON,
    which R, spreadsheets and other JSON readers take (``json.dumps`` would write
    ``NaN`` and ``Infinity``)."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    return value


# --------------------------------------------------------------------------- the core


def pair_level(level: float) -> float:
    """Each group's level in a pairwise difference: ``1 − α/2`` (Bonferroni over two)."""
    return 1.0 - (1.0 - level) / 2.0


def _front_rows(table: pd.DataFrame, measure: str) -> np.ndarray:
    """Positions in ``table`` of the Pareto front of (accuracy, ``measure``)."""
    return pareto_front(table[["accuracy", measure]].to_numpy(dtype=float))


def front_trials(table: pd.DataFrame, measures: Sequence[str]) -> list[int]:
    """The numbers of the trials of ``table`` on its front under at least one of
    ``measures`` — those whose replicates a comparison needs — in increasing order.

    Parameters
    ----------
    table : DataFrame
        One row per trial: its number (``trial``), ``accuracy`` and a column per measure.
    measures : sequence of str
        The stability columns whose fronts (with ``accuracy``) count.
    """
    numbers = table["trial"].to_numpy()
    return sorted({int(numbers[i]) for m in measures for i in _front_rows(table, m)})


def _samples(group: Group, trials: Sequence[int], measure: str) -> list[np.ndarray] | None:
    """Each front trial's (B, 2) replicates of (accuracy, ``measure``), or None when some
    front trial has none (or the front is empty)."""
    samples = []
    for number in trials:
        values = group.replicates.get(int(number))
        if values is None or "accuracy" not in values or measure not in values:
            return None
        samples.append(np.column_stack([np.asarray(values["accuracy"], dtype=float),
                                        np.asarray(values[measure], dtype=float)]))
    return samples or None


def _group_front(group: Group, measure: str, weight: object, level: float) -> GroupFront:
    table = group.table
    rows = _front_rows(table, measure)
    trials = tuple(int(t) for t in table["trial"].to_numpy()[rows])
    points = table[["accuracy", measure]].to_numpy(dtype=float)
    front = GroupFront(group=group.name, measure=measure, rows=tuple(int(r) for r in rows),
                       trials=trials, points=points[rows],
                       dominance_area=dominance_area(points, weight=weight))
    samples = _samples(group, trials, measure)
    if samples is None:
        return front
    try:
        regions = confidence_regions(samples, level=level)
        simultaneous = confidence_regions(samples, level=level, simultaneous=True)
        pair = confidence_regions(samples, level=pair_level(level), simultaneous=True)
    except InvalidInputError as exc:
        raise InvalidInputError(f"group {group.name!r}, measure {measure!r}, front trials "
                                f"{list(trials)}: {exc}") from None
    return replace(
        front, replicates=min(len(s) for s in samples), regions=regions,
        interval=dominance_area_interval(regions, weight=weight),
        simultaneous_interval=dominance_area_interval(simultaneous, weight=weight),
        pair_regions=pair, pair_interval=dominance_area_interval(pair, weight=weight))


def _covers(upper: np.ndarray, lower: np.ndarray) -> bool:
    """Whether every point of ``lower`` is weakly dominated by a point of ``upper``."""
    if not len(lower):
        return True
    return bool(np.all(np.any(np.all(upper[:, None, :] >= lower[None, :, :], axis=2),
                              axis=0)))


def _dominating(first: str, second: str, first_covers: bool,
                second_covers: bool) -> tuple[str, str | None] | None:
    """The verdict "X's front dominates Y's" and X, when exactly one covers the other."""
    if first_covers and not second_covers:
        return f"{first}'s front dominates {second}'s", first
    if second_covers and not first_covers:
        return f"{second}'s front dominates {first}'s", second
    return None


def _difference(a: GroupFront, b: GroupFront, level: float) -> Difference:
    difference = a.dominance_area - b.dominance_area
    regions_a, regions_b = a.pair_regions, b.pair_regions
    pair_a, pair_b, interval_a, interval_b = (a.pair_interval, b.pair_interval, a.interval,
                                              b.interval)
    if (regions_a is None or regions_b is None or pair_a is None or pair_b is None
            or interval_a is None or interval_b is None):  # set together, or not at all
        found = _dominating(a.group, b.group, _covers(a.points, b.points),
                            _covers(b.points, a.points))
        if found is None:
            found = ((f"{a.group} has the larger dominance area", a.group) if difference > 0
                     else (f"{b.group} has the larger dominance area", b.group)
                     if difference < 0 else ("equal dominance areas", None))
        return Difference(a.measure, a.group, b.group, difference, None, None, None, level,
                          f"{found[0]} {NO_INTERVAL}", found[1])
    low = pair_a.low - pair_b.high
    high = pair_a.high - pair_b.low

    def corners(regions: Sequence[Ellipse], which: str) -> np.ndarray:
        return np.array([getattr(region, which) for region in regions])

    found = _dominating(
        a.group, b.group,
        _covers(corners(regions_a, "most_dominated"), corners(regions_b, "most_dominant")),
        _covers(corners(regions_b, "most_dominated"), corners(regions_a, "most_dominant")))
    if found is None:
        found = ((f"{a.group} has the larger dominance area", a.group) if low > 0
                 else (f"{b.group} has the larger dominance area", b.group) if high < 0
                 else (OVERLAP, None))
    return Difference(a.measure, a.group, b.group, difference,
                      interval_a.estimate - interval_b.estimate, low, high, level, *found)


def _check(groups: Sequence[Group], measures: Sequence[str]) -> tuple[list[Group], list[str]]:
    if isinstance(groups, Group) or not isinstance(groups, Sequence) or not groups:
        raise InvalidInputError("groups must be a non-empty sequence of Group objects.")
    groups = list(groups)
    for k, group in enumerate(groups):
        if not isinstance(group, Group):
            raise InvalidInputError(f"groups must hold Group objects; item {k} is a "
                                    f"{type(group).__name__}.")
    names = [g.name for g in groups]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InvalidInputError(f"group names must be distinct; {twice[0]!r} is given "
                                f"{names.count(twice[0])} times.")
    if isinstance(measures, str) or not isinstance(measures, Sequence) or not measures:
        raise InvalidInputError(f"measures must be a non-empty list of column names; got "
                                f"{measures!r}.")
    measures = list(dict.fromkeys(measures))
    for group in groups:
        for measure in measures:
            if measure not in group.table.columns:
                raise InvalidInputError(
                    f"group {group.name!r} has no column {measure!r} (its columns: "
                    f"{', '.join(map(str, group.table.columns))}).")
    return groups, measures


def _combined_fronts(groups: Sequence[Group], measures: Sequence[str]) -> dict:
    has_selector = any("selector" in g.table.columns for g in groups)
    columns = ["group", "label", "trial", "accuracy", *measures,
               *(["selector"] if has_selector else [])]
    frames = []
    for group in groups:
        frame = group.table.assign(group=group.name, label=group.labels())
        if has_selector and "selector" not in frame.columns:
            frame = frame.assign(selector=None)
        frames.append(frame[columns])
    every = pd.concat(frames, ignore_index=True)
    combined = {}
    for measure in measures:
        rows = _front_rows(every, measure)
        table = every.iloc[rows].reset_index(drop=True)
        on_front = set(table["group"])
        combined[measure] = CombinedFront(measure, table, tuple(int(r) for r in rows),
                                          tuple(g.name for g in groups if g.name in on_front))
    return combined


def table3(groups: Sequence[Group], measures: Sequence[str]) -> pd.DataFrame:
    """000's Table 3 for these groups: stability ranges and Pareto fronts (000 §6.2).

    Parameters
    ----------
    groups : sequence of Group
    measures : sequence of str
        Columns of every group's table.

    Returns
    -------
    pandas.DataFrame
        Indexed by group name (index name ``"group"``), one row per group: ``trials``;
        for each measure ``<m> min``, ``<m> max`` (its range over the group's trials) and
        ``<m> front`` (True when the group has a point on the front of all groups'
        trials together under ``m``); then ``accuracy min``, ``accuracy max``. A last row
        ``"all"``: every trial's ranges and, in the ``<m> front`` columns, the groups on
        that combined front joined by " / " (000 Table 3's row for one data set).
    """
    groups, measures = _check(groups, measures)
    return _table3(groups, measures, _combined_fronts(groups, measures))


def _table3(groups: list[Group], measures: list[str], combined: dict) -> pd.DataFrame:
    """:func:`table3` for checked groups and their :func:`_combined_fronts`."""
    def ranges(tables: list[pd.DataFrame], fronts: dict) -> dict:
        row = {"trials": sum(len(t) for t in tables)}
        for name in [*measures, "accuracy"]:
            values = pd.concat([t[name] for t in tables]).astype(float)
            row[f"{name} min"], row[f"{name} max"] = values.min(), values.max()
            if name != "accuracy":
                row[f"{name} front"] = fronts[name]
        return row

    rows = {g.name: ranges([g.table], {m: g.name in combined[m].groups for m in measures})
            for g in groups}
    rows["all"] = ranges([g.table for g in groups],
                         {m: " / ".join(combined[m].groups) for m in measures})
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "group"
    return frame


def compare_groups(groups: Sequence[Group], measures: Sequence[str], *,
                   weight: object = None, level: float = 0.95) -> Comparison:
    """Compare groups of trials by their (accuracy, stability) Pareto fronts under each
    measure (000 §6.2 Fig. 6, Table 3; 002 §3).

    Parameters
    ----------
    groups : sequence of Group
        Distinct names; every table has a column per measure.
    measures : sequence of str
        The stability measures (columns) to compare under.
    weight : None, "uniform", ("accuracy", A), ("stability", A) or callable
        The dominance area's weight (:func:`paretostab.front.dominance_area`; 002 eq. 2).
    level : float in (0, 1)
        The confidence level of every region, interval and verdict.

    Returns
    -------
    Comparison
        Under each measure, each group's front (:class:`GroupFront`): its DA, and when its
        front trials have replicates the DA of their means with 002 §3's interval (the
        DAs of the fronts of the Hotelling regions' most dominated and most dominant
        points) and the simultaneous one; every pair's :class:`Difference`; the front of
        all trials together (:class:`CombinedFront`) and :func:`table3`.

    Notes
    -----
    The difference of the expected DAs of groups A and B, ``Δ = DA_A − DA_B``, gets the
    interval ``[low_A − high_B, high_A − low_B]`` where ``[low_X, high_X]`` is X's DA
    interval from regions holding its front's expected points simultaneously at level
    ``1 − α/2`` (``α = 1 − level``; Bonferroni over its ``P`` front points, then over the
    two groups): with probability ``≥ 1 − α`` both intervals hold their DAs, so the
    interval holds ``Δ`` — a conservative bound in the spirit of 002 §3, whose DA interval
    is monotone in the regions' corners. The same regions decide whether one front
    dominates the other at that level.
    """
    groups, measures = _check(groups, measures)
    level = as_level(level)
    fronts = {m: tuple(_group_front(g, m, weight, level) for g in groups) for m in measures}
    differences = tuple(_difference(fronts[m][i], fronts[m][j], level)
                        for m in measures for i in range(len(groups))
                        for j in range(i + 1, len(groups)))
    combined = _combined_fronts(groups, measures)
    return Comparison(groups=tuple(g.name for g in groups), measures=tuple(measures),
                      level=level, weight=weight, fronts=fronts, differences=differences,
                      combined=combined, table3=_table3(groups, measures, combined))
