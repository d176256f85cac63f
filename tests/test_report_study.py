"""The report of a tuned study, end to end: HTML, CSV, JSON, cached replicates, γ choice."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import optuna
import pandas as pd
import pytest
from optuna.artifacts import get_all_artifact_meta

from paretostab import choose
from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab._optuna_internals import storage_of, study_id_of
from paretostab._tuning import run_study
from paretostab._weight import as_weight
from paretostab.front import pareto_front
from paretostab.report._build import build_report
from paretostab.spec import parse_spec
from tests.extras import need

SPEC = {
    "study": {"name": "tiny", "trials": 5, "seed": 0, "sampler": "random"},
    "data": {"source": "simulated:n_other=30,n_per_class=20"},
    "protocol": {"runs": 4, "replicates": 3},
    "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 4},
                 "search": {"n_stable": [0, 4], "reg": {"low": 0.01, "high": 100.0, "log": True}}},
    "objective": {"stability": "iw", "record": ["nogueira", "pearson"]},
}


@pytest.fixture(scope="module")
def study_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study")
    url = f"sqlite:///{folder / 'study.db'}"
    run_study(parse_spec(SPEC), storage=url, progress=False)
    return url


@pytest.mark.slow
def test_report_writes_html_csv_and_json(study_url, tmp_path, monkeypatch):
    out = build_report(study_url, out=tmp_path / "report", weight="accuracy:2", gamma=0.5,
                       progress=False)
    front = pd.read_csv(out / "front.csv")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["study"] == "tiny" and summary["objective"] == "iw"
    assert summary["trials"] == 5 and summary["front"] == list(front["trial"])
    assert summary["weight"] == "accuracy:2" and summary["replicates"] == 3
    assert summary["metric"] == "accuracy" and summary["majority_class_rate"] == 0.5  # 20/20
    low, high = summary["dominance_area_interval"]
    s_low, s_high = summary["simultaneous_interval"]
    assert s_low <= low <= high <= s_high
    assert summary["chosen"][0] in summary["front"]
    assert {"accuracy", "iw", "nogueira", "pearson", "n_stable", "reg"} <= set(front.columns)
    points = front[["accuracy", "iw"]].to_numpy()
    assert len(pareto_front(points)) == len(points)  # the front table is a front
    page = (out / "index.html").read_text()
    assert "paretostab report: tiny" in page and "data:image/png;base64," in page
    assert "Selection frequency p_f of the most selected features" in page  # the overview
    alt = re.search(r'alt="(Each panel: one row per run[^"]*)"', page)
    assert alt, "no small multiples of the maps"
    assert "Feature stability maps of the front" in page and page.count("<h3>") == 1
    assert set(summary["optimism"]) == {"accuracy", "iw"}
    assert all(abs(v) < 1 for v in summary["optimism"].values())
    assert "optimism, as its trials were selected" in page
    chosen = summary["chosen"][0]
    assert f"trial {chosen}, the γ = 0.5 choice, circled in each" in page
    # the chosen trade-off: parameters, values, replicate means with intervals, features
    trade_off = summary["chosen_trade_off"]
    study = optuna.load_study(study_name="tiny", storage=study_url)
    assert trade_off["trial"] == chosen
    assert trade_off["params"] == study.trials[chosen].params
    assert [v["objective"] for v in trade_off["values"]] == ["accuracy", "iw", "nogueira",
                                                            "pearson"]
    for value in trade_off["values"]:
        assert value["interval low"] <= value["replicate mean"] <= value["interval high"]
    assert trade_off["replicates"] == 3 and len(trade_off["selected_features"]) == 4
    assert '<section id="chosen-trade-off">' in page and '<span id="chosen"></span>' in page
    assert "Features selected on the whole data (4)" in page
    choice = choose(study_url, 0.5)
    assert [f["feature"] for f in trade_off["selected_features"]] == \
        list(choice.features)
    # every front trial's number links to its map, whose section carries the anchor; the
    # chosen row is highlighted; the front figure's points link through an image map
    for number in summary["front"]:
        assert f'<a href="#trial-{number}">{number}</a>' in page
        assert f'<span id="trial-{number}"></span>' in page
        assert f'href="#trial-{number}" alt="trial {number}: accuracy' in page
    assert re.search(rf'<tr class="highlight"><td><a href="#trial-{chosen}">', page)
    assert "<th>φ_iw</th>" in page and "<th>φ</th>" in page and "<th>φ_pears</th>" in page
    # a second report reuses the replicates cached in the study (not as artifacts)
    import paretostab._problem

    monkeypatch.setattr(paretostab._problem, "replicate_protocols",
                        lambda *a, **k: pytest.fail("replicates were re-run"))
    again = build_report(study_url, out=tmp_path / "again", progress=False)  # γ = 0.5
    assert json.loads((again / "summary.json").read_text())["dominance_area_interval"] is not None
    assert not get_all_artifact_meta(study), "the replicates were cached as study artifacts"
    keys = storage_of(study).get_study_system_attrs(study_id_of(study))
    assert {f"paretostab:replicates:{n}:3" for n in summary["front"]} <= set(keys)


@pytest.mark.slow
def test_other_measures_and_no_replicates(study_url, tmp_path):
    out = build_report(study_url, out=tmp_path / "r", measures=["phi", "pears", "jaccard"],
                       replicates=0, gamma=0.7, progress=False)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["dominance_area_interval"] is None and summary["optimism"] is None
    page = (out / "index.html").read_text()
    assert f"trial {summary['chosen'][0]}, the γ = 0.7 choice, circled in each" in page
    assert summary["chosen_trade_off"]["replicates"] == 0
    assert "mean of 0 replicates" in page  # their columns stay, empty
    front = pd.read_csv(out / "front.csv")
    assert {"nogueira", "pearson", "jaccard"} <= set(front.columns)  # jaccard recomputed
    assert front["jaccard"].between(0, 1).all()


def test_choose_returns_a_front_trial_with_its_features(study_url):
    result = choose(study_url, 0.9)
    assert 0 <= result.values["accuracy"] <= 1 and len(result.features) == 4
    assert {"n_stable", "reg"} <= set(result.params)
    assert choose(study_url, 0.0).values["iw"] >= choose(study_url, 1.0).values["iw"]


def test_bad_report_arguments(study_url, tmp_path):
    with pytest.raises(InvalidInputError, match="weight must be .*'accuracy:A'.*got 'accuracy:two'"):
        as_weight("accuracy:two")
    with pytest.raises(InvalidInputError, match="weight must be .*got 'accuracy:two'"):
        build_report(study_url, out=tmp_path, weight="accuracy:two")
    with pytest.raises(InvalidInputError, match=r"gamma must be a number in \[0, 1\]"):
        build_report(study_url, out=tmp_path, gamma=1.5)
    with pytest.raises(UnknownNameError, match="Did you mean 'tiny'"):
        build_report(study_url, study_name="tine", out=tmp_path)
    with pytest.raises(UnknownNameError, match="Did you mean 'nogueira'"):
        build_report(study_url, measures=["nogeira"], out=tmp_path)


@pytest.mark.slow
def test_cli_report_and_choose(study_url, tmp_path):
    run = subprocess.run([sys.executable, "-m", "paretostab", "report", "--storage", study_url,
                          "--out", str(tmp_path / "cli"), "--gamma", "0.6"],
                         capture_output=True, text=True, cwd=tmp_path, check=True)
    assert "index.html" in run.stdout and (tmp_path / "cli" / "index.html").exists()
    run = subprocess.run([sys.executable, "-m", "paretostab", "choose", "--gamma", "0.6",
                          "--storage", study_url], capture_output=True, text=True,
                         cwd=tmp_path, check=True)
    assert "selected features (4" in run.stdout and "parameters:" in run.stdout
    assert "φ_iw = " in run.stdout  # the measure by its symbol


@pytest.mark.slow
def test_replicates_cached_without_a_measure_are_rerun_and_merged(study_url, tmp_path):
    """A report asking for a measure the cached replicates lack re-runs them (same seeds:
    the same values) and keeps the cache's other measures beside the new one."""
    first = build_report(study_url, out=tmp_path / "a", progress=False)
    front = json.loads((first / "summary.json").read_text())["front"]
    study = optuna.load_study(study_name="tiny", storage=study_url)
    before = storage_of(study).get_study_system_attrs(study_id_of(study))
    build_report(study_url, out=tmp_path / "b", measures=["jaccard"], progress=False)
    after = storage_of(study).get_study_system_attrs(study_id_of(study))
    for number in front:
        key = f"paretostab:replicates:{number}:3"
        assert set(after[key]) == {*before[key], "jaccard"}
        assert all(after[key][m] == before[key][m] for m in before[key])


