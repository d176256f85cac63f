"""The trial space of a study spec: searched parameters, the selector a trial runs, grids.

A searched parameter (``[selector.search]``) is read into a :class:`Param`: a range
``[low, high]`` (log scale, integer values) or a categorical parameter. With several
selectors the study's categorical parameter :data:`SELECTOR_PARAM` picks the selector and
each selector's parameters are named ``<selector>.<parameter>`` (:func:`param_name`): a
conditional space that :func:`trial_selector` maps back. ``sampler = "grid"`` runs each
point of :func:`grid` once (:func:`check_grid`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from paretostab._errors import InvalidInputError, described
from paretostab._validation import is_int, is_number
from paretostab.spec._keys import SpecErrors, freeze, keys_of
from paretostab.spec._schema import Param, SearchEntry, SelectorSpec, StudySpec

__all__ = ["SELECTOR_PARAM", "check_grid", "fixed_value", "grid", "grid_size",
           "param_kind", "param_name", "parse_param", "trial_selector"]

#: The Optuna parameter holding a multi-selector study's selector (a categorical).
SELECTOR_PARAM = "selector"


# --------------------------------------------------------------------------- parsing


def param_kind(default: object) -> str | None:
    """``"int"`` or ``"float"`` when an estimator's default value says so; None when it
    does not."""
    if is_int(default):
        return "int"
    if isinstance(default, float | np.floating):
        return "float"
    return None


def fixed_value(errors: SpecErrors, key: str, value: object, kind: str | None) -> object:
    """A fixed estimator parameter (``[selector.fixed]``) of :func:`param_kind` ``kind``:
    floats for a float parameter, integers only for an integer one; no tables."""
    if isinstance(value, Mapping):
        raise errors.error(key, f"must be a number, string, boolean or array; got a table "
                                f"{dict(value)!r}.")
    if kind == "int" and not is_int(value):
        raise errors.error(key, f"must be an integer (the estimator's default is an integer); "
                                f"got {described(value)}.")
    if kind == "float":
        if not is_number(value):
            raise errors.error(key, f"must be a number; got {described(value)}.")
        return float(value)
    return value


def parse_param(errors: SpecErrors, key: str, name: str, value: object,
                kind: str | None) -> Param:
    """The searched parameter ``name`` written as ``value`` at ``key`` (a
    :class:`~paretostab.spec._schema.SearchEntry`): integer when ``kind`` is ``"int"``,
    float when ``"float"``, otherwise integer when both bounds are integers."""
    if isinstance(value, Mapping):
        allowed = keys_of(SearchEntry)
        for item in value:
            if item not in allowed:
                raise errors.unknown_key(key, item, allowed)
        if "choices" in value:
            extra = sorted(set(value) - {"choices"})
            if extra:
                raise errors.error(key, f"choices cannot be combined with {', '.join(extra)} "
                                        "(a parameter is either a range or categorical).")
            return Param(name, choices=_choices(errors, f"{key}.choices", value["choices"]))
        missing = [b for b in ("low", "high") if b not in value]
        if missing:
            raise errors.error(key, f"missing {' and '.join(missing)}: write "
                                    "{ low = …, high = … } (optionally log = true) or "
                                    "{ choices = [...] }.")
        low, high, log = value["low"], value["high"], value.get("log", False)
        if not isinstance(log, bool | np.bool_):
            raise errors.error(f"{key}.log", f"must be true or false; got {described(log)}.")
    elif isinstance(value, list | tuple) and len(value) == 2:
        (low, high), log = value, False
    else:
        raise errors.error(key, f"must be [low, high], {{ low = …, high = …, log = true }} or "
                                f"{{ choices = [...] }}; got {described(value)}.")
    for bound, number in (("low", low), ("high", high)):
        if not is_number(number) or not math.isfinite(number):
            raise errors.error(f"{key}.{bound}" if isinstance(value, Mapping) else key,
                               f"{bound} must be a finite number; got {described(number)}.")
    if kind == "int":
        if not (is_int(low) and is_int(high)):
            raise errors.error(key, f"{name} is an integer parameter: write integer bounds; "
                                    f"got [{low!r}, {high!r}].")
        integer = True
    elif kind == "float":
        integer = False
    else:
        integer = is_int(low) and is_int(high)
    low, high = (int(low), int(high)) if integer else (float(low), float(high))
    _check_range(errors, key, low, high, bool(log), integer)
    return Param(name, low, high, log=bool(log), integer=integer)


def _check_range(errors: SpecErrors, key: str, low, high, log: bool, integer: bool) -> None:
    if not low < high:
        raise errors.error(key, f"needs low < high; got low = {low!r}, high = {high!r} (to "
                                "hold a parameter at one value, put it in [selector.fixed]).")
    if log and integer and low < 1:
        raise errors.error(key, "an integer log-scale range needs low >= 1; got low = "
                                f"{low!r}.")
    if log and low <= 0:
        raise errors.error(key, f"a log-scale range needs low > 0; got low = {low!r}.")


def _choices(errors: SpecErrors, key: str, value: object) -> tuple:
    if not isinstance(value, list | tuple) or not value:
        raise errors.error(key, f"must be a non-empty array of values; got {described(value)}.")
    value = tuple(freeze(v) for v in value)  # freeze(value), typed as the tuple it is
    for item in value:
        if not isinstance(item, str | bool | int | float) or (
                isinstance(item, float) and not math.isfinite(item)):
            raise errors.error(key, "each choice must be a string, number or boolean "
                                    f"(what Optuna stores); got {described(item)}.")
    if len({(type(v), v) for v in value}) < len(value):
        raise errors.error(key, f"has repeated values: {list(value)!r}.")
    return tuple(value)


# --------------------------------------------------------------------------- trials


def param_name(spec: StudySpec, selector: SelectorSpec, param: Param) -> str:
    """The Optuna name of ``selector``'s searched ``param``: its own name, or
    ``<selector>.<name>`` in a multi-selector study.

    Parameters
    ----------
    spec : StudySpec
        The study's spec (``selector_choice`` decides).
    selector : SelectorSpec
        One of its selectors.
    param : Param
        One of that selector's searched parameters.
    """
    return f"{selector.name}.{param.name}" if spec.selector_choice else param.name


def trial_selector(spec: StudySpec, params: Mapping[str, object]) -> tuple[SelectorSpec, dict]:
    """The selector a trial with the Optuna parameters ``params`` runs, and its searched
    hyperparameters by their estimator names.

    Parameters
    ----------
    spec : StudySpec
        The study's spec.
    params : mapping
        The trial's Optuna parameters by their Optuna names (:func:`param_name`).
    """
    if not spec.selector_choice:
        return spec.selectors[0], dict(params)
    name = params.get(SELECTOR_PARAM)
    for selector in spec.selectors:
        if selector.name == name:
            own = {p.name: params[param_name(spec, selector, p)] for p in selector.search
                   if param_name(spec, selector, p) in params}
            return selector, own
    raise InvalidInputError(
        f"the trial's selector {name!r} is not one of this study's "
        f"({', '.join(s.name for s in spec.selectors)}).")


def grid(spec: StudySpec) -> dict[str, list]:
    """The search space of ``sampler = "grid"``: the selector choice, or a single
    selector's categorical parameters (Optuna's ``GridSampler``).

    Parameters
    ----------
    spec : StudySpec
        A spec whose searched parameters are all categorical, or that chooses among
        selectors.
    """
    if spec.selector_choice:
        return {SELECTOR_PARAM: [s.name for s in spec.selectors]}
    return {p.name: list(p.categories()) for p in spec.selectors[0].search}


def grid_size(spec: StudySpec) -> int:
    """The number of points of :func:`grid`.

    Parameters
    ----------
    spec : StudySpec
        As :func:`grid`'s.
    """
    return math.prod(len(values) for values in grid(spec).values())


def check_grid(errors: SpecErrors, spec: StudySpec, *, given_trials: bool) -> StudySpec:
    """``spec`` (``sampler = "grid"``) with its trials: :func:`grid` runs each point once,
    every selector at its fixed setting (000 Fig. 6) or one selector's categorical
    parameters. Its trials default to the grid's size and cannot exceed it."""
    ranges = [param_name(spec, s, p) for s in spec.selectors for p in s.search
              if spec.selector_choice or p.choices is None]
    if ranges:
        what = ("with several selectors, each runs at its fixed setting: fix or remove "
                if spec.selector_choice else "every searched parameter must be categorical "
                "({ choices = [...] }) or fixed: ")
        raise errors.error("study.sampler", f"'grid' tries every point of a finite grid; "
                                            f"{what}{', '.join(ranges)}.")
    size = grid_size(spec)
    if not given_trials:
        return replace(spec, trials=size)
    if spec.trials > size:
        raise errors.error("study.trials", f"the grid has {size} points, each run once; got "
                                           f"trials = {spec.trials}.")
    return spec
