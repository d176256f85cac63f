"""One study over several selectors: the multi-selector spec layout, its validation, its
conditional search space, the grid of fixed settings (000 Fig. 6), the data set's groups,
and such a study end to end (tune, report, choose)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab._problem import Problem
from paretostab._tuning import run_study
from paretostab._tuning.notes import study_note
from paretostab.selectors import ElasticNetSelector, GroupLassoSelector, HybridRFE, TTestSelector
from paretostab.spec import SELECTOR_PARAM, grid, param_name, parse_spec, trial_selector
from tests.studies import note_of

DATA = {"source": "simulated:n_other=30,n_per_class=20"}


def multi(**selector) -> dict:
    """A spec comparing the t-test filter, logistic RFE and the lasso at k = 4."""
    table = {"name": ["t_test", "logistic_rfe", "lasso"],
             "fixed": {"t_test": {"n_features": 4}, "logistic_rfe": {"n_features": 4},
                       "lasso": {"target_features": 4}},
             "search": {"logistic_rfe": {"reg": {"low": 0.01, "high": 10.0, "log": True}}}}
    table.update(selector)
    return {"study": {"name": "multi", "trials": 6, "seed": 0, "sampler": "random"},
            "data": dict(DATA), "protocol": {"runs": 3, "replicates": 3},
            "selector": table, "objective": {"stability": "nogueira", "record": ["pearson"]}}


def raises(spec: dict, error: type, *fragments: str) -> str:
    with pytest.raises(error) as info:
        parse_spec(spec, source="spec.toml")
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


# --------------------------------------------------------------------------- the layout


def test_a_list_of_names_makes_the_selector_a_choice_with_its_own_tables():
    spec = parse_spec(multi())
    assert spec.selector_choice
    assert [s.name for s in spec.selectors] == ["t_test", "logistic_rfe", "lasso"]
    t_test, rfe, lasso = spec.selectors
    assert dict(t_test.fixed) == {"n_features": 4}
    assert [p.name for p in t_test.search] == ["final_reg"]  # the registry's space
    assert dict(rfe.fixed) == {"n_features": 4, "n_stable": 0}  # with the registry's own
    assert {p.name: (p.low, p.high, p.log) for p in rfe.search}["reg"] == (0.01, 10.0, True)
    assert dict(lasso.fixed) == {"l1_ratio": 1.0, "target_features": 4}
    assert lasso.search == ()  # its only registry parameter is fixed


def test_one_name_keeps_the_single_selector_layout():
    spec = parse_spec({**multi(), "selector": {"name": "t_test", "fixed": {"n_features": 4}}})
    assert not spec.selector_choice and len(spec.selectors) == 1
    assert param_name(spec, spec.selectors[0], spec.selectors[0].search[0]) == "final_reg"
    assert trial_selector(spec, {"final_reg": 2.0}) == (spec.selectors[0], {"final_reg": 2.0})


def test_trial_parameters_are_prefixed_and_pick_their_selector():
    spec = parse_spec(multi())
    rfe = spec.selectors[1]
    assert param_name(spec, rfe, rfe.search[0]) == "logistic_rfe.final_reg"
    params = {SELECTOR_PARAM: "logistic_rfe", "logistic_rfe.reg": 0.5,
              "logistic_rfe.final_reg": 2.0}
    assert trial_selector(spec, params) == (rfe, {"reg": 0.5, "final_reg": 2.0})
    problem = Problem.from_spec(spec)
    estimator = problem.estimator(params)
    assert isinstance(estimator, HybridRFE)
    assert (estimator.n_features, estimator.n_stable, estimator.reg,
            estimator.final_reg) == (4, 0, 0.5, 2.0)
    t_test = problem.estimator({SELECTOR_PARAM: "t_test", "t_test.final_reg": 3.0})
    assert isinstance(t_test, TTestSelector) and t_test.final_reg == 3.0
    assert isinstance(problem.estimator({SELECTOR_PARAM: "lasso"}), ElasticNetSelector)
    with pytest.raises(InvalidInputError, match="'svm_rfe' is not one of this study's"):
        trial_selector(spec, {SELECTOR_PARAM: "svm_rfe"})


def test_to_dict_round_trips_and_the_hash_tells_the_layouts_apart():
    spec = parse_spec(multi())
    again = parse_spec(json.loads(json.dumps(spec.to_dict())))
    assert again == spec and again.content_hash() == spec.content_hash()
    assert spec.to_dict()["selector"]["name"] == ["t_test", "logistic_rfe", "lasso"]
    reordered = multi(name=["lasso", "t_test", "logistic_rfe"])
    assert parse_spec(reordered).content_hash() != spec.content_hash()  # the choices' order
    changed = multi()
    changed["selector"]["fixed"]["t_test"]["n_features"] = 5
    assert parse_spec(changed).content_hash() != spec.content_hash()
    single = parse_spec({**multi(), "selector": {"name": "t_test", "fixed": {"n_features": 4}}})
    one = parse_spec({**multi(), "selector": {"name": ["t_test"],
                                              "fixed": {"t_test": {"n_features": 4}}}})
    assert one.selector_choice and one.content_hash() != single.content_hash()


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(("change", "error", "fragments"), [
    ({"name": ["t_test", "lasoo"]}, UnknownNameError,
     ["spec.toml: selector.name[1]: ", "'lasoo'", "Did you mean 'lasso'?"]),
    ({"name": ["t_test", "t_test"]}, InvalidInputError,
     ["selector.name[1]: 't_test' is named twice."]),
    ({"name": []}, InvalidInputError, ["selector.name: must name at least one selector"]),
    ({"name": ["t_test", "lasso"], "fixed": {"logistic_rfe": {"n_features": 4}}},
     UnknownNameError, ["selector.fixed.logistic_rfe: not a selector of selector.name",
                        "[selector.fixed.<selector>]", "Allowed keys: lasso, t_test."]),
    ({"fixed": {"n_features": 4}}, UnknownNameError,
     ["selector.fixed.n_features: not a selector of selector.name"]),
    ({"search": {"lasso": {"target_feature": [5, 10]}}}, UnknownNameError,
     ["selector.search.lasso.target_feature: not a parameter of lasso (ElasticNetSelector)",
      "Did you mean 'target_features'?"]),
    ({"search": {"logistic_rfe": {"reg": [2.0, 1.0]}}}, InvalidInputError,
     ["selector.search.logistic_rfe.reg: needs low < high"]),
    ({"fixed": {"logistic_rfe": {"n_stable": 3}}}, InvalidInputError,
     ["selector.fixed.logistic_rfe.n_stable: logistic_rfe (HybridRFE) fixes n_stable = 0"]),
    ({"fixed": {"lasso": {"target_features": 4}},
      "search": {"lasso": {"target_features": [5, 9]}}}, InvalidInputError,
     ["selector.search.lasso.target_features: target_features is also in "
      "[selector.fixed.lasso]"]),
    ({"fixed": {"t_test": "big"}}, InvalidInputError,
     ["selector.fixed.t_test: must be a table ([selector.fixed.t_test])"]),
])
def test_errors_name_the_selector_and_the_key(change, error, fragments):
    raises(multi(**change), error, *fragments)


def test_a_single_selector_error_keeps_its_key():
    raises({**multi(), "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 3},
                                    "search": {"n_stable": [0, 5]}}},
           InvalidInputError, "spec.toml: selector.search.n_stable: n_stable must be <= "
                              "n_features = 3")


def test_the_stable_set_rule_names_the_selector_of_a_multi_selector_spec():
    spec = multi(name=["hybrid_rfe", "lasso"],
                 fixed={"hybrid_rfe": {"n_features": 3}, "lasso": {"target_features": 4}},
                 search={"hybrid_rfe": {"n_stable": [0, 5]}})
    raises(spec, InvalidInputError, "selector.search.hybrid_rfe.n_stable: n_stable must be <= "
                                    "n_features = 3")


# --------------------------------------------------------------------------- the grid


def fixed_settings() -> dict:
    """000 Fig. 6: each method at its fixed setting, one point per method."""
    spec = multi(fixed={"t_test": {"n_features": 4, "final_reg": 1.0},
                        "logistic_rfe": {"n_features": 4, "reg": 1.0, "final_reg": 1.0},
                        "lasso": {"target_features": 4}}, search={})
    spec["study"] = {"name": "fixed", "sampler": "grid", "seed": 0}
    return spec


def test_the_grid_runs_each_selector_at_its_fixed_setting():
    spec = parse_spec(fixed_settings())
    assert spec.trials == 3  # the grid's size
    assert grid(spec) == {SELECTOR_PARAM: ["t_test", "logistic_rfe", "lasso"]}
    assert all(not s.search for s in spec.selectors)


def test_the_grid_refuses_searched_parameters_and_more_trials_than_points():
    raises({**multi(), "study": {"name": "g", "sampler": "grid"}}, InvalidInputError,
           "study.sampler: 'grid' tries every point of a finite grid; with several selectors, "
           "each runs at its fixed setting: fix or remove t_test.final_reg, "
           "logistic_rfe.final_reg, logistic_rfe.reg.")
    spec = fixed_settings()
    spec["study"]["trials"] = 4
    raises(spec, InvalidInputError, "study.trials: the grid has 3 points, each run once; got "
                                    "trials = 4.")
    spec["study"]["trials"] = 2  # a part of the grid
    assert parse_spec(spec).trials == 2


def test_a_single_selector_grid_takes_its_categorical_parameters():
    table = {"name": "hybrid_rfe", "fixed": {"n_features": 4, "n_stable": 0, "epsilon": 1.0,
                                             "reg": 1.0, "final_reg": 1.0},
             "search": {"alpha": {"choices": [0.0, 0.5]},
                        "criterion": {"choices": ["variance", "welch_t"]}}}
    spec = parse_spec({**multi(), "study": {"name": "g", "sampler": "grid"},
                       "selector": table})
    assert grid(spec) == {"alpha": [0.0, 0.5], "criterion": ["variance", "welch_t"]}
    assert spec.trials == 4
    del table["fixed"]["reg"]
    raises({**multi(), "study": {"name": "g", "sampler": "grid"}, "selector": table},
           InvalidInputError, "every searched parameter must be categorical", ": reg.")


# --------------------------------------------------------------------------- groups


def test_groups_data_takes_the_data_sets_groups_and_fails_without_them():
    spec = parse_spec({**multi(), "data": {"source": "simulated:group_size=3,n_other=20"},
                       "selector": {"name": "group_lasso",
                                    "fixed": {"groups": "data", "target_features": 6}}})
    problem = Problem.from_spec(spec)
    estimator = problem.estimator({"target_features": 6})
    assert isinstance(estimator, GroupLassoSelector)
    np.testing.assert_array_equal(estimator.groups, problem.groups)
    assert sorted(set(problem.groups.tolist())) == [-1, 0, 1, 2, 3, 4]
    no_groups = parse_spec({**multi(), "data": {"source": "breast_cancer"},
                            "selector": {"name": "group_lasso", "fixed": {"groups": "data"}}})
    with pytest.raises(InvalidInputError, match="group_lasso: groups = 'data' takes the data "
                                                "set's feature groups, but 'breast_cancer' "
                                                "has none"):
        Problem.from_spec(no_groups)


def test_groups_can_be_given_as_an_array():
    groups = [0, 0, 1, 1, -1, -1]  # one per feature: 6 features, at most 6 selected
    spec = parse_spec({**multi(), "data": {"source": "simulated:n_groups=1,n_other=5"},
                       "selector": {"name": "group_lasso", "fixed": {"groups": groups},
                                    "search": {"target_features": [1, 6]}}})
    estimator = Problem.from_spec(spec).estimator({"target_features": 4})
    assert list(estimator.groups) == groups


# --------------------------------------------------------------------------- studies


@pytest.mark.slow
def test_a_multi_selector_study_records_each_trials_selector_and_its_own_parameters(tmp_path):
    spec = parse_spec({**multi(), "study": {"name": "multi", "trials": 9, "seed": 1,
                                            "sampler": "random"}})
    url = f"sqlite:///{tmp_path / 'multi.db'}"
    study = run_study(spec, storage=url, progress=False)
    trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    assert len(trials) == 9
    seen = set()
    for trial in trials:
        name = trial.params[SELECTOR_PARAM]
        seen.add(name)
        own = {key for key in trial.params if key != SELECTOR_PARAM}
        assert own == {param_name(spec, s, p) for s in spec.selectors if s.name == name
                       for p in s.search}  # only its own, prefixed
        assert f"selector `{name}`" in note_of(study, trial)
    assert seen == {"t_test", "logistic_rfe", "lasso"}
    note = study_note(spec)
    assert "chooses a selector (the parameter `selector`) among `t_test`" in note
    assert "`logistic_rfe.reg`" in note


@pytest.mark.slow
def test_a_fixed_settings_grid_study_runs_each_selector_once(tmp_path):
    spec = parse_spec(fixed_settings())
    study = run_study(spec, storage=f"sqlite:///{tmp_path / 'grid.db'}", progress=False)
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    assert sorted(t.params[SELECTOR_PARAM] for t in complete) == sorted(
        ["t_test", "logistic_rfe", "lasso"])
    assert len(study.trials) == 3


@pytest.mark.slow
def test_report_and_choose_refit_a_multi_selector_trial(tmp_path, monkeypatch):
    import paretostab._problem
    from paretostab import choose
    from paretostab.report._build import build_report

    spec = parse_spec(fixed_settings())
    url = f"sqlite:///{tmp_path / 'grid.db'}"
    run_study(spec, storage=url, progress=False)
    chosen = choose(url, 0.5)
    assert chosen.params[SELECTOR_PARAM] in {"t_test", "logistic_rfe", "lasso"}
    assert len(chosen.features) >= 1
    settings = []  # each replicated trial's parameters
    run_replicates = paretostab._problem.Problem.replicate_protocols
    monkeypatch.setattr(paretostab._problem.Problem, "replicate_protocols",
                        lambda self, given, *args, **kwargs: (
                            settings.extend(given) or run_replicates(self, given, *args,
                                                                     **kwargs)))
    out = build_report(url, out=tmp_path / "report", progress=False)
    summary = json.loads((out / "summary.json").read_text())
    params = {t.number: t.params for t in optuna.load_study(
        study_name="fixed", storage=url).get_trials(states=(TrialState.COMPLETE,))}
    replicated = [next(n for n, p in params.items() if p == s) for s in settings]
    # each trial on the study's front is its selector's front too: replicated once
    assert sorted(replicated) == sorted(set(replicated)) and set(summary["front"]) <= set(
        replicated)
    assert summary["chosen_trade_off"]["params"] == dict(chosen.params)
    assert summary["chosen_trade_off"]["replicates"] == 3
    # the selectors compared as compare compares studies: one group per selector
    selectors = summary["selectors"]
    assert sorted(selectors["groups"]) == ["lasso", "logistic_rfe", "t_test"]
    table3 = {row["group"]: row for row in selectors["table3"]}
    complete = {t.params[SELECTOR_PARAM]: t for t in optuna.load_study(
        study_name="fixed", storage=url).get_trials(states=(TrialState.COMPLETE,))}
    for name, trial in complete.items():  # one trial each: its range is its value
        assert table3[name]["accuracy min"] == pytest.approx(trial.values[0])
        assert table3[name]["nogueira max"] == pytest.approx(trial.values[1])
    assert (out / "selectors.csv").is_file()
    page = (out / "index.html").read_text()
    assert "Selectors compared" in page and "Pairwise differences" in page
    assert "Each selector&#x27;s front" in page or "Each selector's front" in page
    section = page[page.index('id="selectors-compared"'):page.index('id="references"')]
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", section)
    assert "study" not in headers and "selector" in headers and "all selectors" in section
    assert "{noun}" not in section and "which selector reaches it" in section
    for table in re.findall(r"<thead>.*?</thead>", section, flags=re.S):  # no column twice
        names = re.findall(r"<th[^>]*>([^<]*)</th>", table)
        assert len(names) == len(set(names)), names
    # every paper the page names is in its references, ECML 2021 for the selectors' part
    references = re.findall(r"<p>([^:<]+): [^<]*</p>", page[page.index('id="references"'):])
    assert references == ["Hamer &amp; Dupont 2019", "Hamer &amp; Dupont, ECML 2021",
                          "Hamer &amp; Dupont, JMLR 2021"]


def test_the_conditional_space_suggests_only_the_chosen_selectors_parameters():
    spec = parse_spec(multi())
    study = optuna.create_study(directions=["maximize", "maximize"],
                                sampler=optuna.samplers.RandomSampler(seed=0))
    from paretostab._tuning.objective import suggest_params

    for _ in range(12):
        trial = study.ask()
        params = suggest_params(trial, spec)
        selector, own = trial_selector(spec, params)
        assert set(own) == {p.name for p in selector.search}
        study.tell(trial, [0.5, 0.5])
    assert {t.params[SELECTOR_PARAM] for t in study.trials} == {"t_test", "logistic_rfe",
                                                                 "lasso"}



@pytest.mark.slow
def test_tune_objective_tunes_the_spec_for_another_measure(tmp_path, capsys):
    from paretostab._cli import main
    from tests.studies import write_spec

    path = write_spec(tmp_path, "space", trials=2)
    url = f"sqlite:///{tmp_path / 'fig11.db'}"
    assert main(["tune", str(path), "--storage", url, "--objective", "phi_pears"]) == 0
    assert "Study 'space_pearson'" in capsys.readouterr().out
    study = optuna.load_study(study_name="space_pearson", storage=url)
    assert study.user_attrs["objective"] == "pearson" and study.metric_names[1] == "φ_pears"
    with pytest.raises(SystemExit) as stop:
        main(["tune", str(path), "--storage", url, "--objective", "phi_x"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.startswith("error: Unknown measure 'phi_x'.")


# --------------------------------------------------------------------------- shipped


ROOT = Path(__file__).resolve().parents[1]
STUDIES = ROOT / "studies"


def test_the_shipped_methods_comparison_has_the_settings_of_000_section_6_2():
    from paretostab.spec import load_spec

    spec = load_spec(STUDIES / "singh_methods.toml")
    assert spec.selector_choice and spec.sampler == "grid" and spec.trials == 9
    assert [s.name for s in spec.selectors] == [
        "random_forest", "lasso", "elastic_net", "relief", "logistic_rfe", "svm_rfe",
        "t_test", "mim", "mrmr"]
    assert all(not s.search for s in spec.selectors)  # one point per method
    fixed = {s.name: dict(s.fixed) for s in spec.selectors}
    assert all(f.get("n_features", f.get("target_features")) == 20 for f in fixed.values())
    assert fixed["random_forest"]["n_trees"] == 1000 and fixed["relief"]["n_neighbors"] == 5
    assert fixed["elastic_net"]["l1_ratio"] == 0.8 and fixed["lasso"]["l1_ratio"] == 1.0
    assert (spec.protocol.runs, spec.protocol.resampling, spec.data.prefilter) == (
        100, "bootstrap", 5000)
    assert spec.objective.measures == ("nogueira", "msi")
    assert spec.objective.similarity == "spearman"


def test_the_shipped_fig11_script_compares_the_studies_with_objective_names():
    from paretostab.spec import load_spec, with_objective

    script = (ROOT / "benchmarks" / "singh_fig11.sh").read_text()
    spec = load_spec(STUDIES / "singh_hybrid_rfe.toml")
    for measure, name in (("phi", "nogueira"), ("phi_pears", "pearson"), ("phi_iw", "iw")):
        assert "--objective \"$measure\"" in script and measure in script
        assert with_objective(spec, name).name in script


@pytest.mark.slow
def test_a_grid_point_whose_trial_was_interrupted_is_run_on_resume(tmp_path):
    from paretostab._optuna_internals import storage_of, trial_id_of
    from paretostab._storage import open_storage
    from paretostab._tuning import create_or_load_study
    from paretostab._tuning.coordination import release
    from paretostab._tuning.objective import suggest_params

    spec = parse_spec(fixed_settings())
    url = f"sqlite:///{tmp_path / 'grid.db'}"
    study = create_or_load_study(spec, storage=open_storage(url))
    trial = study.ask()  # as Ctrl-C or a killed process leaves it: released, failed
    interrupted = suggest_params(trial, spec)[SELECTOR_PARAM]
    release(storage_of(study), trial_id_of(trial), "interrupted (Ctrl-C)")
    study.tell(trial, state=TrialState.FAIL)
    study = run_study(spec, storage=url, progress=False)  # the resume
    complete = [t.params[SELECTOR_PARAM]
                for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
    assert sorted(complete) == ["lasso", "logistic_rfe", "t_test"]  # each once
    assert interrupted in complete


@pytest.mark.slow
def test_two_workers_run_each_point_of_a_grid_once(tmp_path):
    spec = parse_spec(fixed_settings())
    study = run_study(spec, storage=f"sqlite:///{tmp_path / 'grid.db'}", workers=2,
                 progress=False)
    trials = study.get_trials(deepcopy=False)
    complete = [t.params[SELECTOR_PARAM] for t in trials if t.state == TrialState.COMPLETE]
    assert sorted(complete) == ["lasso", "logistic_rfe", "t_test"]
    assert all(t.state in (TrialState.COMPLETE, TrialState.PRUNED) for t in trials)


def one_selector_grid(points: int = 6) -> dict:
    """A grid over one selector's categorical parameter: the t-test filter at k = 2, 3, …"""
    return {"study": {"name": "kgrid", "sampler": "grid", "seed": 0}, "data": dict(DATA),
            "protocol": {"runs": 2, "replicates": 3},
            "selector": {"name": "t_test", "fixed": {"final_reg": 1.0},
                         "search": {"n_features": {"choices": list(range(2, 2 + points))}}},
            "objective": {"stability": "nogueira"}}


