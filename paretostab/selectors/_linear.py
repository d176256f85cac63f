"""Sparse logistic selectors: lasso / elastic net and group lasso, with λ calibrated to k̄.

With two classes, both minimise, on standardised features with an unpenalised intercept
``b``,

    Σ_i log(1 + exp(−y_i (w·x_i + b))) + penalty(w),          y_i ∈ {−1, +1},

* :class:`ElasticNetSelector` (000 §6.2, 003 §7.2, eq. 19):
  ``penalty = λ₁(λ₂‖w‖₁ + (1 − λ₂)‖w‖²)`` with ``reg=λ₁``, ``l1_ratio=λ₂`` — the lasso
  for λ₂ = 1 (003 §7.2.1). It is scikit-learn's ``LogisticRegression`` with

      C = 1 / (λ₁ (2 − λ₂)),     l1_ratio = λ₂ / (2 − λ₂),     solver="saga",

  because scikit-learn minimises ``C Σ loss + ρ‖w‖₁ + (1 − ρ)/2 ‖w‖²`` (ρ its
  ``l1_ratio``): dividing by C, ``ρ/C = λ₁λ₂`` and ``(1 − ρ)/(2C) = λ₁(1 − λ₂)``. λ₂ = 1 gives
  ``C = 1/λ₁, l1_ratio = 1``; λ₂ → 0 gives the package's L2 convention ``C = 1/(2λ)``.
  Solved by FISTA (:func:`group_fista` with singleton groups and the ridge λ₁(1 − λ₂)) by
  default, or by that scikit-learn estimator itself with ``solver="saga"`` (two classes).
* :class:`GroupLassoSelector` (000 §6.1): ``penalty = λ Σ_g √p_g ‖w_g‖₂`` over the groups
  of ``groups`` (p_g the group's size; a feature labelled
  :data:`~paretostab.data.UNGROUPED` (−1) is a group of its own, see
  :func:`~paretostab.data.group_indices`), solved by FISTA (written here).

**K > 2 classes** (both): the multinomial logistic loss
``Σ_i [log Σ_k e^{z_ik} − z_{i,y_i}]``, ``z_i = Wᵀx_i + b`` (W: d × K, b: K unpenalised
intercepts), with the *grouped* penalty — each feature's K weights ``W_f`` penalised
together by ``‖W_f‖₂`` (elastic net: ``λ₁(λ₂ Σ_f ‖W_f‖₂ + (1 − λ₂)‖W‖_F²)``; group lasso:
``λ Σ_g √p_g ‖W_g‖_F``, W_g the p_g × K block of group g). This is glmnet's
``family = "multinomial", type.multinomial = "grouped"`` (Friedman, Hastie & Tibshirani
2010, J. Stat. Softw. 33(1), §4): a feature is selected for all classes or none, so one λ
gives one support and the calibration to k̄ counts features as with two classes —
one-vs-rest lassos would select per class, their union not governed by one λ. Same
working sets and FISTA (:mod:`~paretostab.selectors._group_fista`), the unit norms taken
over the K columns; no scikit-learn equivalent (its multinomial L1 is not grouped), so
``solver="saga"`` is refused. Two classes keep the logistic problem above, unchanged.

**Working sets** (both). With k̄ = 20 of d = 5 000 features, the solution is sparse: each
fit solves the problem on a small working set of penalty units (features; groups) and
checks the optimality (KKT) conditions of every unit outside it in one pass,
``‖∇_g loss‖ ≤ λ u_g (1 + 1e-6)`` (u_g = λ₂ for a feature, √p_g for a group), from the
loss gradient ``Xᵀr`` at the solution; violators are added, the most violating first, at
most ``max(10, |working set|)`` at a time, and the fit repeats. At exit the KKT conditions
of the *full* problem hold (to the inner solver's tolerance inside the working set, to
1e-6 relative outside), so the solution is the full problem's, at the cost of a few
small fits and gradients. Bootstrap samples are handled as their distinct rows with
multiplicities as weights (the same loss; see ``_base.distinct_rows``) — except inside
saga, whose step size ignores sample weights (with a multiplicity of 5 it stalls for its
whole ``max_iter``; scikit-learn #31536): it gets the repeated rows.

**Calibration**. ``target_features=k̄`` with ``reg=None`` makes ``fit`` search the λ that
selects exactly k̄ features on its training data (:func:`_search`: safeguarded false
position on log λ with warm starts, from the λ above which nothing is selected); the
method ``calibrate(X, y, samples)`` finds one λ such that the *mean* number of selected
features over the M resampling runs is k̄ ± 1 (000 §6.2, 003 §7.2), see
:func:`calibrate_runs`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import softmax
from sklearn.utils.validation import check_array

from paretostab._errors import CalibrationWarning, InvalidInputError
from paretostab._importance import class_weight_norm, linear_importance
from paretostab._validation import Interval
from paretostab.data import group_indices
from paretostab.selectors._base import (
    LogisticModelMixin,
    SelectorBase,
    TrainingSample,
    check_int,
    check_positive,
    single_threaded,
)
from paretostab.selectors._group_fista import (
    classification_loss,
    group_fista,
)
from paretostab.selectors._logistic import fit_l2_logistic
from paretostab.selectors._sparse_problem import (
    ElasticNetPenalty,
    GroupLassoPenalty,
    Penalty,
    Solution,
    SparseProblem,
    run_problem,
    sample_problem,
    solve,
)

#: Working-set solvers of :class:`ElasticNetSelector`.
#: The elastic net's L1 share.
L1_RATIO = Interval("number", 0, 1, "right",
                    why=" (λ₂, the L1 share; 1 = lasso, 0 would select every feature)")

SOLVERS = ("fista", "saga")
#: Relative width in λ below which a calibration bracket counts as collapsed: the target
#: count lies between two counts that one λ cannot separate (features entering together).
LAMBDA_RTOL = 1e-6
#: Smallest λ a calibration tries, relative to the λ above which nothing is selected.
LAMBDA_FLOOR = 1e-4
#: Memory for the runs' problems (standardised distinct rows) that a calibration keeps
#: between its evaluations; it reads the others again from its samples at each one.
CACHE_BYTES = 768 * 2**20
#: Largest number of λ values a calibration tries.
MAX_EVALUATIONS = 60


# --------------------------------------------------------------------------- calibration


def _search(evaluate: Callable[[float], float], target: float, tolerance: float,
            lam0: float, lam_max: float, step: float = math.log(2)) -> tuple[float, float, int]:
    """λ with ``|evaluate(λ) − target| ≤ tolerance`` for a count that decreases with λ.

    Starts at ``lam0``; while one side of the target is unbracketed, moves log λ by
    ``step`` towards it, doubling the step each time, or by less when the secant through
    the last two points predicts the target sooner (within [``lam_max`` ×
    :data:`LAMBDA_FLOOR`, ``lam_max``], the count being 0 at ``lam_max``); once
    bracketed, false position on log λ, the point kept in the middle 70 % of the bracket
    and replaced by the midpoint when the same end moved twice in a row. Stops when the
    tolerance is met, the bracket is narrower than :data:`LAMBDA_RTOL` relative, or after
    :data:`MAX_EVALUATIONS`; then returns the closest count seen (equally close: the larger
    count, so that a tie never empties the selection; then the larger λ). Returns (λ,
    count, evaluations).
    """
    top = math.log(lam_max)
    bottom = top + math.log(LAMBDA_FLOOR)
    x = min(max(math.log(lam0), bottom), top)
    lo = hi = None  # (log λ, count) with count > target, resp. < target
    best = previous = None
    last_moved = None

    def expansion() -> float:
        """The next move while unbracketed: the doubling step, or less when the secant
        through the last two points predicts the target (× 1.25, to overshoot a little)."""
        nonlocal step
        move = step
        if previous is not None and previous[1] != count and previous[0] != x:
            slope = abs((count - previous[1]) / (x - previous[0]))
            move = min(step, max(1.25 * abs(target - count) / slope, 1e-3))
        step *= 2
        return move

    for evaluation in range(1, MAX_EVALUATIONS + 1):
        count = evaluate(math.exp(x))
        key = (abs(count - target), -count, -x)
        if best is None or key < best[0]:
            best = (key, x, count)
        if abs(count - target) <= tolerance:
            return math.exp(x), count, evaluation
        moved = "lo" if count > target else "hi"
        if moved == "lo":
            lo = (x, count)
        else:
            hi = (x, count)
        if lo is None:
            if x <= bottom:
                break
            move = expansion()
            previous = (x, count)
            x = max(x - move, bottom)
        elif hi is None:
            if x >= top:
                break
            move = expansion()
            previous = (x, count)
            x = min(x + move, top)
        else:
            if hi[0] - lo[0] <= LAMBDA_RTOL:
                break
            if moved == last_moved:
                fraction = 0.5
            else:
                fraction = min(max((lo[1] - target) / (lo[1] - hi[1]), 0.15), 0.85)
            x = lo[0] + fraction * (hi[0] - lo[0])
        last_moved = moved
    else:
        evaluation = MAX_EVALUATIONS
    assert best is not None  # MAX_EVALUATIONS >= 1 evaluations were made
    return math.exp(best[1]), best[2], evaluation


def _screening_guess(penalty: Penalty, problem: SparseProblem, target: float) -> float:
    """The λ at which the target count would be reached if the gradients did not move
    (the units' scores at the null model, strongest first), halved: the entries lower the
    other units' gradients, so the true λ is smaller."""
    gradient = problem.gradient(np.zeros(0, dtype=np.int64), problem.no_weights,
                                problem.null_intercept)
    score = penalty.unit_norms(gradient) / penalty.unit_weights
    order = np.argsort(-score, kind="stable")
    reached = np.searchsorted(np.cumsum(penalty.sizes[order]), target)
    value = score[order[min(int(reached), order.size - 1)]]
    return float(value) / 2 if value > 0 else 1.0


class _WarmStarts:
    """Every solution computed for one problem; a fit starts from the nearest in log λ."""

    def __init__(self):
        self.solutions: list[Solution] = []

    def at(self, reg: float) -> Solution | None:
        """The solution computed at exactly ``reg``, if any."""
        return next((s for s in self.solutions if s.reg == reg), None)

    def solve(self, problem: SparseProblem, penalty: Penalty, reg: float) -> Solution:
        start = min(self.solutions, key=lambda s: abs(math.log(s.reg / reg)), default=None)
        if start is not None and start.reg == reg:
            return start
        solution = solve(problem, penalty, reg, start)
        solution.gradient = None  # recomputed from the weights when used again
        self.solutions.append(solution)
        return solution


class _Runs:
    """The runs of a calibration, each read from ``samples`` when a fit needs it.

    Per run, only what the search reuses stays in memory: its warm starts (the compact
    solutions at the λ tried: its λ → count path), its λ_max and its penalty (shared by the
    runs of the same width). A run's problem — its standardised distinct rows, a prepared
    :class:`TrainingSample`'s own or built from indices — is kept while the kept ones
    total at most :data:`CACHE_BYTES` (the first runs read: the subset's), else read again
    from ``samples`` at each fit (a sequence may prepare the run again then). Samples are
    checked when first read.
    """

    def __init__(self, selector: _SparseLogisticBase, X: np.ndarray, y: np.ndarray,
                 samples: Sequence):
        self.selector, self.X, self.y, self.samples = selector, X, y, samples
        self.warm = [_WarmStarts() for _ in range(len(samples))]
        self.penalties: dict[int, Penalty] = {}
        self.lam_maxes: dict[int, float] = {}
        self.fits = 0
        self._kept: dict[int, SparseProblem] = {}
        self._kept_bytes = 0
        self._shared_penalties: dict[tuple, Penalty] = {}

    def problem(self, i: int) -> SparseProblem:
        """Run i's problem (its λ_max and penalty set on the first read)."""
        problem = self._kept.get(i)
        if problem is not None:
            return problem
        sample = self.samples[i]
        if isinstance(sample, TrainingSample):
            problem, columns = sample_problem(sample), sample.columns
        else:
            rows, columns = sample if isinstance(sample, tuple) else (sample, None)
            rows = _check_indices(f"samples[{i}] rows", rows, self.X.shape[0])
            if columns is not None:
                columns = _check_indices(f"samples[{i}] columns", columns, self.X.shape[1])
            problem = run_problem(self.X, self.y, rows if columns is None else (rows, columns))
        if self._kept_bytes + problem.X.nbytes <= CACHE_BYTES:
            self._kept[i] = problem
            self._kept_bytes += problem.X.nbytes
        if i not in self.penalties:
            self.penalties[i] = self._penalty(i, problem.X.shape[1], columns)
            self.lam_maxes[i] = self.penalties[i].lambda_max(problem)
        return problem

    def _penalty(self, i: int, d: int, columns: np.ndarray | None) -> Penalty:
        check_int("target_features", self.selector.target_features, 1, d,
                  f"at most the {d} features of run {i}")
        # group labels follow a run's columns; other penalties depend on d only
        grouped = columns is not None and getattr(self.selector, "groups", None) is not None
        key = ("run", i) if grouped else ("width", d)
        if key not in self._shared_penalties:
            self._shared_penalties[key] = self.selector._penalty(d, columns)
        return self._shared_penalties[key]

    def mean_count(self, runs: Sequence[int], lam: float) -> float:
        """The mean number of features the runs select at λ = ``lam``."""
        total = 0
        for i in runs:
            solution = self.warm[i].at(lam)
            if solution is None:
                problem = self.problem(i)
                solution = self.warm[i].solve(problem, self.penalties[i], lam)
            total += solution.n_selected
            self.fits += 1
        return total / len(runs)


@dataclass(frozen=True)
class Calibration:
    """Outcome of :func:`calibrate_runs`: λ, the mean count it gives over all runs, the
    λ found on the subset of runs, and the work done."""

    reg: float
    mean_features: float
    subset_reg: float
    n_evaluations: int
    n_fits: int


def calibrate_runs(selector: _SparseLogisticBase, X: np.ndarray, y: np.ndarray,
                   samples: Sequence, *,
                   tolerance: float = 1.0, n_subset: int = 10) -> Calibration:
    """λ such that the mean number of selected features over the runs is k̄ ± tolerance.

    k̄ is ``selector.target_features``; run i fits ``X[rows_i]`` (or ``X[rows_i][:, cols_i]``
    when ``samples[i]`` is a pair ``(rows_i, cols_i)``, for a per-run pre-filter) exactly as
    ``selector.fit`` would — or the prepared :class:`TrainingSample` ``samples[i]`` (whose
    ``columns`` say which columns of X it holds), as ``selector.fit_sample`` would. Two
    phases: (1) :func:`_search` for the mean over the first ``n_subset`` runs within
    ``tolerance / 2``; (2) the mean over all runs at that λ; if it misses k̄ ±
    ``tolerance``, the search goes on with all runs from there, its first step sized by the
    subset's slope of the count in log λ. Every fit is warm-started from the same run's
    nearest solution in λ.

    The runs stream: ``samples`` is any sequence (``len`` and indexing), and ``samples[i]``
    is read whenever run i is fitted and its problem is not kept — a sequence may prepare
    the run only then. Per run, only its solutions at the λ tried (a few hundred bytes
    each), its λ_max and its penalty stay in memory, and its problem (standardised
    distinct rows) while the kept ones total at most :data:`CACHE_BYTES`; the others are
    read again at each evaluation. Memory: the budget, one run being read and what the
    sequence holds, whatever M. Warns (:class:`CalibrationWarning`) when the tolerance
    cannot be met.
    """
    target = selector.target_features
    if target is None:
        raise InvalidInputError(
            "calibrate needs target_features (k̄, the mean number of features the runs "
            "should select); got target_features=None."
        )
    X = check_array(X, dtype=np.float64)
    y = np.asarray(y)
    if y.ndim != 1 or y.size != X.shape[0]:
        raise InvalidInputError(
            f"y must be 1-D with one label per row of X ({X.shape[0]}); got shape {y.shape}."
        )
    if len(samples) == 0:
        raise InvalidInputError("samples must list at least one run's training rows; got 0.")
    check_positive("tolerance", tolerance)
    check_int("n_subset", n_subset, 1, 10**9, "runs used by the first phase")

    with single_threaded():
        runs = _Runs(selector, X, y, samples)
        M = len(samples)
        subset = list(range(min(n_subset, M)))
        guesses = []
        for i in subset:
            problem = runs.problem(i)
            guesses.append(_screening_guess(runs.penalties[i], problem, target))
        lam_max = max(runs.lam_maxes[i] for i in subset)
        if lam_max == 0:
            raise InvalidInputError("no feature varies in the calibration samples: "
                                    "nothing can be selected.")
        guess = float(np.exp(np.mean([np.log(g) for g in guesses])))
        history: list[tuple[float, float]] = []

        def subset_count(lam):
            count = runs.mean_count(subset, lam)
            history.append((lam, count))
            return count

        subset_reg, mean_features, evaluations = _search(
            subset_count, target, tolerance / 2, guess, lam_max)
        reg = subset_reg
        if len(subset) < M:
            rest = list(range(len(subset), M))
            mean_features = (runs.mean_count(rest, reg) * len(rest)
                             + mean_features * len(subset)) / M
            evaluations += 1
            if abs(mean_features - target) > tolerance:
                reg, mean_features, more = _search(
                    lambda lam: runs.mean_count(range(M), lam), target, tolerance, reg,
                    max(runs.lam_maxes.values()),
                    step=_slope_step(history, reg, mean_features - target))
                evaluations += more
    if abs(mean_features - target) > tolerance:
        warnings.warn(
            f"calibration: no λ gives a mean of {target} ± {tolerance} selected features "
            f"over the {M} runs; using λ = {reg:.6g} (mean {mean_features:.2f}).",
            CalibrationWarning, stacklevel=3)
    return Calibration(float(reg), float(mean_features), float(subset_reg), evaluations,
                       runs.fits)


def _slope_step(history: list[tuple[float, float]], reg: float, miss: float) -> float:
    """|Δ log λ| expected to correct a ``miss`` in the mean count: 1.5 × miss / slope, the
    slope of the count in log λ between ``reg`` and the nearest subset evaluation with
    another count; within [1e-3, log 2] (log 2 without such a point)."""
    at_reg = next(count for lam, count in history if lam == reg)
    others = [(abs(math.log(lam / reg)), abs(count - at_reg)) for lam, count in history
              if count != at_reg and lam != reg]
    if not others:
        return math.log(2)
    distance, change = min(others)
    return min(max(1.5 * abs(miss) * distance / change, 1e-3), math.log(2))


def _check_indices(name: str, indices, size: int) -> np.ndarray:
    indices = np.asarray(indices)
    if (indices.ndim != 1 or indices.size == 0 or not np.issubdtype(indices.dtype, np.integer)
            or indices.min() < 0 or indices.max() >= size):
        raise InvalidInputError(
            f"{name} must be a non-empty 1-D array of integer indices in [0, {size}); got "
            f"{_describe(indices)}."
        )
    return indices


def _describe(array: np.ndarray) -> str:
    if array.size and np.issubdtype(array.dtype, np.number):
        return f"shape {array.shape}, dtype {array.dtype}, range [{array.min()}, {array.max()}]"
    return f"shape {array.shape}, dtype {array.dtype}"


# ----------------------------------------------------------------------------- selectors


class _SparseLogisticBase(LogisticModelMixin, SelectorBase):
    """Shared fit/predict/calibration of the sparse logistic selectors.

    Subclasses define ``_penalty(d, columns=None) -> Penalty`` (validating their own
    parameters; ``columns``: the columns of X a calibration run keeps, which per-feature
    parameters such as ``groups`` follow).
    Fitted attributes: ``support_`` (non-zero weights), ``coef_`` and ``intercept_`` of
    the final model on the selected standardised features (K > 2 classes: K × k and (K,),
    one row per class), ``multinomial_`` (whether that model is the K-class multinomial,
    whose probabilities are its softmax), ``importances_`` (I_lin of ``coef_``: of
    ``‖W_f‖₂`` over the classes with K > 2; 0 outside the support), ``rank_order_`` (the
    selected features by decreasing |w_f| (‖W_f‖₂), then the others by decreasing score
    ``‖∇_g loss‖ / (λ u_g)`` of their unit — how close it is to entering as λ decreases,
    ≤ 1 at the optimum — then decreasing |∇_f loss| (‖∇_f loss‖₂); ties by index),
    ``reg_`` (λ used), ``n_selected_``, ``n_iter_`` (inner iterations of the final λ's
    fit), ``mean_``, ``scale_``, ``classes_``.
    """

    def _check_common(self, d: int) -> None:
        if self.reg is None and self.target_features is None:
            raise InvalidInputError(
                "give reg (λ₁ > 0, the penalty) or target_features (k̄, an integer in "
                f"[1, {d}] of features to select, λ then calibrated); got both None."
            )
        if self.reg is not None:
            check_positive("reg", self.reg)
        else:  # target_features is used (reg takes precedence)
            check_int("target_features", self.target_features, 1, d,
                      f"the number of features to select, at most the {d} features of X")
        if self.final_reg is not None:
            check_positive("final_reg", self.final_reg)
        check_positive("tol", self.tol)
        if self.max_iter is not None:
            check_int("max_iter", self.max_iter, 1, 10**9, "the inner solver's iterations")

    def _select(self, sample):
        d = sample.n_features
        self._check_common(d)
        penalty = self._penalty(d)
        problem = sample_problem(sample)
        if self.reg is not None:
            solution = solve(problem, penalty, float(self.reg))
        else:
            solution = self._calibrate_single(problem, penalty, self.target_features)
        gradient = solution.gradient
        if gradient is None:
            gradient = problem.gradient(solution.features, solution.values,
                                        solution.intercept)
        self.reg_ = solution.reg
        self.n_selected_ = solution.n_selected
        self.n_iter_ = max(solution.n_iter, 1)
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[solution.features] = True
        self.multinomial_ = problem.y.ndim == 2 and self.final_reg is None
        if self.final_reg is None:  # K × k weights of the multinomial: its rows are classes
            self.coef_, self.intercept_ = solution.values.T.copy(), solution.intercept
        elif solution.n_selected:
            self.coef_, self.intercept_ = fit_l2_logistic(
                problem.X[:, solution.features], problem.y, reg=self.final_reg,
                weights=problem.c, tol=1e-10)
        else:
            self.coef_ = np.zeros((*problem.y.shape[1:], 0))
            self.intercept_ = (problem.null_intercept if problem.y.ndim == 1 else  # K log-odds
                               np.array([classification_loss(signs, problem.c).null_intercept()
                                         for signs in problem.y.T]))
        self.importances_ = np.zeros(d)
        self.importances_[solution.features] = linear_importance(self.coef_)
        # ranking: selected by |w| (‖W_f‖ over the classes), then the others by their unit's
        # closeness to entering
        key = np.zeros(d)
        key[solution.features] = class_weight_norm(solution.values.T)
        thresholds = solution.reg * penalty.unit_weights
        closeness = (penalty.unit_norms(gradient) / thresholds)[penalty.labels]
        order = np.lexsort((np.arange(d), -class_weight_norm(gradient.T), -closeness, -key,
                            ~self.support_))
        self.rank_order_ = np.empty(d, dtype=np.int64)
        self.rank_order_[order] = np.arange(1, d + 1)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of the final model: σ(w·x + b) with two classes; with K > 2
        the multinomial model's softmax, or, after an L2 refit (``final_reg``), its
        one-vs-rest sigmoids normalised.

        Parameters
        ----------
        X : array-like (n, d)
            Examples of the d features the selector was fitted on.
        """
        decision = self.decision_function(X)
        if self.multinomial_:
            return softmax(decision, axis=1)
        return self._logistic_proba(X)

    def _calibrate_single(self, problem: SparseProblem, penalty: Penalty, target: int):
        lam_max = penalty.lambda_max(problem)
        if lam_max == 0:
            warnings.warn("no feature varies: nothing can be selected; reg_ = 1.",
                          CalibrationWarning, stacklevel=4)
            return solve(problem, penalty, 1.0)
        warm = _WarmStarts()
        reg, count, _ = _search(lambda lam: warm.solve(problem, penalty, lam).n_selected,
                                target, 0, _screening_guess(penalty, problem, target),
                                lam_max)
        if count != target:
            warnings.warn(
                f"no λ selects exactly target_features={target} features (features or "
                f"groups enter together, or no λ selects that many); using λ = {reg:.6g}, "
                f"which selects {count}.", CalibrationWarning, stacklevel=4)
        return warm.at(reg)

    def calibrate(self, X: np.ndarray, y: np.ndarray, samples: Sequence, *,
                  tolerance: float = 1.0, n_subset: int = 10) -> dict[str, float]:
        """``{"reg": λ}`` such that the mean number of features selected over the runs
        ``samples`` (a sequence, read run by run: each an array of training-row indices, a
        pair ``(rows, cols)`` or a prepared :class:`TrainingSample`) is
        ``target_features`` ± ``tolerance`` (000 §6.2, 003 §7.2). See :func:`calibrate_runs`.

        Parameters
        ----------
        X, y : arrays
            The whole data (n × d) and labels the runs' samples index.
        samples : sequence
            The runs, as above.
        tolerance : float > 0
            How far the mean number of selected features may be from ``target_features``
            (default 1).
        n_subset : int ≥ 1
            The runs the search's first phase uses (default 10).
        """
        return {"reg": calibrate_runs(self, X, y, samples, tolerance=tolerance,
                                      n_subset=n_subset).reg}



class ElasticNetSelector(_SparseLogisticBase):
    """L1 / elastic-net logistic regression (000 §6.2, 003 §7.2, eq. 19); the lasso for
    ``l1_ratio=1``.

    Minimises ``Σ log(1 + e^{−y(w·x + b)}) + λ₁(λ₂‖w‖₁ + (1 − λ₂)‖w‖²)`` on standardised
    features, intercept unpenalised: scikit-learn's ``LogisticRegression(C=1/(λ₁(2 − λ₂)),
    l1_ratio=λ₂/(2 − λ₂), solver="saga")`` (derivation in the module docstring), solved on
    working sets (by FISTA, or by that very estimator with ``solver="saga"``) with the KKT
    conditions checked on every feature. Selected = non-zero
    weights. The final model is this fitted model (the papers predict with the lasso /
    elastic-net model itself; they refit only for the filters and the random forest),
    unless ``final_reg`` asks for an L2-logistic refit on the selected features.

    With K > 2 classes: the multinomial loss with the grouped penalty
    ``λ₁(λ₂ Σ_f ‖W_f‖₂ + (1 − λ₂)‖W‖_F²)`` over each feature's K weights (glmnet's
    ``type.multinomial = "grouped"``, module docstring), solved by FISTA; a feature is
    selected when its K weights are not all 0.

    The defaults are 000 §6.2's lasso: λ₂ = 1 and λ₁ "set to select, on average,
    k̄ = 20 features over the M runs" (``target_features=20``, ``reg=None``: the
    protocol calibrates λ₁ over its runs; a lone ``fit`` calibrates it on its data).

    Parameters
    ----------
    l1_ratio : float in (0, 1]
        λ₂; 1 is the lasso, 0.8 the elastic net of 000 §6.2. 0 (pure L2) selects nothing
        out and is refused.
    reg : float > 0 or None
        λ₁. When None, ``fit`` calibrates it to select ``target_features``.
    target_features : int or None
        k̄ (000 §6.2: 20); validated only when used (``reg=None``, or ``calibrate``).
        With ``reg=None``, ``fit`` searches λ₁ selecting exactly k̄ features on its
        training data (the closest count, with a :class:`CalibrationWarning`, if no λ₁
        does: features entering together, or k̄ beyond the path's largest support — on
        separable data, e.g. d ≫ n, the L1-logistic path tends to a max-margin solution
        with few features); ``calibrate`` aims the mean over runs at it. ``reg`` takes
        precedence: the protocol sets it from ``calibrate`` and keeps ``target_features``.
    final_reg : float > 0 or None
        If given, the final model is the L2-logistic (``C = 1/(2 final_reg)``) refitted
        on the selected features; importances then come from it.
    solver : {"fista", "saga"}
        The working-set solver: this module's :func:`group_fista` on singleton groups with
        the ridge λ₁(1 − λ₂), or scikit-learn's ``LogisticRegression(solver="saga")`` with
        the mapping above — the same problem, tested to agree; "saga" for two classes
        only. FISTA is the default: it stops on the KKT residual, while saga stops on the
        weights' relative change, may stop after one epoch at w = 0 near the λ where the
        first feature enters (scikit-learn #13021; the fit is then retried with other
        random states, and FISTA finishes the best from there when it is not optimal) and
        needs thousands of epochs on strongly correlated or separable data (calibrating k̄ over
        30 bootstraps of 000 §6.1's scenario 3: 15 s against 1 s; over 100 bootstraps of
        the alon microarray: 56 s against 3.4 s).
    tol : float
        FISTA's relative KKT residual, or saga's tolerance (largest relative weight change
        over an epoch).
    max_iter : int or None
        Iterations of FISTA / epochs of saga per working-set fit (None: 100 000 / 10 000).

    Attributes: see :class:`_SparseLogisticBase`.
    """

    def __init__(self, l1_ratio=1.0, reg=None, target_features=20, final_reg=None,
                 solver="fista", tol=1e-8, max_iter=None):
        self.l1_ratio = l1_ratio
        self.reg = reg
        self.target_features = target_features
        self.final_reg = final_reg
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self.solver == "saga":  # two classes only (the multinomial is solved by FISTA)
            tags.classifier_tags.multi_class = False
        return tags

    def _penalty(self, d: int, columns: np.ndarray | None = None) -> ElasticNetPenalty:
        L1_RATIO.check("l1_ratio", self.l1_ratio)
        if self.solver not in SOLVERS:
            raise InvalidInputError(
                f"solver must be one of {', '.join(map(repr, SOLVERS))}; got {self.solver!r}."
            )
        max_iter = self.max_iter
        if max_iter is None:
            max_iter = 10_000 if self.solver == "saga" else 100_000
        return ElasticNetPenalty(d, self.l1_ratio, self.solver, self.tol, max_iter)


class GroupLassoSelector(_SparseLogisticBase):
    """Logistic group lasso (000 §6.1): ``Σ log(1 + e^{−y(w·x + b)}) + λ Σ_g √p_g ‖w_g‖₂``.

    On standardised features, intercept unpenalised, solved by FISTA (:func:`group_fista`)
    on working sets of groups with the KKT conditions checked on every group. Selected =
    the features of the non-zero groups (except features constant on the training data,
    whose weight stays 0 inside a selected group). Singleton groups give the lasso:
    ``GroupLassoSelector(reg=λ)`` ≡ ``ElasticNetSelector(l1_ratio=1, reg=λ)``. With K > 2
    classes: the multinomial loss with ``λ Σ_g √p_g ‖W_g‖_F``, W_g the p_g × K weights of
    the group's features (module docstring).

    Parameters
    ----------
    groups : array of d labels or None
        The group of each feature (numbers or strings). Features with a label of their
        own are singleton groups, and so is every feature labelled
        :data:`~paretostab.data.UNGROUPED` (exactly −1: "in no group", as
        :func:`~paretostab.data.simulate_correlated_groups` labels 000 §6.1's other
        features), each with the penalty weight √1 — the convention of
        :func:`~paretostab.data.group_indices`. None: all singletons (the lasso).
    reg : float > 0 or None
        λ. When None, ``fit`` calibrates it to select ``target_features`` (counts move by
        whole groups, so the closest count is often used, with a :class:`CalibrationWarning`).
    target_features : int or None
        k̄, as :class:`ElasticNetSelector`'s, but no default: 000 §6.1 sets one λ "so as
        to select approximately 40 features when q = 1" and keeps it for every group
        size q, which is a ``reg`` to give, not a k̄ per fit.
    final_reg : as :class:`ElasticNetSelector`.
    tol : float
        FISTA stops when the relative KKT residual is at most ``tol``.
    max_iter : int or None
        FISTA iterations per working-set fit (None: 100 000).
    """

    def __init__(self, groups=None, reg=None, target_features=None, final_reg=None,
                 tol=1e-7, max_iter=100_000):
        self.groups = groups
        self.reg = reg
        self.target_features = target_features
        self.final_reg = final_reg
        self.tol = tol
        self.max_iter = max_iter

    def _penalty(self, d: int, columns: np.ndarray | None = None) -> GroupLassoPenalty:
        max_iter = 100_000 if self.max_iter is None else self.max_iter
        if self.groups is None:
            return GroupLassoPenalty(np.arange(d), d, self.tol, max_iter)
        groups = np.asarray(self.groups)
        if columns is not None:  # a calibration run on a column subset of X
            if groups.ndim != 1 or groups.size <= columns.max():
                raise InvalidInputError(
                    f"groups must hold one group label per column of X; got shape "
                    f"{groups.shape} for a sample with column {columns.max()}."
                )
            groups = groups[columns]
        if groups.shape != (d,):
            raise InvalidInputError(
                f"groups must hold one group label per feature ({d}); got shape "
                f"{groups.shape}."
            )
        index, n_groups = group_indices(groups)
        return GroupLassoPenalty(index, n_groups, self.tol, max_iter)


__all__ = ["Calibration", "ElasticNetSelector", "GroupLassoSelector",
           "calibrate_runs", "group_fista"]
