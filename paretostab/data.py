"""Data sets: loaders, the simulated correlated groups of 000 §6.1, the variance pre-filter.

Users bring their own data (a CSV, CSV.gz, parquet or npz file with a label column);
scikit-learn's bundled data sets and the simulation need no file at all.
"""

from __future__ import annotations

import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from paretostab.errors import InvalidInputError, UnknownNameError

IMPUTE = ("mean", "median", "drop")

#: The group label of a feature that belongs to no group — 000 §6.1's l features outside
#: the correlated groups. Exactly the number −1 (an int or float equal to −1; other
#: negative numbers, and the string "-1", are ordinary labels). Each such feature is a
#: group of its own, of size 1 (the group lasso's penalty weight √1): ``[0, 0, −1, −1]``
#: is three groups, ``{0, 1}``, ``{2}`` and ``{3}``. See :func:`group_indices`.
UNGROUPED = -1


@dataclass(frozen=True)
class Dataset:
    """A classification data set: ``X`` (n × d floats), ``y`` (n labels).

    ``groups`` labels the features' groups where the data set has them (the simulated
    correlated groups; :data:`UNGROUPED` (−1) for a feature outside any group, a group of
    its own).
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    name: str
    groups: np.ndarray | None = field(default=None)

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]


def _sklearn_dataset(name: str, spec: str | None) -> Dataset:
    from sklearn import datasets

    if name == "breast_cancer":
        if spec:
            raise InvalidInputError(f"'breast_cancer' takes no ':' option; got {spec!r}.")
        bunch = datasets.load_breast_cancer()
        return Dataset(bunch.data.astype(float), bunch.target_names[bunch.target],
                       tuple(bunch.feature_names), "breast_cancer")
    loader = {"digits": datasets.load_digits, "wine": datasets.load_wine,
              "iris": datasets.load_iris}[name]
    bunch = loader()
    try:
        first, second = (int(c) for c in (spec or "").split("-vs-"))
    except ValueError:
        raise InvalidInputError(
            f"{name!r} has {len(bunch.target_names)} classes; choose two as "
            f"'{name}:A-vs-B' (e.g. '{name}:0-vs-1'); got {spec!r}."
        ) from None
    keep = np.isin(bunch.target, [first, second])
    if not {first, second} <= set(np.unique(bunch.target)) or first == second:
        raise InvalidInputError(
            f"{name!r} classes are {sorted(set(bunch.target.tolist()))}; got {spec!r}."
        )
    names = getattr(bunch, "feature_names", None) or [f"f{j}" for j in range(bunch.data.shape[1])]
    return Dataset(bunch.data[keep].astype(float), bunch.target[keep], tuple(map(str, names)),
                   f"{name}:{first}-vs-{second}")


def _simulated(spec: str | None, random_state) -> Dataset:
    params: dict[str, float | int] = {}
    for item in filter(None, (spec or "").split(",")):
        key, _, value = item.partition("=")
        key = key.strip()
        if key not in _SIMULATION_PARAMETERS:
            raise UnknownNameError.for_name("simulation parameter", key, _SIMULATION_PARAMETERS)
        try:
            params[key] = _SIMULATION_PARAMETERS[key](value)
        except ValueError:
            raise InvalidInputError(f"simulation parameter {key} needs a number; got {value!r}.")\
                from None
    return simulate_correlated_groups(**params, random_state=random_state)


_TYPES = ".csv, .csv.gz, .parquet or .npz"
_KIND_NAMES = {"csv": "CSV file", "parquet": "parquet file", "npz": ".npz file"}
#: What a file named .csv seems to be instead, by its first bytes.
_NOT_CSV = {b"\x1f\x8b": "gzip-compressed: name it .csv.gz", b"PK": "a zip archive",
            b"PAR1": "a parquet file"}


def _file_kind(path: Path) -> str:
    """``"csv"`` (also gzip-compressed), ``"parquet"`` or ``"npz"``, by the file's name."""
    suffixes = "".join(path.suffixes[-2:]).lower()
    for kind, endings in [("csv", (".csv", ".csv.gz")), ("parquet", (".parquet",)),
                          ("npz", (".npz",))]:
        if suffixes.endswith(endings):
            return kind
    raise InvalidInputError(f"Unsupported file type {path.name!r}: expected {_TYPES}.")