@pytest.mark.slow
def test_every_process_reads_a_grid_point_alike(tmp_path):
    # Optuna's GridSampler shuffles its points with its seed and names each by its place
    # (grid_id): each tune call here is a process of its own, a resume of the one before
    spec = parse_spec(one_selector_grid())
    url = f"sqlite:///{tmp_path / 'grid.db'}"
    for trials in range(1, spec.trials + 1):
        study = run_study(spec, storage=url, n_trials=trials, progress=False)
    ks = [t.params["n_features"] for t in study.get_trials(deepcopy=False)]
    assert sorted(ks) == list(range(2, 8))  # each point once (before: 2 to 4 distinct)


def test_tune_refuses_more_trials_than_grid_points(tmp_path):
    spec = parse_spec(fixed_settings())
    with pytest.raises(InvalidInputError, match=r"^n_trials: the grid has 3 points, each run "
                                                r"once; got 4\.$"):
        run_study(spec, storage=f"sqlite:///{tmp_path / 'grid.db'}", n_trials=4, progress=False)


def test_the_later_of_two_trials_given_one_grid_point_does_not_run_it(tmp_path):
    from paretostab._optuna_internals import storage_of, trial_id_of
    from paretostab._storage import open_storage
    from paretostab._tuning import create_or_load_study
    from paretostab._tuning.coordination import TrialSlots

    spec = parse_spec(fixed_settings())
    study = create_or_load_study(spec, storage=open_storage(f"sqlite:///{tmp_path / 'g.db'}"))
    slots = TrialSlots(study, spec.trials)
    first, second = study.ask(), study.ask()
    storage = storage_of(study)
    point = storage.get_trial_system_attrs(trial_id_of(first))["grid_id"]
    # two processes that create trials at once may be given one point
    storage.set_trial_system_attr(trial_id_of(second), "grid_id", point)
    assert slots.claim(first) is None
    assert slots.claim(second) == "not run: its grid point is trial 0's"


