"""Sample IDs are never features (issue 33, "a biologist's first hour"): the index that
pandas' ``to_csv`` writes, R's ``write.csv`` row names, a column of distinct text or of the
row numbers name the samples; ``[data] id`` names such a column; a feature that follows
the row order and alone separates the classes is warned of before a study starts."""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretostab import DataWarning
from paretostab._cli import main
from paretostab._errors import InvalidInputError
from paretostab._problem import Problem
from paretostab.data import as_dataset, load_dataset, row_order_features
from paretostab.spec import load_spec, parse_spec
from tests.extras import need

N, D = 20, 8
GENES = [f"g{j}" for j in range(D)]
SORTED = np.repeat(["healthy", "tumour"], N // 2)  # the samples sorted by class
NAMES = [f"P{i:03d}" for i in range(N)]


@pytest.fixture
def values():
    return np.random.default_rng(0).normal(size=(N, D))


def table(values, **first) -> pd.DataFrame:
    """Labels sorted by class, then the ``first`` columns, then the genes."""
    frame = pd.DataFrame({"label": SORTED, **first})
    return pd.concat([frame, pd.DataFrame(values, columns=GENES)], axis=1)


def quiet_load(*args, **kwargs):
    """``load_dataset``, no :class:`DataWarning` allowed."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        return load_dataset(*args, **kwargs)


def one_line(call, *args, **kwargs) -> str:
    with pytest.raises(InvalidInputError) as caught:
        call(*args, **kwargs)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def check_genes(data, values, samples):
    assert data.feature_names == tuple(GENES)
    np.testing.assert_allclose(data.X, values, rtol=1e-12)  # as pandas parses a CSV
    assert list(data.y) == list(SORTED)
    assert data.sample_names == tuple(samples)


# --------------------------------------------------------------------------- files


def test_the_index_pandas_to_csv_writes_names_the_samples(tmp_path, values):
    """The issue's file: df.to_csv("noise.csv") with the default index; it loaded as a
    feature "Unnamed: 0", which a study chose as the one gene."""
    table(values).to_csv(tmp_path / "noise.csv")
    check_genes(quiet_load(tmp_path / "noise.csv"), values, map(str, range(N)))
    table(values).to_csv(tmp_path / "noise.tsv", sep="\t")
    check_genes(quiet_load(tmp_path / "noise.tsv"), values, map(str, range(N)))
    named = table(values).set_axis(pd.Index(NAMES, name="patient"), axis=0)
    named.to_csv(tmp_path / "named.csv")  # a named index: the header names its column
    check_genes(quiet_load(tmp_path / "named.csv"), values, NAMES)


def test_r_write_csv_row_names_name_the_samples(tmp_path, values):
    """R's write.csv: a blank first header cell, the row names "1", "2", ... quoted."""
    lines = ['"","label",' + ",".join(f'"{g}"' for g in GENES)]
    lines += [f'"{i + 1}","{SORTED[i]}",' + ",".join(repr(float(v)) for v in values[i])
              for i in range(N)]
    (tmp_path / "r.csv").write_bytes(("\r\n".join(lines) + "\r\n").encode())
    check_genes(quiet_load(tmp_path / "r.csv"), values, map(str, range(1, N + 1)))


def test_a_sample_column_of_text_names_the_samples(tmp_path, values):
    """The column "sample" was refused as a non-numeric feature, with no way out."""
    table(values, sample=NAMES).to_csv(tmp_path / "s.csv", index=False)
    check_genes(quiet_load(tmp_path / "s.csv"), values, NAMES)
    (tmp_path / "s.toml").write_text(
        '[study]\nname = "s"\n[data]\nsource = "s.csv"\n[selector]\nname = "t_test"\n'
        '[selector.fixed]\nn_features = 3\n', encoding="utf-8")
    assert Problem.from_spec(load_spec(tmp_path / "s.toml")).feature_names == tuple(GENES)


def test_a_study_says_which_column_it_read_as_the_sample_ids(tmp_path, values):
    """The column taken is said in the study's first lines (a note), unless [data] id
    named it; data without one get no such note."""
    table(values).to_csv(tmp_path / "noise.csv")
    table(values, sample=NAMES).to_csv(tmp_path / "s.csv", index=False)
    table(values).to_csv(tmp_path / "plain.csv", index=False)
    spec = {"study": {"name": "s"}, "selector": {"name": "t_test",
                                                 "fixed": {"n_features": 3}}}
    def notes(**data):
        found = Problem.from_spec(parse_spec({**spec, "data": data})).notes
        return [n for n in found if n.startswith("data.id:")]
    assert notes(source=str(tmp_path / "noise.csv")) == [
        "data.id: column 'Unnamed: 0' of noise read as the sample IDs, not a feature (an "
        "index-like first column); [data] id names the ID column"]
    assert "column 'sample' of s read" in notes(source=str(tmp_path / "s.csv"))[0]
    assert notes(source=str(tmp_path / "s.csv"), id="sample") == []
    assert notes(source=str(tmp_path / "plain.csv")) == []


@pytest.mark.parametrize("start", [0, 1])
def test_a_first_column_of_the_row_numbers_names_the_samples(tmp_path, values, start):
    numbers = np.arange(start, N + start)
    table(values, idx=numbers).to_csv(tmp_path / "n.csv", index=False)
    check_genes(quiet_load(tmp_path / "n.csv"), values, map(str, numbers))
    table(values, idx=numbers * 1.0).to_csv(tmp_path / "f.csv", index=False)  # read as floats
    check_genes(quiet_load(tmp_path / "f.csv"), values, [f"{float(n)}" for n in numbers])


def test_data_id_names_the_column_of_sample_ids(tmp_path, values):
    """A column no rule finds (numbers, not first) is named by [data] id; unnamed, it is
    a feature that follows the row order: warned of, in one line that says what to do."""
    patients = 1000 + 7 * np.arange(N)
    frame = table(values)
    frame["patient"] = patients
    frame.to_csv(tmp_path / "p.csv", index=False)
    check_genes(quiet_load(tmp_path / "p.csv", id="patient"), values, map(str, patients))
    (tmp_path / "p.toml").write_text(
        '[study]\nname = "p"\n[data]\nsource = "p.csv"\nid = "patient"\n[selector]\n'
        'name = "t_test"\n[selector.fixed]\nn_features = 3\n', encoding="utf-8")
    spec = load_spec(tmp_path / "p.toml")
    assert spec.data.id == "patient" and parse_spec(spec.to_dict()).data.id == "patient"
    without = parse_spec({**spec.to_dict(), "data": {"source": str(tmp_path / "p.csv")}})
    assert without.content_hash() != spec.content_hash()  # other features: another study
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        assert Problem.from_spec(spec).feature_names == tuple(GENES)
    with pytest.warns(DataWarning) as caught:
        assert load_dataset(tmp_path / "p.csv").feature_names == (*GENES, "patient")
    assert [str(w.message) for w in caught] == [
        "p.csv: 1 feature(s) follow the row order and each alone separates the classes "
        "(the rows are sorted by class): patient; a row number or an index is no "
        "measurement: drop it, or name it as the sample IDs ([data] id = 'patient' in the "
        "spec, id= in Python)."]


def test_sample_id_errors_are_one_line(tmp_path, values):
    table(values).to_csv(tmp_path / "t.csv", index=False)
    assert one_line(load_dataset, tmp_path / "t.csv", id="sample") == (
        "t.csv: id = 'sample' names no column (the columns start: label, g0, g1, g2, g3, g4, "
        "g5, g6); [data] id (id= in Python) names the column of sample names.")
    assert "is the label column" in one_line(load_dataset, tmp_path / "t.csv", id="label")
    table(values, sample=["a", "b"] * (N // 2)).to_csv(tmp_path / "dup.csv", index=False)
    assert one_line(load_dataset, tmp_path / "dup.csv", id="sample").startswith(
        "dup.csv: duplicate sample names: a (10 times), b (10 times)")
    # repeated text is no ID column: refused as a feature, the message naming the way out
    assert one_line(load_dataset, tmp_path / "dup.csv").endswith(
        "1 are not: sample (a column of sample IDs: name it as the spec's [data] id, id= in "
        "Python).")
    np.savez(tmp_path / "t.npz", X=values, y=SORTED)
    assert "an .npz has no such column: remove id" in one_line(
        load_dataset, tmp_path / "t.npz", id="sample")
    pd.DataFrame(values.T, columns=NAMES).assign(gene=GENES).to_csv(tmp_path / "g.csv")
    assert "features in rows (its header) has no such column" in one_line(
        load_dataset, tmp_path / "g.csv", orientation="features_in_rows", id="gene")
    assert "orientation, labels and id are for data files" in one_line(
        load_dataset, "breast_cancer", id="sample")


def test_labels_kept_apart_match_the_column_id_names(tmp_path, values):
    frame = pd.DataFrame(values, columns=GENES)
    frame.insert(0, "batch", 1)
    frame.insert(1, "sample", NAMES)
    frame.to_csv(tmp_path / "x.csv", index=False)
    labels = pd.DataFrame({"sample": NAMES[::-1], "label": SORTED[::-1]})
    labels.to_csv(tmp_path / "labels.csv", index=False)
    data = quiet_load(tmp_path / "x.csv", labels=tmp_path / "labels.csv", id="sample")
    assert data.feature_names == ("batch", *GENES) and data.sample_names == tuple(NAMES)
    assert list(data.y) == list(SORTED)


# --------------------------------------------------------------------------- memory


def test_a_dataframe_in_memory_keeps_its_index_as_the_sample_names(values):
    named = table(values).set_axis(pd.Index(NAMES), axis=0)
    check_genes(as_dataset(named), values, NAMES)
    assert as_dataset(table(values)).sample_names is None  # a RangeIndex numbers the rows
    X = pd.DataFrame(values, columns=GENES, index=NAMES)
    check_genes(as_dataset((X, SORTED)), values, NAMES)
    # a DataFrame read back from the file, its index a column "Unnamed: 0"
    read = table(values).reset_index().rename(columns={"index": "Unnamed: 0"})
    check_genes(as_dataset(read), values, map(str, range(N)))
    check_genes(as_dataset(table(values, sample=NAMES)), values, NAMES)
    check_genes(as_dataset(table(values, who=NAMES[::-1]), id="who"), values, NAMES[::-1])
    assert as_dataset(named).content_hash() == as_dataset(table(values)).content_hash()
    assert "names a column of a DataFrame X; got ndarray" in one_line(
        as_dataset, (values, SORTED), id="sample")


def test_tune_reads_the_id_of_data_in_memory(tmp_path, values):
    import paretostab

    frame = table(values)
    frame["patient"] = 1000 + np.arange(N)
    spec = {"study": {"name": "ids", "trials": 1, "sampler": "random"},
            "data": {"id": "patient"}, "protocol": {"runs": 3},
            "selector": {"name": "t_test", "fixed": {"n_features": 3}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        study = paretostab.tune(spec, data=frame, storage=f"sqlite:///{tmp_path / 'i.db'}",
                                progress=False)
    assert study.n_trials == 1 and study.study.user_attrs["spec"]["data"]["id"] == "patient"


# --------------------------------------------------------------------------- the warning


def test_the_command_line_says_the_warning_in_one_line_before_the_study(tmp_path, values,
                                                                        capsys):
    frame = table(values)
    frame.insert(1, "order", 5 + 2 * np.arange(N))  # an index the user did not mark
    frame.to_csv(tmp_path / "o.csv", index=False)
    (tmp_path / "o.toml").write_text(
        '[study]\nname = "o"\ntrials = 1\n[data]\nsource = "o.csv"\n[protocol]\nruns = 3\n'
        '[selector]\nname = "t_test"\n[selector.fixed]\nn_features = 3\n', encoding="utf-8")
    assert main(["tune", str(tmp_path / "o.toml"), "--quiet",
                 "--storage", f"sqlite:///{tmp_path / 'o.db'}"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == (
        "warning: o.csv: 1 feature(s) follow the row order and each alone separates the "
        "classes (the rows are sorted by class): order; a row number or an index is no "
        "measurement: drop it, or name it as the sample IDs ([data] id = 'order' in the "
        "spec, id= in Python).")


def test_no_warning_unless_the_rows_are_sorted_by_class_and_a_feature_follows_them(values):
    order = 5 + 2 * np.arange(N)
    frame = table(values, order=order)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        as_dataset(frame.sample(frac=1, random_state=0))  # shuffled: no row order to follow
        as_dataset(frame.assign(order=np.r_[order[1:], order[:1]]))  # not monotone
        as_dataset(frame.assign(order=np.r_[order[:10], order[:10]]))  # values shared
    with pytest.warns(DataWarning, match=r": order; a row number"):
        as_dataset(frame.assign(order=-order))  # decreasing
    with pytest.warns(DataWarning, match=r": order; a row number"):
        as_dataset(frame.assign(order=np.repeat([3, 8], N // 2)))  # steps at the class change


def _brute_force(x: np.ndarray, y: np.ndarray) -> bool:
    """Issue 33's definition, pair by pair: monotone in the row number, and a perfect
    predictor alone: distinct classes never share a value, and the values of each class
    form an interval that holds no other class's value."""
    n = len(x)
    monotone = all(x[i] <= x[i + 1] for i in range(n - 1)) or all(
        x[i] >= x[i + 1] for i in range(n - 1))
    shared = any(y[i] != y[k] and x[i] == x[k] for i, k in combinations(range(n), 2))
    between = any(y[a] == y[c] != y[b] and min(x[a], x[c]) < x[b] < max(x[a], x[c])
                  for a in range(n) for b in range(n) for c in range(n))
    return len(set(y.tolist())) >= 2 and monotone and not shared and not between


@settings(max_examples=300)
@given(st.integers(2, 8).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 2), min_size=n, max_size=n),
    st.lists(st.lists(st.integers(-2, 3), min_size=n, max_size=n), min_size=1, max_size=4),
    st.booleans())))
def test_row_order_features_are_the_brute_force_definition(case):
    labels, columns, cumulative = case
    y = np.array(labels)
    X = np.array(columns, dtype=float).T
    if cumulative:  # steps: monotone columns, the interesting case
        X = np.cumsum(np.abs(X), axis=0)
    expected = [j for j in range(X.shape[1]) if _brute_force(X[:, j], y)]
    assert row_order_features(X, y).tolist() == expected


def test_a_dataframe_given_as_a_source_is_described_not_printed(values):
    message = one_line(load_dataset, table(values))
    assert message == ("source must be a data file's path or a built-in data set's name; got "
                       f"a DataFrame of {N} rows × {D + 1} columns (data in memory: "
                       "as_dataset).")


def test_the_sample_names_of_a_geo_header_and_an_anndata_are_kept(tmp_path, values):
    geo = pd.DataFrame(values.T, columns=NAMES)
    geo.insert(0, "ID_REF", GENES)
    geo.loc[len(geo)] = ["label", *SORTED]
    geo.to_csv(tmp_path / "geo.csv", index=False)
    check_genes(quiet_load(tmp_path / "geo.csv", orientation="features_in_rows"), values, NAMES)
    anndata = need("anndata")
    adata = anndata.AnnData(values, obs=pd.DataFrame({"label": SORTED}, index=NAMES),
                            var=pd.DataFrame(index=GENES))
    check_genes(as_dataset(adata), values, NAMES)
    assert "id names a column of a DataFrame; got AnnData" in one_line(
        as_dataset, adata, id="sample")
