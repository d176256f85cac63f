"""
Your own CSV
============

A table with one row per sample, numeric feature columns and a ``label`` column is a
data source: write one to a temporary folder, point a spec's ``[data] source`` at it,
tune, and report. From the command line the same spec is a TOML file::

    python -m paretostab tune my.toml --storage sqlite:///mine.db
    python -m paretostab report --storage sqlite:///mine.db
"""

# %%
# A small CSV: 60 samples, 40 features, two of them informative
# --------------------------------------------------------------
import tempfile
from pathlib import Path

import numpy as np
import optuna
import pandas as pd

import paretostab

optuna.logging.set_verbosity(optuna.logging.WARNING)
rng = np.random.default_rng(0)
y = np.repeat(["healthy", "tumour"], 30)
X = rng.normal(size=(60, 40))
X[:, :2] += (y == "tumour")[:, None] * 1.5  # features gene_0 and gene_1 differ by class
table = pd.DataFrame(X, columns=[f"gene_{j}" for j in range(40)])
table.insert(0, "label", y)

folder = Path(tempfile.mkdtemp(prefix="paretostab-gallery-"))
csv = folder / "mine.csv"
table.to_csv(csv, index=False)
print(csv.name, table.shape)
table.head()

# %%
# Tune on it
# ----------
# ``source`` takes the file's path (in a TOML spec, relative to the spec's folder).
# The t-test filter's number of features is searched in [2, 10]; φ (Nogueira) is the
# stability objective, φ_iw recorded beside it.
spec = {
    "study": {"name": "mine", "trials": 5},
    "data": {"source": str(csv)},
    "protocol": {"runs": 5, "replicates": 3},
    "selector": {"name": "t_test", "search": {"n_features": [2, 10]}},
    "objective": {"stability": "nogueira", "record": ["nogueira", "iw"]},
}
study = paretostab.tune(spec, storage=f"sqlite:///{folder / 'mine.db'}",
                        artifacts=str(folder / "artifacts"), progress=False)
study.front

# %%
# The report, and the features of the trade-off it chooses
# --------------------------------------------------------
report = study.report(gamma=0.5, progress=False)
print(f"trial {report.chosen.trial} keeps", ", ".join(report.chosen.features))
front = report.figures.front
