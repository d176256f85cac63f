"""The papers named as a reader cites them: ``cite`` and ``cited``, and every measure's
reference as a person reads it."""

from __future__ import annotations

import re

import pytest

from paretostab._papers import PAPERS, cite, cited
from paretostab.measures import list_measures


@pytest.mark.parametrize("text, named", [
    ("003 eq. 6, Algorithm 2", "Hamer & Dupont, JMLR 2021, eq. 6, Algorithm 2"),
    ("001 (SMU); stabm stabilityUnadjusted",
     "Bommert & Rahnenführer, LOD 2020 (SMU); stabm stabilityUnadjusted"),
    ("Nogueira et al. JMLR 2018; 002 eq. 1; 003 eq. 1",
     "Nogueira et al. JMLR 2018; Hamer & Dupont 2019, eq. 1; Hamer & Dupont, JMLR 2021, eq. 1"),
    ("000 §6.2 and 004 Table 1", "Hamer & Dupont, ECML 2021, §6.2 and "
                                 "Guzmán-Martínez & Alaiz-Rodríguez 2011, Table 1"),
    ("stabm; Jaccard 1901", "stabm; Jaccard 1901"),  # no paper of ours
    ("k = 1000 trees, 0003", "k = 1000 trees, 0003"),  # numbers that are not papers
])
def test_cite_names_the_papers(text, named):
    assert cite(text) == named


def test_cited_lists_each_named_paper_once_by_authors_then_year():
    texts = ["as Hamer & Dupont, JMLR 2021, §7.1", "Hamer & Dupont 2019, §3",
             "again Hamer & Dupont, JMLR 2021", "Bommert & Rahnenführer, LOD 2020 (SMU)",
             "Hamer & Dupont, ECML 2021"]
    assert cited(texts) == [f"{PAPERS[n].short}: {PAPERS[n].full}"
                            for n in ("001", "002", "000", "003")]
    assert cited(["nothing cited"]) == []


def test_every_measure_names_its_papers():
    references = list_measures()["reference"]
    assert not [r for r in references if re.search(r"\b00[0-4]\b", r)]
    assert references["iw"] == "Hamer & Dupont, JMLR 2021, eq. 6, Algorithm 2"
