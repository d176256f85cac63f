"""Study specs: every built-in spec (studies/) parses; tables round-trip; every error names the key,
what is allowed and what was given; the content hash; relative data paths."""

from __future__ import annotations

import ast
import copy
import dataclasses
import gzip
import importlib.resources
import json
import pickle
from pathlib import Path

import numpy as np
import optuna
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import paretostab.spec as spec_package
from paretostab._errors import InvalidInputError, ParetostabError, UnknownNameError
from paretostab._vocabulary import RESAMPLINGS
from paretostab.measures import get_measure, list_measures
from paretostab.selectors import SELECTORS
from paretostab.spec import (
    RESAMPLES,
    SAMPLERS,
    SELECTOR_PARAM,
    SIMILARITIES,
    DataSpec,
    ObjectiveSpec,
    Param,
    ProtocolSpec,
    SelectorSpec,
    StudySpec,
    builtin_spec_names,
    builtin_spec_path,
    builtin_spec_summaries,
    builtin_spec_text,
    check_builtin_data,
    find_spec,
    grid,
    grid_size,
    json_schema,
    load_spec,
    param_name,
    parse_spec,
    reference_table,
    trial_selector,
)
from paretostab.spec._reference import reference_page
from paretostab.spec._schema import SCHEMA_FILE, declared_keys

