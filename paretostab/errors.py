"""Exceptions and warnings raised by paretostab.

Every error the library raises on bad input derives from :class:`ParetostabError`, so
callers can catch one class. The subclasses also derive from the built-in exception a
Python user would expect (``ValueError`` for a bad value, ``TypeError`` for a bad type).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["CalibrationWarning", "InvalidInputError", "ParetostabError", "StabilityWarning",
           "UnknownNameError", "WorkerError"]


class ParetostabError(Exception):
    """Root of every error raised by paretostab on bad input or configuration."""


class InvalidInputError(ParetostabError, ValueError):
    """An array, parameter or option does not have the expected shape, type or values."""


class WorkerError(ParetostabError, RuntimeError):
    """A ``tune --workers`` process failed; the message is its error (printed once)."""


class UnknownNameError(ParetostabError, ValueError):
    """A name (measure, selector, similarity method, option) is not known."""

    @classmethod
    def for_name(cls, kind: str, name: object, known: Iterable[str]) -> UnknownNameError:
        """Build the error for ``name`` with the closest known names as a suggestion."""
        known = sorted(known)
        close = difflib.get_close_matches(str(name), known, n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        return cls(f"Unknown {kind} {name!r}.{hint} Known: {', '.join(known)}.")


class StabilityWarning(UserWarning):
    """A stability value is undefined (NaN) or was imputed; the message names the cause."""


class CalibrationWarning(UserWarning):
    """A regularisation could not be set to select the requested number of features
    exactly; the closest count is used (the message says which)."""
