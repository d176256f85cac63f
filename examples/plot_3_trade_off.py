"""
Choosing a trade-off
====================

A front offers many (accuracy, stability) pairs; γ says how much accuracy is worth
against stability: the chosen trial maximises γ·accuracy + (1 − γ)·stability (003 §7.1).
First the pure functions of :mod:`paretostab.front` on a handful of points, then
:func:`paretostab.choose` in a tiny tuned study, which also names the features the chosen
setting keeps on the whole data.
"""

# %%
# On points: the front, its dominance area, the γ table
# -----------------------------------------------------
import numpy as np
import pandas as pd

from paretostab.front import ParetoFront, choose, dominance_area, gamma_table, pareto_front
from paretostab.plot import draw_front

points = np.array([[0.70, 0.98], [0.84, 0.97], [0.89, 0.97], [0.91, 0.95], [0.93, 0.90],
                   [0.95, 0.89], [0.97, 0.75], [0.88, 0.80], [0.80, 0.60]])
print("front rows:", pareto_front(points))
print("dominance area, uniform weight:", round(dominance_area(points), 4))
print("accuracy-weighted (A = 2):", round(dominance_area(points, weight="accuracy:2"), 4))
pd.DataFrame(gamma_table(points)).round(3)

# %%
# Each γ picks one vertex of the front's convex hull; γ = 0 the most stable point,
# γ = 1 the most accurate.
for gamma in (0.0, 0.3, 0.6, 0.9, 1.0):
    print(f"γ = {gamma}: point {choose(points, gamma)}", points[choose(points, gamma)])

ax = draw_front(ParetoFront.of(points, weight="accuracy:2"))
ax.set_title("the front, its area shaded by the accuracy weight")

# %%
# In a study: the trial, its parameters and its features
# ------------------------------------------------------
# :func:`paretostab.choose` passes over trials flagged as no better than chance, and
# refits the chosen setting once on the whole data to name the features it keeps.
import tempfile
from pathlib import Path

import optuna

import paretostab

optuna.logging.set_verbosity(optuna.logging.WARNING)
folder = Path(tempfile.mkdtemp(prefix="paretostab-gallery-"))
study = paretostab.tune(
    {"study": {"name": "trade-off", "trials": 6},
     "data": {"source": "simulated:n_other=30,n_per_class=20"},
     "protocol": {"runs": 4, "replicates": 3},
     "selector": {"name": "t_test", "search": {"n_features": [3, 12]}},
     "objective": {"stability": "nogueira"}},
    storage=f"sqlite:///{folder / 'trade_off.db'}", artifacts=str(folder / "artifacts"),
    progress=False)
choice = paretostab.choose(study, 0.6, allow_chance=True)
print(f"trial {choice.trial}: {choice.values}; features {', '.join(choice.features)}")
choice
