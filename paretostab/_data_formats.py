"""Data files in the field's formats → a table of features and the samples' labels.

:func:`read_data_file` reads CSV and TSV files (also gzip-compressed), parquet, ``.npz``
and AnnData's ``.h5ad``; a table has one row per sample (``samples_in_rows``) or, as
expression matrices are written (a GEO series matrix), one row per feature
(``features_in_rows``: the first column holds the feature names, the header the sample
names). The labels are a column of the table (a row of a table with features in rows, an
``obs`` column of an ``.h5ad``), or a table of their own (``labels``: first column the
sample name, a label column), matched to the data's samples by name. A column of sample
IDs is never a feature (:func:`sample_ids`): the one ``id`` names, or an index-like first
column (an index that ``DataFrame.to_csv`` or R's ``write.csv`` wrote, distinct text, the
row numbers), is the table's index, the data set's sample names. Every problem is one
line that names the file and what was expected; a table that looks transposed says so and
names the option. :mod:`paretostab.data` turns what this module reads into a data set.
"""

from __future__ import annotations

import difflib
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from paretostab._errors import InvalidInputError

if TYPE_CHECKING:
    from anndata import AnnData

__all__ = ["FILE_TYPES", "ORIENTATIONS", "anndata_table", "check_unique", "class_like_column",
           "read_data_file", "reader_message", "sample_ids", "shown_names",
           "some_names"]

#: How a table lies: one row per sample (the default) or one row per feature.
ORIENTATIONS = ("samples_in_rows", "features_in_rows")
#: The data files :func:`read_data_file` reads, for the messages.
FILE_TYPES = ".csv or .tsv (also .gz), .parquet, .npz or .h5ad"
_ENDINGS = {"csv": (".csv", ".csv.gz"), "tsv": (".tsv", ".tsv.gz"),
            "parquet": (".parquet",), "npz": (".npz",), "h5ad": (".h5ad",)}
_KIND_NAMES = {"csv": "CSV file", "tsv": "TSV file", "parquet": "parquet file",
               "npz": ".npz file", "h5ad": ".h5ad file"}
_SEPARATORS = {"csv": ",", "tsv": "\t"}
#: What a file named .csv or .tsv seems to be instead, by its first bytes.
_NOT_TEXT = {b"\x1f\x8b": "gzip-compressed: name it .{kind}.gz", b"PK": "a zip archive",
             b"PAR1": "a parquet file", b"\x89HDF": "an HDF5 file (.h5ad?)"}
#: How many names a message shows.
_SHOWN = 5
#: What pandas names a first column whose header cell is blank: the index that
#: ``DataFrame.to_csv`` writes by default, the row names of R's ``write.csv`` (``""``).
_UNNAMED = ("", "Unnamed: 0")