def _expected(kind: str, label: str) -> str:
    """What a data file of ``kind`` must hold, for the error messages."""
    if kind == "npz":
        return "expected arrays 'X' (n × d) and 'y' (n), as numpy.savez writes them"
    start = "a header line" if kind == "csv" else "a table"
    return (f"expected {start} with the label column {label!r} and feature columns, "
            "then one row per sample")


def _one_line(exc: BaseException) -> str:
    """An exception's message on one short line (parsers' messages span lines)."""
    text = (exc.strerror if isinstance(exc, OSError) and exc.strerror else None) or str(exc)
    text = " ".join(text.split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _shown(names) -> str:
    """Column names for a message: printable ones as they are, others escaped."""
    return ", ".join(n if n.isprintable() else repr(n) for n in map(str, names))


def _unreadable(path: Path, kind: str, reason: str, label: str = "") -> InvalidInputError:
    return InvalidInputError(f"{path.name} is not a readable {_KIND_NAMES[kind]} ({reason}): "
                             f"{_expected(kind, label)}.")


def _csv_header(path: Path) -> list[str]:
    """The column names of a CSV file as written: ``read_csv`` renames repeated names
    (``f1``, ``f1`` → ``f1``, ``f1.1``, or ``f1.2`` when an ``f1.1`` exists), so the
    header is read as a row of text."""
    row = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False)
    return row.iloc[0].tolist()


def _check_unique(names, name: str) -> None:
    """No column name given twice (blank names aside: pandas numbers them ``Unnamed: j``)."""
    counts = Counter(str(n) for n in names if str(n) != "")
    repeated = [(n, c) for n, c in counts.items() if c > 1]
    if repeated:
        shown = ", ".join(f"{_shown([n])} ({c} times)" for n, c in repeated[:10])
        more = f" and {len(repeated) - 10} more" if len(repeated) > 10 else ""
        raise InvalidInputError(
            f"{name}: duplicate column names: {shown}{more}; every column needs a name of its "
            "own.")


def _read_table(path: Path, kind: str, label: str, head: bytes) -> tuple[pd.DataFrame, pd.Series]:
    if kind == "csv":
        try:
            frame = pd.read_csv(path)
        except pd.errors.EmptyDataError:  # blank lines only, or nothing once unpacked
            raise InvalidInputError(f"{path.name} is empty: {_expected(kind, label)}.") from None
        except (ValueError, OSError, EOFError, zlib.error) as exc:
            # ParserError and UnicodeDecodeError (not CSV text), BadGzipFile, a cut gzip
            looks = next((f"; it looks {what}" for magic, what in _NOT_CSV.items()
                          if path.suffix.lower() == ".csv" and head.startswith(magic)), "")
            raise _unreadable(path, kind, _one_line(exc) + looks, label) from None
    else:
        if not head.startswith(b"PAR1"):
            raise _unreadable(path, kind, "it does not start with PAR1", label)
        try:
            frame = pd.read_parquet(path)
        except ImportError:
            raise InvalidInputError(
                f"Reading {path.name} needs a parquet engine: pip install pyarrow."
            ) from None
        except Exception as exc:  # a corrupt file: each engine has its own errors
            raise _unreadable(path, kind, _one_line(exc), label) from None
    _check_unique(_csv_header(path) if kind == "csv" else frame.columns, path.name)
    if label not in frame.columns:
        shown = _shown(frame.columns[:8])
        sep = next((c for c in ";\t|" if frame.shape[1] == 1 and c in str(frame.columns[0])), "")
        raise InvalidInputError(
            f"{path.name} has no label column {label!r} (its columns start: {shown}); "
            + (f"it looks separated by {sep!r}: expected comma-separated values." if sep else
               "pass label= (the spec's [data] label) with the name of the class column.")
        )
    return frame.drop(columns=label), frame[label]


