"""Matplotlib drawers of fronts and maps (003 §3 maps, 002 §3 fronts, 003 §7.1 Fig. 11),
for the report and for the maps a tuning study stores with its trials: one map
(:func:`draw_stability_map`, :func:`stability_map_figure`), several as small multiples
with one legend (:func:`stability_maps_figure`) and the features × trials overview of
selection frequencies (:func:`draw_selection_overview`, :func:`selection_overview_figure`);
one front (:func:`draw_front`), fronts under several measures (:func:`draw_fronts`) and,
for comparisons of groups of trials (000 §6.2 Fig. 6), each group's front in its own
colour (:func:`draw_group_fronts`) and the front of all groups together
(:func:`draw_combined_front`); a stable set's stability path, its decoys in grey
(:func:`draw_stability_path`).

Each drawer takes an ``ax=`` (or ``axes=``) to draw on and returns it; it creates a
figure (through ``matplotlib.pyplot``) only when none is given — pass axes of a
``matplotlib.figure.Figure`` to keep pyplot's global state out. Drawers never set a
style or touch ``matplotlib.rcParams``, and they compute nothing: each draws an info
object computed by a pure module — a :class:`paretostab.front.ParetoFront` (the points,
the front drawn through them, the dominated region and its area, the weight), a
:class:`paretostab.maps.StabilityMap` or a :class:`paretostab.maps.SelectionOverview` —
and rejects anything else with one error. The one evaluation done here is that of the
weight's density on a grid, to shade the dominated area by it. A front reads at a
glance: its trials are filled circles on its staircase, the other trials light-grey dots,
the confidence regions dark outlines with a light fill, and the labels of points are
placed apart whenever the figure is drawn (at its final size and zoom), with thin leader
lines where points are dense.

The drawers live in private modules — those of maps in ``paretostab.plot._maps``, those
of fronts in ``paretostab.plot._fronts``, that of stable sets in
``paretostab.plot._stable_sets``, what they share (the axes a drawer creates when
given none, the one error for anything but its info object) in
``paretostab.plot._contract`` — and are imported from here.
"""

from paretostab.plot._fronts import (
    GROUP_COLORS,
    GROUP_MARKERS,
    draw_combined_front,
    draw_front,
    draw_fronts,
    draw_group_fronts,
    draw_optimism,
    group_style,
    zoom_to_data,
)
from paretostab.plot._maps import (
    draw_selection_overview,
    draw_stability_map,
    round_ticks,
    selection_overview_figure,
    stability_map_figure,
    stability_maps_figure,
)
from paretostab.plot._stable_sets import draw_stability_path

__all__ = ["GROUP_COLORS", "GROUP_MARKERS", "draw_combined_front", "draw_front", "draw_fronts",
           "draw_group_fronts", "draw_optimism", "draw_selection_overview",
           "draw_stability_map", "draw_stability_path", "group_style", "round_ticks",
           "selection_overview_figure", "stability_map_figure", "stability_maps_figure",
           "zoom_to_data"]
