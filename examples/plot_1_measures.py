"""
Stability measures on a bundled example
=======================================

Thirty bootstrap runs of the t-test filter (five features each) on scikit-learn's
breast-cancer data (569 × 30, shipped with scikit-learn), scored by several stability
measures of the registry with :func:`paretostab.stability`, then drawn as a feature
stability map (003 §3).
"""

# %%
# The runs: one selection per bootstrap sample
# --------------------------------------------
# :func:`~paretostab.run_protocol` fits the selector on each resample and keeps
# the M × d selection matrix ``Z`` and the importances ``I`` of the features kept.
import numpy as np

import paretostab
from paretostab import run_protocol
from paretostab.data import load_dataset
from paretostab.selectors import TTestSelector

data = load_dataset("breast_cancer")
runs = run_protocol(TTestSelector(n_features=5), data.X, data.y, runs=30,
                    random_state=0, progress=False)
Z, I = runs.selection_matrix, runs.importance_matrix
print(Z.shape, "selections;", f"out-of-bag accuracy {np.mean(runs.accuracy):.3f}")

# %%
# Measures of the selections, the importances and the rankings
# -------------------------------------------------------------
# Subset measures read ``Z``; importance-weighted ones (φ_iw, φ_pears) read ``I``.
for name in ("nogueira", "jaccard", "kuncheva"):
    print(f"{name:10s} {paretostab.stability(name, Z):.3f}")
for name in ("iw", "pearson"):
    print(f"{name:10s} {paretostab.stability(name, I):.3f}")

interval = paretostab.nogueira_interval(Z, alpha=0.05)
print(interval)

# %%
# The registry: every measure, its input, bounds and paper
# --------------------------------------------------------
# :func:`paretostab.list_measures` returns it as a DataFrame, one row per measure
# (a notebook shows it as a table).
measures = paretostab.list_measures()
measures[["symbol", "input", "lower", "upper", "corrected", "reference"]]

# %%
# The feature stability map
# -------------------------
# Each run is a row; a feature keeps its colour across runs (the 20 most frequent
# features coloured, the others grey).
from paretostab.maps import stability_map
from paretostab.plot import stability_map_figure

figure = stability_map_figure(stability_map(runs, feature_names=data.feature_names),
                              title="t-test filter, k = 5, breast cancer")
