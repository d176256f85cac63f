"""Feature selectors: scikit-learn estimators exposing ``support_``, ``importances_``,
``ranking_``/``rank_order_`` and a fitted final model (``predict``/``score``).

``SELECTORS`` is the registry: name → estimator class, and the hyperparameters a tuning
study searches by default (plain data: ``(low, high, log)`` ranges; the tuning module
turns them into Optuna distributions). :func:`get_selector` also finds the selectors
that installed packages register under the entry point group ``paretostab.selectors``,
and any scikit-learn estimator class named ``"module:Class"``
(:class:`~paretostab.selectors.ExternalSelector`).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import math
import sys
from dataclasses import dataclass, field, replace

import numpy as np

from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab.selectors._base import SelectorBase, TrainingSample, groups_follow_columns
from paretostab.selectors._external import (
    ExternalSelector,
    external_parameters,
    external_selector,
    gives_importances,
)
from paretostab.selectors._filters import MIMSelector, MRMRSelector, TTestSelector
from paretostab.selectors._hybrid_rfe import BiasedRFE, HybridRFE, transfer_learning_rfe
from paretostab.selectors._kernel_svm import KernelSVMRFE
from paretostab.selectors._linear import ElasticNetSelector, GroupLassoSelector
from paretostab.selectors._other import RandomForestSelector, ReliefSelector


@dataclass(frozen=True)
class Range:
    """A hyperparameter range: integers when both bounds are ints; ``log`` scale optional.

    Attributes
    ----------
    low, high : int or float
        The bounds, both included (Optuna's ``suggest_int`` / ``suggest_float``).
    log : bool
        Sample on a log scale (default False: uniform).
    """

    low: float
    high: float
    log: bool = False


@dataclass(frozen=True)
class SelectorInfo:
    """A registered selector: its estimator class, the parameters a study fixes and the
    ranges it searches by default (a spec's ``[selector.fixed]`` and
    ``[selector.search]`` add to and override them).

    Attributes
    ----------
    name : str
        The registry name (a :data:`SELECTORS` key; ``"module:Class"`` or an entry
        point's name for one not of the package).
    estimator : type
        The estimator class, made by :meth:`make`.
    fixed : dict
        Parameters held fixed, by their ``get_params()`` names (default none).
    search_space : dict of str to Range
        The default search space by parameter name (default none).
    """

    name: str
    estimator: type
    fixed: dict[str, object] = field(default_factory=dict)
    search_space: dict[str, Range] = field(default_factory=dict)

    def make(self, **params: object) -> SelectorBase:
        """An estimator with the fixed parameters, overridden by ``params``."""
        return self.estimator(**{**self.fixed, **params})

    def parameters(self) -> dict:
        """The parameters a spec fixes or searches, with their defaults (the
        estimator's ``get_params()``)."""
        return self.estimator().get_params()

    def gives_importances(self) -> bool | None:
        """Whether its runs have importances (``importances_``): a selector of the package
        gives them (True); None when only a fit tells (an external estimator's own final
        model: :class:`ExternalSelectorInfo`)."""
        return True


@dataclass(frozen=True)
class ExternalSelectorInfo(SelectorInfo):
    """A scikit-learn estimator class ``estimator`` that is not a selector of the package
    (a spec's ``"module:Class"``, an entry point's class), wrapped in
    :class:`~paretostab.selectors.ExternalSelector`. No default search space;
    its parameters are the class's own ``get_params()`` names and the wrapper's
    ``n_features`` / ``final_reg`` where they apply (:func:`external_parameters`).

    Attributes
    ----------
    name, estimator, fixed, search_space
        As :class:`SelectorInfo`'s; ``search_space`` is empty."""

    def make(self, **params: object) -> SelectorBase:
        return external_selector(self.estimator, **{**self.fixed, **params})

    def parameters(self) -> dict:
        return external_parameters(self.estimator)

    def gives_importances(self) -> bool | None:
        """Whether its runs have importances, as far as the class tells (None: its fitted
        model decides; :func:`~paretostab.selectors._external.gives_importances`)."""
        return gives_importances(self.estimator)


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
    any scikit-learn estimator class (imported), or that class itself (the entry is then
    named by :func:`class_reference`); or the name of an entry point of
    :data:`ENTRY_POINT_GROUP`. An instance is refused: it carries parameters
    (:func:`selector_reference` turns it into a name and fixed parameters). Unknown
    names raise with the closest suggestion; a ``"module:Class"`` that cannot be
    imported, or is not an estimator class, in one line.

    Parameters
    ----------
    name : str or type
        The selector's name, or an estimator class."""
    try:
        return SELECTORS[name]
    except (KeyError, TypeError):
        pass
    if isinstance(name, type):
        return _imported_selector(class_reference(name))
    if callable(getattr(name, "get_params", None)):
        raise UnknownNameError(
            f"A selector instance carries parameters, which a registry entry does not hold: "
            f"give {type(name).__name__} to get_selector as a class, or the instance as a "
            f"spec's [selector] name (parse_spec: its parameters become [selector.fixed]); "
            f"got {name!r}.")
    if isinstance(name, str) and ":" in name:
        return _imported_selector(name)
    plugins = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    found = plugins.select(name=name) if isinstance(name, str) else ()
    for entry in found:
        return _plugin_selector(name, entry.load(), f"entry point {entry.value!r}")
    raise UnknownNameError.for_name("selector", name, [*SELECTORS, *plugins.names])


def class_reference(estimator_class: type) -> str:
    """How a spec names ``estimator_class``: ``"module:Class"``, with the shortest module of
    its package that exports the class — ``"sklearn.feature_selection:SelectKBest"``, as
    scikit-learn's documentation imports it, not its private ``_univariate_selection`` —
    so that the name reads as a person writes it and the spec's hash is the same either way.

    Parameters
    ----------
    estimator_class : type
        A class importable at module level.

    Raises
    ------
    UnknownNameError
        For a class that no import finds again (defined inside a function): a study
        stores its selector as this text, which worker processes and the report import.
    """
    qualname, module = estimator_class.__qualname__, estimator_class.__module__
    parts = module.split(".")
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        found = sys.modules.get(prefix)
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if found is estimator_class:
            return f"{prefix}:{qualname}"
    raise UnknownNameError(
        f"Selector {estimator_class.__name__}: the class is defined where no import finds it "
        f"({module}:{qualname}); a study stores its selector as 'module:Class' text, which "
        "worker processes and the report import again: define the class at the top level "
        "of a module.")


_NOT_PLAIN = object()


def _plain(value: object) -> object:
    """``value`` as a spec holds it (a number, string, boolean, None, or an array of
    them); :data:`_NOT_PLAIN` for anything else (an estimator, a function, a table)."""
    if value is None or isinstance(value, bool | np.bool_ | str):
        return value.item() if isinstance(value, np.bool_) else value
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else _NOT_PLAIN
    if isinstance(value, list | tuple | np.ndarray):
        items = [_plain(item) for item in value]
        return _NOT_PLAIN if any(item is _NOT_PLAIN for item in items) else items
    return _NOT_PLAIN


def _same(value: object, default: object) -> bool:
    """Whether a parameter's ``value`` is its ``default`` (plain values by value)."""
    if value is default:
        return True
    plain, known = _plain(value), _plain(default)
    return (plain is not _NOT_PLAIN and known is not _NOT_PLAIN and plain == known
            and isinstance(plain, bool) == isinstance(known, bool))


def selector_reference(selector: object) -> tuple[str, dict]:
    """How a spec's ``[selector]`` holds a selector given in Python: its name and fixed
    parameters.

    A class is its ``"module:Class"`` (:func:`class_reference`), without parameters; an
    instance is its class's name and the parameters of its ``get_params(deep=False)``
    that differ from the class's defaults; an :class:`ExternalSelector` is its
    estimator's, with its own ``n_features`` and ``final_reg`` when set. The spec then
    stores text, as if the file had written ``name = "module:Class"`` and
    ``[selector.fixed]``: the study is resumable and its hash is the same either way.

    Parameters
    ----------
    selector : estimator class or instance
        A selector of the package, a scikit-learn estimator, or an
        :class:`ExternalSelector`.

    Raises
    ------
    UnknownNameError
        When the class is not a selector :func:`get_selector` takes.
    InvalidInputError
        When a parameter set on the instance is not a number, string, boolean or array
        of them (an estimator inside, a function): a spec cannot store it.
    """
    if isinstance(selector, ExternalSelector):
        name, params = selector_reference(selector.estimator)
        own = {key: value for key, value, default in (
            ("n_features", selector.n_features, None), ("final_reg", selector.final_reg, 1.0))
            if not _same(value, default)}
        return name, {**own, **params}
    estimator_class: type[object] = selector if isinstance(selector, type) else type(selector)
    name = class_reference(estimator_class)
    get_params = None if isinstance(selector, type) else getattr(selector, "get_params", None)
    if not callable(get_params):
        get_selector(name)  # not an estimator: refused in one line
        return name, {}
    defaults = {key: parameter.default for key, parameter in
                inspect.signature(estimator_class.__init__).parameters.items()
                if parameter.default is not inspect.Parameter.empty}
    given: dict[str, object] = get_params(deep=False)
    changed = {key: value for key, value in given.items()
               if key not in defaults or not _same(value, defaults[key])}
    bad = [key for key, value in changed.items() if _plain(value) is _NOT_PLAIN]
    if bad:
        shown = ", ".join(f"{key}={changed[key]!r}" for key in bad)
        raise InvalidInputError(
            f"{estimator_class.__name__}({shown}): a study stores its selector as text (to "
            f"resume it and re-run its trials), and {' and '.join(bad)} "
            f"{'is' if len(bad) == 1 else 'are'} not a number, string, boolean or array of "
            f"them: define in a module a subclass whose constructor has these values as its "
            f"defaults, and give that class (or its \"module:Class\").")
    get_selector(name)
    return name, {key: _plain(value) for key, value in changed.items()}


def protocol_selector(selector: object) -> object:
    """The selector :func:`~paretostab._protocol.run_protocol` runs for ``selector``: a
    selector of the package as it is; a scikit-learn selector (one with ``get_support()``,
    ``SelectKBest``, ``RFE``, ...) wrapped in :class:`ExternalSelector`, as a spec's
    ``"module:Class"`` is; any other estimator as it is (it sets ``support_`` when fitted).

    Parameters
    ----------
    selector : estimator instance
        What :func:`~paretostab._protocol.run_protocol` was given.

    Raises
    ------
    InvalidInputError
        For a class (the protocol fits instances), and for a scikit-learn estimator that
        does not select (no ``get_support()``: a classifier), naming
        :class:`ExternalSelector`, which keeps its features of largest weight.
    """
    if isinstance(selector, SelectorBase):
        return selector
    if isinstance(selector, type):
        raise InvalidInputError(
            f"run_protocol needs a selector instance; got the class {selector.__name__}: "
            f"give {selector.__name__}(...).")
    if callable(getattr(selector, "get_support", None)):
        return ExternalSelector(selector)
    if type(selector).__module__.partition(".")[0] == "sklearn":
        name = type(selector).__name__
        raise InvalidInputError(
            f"{name} does not select features (it has no get_support()); give "
            f"ExternalSelector({name}(...), n_features=k) "
            "(paretostab.selectors.ExternalSelector), which keeps its k features of largest "
            "|coef_| or feature_importances_.")
    return selector


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
           "TrainingSample", "class_reference",
           "get_selector", "groups_follow_columns", "protocol_selector", "selector_reference",
           "transfer_learning_rfe"]
