"""What every drawer of :mod:`paretostab.plot` shares: the axes it creates when it is
given none, and the one error for anything but the info object it draws.

A drawer draws on the ``ax=`` it is given and creates a figure (through
``matplotlib.pyplot``) only when none is given (:func:`new_axes`); it draws an info object
computed by a pure module — a :class:`paretostab.front.ParetoFront`, a
:class:`paretostab.maps.StabilityMap`, a :class:`paretostab.maps.SelectionOverview` or a
:class:`paretostab.stable_set.StableSet` —
and rejects anything else with one error naming the function that makes it
(:func:`require`).
"""

from __future__ import annotations

from matplotlib.axes import Axes

from paretostab._errors import InvalidInputError
from paretostab.front import ParetoFront
from paretostab.maps import SelectionOverview, StabilityMap
from paretostab.stable_set import StableSet

__all__ = ["new_axes", "new_axes_pair", "require"]


def new_axes(figsize: tuple[float, float]) -> Axes:
    """The axes of a new figure of ``figsize`` inches (through pyplot), for a drawer given
    none."""
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax


def new_axes_pair(figsize: tuple[float, float]) -> tuple[Axes, Axes]:
    """Two axes side by side in a new figure of ``figsize`` inches (through pyplot), for a
    drawer of two panels given none."""
    import matplotlib.pyplot as plt

    _, (left, right) = plt.subplots(1, 2, figsize=figsize)
    return left, right


#: The function making each info object a drawer takes, for its error message.
_MAKERS = {StabilityMap: "paretostab.maps.stability_map",
           SelectionOverview: "paretostab.maps.selection_overview",
           ParetoFront: "paretostab.front.ParetoFront.of",
           StableSet: "paretostab.stable_set.stable_set"}


def require(value: object, kind: type, caller: str) -> None:
    """``value`` must be a ``kind`` (made by ``_MAKERS[kind]``), else one error naming
    ``caller``."""
    if not isinstance(value, kind):
        raise InvalidInputError(
            f"{caller} needs a {kind.__name__} ({_MAKERS[kind]}); got "
            f"{type(value).__name__}.")
