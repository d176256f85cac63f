"""Study specs: a TOML file → frozen dataclasses that define an Optuna study completely.

A spec says which data, which resampling protocol, which selector with which fixed
parameters and which search space, and which stability measure to maximise next to the
accuracy. It is validated entirely when it is read — before any data is loaded or any
trial runs: an unknown key, a bad value or an unknown name raises
:class:`~paretostab.errors.InvalidInputError` (or :class:`~paretostab.errors.UnknownNameError`
for names, with the closest suggestion) naming the file, the key with its table
(``selector.search.epsilon``), what is allowed and what was given.

The layout (every table but ``[study]``'s ``name``, ``[data]``'s ``source`` and
``[selector]``'s ``name`` is optional)::

    [study]
    name = "singh_hybrid_rfe"    # the Optuna study name
    trials = 200                 # >= 1
    seed = 0                     # integer >= 0: same spec + seed ⇒ same study
    sampler = "tpe"              # "tpe" | "nsga2" | "gp" | "random" | "grid"
    storage = "sqlite:///x.db"   # an Optuna storage URL; absent = the tuning default

    [data]
    source = "../data/singh.csv.gz"  # load_dataset source; relative to this file's folder
    label = "label"              # the class column of a table
    impute = "median"            # "mean" | "median" | "drop"; absent = missing values fail
    prefilter = 1250             # keep the t highest-variance features (per run)

    [protocol]
    runs = 100                   # M >= 2
    resampling = "bootstrap"     # paretostab.protocol.RESAMPLINGS
    sample_fraction = 0.9        # only with resampling = "subsample"
    metric = "accuracy"          # paretostab.protocol.METRICS
    replicates = 10              # B >= 3, for the report's confidence regions
    n_jobs = 2                   # joblib processes per protocol (results do not depend on it)
    resamples = "shared"         # "shared": every trial on the same M resamples (default);
                                 # "per_trial": each trial draws its own

    [selector]
    name = "hybrid_rfe"          # paretostab.selectors.SELECTORS
    [selector.fixed]             # estimator parameters held fixed
    n_features = 20
    [selector.search]            # overrides / extends the registry's search space
    n_stable = [0, 20]                                # integer bounds: an integer range
    epsilon = { low = 1e-3, high = 1.0, log = true }  # log scale
    criterion = { choices = ["variance", "welch_t"] } # categorical

    # or several selectors: the selector is then a categorical parameter of the study,
    # each with its own fixed parameters and (conditional) search space
    # [selector]
    # name = ["lasso", "svm_rfe", "random_forest"]
    # [selector.fixed.lasso]
    # target_features = 20
    # [selector.search.svm_rfe]
    # reg = { low = 1e-3, high = 1e3, log = true }

    [objective]
    stability = "iw"             # any registered measure (the second objective)
    similarity = "spearman"      # "spearman" | "pearson" | "nmi"; iff a measure needs one
    record = ["nogueira", "pearson", "iw"]   # measured on every trial as well
    [objective.options]          # the stability measure's options (list_measures())
    k = 20

Rules the parser applies:

* The search space is the selector's registry space; ``[selector.search]`` overrides
  ranges by name and adds new ones; a parameter fixed (by the registry or in
  ``[selector.fixed]``) is not searched. Fixing or searching a parameter the registry
  fixes to something else (``n_stable`` of ``logistic_rfe``) is an error: choose the
  selector that has it free.
* Parameter names are checked against ``estimator().get_params()``. A range is integer
  when the estimator's default is an integer, float when the default is a float
  (``reg = [1, 100]`` is then the float range [1.0, 100.0]), and otherwise integer when
  both bounds are TOML integers — so is a registry :class:`~paretostab.selectors.Range`
  with integer bounds. ``low < high``; ``log`` needs ``low > 0`` (``low >= 1`` for
  integers, as Optuna requires).
* With several selectors, each one's tables follow these rules on their own; errors name
  the selector's table (``selector.search.svm_rfe.reg``). Trials record their selector as
  the categorical parameter ``selector`` and its searched parameters as
  ``<selector>.<parameter>``. ``sampler = "grid"`` runs each selector once at its fixed
  setting (000 Fig. 6: one point per method, no search) — every parameter a selector's
  registry searches must then be fixed — or, with one selector, every combination of its
  categorical parameters; ``trials`` defaults to the grid's size.
* A fixed ``groups = "data"`` (group lasso) takes the data set's feature groups (the
  simulated correlated groups; −1 marks a feature in no group).
* One cross-parameter rule: HybridRFE's stable set lies within the selected features,
  ``n_stable <= n_features``; the registry's default ``n_stable`` range is clipped to
  ``n_features``, a range written in the spec that exceeds it is an error.
* The measure options are checked by name, by type, and by evaluating the measure once on
  a tiny synthetic input (so a threshold outside [0, 1] fails here, not in trial 1).
* ``similarity`` is required when the objective or a recorded measure needs one, and
  refused otherwise.
* Relative ``data.source`` paths are resolved against the spec file's folder (or ``base``
  of :func:`parse_spec`); the data are not read here. A ``simulated`` source is drawn with
  seed 0, so that every process and every report of a study sees the same data.

``protocol.resamples`` says how trials draw their M resamples. ``"shared"`` (the
default): every trial of the study runs on the same resamples, seeded from the study's
seed, so that trials are compared on paired data, as the papers compare methods on the
same bootstrap samples (and the selector's own randomness, e.g. a random forest's, is
shared too: common random numbers); their preparation is then computed once per process
(:class:`~paretostab.protocol.RunCache`). ``"per_trial"``: trial t draws its own from
``(seed, t)``. The report's replicates draw fresh resamples either way.

:meth:`StudySpec.content_hash` identifies what the trials compute (data, protocol,
selector, objective, and the seed when the resamples are shared; not the study name,
trial count, sampler, storage, nor ``n_jobs``, which does not change any result), so that
a stored study can be matched with the spec that made it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import os
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from paretostab.data import IMPUTE
from paretostab.errors import InvalidInputError, ParetostabError, UnknownNameError
from paretostab.measures import get_measure, list_measures, stability
from paretostab.protocol import METRICS, RESAMPLINGS
from paretostab.selectors import SELECTORS, get_selector
from paretostab.similarity import _METHODS as _SIMILARITY_METHODS

SAMPLERS = ("tpe", "nsga2", "gp", "random", "grid")
#: A fixed ``groups`` value that takes the data set's feature groups (group lasso).
DATA_GROUPS = "data"
SIMILARITIES = tuple(_SIMILARITY_METHODS)
#: ``load_dataset`` sources that are names, not files (the part before any ``:``).
BUILTIN_SOURCES = ("breast_cancer", "digits", "iris", "simulated", "wine")

_TABLES = ("data", "objective", "protocol", "selector", "study")
_STUDY_KEYS = ("name", "trials", "seed", "sampler", "storage")
_DATA_KEYS = ("source", "label", "impute", "prefilter")
_PROTOCOL_KEYS = ("runs", "resampling", "sample_fraction", "metric", "replicates", "n_jobs",
                  "resamples")
RESAMPLES = ("shared", "per_trial")
_SELECTOR_KEYS = ("name", "fixed", "search")
_OBJECTIVE_KEYS = ("stability", "options", "similarity", "record")
_PARAM_KEYS = ("low", "high", "log", "choices")
_HASH_VERSION = 2


class FrozenMap(Mapping):
    """A read-only, hashable, picklable mapping (sorted by key; lists become tuples)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping | None = None):
        data = {str(k): _freeze(v) for k, v in dict(items or {}).items()}
        self._items = dict(sorted(data.items()))

    def __getitem__(self, key: str) -> object:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __reduce__(self):
        return FrozenMap, (self._items,)


