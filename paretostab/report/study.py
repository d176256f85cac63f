"""The report of a tuned study: load it, re-run its front, compute and write the decisions.

This module is the report's loader: it reads an Optuna study (the only place of the report
package that imports Optuna), re-evaluates each Pareto-optimal trial ``B`` times with fresh
seeds for the confidence regions (002 §3) — cached as trial artifacts, so a second report
is instant — and assembles the pure computations of :mod:`~paretostab.front`,
:mod:`~paretostab.report.confidence` and :mod:`~paretostab.maps` into
``index.html``, ``front.csv`` and ``summary.json``.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
from optuna.artifacts import download_artifact, get_all_artifact_meta, upload_artifact
from optuna.trial import TrialState

from paretostab.errors import InvalidInputError, StabilityWarning, UnknownNameError
from paretostab.front import choose, dominance_area, gamma_table, pareto_front
from paretostab.measures import get_measure
from paretostab.measures._registry import _REGISTRY
from paretostab.report.confidence import confidence_regions, dominance_area_interval

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


def _context(study, storage, store) -> _Context:
    from paretostab.spec import parse_spec
    from paretostab.tuning import _Problem

    if "spec" not in study.user_attrs:
        raise InvalidInputError(
            f"Study {study.study_name!r} holds no spec (made by an older version): its "
            "trials cannot be re-run; use --replicates 0."
        )
    spec = parse_spec(study.user_attrs["spec"])
    return _Context(spec, _Problem.from_spec(spec), storage, store)


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


def _replicates(study, trial, context: _Context, n_replicates: int, measures) -> dict:
    """The (accuracy, measures) of ``n_replicates`` fresh protocols of ``trial`` — cached
    as the study artifact ``replicates-trial-N-B.json`` (a finished trial takes no new
    artifact)."""
    from paretostab.protocol import replicates as run_replicates
    from paretostab.selectors import get_selector
    from paretostab.tuning import measure_values

    filename = f"replicates-trial-{trial.number}-{n_replicates}.json"
    for meta in get_all_artifact_meta(study, storage=context.storage):
        if meta.filename == filename:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / filename
                download_artifact(artifact_store=context.store, file_path=str(path),
                                  artifact_id=meta.artifact_id)
                cached = json.loads(path.read_text(encoding="utf-8"))
            if all(m in cached for m in measures):
                return cached
    spec = context.spec
    selector = get_selector(spec.selector.name).make(**{**spec.selector.fixed, **trial.params})
    runsets = run_replicates(selector, context.problem.X, context.problem.y, n_replicates,
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
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / filename
        path.write_text(json.dumps(values), encoding="utf-8")
        upload_artifact(artifact_store=context.store, file_path=str(path),
                        study_or_trial=study, mimetype="application/json")
    return values


def _chosen_points(points: np.ndarray, gamma: float | None) -> list[int]:
    if gamma is None:
        return []
    return [choose(points, gamma)]


def build_report(storage_url: str, *, study_name: str | None = None,
                 measures: list[str] | None = None, replicates: int | None = None,
                 weight: str | None = None, gamma: float | None = None, level: float = 0.95,
                 out: str | Path = "report", artifacts: str | None = None,
                 progress: bool | None = None) -> Path:
    """Write the report of a study to ``out``: ``index.html``, ``front.csv``,
    ``summary.json``; returns the folder.

    ``measures``: the stability measures whose fronts are shown (default: the objective
    and every recorded measure); the front, the dominance area and its confidence interval
    are those of the study's objective. ``replicates``: B re-runs of each front trial for
    the Hotelling regions (default: the spec's ``protocol.replicates``; 0 skips them).
    ``weight``: ``"uniform"``, ``"accuracy:A"``, ``"stability:A"``. ``gamma``: the trade-off
    γ ∈ [0, 1] whose choice is circled.
    """
    from tqdm.auto import tqdm

    from paretostab.maps import stability_map
    from paretostab.report import html
    from paretostab.storage import artifact_store, load_runset, open_storage

    if gamma is not None and not (isinstance(gamma, int | float) and 0 <= gamma <= 1):
        raise InvalidInputError(f"gamma must be a number in [0, 1]; got {gamma!r}.")
    if not 0 < level < 1:
        raise InvalidInputError(f"level must be in (0, 1); got {level!r}.")
    weight_spec = parse_weight(weight)
    storage = open_storage(storage_url, must_exist=True)
    store = artifact_store(storage_url, artifacts)
    study = open_study(storage, study_name)
    objective = study.user_attrs.get("objective") or (study.metric_names or ["", "stability"])[1]
    recorded = study.user_attrs.get("spec", {}).get("objective", {}).get("record", [])
    names = [measure_name(m) for m in (measures or [objective, *recorded])]
    names = list(dict.fromkeys([objective, *names]))
    table = trial_table(study, names)
    if table.empty:
        raise InvalidInputError(f"Study {study.study_name!r} has no completed trial yet.")
    contexts: list[_Context] = []

    def context() -> _Context:
        if not contexts:
            contexts.append(_context(study, storage, store))
        return contexts[0]

    table = _fill_measures(table, study, names, context)
    points = table[["accuracy", objective]].to_numpy(dtype=float)
    front = pareto_front(points)
    front_table = table.iloc[front].reset_index(drop=True)
    front_points = points[front]
    choices = gamma_table(front_points)
    chosen = _chosen_points(front_points, gamma)
    n_replicates = context().spec.protocol.replicates if replicates is None else replicates
    regions = simultaneous = interval = simultaneous_interval = means = None
    if n_replicates:
        if n_replicates < 3:
            raise InvalidInputError(
                f"replicates must be 0 (no confidence regions) or >= 3; got {n_replicates}.")
        enabled = sys.stderr.isatty() if progress is None else progress
        values = []
        with tqdm(total=len(front), desc="replicates", disable=not enabled, leave=False) as bar:
            for number in front_table["trial"]:
                values.append(_replicates(study, _trial(study, number), context(),
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
        "chosen": [int(front_table["trial"].iloc[i]) for i in chosen],
        "gamma_table": gamma_frame.to_dict(orient="records"),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=float),
                                      encoding="utf-8")
    figures = _figures(study, table, names, objective, front, regions, means, chosen, gamma,
                       weight_spec, load_runset, stability_map, storage, store, context)
    html.write_report(out, title=f"paretostab report: {study.study_name}",
                      sections=_sections(summary, front_table, gamma_frame, figures, interval,
                                         simultaneous_interval))
    return out


def choose_trial(storage_url: str, gamma: float, *, study_name: str | None = None,
                 measure: str | None = None, artifacts: str | None = None) -> dict:
    """The front trial maximising γA + (1−γ)φ (003 §7.1), its parameters, and the features
    its selector selects when fitted on the whole data set."""
    from paretostab.selectors import get_selector
    from paretostab.spec import parse_spec
    from paretostab.storage import artifact_store, open_storage

    if not (isinstance(gamma, int | float) and 0 <= gamma <= 1):
        raise InvalidInputError(f"gamma must be a number in [0, 1]; got {gamma!r}.")
    storage = open_storage(storage_url, must_exist=True)
    study = open_study(storage, study_name)
    objective = measure_name(measure) if measure else study.user_attrs.get("objective")
    table = trial_table(study, [objective])
    if table.empty:
        raise InvalidInputError(f"Study {study.study_name!r} has no completed trial yet.")
    table = _fill_measures(table, study, [objective],
                           lambda: _context(study, storage, artifact_store(storage_url, artifacts)))
    points = table[["accuracy", objective]].to_numpy(dtype=float)
    front = pareto_front(points)
    row = table.iloc[front[choose(points[front], gamma)]]
    trial = _trial(study, row["trial"])
    spec = parse_spec(study.user_attrs["spec"]) if "spec" in study.user_attrs else None
    features: list[str] = []
    if spec is not None:
        from paretostab.data import load_dataset

        data = load_dataset(spec.data.source, label=spec.data.label, impute=spec.data.impute,
                            random_state=0)  # the data the study's trials saw
        selector = get_selector(spec.selector.name).make(**{**spec.selector.fixed,
                                                            **trial.params})
        X, names = data.X, np.asarray(data.feature_names)
        if spec.data.prefilter:
            from paretostab.data import variance_prefilter

            kept = variance_prefilter(X, spec.data.prefilter)
            X, names = X[:, kept], names[kept]
        selector.fit(X, data.y)
        order = np.argsort(-selector.importances_, kind="stable")
        features = [str(names[f]) for f in order if selector.support_[f]]
    return {"trial": trial.number, "gamma": gamma, "accuracy": float(row["accuracy"]),
            objective: float(row[objective]), "params": trial.params,
            "selected_features": features}


def _front_figure(table, objective, front, regions, means, chosen, gamma, weight):
    """The front of the study's objective, zoomed to the trials: front trials labelled with
    their numbers, their confidence regions joined to them with the front of their
    replicate means, the γ choice circled; the legend and an overview of the whole unit
    square (the dominated area there) beside it."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from paretostab.plot import draw_front, draw_optimism, zoom_to_data

    points = table[["accuracy", objective]].to_numpy(dtype=float)
    numbers = [str(int(n)) for n in table["trial"]]
    on_front = set(int(i) for i in front)
    figure = Figure(figsize=(10.5, 5.5))  # the plot, and beside it the legend over an overview
    ax = figure.add_axes((0.07, 0.1, 0.56, 0.82))
    chosen_rows = [int(front[i]) for i in chosen]
    label = (f"γ = {gamma:g} choice (trial {numbers[chosen_rows[0]]})" if chosen_rows
             else "γ choice")
    draw_front(points, ax=ax, weight=weight, ellipses=regions, chosen=chosen_rows,
               chosen_label=label,
               labels=[n if i in on_front else "" for i, n in enumerate(numbers)])
    if means is not None:
        draw_optimism(points[front], means, ax=ax)
    (x0, x1), (y0, y1) = zoom_to_data(ax, points, *([] if means is None else [means]))
    ax.set_ylabel(objective)
    ax.set_title("Pareto front (zoomed to the trials)", fontsize="medium")
    figure.legend(*ax.get_legend_handles_labels(), loc="upper left",
                  bbox_to_anchor=(0.66, 0.93), fontsize="small", frameon=False)
    overview = figure.add_axes((0.72, 0.1, 0.2, 0.34))
    draw_front(points, ax=overview, weight=weight)
    overview.set_xlim(0, 1)
    overview.set_ylim(0, 1)
    overview.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor="C3",
                                 linewidth=1.0, zorder=6))
    overview.set_title("the unit square", fontsize="small")
    overview.set_xlabel("accuracy", fontsize="small")
    overview.set_ylabel(objective, fontsize="small")
    overview.tick_params(labelsize="x-small")
    return figure


