"""The chosen trade-off as a model for new samples: a scikit-learn ``Pipeline`` of the
spec's variance pre-filter (when it has one) and the trial's selector at its setting,
whose final model classifies (SPEC §1: a selector fits its final model on the features it
keeps), fitted on the whole (development) data with the features' names.

:class:`VariancePrefilter` is the pre-filter of 000 §6.2 and 003 §7.1 as a scikit-learn
selector (the protocol computes the same columns on each run's training sample:
:func:`~paretostab.data.variance_prefilter`); :func:`final_model` builds and fits the
pipeline.

A model leaves the study as a skops file (:func:`save_model`, :func:`load_model`): the
field's safe format for scikit-learn models, whose loading builds objects of the types it
is told to trust and never runs a pickle's code. A saved model trusts only the types of
paretostab, scikit-learn, numpy and scipy, and says what it is: the study, the trial, γ,
the parameters, the features it selects and those it expects, in order
(:class:`SavedModel`). :meth:`SavedModel.predict` classifies a data file or a DataFrame
of new samples, with the metric and its interval where they carry labels
(:class:`Predictions`).
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted, validate_data

from paretostab._data_formats import (
    ORIENTATIONS,
    check_unique,
    read_data_file,
    sample_ids,
    shown_names,
    some_names,
)
from paretostab._errors import InvalidInputError, described
from paretostab._metrics import metric_output
from paretostab._validation import FRACTION
from paretostab._version import __version__
from paretostab.data import IN_MEMORY, check_prefilter, variance_prefilter
from paretostab.evaluation import HeldOutScore, score_interval
from paretostab.selectors import groups_follow_columns

__all__ = ["TRUSTED_PACKAGES", "Predictions", "SavedModel", "VariancePrefilter", "final_model",
           "load_model", "save_model"]

#: The packages whose types a saved model may hold (:func:`load_model` refuses others).
TRUSTED_PACKAGES = ("paretostab", "sklearn", "numpy", "scipy")
#: What a saved model's file says it is, beside the pipeline.
_FORMAT = "paretostab model 1"


class VariancePrefilter(SelectorMixin, BaseEstimator):
    """Keep the ``n_kept`` features of highest sample variance (000 §6.2, 003 §7.1; ties:
    lower index first, as :func:`~paretostab.data.variance_prefilter`).

    Parameters
    ----------
    n_kept : int
        The features kept, in ``1..d``.

    Attributes
    ----------
    support_ : bool array (d,)
        The features kept.
    n_features_in_ : int
    feature_names_in_ : array of str
        When fitted on a DataFrame.
    """

    def __init__(self, n_kept: int = 1000) -> None:
        self.n_kept = n_kept

    def fit(self, X, y=None):
        """Compute the features of highest variance in ``X``.

        Parameters
        ----------
        X : array-like (n, d)
        y : ignored
        """
        X = validate_data(self, X, dtype=float)
        columns = variance_prefilter(X, check_prefilter(self.n_kept, X.shape[1]))
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[columns] = True
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_


def final_model(selector: object, X: np.ndarray, y: np.ndarray,
                feature_names: Sequence[str], *, prefilter: int | None) -> Pipeline:
    """The pipeline (``prefilter`` and ``selector``) fitted on ``X`` as a DataFrame whose
    columns are ``feature_names``: it keeps their names (``feature_names_in_``), and
    scikit-learn refuses data whose columns differ.

    Parameters
    ----------
    selector : estimator
        The trial's selector at its setting (:meth:`~paretostab._problem.Problem.
        estimator`), not fitted; with a pre-filter, feature groups it takes are those of
        the columns the pre-filter keeps on ``X``.
    X : float array (n, d)
    y : array (n,)
    feature_names : sequence of str
    prefilter : int or None
        The spec's pre-filter (``[data] prefilter``).
    """
    steps: list[tuple[str, object]] = []
    if prefilter:
        steps.append(("prefilter", VariancePrefilter(prefilter)))
        groups_follow_columns(selector, variance_prefilter(X, prefilter))
    steps.append(("selector", selector))
    return Pipeline(steps).fit(pd.DataFrame(X, columns=list(feature_names)), y)


# --------------------------------------------------------------------------- saved models


@dataclass(frozen=True)
class Predictions:
    """New samples classified by a saved model (:meth:`SavedModel.predict`).

    Attributes
    ----------
    table : DataFrame
        One row per sample, indexed by ``sample`` (the data's sample names, else the row
        number from 1): the ``predicted`` label and, where the model gives
        probabilities, one column ``proba_<class>`` per class.
    score : HeldOutScore or None
        The model's metric on the samples that carry a label, with its interval
        (:func:`~paretostab.evaluation.score_interval`); None without labels.
    metric : str
        What ``score`` measures (the study's ``[protocol] metric``).
    ignored : tuple of str
        The data's columns that are not features of the model (read by name, so that
        they change no prediction).
    """

    table: pd.DataFrame
    score: HeldOutScore | None
    metric: str
    ignored: tuple[str, ...] = ()


@dataclass(frozen=True)
class SavedModel:
    """A chosen trade-off's model, as :func:`load_model` reads it from a file that
    :meth:`~paretostab.Choice.save_model` (``choose --save-model``) wrote.

    Attributes
    ----------
    pipeline : sklearn.pipeline.Pipeline
        The fitted pipeline (:meth:`~paretostab.Choice.model`).
    study : str
    trial : int
    gamma : float
        The γ that chose the trial.
    values : dict
        Its metric (under ``"accuracy"``) and stability measure, as the study scored them.
    params : dict
        Its Optuna parameters.
    features : tuple of str
        The features its selector selects, by decreasing importance.
    feature_names : tuple of str
        The features the pipeline expects, in their order (read by name from new data).
    metric : str
        The study's protocol metric.
    version : str
        The paretostab version that saved it.
    """

    pipeline: Pipeline = field(repr=False, compare=False)
    study: str
    trial: int
    gamma: float
    values: Mapping[str, float]
    params: Mapping[str, object]
    features: tuple[str, ...]
    feature_names: tuple[str, ...] = field(repr=False)
    metric: str
    version: str

    @property
    def classes(self) -> np.ndarray:
        """The classes the model predicts (its ``classes_``)."""
        return self.pipeline.classes_

    def predict(self, data: object, *, label: str = "label", id: str | None = None,
                orientation: str = "samples_in_rows", level: float = 0.95) -> Predictions:
        """Classify new samples: ``data``'s columns are taken by the names of
        :attr:`feature_names` (in any order; other columns are ignored), and a data set
        lacking one of them is refused, naming the missing ones.

        Parameters
        ----------
        data : str, Path or DataFrame
            A data file in any format :func:`~paretostab.data.load_dataset` reads (CSV or
            TSV, also gzip-compressed, parquet, ``.npz``, ``.h5ad``), or a DataFrame; its
            labels are optional.
        label : str
            The label column (row, ``obs`` column) where the data have one: the model's
            metric is then computed on the samples that carry a label.
        id : str, optional
            The column of sample IDs (by default an index-like first column, if any:
            :func:`~paretostab._data_formats.sample_ids`).
        orientation : {"samples_in_rows", "features_in_rows"}
            How a table lies.
        level : float in (0, 1)
            The level of the metric's interval.

        Returns
        -------
        Predictions
        """
        level = FRACTION.number("level", level)
        frame, labels, name = _new_samples(data, label, id, orientation)
        X = self._features_of(frame, name)
        pipeline = self.pipeline
        table = pd.DataFrame({"predicted": pipeline.predict(X)}, index=frame.index)
        if hasattr(pipeline, "predict_proba"):
            proba = pipeline.predict_proba(X)
            for j, c in enumerate(self.classes):
                table[f"proba_{c}"] = proba[:, j]
        if isinstance(table.index, pd.RangeIndex):
            table.index = pd.RangeIndex(1, len(table) + 1)
        table.index.name = "sample"
        score = None
        if labels is not None and labels.notna().any():
            known = labels.notna().to_numpy()
            y = self._as_classes(labels[known], name)
            score = score_interval(y, metric_output(pipeline, X[known], self.metric),
                                   self.metric, self.classes, level=level)
        wanted = set(self.feature_names)
        return Predictions(table, score, self.metric,
                           tuple(str(c) for c in frame.columns if c not in wanted))

    def _features_of(self, frame: pd.DataFrame, name: str) -> pd.DataFrame:
        """The columns of :attr:`feature_names` of ``frame``, in their order, as floats;
        an error naming those missing, not numeric or with missing values."""
        names = list(self.feature_names)
        missing = [f for f in names if f not in frame.columns]
        if missing:
            raise InvalidInputError(
                f"{name} lacks {len(missing)} of the {len(names)} features the model was "
                f"fitted on: {some_names(missing)} (columns the model does not know are "
                "ignored; its features are read by name, in any order).")
        X = frame[names]
        text = [c for c in names if not pd.api.types.is_numeric_dtype(X[c])]
        if text:
            raise InvalidInputError(f"{name}: the model's features must be numeric; "
                                    f"{len(text)} are not: {some_names(text)}.")
        X = X.astype(float)
        if X.isna().to_numpy().any():
            rows, cols = np.nonzero(X.isna().to_numpy())
            raise InvalidInputError(
                f"{name}: {rows.size} missing value(s) in the model's features (first at "
                f"sample {shown_names([X.index[rows[0]]])} feature {names[cols[0]]}): the model "
                "classifies complete samples; fill or remove them.")
        return X

    def _as_classes(self, labels: pd.Series, name: str) -> np.ndarray:
        """``labels`` as the model's classes are typed (text, integers), for the metric."""
        try:
            return np.asarray(labels.to_numpy(), dtype=self.classes.dtype)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"{name}: its labels ({some_names(labels.unique())}) are not of the model's "
                f"classes ({shown_names(self.classes)}).") from None


def _new_samples(data: object, label: str, id: str | None, orientation: str
                 ) -> tuple[pd.DataFrame, pd.Series | None, str]:
    """New samples to classify: their table (indexed by the sample names, if any), their
    labels if they carry some, and the name messages give them."""
    if isinstance(data, str | os.PathLike):
        path = Path(data)
        if not path.is_file():
            raise InvalidInputError(f"No data file {str(path)!r} to predict.")
        frame, labels, _ = read_data_file(path, label=label, orientation=orientation, id=id,
                                          optional_label=True)
        return frame, labels, path.name
    if isinstance(data, pd.DataFrame):
        if orientation != ORIENTATIONS[0]:
            raise InvalidInputError("a DataFrame holds one row per sample: remove orientation.")
        check_unique(data.columns, IN_MEMORY)
        has_label = label in data.columns
        frame = sample_ids(data, IN_MEMORY, label if has_label else None, id)
        return (frame.drop(columns=label) if has_label else frame,
                frame[label] if has_label else None, IN_MEMORY)
    raise InvalidInputError(f"data to predict must be a data file's path or a pandas "
                            f"DataFrame; got {described(data)}.")


def save_model(pipeline: Pipeline, path: str | os.PathLike, about: Mapping[str, object]
               ) -> Path:
    """Write a fitted ``pipeline`` and what it is to a skops file at ``path``.

    Parameters
    ----------
    pipeline : sklearn.pipeline.Pipeline
        Fitted on a DataFrame (its ``feature_names_in_`` are the features it expects).
    path : str or Path
        The file to write (``.skops`` by convention); its folder must exist.
    about : mapping
        The :class:`SavedModel` fields other than ``pipeline``, ``feature_names`` and
        ``version``, which are added.

    Returns
    -------
    Path
    """
    import skops.io

    path = Path(path)
    if not path.parent.is_dir():
        raise InvalidInputError(f"cannot write the model to {str(path)!r}: no folder "
                                f"{str(path.parent)!r}.")
    content = {"format": _FORMAT, "pipeline": pipeline,
               "about": {**about, "feature_names": [str(f) for f in pipeline.feature_names_in_],
                         "version": __version__}}
    try:
        skops.io.dump(content, path)
    except OSError as exc:
        raise InvalidInputError(f"cannot write the model to {str(path)!r} "
                                f"({exc.strerror or exc}).") from None
    return path


def _schema_types(path: Path) -> list[tuple[str, str]]:
    """Each object of a skops file as (how skops loads it, ``module.name`` of its type),
    read from its schema without building any."""
    try:
        with zipfile.ZipFile(path) as archive:
            schema = json.loads(archive.read("schema.json"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise InvalidInputError(
            f"{path.name} is not a model file (a skops file that Choice.save_model or "
            f"choose --save-model writes): {type(exc).__name__}.") from None
    found: list[tuple[str, str]] = []
    stack: list[object] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "__loader__" in node:
                found.append((str(node["__loader__"]),
                              f"{node.get('__module__')}.{node.get('__class__')}"))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _trusted(loader: str, name: str) -> bool:
    """Whether a type named in a saved model is one to build: a class of
    :data:`TRUSTED_PACKAGES`, or one of their functions held as a reference
    (``FunctionNode``), never called, as a constructor would be."""
    module, _, attribute = name.rpartition(".")
    if module.partition(".")[0] not in TRUSTED_PACKAGES:
        return False
    if loader == "FunctionNode":
        return True
    try:
        return inspect.isclass(getattr(importlib.import_module(module), attribute, None))
    except ImportError:
        return False


def load_model(path: str | os.PathLike) -> SavedModel:
    """The model a file of :meth:`~paretostab.Choice.save_model` holds, loaded with skops
    trusting only the types of paretostab, scikit-learn, numpy and scipy: a file holding
    any other type is refused, naming it, and nothing of it is built.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    SavedModel
    """
    import skops.io

    path = Path(path)
    if not path.is_file():
        raise InvalidInputError(f"No model file {str(path)!r}.")
    types = _schema_types(path)
    untrusted = set(skops.io.get_untrusted_types(file=path))
    foreign = sorted({name for loader, name in types
                      if name in untrusted and not _trusted(loader, name)})
    if foreign:
        raise InvalidInputError(
            f"{path.name} holds types a paretostab model does not, so it is not loaded: "
            f"{shown_names(foreign)} (trusted: the types of {', '.join(TRUSTED_PACKAGES)}).")
    content = skops.io.load(path, trusted=sorted(untrusted))
    if not (isinstance(content, dict) and content.get("format") == _FORMAT):
        raise InvalidInputError(f"{path.name} is a skops file but not a paretostab model (one "
                                "that Choice.save_model or choose --save-model writes).")
    about = dict(content["about"])
    return SavedModel(pipeline=content["pipeline"], study=str(about["study"]),
                      trial=int(about["trial"]), gamma=float(about["gamma"]),
                      values=dict(about["values"]), params=dict(about["params"]),
                      features=tuple(about["features"]),
                      feature_names=tuple(about["feature_names"]), metric=str(about["metric"]),
                      version=str(about["version"]))
