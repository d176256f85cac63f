"""The spec's schema: every key of the TOML tables declared once.

Each table is a frozen dataclass (:class:`StudySpec` holds the ``[study]`` keys,
:class:`DataSpec` the ``[data]`` keys, and so on) whose fields are declared with
:func:`~paretostab.spec._keys.declare`: default, kind, one line of documentation and the
rules that involve other keys, as data. For example::

    replicates: int = declare(10, Integer(3, " (Hotelling's confidence ellipses need B >= 3)"),
                              "B, the report's replicates of a front trial (confidence regions).")

Everything else is derived from these declarations: :func:`parse_table` (keys, types,
bounds, unknown keys with "did you mean", missing keys, ``only_with``), :func:`to_dict`,
:func:`content_hash` (the keys declared part of the identity), :func:`json_schema` (for
TOML editors; committed as ``spec.schema.json`` by :func:`write_json_schema`) and
:func:`reference_table` (the Markdown table of every key).

Why not pydantic or msgspec: every install of the package reads specs, and a schema library
would be a new dependency of the core for a few dozen keys; the error messages stay ours
(the file, the dotted key path, "did you mean", the allowed values, what was given, and
domain hints such as "Hotelling's confidence ellipses need B >= 3"); and the objects passed
around stay plain frozen, hashable, picklable dataclasses. The checks that need the
registries (selector and measure names, estimator parameters, measure options, the
similarity requirement) are in :mod:`paretostab.spec._resolve`; the trial space is in
:mod:`paretostab.spec._space`.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from paretostab._data_formats import FILE_TYPES, ORIENTATIONS
from paretostab._errors import InvalidInputError
from paretostab._similarity import METHODS as SIMILARITY_METHODS
from paretostab._validation import PAIRED_RUNS, is_int, is_number
from paretostab._vocabulary import METRICS, RESAMPLINGS
from paretostab.data import IMPUTE
from paretostab.spec._keys import (
    SCALAR,
    Boolean,
    Choice,
    Fraction,
    FrozenMap,
    Integer,
    Key,
    Names,
    Number,
    Registered,
    SearchSpace,
    SpecErrors,
    Table,
    Text,
    Values,
    When,
    check_table,
    declare,
    freeze,
    inline_code,
    keys_of,
    thaw,
)

__all__ = [
    "BUILTIN_SOURCES", "DATA_GROUPS", "MEMORY_SOURCE", "RESAMPLES", "SAMPLERS", "SCHEMA_FILE",
    "SIMILARITIES", "TABLES", "DataSpec", "FrozenMap", "ObjectiveSpec", "Param", "ProtocolSpec",
    "SearchEntry", "SelectorSpec", "SpecErrors", "StudySpec", "check_option", "content_hash",
    "declared_keys",
    "freeze", "is_int", "is_number", "json_schema", "parse_table", "reference_entries",
    "reference_table", "required_tables", "thaw", "to_dict", "write_json_schema",
]

SAMPLERS = ("tpe", "nsga2", "gp", "random", "grid")
RESAMPLES = ("shared", "per_trial")
SIMILARITIES = tuple(SIMILARITY_METHODS)
#: A fixed ``groups`` value that takes the data set's feature groups (group lasso).
DATA_GROUPS = "data"
#: The source of data given in memory (``tune(spec, data=…)``), not a file.
MEMORY_SOURCE = "memory"
_DATASET_NAMES = ("breast_cancer", "digits", "iris", "simulated", "wine")
#: Sources that are names, not files (the part before any ``:``): ``load_dataset``'s
#: built-in data sets, then :data:`MEMORY_SOURCE`.
BUILTIN_SOURCES = (*_DATASET_NAMES, MEMORY_SOURCE)
#: The committed JSON Schema (package data), written by :func:`write_json_schema`.
SCHEMA_FILE = Path(__file__).with_name("spec.schema.json")
_HASH_VERSION = 2


# --------------------------------------------------------------------------- declarations


def _selector_names() -> tuple[str, ...]:
    from paretostab.selectors import SELECTORS  # exported only; checked in resolve

    return tuple(sorted(SELECTORS))


def _measure_names() -> tuple[str, ...]:
    from paretostab.measures import list_measures  # exported only; checked in resolve

    return tuple(list_measures().index)


@dataclass(frozen=True)
class DataSpec:
    """The data set: a ``load_dataset`` source and how to read it, or data given in memory
    (``source = "memory"``: ``tune(spec, data=…)``, identified by their ``content_hash``)."""

    source: str = declare(
        kind=Text("a data file's path or a built-in source's name (data in memory are "
                  "given to tune(spec, data=...))"),
        required="[data] needs source = a data file (" + FILE_TYPES + "; "
        "relative to the spec's folder) or one of " + ", ".join(BUILTIN_SOURCES) + ".",
        doc="A data file (" + FILE_TYPES + "; relative to the spec's folder), a built-in "
            "source: " + ", ".join(_DATASET_NAMES) + " (options after a `:`), or "
            f"`{MEMORY_SOURCE}`: data given in memory (`tune(spec, data=…)`, which sets it).")
    label: str = declare("label", Text(),
                         "The class column of a table or of the labels file; the `obs` "
                         "column of an .h5ad; the label row with features in rows.")
    impute: str | None = declare(None, Choice(IMPUTE, "impute"),
                                 "How missing values are filled; absent: missing values fail.")
    prefilter: int | None = declare(
        None, Integer(0, " (the number of highest-variance features kept; 0: off)"),
        "Keep the t highest-variance features (per run); 0 or absent: all.")
    orientation: str | None = declare(
        None, Choice(ORIENTATIONS, "orientation"),
        "`features_in_rows`: a table's first column holds the feature names, its header the "
        "sample names (a GEO series matrix); absent: `samples_in_rows`.")
    labels: str | None = declare(
        None, Text("a path to a table of labels (e.g. 'labels.csv')"),
        "A table of the labels kept apart from the data file (relative to the spec's "
        "folder): first column the sample name, a `label` column; samples matched by name.")
    id: str | None = declare(
        None, Text("the name of the column of sample IDs (e.g. 'sample')"),
        "The column of sample IDs of a table with samples in rows (or of a DataFrame given "
        "in memory): its sample names, never a feature; absent: an index-like first column "
        "beside the labels is one (a blank-named column as `DataFrame.to_csv` and R's "
        "`write.csv` write the row names, distinct text, the row numbers 0..n−1 or 1..n).")
    content_hash: str | None = declare(
        None, Text("the SHA-256 of data given in memory, as tune(spec, data=...) sets it"),
        f"The SHA-256 of data given in memory (`source = \"{MEMORY_SOURCE}\"`), set by "
        "`tune(spec, data=…)`: a resume with other data is refused.")

    def __post_init__(self):
        # the defaults spelled out are the defaults: a spec means the same with or without
        if self.prefilter == 0:
            object.__setattr__(self, "prefilter", None)
        if self.orientation == ORIENTATIONS[0]:
            object.__setattr__(self, "orientation", None)

    def in_memory(self, content_hash: str) -> DataSpec:
        """These keys for data given in memory whose :meth:`Dataset.content_hash
        <paretostab.data.Dataset.content_hash>` is ``content_hash``: the source is
        ``"memory"``; a file's ``orientation`` and ``labels`` are refused, as are another
        source (which of the two data sets was meant?) and data other than those of a spec
        that already names its in-memory data.

        Parameters
        ----------
        content_hash : str
            The SHA-256 (hex) of the data given.
        """
        if self.source != MEMORY_SOURCE:
            raise InvalidInputError(
                f"data given in memory, and the spec's [data] source = {self.source!r}: give "
                f"one of them (remove data=, or remove source or set it to {MEMORY_SOURCE!r}).")
        if self.orientation is not None or self.labels is not None:
            raise InvalidInputError(
                "data given in memory: [data] orientation and labels are for data files; "
                "remove them (give X as n samples × d features, and y).")
        if self.content_hash is not None and self.content_hash != content_hash:
            raise InvalidInputError(
                f"the data given in memory (content hash {content_hash[:12]}) are not the "
                f"spec's (content hash {self.content_hash[:12]}); give the same data.")
        return replace(self, source=MEMORY_SOURCE, content_hash=content_hash)


@dataclass(frozen=True)
class ProtocolSpec:
    """The resampling protocol of every trial (``run_protocol``) and the report's B."""

    runs: int = declare(30, Integer(2), "M, the resampled runs of every trial (even with "
                        "`resampling = \"complementary_pairs\"`).")
    resampling: str = declare(
        "bootstrap", Choice(RESAMPLINGS, "resampling"),
        "How each run resamples the examples, stratified by class: `bootstrap` (each class "
        "drawn with replacement to its size), `subsample` (`sample_fraction` of each class), "
        "`complementary_pairs` (M/2 splits of each class into ⌊n_c/2⌋ and the rest, each "
        "half a run scored on the other half: the runs of Shah & Samworth's PFER bounds).")
    metric: str = declare("accuracy", Choice(METRICS, "metric"),
                          "The accuracy objective, measured on the examples a run leaves out.")
    replicates: int = declare(
        10, Integer(3, " (Hotelling's confidence ellipses need B >= 3)"),
        "B, the report's replicates of a front trial (confidence regions).")
    n_jobs: int = declare(
        1, Integer(nonzero=True, why=" (-1: all cores)"),
        "joblib processes per protocol (-1: all cores); results do not depend on it.",
        identity=False)
    sample_fraction: float = declare(
        0.9, Fraction(), "The fraction of the examples a subsample draws.",
        only_with=When("resampling", "subsample",
                       "the bootstrap draws as many examples as there are"))
    resamples: str = declare(
        "shared", Choice(RESAMPLES, "resamples"),
        "`shared`: every trial runs on the same M resamples (paired); `per_trial`: trial t "
        "draws its own from (seed, t).")
    holdout: float | None = declare(
        None, Fraction(),
        "The fraction of the examples held out (stratified, by `split_seed`) before anything "
        "else: tuning, replicates and the γ choice see only the rest, the development part; "
        "`report` and `choose` score each front setting, refitted on the development part, "
        "on the held-out part. Absent: none.")
    outer_folds: int | None = declare(
        None, Integer(2, " (nested evaluation needs K >= 2 outer folds)"),
        "K: nested evaluation of the whole procedure (tune, choose by γ, refit) in each of K "
        "stratified outer folds (by `split_seed`), each fold its own study "
        "`<name>/outer-<k>`; `report` gives the outer folds' metric. Absent: none.")
    outer_fold: int | None = declare(
        None, Integer(1), "The outer fold k (1..K) a study tunes in: `tune` sets it for each "
        "fold's study; give it to run one fold (a job per fold on a cluster).")
    split_seed: int | None = declare(
        None, Integer(0), "The seed of the held-out part and the outer folds; absent: 0.")

    def __post_init__(self):
        if self.resampling == "complementary_pairs" and not PAIRED_RUNS.accepts(self.runs):
            raise InvalidInputError(f"protocol.runs: must be {PAIRED_RUNS.describe()}"
                                    f"{PAIRED_RUNS.why}; got {self.runs}.")
        if self.holdout is not None and self.outer_folds is not None:
            raise InvalidInputError(
                "protocol.holdout and protocol.outer_folds: give one (a held-out part, or "
                "nested evaluation for data too small to hold a part out), not both.")
        if self.outer_fold is not None and (self.outer_folds is None
                                            or self.outer_fold > self.outer_folds):
            raise InvalidInputError(
                f"protocol.outer_fold: must be one of 1..outer_folds "
                f"(outer_folds = {self.outer_folds}); got {self.outer_fold}.")