def _freeze(value: object) -> object:
    if isinstance(value, Mapping):
        return FrozenMap(value)
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, np.generic):  # numpy scalars from a mapping: plain, JSON-able
        return value.item()
    return value


@dataclass(frozen=True)
class Param:
    """One hyperparameter of the search space: a range ``[low, high]`` (``log`` scale,
    ``integer`` values) or, with ``choices``, a categorical parameter."""

    name: str
    low: float | None = None
    high: float | None = None
    log: bool = False
    integer: bool = False
    choices: tuple | None = None

    def __post_init__(self):
        if self.choices is not None and not isinstance(self.choices, tuple):
            object.__setattr__(self, "choices", tuple(self.choices))

    def to_value(self) -> object:
        """The TOML form: ``[low, high]``, ``{low, high, log}`` or ``{choices}``."""
        if self.choices is not None:
            return {"choices": list(self.choices)}
        cast = int if self.integer else float
        bounds = [cast(self.low), cast(self.high)]
        return {"low": bounds[0], "high": bounds[1], "log": True} if self.log else bounds


@dataclass(frozen=True)
class DataSpec:
    """The data set: a ``load_dataset`` source and how to read it."""

    source: str
    label: str = "label"
    impute: str | None = None
    prefilter: int | None = None


@dataclass(frozen=True)
class ProtocolSpec:
    """The resampling protocol of every trial (``run_protocol``) and the report's B."""

    runs: int = 30
    resampling: str = "bootstrap"
    metric: str = "accuracy"
    replicates: int = 10
    n_jobs: int = 1
    sample_fraction: float = 0.9
    resamples: str = "shared"


@dataclass(frozen=True)
class SelectorSpec:
    """The selector: a ``SELECTORS`` name, its fixed parameters and its search space."""

    name: str
    fixed: Mapping[str, object] = field(default_factory=FrozenMap)
    search: tuple[Param, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "fixed", FrozenMap(self.fixed))
        object.__setattr__(self, "search", tuple(self.search))


@dataclass(frozen=True)
class ObjectiveSpec:
    """The stability objective (maximised with the protocol's metric) and what else to
    record on every trial."""

    stability: str = "iw"
    options: Mapping[str, object] = field(default_factory=FrozenMap)
    similarity: str | None = None
    record: tuple[str, ...] = ("nogueira", "pearson", "iw")

    def __post_init__(self):
        object.__setattr__(self, "options", FrozenMap(self.options))
        object.__setattr__(self, "record", tuple(self.record))

    @property
    def measures(self) -> tuple[str, ...]:
        """Every measure a trial computes: the objective first, then the recorded ones."""
        return tuple(dict.fromkeys((self.stability, *self.record)))


#: The Optuna parameter holding a multi-selector study's selector (a categorical).
SELECTOR_PARAM = "selector"


