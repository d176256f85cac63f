"""Names a package exports but imports on first use (PEP 562's module ``__getattr__``): a
package stays light to import while its reference documents everything it offers."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, lazy: Mapping[str, str], exported: Iterable[str]
                 ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package ``package``: a name of ``lazy``
    is imported from its module (name → dotted module) when first read; ``__dir__`` lists
    ``exported`` and the lazy names."""
    def __getattr__(name: str) -> object:
        if name not in lazy:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(lazy[name]), name)

    names = sorted({*exported, *lazy})

    def __dir__() -> list[str]:
        return list(names)

    return __getattr__, __dir__