@dataclass(frozen=True)
class Param:
    """One hyperparameter of the search space: a range ``[low, high]`` (``log`` scale,
    ``integer`` values) or, with ``choices``, a categorical parameter; ``registry``: the
    selector registry's default range, which the spec did not write (fitted to the data
    before a study opens, where a range the spec wrote is kept as written).

    Attributes
    ----------
    name : str
        The estimator parameter's name (its ``get_params()`` name).
    low, high : float, optional
        A range's bounds, both included; None for a categorical parameter.
    log : bool
        A log-scale range (default False).
    integer : bool
        A range of integers (default False: floats).
    choices : tuple, optional
        A categorical parameter's values (default None: a range).
    registry : bool
        Whether the range is the registry's default (default False: the spec wrote it);
        not compared by ``==``.
    """

    name: str
    low: float | None = None
    high: float | None = None
    log: bool = False
    integer: bool = False
    choices: tuple | None = None
    registry: bool = field(default=False, compare=False)

    def __post_init__(self):
        if self.choices is not None and not isinstance(self.choices, tuple):
            object.__setattr__(self, "choices", tuple(self.choices))

    def bounds(self) -> tuple[float, float]:
        """``(low, high)`` of a range (``choices`` is None).

        Raises
        ------
        TypeError
            For a parameter without both bounds (a categorical one).
        """
        if self.low is None or self.high is None:
            raise TypeError(f"parameter {self.name!r} has no range [low, high]")
        return self.low, self.high

    def categories(self) -> tuple:
        """The values of a categorical parameter (``choices``).

        Raises
        ------
        TypeError
            For a range.
        """
        if self.choices is None:
            raise TypeError(f"parameter {self.name!r} is a range, not categorical")
        return self.choices

    def to_value(self) -> object:
        """The TOML form: ``[low, high]``, ``{low, high, log}`` or ``{choices}``."""
        if self.choices is not None:
            return {"choices": list(self.choices)}
        cast = int if self.integer else float
        low, high = self.bounds()
        bounds = [cast(low), cast(high)]
        return {"low": bounds[0], "high": bounds[1], "log": True} if self.log else bounds


