"""Compare groups of trials — several studies, or the selectors of one study — by their
(accuracy, stability) Pareto fronts (000 §6.2, Fig. 6 and Table 3; 002 §3).

The core is pure (numpy, pandas, :mod:`paretostab.front`,
:mod:`paretostab.report.confidence`): a :class:`Group` is a table of trials (``"trial"``,
``"accuracy"``, one column per stability measure, optionally ``"selector"``) with the
replicates of its front trials; :func:`compare_groups` gives, under every measure, each
group's front, dominance area (DA) and DA confidence interval (002 §3), the differences of
every pair of groups with an interval and a verdict, and the front of all groups together;
:func:`table3` is 000's Table 3 (ranges, and which groups reach the combined front).

:func:`build_comparison` is the loader of ``python -m paretostab compare``: it opens the
studies (Optuna is imported only there, through :mod:`paretostab.report.study`), re-runs
their front trials for the replicates (cached in the studies, shared with ``report``),
and writes ``index.html``, ``comparison.csv`` and ``comparison.json``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from paretostab.errors import InvalidInputError
from paretostab.front import dominance_area, pareto_front
from paretostab.report.confidence import (
    DominanceAreaInterval,
    Ellipse,
    _as_level,
    confidence_regions,
    dominance_area_interval,
)

__all__ = ["CombinedFront", "Comparison", "Difference", "Group", "GroupFront",
           "build_comparison", "combined_figure", "compare_groups", "front_trials",
           "fronts_figure", "table3"]

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
        ``paretostab.report.study`` caches them); trials without replicates are left out.
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

    def front(self, measure: str, group: str) -> GroupFront:
        """The front of ``group`` under ``measure``."""
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
        """Everything, as plain JSON-able data (``comparison.json``; NaN as None)."""
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
        return _jsonable({
            "groups": list(self.groups), "measures": list(self.measures),
            "level": self.level,
            "pair_level": _pair_level(self.level),
            "fronts": fronts, "differences": differences, "combined_front": combined,
            "table3": self.table3.reset_index().to_dict(orient="records")})


def _estimate(interval: DominanceAreaInterval | None) -> float | None:
    return None if interval is None else interval.estimate


def _bounds(name: str, interval: DominanceAreaInterval | None) -> dict:
    low, high = (math.nan, math.nan) if interval is None else (interval.low, interval.high)
    return {f"{name} low": low, f"{name} high": high}


def _jsonable(value: object) -> object:
    """``value`` with numpy scalars as Python ones and NaN as None."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    return value


# --------------------------------------------------------------------------- the core


def _pair_level(level: float) -> float:
    """Each group's level in a pairwise difference: ``1 − α/2`` (Bonferroni over two)."""
    return 1.0 - (1.0 - level) / 2.0


def _front_rows(table: pd.DataFrame, measure: str) -> np.ndarray:
    """Positions in ``table`` of the Pareto front of (accuracy, ``measure``)."""
    return pareto_front(table[["accuracy", measure]].to_numpy(dtype=float))


