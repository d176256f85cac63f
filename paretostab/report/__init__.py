"""Pareto fronts, dominance areas, confidence regions, the γ choice, feature stability
maps and comparisons of groups of trials (SPEC §5; 002 §3, 003 §3, §7.1, 000 §6.2).

The computations (:mod:`~paretostab.front`, :mod:`~paretostab.report.confidence`,
:mod:`~paretostab.maps`, the core of :mod:`~paretostab.report.compare`) are pure numpy,
scipy and pandas and never import matplotlib; the drawers live in :mod:`paretostab.plot`
(``draw_front``, ``draw_fronts``, ``draw_stability_map``, ``draw_group_fronts``,
``draw_combined_front``), which is imported only when one of them is first used
(``paretostab.report.draw_front`` works; they are left out of ``__all__`` so that
``from paretostab.report import *`` does not load matplotlib).
"""

from __future__ import annotations

from paretostab.front import (
    GammaChoice,
    choose,
    dominance_area,
    gamma_table,
    pareto_front,
    staircase,
)
from paretostab.maps import FeaturePalette, StabilityMap, feature_palette, stability_map
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
    "FeaturePalette",
    "GammaChoice",
    "Group",
    "GroupFront",
    "StabilityMap",
    "choose",
    "compare_groups",
    "confidence_regions",
    "dominance_area",
    "dominance_area_interval",
    "feature_palette",
    "front_trials",
    "gamma_table",
    "pareto_front",
    "stability_map",
    "staircase",
    "table3",
]

_DRAWERS = ("draw_front", "draw_fronts", "draw_stability_map", "draw_group_fronts",
            "draw_combined_front")


def __getattr__(name: str):
    if name in _DRAWERS:  # imports matplotlib: only on demand
        from paretostab import plot

        return getattr(plot, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