@dataclass(frozen=True)
class SearchEntry:
    """How a searched parameter is written (``[selector.search]``): ``[low, high]``,
    ``{ low, high, log }`` or ``{ choices }``. Declared for the allowed keys, the
    reference table and the JSON schema; :func:`paretostab.spec._space.parse_param` reads
    it into a :class:`Param`."""

    low: float = declare(kind=Number(), required="write low and high",
                         doc="A range's lower bound (> 0 on a log scale, >= 1 for integers).")
    high: float = declare(kind=Number(), required="write low and high",
                          doc="A range's upper bound (> low).")
    log: bool = declare(False, Boolean(), "A log-scale range.")
    choices: tuple | None = declare(None, Values(), "A categorical parameter's values "
                                                    "(not with low, high, log).")


@dataclass(frozen=True)
class SelectorSpec:
    """The selector: a ``SELECTORS`` name (or ``"module:Class"``, an entry point's name),
    its fixed parameters and its search space."""

    name: str = declare(
        kind=Registered("selector", _selector_names, "paretostab.selectors.SELECTORS",
                        array=True, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$",
                        pattern_doc="`module:Class` (any scikit-learn estimator class)"),
        required="[selector] needs name = one of {names}, or an array of them to compare "
                 "selectors.",
        doc="The selector; `\"module:Class\"`: any scikit-learn estimator class (one with "
            "`get_support()`, or `coef_`/`feature_importances_` and `n_features` kept by "
            "rank; no default search space); an array of them: the study chooses among "
            "them (its categorical parameter `selector`).")
    fixed: Mapping[str, object] = declare(
        factory=FrozenMap, kind=Table({"anyOf": [SCALAR, {"type": "array"},
                                                           {"type": "object"}]}),
        doc="Estimator parameters held fixed, by their `get_params()` names (the selector "
            "registry's fixed ones are added); with several selectors, one table per "
            "selector: `[selector.fixed.<selector>]`.")
    search: tuple[Param, ...] = declare(
        (), SearchSpace(entry=SearchEntry),
        "Ranges or choices by parameter name, overriding and extending the selector "
        "registry's search space; with several selectors, `[selector.search.<selector>]`.")

    def __post_init__(self):
        object.__setattr__(self, "fixed", FrozenMap(self.fixed))
        object.__setattr__(self, "search", tuple(self.search))


