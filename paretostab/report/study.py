"""The report of a tuned study: load it, re-run its front, compute and write the decisions.

This module is the report's loader: it reads an Optuna study (the only place of the report
package that imports Optuna), re-evaluates each Pareto-optimal trial ``B`` times with fresh
seeds for the confidence regions (002 §3) — cached as trial artifacts, so a second report
is instant — and assembles the pure computations of :mod:`~paretostab.front`,
:mod:`~paretostab.report.confidence` and :mod:`~paretostab.maps` into
``index.html``, ``front.csv`` and ``summary.json``.
"""

from __future__ import annotations

import functools
import json
import math
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
from optuna.trial import TrialState

from paretostab.errors import InvalidInputError, StabilityWarning, UnknownNameError
from paretostab.front import choose, dominance_area, gamma_table, pareto_front
from paretostab.measures import get_measure
from paretostab.measures._registry import _REGISTRY
from paretostab.report.confidence import confidence_regions, dominance_area_interval
from paretostab.spec import SELECTOR_PARAM

#: Prefix of the study system attributes that cache a front trial's replicates.
REPLICATES_KEY = "paretostab:replicates:"

#: Short names the command line accepts besides the registry's (003's symbols).
ALIASES = {"phi": "nogueira", "phi_pears": "pearson", "pears": "pearson", "phi_iw": "iw",
           "phi_msi": "msi", "phi_s": "sechidis"}


def measure_name(name: str) -> str:
    """A registry measure name from a registry name or an alias (``phi`` → ``nogueira``)."""
    name = ALIASES.get(name, name)
    if name not in _REGISTRY:
        raise UnknownNameError.for_name("measure", name, [*_REGISTRY, *ALIASES])
    return name


def parse_weight(text: str | None):
    """``"uniform"``, ``"accuracy:A"`` or ``"stability:A"`` → a dominance-area weight."""
    if text in (None, "", "uniform"):
        return None if text in (None, "") else "uniform"
    axis, _, value = text.partition(":")
    try:
        strength = float(value)
    except ValueError:
        strength = math.nan
    if axis not in ("accuracy", "stability") or not math.isfinite(strength):
        raise InvalidInputError(
            f"weight must be 'uniform', 'accuracy:A' or 'stability:A' with a number A "
            f"(e.g. 'accuracy:2'); got {text!r}."
        )
    return (axis, strength)


def _trial(study: optuna.Study, number: int) -> optuna.trial.FrozenTrial:
    """Trial ``number`` without copying every trial (``study.trials`` deep-copies them all)."""
    return study.get_trials(deepcopy=False)[int(number)]


def open_study(storage, study_name: str | None) -> optuna.Study:
    """The study ``study_name`` of ``storage``, or its only study when no name is given."""
    names = [s.study_name for s in optuna.get_all_study_summaries(storage)]
    if study_name is None:
        if len(names) != 1:
            raise InvalidInputError(
                f"The storage holds {len(names)} studies ({', '.join(names) or 'none'}); "
                "choose one with --study-name."
            )
        study_name = names[0]
    if study_name not in names:
        raise UnknownNameError.for_name("study", study_name, names)
    return optuna.load_study(study_name=study_name, storage=storage)


def study_measures(study: optuna.Study) -> tuple[str, list[str]]:
    """A study's stability objective (registry name) and the measures its spec records."""
    objective = study.user_attrs.get("objective") or (study.metric_names or ["", "stability"])[1]
    return objective, list(study.user_attrs.get("spec", {}).get("objective", {})
                           .get("record", []))


