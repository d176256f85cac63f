"""The chosen trade-off as a model for new samples: ``Choice.model()`` is the pipeline one
would build by hand; ``Choice.save_model`` / ``choose --save-model`` write it as a skops
file that :func:`paretostab.load_model` reads back trusting only paretostab's,
scikit-learn's, numpy's and scipy's types; ``predict`` classifies a data file with or
without labels, by the features' names."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.feature_selection import SelectKBest
from sklearn.pipeline import Pipeline

import paretostab
from paretostab._cli import main
from paretostab._model import VariancePrefilter
from paretostab.data import load_dataset
from paretostab.selectors import ExternalSelector, TTestSelector
from tests.extras import need

SOURCE = "simulated:n_other=30,n_per_class=20"


def _spec(name: str, **data) -> dict:
    return {"study": {"name": name, "trials": 3},
            **({"data": data} if data else {}),
            "protocol": {"runs": 4},
            "selector": {"name": "t_test", "search": {"n_features": [3, 12]}},
            "objective": {"stability": "nogueira"}}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A study with a pre-filter in SQLite, its γ = 0.5 choice, and that choice saved by
    ``choose --save-model``."""
    folder = tmp_path_factory.mktemp("model")
    storage = f"sqlite:///{folder / 'study.db'}"
    paretostab.tune(_spec("filtered", source=SOURCE, prefilter=20), storage=storage,
                    progress=False)
    path = folder / "chosen.skops"
    assert main(["choose", "--gamma", "0.5", "--storage", storage,
                 "--save-model", str(path)]) == 0
    return paretostab.choose(storage, 0.5), path


@pytest.fixture(scope="module")
def data():
    """The study's data as a table: an ID column, the features, the labels."""
    d = load_dataset(SOURCE, random_state=0)  # as a study loads it
    frame = pd.DataFrame(d.X, columns=d.feature_names)
    frame.insert(0, "sample_id", [f"s{i:02d}" for i in range(d.n_samples)])
    return frame.assign(label=d.y)


def _features(data: pd.DataFrame) -> pd.DataFrame:
    return data.drop(columns=["sample_id", "label"])


@pytest.mark.slow
def test_the_model_is_the_pipeline_built_by_hand(saved, data):
    choice, _ = saved
    model = choice.model()
    by_hand = Pipeline([("prefilter", VariancePrefilter(20)),
                        ("selector", TTestSelector(**choice.params))])
    by_hand.fit(_features(data), data["label"])
    assert [type(step) for _, step in model.steps] == [VariancePrefilter, TTestSelector]
    np.testing.assert_array_equal(model.predict(_features(data)), by_hand.predict(_features(data)))
    np.testing.assert_array_equal(model.predict_proba(_features(data)),
                                  by_hand.predict_proba(_features(data)))
    # the features choose lists are those the pipeline selects
    assert set(choice.features) == set(model.get_feature_names_out())


def test_a_saved_model_loads_with_its_predictions_and_what_it_is(saved, data):
    choice, path = saved
    model = paretostab.load_model(path)
    assert isinstance(model, paretostab.SavedModel)
    assert (model.study, model.trial, model.gamma, dict(model.params), model.features,
            model.metric, dict(model.values)) == (
        "filtered", choice.trial, 0.5, dict(choice.params), choice.features, "accuracy",
        dict(choice.values))
    assert model.feature_names == tuple(_features(data).columns)
    assert model.version == paretostab.__version__
    np.testing.assert_array_equal(model.pipeline.predict_proba(_features(data)),
                                  choice.model().predict_proba(_features(data)))


def test_choice_save_model_writes_what_choose_writes(saved, tmp_path, data):
    choice, path = saved
    again = paretostab.load_model(choice.save_model(tmp_path / "again.skops"))
    assert again == paretostab.load_model(path)  # the pipeline is not compared
    np.testing.assert_array_equal(again.pipeline.predict(_features(data)),
                                  paretostab.load_model(path).pipeline.predict(_features(data)))


class Foreign:
    """A type no paretostab model holds."""


def _rewritten(path, out, change) -> None:
    """A copy of the skops file ``path`` at ``out`` with its schema changed by ``change``."""
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w") as copy:
        for item in source.infolist():
            content = source.read(item)
            if item.filename == "schema.json":
                content = json.dumps(change(json.loads(content))).encode()
            copy.writestr(item, content)


