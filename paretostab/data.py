"""Data sets: loaders, data given in memory, the simulated correlated groups of 000 §6.1,
the variance pre-filter.

Users bring their own data: a file in the field's formats (CSV or TSV, also gzip-compressed,
parquet, ``.npz``, AnnData's ``.h5ad``; samples or features in rows; the labels in the file
or in a table of their own: :mod:`paretostab._data_formats` reads them), or data in memory
(``(X, y)``, a pandas DataFrame with a label column, an ``anndata.AnnData``:
:func:`as_dataset`). scikit-learn's bundled data sets and the simulation need no file at all.
A column of sample IDs is never a feature: it names the data set's samples
(:attr:`Dataset.sample_names`; :func:`~paretostab._data_formats.sample_ids`), and a
feature that follows the row order and alone separates the classes is warned of
(:func:`row_order_features`, a :class:`~paretostab.DataWarning`).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from paretostab._data_formats import (
    anndata_table,
    check_unique,
    class_like_column,
    read_data_file,
    sample_ids,
    shown_names,
    some_names,
)
from paretostab._errors import DataWarning, InvalidInputError, UnknownNameError, described
from paretostab._validation import Interval

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

    Attributes
    ----------
    X : float array (n, d)
        The examples' features.
    y : array (n,)
        Their class labels.
    feature_names : tuple of str
        The d features' names.
    name : str
        What the data set is called in messages and reports (its source: a file's name,
        ``"simulated"``).
    groups : array (d,), optional
        The features' group labels where the data set has them (the simulated correlated
        groups; :data:`UNGROUPED` (−1) for a feature outside any group, a group of its
        own). Default None: no groups.
    sample_names : tuple of str, optional
        The n rows' names where the data have them: a table's column of sample IDs, the
        header of a table with features in rows, the first column of a table whose labels
        are kept apart, an AnnData's ``obs_names``, a DataFrame's index. Default None.
    id_column : str, optional
        The table's column the sample names were read from (None: no such column), which
        the study's first lines name when it was taken as the sample IDs without
        ``[data] id``.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    name: str
    groups: np.ndarray | None = field(default=None)
    sample_names: tuple[str, ...] | None = field(default=None)
    id_column: str | None = field(default=None)

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def content_hash(self) -> str:
        """SHA-256 (hex) of the data: X's shape and bytes (as floats), the labels, the
        feature names and groups — what a study tuned on data given in memory is
        identified by. Not the sample names: they name the rows, the trials do not read
        them."""
        X = np.ascontiguousarray(self.X, dtype=np.float64)
        described = {"shape": X.shape, "y": np.asarray(self.y).tolist(),
                     "feature_names": list(self.feature_names),
                     "groups": None if self.groups is None else np.asarray(self.groups).tolist()}
        digest = hashlib.sha256(json.dumps(described, sort_keys=True).encode())
        digest.update(X.tobytes())
        return digest.hexdigest()


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
    names = getattr(bunch, "feature_names", None) or [f"f{j}" for j in range(bunch.data.shape[1])]
    if spec is None:  # every class
        return Dataset(bunch.data.astype(float), bunch.target, tuple(map(str, names)), name)
    try:
        first, second = (int(c) for c in spec.split("-vs-"))
    except ValueError:
        raise InvalidInputError(
            f"{name!r} takes no option or two of its {len(bunch.target_names)} classes as "
            f"'{name}:A-vs-B' (e.g. '{name}:0-vs-1'); got {spec!r}."
        ) from None
    keep = np.isin(bunch.target, [first, second])
    if not {first, second} <= set(np.unique(bunch.target)) or first == second:
        raise InvalidInputError(
            f"{name!r} classes are {sorted(set(bunch.target.tolist()))}; got {spec!r}."
        )
    return Dataset(bunch.data[keep].astype(float), bunch.target[keep], tuple(map(str, names)),
                   f"{name}:{first}-vs-{second}")


def _simulated(spec: str | None, random_state) -> Dataset:
    # each value of its parameter's own type (_SIMULATION_PARAMETERS converts it)
    params: dict[str, Any] = {}
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


def _clean(features: pd.DataFrame, labels: pd.Series, name: str, impute: str | None
           ) -> tuple[np.ndarray, np.ndarray, tuple[str, ...], tuple[str, ...] | None]:
    """X, y, the feature names and the sample names (the table's index, unless it only
    numbers the rows) of a table of features and its labels, checked; missing values
    imputed or their rows dropped as ``impute`` says."""
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
            f"{shown_names(non_numeric[:10])}{' …' if len(non_numeric) > 10 else ''} (a "
            "column of sample IDs: name it as the spec's [data] id, id= in Python)."
        )
    X = features.to_numpy(dtype=float)
    y = labels.to_numpy()
    samples = (None if isinstance(features.index, pd.RangeIndex)
               else np.asarray(features.index.astype(str), dtype=object))
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
                f"row(s) (first at {where}); choose the spec's [data] impute = \"mean\" or "
                "\"median\" (per feature) or \"drop\" (the rows), impute= in Python."
            )
        if impute == "drop":
            keep = ~missing.any(axis=1)
            if not keep.any():
                raise InvalidInputError(
                    f"{name}: every row has a missing value, so impute='drop' leaves no rows; "
                    "choose impute = \"mean\" or \"median\" (the spec's [data] impute)."
                )
            X, y = X[keep], y[keep]
            samples = None if samples is None else samples[keep]
        else:
            with warnings.catch_warnings():  # a column without any value: its fill is NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                fill = np.nanmean(X, axis=0) if impute == "mean" else np.nanmedian(X, axis=0)
            X = np.where(missing, np.nan_to_num(fill)[None, :], X)
    if not np.all(np.isfinite(X)):
        raise InvalidInputError(f"{name}: {int((~np.isfinite(X)).sum())} infinite value(s).")
    return (X, y, tuple(map(str, features.columns)),
            None if samples is None else tuple(samples.tolist()))


#: Features per block of :func:`row_order_features` (its steps held at once: n × 1 024).
_BLOCK = 1024


def row_order_features(X: np.ndarray, y: ArrayLike) -> np.ndarray:
    """Indices (increasing) of the features that follow the row order and alone separate
    the classes: the rows sorted by class (each class one block of rows, two classes or
    more), the feature monotone in the row number (never decreasing, or never increasing)
    and changing wherever the class does.

    A row number or an index column the user did not mark as sample IDs, in a
    table whose samples are sorted by class, predicts the labels perfectly on its own; a
    study then finds it as a front trial of one feature and perfect stability, and no
    chance test flags it (it does predict them). A measured feature is monotone in the
    row number by chance with probability about 2/n!.

    Parameters
    ----------
    X : float array (n, d)
        The data, rows in the order given.
    y : array-like (n,)
        Their labels.

    Examples
    --------
    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    >>> row_order_features(X, [0, 0, 1, 1])
    array([0])
    """
    y = np.asarray(y)
    change = y[1:] != y[:-1]
    classes = np.unique(y).size
    if classes < 2 or classes != change.sum() + 1:  # one class, or not sorted by class
        return np.empty(0, dtype=np.intp)
    found = []
    for start in range(0, X.shape[1], _BLOCK):
        with np.errstate(over="ignore"):  # ±1e308 apart: an infinite step keeps its sign
            step = np.diff(X[:, start:start + _BLOCK], axis=0)
        monotone = (step >= 0).all(axis=0) | (step <= 0).all(axis=0)
        found.append(start + np.flatnonzero(monotone & (step[change] != 0).all(axis=0)))
    return np.concatenate(found).astype(np.intp) if found else np.empty(0, dtype=np.intp)


def _warn_row_order(data: Dataset, where: str) -> None:
    """A :class:`~paretostab.DataWarning` naming the features of
    :func:`row_order_features`, if any: before a study starts on them."""
    leaking = row_order_features(data.X, data.y)
    if leaking.size:
        names = [data.feature_names[j] for j in leaking]
        warnings.warn(
            f"{where}: {len(names)} feature(s) follow the row order and each alone "
            f"separates the classes (the rows are sorted by class): {some_names(names)}; a "
            "row number or an index is no measurement: drop it, or name it as the sample IDs "
            f"([data] id = {names[0]!r} in the spec, id= in Python).", DataWarning,
            stacklevel=3)


def check_classes(y: np.ndarray, name: str) -> None:
    """Labels of at least 2 classes with at least 2 examples each, or a clear error.

    Parameters
    ----------
    y : array (n,)
        The labels.
    name : str
        Where they come from, the start of the error line (a data set's name, ``"y"``).
    """
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


def _checked_impute(impute: str | None) -> None:
    if impute is not None and impute not in IMPUTE:
        raise InvalidInputError(f"impute must be None or one of {IMPUTE}; got {impute!r}.")


def load_dataset(source: str | Path, *, label: str = "label", impute: str | None = None,
                 orientation: str = "samples_in_rows", labels: str | Path | None = None,
                 id: str | None = None, random_state: int | None = None) -> Dataset:
    """Load a classification data set (two or more classes).

    Parameters
    ----------
    source : str or Path
        A data file (:func:`~paretostab._data_formats.read_data_file`): a ``.csv`` or
        ``.tsv`` (also ``.gz``) or ``.parquet`` table with one column of class labels
        (``label``) and numeric feature columns; an ``.npz`` file with arrays ``X``, ``y``
        (and optionally ``feature_names``); an AnnData ``.h5ad`` file (the labels in its
        ``obs`` column ``label``; needs ``pip install 'paretostab[h5ad]'``). Or a
        scikit-learn data set by name: ``"breast_cancer"``, ``"digits"``, ``"wine"``,
        ``"iris"`` (every class, or two of them as ``"digits:4-vs-9"``); or
        ``"simulated"`` with optional parameters of :func:`simulate_correlated_groups`,
        e.g. ``"simulated:group_size=5,rho=0.95"``.
    label : str
        The class column of a table (of the labels file; the ``obs`` column of an
        ``.h5ad``; the label row of a table with features in rows).
    impute : {"mean", "median", "drop"}, optional
        What to do with missing feature values; by default they are an error.
    orientation : {"samples_in_rows", "features_in_rows"}
        ``features_in_rows``: the file's first column holds the feature names, its header
        the sample names (a GEO series matrix).
    labels : str or Path, optional
        A table of the labels kept apart from the data file: first column the sample
        name, a column ``label``; matched to the data's samples by name (a sample of one
        without a match in the other is an error naming it).
    id : str, optional
        The column of sample IDs of a table with samples in rows: its sample names, not a
        feature. By default an index-like first column (beside the labels) is one: a
        blank-named column (the index ``DataFrame.to_csv`` writes, R's ``write.csv`` row
        names), distinct text, the row numbers 0..n−1 or 1..n
        (:func:`~paretostab._data_formats.sample_ids`).
    random_state : int, optional
        Seed of the simulation.

    Warns
    -----
    DataWarning
        When a feature follows the row order and alone separates the classes
        (:func:`row_order_features`).
    """
    _checked_impute(impute)
    if not isinstance(source, str | os.PathLike):
        raise InvalidInputError(
            f"source must be a data file's path or a built-in data set's name; got "
            f"{described(source)} (data in memory: as_dataset).")
    text = str(source)
    head, _, spec = text.partition(":")
    if head in ("breast_cancer", "digits", "wine", "iris", "simulated") and (
            labels is not None or orientation != "samples_in_rows" or id is not None):
        raise InvalidInputError(f"{head!r} is a built-in data set: orientation, labels and "
                                "id are for data files; remove them.")
    if head in ("breast_cancer", "digits", "wine", "iris"):
        data = _sklearn_dataset(head, spec or None)
    elif head == "simulated":
        data = _simulated(spec or None, random_state)
    else:
        path = Path(source)
        if not path.exists():
            raise InvalidInputError(
                f"No data set {text!r}: no such file, nor one of 'breast_cancer', "
                "'digits', 'wine', 'iris' (or two of their classes, 'wine:0-vs-1'), "
                "'simulated'."
            )
        frame, found, where = read_data_file(
            path, label=label, orientation=orientation,
            labels=None if labels is None else Path(labels), id=id)
        X, y, names, samples = _clean(frame, found, path.name, impute)
        check_classes(y, where)
        column = (frame.index.name if orientation == "samples_in_rows" and labels is None
                  else None)
        data = Dataset(X, y, names, path.name.split(".")[0], sample_names=samples,
                       id_column=column if isinstance(column, str) else None)
        _warn_row_order(data, path.name)
        return data
    check_classes(data.y, data.name)
    return data


#: What :func:`as_dataset` calls data given in memory, in its messages.
IN_MEMORY = "data in memory"


def _memory_table(data, label: str, id: str | None) -> tuple[pd.DataFrame, pd.Series, str]:
    """Data given in memory as a table of features (indexed by the sample names, if any),
    their labels and where the labels are."""
    if id is not None and not isinstance(data, pd.DataFrame | tuple | list):
        raise InvalidInputError(f"{IN_MEMORY}: id names a column of a DataFrame; got "
                                f"{type(data).__name__} (its sample names are its own): "
                                "remove id.")
    if isinstance(data, pd.DataFrame):
        if label not in data.columns:
            guess = class_like_column(data, label)
            mean = f"did you mean label = {guess!r}? " if guess is not None else ""
            raise InvalidInputError(
                f"{IN_MEMORY}: the DataFrame has no label column {label!r} (its columns "
                f"start: {shown_names(data.columns[:8])}); {mean}pass label= (the spec's "
                "[data] label) with the name of the class column.")
        check_unique(data.columns, IN_MEMORY)
        data = sample_ids(data, IN_MEMORY, label, id)
        return data.drop(columns=label), data[label], f"{IN_MEMORY} (label column {label!r})"
    if type(data).__module__.partition(".")[0] == "anndata":
        features, labels = anndata_table(data, label, IN_MEMORY)
        return features, labels, f"{IN_MEMORY} (obs column {label!r})"
    if not (isinstance(data, tuple | list) and len(data) == 2):
        raise InvalidInputError(
            f"data must be (X, y), a pandas DataFrame with a label column, an "
            f"anndata.AnnData or a Dataset; got {type(data).__name__}"
            + (f" of {len(data)} items." if isinstance(data, tuple | list) else "."))
    X, y = data
    if isinstance(X, pd.DataFrame):
        check_unique(X.columns, IN_MEMORY)
        features = sample_ids(X, IN_MEMORY, id=id)
    elif id is not None:
        raise InvalidInputError(f"{IN_MEMORY}: id names a column of a DataFrame X; got "
                                f"{type(X).__name__}: remove id.")
    else:
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        if X.ndim != 2:
            raise InvalidInputError(f"{IN_MEMORY}: X must be 2-D (n samples × d features); "
                                    f"got shape {X.shape}.")
        features = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    y = np.asarray(y)
    if y.shape != (features.shape[0],):
        raise InvalidInputError(f"{IN_MEMORY}: y must hold one label per row of X "
                                f"({features.shape[0]}); got shape {y.shape}.")
    return features, pd.Series(y, index=features.index), f"{IN_MEMORY} (y)"


def as_dataset(data: object, *, label: str = "label", impute: str | None = None,
               id: str | None = None) -> Dataset:
    """Data given in memory as a :class:`Dataset`, checked as a data file is.

    Parameters
    ----------
    data : tuple, DataFrame, AnnData or Dataset
        ``(X, y)`` (X an n × d array, sparse matrix or DataFrame whose columns name the
        features; y one label per row), a pandas DataFrame with the label column
        ``label`` and numeric feature columns, an ``anndata.AnnData`` (samples as
        ``obs``, the labels in its ``obs`` column ``label``), or a :class:`Dataset`
        (returned as it is, its groups kept).
    label : str
        The label column of a DataFrame, the ``obs`` column of an AnnData.
    impute : {"mean", "median", "drop"}, optional
        What to do with missing feature values; by default they are an error.
    id : str, optional
        The column of sample IDs of a DataFrame, as :func:`load_dataset`'s (by default an
        index-like first column beside the labels).

    Returns
    -------
    Dataset
        Named ``"memory"``; its sample names are a DataFrame's index (unless it only
        numbers the rows: a ``RangeIndex``) or ID column, an AnnData's ``obs_names``. The
        input is not modified.

    Warns
    -----
    DataWarning
        As :func:`load_dataset`.
    """
    _checked_impute(impute)
    if isinstance(data, Dataset):
        check_classes(data.y, IN_MEMORY)
        return data
    features, labels, where = _memory_table(data, label, id)
    X, y, names, samples = _clean(features, labels, IN_MEMORY, impute)
    check_classes(y, where)
    dataset = Dataset(X, y, names, "memory", sample_names=samples)
    _warn_row_order(dataset, IN_MEMORY)
    return dataset


_SIMULATION_PARAMETERS = {
    "n_groups": int, "group_size": int, "n_other": int, "mu_group": float,
    "mu_other": float, "rho": float, "n_per_class": int,
}


def simulate_correlated_groups(n_groups: int = 5, group_size: int = 1, n_other: int = 1000,
                               mu_group: float = 0.5, mu_other: float = 0.05,
                               rho: float = 0.8, n_per_class: int = 100,
                               random_state: int | np.random.Generator | None = None
                               ) -> Dataset:
    """Correlated feature groups of 000 §6.1 (Table 2) and 003 §5.3 (SPEC §6).

    Features of unit variance; class means ``+μ`` for class 1 and ``−μ`` for class 0. Group
    features come first (names ``g{group}_{index}``, ``groups`` = group index), then the
    others (``x{index}``, group :data:`UNGROUPED` = −1: each its own group, see
    :func:`group_indices`): ``n_groups`` groups + ``n_other`` singletons.

    Parameters
    ----------
    n_groups : int ≥ 1
        The number of correlated groups (default 5).
    group_size : int ≥ 1
        The features of each group (default 1).
    n_other : int ≥ 0
        The independent features after the groups (default 1000).
    mu_group, mu_other : float
        μ of the group features and of the others (defaults 0.5 and 0.05).
    rho : float in [0, 1]
        The correlation within a group, through a shared factor:
        ``x = √ρ z + √(1−ρ) e`` (default 0.8).
    n_per_class : int ≥ 1
        The examples of each of the two classes (default 100).
    random_state : int, numpy Generator or None
        Seeds ``numpy.random.default_rng`` (default None: fresh entropy).
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