@dataclass(frozen=True, kw_only=True)
class StudySpec:
    """A whole study: what the trials compute and how the study is run.

    ``selectors`` holds one :class:`SelectorSpec`, or with ``selector_choice`` (the spec's
    ``[selector] name`` is an array) the selectors a trial chooses among: the study's
    categorical parameter ``selector`` (:data:`SELECTOR_PARAM`), and each selector's own
    searched parameters named ``<selector>.<parameter>`` (a conditional search space:
    ``svm_rfe.reg`` is drawn only by the trials that run ``svm_rfe``).
    """

    name: str
    trials: int = 50
    seed: int | None = 0
    sampler: str = "tpe"
    storage: str | None = None
    data: DataSpec
    protocol: ProtocolSpec
    selectors: tuple[SelectorSpec, ...]
    selector_choice: bool = False
    objective: ObjectiveSpec
    path: Path | None = None

    def __post_init__(self):
        object.__setattr__(self, "selectors", tuple(self.selectors))
        if not self.selectors or (len(self.selectors) > 1 and not self.selector_choice):
            raise InvalidInputError("a study spec needs one selector, or several with "
                                    "selector_choice = True.")

    def param_name(self, selector: SelectorSpec, param: Param) -> str:
        """The Optuna name of ``selector``'s searched ``param``: its own name, or
        ``<selector>.<name>`` in a multi-selector study."""
        return f"{selector.name}.{param.name}" if self.selector_choice else param.name

    def trial_selector(self, params: Mapping[str, object]) -> tuple[SelectorSpec, dict]:
        """The selector a trial with the Optuna parameters ``params`` runs, and its
        searched hyperparameters by their estimator names."""
        if not self.selector_choice:
            return self.selectors[0], dict(params)
        name = params.get(SELECTOR_PARAM)
        for selector in self.selectors:
            if selector.name == name:
                own = {p.name: params[self.param_name(selector, p)] for p in selector.search
                       if self.param_name(selector, p) in params}
                return selector, own
        raise InvalidInputError(
            f"the trial's selector {name!r} is not one of this study's "
            f"({', '.join(s.name for s in self.selectors)}).")

    def estimator(self, params: Mapping[str, object], *, groups=None):
        """The estimator a trial with the Optuna parameters ``params`` fits: its
        selector's registry entry with the fixed parameters and the trial's. A fixed
        ``groups = "data"`` takes the data set's feature ``groups``."""
        selector, own = self.trial_selector(params)
        kwargs = {**selector.fixed, **own}
        if self.takes_data_groups(selector, groups):
            kwargs["groups"] = groups
        return get_selector(selector.name).make(**kwargs)

    def takes_data_groups(self, selector: SelectorSpec, groups) -> bool:
        """Whether ``selector`` takes the data set's feature groups (a fixed ``groups =
        "data"``); raises when it does and the data set has none (``groups`` None)."""
        value = selector.fixed.get("groups")
        if not (isinstance(value, str) and value == DATA_GROUPS):
            return False
        if groups is None:
            raise InvalidInputError(
                f"{selector.name}: groups = {DATA_GROUPS!r} takes the data set's feature "
                f"groups, but {self.data.source!r} has none; give the groups as an array "
                "(one label per feature, -1 for a feature in no group).")
        return True

    def grid(self) -> dict[str, list]:
        """The search space of ``sampler = "grid"``: the selector choice, or a single
        selector's categorical parameters (Optuna's ``GridSampler``)."""
        if self.selector_choice:
            return {SELECTOR_PARAM: [s.name for s in self.selectors]}
        return {p.name: list(p.choices) for p in self.selectors[0].search}

    def grid_size(self) -> int:
        """The number of points of :meth:`grid`."""
        return math.prod(len(values) for values in self.grid().values())

    def content_hash(self) -> str:
        """SHA-256 (hex) of the canonical JSON of data, protocol (without ``n_jobs``),
        selector, objective and, with shared resamples, the seed: equal for specs whose
        trials compute the same thing."""
        payload = {
            "version": _HASH_VERSION,
            "data": _data_dict(self.data),
            "protocol": {k: v for k, v in _protocol_dict(self.protocol).items()
                         if k != "n_jobs"},
            "selector": _selectors_dict(self.selectors, self.selector_choice),
            "objective": {**_objective_dict(self.objective),
                          "record": sorted(set(self.objective.record))},
        }
        if self.protocol.resamples == "shared":
            payload["seed"] = self.seed
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def to_dict(self) -> dict:
        """The spec as a JSON-able mapping in the TOML layout; ``parse_spec`` of it gives
        an equal spec (the search space and fixed parameters written out in full)."""
        study = {"name": self.name, "trials": self.trials, "seed": self.seed,
                 "sampler": self.sampler}
        if self.storage is not None:
            study["storage"] = self.storage
        return {"study": study, "data": _data_dict(self.data),
                "protocol": _protocol_dict(self.protocol),
                "selector": _selectors_dict(self.selectors, self.selector_choice),
                "objective": _objective_dict(self.objective)}


def _data_dict(data: DataSpec) -> dict:
    return {k: v for k, v in {"source": data.source, "label": data.label,
                              "impute": data.impute, "prefilter": data.prefilter}.items()
            if v is not None}


def _protocol_dict(protocol: ProtocolSpec) -> dict:
    out = {"runs": protocol.runs, "resampling": protocol.resampling,
           "metric": protocol.metric, "replicates": protocol.replicates,
           "n_jobs": protocol.n_jobs, "resamples": protocol.resamples}
    if protocol.resampling == "subsample":
        out["sample_fraction"] = protocol.sample_fraction
    return out


