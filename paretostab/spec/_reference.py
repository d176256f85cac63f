"""The spec reference page, generated from the code: every key a spec can hold (its type,
default and meaning, from the declarations of :mod:`paretostab.spec._schema`) and every
registered selector with its fixed parameters, its default search space and its other
parameters' defaults (from :data:`paretostab.selectors.SELECTORS`).

``python -m paretostab.spec --reference docs/spec-reference.md`` writes it; a test checks
that the committed page is the one the code makes.
"""

from __future__ import annotations

from paretostab.selectors import SELECTORS, Range
from paretostab.spec._keys import inline_code
from paretostab.spec._schema import reference_table

__all__ = ["reference_page", "selector_table"]


def _range(name: str, rng: Range) -> str:
    scale = ", log" if rng.log else ""
    return f"`{name}` in [{rng.low:g}, {rng.high:g}{scale}]"


def _setting(name: str, value: object) -> str:
    """``name = value`` as a spec writes it; None (no value: the estimator decides) as
    ``None``."""
    return f"`{name} = {'None' if value is None else inline_code(value).strip('`')}`"


def selector_table() -> str:
    """Every registered selector as a Markdown table: its name, estimator, fixed
    parameters, default search space (searched unless the spec fixes or overrides them;
    feature counts clipped to the data) and its other parameters with their defaults."""
    rows = [("Selector", "Estimator", "Fixed", "Default search space", "Other parameters"),
            ("---",) * 5]
    for name, info in sorted(SELECTORS.items()):
        defaults = info.estimator().get_params()
        other = [_setting(key, value) for key, value in sorted(defaults.items())
                 if key not in info.fixed and key not in info.search_space]
        rows.append((f"`{name}`", f"`{info.estimator.__name__}`",
                     ", ".join(_setting(key, value) for key, value in info.fixed.items())
                     or "—",
                     ", ".join(_range(key, rng) for key, rng in info.search_space.items())
                     or "—",
                     ", ".join(other) or "—"))
    return "\n".join("| " + " | ".join(row) + " |" for row in rows) + "\n"


def reference_page() -> str:
    """The whole page: the keys, then the selectors."""
    return (
        "# Study spec reference\n\n"
        "Generated from the code by `python -m paretostab.spec --reference "
        "docs/spec-reference.md`: edit the declarations in `paretostab/spec/_schema.py` or the "
        "registry in `paretostab/selectors/__init__.py`, not this page.\n\n"
        "A spec is a TOML file (or a dict) with the tables `[study]`, `[data]`, "
        "`[protocol]`, `[selector]` and `[objective]`.\n\n"
        "## Keys\n\n" + reference_table() +
        "\n## Selectors\n\n"
        "A selector's parameters are its estimator's `get_params()` names: fix any of them in "
        "`[selector.fixed]`, search any in `[selector.search]` (a range `[low, high]`, "
        "`{low, high, log = true}` or `{choices = [...]}`); the default search space is used "
        "for the parameters the spec leaves alone.\n\n" + selector_table())