def group_indices(labels: ArrayLike) -> tuple[np.ndarray, int]:
    """``(index, n_groups)``: the group index 0..G−1 of each feature, from its label.

    The one place where the package reads group labels (000 §6.1; the group lasso, and
    whatever else takes feature groups). Features of equal labels share a group; the
    labelled groups are numbered first, in increasing label order, then every
    :data:`UNGROUPED` (−1) feature gets a group of its own, in feature order. So
    ``[5, −1, 2, 5, −1]`` gives ``[1, 2, 0, 1, 3]`` and G = 4. Labels must be comparable
    (all numbers, or all strings).

    Parameters
    ----------
    labels : array-like (d,)
        The features' group labels.

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
    """All features of ``X`` by decreasing sample variance (ties: lower index first).

    Parameters
    ----------
    X : float array (n, d)
        The data (a run's training sample).
    """
    return np.argsort(-X.var(axis=0, ddof=1), kind="stable")


def variance_prefilter(X: np.ndarray, n_kept: int) -> np.ndarray:
    """Indices (increasing) of the ``n_kept`` features of highest sample variance in ``X``.

    000 §6.2 and 003 §7.1 pre-filter microarray data this way; the protocol computes it
    on each run's training sample only (no leakage). Ties: lower index first
    (``np.sort(variance_order(X)[:n_kept])``).

    Parameters
    ----------
    X : float array (n, d)
        The data (a run's training sample).
    n_kept : int
        t, the features kept, in ``1..d`` (:func:`check_prefilter`).
    """
    check_prefilter(n_kept, X.shape[1])
    return np.sort(variance_order(X)[:n_kept])


def check_prefilter(n_kept: object, d: int) -> int:
    """``n_kept``, validated as a pre-filter size for ``d`` features.

    Parameters
    ----------
    n_kept : object
        The pre-filter size given: an integer in ``1..d``.
    d : int
        The data's number of features.
    """
    return Interval("integer", 1, d, why=" (the features kept)").integer("prefilter", n_kept)


__all__ = ["IMPUTE", "IN_MEMORY", "UNGROUPED", "Dataset", "as_dataset", "check_classes",
           "check_prefilter", "group_indices", "load_dataset", "row_order_features",
           "simulate_correlated_groups", "variance_order", "variance_prefilter"]
