"""Data loading, the simulated correlated groups, the variance pre-filter."""

from __future__ import annotations

import gzip
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab.data import (
    UNGROUPED,
    group_indices,
    load_dataset,
    simulate_correlated_groups,
    variance_prefilter,
)

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def write_csv(path, frame):
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(12, 4)), columns=["a", "b", "c", "d"])
    frame.insert(0, "label", ["x", "y"] * 6)
    return frame


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_csv_round_trip(tmp_path, table, suffix):
    data = load_dataset(write_csv(tmp_path / f"t{suffix}", table))
    np.testing.assert_allclose(data.X, table[["a", "b", "c", "d"]].to_numpy())
    assert data.feature_names == ("a", "b", "c", "d")
    assert list(data.y) == list(table["label"]) and data.name == "t"


def test_label_column_is_configurable_and_npz_works(tmp_path, table):
    data = load_dataset(write_csv(tmp_path / "t.csv", table.rename(columns={"label": "cls"})),
                        label="cls")
    assert data.n_features == 4
    np.savez(tmp_path / "t.npz", X=data.X, y=data.y, feature_names=np.array(data.feature_names))
    again = load_dataset(tmp_path / "t.npz")
    np.testing.assert_array_equal(again.X, data.X)
    assert again.feature_names == data.feature_names


def test_parquet_reads_or_says_what_to_install(tmp_path, table):
    path = tmp_path / "t.parquet"
    try:
        table.to_parquet(path)
    except ImportError:
        path.write_bytes(b"PAR1")
        with pytest.raises(InvalidInputError, match="pip install pyarrow"):
            load_dataset(path)
        return
    assert load_dataset(path).n_features == 4


def test_table_errors(tmp_path, table):
    with pytest.raises(InvalidInputError, match="no label column 'label'.*pass label="):
        load_dataset(write_csv(tmp_path / "a.csv", table.drop(columns="label")))
    text = table.assign(b=["u"] * 12, c=["v"] * 12)
    with pytest.raises(InvalidInputError, match="2 are not: b, c"):
        load_dataset(write_csv(tmp_path / "b.csv", text))
    one = table.assign(label="x")
    with pytest.raises(InvalidInputError,
                       match=r"c.csv \(label column 'label'\): .*single class.*at least 2"):
        load_dataset(write_csv(tmp_path / "c.csv", one))
    lonely = table.copy()
    lonely.loc[0, "label"] = "z"
    lonely.loc[1:, "label"] = "x"
    lonely.loc[2, "label"] = "z"
    lonely.loc[3:, "label"] = ["x", "w"] * 4 + ["x"]
    three = load_dataset(write_csv(tmp_path / "d.csv", lonely))  # K > 2 classes load
    assert sorted(set(three.y)) == ["w", "x", "z"]
    single = table.copy()
    single["label"] = ["x"] * 11 + ["y"]
    with pytest.raises(InvalidInputError, match="class 'y' has 1 example"):
        load_dataset(write_csv(tmp_path / "e.csv", single))
    with pytest.raises(InvalidInputError, match="Unsupported file type"):
        load_dataset(write_csv(tmp_path / "f.txt", table))
    with pytest.raises(InvalidInputError, match="No data set 'nowhere.csv': no such file"):
        load_dataset("nowhere.csv")


def bad_file(path, content):
    """``path`` written with ``content`` (bytes), or made a folder for ``None``."""
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    return path