def front_trials(table: pd.DataFrame, measures: Sequence[str]) -> list[int]:
    """The numbers of the trials of ``table`` on its front under at least one of
    ``measures`` — those whose replicates a comparison needs — in increasing order."""
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
        pair = confidence_regions(samples, level=_pair_level(level), simultaneous=True)
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
    if a.pair_regions is None or b.pair_regions is None:
        found = _dominating(a.group, b.group, _covers(a.points, b.points),
                            _covers(b.points, a.points))
        if found is None:
            found = ((f"{a.group} has the larger dominance area", a.group) if difference > 0
                     else (f"{b.group} has the larger dominance area", b.group)
                     if difference < 0 else ("equal dominance areas", None))
        return Difference(a.measure, a.group, b.group, difference, None, None, None, level,
                          f"{found[0]} {NO_INTERVAL}", found[1])
    low = a.pair_interval.low - b.pair_interval.high
    high = a.pair_interval.high - b.pair_interval.low

    def corners(front: GroupFront, which: str) -> np.ndarray:
        return np.array([getattr(region, which) for region in front.pair_regions])

    found = _dominating(a.group, b.group,
                        _covers(corners(a, "most_dominated"), corners(b, "most_dominant")),
                        _covers(corners(b, "most_dominated"), corners(a, "most_dominant")))
    if found is None:
        found = ((f"{a.group} has the larger dominance area", a.group) if low > 0
                 else (f"{b.group} has the larger dominance area", b.group) if high < 0
                 else (OVERLAP, None))
    return Difference(a.measure, a.group, b.group, difference,
                      a.interval.estimate - b.interval.estimate, low, high, level, *found)


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
    level = _as_level(level)
    fronts = {m: tuple(_group_front(g, m, weight, level) for g in groups) for m in measures}
    differences = tuple(_difference(fronts[m][i], fronts[m][j], level)
                        for m in measures for i in range(len(groups))
                        for j in range(i + 1, len(groups)))
    combined = _combined_fronts(groups, measures)
    return Comparison(groups=tuple(g.name for g in groups), measures=tuple(measures),
                      level=level, weight=weight, fronts=fronts, differences=differences,
                      combined=combined, table3=_table3(groups, measures, combined))


# --------------------------------------------------------------------------- the loader


def _per_study(values: Sequence[str] | None, n: int, option: str, default) -> list:
    """One value per study: none given → ``default`` for all; one → for all; ``n`` → in
    the studies' order."""
    values = list(values or [])
    if not values:
        return [default] * n
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise InvalidInputError(
            f"{option} is given {len(values)} times for {n} studies; give it once (for every "
            "study) or once per study, in the studies' order.")
    return values


def _storage_key(url: str) -> str:
    """One key for the spellings of one SQLite or journal file's path."""
    for prefix in ("sqlite:///", "journal:"):
        if url.startswith(prefix):
            return prefix + str(Path(url.removeprefix(prefix)).resolve())
    return url


def _group_names(studies: Sequence[str]) -> list[str]:
    """The studies' names; a name given for studies of several storages gets its position
    on the command line: ``tiny [1]``, ``tiny [2]``."""
    return [f"{name} [{k}]" if studies.count(name) > 1 else name
            for k, name in enumerate(studies, start=1)]


def _default_measures(declared: list[tuple[str, list[str]]]) -> list[str]:
    """Every study's objective, then the measures every study records (its objective or a
    recorded one), in the first study's order."""
    first, recorded = declared[0]
    common = [m for m in [first, *recorded] if all(m == o or m in r for o, r in declared)]
    return list(dict.fromkeys([*(o for o, _ in declared), *common]))