@dataclass(frozen=True)
class ObjectiveSpec:
    """The stability objective (maximised with the protocol's metric) and what else to
    record on every trial."""

    stability: str = declare(
        "iw", Registered("measure", _measure_names, "paretostab.measures.list_measures()"),
        "The stability measure maximised next to the metric (the second objective).")
    options: Mapping[str, object] = declare(
        factory=FrozenMap, kind=Table(SCALAR),
        doc="Options of the stability measure: its keyword options, as "
            "`list_measures()` shows them (checked on a tiny synthetic input).")
    similarity: str | None = declare(
        None, Choice(SIMILARITIES, "similarity method"),
        "The feature similarity: required when a measure of the spec needs one, refused "
        "otherwise.")
    record: tuple[str, ...] = declare(
        ("nogueira", "pearson", "iw"),
        Names("measure", _measure_names, "paretostab.measures.list_measures()"),
        "Measures recorded on every trial as well (repeated names once).")

    def __post_init__(self):
        object.__setattr__(self, "options", FrozenMap(self.options))
        object.__setattr__(self, "record", tuple(self.record))

    @property
    def measures(self) -> tuple[str, ...]:
        """Every measure a trial computes: the objective first, then the recorded ones."""
        return tuple(dict.fromkeys((self.stability, *self.record)))


