"""A user's own selector, studies of such a selector long enough to be stopped mid-way, and
the processes that ran their trials: what the tests of users' selectors, stop signals and
faults fit, start and watch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin

from tests.waiting import current

__all__ = ["MySelector", "selector_spec", "trial_pids"]


def _spread(X, y):
    """Per feature, the variance of its class means (a tiny univariate score)."""
    return np.array([[X[y == c, f].mean() for c in np.unique(y)] for f in range(X.shape[1])]
                    ).var(axis=1)


class MySelector(SelectorMixin, BaseEstimator):
    """A user's selector: the ``n_keep`` features whose class means differ most; it cannot
    predict (the L2-logistic final model follows it). A spec names it
    ``"tests.user_studies:MySelector"``."""

    def __init__(self, n_keep=3):
        self.n_keep = n_keep

    def fit(self, X, y):
        self.scores_ = _spread(X, y)
        self.mask_ = np.zeros(X.shape[1], dtype=bool)
        self.mask_[np.argsort(-self.scores_, kind="stable")[: self.n_keep]] = True
        return self

    def _get_support_mask(self):
        return self.mask_


def selector_spec(folder: Path, name: str, selector: str, *, trials: int = 400) -> Path:
    """The spec of a study (by default a long one) of the user's ``selector``
    (``module:Class``, a selector with an ``n_keep`` parameter)."""
    spec = folder / f"{name}.toml"
    spec.write_text(
        f'[study]\nname = "{name}"\ntrials = {trials}\nseed = 0\nsampler = "random"\n'
        '[data]\nsource = "simulated:n_other=30,n_per_class=20"\n[protocol]\nruns = 3\n'
        f'[selector]\nname = "{selector}"\n'
        '[selector.search]\nn_keep = [2, 6]\n[objective]\nstability = "iw"\n',
        encoding="utf-8")
    return spec


def trial_pids(url: str, name: str) -> set[int]:
    study = current(url, name)
    return set() if study is None else {
        t.user_attrs["process"]["pid"] for t in study.get_trials(deepcopy=False)
        if "process" in t.user_attrs}