def _thaw(value: object) -> object:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_thaw(v) for v in value]
    return value


def _selector_dict(selector: SelectorSpec) -> dict:
    return {"name": selector.name, "fixed": _thaw(selector.fixed),
            "search": {p.name: p.to_value() for p in sorted(selector.search,
                                                             key=lambda p: p.name)}}


def _selectors_dict(selectors: tuple[SelectorSpec, ...], choice: bool) -> dict:
    """The ``[selector]`` table: one selector's, or the multi-selector layout."""
    if not choice:
        return _selector_dict(selectors[0])
    tables = {s.name: _selector_dict(s) for s in selectors}
    return {"name": list(tables),
            "fixed": {name: t["fixed"] for name, t in tables.items() if t["fixed"]},
            "search": {name: t["search"] for name, t in tables.items() if t["search"]}}


def _objective_dict(objective: ObjectiveSpec) -> dict:
    out = {"stability": objective.stability, "options": _thaw(objective.options),
           "record": list(objective.record)}
    if objective.similarity is not None:
        out["similarity"] = objective.similarity
    return out


# --------------------------------------------------------------------------- errors


class _Where:
    """Builds errors that name the spec's source and the dotted key."""

    def __init__(self, source: str):
        self.source = source

    def error(self, key: str, message: str) -> InvalidInputError:
        return InvalidInputError(f"{self.source}: {key}: {message}")

    def unknown_key(self, table: str | None, key: object, allowed,
                    what: str | None = None) -> UnknownNameError:
        allowed = sorted(allowed)
        close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        if table is None:
            return UnknownNameError(
                f"{self.source}: unknown table [{key}].{hint} Allowed tables: "
                f"{', '.join(f'[{t}]' for t in allowed)}.")
        return UnknownNameError(
            f"{self.source}: {table}.{key}: {what or f'unknown key in [{table}]'}.{hint} "
            f"Allowed keys: {', '.join(allowed) or 'none'}.")

    def unknown_name(self, key: str, kind: str, name: object, known) -> UnknownNameError:
        return UnknownNameError(
            f"{self.source}: {key}: {UnknownNameError.for_name(kind, name, known)}")

    def wrap(self, key: str, exc: ParetostabError) -> ParetostabError:
        return type(exc)(f"{self.source}: {key}: {exc}")


