"""The spec reference page, generated from the code: every key a spec can hold (its type,
default and meaning, from the declarations of :mod:`paretostab.spec._schema`) and every
registered selector with its fixed parameters, its default search space and its other
parameters' defaults (from :data:`paretostab.selectors.SELECTORS`).

Both are definition lists (MyST's ``deflist``), one entry per key or selector, a section
per table: the descriptions wrap in the page's width. As tables of four and five columns
they were wider than the page at 1 400 and 1 920 pixels, the descriptions cut off behind a
scroll bar at the foot of a table some 4 000 pixels long.

``python -m paretostab.spec --reference docs/spec-reference.md`` writes it; a test checks
that the committed page is the one the code makes.
"""

from __future__ import annotations

from paretostab.selectors import SELECTORS, Range
from paretostab.spec._keys import inline_code
from paretostab.spec._schema import TABLES, reference_entries

__all__ = ["key_list", "reference_page", "selector_list"]


def _range(name: str, rng: Range) -> str:
    scale = ", log" if rng.log else ""
    return f"`{name}` in [{rng.low:g}, {rng.high:g}{scale}]"


def _setting(name: str, value: object) -> str:
    """``name = value`` as a spec writes it; None (no value: the estimator decides) as
    ``None``."""
    return f"`{name} = {'None' if value is None else inline_code(value).strip('`')}`"


#: The words of the keys without a default value.
_WHEN_UNSET = {"required": "required", "absent": "optional"}


def _entry(term: str, definition: str) -> str:
    """One entry of a MyST definition list."""
    return f"{term}\n: {definition}\n"


def key_list() -> str:
    """Every key of a spec as Markdown: a section per table, each key a definition-list
    entry (its type, default and description: :func:`reference_entries`)."""
    sections = []
    for table in TABLES:
        entries = [_entry(f"`{path}`",
                          f"{kind}; {_WHEN_UNSET.get(default, 'default ' + default)}. {doc}")
                   for path, kind, default, doc in reference_entries()
                   if path.split(".")[0] == table]
        sections.append(f"### `[{table}]`\n\n" + "\n".join(entries))
    return "\n".join(sections)


def selector_list() -> str:
    """Every registered selector as a Markdown definition list: its estimator, fixed
    parameters, default search space (searched unless the spec fixes or overrides them;
    feature counts clipped to the data) and its other parameters with their defaults."""
    entries = []
    for name, info in sorted(SELECTORS.items()):
        defaults = info.estimator().get_params()
        other = [_setting(key, value) for key, value in sorted(defaults.items())
                 if key not in info.fixed and key not in info.search_space]
        fixed = ", ".join(_setting(key, value) for key, value in info.fixed.items())
        space = ", ".join(_range(key, rng) for key, rng in info.search_space.items())
        entries.append(_entry(
            f"`{name}`", f"Estimator `{info.estimator.__name__}`. "
                         f"Fixed: {fixed or 'nothing'}. "
                         f"Default search space: {space or 'none'}. "
                         f"Other parameters: {', '.join(other) or 'none'}."))
    return "\n".join(entries)


def reference_page() -> str:
    """The whole page: the keys, then the selectors."""
    return (
        "# Study spec reference\n\n"
        "Generated from the code by `python -m paretostab.spec --reference "
        "docs/spec-reference.md`: edit the declarations in `paretostab/spec/_schema.py` or the "
        "registry in `paretostab/selectors/__init__.py`, not this page.\n\n"
        "A spec is a TOML file (or a dict) with the tables `[study]`, `[data]`, "
        "`[protocol]`, `[selector]` and `[objective]`.\n\n"
        "## Keys\n\n"
        "Each key with its type, its default (or *required*: the spec must give it; "
        "*optional*: absent unless the spec sets it) and what it does.\n\n" + key_list() +
        "\n## Selectors\n\n"
        "A selector's parameters are its estimator's `get_params()` names: fix any of them in "
        "`[selector.fixed]`, search any in `[selector.search]` (a range `[low, high]`, "
        "`{low, high, log = true}` or `{choices = [...]}`); the default search space is used "
        "for the parameters the spec leaves alone.\n\n" + selector_list())
