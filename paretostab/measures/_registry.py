"""The measure registry: the single source of metadata, and the :func:`stability` dispatcher.

Adding a measure is one decorated function in one module::

    @register("jaccard", input="selection", bounds=(0, 1), corrected=False,
              reference="stabm; Jaccard 1901")
    def jaccard(Z):
        ...

The function receives the validated array (see :mod:`paretostab.measures._inputs`) and
its keyword options; measures that need a similarity receive ``similarity=`` as a
:class:`SimilarityView` restricted to the features selected in at least one run. It
returns a float, or :class:`PairScores` for measures averaged over pairs of runs, and
raises :class:`UndefinedMeasure` when the value is undefined.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from paretostab._errors import InvalidInputError, StabilityWarning, UnknownNameError
from paretostab._papers import cite
from paretostab._similarity import SimilaritySource, as_similarity
from paretostab._validation import Interval
from paretostab.measures._inputs import (
    PairScores,
    UndefinedMeasure,
    as_importance_matrix,
    as_rank_matrix,
    as_selection_matrix,
)

InputKind = Literal["selection", "importance", "ranking"]


@dataclass(frozen=True)
class SimilarityView:
    """The similarity restricted to ``features``, the features selected in at least one run.

    ``matrix[a, b]`` is the similarity of features ``features[a]`` and ``features[b]``;
    ``block`` reaches any features of the whole space — random ones, for the adjusted
    measures' random-selection expectations and ``sechidis``'s normaliser — a batch of
    blocks at a time, never all d² pairs.

    Attributes
    ----------
    features : int array (s,)
        Indices (increasing) of the features selected in at least one run.
    matrix : float array (s, s)
        The similarity of those features, in [0, 1].
    source : SimilaritySource
        The similarity of the whole space, which :meth:`block` reads.
    """

    features: np.ndarray
    matrix: np.ndarray
    source: SimilaritySource

    @property
    def n_features(self) -> int:
        return self.source.n_features

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``out[t, x, y] = S[rows[t, x], cols[t, y]]`` for feature indices ``rows`` (B, a)
        and ``cols`` (B, b) anywhere in the d features.

        Parameters
        ----------
        rows, cols : int array (B, a) and (B, b)
            Feature indices in ``0..d−1``: block t pairs ``rows[t]`` with ``cols[t]``.
        """
        return self.source.block(rows, cols)

    def similar_features(self, threshold: float) -> np.ndarray:
        """The features (increasing, in ``0..d−1``) with a similarity ≥ ``threshold`` to
        another feature of the whole space (``source.similar_features``).

        Parameters
        ----------
        threshold : float
            Features with a similarity ≥ ``threshold`` (inclusive) are similar.
        """
        return self.source.similar_features(threshold)


@dataclass(frozen=True)
class MeasureInfo:
    """Metadata of one registered stability measure.

    Attributes
    ----------
    name : str
        The registry name (what code and specs use).
    function : callable
        The measure: ``function(data, **options)`` with ``data`` of kind ``input`` (and
        ``similarity=`` where ``needs_similarity``); a float, or the scores of the pairs
        of runs for a pairwise measure.
    input : {"selection", "importance", "ranking"}
        What it reads: Z (M × d of 0/1), I (importances) or R (rankings).
    needs_similarity : bool
        Whether it takes a feature similarity (the measures of Sechidis, Yu, Zhang …).
    lower, upper : float
        Its bounds.
    corrected : bool
        Whether it is corrected for chance (0 expected for random selections).
    reference : str
        Where it comes from, the papers named (see the field's own note).
    options : dict
        Its keyword options and their defaults (``k``, ``threshold`` …; not
        ``similarity``).
    identical_runs_maximal : bool
        Nogueira et al.'s *maximum* property: identical runs reach ``upper`` (default
        True; a few historical measures lack it: ``lustgarten``).
    symbol : str
        The papers' symbol (``"φ_iw"``), shown wherever a person reads the measure;
        "" (the default): the name is shown (:attr:`label`).
    """

    name: str
    function: Callable[..., float | PairScores]
    input: InputKind
    needs_similarity: bool
    lower: float
    upper: float
    corrected: bool
    reference: str
    """Where it comes from, the papers named (``register``'s ``"000 eq. 3"`` is shown as
    ``"Hamer & Dupont 2021 (ECML), eq. 3"``: :func:`paretostab._papers.cite`)."""
    options: dict[str, object]
    identical_runs_maximal: bool = True
    symbol: str = ""

    @property
    def label(self) -> str:
        """What a person reads for the measure: its papers' symbol (``φ_iw``), else its
        name."""
        return self.symbol or self.name

    @property
    def summary(self) -> str:
        doc = inspect.getdoc(self.function) or ""
        return doc.split("\n\n")[0].replace("\n", " ")


