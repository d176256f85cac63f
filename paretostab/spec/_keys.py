"""How a key of a study spec is declared: kinds, rules, and the helpers they share.

A key is a dataclass field made by :func:`declare`, whose metadata holds a :class:`Key`:
its *kind* (a :class:`Kind`: :class:`Integer`, :class:`Fraction`, :class:`Text`,
:class:`Choice`, :class:`Registered`, :class:`Names`, :class:`Table`,
:class:`SearchSpace`, ...), which checks a value, describes itself for the reference table
and gives its JSON-schema fragment; one line of documentation; and the rules that involve
other keys, as data (``nullable``, ``only_with``, ``identity``). :func:`keys_of` lists a
dataclass's keys. The declarations themselves are in :mod:`paretostab.spec._schema`.

Also here, as every part of the spec package uses them: :class:`FrozenMap` with
:func:`freeze` / :func:`thaw`, :class:`SpecErrors` (the errors that name the source and
the dotted key), :func:`check_table`. A scalar key's values are an
:class:`~paretostab._validation.Interval`, as the API's and the selectors' parameters are:
one vocabulary, one error line.
"""

from __future__ import annotations

import difflib
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from types import MappingProxyType
from typing import Any

import numpy as np

from paretostab._errors import InvalidInputError, ParetostabError, UnknownNameError, described
from paretostab._validation import Interval, is_int, is_number

__all__ = ["SCALAR", "Boolean", "Choice", "Fraction", "FrozenMap", "Integer", "Key", "Kind",
           "Names", "Number", "Registered", "SearchSpace", "SpecErrors", "Table", "Text",
           "Values", "When", "check_table", "declare", "freeze", "inline_code", "keys_of",
           "thaw"]


# --------------------------------------------------------------------------- plain values


class FrozenMap(Mapping):
    """A read-only, hashable, picklable mapping (sorted by key; lists become tuples).

    Parameters
    ----------
    items : mapping, optional
        The entries; keys become strings, values frozen (:func:`freeze`). Default None:
        empty.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Mapping | None = None):
        data = {str(k): freeze(v) for k, v in dict(items or {}).items()}
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

    def __reduce__(self) -> tuple[type[FrozenMap], tuple[dict[str, object]]]:
        return FrozenMap, (self._items,)


def freeze(value: object) -> object:
    """``value`` made hashable: mappings → :class:`FrozenMap`, lists → tuples, numpy
    scalars → plain Python scalars (JSON-able)."""
    if isinstance(value, Mapping):
        return FrozenMap(value)
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def thaw(value: object) -> object:
    """The inverse of :func:`freeze` for writing: mappings → dicts, tuples → lists."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


# --------------------------------------------------------------------------- errors


class SpecErrors:
    """Builds the errors of one spec: each names the spec's ``source`` and the dotted key.

    Parameters
    ----------
    source : str
        Where the spec came from (a file path, ``"<dict>"``), the start of every message.
    """

    def __init__(self, source: str):
        self.source = source

    def error(self, key: str, message: str) -> InvalidInputError:
        """``<source>: <key>: <message>``."""
        return InvalidInputError(f"{self.source}: {key}: {message}")

    def unknown_key(self, table: str | None, key: object, allowed: Iterable[str],
                    what: str | None = None) -> UnknownNameError:
        """An unknown ``key`` of ``table`` (``None``: an unknown table), with the closest
        allowed one and the list of the ``allowed``; ``what`` replaces "unknown key in
        [table]"."""
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

    def unknown_name(self, key: str, kind: str, name: object,
                     known: Iterable[str]) -> UnknownNameError:
        """An unknown ``name`` of a ``kind`` (``"sampler"``) given for ``key``."""
        return UnknownNameError(
            f"{self.source}: {key}: {UnknownNameError.for_name(kind, name, known)}")

    def wrap(self, key: str, exc: ParetostabError) -> ParetostabError:
        """``exc`` (same type) with the source and ``key`` in front of its message."""
        return type(exc)(f"{self.source}: {key}: {exc}")


# --------------------------------------------------------------------------- kinds


def inline_code(value: object) -> str:
    """``value`` as Markdown inline code of its TOML/JSON form (`` `"tpe"` ``)."""
    return f"`{json.dumps(thaw(value), ensure_ascii=False)}`"