def trial_table(study: optuna.Study, measures: list[str]) -> pd.DataFrame:
    """One row per completed trial: accuracy, every requested measure, k̄, parameters."""
    rows = []
    for trial in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        recorded = trial.user_attrs.get("measures", {})
        rows.append({"trial": trial.number, "accuracy": trial.values[0],
                     **{m: recorded.get(m, math.nan) for m in measures},
                     "k̄": trial.user_attrs.get("mean_selected"), **trial.params})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class _Context:
    """What re-running a trial needs: the spec, the data, the similarity, the stores."""

    spec: object
    problem: object
    storage: object
    store: object
    study_id: int

    @functools.cached_property
    def cached_replicates(self) -> dict:
        """The study's cached replicates (system attributes ``paretostab:replicates:N:B``),
        read once: every front trial looks its own up here."""
        return {key: values for key, values in
                self.storage.get_study_system_attrs(self.study_id).items()
                if key.startswith(REPLICATES_KEY)}


def _context(study, storage, store) -> _Context:
    from paretostab.spec import parse_spec
    from paretostab.tuning import _Problem

    if "spec" not in study.user_attrs:
        raise InvalidInputError(
            f"Study {study.study_name!r} holds no spec (made by an older version): its "
            "trials cannot be re-run; use --replicates 0."
        )
    spec = parse_spec(study.user_attrs["spec"])
    return _Context(spec, _Problem.from_spec(spec), storage, store, study._study_id)


def _lazy_context(study, storage, store) -> Callable[[], _Context]:
    """The study's :class:`_Context`, built on first use and kept (it loads the data);
    ``store`` gives the artifact store, opened then too."""
    return functools.cache(lambda: _context(study, storage, store()))


def _fill_measures(table: pd.DataFrame, study, measures, context_factory) -> pd.DataFrame:
    """Recompute, from the trials' RunSets, the measures the trials did not record."""
    from paretostab.storage import load_runset

    missing = [m for m in measures if table[m].isna().all()]
    if not missing:
        return table
    context = context_factory()
    similarity = context.problem.similarity
    for index, number in enumerate(table["trial"]):
        runs = load_runset(_trial(study, number), storage=context.storage, store=context.store)
        for name in missing:
            extra = {}
            if get_measure(name).needs_similarity:
                if similarity is None:
                    from paretostab.similarity import FeatureSimilarity

                    similarity = FeatureSimilarity(context.problem.X, "spearman")
                extra["similarity"] = similarity
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", StabilityWarning)
                table.loc[index, name] = runs.stability(name, **extra)
    return table


def _replicates(trial, context: _Context, n_replicates: int, measures) -> dict:
    """The (accuracy, measures) of ``n_replicates`` fresh protocols of ``trial`` — cached
    in the study's system attributes (``paretostab:replicates:N:B``: kept with the study,
    not shown by the dashboard as artifacts one could delete)."""
    from paretostab.protocol import replicates as run_replicates
    from paretostab.tuning import measure_values

    key = f"{REPLICATES_KEY}{trial.number}:{n_replicates}"
    cached = context.cached_replicates.get(key)
    if cached is not None and all(m in cached for m in measures):
        return cached
    spec = context.spec
    runsets = run_replicates(context.problem.estimator(spec, trial.params), context.problem.X,
                             context.problem.y, n_replicates,
                             random_state=[spec.seed or 0, trial.number, 1],
                             runs=spec.protocol.runs, resampling=spec.protocol.resampling,
                             sample_fraction=spec.protocol.sample_fraction,
                             prefilter=spec.data.prefilter, metric=spec.protocol.metric,
                             n_jobs=spec.protocol.n_jobs, progress=False)
    values = {"accuracy": [r.accuracy for r in runsets]}
    for runs in runsets:
        recorded = measure_values(runs, spec, context.problem.similarity)
        for name in measures:
            if name not in recorded:
                extra = ({"similarity": context.problem.similarity}
                         if get_measure(name).needs_similarity else {})
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", StabilityWarning)
                    recorded[name] = runs.stability(name, **extra)
            values.setdefault(name, []).append(recorded[name])
    context.cached_replicates[key] = {**(cached or {}), **values}
    context.storage.set_study_system_attr(context.study_id, key, context.cached_replicates[key])
    return values


