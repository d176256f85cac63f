"""Stability measures: one registry, one entry point.

>>> from paretostab.measures import stability, list_measures
>>> stability("nogueira", [[0, 1, 2], [0, 1, 3]], n_features=10)  # doctest: +ELLIPSIS
0.52...

Every measure is registered once with its metadata (input kind, whether it needs a
similarity, bounds, correction for chance, paper and equation); ``list_measures()``
returns that table. Private modules by family: ``_subset`` (Z), ``_weighted`` (I),
``_adjusted`` (Z or I with a similarity), ``_msi``, ``_ranking`` (R).
"""

from paretostab.measures import (  # noqa: F401  (importing registers the measures)
    _adjusted,
    _msi,
    _ranking,
    _subset,
    _weighted,
)
from paretostab.measures._inputs import normalise_importances
from paretostab.measures._registry import (
    ALIASES,
    MeasureInfo,
    SimilarityView,
    get_measure,
    list_measures,
    measure_label,
    measure_name,
    stability,
)
from paretostab.measures._subset import NogueiraInterval, nogueira_interval

__all__ = [
    "ALIASES",
    "MeasureInfo",
    "NogueiraInterval",
    "SimilarityView",
    "get_measure",
    "list_measures",
    "measure_label",
    "measure_name",
    "nogueira_interval",
    "normalise_importances",
    "stability",
]