def build_comparison(studies: Sequence[str], storages: Sequence[str] | None = None, *,
                     measures: Sequence[str] | None = None, replicates: int | None = None,
                     weight: str | None = None, level: float = 0.95,
                     out: str | Path = "comparison", artifacts: Sequence[str] | None = None,
                     progress: bool | None = None) -> tuple[Path, Comparison]:
    """Compare tuned studies (000 §6.2 Fig. 6, Table 3; 002 §3) and write ``out``:
    ``index.html``, ``comparison.csv`` (one row per study × measure) and
    ``comparison.json`` (everything); returns the folder and the :class:`Comparison`.

    ``storages`` (and ``artifacts``, the artifact stores): none (the default storage), one
    for every study, or one per study in the studies' order. ``measures``: default every
    study's objective and the measures every study records (a measure a study did not
    record is recomputed from its trials' RunSets). ``replicates``: ``B`` re-runs of each
    trial on a study's front under some measure (default: each study's spec
    ``protocol.replicates``; 0: none), cached in the study as ``report`` caches them.
    ``weight``: ``"uniform"``, ``"accuracy:A"`` or ``"stability:A"``. ``level``: of every
    region, interval and verdict.
    """
    import functools
    import json
    import sys

    from tqdm.auto import tqdm

    from paretostab.report import html
    from paretostab.report.study import (
        _fill_measures,
        _lazy_context,
        _replicates,
        _trial,
        measure_name,
        open_study,
        parse_weight,
        study_measures,
        trial_table,
    )
    from paretostab.storage import DEFAULT_STORAGE, artifact_store, open_storage

    studies = list(studies)
    if len(studies) < 2:
        raise InvalidInputError(f"compare needs at least two studies; got {len(studies)}"
                                f"{': ' + studies[0] if studies else ''}.")
    urls = _per_study(storages, len(studies), "--storage", DEFAULT_STORAGE)
    stores = _per_study(artifacts, len(studies), "--artifacts", None)
    keys = [(_storage_key(url), name) for name, url in zip(studies, urls, strict=True)]
    for k, key in enumerate(keys):
        if key in keys[:k]:
            raise InvalidInputError(f"study {studies[k]!r} of {urls[k]} is given twice; "
                                    "compare distinct studies.")
    level = _as_level(level)
    weight_spec = parse_weight(weight)
    if replicates is not None and (replicates < 0 or 0 < replicates < 3):
        raise InvalidInputError(
            f"replicates must be 0 (no confidence regions) or >= 3; got {replicates}.")
    opened: dict[str, object] = {}
    loaded = []
    for name, url in zip(studies, urls, strict=True):
        if url not in opened:
            opened[url] = open_storage(url, must_exist=True)
        loaded.append((open_study(opened[url], name), opened[url]))
    declared = [study_measures(study) for study, _ in loaded]
    names = list(dict.fromkeys(measure_name(m) for m in (measures or
                                                          _default_measures(declared))))
    tables, contexts, counts = [], [], []
    for (study, storage), url, store in zip(loaded, urls, stores, strict=True):
        table = trial_table(study, names)
        if table.empty:
            raise InvalidInputError(f"Study {study.study_name!r} has no completed trial yet.")
        context = _lazy_context(study, storage, functools.partial(artifact_store, url, store))
        tables.append(_fill_measures(table, study, names, context))
        contexts.append(context)
        counts.append(context().spec.protocol.replicates if replicates is None else replicates)
    todo = [(k, number) for k, table in enumerate(tables) if counts[k]
            for number in front_trials(table, names)]
    found: list[dict] = [{} for _ in studies]
    enabled = sys.stderr.isatty() if progress is None else progress
    with tqdm(total=len(todo), desc="replicates", disable=not enabled, leave=False) as bar:
        for k, number in todo:
            study = loaded[k][0]
            found[k][number] = _replicates(_trial(study, number), contexts[k](),
                                           counts[k], names)
            bar.update()
    groups = [Group(name, table, values) for name, table, values in
              zip(_group_names(studies), tables, found, strict=True)]
    comparison = compare_groups(groups, names, weight=weight_spec, level=level)
    described = [{"group": group.name, "study": study.study_name, "storage": url,
                  "trials": len(group.table), "objective": objective,
                  "selectors": _selectors(study, group.table), "replicates": count}
                 for group, (study, _), url, (objective, _), count
                 in zip(groups, loaded, urls, declared, counts, strict=True)]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    comparison.to_frame().to_csv(out / "comparison.csv", index=False)
    summary = {"studies": described, "weight": weight or "uniform", **comparison.to_dict()}
    (out / "comparison.json").write_text(json.dumps(_jsonable(summary), indent=2),
                                         encoding="utf-8")
    html.write_report(out, title=f"paretostab comparison: {', '.join(comparison.groups)}",
                      sections=_sections(comparison, groups, described, summary["weight"]))
    return out, comparison


def _selectors(study, table: pd.DataFrame) -> list[str]:
    """The selectors of a study's trials (a multi-selector study's ``selector`` column),
    else its spec's."""
    if "selector" in table.columns:
        return sorted(str(s) for s in table["selector"].dropna().unique())
    name = study.user_attrs.get("spec", {}).get("selector", {}).get("name", [])
    return [name] if isinstance(name, str) else list(name)


# --------------------------------------------------------------------------- the page


