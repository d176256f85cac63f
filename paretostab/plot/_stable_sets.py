"""The drawer of a stable set's stability path (Meinshausen & Bühlmann 2010, Fig. 1's
reading by threshold; Hédou et al. 2024, Fig. 1's decoys): how many features reach each
selection-frequency threshold — the decoys in grey beside the real features — and the
error control's value at each threshold against its target, the threshold chosen marked
on both."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from paretostab.plot._contract import new_axes_pair, require
from paretostab.stable_set import StableSet

__all__ = ["draw_stability_path"]

#: The decoys' colour: grey, as Stabl draws them.
DECOY_COLOR = "0.6"


def draw_stability_path(found: StableSet, *, axes: Sequence[Axes] | None = None
                        ) -> Sequence[Axes]:
    """Draw ``found``'s stability path on two axes: left, the number of real features
    (black) and of decoys (grey, with ``fdp``) selected with a frequency at least each
    threshold; right, the PFER bound or FDP⁺ at each threshold (a log scale), the target
    dashed; the threshold chosen a vertical line on both (none where no threshold meets
    the target). The frequencies are multiples of 1/M: the count at π holds on
    ((j − 1)/M, j/M], drawn so.

    Parameters
    ----------
    found : StableSet
        What :func:`paretostab.stable_set.stable_set` returned.
    axes : two matplotlib Axes, optional
        Where to draw (default: a new figure of two panels).

    Returns
    -------
    the two axes
    """
    require(found, StableSet, "draw_stability_path")
    left, right = new_axes_pair((9.0, 3.4)) if axes is None else axes
    path = found.path()
    thresholds = path["threshold"].to_numpy(dtype=float)
    left.step(thresholds, path["selected"], where="pre", color="black",
              label="real features")
    if "decoys" in path and found.decoy_frequencies is not None:
        left.step(thresholds, path["decoys"], where="pre", color=DECOY_COLOR,
                  label="decoys (permuted copies)")
    left.set_xlabel("selection frequency threshold π")
    left.set_ylabel("features selected with frequency ≥ π")
    value = "fdp_plus" if found.control == "fdp" else "bound"
    values = path[value].to_numpy(dtype=float)
    finite = np.isfinite(values) & (values > 0)
    right.step(thresholds[finite], values[finite], where="pre", color="C0",
               label="FDP⁺" if found.control == "fdp" else f"PFER bound ({found.assumption})")
    right.axhline(found.target, color="C3", linestyle="--", linewidth=1,
                  label=f"target {found.target:g}")
    if finite.any():  # plain numbers on the log scale: 0.2, 0.5, 1, 2, not 2×10⁻¹
        right.set_yscale("log")
        right.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        right.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        right.yaxis.set_minor_formatter(NullFormatter())
    right.set_xlabel("selection frequency threshold π")
    right.set_ylabel("FDP⁺" if found.control == "fdp" else "expected false positives ≤")
    for ax in (left, right):
        ax.set_xlim(0, 1)
        if found.threshold is not None:
            ax.axvline(found.threshold, color="C3", linewidth=1,
                       label=f"threshold {found.threshold:.3g}")
        ax.legend(loc="best", fontsize="small", frameon=False)
    return left, right