def npz_bytes(**arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def one_line_error(path, **options):
    """The InvalidInputError ``load_dataset(path)`` raises; its message is one line."""
    with pytest.raises(InvalidInputError) as caught:
        load_dataset(path, **options)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(("'", path.name)), message
    return message


HEADER = "expected a header line with the label column 'label' and feature columns"
ARRAYS = r"expected arrays 'X' \(n × d\) and 'y' \(n\)"
BAD_FILES = [
    ("empty.csv", b"", f"empty.csv is empty: {HEADER}, then one row per sample"),
    ("empty.csv.gz", gzip.compress(b""), f"empty.csv.gz is empty: {HEADER}"),
    ("blank.csv", b"\n\n\n", f"blank.csv is empty: {HEADER}"),
    ("empty.npz", b"", f"empty.npz is empty: {ARRAYS}"),
    ("empty.parquet", b"", "empty.parquet is empty: expected a table with the label column"),
    ("header.csv", b"label,a,b\n", r"header.csv has no rows \(samples\): expected one row per"),
    ("header.csv.gz", gzip.compress(b"label,a,b\n"), r"header.csv.gz has no rows \(samples\)"),
    ("rows.npz", npz_bytes(X=np.zeros((0, 3)), y=np.zeros(0)), r"rows.npz has no rows \(samples\)"),
    ("labels.csv", b"label\nx\ny\nx\ny\n", "labels.csv has no feature columns: expected numeric"),
    ("features.npz", npz_bytes(X=np.zeros((4, 0)), y=np.arange(4) % 2), "features.npz has no feature columns"),
    ("folder.csv", None, r"folder.csv' is a folder, not a data file: expected a .csv or .tsv \(also .gz\), .parquet, .npz or .h5ad file"),
    ("noise.csv", bytes(range(256)) * 20, f"noise.csv is not a readable CSV file \\(.+\\): {HEADER}"),
    ("gzipped.csv", gzip.compress(b"label,a\nx,1\n"), r"not a readable CSV file \(.+; it looks gzip-compressed: name it .csv.gz\)"),
    ("plain.csv.gz", b"label,a\nx,1\n", r"plain.csv.gz is not a readable CSV file \(Not a gzipped file"),
    ("cut.csv.gz", gzip.compress(b"label,a\n" + b"x,1\n" * 999)[:40], "cut.csv.gz is not a readable CSV file"),
    ("text.npz", b"X,y\n1,2\n", rf"text.npz is not a readable .npz file \(not a zip archive\): {ARRAYS}"),
    ("cut.npz", npz_bytes(X=np.zeros((4, 2)), y=np.arange(4))[:100], r"cut.npz is not a readable .npz file \(.+\)"),
    ("objects.npz", npz_bytes(X=np.zeros((2, 2)), y=np.array([1, "a"], dtype=object)), r"objects.npz is not a readable .npz file \(Object arrays"),
    ("noise.parquet", b"label,a\nx,1\n", "noise.parquet is not a readable parquet file \\(it does not start with PAR1\\)"),
    ("semicolon.csv", b"label;a\nx;1\ny;2\n", "semicolon.csv has no label column 'label' .*it looks separated by ';'"),
]


@pytest.mark.parametrize("name, content, expected", BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_bad_files_raise_one_line_naming_the_file_and_what_was_expected(tmp_path, name, content,
                                                                        expected):
    path = bad_file(tmp_path / name, content)
    assert re.search(expected, one_line_error(path))


def test_a_corrupt_parquet_file_is_reported_whatever_the_engine_raises(tmp_path, monkeypatch):
    def corrupt(path):
        raise OSError("Couldn't deserialize thrift:\nTProtocolException: Invalid data")

    monkeypatch.setattr(pd, "read_parquet", corrupt)
    path = bad_file(tmp_path / "t.parquet", b"PAR1garbage")
    assert one_line_error(path) == (
        "t.parquet is not a readable parquet file (Couldn't deserialize thrift: TProtocolException: "
        "Invalid data): expected a table with the label column 'label' and feature columns, then "
        "one row per sample.")


def test_file_errors_name_the_label_column_in_use(tmp_path, table):
    path = write_csv(tmp_path / "t.csv", table.rename(columns={"label": "cls"}).assign(cls="x"))
    assert "t.csv (label column 'cls'): the labels have a single class" in (
        one_line_error(path, label="cls"))
    assert "label column 'cls'" in one_line_error(bad_file(tmp_path / "e.csv", b""), label="cls")
    np.savez(tmp_path / "one.npz", X=np.zeros((4, 2)), y=np.zeros(4))
    assert one_line_error(tmp_path / "one.npz").startswith("one.npz (array y): ")
    holes = table.assign(a=np.nan)
    assert "every row has a missing value, so impute='drop' leaves no rows" in (
        one_line_error(write_csv(tmp_path / "h.csv", holes), impute="drop"))
    odd = pd.DataFrame({"a\nb": [1.0, 2.0], "c": [3.0, 4.0]})
    assert r"its columns start: 'a\nb', c" in one_line_error(write_csv(tmp_path / "o.csv", odd))


SPEC = """[study]
name = "bad"
trials = 2
seed = 0
sampler = "random"
[data]
source = "{source}"
[protocol]
runs = 3
[selector]
name = "hybrid_rfe"
[selector.fixed]
n_features = 4
[selector.search]
n_stable = [0, 4]
[objective]
stability = "iw"
"""


@pytest.mark.slow
@pytest.mark.parametrize("content, expected", [
    (b"", "error: bad.csv is empty: expected a header line"),
    (b"label,a,b\n", r"error: bad.csv has no rows \(samples\)"),
], ids=["empty", "header-only"])
def test_tune_on_a_bad_file_prints_one_error_line_and_creates_no_study(tmp_path, content,
                                                                       expected):
    bad_file(tmp_path / "bad.csv", content)
    (tmp_path / "spec.toml").write_text(SPEC.format(source="bad.csv"), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "paretostab", "tune", "spec.toml",
                             "--storage", "sqlite:///s.db"], capture_output=True, text=True,
                            cwd=tmp_path, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and re.match(expected, lines[0]), lines
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "s-artifacts").exists()


def test_missing_values_are_an_error_unless_imputation_is_chosen(tmp_path, table):
    holes = table.copy()
    holes.loc[2, "b"] = np.nan
    holes.loc[5, "d"] = np.nan
    path = write_csv(tmp_path / "h.csv", holes)
    with pytest.raises(InvalidInputError, match=r"2 missing value\(s\) in 2 row\(s\) \(first at row 2 column b"):
        load_dataset(path)
    mean = load_dataset(path, impute="mean")
    assert mean.X[2, 1] == pytest.approx(holes["b"].mean())
    median = load_dataset(path, impute="median")
    assert median.X[5, 3] == pytest.approx(holes["d"].median())
    assert load_dataset(path, impute="drop").n_samples == 10
    with pytest.raises(InvalidInputError, match="impute must be None or one of"):
        load_dataset(path, impute="zero")


def test_scikit_learn_and_simulated_sources():
    cancer = load_dataset("breast_cancer")
    assert cancer.X.shape == (569, 30)
    digits = load_dataset("digits:4-vs-9")
    assert set(digits.y) == {4, 9} and digits.name == "digits:4-vs-9"
    every = load_dataset("digits")  # every class
    assert set(every.y) == set(range(10)) and every.name == "digits"
    assert sorted(set(load_dataset("wine").y)) == [0, 1, 2]
    with pytest.raises(InvalidInputError, match="two of its 3 classes as 'wine:A-vs-B'"):
        load_dataset("wine:0-1")
    sim = load_dataset("simulated:group_size=3,n_other=20", random_state=1)
    assert sim.X.shape == (200, 35) and list(sim.groups[:6]) == [0, 0, 0, 1, 1, 1]
    with pytest.raises(UnknownNameError, match="Did you mean 'group_size'"):
        load_dataset("simulated:group_sise=3")


def test_simulated_groups_have_the_requested_means_and_correlations():
    q, rho = 4, 0.8
    data = simulate_correlated_groups(group_size=q, n_other=200, mu_group=0.5, mu_other=0.05,
                                      rho=rho, n_per_class=3000, random_state=0)
    grouped = data.groups >= 0
    positive, negative = data.X[data.y == 1], data.X[data.y == 0]
    assert positive[:, grouped].mean() == pytest.approx(0.5, abs=0.02)
    assert negative[:, grouped].mean() == pytest.approx(-0.5, abs=0.02)
    assert positive[:, ~grouped].mean() == pytest.approx(0.05, abs=0.01)
    within = []
    for g in range(5):
        members = np.flatnonzero(data.groups == g)
        corr = np.corrcoef(positive[:, members].T)  # within a class: the noise correlation
        within.append(corr[np.triu_indices(q, 1)].mean())
    assert np.mean(within) == pytest.approx(rho, abs=0.02)
    between = np.corrcoef(positive[:, ~grouped][:, :20].T)[np.triu_indices(20, 1)]
    assert np.abs(between).mean() < 0.03
    assert positive[:, grouped].std(axis=0).mean() == pytest.approx(1.0, abs=0.02)


def test_simulated_groups_are_the_groups_plus_singletons():
    """000 §6.1: N = 5 correlated groups of q features, and l others each in no group,
    labelled UNGROUPED: 5 groups + l singletons."""
    for q, others in [(1, 1000), (4, 30)]:
        data = simulate_correlated_groups(group_size=q, n_other=others, random_state=0)
        assert UNGROUPED == -1
        np.testing.assert_array_equal(data.groups[5 * q:], np.full(others, -1))
        index, n_groups = group_indices(data.groups)
        assert n_groups == 5 + others
        sizes = np.bincount(index, minlength=n_groups)
        np.testing.assert_array_equal(sizes, [q] * 5 + [1] * others)
        np.testing.assert_array_equal(index[: 5 * q], np.repeat(np.arange(5), q))
        np.testing.assert_array_equal(index[5 * q:], 5 + np.arange(others))


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ([5, -1, 2, 5, -1], ([1, 2, 0, 1, 3], 4)),
        ([-1.0, 0.5, 0.5, -1.0], ([1, 0, 0, 2], 3)),  # a float −1 is UNGROUPED too
        ([-2, -2, -1], ([0, 0, 1], 2)),  # only −1: −2 is an ordinary label
        (["b", "-1", "b", "a"], ([2, 0, 2, 1], 3)),  # the string "-1" is a label
        ([-1, -1, -1], ([0, 1, 2], 3)),
        ([], ([], 0)),
    ],
)
def test_group_indices_make_each_ungrouped_feature_a_group_of_its_own(labels, expected):
    index, n_groups = group_indices(np.asarray(labels))
    assert index.tolist() == expected[0] and n_groups == expected[1]


