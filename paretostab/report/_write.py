"""Writing what the report computed: the report's only writer.

- :func:`write_refit`: a refit the report computed
  (:class:`~paretostab.report._refits.Refits`) into its study's system attributes, as soon
  as it is computed, where the next report, ``choose`` or comparison finds it;
- :func:`note_front`: the study's optuna-dashboard note, with the front as of the report;
- :func:`write_study_report` and :func:`write_comparison`: the files of a report and of a
  comparison, each folder written whole or not at all (:func:`written_folder`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

import optuna
import pandas as pd

from paretostab._errors import InvalidInputError, StoreError
from paretostab._faults import owned_folder
from paretostab._tuning import put_note_section, study_note
from paretostab.measures import get_measure
from paretostab.report._analysis import StudiesComparison, StudyReport
from paretostab.report._compare import jsonable
from paretostab.report._estimates import with_flags
from paretostab.report._figures import ComparisonFigures, StudyFigures
from paretostab.report._html import write_report
from paretostab.report._pages import studies_sections, study_sections
from paretostab.spec import StudySpec

__all__ = ["FRONT_HEADING", "front_file", "note_front", "stable_set_file", "write_comparison",
           "write_refit", "write_study_report", "written_folder"]


def write_refit(storage: optuna.storages.BaseStorage, study_name: str, key: str,
                value: object) -> None:
    """Store a refit (``key`` → ``value``, plain JSON: dicts, lists, floats, bools) in the
    system attributes of the study ``study_name`` (a report's, or one of its outer
    folds')."""
    storage.set_study_system_attr(storage.get_study_id_from_name(study_name), key,
                                  cast(Any, value))


#: The heading of the report's section of the study note (then the report's time).
FRONT_HEADING = "## The Pareto front, as of the report of"


def note_front(storage: optuna.storages.BaseStorage, study_name: str, spec: StudySpec | None,
               front: pd.DataFrame) -> None:
    """Give the study's optuna-dashboard note the front as of now: a section listing the
    ``front`` rows (trial, metric in the column ``accuracy``, objective), in place of the
    section a former report wrote, the rest of the note kept as it is — the study note
    (:func:`~paretostab._tuning.notes.study_note`) and whatever a person wrote there
    (:func:`~paretostab._tuning.notes.put_note_section`). Trial notes say nothing of the
    front (later trials change it); this section says when it was current. Nothing for a
    study without its spec (made by hand)."""
    if spec is None:
        return
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    metric, objective = spec.protocol.metric, spec.objective.stability
    label = get_measure(objective).label
    lines = [f"{FRONT_HEADING} {when}", "",
             f"{len(front)} trials, by increasing {metric} (later trials may change it: "
             "run `python -m paretostab report` again):", ""]
    lines += [f"- trial {int(row['trial'])}: {metric} {row['accuracy']:.4f} · {label} "
              f"{row[objective]:.4f}" for _, row in front.iterrows()]
    put_note_section(storage, storage.get_study_id_from_name(study_name), FRONT_HEADING,
                     "\n".join(lines) + "\n", new=study_note(spec))


def front_file(report: StudyReport) -> pd.DataFrame:
    """``front.csv``: the front trials (:attr:`~StudyReport.front_table`) with the flag
    column (:func:`~paretostab.report._estimates.with_flags`), the metric's column by the
    metric's name (``balanced_accuracy``; ``accuracy`` for plain accuracy, as before)."""
    return with_flags(report.front_table, report.flags).rename(
        columns={"accuracy": report.metric})


def stable_set_file(report: StudyReport) -> pd.DataFrame:
    """``stable_set.csv``: every feature of each of the chosen trial's stable sets
    (:meth:`~paretostab.stable_set.StableSet.to_frame`), one block per error control,
    its ``control`` column naming it (``pfer <= 1``, ``fdp <= 0.1``)."""
    return pd.concat([found.to_frame().assign(control=f"{found.control} <= {found.target:g}")
                      for found in report.stable_sets], ignore_index=True)


def write_study_report(report: StudyReport, figures: StudyFigures, out: str | Path) -> Path:
    """Write ``report`` with its ``figures`` to ``out`` (``index.html``, ``front.csv``,
    ``summary.json``, ``stable_set.csv`` when the chosen trial's stable sets were asked
    for, ``selectors.csv`` for a multi-selector study), each file replaced whole or not at
    all (:func:`written_folder`); returns ``out``."""
    out = Path(out)
    with written_folder(out, "report") as folder:
        front_file(report).to_csv(folder / "front.csv", index=False)
        if report.stable_sets:
            stable_set_file(report).to_csv(folder / "stable_set.csv", index=False)
        if report.selectors is not None:
            report.selectors.to_frame().to_csv(folder / "selectors.csv", index=False)
        _write_json(folder / "summary.json", report.to_dict())
        write_report(folder, title=f"paretostab report: {report.study}",
                     sections=study_sections(report, figures))
    return out


def write_comparison(compared: StudiesComparison, figures: ComparisonFigures,
                     out: str | Path) -> Path:
    """Write a comparison to ``out``: ``index.html``, ``comparison.csv`` (one row per study
    × measure) and ``comparison.json`` (everything); returns ``out``."""
    comparison = compared.comparison
    out = Path(out)
    with written_folder(out, "comparison") as folder:
        comparison.to_frame().to_csv(folder / "comparison.csv", index=False)
        _write_json(folder / "comparison.json", compared.to_dict())
        write_report(folder, title=f"paretostab comparison: {', '.join(comparison.groups)}",
                     sections=studies_sections(compared, figures))
    return out


def _write_json(path: Path, value: object) -> None:
    """``value`` as strict JSON: NaN and ±∞ as null (:func:`~paretostab.report._compare.
    jsonable`), never ``NaN`` or ``Infinity``, which R and spreadsheets do not read."""
    path.write_text(json.dumps(jsonable(value), indent=2, allow_nan=False, default=float)
                    + "\n", encoding="utf-8")


@contextlib.contextmanager
def written_folder(out: Path, what: str) -> Iterator[Path]:
    """A new folder in ``out`` (in its nearest existing ancestor if it does not exist: on
    the same file system) for the block to write ``what`` into; at the block's end its
    files are moved into ``out`` (created),
    each by a rename, replacing files of the same names. When writing fails (a full disk,
    a read-only folder) nothing is moved — a previous report in ``out`` is left whole —
    and the error is a :class:`~paretostab._errors.StoreError` naming ``out``; the new
    folder is removed either way, and one left by a process killed with kill -9 by the
    next (:func:`~paretostab._faults.owned_folder`)."""
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"{what} folder {out}: it is a file, not a folder.")
    ancestor = out if out.is_dir() else out.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    try:
        staging = owned_folder(f".{out.name or what}-", ancestor)
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
