"""Two classes, to the last bit: every registered selector's runs and fitted model on binary
data are those of the commit before multi-class support (issue 20).

``tests/reference/binary_fingerprints.json`` holds SHA-256 digests of the arrays, written
by this module at that commit (``python -m tests.test_binary_unchanged`` rewrites it: do
that only when a change of binary results is intended, and say so in the commit).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from paretostab._protocol import run_protocol
from paretostab._vocabulary import METRICS
from paretostab.data import simulate_correlated_groups
from paretostab.selectors import SELECTORS
from tests.search_points import selector_at

REFERENCE = Path(__file__).parent / "reference" / "binary_fingerprints.json"
#: The binary metrics of that commit (f1_macro came with multi-class support).
BINARY_METRICS = ("accuracy", "balanced_accuracy", "roc_auc")


def binary_data():
    sim = simulate_correlated_groups(n_groups=4, group_size=3, n_other=48, n_per_class=20,
                                     random_state=7)
    return sim.X, sim.y, sim.groups


def digest(*arrays) -> str:
    sha = hashlib.sha256()
    for array in arrays:
        if array is None:
            sha.update(b"None")
            continue
        array = np.ascontiguousarray(array)
        sha.update(str((array.dtype.str, array.shape)).encode())
        sha.update(array.tobytes())
    return sha.hexdigest()


def fingerprints(name: str) -> dict[str, str]:
    """Digests of the selector's runs (each binary metric, with and without a pre-filter)
    and of its model fitted on the whole data (selection, importances, ranking, weights,
    decision values, probabilities, predictions)."""
    X, y, groups = binary_data()
    result = {}
    for metric in BINARY_METRICS:
        for prefilter in (None, 40):
            runs = run_protocol(selector_at(name, 0.4, groups), X, y, runs=3,
                                prefilter=prefilter, metric=metric, random_state=5,
                                progress=False)
            result[f"runs {metric} {prefilter}"] = digest(
                runs.selection_matrix, runs.importance_matrix, runs.rank_matrix, runs.scores)
    model = selector_at(name, 0.4, groups).set_params(
        **({"random_state": 3} if "random_state" in selector_at(name, 0.4, groups).get_params()
           else {})).fit(X, y)
    proba = model.predict_proba(X) if hasattr(model, "predict_proba") else None
    result["fit"] = digest(model.support_, model.importances_,
                           getattr(model, "rank_order_", None), getattr(model, "coef_", None),
                           getattr(model, "intercept_", None), model.decision_function(X),
                           proba, model.predict(X))
    return result


def test_the_binary_metrics_are_the_ones_of_the_reference():
    assert set(BINARY_METRICS) <= set(METRICS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_binary_results_are_unchanged_to_the_last_bit(name):
    reference = json.loads(REFERENCE.read_text())
    assert name in reference, f"no binary fingerprint for {name}: a new selector?"
    assert fingerprints(name) == reference[name]


if __name__ == "__main__":
    REFERENCE.write_text(json.dumps({name: fingerprints(name) for name in sorted(SELECTORS)},
                                    indent=1, sort_keys=True) + "\n")
    print(f"wrote {REFERENCE.name}")
