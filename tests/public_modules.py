"""The package's public modules, for the test of its structure (``tests/test_architecture.py``:
every other module is private) and the tests of its API reference (``tests/test_docs.py``:
every name of their ``__all__`` is documented)."""

from __future__ import annotations

__all__ = ["PUBLIC_MODULES"]

#: The public modules: the package and the modules its API reference documents
#: (docs/api/*.rst; tests/test_docs.py checks that every name of their ``__all__`` is
#: there). Every other module is private (``_name.py``, or inside a private package).
PUBLIC_MODULES = ("paretostab", "paretostab.measures", "paretostab.selectors",
                  "paretostab.front", "paretostab.maps", "paretostab.plot", "paretostab.report",
                  "paretostab.evaluation", "paretostab.data", "paretostab.spec",
                  "paretostab.stable_set", "paretostab.search")
