"""Pareto fronts, dominance areas, confidence regions, the γ choice and feature stability
maps (SPEC §5; 002 §3, 003 §3, §7.1).

The computations (:mod:`~paretostab.front`, :mod:`~paretostab.report.confidence`,
:mod:`~paretostab.maps`) are pure numpy and scipy and never import matplotlib; the
drawers live in :mod:`paretostab.plot` (``draw_front``, ``draw_fronts``,
``draw_stability_map``), which is imported only when one of them is first used
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
from paretostab.report.confidence import (
    DominanceAreaInterval,
    Ellipse,
    confidence_regions,
    dominance_area_interval,
)

__all__ = [
    "DominanceAreaInterval",
    "Ellipse",
    "FeaturePalette",
    "GammaChoice",
    "StabilityMap",
    "choose",
    "confidence_regions",
    "dominance_area",
    "dominance_area_interval",
    "feature_palette",
    "gamma_table",
    "pareto_front",
    "stability_map",
    "staircase",
]

_DRAWERS = ("draw_front", "draw_fronts", "draw_stability_map")


def __getattr__(name: str):
    if name in _DRAWERS:  # imports matplotlib: only on demand
        from paretostab import plot

        return getattr(plot, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
