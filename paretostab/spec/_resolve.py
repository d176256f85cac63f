"""The checks of a spec that need the registries.

:mod:`paretostab.spec._schema` checks each key on its own; here the ``[selector]`` and
``[objective]`` tables are checked against what is registered:

* selector names (``paretostab.selectors.SELECTORS``, an installed package's entry point,
  or a scikit-learn estimator class ``"module:Class"``: ``get_selector``), their fixed
  parameters and search space against the selector's parameters (``SelectorInfo.
  parameters()``: its estimator's ``get_params()``) and the registry's fixed parameters
  and space, and HybridRFE's ``n_stable <= n_features``;
* measure names (``paretostab.measures``), the objective's options by name, by type and
  by evaluating the measure once on a tiny synthetic input;
* the similarity: required when a measure needs one, refused otherwise.

Once the data are loaded, :func:`fit_to_data` clips the registry's default ranges to
the data and checks what else depends on their size:
the pre-filter, the selectors' feature counts and per-feature arrays, a top-k measure's
``k`` (:class:`~paretostab._problem.Problem` calls it before a study is opened).

The selector registry is imported by the functions that read it: it imports every
selector's estimator (scikit-learn), which reading a spec's other keys does not need.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paretostab._errors import ParetostabError, UnknownNameError, described
from paretostab._validation import is_int, is_number
from paretostab.measures import get_measure, list_measures, stability
from paretostab.spec._keys import (
    FrozenMap,
    Integer,
    SpecErrors,
    check_table,
    freeze,
)
from paretostab.spec._schema import SIMILARITIES, ObjectiveSpec, Param, SelectorSpec, StudySpec
from paretostab.spec._space import fixed_value, param_kind, parse_param

if TYPE_CHECKING:
    from paretostab.selectors import SelectorInfo

__all__ = ["FEATURE_COUNTS", "SELECTOR_FEATURE_COUNTS", "fit_to_data", "resolve_objective",
           "stable_set_limit",
           "resolve_selectors"]

_TOP_K = Integer(1, " (the top-k features compared)")


# --------------------------------------------------------------------------- selectors


def resolve_selectors(errors: SpecErrors,
                      table: dict) -> tuple[tuple[SelectorSpec, ...], bool]:
    """The spec's selectors from the checked ``[selector]`` table, and whether the study
    chooses among them (``name`` an array: ``[selector.fixed.<name>]`` and
    ``[selector.search.<name>]`` then hold each one's)."""
    names = table["name"]
    if not isinstance(names, list | tuple):
        info, given = _named(errors, "selector.name", names)
        return (_selector(errors, info, _with_given(table.get("fixed"), given,
                                                    table.get("search")),
                          table.get("search"), "selector"),), False
    if not names:
        raise errors.error("selector.name", "must name at least one selector; got [].")
    infos, given = [], {}
    for index, name in enumerate(names):
        info, given_params = _named(errors, f"selector.name[{index}]", name)
        infos.append(info)
        given[info.name] = given_params
        if infos[-1].name in [info.name for info in infos[:-1]]:
            raise errors.error(f"selector.name[{index}]", f"{info.name!r} is named twice.")
    listed = [info.name for info in infos]
    tables = {}
    for part in ("fixed", "search"):
        tables[part] = check_table(
            errors, f"selector.{part}", table.get(part), listed,
            f"not a selector of selector.name (with several selectors, [selector.{part}] "
            f"holds one table per selector: [selector.{part}.<selector>])")
    return tuple(_selector(errors, info,
                           _with_given(tables["fixed"].get(info.name), given[info.name],
                                       tables["search"].get(info.name)),
                           tables["search"].get(info.name), f"selector.{info.name}")
                 for info in infos), True


def _named(errors: SpecErrors, key: str, name: object) -> tuple[SelectorInfo, dict]:
    """The registry entry of a ``[selector] name`` and the fixed parameters it brings: a
    name brings none; a class given in Python is named ``"module:Class"``, an instance
    too, with the parameters set on it (:func:`~paretostab.selectors.selector_reference`)."""
    from paretostab.selectors import get_selector, selector_reference

    try:
        if isinstance(name, str):
            return get_selector(name), {}
        reference, params = selector_reference(name)
        return get_selector(reference), params
    except ParetostabError as exc:
        raise errors.wrap(key, exc) from None


def _with_given(fixed_table: object, given: dict, search_table: object) -> object:
    """A selector's ``[selector.fixed]`` table with the parameters set on an instance
    given as its name: the table's own values win, a searched parameter is searched."""
    if not given or not (fixed_table is None or isinstance(fixed_table, Mapping)):
        return fixed_table
    searched = search_table if isinstance(search_table, Mapping) else {}
    return {**{k: v for k, v in given.items() if k not in searched}, **(fixed_table or {})}


def _selector(errors: SpecErrors, info, fixed_table: object, search_table: object,
              prefix: str) -> SelectorSpec:
    """One selector's fixed parameters and search space; ``prefix`` names its tables in
    errors (``selector`` → ``selector.fixed.reg``; ``selector.lasso`` → the multi-selector
    layout's ``selector.fixed.lasso.reg``)."""
    defaults = info.parameters()
    label = f"{info.name} ({info.estimator.__name__})"
    what = f"not a parameter of {label}"
    head, _, own = prefix.partition(".")
    fixed_key = f"{head}.fixed" + (f".{own}" if own else "")
    search_key = f"{head}.search" + (f".{own}" if own else "")
    fixed_table = check_table(errors, fixed_key, fixed_table, defaults, what)
    search_table = check_table(errors, search_key, search_table, defaults, what)

    fixed = dict(info.fixed)
    for name, value in fixed_table.items():
        key = f"{fixed_key}.{name}"
        value = fixed_value(errors, key, value, param_kind(defaults[name]))
        if name in info.fixed and freeze(info.fixed[name]) != freeze(value):
            raise errors.error(key, f"{label} fixes {name} = {info.fixed[name]!r} (that is "
                                    f"what makes it {info.name}); got {described(value)}. Choose a "
                                    "selector with it free (e.g. hybrid_rfe).")
        fixed[name] = value

    search: dict[str, Param] = {}
    for name, rng in info.search_space.items():
        if name in fixed:
            continue
        kind = param_kind(defaults.get(name))
        integer = kind == "int" or (kind is None and is_int(rng.low) and is_int(rng.high))
        cast = int if integer else float
        search[name] = Param(name, cast(rng.low), cast(rng.high), log=rng.log, integer=integer,
                             registry=True)
    for name, value in search_table.items():
        key = f"{search_key}.{name}"
        if name in fixed_table:
            raise errors.error(key, f"{name} is also in [{fixed_key}]: a parameter is "
                                    "either fixed or searched.")
        if name in info.fixed:
            raise errors.error(key, f"{label} fixes {name} = {info.fixed[name]!r} (that is "
                                    f"what makes it {info.name}); it cannot be searched. "
                                    "Choose a selector with it free (e.g. hybrid_rfe).")
        search[name] = parse_param(errors, key, name, value, param_kind(defaults[name]))
    _check_stable_set(errors, info.estimator, defaults, fixed, search, fixed_key, search_key)
    return SelectorSpec(info.name, FrozenMap(fixed),
                        tuple(sorted(search.values(), key=lambda p: p.name)))


def _check_stable_set(errors: SpecErrors, estimator: type, defaults: dict, fixed: dict,
                      search: dict[str, Param], fixed_key: str, search_key: str) -> None:
    """n_stable <= n_features (HybridRFE's S_N lies within the k selected features): a
    value or range the spec writes beyond k refused; the registry's default range clipped
    to k, or to k − 1 where N = k ignores the labels (:func:`stable_set_limit`)."""
    if "n_stable" not in defaults or "n_features" not in defaults:
        return
    if "n_features" in search:
        param = search["n_features"]
        k = param.low if param.choices is None else min(
            (v for v in param.choices if is_number(v)), default=None)
        k_text = f"the smallest n_features searched ({k!r})"
    else:
        k = fixed.get("n_features", defaults["n_features"])
        k_text = f"n_features = {k!r}"
    if not is_number(k):
        return
    if "n_stable" in fixed:
        value = fixed["n_stable"]
        if is_number(value) and value > k:
            raise errors.error(f"{fixed_key}.n_stable",
                               f"n_stable must be <= {k_text} (the stable set lies within the "
                               f"selected features); got {described(value)}.")
        return
    stable = search.get("n_stable")
    if stable is None:
        return
    top = stable.high if stable.choices is None else max(
        (v for v in stable.choices if is_number(v)), default=None)
    if stable.registry:
        limit = stable_set_limit(estimator, k, fixed, search, defaults)
        if top is not None and top > limit:
            search["n_stable"] = replace(stable, low=min(stable.bounds()[0], limit),
                                         high=int(limit) if stable.integer else limit)
        return
    if top is not None and top > k:
        raise errors.error(f"{search_key}.n_stable",
                           f"n_stable must be <= {k_text} (the stable set lies within the "
                           f"selected features); the range reaches {top!r}.")


def stable_set_limit(estimator: type, k: float, fixed: Mapping[str, object],
                     search: Mapping[str, Param], defaults: Mapping[str, object]) -> float:
    """The top of the registry's default ``n_stable`` range for ``k`` selected features:
    k, or k − 1 when a stable set as large as the selection can select the same features
    whatever the labels — its criterion, fixed or searched, ranks by a label-free score
    (:meth:`~paretostab.selectors.HybridRFE.stable_set_uses_labels`): N = k is then a
    variance filter, a setting no default space should offer (a spec may search it by
    writing the range, as the papers' reproductions do: 003 §7.2 searches N up to k)."""
    uses_labels = getattr(estimator, "stable_set_uses_labels", None)
    if uses_labels is None:
        return k
    criterion = search.get("criterion")
    if criterion is None:
        values = [fixed.get("criterion", defaults.get("criterion"))]
    else:  # every criterion searched; a mix weight's range: its lowest weight
        values = (list(criterion.categories()) if criterion.choices is not None
                  else [criterion.bounds()[0]])
    return k if all(uses_labels(value) for value in values) else k - 1


# --------------------------------------------------------------------------- the data


#: The estimator parameters that count features, by name: their smallest value and what
#: they count. The selectors validate them against the d features they are fitted on
#: (after the pre-filter); :func:`fit_to_data` does so before a study opens.
#: (HybridRFE's ``n_stable`` is within ``n_features``, which the spec checks.)
FEATURE_COUNTS = {"n_features": (1, "the features selected"),
                  "target_features": (1, "the features the penalty is calibrated to select")}

#: The feature counts of scikit-learn's selectors (a spec's ``"module:Class"`` with
#: ``get_support()``): ``SelectKBest``'s ``k``, ``RFE``'s / ``RFECV``'s /
#: ``SequentialFeatureSelector``'s ``n_features_to_select``, ``SelectFromModel``'s
#: ``max_features``. Checked and clipped as :data:`FEATURE_COUNTS` when they are integers
#: (a float is a fraction of the features; ``"all"``, ``"auto"``, None count none).
SELECTOR_FEATURE_COUNTS = {"k": (1, "the features kept"),
                           "n_features_to_select": (1, "the features selected"),
                           "max_features": (1, "the most features kept")}


@dataclass(frozen=True)
class _DataSize:
    """What an error says of the data: ``name: n = … samples, d = … features``."""

    name: str
    n_samples: int
    n_features: int
    prefilter: int | None

    @property
    def seen(self) -> int:
        """The features each run's selector sees: the pre-filter's, else all."""
        return self.prefilter or self.n_features

    def __str__(self) -> str:
        after = f", {self.prefilter} kept by data.prefilter" if self.prefilter else ""
        plural = "s" if self.n_features != 1 else ""
        return (f"{self.name}: n = {self.n_samples} samples, d = {self.n_features} "
                f"feature{plural}{after}")


def fit_to_data(spec: StudySpec, n_samples: int,
                n_features: int) -> tuple[StudySpec, tuple[str, ...]]:
    """``spec`` fitted to its data's size: the registry's default ranges clipped, the
    spec's own limits checked.

    A selector's default search range of a feature count (:data:`FEATURE_COUNTS`, e.g. the
    lasso's ``target_features`` in [5, 50]) that reaches beyond the d features its runs see
    (after the pre-filter) is clipped to ``[min(low, d), d]``, an estimator's default count
    beyond d that the spec neither fixes nor searches (HybridRFE's ``n_features = 20``,
    SelectKBest's ``k = 10``) is fixed to d, and HybridRFE's default ``n_stable`` range
    follows ``n_features``: the returned spec has those values, and the study stores it.
    Everything the spec gives itself is checked and refused when the data cannot take it:
    the data have at least 2 features; the pre-filter keeps at most ``n_features``; every
    selector's feature counts (fixed, or searched in a range the spec wrote; a scikit-learn
    selector's ``k``, ``n_features_to_select``, ``max_features`` when integers:
    :data:`SELECTOR_FEATURE_COUNTS`) lie within d, ``n_stable`` within an ``n_features``
    clipped to d, and its per-feature arrays (``groups``: one label per feature of the data;
    ``beta``, ``prior``: of the d features) fit; a top-k measure's ``objective.options.k``
    is at most ``n_features`` (the runs rank every feature). These are the limits the
    protocol, the selectors and the measures check inside each trial: a spec fitted here
    does not fail every trial for its data's size. (The samples per class are checked when
    the data are loaded.)

    Parameters
    ----------
    spec : StudySpec
    n_samples, n_features : int
        The size of the spec's data, as loaded.

    Returns
    -------
    spec : StudySpec
        ``spec`` itself when nothing was clipped.
    notes : tuple of str
        One line per clipped range, as a person reads it (``tune`` prints them).

    Raises
    ------
    InvalidInputError
        For the first key the data cannot take, as the spec file names it
        (``selector.fixed.n_features``, ``selector.search.lasso.target_features``),
        with what is allowed, what was given and the data's size.
    """
    errors = SpecErrors(str(spec.path) if spec.path else "<spec>")
    prefilter = spec.data.prefilter
    size = _DataSize(Path(spec.data.source).name, n_samples, n_features, None)
    if n_features < 2:
        raise errors.error("data.source", f"selecting features needs at least 2 features; "
                                          f"the data have {n_features} ({size}).")
    if prefilter is not None and prefilter > n_features:
        raise errors.error("data.prefilter", f"must be at most {n_features}, the data's "
                                             f"features ({size}); got {described(prefilter)}.")
    size = replace(size, prefilter=prefilter)
    selectors, notes = [], []
    for selector in spec.selectors:
        selector, clipped = _clip_default_counts(errors, spec, selector, size)
        notes.extend(clipped)
        selectors.append(selector)
        _check_counts(errors, spec, selector, size)
        _check_arrays(errors, spec, selector, size)
    k = spec.objective.options.get("k")
    if is_int(k) and k > n_features:
        raise errors.error("objective.options.k", f"must be at most {n_features}, the "
                                                  f"features ranked ({size}); got {described(k)}.")
    if not notes:
        return spec, ()
    return replace(spec, selectors=tuple(selectors)), tuple(notes)


def _feature_counts(info) -> dict[str, tuple[int, str, bool]]:
    """The feature counts of a selector's parameters: name → (smallest value, what it
    counts, whether only an integer value is a count): :data:`FEATURE_COUNTS`, and for a
    scikit-learn selector (``"module:Class"`` with ``get_support()``)
    :data:`SELECTOR_FEATURE_COUNTS`."""
    from paretostab.selectors import ExternalSelectorInfo

    parameters = info.parameters()
    counts = {name: (*bounds, False) for name, bounds in FEATURE_COUNTS.items()
              if name in parameters}
    if isinstance(info, ExternalSelectorInfo) and hasattr(info.estimator, "get_support"):
        counts.update({name: (*bounds, True) for name, bounds in SELECTOR_FEATURE_COUNTS.items()
                       if name in parameters})
    return counts


def _penalised(selector: SelectorSpec, defaults: dict) -> bool:
    """Whether ``selector`` has its penalty λ given (fixed or searched): its estimator does
    not use ``target_features`` then."""
    return any(param.name == "reg" for param in selector.search) or selector.fixed.get(
        "reg", defaults.get("reg")) is not None


def _clip_default_counts(errors: SpecErrors, spec: StudySpec, selector: SelectorSpec,
                         size: _DataSize) -> tuple[SelectorSpec, list[str]]:
    """``selector`` with its defaults of a feature count clipped to the d features its
    runs see, and a line per clipped value: the registry's default ranges of
    :data:`FEATURE_COUNTS` to ``[min(low, d), d]``; an estimator's default count the spec
    does not set (HybridRFE's ``n_features = 20``, SelectKBest's ``k = 10``) fixed to d;
    then HybridRFE's default ``n_stable`` range within ``n_features``
    (:func:`_clip_stable_set`)."""
    from paretostab.selectors import get_selector

    info = get_selector(selector.name)
    d = size.seen
    fixed_key, search_key = _table_keys(spec, selector)
    search, notes = [], []
    for param in selector.search:
        if param.name in FEATURE_COUNTS and param.choices is None and param.integer:
            first, last = param.bounds()
            if param.registry and last > d:
                low = min(first, d)
                notes.append(f"{search_key}.{param.name}: the selector's default range "
                             f"[{first}, {last}] clipped to [{low}, {d}] ({size})")
                param = replace(param, low=low, high=d)
        search.append(param)
    parameters = info.parameters()
    searched = {param.name for param in search}
    fixed = dict(selector.fixed)
    for name in _feature_counts(info):
        value = parameters[name]
        if (name in fixed or name in searched or not is_int(value) or value <= d
                or (name == "target_features" and _penalised(selector, parameters))):
            continue
        fixed[name] = d
        notes.append(f"{fixed_key}.{name}: {selector.name}'s default {name} = {value} is more "
                     f"than the data have: set to {d}, every feature each run's selector sees "
                     f"({size}); set {name} in [{fixed_key}] to select fewer")
    selector = replace(selector, fixed=FrozenMap(fixed), search=tuple(search))
    return _clip_stable_set(errors, spec, selector, notes)


def _clip_stable_set(errors: SpecErrors, spec: StudySpec, selector: SelectorSpec,
                     notes: list[str]) -> tuple[SelectorSpec, list[str]]:
    """HybridRFE's ``n_stable <= n_features`` once ``n_features`` is fitted to the data:
    the registry's default ``n_stable`` range clipped to it — to ``n_features − 1`` when
    its stable set is ranked by a label-free criterion, as N = k is then a variance filter
    that selects the same features whatever the labels, a setting no default space should
    offer — and said; a ``n_stable`` the spec sets or searches beyond an ``n_features``
    clipped to the data refused (a range the spec wrote is searched as written)."""
    from paretostab.selectors import get_selector

    info = get_selector(selector.name)
    parameters = info.parameters()
    default = info.search_space.get("n_stable")
    if "n_stable" not in parameters or "n_features" not in parameters:
        return selector, notes
    fixed_key, search_key = _table_keys(spec, selector)
    searched = {param.name: param for param in selector.search}
    k: object
    if "n_features" in searched:
        features = searched["n_features"]
        k = features.low if features.choices is None else min(
            (v for v in features.choices if is_number(v)), default=None)
    else:
        k = selector.fixed.get("n_features", parameters["n_features"])
    if not is_number(k):
        return selector, notes
    k_text = f"n_features = {k!r}" + (
        " (its default clipped to the data)"
        if any(note.startswith(f"{fixed_key}.n_features:") for note in notes) else "")
    why = f"n_stable <= {k_text}: the stable set lies within the selected features"
    value = selector.fixed.get("n_stable")
    if is_number(value) and value > k:
        raise errors.error(f"{fixed_key}.n_stable", f"must be <= {k_text}, as the stable "
                                                    f"set lies within the selected features; "
                                                    f"got {described(value)}.")
    param = searched.get("n_stable")
    if param is None or param.choices is not None or default is None:
        return selector, notes
    low, high = param.bounds()
    if not param.registry:  # a range the spec wrote: searched as written, within k
        if high > k:
            raise errors.error(f"{search_key}.n_stable",
                               f"n_stable must be <= {k_text}, as the stable set lies "
                               f"within the selected features; the range reaches "
                               f"{high!r}.")
        return selector, notes
    limit = stable_set_limit(info.estimator, k, selector.fixed, searched, parameters)
    if high <= limit:
        return selector, notes
    clipped = replace(param, low=min(low, limit), high=int(limit) if param.integer else limit)
    selector = replace(selector, search=tuple(clipped if p.name == "n_stable" else p
                                              for p in selector.search))
    why = f"n_stable <= {k_text}: the stable set lies within the selected features"
    if limit < k:
        why = (f"n_stable < {k_text}: with a stable set ranked by variance, N = k is a "
               "variance filter, which selects the same features whatever the labels; "
               f"write n_stable in [{search_key}] to search it")
    notes.append(f"{search_key}.n_stable: the selector's default range [{default.low}, "
                 f"{default.high}] clipped to [{clipped.low}, {clipped.high}] ({why})")
    return selector, notes


def _table_keys(spec: StudySpec, selector: SelectorSpec) -> tuple[str, str]:
    """How the spec file names ``selector``'s fixed and searched tables."""
    own = f".{selector.name}" if spec.selector_choice else ""
    return f"selector.fixed{own}", f"selector.search{own}"


def _check_counts(errors: SpecErrors, spec: StudySpec, selector: SelectorSpec,
                  size: _DataSize) -> None:
    """``selector``'s feature counts (:func:`_feature_counts`) within ``[low, d]``: a fixed
    value, the estimator's default, every value a range or choices can draw (of a count
    that may be other than an integer, its integer values)."""
    from paretostab.selectors import get_selector

    info = get_selector(selector.name)
    defaults = info.parameters()
    searched = {param.name: param for param in selector.search}
    fixed_key, search_key = _table_keys(spec, selector)
    d = size.seen
    for name, (low, meaning, ints_only) in _feature_counts(info).items():
        if name == "target_features" and _penalised(selector, defaults):
            continue  # a penalty λ given: the estimator does not use target_features
        valid = f"an integer in [{low}, {d}]"
        why = f"{meaning}, of the {d} features each run's selector sees ({size})"
        param = searched.get(name)
        if param is not None:
            if ints_only and param.choices is None and not param.integer:
                continue  # a range of fractions
            if ints_only and param.choices is not None:
                param = replace(param, choices=tuple(v for v in param.choices if is_int(v)))
            _check_count_param(errors, f"{search_key}.{name}", param, (low, d),
                               f"{valid}, {why}")
            continue
        value = selector.fixed.get(name, defaults[name])
        if value is None or (is_int(value) and low <= value <= d) or (
                ints_only and not is_int(value)):
            continue
        if name in selector.fixed:
            raise errors.error(f"{fixed_key}.{name}",
                               f"must be {valid}, {why}; got {described(value)}.")
        raise errors.error(f"{fixed_key}.{name}",
                           f"{selector.name}'s default {name} = {value!r} is more than the "
                           f"data have: it must be {valid}, {why}; set {name} in "
                           f"[{fixed_key}].")


def _check_count_param(errors: SpecErrors, key: str, param: Param, bounds: tuple[int, int],
                       valid: str) -> None:
    """Every value the searched count ``param`` can draw is an integer in ``bounds`` (the
    selector's default range named as such: :attr:`~paretostab.spec.Param.registry`)."""
    low, d = bounds
    if param.choices is not None:
        bad = [value for value in param.choices if not (is_int(value) and low <= value <= d)]
        if bad:
            raise errors.error(key, f"every choice must be {valid}; got {_listed(bad)}.")
        return
    first, last = param.bounds()
    if param.integer and low <= first and last <= d:
        return
    whose = " (the selector's default range)" if param.registry else ""
    hint = (f"; e.g. {param.name} = [{first}, {d}] in [{key.rpartition('.')[0]}]"
            if param.integer and low <= first < d else "")
    raise errors.error(key, f"the range [{first!r}, {last!r}]{whose} must draw "
                            f"{valid}{hint}.")


def _listed(values: list) -> str:
    """Values for a message: the first 5, and how many more."""
    more = f" and {len(values) - 5} more" if len(values) > 5 else ""
    return ", ".join(map(repr, values[:5])) + more


def _check_arrays(errors: SpecErrors, spec: StudySpec, selector: SelectorSpec,
                  size: _DataSize) -> None:
    """Fixed per-feature arrays: ``groups`` holds one label per feature of the data (the
    protocol takes each run's pre-filtered ones), ``beta`` one value per feature a run's
    selector sees, ``prior`` indices of those features."""
    fixed_key, _ = _table_keys(spec, selector)
    d = size.seen
    expected = {"groups": (size.n_features, "feature of the data"),
                "beta": (d, "feature each run's selector sees")}
    for name, (length, what) in expected.items():
        value = selector.fixed.get(name)
        if isinstance(value, tuple) and len(value) != length:
            raise errors.error(f"{fixed_key}.{name}",
                               f"must hold one value per {what}, {length} ({size}); got "
                               f"{len(value)}.")
    prior = selector.fixed.get("prior")
    outside = [f for f in prior if not (is_int(f) and 0 <= f < d)] \
        if isinstance(prior, tuple) else []
    if outside:
        raise errors.error(f"{fixed_key}.prior",
                           f"must hold feature indices in [0, {d}), of the features each "
                           f"run's selector sees ({size}); got {_listed(outside)}.")


# --------------------------------------------------------------------------- objective


def resolve_objective(errors: SpecErrors, table: dict) -> ObjectiveSpec:
    """The objective from the checked ``[objective]`` table: its measure names, the
    stability measure's options and the similarity requirement."""
    try:
        info = get_measure(table.get("stability", ObjectiveSpec.stability))
    except UnknownNameError as exc:
        raise errors.wrap("objective.stability", exc) from None
    options = check_table(errors, "objective.options", table.get("options"), info.options,
                          f"not an option of measure {info.name!r}")
    for option, value in options.items():
        key = f"objective.options.{option}"
        options[option] = _option_value(errors, key, value, info.options[option])
        if option == "k":
            _TOP_K.check(errors, key, options[option])
    if options:
        _try_measure(errors, info.name, options)
    record = table.get("record", ObjectiveSpec.record)
    for index, measure in enumerate(record):
        try:
            get_measure(measure)
        except UnknownNameError as exc:
            raise errors.wrap(f"objective.record[{index}]", exc) from None
    record = tuple(dict.fromkeys(record))
    similarity = table.get("similarity")
    _check_similarity(errors, (info.name, *record), similarity)
    return ObjectiveSpec(info.name, FrozenMap(options), similarity, record)


def _option_value(errors: SpecErrors, key: str, value: object, default: object) -> object:
    """A measure option of the type of its ``default``."""
    value = freeze(value)
    if isinstance(default, bool):
        ok, what = isinstance(value, bool), "true or false"
    elif is_int(default):
        ok, what = is_int(value), "an integer"
    elif isinstance(default, float):
        ok, what = is_number(value), "a number"
        value = float(value) if is_number(value) else value
    elif isinstance(default, str):
        ok, what = isinstance(value, str), "a string"
    else:
        ok, what = isinstance(value, str | bool | int | float), "a number, string or boolean"
    if not ok:
        raise errors.error(key, f"must be {what} (default {default!r}); got {described(value)}.")
    return value


def _try_measure(errors: SpecErrors, name: str, options: dict) -> None:
    """Evaluate the measure once on tiny synthetic runs: the measure's own validation of
    its option values (ranges, allowed strings) then fails now, not in the first trial."""
    info = get_measure(name)
    k = options.get("k")
    d = max(8, int(k) + 2) if is_int(k) else 8
    rng = np.random.default_rng(0)
    Z = np.zeros((3, d), dtype=bool)
    for row in Z:
        row[rng.choice(d, size=d // 2, replace=False)] = True
    data = {"selection": Z, "importance": Z * rng.uniform(0.5, 2.0, Z.shape),
            "ranking": np.argsort(rng.random((3, d)), axis=1) + 1}[info.input]
    trial = dict(options)
    if is_int(trial.get("n_samples")):  # keep the Monte-Carlo of the dry run tiny
        trial["n_samples"] = min(int(trial["n_samples"]), 10)
    similarity = np.eye(d) if info.needs_similarity else None  # None: stability's default
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stability(name, data, similarity=similarity, **trial)
    except ParetostabError as exc:
        raise errors.wrap("objective.options", exc) from None


def _check_similarity(errors: SpecErrors, measures: tuple[str, ...],
                      similarity: str | None) -> None:
    """``objective.similarity`` is given exactly when one of ``measures`` needs one."""
    users = list(dict.fromkeys(m for m in measures if get_measure(m).needs_similarity))
    if similarity is None and users:
        verb = "needs" if len(users) == 1 else "need"
        raise errors.error("objective.similarity",
                           f"missing: {' and '.join(users)} {verb} a feature similarity; add "
                           f"similarity = one of {', '.join(SIMILARITIES)} to [objective].")
    if similarity is not None and not users:
        needing = [m for m in list_measures().index if get_measure(m).needs_similarity]
        raise errors.error("objective.similarity",
                           f"no measure of this spec uses a similarity (given "
                           f"{similarity!r}); remove it, or record a measure that uses "
                           f"one: {', '.join(needing)}.")