def reader_message(exc: BaseException) -> str:
    """A file reader's exception as a short message on one line, without its type (a
    parser's message may span lines; an OS error says its reason): what follows
    "cannot be read" in an error line. :func:`~paretostab._faults.one_line` is the
    ``Type: message`` line of a fault of the environment."""
    text = (exc.strerror if isinstance(exc, OSError) and exc.strerror else None) or str(exc)
    text = " ".join(text.split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def shown_names(names: Iterable[object]) -> str:
    """Names for a message: printable ones as they are, others escaped."""
    return ", ".join(n if n.isprintable() else repr(n) for n in map(str, names))


def some_names(names) -> str:
    """The first few of ``names`` for a message, and how many more there are."""
    names = list(names)
    more = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
    return shown_names(names[:_SHOWN]) + more


def check_unique(names: Iterable[object], name: str, what: str = "column") -> None:
    """No ``what`` name given twice (blank names aside: pandas numbers them ``Unnamed: j``)."""
    counts = Counter(str(n) for n in names if str(n) != "")
    repeated = [(n, c) for n, c in counts.items() if c > 1]
    if repeated:
        shown = ", ".join(f"{shown_names([n])} ({c} times)" for n, c in repeated[:10])
        more = f" and {len(repeated) - 10} more" if len(repeated) > 10 else ""
        raise InvalidInputError(
            f"{name}: duplicate {what} names: {shown}{more}; every {what} needs a name of its "
            "own.")


def _names_rows(column: pd.Series) -> bool:
    """Whether a table's first column names its rows rather than measuring them: distinct
    text (sample names), or the row numbers 0..n−1 or 1..n (an index written out)."""
    if column.isna().any() or pd.api.types.is_bool_dtype(column):
        return False
    if not pd.api.types.is_numeric_dtype(column):
        return column.is_unique
    values = column.to_numpy(dtype=float)
    rows = np.arange(values.size)
    return bool(np.array_equal(values, rows) or np.array_equal(values, rows + 1))


def sample_ids(frame: pd.DataFrame, name: str, label: str | None = None,
               id: str | None = None) -> pd.DataFrame:
    """``frame`` (one row per sample) with its column of sample IDs taken out and made
    its index (as text): never a feature (a pandas index written by
    ``to_csv`` loaded as a feature, which, with the samples sorted by class, predicted
    the labels alone and was chosen as the one gene).

    The column is ``id`` when given, else the first column other than ``label`` when it
    looks like one: a blank header (pandas' index written by ``DataFrame.to_csv``, R's
    ``write.csv`` row names: read as ``Unnamed: 0``), distinct text, or the row numbers
    0..n−1 or 1..n. Without one, ``frame`` is returned as it is. IDs given twice are an
    error, as is an ``id`` that names no column (or the label column).
    """
    if id is not None:
        if id not in frame.columns or id == label:
            why = "is the label column" if id == label else "names no column"
            raise InvalidInputError(
                f"{name}: id = {id!r} {why} (the columns start: "
                f"{shown_names(frame.columns[:8])}); [data] id (id= in Python) names the "
                "column of sample names.")
        column = id
    else:
        rest = [c for c in frame.columns if c != label]
        if not rest or not (str(rest[0]) in _UNNAMED or _names_rows(frame[rest[0]])):
            return frame
        column = rest[0]
    ids = frame[column].astype(str)
    check_unique(ids, name, "sample")
    return frame.drop(columns=column).set_axis(pd.Index(ids, name=str(column)), axis=0)


def _file_kind(path: Path) -> str:
    """``"csv"``, ``"tsv"``, ``"parquet"``, ``"npz"`` or ``"h5ad"``, by the file's name."""
    suffixes = "".join(path.suffixes[-2:]).lower()
    for kind, endings in _ENDINGS.items():
        if suffixes.endswith(endings):
            return kind
    raise InvalidInputError(f"Unsupported file type {path.name!r}: expected a {FILE_TYPES} "
                            "file.")


def _expected(kind: str, label: str, orientation: str = "samples_in_rows") -> str:
    """What a data file of ``kind`` must hold, for the error messages."""
    if kind == "npz":
        return "expected arrays 'X' (n × d) and 'y' (n), as numpy.savez writes them"
    if kind == "h5ad":
        return f"expected an AnnData file (AnnData.write_h5ad) with the obs column {label!r}"
    start = "a header line" if kind in _SEPARATORS else "a table"
    if orientation == "features_in_rows":
        return (f"expected {start} of sample names after the feature-name column, then one "
                "row per feature")
    return (f"expected {start} with the label column {label!r} and feature columns, "
            "then one row per sample")


def _unreadable(path: Path, kind: str, reason: str, label: str = "",
                orientation: str = "samples_in_rows") -> InvalidInputError:
    return InvalidInputError(f"{path.name} is not a readable {_KIND_NAMES[kind]} ({reason}): "
                             f"{_expected(kind, label, orientation)}.")


def _first_bytes(path: Path) -> bytes:
    if path.is_dir():
        raise InvalidInputError(
            f"{str(path)!r} is a folder, not a data file: expected a {FILE_TYPES} file.")
    try:
        with path.open("rb") as file:
            return file.read(4)
    except OSError as exc:  # permissions, a special file
        raise InvalidInputError(f"{path.name} cannot be read ({reader_message(exc)}).") from None


def _header(path: Path, sep: str) -> list[str]:
    """The column names of a CSV or TSV file as written: ``read_csv`` renames repeated
    names (``f1``, ``f1`` → ``f1``, ``f1.1``), so the header is read as a row of text."""
    row = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False)
    return row.iloc[0].tolist()