@pytest.mark.slow
def test_the_replicates_of_the_front_in_one_pool_are_those_trial_by_trial(study_url):
    """The report runs every front trial's replicates in one pool, their shared resamples
    prepared once: each trial's values are those of its B protocols run alone with its
    random state (the study's seed: its trials share their resamples), each kept once as
    soon as its B are done."""
    from dataclasses import replace

    from paretostab._protocol import replicates
    from paretostab.report._refits import Refits
    from tests.studies import read

    data = replace(read(study_url), cache={})  # none cached by the other tests' reports
    numbers = list(data.table["trial"])
    kept: list[str] = []
    found = Refits(data, lambda name, key, value: kept.append(key)).replicate_trials(
        numbers, 3, ["iw", "nogueira"], progress=False)
    assert list(found) == numbers and sorted(kept) == sorted(
        f"paretostab:replicates:{number}:3" for number in numbers)
    problem = data.problem
    for number in numbers:
        alone = replicates(problem.estimator(data.params[number]), problem.X, problem.y, 3,
                           random_state=[0, 1], **problem.protocol_options())
        assert problem.replicate_state(number) == [0, 1]
        assert found[number]["accuracy"] == [runs.accuracy for runs in alone]
        assert found[number]["iw"] == [runs.stability("iw") for runs in alone]
        assert found[number]["nogueira"] == [runs.stability("nogueira") for runs in alone]