STUDIES = Path(__file__).resolve().parents[1] / "studies"
STUDY_FILES = sorted(STUDIES.glob("*.toml"))
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def minimal() -> dict:
    return {"study": {"name": "t"}, "data": {"source": "breast_cancer"},
            "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 5}}}


def full() -> dict:
    """Every key of every table given, every HybridRFE search parameter written out."""
    return {
        "study": {"name": "full", "trials": 7, "seed": 3, "sampler": "nsga2",
                  "storage": "sqlite:///full.db"},
        "data": {"source": "simulated:group_size=3", "label": "y", "impute": "median",
                 "prefilter": 100},
        "protocol": {"runs": 12, "resampling": "subsample", "sample_fraction": 0.5,
                     "metric": "roc_auc", "replicates": 4, "n_jobs": -1,
                     "resamples": "per_trial"},
        "selector": {"name": "hybrid_rfe",
                     "fixed": {"n_features": 10, "criterion": "welch_t"},
                     "search": {"n_stable": [0, 10],
                                "epsilon": {"low": 1e-3, "high": 1.0, "log": True},
                                "reg": {"low": 1e-2, "high": 1e2, "log": True},
                                "final_reg": [0.5, 2.0],
                                "alpha": {"choices": [0.0, 0.1, 0.5]}}},
        "objective": {"stability": "sma_count", "similarity": "spearman",
                      "options": {"threshold": 0.8, "n_samples": 500},
                      "record": ["nogueira", "msi", "iw"]},
    }


def with_value(spec: dict, dotted: str, value: object) -> dict:
    """A copy of ``spec`` with ``dotted`` (table.key or table.sub.key) set to ``value``."""
    out = copy.deepcopy(spec)
    *tables, key = dotted.split(".")
    node = out
    for table in tables:
        node = node.setdefault(table, {})
    node[key] = value
    return out


def without(spec: dict, dotted: str) -> dict:
    out = copy.deepcopy(spec)
    *tables, key = dotted.split(".")
    node = out
    for table in tables:
        node = node[table]
    del node[key]
    return out


def raises(spec: dict, error: type, *fragments: str) -> str:
    with pytest.raises(error) as info:
        parse_spec(spec, source="spec.toml")
    message = str(info.value)
    assert message.startswith("spec.toml: ")
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def search(spec: StudySpec) -> dict[str, Param]:
    return {p.name: p for p in spec.selectors[0].search}


# ----------------------------------------------------------------------- the studies folder


@pytest.mark.parametrize("path", STUDY_FILES, ids=[p.stem for p in STUDY_FILES])
def test_every_study_file_parses_and_round_trips(path):
    spec = load_spec(path)
    assert spec.name == path.stem
    assert spec.path == path
    assert spec.selectors[0].name in SELECTORS
    assert spec.objective.stability in spec.objective.measures
    again = parse_spec(spec.to_dict(), base=path.parent, source=str(path))
    assert dataclasses.replace(again, path=path) == spec
    assert again.content_hash() == spec.content_hash()


def test_the_studies_folder_holds_what_the_cli_relies_on():
    assert {"quickstart", "singh_elastic_net"} <= set(builtin_spec_names())
    for name in ("alon", "singh", "gravier", "golub", "sonar", "ionosphere"):
        assert f"{name}_hybrid_rfe" in builtin_spec_names()
    assert builtin_spec_path() == STUDIES / "quickstart.toml"
    assert builtin_spec_path("quickstart.toml") == STUDIES / "quickstart.toml"


def test_quickstart_is_small_hybrid_rfe_on_breast_cancer():
    spec = load_spec(builtin_spec_path())
    assert spec.data == DataSpec("breast_cancer")
    assert spec.selectors[0].name == "hybrid_rfe" and spec.selectors[0].fixed["n_features"] == 5
    assert set(search(spec)) == {"n_stable", "epsilon", "reg", "final_reg", "alpha"}
    assert (search(spec)["n_stable"].low, search(spec)["n_stable"].high) == (0, 4)  # N = k = 5 ignores the labels
    assert spec.objective.stability == "iw"
    assert set(spec.objective.record) == {"nogueira", "pearson", "iw"}
    assert spec.protocol.runs <= 30 and spec.trials <= 60 and spec.protocol.n_jobs == 1


@pytest.mark.parametrize("path", [p for p in STUDY_FILES if "shared" in p.read_text()],
                         ids=lambda p: p.stem)
def test_real_data_studies_point_at_the_shared_data(path):
    spec = load_spec(path)
    source = Path(spec.data.source)
    name = path.stem.split("_")[0]
    assert source == SHARED_DATA / f"{name}.csv.gz"
    if not source.exists():
        pytest.skip("../shared/data (the shared benchmark data) is absent")
    with gzip.open(source, "rt") as handle:  # the header only: the data are not loaded
        d = len(handle.readline().split(",")) - 1
    assert spec.data.prefilter is None or spec.data.prefilter < d
    if spec.selectors[0].name == "hybrid_rfe":
        k = spec.selectors[0].fixed["n_features"]
        assert k == round(min(20, d ** 0.5))
        assert spec.protocol.runs == 100
        assert search(spec)["n_stable"].high == k
        assert search(spec)["epsilon"].log and search(spec)["reg"].log
        assert search(spec)["final_reg"].log and not search(spec)["alpha"].log


def test_unknown_builtin_study_suggests_the_closest():
    with pytest.raises(UnknownNameError, match="Unknown built-in study 'quickstrat'. Did you "
                                               "mean 'quickstart'"):
        builtin_spec_path("quickstrat")


# ----------------------------------------------------------------------- round trips


def test_defaults_of_a_minimal_spec():
    spec = parse_spec(minimal())
    assert (spec.name, spec.trials, spec.seed, spec.sampler, spec.storage, spec.path) == (
        "t", 50, 0, "tpe", None, None)
    assert spec.protocol == ProtocolSpec()
    assert spec.objective == ObjectiveSpec()
    assert spec.objective.measures == ("iw", "nogueira", "pearson")
    assert spec.data == DataSpec("breast_cancer", "label", None, None)


def test_every_table_round_trips():
    spec = parse_spec(full())
    assert (spec.name, spec.trials, spec.seed, spec.sampler, spec.storage) == (
        "full", 7, 3, "nsga2", "sqlite:///full.db")
    assert spec.data == DataSpec("simulated:group_size=3", "y", "median", 100)
    assert spec.protocol == ProtocolSpec(runs=12, resampling="subsample", metric="roc_auc",
                                         replicates=4, n_jobs=-1, sample_fraction=0.5,
                                         resamples="per_trial")
    assert spec.selectors[0].name == "hybrid_rfe"
    assert dict(spec.selectors[0].fixed) == {"n_features": 10, "criterion": "welch_t"}
    assert spec.selectors[0].search == (
        Param("alpha", choices=(0.0, 0.1, 0.5)),
        Param("epsilon", 1e-3, 1.0, log=True),
        Param("final_reg", 0.5, 2.0),
        Param("n_stable", 0, 10, integer=True),
        Param("reg", 1e-2, 1e2, log=True),
    )
    assert spec.objective == ObjectiveSpec("sma_count", {"n_samples": 500, "threshold": 0.8},
                                           "spearman", ("nogueira", "msi", "iw"))
    assert spec.objective.measures == ("sma_count", "nogueira", "msi", "iw")
    assert parse_spec(spec.to_dict()) == spec


def test_toml_file_round_trips(tmp_path):
    text = """
[study]
name = "file"
trials = 3
[data]
source = "wine:0-vs-1"
[protocol]
runs = 5
[selector]
name = "elastic_net"
[selector.search]
l1_ratio = { low = 0.5, high = 1.0 }
[objective]
stability = "js"
record = ["nogueira", "nogueira", "spearman"]
[objective.options]
k = 4
ranked = false
"""
    (tmp_path / "file.toml").write_text(text)
    spec = load_spec(tmp_path / "file.toml")
    assert spec.path == tmp_path / "file.toml"
    assert spec.data.source == "wine:0-vs-1" and spec.protocol.runs == 5
    assert search(spec) == {"l1_ratio": Param("l1_ratio", 0.5, 1.0),
                            "target_features": Param("target_features", 5, 50, integer=True)}
    assert dict(spec.objective.options) == {"k": 4, "ranked": False}
    assert spec.objective.record == ("nogueira", "spearman")  # repeated names once


def test_specs_are_frozen_hashable_and_picklable():
    spec = parse_spec(full())
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.trials = 3
    with pytest.raises(TypeError):
        spec.selectors[0].fixed["n_features"] = 3
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert hash(spec) == hash(parse_spec(full()))
    direct = SelectorSpec("hybrid_rfe", {"prior": [3, 1]}, [Param("reg", 1.0, 2.0)])
    assert direct.fixed["prior"] == (3, 1) and isinstance(direct.search, tuple)


def test_parse_never_mutates_its_input():
    mapping = full()
    parse_spec(mapping)
    assert mapping == full()


# ----------------------------------------------------------------------- the search space


def test_registry_space_fixed_parameters_and_overrides():
    spec = parse_spec(with_value(minimal(), "selector.fixed.reg", 1))
    assert spec.selectors[0].fixed["reg"] == 1.0 and isinstance(spec.selectors[0].fixed["reg"], float)
    assert set(search(spec)) == {"n_stable", "epsilon", "final_reg", "alpha"}
    assert search(spec)["epsilon"] == Param("epsilon", 1e-3, 1.0, log=True)  # the registry's
    lasso = parse_spec({**minimal(), "selector": {"name": "lasso"}})
    assert lasso.selectors[0].fixed == {"l1_ratio": 1.0}
    assert set(search(lasso)) == {"target_features"}
    svm = parse_spec({**minimal(), "selector": {"name": "svm_rfe"}})
    assert dict(svm.selectors[0].fixed) == {"n_stable": 0, "loss": "hinge"}
    same = parse_spec({**minimal(), "selector": {"name": "svm_rfe", "fixed": {"loss": "hinge"}}})
    assert same == svm


def test_new_search_parameters_extend_the_registry_space():
    spec = parse_spec(with_value(minimal(), "selector.search.criterion",
                                 {"choices": ["variance", "welch_t", 0.5]}))
    assert search(spec)["criterion"] == Param("criterion", choices=("variance", "welch_t", 0.5))
    assert len(search(spec)) == 6


@pytest.mark.parametrize(("selector", "name", "value", "expected"), [
    ("hybrid_rfe", "n_stable", [0, 5], Param("n_stable", 0, 5, integer=True)),
    ("hybrid_rfe", "reg", [1, 100], Param("reg", 1.0, 100.0)),  # a float parameter: floats
    ("hybrid_rfe", "reg", {"low": 1, "high": 100, "log": True}, Param("reg", 1.0, 100.0, log=True)),
    ("elastic_net", "target_features", [5, 30], Param("target_features", 5, 30, integer=True)),
    ("group_lasso", "target_features", [5.0, 30.0], Param("target_features", 5.0, 30.0)),
    ("random_forest", "n_trees", {"low": 10, "high": 100, "log": True},
     Param("n_trees", 10, 100, log=True, integer=True)),
])
def test_integer_ranges_follow_the_estimator_default_then_the_bounds(selector, name, value,
                                                                     expected):
    spec = parse_spec({**minimal(), "selector": {"name": selector, "search": {name: value}}})
    assert search(spec)[name] == expected
    assert type(search(spec)[name].low) is type(expected.low)


def test_registry_ranges_with_integer_bounds_are_integer():
    assert search(parse_spec({**minimal(), "selector": {"name": "random_forest"}}))[
        "n_trees"] == Param("n_trees", 3, 3000, log=True, integer=True)
    enet = search(parse_spec({**minimal(), "selector": {"name": "elastic_net"}}))
    assert enet["target_features"].integer and not enet["l1_ratio"].integer


def test_registry_n_stable_range_is_clipped_to_n_features():
    # the registry's n_stable range is [0, 20]; k = 5; the default criterion ranks the
    # stable set by variance, so N = k (a variance filter, blind to the labels) is left out
    spec = parse_spec(minimal())
    assert search(spec)["n_stable"] == Param("n_stable", 0, 4, integer=True)
    searched_k = with_value(without(minimal(), "selector.fixed.n_features"),
                            "selector.search.n_features", [8, 12])
    assert search(parse_spec(searched_k))["n_stable"].high == 7
    default_k = parse_spec({**minimal(), "selector": {"name": "hybrid_rfe"}})  # k = 20
    assert search(default_k)["n_stable"].high == 19


@pytest.mark.parametrize(("criterion", "top"), [
    ("welch_t", 5), (0.5, 5), ("variance", 4), (0.0, 4), ({"choices": ["variance", "welch_t"]}, 4),
    ({"low": 0.0, "high": 1.0}, 4), ({"low": 0.2, "high": 1.0}, 5)])
def test_registry_n_stable_reaches_k_only_with_a_stable_set_that_uses_the_labels(criterion, top):
    table = "selector.search.criterion" if isinstance(criterion, dict) else (
        "selector.fixed.criterion")
    spec = parse_spec(with_value(minimal(), table, criterion))
    assert search(spec)["n_stable"].high == top  # k = 5


def test_a_written_n_stable_range_is_searched_as_written_up_to_k():
    # the papers' reproductions search N up to k, the variance filter included (003 §7.2)
    spec = parse_spec(with_value(minimal(), "selector.search.n_stable", [0, 5]))
    assert search(spec)["n_stable"] == Param("n_stable", 0, 5, integer=True)
    assert parse_spec(spec.to_dict()).content_hash() == spec.content_hash()
    with pytest.raises(InvalidInputError, match="n_stable must be <= n_features = 5"):
        parse_spec(with_value(minimal(), "selector.search.n_stable", [0, 6]))


# ----------------------------------------------------------------------- errors


@pytest.mark.parametrize(("dotted", "value", "fragments"), [
    ("study.trails", 3, ["study.trails: unknown key in [study]. Did you mean 'trials'?",
                         "Allowed keys: name, sampler, seed, storage, trials."]),
    ("data.sorce", "x", ["data.sorce: unknown key in [data]. Did you mean 'source'?",
                         "Allowed keys: content_hash, id, impute, label, labels, orientation, "
                         "prefilter, source."]),
    ("protocol.run", 3, ["protocol.run: unknown key in [protocol]. Did you mean 'runs'?",
                         "Allowed keys: holdout, metric, n_jobs, outer_fold, outer_folds, "
                         "replicates, resamples, resampling, runs, sample_fraction, "
                         "split_seed."]),
    ("selector.nme", "x", ["selector.nme: unknown key in [selector]. Did you mean 'name'?",
                           "Allowed keys: fixed, name, search."]),
    ("objective.stabilty", "iw", ["objective.stabilty: unknown key in [objective]. Did you "
                                  "mean 'stability'?", "Allowed keys: options, record, "
                                  "similarity, stability."]),
    ("selector.search.epsilom", [0.1, 1.0],
     ["selector.search.epsilom: not a parameter of hybrid_rfe (HybridRFE). Did you mean "
      "'epsilon'?", "Allowed keys: alpha, criterion, epsilon, final_reg, loss, n_features, "
      "n_stable, reg, step, tol."]),
    ("selector.fixed.n_feature", 5, ["selector.fixed.n_feature: not a parameter of hybrid_rfe "
                                     "(HybridRFE). Did you mean 'n_features'?"]),
    ("selector.search.reg", {"lo": 1.0, "high": 2.0},
     ["selector.search.reg.lo: unknown key in [selector.search.reg]. Did you mean 'low'?",
      "Allowed keys: choices, high, log, low."]),
    ("objective.options", {"k": 3}, ["objective.options.k: not an option of measure 'iw'.",
                                     "Allowed keys: none."]),
])
def test_unknown_keys_at_every_level(dotted, value, fragments):
    raises(with_value(minimal(), dotted, value), UnknownNameError, *fragments)


def test_unknown_tables_and_shapes():
    raises({**minimal(), "studdy": {}}, UnknownNameError,
           "unknown table [studdy]. Did you mean 'study'?",
           "Allowed tables: [data], [objective], [protocol], [selector], [study].")
    raises(without(minimal(), "data"), InvalidInputError, "[data]: missing table")
    raises({**minimal(), "data": "breast_cancer"}, InvalidInputError,
           "data: must be a table ([data]); got 'breast_cancer'.")
    with pytest.raises(InvalidInputError, match="a spec must be a mapping of tables"):
        parse_spec([("study", {})])


@pytest.mark.parametrize(("dotted", "value", "fragments"), [
    ("study.trials", 0, ["study.trials: must be an integer >= 1; got 0."]),
    ("study.trials", True, ["study.trials: must be an integer >= 1; got True."]),
    ("study.trials", 2.0, ["study.trials: must be an integer >= 1; got 2.0."]),
    ("study.seed", -1, ["study.seed: must be an integer >= 0; got -1."]),
    ("study.name", "  ", ["study.name: must be a non-empty string; got '  '."]),
    ("study.storage", 5, ["study.storage: must be an Optuna storage URL"]),
    ("data.source", "", ["data.source: must be a data file's path or a built-in source's name "
                           "(data in memory are given to tune(spec, data=...)); got ''."]),
    ("data.prefilter", -1, ["data.prefilter: must be an integer >= 0 (the number of "
                            "highest-variance features kept; 0: off); got -1."]),
    ("data.label", 3, ["data.label: must be a non-empty string; got 3."]),
    ("protocol.runs", 1, ["protocol.runs: must be an integer >= 2; got 1."]),
    ("protocol.replicates", 2, ["protocol.replicates: must be an integer >= 3 (Hotelling's "
                                "confidence ellipses need B >= 3); got 2."]),
    ("protocol.n_jobs", 0, ["protocol.n_jobs: must be a non-zero integer (-1: all cores); "
                            "got 0."]),
    ("protocol.sample_fraction", 0.5, ["protocol.sample_fraction: only used with "
                                       "resampling = 'subsample'"]),
    ("selector.fixed.n_features", 5.5, ["selector.fixed.n_features: must be an integer (the "
                                        "estimator's default is an integer); got 5.5."]),
    ("selector.fixed.reg", "big", ["selector.fixed.reg: must be a number; got 'big'."]),
    ("selector.fixed.criterion", {"a": 1}, ["selector.fixed.criterion: must be a number, "
                                            "string, boolean or array; got a table"]),
    ("selector.search.reg", [1.0, 1.0], ["selector.search.reg: needs low < high; got low = "
                                         "1.0, high = 1.0"]),
    ("selector.search.reg", [2.0, 1.0], ["needs low < high; got low = 2.0, high = 1.0"]),
    ("selector.search.reg", {"low": 0.0, "high": 1.0, "log": True},
     ["selector.search.reg: a log-scale range needs low > 0; got low = 0.0."]),
    ("selector.search.reg", {"low": -1.0, "high": 1.0, "log": True},
     ["a log-scale range needs low > 0; got low = -1.0."]),
    ("selector.search.n_stable", {"low": 0, "high": 5, "log": True},
     ["selector.search.n_stable: an integer log-scale range needs low >= 1; got low = 0."]),
    ("selector.search.n_stable", [0.0, 5.0], ["selector.search.n_stable: n_stable is an "
                                              "integer parameter: write integer bounds; got "
                                              "[0.0, 5.0]."]),
    ("selector.search.reg", "wide", ["selector.search.reg: must be [low, high], "
                                     "{ low = …, high = …, log = true } or "
                                     "{ choices = [...] }; got 'wide'."]),
    ("selector.search.reg", [1.0, 2.0, 3.0], ["selector.search.reg: must be [low, high]"]),
    ("selector.search.reg", {"low": 1.0}, ["selector.search.reg: missing high"]),
    ("selector.search.reg", {"low": 1.0, "high": 2.0, "log": "yes"},
     ["selector.search.reg.log: must be true or false; got 'yes'."]),
    ("selector.search.reg", [0.0, float("inf")], ["selector.search.reg: high must be a finite "
                                                  "number; got inf."]),
    ("selector.search.reg", ["a", 2.0], ["low must be a finite number; got 'a'."]),
    ("selector.search.criterion", {"choices": []},
     ["selector.search.criterion.choices: must be a non-empty array of values; got []."]),
    ("selector.search.criterion", {"choices": ["variance", "variance"]},
     ["selector.search.criterion.choices: has repeated values"]),
    ("selector.search.criterion", {"choices": [[1, 2]]},
     ["each choice must be a string, number or boolean"]),
    ("selector.search.criterion", {"choices": ["variance"], "log": True},
     ["selector.search.criterion: choices cannot be combined with log"]),
    ("selector.search.n_stable", [0, 10], ["selector.search.n_stable: n_stable must be <= "
                                           "n_features = 5 (the stable set lies within the "
                                           "selected features); the range reaches 10."]),
    ("selector.fixed.n_stable", 8, ["selector.fixed.n_stable: n_stable must be <= "
                                    "n_features = 5"]),
])
def test_bad_values(dotted, value, fragments):
    raises(with_value(minimal(), dotted, value), InvalidInputError, *fragments)


@pytest.mark.parametrize(("dotted", "value", "kind", "given", "suggestion", "known"), [
    ("study.sampler", "tpee", "sampler", "tpee", "tpe", "gp, grid, nsga2, random, tpe"),
    ("data.impute", "medain", "impute", "medain", "median", "drop, mean, median"),
    ("protocol.resampling", "boot", "resampling", "boot", "bootstrap",
     "bootstrap, complementary_pairs, subsample"),
    ("protocol.resamples", "per-trial", "resamples", "per-trial", "per_trial",
     "per_trial, shared"),
    ("protocol.metric", "acuracy", "metric", "acuracy", "accuracy",
     "accuracy, balanced_accuracy, f1_macro, roc_auc"),
    ("selector.name", "hybrd_rfe", "selector", "hybrd_rfe", "hybrid_rfe", "biased_rfe"),
    ("objective.stability", "nogeira", "measure", "nogeira", "nogueira", "canberra"),
])
def test_unknown_names_suggest_the_closest(dotted, value, kind, given, suggestion, known):
    raises(with_value(minimal(), dotted, value), UnknownNameError,
           f"{dotted}: Unknown {kind} {given!r}. Did you mean {suggestion!r}? Known: ", known)


def test_missing_required_keys():
    raises(without(minimal(), "study.name"), InvalidInputError, "study.name: missing")
    raises(without(minimal(), "data.source"), InvalidInputError, "data.source: missing",
           "breast_cancer")
    raises(without(minimal(), "selector.name"), InvalidInputError, "selector.name: missing",
           "hybrid_rfe")


def test_subsample_fraction_bounds():
    spec = with_value(minimal(), "protocol.resampling", "subsample")
    assert parse_spec(spec).protocol.sample_fraction == 0.9
    raises(with_value(spec, "protocol.sample_fraction", 1.0), InvalidInputError,
           "protocol.sample_fraction: must be a number in (0, 1); got 1.0.")


def test_fixed_and_searched_conflicts():
    both = with_value(with_value(minimal(), "selector.fixed.reg", 1.0),
                      "selector.search.reg", [0.1, 1.0])
    raises(both, InvalidInputError, "selector.search.reg: reg is also in [selector.fixed]")
    rfe = {**minimal(), "selector": {"name": "logistic_rfe", "fixed": {"n_stable": 3}}}
    raises(rfe, InvalidInputError, "selector.fixed.n_stable: logistic_rfe (HybridRFE) fixes "
           "n_stable = 0", "got 3", "hybrid_rfe")
    rfe = {**minimal(), "selector": {"name": "logistic_rfe", "search": {"n_stable": [0, 5]}}}
    raises(rfe, InvalidInputError, "selector.search.n_stable: logistic_rfe (HybridRFE) fixes "
           "n_stable = 0", "cannot be searched")


def test_measures_and_their_options():
    spec = with_value(minimal(), "objective.record", ["nogueira", "jacard"])
    raises(spec, UnknownNameError, "objective.record[1]: Unknown measure 'jacard'. Did you "
           "mean 'jaccard'?")
    raises(with_value(minimal(), "objective.record", "iw"), InvalidInputError,
           "objective.record: must be an array of measure names; got 'iw'.")
    js = with_value(minimal(), "objective.stability", "js")
    raises(with_value(js, "objective.options", {"k": 0}), InvalidInputError,
           "objective.options.k: must be an integer >= 1 (the top-k features compared); got 0.")
    raises(with_value(js, "objective.options", {"k": 2.5}), InvalidInputError,
           "objective.options.k: must be an integer >= 1 (the top-k features compared); got 2.5.")
    raises(with_value(js, "objective.options", {"ranked": "no"}), InvalidInputError,
           "objective.options.ranked: must be true or false (default True); got 'no'.")
    raises(with_value(js, "objective.options", {"ranked": False}), InvalidInputError,
           "objective.options: ranked=False (top-k sets, 004 eq. 15) needs k=")
    pogr = with_value(with_value(minimal(), "objective.stability", "pogr"),
                      "objective.similarity", "spearman")
    raises(with_value(pogr, "objective.options", {"threshold": 1.5}), InvalidInputError,
           "objective.options: threshold must be", "got 1.5")
    raises(with_value(pogr, "objective.options", {"treshold": 0.5}), UnknownNameError,
           "objective.options.treshold: not an option of measure 'pogr'. Did you mean "
           "'threshold'?", "Allowed keys: threshold.")
    sma = with_value(with_value(minimal(), "objective.stability", "sma_count"),
                     "objective.similarity", "pearson")
    raises(with_value(sma, "objective.options", {"expectation": "exactly"}), InvalidInputError,
           "objective.options: expectation must be one of", "got 'exactly'")
    raises(with_value(sma, "objective.options", {"n_samples": 0}), InvalidInputError,
           "objective.options: n_samples must be an integer >= 1")
    assert parse_spec(with_value(sma, "objective.options", {"n_samples": 10**9})).objective \
        .options["n_samples"] == 10**9  # checked on a tiny run, not computed


def test_similarity_is_required_exactly_when_a_measure_needs_one():
    msi = with_value(minimal(), "objective.stability", "msi")
    raises(msi, InvalidInputError, "objective.similarity: missing: msi needs a feature "
           "similarity; add similarity = one of pearson, spearman, nmi to [objective].")
    recorded = with_value(minimal(), "objective.record", ["nogueira", "yu"])
    raises(recorded, InvalidInputError, "objective.similarity: missing: yu needs")
    both = with_value(recorded, "objective.stability", "msi")
    raises(both, InvalidInputError, "objective.similarity: missing: msi and yu need a feature")
    raises(with_value(minimal(), "objective.similarity", "spearman"), InvalidInputError,
           "objective.similarity: no measure of this spec uses a similarity (given 'spearman')",
           "msi", "sechidis")
    raises(with_value(msi, "objective.similarity", "kendall"), UnknownNameError,
           "objective.similarity: Unknown similarity method 'kendall'.",
           "Known: nmi, pearson, spearman.")
    for method in ("spearman", "pearson", "nmi"):
        assert parse_spec(with_value(msi, "objective.similarity", method)).objective \
            .similarity == method
    assert get_measure("msi").needs_similarity and get_measure("yu").needs_similarity


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(InvalidInputError, match="No study spec .*: the file does not exist"):
        load_spec(tmp_path / "absent.toml")
    (tmp_path / "broken.toml").write_text("[study\nname = 1\n")
    with pytest.raises(InvalidInputError, match="broken.toml: not valid TOML"):
        load_spec(tmp_path / "broken.toml")
    (tmp_path / "bad.toml").write_text('[study]\nname = "b"\ntrials = 0\n[data]\n'
                                       'source = "breast_cancer"\n[selector]\nname = "lasso"\n')
    with pytest.raises(InvalidInputError) as info:
        load_spec(tmp_path / "bad.toml")
    assert str(info.value).startswith(f"{tmp_path / 'bad.toml'}: study.trials: ")


def test_every_error_is_a_paretostab_value_error():
    for spec in (with_value(minimal(), "study.trials", 0),
                 with_value(minimal(), "selector.name", "x")):
        with pytest.raises(ParetostabError) as info:
            parse_spec(spec)
        assert isinstance(info.value, ValueError)


# ----------------------------------------------------------------------- content hash


def test_content_hash_is_pinned():
    """The canonical form of a spec that writes out every parameter; a deliberate change of
    that form must bump ``_HASH_VERSION`` (and this value)."""
    digest = parse_spec(full()).content_hash()
    assert len(digest) == 64 and int(digest, 16) >= 0
    assert digest == parse_spec(copy.deepcopy(full())).content_hash()
    assert digest == "c4c1c1c5da9a1c03002138c037ededcf803e22b7eb6b5461ec7b57ee274a3f19"


@pytest.mark.parametrize(("dotted", "value"), [
    ("study.name", "other"), ("study.trials", 999), ("study.seed", 12345),
    ("study.sampler", "random"), ("study.storage", "sqlite:///elsewhere.db"),
    ("protocol.n_jobs", 1),  # results do not depend on n_jobs
    ("objective.record", ["iw", "msi", "nogueira"]),  # order only
    ("selector.search.n_stable", {"low": 0, "high": 10}),  # same range, other spelling
])
def test_content_hash_ignores_what_does_not_change_the_trials(dotted, value):
    assert parse_spec(with_value(full(), dotted, value)).content_hash() == \
        parse_spec(full()).content_hash()


def test_shared_resamples_are_the_default_and_their_seed_is_part_of_the_hash():
    assert parse_spec(minimal()).protocol.resamples == "shared"
    shared = with_value(full(), "protocol.resamples", "shared")
    assert parse_spec(with_value(shared, "study.seed", 4)).content_hash() != \
        parse_spec(shared).content_hash()
    # per-trial resamples are drawn from (seed, trial): trials of any seed compare alike
    assert parse_spec(with_value(full(), "study.seed", 4)).content_hash() == \
        parse_spec(full()).content_hash()


def test_content_hash_ignores_the_order_of_search_entries():
    reordered = full()
    reordered["selector"]["search"] = dict(reversed(list(reordered["selector"]["search"].items())))
    assert parse_spec(reordered).content_hash() == parse_spec(full()).content_hash()


@pytest.mark.parametrize(("dotted", "value"), [
    ("selector.search.reg", {"low": 1e-2, "high": 1e3, "log": True}),  # a search range
    ("selector.search.final_reg", {"low": 0.5, "high": 2.0, "log": True}),
    ("selector.search.alpha", {"choices": [0.0, 0.1]}),
    ("selector.fixed.n_features", 11),
    ("data.prefilter", 200), ("data.source", "simulated:group_size=4"),
    ("protocol.runs", 13), ("protocol.metric", "accuracy"), ("protocol.replicates", 5),
    ("protocol.resamples", "shared"),
    ("objective.stability", "yu"), ("objective.options", {"threshold": 0.7}),
    ("objective.record", ["nogueira"]),
])
def test_content_hash_follows_what_the_trials_compute(dotted, value):
    assert parse_spec(with_value(full(), dotted, value)).content_hash() != \
        parse_spec(full()).content_hash()


def test_content_hash_ignores_the_file_it_came_from(tmp_path):
    text = STUDIES.joinpath("quickstart.toml").read_text()
    (tmp_path / "a.toml").write_text(text)
    (tmp_path / "b.toml").write_text(text.replace('name = "quickstart"', 'name = "b"'))
    assert load_spec(tmp_path / "a.toml").content_hash() == \
        load_spec(tmp_path / "b.toml").content_hash() == \
        load_spec(builtin_spec_path()).content_hash()


# ----------------------------------------------------------------------- data sources


def test_relative_data_paths_resolve_against_the_spec_folder(tmp_path):
    folder = tmp_path / "studies"
    folder.mkdir()
    (folder / "s.toml").write_text('[study]\nname = "s"\n[data]\n'
                                   'source = "../data/x.csv.gz"\n[selector]\nname = "lasso"\n')
    spec = load_spec(folder / "s.toml")
    assert spec.data.source == str(tmp_path / "data" / "x.csv.gz")
    mapping = with_value(minimal(), "data.source", "../data/x.csv")
    assert parse_spec(mapping, base=folder).data.source == str(tmp_path / "data" / "x.csv")
    assert parse_spec(mapping).data.source == str(Path("../data/x.csv"))  # no base: as given
    absolute = with_value(minimal(), "data.source", str(tmp_path / "y.npz"))
    assert parse_spec(absolute, base=folder).data.source == str(tmp_path / "y.npz")


@pytest.mark.parametrize("source", ["breast_cancer", "digits:4-vs-9", "wine:0-vs-1",
                                    "iris:1-vs-2", "simulated", "simulated:group_size=3"])
def test_builtin_sources_are_not_paths(source, tmp_path):
    assert parse_spec(with_value(minimal(), "data.source", source),
                      base=tmp_path).data.source == source


# ----------------------------------------------------------------------- odds and ends


def test_numpy_scalars_in_a_mapping_become_plain_values():
    spec = with_value(with_value(minimal(), "study.trials", np.int64(3)),
                      "selector.search.n_stable", [np.int64(0), np.int64(3)])
    spec = with_value(with_value(spec, "selector.fixed.reg", np.float32(2.0)),
                      "selector.search.criterion", {"choices": [np.float64(0.5), np.int64(1)]})
    spec = with_value(with_value(spec, "objective.stability", "js"), "objective.options",
                      {"k": np.int64(3)})
    parsed = parse_spec(spec)
    assert type(parsed.trials) is int and type(parsed.selectors[0].fixed["reg"]) is float
    assert search(parsed)["n_stable"] == Param("n_stable", 0, 3, integer=True)
    assert [type(v) for v in search(parsed)["criterion"].choices] == [float, int]
    assert type(parsed.objective.options["k"]) is int
    assert parsed.content_hash() == parse_spec(parsed.to_dict()).content_hash()


def test_seed_none_and_optional_none_values_in_a_mapping():
    spec = with_value(with_value(minimal(), "study.seed", None), "data.prefilter", None)
    parsed = parse_spec(with_value(spec, "objective.similarity", None))
    assert parsed.seed is None and parsed.data.prefilter is None
    assert parse_spec(parsed.to_dict()) == parsed


def test_a_command_line_names_a_spec_file_or_a_builtin_spec(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert find_spec("quickstart") == find_spec("quickstart.toml") == builtin_spec_path()
    (tmp_path / "quickstart.toml").write_text("[study]\n")  # a file of that name wins
    assert find_spec("quickstart.toml") == Path("quickstart.toml")
    assert find_spec("mine.toml") == Path("mine.toml")  # load_spec says it does not exist
    assert find_spec("data/x.toml") == Path("data/x.toml")
    with pytest.raises(UnknownNameError, match="Unknown built-in study 'quickstrat'. Did you "
                                               "mean 'quickstart'"):
        find_spec("quickstrat")


def test_a_builtin_spec_written_out_names_the_installed_schema_and_reads_the_same(tmp_path):
    text = builtin_spec_text("quickstart.toml")
    assert text.splitlines()[0] == f"#:schema {SCHEMA_FILE.as_uri()}"
    assert text.splitlines()[1:] == STUDIES.joinpath("quickstart.toml").read_text(
        encoding="utf-8").splitlines()[1:]
    (tmp_path / "my.toml").write_text(text, encoding="utf-8")
    assert load_spec(tmp_path / "my.toml").content_hash() == \
        load_spec(builtin_spec_path()).content_hash()


def test_every_builtin_spec_says_what_it_runs_in_its_first_comment_line():
    summaries = builtin_spec_summaries()
    assert list(summaries) == list(builtin_spec_names())
    assert summaries["quickstart"].startswith("HybridRFE on scikit-learn's breast cancer")
    for name, summary in summaries.items():
        assert summary.endswith(".") and 30 < len(summary) <= 88, name


@pytest.mark.parametrize("path", [p for p in STUDY_FILES if "shared" in p.read_text()],
                         ids=lambda p: p.stem)
def test_a_builtin_spec_without_its_data_says_where_to_get_them(path, tmp_path):
    spec = load_spec(path)
    absent = dataclasses.replace(spec, data=dataclasses.replace(
        spec.data, source=str(tmp_path / "x.csv.gz")))
    with pytest.raises(InvalidInputError) as error:
        check_builtin_data(absent)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"The built-in study {path.stem!r} reads x.csv.gz, which is not "
                              "part of the package")
    assert f"paretostab studies {path.stem} > {path.stem}.toml" in message
    assert "[data] source" in message
    assert "not part of the package" in path.read_text(encoding="utf-8")  # its comments say
    check_builtin_data(load_spec(builtin_spec_path()))  # scikit-learn's data: built in
    mine = tmp_path / "mine.toml"
    mine.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    check_builtin_data(load_spec(mine))  # not a built-in spec: load_dataset says it
    if Path(spec.data.source).exists():  # the source repository beside ../shared/data
        check_builtin_data(spec)


def assert_drawn_as_searched(spec) -> None:
    """Every searched parameter of every selector of ``spec`` is drawn by tune (the
    package's :func:`~paretostab._tuning.objective.suggest`, under its Optuna name) from
    an Optuna distribution — which Optuna checks as it is made — of exactly the spec's
    choices or range, integers where the spec says so."""
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    from paretostab._tuning.objective import suggest

    study = optuna.create_study()
    searched = [(param_name(spec, selector, param), param)
                for selector in spec.selectors for param in selector.search]
    drawn = {}
    for selector in spec.selectors:  # one trial per selector, as tune draws them
        trial = study.ask()
        for param in selector.search:
            suggest(trial, param, param_name(spec, selector, param))
        drawn.update(trial.distributions)
    assert drawn.keys() == {name for name, _ in searched}
    for name, param in searched:
        distribution = drawn[name]
        if param.choices is not None:
            assert isinstance(distribution, CategoricalDistribution), name
            assert distribution.choices == tuple(param.choices), name
        else:
            kind = IntDistribution if param.integer else FloatDistribution
            assert isinstance(distribution, kind), name
            assert (distribution.low, distribution.high, distribution.log) == (
                *param.bounds(), param.log), name


@pytest.mark.parametrize("path", STUDY_FILES, ids=[p.stem for p in STUDY_FILES])
def test_search_spaces_are_valid_optuna_distributions(path):
    assert_drawn_as_searched(load_spec(path))


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_every_registry_search_space_parses_with_its_defaults(name):
    spec = parse_spec({**minimal(), "selector": {"name": name}})
    assert spec.selectors[0].name == name and spec.selectors[0].search
    assert_drawn_as_searched(spec)


def test_with_objective_tunes_the_same_space_for_another_measure():
    from paretostab.spec import with_objective

    spec = parse_spec({**minimal(), "objective": {"stability": "iw", "record": ["pearson"],
                                                  "options": {}}})
    phi = with_objective(spec, "nogueira")
    assert phi.name == "t_nogueira" and phi.objective.stability == "nogueira"
    assert phi.objective.record == ("pearson",)
    assert phi.selectors == spec.selectors and phi.data == spec.data
    assert phi.protocol == spec.protocol
    assert with_objective(spec, "iw").content_hash() == spec.content_hash()
    with pytest.raises(InvalidInputError, match="objective.similarity: missing: msi needs"):
        with_objective(spec, "msi")
    with pytest.raises(InvalidInputError, match="Did you mean 'pearson'"):
        with_objective(spec, "pearsn")


def test_with_objective_keeps_the_registry_ranges_fitted_to_the_data():
    """Another objective for a spec whose search space is the registry's: fitted to data
    of 13 features, its n_features and n_stable defaults are clipped as the spec's are (a
    spec read back from its mapping would search them as written, and refuse n_stable's)."""
    from paretostab.spec import fit_to_data, with_objective

    spec = parse_spec({**minimal(), "selector": {"name": "hybrid_rfe"}})
    other = with_objective(spec, "iw")
    assert fit_to_data(other, 178, 13)[0].selectors == fit_to_data(spec, 178, 13)[0].selectors
    (n_stable,) = [p for p in fit_to_data(other, 178, 13)[0].selectors[0].search
                   if p.name == "n_stable"]
    assert (n_stable.low, n_stable.high) == (0, 12)


# ----------------------------------------------------------------------- pinned hashes and to_dict

# Spec mappings (None: the built-in quickstart) and, for each, the content hash, to_dict()
# and trials computed by the code before spec.py became the spec package: the declarations
# must reproduce them exactly (a deliberate change of the hashed form bumps _HASH_VERSION).
# quickstart and plain moved deliberately when the default spaces stopped offering N = k
# with a stable set ranked by variance (a filter that ignores the labels): n_stable [0, 4]
# and [0, 19].
PINNED_SPECS = {
    "quickstart_file": None,
    "plain": {
        "study": {"name": "s"},
        "data": {"source": "/data/x.csv"},
        "selector": {"name": "hybrid_rfe"},
    },
    "full": {
        "study": {
            "name": "s",
            "trials": 7,
            "seed": None,
            "sampler": "random",
            "storage": "sqlite:///a.db",
        },
        "data": {"source": "/data/x.csv.gz", "label": "cls", "impute": "median", "prefilter": 100},
        "protocol": {
            "runs": 12,
            "resampling": "subsample",
            "sample_fraction": 0.75,
            "metric": "balanced_accuracy",
            "replicates": 4,
            "n_jobs": -1,
            "resamples": "per_trial",
        },
        "selector": {
            "name": "elastic_net",
            "fixed": {"target_features": 10},
            "search": {"l1_ratio": {"low": 0.1, "high": 0.9}},
        },
        "objective": {
            "stability": "msi",
            "similarity": "pearson",
            "record": ["nogueira", "iw", "sma_count"],
            "options": {},
        },
    },
    "multi": {
        "study": {"name": "m", "seed": 3},
        "data": {"source": "breast_cancer"},
        "selector": {
            "name": ["lasso", "t_test", "svm_rfe"],
            "fixed": {"lasso": {"target_features": 5}},
            "search": {"svm_rfe": {"reg": {"low": 0.01, "high": 10.0, "log": True}}},
        },
        "objective": {"stability": "nogueira", "record": ["pearson"]},
    },
    "grid": {
        "study": {"name": "g", "sampler": "grid"},
        "data": {"source": "simulated"},
        "selector": {
            "name": ["t_test", "mim"],
            "fixed": {
                "t_test": {"n_features": 4, "final_reg": 1.0},
                "mim": {"n_features": 4, "final_reg": 2.0},
            },
        },
        "objective": {"stability": "kuncheva", "record": []},
    },
    "options": {
        "study": {"name": "o"},
        "data": {"source": "/d.npz"},
        "selector": {"name": "logistic_rfe", "search": {"final_reg": [0.5, 2]}},
        "objective": {"stability": "js", "options": {"k": 5}, "record": ["spearman", "canberra"]},
    },
}
PINNED = {
    "quickstart_file": (
        "0aae8f412d3485b14436f80f7a03ed5aedc464a1cd19f8a43f2eb62381dffed6",
        {
            "study": {"name": "quickstart", "trials": 60, "seed": 0, "sampler": "tpe"},
            "data": {"source": "breast_cancer", "label": "label"},
            "protocol": {
                "runs": 30,
                "resampling": "bootstrap",
                "metric": "accuracy",
                "replicates": 10,
                "n_jobs": 1,
                "resamples": "shared",
            },
            "selector": {
                "name": "hybrid_rfe",
                "fixed": {"n_features": 5},
                "search": {
                    "alpha": [0.0, 1.0],
                    "epsilon": {"low": 0.001, "high": 1.0, "log": True},
                    "final_reg": {"low": 0.001, "high": 1000.0, "log": True},
                    "n_stable": [0, 4],
                    "reg": {"low": 0.001, "high": 1000.0, "log": True},
                },
            },
            "objective": {
                "stability": "iw",
                "options": {},
                "record": ["nogueira", "pearson", "iw"],
            },
        },
        60,
    ),
    "plain": (
        "1a9707eed0ee039fa532a765d9c6be32ba37372dce5b50fb9edf08a661f367ae",
        {
            "study": {"name": "s", "trials": 50, "seed": 0, "sampler": "tpe"},
            "data": {"source": "/data/x.csv", "label": "label"},
            "protocol": {
                "runs": 30,
                "resampling": "bootstrap",
                "metric": "accuracy",
                "replicates": 10,
                "n_jobs": 1,
                "resamples": "shared",
            },
            "selector": {
                "name": "hybrid_rfe",
                "fixed": {},
                "search": {
                    "alpha": [0.0, 1.0],
                    "epsilon": {"low": 0.001, "high": 1.0, "log": True},
                    "final_reg": {"low": 0.001, "high": 1000.0, "log": True},
                    "n_stable": [0, 19],
                    "reg": {"low": 0.001, "high": 1000.0, "log": True},
                },
            },
            "objective": {
                "stability": "iw",
                "options": {},
                "record": ["nogueira", "pearson", "iw"],
            },
        },
        50,
    ),
    "full": (
        "5ae6b9e456763383e129b98bddbae43bb49cd7bb6c8e4f104a3ca5e75d676990",
        {
            "study": {
                "name": "s",
                "trials": 7,
                "seed": None,
                "sampler": "random",
                "storage": "sqlite:///a.db",
            },
            "data": {
                "source": "/data/x.csv.gz",
                "label": "cls",
                "impute": "median",
                "prefilter": 100,
            },
            "protocol": {
                "runs": 12,
                "resampling": "subsample",
                "metric": "balanced_accuracy",
                "replicates": 4,
                "n_jobs": -1,
                "resamples": "per_trial",
                "sample_fraction": 0.75,
            },
            "selector": {
                "name": "elastic_net",
                "fixed": {"target_features": 10},
                "search": {"l1_ratio": [0.1, 0.9]},
            },
            "objective": {
                "stability": "msi",
                "options": {},
                "record": ["nogueira", "iw", "sma_count"],
                "similarity": "pearson",
            },
        },
        7,
    ),
    "multi": (
        "6e1f5860fc5bb3089ccb28b2a4b323b0af36c7c754f88a0251ad1d24945059f1",
        {
            "study": {"name": "m", "trials": 50, "seed": 3, "sampler": "tpe"},
            "data": {"source": "breast_cancer", "label": "label"},
            "protocol": {
                "runs": 30,
                "resampling": "bootstrap",
                "metric": "accuracy",
                "replicates": 10,
                "n_jobs": 1,
                "resamples": "shared",
            },
            "selector": {
                "name": ["lasso", "t_test", "svm_rfe"],
                "fixed": {
                    "lasso": {"l1_ratio": 1.0, "target_features": 5},
                    "svm_rfe": {"loss": "hinge", "n_stable": 0},
                },
                "search": {
                    "t_test": {"final_reg": {"low": 0.001, "high": 1000.0, "log": True}},
                    "svm_rfe": {
                        "final_reg": {"low": 0.001, "high": 1000.0, "log": True},
                        "reg": {"low": 0.01, "high": 10.0, "log": True},
                    },
                },
            },
            "objective": {"stability": "nogueira", "options": {}, "record": ["pearson"]},
        },
        50,
    ),
    "grid": (
        "9adc186d6d14a28d2df42124a273f52f0e588b235b264198c6a3d2f911749037",
        {
            "study": {"name": "g", "trials": 2, "seed": 0, "sampler": "grid"},
            "data": {"source": "simulated", "label": "label"},
            "protocol": {
                "runs": 30,
                "resampling": "bootstrap",
                "metric": "accuracy",
                "replicates": 10,
                "n_jobs": 1,
                "resamples": "shared",
            },
            "selector": {
                "name": ["t_test", "mim"],
                "fixed": {
                    "t_test": {"final_reg": 1.0, "n_features": 4},
                    "mim": {"final_reg": 2.0, "n_features": 4},
                },
                "search": {},
            },
            "objective": {"stability": "kuncheva", "options": {}, "record": []},
        },
        2,
    ),
    "options": (
        "00d89a26fbb1ee2ca1b84ce826ab6deae3948c1869308048394311955ec619e3",
        {
            "study": {"name": "o", "trials": 50, "seed": 0, "sampler": "tpe"},
            "data": {"source": "/d.npz", "label": "label"},
            "protocol": {
                "runs": 30,
                "resampling": "bootstrap",
                "metric": "accuracy",
                "replicates": 10,
                "n_jobs": 1,
                "resamples": "shared",
            },
            "selector": {
                "name": "logistic_rfe",
                "fixed": {"n_stable": 0},
                "search": {
                    "final_reg": [0.5, 2.0],
                    "reg": {"low": 0.001, "high": 1000.0, "log": True},
                },
            },
            "objective": {
                "stability": "js",
                "options": {"k": 5},
                "record": ["spearman", "canberra"],
            },
        },
        50,
    ),
}


@pytest.mark.parametrize("name", list(PINNED_SPECS))
def test_content_hash_and_to_dict_are_pinned(name):
    mapping = PINNED_SPECS[name]
    spec = load_spec(STUDIES / "quickstart.toml") if mapping is None else parse_spec(mapping)
    digest, as_dict, trials = PINNED[name]
    assert spec.content_hash() == digest
    assert spec.to_dict() == as_dict
    assert json.dumps(spec.to_dict()) == json.dumps(as_dict)  # the key order too
    assert spec.trials == trials
    assert parse_spec(spec.to_dict()).content_hash() == digest


# ----------------------------------------------------------------------- the declarations


def reference_rows() -> dict[str, list[str]]:
    lines = reference_table().splitlines()
    assert lines[0] == "| Key | Type | Default | Description |"
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]]
    assert all(len(row) == 4 for row in rows)
    return {row[0].strip("`"): row for row in rows}


