"""scikit-learn's estimator checks on every RFE selector."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from paretostab.selectors import BiasedRFE, HybridRFE
from tests.estimator_checks import one_feature_failures

ESTIMATORS = [
    HybridRFE(n_features=1),
    HybridRFE(n_features=1, n_stable=1, alpha=0.5, criterion=0.5),
    HybridRFE(n_features=1, loss="hinge"),
    BiasedRFE(n_features=1, shape=2.0, random_state=0),
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=one_feature_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)
