"""
The search inside scikit-learn
==============================

:class:`~paretostab.ParetoSearchCV` is the Pareto search as a scikit-learn meta-estimator:
``fit`` runs a study (the t-test filter, its number of features and final-model strength
searched, each trial scored by its accuracy and its stability φ over resampled runs),
γ chooses a trade-off on the front, and the fitted search *is* that choice refitted on all
the data — a selector (``get_support``, ``transform``) and a classifier (``predict``,
``score``). So it goes into a ``Pipeline``, into ``cross_validate`` (the nested
evaluation of the whole procedure, the scikit-learn way) and predicts new samples.
Small sizes here (12 trials of 8 runs); real searches use tens of both.
"""

# %%
# A search on named features
# --------------------------
# Simulated data: two classes of 40 examples, three informative groups of three
# correlated features and 40 noise features, as a DataFrame (its names are kept).
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from paretostab import ParetoSearchCV
from paretostab.data import simulate_correlated_groups

data = simulate_correlated_groups(n_groups=3, group_size=3, n_other=40, mu_group=0.6,
                                  n_per_class=60, random_state=0)
X = pd.DataFrame(data.X, columns=data.feature_names)
y = data.y
rows = np.random.default_rng(0).permutation(len(y))
new, known = rows[:40], rows[40:]  # 40 samples kept apart, to predict at the end
X_new, y_new = X.iloc[new], y[new]
X, y = X.iloc[known].reset_index(drop=True), y[known]

search = ParetoSearchCV("t_test", {"n_features": (2, 20)}, runs=8, n_trials=12,
                        gamma=0.5, random_state=0)
search.fit(X, y)
print("chosen:", search.best_params_)
print("features kept:", ", ".join(search.get_feature_names_out()))
pd.DataFrame(search.cv_results_).drop(columns="params").round(3)

# %%
# The front and γ
# ---------------
# Every trial's (accuracy, φ); the front joined; the trial γ = 0.5 chooses and the one
# γ = 0.9 chooses after ``set_params(gamma=0.9).rechoose()`` — a new choice and refit,
# not a new search.
results = search.cv_results_
accuracy, stability = results["mean_test_accuracy"], results["mean_test_nogueira"]
front = np.flatnonzero(results["on_front"])
front = front[np.argsort(accuracy[front])]
fig, ax = plt.subplots(figsize=(5.5, 4))
ax.scatter(accuracy, stability, color="0.7", label="trials")
ax.plot(accuracy[front], stability[front], "o-", color="tab:blue", label="front")
chosen = {}
for gamma, marker in ((0.5, "s"), (0.9, "D")):
    search.set_params(gamma=gamma).rechoose()
    chosen[gamma] = search.best_index_
    ax.scatter(accuracy[search.best_index_], stability[search.best_index_], s=120,
               marker=marker, facecolor="none", edgecolor="tab:red", linewidth=2,
               label=f"γ = {gamma}: trial {results['trial'][search.best_index_]}")
ax.set_xlabel("accuracy (out of bag, mean of the runs)")
ax.set_ylabel("stability φ (Nogueira)")
ax.legend(loc="lower left")
fig.tight_layout()
print({gamma: results["params"][index] for gamma, index in chosen.items()})
# the search now holds γ = 0.9's choice: the pipeline below and the model after use it

# %%
# In a pipeline, evaluated by ``cross_validate``
# ----------------------------------------------
# Each outer fold clones the pipeline and runs the whole procedure on its training part
# (the search, the γ choice, the refit); the outer scores estimate how the chosen model
# does on new data — the nested estimate of a spec's ``[protocol] outer_folds``, given
# the same folds (``StratifiedKFold(K, shuffle=True, random_state=split_seed)``).
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

pipeline = make_pipeline(StandardScaler(), search)
outer = cross_validate(pipeline, X, y, cv=StratifiedKFold(3, shuffle=True, random_state=0))
print("outer accuracy per fold:", outer["test_score"].round(3),
      "mean", outer["test_score"].mean().round(3))

# %%
# The chosen model predicts new samples
# -------------------------------------
# ``best_estimator_`` is the chosen setting refitted on all the data, a scikit-learn
# ``Pipeline`` fitted with the features' names: data with other columns is refused.
# The same choice, saved (``Choice.save_model``: a skops file, safe to load from
# others, with its study, trial and features) and loaded back: what
# ``python -m paretostab choose --save-model`` and ``predict MODEL DATA`` do.
import tempfile
from pathlib import Path

from paretostab import load_model

model = search.best_estimator_
print(model)
print("accuracy on the 40 new samples:", np.mean(model.predict(X_new) == y_new).round(3))
with tempfile.TemporaryDirectory() as folder:
    path = search.choice_.save_model(Path(folder) / "chosen.skops")
    saved = load_model(path)
print(f"saved: study {saved.study!r}, trial {saved.trial}, {len(saved.features)} features")
saved.predict(X_new.assign(label=y_new)).table.head()
