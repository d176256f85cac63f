"""The Python API (paretostab.tune, study_report, choose, compare): results with their
numbers as attributes, shown inline in a notebook, equal to what the command line
writes."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import paretostab
from paretostab._api import as_spec
from paretostab._errors import InvalidInputError
from paretostab.report._build import build_report
from paretostab.spec import StudySpec

SPEC = {
    "study": {"name": "tiny", "trials": 5, "seed": 0, "sampler": "random"},
    "data": {"source": "simulated:n_other=30,n_per_class=20"},
    "protocol": {"runs": 4, "replicates": 3},
    "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 4},
                 "search": {"n_stable": [0, 3], "reg": {"low": 0.01, "high": 100.0,
                                                         "log": True}}},
    "objective": {"stability": "iw", "record": ["nogueira"]},
}


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('api') / 'api.db'}"
    return paretostab.tune(SPEC, storage=url, progress=False)


def test_the_public_names_are_the_api():
    for name in ("tune", "study_report", "choose", "compare", "stability", "list_measures",
                 "TunedStudy", "Report", "Choice", "__version__"):
        assert name in paretostab.__all__ and hasattr(paretostab, name)
    assert all(not n.startswith("_") or n == "__version__" for n in paretostab.__all__)


def test_a_spec_from_a_name_a_mapping_or_a_file(tmp_path):
    assert as_spec("quickstart").name == "quickstart"
    spec = as_spec(SPEC)
    assert isinstance(spec, StudySpec) and as_spec(spec) is spec
    with pytest.raises(InvalidInputError, match="spec must be a StudySpec"):
        as_spec(42)


@pytest.mark.slow
def test_tune_returns_the_study_with_its_front(tuned):
    assert tuned.name == "tiny" and tuned.n_trials == 5
    front = tuned.front
    assert isinstance(front, pd.DataFrame) and {"trial", "accuracy"} <= set(front.columns)
    assert 0 < tuned.dominance_area <= 1
    page = tuned._repr_html_()
    assert "Study tiny" in page and "<table" in page and "φ_iw" in page


@pytest.mark.slow
def test_a_report_has_its_numbers_and_writes_what_the_command_line_writes(tuned, tmp_path):
    result = tuned.report(gamma=0.5)
    written = build_report(tuned.storage, out=tmp_path / "cli", gamma=0.5, progress=False)
    summary = json.loads((written / "summary.json").read_text())
    assert result.dominance_area == pytest.approx(summary["dominance_area"])
    assert result.interval.low == pytest.approx(summary["dominance_area_interval"][0])
    assert list(result.front["trial"]) == summary["front"]
    chosen = result.chosen
    assert chosen.trial == summary["chosen"][0]
    assert chosen.features == paretostab.choose(tuned.storage, 0.5).features
    folder = result.save(tmp_path / "api")
    assert {p.name for p in folder.iterdir()} >= {"index.html", "front.csv", "summary.json"}
    assert json.loads((folder / "summary.json").read_text())["front"] == summary["front"]
    page = result.to_html()
    assert page.startswith("<!DOCTYPE html>") and "paretostab report: tiny" in page
    inline = result._repr_html_()
    assert "data:image/png;base64," in inline and f"chooses trial {chosen.trial}" in inline


@pytest.mark.slow
def test_choose_and_compare(tuned, tmp_path):
    choice = paretostab.choose(tuned, 1.0)
    assert choice == tuned.choose(1.0)
    assert choice == paretostab.choose(tuned.storage, 1.0)  # a URL as a TunedStudy
    assert "γ = 1 chooses trial" in choice._repr_html_()
    other = paretostab.tune({**SPEC, "study": {**SPEC["study"], "name": "other", "seed": 1}},
                            storage=tuned.storage, progress=False)
    compared = paretostab.compare([tuned.name, other.name], [tuned.storage],
                                  out=tmp_path / "cmp", replicates=0, progress=False)
    assert set(compared.table["group"]) == {"tiny", "other"}
    assert "<table" in compared._repr_html_()
    with pytest.raises(InvalidInputError, match="TunedStudy"):
        paretostab.choose(42, 0.5)


@pytest.mark.slow
def test_tune_without_progress_prints_nothing_and_restores_optunas_level(tmp_path, capfd):
    """No Optuna INFO line per trial (issue 33), Optuna's level restored after the call;
    a level the caller set other than Optuna's default is kept."""
    import logging

    import optuna

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("optuna")
    logger.addHandler(handler)
    before = optuna.logging.get_verbosity()
    try:
        optuna.logging.set_verbosity(optuna.logging.INFO)
        paretostab.tune({**SPEC, "study": {**SPEC["study"], "trials": 2}},
                        storage=f"sqlite:///{tmp_path / 'quiet.db'}", progress=False)
        assert optuna.logging.get_verbosity() == optuna.logging.INFO
        assert [r.getMessage() for r in records] == []
        assert capfd.readouterr() == ("", "")
        optuna.logging.set_verbosity(optuna.logging.DEBUG)  # the caller wants every line
        paretostab.tune({**SPEC, "study": {**SPEC["study"], "trials": 1, "name": "loud"}},
                        storage=f"sqlite:///{tmp_path / 'quiet.db'}", progress=False)
        assert any("Trial 0 finished" in r.getMessage() for r in records)
    finally:
        logger.removeHandler(handler)
        optuna.logging.set_verbosity(before)


@pytest.mark.slow
def test_every_result_has_a_short_repr(tuned, tmp_path):
    """repr() of what the API returns: a line with names and key numbers, not tables
    (issue 33: a 5-trial study's report had a repr of 23 000 characters)."""
    report = tuned.report(gamma=0.5, progress=False)
    other = paretostab.tune({**SPEC, "study": {**SPEC["study"], "name": "repr", "seed": 2}},
                            storage=tuned.storage, progress=False)
    compared = paretostab.compare([tuned.name, other.name], [tuned.storage],
                                  out=tmp_path / "cmp", replicates=0, progress=False)
    results = {"TunedStudy": tuned, "Report": report, "StudyReport": report.analysis,
               "StudyReportResult": report.computed, "StudyFigures": report.figures,
               "Choice": tuned.choose(0.5), "ComparisonResult": compared,
               "Comparison": compared.comparison}
    for name, result in results.items():
        text = repr(result)
        assert text.startswith(f"{name}(") and "\n" not in text and len(text) <= 250, text
    assert repr(tuned) == f"TunedStudy('tiny', storage={tuned.storage!r})"
    chosen = report.chosen
    assert repr(chosen) == (
        f"Choice(trial={chosen.trial}, gamma=0.5, accuracy={chosen.values['accuracy']:.4g}, "
        f"iw={chosen.values['iw']:.4g}, {len(chosen.features)} features, "
        f"{len(chosen.flagged)} flagged)")
    analysis = report.analysis
    assert (f"StudyReport('tiny': 5 trials, front of {len(analysis.front.trials)} under iw"
            in repr(analysis)) and f"chooses trial {analysis.chosen_trial})" in repr(analysis)
    assert repr(compared.comparison).startswith("Comparison(2 groups under iw, nogueira; ")
