"""Data in memory and in the field's formats (issue 20, part 2): TSV, gzip, features in
rows, labels kept apart, .h5ad, transposed files, prefilter = 0, data given to run_study()."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
import pytest

from paretostab import choose
from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab._problem import Problem
from paretostab._tuning import run_study
from paretostab.data import as_dataset, load_dataset
from paretostab.report._build import build_report
from paretostab.spec import load_spec, parse_spec
from tests.extras import need

N, D = 12, 30
SAMPLES = [f"GSM{100 + i}" for i in range(N)]
GENES = [f"g{j}" for j in range(D)]
CLASSES = np.array(["tumour", "normal"] * (N // 2))


@pytest.fixture
def values():
    return np.random.default_rng(0).normal(size=(N, D))


def samples_in_rows(values) -> pd.DataFrame:
    frame = pd.DataFrame(values, columns=GENES)
    frame.insert(0, "label", CLASSES)
    return frame


def features_in_rows(values, *, first: str = "ID_REF", label_row: bool = False
                     ) -> pd.DataFrame:
    """A GEO-like matrix: one row per gene (names in the first column), one column per
    sample (names in the header); with ``label_row``, a last row named "label"."""
    frame = pd.DataFrame(values.T, columns=SAMPLES)
    frame.insert(0, first, GENES)
    if label_row:
        frame.loc[len(frame)] = ["label", *CLASSES]
    return frame


def write_labels(path: Path, samples, classes) -> Path:
    pd.DataFrame({"sample": samples, "label": classes}).to_csv(path, index=False)
    return path


def error(call, *args, **kwargs) -> str:
    with pytest.raises(InvalidInputError) as caught:
        call(*args, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    return message


# ----------------------------------------------------------------------- file formats


@pytest.mark.parametrize("name", ["t.tsv", "t.tsv.gz", "t.csv.gz"])
def test_tsv_and_compressed_tables_read_as_csv_does(tmp_path, values, name):
    sep = "\t" if ".tsv" in name else ","
    samples_in_rows(values).to_csv(tmp_path / name, sep=sep, index=False)
    data = load_dataset(tmp_path / name)
    np.testing.assert_allclose(data.X, values)
    assert data.feature_names == tuple(GENES) and list(data.y) == list(CLASSES)
    assert data.name == "t"


def test_a_tsv_read_with_commas_says_how_it_is_separated(tmp_path, values):
    samples_in_rows(values).to_csv(tmp_path / "c.tsv", index=False)  # commas in a .tsv
    assert "it looks separated by ','" in error(load_dataset, tmp_path / "c.tsv")


def test_features_in_rows_with_a_label_row(tmp_path, values):
    path = tmp_path / "geo.csv"
    features_in_rows(values, label_row=True).to_csv(path, index=False)
    data = load_dataset(path, orientation="features_in_rows")
    np.testing.assert_allclose(data.X, values)
    assert data.feature_names == tuple(GENES) and list(data.y) == list(CLASSES)


def test_features_in_rows_with_numeric_labels_keeps_them_integers(tmp_path, values):
    frame = features_in_rows(values)
    frame.loc[len(frame)] = ["label", *([0, 1] * (N // 2))]
    frame.to_csv(tmp_path / "n.csv", index=False)
    data = load_dataset(tmp_path / "n.csv", orientation="features_in_rows")
    assert data.y.dtype.kind == "i" and sorted(set(data.y)) == [0, 1]


def test_a_separate_labels_file_is_matched_by_sample_name(tmp_path, values):
    path = tmp_path / "geo.tsv.gz"
    features_in_rows(values).to_csv(path, sep="\t", index=False)
    order = np.random.default_rng(1).permutation(N)  # the labels file in another order
    labels = write_labels(tmp_path / "labels.csv", np.array(SAMPLES)[order], CLASSES[order])
    data = load_dataset(path, orientation="features_in_rows", labels=labels)
    np.testing.assert_allclose(data.X, values)
    assert list(data.y) == list(CLASSES)
    # samples in rows: the data's first column names the samples
    rows = pd.DataFrame(values, columns=GENES)
    rows.insert(0, "sample", SAMPLES)
    rows.to_csv(tmp_path / "rows.csv", index=False)
    again = load_dataset(tmp_path / "rows.csv", labels=labels)
    np.testing.assert_allclose(again.X, values)
    assert list(again.y) == list(CLASSES) and again.feature_names == tuple(GENES)


def test_missing_and_extra_samples_of_a_labels_file_are_named(tmp_path, values):
    path = tmp_path / "geo.csv"
    features_in_rows(values).to_csv(path, index=False)
    labels = write_labels(tmp_path / "l.csv", [*SAMPLES[:-2], "GSM999"], CLASSES[:-1])
    message = error(load_dataset, path, orientation="features_in_rows", labels=labels)
    assert message == (
        "geo.csv and labels file l.csv do not name the same samples: 2 sample(s) of geo.csv "
        "have no label in l.csv (GSM110, GSM111); 1 sample(s) of l.csv are not in geo.csv "
        "(GSM999).")
    twice = write_labels(tmp_path / "twice.csv", [*SAMPLES, SAMPLES[0]], [*CLASSES, "x"])
    assert "duplicate sample names: GSM100 (2 times)" in error(
        load_dataset, path, orientation="features_in_rows", labels=twice)
    assert "labels file l.csv has no label column 'cls' (its columns: sample, label)" in error(
        load_dataset, path, orientation="features_in_rows", labels=labels, label="cls")
    samples_in_rows(values).to_csv(tmp_path / "both.csv", index=False)
    assert "keep the labels in one place" in error(load_dataset, tmp_path / "both.csv",
                                                  labels=labels)


def test_a_geo_series_matrix_read_as_samples_in_rows_names_the_option(tmp_path, values):
    """Genes in rows, samples in columns, first column ID_REF: the error says it looks
    transposed and names orientation = "features_in_rows"."""
    features_in_rows(values).to_csv(tmp_path / "series_matrix.csv", index=False)
    message = error(load_dataset, tmp_path / "series_matrix.csv")
    assert message.startswith("series_matrix.csv has no label column 'label' (its columns "
                              "start: ID_REF, GSM100, ")
    assert "it looks transposed (30 rows named by its first column ID_REF" in message
    assert 'set orientation = "features_in_rows"' in message
    features_in_rows(values, label_row=True).to_csv(tmp_path / "labelled.csv", index=False)
    assert "it looks transposed (its first column ID_REF has a row named 'label')" in error(
        load_dataset, tmp_path / "labelled.csv")
    # a table the right way round with a wrong label name gets no such hint
    samples_in_rows(values).to_csv(tmp_path / "ok.csv", index=False)
    assert "transposed" not in error(load_dataset, tmp_path / "ok.csv", label="cls")


def wine_features_in_rows() -> tuple[pd.DataFrame, pd.DataFrame]:
    """scikit-learn's wine with features in rows (13 rows × 178 sample columns, more
    columns than rows) and its labels kept apart."""
    from sklearn.datasets import load_wine

    wine = load_wine(as_frame=True)
    samples = [f"S{i}" for i in range(len(wine.target))]
    matrix = wine.data.T.set_axis(samples, axis=1).rename_axis("feature").reset_index()
    return matrix, pd.DataFrame({"sample": samples, "label": wine.target})


def test_features_in_rows_with_more_samples_than_features_names_the_option(tmp_path):
    """Wine transposed has no label column and far more columns than rows: the hint names
    orientation and labels = (it may also be samples in rows whose labels are apart)."""
    matrix, labels = wine_features_in_rows()
    matrix.to_csv(tmp_path / "wine_t.csv", index=False)
    message = error(load_dataset, tmp_path / "wine_t.csv")
    assert message.startswith("wine_t.csv has no label column 'label' (its columns start: "
                              "feature, S0, S1, ")
    assert "it may be transposed (13 rows named by its first column feature, 178 numeric " \
        "columns): with features in rows set orientation = \"features_in_rows\"" in message
    assert 'labels = "file.csv"' in message
    labels.to_csv(tmp_path / "wine_labels.csv", index=False)
    data = load_dataset(tmp_path / "wine_t.csv", orientation="features_in_rows",
                        labels=tmp_path / "wine_labels.csv")
    assert data.X.shape == (178, 13) and sorted(set(data.y)) == [0, 1, 2]
    # a samples-in-rows table whose label column is misspelled, or has another name, gets
    # no transposed hint (even with sample names down its first column): a "did you mean"
    rows = pd.DataFrame(matrix.set_index("feature").T.to_numpy(), columns=matrix["feature"])
    for column, first in [("Label", None), ("lable", "sample"), ("cls", "sample"),
                          ("class", None)]:
        table = rows.copy()
        table.insert(0, column, labels["label"].to_numpy())
        if first:
            table.insert(0, first, labels["sample"].to_numpy())
        table.to_csv(tmp_path / "rows.csv", index=False)
        message = error(load_dataset, tmp_path / "rows.csv")
        assert "transposed" not in message and "orientation" not in message, message
        assert f"did you mean label = {column!r}? pass label= " in message, message
    assert error(as_dataset, table) == (
        "data in memory: the DataFrame has no label column 'label' (its columns start: "
        "class, alcohol, malic_acid, ash, alcalinity_of_ash, magnesium, total_phenols, "
        "flavanoids); "
        "did you mean label = 'class'? pass label= (the spec's [data] label) with the name of "
        "the class column.")


def test_a_labels_file_naming_the_columns_says_the_table_is_transposed(tmp_path, values):
    """labels = with no orientation, the labels naming the table's columns: the one line
    says its samples look in columns and names the option; and the other way round."""
    matrix, labels = wine_features_in_rows()
    matrix.to_csv(tmp_path / "wine_t.csv", index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    assert error(load_dataset, tmp_path / "wine_t.csv", labels=tmp_path / "labels.csv") == (
        "wine_t.csv and labels file labels.csv do not name the same samples: the labels name "
        "178 of its 178 columns (S0, S1, S2, S3, S4 and 173 more) and 0 of its 13 rows: its "
        "samples look in columns; set orientation = \"features_in_rows\" (the spec's [data] "
        "orientation).")
    rows = pd.DataFrame(values, columns=GENES)
    rows.insert(0, "sample", SAMPLES)
    rows.to_csv(tmp_path / "rows.csv", index=False)
    write_labels(tmp_path / "l.csv", SAMPLES, CLASSES)
    assert error(load_dataset, tmp_path / "rows.csv", orientation="features_in_rows",
                 labels=tmp_path / "l.csv") == (
        "rows.csv and labels file l.csv do not name the same samples: the labels name 12 of "
        "its 12 rows (GSM100, GSM101, GSM102, GSM103, GSM104 and 7 more) and 0 of its 30 "
        "columns: its samples look in rows; remove orientation = \"features_in_rows\" (the "
        "spec's [data] orientation).")
    # labels that only partly match name the samples as before, with no hint
    partial = write_labels(tmp_path / "p.csv", [*SAMPLES[:-1], "GENE"], CLASSES)
    assert "orientation" not in error(load_dataset, tmp_path / "rows.csv", labels=partial)


def test_features_in_rows_errors_say_what_to_do(tmp_path, values):
    features_in_rows(values).to_csv(tmp_path / "geo.csv", index=False)
    assert "has no row named 'label' in its first column ID_REF: add one, or give labels = " \
        in error(load_dataset, tmp_path / "geo.csv", orientation="features_in_rows")
    samples_in_rows(values).to_csv(tmp_path / "rows.csv", index=False)
    assert "its samples look in rows; remove orientation" in error(
        load_dataset, tmp_path / "rows.csv", orientation="features_in_rows")
    text = features_in_rows(values, label_row=True)
    text.iloc[3, 2] = "high"
    text.to_csv(tmp_path / "text.csv", index=False)
    assert error(load_dataset, tmp_path / "text.csv", orientation="features_in_rows") == (
        "text.csv: feature rows must be numeric; 1 are not: g3.")
    with pytest.raises(InvalidInputError, match="orientation must be one of"):
        load_dataset(tmp_path / "geo.csv", orientation="genes_in_rows")


def test_an_npz_with_features_in_rows_is_transposed(tmp_path, values):
    np.savez(tmp_path / "t.npz", X=values.T, y=CLASSES)
    data = load_dataset(tmp_path / "t.npz", orientation="features_in_rows")
    np.testing.assert_allclose(data.X, values)
    assert "an .npz holds its labels as array y" in error(
        load_dataset, tmp_path / "t.npz", labels=tmp_path / "l.csv")


def test_an_npz_with_object_labels_says_how_to_save_them(tmp_path, values):
    """y saved from a DataFrame's object column needs a pickle, which is not loaded: one
    line saying the array holds Python objects and how to save it instead."""
    frame = samples_in_rows(values)
    np.savez(tmp_path / "o.npz", X=frame[GENES].to_numpy(), y=frame.label.values)
    assert error(load_dataset, tmp_path / "o.npz") == (
        "o.npz is not a readable .npz file (Object arrays load only through a pickle, which is "
        "unsafe and not done): its array y holds Python objects (dtype object); save it as "
        "strings or integers: y.astype(str).")
    np.savez(tmp_path / "s.npz", X=frame[GENES].to_numpy(), y=frame.label.values.astype(str))
    assert list(load_dataset(tmp_path / "s.npz").y) == list(CLASSES)
    np.savez(tmp_path / "n.npz", X=values, y=CLASSES,
             feature_names=np.array(GENES, dtype=object))
    assert error(load_dataset, tmp_path / "n.npz").endswith(
        "its array feature_names holds Python objects (dtype object); save it as strings: "
        "feature_names.astype(str).")


def test_parquet_files_are_read(tmp_path, values):
    """Parquet tables (pyarrow: paretostab[parquet], in the test extra) with samples or
    features in rows, and a parquet labels file."""
    need("pyarrow")
    samples_in_rows(values).to_parquet(tmp_path / "t.parquet")
    data = load_dataset(tmp_path / "t.parquet")
    np.testing.assert_allclose(data.X, values)
    assert data.feature_names == tuple(GENES) and list(data.y) == list(CLASSES)
    features_in_rows(values).to_parquet(tmp_path / "geo.parquet")
    pd.DataFrame({"sample": SAMPLES[::-1], "label": CLASSES[::-1]}).to_parquet(
        tmp_path / "labels.parquet")
    again = load_dataset(tmp_path / "geo.parquet", orientation="features_in_rows",
                         labels=tmp_path / "labels.parquet")
    np.testing.assert_allclose(again.X, values)
    assert again.feature_names == tuple(GENES) and list(again.y) == list(CLASSES)
    assert 'it looks transposed (30 rows named by its first column ID_REF' in error(
        load_dataset, tmp_path / "geo.parquet")


def test_parquet_without_an_engine_says_what_to_install(tmp_path, values, monkeypatch):
    """No pyarrow nor fastparquet importable: one line naming the package to install."""
    path = tmp_path / "t.parquet"
    try:
        samples_in_rows(values).to_parquet(path)
    except ImportError:  # no engine here: a file that starts as parquet files do
        path.write_bytes(b"PAR1")
    for engine in ("pyarrow", "fastparquet"):
        monkeypatch.setitem(sys.modules, engine, None)  # import pyarrow: ImportError
    assert error(load_dataset, path) == (
        "Reading t.parquet needs a parquet engine: pip install pyarrow (or "
        "'paretostab[parquet]').")


def anndata_or_skip():
    return need("anndata")


def make_anndata(values, *, sparse: bool = False):
    anndata = anndata_or_skip()
    from scipy import sparse as scipy_sparse

    obs = pd.DataFrame({"cell_type": pd.Categorical(CLASSES)}, index=SAMPLES)
    X = scipy_sparse.csr_matrix(values) if sparse else values
    return anndata.AnnData(X=X, obs=obs, var=pd.DataFrame(index=GENES))


@pytest.mark.slow
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_h5ad_files_take_their_label_from_obs(tmp_path, values, sparse):
    make_anndata(values, sparse=sparse).write_h5ad(tmp_path / "cells.h5ad")
    data = load_dataset(tmp_path / "cells.h5ad", label="cell_type")
    np.testing.assert_allclose(data.X, values)
    assert data.feature_names == tuple(GENES) and list(data.y) == list(CLASSES)
    assert data.y.dtype.kind == "U"  # categorical labels: plain strings
    assert error(load_dataset, tmp_path / "cells.h5ad") == (
        "cells.h5ad has no obs column 'label' (its obs columns: cell_type): pass label= (the "
        "spec's [data] label) with the name of the class column.")
    labels = write_labels(tmp_path / "l.csv", SAMPLES, CLASSES)
    assert list(load_dataset(tmp_path / "cells.h5ad", labels=labels).y) == list(CLASSES)
    assert "remove orientation" in error(load_dataset, tmp_path / "cells.h5ad",
                                         label="cell_type", orientation="features_in_rows")


def test_a_corrupt_h5ad_is_one_line(tmp_path):
    anndata_or_skip()
    (tmp_path / "bad.h5ad").write_bytes(b"\x89HDF\r\n\x1a\nnot really")
    assert error(load_dataset, tmp_path / "bad.h5ad").startswith(
        "bad.h5ad is not a readable .h5ad file (")


def test_unsupported_types_list_the_formats(tmp_path):
    (tmp_path / "x.xlsx").write_bytes(b"PK")
    assert error(load_dataset, tmp_path / "x.xlsx") == (
        "Unsupported file type 'x.xlsx': expected a .csv or .tsv (also .gz), .parquet, .npz "
        "or .h5ad file.")


def test_the_impute_error_says_where_to_choose(tmp_path, values):
    holes = samples_in_rows(values)
    holes.iloc[0, 3] = np.nan
    holes.to_csv(tmp_path / "h.csv", index=False)
    assert "choose the spec's [data] impute = \"mean\" or \"median\" (per feature) or " \
        "\"drop\" (the rows), impute= in Python" in error(load_dataset, tmp_path / "h.csv")


# ----------------------------------------------------------------------- data in memory


def test_data_in_memory_in_every_form_give_the_same_data(values):
    frame = samples_in_rows(values)
    from_frame = as_dataset(frame)
    from_arrays = as_dataset((frame[GENES], CLASSES))
    assert from_frame.content_hash() == from_arrays.content_hash()
    np.testing.assert_allclose(from_frame.X, values)
    unnamed = as_dataset((values, CLASSES))
    assert unnamed.feature_names[:2] == ("f0", "f1")
    assert unnamed.content_hash() != from_frame.content_hash()  # names are part of it
    other = values.copy()
    other[0, 0] += 1e-12
    assert as_dataset((other, CLASSES)).content_hash() != unnamed.content_hash()
    before = frame.copy()
    as_dataset(frame, impute="mean")
    pd.testing.assert_frame_equal(frame, before)  # not mutated


def test_data_in_memory_as_anndata(values):
    adata = make_anndata(values, sparse=True)
    data = as_dataset(adata, label="cell_type")
    np.testing.assert_allclose(data.X, values)
    assert data.content_hash() == as_dataset(
        (pd.DataFrame(values, columns=GENES), CLASSES)).content_hash()


@pytest.mark.parametrize(("data", "expected"), [
    ((np.zeros(4), [0, 1, 0, 1]), "data in memory: X must be 2-D (n samples × d features); got "
                                  "shape (4,)."),
    ((np.zeros((4, 2)), [0, 1]), "data in memory: y must hold one label per row of X (4); got "
                                 "shape (2,)."),
    ([1, 2, 3], "data must be (X, y), a pandas DataFrame with a label column, an "
                "anndata.AnnData or a Dataset; got list of 3 items."),
    ("x.csv", "data must be (X, y), a pandas DataFrame with a label column, an "
              "anndata.AnnData or a Dataset; got str."),
    (pd.DataFrame({"a": [1.0, 2.0]}), "data in memory: the DataFrame has no label column "
                                      "'label' (its columns start: a); pass label="),
    ((np.zeros((4, 2)), [0, 0, 0, 1]), "data in memory (y): class '1' has 1 example(s)"),
])
def test_data_in_memory_errors_are_one_line(data, expected):
    assert error(as_dataset, data).startswith(expected)


# ----------------------------------------------------------------------- specs


def spec_mapping(**data) -> dict:
    return {"study": {"name": "mem", "trials": 2, "seed": 0, "sampler": "random"},
            "data": {"source": "memory", **data}, "protocol": {"runs": 3},
            "selector": {"name": "t_test", "fixed": {"n_features": 3}},
            "objective": {"stability": "nogueira", "record": []}}


def test_prefilter_zero_is_off():
    off = parse_spec(spec_mapping(prefilter=0))
    assert off.data.prefilter is None
    assert off.content_hash() == parse_spec(spec_mapping()).content_hash()
    assert "prefilter" not in off.to_dict()["data"]
    with pytest.raises(InvalidInputError, match=r"must be an integer >= 0 \(.*0: off\)"):
        parse_spec(spec_mapping(prefilter=-1))


def test_orientation_and_labels_keys(tmp_path, values):
    features_in_rows(values).to_csv(tmp_path / "geo.csv", index=False)
    write_labels(tmp_path / "labels.csv", SAMPLES, CLASSES)
    (tmp_path / "s.toml").write_text(
        '[study]\nname = "geo"\n[data]\nsource = "geo.csv"\norientation = "features_in_rows"\n'
        'labels = "labels.csv"\n[selector]\nname = "t_test"\n[selector.fixed]\nn_features = 3\n',
        encoding="utf-8")
    spec = load_spec(tmp_path / "s.toml")
    assert spec.data.labels == str(tmp_path / "labels.csv")  # relative to the spec's folder
    problem = Problem.from_spec(spec)
    np.testing.assert_allclose(problem.X, values)
    assert list(problem.y) == list(CLASSES)
    again = parse_spec(spec.to_dict())
    assert again.content_hash() == spec.content_hash()
    rows = parse_spec(spec_mapping(orientation="samples_in_rows"))  # the default, spelled out
    assert rows.data.orientation is None
    assert rows.content_hash() == parse_spec(spec_mapping()).content_hash()
    with pytest.raises(UnknownNameError, match="Unknown orientation 'genes_in_rows'"):
        parse_spec(spec_mapping(orientation="genes_in_rows"))


def test_a_memory_source_without_data_says_how_to_give_them():
    spec = parse_spec(spec_mapping())
    assert error(Problem.from_spec, spec).startswith(
        "[data] source = 'memory': the data are given in memory; pass them as data= ")
    with pytest.raises(InvalidInputError, match="orientation and labels are for data files"):
        Problem.from_spec(parse_spec(spec_mapping(labels="l.csv")), (np.zeros((4, 2)),
                                                                    [0, 1, 0, 1]))


def test_data_in_memory_enter_the_spec_hash_and_another_source_is_refused(values):
    """Issue 33: a spec naming a data file or a built-in source and data given in memory:
    which data were meant? One line, not the source silently replaced."""
    named = parse_spec({**spec_mapping(), "data": {"source": "breast_cancer"}})
    assert error(Problem.from_spec, named, samples_in_rows(values)) == (
        "data given in memory, and the spec's [data] source = 'breast_cancer': give one of "
        "them (remove data=, or remove source or set it to 'memory').")
    problem = Problem.from_spec(parse_spec(spec_mapping()), samples_in_rows(values))
    data = as_dataset(samples_in_rows(values))
    assert problem.spec.data.source == "memory"
    assert problem.spec.data.content_hash == data.content_hash()
    stored = parse_spec(json.loads(json.dumps(problem.spec.to_dict())))  # as a study stores it
    assert stored.content_hash() == problem.spec.content_hash()
    assert Problem.from_spec(stored, data).spec.content_hash() == problem.spec.content_hash()
    with pytest.raises(InvalidInputError, match="are not the spec's"):
        Problem.from_spec(stored, (values[::-1], CLASSES))
    assert "(content hash " + data.content_hash()[:12] + ")" in error(Problem.from_spec, stored)


# ----------------------------------------------------------------------- tune with data in memory


@pytest.mark.slow
def test_tune_with_data_in_memory_needs_no_source(tmp_path, values):
    """Issue 33: the spec reference says tune sets source = "memory"; a spec given to
    tune(spec, data=...) without [data] source (or without [data]) is tuned on them, a
    TOML file as a mapping."""
    import paretostab

    url = f"sqlite:///{tmp_path / 'mem.db'}"
    mapping = spec_mapping()
    del mapping["data"]
    study = paretostab.tune(mapping, data=samples_in_rows(values), storage=url,
                            progress=False)
    assert study.n_trials == 2
    assert study.study.user_attrs["spec"]["data"]["source"] == "memory"
    labelled = {**mapping, "study": {**mapping["study"], "name": "labelled"},
                "data": {"label": "class"}}
    frame = samples_in_rows(values).rename(columns={"label": "class"})
    assert paretostab.tune(labelled, data=frame, storage=url, progress=False).n_trials == 2
    (tmp_path / "mem.toml").write_text(
        '[study]\nname = "file"\ntrials = 1\n[protocol]\nruns = 3\n[selector]\n'
        'name = "t_test"\n[selector.fixed]\nn_features = 3\n', encoding="utf-8")
    assert paretostab.tune(tmp_path / "mem.toml", data=(values, CLASSES), storage=url,
                           progress=False).n_trials == 1
    with pytest.raises(InvalidInputError, match=r"\[data\]: missing table"):  # no data given
        paretostab.tune(tmp_path / "mem.toml", storage=url, progress=False)


def test_an_error_about_a_dataframe_describes_it_and_does_not_print_it(tmp_path):
    """Issue 33: a DataFrame where the spec wants a path or a table (as a README comment
    suggested) gives one short line with its size, not its 150 × 2 001 cells."""
    import paretostab

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(150, 2001)))
    url = f"sqlite:///{tmp_path / 'df.db'}"
    size = "a DataFrame of 150 rows × 2 001 columns"
    for data, key in [({"source": frame}, "data.source"), ({"source": "memory", "label": frame},
                                                             "data.label"), (frame, "data")]:
        message = error(paretostab.tune, {**spec_mapping(), "data": data}, storage=url)
        assert message.startswith(f"<dict>: {key}: must be ") and message.endswith(
            f"; got {size}.") and len(message) < 200
    assert "tune(spec, data=...)" in error(paretostab.tune,
                                           {**spec_mapping(), "data": {"source": frame}})
    message = error(paretostab.tune, {**spec_mapping(), "data": {"impute": frame}},
                    data=frame)
    assert message.endswith(f"got {size}.") and len(message) < 200


@pytest.mark.slow
def test_tune_with_data_in_memory_and_a_resume_with_other_data_refused(tmp_path, values):
    url = f"sqlite:///{tmp_path / 'mem.db'}"
    spec = parse_spec(spec_mapping())
    study = run_study(spec, data=(pd.DataFrame(values, columns=GENES), CLASSES), storage=url,
                 progress=False)
    assert len(study.trials) == 2 and all(t.values is not None for t in study.trials)
    stored = study.user_attrs["spec"]["data"]
    assert stored["source"] == "memory"
    assert stored["content_hash"] == as_dataset(samples_in_rows(values)).content_hash()
    # the same data (as a DataFrame this time): resumed
    again = run_study(spec, data=samples_in_rows(values), storage=url, n_trials=3, progress=False)
    assert len(again.trials) == 3
    other = values.copy()
    other[0, 0] += 1.0
    with pytest.raises(InvalidInputError, match="Study 'mem' in this storage was made from "
                                                "another spec"):
        run_study(spec, data=samples_in_rows(other), storage=url, n_trials=4, progress=False)
    with pytest.raises(InvalidInputError, match="source = 'memory'"):
        run_study(spec, storage=url, n_trials=4, progress=False)


@pytest.mark.slow
def test_report_and_choose_of_a_study_tuned_on_data_in_memory(tmp_path, values):
    """The report and the γ choice refit front trials on the whole data: given as tune
    took them; without them, or with others, one line."""
    url = f"sqlite:///{tmp_path / 'mem.db'}"
    run_study(parse_spec(spec_mapping()), data=(values, CLASSES), storage=url, progress=False)
    chosen = choose(url, 0.5, data=(values, CLASSES))
    assert chosen.features and set(chosen.features) <= set(
        as_dataset((values, CLASSES)).feature_names)
    out = build_report(url, out=tmp_path / "report", replicates=0, progress=False,
                       data=(values, CLASSES))
    assert (out / "summary.json").exists()
    with pytest.raises(InvalidInputError, match="source = 'memory'"):
        choose(url, 0.5)
    other = values.copy()
    other[0, 0] += 1.0
    with pytest.raises(InvalidInputError, match="are not the spec's"):
        choose(url, 0.5, data=(other, CLASSES))


@pytest.mark.slow
def test_data_in_memory_reach_worker_processes(tmp_path, values):
    """tune's --workers processes get the data the parent was given (they load none)."""
    url = f"sqlite:///{tmp_path / 'workers.db'}"
    study = run_study(parse_spec(spec_mapping()), data=(values, CLASSES), storage=url,
                 n_trials=4, workers=2, progress=False)
    assert sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials) == 4
    assert study.user_attrs["spec"]["data"]["content_hash"] == \
        as_dataset((values, CLASSES)).content_hash()