def test_reference_table_lists_every_declared_key_with_its_default():
    rows = reference_rows()
    declared = declared_keys()
    assert {path.split(".")[0] for path in declared} == {
        "study", "data", "protocol", "selector", "objective"}
    for path, key in declared.items():
        _, _, default, doc = rows[path]
        assert doc.startswith(key.doc.replace("|", "\\|"))
        if key.required is not None:
            assert default == "required"
        elif key.default is None:
            assert default == "absent"
        else:
            assert default == f"`{json.dumps(key.kind.plain(key.default))}`"
    assert rows["protocol.runs"][1:3] == ["integer ≥ 2", "`30`"]
    assert rows["protocol.replicates"][1:3] == ["integer ≥ 3", "`10`"]
    assert rows["study.seed"][2] == "`0`" and rows["study.storage"][2] == "absent"
    assert rows["objective.record"][2] == '`["nogueira", "pearson", "iw"]`'
    assert rows["study.sampler"][1] == 'one of `"tpe"`, `"nsga2"`, `"gp"`, `"random"`, `"grid"`'
    assert "Only with `resampling = \"subsample\"`" in rows["protocol.sample_fraction"][3]
    assert "Not part of the content hash" in rows["protocol.n_jobs"][3]
    # the registry-dependent sub-tables say what they hold
    assert "get_params()" in rows["selector.fixed"][3]
    assert "search space" in rows["selector.search"][3]
    assert "list_measures()" in rows["objective.options"][3]
    for entry in ("low", "high", "log", "choices"):
        assert f"selector.search.<parameter>.{entry}" in rows


