"""Every registered selector made at one point of its registry search space, for the tests
that fit them all: the run cache's equality (``tests/test_run_cache.py``) and the binary
fingerprints (``tests/test_binary_unchanged.py``, whose digests were written with these
very selectors: a change here is a change of those results)."""

from __future__ import annotations

import math

import numpy as np

from paretostab.selectors import get_selector

__all__ = ["NARROWER", "selector_at", "settings_from_the_space"]

#: Registry ranges that would make these tests slow, narrowed (same parameters).
NARROWER = {"n_trees": (5, 9), "n_neighbors": (2, 6)}


def settings_from_the_space(name: str, quantile: float) -> dict:
    """One point of the selector's registry search space (a quantile of each range)."""
    params = {}
    for key, rng in get_selector(name).search_space.items():
        low, high = NARROWER.get(key, (rng.low, rng.high))
        if rng.log:
            value = math.exp(math.log(low) + quantile * (math.log(high) - math.log(low)))
        else:
            value = low + quantile * (high - low)
        integer = isinstance(rng.low, int) and isinstance(rng.high, int)
        params[key] = round(value) if integer else value
    return params


def selector_at(name: str, quantile: float, groups):
    """The registered selector ``name`` at the ``quantile`` of each range of its search
    space, keeping at most 6 features (8 for a calibrated target); the group lasso on
    ``groups``, each ungrouped feature (a negative label) a group of its own."""
    info = get_selector(name)
    params = settings_from_the_space(name, quantile)
    if "n_features" in info.estimator().get_params():
        params["n_features"] = 6
        if "n_stable" in params:
            params["n_stable"] = min(params["n_stable"], 6)
    if name == "group_lasso":
        params["groups"] = np.where(groups >= 0, groups, 100 + np.arange(groups.size))
    if "target_features" in params:
        params["target_features"] = min(params["target_features"], 8)
    return info.make(**params)
