"""The report's HTML templates: one jinja2 environment over the folder
``paretostab/report/templates`` (shipped in the wheel), made once, when first needed.

The templates: ``page.html``, the report page, with its partials ``section.html``,
``fields.html``, ``table.html``, ``figure.html``, ``contents.html`` and its style sheet
``style.css``; ``notebook.html``, the notebook representations (``_repr_html_``) of
:mod:`paretostab._api`'s objects and of :class:`~paretostab.Choice`, one
macro each. They place text the Python side has formatted; they compute nothing.

Every value a template inserts (``{{ … }}``) is escaped: autoescaping is on for every
template, and the environment's ``finalize`` escapes each value first with
:func:`html.escape` (``&``, ``<``, ``>``, ``"``, ``'`` as ``&amp;``, ``&lt;``, ``&gt;``,
``&quot;``, ``&#x27;``) — the spelling the pages have always had, where markupsafe's own
would write ``&#34;`` and ``&#39;``; the escaped value, :class:`~markupsafe.Markup`, is then
left as it is by the autoescaping. A value that is markup already — anything with an
``__html__`` method, as :class:`~markupsafe.Markup` and what :func:`render` and
:func:`render_macro` return — is inserted as it is: HTML the code built (a pandas table,
a rendered template) is marked :class:`~markupsafe.Markup` where it is made, never in a
template (no ``|safe``). An undefined name in a template is an error, not an empty string.
"""

from __future__ import annotations

import functools
import html

from markupsafe import Markup

__all__ = ["Markup", "environment", "render", "render_macro"]


def _escaped(value: object) -> object:
    """The environment's ``finalize``: ``value`` escaped by :func:`html.escape`, as markup;
    markup (``__html__``) as it is."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value)))


@functools.cache
def environment():
    """The jinja2 environment of the report's templates (made on the first call).

    Returns
    -------
    jinja2.Environment
        Templates from the package folder ``paretostab/report/templates``, every one
        autoescaped, every value escaped by :func:`html.escape` (``finalize``), undefined
        names an error; block tags leave no blank lines (``trim_blocks``,
        ``lstrip_blocks``) and a template's last newline is kept.
    """
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(loader=PackageLoader("paretostab.report", "templates"),
                       autoescape=True, finalize=_escaped, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render(template: str, /, **context: object) -> Markup:
    """A template rendered.

    Parameters
    ----------
    template : str
        Its name in the templates folder (``"page.html"``).
    **context
        The values it names.

    Returns
    -------
    Markup
        The HTML, escaped as the module says.
    """
    return Markup(environment().get_template(template).render(**context))


def render_macro(template: str, macro: str, /, **arguments: object) -> Markup:
    """A macro of a template called (``{% macro name(…) %}``).

    Parameters
    ----------
    template : str
        The template's name in the templates folder (``"notebook.html"``).
    macro : str
        The macro's name.
    **arguments
        Its arguments, by name.

    Returns
    -------
    Markup
        The HTML, escaped as the module says.
    """
    return Markup(getattr(environment().get_template(template).module, macro)(**arguments))
