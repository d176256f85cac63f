"""Feature importance of any classifier: the decision-flip importance (000 eq. 6, 003 eq. 9).

For a classifier P on k_P features and n examples x_l,

    I(f) = (1/n) Σ_l k_P · I(f, x_l) / Σ_{f'} I(f', x_l),     I(f, x_l) = σ_f / δ(x_l, f),

with δ(x_l, f) "the smallest additive change (in absolute value) required to feature f such
that the decision of the predictive model P on example x_l changes" (003 §5.1). For a
linear model on unit-variance features it equals I_lin(f) = ‖w‖₀ |w_f| / ‖w‖₁ (003
Theorem 1; :func:`linear_importance`).

For a kernel SVM, :func:`kernel_svm_importance` gives the margin criterion of 003 eq. 8
(Guyon et al. 2002): how much W²(α) = ‖w‖² changes when feature f leaves the kernel.

Pure numpy: the classifier enters only through a ``predict`` callable (eq. 9) or its
support vectors and dual coefficients (eq. 8).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from paretostab._errors import InvalidInputError
from paretostab._validation import POSITIVE, Interval


def class_weight_norm(coef: np.ndarray) -> np.ndarray:
    """Per feature, the size of its weights: ``|w_f|`` of a binary model's weight vector,
    ``‖w_{·f}‖₂ = √(Σ_k w_kf²)`` over the rows of a K-class model's K × d weights (Guyon
    et al. 2002's multi-class SVM-RFE criterion Σ_k w_kf², as its square root)."""
    coef = np.asarray(coef)
    if coef.ndim == 2:
        return np.sqrt(np.einsum("kf,kf->f", coef, coef))
    return np.abs(coef)


def linear_importance(coef: np.ndarray) -> np.ndarray:
    """I_lin(f) = ‖w‖₀ |w_f| / ‖w‖₁ (003 eq. 7, 000 eq. 7), on standardised features.

    A K-class model's K × d weights give one weight per feature first,
    :func:`class_weight_norm` (a deviation for K > 2: the papers are binary). All zero when
    every weight is zero (e.g. only constant features were kept).
    """
    if np.ndim(coef) == 2:
        coef = class_weight_norm(coef)
    total = np.abs(coef).sum()
    if total == 0:
        return np.zeros_like(coef, dtype=float)
    return np.count_nonzero(coef) * np.abs(coef) / total


#: The search's parameters (:func:`flip_distances`).
_RTOL = Interval("number", 0, 1, "neither", why=" (the bisection's relative tolerance)")
_MAX_CHANGE = Interval("number", 0, closed="neither",
                       why=" (the search bound, in units of σ_f)")
_MIN_CHANGE = Interval("number", 0, closed="neither", why=" (the smallest change probed)")
_GROWTH = Interval("number", 1, closed="neither",
                   why=" (the ratio between successive probes)")


def _predict_labels(predict: Callable, points: np.ndarray) -> np.ndarray:
    labels = np.asarray(predict(points))
    if labels.shape != (points.shape[0],):
        raise InvalidInputError(
            f"predict must return one label per row: shape ({points.shape[0]},) for "
            f"{points.shape[0]} rows; got shape {labels.shape}."
        )
    return labels