def test_a_file_holding_a_foreign_type_is_refused(saved, tmp_path, capsys):
    import skops.io

    _, path = saved
    bad = tmp_path / "foreign.skops"
    skops.io.dump({"format": "paretostab model 1", "pipeline": Foreign()}, bad)
    name = f"{Foreign.__module__}.Foreign"
    with pytest.raises(paretostab.InvalidInputError, match=f"holds types a paretostab model "
                       f"does not, so it is not loaded: {name} "):
        paretostab.load_model(bad)
    with pytest.raises(SystemExit) as stop:
        main(["predict", str(bad), "x.csv"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        f"error: foreign.skops holds types a paretostab model does not, so it is not loaded: "
        f"{name} (trusted: the types of paretostab, sklearn, numpy, scipy).\n")

    # a function of a trusted package is trusted as a reference, never as a constructor
    def as_numpy_load(schema):
        steps = schema["content"]["pipeline"]["content"]["content"]["steps"]["content"]
        steps[-1]["content"][1].update({"__module__": "numpy", "__class__": "load"})
        return schema

    _rewritten(path, tmp_path / "call.skops", as_numpy_load)
    with pytest.raises(paretostab.InvalidInputError, match="not loaded: numpy.load "):
        paretostab.load_model(tmp_path / "call.skops")


def test_files_that_are_no_model_are_refused(tmp_path):
    import skops.io

    (tmp_path / "text.skops").write_text("no zip")
    with pytest.raises(paretostab.InvalidInputError,
                       match="text.skops is not a model file .*: BadZipFile"):
        paretostab.load_model(tmp_path / "text.skops")
    skops.io.dump({"a": 1}, tmp_path / "other.skops")
    with pytest.raises(paretostab.InvalidInputError, match="a skops file but not a paretostab"):
        paretostab.load_model(tmp_path / "other.skops")
    with pytest.raises(paretostab.InvalidInputError, match="No model file"):
        paretostab.load_model(tmp_path / "none.skops")


def _predict(capsys, *args) -> tuple[pd.DataFrame, str]:
    """``predict``'s CSV on stdout, read back, and what it said on stderr."""
    import io

    assert main(["predict", *map(str, args)]) == 0
    out, err = capsys.readouterr()
    return pd.read_csv(io.StringIO(out), index_col="sample"), err


def test_predict_with_labels_gives_the_metric_and_its_interval(saved, data, tmp_path, capsys):
    choice, path = saved
    data.to_csv(tmp_path / "new.csv", index=False)
    table, err = _predict(capsys, path, tmp_path / "new.csv")
    model = choice.model()
    expected = model.predict(_features(data))
    assert list(table.index) == list(data["sample_id"])  # the IDs name the samples
    assert list(table.columns) == ["predicted", "proba_0", "proba_1"]
    np.testing.assert_array_equal(table["predicted"], expected)
    np.testing.assert_allclose(table[["proba_0", "proba_1"]], model.predict_proba(_features(data)))
    score = paretostab.evaluation.score_interval(data["label"].to_numpy(), expected, "accuracy",
                                                 model.classes_, level=0.95)
    assert err == (f"accuracy on the 40 labelled samples (label column 'label'): "
                   f"{score.value:.4g}, 95% interval [{score.low:.4g}, {score.high:.4g}]\n")
    nowhere = tmp_path / "no" / "predictions.csv"
    with pytest.raises(SystemExit) as stop:
        main(["predict", str(path), str(tmp_path / "new.csv"), "--out", str(nowhere)])
    assert stop.value.code == 2
    assert capsys.readouterr().err == (f"error: cannot write the predictions to "
                                       f"{str(nowhere)!r}: no folder {str(nowhere.parent)!r}.\n")


def test_predict_without_labels_and_with_columns_in_any_order(saved, data, tmp_path, capsys):
    _, path = saved
    new = data.drop(columns="label")
    shuffled = ["sample_id", *np.random.default_rng(0).permutation(new.columns[1:])]
    new[shuffled].assign(note="extra").to_csv(tmp_path / "new.csv", index=False)
    out = tmp_path / "predictions.csv"
    assert main(["predict", str(path), str(tmp_path / "new.csv"), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert said == (f"predictions for 40 samples written to {out} (study 'filtered', trial "
                    f"{paretostab.load_model(path).trial})\nignored 1 column(s) that are not "
                    "features of the model: note\n")
    table = pd.read_csv(out, index_col="sample")
    model = paretostab.load_model(path)
    np.testing.assert_array_equal(table["predicted"], model.pipeline.predict(_features(data)))
    # without IDs, the samples are numbered from 1
    new.drop(columns="sample_id").to_csv(tmp_path / "plain.csv", index=False)
    table, err = _predict(capsys, path, tmp_path / "plain.csv")
    assert list(table.index) == list(range(1, 41)) and err == ""


def test_predict_refuses_a_label_column_it_was_given_that_holds_no_labels(saved, data,
                                                                          tmp_path, capsys):
    # before: --label nope classified the samples, exit 0, without the metric asked for
    _, path = saved
    data.to_csv(tmp_path / "new.csv", index=False)
    data.assign(label=np.nan).to_csv(tmp_path / "unlabelled.csv", index=False)
    for file, label in (("new.csv", "nope"), ("unlabelled.csv", "label")):
        with pytest.raises(SystemExit) as stop:
            main(["predict", str(path), str(tmp_path / file), "--label", label])
        assert stop.value.code == 2
        assert capsys.readouterr() == ("", (
            f"error: --label {label!r}: {file} has no labels in such a column; name its label "
            "column, or leave --label out to classify samples without labels.\n"))
    _, err = _predict(capsys, path, tmp_path / "unlabelled.csv")  # without --label: no metric
    assert "accuracy" not in err


def test_predict_refuses_a_file_lacking_features_naming_them(saved, data, tmp_path, capsys):
    _, path = saved
    data.drop(columns=["x3", "g1_0"]).to_csv(tmp_path / "new.csv", index=False)
    with pytest.raises(SystemExit) as stop:
        main(["predict", str(path), str(tmp_path / "new.csv")])
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        "error: new.csv lacks 2 of the 35 features the model was fitted on: g1_0, x3 "
        "(columns the model does not know are ignored; its features are read by name, in "
        "any order).\n")
    many = data.drop(columns=[f"x{j}" for j in range(1, 9)])
    with pytest.raises(paretostab.InvalidInputError,
                       match="lacks 8 of the 35 features .*: x1, x2, x3, x4, x5 and 3 more "):
        paretostab.load_model(path).predict(many)


def test_predict_reads_every_data_format_with_or_without_labels(saved, data, tmp_path):
    model = paretostab.load_model(saved[1])
    expected = model.pipeline.predict(_features(data))
    features = _features(data)
    np.savez(tmp_path / "new.npz", X=features.to_numpy()[:, ::-1],
             feature_names=np.array(features.columns[::-1], dtype=str))
    by_rows = features.T.rename_axis("feature").set_axis(data["sample_id"], axis=1)
    by_rows.to_csv(tmp_path / "rows.tsv.gz", sep="\t")
    features.set_index(data["sample_id"]).to_parquet(tmp_path / "new.parquet")
    anndata = need("anndata")
    anndata.AnnData(features.set_index(data["sample_id"])).write_h5ad(tmp_path / "new.h5ad")
    for found in (model.predict(tmp_path / "new.npz"),
                  model.predict(tmp_path / "rows.tsv.gz", orientation="features_in_rows"),
                  model.predict(tmp_path / "new.parquet"), model.predict(tmp_path / "new.h5ad"),
                  model.predict(data.drop(columns="sample_id").set_index(data["sample_id"]))):
        np.testing.assert_array_equal(found.table["predicted"], expected)
    assert found.score is not None and found.score.n == 40
    with pytest.raises(paretostab.InvalidInputError, match="must be a data file's path or a "
                                                           "pandas DataFrame; got"):
        model.predict(features.to_numpy())


def test_predict_scores_only_the_samples_with_a_label(saved, data):
    model = paretostab.load_model(saved[1])
    partly = data.astype({"label": float})
    partly.loc[:9, "label"] = np.nan
    found = model.predict(partly)
    assert found.score is not None and found.score.n == 30 and len(found.table) == 40


@pytest.fixture(scope="module")
def genes():
    """Three classes named by text, in a DataFrame of 12 genes and the labels."""
    X, y = make_classification(90, 12, n_informative=4, n_classes=3, n_clusters_per_class=1,
                               random_state=0)
    return pd.DataFrame(X, columns=[f"gene{j}" for j in range(12)]).assign(
        label=np.array(["a", "b", "c"])[y])


def test_three_classes(genes, tmp_path):
    study = paretostab.tune(_spec("three"), data=genes, progress=False)
    choice = study.choose(0.5)
    model = paretostab.load_model(choice.save_model(tmp_path / "three.skops"))
    found = model.predict(genes)
    features = genes.drop(columns="label")
    by_hand = Pipeline([("selector", TTestSelector(**choice.params))]).fit(features,
                                                                          genes["label"])
    assert list(model.classes) == ["a", "b", "c"]
    assert list(found.table.columns) == ["predicted", "proba_a", "proba_b", "proba_c"]
    np.testing.assert_array_equal(found.table["predicted"], by_hand.predict(features))
    np.testing.assert_allclose(found.table.iloc[:, 1:], by_hand.predict_proba(features))
    assert found.score is not None and found.score.n == 90 and found.ignored == ()


def test_a_scikit_learn_selector(genes, tmp_path):
    spec = {"study": {"name": "kbest", "trials": 1}, "protocol": {"runs": 2},
            "selector": {"name": "sklearn.feature_selection:SelectKBest", "fixed": {"k": 5}},
            "objective": {"stability": "nogueira"}}
    choice = paretostab.tune(spec, data=genes, progress=False).choose(0.5)
    features = genes.drop(columns="label")
    by_hand = Pipeline([("selector", ExternalSelector(SelectKBest(k=5)))]).fit(
        features, genes["label"])
    model = paretostab.load_model(choice.save_model(tmp_path / "kbest.skops"))
    found = model.predict(genes)
    assert model.features == choice.features and len(model.features) == 5
    # its final model gives decision values, not probabilities: the labels alone
    assert list(found.table.columns) == ["predicted"]
    np.testing.assert_array_equal(found.table["predicted"], by_hand.predict(features))
