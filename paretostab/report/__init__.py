"""The report of tuned studies: fronts, dominance areas with confidence intervals,
Hotelling regions, the γ choice, feature stability maps and comparisons of groups of
trials (SPEC §5; 002 §3, 003 §3, §7.1, 000 §6.2).

The modules, from the bottom up:

- :mod:`~paretostab.report.confidence` and :mod:`~paretostab.report.compare`: pure numpy,
  scipy and pandas — Hotelling regions and the DA interval; groups of trials compared by
  their fronts (a one-study report is the comparison of one group);
- :mod:`~paretostab.report.study_data`: a study as read (frozen, no Optuna object);
  :mod:`~paretostab.report.load`, the only reader of a storage, reads it in one pass;
- :mod:`~paretostab.report.refits`: the refits of trial settings the report needs
  (replicates, held-out scores, label probes, whole-data selections), looked up in the
  study's cache or computed;
- :mod:`~paretostab.report.estimates` and :mod:`~paretostab.report.analysis`: pure
  functions of those, returning the frozen analysis objects of a page
  (:class:`~paretostab.report.analysis.StudyReport`,
  :class:`~paretostab.report.analysis.StudiesComparison`), and the chosen trade-off
  (:class:`~paretostab.choice.Choice`, below the report and the API);
- :mod:`~paretostab.report.figures` (matplotlib, through :mod:`paretostab.plot`) and
  :mod:`~paretostab.report.pages` (the sections) made from them;
- :mod:`~paretostab.report.html`: renders any sections as one self-contained page, with
  the templates of :mod:`~paretostab.report.templating` (autoescaped; also the notebook
  representations of :mod:`paretostab.api`'s objects and of ``Choice``);
- :mod:`~paretostab.report.write`: the only writer — files, the study's dashboard note,
  the refits cached in the study;
- :mod:`~paretostab.report.build`: the pipelines read → analyse → draw → write
  (``build_report``, ``build_comparison``, ``choose_trial``).

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
