"""A study note a person edited on the dashboard survives the report (issue 36, point 4):
the report puts its front section in place of its former one and keeps the rest."""

from __future__ import annotations

import re

import optuna
import pytest
from hypothesis import given
from hypothesis import strategies as st

from paretostab._tuning import run_study
from paretostab._tuning.notes import with_section
from paretostab.report._build import build_report
from paretostab.report._write import FRONT_HEADING
from paretostab.spec import parse_spec
from tests.extras import need

SPEC = {"study": {"name": "noted", "trials": 3, "seed": 0, "sampler": "random"},
        "data": {"source": "wine"}, "protocol": {"runs": 4, "n_jobs": 1},
        "selector": {"name": "t_test", "fixed": {"n_features": 3}},
        "objective": {"stability": "iw"}}


@pytest.fixture
def study_url(tmp_path):
    url = f"sqlite:///{tmp_path / 'noted.db'}"
    run_study(parse_spec(SPEC), storage=url, progress=False)
    return url


def _fronts(note: str) -> list[str]:
    return re.findall(r"^## The Pareto front, as of the report of .*$", note, re.M)


@pytest.mark.slow
def test_a_persons_edit_of_the_study_note_survives_every_report(study_url, tmp_path):
    """A person's sentence added on the dashboard, and their own section after the
    report's, are kept by the next report, which replaces its own section only."""
    dashboard = need("optuna_dashboard")
    study = optuna.load_study(study_name="noted", storage=study_url)
    build_report(study_url, out=tmp_path / "r1", replicates=0, progress=False)
    note = dashboard.get_note(study)
    edited = ("Ask Ada before choosing trial 0.\n\n" + note
              + "\n## Our decision\n\nWe keep the sparsest trial.\n")
    dashboard.save_note(study, edited)
    build_report(study_url, out=tmp_path / "r2", replicates=0, progress=False)
    after = dashboard.get_note(study)
    assert after.startswith("Ask Ada before choosing trial 0.\n\n## Two objectives")
    assert after.endswith("\n## Our decision\n\nWe keep the sparsest trial.\n")
    assert len(_fronts(after)) == 1
    assert after.index(FRONT_HEADING) < after.index("## Our decision")


@pytest.mark.slow
def test_a_note_written_over_before_any_report_keeps_the_persons_text(study_url, tmp_path):
    """A note a person wrote in place of the study note gets the front after their text."""
    dashboard = need("optuna_dashboard")
    study = optuna.load_study(study_name="noted", storage=study_url)
    dashboard.save_note(study, "Only my words.")
    build_report(study_url, out=tmp_path / "r", replicates=0, progress=False)
    after = dashboard.get_note(study)
    assert after.startswith("Only my words.\n\n" + FRONT_HEADING)
    assert "## Two objectives" not in after and len(_fronts(after)) == 1


_LINE = st.text(st.characters(blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85"
                                                   "\u2028\u2029"), max_size=12)
_LINES = st.lists(_LINE.filter(lambda line: not line.startswith("#")), max_size=6)


@given(before=_LINES, after=_LINES, first=_LINE, second=_LINE)
def test_a_section_replaces_its_former_self_and_nothing_else(before, after, first, second):
    """The report's section is put in place of its former self, the text before it and a
    person's section after it unchanged; a note without it gets it at its end."""
    head = "".join(line + "\n" for line in before)
    tail = "## Mine\n" + "".join(line + "\n" for line in after)
    old, new = f"{FRONT_HEADING} 1\n\n- {first}\n", f"{FRONT_HEADING} 2\n\n- {second}\n"
    assert with_section(head + old + "\n" + tail, FRONT_HEADING, new) == (
        head + new + "\n" + tail)
    assert with_section(head + tail, FRONT_HEADING, new) == (
        (head + tail).rstrip("\n") + "\n\n" + new)
    assert with_section(head + old, FRONT_HEADING, new) == head + new