def test_declared_rules_are_data_on_the_keys():
    declared = declared_keys()
    assert declared["protocol.sample_fraction"].only_with.key == "resampling"
    assert declared["protocol.n_jobs"].identity is False
    assert declared["study.seed"].nullable and declared["study.seed"].identity.key == \
        "protocol.resamples"
    optional = {path for path, key in declared.items() if key.optional}
    assert optional == {"study.storage", "data.impute", "data.prefilter", "data.orientation",
                        "data.labels", "data.id", "data.content_hash",
                        "protocol.sample_fraction", "protocol.holdout", "protocol.outer_folds",
                        "protocol.outer_fold", "protocol.split_seed", "objective.similarity"}
    assert "sample_fraction" not in parse_spec(minimal()).to_dict()["protocol"]
    subsample = parse_spec(with_value(minimal(), "protocol.resampling", "subsample"))
    assert subsample.to_dict()["protocol"]["sample_fraction"] == 0.9
    unseeded = parse_spec(with_value(minimal(), "study.seed", None))
    assert unseeded.to_dict()["study"]["seed"] is None
    assert "storage" not in unseeded.to_dict()["study"]


def validator():
    jsonschema = pytest.importorskip(
        "jsonschema", reason="the JSON Schema tests need the jsonschema package")
    jsonschema.Draft7Validator.check_schema(json_schema())
    return jsonschema.Draft7Validator(json_schema())


