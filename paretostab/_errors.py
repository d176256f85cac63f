"""Exceptions and warnings raised by paretostab.

Every error the library raises on bad input derives from :class:`ParetostabError`, so
callers can catch one class; :func:`described` is how an error line shows a value given.
The subclasses also derive from the built-in exception a
Python user would expect (``ValueError`` for a bad value, ``TypeError`` for a bad type).
"""

from __future__ import annotations

import difflib
import signal
from collections.abc import Iterable

__all__ = ["CalibrationWarning", "DataWarning", "Interrupted", "InvalidInputError",
           "MemoryLimitError", "ParetostabError", "StabilityWarning", "StoreError",
           "UnknownNameError", "WorkerError", "described"]


def _count(n: int) -> str:
    return f"{n:,}".replace(",", " ")


def described(value: object) -> str:
    """``value`` as an error line shows what was given: its ``repr``, but data (an array,
    a DataFrame, an AnnData: anything with a shape) by its type and size, never printed
    (a DataFrame given where a path was expected printed all its 150 × 2 001
    cells).

    Examples
    --------
    >>> described("tpee")
    "'tpee'"
    >>> import numpy as np
    >>> described(np.zeros((150, 2001)))
    'an array of 150 rows × 2 001 columns'
    """
    shape = getattr(value, "shape", None)
    if not isinstance(shape, tuple) or not shape or not all(isinstance(n, int) for n in shape):
        return repr(value)
    name = type(value).__name__
    name = "array" if name == "ndarray" else name
    article = "an" if name[:1].lower() in "aeiou" else "a"
    if len(shape) == 1:
        return f"{article} {name} of {_count(shape[0])} values"
    if len(shape) == 2:
        return f"{article} {name} of {_count(shape[0])} rows × {_count(shape[1])} columns"
    return f"{article} {name} of shape {' × '.join(map(_count, shape))}"


class ParetostabError(Exception):
    """Root of every error raised by paretostab on bad input or configuration."""


class InvalidInputError(ParetostabError, ValueError):
    """An array, parameter or option does not have the expected shape, type or values."""


class MemoryLimitError(ParetostabError, MemoryError):
    """Work would need more memory than this process can still take (the machine's, or its
    container's or job's limit): refused before it starts, the message giving the estimate
    and the remedy (:func:`~paretostab._memory.check_room`)."""


class StoreError(ParetostabError, OSError):
    """A store a study writes to — its database, its artifact store, a report's folder —
    cannot be written or reached: full, read-only, forbidden, or unreachable for longer
    than ``tune`` waits. The message names the store and the cause."""


class WorkerError(ParetostabError, RuntimeError):
    """A ``tune --workers`` process failed; the message is its error (printed once)."""


class UnknownNameError(ParetostabError, ValueError):
    """A name (measure, selector, similarity method, option) is not known."""

    @classmethod
    def for_name(cls, kind: str, name: object, known: Iterable[str]) -> UnknownNameError:
        """Build the error for ``name`` with the closest known names as a suggestion.

        Parameters
        ----------
        kind : str
            What was named, as the message says it (``"measure"``, ``"selector"`` …).
        name : object
            The name given (shown by :func:`described`).
        known : iterable of str
            The names known, listed sorted; the closest (:func:`difflib.get_close_matches`,
            cutoff 0.6) is suggested.
        """
        known = sorted(known)
        close = difflib.get_close_matches(str(name), known, n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        return cls(f"Unknown {kind} {described(name)}.{hint} Known: {', '.join(known)}.")


class Interrupted(KeyboardInterrupt):
    """A stop asked by a signal: Ctrl-C (SIGINT), SIGTERM (what SLURM, Kubernetes and
    systemd send) or SIGHUP (a closed terminal or session). A ``KeyboardInterrupt``, so
    that whatever handles Ctrl-C handles it; ``signum`` is the signal, ``exit_code`` the
    shell's code for it (128 + its number: 130, 143, 129)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class StabilityWarning(UserWarning):
    """A stability value is undefined (NaN) or was imputed; the message names the cause."""


class DataWarning(UserWarning):
    """The data hold something a study would find without it meaning anything: a feature
    that follows the row order and alone separates the classes (a row number or an index
    not marked as sample IDs, with the samples sorted by class); the message names it."""


class CalibrationWarning(UserWarning):
    """A regularisation could not be set to select the requested number of features
    exactly; the closest count is used (the message says which)."""
