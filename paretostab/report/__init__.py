"""The report of tuned studies: fronts, dominance areas with confidence intervals,
Hotelling regions, the γ choice, feature stability maps and comparisons of groups of
trials (SPEC §5; 002 §3, 003 §3, §7.1, 000 §6.2).

The modules, from the bottom up:

- ``_confidence`` and ``_compare``: pure numpy,
  scipy and pandas — Hotelling regions and the DA interval; groups of trials compared by
  their fronts (a one-study report is the comparison of one group);
- ``_study_data``: a study as read (frozen, no Optuna object);
  ``_load``, the only reader of a storage, reads it in one pass;
- ``_refits``: the refits of trial settings the report needs
  (replicates, held-out scores, label probes, whole-data selections), looked up in the
  study's cache or computed;
- ``_estimates`` and ``_analysis``: pure
  functions of those, returning the frozen analysis objects of a page
  (:class:`StudyReport`,
  ``StudiesComparison``), and the chosen trade-off
  (:class:`paretostab.Choice`, below the report and the API);
- ``_figures`` (matplotlib, through :mod:`paretostab.plot`) and
  ``_pages`` (the sections) made from them;
- ``_html``: renders any sections as one self-contained page, with
  the templates of ``paretostab._templating`` (autoescaped; also the notebook
  representations of :mod:`paretostab`'s objects and of ``Choice``);
- ``_write``: the only writer — files, the study's dashboard note,
  the refits cached in the study;
- ``_build``: the pipelines read → analyse → draw → write
  (``build_report``, ``build_comparison``, ``choose_trial``).

The modules are private; this package exports what the package's main jobs
(:func:`paretostab.study_report`, :func:`paretostab.choose`, :func:`paretostab.compare`)
are built from: the pipelines (:func:`analysed_study`, :func:`save_study_report`,
:func:`choose_trial`, :func:`build_comparison`), their results (:class:`StudyReportResult`,
:class:`StudyReport`, :class:`StudyFigures`), the sections of a study's page
(:func:`study_sections`) and the page itself (:func:`write_report`, :func:`figure_to_png`).
Those load Optuna and matplotlib, and are imported when first used.

The fronts, dominance areas and the γ choice are :mod:`paretostab.front`; the maps
:mod:`paretostab.maps`; the drawers :mod:`paretostab.plot`. Importing this package loads
neither Optuna nor matplotlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paretostab._lazy import lazy_exports
from paretostab.report._compare import (
    CombinedFront,
    Comparison,
    Difference,
    Group,
    GroupFront,
    compare_groups,
    front_trials,
    table3,
)
from paretostab.report._confidence import (
    DominanceAreaInterval,
    Ellipse,
    confidence_regions,
    dominance_area_interval,
)

if TYPE_CHECKING:  # the pipelines load Optuna and matplotlib: imported when first used
    from paretostab.report._analysis import StudyReport
    from paretostab.report._build import (
        StudyReportResult,
        analysed_study,
        build_comparison,
        choose_trial,
        save_study_report,
    )
    from paretostab.report._figures import StudyFigures
    from paretostab.report._html import figure_to_png, write_report
    from paretostab.report._pages import study_sections

#: The exports that load Optuna or matplotlib, imported when first used: name → module
#: (the ``TYPE_CHECKING`` imports above name the same).
_LAZY = {name: f"{__name__}.{module}" for name, module in {
    "StudyReport": "_analysis", "StudyReportResult": "_build", "analysed_study": "_build",
    "build_comparison": "_build", "choose_trial": "_build", "save_study_report": "_build",
    "StudyFigures": "_figures", "figure_to_png": "_html", "write_report": "_html",
    "study_sections": "_pages"}.items()}


__all__ = [
    "CombinedFront",
    "Comparison",
    "Difference",
    "DominanceAreaInterval",
    "Ellipse",
    "Group",
    "GroupFront",
    "StudyFigures",
    "StudyReport",
    "StudyReportResult",
    "analysed_study",
    "build_comparison",
    "choose_trial",
    "compare_groups",
    "confidence_regions",
    "dominance_area_interval",
    "figure_to_png",
    "front_trials",
    "save_study_report",
    "study_sections",
    "table3",
    "write_report",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