class Kind(ABC):
    """The type of a key: checks a value, describes itself, gives its JSON schema. Every
    kind says what it is (:meth:`describe`, :meth:`json`); checking is optional (the
    registry kinds are checked by :mod:`paretostab.spec._resolve`)."""

    def check(self, errors: SpecErrors, key: str, value: object) -> object:
        """The value to keep, or raise ``errors.error(key, ...)``."""
        return value

    @abstractmethod
    def describe(self) -> str:
        """The type column of :func:`~paretostab.spec.reference_table`."""

    @abstractmethod
    def json(self) -> dict:
        """The JSON-schema fragment of a value of this kind."""

    def known(self) -> tuple[str, ...]:
        """The allowed names, for the messages (none for most kinds)."""
        return ()

    def plain(self, value: object) -> object:
        """The JSON-able form :func:`~paretostab.spec._schema.to_dict` writes."""
        return thaw(value)

    def canonical(self, value: object) -> object:
        """The form of a :meth:`plain` value in the content hash."""
        return value


@dataclass(frozen=True)
class Integer(Kind):
    """An integer ``>= minimum`` (or, with ``nonzero``, any integer but 0); ``why`` ends
    the error message (`` (Hotelling's confidence ellipses need B >= 3)``)."""

    minimum: int | None = None
    why: str = ""
    nonzero: bool = False

    @property
    def interval(self) -> Interval:
        """The values it takes, but for ``nonzero``'s hole at 0."""
        return Interval("integer", self.minimum, why=self.why)

    def check(self, errors: SpecErrors, key: str, value: object) -> int:
        if self.nonzero:
            if not is_int(value) or value == 0:
                raise errors.error(key, f"must be a non-zero integer{self.why}; got "
                                        f"{described(value)}.")
        elif not is_int(value) or not self.interval.accepts(value):
            raise errors.error(key, f"must be {self.interval.describe()}{self.why}; got "
                                    f"{described(value)}.")
        return int(value)

    def describe(self) -> str:
        return "integer ≠ 0" if self.nonzero else f"integer ≥ {self.minimum}"

    def json(self) -> dict:
        if self.nonzero:
            return {"type": "integer", "not": {"const": 0}}
        return {"type": "integer", "minimum": self.minimum}


@dataclass(frozen=True)
class Fraction(Kind):
    """A number in the open interval (0, 1), kept as a float."""

    interval = Interval("number", 0, 1, "neither")

    def check(self, errors: SpecErrors, key: str, value: object) -> float:
        if not is_number(value) or not self.interval.accepts(value):
            raise errors.error(key, f"must be {self.interval.describe()}; got {described(value)}.")
        return float(value)

    def describe(self) -> str:
        return "number in (0, 1)"

    def json(self) -> dict:
        return {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}


@dataclass(frozen=True)
class Number(Kind):
    """A finite number."""

    interval = Interval("number")

    def check(self, errors: SpecErrors, key: str, value: object) -> float:
        if not is_number(value) or not self.interval.accepts(value):
            raise errors.error(key, f"must be {self.interval.describe()}; got {described(value)}.")
        return value

    def describe(self) -> str:
        return "number"

    def json(self) -> dict:
        return {"type": "number"}


@dataclass(frozen=True)
class Boolean(Kind):
    """``true`` or ``false``."""

    def check(self, errors: SpecErrors, key: str, value: object) -> bool:
        if not isinstance(value, bool | np.bool_):
            raise errors.error(key, f"must be true or false; got {described(value)}.")
        return bool(value)

    def describe(self) -> str:
        return "boolean"

    def json(self) -> dict:
        return {"type": "boolean"}


@dataclass(frozen=True)
class Text(Kind):
    """A non-blank string (a path is accepted and kept as a string); ``what`` is the
    error message's description of it."""

    what: str = "a non-empty string"

    def check(self, errors: SpecErrors, key: str, value: object) -> str:
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str) or not value.strip():
            raise errors.error(key, f"must be {self.what}; got {described(value)}.")
        return value

    def describe(self) -> str:
        return "string"

    def json(self) -> dict:
        return {"type": "string", "minLength": 1, "pattern": "\\S"}


