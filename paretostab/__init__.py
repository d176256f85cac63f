"""paretostab: feature-selection stability as a first-class objective.

The main jobs (:mod:`paretostab.api`): :func:`tune` a study, :func:`study_report` (or
``TunedStudy.report()``), :func:`choose` a trade-off, :func:`compare` studies; the
stability measures: :func:`stability`, :func:`list_measures`, :func:`nogueira_interval`.
"""

from paretostab.api import (
    Choice,
    ComparisonResult,
    Report,
    TunedStudy,
    choose,
    compare,
    study_report,
    tune,
)
from paretostab.errors import (
    CalibrationWarning,
    InvalidInputError,
    ParetostabError,
    StabilityWarning,
    UnknownNameError,
)
from paretostab.measures import list_measures, nogueira_interval, stability
from paretostab.version import __version__

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
