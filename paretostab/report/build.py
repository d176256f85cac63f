"""The report's entry points: read the studies, analyse them, draw, and write the pages.

- :func:`build_report`: a study's report (``index.html``, ``front.csv``,
  ``summary.json``, and ``selectors.csv`` for a multi-selector study);
- :func:`build_comparison`: studies compared (``index.html``, ``comparison.csv``,
  ``comparison.json``);
- :func:`choose_trial`: the front trial γ chooses, with its parameters and the features
  its selector keeps on the whole data.

Each is the same pipeline: :mod:`~paretostab.report.load` (Optuna → plain data) →
:mod:`~paretostab.report.analysis` (frozen analysis objects) →
:mod:`~paretostab.report.figures` → :mod:`~paretostab.report.pages` →
:mod:`~paretostab.report.html` (the page written).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from paretostab.errors import InvalidInputError, StoreError
from paretostab.front import as_gamma
from paretostab.measures import measure_name
from paretostab.report.analysis import (
    StudyReport,
    analyse_studies,
    analyse_study,
    check_replicates,
)
from paretostab.report.compare import Comparison, jsonable
from paretostab.report.confidence import as_level
from paretostab.report.estimates import chance_flags, eligible_choice
from paretostab.report.figures import StudyFigures, comparison_figures, study_figures
from paretostab.report.html import write_report
from paretostab.report.load import StudyReader, read_study
from paretostab.report.pages import studies_sections, study_sections
from paretostab.storage import DEFAULT_STORAGE, display_url, open_storage
from paretostab.weight import as_weight

__all__ = ["analysed_study", "build_comparison", "build_report", "choose_trial",
           "write_study_report", "written_folder"]


def build_report(storage_url: str, *, study_name: str | None = None,
                 measures: list[str] | None = None, replicates: int | None = None,
                 weight: object = None, gamma: float = 0.5, level: float = 0.95,
                 out: str | Path = "report", artifacts: str | None = None,
                 progress: bool | None = None, data: object = None,
                 allow_chance: bool = False) -> Path:
    """Write the report of a study to ``out``: ``index.html``, ``front.csv``,
    ``summary.json`` (and ``selectors.csv`` for a multi-selector study); returns the
    folder.

    ``measures``: the stability measures whose fronts are shown (default: the objective
    and every recorded measure); the front, the dominance area and its confidence interval
    are those of the study's objective. ``replicates``: B re-runs of each front trial for
    the Hotelling regions (default: the spec's ``protocol.replicates``; 0 skips them).
    ``weight``: ``"uniform"``, ``"accuracy:A"``, ``"stability:A"`` or any form of
    :func:`paretostab.weight.as_weight`. ``gamma``: the trade-off γ ∈ [0, 1] (003 §7.1)
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
    """
    reader, report, figures = analysed_study(
        storage_url, study_name=study_name, measures=measures, replicates=replicates,
        weight=weight, gamma=gamma, level=level, artifacts=artifacts, progress=progress,
        data=data, allow_chance=allow_chance)
    return write_study_report(reader, report, figures, out)


def analysed_study(storage_url: str, *, study_name: str | None = None,
                   measures: list[str] | None = None, replicates: int | None = None,
                   weight: object = None, gamma: float = 0.5, level: float = 0.95,
                   artifacts: str | None = None, progress: bool | None = None,
                   data: object = None, allow_chance: bool = False
                   ) -> tuple[StudyReader, StudyReport, StudyFigures]:
    """What :func:`build_report` writes, computed and drawn: the study's reader, its
    :class:`~paretostab.report.analysis.StudyReport` and its figures (the arguments are
    :func:`build_report`'s)."""
    as_gamma(gamma)
    as_level(level)
    weight = as_weight(weight)
    reader = read_study(storage_url, study_name, artifacts=artifacts, data=data)
    reader.store  # noqa: B018 - a wrong artifact store fails now, not after the replicates
    report = analyse_study(reader, measures=measures, replicates=replicates, weight=weight,
                           gamma=gamma, level=level, progress=progress,
                           allow_chance=allow_chance)
    return reader, report, study_figures(report)


def write_study_report(reader: StudyReader, report: StudyReport, figures: StudyFigures,
                       out: str | Path) -> Path:
    """Write ``report`` with its ``figures`` to ``out`` (``index.html``, ``front.csv``,
    ``summary.json``, ``selectors.csv`` for a multi-selector study), each file replaced
    whole or not at all (:func:`written_folder`), and give the study's dashboard note the
    front as of now; returns ``out``."""
    out = Path(out)
    with written_folder(out, "report") as folder:
        report.front_table.to_csv(folder / "front.csv", index=False)
        if report.selectors is not None:
            report.selectors.to_frame().to_csv(folder / "selectors.csv", index=False)
        _write_json(folder / "summary.json", report.to_dict())
        write_report(folder, title=f"paretostab report: {report.study}",
                     sections=study_sections(report, figures))
    reader.note_front(report.front_table, datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    return out


def choose_trial(storage_url: str, gamma: float, *, study_name: str | None = None,
                 measure: str | None = None, artifacts: str | None = None,
                 data: object = None, level: float = 0.95,
                 allow_chance: bool = False) -> dict:
    """The front trial maximising γA + (1−γ)φ (003 §7.1) under the study's objective (or
    ``measure``), its parameters, and the features its selector selects when fitted on the
    whole data set (``data``: those of a study tuned on data given in memory; the
    development part of a study that holds examples out, whose held-out score is then
    given with its ``level`` interval).

    The front is that of the trials not flagged at chance level (a one-sided test at
    ``level`` against the no-information value, or a selection that ignores the labels:
    :func:`~paretostab.report.estimates.chance_flags`), of every trial with
    ``allow_chance``; ``flagged`` lists the flagged trials with the reason."""
    as_gamma(gamma)
    as_level(level)
    reader = read_study(storage_url, study_name, artifacts=artifacts, data=data)
    objective = measure_name(measure) if measure else reader.objective
    table = reader.trial_table([objective])
    if table.empty:
        raise InvalidInputError(f"Study {reader.name!r} has no completed trial yet.")
    flags = (chance_flags(reader, table, objective, level=level) if reader.has_spec
             else None)
    row = table.iloc[eligible_choice(table, objective, gamma,
                                     None if allow_chance else flags)]
    trial = reader.trial(row["trial"])
    features: list[str] = []
    result = {"trial": trial.number, "gamma": gamma, "accuracy": float(row["accuracy"]),
              objective: float(row[objective]), "params": trial.params}
    if reader.has_spec:
        features = list(reader.problem.whole_data_selection(trial.params)["feature"])
        if reader.problem.split is not None:
            result["held_out"] = {"data": reader.problem.split.description,
                                  **reader.held_out_score(trial.number, level).to_dict()}
    result["selected_features"] = features
    result["flagged"] = ({} if flags is None else
                         {int(n): flags.reason(n) for n in flags.flagged_trials})
    return result


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


def _readers(studies: list[str], urls: list[str], stores: list) -> list[StudyReader]:
    """The studies, each storage opened once."""
    opened: dict[str, object] = {}
    readers = []
    for name, url, store in zip(studies, urls, stores, strict=True):
        if url not in opened:
            opened[url] = open_storage(url, must_exist=True)
        readers.append(read_study(url, name, artifacts=store, storage=opened[url]))
    return readers


def build_comparison(studies: Sequence[str], storages: Sequence[str] | None = None, *,
                     measures: Sequence[str] | None = None, replicates: int | None = None,
                     weight: object = None, level: float = 0.95,
                     out: str | Path = "comparison", artifacts: Sequence[str] | None = None,
                     progress: bool | None = None) -> tuple[Path, Comparison]:
    """Compare tuned studies (000 §6.2 Fig. 6, Table 3; 002 §3) and write ``out``:
    ``index.html``, ``comparison.csv`` (one row per study × measure) and
    ``comparison.json`` (everything); returns the folder and the
    :class:`~paretostab.report.compare.Comparison`.

    ``storages`` (and ``artifacts``, the artifact stores): none (the default storage), one
    for every study, or one per study in the studies' order. ``measures``: default every
    study's objective and the measures every study records (a measure a study did not
    record is recomputed from its trials' RunSets). ``replicates``: ``B`` re-runs of each
    trial on a study's front under some measure (default: each study's spec
    ``protocol.replicates``; 0: none), cached in the study as ``report`` caches them.
    ``weight``: ``"uniform"``, ``"accuracy:A"`` or ``"stability:A"``. ``level``: of every
    region, interval and verdict.
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
    readers = _readers(studies, urls, stores)
    compared = analyse_studies(list(zip(_group_names(studies), readers, strict=True)),
                               measures=measures, replicates=replicates, weight=weight,
                               level=level, progress=progress)
    comparison = compared.comparison
    out = Path(out)
    figures = comparison_figures(comparison, compared.groups, noun="study", plural="studies")
    with written_folder(out, "comparison") as folder:
        comparison.to_frame().to_csv(folder / "comparison.csv", index=False)
        _write_json(folder / "comparison.json", compared.to_dict())
        write_report(folder, title=f"paretostab comparison: {', '.join(comparison.groups)}",
                     sections=studies_sections(compared, figures))
    return out, comparison


def _write_json(path: Path, value: object) -> None:
    """``value`` as strict JSON: NaN and ±∞ as null (:func:`~paretostab.report.compare.
    jsonable`), never ``NaN`` or ``Infinity``, which R and spreadsheets do not read."""
    path.write_text(json.dumps(jsonable(value), indent=2, allow_nan=False, default=float)
                    + "\n", encoding="utf-8")


@contextlib.contextmanager
def written_folder(out: Path, what: str):
    """A new folder in ``out`` (in its nearest existing ancestor if it does not exist: on
    the same file system) for the block to write ``what`` into; at the block's end its
    files are moved into ``out`` (created),
    each by a rename, replacing files of the same names. When writing fails (a full disk,
    a read-only folder) nothing is moved — a previous report in ``out`` is left whole —
    and the error is a :class:`~paretostab.errors.StoreError` naming ``out``; the new
    folder is removed either way."""
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"{what} folder {out}: it is a file, not a folder.")
    ancestor = out if out.is_dir() else out.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name or what}-", dir=ancestor))
    except OSError as exc:
        raise StoreError(f"{what} folder {out}: cannot write in {ancestor}: "
                         f"{exc.strerror or exc}.") from None
    try:
        yield staging
        files = sorted(p for p in staging.rglob("*") if p.is_file())
        for file in files:
            target = out / file.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(file, target)
    except OSError as exc:
        raise StoreError(f"{what} folder {out}: cannot write it: {exc.strerror or exc}; "
                         f"no {what} written (a previous one there is unchanged).") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
