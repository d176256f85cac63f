"""
A tiny study, tuned and reported from Python
============================================

A study spec given as a dict, tuned by :func:`paretostab.tune` on simulated data (two
classes of 20 examples; three informative groups of correlated features and 30 noise
features), 5 trials of 4 bootstrap runs each, into a SQLite file in a temporary folder.
Then :meth:`~paretostab.TunedStudy.report`: the Pareto front of accuracy and stability
with its dominance area, and the front figure. Real studies use tens of runs and trials
(the built-in ``quickstart``: 60 trials of 30 runs, under a minute).
"""

# %%
# The spec: data, protocol, selector and its search space, objective
# ------------------------------------------------------------------
# The same tables as a TOML spec file (see the spec reference).
import tempfile
from pathlib import Path

import optuna

import paretostab

optuna.logging.set_verbosity(optuna.logging.WARNING)  # one line per trial is Optuna's default

spec = {
    "study": {"name": "tiny", "trials": 5, "seed": 0},
    "data": {"source": "simulated:n_other=30,n_per_class=20"},
    "protocol": {"runs": 4, "replicates": 3},
    "selector": {
        "name": "hybrid_rfe",
        "fixed": {"n_features": 5},
        "search": {"n_stable": [0, 3], "reg": {"low": 1e-2, "high": 1e2, "log": True}},
    },
    "objective": {"stability": "iw", "record": ["nogueira", "iw"]},
}

folder = Path(tempfile.mkdtemp(prefix="paretostab-gallery-"))
storage = f"sqlite:///{folder / 'tiny.db'}"

# %%
# Tune
# ----
# Each trial runs the selector on the 4 resamples and records (accuracy, φ_iw); the
# returned :class:`~paretostab.TunedStudy` holds the front as of now.
study = paretostab.tune(spec, storage=storage, artifacts=str(folder / "artifacts"),
                        progress=False)
print(study.n_trials, "counted trials; dominance area", round(study.dominance_area, 3))
study.front

# %%
# Report
# ------
# The report re-runs each front trial a few times with fresh resamples (``replicates``)
# for the confidence regions and the dominance area's interval, and picks the γ
# trade-off. ``report.save(folder)`` would write ``index.html``, ``front.csv`` and
# ``summary.json``.
report = study.report(gamma=0.5, progress=False)
print("dominance area", round(report.dominance_area, 3), "interval", report.interval)
report.front

# %%
# The front figure: the dominated area, the front trials numbered, their 95 % regions
# and the trial γ = 0.5 chooses (a matplotlib Figure: ``front.savefig("front.png")``).
front = report.figures.front