@pytest.mark.parametrize(("resamples", "states"), [
    ("shared", [[7, 1], [7, 1]]), ("per_trial", [[7, 3, 1], [7, 8, 1]])])
def test_replicates_share_their_resamples_across_trials_as_the_study_does(resamples, states):
    """Replicate b of every trial runs on the b-th set of fresh resamples when the study's
    trials share theirs (prepared once: a quarter less work for a quickstart report), on
    resamples of its own otherwise."""
    from paretostab._problem import Problem

    problem = Problem.from_spec(parse_spec({
        "study": {"name": "r", "seed": 7}, "data": {"source": "breast_cancer"},
        "protocol": {"runs": 3, "resamples": resamples},
        "selector": {"name": "t_test", "fixed": {"n_features": 3}}}))
    assert [problem.replicate_state(n) for n in (3, 8)] == states


@pytest.mark.slow
def test_a_measure_needing_a_similarity_the_study_has_none_of(study_url, tmp_path):
    """The study records no similarity measure: the report recomputes φ_msi from the trials'
    RunSets and from fresh replicates with |Spearman| on the data (the papers' choice), the
    same similarity for both."""
    from paretostab._problem import Problem
    from paretostab._similarity import FeatureSimilarity
    from paretostab.report._load import open_source, read_runsets, read_study
    from paretostab.report._refits import Refits

    out = build_report(study_url, out=tmp_path / "msi", measures=["msi"], progress=False)
    summary = json.loads((out / "summary.json").read_text())
    front_csv = (out / "front.csv").read_text().splitlines()
    assert "msi" in front_csv[0].split(",")
    source = open_source(study_url)
    study = read_study(source, ["msi"])
    table = study.table
    assert table["msi"].between(0, 1).all()
    number = summary["front"][0]
    expected = read_runsets(source, [number])[number].stability(
        "msi", similarity=FeatureSimilarity(study.problem.X, "spearman"))
    assert table.loc[table["trial"] == number, "msi"].item() == pytest.approx(expected)
    cached = Refits(study).replicates(number, 3, ["msi"])
    assert len(cached["msi"]) == 3 and all(0 <= v <= 1 for v in cached["msi"])
    problem = Problem.from_spec(parse_spec(SPEC))
    assert problem.similarity is None
    assert problem.similarity_for(["msi"]) is problem.similarity_for(["sechidis"])
    assert problem.similarity_for(["msi"]).method == "spearman"
    assert problem.similarity_for(["nogueira", "iw"]) is None


@pytest.mark.slow
def test_the_report_of_a_three_class_study(tmp_path):
    """K > 2 classes end to end: tune, report (the front figure's axis names the majority
    class's rate, summary.json holds it), the γ choice refitted on the whole data."""
    spec = {"study": {"name": "wine", "trials": 3, "seed": 0, "sampler": "random"},
            "data": {"source": "wine"}, "protocol": {"runs": 4, "replicates": 3},
            "selector": {"name": "t_test", "fixed": {"n_features": 4}},
            "objective": {"stability": "iw", "record": ["nogueira"]}}
    url = f"sqlite:///{tmp_path / 'wine.db'}"
    run_study(parse_spec(spec), storage=url, progress=False)
    out = build_report(url, out=tmp_path / "report", replicates=3, progress=False)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metric"] == "accuracy"
    assert summary["majority_class_rate"] == pytest.approx(71 / 178)  # wine's class 1
    chosen = choose(url, 0.5)
    assert len(chosen.features) == 4