def _is_int(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _is_number(value: object) -> bool:
    return (isinstance(value, int | float | np.integer | np.floating)
            and not isinstance(value, bool | np.bool_))


def _table(where: _Where, key: str, value: object, allowed, what: str | None = None) -> dict:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise where.error(key, f"must be a table ([{key}]); got {value!r}.")
    for name in value:
        if name not in allowed:
            raise where.unknown_key(key, name, allowed, what)
    return dict(value)


def _int(where: _Where, key: str, value: object, minimum: int, what: str = "") -> int:
    if not _is_int(value) or value < minimum:
        raise where.error(key, f"must be an integer >= {minimum}{what}; got {value!r}.")
    return int(value)


def _text(where: _Where, key: str, value: object, what: str = "a non-empty string") -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value.strip():
        raise where.error(key, f"must be {what}; got {value!r}.")
    return value


def _choice(where: _Where, key: str, value: object, allowed, kind: str) -> str:
    if value not in allowed or not isinstance(value, str):
        raise where.unknown_name(key, kind, value, allowed)
    return value


# --------------------------------------------------------------------------- tables


def _parse_study(where: _Where, table: dict) -> dict:
    if "name" not in table:
        raise where.error("study.name", "missing: every spec needs [study] name = \"…\" "
                                        "(the Optuna study name).")
    out = {"name": _text(where, "study.name", table["name"])}
    if "trials" in table:
        out["trials"] = _int(where, "study.trials", table["trials"], 1)
    if "seed" in table:
        seed = table["seed"]
        if seed is not None:
            seed = _int(where, "study.seed", seed, 0)
        out["seed"] = seed
    if "sampler" in table:
        out["sampler"] = _choice(where, "study.sampler", table["sampler"], SAMPLERS, "sampler")
    if table.get("storage") is not None:
        out["storage"] = _text(where, "study.storage", table["storage"],
                               "an Optuna storage URL (e.g. 'sqlite:///study.db')")
    return out


def _resolve_source(source: str, base: Path | None) -> str:
    if source.partition(":")[0] in BUILTIN_SOURCES:
        return source
    path = Path(source).expanduser()
    if path.is_absolute() or base is None:
        return str(path)
    return os.path.normpath(Path(base).expanduser().absolute() / path)


def _parse_data(where: _Where, table: dict, base: Path | None) -> DataSpec:
    if "source" not in table:
        raise where.error("data.source", "missing: [data] needs source = a data file "
                                         "(.csv, .csv.gz, .parquet, .npz; relative to the "
                                         f"spec's folder) or one of {', '.join(BUILTIN_SOURCES)}.")
    out: dict = {"source": _resolve_source(_text(where, "data.source", table["source"]), base)}
    if "label" in table:
        out["label"] = _text(where, "data.label", table["label"])
    if table.get("impute") is not None:
        out["impute"] = _choice(where, "data.impute", table["impute"], IMPUTE, "impute")
    if table.get("prefilter") is not None:
        out["prefilter"] = _int(where, "data.prefilter", table["prefilter"], 1,
                                " (the number of highest-variance features kept)")
    return DataSpec(**out)


def _parse_protocol(where: _Where, table: dict) -> ProtocolSpec:
    out: dict = {}
    if "runs" in table:
        out["runs"] = _int(where, "protocol.runs", table["runs"], 2)
    if "resampling" in table:
        out["resampling"] = _choice(where, "protocol.resampling", table["resampling"],
                                    RESAMPLINGS, "resampling")
    if "sample_fraction" in table:
        if out.get("resampling") != "subsample":
            raise where.error("protocol.sample_fraction",
                              "only used with resampling = 'subsample' (the bootstrap draws "
                              "as many examples as there are); remove it.")
        value = table["sample_fraction"]
        if not _is_number(value) or not 0 < value < 1:
            raise where.error("protocol.sample_fraction",
                              f"must be a number in (0, 1); got {value!r}.")
        out["sample_fraction"] = float(value)
    if "metric" in table:
        out["metric"] = _choice(where, "protocol.metric", table["metric"], METRICS, "metric")
    if "replicates" in table:
        out["replicates"] = _int(where, "protocol.replicates", table["replicates"], 3,
                                 " (Hotelling's confidence ellipses need B >= 3)")
    if "resamples" in table:
        out["resamples"] = _choice(where, "protocol.resamples", table["resamples"], RESAMPLES,
                                   "resamples")
    if "n_jobs" in table:
        value = table["n_jobs"]
        if not _is_int(value) or value == 0:
            raise where.error("protocol.n_jobs",
                              f"must be a non-zero integer (-1: all cores); got {value!r}.")
        out["n_jobs"] = int(value)
    return ProtocolSpec(**out)


def _param_kind(default: object) -> str | None:
    """'int' or 'float' when the estimator's default says so; None when it does not."""
    if _is_int(default):
        return "int"
    if isinstance(default, float | np.floating):
        return "float"
    return None


def _fixed_value(where: _Where, key: str, value: object, kind: str | None) -> object:
    if isinstance(value, Mapping):
        raise where.error(key, f"must be a number, string, boolean or array; got a table "
                               f"{dict(value)!r}.")
    if kind == "int" and not _is_int(value):
        raise where.error(key, f"must be an integer (the estimator's default is an integer); "
                               f"got {value!r}.")
    if kind == "float":
        if not _is_number(value):
            raise where.error(key, f"must be a number; got {value!r}.")
        return float(value)
    return value


def _parse_param(where: _Where, key: str, name: str, value: object,
                 kind: str | None) -> Param:
    if isinstance(value, Mapping):
        for item in value:
            if item not in _PARAM_KEYS:
                raise where.unknown_key(key, item, _PARAM_KEYS)
        if "choices" in value:
            extra = sorted(set(value) - {"choices"})
            if extra:
                raise where.error(key, f"choices cannot be combined with {', '.join(extra)} "
                                       "(a parameter is either a range or categorical).")
            return Param(name, choices=_choices(where, f"{key}.choices", value["choices"]))
        missing = [b for b in ("low", "high") if b not in value]
        if missing:
            raise where.error(key, f"missing {' and '.join(missing)}: write "
                                   "{ low = …, high = … } (optionally log = true) or "
                                   "{ choices = [...] }.")
        low, high, log = value["low"], value["high"], value.get("log", False)
        if not isinstance(log, bool | np.bool_):
            raise where.error(f"{key}.log", f"must be true or false; got {log!r}.")
    elif isinstance(value, list | tuple) and len(value) == 2:
        (low, high), log = value, False
    else:
        raise where.error(key, f"must be [low, high], {{ low = …, high = …, log = true }} or "
                               f"{{ choices = [...] }}; got {value!r}.")
    for bound, number in (("low", low), ("high", high)):
        if not _is_number(number) or not math.isfinite(number):
            raise where.error(f"{key}.{bound}" if isinstance(value, Mapping) else key,
                              f"{bound} must be a finite number; got {number!r}.")
    if kind == "int":
        if not (_is_int(low) and _is_int(high)):
            raise where.error(key, f"{name} is an integer parameter: write integer bounds; "
                                   f"got [{low!r}, {high!r}].")
        integer = True
    elif kind == "float":
        integer = False
    else:
        integer = _is_int(low) and _is_int(high)
    low, high = (int(low), int(high)) if integer else (float(low), float(high))
    _check_range(where, key, low, high, bool(log), integer)
    return Param(name, low, high, log=bool(log), integer=integer)


def _check_range(where: _Where, key: str, low, high, log: bool, integer: bool) -> None:
    if not low < high:
        raise where.error(key, f"needs low < high; got low = {low!r}, high = {high!r} (to "
                               "hold a parameter at one value, put it in [selector.fixed]).")
    if log and integer and low < 1:
        raise where.error(key, f"an integer log-scale range needs low >= 1; got low = {low!r}.")
    if log and low <= 0:
        raise where.error(key, f"a log-scale range needs low > 0; got low = {low!r}.")


def _choices(where: _Where, key: str, value: object) -> tuple:
    if not isinstance(value, list | tuple) or not value:
        raise where.error(key, f"must be a non-empty array of values; got {value!r}.")
    value = _freeze(value)
    for item in value:
        if not isinstance(item, str | bool | int | float) or (
                isinstance(item, float) and not math.isfinite(item)):
            raise where.error(key, "each choice must be a string, number or boolean "
                                   f"(what Optuna stores); got {item!r}.")
    if len({(type(v), v) for v in value}) < len(value):
        raise where.error(key, f"has repeated values: {list(value)!r}.")
    return tuple(value)


def _parse_selectors(where: _Where, table: dict) -> tuple[tuple[SelectorSpec, ...], bool]:
    """The spec's selectors, and whether the study chooses among them (``name`` a list:
    then ``[selector.fixed.<name>]`` and ``[selector.search.<name>]`` hold each one's)."""
    if "name" not in table:
        raise where.error("selector.name", f"missing: [selector] needs name = one of "
                                           f"{', '.join(sorted(SELECTORS))}, or an array of "
                                           "them to compare selectors.")
    names = table["name"]
    if not isinstance(names, list | tuple):
        try:
            info = get_selector(names)
        except UnknownNameError as exc:
            raise where.wrap("selector.name", exc) from None
        return (_parse_selector(where, info, table.get("fixed"), table.get("search"),
                                "selector"),), False
    if not names:
        raise where.error("selector.name", "must name at least one selector; got [].")
    infos = []
    for index, name in enumerate(names):
        try:
            infos.append(get_selector(name))
        except UnknownNameError as exc:
            raise where.wrap(f"selector.name[{index}]", exc) from None
        if infos[-1].name in [info.name for info in infos[:-1]]:
            raise where.error(f"selector.name[{index}]", f"{name!r} is named twice.")
    listed = [info.name for info in infos]
    tables = {}
    for part in ("fixed", "search"):
        tables[part] = _table(
            where, f"selector.{part}", table.get(part), listed,
            f"not a selector of selector.name (with several selectors, [selector.{part}] "
            f"holds one table per selector: [selector.{part}.<selector>])")
    return tuple(_parse_selector(where, info, tables["fixed"].get(info.name),
                                 tables["search"].get(info.name), f"selector.{info.name}")
                 for info in infos), True


def _parse_selector(where: _Where, info, fixed_value: object, search_value: object,
                    prefix: str) -> SelectorSpec:
    """One selector's fixed parameters and search space; ``prefix`` names its tables in
    errors (``selector`` → ``selector.fixed.reg``; ``selector.lasso`` → the multi-selector
    layout's ``selector.fixed.lasso.reg``)."""
    defaults = info.estimator().get_params()
    label = f"{info.name} ({info.estimator.__name__})"
    what = f"not a parameter of {label}"
    head, _, own = prefix.partition(".")
    fixed_key = f"{head}.fixed" + (f".{own}" if own else "")
    search_key = f"{head}.search" + (f".{own}" if own else "")
    fixed_table = _table(where, fixed_key, fixed_value, defaults, what)
    search_table = _table(where, search_key, search_value, defaults, what)

    fixed = dict(info.fixed)
    for name, value in fixed_table.items():
        key = f"{fixed_key}.{name}"
        value = _fixed_value(where, key, value, _param_kind(defaults[name]))
        if name in info.fixed and _freeze(info.fixed[name]) != _freeze(value):
            raise where.error(key, f"{label} fixes {name} = {info.fixed[name]!r} (that is "
                                   f"what makes it {info.name}); got {value!r}. Choose a "
                                   "selector with it free (e.g. hybrid_rfe).")
        fixed[name] = value

    search: dict[str, Param] = {}
    registry_names: set[str] = set()
    for name, rng in info.search_space.items():
        if name in fixed:
            continue
        kind = _param_kind(defaults.get(name))
        integer = kind == "int" or (kind is None and _is_int(rng.low) and _is_int(rng.high))
        cast = int if integer else float
        search[name] = Param(name, cast(rng.low), cast(rng.high), log=rng.log, integer=integer)
        registry_names.add(name)
    for name, value in search_table.items():
        key = f"{search_key}.{name}"
        if name in fixed_table:
            raise where.error(key, f"{name} is also in [{fixed_key}]: a parameter is "
                                   "either fixed or searched.")
        if name in info.fixed:
            raise where.error(key, f"{label} fixes {name} = {info.fixed[name]!r} (that is "
                                   f"what makes it {info.name}); it cannot be searched. "
                                   "Choose a selector with it free (e.g. hybrid_rfe).")
        search[name] = _parse_param(where, key, name, value, _param_kind(defaults[name]))
        registry_names.discard(name)
    _check_stable_set(where, defaults, fixed, search, registry_names, fixed_key, search_key)
    return SelectorSpec(info.name, FrozenMap(fixed),
                        tuple(sorted(search.values(), key=lambda p: p.name)))


def _check_stable_set(where: _Where, defaults: dict, fixed: dict, search: dict[str, Param],
                      registry_names: set[str], fixed_key: str, search_key: str) -> None:
    """n_stable <= n_features (HybridRFE's S_N lies within the k selected features)."""
    if "n_stable" not in defaults or "n_features" not in defaults:
        return
    if "n_features" in search:
        param = search["n_features"]
        k = param.low if param.choices is None else min(
            (v for v in param.choices if _is_number(v)), default=None)
        k_text = f"the smallest n_features searched ({k!r})"
    else:
        k = fixed.get("n_features", defaults["n_features"])
        k_text = f"n_features = {k!r}"
    if not _is_number(k):
        return
    if "n_stable" in fixed:
        value = fixed["n_stable"]
        if _is_number(value) and value > k:
            raise where.error(f"{fixed_key}.n_stable",
                              f"n_stable must be <= {k_text} (the stable set lies within the "
                              f"selected features); got {value!r}.")
        return
    param = search.get("n_stable")
    if param is None:
        return
    top = param.high if param.choices is None else max(
        (v for v in param.choices if _is_number(v)), default=None)
    if top is None or top <= k:
        return
    if "n_stable" in registry_names and param.low < k:
        search["n_stable"] = Param("n_stable", param.low, int(k) if param.integer else k,
                                   log=param.log, integer=param.integer)
        return
    raise where.error(f"{search_key}.n_stable",
                      f"n_stable must be <= {k_text} (the stable set lies within the selected "
                      f"features); the range reaches {top!r}.")


def _check_option_value(where: _Where, key: str, value: object, default: object) -> object:
    value = _freeze(value)
    if isinstance(default, bool):
        ok, what = isinstance(value, bool), "true or false"
    elif _is_int(default):
        ok, what = _is_int(value), "an integer"
    elif isinstance(default, float):
        ok, what = _is_number(value), "a number"
        value = float(value) if ok else value
    elif isinstance(default, str):
        ok, what = isinstance(value, str), "a string"
    else:
        ok, what = isinstance(value, str | bool | int | float), "a number, string or boolean"
    if not ok:
        raise where.error(key, f"must be {what} (default {default!r}); got {value!r}.")
    return value


def _try_measure(where: _Where, name: str, options: dict) -> None:
    """Evaluate the measure once on tiny synthetic runs: the measure's own validation of
    its option values (ranges, allowed strings) then fails now, not in the first trial."""
    info = get_measure(name)
    k = options.get("k")
    d = max(8, int(k) + 2) if _is_int(k) else 8
    rng = np.random.default_rng(0)
    Z = np.zeros((3, d), dtype=bool)
    for row in Z:
        row[rng.choice(d, size=d // 2, replace=False)] = True
    data = {"selection": Z, "importance": Z * rng.uniform(0.5, 2.0, Z.shape),
            "ranking": np.argsort(rng.random((3, d)), axis=1) + 1}[info.input]
    trial = dict(options)
    if _is_int(trial.get("n_samples")):  # keep the Monte-Carlo of the dry run tiny
        trial["n_samples"] = min(int(trial["n_samples"]), 10)
    extra = {"similarity": np.eye(d)} if info.needs_similarity else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stability(name, data, **extra, **trial)
    except ParetostabError as exc:
        raise where.wrap("objective.options", exc) from None


def _parse_objective(where: _Where, table: dict) -> ObjectiveSpec:
    out: dict = {}
    name = table.get("stability", "iw")
    try:
        info = get_measure(name)
    except UnknownNameError as exc:
        raise where.wrap("objective.stability", exc) from None
    out["stability"] = info.name
    options = _table(where, "objective.options", table.get("options"), info.options,
                     f"not an option of measure {info.name!r}")
    for option, value in options.items():
        key = f"objective.options.{option}"
        options[option] = _check_option_value(where, key, value, info.options[option])
        if option == "k":
            _int(where, key, options[option], 1, " (the top-k features compared)")
    if options:
        _try_measure(where, info.name, options)
    out["options"] = FrozenMap(options)
    record = table.get("record", ObjectiveSpec.record)
    if not isinstance(record, list | tuple):
        raise where.error("objective.record",
                          f"must be an array of measure names; got {record!r}.")
    for index, measure in enumerate(record):
        try:
            get_measure(measure)
        except UnknownNameError as exc:
            raise where.wrap(f"objective.record[{index}]", exc) from None
    out["record"] = tuple(dict.fromkeys(record))
    users = [m for m in (info.name, *out["record"]) if get_measure(m).needs_similarity]
    similarity = table.get("similarity")
    if similarity is None and users:
        users = list(dict.fromkeys(users))
        verb = "needs" if len(users) == 1 else "need"
        raise where.error("objective.similarity",
                          f"missing: {' and '.join(users)} {verb} a feature similarity; add "
                          f"similarity = one of {', '.join(SIMILARITIES)} to [objective].")
    if similarity is not None:
        if not users:
            needing = [m for m in list_measures().index if get_measure(m).needs_similarity]
            raise where.error("objective.similarity",
                              f"no measure of this spec uses a similarity (given "
                              f"{similarity!r}); remove it, or record a measure that uses "
                              f"one: {', '.join(needing)}.")
        out["similarity"] = _choice(where, "objective.similarity", similarity, SIMILARITIES,
                                    "similarity method")
    return ObjectiveSpec(**out)


# --------------------------------------------------------------------------- entry points


def parse_spec(mapping: Mapping, *, base: Path | None = None,
               source: str = "<dict>") -> StudySpec:
    """Validate a spec given as a mapping in the TOML layout (see the module docstring).

    Parameters
    ----------
    mapping : mapping
        Tables ``study``, ``data``, ``protocol``, ``selector``, ``objective``.
    base : Path, optional
        The folder relative ``data.source`` paths are resolved against; by default they
        are kept as given (relative to the working directory when the data are loaded).
    source : str
        Where the mapping came from, for the error messages.
    """
    where = _Where(source)
    if not isinstance(mapping, Mapping):
        raise InvalidInputError(f"{source}: a spec must be a mapping of tables "
                                f"({', '.join(_TABLES)}); got {type(mapping).__name__}.")
    top = dict(mapping)
    for name in top:
        if name not in _TABLES:
            raise where.unknown_key(None, name, _TABLES)
    for name in ("study", "data", "selector"):
        if name not in top:
            raise where.error(f"[{name}]", "missing table: a spec needs [study], [data] and "
                                           "[selector] (optional: [protocol], [objective]).")
    study = _parse_study(where, _table(where, "study", top["study"], _STUDY_KEYS))
    data = _parse_data(where, _table(where, "data", top["data"], _DATA_KEYS), base)
    protocol = _parse_protocol(where, _table(where, "protocol", top.get("protocol"),
                                             _PROTOCOL_KEYS))
    selectors, choice = _parse_selectors(where, _table(where, "selector", top["selector"],
                                                       _SELECTOR_KEYS))
    objective = _parse_objective(where, _table(where, "objective", top.get("objective"),
                                               _OBJECTIVE_KEYS))
    spec = StudySpec(**study, data=data, protocol=protocol, selectors=selectors,
                     selector_choice=choice, objective=objective)
    if spec.sampler == "grid":
        spec = _check_grid(where, spec, given_trials="trials" in study)
    return spec


def _check_grid(where: _Where, spec: StudySpec, given_trials: bool) -> StudySpec:
    """``sampler = "grid"`` runs each point of :meth:`StudySpec.grid` once: every selector
    at its fixed setting (000 Fig. 6), or one selector's categorical parameters. Its
    trials default to the grid's size and cannot exceed it."""
    ranges = [f"{spec.param_name(s, p)}" for s in spec.selectors for p in s.search
              if spec.selector_choice or p.choices is None]
    if ranges:
        what = ("with several selectors, each runs at its fixed setting: fix or remove "
                if spec.selector_choice else "every searched parameter must be categorical "
                "({ choices = [...] }) or fixed: ")
        raise where.error("study.sampler", f"'grid' tries every point of a finite grid; {what}"
                                           f"{', '.join(ranges)}.")
    size = spec.grid_size()
    if not given_trials:
        return replace(spec, trials=size)
    if spec.trials > size:
        raise where.error("study.trials", f"the grid has {size} points, each run once; got "
                                          f"trials = {spec.trials}.")
    return spec


def with_objective(spec: StudySpec, measure: str) -> StudySpec:
    """``spec`` tuned for another stability ``measure`` (a registry name): the same data,
    protocol, selectors and recorded measures, in a study named ``<name>_<measure>`` —
    the comparison of 003 Fig. 11 (one space tuned for φ, φ_pears and φ_iw). Its options
    are those of the spec that apply to it.
    Validated as a spec is (a measure that needs a similarity needs the spec's)."""
    mapping = spec.to_dict()
    objective = mapping["objective"]
    try:
        info = get_measure(measure)
    except UnknownNameError as exc:
        raise InvalidInputError(f"objective: {exc}") from None
    objective["options"] = {k: v for k, v in objective["options"].items() if k in info.options}
    objective["stability"] = info.name
    mapping["study"]["name"] = f"{spec.name}_{info.name}"
    source = str(spec.path) if spec.path else "<spec>"
    return replace(parse_spec(mapping, source=f"{source} with objective {info.name}"),
                   path=spec.path)


def load_spec(path: str | os.PathLike) -> StudySpec:
    """Read and validate the TOML study spec at ``path`` (see the module docstring)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise InvalidInputError("Reading TOML specs needs Python >= 3.11 (tomllib) or "
                                    "the tomli package: pip install tomli.") from None
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            mapping = tomllib.load(handle)
    except FileNotFoundError:
        raise InvalidInputError(f"No study spec {str(path)!r}: the file does not exist."
                                ) from None
    except IsADirectoryError:
        raise InvalidInputError(f"{path}: is a folder; give a .toml study spec.") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"{path}: not valid TOML: {exc}.") from None
    absolute = path.expanduser().absolute()
    spec = parse_spec(mapping, base=absolute.parent, source=str(path))
    return replace(spec, path=Path(os.path.normpath(absolute)))


def _studies_folder() -> Path:
    import paretostab

    return Path(paretostab.__file__).resolve().parents[1] / "studies"


def builtin_spec_names() -> tuple[str, ...]:
    """Names of the specs in the repository's ``studies/`` folder."""
    folder = _studies_folder()
    return tuple(sorted(p.stem for p in folder.glob("*.toml"))) if folder.is_dir() else ()


def builtin_spec_path(name: str = "quickstart") -> Path:
    """The repository's ``studies/<name>.toml``."""
    folder = _studies_folder()
    if not folder.is_dir():
        raise InvalidInputError(
            f"No built-in study {name!r}: the studies/ folder ({folder}) is missing — the "
            "built-in specs live in the source repository (install it with pip install -e "
            ".), or give the path of a spec file.")
    stem = name[:-5] if isinstance(name, str) and name.endswith(".toml") else name
    path = folder / f"{stem}.toml"
    if not isinstance(stem, str) or not path.is_file():
        raise UnknownNameError.for_name("built-in study", name, builtin_spec_names())
    return path


__all__ = ["BUILTIN_SOURCES", "DATA_GROUPS", "RESAMPLES", "SAMPLERS", "SELECTOR_PARAM",
           "SIMILARITIES", "DataSpec", "ObjectiveSpec", "Param", "ProtocolSpec", "SelectorSpec",
           "StudySpec", "builtin_spec_names", "builtin_spec_path", "load_spec", "parse_spec",
           "with_objective"]
