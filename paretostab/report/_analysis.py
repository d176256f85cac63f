"""The analyses behind the report's pages, as frozen objects (002 §3, 003 §3 and §7.1,
000 §6.2).

- :class:`StudyReport`: one study — its front under each measure, the dominance area with
  its intervals and Hotelling regions (the comparison of one group: the study), the
  trade-off chosen by γ (:class:`ChosenTradeOff`), the stability maps of its front
  (:class:`FrontMaps`) and, in a multi-selector study, its selectors compared;
- :class:`StudiesComparison`: several studies compared.

:func:`analyse_study` and :func:`analyse_studies` compute them from studies as read
(:class:`~paretostab.report._study_data.StudyData`) and their
:class:`~paretostab.report._refits.Refits` (which compute or look up the replicates); the
figures (:mod:`paretostab.report._figures`) and the pages (:mod:`paretostab.report._pages`)
are made from these objects alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from paretostab._errors import InvalidInputError
from paretostab._metrics import majority_rate
from paretostab._runset import RunSet
from paretostab._vocabulary import KBAR
from paretostab._weight import Weight, as_weight, weight_name
from paretostab.evaluation import ChanceFlags
from paretostab.front import GammaChoice, as_gamma, choose, gamma_table
from paretostab.maps import (
    FeaturePalette,
    SelectionOverview,
    StabilityMap,
    group_identical_maps,
    selection_overview,
    stability_map,
)
from paretostab.measures import get_measure, measure_name
from paretostab.report._compare import (
    Comparison,
    Group,
    GroupFront,
    compare_groups,
    front_trials,
    jsonable,
)
from paretostab.report._confidence import as_level
from paretostab.report._estimates import (
    HeldOutEvaluation,
    NestedEvaluation,
    chance_flags,
    eligible_area,
    eligible_front,
    held_out_evaluation,
    nested_evaluation,
)
from paretostab.report._refits import Refits
from paretostab.report._study_data import StudyData, no_completed_trial
from paretostab.spec import SELECTOR_PARAM

if TYPE_CHECKING:
    from paretostab._choice import TrialRuns
    from paretostab.stable_set import StableSet

__all__ = ["ChosenTradeOff", "FrontMaps", "StudiesComparison", "StudyReport",
           "default_measures",
           "analyse_studies", "analyse_study", "check_replicates",
           "chosen_trade_off", "front_maps", "study_measures", "with_maps"]

#: The features a map's legend names (the rest: "+n more features").
MAP_LEGEND_FEATURES = 10


def check_replicates(replicates: int | None) -> int | None:
    """``replicates`` (B) as given: None (the spec's), 0 (none) or at least 3."""
    if replicates is not None and (replicates < 0 or 0 < replicates < 3):
        raise InvalidInputError(
            f"replicates must be 0 (no confidence regions) or >= 3; got {replicates}.")
    return replicates


def study_measures(objective: str, recorded: Sequence[str],
                   measures: Sequence[str] | None) -> list[str]:
    """The registry names of the measures a study's report shows: its ``objective``
    first, then ``measures`` (aliases allowed) or, by default, the measures it
    ``recorded``."""
    names = [measure_name(m) for m in (measures or [objective, *recorded])]
    return list(dict.fromkeys([objective, *names]))


# --------------------------------------------------------------------------- γ choice


@dataclass(frozen=True)
class ChosenTradeOff:
    """The front trial γ chooses (003 §7.1) and what the report says of it.

    Attributes
    ----------
    trial : int
    gamma : float
    params : mapping
        Its Optuna parameters.
    mean_selected : float or None
        k̄, the mean number of features its runs selected.
    values : tuple of dict
        One per objective (``accuracy``, then each measure): ``objective``, ``trial``
        (its own value), ``replicate mean`` and the ``level`` t interval of that mean
        (``interval low``, ``interval high``; B − 1 degrees of freedom, cut to the
        measure's bounds: φ of 1.002 means nothing) — NaN without replicates.
    level : float
    replicates : int
        B, its replicates (0: none).
    selected_features : pandas.DataFrame or None
        The features its selector selects when fitted once on the whole data
        (:meth:`~paretostab._problem.Problem.whole_data_selection`); None when the study
        holds no spec.
    """

    trial: int
    gamma: float
    params: Mapping[str, object]
    mean_selected: float | None
    values: tuple[dict, ...]
    level: float
    replicates: int
    selected_features: pd.DataFrame | None

    def to_dict(self) -> dict:
        """As ``summary.json``'s ``chosen_trade_off``."""
        return {"trial": self.trial, "gamma": self.gamma, "params": dict(self.params),
                "mean_selected": self.mean_selected, "values": [dict(v) for v in self.values],
                "level": self.level, "replicates": self.replicates,
                "selected_features": ([] if self.selected_features is None
                                      else self.selected_features.to_dict(orient="records"))}


def chosen_trade_off(row: pd.Series, params: Mapping[str, object], measures: Sequence[str], *,
                     gamma: float, level: float, replicates: Mapping | None,
                     selection: pd.DataFrame | None) -> ChosenTradeOff:
    """:class:`ChosenTradeOff` of the trial ``row`` (a row of a trial table) with its
    ``params``, its ``replicates`` (``{"accuracy": [...], measure: [...]}``, or None) and
    its whole-data ``selection``."""
    rows = []
    for name in ["accuracy", *measures]:
        entry = {"objective": name, "trial": float(row[name]), "replicate mean": math.nan,
                 "interval low": math.nan, "interval high": math.nan}
        sample = np.asarray(replicates.get(name, []) if replicates else [], dtype=float)
        sample = sample[np.isfinite(sample)]
        if sample.size >= 2:
            half = (stats.t.ppf((1 + level) / 2, sample.size - 1) * sample.std(ddof=1)
                    / math.sqrt(sample.size))
            mean = float(sample.mean())
            low, high = ((0.0, 1.0) if name == "accuracy"
                         else (get_measure(name).lower, get_measure(name).upper))
            entry.update({"replicate mean": mean, "interval low": max(mean - half, low),
                          "interval high": min(mean + half, high)})  # within the bounds
        rows.append(entry)
    kbar = row.get(KBAR)
    present = kbar is not None and not (isinstance(kbar, float) and math.isnan(kbar))
    return ChosenTradeOff(
        trial=int(row["trial"]), gamma=gamma, params=params,
        mean_selected=float(kbar) if present else None, values=tuple(rows), level=level,
        replicates=0 if replicates is None else len(replicates["accuracy"]),
        selected_features=selection)


# --------------------------------------------------------------------------- maps


@dataclass(frozen=True, eq=False)
class FrontMaps:
    """The stability maps of a front's trials, compact (003 §3): the features × trials
    overview of selection frequencies, and one map per distinct picture.

    Attributes
    ----------
    overview : SelectionOverview
    palette : FeaturePalette
        One colour per feature on the whole page (003 §3: "each feature is assigned a
        color"): the study's, which its trials' maps on the dashboard took too.
    maps : tuple of StabilityMap
        One per distinct picture (maps within 1 % of each other count as one).
    groups : tuple of tuple of int
        The trials each map stands for.
    chosen : int
        The trial γ chose.
    """

    overview: SelectionOverview
    palette: FeaturePalette
    maps: tuple[StabilityMap, ...]
    groups: tuple[tuple[int, ...], ...]
    chosen: int


def front_maps(runsets: Sequence[RunSet], numbers: Sequence[int], *,
               feature_names: Sequence[str] | None, chosen: int,
               palette: FeaturePalette | None = None) -> FrontMaps:
    """:class:`FrontMaps` of the RunSets of the front trials ``numbers``, coloured by
    ``palette``: the study's (:attr:`~paretostab.report._study_data.StudyData.palette`), else
    (a study without its data) the overview's (:meth:`SelectionOverview.palette`)."""
    numbers = [int(n) for n in numbers]
    overview = selection_overview(runsets, numbers, feature_names=feature_names)
    if palette is None:
        palette = overview.palette()
    maps = [stability_map(runs, feature_names=feature_names, top=MAP_LEGEND_FEATURES,
                          palette=palette) for runs in runsets]
    groups = group_identical_maps(maps, numbers)
    return FrontMaps(overview=overview, palette=palette,
                     maps=tuple(maps[numbers.index(group[0])] for group in groups),
                     groups=tuple(tuple(int(n) for n in group) for group in groups),
                     chosen=int(chosen))


# --------------------------------------------------------------------------- one study


@dataclass(frozen=True, eq=False)
class StudyReport:
    """The report of one study: the comparison of one group (the study) plus the γ
    choice.

    Attributes
    ----------
    study, storage : str
        Its name, and where it is stored (the storage URL, its password masked).
    objective : str
        Its stability objective (registry name): the front, the dominance area and its
        intervals are those of (accuracy, objective).
    measures : tuple of str
        The measures shown, the objective first.
    table : pandas.DataFrame
        Every completed trial (:meth:`~paretostab.report._load.StudyReader.trial_table`).
    comparison : Comparison
        The study as one group, under every measure; the front trials of the objective
        carry their replicates' Hotelling regions and the DA intervals (002 §3).
    gamma : float
    choices : tuple of GammaChoice
        The γ table of the front γ chooses from: that of the trials not flagged at chance
        level (of every trial with ``allow_chance``); its rows index
        :attr:`choice_trials`.
    choice_trials : tuple of int
        The trials of that front, by increasing accuracy.
    chosen : int
        The row in :attr:`table` of the trial γ chooses.
    trade_off : ChosenTradeOff
    weight : Weight or None
    level : float
    replicates : int
        B per front trial (0: none).
    maps : FrontMaps or None
        The stability maps of :attr:`mapped_trials` (:func:`with_maps`).
    selectors : Comparison or None
        A multi-selector study's selectors compared (one group each).
    selector_groups : tuple of Group
    metric : str
        The protocol's metric, the first objective (``accuracy``, ``balanced_accuracy``, …).
    majority_rate : float or None
        The share of the data's largest class: the accuracy of predicting it for every
        example (:func:`~paretostab._protocol.majority_rate`; None without the study's spec).
    flags : ChanceFlags or None
        The trials at chance level (None without the study's spec).
    allow_chance : bool
        Whether γ chose among every trial, flagged ones included.
    eligible_dominance_area : float or None
        The dominance area of the trials not flagged (None without flags).
    held_out : HeldOutEvaluation or None
        The front scored on the held-out part (``[protocol] holdout``).
    nested : NestedEvaluation or None
        The outer folds' evaluation (``[protocol] outer_folds``).
    data : str
        What data the trials' values were computed on, as the page says it.
    chosen_runs : TrialRuns or None
        What the chosen trial's stable sets are computed from
        (:func:`~paretostab.report._stable_sets.with_stable_sets`).
    stable_sets : tuple of StableSet
        The chosen trial's stable sets, one per error control asked for.
    """

    study: str
    storage: str
    objective: str
    measures: tuple[str, ...]
    table: pd.DataFrame
    comparison: Comparison
    gamma: float
    choices: tuple[GammaChoice, ...]
    chosen: int
    trade_off: ChosenTradeOff
    weight: Weight | None
    level: float
    replicates: int
    maps: FrontMaps | None = None
    selectors: Comparison | None = None
    selector_groups: tuple[Group, ...] = ()
    metric: str = "accuracy"
    majority_rate: float | None = None
    flags: ChanceFlags | None = None
    allow_chance: bool = False
    choice_trials: tuple[int, ...] = ()
    eligible_dominance_area: float | None = None
    held_out: HeldOutEvaluation | None = None
    nested: NestedEvaluation | None = None
    data: str = "the whole data"
    chosen_runs: TrialRuns | None = None
    stable_sets: tuple[StableSet, ...] = ()

    def __repr__(self) -> str:
        """A few numbers, not the tables (a 5-trial study's repr was 23 000
        characters): the study, its trials, the front and its dominance area, B and the
        γ choice."""
        front = self.front
        interval = ("" if front.interval is None else
                    f" [{front.interval.low:.3f}, {front.interval.high:.3f}]")
        return (f"StudyReport({self.study!r}: {len(self.table)} trials, front of "
                f"{len(front.trials)} under {self.objective}, dominance area "
                f"{front.dominance_area:.3f}{interval}, B = {self.replicates}, "
                f"γ = {self.gamma:g} chooses trial {self.chosen_trial})")

    @property
    def metric_label(self) -> str:
        """The first objective's axis label: the metric, and for plain accuracy the rate a
        majority-class guess reaches (the accuracy no better than ignoring the features)."""
        name = self.metric.replace("_", " ")
        if self.metric != "accuracy" or self.majority_rate is None:
            return name
        return f"{name} (the majority class alone: {self.majority_rate:.3f})"

    @property
    def at_chance(self) -> bool:
        """Whether the study is at chance level: its trials not flagged (none, when all
        are) dominate no area (:attr:`eligible_dominance_area` is 0); False without
        flags."""
        return self.eligible_dominance_area == 0

    @property
    def front(self) -> GroupFront:
        """The study's front under its objective."""
        return self.comparison.front(self.objective, self.study)

    @property
    def front_table(self) -> pd.DataFrame:
        """The front trials' rows of :attr:`table`, by increasing accuracy."""
        return self.table.iloc[list(self.front.rows)].reset_index(drop=True)

    @property
    def chosen_trial(self) -> int:
        return self.trade_off.trial

    @property
    def stability_maps(self) -> FrontMaps:
        """:attr:`maps`, which the figures and the page draw: a report is drawn once
        :func:`with_maps` has added them."""
        if self.maps is None:
            raise InvalidInputError(f"The report of {self.study!r} has no maps yet: add them "
                                    "with with_maps() before drawing it.")
        return self.maps

    @property
    def mapped_trials(self) -> tuple[int, ...]:
        """The trials whose stability maps the report draws: the front's, and the chosen
        one (which may be off the front when front trials are flagged)."""
        return tuple(dict.fromkeys([*self.front.trials, self.chosen_trial]))

    @property
    def chosen_from(self) -> str:
        """What γ chose among, as the page and ``summary.json`` say it: the study's front,
        or — when front trials are flagged at chance level — the front of the trials not
        flagged, which γ chooses from unless :attr:`allow_chance` (a choice said to be "of
        the front" is on it)."""
        front = [int(n) for n in self.front.trials]
        if self.flags is None or set(self.choice_trials) == set(front):
            return "the front"  # no front trial flagged, allow_chance, or every trial flagged
        flagged = sum(self.flags.flagged(n) for n in front)
        eligible = sum(not self.flags.flagged(int(n)) for n in self.table["trial"])
        return (f"the front of the {eligible} trials not flagged ({flagged} of the "
                f"{len(front)} trials of the study's front {'is' if flagged == 1 else 'are'} "
                "flagged)")

    @property
    def means(self) -> np.ndarray | None:
        """The means of the front trials' replicates (the regions' centres), or None."""
        regions = self.front.regions
        return None if regions is None else np.array([r.center for r in regions])

    @property
    def optimism(self) -> dict[str, float] | None:
        """The front trials' own values minus the means of their replicates, on average
        (accuracy, objective): the front's optimism (None without replicates)."""
        means = self.means
        if means is None:
            return None
        return dict(zip(["accuracy", self.objective],
                        np.nanmean(self.front.points - means, axis=0).tolist(), strict=True))

    def gamma_frame(self) -> pd.DataFrame:
        """The γ table: each choice's trial, values, γ and willingness intervals."""
        trials = self.choice_trials
        return pd.DataFrame([{
            "trial": int(trials[c.index]), "accuracy": c.accuracy, self.objective: c.stability,
            "gamma from": c.gamma_low, "gamma to": c.gamma_high,
            "willingness from": c.willingness_low, "willingness to": c.willingness_high}
            for c in self.choices])

    def to_dict(self) -> dict:
        """``summary.json``: the dominance area with its intervals, the optimism, the γ
        table and the chosen trade-off (and the selectors' comparison)."""
        front = self.front
        interval, simultaneous = front.interval, front.simultaneous_interval
        summary = {
            "study": self.study, "storage": self.storage, "objective": self.objective,
            "metric": self.metric, "majority_class_rate": self.majority_rate,
            "trials": len(self.table), "front": list(front.trials),
            "weight": weight_name(self.weight),
            "dominance_area": front.dominance_area, "at_chance": self.at_chance,
            "level": self.level,
            "replicates": self.replicates,
            "dominance_area_of_replicate_means": None if interval is None else interval.estimate,
            "dominance_area_interval": None if interval is None else [interval.low,
                                                                      interval.high],
            "simultaneous_interval": (None if simultaneous is None
                                      else [simultaneous.low, simultaneous.high]),
            "optimism": self.optimism,
            "gamma": self.gamma,
            "chosen": [self.chosen_trial],
            "chosen_from": {"description": self.chosen_from,
                            "trials": [int(n) for n in self.choice_trials]},
            "gamma_table": self.gamma_frame().to_dict(orient="records"),
            "chosen_trade_off": self.trade_off.to_dict(),
            "data": self.data,
            "chance": None if self.flags is None else {
                **self.flags.to_dict(), "allow_chance": self.allow_chance,
                "dominance_area_without_flagged": self.eligible_dominance_area},
            "held_out": None if self.held_out is None else self.held_out.to_dict(),
            "nested": None if self.nested is None else self.nested.to_dict(),
            "stable_sets": [found.to_dict(per_feature=False) for found in self.stable_sets],
        }
        if self.selectors is not None:
            summary["selectors"] = self.selectors.to_dict()
        return summary


def analyse_study(data: StudyData, refits: Refits, *, measures: Sequence[str] | None = None,
                  replicates: int | None = None, weight: object = None, gamma: float = 0.5,
                  level: float = 0.95, progress: bool | None = None,
                  allow_chance: bool = False) -> StudyReport:
    """The :class:`StudyReport` of the study ``data``, its refits computed or looked up by
    ``refits``; its :attr:`~StudyReport.maps` are added by :func:`with_maps` from the
    RunSets of :attr:`~StudyReport.mapped_trials`.

    ``measures``: shown besides the objective (default: the recorded ones; ``data``'s table
    holds them). ``replicates``: B re-runs of each front trial for the Hotelling regions
    (default: the spec's ``protocol.replicates``; 0: none). ``weight``: of the dominance
    area (:func:`paretostab._weight.as_weight`). ``gamma``: the trade-off γ ∈ [0, 1] (003
    §7.1). ``level``: of every region and interval, and of the one-sided test that flags
    trials at chance level (:func:`~paretostab.report._estimates.chance_flags`), which γ
    passes over unless ``allow_chance``. A study that holds examples out (``[protocol]
    holdout``) has its front scored on them; one with ``outer_folds`` has its outer folds'
    studies evaluated.
    """
    as_gamma(gamma)  # checked; the number given is kept (a numpy scalar stays one)
    level = as_level(level)
    weight = as_weight(weight)
    check_replicates(replicates)
    names = study_measures(data.objective, data.recorded, measures)
    objective = data.objective
    table = data.table
    if table.empty:
        raise no_completed_trial(data.name)
    n_replicates = data.replicates if replicates is None else replicates
    flags = chance_flags(data, refits, table, objective, level=level) if data.has_spec else None
    rows = eligible_front(table, objective, None if allow_chance else flags)
    if not rows.size:  # every trial flagged: γ chooses among them all, and the page says so
        rows = eligible_front(table, objective, None)
    points = table[["accuracy", objective]].to_numpy(dtype=float)[rows]
    choices = gamma_table(points)
    chosen = int(rows[choose(points, gamma)])
    number = int(table["trial"].iloc[chosen])
    # the trials on the front of the objective, replicated (the report's regions), and the
    # trial γ chooses, which is off that front when front trials are flagged: its replicates
    # give the interval of what to expect of the setting the report recommends
    fronts = front_trials(table, [objective])
    found = (refits.replicate_trials(list(dict.fromkeys([*fronts, number])), n_replicates,
                                     names, progress=progress) if n_replicates else {})
    own = {n: {"accuracy": found[n]["accuracy"], objective: found[n][objective]}
           for n in fronts if n in found}
    comparison = compare_groups([Group(data.name, table, own)], names, weight=weight,
                                level=level)
    front = comparison.front(objective, data.name)
    selection = refits.whole_data_selection(number) if data.has_spec else None
    trade_off = chosen_trade_off(table.iloc[chosen], data.params[number], names, gamma=gamma,
                                 level=level, replicates=found.get(number),
                                 selection=selection)
    split = data.problem.split if data.has_spec else None
    held_out = (held_out_evaluation(data, refits, table,
                                    list(dict.fromkeys([*front.trials, number])), found,
                                    level=level, progress=progress)
                if split is not None else None)
    nested = (nested_evaluation(data, refits, objective, gamma=gamma, level=level,
                                allow_chance=allow_chance, progress=progress)
              if data.spec is not None and data.spec.protocol.outer_folds else None)
    selectors: Comparison | None = None
    groups: tuple[Group, ...] = ()
    if SELECTOR_PARAM in table and table[SELECTOR_PARAM].nunique() > 1:
        groups = _selector_groups(refits, table, names, n_replicates, progress)
        selectors = compare_groups(groups, names, weight=weight, level=level)
    return StudyReport(
        study=data.name, storage=data.location, objective=objective,
        measures=tuple(names), table=table, comparison=comparison, gamma=gamma,
        choices=choices, chosen=chosen, trade_off=trade_off, weight=weight, level=level,
        replicates=n_replicates, selectors=selectors, selector_groups=groups,
        metric=data.spec.protocol.metric if data.spec is not None else "accuracy",
        majority_rate=majority_rate(data.problem.y) if data.has_spec else None,
        flags=flags, allow_chance=allow_chance,
        choice_trials=tuple(int(t) for t in table["trial"].iloc[rows]),
        eligible_dominance_area=(None if flags is None else
                                 eligible_area(table, objective, flags, weight)),
        held_out=held_out, nested=nested, data=_data_described(data))


def _data_described(data: StudyData) -> str:
    """What data a study's trials were computed on, as the page says it."""
    problem = data.problem if data.has_spec else None
    if problem is None or problem.split is None or problem.test_y is None:
        return "the whole data"
    return (f"the development part ({problem.y.size} examples; {problem.split.description}: "
            f"{problem.test_y.size} examples never seen by the search)")


def with_maps(report: StudyReport, runsets: Mapping[int, RunSet], data: StudyData
              ) -> StudyReport:
    """``report`` with the stability maps (:class:`FrontMaps`) of its
    :attr:`~StudyReport.mapped_trials`, made from their ``runsets`` (trial number →
    RunSet) and coloured by the study's palette."""
    mapped = list(report.mapped_trials)
    feature_names = data.problem.feature_names if data.has_spec else None
    maps = front_maps([runsets[n] for n in mapped], mapped, feature_names=feature_names,
                      chosen=report.chosen_trial, palette=data.palette)
    return replace(report, maps=maps)


def _selector_groups(refits: Refits, table: pd.DataFrame, names: list[str],
                     n_replicates: int, progress: bool | None) -> tuple[Group, ...]:
    """A multi-selector study's selectors as groups of trials, compared as studies are:
    the trials on a selector's front under some measure replicated (the report's
    cache)."""
    tables = {name: part.reset_index(drop=True)
              for name, part in table.groupby(SELECTOR_PARAM, sort=False)}
    todo = [(name, number) for name, part in tables.items()
            for number in front_trials(part, names)] if n_replicates else []
    found = refits.replicate_trials([number for _, number in todo], n_replicates, names,
                                    progress=progress, description="selector replicates")
    return tuple(Group(name, part, {number: found[number] for owner, number in todo
                                    if owner == name})
                 for name, part in tables.items())


# --------------------------------------------------------------------------- studies


@dataclass(frozen=True, eq=False)
class StudiesComparison:
    """Several studies compared (000 §6.2 Fig. 6, Table 3; 002 §3).

    Attributes
    ----------
    comparison : Comparison
    groups : tuple of Group
        One per study, named as the page names it.
    studies : tuple of dict
        Each study's ``group`` name, ``study`` name, ``storage`` (its URL, the password
        masked), completed ``trials``, ``objective``, ``selectors`` and ``replicates`` (B).
    weight : Weight or None
    """

    comparison: Comparison
    groups: tuple[Group, ...]
    studies: tuple[dict, ...]
    weight: Weight | None

    def __repr__(self) -> str:
        """The comparison's, not its tables."""
        return f"StudiesComparison({self.comparison!r})"

    def to_dict(self) -> dict:
        """``comparison.json``: the studies, the weight and the whole comparison."""
        return jsonable({"studies": [dict(s) for s in self.studies],
                         "weight": weight_name(self.weight),
                         **self.comparison.to_dict()})


def default_measures(declared: list[tuple[str, list[str]]]) -> list[str]:
    """Every study's objective, then the measures every study records (its objective or a
    recorded one), in the first study's order."""
    first, recorded = declared[0]
    common = [m for m in [first, *recorded] if all(m == o or m in r for o, r in declared)]
    return list(dict.fromkeys([*(o for o, _ in declared), *common]))


def analyse_studies(studies: Sequence[tuple[str, StudyData, Refits]], *,
                    measures: Sequence[str], replicates: int | None = None,
                    weight: object = None, level: float = 0.95,
                    progress: bool | None = None) -> StudiesComparison:
    """Compare the ``studies`` (each with the name the page gives it, as read with the
    ``measures`` shown — see :func:`default_measures` — and its refits).

    ``replicates``: B re-runs of each trial on a study's front under some measure
    (default: each study's spec ``protocol.replicates``; 0: none), cached in the study as
    the report caches them. ``weight``, ``level``: as for :func:`analyse_study`.
    """
    level = as_level(level)
    weight = as_weight(weight)
    check_replicates(replicates)
    names = list(dict.fromkeys(measure_name(m) for m in measures))
    tables, counts = [], []
    for _, data, _ in studies:
        if data.table.empty:
            raise no_completed_trial(data.name)
        tables.append(data.table)
        counts.append(data.replicates if replicates is None else replicates)
    found: list[dict] = []
    for (_, data, refits), table, count in zip(studies, tables, counts, strict=True):
        numbers = front_trials(table, names) if count else []
        found.append(refits.replicate_trials(numbers, count, names, progress=progress,
                                             description=f"replicates of {data.name}")
                     if numbers else {})
    groups = tuple(Group(name, table, values) for (name, _, _), table, values in
                   zip(studies, tables, found, strict=True))
    comparison = compare_groups(groups, names, weight=weight, level=level)
    compared = tuple({"group": group.name, "study": data.name, "storage": data.location,
                      "trials": len(group.table), "objective": data.objective,
                      "selectors": data.selectors(), "replicates": count}
                     for group, (_, data, _), count in zip(groups, studies, counts,
                                                            strict=True))
    return StudiesComparison(comparison=comparison, groups=groups, studies=compared,
                             weight=weight)