@pytest.mark.slow
def test_the_report_gives_the_study_note_the_front_as_of_its_run(study_url, tmp_path):
    """Trial notes say nothing of the front; the study's note says which trials are on it
    and when that was so (the report's run)."""
    import optuna

    get_note = need("optuna_dashboard").get_note
    out = build_report(study_url, out=tmp_path / "r", replicates=0, progress=False)
    front = pd.read_csv(out / "front.csv")
    note = get_note(optuna.load_study(study_name="tiny", storage=study_url))
    assert note.startswith("## Two objectives, both maximised")
    section = note[note.index("## The Pareto front, as of the report of "):]
    listed = [int(m) for m in re.findall(r"^- trial (\d+): accuracy ", section, re.M)]
    assert listed == list(front["trial"])
    build_report(study_url, out=tmp_path / "again", replicates=0, progress=False)
    again = get_note(optuna.load_study(study_name="tiny", storage=study_url))
    assert again.count("## The Pareto front") == 1  # replaced, not appended


def stopping_after_the_first_trial(replicate_protocols, stop):
    """``Problem.replicate_protocols`` calling ``stop()`` when a protocol comes after one
    trial's B are done (the protocols of all trials run in one pool, in no fixed order);
    the settings run in ``wrapped.settings`` (:func:`trials_of` names their trials)."""
    def wrapped(self, settings, n, *, random_states, **options):
        wrapped.settings.extend(settings)
        counts: dict[int, int] = {}
        for i, b, runs in replicate_protocols(self, settings, n, random_states=random_states,
                                              **options):
            if n in counts.values():
                stop()
            counts[i] = counts.get(i, 0) + 1
            yield i, b, runs

    wrapped.settings = []
    return wrapped


def trials_of(url, settings) -> list[int]:
    """The trials of the study at ``url`` with the parameters ``settings``, one each."""
    from tests.studies import read

    params = read(url).params
    return [next(n for n, p in params.items() if p == setting) for setting in settings]


@pytest.mark.slow
def test_an_interrupted_report_keeps_the_replicates_it_computed(tmp_path, monkeypatch):
    """Ctrl-C during the replicates: the front trials replicated so far are stored in the
    study (each refit is written as it is computed), and the next report reuses them."""
    import paretostab._problem
    from tests.studies import read

    url = f"sqlite:///{tmp_path / 'study.db'}"
    run_study(parse_spec(SPEC), storage=url, progress=False)
    replicate = paretostab._problem.Problem.replicate_protocols

    def interrupt():
        raise KeyboardInterrupt

    monkeypatch.setattr(paretostab._problem.Problem, "replicate_protocols",
                        stopping_after_the_first_trial(replicate, interrupt))
    with pytest.raises(KeyboardInterrupt):
        build_report(url, out=tmp_path / "report", progress=False)
    kept = [k for k in read(url).cache if k.startswith("paretostab:replicates:")]
    assert len(kept) == 1 and kept[0].endswith(":3")
    done = int(kept[0].split(":")[2])
    again = stopping_after_the_first_trial(replicate, lambda: None)
    monkeypatch.setattr(paretostab._problem.Problem, "replicate_protocols", again)
    summary = json.loads((build_report(url, out=tmp_path / "again", progress=False)
                          / "summary.json").read_text())
    assert sorted(trials_of(url, again.settings)) == sorted(set(summary["front"]) - {done})


def test_an_analysis_is_drawn_with_its_maps_and_scored_on_a_held_out_part_it_has(study_url):
    """analyse_study leaves the maps to with_maps (they need the RunSets read after it):
    drawing without them, or scoring a study that held nothing out, is one error line."""
    from paretostab._errors import InvalidInputError
    from paretostab.report._analysis import analyse_study
    from paretostab.report._estimates import held_out_evaluation
    from paretostab.report._refits import Refits
    from tests.studies import read

    data = read(study_url)
    report = analyse_study(data, Refits(data), replicates=0, progress=False)
    with pytest.raises(InvalidInputError, match="has no maps yet: add them with with_maps"):
        report.stability_maps  # noqa: B018
    with pytest.raises(InvalidInputError, match=r"holds no examples out \(\[protocol\] holdout"):
        held_out_evaluation(data, Refits(data), data.table, list(report.front.trials), {},
                            level=0.95)


