"""paretostab: feature-selection stability as a first-class objective."""

from importlib.metadata import PackageNotFoundError, version

from paretostab.errors import (
    CalibrationWarning,
    InvalidInputError,
    ParetostabError,
    StabilityWarning,
    UnknownNameError,
)
from paretostab.measures import list_measures, nogueira_interval, stability

try:
    __version__ = version("paretostab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

__all__ = [
    "CalibrationWarning",
    "InvalidInputError",
    "ParetostabError",
    "StabilityWarning",
    "UnknownNameError",
    "__version__",
    "list_measures",
    "nogueira_interval",
    "stability",
]