def _read_npz(path: Path, head: bytes) -> tuple[pd.DataFrame, pd.Series]:
    if not head.startswith(b"PK"):  # np.load would try a pickle and complain about that
        raise _unreadable(path, "npz", "not a zip archive")
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise _unreadable(path, "npz", _one_line(exc)) from None
    with archive:
        missing = {"X", "y"} - set(archive.files)
        if missing:
            raise InvalidInputError(
                f"{path.name} must hold arrays 'X' (n × d) and 'y' (n); missing "
                f"{', '.join(sorted(missing))} (it holds {', '.join(archive.files) or 'none'})."
            )
        try:
            X, y = archive["X"], archive["y"]
            names = archive["feature_names"] if "feature_names" in archive.files else None
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
            # object arrays (they need a pickle), a corrupt member
            raise _unreadable(path, "npz", _one_line(exc)) from None
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise InvalidInputError(
            f"{path.name}: X must be 2-D and y have one label per row; got X {X.shape}, "
            f"y {y.shape}."
        )
    columns = [str(c) for c in names] if names is not None else [f"f{j}" for j in range(X.shape[1])]
    _check_unique(columns, path.name)
    return pd.DataFrame(X, columns=columns), pd.Series(y)


def _clean(features: pd.DataFrame, labels: pd.Series, name: str, impute: str | None):
    if features.shape[0] == 0:  # a header line only (its columns read as text)
        raise InvalidInputError(
            f"{name} has no rows (samples): expected one row per sample, with its label and "
            "feature values."
        )
    if features.shape[1] == 0:
        raise InvalidInputError(
            f"{name} has no feature columns: expected numeric feature columns beside the labels."
        )
    non_numeric = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if non_numeric:
        raise InvalidInputError(
            f"{name}: feature columns must be numeric; {len(non_numeric)} are not: "
            f"{_shown(non_numeric[:10])}{' …' if len(non_numeric) > 10 else ''}."
        )
    X = features.to_numpy(dtype=float)
    y = labels.to_numpy()
    if y.dtype == object:  # text labels: a plain string array (storable without pickle)
        y = y.astype(str)
    if pd.isna(labels).any():
        raise InvalidInputError(
            f"{name}: {int(pd.isna(labels).sum())} example(s) have no label; remove them."
        )
    missing = np.isnan(X)
    if missing.any():
        if impute not in IMPUTE:
            rows, cols = np.nonzero(missing)
            where = ", ".join(f"row {r} column {features.columns[c]!s}"
                              for r, c in zip(rows[:3], cols[:3], strict=True))
            raise InvalidInputError(
                f"{name}: {int(missing.sum())} missing value(s) in {np.unique(rows).size} "
                f"row(s) (first at {where}); choose impute='mean', 'median' (per feature) "
                "or 'drop' (the rows)."
            )
        if impute == "drop":
            keep = ~missing.any(axis=1)
            if not keep.any():
                raise InvalidInputError(
                    f"{name}: every row has a missing value, so impute='drop' leaves no rows; "
                    "choose impute='mean' or 'median'."
                )
            X, y = X[keep], y[keep]
        else:
            fill = np.nanmean(X, axis=0) if impute == "mean" else np.nanmedian(X, axis=0)
            X = np.where(missing, np.nan_to_num(fill)[None, :], X)
    if not np.all(np.isfinite(X)):
        raise InvalidInputError(f"{name}: {int((~np.isfinite(X)).sum())} infinite value(s).")
    return X, y, tuple(map(str, features.columns))


def check_classes(y: np.ndarray, name: str) -> None:
    """Labels of at least 2 classes with at least 2 examples each, or a clear error."""
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise InvalidInputError(
            f"{name}: the labels have a single class ({classes.tolist()[:1]}); "
            "classification needs at least 2."
        )
    if counts.min() < 2:
        small = classes[np.argmin(counts)]
        raise InvalidInputError(
            f"{name}: class '{small}' has {counts.min()} example(s); every class needs at "
            "least 2 (for resampling)."
        )


