"""Run sets: the outcome of M selection runs, and their ``.npz`` format.

A :class:`RunSet` is what :func:`~paretostab._protocol.run_protocol` returns: the selection
matrix Z, the importance matrix I, the rank matrix R (where the selector ranks), the
per-run scores, seeds and timings, and the settings they were run with. Its
:meth:`~RunSet.stability` reads Z, I or R as the measure needs (:mod:`paretostab.measures`);
:meth:`~RunSet.save` writes it to a compact ``.npz`` (format 2: the columns some run
selected, the rankings whole or their top positions, JSON metadata), which
:meth:`~RunSet.load` reads back — a tuning study keeps each trial's RunSet so.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from paretostab._errors import InvalidInputError
from paretostab._validation import is_int
from paretostab.measures import get_measure, stability

__all__ = ["RunSet", "metadata_value"]

_FORMAT = 2


@dataclass(frozen=True, eq=False, kw_only=True)
class RunSet:
    """The outcome of M selection runs.

    Attributes
    ----------
    selection_matrix : bool array (M, d)
        Z: feature f selected in run i.
    importance_matrix : float array (M, d)
        I: the final model's importance of each selected feature (0 elsewhere), as the
        selector reports it (the measures normalise rows to sum to k̄); 1 on each
        selected feature when the selector gives none (``has_importances``).
    rank_matrix : int array (M, d) or None
        R: each run's ranking 1..d (1 = best), for selectors that rank. A RunSet saved with
        ``ranks=K`` keeps the top K positions (every other feature tied at K + 1); see
        ``rank_depth``.
    scores : float array (M,)
        Out-of-bag score of each run's final model (NaN where a run had no usable
        out-of-bag example).
    seeds : uint32 array (M,)
        The seed of each run's resample; with ``resampling = "complementary_pairs"`` the
        seed of the run's pair, held by both its runs: run 2j trained on the first half of
        the pair's split, run 2j + 1 on the second
        (:func:`~paretostab._run_cache.run_draws`).
    fit_seconds, prepare_seconds, score_seconds : float arrays (M,)
        Wall time of each run's fit; of its preparation (resample, pre-filter,
        standardisation, distinct rows — near 0 when a :class:`RunCache` had it); of its
        out-of-bag scoring.
    metric, resampling, selector : str
        ``selector``: the selector's ``selector_name`` where it has one (an
        ``ExternalSelector``: the estimator it wraps), else its class name.
    params : dict
        The selector's parameters (after calibration) and the protocol's settings.
    feature_names : tuple of str or None
    rank_depth : int or None
        How many top positions of each ranking ``rank_matrix`` keeps: None all of them
        (or the selector does not rank), 0 none (saved without its rankings).
    has_importances : bool
        False when the selector gives no importances (no ``importances_``): the measures
        that read I refuse the RunSet.
    """

    selection_matrix: np.ndarray
    importance_matrix: np.ndarray
    rank_matrix: np.ndarray | None
    scores: np.ndarray
    seeds: np.ndarray
    fit_seconds: np.ndarray
    prepare_seconds: np.ndarray | None = None
    score_seconds: np.ndarray | None = None
    metric: str
    resampling: str
    selector: str
    params: dict = field(default_factory=dict)
    feature_names: tuple[str, ...] | None = None
    rank_depth: int | None = None
    has_importances: bool = True

    def __post_init__(self):
        zeros = np.zeros(self.selection_matrix.shape[0])
        for name in ("prepare_seconds", "score_seconds"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, zeros)

    @property
    def runs(self) -> int:
        return self.selection_matrix.shape[0]

    @property
    def n_features(self) -> int:
        return self.selection_matrix.shape[1]

    @property
    def accuracy(self) -> float:
        """Mean out-of-bag score over the runs that have one (NaN if none has)."""
        valid = self.scores[~np.isnan(self.scores)]
        return float(valid.mean()) if valid.size else math.nan

    @property
    def mean_selected(self) -> float:
        """k̄, the mean number of selected features per run."""
        return float(self.selection_matrix.sum(axis=1).mean())

    def stability(self, name: str, *, similarity: object = None, **options: Any) -> float:
        """The stability measure ``name`` of these runs (``paretostab.measures``).

        The measure's input kind decides what it reads: Z, I or R.

        Parameters
        ----------
        name : str
            A measure's registry name or alias (:func:`~paretostab.measures.list_measures`).
        similarity : array (d, d), SimilarityMatrix or FeatureSimilarity, optional
            The feature similarity, for the measures that need one (passed on to
            :func:`~paretostab.measures.stability`).
        **options
            The measure's own options (``k=``, ``threshold=`` …).
        """
        kind = get_measure(name).input
        if kind == "ranking":
            self._check_ranks(name, options.get("k"))
        if kind == "importance" and not self.has_importances:
            raise InvalidInputError(
                f"{get_measure(name).label} ({name}) needs feature importances; "
                f"{self.selector} gives none: choose a subset measure such as nogueira.")
        data = {"selection": self.selection_matrix, "importance": self.importance_matrix,
                "ranking": self.rank_matrix}[kind]
        extra: dict[str, Any] = {"similarity": similarity} if similarity is not None else {}
        return stability(name, data, **extra, **options)

    def _check_ranks(self, name: str, k: int | None) -> None:
        if self.rank_depth == 0:
            raise InvalidInputError(
                f"Measure {name!r} needs rankings; this RunSet was saved without them "
                "(a study keeps them when its spec records a ranking measure).")
        if self.rank_matrix is None:
            raise InvalidInputError(
                f"Measure {name!r} needs rankings; selector {self.selector} does not rank "
                "features, so this RunSet has none.")
        if self.rank_depth is not None and (k is None or k > self.rank_depth):
            raise InvalidInputError(
                f"Measure {name!r} with k={k!r} reads deeper rankings than this RunSet keeps "
                f"(its top {self.rank_depth} positions): pass k <= {self.rank_depth}.")

    def save(self, path: str | Path, *, ranks: str | int | None = "full") -> Path:
        """Write the RunSet to a compact ``.npz`` (format 2).

        Arrays: ``columns`` (the features selected, or of non-zero importance, in some
        run), ``selection`` and ``importance`` (Z and I on those columns), ``ranks``
        (unless ``ranks=None``: R in the smallest unsigned integer type that holds d + 1;
        whole rankings are stored without compression — permutations barely compress:
        zlib saves a quarter of 2.5 MB at 40–65 ms), ``scores``,
        ``seeds``, ``fit_seconds``, ``prepare_seconds``, ``score_seconds``; and
        ``metadata``, a JSON string with ``format``, ``n_features``, ``rank_depth``,
        ``metric``, ``resampling``, ``selector``, ``params`` and ``feature_names``.

        Parameters
        ----------
        path : str or Path
            The file written (replaced if it exists), as given: no suffix is added.
        ranks : "full", int or None
            Keep the whole rankings, only their top ``ranks`` positions (what top-k
            measures with k ≤ ``ranks`` read; every other feature is then stored tied at
            ``ranks + 1``), or none.
        """
        path = Path(path)
        Z, I = self.selection_matrix, self.importance_matrix
        columns = np.flatnonzero(Z.any(axis=0) | (I != 0).any(axis=0))
        d = self.n_features
        arrays: dict[str, np.ndarray] = {
            "columns": columns.astype(np.min_scalar_type(max(d - 1, 0))),
            "selection": Z[:, columns],
            "importance": I[:, columns],
            "scores": self.scores,
            "seeds": self.seeds,
            "fit_seconds": self.fit_seconds,
            # set by __post_init__ (zeros when not given): arrays from then on
            "prepare_seconds": cast(np.ndarray, self.prepare_seconds),
            "score_seconds": cast(np.ndarray, self.score_seconds),
        }
        depth = self.rank_depth
        if self.rank_matrix is not None and ranks is not None:
            depth = _rank_depth(ranks, d, depth)
            kept = self.rank_matrix if depth is None else np.minimum(self.rank_matrix,
                                                                     depth + 1)
            arrays["ranks"] = kept.astype(np.min_scalar_type(d + 1))
        elif self.rank_matrix is not None:
            depth = 0
        metadata = {
            "format": _FORMAT, "n_features": d, "rank_depth": depth,
            "metric": self.metric, "resampling": self.resampling,
            "selector": self.selector, "params": metadata_value(self.params),
            "feature_names": list(self.feature_names) if self.feature_names else None,
            "has_importances": self.has_importances,
        }
        arrays["metadata"] = np.array(json.dumps(metadata))
        _write_npz(path, arrays, stored={"ranks"} if depth is None else set())
        return path

    @classmethod
    def load(cls, path: str | Path) -> RunSet:
        """Read a RunSet written by :meth:`save`.

        Parameters
        ----------
        path : str or Path
            The ``.npz`` file.
        """
        with np.load(Path(path), allow_pickle=False) as archive:
            if "metadata" not in archive.files:
                raise InvalidInputError(f"{path} is not a paretostab RunSet (no metadata).")
            metadata = json.loads(str(archive["metadata"]))
            if metadata.get("format") != _FORMAT:
                raise InvalidInputError(
                    f"{path} has RunSet format {metadata.get('format')!r}, written by an "
                    f"older paretostab; this version reads format {_FORMAT} (compact): run "
                    "the trials again to store them in it."
                )
            M, d = archive["scores"].size, metadata["n_features"]
            columns = archive["columns"].astype(np.intp)
            Z = np.zeros((M, d), dtype=bool)
            Z[:, columns] = archive["selection"]
            I = np.zeros((M, d))
            I[:, columns] = archive["importance"]
            ranks = archive["ranks"].astype(np.int64) if "ranks" in archive.files else None
            names = metadata["feature_names"]
            return cls(selection_matrix=Z, importance_matrix=I, rank_matrix=ranks,
                       scores=archive["scores"], seeds=archive["seeds"],
                       fit_seconds=archive["fit_seconds"],
                       prepare_seconds=archive["prepare_seconds"],
                       score_seconds=archive["score_seconds"], metric=metadata["metric"],
                       resampling=metadata["resampling"], selector=metadata["selector"],
                       params=metadata["params"], feature_names=tuple(names) if names else None,
                       rank_depth=metadata["rank_depth"],
                       has_importances=metadata.get("has_importances", True))

    def same_runs(self, other: RunSet) -> bool:
        """Equal in everything but the timings (what reproducibility promises).

        Parameters
        ----------
        other : RunSet
            The runs compared with these.
        """
        def equal(a, b):
            return (a is None and b is None) or (
                a is not None and b is not None and np.array_equal(a, b, equal_nan=True))
        return (all(equal(getattr(self, f), getattr(other, f)) for f in
                    ("selection_matrix", "importance_matrix", "rank_matrix", "scores", "seeds"))
                and (self.metric, self.resampling, self.selector, metadata_value(self.params),
                     self.feature_names, self.rank_depth, self.has_importances)
                == (other.metric, other.resampling, other.selector, metadata_value(other.params),
                    other.feature_names, other.rank_depth, other.has_importances))


def _rank_depth(ranks: str | int, d: int, current: int | None) -> int | None:
    """The rank depth a save keeps (None: all): ``"full"`` or a positive integer, never
    deeper than what the RunSet has."""
    if ranks == "full":
        return current
    if not is_int(ranks) or ranks < 1:
        raise InvalidInputError(
            f"ranks must be 'full', a positive integer (the top positions kept) or None; "
            f"got {ranks!r}.")
    depth = min(int(ranks), d)
    return depth if current is None else min(depth, current)


def _write_npz(path: Path, arrays: dict[str, np.ndarray], *, stored: set[str]) -> None:
    """An ``.npz`` (what ``np.load`` reads) whose members are deflated, except ``stored``."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(array), allow_pickle=False)
            archive.writestr(name + ".npy", buffer.getvalue(),
                             compress_type=zipfile.ZIP_STORED if name in stored
                             else zipfile.ZIP_DEFLATED)


def metadata_value(value):
    """``value`` as a RunSet's JSON metadata holds it (its ``params``): dicts with string
    keys, lists, numbers, strings, booleans and None (NumPy's arrays and scalars as lists
    and numbers; anything else as its ``repr``)."""
    if isinstance(value, dict):
        return {str(k): metadata_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [metadata_value(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)
