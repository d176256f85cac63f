"""Feature selectors: scikit-learn estimators exposing ``support_``, ``importances_``,
``ranking_``/``rank_order_`` and a fitted final model (``predict``/``score``).

``SELECTORS`` is the registry: name → estimator class, and the hyperparameters a tuning
study searches by default (plain data: ``(low, high, log)`` ranges; the tuning module
turns them into Optuna distributions). :func:`get_selector` also finds the selectors
that installed packages register under the entry point group ``paretostab.selectors``,
and any scikit-learn estimator class named ``"module:Class"``
(:class:`~paretostab.selectors.external.ExternalSelector`).
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass, field, replace

from paretostab.errors import UnknownNameError
from paretostab.selectors._base import SelectorBase, TrainingSample
from paretostab.selectors.external import (
    ExternalSelector,
    external_parameters,
    external_selector,
)
from paretostab.selectors.filters import MIMSelector, MRMRSelector, TTestSelector
from paretostab.selectors.hybrid_rfe import BiasedRFE, HybridRFE, transfer_learning_rfe
from paretostab.selectors.kernel_svm import KernelSVMRFE
from paretostab.selectors.linear import ElasticNetSelector, GroupLassoSelector
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

    def parameters(self) -> dict:
        """The parameters a spec fixes or searches, with their defaults (the
        estimator's ``get_params()``)."""
        return self.estimator().get_params()


@dataclass(frozen=True)
class ExternalSelectorInfo(SelectorInfo):
    """A scikit-learn estimator class ``estimator`` that is not a selector of the package
    (a spec's ``"module:Class"``, an entry point's class), wrapped in
    :class:`~paretostab.selectors.external.ExternalSelector`. No default search space;
    its parameters are the class's own ``get_params()`` names and the wrapper's
    ``n_features`` / ``final_reg`` where they apply (:func:`external_parameters`)."""

    def make(self, **params):
        return external_selector(self.estimator, **{**self.fixed, **params})

    def parameters(self) -> dict:
        return external_parameters(self.estimator)


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


#: The entry point group under which installed packages register selectors: each entry
#: loads a :class:`SelectorInfo` or an estimator class, registered under the entry's name.
ENTRY_POINT_GROUP = "paretostab.selectors"


def get_selector(name: str) -> SelectorInfo:
    """The registry entry of ``name``: a name of :data:`SELECTORS`; ``"module:Class"``,
    any scikit-learn estimator class (imported); or the name of an entry point of
    :data:`ENTRY_POINT_GROUP`. Unknown names raise with the closest suggestion; a
    ``"module:Class"`` that cannot be imported, or is not an estimator class, in one line."""
    try:
        return SELECTORS[name]
    except (KeyError, TypeError):
        pass
    if isinstance(name, type):
        raise UnknownNameError(
            f"A selector is named by a string (a spec is stored as text and read again by "
            f"worker processes and the report); give {name.__name__} as "
            f"'{name.__module__}:{name.__qualname__}'.")
    if isinstance(name, str) and ":" in name:
        return _imported_selector(name)
    plugins = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    found = plugins.select(name=name) if isinstance(name, str) else ()
    for entry in found:
        return _plugin_selector(name, entry.load(), f"entry point {entry.value!r}")
    raise UnknownNameError.for_name("selector", name, [*SELECTORS, *plugins.names])


def _imported_selector(name: str) -> SelectorInfo:
    """The selector of ``"module:Class"`` (``Class`` may be dotted: ``Outer.Inner``)."""
    module_name, _, attribute = name.partition(":")
    try:
        found = importlib.import_module(module_name)
    except Exception as exc:  # whatever importing the user's module raises
        raise UnknownNameError(f"Selector {name!r}: cannot import module {module_name!r} "
                               f"({type(exc).__name__}: {exc}).") from None
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise UnknownNameError(f"Selector {name!r}: module {module_name!r} has no "
                                   f"attribute {attribute!r}.") from None
    return _plugin_selector(name, found, "it")


def _plugin_selector(name: str, found: object, where: str) -> SelectorInfo:
    """``found`` (what ``where`` gives) registered as ``name``: a :class:`SelectorInfo`,
    a selector class of the package, or a scikit-learn estimator class (wrapped)."""
    if isinstance(found, SelectorInfo):
        return replace(found, name=name)
    if not (isinstance(found, type) and callable(getattr(found, "fit", None))
            and callable(getattr(found, "get_params", None))):
        raise UnknownNameError(f"Selector {name!r}: {where} is not a scikit-learn estimator "
                               f"class (with fit and get_params); got {found!r}.")
    if issubclass(found, SelectorBase):
        info = SelectorInfo(name, found)
    else:
        info = ExternalSelectorInfo(name, found)
    try:
        info.parameters()
    except Exception as exc:  # whatever the user's constructor raises
        raise UnknownNameError(f"Selector {name!r}: {found.__name__}() fails without "
                               f"arguments ({type(exc).__name__}: {exc}); a selector class "
                               "needs a default for every parameter.") from None
    return info


__all__ = ["ENTRY_POINT_GROUP", "SELECTORS", "BiasedRFE", "ElasticNetSelector",
           "ExternalSelector", "ExternalSelectorInfo", "GroupLassoSelector", "HybridRFE",
           "KernelSVMRFE",
           "MIMSelector", "MRMRSelector",
           "RandomForestSelector", "Range", "ReliefSelector", "SelectorInfo", "TTestSelector",
           "TrainingSample",
           "get_selector", "transfer_learning_rfe"]