def flip_distances(predict: Callable[[np.ndarray], ArrayLike], X: ArrayLike, *,
                   scale: ArrayLike | None = None, rtol: float = 1e-3,
                   max_change: float = 1e3, min_change: float = 1e-9,
                   growth: float = 2.0) -> np.ndarray:
    """δ(x_l, f): the smallest |additive change| of feature f that flips the decision on x_l.

    The δ of 000 eq. 6 and 003 eq. 9, searched along the feature axis in both directions,
    in units of ``σ_f`` (``scale``): probes at ``u = 1, g, g², …`` standard deviations
    (``g = growth``) until the decision changes (or ``1/g, 1/g², …`` while it already
    changes at 1), then
    bisection of the last bracket ``[lo, hi]`` (decision unchanged at ``lo``, changed at
    ``hi``) until ``hi − lo ≤ rtol · hi``; ``δ = hi``, the smallest change found to flip
    the decision. A direction stops early once the other one has flipped at a smaller
    change.

    Parameters
    ----------
    predict : callable
        ``predict(Z)`` returns one class label per row of ``Z`` (an array of shape
        ``(m, k)``, the examples with one feature changed); a decision flip is a change of
        label — with K > 2 classes, a change of the predicted class to any other (the
        first class boundary crossed along the axis). Pass ``lambda Z: decision(Z) > 0``
        to use a binary model's decision values, ``lambda Z: decision(Z).argmax(axis=1)``
        a K-class model's. Called with many rows at once (up to ``2 n k``), about
        ``log2(max_change) + log2(1/rtol)`` times.
    X : array (n, k)
        The examples x_l (e.g. the model's training data, as the papers do).
    scale : array (k,) of float ≥ 0, optional
        σ_f, the unit of the search and of eq. 9's numerator; default the standard
        deviation of each column of ``X`` (ddof 0). A feature with σ_f = 0 is not searched
        (δ = inf; its I(f, x_l) = 0).
    rtol : float in (0, 1)
        Relative tolerance of the bisection, which stops when ``hi − lo ≤ rtol · hi``:
        where the decision changes once along the direction, δ lies within a relative
        ``rtol`` above the exact value.
    max_change : float > 0
        Search bound, in units of σ_f: no flip within ``max_change · σ_f`` in either
        direction ⇒ δ = inf (the contribution I(f, x_l) is then 0).
    min_change : float > 0
        Smallest change probed, in units of σ_f: an example whose decision flips for every
        change down to it (it lies on the decision boundary) gets δ ≈ ``min_change · σ_f``.
    growth : float > 1
        Ratio between successive probes before the bisection. Irrelevant when the decision
        changes once along the axis (a linear model); for other classifiers a smaller
        ratio misses fewer narrow flip regions (see Notes), at more probes.

    Returns
    -------
    delta : array (n, k)
        δ(x_l, f) in the units of ``X`` (inf: no flip within the bound, or σ_f = 0).

    Notes
    -----
    Exact to ``rtol`` when the decision changes at most once along each direction of the
    axis (linear models, 003 Theorem 1; a K-class linear argmax too, its classes' regions
    being convex). Otherwise the search returns a flip inside the
    first probe bracket that contains one: a flip region narrower than the gap between two
    probes (``u`` to ``g·u``) can be missed. The returned δ is always a change that was
    seen to flip the decision, hence never below the true smallest change. Measured on a
    10-NN on 150 examples and 20 features (3 informative), against a 1.02 ratio: with
    ``growth=2``, 15 % of the δ exceed the reference by more than 1 % and importances
    differ by up to 0.20 (they sum to 20); with 1.25, 6.5 % and 0.05 at 1.5 times the
    predictions; with 1.1, 3 % and 0.03 at 2.7 times.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise InvalidInputError(
            f"X must be a non-empty 2-D array (examples × features); got shape {X.shape}."
        )
    if not np.all(np.isfinite(X)):
        raise InvalidInputError("X must contain only finite values; it has NaN or inf.")
    if not callable(predict):
        raise InvalidInputError(f"predict must be a callable returning labels; got {predict!r}.")
    rtol = _RTOL.number("rtol", rtol)
    max_change = _MAX_CHANGE.number("max_change", max_change)
    min_change = _MIN_CHANGE.number("min_change", min_change)
    growth = _GROWTH.number("growth", growth)
    if min_change >= max_change:
        raise InvalidInputError(
            f"min_change must be smaller than max_change; got min_change={min_change!r} and "
            f"max_change={max_change!r}."
        )
    n, k = X.shape
    if scale is None:
        sigma = X.std(axis=0)
    else:
        sigma = np.asarray(scale, dtype=float)
        if sigma.shape != (k,) or not np.all(np.isfinite(sigma)) or np.any(sigma < 0):
            raise InvalidInputError(
                f"scale must hold {k} finite values >= 0 (σ_f of each feature); got "
                f"{np.shape(scale)!r} {scale!r:.80}."
            )
    base = _predict_labels(predict, X)
    searched = np.flatnonzero(sigma > 0)
    # one search per (example, feature, direction), in units of σ_f
    example = np.tile(np.repeat(np.arange(n), searched.size), 2)
    feature = np.tile(np.tile(searched, n), 2)
    sign = np.repeat([1.0, -1.0], n * searched.size)
    pair = np.tile(np.arange(n * searched.size), 2)  # the (example, feature) of each search
    lo = np.zeros(sign.size)
    hi = np.full(sign.size, np.inf)
    best = np.full(n * searched.size, np.inf)  # smallest flip found per pair, both directions
    start = min(1.0, max_change)
    active = np.arange(sign.size)
    while active.size:
        a_lo, a_hi = lo[active], hi[active]
        probe = np.where(
            np.isinf(a_hi), np.where(a_lo > 0, np.minimum(a_lo * growth, max_change), start),
            np.where(a_lo > 0, (a_lo + a_hi) / 2, a_hi / growth))
        points = X[example[active]]
        points[np.arange(active.size), feature[active]] += (
            sign[active] * probe * sigma[feature[active]])
        flipped = _predict_labels(predict, points) != base[example[active]]
        hi[active] = np.where(flipped, probe, a_hi)
        lo[active] = np.where(flipped, a_lo, probe)
        np.minimum.at(best, pair[active[flipped]], probe[flipped])
        a_lo, a_hi = lo[active], hi[active]
        done = (
            (np.isinf(a_hi) & (a_lo >= max_change))  # no flip within the bound
            | ((a_lo == 0) & (a_hi / growth < min_change))  # flips at the smallest change
            | ((a_lo > 0) & np.isfinite(a_hi) & (a_hi - a_lo <= rtol * a_hi))  # bisection done
            | (a_lo >= best[pair[active]])  # the other direction flipped sooner
        )
        active = active[~done]
    delta = np.full((n, k), np.inf)
    delta[:, searched] = best.reshape(n, searched.size) * sigma[searched]
    return delta


def decision_flip_importance(predict: Callable[[np.ndarray], ArrayLike], X: ArrayLike, *,
                             scale: ArrayLike | None = None, rtol: float = 1e-3,
                             max_change: float = 1e3, min_change: float = 1e-9,
                             growth: float = 2.0) -> np.ndarray:
    """Decision-flip importance of each feature of a classifier (000 eq. 6, 003 eq. 9).

    ``I(f) = (1/n) Σ_l k_P · I(f, x_l) / Σ_{f'} I(f', x_l)`` with ``I(f, x_l) = σ_f /
    δ(x_l, f)`` and δ the smallest |additive change| of feature f that flips the
    classifier's decision on x_l (searched by :func:`flip_distances`; δ = inf ⇒
    I(f, x_l) = 0). For a linear model on unit-variance features this is
    ``‖w‖₀ |w_f| / ‖w‖₁`` (003 Theorem 1), to the bisection tolerance. With K > 2
    classes the decision is the predicted class and δ the smallest change that makes it
    another class (the papers are binary; this is the flip's K-class reading).

    Parameters
    ----------
    predict : callable
        ``predict(Z)`` returns one class label per row of ``Z`` (shape ``(m, k)``), of any
        number of classes; see :func:`flip_distances`.
    X : array (n, k)
        The examples x_l, typically the model's training data.
    scale : array (k,), optional
        σ_f; default the standard deviation of each column of ``X`` (1 on standardised
        data).
    rtol, max_change, min_change, growth : float
        The search's tolerance, bounds (units of σ_f) and probe ratio, see
        :func:`flip_distances`.

    Returns
    -------
    importance : array (k,) of float ≥ 0
        Sums to k_P whenever some decision flips, else all zero.

    Notes
    -----
    Two cases eq. 9 leaves open are decided so that the result behaves like I_lin:

    * k_P, "the number of features used by model P", is the number of features whose
      change flips at least one decision within the bound (the features with I(f) > 0).
      For a linear model these are the non-zero weights, so k_P = ‖w‖₀ as in Theorem 1,
      even when some weights are zero; the result sums to k_P like I_lin does.
    * An example whose decision no change of a single feature flips has Σ_f' I(f', x_l) =
      0 and an undefined (0/0) term: it is left out of the mean (n counts the examples
      with a defined term).
    """
    delta = flip_distances(predict, X, scale=scale, rtol=rtol, max_change=max_change,
                           min_change=min_change, growth=growth)
    X = np.asarray(X, dtype=float)
    sigma = X.std(axis=0) if scale is None else np.asarray(scale, dtype=float)
    with np.errstate(divide="ignore"):
        local = sigma / delta  # I(f, x_l); 0 where δ = inf
    total = local.sum(axis=1)
    defined = total > 0
    if not defined.any():
        return np.zeros(X.shape[1])
    share = local[defined] / total[defined, None]
    k_used = np.count_nonzero(local[defined].max(axis=0) > 0)
    return k_used * share.mean(axis=0)


KERNELS = ("rbf", "linear", "poly")

#: Elements of one (features × pairs) block of :func:`kernel_svm_importance` (2 MiB of
#: float64 per temporary): memory stays bounded whatever the number of features.
_BLOCK_ELEMENTS = 1 << 18
#: Support-vector pairs :func:`kernel_svm_importance` takes at once (about 50 bytes each
#: in its temporaries: 50 MiB), so that its memory stays bounded whatever the number of
#: support vectors; up to 1 448 of them (every papers' data set) are one block.
_PAIR_BLOCK = 1 << 20


def _pair_blocks(n: int, offset: int):
    """The pairs (k, l), l ≥ k + ``offset``, of n support vectors in row-major order (as
    ``np.triu_indices(n, offset)``), in blocks of whole rows k of at most
    :data:`_PAIR_BLOCK` pairs (at least one row): ``(first_row, stop_row, k, l)``."""
    per_row = np.maximum(n - offset - np.arange(n), 0)
    row = 0
    while row < n:
        stop = row + max(1, int(np.searchsorted(np.cumsum(per_row[row:]), _PAIR_BLOCK,
                                                side="right")))
        if row == 0 and stop >= n:
            yield 0, n, *np.triu_indices(n, offset)
            return
        first = np.repeat(np.arange(row, stop), per_row[row:stop])
        starts = np.cumsum(per_row[row:stop]) - per_row[row:stop]
        second = (np.arange(first.size) - np.repeat(starts, per_row[row:stop])
                  + first + offset)
        if first.size:  # not the last rows alone, which pair with nothing
            yield row, stop, first, second
        row = stop


def svc_gamma(gamma: object, X: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
    """γ of a kernel resolved as scikit-learn's ``SVC`` resolves it on its training data.

    ``"scale"``: ``1 / (d · Var(X))``, the variance of all entries of ``X`` (1 when it is
    0); ``"auto"``: ``1 / d``; a number: itself.

    Parameters
    ----------
    gamma : {"scale", "auto"} or float > 0
    X : array (n, d)
        The training data the SVM is (or will be) fitted on.
    sample_weight : array (n,) of float ≥ 0, optional
        Multiplicities of the rows of ``X`` (e.g. distinct examples of a bootstrap sample
        with their counts): ``"scale"`` then takes the variance of the data with each row
        repeated that many times — what ``SVC`` computes on the repeated rows.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise InvalidInputError(
            f"X must be a 2-D array with examples and features; got shape {X.shape}.")
    if isinstance(gamma, str):
        if gamma == "auto":
            return 1.0 / X.shape[1]
        if gamma == "scale":
            if sample_weight is None:
                var = X.var()
            else:
                weight = np.asarray(sample_weight, dtype=float)
                mean = np.average(X.mean(axis=1), weights=weight)
                var = np.average(((X - mean) ** 2).mean(axis=1), weights=weight)
            return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
    elif POSITIVE.accepts(gamma):
        return float(cast(float, gamma))
    raise InvalidInputError(
        f"gamma must be 'scale', 'auto' or a finite number > 0 (the kernel coefficient, as "
        f"scikit-learn's SVC); got {gamma!r}."
    )