def build_report(storage_url: str, *, study_name: str | None = None,
                 measures: list[str] | None = None, replicates: int | None = None,
                 weight: str | None = None, gamma: float = 0.5, level: float = 0.95,
                 out: str | Path = "report", artifacts: str | None = None,
                 progress: bool | None = None) -> Path:
    """Write the report of a study to ``out``: ``index.html``, ``front.csv``,
    ``summary.json``; returns the folder.

    ``measures``: the stability measures whose fronts are shown (default: the objective
    and every recorded measure); the front, the dominance area and its confidence interval
    are those of the study's objective. ``replicates``: B re-runs of each front trial for
    the Hotelling regions (default: the spec's ``protocol.replicates``; 0 skips them).
    ``weight``: ``"uniform"``, ``"accuracy:A"``, ``"stability:A"``. ``gamma``: the trade-off
    γ ∈ [0, 1] (003 §7.1) whose choice every figure and table marks and the "chosen
    trade-off" section details (its parameters, values, replicate means with intervals and
    the features its selector selects on the whole data).
    """
    from tqdm.auto import tqdm

    from paretostab.report import html
    from paretostab.storage import artifact_store, load_runset, open_storage

    if not (isinstance(gamma, int | float) and 0 <= gamma <= 1):
        raise InvalidInputError(f"gamma must be a number in [0, 1]; got {gamma!r}.")
    if not 0 < level < 1:
        raise InvalidInputError(f"level must be in (0, 1); got {level!r}.")
    weight_spec = parse_weight(weight)
    storage = open_storage(storage_url, must_exist=True)
    store = artifact_store(storage_url, artifacts)
    study = open_study(storage, study_name)
    objective, recorded = study_measures(study)
    names = [measure_name(m) for m in (measures or [objective, *recorded])]
    names = list(dict.fromkeys([objective, *names]))
    table = trial_table(study, names)
    if table.empty:
        raise InvalidInputError(f"Study {study.study_name!r} has no completed trial yet.")
    context = _lazy_context(study, storage, lambda: store)
    table = _fill_measures(table, study, names, context)
    points = table[["accuracy", objective]].to_numpy(dtype=float)
    front = pareto_front(points)
    front_table = table.iloc[front].reset_index(drop=True)
    front_points = points[front]
    choices = gamma_table(front_points)
    chosen = choose(front_points, gamma)  # its row in the front
    n_replicates = context().spec.protocol.replicates if replicates is None else replicates
    regions = simultaneous = interval = simultaneous_interval = means = None
    values: list[dict] = []  # each front trial's replicates
    enabled = sys.stderr.isatty() if progress is None else progress
    if n_replicates:
        if n_replicates < 3:
            raise InvalidInputError(
                f"replicates must be 0 (no confidence regions) or >= 3; got {n_replicates}.")
        with tqdm(total=len(front), desc="replicates", disable=not enabled, leave=False) as bar:
            for trial_number in front_table["trial"]:
                values.append(_replicates(_trial(study, trial_number), context(),
                                          n_replicates, names))
                bar.update()
        samples = [np.column_stack([v["accuracy"], v[objective]]) for v in values]
        means = np.array([sample.mean(axis=0) for sample in samples])
        regions = confidence_regions(samples, level=level)
        simultaneous = confidence_regions(samples, level=level, simultaneous=True)
        interval = dominance_area_interval(regions, weight=weight_spec)
        simultaneous_interval = dominance_area_interval(simultaneous, weight=weight_spec)
    area = dominance_area(points, weight=weight_spec)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    front_table.to_csv(out / "front.csv", index=False)
    gamma_frame = pd.DataFrame([{
        "trial": int(front_table["trial"].iloc[c.index]), "accuracy": c.accuracy,
        objective: c.stability, "gamma from": c.gamma_low, "gamma to": c.gamma_high,
        "willingness from": c.willingness_low, "willingness to": c.willingness_high}
        for c in choices])
    summary = {
        "study": study.study_name, "storage": storage_url, "objective": objective,
        "trials": len(table), "front": [int(t) for t in front_table["trial"]],
        "weight": weight or "uniform", "dominance_area": area, "level": level,
        "replicates": n_replicates,
        "dominance_area_of_replicate_means": None if interval is None else interval.estimate,
        "dominance_area_interval": None if interval is None else [interval.low, interval.high],
        "simultaneous_interval": (None if simultaneous_interval is None
                                  else [simultaneous_interval.low, simultaneous_interval.high]),
        "optimism": None if means is None else dict(zip(
            ["accuracy", objective], np.nanmean(front_points - means, axis=0).tolist(),
            strict=True)),
        "gamma": gamma,
        "chosen": [int(front_table["trial"].iloc[chosen])],
        "gamma_table": gamma_frame.to_dict(orient="records"),
    }
    params = _trial(study, int(front_table["trial"].iloc[chosen])).params
    selection = None
    if "spec" in study.user_attrs:
        selection = whole_data_selection(context().problem, context().spec, params)
    trade_off = chosen_trade_off(front_table.iloc[chosen], params, names, gamma, level,
                                 values[chosen] if values else None, selection)
    summary["chosen_trade_off"] = trade_off
    selectors = None
    if SELECTOR_PARAM in table and table[SELECTOR_PARAM].nunique() > 1:
        selectors = _selector_comparison(study, table, names, context, n_replicates,
                                         weight_spec, level, enabled)
        selectors[0].to_frame().to_csv(out / "selectors.csv", index=False)
        summary["selectors"] = selectors[0].to_dict()  # JSON-able already
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=float),
                                      encoding="utf-8")
    figures = _figures(study, table, names, objective, front, regions, means, chosen, gamma,
                       weight_spec, load_runset, storage, store, context)
    sections = _sections(summary, front_table, gamma_frame, figures, interval,
                         simultaneous_interval)
    if selectors is not None:
        sections.append(_selectors_section(*selectors, n_replicates))
    sections.append(html.references(sections))
    html.write_report(out, title=f"paretostab report: {study.study_name}", sections=sections)
    return out


