"""The report of tuned studies: fronts, dominance areas with confidence intervals,
Hotelling regions, the γ choice, feature stability maps and comparisons of groups of
trials (SPEC §5; 002 §3, 003 §3, §7.1, 000 §6.2).

The modules, from the bottom up:

- :mod:`~paretostab.report.confidence` and :mod:`~paretostab.report.compare`: pure numpy,
  scipy and pandas — Hotelling regions and the DA interval; groups of trials compared by
  their fronts (a one-study report is the comparison of one group);
- :mod:`~paretostab.report.load`: the only module of the package that reads Optuna —
  a study's trials as a table, its RunSets, the replicates of its front trials (cached
  in the study);
- :mod:`~paretostab.report.analysis`: the frozen analysis objects of a page
  (:class:`~paretostab.report.analysis.StudyReport`,
  :class:`~paretostab.report.analysis.StudiesComparison`);
- :mod:`~paretostab.report.figures` (matplotlib, through :mod:`paretostab.plot`) and
  :mod:`~paretostab.report.pages` (the sections) made from them;
- :mod:`~paretostab.report.html`: renders any sections as one self-contained page;
- :mod:`~paretostab.report.build`: the entry points ``build_report``, ``build_comparison``
  and ``choose_trial``.

The fronts, dominance areas and the γ choice are :mod:`paretostab.front`; the maps
:mod:`paretostab.maps`; the drawers :mod:`paretostab.plot`. Importing this package loads
neither Optuna nor matplotlib.
"""

from __future__ import annotations

from paretostab.report.compare import (
    CombinedFront,
    Comparison,
    Difference,
    Group,
    GroupFront,
    compare_groups,
    front_trials,
    table3,
)
from paretostab.report.confidence import (
    DominanceAreaInterval,
    Ellipse,
    confidence_regions,
    dominance_area_interval,
)

__all__ = [
    "CombinedFront",
    "Comparison",
    "Difference",
    "DominanceAreaInterval",
    "Ellipse",
    "Group",
    "GroupFront",
    "compare_groups",
    "confidence_regions",
    "dominance_area_interval",
    "front_trials",
    "table3",
]
