"""A user's own selector, studies of such a selector long enough to be stopped mid-way, and
the processes that ran their trials: what the tests of users' selectors, stop signals and
faults fit, start and watch."""

from __future__ import annotations

import json
import os
import signal
import textwrap
import time
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin

from tests.waiting import current

__all__ = ["BROKEN", "DOLLARS", "FIXED", "PROBE", "Held", "MySelector", "StartProbe",
           "selector_spec", "trial_pids", "write_selector"]


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


class Held(MySelector):
    """:class:`MySelector` whose fits wait while a file ``hold`` is in the working folder:
    a study of it keeps each process in its first trial, its process recorded, until the
    test removes the file (a kill then leaves no trial that Optuna created but no process
    claimed, which only the 60 s heartbeat grace would fail)."""

    def fit(self, X, y):
        while Path("hold").exists():
            time.sleep(0.05)
        return super().fit(X, y)


#: The environment variable that names :class:`StartProbe`'s file.
PROBE = "PARETOSTAB_TEST_PROBE"


class StartProbe(MySelector):
    """:class:`MySelector` that says what the process fitting it was started with: at each
    fit, when the environment names a file (:data:`PROBE`), it adds a JSON line with its
    pid, its parent's and the disposition of SIGHUP ("ignored", "default" or "handled")."""

    def fit(self, X, y):
        path = os.environ.get(PROBE)
        if path:
            handler = signal.getsignal(signal.SIGHUP)
            disposition = ("ignored" if handler == signal.SIG_IGN else
                           "default" if handler == signal.SIG_DFL else "handled")
            with open(path, "a", encoding="utf-8") as file:
                file.write(json.dumps({"pid": os.getpid(), "ppid": os.getppid(),
                                       "sighup": disposition}) + "\n")
        return super().fit(X, y)


def selector_spec(folder: Path, name: str, selector: str, *, trials: int = 400,
                  fixed: dict[str, int] | None = None) -> Path:
    """The spec of a study (by default a long one) of the user's ``selector``
    (``module:Class``, a selector with an ``n_keep`` parameter), with the parameters
    ``fixed``."""
    fixed_table = "".join(f"{key} = {value}\n" for key, value in (fixed or {}).items())
    spec = folder / f"{name}.toml"
    spec.write_text(
        f'[study]\nname = "{name}"\ntrials = {trials}\nseed = 0\nsampler = "random"\n'
        '[data]\nsource = "simulated:n_other=30,n_per_class=20"\n[protocol]\nruns = 3\n'
        f'[selector]\nname = "{selector}"\n'
        + (f"[selector.fixed]\n{fixed_table}" if fixed_table else "")
        + '[selector.search]\nn_keep = [2, 6]\n[objective]\nstability = "iw"\n',
        encoding="utf-8")
    return spec


def trial_pids(url: str, name: str) -> set[int]:
    study = current(url, name)
    return set() if study is None else {
        t.user_attrs["process"]["pid"] for t in study.get_trials(deepcopy=False)
        if "process" in t.user_attrs}


#: Feature names a map draws as written, not as mathematics.
DOLLARS = ["cost$_a_b$", r"x$\foo$"]

#: A user's selector's ``fit`` bodies that fail every trial, by how (:func:`write_selector`),
#: and the fix.
BROKEN = {
    "raises in fit": "raise RuntimeError('my selector is broken')",
    "wrong-shaped support": "self.mask_ = np.ones(X.shape[1] + 1, dtype=bool)",
    "no support": "pass",
    "selects nothing": "self.mask_ = np.zeros(X.shape[1], dtype=bool)",
    "NaN weights": "self.mask_ = np.arange(X.shape[1]) < self.n_keep; "
                   "self.coef_ = np.full(X.shape[1], np.nan)",
}
FIXED = "self.mask_ = np.arange(X.shape[1]) < self.n_keep"


def write_selector(folder: Path, fit: str) -> None:
    """A user's module ``mysel`` with a selector ``Mine`` whose ``fit`` runs ``fit``."""
    (folder / "mysel.py").write_text(textwrap.dedent(f"""\
        import numpy as np
        from sklearn.base import BaseEstimator
        from sklearn.feature_selection import SelectorMixin


        class Mine(SelectorMixin, BaseEstimator):
            def __init__(self, n_keep=3):
                self.n_keep = n_keep

            def fit(self, X, y):
                {fit}
                return self

            def _get_support_mask(self):
                return self.mask_
        """), encoding="utf-8")