_REGISTRY: dict[str, MeasureInfo] = {}
#: The value an undefined measure takes instead of NaN, when one is given.
IMPUTE_NAN = Interval("number", none=True)

_CONVERTERS = {
    "selection": as_selection_matrix,
    "importance": as_importance_matrix,
}


def register(
    name: str,
    *,
    input: InputKind,
    bounds: tuple[float, float],
    corrected: bool,
    reference: str,
    needs_similarity: bool = False,
    identical_runs_maximal: bool = True,
    symbol: str = "",
) -> Callable[[Callable], Callable]:
    """Register a measure function under ``name`` with its metadata (see module docstring).

    ``symbol``: the papers' symbol (``"φ_iw"``), shown wherever a person reads the measure
    (figures, tables, the dashboard); the name is what code and specs use.
    ``identical_runs_maximal`` states Nogueira et al.'s *maximum* property: identical runs
    reach the upper bound. A few historical measures lack it (``lustgarten``).
    """

    def decorate(function: Callable) -> Callable:
        if name in _REGISTRY:
            raise RuntimeError(f"measure {name!r} registered twice")
        params = inspect.signature(function).parameters
        options = {
            p.name: p.default
            for p in params.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "similarity"
        }
        if needs_similarity != ("similarity" in params):
            raise RuntimeError(f"measure {name!r}: needs_similarity disagrees with signature")
        _REGISTRY[name] = MeasureInfo(
            name=name,
            function=function,
            input=input,
            needs_similarity=needs_similarity,
            lower=float(bounds[0]),
            upper=float(bounds[1]),
            corrected=corrected,
            reference=cite(reference),
            options=options,
            identical_runs_maximal=identical_runs_maximal,
            symbol=symbol,
        )
        return function

    return decorate


def get_measure(name: str) -> MeasureInfo:
    """The registry entry of ``name``; unknown names raise with the closest suggestion.

    Parameters
    ----------
    name : str
        A registry name (not an alias: :func:`measure_name` resolves those).
    """
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownNameError.for_name("measure", name, _REGISTRY) from None


#: Short names the command line and the report accept besides the registry's (the papers'
#: symbols written in ASCII).
ALIASES = {"phi": "nogueira", "phi_pears": "pearson", "pears": "pearson", "phi_iw": "iw",
           "phi_msi": "msi", "phi_s": "sechidis"}


def measure_name(name: str) -> str:
    """The registry name of a measure given by its registry name or an alias (``phi`` →
    ``nogueira``); unknown names raise with the closest suggestion among both.

    Parameters
    ----------
    name : str
        A registry name or one of :data:`ALIASES`.
    """
    name = ALIASES.get(name, name)
    if name not in _REGISTRY:
        raise UnknownNameError.for_name("measure", name, [*_REGISTRY, *ALIASES])
    return name


def measure_label(name: str) -> str:
    """What a person reads for a column or an axis: a measure's symbol (``φ_iw``), any
    other name (``accuracy``, ``k̄``) as it is.

    Parameters
    ----------
    name : str
        A registry name, or any column name (returned unchanged).
    """
    return _REGISTRY[name].label if name in _REGISTRY else name


def list_measures() -> pd.DataFrame:
    """The registry as a table: one row per measure, indexed by name."""
    rows = [
        {
            "name": m.name,
            "symbol": m.label,
            "input": m.input,
            "needs_similarity": m.needs_similarity,
            "lower": m.lower,
            "upper": m.upper,
            "corrected": m.corrected,
            "identical_runs_maximal": m.identical_runs_maximal,
            "options": ", ".join(f"{k}={v!r}" for k, v in m.options.items()),
            "reference": m.reference,
            "summary": m.summary,
        }
        for m in sorted(_REGISTRY.values(), key=lambda m: m.name)
    ]
    return pd.DataFrame(rows).set_index("name")


