"""The kernel SVM importance of 003 eq. 8 against its brute-force recomputation.

Run from the repository root::

    python benchmarks/bench_kernel_svm.py               # singh, 5 000 features of highest variance
    python benchmarks/bench_kernel_svm.py --brute 500   # the brute force on 500 features only

On ``../shared/data/singh.csv.gz`` (102 × 12 600; the benchmark says so and stops when it
is absent), standardised and reduced to the ``--features`` of highest variance, an
``SVC(C=0.5)`` is fitted for each kernel (rbf and poly of degree 3, γ = "scale"). Then, in
the same run, BLAS on one thread:

* ``kernel_svm_importance`` (:mod:`paretostab._importance`), best of ``--repeats``: every
  feature's ``W²(α) − W²_{−f}(α)`` in O(n_sv² d);
* the brute force: ``W²_{−f}(α)`` with the kernel matrix recomputed by scikit-learn's
  ``pairwise_kernels`` without feature f, for the first ``--brute`` features (all by
  default), then scaled to all d features.

It prints the ratio and the largest difference relative to W²(α). Then it shows where a
``KernelSVMRFE`` fit (k = 20, step 0.2, from all d features) spends its time: the SVM fits
against the eq. 8 importance.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paretostab._importance import kernel_svm_importance, svc_gamma  # noqa: E402
from paretostab.data import load_dataset  # noqa: E402
from paretostab.selectors import KernelSVMRFE  # noqa: E402
from paretostab.selectors import _kernel_svm as kernel_svm_module  # noqa: E402

KERNELS = [("rbf", {}), ("poly", {"degree": 3, "coef0": 1.0})]


def brute_force(sv, coef, kernel, params, features) -> np.ndarray:
    """W²(α) − W²_{−f}(α) for ``features``, each from a kernel matrix recomputed without f."""
    def w2(Z):
        return coef @ pairwise_kernels(Z, metric=kernel, filter_params=True, **params) @ coef
    full = w2(sv)
    return np.array([full - w2(np.delete(sv, f, axis=1)) for f in features])


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return time.perf_counter() - start, value


def rfe_breakdown(X, y) -> tuple[float, float, float, int]:
    """Wall time of one KernelSVMRFE fit, and the part in SVC.fit and in eq. 8."""
    spent = {"fit": 0.0, "importance": 0.0, "steps": 0}
    svm_fit, importance = SVC.fit, kernel_svm_module.kernel_svm_importance

    def timed_fit(self, *args, **kwargs):
        seconds, value = timed(svm_fit, self, *args, **kwargs)
        spent["fit"] += seconds
        return value

    def timed_importance(*args, **kwargs):
        seconds, value = timed(importance, *args, **kwargs)
        spent["importance"] += seconds
        spent["steps"] += 1
        return value

    SVC.fit, kernel_svm_module.kernel_svm_importance = timed_fit, timed_importance
    try:
        total, _ = timed(KernelSVMRFE(n_features=20).fit, X, y)
    finally:
        SVC.fit, kernel_svm_module.kernel_svm_importance = svm_fit, importance
    return total, spent["fit"], spent["importance"], spent["steps"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "singh.csv.gz"))
    parser.add_argument("--features", type=int, default=5000)
    parser.add_argument("--brute", type=int, default=None,
                        help="features recomputed by the brute force (default: all)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if not Path(args.data).exists():
        sys.exit(f"{args.data} not found: the benchmark reads the shared singh data set.")
    data = load_dataset(args.data)
    top = np.sort(np.argsort(-data.X.var(axis=0), kind="stable")[:args.features])
    X = data.X[:, top]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    d = X.shape[1]
    brute = d if args.brute is None else min(args.brute, d)
    print(f"{data.name} {data.X.shape} → {d} features of highest variance, standardised; "
          f"brute force on {brute} features, scaled to {d}; eq. 8 best of {args.repeats}\n")
    print("| kernel | n_sv | eq. 8 s | brute force s (all d) | brute / eq. 8 "
          "| max difference / W² |")
    print("|---|---|---|---|---|---|")
    with threadpool_limits(1):
        for kernel, options in KERNELS:
            params = {"gamma": svc_gamma("scale", X), **options}
            svm = SVC(kernel=kernel, C=0.5, **params).fit(X, data.y)
            sv, coef = svm.support_vectors_, svm.dual_coef_[0]
            fast_times = []
            for _ in range(args.repeats):
                seconds, fast = timed(kernel_svm_importance, sv, coef, kernel=kernel,
                                      signed=True, **params)
                fast_times.append(seconds)
            seconds, slow = timed(brute_force, sv, coef, kernel, params, range(brute))
            full = coef @ pairwise_kernels(sv, metric=kernel, filter_params=True,
                                           **params) @ coef
            slow_all = seconds * d / brute
            difference = np.abs(fast[:brute] - slow).max() / abs(full)
            print(f"| {kernel} | {sv.shape[0]} | {min(fast_times):.3f} | {slow_all:.1f} "
                  f"| {slow_all / min(fast_times):.0f}× | {difference:.1e} |")
        total, fits, importance, steps = rfe_breakdown(X, data.y)
    print(f"\nKernelSVMRFE(k = 20, rbf, step 0.2) from {d} features: {total:.2f} s, "
          f"{steps} SVMs; SVC.fit {fits:.2f} s ({fits / total:.0%}), eq. 8 "
          f"{importance:.2f} s ({importance / total:.0%}), the rest "
          f"{total - fits - importance:.2f} s")


if __name__ == "__main__":
    main()