def test_committed_json_schema_is_the_declarations():
    """paretostab/spec/spec.schema.json is written by `python -m paretostab.spec`."""
    committed = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert committed == json_schema(), "spec.schema.json is stale: python -m paretostab.spec"
    assert committed["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert importlib.resources.files("paretostab.spec").joinpath("spec.schema.json").is_file()
    tables = committed["properties"]
    assert tables["study"]["properties"]["sampler"]["enum"] == list(SAMPLERS)
    assert tables["protocol"]["properties"]["resamples"]["enum"] == list(RESAMPLES)
    assert tables["data"]["properties"]["impute"]["enum"] == ["mean", "median", "drop"]
    assert tables["objective"]["properties"]["similarity"]["enum"] == list(SIMILARITIES)
    assert tables["objective"]["properties"]["stability"]["enum"] == sorted(
        list_measures().index)
    assert set(tables["selector"]["properties"]["name"]["anyOf"][0]["enum"]) == set(SELECTORS)


@pytest.mark.parametrize("path", STUDY_FILES, ids=[p.stem for p in STUDY_FILES])
def test_every_study_file_names_and_satisfies_the_json_schema(path):
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "#:schema ../paretostab/spec/spec.schema.json"  # Taplo's directive
    assert (path.parent / first.split(maxsplit=1)[1]).resolve() == SCHEMA_FILE.resolve()
    check = validator()
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python >= 3.11")
    with open(path, "rb") as handle:
        mapping = tomllib.load(handle)
    assert [e.message for e in check.iter_errors(mapping)] == []
    assert [e.message for e in check.iter_errors(load_spec(path).to_dict())] == []


def test_json_schema_accepts_the_full_and_minimal_specs():
    check = validator()
    for mapping in (minimal(), full(), *(m for m in PINNED_SPECS.values() if m)):
        assert [e.message for e in check.iter_errors(mapping)] == []
        assert [e.message for e in check.iter_errors(parse_spec(mapping).to_dict())] == []


@pytest.mark.parametrize(("dotted", "value"), [
    ("study.trials", "3"), ("study.trials", 0), ("study.seed", -1), ("study.name", ""),
    ("study.trails", 3), ("protocol.run", 3), ("study.sampler", "tpee"),
    ("protocol.runs", 1), ("protocol.replicates", 2), ("protocol.n_jobs", 0),
    ("protocol.resampling", "boot"), ("protocol.sample_fraction", 0.5),
    ("data.impute", "medain"), ("data.prefilter", -1), ("data.label", 3),
    ("selector.name", "hybrd_rfe"), ("selector.nme", "lasso"),
    ("objective.stability", "nogeira"), ("objective.similarity", "kendall"),
    ("objective.record", "iw"), ("objective.record", ["jacard"]),
    ("selector.search.reg", "wide"), ("selector.search.reg", {"lo": 1.0, "high": 2.0}),
])
def test_json_schema_rejects_what_the_parser_rejects(dotted, value):
    mapping = with_value(minimal(), dotted, value)
    with pytest.raises(ParetostabError):
        parse_spec(mapping)
    assert list(validator().iter_errors(mapping))


def test_spec_modules_import_no_private_names():
    folder = Path(spec_package.__file__).parent
    for path in [*folder.glob("*.py"), folder.parent / "_similarity.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("paretostab"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from {node.module}"
    assert set(spec_package.__all__) >= {"FrozenMap", "param_name", "trial_selector", "grid",
                                         "grid_size", "json_schema", "reference_table"}


# ----------------------------------------------------------------------- round trips (property)


nonblank = st.text(min_size=1, max_size=20).filter(lambda s: s.strip())


@st.composite
def spec_tables(draw) -> dict:
    """A valid spec whose study, data and protocol tables are drawn (every key optional)."""
    study = draw(st.fixed_dictionaries({"name": nonblank}, optional={
        "trials": st.integers(1, 10**6), "seed": st.none() | st.integers(0, 2**63),
        "sampler": st.sampled_from([s for s in SAMPLERS if s != "grid"]),
        "storage": st.none() | nonblank}))
    data = draw(st.fixed_dictionaries({"source": st.sampled_from([
        "breast_cancer", "digits:4-vs-9", "simulated:group_size=3", "wine", "data/x.csv.gz",
        "/abs/y.npz", "../up/z.parquet"])}, optional={
        "label": nonblank, "impute": st.none() | st.sampled_from(["mean", "median", "drop"]),
        "prefilter": st.none() | st.integers(1, 10**6)}))
    protocol = draw(st.fixed_dictionaries({}, optional={
        "runs": st.integers(2, 10**4), "resampling": st.sampled_from(RESAMPLINGS),
        "metric": st.sampled_from(["accuracy", "balanced_accuracy", "roc_auc"]),
        "replicates": st.integers(3, 10**3),
        "n_jobs": st.integers(-8, 8).filter(lambda n: n != 0),
        "resamples": st.sampled_from(RESAMPLES)}))
    if protocol.get("resampling") == "complementary_pairs":  # M in pairs
        protocol["runs"] = 2 * (protocol.get("runs", 30) // 2)
    if protocol.get("resampling") == "subsample" and draw(st.booleans()):
        protocol["sample_fraction"] = draw(st.floats(0, 1, exclude_min=True, exclude_max=True))
    return {"study": study, "data": data, "protocol": protocol,
            "selector": {"name": "lasso"}}


@settings(max_examples=60)
@given(spec_tables())
def test_parse_of_to_dict_is_the_same_spec(mapping):
    spec = parse_spec(mapping)
    again = parse_spec(spec.to_dict())
    assert again == spec
    assert again.content_hash() == spec.content_hash()
    assert again.to_dict() == spec.to_dict()


# ----------------------------------------------------------------------- the trial space


def test_trial_space_functions():
    multi = parse_spec(PINNED_SPECS["multi"])
    svm = multi.selectors[2]
    reg = next(p for p in svm.search if p.name == "reg")
    assert param_name(multi, svm, reg) == "svm_rfe.reg"
    selector, own = trial_selector(multi, {"selector": "svm_rfe", "svm_rfe.reg": 0.5,
                                           "svm_rfe.final_reg": 2.0})
    assert selector is svm and own == {"reg": 0.5, "final_reg": 2.0}
    with pytest.raises(InvalidInputError, match="the trial's selector 'relief' is not one"):
        trial_selector(multi, {"selector": "relief"})
    single = parse_spec(minimal())
    assert param_name(single, single.selectors[0], search(single)["reg"]) == "reg"
    assert trial_selector(single, {"reg": 1.0}) == (single.selectors[0], {"reg": 1.0})
    methods = parse_spec(PINNED_SPECS["grid"])
    assert grid(methods) == {SELECTOR_PARAM: ["t_test", "mim"]} and grid_size(methods) == 2
    categorical = with_value(minimal(), "study.sampler", "grid")
    categorical["selector"] = {
        "name": "hybrid_rfe",
        "fixed": {"n_features": 5, "n_stable": 2, "epsilon": 0.1, "reg": 1.0, "final_reg": 1.0},
        "search": {"alpha": {"choices": [0.0, 0.5]},
                   "criterion": {"choices": ["variance", "welch_t"]}}}
    one = parse_spec(categorical)
    assert grid(one) == {"alpha": [0.0, 0.5], "criterion": ["variance", "welch_t"]}
    assert one.trials == grid_size(one) == 4


def test_the_committed_reference_page_is_the_one_the_code_makes():
    """docs/spec-reference.md: every key and every registered selector, generated."""
    page = (Path(__file__).parent.parent / "docs" / "spec-reference.md").read_text(
        encoding="utf-8")
    assert page == reference_page(), (
        "docs/spec-reference.md is out of date: run python -m paretostab.spec --reference "
        "docs/spec-reference.md")
    for path in declared_keys():
        assert f"\n`{path}`\n: " in page
    for name in SELECTORS:
        assert f"\n`{name}`\n: Estimator `{SELECTORS[name].estimator.__name__}`. " in page
    # definition lists, not tables: wide tables were cut off at the page's width
    assert "| --- |" not in page
    assert "\n`protocol.runs`\n: integer ≥ 2; default `30`. M, the resampled runs" in page
    assert "\n`study.name`\n: string; required. " in page
    assert "\n`study.storage`\n: string; optional. " in page
