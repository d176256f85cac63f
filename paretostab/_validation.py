"""Parameter constraints, declared once and checked alike wherever a value comes in.

A scalar parameter's constraint is an :class:`Interval` (scikit-learn's
``_parameter_constraints`` and ``check_scalar`` in one small value): an integer or a
number, its bounds, whether None is allowed, and why (the words that end its error line).
The spec's keys (:mod:`paretostab.spec._keys`), the Python API, the command line (through
the API), the tuning options, the measures and the selectors declare their scalars with it,
so that one value gets one answer and one error line everywhere: ``np.int64(2)`` is an
integer wherever an integer is asked for, ``True`` never is, and a bound is written
``>= 1``, ``in [0, 1)`` or ``in (0, 1)`` whichever door the value came through.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, NoReturn, TypeGuard, TypeVar

import numpy as np

from paretostab._errors import InvalidInputError, described

__all__ = ["COUNT", "FRACTION", "NON_NEGATIVE", "PAIRED_RUNS", "POSITIVE", "WAIT_SECONDS",
           "Interval", "is_int", "is_number"]

T = TypeVar("T")


def is_int(value: object) -> TypeGuard[int | np.integer]:
    """An integer (Python or numpy), not a boolean."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def is_number(value: object) -> TypeGuard[float]:
    """A real number (Python or numpy), not a boolean.

    Typed as a float (an int is one to a type checker): numpy's integer and floating
    scalars compare, take part in arithmetic and convert with ``int``/``float`` as a
    parameter is used."""
    return (isinstance(value, int | float | np.integer | np.floating)
            and not isinstance(value, bool | np.bool_))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@dataclass(frozen=True)
class Interval:
    """The values a scalar parameter takes: integers or finite numbers between bounds.

    Parameters
    ----------
    kind : {"integer", "number"}
        An integer (Python or numpy, not a boolean), or a finite real number.
    low, high : float, optional
        The bounds (None: unbounded on that side).
    closed : {"both", "left", "right", "neither"}
        Which bounds belong to the interval.
    none : bool
        Whether None is allowed too.
    even : bool
        Only even integers (with ``kind="integer"``: runs in pairs).
    why : str
        Words that end the error line, such as ``" (the features kept)"``.

    Examples
    --------
    >>> Interval("integer", 2).describe()
    'an integer >= 2'
    >>> Interval("number", 0, 1, "neither").describe()
    'a number in (0, 1)'
    >>> Interval("integer", 2, even=True).describe()
    'an even integer >= 2'
    >>> Interval("number", 0, closed="neither").check("reg", 1e-3)
    0.001
    """

    kind: Literal["integer", "number"]
    low: float | None = None
    high: float | None = None
    closed: Literal["both", "left", "right", "neither"] = "both"
    none: bool = False
    even: bool = False
    why: str = ""

    def accepts(self, value: object) -> bool:
        """Whether ``value`` is in the interval."""
        if value is None:
            return self.none
        if self.kind == "integer":
            if not is_int(value) or (self.even and value % 2):
                return False
        elif not is_number(value) or not math.isfinite(value):
            return False
        low_in = self.closed in ("both", "left")
        high_in = self.closed in ("both", "right")
        if self.low is not None and not (value >= self.low if low_in else value > self.low):
            return False
        return self.high is None or bool(value <= self.high if high_in else value < self.high)

    def describe(self) -> str:
        """The interval in words, as error lines and the spec reference say it."""
        noun = ("an even integer" if self.even else "an integer") if self.kind == "integer" \
            else "a number"
        if self.low is not None and self.high is not None:
            left = "[" if self.closed in ("both", "left") else "("
            right = "]" if self.closed in ("both", "right") else ")"
            text = f"{noun} in {left}{_number(self.low)}, {_number(self.high)}{right}"
        else:
            if self.kind == "number":
                noun = "a finite number"
            text = noun
            if self.low is not None:
                text += f" {'>=' if self.closed in ('both', 'left') else '>'} {_number(self.low)}"
            if self.high is not None:
                text += (f" {'<=' if self.closed in ('both', 'right') else '<'} "
                         f"{_number(self.high)}")
        return f"None or {text}" if self.none else text

    def refuse(self, name: str, value: object) -> NoReturn:
        """The error line of a ``value`` out of the interval, naming ``name``:
        ``"runs must be an integer >= 2; got 1."``."""
        raise InvalidInputError(
            f"{name} must be {self.describe()}{self.why}; got {described(value)}.")

    def check(self, name: str, value: T) -> T:
        """``value`` as given (a numpy scalar stays one) when the interval holds it, else
        its error line (:meth:`refuse`)."""
        if not self.accepts(value):
            self.refuse(name, value)
        return value

    def integer(self, name: str, value: object) -> int:
        """:meth:`check`, then the value as a Python int."""
        if not is_int(value) or not self.accepts(value):
            self.refuse(name, value)
        return int(value)

    def number(self, name: str, value: object) -> float:
        """:meth:`check`, then the value as a Python float."""
        if not is_number(value) or not self.accepts(value):
            self.refuse(name, value)
        return float(value)


#: A finite number >= 0 (a penalty, a weight).
NON_NEGATIVE = Interval("number", 0)
#: A finite number > 0 (a regularisation strength, a tolerance).
POSITIVE = Interval("number", 0, closed="neither")
#: An integer >= 1 (a count of runs, trials, workers, features).
COUNT = Interval("integer", 1)
#: Seconds to wait, 0 or more (for a database server, for workers to stop).
WAIT_SECONDS = Interval("number", 0, why=" (seconds)")
#: A number in (0, 1) (a share of the examples, a confidence level).
FRACTION = Interval("number", 0, 1, "neither")
#: The runs of complementary pairs (Shah & Samworth 2013, the resampling
#: ``"complementary_pairs"``): runs 2j and 2j + 1 are the two halves of one split, so M is
#: even (and 2 at least, as every protocol's).
PAIRED_RUNS = Interval("integer", 2, even=True,
                       why=' with resampling "complementary_pairs" (runs 2j and 2j + 1 are '
                           'the two halves of one split)')