@dataclass(frozen=True, kw_only=True)
class StudySpec:
    """A whole study: what the trials compute and how the study is run.

    Its own keys are the ``[study]`` table's. ``selectors`` holds one
    :class:`SelectorSpec`, or with ``selector_choice`` (the spec's ``[selector] name`` is
    an array) the selectors a trial chooses among: the study's categorical parameter
    ``selector`` (:data:`~paretostab.spec.SELECTOR_PARAM`), and each selector's own
    searched parameters named ``<selector>.<parameter>`` (a conditional search space:
    ``svm_rfe.reg`` is drawn only by the trials that run ``svm_rfe``).
    """

    name: str = declare(kind=Text(), doc="The Optuna study name.",
                        required='every spec needs [study] name = "…" (the Optuna study '
                                 'name).', identity=False)
    trials: int = declare(50, Integer(1), "Trials to run; with `sampler = \"grid\"`, at most "
                          "the grid's size, its default.", identity=False)
    seed: int | None = declare(
        0, Integer(0), "Seed of the sampler and the shared resamples: same spec + seed ⇒ "
        "same study.", nullable=True, identity=When("protocol.resamples", "shared"))
    sampler: str = declare("tpe", Choice(SAMPLERS, "sampler"),
                           "The Optuna sampler; `grid` runs each point of a finite grid once.",
                           identity=False)
    storage: str | None = declare(
        None, Text("an Optuna storage URL (e.g. 'sqlite:///study.db')"),
        "An Optuna storage URL; absent: the tuning default.", identity=False)
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

    def content_hash(self) -> str:
        """SHA-256 (hex) of the canonical JSON of the keys declared part of the identity —
        data, protocol (without ``n_jobs``), selector, objective (``record`` as a set)
        and, with shared resamples, the seed: equal for specs whose trials compute the
        same thing (not the study name, trials, sampler, storage, nor the file the spec
        came from)."""
        return content_hash(self)

    def to_dict(self) -> dict:
        """The spec as a JSON-able mapping in the TOML layout; ``parse_spec`` of it gives
        an equal spec (the search space and fixed parameters written out in full).
        ``None`` values are left out, but for a nullable key (``study.seed``)."""
        return to_dict(self)


