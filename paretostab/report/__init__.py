"""Pareto fronts, dominance areas and feature stability maps (SPEC §5; 002 §3, 003 §3).

The computations (:mod:`~paretostab.report.front`, :mod:`~paretostab.report.maps`) are
pure numpy and never import matplotlib; the drawers live in
:mod:`paretostab.report.plot` (``draw_front``, ``draw_stability_map``), which is imported
only when one of them is first used (``paretostab.report.draw_front`` works; they are
left out of ``__all__`` so that ``from paretostab.report import *`` does not load
matplotlib).
"""

from __future__ import annotations

from paretostab.report.front import dominance_area, pareto_front, staircase
from paretostab.report.maps import StabilityMap, feature_color, stability_map

__all__ = [
    "StabilityMap",
    "dominance_area",
    "feature_color",
    "pareto_front",
    "stability_map",
    "staircase",
]

_DRAWERS = ("draw_front", "draw_stability_map")


def __getattr__(name: str):
    if name in _DRAWERS:  # imports matplotlib: only on demand
        from paretostab.report import plot

        return getattr(plot, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
