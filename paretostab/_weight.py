"""The weight of a dominance area, parsed once (SPEC §5; 002 §3 eq. 2).

The weighted dominance area of 002 eq. 2 integrates a density ``w(a, φ)`` on the
objective space ``[0, 1]²`` over the region a front dominates. :func:`as_weight` turns
every form a user may give — in Python or on the command line — into one :class:`Weight`
(or ``None``, the plain unweighted hypervolume), and :class:`Weight` offers what its users
need: the two marginal primitives of a separable weight (the exact integral over the
staircase strips of :func:`paretostab.front.dominance_area`), the density (to shade the
area in :mod:`paretostab.plot`), a short label for a legend and a text form for files.

Pure numpy: nothing here imports matplotlib or scipy, and no input is modified.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from paretostab._errors import InvalidInputError

__all__ = ["Weight", "as_weight", "weight_name"]

_AXES = ("accuracy", "stability")
_KINDS = ("uniform", *_AXES, "callable")

_FORMS = ("None, 'uniform', 'accuracy:A', 'stability:A' (e.g. 'accuracy:2'), "
          "('accuracy', A), ('stability', A) with A a finite real number, or a callable "
          "density w(a, phi)")


def _invalid(weight: object, reason: str = "") -> InvalidInputError:
    """The one error of a weight that cannot be read: the accepted forms, what was given
    and, when known, what is wrong with it."""
    given = f"{weight!r:.80}" + (f" ({reason})" if reason else "")
    return InvalidInputError(f"weight must be {_FORMS}; got {given}.")


def _exponential_primitive(x: np.ndarray, strength: float) -> np.ndarray:
    """``W(x) = (e^{Ax} − 1)/(e^A − 1)`` on [0, 1]: the primitive of the density
    ``A e^{Ax}/(e^A − 1)`` with ``W(0) = 0``, ``W(1) = 1``; overflow-free for any finite
    A (``W(x) = x`` for ``A = 0``)."""
    x = np.asarray(x, dtype=float)
    if strength == 0.0:
        return x
    if strength > 0.0:  # e^{A(x−1)} (1 − e^{−Ax}) / (1 − e^{−A}): no overflow for large A
        return np.exp(strength * (x - 1.0)) * np.expm1(-strength * x) / np.expm1(-strength)
    return np.expm1(strength * x) / np.expm1(strength)


def _exponential_density(x: np.ndarray, strength: float) -> np.ndarray:
    """``A e^{Ax}/(e^A − 1)`` (SPEC §5; 002 §3 eq. 2 with its typo fixed), without
    overflow for any finite A; 1 for ``A = 0``."""
    x = np.asarray(x, dtype=float)
    if strength == 0.0:
        return np.ones_like(x)
    if strength > 0.0:
        return strength * np.exp(strength * (x - 1.0)) / -np.expm1(-strength)
    return strength * np.exp(strength * x) / np.expm1(strength)


def _is_real(value: object) -> bool:
    return (not isinstance(value, bool)
            and isinstance(value, int | float | np.integer | np.floating)
            and math.isfinite(value))


@dataclass(frozen=True)
class Weight:
    """A density ``w(a, φ)`` on the objective space ``[0, 1]²``, integrating to 1 there:
    the weight of the dominance area (002 §3 eq. 2; SPEC §5). Make one with
    :func:`as_weight`.

    Attributes
    ----------
    kind : {"uniform", "accuracy", "stability", "callable"}
        ``"uniform"``: ``w = 1``. ``"accuracy"``: ``w(a, φ) = A e^{Aa}/(e^A − 1)`` (SPEC
        §5; 002 prints ``e^{A+a}``, a typo: that does not integrate to 1) — ``A > 0``
        favours high accuracy, ``A < 0`` low accuracy, ``A = 0`` is the uniform density
        (the limit ``A → 0``). ``"stability"``: the same along the stability axis.
        ``"callable"``: ``function``.
    strength : float
        ``A`` of an exponential weight, any finite number (0.0 for the other kinds).
    function : callable or None
        The density of a ``"callable"`` weight, ``w(a, phi)``: vectorised, called with two
        float arrays of the same shape (None for the other kinds).

    Equal weights compare equal; two callable weights are equal when their function is
    the same object.
    """

    kind: str
    strength: float = 0.0
    function: Callable[..., ArrayLike] | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise InvalidInputError(
                f"Weight kind must be one of {', '.join(map(repr, _KINDS))}; got "
                f"{self.kind!r} (make weights with paretostab._weight.as_weight).")
        if not _is_real(self.strength) or (self.kind not in _AXES and self.strength != 0.0):
            raise InvalidInputError(
                f"Weight strength must be a finite real number (0 unless the kind is "
                f"'accuracy' or 'stability'); got {self.strength!r} for {self.kind!r}.")
        if (self.kind == "callable") != callable(self.function):
            raise InvalidInputError(
                "Weight function must be a callable w(a, phi) exactly when the kind is "
                f"'callable'; got {self.function!r:.80} for {self.kind!r}.")
        object.__setattr__(self, "strength", float(self.strength) + 0.0)  # no −0.0

    @property
    def primitives(self) -> tuple[Callable[[np.ndarray], np.ndarray],
                                  Callable[[np.ndarray], np.ndarray]] | None:
        """The marginal primitives ``(W_a, W_φ)`` of a separable weight
        ``w(a, φ) = W_a'(a) W_φ'(φ)``, each increasing from ``W(0) = 0`` to ``W(1) = 1`` on
        [0, 1] (array in, array out): the weight of a rectangle ``[a₀, a₁] × [φ₀, φ₁]`` is
        ``(W_a(a₁) − W_a(a₀)) (W_φ(φ₁) − W_φ(φ₀))`` — the exact integral of 002 eq. 2 over
        a staircase strip. ``W(x) = (e^{Ax} − 1)/(e^A − 1)`` along the weighted axis
        (overflow-free for any finite A), ``W(x) = x`` along the other one and for the
        uniform weight. None for a callable weight (integrated numerically)."""
        if self.kind == "callable":
            return None
        strength = self.strength

        def uniform(x: np.ndarray) -> np.ndarray:
            return _exponential_primitive(x, 0.0)

        def exponential(x: np.ndarray) -> np.ndarray:
            return _exponential_primitive(x, strength)

        if self.kind == "accuracy":
            return exponential, uniform
        if self.kind == "stability":
            return uniform, exponential
        return uniform, uniform

    def density(self, a: ArrayLike, phi: ArrayLike) -> np.ndarray:
        """The density ``w(a, φ)`` (002 §3 eq. 2) at the points ``(a, phi)``: a float array
        of their broadcast shape (read-only when the callable's value was broadcast). A
        callable weight's function is called with ``a`` and ``phi`` as they are given."""
        shape = np.broadcast_shapes(np.shape(a), np.shape(phi))
        if self.kind == "callable" and self.function is not None:  # one implies the other
            values = np.asarray(self.function(a, phi), dtype=float)
            return values if values.shape == shape else np.broadcast_to(values, shape)
        if self.kind == "uniform":
            return np.ones(shape)
        x = np.asarray(a if self.kind == "accuracy" else phi, dtype=float)
        return np.broadcast_to(_exponential_density(x, self.strength), shape).copy()

    @property
    def label(self) -> str:
        """A short description for a legend: ``"uniform"``, ``"accuracy, A = 2"``,
        ``"stability, A = -1.5"``, or the callable's ``__name__`` (``"custom"`` without
        one)."""
        if self.kind == "callable":
            return getattr(self.function, "__name__", "custom")
        if self.kind == "uniform":
            return "uniform"
        return f"{self.kind}, A = {self.strength:g}"

    @property
    def text(self) -> str | None:
        """The text form, as the command line takes it and files record it: ``"uniform"``,
        ``"accuracy:2"``, ``"stability:-1.5"`` (A formatted with ``:g``, or in full when
        ``:g`` would round it: ``as_weight(w.text) == w``); None for a callable."""
        if self.kind == "callable":
            return None
        if self.kind == "uniform":
            return "uniform"
        short = f"{self.strength:g}"
        return f"{self.kind}:{short if float(short) == self.strength else repr(self.strength)}"


def as_weight(weight: object) -> Weight | None:
    """The dominance-area weight ``weight`` as a :class:`Weight` (002 §3 eq. 2; SPEC §5).

    Parameters
    ----------
    weight : None, Weight, str, (str, float) or callable
        - ``None``: no weight — the plain area dominated in ``[reference, ∞)²``, the
          hypervolume (returned as None).
        - a :class:`Weight`: returned as it is.
        - ``"uniform"``: ``w = 1`` on ``[0, 1]²``.
        - ``"accuracy:A"``, ``"stability:A"`` (the command line's text, e.g.
          ``"accuracy:2"``) or the pairs ``("accuracy", A)``, ``("stability", A)`` (a
          tuple or a list): the density ``A e^{Ax}/(e^A − 1)`` along that axis, for any
          finite real ``A`` (``A = 0`` is uniform).
        - a callable ``w(a, phi)``: a density on ``[0, 1]²``, vectorised over two float
          arrays of the same shape (:func:`paretostab.front.dominance_area` checks that it
          is finite, non-negative and integrates to 1).

    Returns
    -------
    Weight or None

    Raises
    ------
    InvalidInputError
        For anything else, naming the accepted forms and what was given (e.g. an unknown
        axis, or an ``A`` that is not a finite real number).
    """
    if weight is None or isinstance(weight, Weight):
        return weight
    if isinstance(weight, str):
        if weight == "uniform":
            return Weight("uniform")
        axis, colon, value = weight.partition(":")
        if not colon:
            raise _invalid(weight)
        if axis not in _AXES:
            raise _invalid(weight, "the axis must be 'accuracy' or 'stability'")
        try:
            strength = float(value)
        except ValueError:
            strength = math.nan
        if not math.isfinite(strength):
            raise _invalid(weight, "A must be a finite real number")
        return Weight(axis, strength)
    if callable(weight):
        return Weight("callable", function=weight)
    if isinstance(weight, tuple | list) and len(weight) == 2 and isinstance(weight[0], str):
        axis, strength = weight
        if axis not in _AXES:
            raise _invalid(weight, "the axis must be 'accuracy' or 'stability'")
        if not _is_real(strength):
            raise _invalid(weight, "A must be a finite real number")
        return Weight(axis, float(strength))
    raise _invalid(weight)


def weight_name(weight: Weight | None) -> str:
    """What files and pages call a dominance-area weight: its text form (``"uniform"``,
    ``"accuracy:2"``), a callable's name, and ``"uniform"`` for no weight (the report's
    default: the plain area, which is the uniform weight's inside ``[0, 1]²``)."""
    if weight is None:
        return "uniform"
    return weight.text or weight.label