def _read_frame(path: Path, kind: str, head: bytes, label: str, orientation: str
                ) -> pd.DataFrame:
    """A CSV, TSV or parquet file as a DataFrame, its column names checked unique."""
    if kind in _SEPARATORS:
        try:
            frame = pd.read_csv(path, sep=_SEPARATORS[kind])
        except pd.errors.EmptyDataError:  # blank lines only, or nothing once unpacked
            raise InvalidInputError(
                f"{path.name} is empty: {_expected(kind, label, orientation)}.") from None
        except (ValueError, OSError, EOFError, zlib.error) as exc:
            # ParserError and UnicodeDecodeError (not text), BadGzipFile, a cut gzip
            looks = next((f"; it looks {what.format(kind=kind)}"
                          for magic, what in _NOT_TEXT.items()
                          if path.suffix.lower() != ".gz" and head.startswith(magic)), "")
            raise _unreadable(path, kind, reader_message(exc) + looks, label, orientation) from None
        check_unique(_header(path, _SEPARATORS[kind]), path.name)
        return frame
    if not head.startswith(b"PAR1"):
        raise _unreadable(path, kind, "it does not start with PAR1", label, orientation)
    try:
        frame = pd.read_parquet(path)
    except ImportError:
        raise InvalidInputError(
            f"Reading {path.name} needs a parquet engine: pip install pyarrow (or "
            "'paretostab[parquet]').") from None
    except Exception as exc:  # a corrupt file: each engine has its own errors
        raise _unreadable(path, kind, reader_message(exc), label, orientation) from None
    check_unique(frame.columns, path.name)
    return frame


#: Names a class column often has, for the "did you mean" of a missing label column.
_CLASS_NAMES = ("label", "labels", "class", "classes", "target", "y", "group", "condition",
                "diagnosis", "subtype", "cell_type", "outcome", "response", "status")


