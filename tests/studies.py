"""Tuned studies read and analysed as the report reads and analyses them, for the tests."""

from __future__ import annotations

from collections.abc import Sequence

from paretostab.report._analysis import StudyReport
from paretostab.report._build import analysed_study
from paretostab.report._load import open_source, read_study
from paretostab.report._study_data import StudyData


def read(url: str, study_name: str | None = None, *, data: object = None,
         measures: Sequence[str] | None = None) -> StudyData:
    """The study ``study_name`` of ``url`` as the report reads it."""
    return read_study(open_source(url, study_name, data=data), measures)


def analysed(url: str, study_name: str | None = None, *, data: object = None,
             **options) -> StudyReport:
    """The analysis ``build_report`` writes (its refits stored in the study)."""
    return analysed_study(url, study_name=study_name, data=data, **options).analysis