@pytest.mark.slow
def test_a_report_killed_mid_way_keeps_the_replicates_it_computed(tmp_path):
    """kill -9 (no clean-up runs: the out-of-memory killer, a lost node) on the second
    front trial's replicates: the first trial's were written as they were computed."""
    import signal
    import subprocess
    import sys

    from tests.studies import read

    url = f"sqlite:///{tmp_path / 'study.db'}"
    run_study(parse_spec(SPEC), storage=url, progress=False)
    code = (
        "import os, signal, paretostab._problem as p\n"
        "from paretostab.report import analysed_study\n"
        "from tests.test_report_study import stopping_after_the_first_trial\n"
        "p.Problem.replicate_protocols = stopping_after_the_first_trial(\n"
        "    p.Problem.replicate_protocols, lambda: os.kill(os.getpid(), signal.SIGKILL))\n"
        f"analysed_study({url!r}, progress=False)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == -signal.SIGKILL, run.stderr
    kept = [k for k in read(url).cache if k.startswith("paretostab:replicates:")]
    assert len(kept) == 1 and kept[0].endswith(":3")


@pytest.mark.slow
def test_a_study_at_chance_says_so_and_names_its_metric(tmp_path):
    """Labels unrelated to the features (four classes, balanced accuracy, data in memory).
    Every trial is flagged; the summary opens by saying the study is at chance level and
    summary.json says so beside the dominance area; front.csv and the page name the metric
    "balanced accuracy" and give each front trial's flag."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((48, 20)), np.repeat(np.arange(4), 12)
    spec = {"study": {"name": "noise", "trials": 4, "seed": 0, "sampler": "random"},
            "data": {"source": "memory"},
            "protocol": {"runs": 4, "metric": "balanced_accuracy"},
            "selector": {"name": "t_test", "search": {"n_features": [1, 5]}},
            "objective": {"stability": "nogueira"}}
    url = f"sqlite:///{tmp_path / 'noise.db'}"
    run_study(parse_spec(spec), storage=url, data=(X, y), progress=False)
    out = build_report(url, out=tmp_path / "report", replicates=0, data=(X, y),
                       progress=False)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["at_chance"] is True and summary["dominance_area"] > 0
    assert summary["chance"]["dominance_area_without_flagged"] == 0
    front = pd.read_csv(out / "front.csv", keep_default_na=False)
    assert "balanced_accuracy" in front and "accuracy" not in front
    assert all(reason.startswith("balanced accuracy not above chance (0.250")
               for reason in front["flag"])
    from paretostab._tuning import front_table  # tune flags them alike, four classes

    tuned = front_table(optuna.load_study(study_name="noise", storage=url))
    assert dict(zip(tuned["trial"], tuned["flagged"], strict=True)) == dict(
        zip(front["trial"], front["flag"], strict=True))
    page = (out / "index.html").read_text()
    summary_text = page[page.index("Summary"):]
    assert re.search(r"<p>At chance level: all 4 trials are flagged", summary_text)
    assert "Objectives: out-of-bag balanced accuracy" in page
    assert "<th>balanced accuracy</th>" in page and "<th>accuracy</th>" not in page


@pytest.mark.slow
def test_front_csv_flags_each_trial_and_keeps_accuracy_by_its_name(study_url, tmp_path):
    """Plain accuracy keeps its column name (the quickstart's); the flag column holds the
    reason or "" (the report guide's front.csv)."""
    out = build_report(study_url, out=tmp_path / "report", replicates=0, progress=False)
    front = pd.read_csv(out / "front.csv", keep_default_na=False)
    summary = json.loads((out / "summary.json").read_text())
    assert "accuracy" in front and list(front.columns)[-1] == "flag"
    flagged = summary["chance"]["flagged"]
    assert list(front["flag"]) == [flagged.get(str(n), "") for n in front["trial"]]
    assert summary["at_chance"] is False


@pytest.mark.parametrize("names", [None, ["accuracy", "loss"]])
def test_a_study_tune_did_not_make_is_one_line_naming_what_it_lacks(tmp_path, names):
    """A plain Optuna study with two objectives (unnamed, or a second name that is no
    measure): report and choose say it was not made by tune, not "Unknown measure
    'stability'" or a missing RunSet; named after a measure, it is read as that measure."""
    url = f"sqlite:///{tmp_path / 'plain.db'}"
    study = optuna.create_study(study_name="plain", storage=url,
                                directions=["maximize", "maximize"])
    if names:
        study.set_metric_names(names)
    study.optimize(lambda trial: (trial.suggest_float("x", 0, 1), 0.5), n_trials=2)
    (tmp_path / "artifacts").mkdir()
    artifacts = str(tmp_path / "artifacts")
    with pytest.raises(InvalidInputError, match="^Study 'plain' was not made by paretostab "
                                                "tune: it names no stability measure"):
        build_report(url, out=tmp_path / "report", artifacts=artifacts)
    with pytest.raises(InvalidInputError, match="was not made by paretostab tune"):
        choose(url, 0.5, artifacts=artifacts)
