"""paretostab: feature-selection stability as a first-class objective.

The main jobs: :func:`tune` a study, :func:`study_report` (or ``TunedStudy.report()``),
:func:`choose` a trade-off, :func:`compare` studies; the chosen trade-off as a model
(:meth:`Choice.save_model`) that :func:`load_model` reads back as a :class:`SavedModel` to
classify new samples (:class:`Predictions`); the stability measures:
:func:`stability`, :func:`list_measures`, :func:`nogueira_interval`; the resampling
protocol a trial runs, for a selector of one's own: :func:`run_protocol`,
:func:`replicates`, their :class:`RunSet` and the :class:`RunCache` of prepared runs,
and the :class:`FeatureSimilarity` the similarity-adjusted measures take; the search in
scikit-learn: :class:`ParetoSearchCV` (:mod:`paretostab.search`). Every name but the
errors and the version is imported on first use: ``import paretostab`` loads neither
pandas, SciPy nor scikit-learn (0.1 s of CPU where it took 1.5–1.9 s), and
``python -m paretostab --help`` takes 0.7–0.9 s where it took 1.6–1.7 s.
"""

from typing import TYPE_CHECKING

from paretostab._errors import (
    CalibrationWarning,
    DataWarning,
    InvalidInputError,
    ParetostabError,
    StabilityWarning,
    UnknownNameError,
)
from paretostab._lazy import lazy_exports
from paretostab._version import __version__

if TYPE_CHECKING:
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
    from paretostab._model import Predictions, SavedModel, load_model
    from paretostab._protocol import replicates, run_protocol
    from paretostab._run_cache import RunCache
    from paretostab._runset import RunSet
    from paretostab._similarity import FeatureSimilarity
    from paretostab.measures import list_measures, nogueira_interval, stability
    from paretostab.search import ParetoSearchCV

#: The names imported on first use, and the module that defines each.
_LAZY = {**dict.fromkeys(["Choice", "ComparisonResult", "Report", "TunedStudy", "choose",
                          "compare", "study_report", "tune"], "paretostab._api"),
         **dict.fromkeys(["list_measures", "nogueira_interval", "stability"],
                         "paretostab.measures"),
         "run_protocol": "paretostab._protocol", "replicates": "paretostab._protocol",
         "RunCache": "paretostab._run_cache", "RunSet": "paretostab._runset",
         "FeatureSimilarity": "paretostab._similarity", "load_model": "paretostab._model",
         "SavedModel": "paretostab._model", "Predictions": "paretostab._model",
         "ParetoSearchCV": "paretostab.search"}

__all__ = [
    "CalibrationWarning",
    "Choice",
    "ComparisonResult",
    "DataWarning",
    "FeatureSimilarity",
    "InvalidInputError",
    "ParetoSearchCV",
    "ParetostabError",
    "Predictions",
    "Report",
    "RunCache",
    "RunSet",
    "SavedModel",
    "StabilityWarning",
    "TunedStudy",
    "UnknownNameError",
    "__version__",
    "choose",
    "compare",
    "list_measures",
    "load_model",
    "nogueira_interval",
    "replicates",
    "run_protocol",
    "stability",
    "study_report",
    "tune",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