def load_dataset(source: str | Path, *, label: str = "label", impute: str | None = None,
                 random_state=None) -> Dataset:
    """Load a classification data set (two or more classes).

    Parameters
    ----------
    source : str or Path
        A ``.csv``, ``.csv.gz`` or ``.parquet`` file with one column of class labels
        (``label``) and numeric feature columns; an ``.npz`` file with arrays ``X``, ``y``
        (and optionally ``feature_names``); a scikit-learn data set by name:
        ``"breast_cancer"``, ``"digits:A-vs-B"``, ``"wine:A-vs-B"``, ``"iris:A-vs-B"``;
        or ``"simulated"`` with optional parameters of
        :func:`simulate_correlated_groups`, e.g. ``"simulated:group_size=5,rho=0.95"``.
    label : str
        The class column of a table.
    impute : {"mean", "median", "drop"}, optional
        What to do with missing feature values; by default they are an error.
    random_state : int, optional
        Seed of the simulation.
    """
    if impute is not None and impute not in IMPUTE:
        raise InvalidInputError(f"impute must be None or one of {IMPUTE}; got {impute!r}.")
    text = str(source)
    head, _, spec = text.partition(":")
    where = None  # a file's name and where its labels are, for check_classes
    if head in ("breast_cancer", "digits", "wine", "iris"):
        data = _sklearn_dataset(head, spec or None)
    elif head == "simulated":
        data = _simulated(spec or None, random_state)
    else:
        path = Path(source)
        if not path.exists():
            raise InvalidInputError(
                f"No data set {text!r}: no such file, nor one of 'breast_cancer', "
                "'digits:A-vs-B', 'wine:A-vs-B', 'iris:A-vs-B', 'simulated'."
            )
        if path.is_dir():
            raise InvalidInputError(
                f"{text!r} is a folder, not a data file: expected a {_TYPES} file."
            )
        kind = _file_kind(path)
        try:
            with path.open("rb") as file:
                first = file.read(4)
        except OSError as exc:  # permissions, a special file
            raise InvalidInputError(f"{path.name} cannot be read ({_one_line(exc)}).") from None
        if not first:
            raise InvalidInputError(f"{path.name} is empty: {_expected(kind, label)}.")
        frame, labels = (_read_npz(path, first) if kind == "npz"
                         else _read_table(path, kind, label, first))
        X, y, names = _clean(frame, labels, path.name, impute)
        data = Dataset(X, y, names, path.name.split(".")[0])
        where = f"{path.name} ({'array y' if kind == 'npz' else f'label column {label!r}'})"
    check_classes(data.y, where or data.name)
    return data


_SIMULATION_PARAMETERS = {
    "n_groups": int, "group_size": int, "n_other": int, "mu_group": float,
    "mu_other": float, "rho": float, "n_per_class": int,
}


def simulate_correlated_groups(n_groups: int = 5, group_size: int = 1, n_other: int = 1000,
                               mu_group: float = 0.5, mu_other: float = 0.05,
                               rho: float = 0.8, n_per_class: int = 100,
                               random_state=None) -> Dataset:
    """Correlated feature groups of 000 §6.1 (Table 2) and 003 §5.3 (SPEC §6).

    ``n_groups`` groups of ``group_size`` features with intra-group correlation ``rho``
    (a shared factor: ``x = √ρ z + √(1−ρ) e``), plus ``n_other`` independent features;
    unit variances; class means ``±mu_group`` for the group features and ``±mu_other`` for
    the others (+ for class 1, − for class 0); ``n_per_class`` examples per class. Group
    features come first (names ``g{group}_{index}``, ``groups`` = group index), then the
    others (``x{index}``, group :data:`UNGROUPED` = −1: each its own group, see
    :func:`group_indices`): ``n_groups`` groups + ``n_other`` singletons.
    """
    for name, value in [("n_groups", n_groups), ("group_size", group_size),
                        ("n_per_class", n_per_class)]:
        if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 1:
            raise InvalidInputError(f"{name} must be an integer >= 1; got {value!r}.")
    if not isinstance(n_other, int | np.integer) or n_other < 0:
        raise InvalidInputError(f"n_other must be an integer >= 0; got {n_other!r}.")
    if not 0 <= rho <= 1:
        raise InvalidInputError(f"rho must be in [0, 1]; got {rho!r}.")
    rng = np.random.default_rng(random_state)
    n = 2 * n_per_class
    y = np.repeat([0, 1], n_per_class)
    sign = np.where(y == 1, 1.0, -1.0)[:, None]
    factor = rng.standard_normal((n, n_groups))
    noise = rng.standard_normal((n, n_groups * group_size))
    grouped = np.sqrt(rho) * np.repeat(factor, group_size, axis=1) + np.sqrt(1 - rho) * noise
    X = np.hstack([grouped + sign * mu_group,
                   rng.standard_normal((n, n_other)) + sign * mu_other])
    names = [f"g{g}_{j}" for g in range(n_groups) for j in range(group_size)]
    names += [f"x{j}" for j in range(n_other)]
    groups = np.concatenate([np.repeat(np.arange(n_groups), group_size),
                             np.full(n_other, UNGROUPED)])
    return Dataset(X, y, tuple(names), "simulated", groups)