def _selector_comparison(study, table, names, context, n_replicates, weight, level,
                         progress: bool):
    """A multi-selector study's selectors compared as ``compare`` compares studies: one
    group of trials per selector, the trials on a selector's front under some measure
    replicated (the report's cache)."""
    from tqdm.auto import tqdm

    from paretostab.report.compare import Group, compare_groups, front_trials

    tables = {name: part.reset_index(drop=True)
              for name, part in table.groupby(SELECTOR_PARAM, sort=False)}
    todo = ([(name, number) for name, part in tables.items()
             for number in front_trials(part, names)] if n_replicates else [])
    found: dict[str, dict] = {name: {} for name in tables}
    with tqdm(total=len(todo), desc="selector replicates", disable=not progress,
              leave=False) as bar:
        for name, number in todo:
            found[name][number] = _replicates(_trial(study, number), context(),
                                              n_replicates, names)
            bar.update()
    groups = [Group(name, part, found[name]) for name, part in tables.items()]
    return compare_groups(groups, names, weight=weight, level=level), groups


def _selectors_section(comparison, groups, n_replicates: int):
    from paretostab.report.compare import comparison_sections
    from paretostab.report.html import Section

    replicated = (f"each trial on a selector's front under some measure re-run B = "
                  f"{n_replicates} times on fresh resamples" if n_replicates else
                  "no replicates: dominance areas and differences without intervals")
    return Section(
        "Selectors compared",
        text=f"The study's trials grouped by their selector ({len(groups)} selectors; "
             f"{replicated}), compared as python -m paretostab compare compares studies "
             "(also in selectors.csv and summary.json's \"selectors\").",
        subsections=tuple(comparison_sections(comparison, groups, noun="selector",
                                              plural="selectors")))