def _panels(n: int, title: str):
    """A figure of ``n`` panels side by side (three to a row), no wider than the page
    (12 inches: shown at its size, its text readable), with room for one legend: under
    the panels, or beside a single one (constrained layout; no pyplot)."""
    from matplotlib.figure import Figure

    columns = min(n, 3)
    rows = -(-n // columns)
    figure = Figure(figsize=(3.7 * columns + (2.6 if n == 1 else 0.6), 3.5 * rows + 1.0),
                    layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    figure.suptitle(title, x=0.02, ha="left")
    return figure, axes[:n]


def _legend(figure, axes) -> None:
    """The first panel's legend entries, under the panels or beside a single one."""
    handles, labels = axes[0].get_legend_handles_labels()
    beside = len(axes) == 1
    figure.legend(handles, labels, loc="outside right upper" if beside
                  else "outside lower center", ncols=1 if beside else min(len(labels), 6),
                  fontsize="small", frameon=False)


def fronts_figure(comparison: Comparison, groups: Sequence[Group], *, title: str):
    """One panel per measure: each group's trials, front staircase and confidence regions
    in its own colour and marker (000 §6.2 Fig. 6, one front per group; 002 §3), zoomed
    to the trials and the replicate means; one legend of the groups."""
    from paretostab.plot import draw_group_fronts, zoom_to_data
    from paretostab.report.study import label

    figure, axes = _panels(len(comparison.measures), title)
    for ax, measure in zip(axes, comparison.measures, strict=True):
        fronts = comparison.fronts[measure]
        points = [g.table[["accuracy", measure]].to_numpy(dtype=float) for g in groups]
        draw_group_fronts([(g.name, p, f.rows, f.regions)
                           for g, p, f in zip(groups, points, fronts, strict=True)], ax=ax)
        means = [np.array([r.center for r in f.regions]) for f in fronts if f.regions]
        zoom_to_data(ax, *points, *means)
        ax.set_ylabel(label(measure))
        ax.set_title(label(measure))
    _legend(figure, axes)
    return figure


def _point_styles(groups: Sequence[Group]) -> dict[str, tuple[str, str]]:
    """Each point label's (colour, marker): its group's colour; the group's marker, or
    for the selectors of a multi-selector group, markers no group has (in turn)."""
    from paretostab.plot import GROUP_MARKERS, group_style

    spare = GROUP_MARKERS[len(groups):] or GROUP_MARKERS
    styles, j = {}, 0
    for k, group in enumerate(groups):
        color, marker = group_style(k, len(groups))
        labels = list(dict.fromkeys(group.labels()))
        for name in labels:
            if len(labels) > 1:
                marker, j = spare[j % len(spare)], j + 1
            styles[name] = (color, marker)
    return styles


def combined_figure(comparison: Comparison, groups: Sequence[Group], *, title: str):
    """One panel per measure: the front of all groups' trials together, each point in its
    group's colour and marker ("group: selector" for the selectors of a multi-selector
    study), the front's points numbered with their trials (000 §6.2 Fig. 6)."""
    from paretostab.plot import draw_combined_front, zoom_to_data
    from paretostab.report.study import label

    styles = _point_styles(groups)
    categories = [name for g in groups for name in g.labels()]
    numbers = [str(int(t)) for g in groups for t in g.table["trial"]]
    figure, axes = _panels(len(comparison.measures), title)
    for ax, measure in zip(axes, comparison.measures, strict=True):
        points = np.vstack([g.table[["accuracy", measure]].to_numpy(dtype=float)
                            for g in groups])
        rows = set(comparison.combined[measure].rows)
        draw_combined_front(points, categories, ax=ax, front=sorted(rows), styles=styles,
                            labels=[n if i in rows else "" for i, n in enumerate(numbers)])
        zoom_to_data(ax, points)
        ax.set_ylabel(label(measure))
        ax.set_title(label(measure))
    _legend(figure, axes)
    return figure


def _interval_cell(interval: DominanceAreaInterval | None) -> tuple[float, float] | None:
    return None if interval is None else (interval.low, interval.high)


def _fronts_table(comparison: Comparison, measure: str, noun: str) -> pd.DataFrame:
    level = f"{comparison.level:.0%}"
    return pd.DataFrame([{
        noun: f.group, "trials": int(comparison.table3.loc[f.group, "trials"]),
        "front (trials)": ", ".join(map(str, f.trials)),
        "dominance area": f.dominance_area,
        "DA of replicate means": _estimate(f.interval), "B": f.replicates,
        f"{level} interval (regions at {level})": _interval_cell(f.interval),
        f"{level} simultaneous interval": _interval_cell(f.simultaneous_interval)}
        for f in comparison.fronts[measure]])


def _differences_table(comparison: Comparison) -> pd.DataFrame:
    from paretostab.report.study import label

    return pd.DataFrame([{
        "measure": label(d.measure), "A": d.first, "B": d.second,
        "DA(A) − DA(B)": d.dominance_area, "of the replicate means": d.estimate,
        f"{d.level:.0%} interval": None if d.low is None else (d.low, d.high),
        "verdict": d.verdict} for d in comparison.differences])


def _combined_table(comparison: Comparison, noun: str) -> pd.DataFrame:
    from paretostab.report.study import _shown, label

    frames = [c.table.drop(columns="label").assign(**{"front under": label(m)})
              for m, c in comparison.combined.items()]
    table = pd.concat(frames, ignore_index=True)
    table = table[["front under", *[c for c in table.columns if c != "front under"]]]
    if "selector" in table and (table["selector"] == table["group"]).all():
        table = table.drop(columns="selector")  # the groups are the selectors
    return _shown(table.rename(columns={"group": noun}))


def _table3_page(comparison: Comparison, noun: str, plural: str) -> pd.DataFrame:
    """000 Table 3 as the paper prints it: ranges as "low–high", fronts as yes / no and,
    on the last row, the groups (``plural``) on each combined front."""
    from paretostab.report.study import label

    def span(row, name):
        return f"{row[f'{name} min']:.3g} – {row[f'{name} max']:.3g}"

    rows = []
    for group, row in comparison.table3.iterrows():
        entry = {noun: f"all {plural}" if group == "all" else group,
                 "trials": int(row["trials"])}
        for measure in comparison.measures:
            entry[f"range {label(measure)}"] = span(row, measure)
            entry[f"Pareto front {label(measure)}"] = row[f"{measure} front"]
        entry["range accuracy"] = span(row, "accuracy")
        rows.append(entry)
    return pd.DataFrame(rows)


def _sections(comparison: Comparison, groups: Sequence[Group], studies: list[dict],
              weight: str) -> list:
    from paretostab.report.html import Section, references
    from paretostab.report.study import label

    level = f"{comparison.level:.0%}"
    measures = ", ".join(label(m) for m in comparison.measures)
    counts = sorted({s["replicates"] for s in studies})
    replicated = (f"B = {counts[0]} times" if len(counts) == 1 else
                  "B = " + ", ".join(f"{s['replicates']} ({s['group']})" for s in studies)
                  + " times")
    text = (f"{len(studies)} studies compared by their Pareto fronts of (accuracy, "
            f"stability), both maximised, under {measures}: each study's front and its "
            f"dominance area ({weight} weight; Hamer & Dupont 2019, §3), the differences of "
            f"every pair, the front of all studies' trials together and the ranges of "
            f"Table 3 of Hamer & Dupont, ECML 2021. ")
    text += (f"Each trial on a study's front under some measure was re-run {replicated} "
             f"on fresh resamples (its own values were selected for being good on its own "
             f"resamples); regions, intervals and verdicts are at the {level} level."
             if any(counts) else
             "No replicates: dominance areas and differences only, without intervals.")
    overview = pd.DataFrame([{
        "study": s["group"], "study name": s["study"], "storage": s["storage"],
        "trials": s["trials"], "selectors": ", ".join(s["selectors"]),
        "objective": label(s["objective"]), "B": s["replicates"]} for s in studies])
    if (overview["study"] == overview["study name"]).all():
        overview = overview.drop(columns="study name")
    sections = [
        Section("Summary", text=text, table=overview,
                caption="The studies: where they are stored, their completed trials, "
                        "selectors, objectives and replicates per front trial."),
        *comparison_sections(comparison, groups),
    ]
    return [*sections, references(sections)]


def comparison_sections(comparison: Comparison, groups: Sequence[Group], *,
                        noun: str = "study", plural: str = "studies") -> list:
    """The page sections of a comparison of ``groups`` — studies (``compare``) or the
    selectors of one study (``report``, ``noun="selector"``): their fronts and dominance
    areas under each measure, the pairwise differences, the combined front and Table 3
    (Hamer & Dupont, ECML 2021)."""
    from paretostab.report.html import Section
    from paretostab.report.study import label

    level = f"{comparison.level:.0%}"
    pair = f"{_pair_level(comparison.level):.1%}"
    measures = ", ".join(label(m) for m in comparison.measures)
    per_measure = [Section(
        f"Under {label(m)}", table=_fronts_table(comparison, m, noun),
        caption=f"Each {noun}'s front under {label(m)} (its trials by increasing accuracy), "
                f"the dominance area of its trials' values and of the means of their "
                f"replicates, with the interval of Hamer & Dupont 2019, §3 (the DAs of the "
                f"fronts of the {level} Hotelling regions' most dominated and most dominant "
                "points) and the simultaneous one (regions holding every front point "
                f"together at {level}).") for m in comparison.measures]
    differences = ("The interval of DA(A) − DA(B) is [low_A − high_B, high_A − low_B], "
                   f"where [low, high] is a {noun}'s dominance-area interval from Hotelling "
                   "regions holding its front's expected points simultaneously at "
                   f"{pair} (Bonferroni over its front points, and over the two {plural}: "
                   f"1 − α/2 with α = 1 − {comparison.level:g}). Both hold with probability "
                   f"at least {level}, and then so does the interval: a conservative bound "
                   "built as Hamer & Dupont 2019, §3 builds the interval of one front. "
                   "Verdicts: \"A's front dominates B's\" when every upper corner of B's "
                   "regions (B's most dominant front) is weakly dominated by a lower corner "
                   "of A's (A's most dominated front): the domination holds at the "
                   f"{level} level; \"A has the larger dominance area\" when the interval "
                   f"excludes 0 but the fronts cross; otherwise \"{OVERLAP}\". Without "
                   "replicates, the same words from the trials' own fronts and areas, "
                   f"marked \"{NO_INTERVAL}\".")
    return [
        Section("Fronts and dominance areas",
                figure=fronts_figure(comparison, groups,
                                     title=f"Each {noun}'s Pareto front under each measure"),
                caption=f"Each {noun}'s trials (hollow markers) and front (a staircase "
                        "through solid markers) in its own colour and marker, with the "
                        f"{level} Hotelling regions of its front trials' expected values "
                        "around the means of their replicates (crosses), in its colour "
                        "(Hamer & Dupont 2019, §3), under each measure; zoomed to the "
                        "trials and the replicate means.",
                subsections=per_measure),
        Section("Pairwise differences", text=differences,
                table=_differences_table(comparison),
                caption=f"Under each measure, each pair of {plural}: the difference of "
                        "dominance areas on the trials' values and on the replicate "
                        f"means, its {level} interval, and the verdict."),
        Section("Combined front", figure=combined_figure(
                    comparison, groups, title=f"The front of all {plural}' trials together"),
                table=_combined_table(comparison, noun),
                text=f"The Pareto front of every {noun}'s trials together under each "
                     "measure, as Fig. 6 of Hamer & Dupont, ECML 2021 draws the front "
                     f"across selection methods: which {noun} reaches it where.",
                caption=f"All trials as hollow markers in their {noun}'s colour and marker (a "
                        "multi-selector study's selectors in its colour with markers of "
                        "their own), the combined front as a black staircase with its "
                        "points solid and numbered with their trials."),
        Section("Table 3", table=_table3_page(comparison, noun, plural),
                text=f"As Table 3 of Hamer & Dupont, ECML 2021: each {noun}'s ranges of "
                     f"accuracy and of {measures} over its trials, and whether it has a "
                     "point on the combined front under each measure; the last row, over "
                     f"all {plural}, lists the {plural} on each combined front."),
    ]