@dataclass(frozen=True)
class Choice(Kind):
    """One of the strings ``values``; an unknown one is an unknown ``kind_name``
    (``"Unknown sampler 'tpee'. Did you mean 'tpe'?"``)."""

    values: tuple[str, ...]
    kind_name: str

    def check(self, errors: SpecErrors, key: str, value: object) -> str:
        if not isinstance(value, str):
            raise errors.error(key, f"must be one of {', '.join(map(repr, self.values))}; "
                                    f"got {described(value)}.")
        if value not in self.values:
            raise errors.unknown_name(key, self.kind_name, value, self.values)
        return value

    def describe(self) -> str:
        return "one of " + ", ".join(inline_code(v) for v in self.values)

    def json(self) -> dict:
        return {"type": "string", "enum": list(self.values)}

    def known(self) -> tuple[str, ...]:
        return tuple(self.values)


@dataclass(frozen=True)
class Registered(Kind):
    """A name of a registry (``names`` lists it; ``where`` says where it lives), or with
    ``array`` a non-empty array of them. Checked against the registry by
    :mod:`paretostab.spec._resolve` (the names are exported to the JSON schema)."""

    kind_name: str
    names: Callable[[], tuple[str, ...]]
    where: str
    array: bool = False
    #: Names beyond the registry's, as a regular expression, and how the reference says
    #: it (``module:Class``); None: the registry's names only.
    pattern: str | None = None
    pattern_doc: str = ""

    def describe(self) -> str:
        other = f" or {self.pattern_doc}" if self.pattern else ""
        return f"{self.kind_name} name (`{self.where}`){other}" + (
            ", or an array of them" if self.array else "")

    def json(self) -> dict:
        one: dict[str, object] = {"type": "string", "enum": list(self.names())}
        named: list[dict[str, object]] = [one] if self.pattern is None else [
            one, {"type": "string", "pattern": self.pattern}]
        item = named[0] if len(named) == 1 else {"anyOf": named}
        if not self.array:
            return item
        return {"anyOf": [*named, {"type": "array", "items": item, "minItems": 1,
                                   "uniqueItems": True}]}

    def known(self) -> tuple[str, ...]:
        return self.names()


@dataclass(frozen=True)
class Names(Kind):
    """An array of registry names (checked by :mod:`paretostab.spec._resolve`), kept as a
    tuple. A set as far as the trials go: its order is not part of the content hash."""

    kind_name: str
    names: Callable[[], tuple[str, ...]]
    where: str

    def check(self, errors: SpecErrors, key: str, value: object) -> tuple:
        if not isinstance(value, list | tuple):
            raise errors.error(key, f"must be an array of {self.kind_name} names; got "
                                    f"{described(value)}.")
        return tuple(value)

    def describe(self) -> str:
        return f"array of {self.kind_name} names (`{self.where}`)"

    def json(self) -> dict:
        return {"type": "array", "items": {"type": "string", "enum": list(self.names())}}

    def canonical(self, value):  # a tuple of names, as check() keeps them
        return sorted(set(value))


#: The JSON schema of a scalar TOML value.
SCALAR = {"type": ["string", "number", "boolean"]}


@dataclass(frozen=True)
class Table(Kind):
    """A sub-table whose keys depend on a registry (checked by
    :mod:`paretostab.spec._resolve`); absent or ``None``: empty. ``values`` is the JSON
    schema of its values."""

    values: Mapping = field(default_factory=FrozenMap)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", FrozenMap(self.values))

    def check(self, errors: SpecErrors, key: str, value: object) -> dict:
        return check_table(errors, key, value, None)

    def describe(self) -> str:
        return "table"

    def json(self) -> dict:
        return {"type": "object", **({"additionalProperties": thaw(self.values)}
                                     if self.values else {})}


@dataclass(frozen=True)
class Values(Kind):
    """A non-empty array of distinct strings, numbers or booleans (Optuna's choices)."""

    def describe(self) -> str:
        return "array of strings, numbers or booleans"

    def json(self) -> dict:
        return {"type": "array", "minItems": 1, "uniqueItems": True, "items": SCALAR}