@pytest.mark.slow
@pytest.mark.parametrize("ending, frees", [
    ("pruned", True),  # TrialSlots found no slot for it, or its point taken
    ("failed outside its computation", True),  # Optuna failed it: no reason, not counted
    ("failed in its computation", False),  # its fail_reason: it counts, its point is done
])
def test_a_grid_point_is_freed_when_its_trial_ends_without_counting(tmp_path, ending, frees):
    from paretostab._storage import open_storage
    from paretostab._tuning import create_or_load_study
    from paretostab._tuning.objective import suggest_params

    spec = parse_spec(fixed_settings())
    url = f"sqlite:///{tmp_path / 'grid.db'}"
    study = create_or_load_study(spec, storage=open_storage(url))

    def objective(trial):
        suggest_params(trial, spec)
        if ending == "pruned":
            raise optuna.TrialPruned("not run")
        if ending == "failed in its computation":
            trial.set_user_attr("fail_reason", "ValueError: the selector failed")
        raise RuntimeError("an error")

    study.optimize(objective, n_trials=1, catch=(RuntimeError,))
    (trial,) = study.get_trials(deepcopy=False)
    assert (trial.system_attrs["grid_id"] is None) is frees
    study = run_study(spec, storage=url, progress=False)
    complete = [t.params[SELECTOR_PARAM]
                for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
    assert sorted(complete) == (["lasso", "logistic_rfe", "t_test"] if frees else
                                sorted({"lasso", "logistic_rfe", "t_test"} - {
                                    trial.params[SELECTOR_PARAM]}))
