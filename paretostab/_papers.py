"""The papers paretostab implements, named as a reader cites them.

The code cites the papers by their numbers (``000 eq. 3``, ``003 Algorithm 2``: the
files of the specification); what a person reads — the measures' references, the study
note on the dashboard, the report and comparison pages — names them (:func:`cite`), and a
page lists the full reference of every paper it names (:func:`cited`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

__all__ = ["PAPERS", "Paper", "cite", "cited"]


class Paper(NamedTuple):
    short: str
    """How a page names it: ``"Hamer & Dupont 2019"``."""
    full: str
    """Its full reference."""


PAPERS = {
    "000": Paper("Hamer & Dupont, ECML 2021",
                 "V. Hamer, P. Dupont. Robust selection stability estimation in correlated "
                 "spaces. ECML PKDD 2021."),
    "001": Paper("Bommert & Rahnenführer, LOD 2020",
                 "A. Bommert, J. Rahnenführer. Adjusted measures for feature selection "
                 "stability for data sets with similar features. LOD 2020."),
    "002": Paper("Hamer & Dupont 2019",
                 "V. Hamer, P. Dupont. Explicit control of feature relevance and selection "
                 "stability through Pareto optimality (2019)."),
    "003": Paper("Hamer & Dupont, JMLR 2021",
                 "V. Hamer, P. Dupont. An importance weighted feature selection stability "
                 "measure. Journal of Machine Learning Research (2021)."),
    "004": Paper("Guzmán-Martínez & Alaiz-Rodríguez 2011",
                 "R. Guzmán-Martínez, R. Alaiz-Rodríguez. Feature selection stability "
                 "assessment based on the Jensen-Shannon divergence. ECML PKDD 2011."),
}

_NUMBER = re.compile(r"\b(00[0-4])\b( (?=eq\.|§|Algorithm|Fig\.|Table))?")


def cite(text: str) -> str:
    """``text`` with the papers' numbers replaced by their names: ``"003 eq. 6,
    Algorithm 2"`` → ``"Hamer & Dupont, JMLR 2021, eq. 6, Algorithm 2"``, ``"001 (SMU)"``
    → ``"Bommert & Rahnenführer, LOD 2020 (SMU)"``."""
    return _NUMBER.sub(lambda found: PAPERS[found[1]].short + (", " if found[2] else ""),
                       text)


def cited(texts: Iterable[str]) -> list[str]:
    """The full reference (``"short: full"``) of every paper named in ``texts``, by
    authors, then year."""
    joined = "\n".join(texts)
    return sorted(f"{paper.short}: {paper.full}" for paper in PAPERS.values()
                  if paper.short in joined)