def test_group_indices_brute_force():
    """Against a plain definition: ungrouped features get fresh labels of their own."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        labels = rng.integers(-1, 6, size=rng.integers(1, 40))
        index, n_groups = group_indices(labels)
        fresh = [("alone", j) if g == -1 else ("group", int(g)) for j, g in enumerate(labels)]
        for a in range(labels.size):  # same index iff same (fresh) label
            for b in range(labels.size):
                assert (index[a] == index[b]) == (fresh[a] == fresh[b])
        assert n_groups == len(set(fresh)) and sorted(set(index.tolist())) == list(range(n_groups))


def test_group_indices_errors():
    with pytest.raises(InvalidInputError, match="groups must hold comparable labels"):
        group_indices(np.array([1, "a", -1], dtype=object))
    with pytest.raises(InvalidInputError, match=r"groups must be a 1-D array .*got shape \(2, 2\)"):
        group_indices(np.zeros((2, 2)))


def test_variance_prefilter():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 10)) * np.arange(1, 11)
    np.testing.assert_array_equal(variance_prefilter(X, 3), [7, 8, 9])
    with pytest.raises(InvalidInputError, match=r"prefilter must be an integer in \[1, 10\]"):
        variance_prefilter(X, 11)


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED_DATA / "singh.csv.gz").exists(),
                    reason="../shared/data (the shared benchmark data) is absent")
def test_shared_microarray_data_load():
    singh = load_dataset(SHARED_DATA / "singh.csv.gz")
    assert singh.X.shape == (102, 12600) and set(singh.y) == {"Normal", "Tumor"}