#: The spec's tables, in the order they are read, and the dataclass declaring their keys.
TABLES: dict[str, type] = {"study": StudySpec, "data": DataSpec, "protocol": ProtocolSpec,
                           "selector": SelectorSpec, "objective": ObjectiveSpec}


def required_tables() -> list[str]:
    """The tables with a required key, in :data:`TABLES` order (the others are optional)."""
    return [t for t, cls in TABLES.items()
            if any(k.required is not None for k in keys_of(cls).values())]


def declared_keys() -> dict[str, Key]:
    """Every key of the spec by its dotted path (``protocol.runs``), in table order."""
    return {f"{table}.{name}": key for table, cls in TABLES.items()
            for name, key in keys_of(cls).items()}


class _OptionErrors(SpecErrors):
    """The errors of a value given as an option rather than in a spec: ``<name> <message>``
    (``n_jobs must be a non-zero integer …``), as :class:`~paretostab._validation.Interval`
    words them."""

    def __init__(self) -> None:
        super().__init__("")

    def error(self, key: str, message: str) -> InvalidInputError:
        return InvalidInputError(f"{key} {message}")


def check_option(key: str, name: str, value: object) -> object:
    """``value``, given as the option ``name`` (a keyword of :func:`paretostab.tune`, a
    command-line option) for the spec's dotted ``key``, checked by that key's declaration:
    the same rule and the same words as the spec's, so that ``n_jobs=0`` is refused as
    ``protocol.n_jobs = 0`` is (``--n-jobs 0`` fell back to the spec's value).

    Parameters
    ----------
    key : str
        A key of :func:`declared_keys` (``"protocol.n_jobs"``).
    name : str
        How the error line names the value.
    value : object
        The value given.

    Returns
    -------
    object
        The value as the spec holds it (``int`` for an integer key).
    """
    return declared_keys()[key].kind.check(_OptionErrors(), name, value)


# --------------------------------------------------------------------------- parsing


def parse_table(errors: SpecErrors, table: str, value: object) -> dict[str, Any]:
    """The keys given in the spec's ``table`` (a :data:`TABLES` name), checked by their
    declarations, by field name; keys not given (or ``None`` for an optional key) are
    left out: the dataclass defaults apply.

    The values are typed ``Any``: each was checked at run time by its key's kind (an
    :class:`~paretostab.spec._keys.Integer` gives an int, ...), which is what makes the
    mapping fit the table's dataclass; no static type says which key holds which type."""
    declared = keys_of(TABLES[table])
    given = check_table(errors, table, value, declared)
    out: dict[str, Any] = {}
    for name, key in declared.items():
        path = f"{table}.{name}"
        if name not in given:
            if key.required is not None:
                names = ", ".join(key.kind.known())
                raise errors.error(path, "missing: " + key.required.replace("{names}", names))
            continue
        value = given[name]
        if value is None and (key.nullable or key.default is None):
            if key.nullable:
                out[name] = None
            continue
        rule = key.only_with
        if rule is not None and out.get(rule.key, declared[rule.key].default) != rule.value:
            why = f" ({rule.why})" if rule.why else ""
            raise errors.error(path, f"only used with {rule.key} = {rule.value!r}{why}; "
                                     "remove it.")
        out[name] = key.kind.check(errors, path, value)
    return out


# --------------------------------------------------------------------------- writing


def _lookup(spec: StudySpec, path: str) -> object:
    table, _, name = path.partition(".")
    return getattr(spec if table == "study" else getattr(spec, table), name)