def _ungrouped(labels: np.ndarray) -> np.ndarray:
    """Which labels are :data:`UNGROUPED`: numbers equal to −1 (not bools, not strings)."""
    if labels.dtype == object:
        return np.array([isinstance(g, int | float | np.integer | np.floating)
                         and not isinstance(g, bool | np.bool_) and g == UNGROUPED
                         for g in labels.tolist()], dtype=bool).reshape(labels.shape)
    if np.issubdtype(labels.dtype, np.number) and not np.issubdtype(labels.dtype, np.bool_):
        return labels == UNGROUPED
    return np.zeros(labels.shape, dtype=bool)


def group_indices(labels) -> tuple[np.ndarray, int]:
    """``(index, n_groups)``: the group index 0..G−1 of each feature, from its label.

    The one place where the package reads group labels (000 §6.1; the group lasso, and
    whatever else takes feature groups). Features of equal labels share a group; the
    labelled groups are numbered first, in increasing label order, then every
    :data:`UNGROUPED` (−1) feature gets a group of its own, in feature order. So
    ``[5, −1, 2, 5, −1]`` gives ``[1, 2, 0, 1, 3]`` and G = 4. Labels must be comparable
    (all numbers, or all strings).

    Raises
    ------
    InvalidInputError
        If ``labels`` is not 1-D or holds labels that cannot be compared.
    """
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise InvalidInputError(
            f"groups must be a 1-D array of group labels; got shape {labels.shape}."
        )
    alone = _ungrouped(labels)
    try:
        names, index = np.unique(labels[~alone], return_inverse=True)
    except TypeError:
        raise InvalidInputError(
            "groups must hold comparable labels (all numbers or all strings); got "
            f"types {sorted({type(g).__name__ for g in labels.tolist()})}."
        ) from None
    result = np.empty(labels.size, dtype=np.int64)
    result[~alone] = index.ravel()
    result[alone] = names.size + np.arange(int(alone.sum()))
    return result, int(names.size + alone.sum())


def variance_order(X: np.ndarray) -> np.ndarray:
    """All features of ``X`` by decreasing sample variance (ties: lower index first)."""
    return np.argsort(-X.var(axis=0, ddof=1), kind="stable")


def variance_prefilter(X: np.ndarray, n_kept: int) -> np.ndarray:
    """Indices (increasing) of the ``n_kept`` features of highest sample variance in ``X``.

    000 §6.2 and 003 §7.1 pre-filter microarray data this way; the protocol computes it
    on each run's training sample only (no leakage). Ties: lower index first
    (``np.sort(variance_order(X)[:n_kept])``).
    """
    check_prefilter(n_kept, X.shape[1])
    return np.sort(variance_order(X)[:n_kept])


def check_prefilter(n_kept: object, d: int) -> int:
    """``n_kept``, validated as a pre-filter size for ``d`` features."""
    if isinstance(n_kept, bool) or not isinstance(n_kept, int | np.integer) or not 1 <= n_kept <= d:
        raise InvalidInputError(
            f"prefilter must be an integer in [1, {d}] (the features kept); got {n_kept!r}."
        )
    return int(n_kept)


__all__ = ["UNGROUPED", "Dataset", "check_classes", "check_prefilter", "group_indices",
           "load_dataset", "simulate_correlated_groups", "variance_order",
           "variance_prefilter"]