def _figures(study, table, names, objective, front, regions, means, chosen, gamma, weight,
             load_runset, stability_map, storage, store, context) -> dict:
    """The report's matplotlib figures (no pyplot: no global state)."""
    from matplotlib.figure import Figure

    from paretostab.plot import draw_fronts, draw_stability_map

    figures = {"front": _front_figure(table, objective, front, regions, means, chosen, gamma,
                                      weight)}
    panels = []
    trade_off = 0.5 if gamma is None else gamma
    for name in names:
        measure_points = table[["accuracy", name]].to_numpy(dtype=float)
        measure_front = pareto_front(measure_points)
        panels.append((name, measure_points, measure_front,
                       [int(measure_front[choose(measure_points[measure_front], trade_off)])]
                       if len(measure_front) else None))
    figure = Figure(figsize=(4.5 * len(panels), 4))
    draw_fronts(panels, axes=figure.subplots(1, len(panels), squeeze=False, sharey=True)[0])
    figures["fronts"] = figure
    maps = []
    spec = context().spec if "spec" in study.user_attrs else None
    names_of_features = context().problem.feature_names if spec is not None else None
    for index in front:
        number = int(table["trial"].iloc[index])
        runs = load_runset(_trial(study, number), storage=storage, store=store)
        figure = Figure(figsize=(8, 4))
        draw_stability_map(stability_map(runs, feature_names=names_of_features, top=10),
                           ax=figure.add_subplot())
        maps.append((number, figure))
    figures["maps"] = maps
    return figures