def chosen_trade_off(row: pd.Series, params: dict, measures: list[str], gamma: float,
                     level: float, replicates: dict | None,
                     selection: pd.DataFrame | None) -> dict:
    """What the report says of the γ choice (003 §7.1): its trial (``row`` of the trial
    table), its parameters, its values,
    the mean of its replicates for each with a ``level`` t interval for that mean (B − 1
    degrees of freedom; cut to the measure's bounds: φ of 1.002 means nothing), and the
    features its selector selects on the whole data."""
    from scipy import stats

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
    return {"trial": int(row["trial"]), "gamma": gamma, "params": params,
            "mean_selected": float(row["k̄"]) if _present(row.get("k̄")) else None,
            "values": rows, "level": level,
            "replicates": 0 if replicates is None else len(replicates["accuracy"]),
            "selected_features": ([] if selection is None
                                  else selection.to_dict(orient="records"))}


def _present(value) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def whole_data_selection(problem, spec, params: dict) -> pd.DataFrame:
    """The features the study's selector with ``params`` selects when fitted on the whole
    data set (pre-filtered as the spec says): one row per selected feature, by decreasing
    importance, with its column ``index`` in the data, ``feature`` name and
    ``importance`` (SPEC §1, in the final model)."""
    from paretostab.data import variance_prefilter

    selector = problem.estimator(spec, params)
    columns = np.arange(problem.X.shape[1])
    if spec.data.prefilter:
        columns = variance_prefilter(problem.X, spec.data.prefilter)
    selector.fit(problem.X[:, columns], problem.y)
    order = [f for f in np.argsort(-selector.importances_, kind="stable")
             if selector.support_[f]]
    return pd.DataFrame({"index": columns[order],
                         "feature": [str(problem.feature_names[columns[f]]) for f in order],
                         "importance": selector.importances_[order]})


def choose_trial(storage_url: str, gamma: float, *, study_name: str | None = None,
                 measure: str | None = None, artifacts: str | None = None) -> dict:
    """The front trial maximising γA + (1−γ)φ (003 §7.1), its parameters, and the features
    its selector selects when fitted on the whole data set."""
    from paretostab.storage import artifact_store, open_storage

    if not (isinstance(gamma, int | float) and 0 <= gamma <= 1):
        raise InvalidInputError(f"gamma must be a number in [0, 1]; got {gamma!r}.")
    storage = open_storage(storage_url, must_exist=True)
    study = open_study(storage, study_name)
    objective = measure_name(measure) if measure else study.user_attrs.get("objective")
    table = trial_table(study, [objective])
    if table.empty:
        raise InvalidInputError(f"Study {study.study_name!r} has no completed trial yet.")
    context = _lazy_context(study, storage, lambda: artifact_store(storage_url, artifacts))
    table = _fill_measures(table, study, [objective], context)
    points = table[["accuracy", objective]].to_numpy(dtype=float)
    front = pareto_front(points)
    row = table.iloc[front[choose(points[front], gamma)]]
    trial = _trial(study, row["trial"])
    features: list[str] = []
    if "spec" in study.user_attrs:
        features = list(whole_data_selection(context().problem, context().spec,
                                             trial.params)["feature"])
    return {"trial": trial.number, "gamma": gamma, "accuracy": float(row["accuracy"]),
            objective: float(row[objective]), "params": trial.params,
            "selected_features": features}


def label(name: str) -> str:
    """What a person reads for a table column or axis: a measure's symbol (``φ_iw``), any
    other name as it is."""
    return get_measure(name).label if name in _REGISTRY else name