def _convert(info: MeasureInfo, data: object, n_features: int | None, options: dict):
    if info.input == "ranking":
        return as_rank_matrix(data, k=options.get("k"))
    return _CONVERTERS[info.input](data, n_features=n_features)


def _check_impute(impute_nan: object) -> float | None:
    if impute_nan is None:
        return None
    return IMPUTE_NAN.number("impute_nan", impute_nan)


def _undefined(name: str, cause: str, impute_nan: float | None) -> float:
    if impute_nan is None:
        warnings.warn(f"{name} is undefined: {cause}; returning NaN.", StabilityWarning, 3)
        return math.nan
    warnings.warn(f"{name} is undefined: {cause}; imputed {impute_nan}.", StabilityWarning, 3)
    return impute_nan


def stability(
    name: str,
    data: object,
    /,
    *,
    n_features: int | None = None,
    similarity: object = None,
    impute_nan: float | None = None,
    **options: object,
) -> float:
    """Stability of the M selection runs in ``data`` under the measure ``name``.

    Parameters
    ----------
    name : str
        A registered measure (``list_measures()`` lists them with their metadata).
    data : array of shape (M, d), or list of M index collections
        ``Z`` (0/1 selection) for selection measures; ``I`` (importances ≥ 0, 0 = not
        selected; a boolean ``Z`` means equal importances) for importance measures; ``R``
        (ranks, 1 = best) for ranking measures. Lists of selected feature indices are
        accepted with ``n_features=``.
    n_features : int, optional
        Total number of features d, required with index lists.
    similarity : array of shape (d, d), SimilarityMatrix or FeatureSimilarity
        Feature similarity in [0, 1], for the measures that need one.
    impute_nan : float, optional
        Value used where the measure (or the score of a pair of runs, for pairwise
        measures) is undefined. By default such values are NaN.
    **options
        The measure's own options (``threshold=``, ``k=``, ``n_samples=`` …); see
        ``list_measures()``.

    Returns
    -------
    float
        The stability, or NaN (with a :class:`~paretostab.StabilityWarning` naming the
        cause) when it is undefined.
    """
    info = get_measure(name)
    unknown = set(options) - set(info.options)
    if unknown:
        allowed = ", ".join(sorted(info.options)) or "none"
        raise InvalidInputError(
            f"Measure {name!r} got unknown option(s) {', '.join(sorted(unknown))}; "
            f"its options are: {allowed}."
        )
    impute = _check_impute(impute_nan)
    array = _convert(info, data, n_features, options)
    kwargs = dict(options)
    if info.needs_similarity:
        if similarity is None:
            raise InvalidInputError(
                f"Measure {name!r} needs similarity=: a (d, d) matrix in [0, 1] or a "
                "paretostab._similarity.FeatureSimilarity(X) built from the data."
            )
        source = as_similarity(similarity, array.shape[1])
        union = np.flatnonzero(array.any(axis=0))
        kwargs["similarity"] = SimilarityView(union, source.submatrix(union), source)
    elif similarity is not None:
        users = sorted(m.name for m in _REGISTRY.values() if m.needs_similarity)
        raise InvalidInputError(
            f"Measure {name!r} does not use a similarity; remove similarity= (measures "
            f"that use one: {', '.join(users)})."
        )
    try:
        result = info.function(array, **kwargs)
    except UndefinedMeasure as exc:
        return _undefined(name, str(exc), impute)
    if isinstance(result, PairScores):
        values = result.values
        if np.isnan(values).any():
            if impute is None:
                return _undefined(name, result.cause, None)
            warnings.warn(
                f"{name}: {result.cause}; imputed {impute} for {int(np.isnan(values).sum())} "
                "pair(s) of runs.",
                StabilityWarning,
                2,
            )
            values = np.where(np.isnan(values), impute, values)
        return float(values.mean())
    return float(result)