def _table_dict(obj: object, spec: StudySpec, identity: bool) -> dict:
    """The keys of a table object as written (``identity``: as hashed): in declaration
    order, the keys that may be left out last."""
    items = []
    table: type = type(obj)
    for name, key in keys_of(table).items():
        value = getattr(obj, name)
        rule = key.only_with
        if (value is None and not key.nullable) or (
                rule is not None and getattr(obj, rule.key) != rule.value):
            continue
        if identity:
            if isinstance(key.identity, When):
                if _lookup(spec, key.identity.key) != key.identity.value:
                    continue
            elif not key.identity:
                continue
        value = key.kind.plain(value)
        items.append((key.optional, name, key.kind.canonical(value) if identity else value))
    return {name: value for _, name, value in sorted(items, key=lambda t: t[0])}


def _tables(spec: StudySpec, identity: bool) -> dict[str, dict]:
    """Every table of ``spec``; ``[selector]`` in the multi-selector layout (``name`` an
    array, ``fixed`` and ``search`` one non-empty table per selector) when it has one."""
    out = {}
    for table in TABLES:
        if table != "selector":
            obj = spec if table == "study" else getattr(spec, table)
            out[table] = _table_dict(obj, spec, identity)
            continue
        own = {s.name: _table_dict(s, spec, identity) for s in spec.selectors}
        out[table] = next(iter(own.values())) if not spec.selector_choice else {
            "name": list(own),
            "fixed": {name: t["fixed"] for name, t in own.items() if t["fixed"]},
            "search": {name: t["search"] for name, t in own.items() if t["search"]}}
    return out


def to_dict(spec: StudySpec) -> dict:
    """:meth:`StudySpec.to_dict`."""
    return _tables(spec, identity=False)


def content_hash(spec: StudySpec) -> str:
    """:meth:`StudySpec.content_hash`."""
    tables = _tables(spec, identity=True)
    payload = {"version": _HASH_VERSION, **tables.pop("study"), **tables}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------------- exports


def _notes(key: Key) -> str:
    notes = []
    if key.only_with is not None:
        notes.append(f"Only with {key.only_with.text()}.")
    if key.identity is False:
        notes.append("Not part of the content hash.")
    elif isinstance(key.identity, When):
        notes.append(f"Part of the content hash with {key.identity.text()}.")
    return " ".join([key.doc, *notes])


def _table_doc(cls: type) -> str:
    return " ".join((cls.__doc__ or "").split("\n\n")[0].split()).replace("``", "`")


def _property(key: Key) -> dict:
    out = {**key.kind.json(), "description": _notes(key)}
    if key.nullable and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    if key.default is not MISSING and key.default is not None:
        out["default"] = key.kind.plain(key.default)
    return out


def _object(cls: type, doc: str) -> dict:
    declared = keys_of(cls)
    out = {"type": "object", "description": doc,
           "properties": {name: _property(k) for name, k in declared.items()},
           "additionalProperties": False}
    required = [name for name, k in declared.items() if k.required is not None]
    if required:
        out["required"] = required
    rules = [{"if": {"required": [name]},
              "then": {"required": [k.only_with.key],
                       "properties": {k.only_with.key: {"const": k.only_with.value}}}}
             for name, k in declared.items() if k.only_with is not None]
    if rules:
        out["allOf"] = rules
    return out


def json_schema() -> dict:
    """The spec's JSON Schema (draft-07), for editors that complete and check TOML files
    (Taplo / Even Better TOML: ``#:schema ../paretostab/spec/spec.schema.json`` on the
    first line of a spec in the repository's ``studies/``). The registered selector and
    measure names are enumerated; the checks that need the registries (estimator
    parameters, measure options, the similarity requirement) are the parser's only."""
    tables = {}
    for table, cls in TABLES.items():
        doc = ("How the study is run: its name, trials, seed, sampler and storage."
               if cls is StudySpec else _table_doc(cls))
        tables[table] = _object(cls, doc)
    return {"$schema": "http://json-schema.org/draft-07/schema#",
            "title": "paretostab study spec",
            "description": "A study spec of paretostab: an Optuna study of a feature "
                           "selector's accuracy and stability.",
            "type": "object", "properties": tables, "required": required_tables(),
            "additionalProperties": False}