def _front_figure(study_name, table, objective, front, regions, means, chosen, gamma, weight):
    """The front of the study's objective, zoomed to the trials: front trials labelled with
    their numbers, their confidence regions joined to them with the front of their
    replicate means, the γ choice circled; the legend and an overview of the whole unit
    square (the dominated area there) beside it. Returns the figure and the front's axes
    and the links of its front points to their maps."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from paretostab.plot import draw_front, draw_optimism, zoom_to_data
    from paretostab.report.html import FigureLink

    points = table[["accuracy", objective]].to_numpy(dtype=float)
    numbers = [str(int(n)) for n in table["trial"]]
    on_front = set(int(i) for i in front)
    figure = Figure(figsize=(10.5, 5.8))  # the plot, and beside it the legend over an overview
    ax = figure.add_axes((0.07, 0.1, 0.56, 0.78))
    chosen_row = int(front[chosen])
    draw_front(points, ax=ax, weight=weight, ellipses=regions, chosen=[chosen_row],
               chosen_label=f"γ = {gamma:g} choice (trial {numbers[chosen_row]})",
               labels=[n if i in on_front else "" for i, n in enumerate(numbers)])
    if means is not None:
        draw_optimism(points[front], means, ax=ax)
    (x0, x1), (y0, y1) = zoom_to_data(ax, points, *([] if means is None else [means]))
    ax.set_ylabel(label(objective))
    ax.set_title("zoomed to the trials", fontsize="small")
    figure.suptitle(f"Pareto front of {study_name}: accuracy and {label(objective)}",
                    x=0.07, y=0.97, ha="left", fontsize="large")
    figure.legend(*ax.get_legend_handles_labels(), loc="upper left",
                  bbox_to_anchor=(0.66, 0.88), fontsize="small", frameon=False)
    overview = figure.add_axes((0.72, 0.1, 0.2, 0.32))
    draw_front(points, ax=overview, weight=weight)
    overview.set_xlim(0, 1)
    overview.set_ylim(0, 1)
    overview.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor="C3",
                                 linewidth=1.0, zorder=6))
    overview.set_title("the unit square", fontsize="small")
    overview.set_xlabel("accuracy", fontsize="small")
    overview.set_ylabel(label(objective), fontsize="small")
    overview.tick_params(labelsize="x-small")
    links = [FigureLink(ax, points[i, 0], points[i, 1], f"#trial-{numbers[i]}",
                        f"trial {numbers[i]}: accuracy {points[i, 0]:.4g}, "
                        f"{label(objective)} {points[i, 1]:.4g} (its map)")
             for i in front]
    return figure, links


def _figures(study, table, names, objective, front, regions, means, chosen, gamma, weight,
             load_runset, storage, store, context) -> dict:
    """The report's matplotlib figures (no pyplot: no global state)."""
    from matplotlib.figure import Figure

    from paretostab.plot import draw_fronts

    figures = {}
    figures["front"], figures["front_links"] = _front_figure(
        study.study_name, table, objective, front, regions, means, chosen, gamma, weight)
    chosen_row = int(front[chosen])
    number = int(table["trial"].iloc[chosen_row])
    panels = [(label(name), table[["accuracy", name]].to_numpy(dtype=float), None,
               [chosen_row]) for name in names]
    figure = Figure(figsize=(4.5 * len(panels), 4.4))
    axes = figure.subplots(1, len(panels), squeeze=False, sharey=True)[0]
    draw_fronts(panels, axes=axes, chosen_label=f"trial {number} (γ = {gamma:g} choice)")
    figure.suptitle(f"Fronts of {study.study_name} under each measure", x=0.02, ha="left")
    figures["fronts"] = figure
    figures.update(_map_figures(study, table, front, number, gamma, load_runset, storage,
                                store, context))
    return figures