def _sections(summary: dict, front_table: pd.DataFrame, gamma_frame: pd.DataFrame,
              figures: dict, interval, simultaneous_interval) -> list:
    from paretostab.report.html import Section

    def fmt(pair):
        if pair is None:
            return "not computed (no replicates)"
        return f"[{pair.low:.4f}, {pair.high:.4f}]"

    text = (f"Objective: out-of-bag accuracy and {summary['objective']}; "
            f"{summary['trials']} completed trials, {len(summary['front'])} on the Pareto "
            f"front. Dominance area ({summary['weight']} weight): "
            f"{summary['dominance_area']:.4f} for the trials' values")
    if interval is not None:
        text += (f", {interval.estimate:.4f} for the means of {summary['replicates']} "
                 f"replicates per front point, with {summary['level']:.0%} interval "
                 f"{fmt(interval)} and simultaneous (Bonferroni over the front points) "
                 f"interval {fmt(simultaneous_interval)}")
    text += "."
    if summary["optimism"] is not None:
        optimism = summary["optimism"]
        text += (" The front trials' own values minus the means of their replicates are, "
                 f"on average, {optimism['accuracy']:+.4f} accuracy and "
                 f"{optimism[summary['objective']]:+.4f} {summary['objective']}; a positive "
                 "difference is the front's optimism, as its trials were selected for being "
                 "good on their own resamples (the dotted segments in the figure join each "
                 "trial to its replicates' mean).")
    if summary["chosen"]:
        text += f" γ = {summary['gamma']} chooses trial {summary['chosen'][0]}."
    sections = [
        Section("Summary", text=text),
        Section("Pareto front", figure=figures["front"], table=front_table,
                caption="All completed trials, zoomed to them (the overview beside shows "
                        "the whole unit square with the zoomed part framed); the front as a "
                        "staircase over the shaded dominated area, its trials numbered; the "
                        "Hotelling confidence regions of the front trials' expected "
                        "(accuracy, stability), each joined to its trial, with the front of "
                        "the replicate means dashed; the γ choice circled."),
        Section("Trade-off by γ (003 §7.1)", table=gamma_frame,
                text="Each convex-hull vertex of the front maximises γ·accuracy + (1 − γ)·"
                     "stability for the γ interval shown; the willingness γ/(1 − γ) is the "
                     "stability given up per point of accuracy at the segment ends."),
        Section("Fronts under each measure", figure=figures["fronts"],
                caption="The same trials, their fronts under each recorded measure "
                        f"(003 Fig. 11); the γ = "
                        f"{0.5 if summary['gamma'] is None else summary['gamma']:g} choice "
                        "under each measure circled."),
    ]
    sections.append(Section(
        "Feature stability maps of the front",
        text="One row per run; rectangle widths are the importances; features by decreasing "
             "selection frequency, one colour per feature (003 §3).",
        subsections=tuple(Section(
            f"Feature stability map, trial {number}"
            + (f" (the γ = {summary['gamma']} choice)" if number in summary["chosen"] else ""),
            figure=figure) for number, figure in figures["maps"])))
    return sections
