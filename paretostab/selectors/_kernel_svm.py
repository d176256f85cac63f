"""Kernel SVM-RFE (Guyon et al. 2002; 003 §5.1 eq. 8): recursive feature elimination with
non-linear SVMs, ranking the features by how much the margin criterion W²(α) drops when
each is removed from the kernel (:func:`paretostab._importance.kernel_svm_importance`).

Penalty convention of the package (see :mod:`paretostab.selectors._hybrid_rfe`): ``reg=λ``
is the loss ``Σ_l max(0, 1 − y_l f(x_l)) + λ‖w‖²`` (‖w‖ the norm in the kernel's feature
space, intercept unpenalised) — scikit-learn's ``SVC(C=1/(2λ))``.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.svm import SVC

from paretostab._errors import InvalidInputError
from paretostab._importance import KERNELS, kernel_svm_importance, linear_importance, svc_gamma
from paretostab._validation import is_number
from paretostab.selectors._base import SelectorBase, check_int, check_positive
from paretostab.selectors._rfe import check_step, elimination_ranks, n_dropped


class KernelSVMRFE(SelectorBase):
    """Recursive feature elimination with kernel SVMs and the eq. 8 importance (003 §5.1).

    On the standardised features F (all of them at first), fit ``SVC(kernel, C=1/(2 reg))``,
    compute each feature's importance ``|W²(α) − W²_{−f}(α)|`` (003 eq. 8, Guyon et al.
    2002) and drop the ``min(max(1, ⌊step · |F|⌋), |F| − k)`` features of smallest
    importance (ties: the higher feature index first); repeat until ``n_features`` (k)
    remain, then fit the final ``SVC(C=1/(2 final_reg))`` on them. For ``kernel="linear"``
    the importance is w_f², Guyon's SVM-RFE criterion (the ranking of
    ``HybridRFE(loss="hinge")``, whose liblinear solver also penalises the intercept).

    With K > 2 classes every step fits K binary SVMs, one per one-vs-rest problem (class k
    against the rest; scikit-learn's ``SVC`` alone would be one-vs-one), and the criterion
    of a feature is the sum over them, ``Σ_k |W_k²(α) − W²_{k,−f}(α)|`` (``Σ_k w_kf²`` for
    the linear kernel: Guyon et al. 2002's multi-class SVM-RFE), or the sum of the signed
    differences for ``criterion="signed"``; the decision values are the K SVMs'
    (n × K, the largest wins).

    Parameters
    ----------
    n_features : int
        k, the number of features selected.
    kernel : {"rbf", "linear", "poly"}
        The SVM kernel, as scikit-learn's ``SVC``.
    reg, final_reg : float > 0
        λ during the elimination and λ_f of the final model (``C = 1/(2λ)``).
    gamma : {"scale", "auto"} or float > 0
        γ of the rbf and poly kernels, as ``SVC``: ``"scale"`` is ``1 / (|F| · Var(X_F))``
        on the current features F — about ``1/|F|`` on standardised data, a kernel width
        that follows the number of features through the elimination; a number is the
        same γ at every step.
    gamma_factor : float > 0
        Multiplies γ (after resolving ``"scale"``/``"auto"``): the width to tune, relative
        to the data's dimension (the registry searches it; 1 is ``SVC(gamma="scale")``).
    degree : int ≥ 1
        p of the poly kernel ``(γ x·x' + coef0)^p``.
    coef0 : float
        Independent term of the poly kernel.
    step : float in (0, 1)
        Fraction of the remaining features dropped per iteration (at least one, never
        below k), as :class:`~paretostab.selectors.HybridRFE`.
    criterion : {"absolute", "signed"}
        What the elimination ranks by: ``"absolute"`` is eq. 8, ``|W²(α) − W²_{−f}(α)|``
        (003, SPEC §1); ``"signed"`` is Guyon et al.'s DJ(f) ∝ ``W²(α) − W²_{−f}(α)``,
        sign included (a feature whose removal raises W² goes first). The same for the
        linear kernel. ``importances_`` is eq. 8 on the final SVM either way.
    tol : float > 0
        libsvm's stopping tolerance.

    Attributes
    ----------
    support_ : bool array (d,)
    importances_ : float array (d,) ≥ 0
        Eq. 8 on the final SVM (summed over the K one-vs-rest SVMs with K > 2), scaled
        (003 states eq. 8 up to a factor) to sum to the number k_P of features with a
        non-zero value, like I_lin (003 eq. 7); 0 outside the support.
    margin_importances_ : float array (d,) ≥ 0
        The unscaled ``|W²(α) − W²_{−f}(α)|`` of the final SVM (its sum over the K
        one-vs-rest SVMs with K > 2; 0 outside the support).
    ranking_ : int array (d,)
        scikit-learn's RFE convention: 1 = kept, larger = dropped earlier.
    rank_order_ : int array (d,)
        A full ranking 1..d without ties: the kept features by decreasing final
        importance, then the others by reverse elimination order, within a step by
        decreasing importance in their last model, then by index.
    step_importances_ : float array (d,)
        Each dropped feature's criterion (eq. 8, or DJ for ``criterion="signed"``) in the
        last SVM that contained it; the final SVM's eq. 8 for the kept features.
    estimator_ : sklearn.svm.SVC, or list of K of them
        The final SVM, on the selected standardised features, labels ±1 (+1 is
        ``classes_[1]``); its ``dual_coef_`` is ``α_k y_k``. With K > 2 classes the K
        one-vs-rest SVMs (+1: ``classes_[k]``), in the order of ``classes_``.
    gamma_ : float
        γ of the final SVM (1 for the linear kernel, which ignores it).
    classes_, mean_, scale_, n_features_in_

    Notes
    -----
    Deterministic. Each SVM is fitted on the distinct examples of the training sample with
    their multiplicities as sample weights (``C_l = C · count_l``, the same dual problem
    as on the repeated rows); ``"scale"`` takes the variance with the repetitions. Constant
    features (standardised to 0) have importance 0 and are dropped first.
    ``predict_proba`` is not offered (an SVM gives decision values; ``roc_auc`` uses
    ``decision_function``).
    """

    def __init__(self, n_features=20, kernel="rbf", reg=1.0, final_reg=1.0, gamma="scale",
                 gamma_factor=1.0, degree=3, coef0=0.0, step=0.2, criterion="absolute",
                 tol=1e-5):
        self.n_features = n_features
        self.kernel = kernel
        self.reg = reg
        self.final_reg = final_reg
        self.gamma = gamma
        self.gamma_factor = gamma_factor
        self.degree = degree
        self.coef0 = coef0
        self.step = step
        self.criterion = criterion
        self.tol = tol

    def _validate(self, d: int) -> None:
        check_int("n_features", self.n_features, 1, d,
                  f"the number of features to select, at most the {d} features of X")
        if not isinstance(self.kernel, str) or self.kernel not in KERNELS:
            raise InvalidInputError(
                f"kernel must be one of {', '.join(map(repr, KERNELS))}; got {self.kernel!r}."
            )
        check_positive("reg", self.reg)
        check_positive("final_reg", self.final_reg)
        check_positive("gamma_factor", self.gamma_factor)
        check_positive("tol", self.tol)
        if not (self.gamma in ("scale", "auto") or (
                is_number(self.gamma) and 0 < self.gamma < math.inf)):
            raise InvalidInputError(
                f"gamma must be 'scale', 'auto' or a finite number > 0; got {self.gamma!r}."
            )
        check_int("degree", self.degree, 1, 100, "the degree of the poly kernel")
        if not is_number(self.coef0) or not math.isfinite(self.coef0):
            raise InvalidInputError(f"coef0 must be a finite number; got {self.coef0!r}.")
        check_step(self.step)
        if self.criterion not in ("absolute", "signed"):
            raise InvalidInputError(
                f"criterion must be 'absolute' (003 eq. 8) or 'signed' (Guyon's DJ); got "
                f"{self.criterion!r}."
            )

    def _fit_svm(self, X, signs, counts, reg, gamma) -> tuple[SVC, np.ndarray]:
        """One binary SVM on ``X`` and its ``W²(α) − W²_{−f}(α)`` (signed)."""
        svm = SVC(kernel=self.kernel, C=1 / (2 * reg), gamma=gamma, degree=self.degree,
                  coef0=self.coef0, tol=self.tol)
        svm.fit(X, signs, sample_weight=counts)
        importance = kernel_svm_importance(svm.support_vectors_, svm.dual_coef_[0],
                                           kernel=self.kernel, gamma=gamma,
                                           degree=self.degree, coef0=self.coef0, signed=True)
        return svm, importance

    def _fit_svms(self, X, signs, counts, reg):
        """The SVM(s) on ``X`` (the current features), ``W²(α) − W²_{−f}(α)`` (signed) and
        γ: one SVM for ±1 ``signs``; for an n × K matrix of them one SVM per one-vs-rest
        column (K × m differences), all with the same γ."""
        gamma = (1.0 if self.kernel == "linear"
                 else self.gamma_factor * svc_gamma(self.gamma, X, sample_weight=counts))
        if signs.ndim == 1:
            svm, importance = self._fit_svm(X, signs, counts, reg, gamma)
            return svm, importance, gamma
        fits = [self._fit_svm(X, column, counts, reg, gamma) for column in signs.T]
        return [svm for svm, _ in fits], np.array([value for _, value in fits]), gamma

    def _select(self, sample):
        d = sample.n_features
        self._validate(d)
        k = self.n_features
        X, signs, counts = sample.distinct
        features = np.arange(d)
        dropped_at = np.zeros(d, dtype=np.int64)
        step_importance = np.zeros(d)
        pruning = 0
        while features.size > k:
            _, difference, _ = self._fit_svms(X[:, features], signs, counts, self.reg)
            importance = _summed(difference, absolute=self.criterion == "absolute")
            step_importance[features] = importance
            size = features.size
            n_drop = n_dropped(self.step, size, k)
            order = np.argsort(-importance, kind="stable")  # ties: lower index first
            pruning += 1
            dropped = order[size - n_drop:]
            dropped_at[features[dropped]] = pruning
            features = np.delete(features, dropped)
        svm, difference, gamma = self._fit_svms(X[:, features], signs, counts, self.final_reg)
        self.estimator_, self.gamma_ = svm, gamma
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[features] = True
        importance = _summed(difference, absolute=True)  # eq. 8
        step_importance[features] = importance
        self.step_importances_ = step_importance
        self.margin_importances_ = np.zeros(d)
        self.margin_importances_[features] = importance
        self.importances_ = np.zeros(d)  # rescaled as I_lin: ‖I‖₀ I_f / ‖I‖₁
        self.importances_[features] = linear_importance(importance)
        self.ranking_, self.rank_order_ = elimination_ranks(self.support_, dropped_at,
                                                            step_importance)

    def _decision(self, X_selected: np.ndarray) -> np.ndarray:
        if isinstance(self.estimator_, list):  # K > 2: one column per one-vs-rest SVM
            return np.column_stack([svm.decision_function(X_selected)
                                    for svm in self.estimator_])
        return self.estimator_.decision_function(X_selected)


def _summed(difference: np.ndarray, *, absolute: bool) -> np.ndarray:
    """The elimination criterion from ``W²(α) − W²_{−f}(α)``: its absolute value (eq. 8) or
    the signed difference, summed over the rows of K one-vs-rest SVMs (K × m)."""
    value = np.abs(difference) if absolute else difference
    return value.sum(axis=0) if value.ndim == 2 else value


__all__ = ["KernelSVMRFE"]