@dataclass(frozen=True)
class SearchSpace(Table):
    """A search space: a table of searched parameters (with several selectors, a table of
    them per selector), each written as ``entry`` declares (``[low, high]``, the range's
    keys, or ``choices``); its value is a tuple of parameters with ``name`` and
    ``to_value()``, written sorted by name."""

    entry: type | None = None

    def plain(self, value):  # a tuple of Param, as the spec holds it
        return {p.name: p.to_value() for p in sorted(value, key=lambda p: p.name)}

    def json(self) -> dict:
        props = {name: {**k.kind.json(), "description": k.doc}
                 for name, k in keys_of(self.entry).items()}
        choices = {"type": "object", "properties": {"choices": props.pop("choices")},
                   "required": ["choices"], "additionalProperties": False}
        ranged = {"type": "object", "properties": props, "additionalProperties": False,
                  "required": [name for name, k in keys_of(self.entry).items()
                               if k.required is not None]}
        pair = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
        entry = {"anyOf": [pair, ranged, choices]}
        return {"type": "object", "additionalProperties": {"anyOf": [
            entry, {"type": "object", "additionalProperties": entry}]}}


# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class When:
    """A condition on another key: ``key`` (dotted from the spec for ``identity``, of the
    same table for ``only_with``) equals ``value``; ``why`` explains it in errors."""

    key: str
    value: object
    why: str = ""

    def text(self) -> str:
        return f"`{self.key} = {json.dumps(self.value)}`"


@dataclass(frozen=True)
class Key:
    """The declaration of one key (see :func:`declare`)."""

    kind: Kind
    doc: str
    default: object = MISSING
    required: str | None = None
    nullable: bool = False
    only_with: When | None = None
    identity: bool | When = True

    @property
    def optional(self) -> bool:
        """Whether the key may be left out of :func:`~paretostab.spec._schema.to_dict`
        (which writes such keys after the others)."""
        return self.only_with is not None or (self.default is None and not self.nullable)


def declare(default: object = MISSING, kind: Kind | None = None, doc: str = "", *,
            factory: Callable[[], object] | None = None, required: str | None = None,
            nullable: bool = False, only_with: When | None = None,
            identity: bool | When = True) -> Any:
    """A dataclass field that is a key of the spec (typed as :func:`dataclasses.field`
    is: as the field's value, to the dataclass that declares it).

    Parameters
    ----------
    default, factory
        The default value (or its factory); neither for a ``required`` key.
    kind : Kind
        What the value is: checked on parsing, described in the reference table, exported
        to the JSON schema.
    doc : str
        One line of documentation (reference table and JSON schema).
    required : str, optional
        The key is required; this ends the "missing: " error (``{names}``: the names the
        kind knows).
    nullable : bool
        ``None`` is a value of its own (``study.seed``), written as such. Otherwise a
        ``None`` given for a key whose default is ``None`` means absent (left out of
        :func:`~paretostab.spec._schema.to_dict`).
    only_with : When, optional
        The key is allowed (and written) only when another key of its table, declared
        before it, has a given value.
    identity : bool or When
        Whether the key is part of :func:`~paretostab.spec._schema.content_hash` (what the
        trials compute), or only under a condition on another key of the spec.

    Returns
    -------
    dataclasses.Field
        With the :class:`Key` in its ``metadata["key"]``.
    """
    if kind is None:
        raise TypeError("declare: every key of the spec needs a kind")
    key = Key(kind, doc, factory() if factory is not None else default, required, nullable,
              only_with, identity)
    if factory is not None:
        return field(default_factory=factory, metadata={"key": key})
    return field(default=default, metadata={"key": key})


@cache
def keys_of(cls: type) -> Mapping[str, Key]:
    """The keys a dataclass declares, in declaration order (field name → :class:`Key`)."""
    return MappingProxyType({f.name: f.metadata["key"] for f in fields(cls)
                             if "key" in f.metadata})


def check_table(errors: SpecErrors, key: str, value: object, allowed: Collection[str] | None,
                what: str | None = None) -> dict:
    """``value`` as a dict after checking that it is a table (``None``: empty) whose keys
    are all ``allowed`` (``None``: any); ``what`` describes an unknown key."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise errors.error(key, f"must be a table ([{key}]); got {described(value)}.")
    if allowed is not None:
        for name in value:
            if name not in allowed:
                raise errors.unknown_key(key, name, allowed, what)
    return dict(value)
