"""The chosen trade-off as a model for new samples: a scikit-learn ``Pipeline`` of the
spec's variance pre-filter (when it has one) and the trial's selector at its setting,
whose final model classifies (SPEC §1: a selector fits its final model on the features it
keeps), fitted on the whole (development) data with the features' names.

:class:`VariancePrefilter` is the pre-filter of 000 §6.2 and 003 §7.1 as a scikit-learn
selector (the protocol computes the same columns on each run's training sample:
:func:`~paretostab.data.variance_prefilter`); :func:`final_model` builds and fits the
pipeline.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted, validate_data

from paretostab.data import check_prefilter, variance_prefilter

__all__ = ["VariancePrefilter", "final_model"]


class VariancePrefilter(SelectorMixin, BaseEstimator):
    """Keep the ``n_kept`` features of highest sample variance (000 §6.2, 003 §7.1; ties:
    lower index first, as :func:`~paretostab.data.variance_prefilter`).

    Parameters
    ----------
    n_kept : int
        The features kept, in ``1..d``.

    Attributes
    ----------
    support_ : bool array (d,)
        The features kept.
    n_features_in_ : int
    feature_names_in_ : array of str
        When fitted on a DataFrame.
    """

    def __init__(self, n_kept: int = 1000) -> None:
        self.n_kept = n_kept

    def fit(self, X, y=None):
        """Compute the features of highest variance in ``X``.

        Parameters
        ----------
        X : array-like (n, d)
        y : ignored
        """
        X = validate_data(self, X, dtype=float)
        columns = variance_prefilter(X, check_prefilter(self.n_kept, X.shape[1]))
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[columns] = True
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_


def final_model(selector: object, X: np.ndarray, y: np.ndarray,
                feature_names: Sequence[str], *, prefilter: int | None) -> Pipeline:
    """The pipeline (``prefilter`` and ``selector``) fitted on ``X`` as a DataFrame whose
    columns are ``feature_names``: it keeps their names (``feature_names_in_``), and
    scikit-learn refuses data whose columns differ.

    Parameters
    ----------
    selector : estimator
        The trial's selector at its setting (:meth:`~paretostab._problem.Problem.
        estimator`), not fitted; with a pre-filter, feature groups it takes are those of
        the columns the pre-filter keeps on ``X``.
    X : float array (n, d)
    y : array (n,)
    feature_names : sequence of str
    prefilter : int or None
        The spec's pre-filter (``[data] prefilter``).
    """
    steps: list[tuple[str, object]] = []
    if prefilter:
        steps.append(("prefilter", VariancePrefilter(prefilter)))
        groups = selector.get_params().get("groups")  # type: ignore[attr-defined]
        if groups is not None:  # the groups of the columns kept, as in a run
            selector.set_params(  # type: ignore[attr-defined]
                groups=np.asarray(groups)[variance_prefilter(X, prefilter)])
    steps.append(("selector", selector))
    return Pipeline(steps).fit(pd.DataFrame(X, columns=list(feature_names)), y)
