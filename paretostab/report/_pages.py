"""The report's pages as sections (:class:`~paretostab.report._html.Section`), assembled
from the analysis objects and their figures: the page of one study
(:func:`study_sections`), the sections of a comparison of groups
(:func:`comparison_sections`, also a multi-selector study's "Selectors compared") and the
page comparing studies (:func:`studies_sections`). Tables show measures by their papers'
symbols; texts cite the papers by name (a page ends with their references:
:func:`paretostab.report._html.references`).
"""

from __future__ import annotations

import math

import pandas as pd

from paretostab._vocabulary import KBAR
from paretostab._weight import weight_name
from paretostab.measures import measure_label
from paretostab.report._analysis import StudiesComparison, StudyReport
from paretostab.report._compare import NO_INTERVAL, OVERLAP, Comparison, GroupFront, pair_level
from paretostab.report._confidence import DominanceAreaInterval, hotelling_radius2
from paretostab.report._estimates import with_flags
from paretostab.report._figures import ComparisonFigures, StudyFigures
from paretostab.report._html import Section, references

__all__ = ["comparison_sections", "metric_words", "shown", "studies_sections", "study_sections"]


def shown(frame: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """``frame`` with measure columns named by their symbols (and ``kbar`` as k̄), for
    the page; its ``accuracy`` column, which holds a study's protocol ``metric``, named
    by it ("balanced accuracy")."""
    return frame.rename(columns={c: "k̄" if c == KBAR else metric_words(metric)
                                 if c == "accuracy" else measure_label(c)
                                 for c in frame.columns})


def metric_words(metric: str) -> str:
    """A protocol metric as the page says it: ``balanced_accuracy`` as "balanced
    accuracy"."""
    return metric.replace("_", " ")


def _interval_text(interval: DominanceAreaInterval | None) -> str:
    if interval is None:
        return "not computed (no replicates)"
    return f"[{interval.low:.4f}, {interval.high:.4f}]"


#: The replicates the note on wide regions compares with: from about this many, Hotelling's
#: 95% region reaches well within one standard deviation of the replicates (0.61).
_NARROWING_REPLICATES = 20

#: From how many standard deviations of its replicates a region's reach is said to be wide
#: for want of replicates: two, B ≤ 5 at 95% (2.26; B = 10, the quickstart's, reaches 1.00,
#: a region no wider than the replicates' own spread, and its interval is not wide).
_WIDE_REACH = 2.0


def _few_replicates(front: GroupFront) -> str:
    """Why the front's regions and DA interval are wide, when they are for want of
    replicates (at B = 3 the interval is [0, 1] and the regions cover the figure):
    each region reaches ``sqrt(radius2)`` standard deviations of its trial's replicates
    from their mean along each axis (:func:`hotelling_radius2`: 16.3 at B = 3, 2.26 at
    B = 5, 1.0 at B = 10, 0.61 at B = 20 for 95%); "" when that is at most
    :data:`_WIDE_REACH` (B ≥ 6 at 95%)."""
    if not front.regions:
        return ""
    widest = max(front.regions, key=lambda r: r.radius2)  # the fewest replicates
    reach = math.sqrt(widest.radius2)
    if reach <= _WIDE_REACH:
        return ""
    text = (f"wide because B = {widest.replicates} replicates are few: each region reaches "
            f"{reach:.3g} standard deviations of its trial's replicates from their mean "
            "along each axis")
    if widest.replicates < _NARROWING_REPLICATES:
        narrow = math.sqrt(hotelling_radius2(_NARROWING_REPLICATES, widest.level))
        text += f", {narrow:.2g} with B = {_NARROWING_REPLICATES}"
    return text


# --------------------------------------------------------------------------- one study


def study_sections(report: StudyReport, figures: StudyFigures) -> list[Section]:
    """The sections of a study's page: summary, front, chosen trade-off, γ table, fronts
    under each measure, maps, the selectors compared (a multi-selector study) and the
    references.

    Parameters
    ----------
    report : StudyReport
        What the page says (the ``analysis`` of :func:`~paretostab.report.analysed_study`).
    figures : StudyFigures
        The figures drawn from it.
    """
    objective, front = report.objective, report.front
    interval, simultaneous = front.interval, front.simultaneous_interval
    number = report.chosen_trial
    weight = weight_name(report.weight)
    metric = metric_words(report.metric)
    text = (f"{_chance_headline(report)}Objectives: out-of-bag {metric} and "
            f"{measure_label(objective)}, both maximised, computed on {report.data}; "
            f"{len(report.table)} completed trials, {len(front.trials)} on the Pareto "
            f"front. Dominance area ({weight} weight): "
            f"{front.dominance_area:.4f} for the trials' values")
    few = _few_replicates(front)
    if interval is not None:
        text += (f", {interval.estimate:.4f} for the means of {report.replicates} "
                 f"replicates per front trial, with {report.level:.0%} interval "
                 f"{_interval_text(interval)}{f' ({few})' if few else ''} and simultaneous "
                 f"(Bonferroni over the front trials) interval {_interval_text(simultaneous)}")
    text += "."
    optimism = report.optimism
    if optimism is not None:
        text += (" The front trials' own values minus the means of their replicates are, "
                 f"on average, {optimism['accuracy']:+.4f} {metric} and "
                 f"{optimism[objective]:+.4f} {measure_label(objective)}; a positive "
                 "difference is the front's optimism, as its trials were selected for being "
                 "good on their own resamples (the dotted segments in the figure join each "
                 "trial to its replicates' mean).")
    text += f" γ = {report.gamma:g} chooses trial {number} (see the chosen trade-off)."
    gamma_frame = report.gamma_frame()
    front_table = shown(with_flags(report.front_table, report.flags), report.metric)
    sections = [
        Section("Summary", text=[text, *_honesty_paragraphs(report)]),
        Section("Pareto front", figure=figures.front, figure_links=figures.front_links,
                table=front_table, links=("trial", "#trial-{}"),
                highlight=[i for i, t in enumerate(report.front_table["trial"])
                           if t == number],
                caption="The front and the γ choice, zoomed to them and to the replicate "
                        "means (the overview beside shows every trial on the whole unit "
                        "square, the zoomed part framed; the title says what lies outside "
                        "the frame); the front as a staircase over the shaded dominated "
                        "area, its trials numbered (a click on one, or on its number in the "
                        "table, opens its map); under them the Hotelling confidence regions "
                        f"of the front trials' expected ({metric}, stability), centred on "
                        "the replicate means, each joined to its trial, with the front of "
                        "the means dashed (Hamer & Dupont 2019, §3) — a region larger than "
                        "half the frame is a faint outline"
                        + (f", and the regions are {few}" if few else "")
                        + "; the γ choice circled and highlighted in the table."),
        *_chosen_sections(report),
        *_stable_set_sections(report, figures),
        Section("Trade-off by γ", table=shown(gamma_frame, report.metric),
                links=("trial", "#trial-{}"),
                highlight=[i for i, t in enumerate(gamma_frame["trial"]) if t == number],
                text=f"Each convex-hull vertex of the front maximises γ·{metric} + (1 − γ)·"
                     f"{measure_label(objective)} for the γ interval shown (Hamer & Dupont, "
                     "JMLR 2021, §7.1); the willingness γ/(1 − γ) is the stability given up "
                     f"per point of {metric} at the segment ends (unbounded, ∞, for the "
                     "γ interval reaching 1: null in summary.json). The row of γ = "
                     f"{report.gamma:g} is highlighted."),
        Section("Fronts under each measure", figure=figures.fronts,
                caption="The same trials, their fronts under each measure (as in Hamer & "
                        f"Dupont, JMLR 2021, Fig. 11); trial {number}, the γ = "
                        f"{report.gamma:g} choice, circled in each."),
        _maps_section(report, figures),
        *_estimate_sections(report),
    ]
    if report.selectors is not None and figures.selectors is not None:
        sections.append(_selectors_section(report, report.selectors, figures.selectors))
    return [*sections, references(sections)]


def _chance_headline(report: StudyReport) -> str:
    """The summary's first words for a study at chance level (a study of
    permuted labels kept a non-zero headline dominance area), else ""."""
    if not report.at_chance or report.flags is None:
        return ""
    flagged, trials = len(report.flags.flagged_trials), len(report.table)
    which = (f"all {trials} trials are flagged" if flagged == trials else
             f"{flagged} of {trials} trials are flagged and the others dominate no area")
    return (f"At chance level: {which} (see the chance level below), so the dominance "
            "area above chance is 0; the values that follow are those of flagged trials. ")


def _honesty_paragraphs(report: StudyReport) -> list[str]:
    """What the summary says of chance-level trials, the held-out part and the outer
    folds: no estimate without the data it was computed on."""
    paragraphs = []
    flags, metric = report.flags, metric_words(report.metric)
    if flags is not None:
        flagged = [n for n in report.front.trials if flags.flagged(n)]
        below = [n for n in flags.flagged_trials if flags.below_chance(n)]
        label_free = [n for n in flags.flagged_trials if flags.ignores_labels(n)]
        text = (f"Chance level: a prediction that ignores the features scores {metric} "
                f"{flags.no_information:.3f} on these data. {len(flags.flagged_trials)} of "
                f"{len(report.table)} trials are flagged: {len(below)} no better than "
                f"chance (their {metric} does not exceed it by a one-sided test at level "
                f"{flags.level:g}), and {len(label_free)} whose selection ignores the "
                "labels (the same features on the labels and on two permutations of them; "
                "probed for the trials γ could choose: those on the front, and on the front "
                "of the unflagged trials)")
        if label_free:
            text += (f": these may score a high {metric}, but their stability is not "
                     "evidence of signal")
        if flagged:
            text += (f"; {len(flagged)} of them on the front (trials "
                     f"{', '.join(str(n) for n in flagged)}; see the flag column)")
        area = report.eligible_dominance_area
        text += (f". Dominance area with them {report.front.dominance_area:.4f}, without "
                 f"them {area:.4f}. ")
        text += ("γ chose among every trial (--allow-chance)." if report.allow_chance else
                 "γ chooses among the trials not flagged (--allow-chance to include them).")
        paragraphs.append(text)
    held = report.held_out
    if held is not None:
        table = held.table
        paragraphs.append(
            f"Held-out data ({held.description}, {held.n_test} examples no part of the search "
            f"saw): the front's settings, refitted on the {held.n_development} development "
            f"examples, score {metric} {table['held-out'].mean():.4f} on average on them, "
            f"against {table['out-of-bag'].mean():.4f} out of bag: {held.retained:.0%} of "
            f"the front's {metric} survives (see the held-out evaluation).")
    nested = report.nested
    if nested is not None:
        tuned = len(nested.folds)
        text = (f"Nested evaluation ({nested.outer_folds} outer folds, {tuned} tuned): the "
                f"whole procedure — tune, choose by γ = {report.gamma:g}, refit — scores "
                f"{metric} {nested.mean:.4f} on the outer folds' test parts")
        if tuned > 1:
            text += f" (standard deviation {nested.spread:.4f})"
        text += " (see the nested evaluation)."
        if nested.missing:
            text += (f" Outer folds {', '.join(str(k) for k in nested.missing)} have no "
                     "completed trial yet: run tune with the same spec.")
        paragraphs.append(text)
    return paragraphs


#: The held-out intervals of each metric as the page names them
#: (:func:`~paretostab.evaluation.score_interval`).
INTERVAL_WORDS = {
    "accuracy": "Wilson score intervals",
    "balanced_accuracy": "Wilson score intervals at the classes' effective sample size "
                         "(Kish)",
    "f1_macro": "intervals of each class's F1 from the Wilson interval of its Jaccard "
                "index, averaged",
    "roc_auc": "Newcombe score intervals (one-vs-rest ends averaged with more than two "
               "classes)",
}


def _estimate_sections(report: StudyReport) -> list[Section]:
    """The held-out and nested evaluations, when the study has them."""
    sections = []
    metric = metric_words(report.metric)
    held = report.held_out
    if held is not None:
        method = INTERVAL_WORDS[report.metric]
        sections.append(Section(
            "Held-out evaluation", anchors=["held-out"], table=held.table,
            links=("trial", "#trial-{}"),
            text=f"Each front trial's setting refitted on the whole development part "
                 f"({held.n_development} examples) and scored on the held-out part "
                 f"({held.description}, {held.n_test} examples, stratified, drawn before "
                 f"tuning and never seen by it), with {report.level:.0%} {method}; beside "
                 f"its out-of-bag {metric} (the value the search optimised) and the mean of "
                 "its replicates (fresh resamples of the development part).",
            caption=f"{metric.capitalize()} of the front trials: out of bag, replicate mean, "
                    "held out."))
    nested = report.nested
    if nested is not None:
        stability = nested.stability
        text = (f"In each of {nested.outer_folds} stratified outer folds the procedure ran "
                f"on the fold's training part alone: a study of its own (same spec, same "
                f"number of trials), γ = {report.gamma:g} choosing among its trials not "
                "flagged, the chosen setting refitted on the training part and scored on "
                f"the fold's test part. {metric.capitalize()} over the outer folds: mean "
                f"{nested.mean:.4f}, standard deviation {nested.spread:.4f}. The "
                f"{len(nested.folds)} chosen selections: φ = {stability['nogueira']:.4f}, "
                f"φ_iw = {stability['iw']:.4f} (the stability of the whole procedure's "
                "choice across folds).")
        subsections = (Section("Features chosen across outer folds",
                               table=nested.frequencies.head(50),
                               caption="How many outer folds' chosen selections hold each "
                                       "feature (the 50 most frequent)."),)
        sections.append(Section("Nested evaluation", anchors=["nested"], text=text,
                                 table=nested.folds,
                                 caption="Each outer fold: its study, trials, chosen trial, "
                                         f"its out-of-bag {metric} and its {metric} on the "
                                         f"fold's test part with its {report.level:.0%} "
                                         f"interval ({INTERVAL_WORDS[report.metric]}).",
                                 subsections=subsections))
    return sections


#: The rows of a stable set's table on the page (stable_set.csv holds every feature).
STABLE_SET_ROWS = 50
#: A stable set's table columns as the page says them.
STABLE_SET_COLUMNS = {"decoy_frequency": "decoy's frequency",
                      "importance": "importance (whole-data fit)", "in_set": "in the set"}
#: The PFER bounds of a stable set (:attr:`~paretostab.stable_set.StableSet.bounds`) as
#: the page names them.
BOUND_WORDS = {"mb": "Meinshausen–Bühlmann bound", "cpss": "Shah–Samworth, worst case",
               "unimodal": "Shah–Samworth, unimodal", "r-concave": "Shah–Samworth, r-concave"}


def _stable_set_sections(report: StudyReport, figures: StudyFigures) -> list[Section]:
    """One section per stable set of the chosen trial: what it controls, under which
    assumption, its stability path and its features."""
    sections = []
    number = report.chosen_trial
    for found, figure in zip(report.stable_sets, figures.stable_sets, strict=True):
        what = ("expected number of false positives (PFER)" if found.control == "pfer"
                else "false discovery proportion estimated over decoys (FDP⁺)")
        text = [f"Trial {number}'s {found.runs} runs ({found.resampling.replace('_', ' ')}) "
                f"select {found.q:.3g} features each on average, of {found.frequencies.size}. "
                + found.summary, found.guarantee]
        table = found.to_frame()
        shown_rows = (table[(table["frequency"] > 0) | table["in_set"]]
                      .head(STABLE_SET_ROWS).reset_index(drop=True)
                      .rename(columns=STABLE_SET_COLUMNS))
        size = len(found.features)
        at = "" if found.threshold is None else f" at π = {found.threshold:.3g}"
        sections.append(Section(
            f"Stable set: {found.control.upper()} ≤ {found.target:g} "
            f"({size} feature{'' if size == 1 else 's'})",
            anchors=[f"stable-set-{found.control}"], text=text,
            fields={f"{BOUND_WORDS[name]}{at}": value
                    for name, value in found.bounds.items()} or None,
            figure=figure, table=shown_rows,
            caption=f"Left: how many features reach each selection frequency π over the "
                    f"runs{', the decoys in grey' if found.control == 'fdp' else ''}; right: "
                    f"the {what} at each π against the target (dashed), the threshold "
                    "chosen a vertical line. The table: the features selected in some run "
                    f"(at most {STABLE_SET_ROWS}; stable_set.csv holds every feature), by "
                    "decreasing frequency, with the importance of the selector fitted once on "
                    "the whole data."))
    return sections


def _chosen_sections(report: StudyReport) -> list[Section]:
    trade_off, objective = report.trade_off, report.objective
    number, level = trade_off.trial, trade_off.level
    values = pd.DataFrame(list(trade_off.values))
    values["objective"] = [metric_words(report.metric) if n == "accuracy" else measure_label(n)
                           for n in values["objective"]]
    values = values.rename(columns={
        "objective": "", "trial": f"trial {number}",
        "replicate mean": f"mean of {trade_off.replicates} replicates",
        "interval low": f"{level:.0%} interval from", "interval high": "to"})
    text = (f"γ = {trade_off.gamma:g} chooses trial {number}: of {report.chosen_from}, it "
            f"maximises {trade_off.gamma:g} · {metric_words(report.metric)} + "
            f"{1 - trade_off.gamma:g} · "
            f"{measure_label(objective)} (Hamer & Dupont, JMLR 2021, §7.1).")
    if trade_off.replicates:
        text += (" Its values are those of its own resamples; the replicates re-run its "
                 "protocol on fresh resamples, and their mean, with a t interval, is what to "
                 "expect of this setting.")
    held = report.held_out
    if held is not None:
        score = held.scores[number]
        text += (f" Refitted on the whole development part and scored on the "
                 f"{score.n} held-out examples ({held.description}): "
                 f"{metric_words(report.metric)} {score.value:.4f}, {level:.0%} interval "
                 f"[{score.low:.4f}, {score.high:.4f}].")
    if report.flags is not None and report.flags.flagged(number):
        text += (f" This trial is flagged ({report.flags.reason(number)}): γ chose it because "
                 "--allow-chance was given or every trial is flagged.")
    sections = [Section("Chosen trade-off", text=text, anchors=["chosen"],
                        fields={**trade_off.params, "k̄ (mean selected)":
                                trade_off.mean_selected},
                        table=values.set_index(""),
                        caption=f"Trial {number}'s own values, and the mean of its replicates "
                                f"with its {level:.0%} interval.")]
    features = trade_off.selected_features
    if features is not None and not features.empty:
        sections.append(Section(
            f"Features selected on the whole data ({len(features)})",
            table=features[["feature", "importance"]].rename(
                columns={"importance": "importance in the final model"}),
            caption=f"Trial {number}'s selector with its parameters, fitted once on all "
                    "samples (pre-filtered as the spec says): what to use for new data; by "
                    "decreasing importance."))
    return sections


def _maps_section(report: StudyReport, figures: StudyFigures) -> Section:
    groups, n_front = report.stability_maps.groups, len(report.front.trials)
    distinct = (f"{len(groups)} distinct pictures" if len(groups) < n_front
                else "every one distinct")
    return Section(
        "Feature stability maps of the front",
        text=f"The {n_front} front trials' maps ({distinct}): first which "
             "features each trial keeps, then the maps as small multiples, one per picture "
             "titled with the trials it stands for (maps within 1 % of each other count as "
             "one). In a map, one row per run; rectangle widths are the importances; "
             "features by decreasing selection frequency; one colour per feature in the "
             "whole study, the same as on the dashboard's maps: the 20 features of largest "
             "ANOVA F on the data the study tunes on, fixed when it was created, each have "
             "their own, the others are light grey (Hamer & Dupont, JMLR 2021, §3).",
        figure=figures.overview,
        caption="Selection frequency p_f of the most selected features (rows) in each front "
                f"trial's runs (columns); trial {report.chosen_trial}, the γ = "
                f"{report.gamma:g} choice, outlined.",
        subsections=(Section(
            "The maps, one per picture", figure=figures.maps,
            anchors=[f"trial-{n}" for group in groups for n in group],
            caption="Each panel: one row per run (run 0 at the top), the importances of its "
                    "selected features side by side (rows sum to k̄); panels titled with the "
                    "trials whose maps they stand for."),))


def _selectors_section(report: StudyReport, selectors: Comparison,
                       figures: ComparisonFigures) -> Section:
    n_replicates, groups = report.replicates, report.selector_groups
    replicated = (f"each trial on a selector's front under some measure re-run B = "
                  f"{n_replicates} times on fresh resamples" if n_replicates else
                  "no replicates: dominance areas and differences without intervals")
    return Section(
        "Selectors compared",
        text=f"The study's trials grouped by their selector ({len(groups)} selectors; "
             f"{replicated}), compared as python -m paretostab compare compares studies "
             "(also in selectors.csv and summary.json's \"selectors\").",
        subsections=tuple(comparison_sections(selectors, figures, noun="selector",
                                              plural="selectors")))


# --------------------------------------------------------------------------- groups


def _interval_cell(interval: DominanceAreaInterval | None) -> tuple[float, float] | None:
    return None if interval is None else (interval.low, interval.high)


def _estimate(interval: DominanceAreaInterval | None) -> float | None:
    return None if interval is None else interval.estimate


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
    return pd.DataFrame([{
        "measure": measure_label(d.measure), "A": d.first, "B": d.second,
        "DA(A) − DA(B)": d.dominance_area, "of the replicate means": d.estimate,
        f"{d.level:.0%} interval": None if d.low is None else (d.low, d.high),
        "verdict": d.verdict} for d in comparison.differences])


def _combined_table(comparison: Comparison, noun: str) -> pd.DataFrame:
    frames = [c.table.drop(columns="label").assign(**{"front under": measure_label(m)})
              for m, c in comparison.combined.items()]
    table = pd.concat(frames, ignore_index=True)
    table = table[["front under", *[c for c in table.columns if c != "front under"]]]
    if "selector" in table and (table["selector"] == table["group"]).all():
        table = table.drop(columns="selector")  # the groups are the selectors
    return shown(table.rename(columns={"group": noun}))


def _table3_page(comparison: Comparison, noun: str, plural: str) -> pd.DataFrame:
    """000 Table 3 as the paper prints it: ranges as "low–high", fronts as yes / no and,
    on the last row, the groups (``plural``) on each combined front."""
    def span(row, name):
        return f"{row[f'{name} min']:.3g} – {row[f'{name} max']:.3g}"

    rows = []
    for group, row in comparison.table3.iterrows():
        entry = {noun: f"all {plural}" if group == "all" else group,
                 "trials": int(row["trials"])}
        for measure in comparison.measures:
            entry[f"range {measure_label(measure)}"] = span(row, measure)
            entry[f"Pareto front {measure_label(measure)}"] = row[f"{measure} front"]
        entry["range accuracy"] = span(row, "accuracy")
        rows.append(entry)
    return pd.DataFrame(rows)


def comparison_sections(comparison: Comparison, figures: ComparisonFigures, *,
                        noun: str = "study", plural: str = "studies") -> list[Section]:
    """The page sections of a comparison of groups — studies (``compare``) or the
    selectors of one study (``report``, ``noun="selector"``): their fronts and dominance
    areas under each measure, the pairwise differences, the combined front and Table 3
    (Hamer & Dupont, ECML 2021)."""
    level = f"{comparison.level:.0%}"
    pair = f"{pair_level(comparison.level):.1%}"
    measures = ", ".join(measure_label(m) for m in comparison.measures)
    per_measure = [Section(
        f"Under {measure_label(m)}", table=_fronts_table(comparison, m, noun),
        caption=f"Each {noun}'s front under {measure_label(m)} (its trials by increasing "
                f"accuracy), the dominance area of its trials' values and of the means of "
                f"their replicates, with the interval of Hamer & Dupont 2019, §3 (the DAs "
                f"of the fronts of the {level} Hotelling regions' most dominated and most "
                "dominant points) and the simultaneous one (regions holding every front "
                f"point together at {level}).") for m in comparison.measures]
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
        Section("Fronts and dominance areas", figure=figures.fronts,
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
        Section("Combined front", figure=figures.combined,
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


# --------------------------------------------------------------------------- studies


def studies_sections(compared: StudiesComparison, figures: ComparisonFigures
                     ) -> list[Section]:
    """The sections of the page comparing studies: a summary of the studies, the
    comparison's sections and the references."""
    comparison, studies = compared.comparison, compared.studies
    weight = weight_name(compared.weight)
    level = f"{comparison.level:.0%}"
    measures = ", ".join(measure_label(m) for m in comparison.measures)
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
        "objective": measure_label(s["objective"]), "B": s["replicates"]} for s in studies])
    if (overview["study"] == overview["study name"]).all():
        overview = overview.drop(columns="study name")
    sections = [
        Section("Summary", text=text, table=overview,
                caption="The studies: where they are stored, their completed trials, "
                        "selectors, objectives and replicates per front trial."),
        *comparison_sections(comparison, figures),
    ]
    return [*sections, references(sections)]