def kernel_svm_importance(support_vectors: ArrayLike, dual_coef: ArrayLike, *,
                          kernel: str = "rbf", gamma: object = "scale", degree: int = 3,
                          coef0: float = 0.0, X: ArrayLike | None = None,
                          signed: bool = False) -> np.ndarray:
    """The non-linear SVM importance of 003 eq. 8 (Guyon et al. 2002, kernel SVM-RFE).

    ``I(f) = |W²(α) − W²_{−f}(α)|`` with ``W²(α) = Σ_{k,l} α_k α_l y_k y_l K(x_k, x_l)``,
    the squared norm of the SVM's weight vector in feature space, and ``W²_{−f}(α)`` the
    same sum with the kernel computed without feature f, the dual coefficients α kept
    fixed. 003 states eq. 8 up to a factor (``I_svm ∝``) and Guyon's DJ(f) carries ½; this
    is the sum itself, so that the linear kernel gives ``I(f) = w_f²``, Guyon's linear
    SVM-RFE criterion (the same ranking as I_lin, 003 eq. 7).

    Every d values cost ``O(n_sv² d)`` without recomputing a kernel matrix:

    * ``"linear"``, ``K = x·x'``: ``W²_{−f} = W² − w_f²`` with ``w = Σ_k α_k y_k x_k``;
    * ``"rbf"``, ``K = exp(−γ‖x − x'‖²)``: ``K_{−f} = K · exp(γ (x_f − x'_f)²)``, so
      ``W² − W²_{−f} = −Σ_{k≠l} α_k α_l y_k y_l K_kl expm1(γ (x_kf − x_lf)²)`` (the
      diagonal terms cancel);
    * ``"poly"``, ``K = (γ x·x' + c₀)^p``: with ``b = γ x·x' + c₀`` and ``a = b −
      γ x_f x'_f``, ``K − K_{−f} = b^p − a^p = γ x_f x'_f Σ_{j<p} a^j b^{p−1−j}``, free of
      the cancellation of the difference of two powers.

    Features are processed in blocks of at most 2¹⁸ feature × pair values (2 MiB).

    Parameters
    ----------
    support_vectors : array (n_sv, d)
        The support vectors x_k (scikit-learn's ``SVC.support_vectors_``), in the
        features the SVM was fitted on.
    dual_coef : array (n_sv,)
        ``α_k y_k`` (``SVC.dual_coef_[0]``; its sign convention is irrelevant).
    kernel : {"rbf", "linear", "poly"}
        The kernel, with ``gamma``, ``degree`` and ``coef0`` as scikit-learn's ``SVC``.
    gamma : {"scale", "auto"} or float > 0
        γ of the rbf and poly kernels, resolved by :func:`svc_gamma`; ``"scale"`` needs
        the SVM's training data ``X`` (not the support vectors alone).
    degree : int ≥ 0
        p of the poly kernel.
    coef0 : float
        c₀ of the poly kernel.
    X : array (n, d), optional
        The SVM's training data, to resolve ``gamma="scale"``.
    signed : bool
        Return ``W²(α) − W²_{−f}(α)`` without the absolute value: Guyon et al.'s DJ(f)
        (times 2), which removes the feature of smallest DJ, sign included. For the
        linear kernel it is w_f² ≥ 0 either way; for the others removing a feature can
        raise W² (negative values).

    Returns
    -------
    importance : array (d,) of float
        ≥ 0 unless ``signed``; 0 for a feature constant on the support vectors (rbf) or
        zero on them (linear, poly).
    """
    sv = np.asarray(support_vectors, dtype=float)
    coef = np.asarray(dual_coef, dtype=float)
    if coef.ndim == 2 and coef.shape[0] == 1:
        coef = coef[0]
    if sv.ndim != 2 or sv.shape[1] == 0 or coef.shape != (sv.shape[0],):
        raise InvalidInputError(
            "support_vectors must be a 2-D array (n_sv, d) with d > 0 and dual_coef hold one "
            f"value per support vector; got shapes {sv.shape} and {np.shape(dual_coef)}."
        )
    if not (np.all(np.isfinite(sv)) and np.all(np.isfinite(coef))):
        raise InvalidInputError("support_vectors and dual_coef must be finite; got NaN or inf.")
    if kernel not in KERNELS:
        raise InvalidInputError(
            f"kernel must be one of {', '.join(map(repr, KERNELS))}; got {kernel!r}."
        )
    n, d = sv.shape
    if kernel == "linear":
        return (coef @ sv) ** 2
    if gamma == "scale" and X is None:
        raise InvalidInputError(
            "gamma='scale' is resolved on the SVM's training data: pass X=, or the numeric "
            "gamma (see svc_gamma)."
        )
    g = svc_gamma(gamma, sv if X is None else X)
    if kernel == "poly":
        Interval("integer", 0).check("degree", degree)
        Interval("number").check("coef0", coef0)
    importance = np.zeros(d)
    if (kernel == "rbf" and n < 2) or (kernel == "poly" and degree == 0):
        return importance
    if kernel == "rbf":
        norms = np.einsum("ij,ij->i", sv, sv)
        # γ D ≤ γ (max_k x_kf − min_k x_kf)²: only features with a spread above 1 can have
        # pairs with γ D > 1 (looking for them everywhere costs a pass over each block)
        spread = g * (sv.max(axis=0) - sv.min(axis=0)) ** 2
    # features × support vectors; for rbf scaled by √γ, so that the squared differences
    # are γ D without another pass over the pairs
    columns = np.ascontiguousarray(sv.T) * (math.sqrt(g) if kernel == "rbf" else 1.0)
    # pairs (k, l), k < l for rbf (the diagonal cancels), k ≤ l for poly; weight ×2 off it
    for top, bottom, first, second in _pair_blocks(n, 0 if kernel == "poly" else 1):
        gram = sv[top:bottom] @ sv.T if top or bottom < n else sv @ sv.T
        pair_gram = gram[first - top, second]
        weight = np.where(first == second, 1.0, 2.0) * coef[first] * coef[second]
        if kernel == "rbf":
            dist2 = np.maximum(norms[first] + norms[second] - 2 * pair_gram, 0.0)
            K = np.exp(-g * dist2)
            weight_K = weight * K
        else:
            b = g * pair_gram + coef0
        block = max(1, _BLOCK_ELEMENTS // first.size)
        for start in range(0, d, block):
            rows = columns[start:start + block]
            if kernel == "rbf":
                # K_{−f} − K = K expm1(γ D), D = (x_kf − x_lf)²
                scaled = np.take(rows, first, axis=1)
                scaled -= np.take(rows, second, axis=1)
                np.square(scaled, out=scaled)
                wide = np.flatnonzero(spread[start:start + block] > 1.0)
                far = np.nonzero(scaled[wide] > 1.0)
                far = (wide[far[0]], far[1])
                if far[0].size:  # there K · expm1(γD) may overflow: exp(−γ(‖x − x'‖² − D)) − K
                    exact = weight[far[1]] * (
                        np.exp(-np.maximum(g * dist2[far[1]] - scaled[far], 0.0)) - K[far[1]])
                    np.minimum(scaled, 1.0, out=scaled)
                np.expm1(scaled, out=scaled)
                change = scaled @ weight_K  # W²_{−f} − W²
                if far[0].size:
                    change += np.bincount(far[0], weights=exact - weight_K[far[1]] * scaled[far],
                                          minlength=rows.shape[0])
                change = -change
            else:
                # K − K_{−f} = b^p − a^p = γ x_f x'_f Σ_{j<p} a^j b^{p−1−j}, a = b − γ x_f x'_f
                product = np.take(rows, first, axis=1)
                product *= np.take(rows, second, axis=1)
                product *= g
                a = b - product
                total = np.ones_like(a)  # Horner's rule in a
                power = np.ones(b.size)
                for _ in range(int(degree) - 1):
                    power = power * b
                    total *= a
                    total += power
                change = (product * total) @ weight  # W² − W²_{−f}
            if top == 0:
                importance[start:start + block] = change
            else:
                importance[start:start + block] += change
    return importance if signed else np.abs(importance)


__all__ = ["class_weight_norm", "decision_flip_importance", "flip_distances",
           "kernel_svm_importance", "svc_gamma"]