def class_like_column(frame: pd.DataFrame, label: str) -> str | None:
    """The column of a table without the label column ``label`` that probably holds its
    classes, or ``None``: a name close to ``label`` (its case, a typo), a usual name of a
    class column, or, among numeric columns, the one column of a few whole numbers (0/1)."""
    names = [str(c) for c in frame.columns]
    folded = {n.casefold(): n for n in reversed(names)}
    close = difflib.get_close_matches(label.casefold(), list(folded), n=1, cutoff=0.75)
    if close:
        return folded[close[0]]
    usual = next((folded[n] for n in _CLASS_NAMES if n in folded), None)
    if usual is not None:
        return usual
    numeric = frame.select_dtypes(include=["number", "bool"])
    if numeric.shape[1] <= 2:
        return None
    values = numeric.to_numpy(dtype=float, na_value=np.nan)
    whole = np.flatnonzero(np.isfinite(values).all(axis=0)
                           & (values == np.round(values)).all(axis=0))
    ordered = np.sort(values[:, whole], axis=0)
    distinct = 1 + (np.diff(ordered, axis=0) != 0).sum(axis=0)
    few = whole[(distinct >= 2) & (distinct <= min(10, len(frame) // 2))]
    return str(numeric.columns[few[0]]) if len(few) == 1 else None


def _transposed(frame: pd.DataFrame, label: str) -> tuple[str, bool]:
    """Why a table read with samples in rows (and no label column ``label``) may be
    transposed, or ``""``, and whether it surely is: a row named ``label``; or names down
    its first column (distinct text) and numbers in every other column, none of them like
    a class column -- surely transposed with many more rows than columns (the field's data
    have d >> n), maybe otherwise (features in rows with n > d, as wine's 13 × 178, or
    samples named in rows whose labels are kept apart)."""
    if frame.shape[1] < 2:
        return "", False
    first = frame.iloc[:, 0]
    if (first.astype(str) == label).any():
        return (f"its first column {shown_names([frame.columns[0]])} has a row named "
                f"{label!r}"), True
    numbers = frame.iloc[:, 1:].dtypes.map(pd.api.types.is_numeric_dtype).all()
    if (numbers and not pd.api.types.is_numeric_dtype(first) and first.is_unique
            and class_like_column(frame.iloc[:, 1:], label) is None):
        return (f"{frame.shape[0]} rows named by its first column "
                f"{shown_names([frame.columns[0]])}, {frame.shape[1] - 1} numeric columns"
                ), frame.shape[0] >= 2 * frame.shape[1]
    return "", False


def _no_label_column(name: str, frame: pd.DataFrame, label: str, kind: str
                     ) -> InvalidInputError:
    shown = shown_names(frame.columns[:8])
    start = f"{name} has no label column {label!r} (its columns start: {shown}); "
    sep = next((c for c in ",;\t|" if kind in _SEPARATORS and c != _SEPARATORS[kind]
                and frame.shape[1] == 1 and c in str(frame.columns[0])), "")
    if sep:
        own = "comma" if kind == "csv" else "tab"
        return InvalidInputError(start + f"it looks separated by {sep!r}: expected {own}-"
                                 "separated values.")
    why, surely = _transposed(frame, label)
    option = 'orientation = "features_in_rows" (the spec\'s [data] orientation'
    if why and surely:
        return InvalidInputError(
            start + f"it looks transposed ({why}): set {option}; the labels then in a row "
            f"named {label!r} or in labels = \"file.csv\").")
    if why:
        return InvalidInputError(
            start + f"no column looks like classes, so it may be transposed ({why}): with "
            f"features in rows set {option}), the labels in a row named {label!r} or in "
            "labels = \"file.csv\"; with samples in rows give labels = \"file.csv\" or "
            "label= (the class column).")
    guess = class_like_column(frame, label)
    mean = f"did you mean label = {guess!r}? " if guess is not None else ""
    return InvalidInputError(start + mean + "pass label= (the spec's [data] label) with the "
                             "name of the class column.")


def _numeric(values: pd.DataFrame, name: str, what: str) -> np.ndarray:
    """``values`` as floats, or an error naming the ``what`` (rows) that are not numbers."""
    try:
        return values.to_numpy(dtype=float)
    except (ValueError, TypeError):
        bad = [index for index, row in values.iterrows()
               if pd.to_numeric(row, errors="coerce").isna().sum() > row.isna().sum()]
        raise InvalidInputError(
            f"{name}: {what} must be numeric; {len(bad)} are not: {some_names(bad)}.") from None


def _whole_numbers(labels: pd.Series) -> pd.Series:
    """Labels read in a column of numbers (``1.0``, ``2.0``) as the integers they are."""
    numbers = pd.to_numeric(labels, errors="coerce")
    if numbers.notna().all() and (numbers == numbers.round()).all():
        return numbers.astype(np.int64)
    return labels


def _features_in_rows(frame: pd.DataFrame, name: str, label: str, kind: str,
                      separate: bool, optional: bool
                      ) -> tuple[pd.DataFrame, pd.Series | None]:
    """A table with one row per feature turned to one row per sample: the first column
    holds the feature names (a row named ``label`` holds the labels, unless they are kept
    apart; ``optional``: if there is one), the header the sample names."""
    if frame.shape[1] < 2:
        raise InvalidInputError(
            f"{name} has {frame.shape[1]} column(s): {_expected(kind, label, 'features_in_rows')}.")
    if label in frame.columns:
        raise InvalidInputError(
            f"{name} has a label column {label!r}: its samples look in rows; remove "
            "orientation = \"features_in_rows\" (the spec's [data] orientation).")
    names = frame.iloc[:, 0].astype(str)
    check_unique(names, name, "feature")
    body = frame.iloc[:, 1:]
    is_label = (names == label).to_numpy()
    if is_label.any() and separate:
        raise _labels_twice(name, f"row {label!r}")
    if not is_label.any() and not separate and not optional:
        raise InvalidInputError(
            f"{name} (features in rows) has no row named {label!r} in its first column "
            f"{shown_names([frame.columns[0]])}: add one, or give labels = \"file.csv\" (first "
            f"column the sample name, a column {label!r}).")
    labels = None if separate or not is_label.any() else _whole_numbers(pd.Series(
        body[is_label].iloc[0].to_numpy(), index=body.columns.astype(str)))
    body, names = body[~is_label], names[~is_label]
    values = _numeric(body.set_axis(names, axis=0), name, "feature rows")
    return pd.DataFrame(values.T, index=body.columns.astype(str), columns=names), labels


def _labels_twice(name: str, where: str) -> InvalidInputError:
    return InvalidInputError(f"{name} has a label {where} and a labels file is given: keep the "
                             "labels in one place (remove one of them).")


def _read_table(path: Path, kind: str, head: bytes, label: str, orientation: str,
                separate: bool, id: str | None, optional: bool
                ) -> tuple[pd.DataFrame, pd.Series | None]:
    frame = _read_frame(path, kind, head, label, orientation)
    if orientation == "features_in_rows":
        return _features_in_rows(frame, path.name, label, kind, separate, optional)
    if separate:  # a column names the samples (the first by default); the labels file labels them
        if label in frame.columns:
            raise _labels_twice(path.name, f"column {label!r}")
        return sample_ids(frame, path.name, id=id or frame.columns[0]), None
    if label not in frame.columns and optional:
        return sample_ids(frame, path.name, id=id), None
    if label not in frame.columns:
        raise _no_label_column(path.name, frame, label, kind)
    frame = sample_ids(frame, path.name, label, id)
    return frame.drop(columns=label), frame[label]


#: How to save an array of Python objects of an .npz so that it loads without a pickle.
_SAVED_AS = {"X": "as numbers: X.astype(float)", "y": "as strings or integers: y.astype(str)",
             "feature_names": "as strings: feature_names.astype(str)"}


def _npz_array(archive, path: Path, key: str) -> np.ndarray:
    """The array ``key`` of an open .npz; an array of Python objects (dtype object, as
    ``df.label.values`` is) would need a pickle, which is not loaded: an error that says
    how to save it instead."""
    try:
        return archive[key]
    except ValueError as exc:
        if "allow_pickle" in str(exc):
            raise InvalidInputError(
                f"{path.name} is not a readable .npz file (Object arrays load only through a "
                f"pickle, which is unsafe and not done): its array {key} holds Python objects "
                f"(dtype object); save it {_SAVED_AS[key]}.") from None
        raise _unreadable(path, "npz", reader_message(exc)) from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:  # a corrupt member
        raise _unreadable(path, "npz", reader_message(exc)) from None


def _read_npz(path: Path, head: bytes, orientation: str, optional: bool
              ) -> tuple[pd.DataFrame, pd.Series | None]:
    if not head.startswith(b"PK"):  # np.load would try a pickle and complain about that
        raise _unreadable(path, "npz", "not a zip archive")
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise _unreadable(path, "npz", reader_message(exc)) from None
    with archive:
        missing = {"X", "y"} - set(archive.files) - ({"y"} if optional else set())
        if missing:
            raise InvalidInputError(
                f"{path.name} must hold arrays 'X' (n × d) and 'y' (n); missing "
                f"{', '.join(sorted(missing))} (it holds {', '.join(archive.files) or 'none'})."
            )
        X = _npz_array(archive, path, "X")
        y = _npz_array(archive, path, "y") if "y" in archive.files else None
        names = (_npz_array(archive, path, "feature_names")
                 if "feature_names" in archive.files else None)
    if orientation == "features_in_rows" and X.ndim == 2:
        X = X.T
    if X.ndim != 2 or (y is not None and y.shape != (X.shape[0],)):
        rows = "column" if orientation == "features_in_rows" else "row"
        raise InvalidInputError(
            f"{path.name}: X must be 2-D and y have one label per {rows}; got X {X.shape}, "
            f"y {None if y is None else y.shape}.")
    columns = [str(c) for c in names] if names is not None else [f"f{j}" for j in range(X.shape[1])]
    check_unique(columns, path.name)
    return pd.DataFrame(X, columns=columns), None if y is None else pd.Series(y)


def anndata_table(adata: AnnData, label: str, name: str, separate: bool = False
                  ) -> tuple[pd.DataFrame, pd.Series | None]:
    """An ``anndata.AnnData`` (samples as ``obs``, features as ``var``) as a table of
    features indexed by sample name and, unless the labels are kept apart, its ``obs``
    column ``label``. A sparse matrix is made dense."""
    X = adata.X
    if X is None:
        raise InvalidInputError(f"{name}: the AnnData has no matrix X.")
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    features = pd.DataFrame(X, index=adata.obs_names.astype(str),
                            columns=adata.var_names.astype(str))
    check_unique(features.columns, name, "feature")
    if separate:
        return features, None
    if label not in adata.obs.columns:
        raise InvalidInputError(
            f"{name} has no obs column {label!r} (its obs columns: "
            f"{some_names(adata.obs.columns) or 'none'}): pass label= (the spec's [data] label) "
            "with the name of the class column.")
    labels = adata.obs[label]
    if isinstance(labels.dtype, pd.CategoricalDtype):
        labels = labels.astype(labels.cat.categories.dtype)
    return features, labels.set_axis(features.index)


def _read_h5ad(path: Path, label: str, orientation: str, separate: bool, optional: bool
               ) -> tuple[pd.DataFrame, pd.Series | None]:
    if orientation == "features_in_rows":
        raise InvalidInputError(
            f"{path.name}: an AnnData holds its samples as obs (rows) by definition; remove "
            "orientation = \"features_in_rows\".")
    try:
        import anndata
    except ImportError:
        raise InvalidInputError(
            f"Reading {path.name} needs anndata: pip install 'paretostab[h5ad]'.") from None
    try:
        adata = anndata.read_h5ad(path)
    except Exception as exc:  # h5py's and anndata's own errors
        raise _unreadable(path, "h5ad", reader_message(exc), label) from None
    return anndata_table(adata, label, path.name,
                         separate or (optional and label not in adata.obs.columns))


def _labels_table(path: Path, label: str) -> pd.Series:
    """The labels kept apart: a table whose first column is the sample name and which has
    a column ``label``; the labels indexed by sample name."""
    if not path.is_file():
        raise InvalidInputError(
            f"No labels file {str(path)!r}: expected a table of sample name and {label!r}.")
    kind = _file_kind(path)
    if kind not in ("csv", "tsv", "parquet"):
        raise InvalidInputError(
            f"labels file {path.name}: expected a .csv or .tsv (also .gz) or .parquet table.")
    expected = f"first column the sample name, a column {label!r}"
    head = _first_bytes(path)
    if not head:
        raise InvalidInputError(f"labels file {path.name} is empty: expected a table, {expected}.")
    frame = _read_frame(path, kind, head, label, "samples_in_rows")
    if label not in frame.columns[1:]:
        raise InvalidInputError(
            f"labels file {path.name} has no label column {label!r} (its columns: "
            f"{some_names(frame.columns)}): expected a table, {expected}.")
    samples = frame.iloc[:, 0].astype(str)
    check_unique(samples, f"labels file {path.name}", "sample")
    return pd.Series(frame[label].to_numpy(), index=samples)


def _match_labels(features: pd.DataFrame, labels: pd.Series, name: str, labels_name: str,
                  orientation: str | None = None) -> pd.Series:
    """``labels`` in the order of the samples of ``features`` (matched by name); samples
    of either without a match are an error naming them. For a table (``orientation``
    given), labels that name its features rather than its samples say that the table
    lies the other way round."""
    samples = features.index.astype(str)
    check_unique(samples, name, "sample")
    unlabelled = samples[~samples.isin(labels.index)]
    extra = labels.index[~labels.index.isin(samples)]
    if len(unlabelled) or len(extra):
        other = features.columns.astype(str)
        named = labels.index[labels.index.isin(other)]
        if orientation is not None and len(named) > len(labels) - len(extra) and (
                2 * len(named) >= len(labels)):
            where, there, do = (
                ("columns", "rows", "set") if orientation == "samples_in_rows"
                else ("rows", "columns", "remove"))
            raise InvalidInputError(
                f"{name} and labels file {labels_name} do not name the same samples: the "
                f"labels name {len(named)} of its {len(other)} {where} ({some_names(named)}) and "
                f"{len(labels) - len(extra)} of its {len(samples)} {there}: its samples look "
                f"in {where}; {do} orientation = \"features_in_rows\" (the spec's [data] "
                "orientation).")
        parts = []
        if len(unlabelled):
            parts.append(f"{len(unlabelled)} sample(s) of {name} have no label in "
                         f"{labels_name} ({some_names(unlabelled)})")
        if len(extra):
            parts.append(f"{len(extra)} sample(s) of {labels_name} are not in {name} "
                         f"({some_names(extra)})")
        raise InvalidInputError(f"{name} and labels file {labels_name} do not name the same "
                                f"samples: {'; '.join(parts)}.")
    return labels.loc[samples]


def read_data_file(path: Path, *, label: str = "label",
                   orientation: str = "samples_in_rows", labels: Path | None = None,
                   id: str | None = None, optional_label: bool = False
                   ) -> tuple[pd.DataFrame, pd.Series | None, str]:
    """Read a data file as a table of features (one row per sample) and its labels.

    Parameters
    ----------
    path : Path
        An existing ``.csv``, ``.tsv`` (also ``.gz``), ``.parquet``, ``.npz`` (arrays
        ``X``, ``y``, optionally ``feature_names``) or ``.h5ad`` file.
    label : str
        The class column (of a table, of the labels file), the ``obs`` column of an
        ``.h5ad``, the label row of a table with features in rows.
    orientation : {"samples_in_rows", "features_in_rows"}
        ``features_in_rows``: the first column holds the feature names, the header the
        sample names (an ``.npz``'s X is then d × n).
    labels : Path, optional
        A table of labels kept apart (first column the sample name, a column ``label``),
        matched to the data's samples by name: the first column of a table with samples
        in rows, its header with features in rows, an ``.h5ad``'s ``obs_names``.
    id : str, optional
        The column of sample IDs of a table with samples in rows (:func:`sample_ids`;
        by default an index-like first column, if there is one).
    optional_label : bool
        A file of new samples to predict: the labels are read where the file has them
        (the column, row or ``obs`` column ``label``; an ``.npz``'s array ``y``), and are
        None otherwise.

    Returns
    -------
    features : DataFrame
        One row per sample, indexed by the sample names where the file has them (an ID
        column, the header of a table with features in rows, an ``.h5ad``'s
        ``obs_names``).
    labels : Series or None
        One label per sample, in the same order (None: ``optional_label`` and none in
        the file).
    where : str
        Where the labels were read, for the messages (``"t.csv (label column 'cls')"``).
    """
    if orientation not in ORIENTATIONS:
        raise InvalidInputError(f"orientation must be one of {ORIENTATIONS}; got "
                                f"{orientation!r}.")
    kind = _file_kind(path)
    head = _first_bytes(path)
    if not head:
        raise InvalidInputError(f"{path.name} is empty: {_expected(kind, label, orientation)}.")
    separate = labels is not None
    if id is not None and (kind in ("npz", "h5ad") or orientation == "features_in_rows"):
        where = ("an .npz" if kind == "npz" else "an .h5ad (its obs_names)" if kind == "h5ad"
                 else "a table with features in rows (its header)")
        raise InvalidInputError(f"{path.name}: id names a column of a table with samples in "
                                f"rows; {where} has no such column: remove id.")
    if kind == "npz":
        if separate:
            raise InvalidInputError(f"{path.name}: an .npz holds its labels as array y; a "
                                    "labels file is for tables and .h5ad files.")
        features, found = _read_npz(path, head, orientation, optional_label)
        return features, found, f"{path.name} (array y)"
    if kind == "h5ad":
        features, found = _read_h5ad(path, label, orientation, separate, optional_label)
        where = f"{path.name} (obs column {label!r})"
    else:
        features, found = _read_table(path, kind, head, label, orientation, separate, id,
                                      optional_label)
        where = f"{path.name} ({'row' if orientation == 'features_in_rows' else 'label column'}"\
                f" {label!r})"
    if labels is not None:  # separate
        labels = Path(labels)
        found = _match_labels(features, _labels_table(labels, label), path.name, labels.name,
                              None if kind == "h5ad" else orientation)
        where = f"labels file {labels.name} (column {label!r})"
    return features, found, where
