"""Reading study specs: a mapping or a TOML file → a validated :class:`StudySpec`.

:func:`parse_spec` runs each table through its declarations
(:mod:`paretostab.spec.schema`), then the registry checks of ``[selector]`` and
``[objective]`` (:mod:`paretostab.spec.resolve`), then the grid of ``sampler = "grid"``
(:mod:`paretostab.spec.space`). :func:`load_spec` reads a file; the built-in specs are the
repository's ``studies/`` folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from paretostab.errors import InvalidInputError, UnknownNameError
from paretostab.measures import get_measure
from paretostab.spec.keys import SpecErrors
from paretostab.spec.resolve import resolve_objective, resolve_selectors
from paretostab.spec.schema import (
    BUILTIN_SOURCES,
    TABLES,
    DataSpec,
    ProtocolSpec,
    StudySpec,
    parse_table,
    required_tables,
)
from paretostab.spec.space import check_grid

__all__ = ["builtin_spec_names", "builtin_spec_path", "load_spec", "parse_spec",
           "with_objective"]


def _resolve_source(source: str, base: Path | None) -> str:
    if source.partition(":")[0] in BUILTIN_SOURCES:
        return source
    path = Path(source).expanduser()
    if path.is_absolute() or base is None:
        return str(path)
    return os.path.normpath(Path(base).expanduser().absolute() / path)


def parse_spec(mapping: Mapping, *, base: Path | None = None,
               source: str = "<dict>") -> StudySpec:
    """Validate a spec given as a mapping in the TOML layout (see :mod:`paretostab.spec`).

    Parameters
    ----------
    mapping : mapping
        Tables ``study``, ``data``, ``protocol``, ``selector``, ``objective``.
    base : Path, optional
        The folder relative ``data.source`` paths are resolved against; by default they
        are kept as given (relative to the working directory when the data are loaded).
    source : str
        Where the mapping came from, for the error messages.

    Returns
    -------
    StudySpec

    Raises
    ------
    InvalidInputError, UnknownNameError
        Naming ``source``, the dotted key, what is allowed and what was given.
    """
    errors = SpecErrors(source)
    if not isinstance(mapping, Mapping):
        raise InvalidInputError(f"{source}: a spec must be a mapping of tables "
                                f"({', '.join(sorted(TABLES))}); got {type(mapping).__name__}.")
    top = dict(mapping)
    for name in top:
        if name not in TABLES:
            raise errors.unknown_key(None, name, TABLES)
    required = required_tables()
    for name in required:
        if name not in top:
            optional = [f"[{t}]" for t in TABLES if t not in required]
            needed = [f"[{t}]" for t in required]
            raise errors.error(f"[{name}]", f"missing table: a spec needs "
                                            f"{', '.join(needed[:-1])} and {needed[-1]} "
                                            f"(optional: {', '.join(optional)}).")
    study = parse_table(errors, "study", top["study"])
    data = DataSpec(**parse_table(errors, "data", top["data"]))
    data = replace(data, source=_resolve_source(data.source, base),
                   labels=data.labels and _resolve_source(data.labels, base))
    protocol = ProtocolSpec(**parse_table(errors, "protocol", top.get("protocol")))
    selectors, choice = resolve_selectors(errors, parse_table(errors, "selector",
                                                              top["selector"]))
    objective = resolve_objective(errors, parse_table(errors, "objective",
                                                      top.get("objective")))
    spec = StudySpec(**study, data=data, protocol=protocol, selectors=selectors,
                     selector_choice=choice, objective=objective)
    if spec.sampler == "grid":
        spec = check_grid(errors, spec, given_trials="trials" in study)
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
    """Read and validate the TOML study spec at ``path`` (see :mod:`paretostab.spec`);
    relative data paths are resolved against the file's folder."""
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
