"""Feature selectors: scikit-learn estimators exposing ``support_``, ``importances_``,
``ranking_``/``rank_order_`` and a fitted final model (``predict``/``score``).

``SELECTORS`` is the registry: name → estimator class, and the hyperparameters a tuning
study searches by default (plain data: ``(low, high, log)`` ranges; the tuning module
turns them into Optuna distributions).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paretostab.errors import UnknownNameError
from paretostab.selectors._base import TrainingSample
from paretostab.selectors.hybrid_rfe import BiasedRFE, HybridRFE, transfer_learning_rfe
from paretostab.selectors.kernel_svm import KernelSVMRFE
from paretostab.selectors.linear import ElasticNetSelector, GroupLassoSelector
from paretostab.selectors.filters import MIMSelector, MRMRSelector, TTestSelector
from paretostab.selectors.other import RandomForestSelector, ReliefSelector


@dataclass(frozen=True)
class Range:
    """A hyperparameter range: integers when both bounds are ints; ``log`` scale optional."""

    low: float
    high: float
    log: bool = False


@dataclass(frozen=True)
class SelectorInfo:
    name: str
    estimator: type
    fixed: dict = field(default_factory=dict)
    search_space: dict = field(default_factory=dict)

    def make(self, **params):
        """An estimator with the fixed parameters, overridden by ``params``."""
        return self.estimator(**{**self.fixed, **params})


_FINAL_SPACE = {"final_reg": Range(1e-3, 1e3, log=True)}
_RFE_SPACE = {"reg": Range(1e-3, 1e3, log=True), **_FINAL_SPACE}

SELECTORS = {
    info.name: info
    for info in [
        SelectorInfo("hybrid_rfe", HybridRFE, search_space={
            "n_stable": Range(0, 20), "epsilon": Range(1e-3, 1.0, log=True), **_RFE_SPACE,
            "alpha": Range(0.0, 1.0)}),
        SelectorInfo("logistic_rfe", HybridRFE, fixed={"n_stable": 0},
                     search_space=dict(_RFE_SPACE)),
        SelectorInfo("svm_rfe", HybridRFE, fixed={"n_stable": 0, "loss": "hinge"},
                     search_space=dict(_RFE_SPACE)),
        SelectorInfo("biased_rfe", BiasedRFE, search_space={
            "shape": Range(1e-2, 1e2, log=True), **_RFE_SPACE}),
        SelectorInfo("lasso", ElasticNetSelector, fixed={"l1_ratio": 1.0},
                     search_space={"target_features": Range(5, 50)}),
        SelectorInfo("elastic_net", ElasticNetSelector, search_space={
            "target_features": Range(5, 50), "l1_ratio": Range(0.05, 1.0)}),
        SelectorInfo("group_lasso", GroupLassoSelector,
                     search_space={"target_features": Range(5, 60)}),
        SelectorInfo("random_forest", RandomForestSelector,
                     search_space={"n_trees": Range(3, 3000, log=True)}),
        SelectorInfo("relief", ReliefSelector, search_space={"n_neighbors": Range(1, 40)}),
        SelectorInfo("t_test", TTestSelector, search_space=dict(_FINAL_SPACE)),
        SelectorInfo("mim", MIMSelector, search_space=dict(_FINAL_SPACE)),
        SelectorInfo("mrmr", MRMRSelector, search_space=dict(_FINAL_SPACE)),
        SelectorInfo("kernel_svm_rfe", KernelSVMRFE, search_space={
            **_RFE_SPACE, "gamma_factor": Range(1e-2, 1e2, log=True)}),
    ]
}


def get_selector(name: str) -> SelectorInfo:
    """The registry entry of ``name``; unknown names raise with the closest suggestion."""
    try:
        return SELECTORS[name]
    except (KeyError, TypeError):
        raise UnknownNameError.for_name("selector", name, SELECTORS) from None


__all__ = ["SELECTORS", "BiasedRFE", "ElasticNetSelector", "GroupLassoSelector", "HybridRFE",
           "KernelSVMRFE",
           "MIMSelector", "MRMRSelector",
           "RandomForestSelector", "Range", "ReliefSelector", "SelectorInfo", "TTestSelector",
           "TrainingSample",
           "get_selector", "transfer_learning_rfe"]