def write_json_schema(path: str | os.PathLike | None = None) -> Path:
    """Write :func:`json_schema` to ``path`` (default: the package's
    ``spec.schema.json``, :data:`SCHEMA_FILE`) and return the path."""
    path = Path(path) if path is not None else SCHEMA_FILE
    path.write_text(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    return path


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def reference_entries() -> list[tuple[str, str, str, str]]:
    """Every key of a spec, in the tables' order: (key path, type, default, description
    with the rules that involve other keys), as Markdown; the default is ``required``,
    ``absent`` or the value as a spec writes it."""
    declared = list(declared_keys().items())
    entries = [(f"selector.search.<parameter>.{name}", k)
               for name, k in keys_of(SearchEntry).items()]
    at = next(i for i, (path, _) in enumerate(declared) if path == "selector.search") + 1
    rows = []
    for path, key in [*declared[:at], *entries, *declared[at:]]:
        if key.default is MISSING:
            default = "required"
        elif key.default is None:
            default = "absent"
        else:
            default = inline_code(key.kind.plain(key.default))
        rows.append((path, key.kind.describe(), default, _notes(key)))
    return rows


def reference_table() -> str:
    """Every key of a spec as a Markdown table: key path, type, default, description
    (:func:`reference_entries`)."""
    rows = [("Key", "Type", "Default", "Description"), ("---",) * 4,
            *((f"`{path}`", *rest) for path, *rest in reference_entries())]
    return "\n".join("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows) + "\n"


def _rst(markdown: str) -> str:
    """The spec reference's Markdown inline code as reStructuredText's."""
    return re.sub(r"`([^`]+)`", r"``\1``", markdown)


#: The fields of the tables' dataclasses that are not keys of a table, as numpydoc entries.
_OTHER_FIELDS = {
    "data": "data : DataSpec\n    The ``[data]`` table.",
    "protocol": "protocol : ProtocolSpec\n    The ``[protocol]`` table.",
    "selectors": "selectors : tuple of SelectorSpec\n    The ``[selector]`` table: one "
                 "selector, or one per name of its array with ``selector_choice``.",
    "selector_choice": "selector_choice : bool\n    Whether the spec's ``[selector] name`` "
                       "is an array, the selectors a trial chooses among (default False).",
    "objective": "objective : ObjectiveSpec\n    The ``[objective]`` table.",
    "path": "path : Path, optional\n    The file the spec was read from (:func:`load_spec "
            "<paretostab.spec.load_spec>`), named in its errors; None (the default) for a "
            "spec not read from a file.",
}


def _document_fields() -> None:
    """Append to the docstring of each table's dataclass an "Attributes" section naming
    every field: a key by its type, default and description as the spec reference gives
    them (:func:`reference_entries`, the one text the reference, the JSON schema and the
    API reference show), any other field by :data:`_OTHER_FIELDS`: the API reference
    describes every field where the dataclass is documented, from the text that
    documents the key, which cannot drift from it."""
    entries = {path: rest for path, *rest in reference_entries()}
    for table, cls in TABLES.items():
        if cls.__doc__ is None:  # python -OO
            continue
        lines = ["", "", "Attributes", "----------"]
        for name in (f.name for f in fields(cls)):
            if f"{table}.{name}" not in entries:
                lines.append(_OTHER_FIELDS[name])
                continue
            kind, default, text = map(_rst, entries[f"{table}.{name}"])
            shown = {"required": "Required.", "absent": "Default None: absent."}.get(
                default, f"Default {default}.")
            lines += [f"{name} : {kind}", f"    {text} {shown}"]
        cls.__doc__ = inspect.cleandoc(cls.__doc__) + "\n".join(lines)


_document_fields()
