"""paretostab: feature-selection stability as a first-class objective.

The main jobs (:mod:`paretostab._api`): :func:`tune` a study, :func:`study_report` (or
``TunedStudy.report()``), :func:`choose` a trade-off, :func:`compare` studies; the
stability measures: :func:`stability`, :func:`list_measures`, :func:`nogueira_interval`.
"""

from paretostab._api import (
    Choice,
    ComparisonResult,
    Report,
    TunedStudy,
    choose,
    compare,
    study_report,
    tune,
)
from paretostab._errors import (
    CalibrationWarning,
    InvalidInputError,
    ParetostabError,
    StabilityWarning,
    UnknownNameError,
)
from paretostab._version import __version__
from paretostab.measures import list_measures, nogueira_interval, stability

__all__ = [
    "CalibrationWarning",
    "Choice",
    "ComparisonResult",
    "InvalidInputError",
    "ParetostabError",
    "Report",
    "StabilityWarning",
    "TunedStudy",
    "UnknownNameError",
    "__version__",
    "choose",
    "compare",
    "list_measures",
    "nogueira_interval",
    "stability",
    "study_report",
    "tune",
]
