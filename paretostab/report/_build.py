"""The report's entry points, each a one-way pipeline: read → analyse → draw → write.

- :func:`build_report`: a study's report (``index.html``, ``front.csv``,
  ``summary.json``, and ``selectors.csv`` for a multi-selector study);
- :func:`build_comparison`: studies compared (``index.html``, ``comparison.csv``,
  ``comparison.json``);
- :func:`choose_trial`: the trial γ chooses, with its parameters and the features its
  selector keeps on the whole data (:class:`~paretostab.Choice`).

:mod:`~paretostab.report._load` reads each study once (frozen
:class:`~paretostab.report._study_data.StudyData`); :mod:`~paretostab.report._analysis` and
:mod:`~paretostab.report._estimates` compute from it (the refits through
:class:`~paretostab.report._refits.Refits`); :mod:`~paretostab.report._figures` and
:mod:`~paretostab.report._pages` draw what they return; :mod:`~paretostab.report._write`
writes the files, the study's dashboard note and the refits — each refit as soon as it is
computed, so that the next report reuses what an interrupted or killed one computed.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paretostab._choice import Choice, TrialRuns
from paretostab._errors import InvalidInputError
from paretostab._storage import DEFAULT_STORAGE, display_url, open_storage
from paretostab._weight import as_weight
from paretostab.front import as_gamma
from paretostab.measures import measure_name
from paretostab.report._analysis import (
    StudyReport,
    analyse_studies,
    analyse_study,
    check_replicates,
    default_measures,
    study_measures,
    with_maps,
)
from paretostab.report._compare import Comparison
from paretostab.report._confidence import as_level
from paretostab.report._estimates import chance_flags, eligible_choice
from paretostab.report._figures import StudyFigures, comparison_figures, study_figures
from paretostab.report._load import StudySource, open_source, read_runsets, read_study
from paretostab.report._refits import Refits
from paretostab.report._stable_sets import trial_runs, with_stable_sets
from paretostab.report._study_data import StudyData, no_completed_trial
from paretostab.report._write import (
    note_front,
    write_comparison,
    write_refit,
    write_study_report,
)
from paretostab.stable_set import check_controls

if TYPE_CHECKING:
    import optuna
    import pandas as pd

__all__ = ["StudyReportResult", "analysed_study", "build_comparison", "build_report",
           "choose_trial", "save_study_report"]


def _refits(study: StudyData, source: StudySource) -> Refits:
    """The refits of ``study``, each stored in its study of ``source``'s storage by the
    writer as soon as it is computed: the next report reuses what an interrupted or killed
    one computed."""
    return Refits(study, functools.partial(write_refit, source.storage))


def build_report(storage_url: str, *, study_name: str | None = None,
                 measures: Sequence[str] | None = None, replicates: int | None = None,
                 weight: object = None, gamma: float = 0.5, level: float = 0.95,
                 out: str | Path = "report", artifacts: str | None = None,
                 progress: bool | None = None, data: object = None,
                 allow_chance: bool = False, pfer: float | None = 1.0,
                 fdp: float | None = None, assumption: str | None = None) -> Path:
    """Write the report of a study to ``out``: ``index.html``, ``front.csv``,
    ``summary.json`` (and ``selectors.csv`` for a multi-selector study); returns the
    folder.

    ``measures``: the stability measures whose fronts are shown (default: the objective
    and every recorded measure); the front, the dominance area and its confidence interval
    are those of the study's objective. ``replicates``: B re-runs of each front trial for
    the Hotelling regions (default: the spec's ``protocol.replicates``; 0 skips them).
    ``weight``: ``"uniform"``, ``"accuracy:A"``, ``"stability:A"`` or any form of
    :func:`paretostab._weight.as_weight`. ``gamma``: the trade-off γ ∈ [0, 1] (003 §7.1)
    whose choice every figure and table marks and the "chosen trade-off" section details
    (its parameters, values, replicate means with intervals and the features its selector
    selects on the whole data). ``data``: the data of a study tuned on data given in
    memory (``tune(spec, data=…)``), as ``tune`` took them (checked against the hash the
    study stored).

    Trials whose metric does not exceed the no-information value (a one-sided test at
    ``level``) or whose selection ignores the labels are flagged, and γ passes them over
    unless ``allow_chance``; the dominance area is given with and without them. A study
    that holds examples out (``[protocol] holdout``) has each front trial refitted on the
    development part and scored on them; one with ``outer_folds`` gets its outer folds'
    metric and the stability of their chosen selections.

    ``pfer``, ``fdp``, ``assumption``: the chosen trial's stable sets shown
    (:func:`paretostab.stable_set.stable_set`; None: not that one).
    """
    result = analysed_study(
        storage_url, study_name=study_name, measures=measures, replicates=replicates,
        weight=weight, gamma=gamma, level=level, artifacts=artifacts, progress=progress,
        data=data, allow_chance=allow_chance, pfer=pfer, fdp=fdp, assumption=assumption)
    return save_study_report(result, out)


@dataclass(frozen=True, eq=False)
class StudyReportResult:
    """A study's report computed and drawn (:func:`analysed_study`), not yet written.

    Attributes
    ----------
    source : StudySource
        Where the study was read from (where :func:`save_study_report` writes its
        dashboard note).
    study : StudyData
        The study as read.
    analysis : StudyReport
    figures : StudyFigures
    """

    source: StudySource
    study: StudyData
    analysis: StudyReport
    figures: StudyFigures

    def __repr__(self) -> str:
        """The analysis's, not the study's data and figures."""
        return f"StudyReportResult({self.analysis!r})"


def analysed_study(storage_url: str, *, study_name: str | None = None,
                   measures: Sequence[str] | None = None, replicates: int | None = None,
                   weight: object = None, gamma: float = 0.5, level: float = 0.95,
                   artifacts: str | None = None, progress: bool | None = None,
                   data: object = None, allow_chance: bool = False,
                   pfer: float | None = 1.0, fdp: float | None = None,
                   assumption: str | None = None,
                   storage: optuna.storages.BaseStorage | None = None,
                   trusted: bool | Collection[str] = ()) -> StudyReportResult:
    """A study's report computed and drawn, not yet written (:func:`save_study_report`
    writes it). The refits it computed are written into the study.

    Parameters
    ----------
    storage_url : str
        The storage holding the study: :func:`paretostab.study_report`'s ``study`` as a
        URL.
    study_name, measures, replicates, weight, gamma, level, artifacts, progress, data
        As :func:`paretostab.study_report`'s.
    allow_chance, pfer, fdp, assumption
        As :func:`paretostab.study_report`'s.
    storage : optuna storage, optional
        The storage at ``storage_url`` already opened, as a tuned study holds it (default:
        opened here).
    trusted : bool or collection of str
        The stored ``"module:Class"`` selectors that may be imported
        (:func:`~paretostab.report._load.check_stored_code`; default: none but those of
        registered packages).
    """
    as_gamma(gamma)
    as_level(level)
    check_replicates(replicates)
    weight = as_weight(weight)
    check_controls(pfer=pfer, fdp=fdp, assumption=assumption)
    source = open_source(storage_url, study_name, artifacts=artifacts, data=data,
                         storage=storage, trusted=trusted)
    source.store  # noqa: B018 - a wrong artifact store fails now, not after the replicates
    names = study_measures(source.objective, source.recorded, measures)
    study = read_study(source, names, outer_folds=True)
    refits = _refits(study, source)
    report = analyse_study(study, refits, measures=names,
                           replicates=replicates, weight=weight, gamma=gamma, level=level,
                           progress=progress, allow_chance=allow_chance)
    runsets = read_runsets(source, report.mapped_trials)
    report = with_maps(report, runsets, study)
    number = report.chosen_trial
    runs = trial_runs(study, refits, number, runsets[number],
                      report.trade_off.selected_features)
    report = with_stable_sets(report, runs, pfer=pfer, fdp=fdp, assumption=assumption)
    return StudyReportResult(source, study, report, study_figures(report))


def save_study_report(result: StudyReportResult, out: str | Path) -> Path:
    """Write a computed report to ``out`` (:func:`~paretostab.report._write.
    write_study_report`) and give the study's dashboard note the front as of now; returns
    ``out``.

    Parameters
    ----------
    result : StudyReportResult
        What :func:`analysed_study` computed.
    out : str or Path
        The report's folder (``index.html``, ``front.csv``, ``summary.json``), created if
        missing.
    """
    analysis = result.analysis
    folder = write_study_report(analysis, result.figures, out)
    note_front(result.source.storage, analysis.study, result.study.spec,
               analysis.front_table)
    return folder


def choose_trial(storage_url: str, gamma: float, *, study_name: str | None = None,
                 measure: str | None = None, artifacts: str | None = None,
                 data: object = None, level: float = 0.95, allow_chance: bool = False,
                 storage: optuna.storages.BaseStorage | None = None,
                 trusted: bool | Collection[str] = ()) -> Choice:
    """The front trial maximising γA + (1−γ)φ (003 §7.1) under the study's objective (or
    ``measure``), its parameters, and the features its selector selects when fitted on the
    whole data set (``data``: those of a study tuned on data given in memory; the
    development part of a study that holds examples out, whose held-out score is then
    given with its ``level`` interval). The study is read once.

    The front is that of the trials not flagged at chance level (a one-sided test at
    ``level`` against the no-information value, or a selection that ignores the labels:
    :func:`~paretostab.report._estimates.chance_flags`), of every trial with
    ``allow_chance``; :attr:`~paretostab.Choice.flagged` lists the flagged
    trials with the reason.

    Parameters
    ----------
    storage_url : str
        The storage holding the study: :func:`paretostab.choose`'s ``study`` as a URL.
    gamma, study_name, measure, artifacts, data, level, allow_chance
        As :func:`paretostab.choose`'s.
    storage : optuna storage, optional
        The storage at ``storage_url`` already opened (default: opened here).
    trusted : bool or collection of str
        As :func:`analysed_study`'s.
    """
    as_gamma(gamma)
    as_level(level)
    source = open_source(storage_url, study_name, artifacts=artifacts, data=data,
                         storage=storage, trusted=trusted)
    objective = measure_name(measure) if measure else source.objective
    study = read_study(source, [objective])
    table = study.table
    if table.empty:
        raise no_completed_trial(study.name)
    refits = _refits(study, source)
    flags = (chance_flags(study, refits, table, objective, level=level)
             if study.has_spec else None)
    row = table.iloc[eligible_choice(table, objective, gamma,
                                     None if allow_chance else flags)]
    number = int(row["trial"])
    features: tuple[str, ...] = ()
    held_out = None
    selection = None
    if study.has_spec:
        selection = refits.whole_data_selection(number)
        features = tuple(selection["feature"])
        split = study.problem.split
        if split is not None:
            held_out = {"data": split.description,
                        **refits.held_out_score(number, level).to_dict()}
    return Choice(trial=number, gamma=gamma,
                  values={"accuracy": float(row["accuracy"]),
                          objective: float(row[objective])},
                  params=dict(study.params[number]), features=features, held_out=held_out,
                  flagged=({} if flags is None else
                           {int(n): flags.reason(n) for n in flags.flagged_trials}),
                  metric=study.spec.protocol.metric if study.spec is not None else "accuracy",
                  read_runs=functools.partial(_chosen_runs, study, refits, source, number,
                                              selection),
                  study=study.name,
                  fit_model=(functools.partial(study.problem.final_model, study.params[number])
                             if study.has_spec else None))


def _chosen_runs(study: StudyData, refits: Refits, source: StudySource, number: int,
                 selection: pd.DataFrame | None) -> TrialRuns | None:
    """What the chosen trial's stable set is computed from; None when its RunSet is not in
    the artifact store (the choice stands without it)."""
    try:
        runsets = read_runsets(source, [number])
    except InvalidInputError:
        return None
    return trial_runs(study, refits, number, runsets[number], selection)


# --------------------------------------------------------------------------- studies


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


def _sources(studies: list[str], urls: list[str], stores: list,
             trusted: bool | Collection[str]) -> list[StudySource]:
    """The studies, each storage opened once."""
    opened = {url: open_storage(url, must_exist=True) for url in dict.fromkeys(urls)}
    return [open_source(url, name, artifacts=store, storage=opened[url], trusted=trusted)
            for name, url, store in zip(studies, urls, stores, strict=True)]


def build_comparison(studies: Sequence[str], storages: Sequence[str] | None = None, *,
                     measures: Sequence[str] | None = None, replicates: int | None = None,
                     weight: object = None, level: float = 0.95,
                     out: str | Path = "comparison", artifacts: Sequence[str] | None = None,
                     progress: bool | None = None, trusted: bool | Collection[str] = ()
                     ) -> tuple[Path, Comparison]:
    """Compare tuned studies (000 §6.2 Fig. 6, Table 3; 002 §3) and write ``out``:
    ``index.html``, ``comparison.csv`` (one row per study × measure) and
    ``comparison.json`` (everything); returns the folder and the
    :class:`~paretostab.report.Comparison`.

    Parameters
    ----------
    studies, storages, measures, replicates, weight, level, out, artifacts, progress
        As :func:`paretostab.compare`'s.
    trusted : bool or collection of str
        As :func:`analysed_study`'s.
    """
    studies = list(studies)
    if len(studies) < 2:
        raise InvalidInputError(f"compare needs at least two studies; got {len(studies)}"
                                f"{': ' + studies[0] if studies else ''}.")
    urls = _per_study(storages, len(studies), "--storage", DEFAULT_STORAGE)
    stores = _per_study(artifacts, len(studies), "--artifacts", None)
    keys = [(_storage_key(url), name) for name, url in zip(studies, urls, strict=True)]
    for k, key in enumerate(keys):
        if key in keys[:k]:
            raise InvalidInputError(f"study {studies[k]!r} of {display_url(urls[k])} is given "
                                    "twice; compare distinct studies.")
    as_level(level)
    weight = as_weight(weight)
    check_replicates(replicates)
    sources = _sources(studies, urls, stores, trusted)
    names = list(dict.fromkeys(measure_name(m) for m in (measures or default_measures(
        [(s.objective, list(s.recorded)) for s in sources]))))
    read = [read_study(source, names) for source in sources]
    refits = [_refits(study, source) for study, source in zip(read, sources, strict=True)]
    compared = analyse_studies(list(zip(_group_names(studies), read, refits, strict=True)),
                               measures=names, replicates=replicates, weight=weight,
                               level=level, progress=progress)
    figures = comparison_figures(compared.comparison, compared.groups, noun="study",
                                 plural="studies")
    return write_comparison(compared, figures, out), compared.comparison