def _map_figures(study, table, front, chosen_number, gamma, load_runset, storage, store,
                 context) -> dict:
    """The front's stability maps, compact (Hamer & Dupont, JMLR 2021, §3): the overview
    of selection frequencies (features × front trials) and one map per distinct picture
    with the trials it stands for, all in one palette (a feature has one colour on the
    whole page)."""
    from paretostab.maps import group_identical_maps, selection_overview, stability_map
    from paretostab.plot import selection_overview_figure, stability_maps_figure

    numbers = [int(table["trial"].iloc[i]) for i in front]
    feature_names = (context().problem.feature_names if "spec" in study.user_attrs
                     else None)
    runsets = [load_runset(_trial(study, n), storage=storage, store=store) for n in numbers]
    overview = selection_overview(runsets, numbers, feature_names=feature_names)
    palette = overview.palette()
    choice = f"γ = {gamma:g} choice"
    maps = [stability_map(runs, feature_names=feature_names, top=10, palette=palette)
            for runs in runsets]
    groups = group_identical_maps(maps, numbers)
    titles = [f"trial{'s' if len(group) > 1 else ''} {', '.join(map(str, group))}"
              + (f" ({choice}: {chosen_number})" if len(group) > 1 and chosen_number in group
                 else f" ({choice})" if chosen_number in group else "")
              for group in groups]
    return {"overview": selection_overview_figure(
                overview, chosen=chosen_number, chosen_label=choice, palette=palette,
                title=f"Which features the front trials of {study.study_name} keep"),
            "maps": stability_maps_figure(
                [maps[numbers.index(group[0])] for group in groups], titles,
                title=f"Feature stability maps of the front trials of {study.study_name}, "
                      "one per distinct picture"),
            "map_groups": groups}


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with measure columns named by their symbols, for the page."""
    return frame.rename(columns={c: label(c) for c in frame.columns})


def _chosen_sections(trade_off: dict, objective: str) -> list:
    from paretostab.report.html import Section

    number, level = trade_off["trial"], trade_off["level"]
    values = pd.DataFrame(trade_off["values"])
    values["objective"] = [label(n) for n in values["objective"]]
    values = values.rename(columns={
        "objective": "", "trial": f"trial {number}",
        "replicate mean": f"mean of {trade_off['replicates']} replicates",
        "interval low": f"{level:.0%} interval from", "interval high": "to"})
    text = (f"γ = {trade_off['gamma']:g} chooses trial {number}: of the front, it maximises "
            f"{trade_off['gamma']:g} · accuracy + {1 - trade_off['gamma']:g} · "
            f"{label(objective)} (Hamer & Dupont, JMLR 2021, §7.1).")
    if trade_off["replicates"]:
        text += (" Its values are those of its own resamples; the replicates re-run its "
                 "protocol on fresh resamples, and their mean, with a t interval, is what to "
                 "expect of this setting.")
    features = pd.DataFrame(trade_off["selected_features"])
    sections = [Section("Chosen trade-off", text=text, anchors=["chosen"],
                        fields={**trade_off["params"], "k̄ (mean selected)":
                                trade_off["mean_selected"]},
                        table=values.set_index(""),
                        caption=f"Trial {number}'s own values, and the mean of its replicates "
                                f"with its {level:.0%} interval.")]
    if not features.empty:
        sections.append(Section(
            f"Features selected on the whole data ({len(features)})",
            table=features[["feature", "importance"]].rename(
                columns={"importance": "importance in the final model"}),
            caption=f"Trial {number}'s selector with its parameters, fitted once on all "
                    "samples (pre-filtered as the spec says): what to use for new data; by "
                    "decreasing importance."))
    return sections


def _sections(summary: dict, front_table: pd.DataFrame, gamma_frame: pd.DataFrame,
              figures: dict, interval, simultaneous_interval) -> list:
    from paretostab.report.html import Section

    def fmt(pair):
        if pair is None:
            return "not computed (no replicates)"
        return f"[{pair.low:.4f}, {pair.high:.4f}]"

    objective = summary["objective"]
    number = summary["chosen"][0]
    text = (f"Objectives: out-of-bag accuracy and {label(objective)}, both maximised; "
            f"{summary['trials']} completed trials, {len(summary['front'])} on the Pareto "
            f"front. Dominance area ({summary['weight']} weight): "
            f"{summary['dominance_area']:.4f} for the trials' values")
    if interval is not None:
        text += (f", {interval.estimate:.4f} for the means of {summary['replicates']} "
                 f"replicates per front trial, with {summary['level']:.0%} interval "
                 f"{fmt(interval)} and simultaneous (Bonferroni over the front trials) "
                 f"interval {fmt(simultaneous_interval)}")
    text += "."
    if summary["optimism"] is not None:
        optimism = summary["optimism"]
        text += (" The front trials' own values minus the means of their replicates are, "
                 f"on average, {optimism['accuracy']:+.4f} accuracy and "
                 f"{optimism[objective]:+.4f} {label(objective)}; a positive "
                 "difference is the front's optimism, as its trials were selected for being "
                 "good on their own resamples (the dotted segments in the figure join each "
                 "trial to its replicates' mean).")
    text += f" γ = {summary['gamma']:g} chooses trial {number} (see the chosen trade-off)."
    chosen_front_row = [list(front_table["trial"]).index(number)]
    chosen_gamma_row = [i for i, t in enumerate(gamma_frame["trial"]) if t == number]
    sections = [
        Section("Summary", text=text),
        Section("Pareto front", figure=figures["front"], figure_links=figures["front_links"],
                table=_shown(front_table), links=("trial", "#trial-{}"),
                highlight=chosen_front_row,
                caption="All completed trials, zoomed to them (the overview beside shows "
                        "the whole unit square with the zoomed part framed); the front as a "
                        "staircase over the shaded dominated area, its trials numbered (a "
                        "click on one, or on its number in the table, opens its map); the "
                        "Hotelling confidence regions of the front trials' expected "
                        "(accuracy, stability), each joined to its trial, with the front of "
                        "the replicate means dashed (Hamer & Dupont 2019, §3); the γ choice "
                        "circled and highlighted in the table."),
        *_chosen_sections(summary["chosen_trade_off"], objective),
        Section("Trade-off by γ", table=_shown(gamma_frame), links=("trial", "#trial-{}"),
                highlight=chosen_gamma_row,
                text="Each convex-hull vertex of the front maximises γ·accuracy + (1 − γ)·"
                     f"{label(objective)} for the γ interval shown (Hamer & Dupont, JMLR "
                     "2021, §7.1); the willingness γ/(1 − γ) is the stability given up per "
                     "point of accuracy at the segment ends. The row of γ = "
                     f"{summary['gamma']:g} is highlighted."),
        Section("Fronts under each measure", figure=figures["fronts"],
                caption="The same trials, their fronts under each measure (as in Hamer & "
                        f"Dupont, JMLR 2021, Fig. 11); trial {number}, the γ = "
                        f"{summary['gamma']:g} choice, circled in each."),
    ]
    groups = figures["map_groups"]
    distinct = (f"{len(groups)} distinct pictures" if len(groups) < len(summary["front"])
                else "every one distinct")
    sections.append(Section(
        "Feature stability maps of the front",
        text=f"The {len(summary['front'])} front trials' maps ({distinct}): first which "
             "features each trial keeps, then the maps as small multiples, one per picture "
             "titled with the trials it stands for (maps within 1 % of each other count as "
             "one). In a map, one row per run; rectangle widths are the importances; "
             "features by decreasing selection frequency; one colour per feature on the "
             "whole page, light grey beyond the palette's 20 colours (Hamer & Dupont, JMLR "
             "2021, §3).",
        figure=figures["overview"],
        caption="Selection frequency p_f of the most selected features (rows) in each front "
                f"trial's runs (columns); trial {number}, the γ = {summary['gamma']:g} "
                "choice, outlined.",
        subsections=(Section(
            "The maps, one per picture", figure=figures["maps"],
            anchors=[f"trial-{n}" for group in groups for n in group],
            caption="Each panel: one row per run (run 0 at the top), the importances of its "
                    "selected features side by side (rows sum to k̄); panels titled with the "
                    "trials whose maps they stand for."),)))
    return sections
