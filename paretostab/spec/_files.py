"""Reading study specs: a mapping or a TOML file → a validated :class:`StudySpec`.

:func:`parse_spec` runs each table through its declarations
(:mod:`paretostab.spec._schema`), then the registry checks of ``[selector]`` and
``[objective]`` (:mod:`paretostab.spec._resolve`), then the grid of ``sampler = "grid"``
(:mod:`paretostab.spec._space`). :func:`load_spec` reads a file; the built-in specs are the
source repository's top-level ``studies/`` folder, which the wheel installs as the
package's ``studies/`` (package data, read with :mod:`importlib.resources`).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from dataclasses import replace
from importlib import resources
from pathlib import Path

from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab.measures import get_measure
from paretostab.spec._keys import SpecErrors
from paretostab.spec._resolve import resolve_objective, resolve_selectors
from paretostab.spec._schema import (
    BUILTIN_SOURCES,
    MEMORY_SOURCE,
    SCHEMA_FILE,
    TABLES,
    DataSpec,
    ProtocolSpec,
    StudySpec,
    parse_table,
    required_tables,
)
from paretostab.spec._space import check_grid

__all__ = ["SCHEMA_DIRECTIVE", "builtin_spec_data", "builtin_spec_names", "builtin_spec_path",
           "builtin_spec_summaries", "builtin_spec_text", "check_builtin_data", "find_spec",
           "load_spec", "parse_spec", "with_objective"]

#: How a spec's first line names its JSON Schema for TOML editors (Taplo).
SCHEMA_DIRECTIVE = "#:schema"


def _resolve_source(source: str, base: Path | None) -> str:
    if source.partition(":")[0] in BUILTIN_SOURCES:
        return source
    path = Path(source).expanduser()
    if path.is_absolute() or base is None:
        return str(path)
    return os.path.normpath(Path(base).expanduser().absolute() / path)


def parse_spec(mapping: Mapping, *, base: Path | None = None,
               source: str = "<dict>", memory: bool = False) -> StudySpec:
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
    memory : bool
        The data are given in memory (``tune(spec, data=…)``): a spec without ``[data]
        source`` (or without ``[data]``) gets ``source = "memory"``, which ``tune``'s
        data then fill (the spec reference says ``tune`` sets it).

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
    if memory and isinstance(top.setdefault("data", {}), Mapping) and (
            top["data"].get("source") is None):
        top["data"] = {**top["data"], "source": MEMORY_SOURCE}
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
    Validated as a spec is (a measure that needs a similarity needs the spec's).

    Parameters
    ----------
    spec : StudySpec
        The spec of the study compared.
    measure : str
        The other study's objective: a registry name or alias
        (:func:`~paretostab.measures.measure_name`).
    """
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
    parsed = parse_spec(mapping, source=f"{source} with objective {info.name}")
    # the same selectors, as read: their registry ranges stay the registry's (fitted to the
    # data when the study opens), which the mapping cannot say
    return replace(parsed, selectors=spec.selectors, path=spec.path)


def _tomllib():
    """The TOML reader: the standard library's, or tomli on Python 3.10."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise InvalidInputError("Reading TOML specs needs Python >= 3.11 (tomllib) or "
                                    "the tomli package: pip install tomli.") from None
    return tomllib


def load_spec(path: str | os.PathLike, *, memory: bool = False) -> StudySpec:
    """Read and validate the TOML study spec at ``path`` (see :mod:`paretostab.spec`);
    relative data paths are resolved against the file's folder.

    Parameters
    ----------
    path : str or path-like
        The TOML file.
    memory : bool
        As :func:`parse_spec`'s: the data will be given in memory (default False).
    """
    tomllib = _tomllib()
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
    _check_selector_modules(mapping, absolute.parent, str(path))
    spec = parse_spec(mapping, base=absolute.parent, source=str(path), memory=memory)
    return replace(spec, path=Path(os.path.normpath(absolute)))


def _check_selector_modules(mapping: Mapping, folder: Path, source: str) -> None:
    """Fail clearly when a ``[selector] name = "module:Class"`` names a module that is
    beside the spec but not on Python's import path (a spec run from another folder):
    the error says how to put its folder there. The folder is not added for the user: the
    trials' processes, Dask's workers and a later report import the module by name too.

    Raises
    ------
    InvalidInputError
        One line: the selector, the module file beside the spec, and the import path fix.
    """
    table = mapping.get("selector")
    names = table.get("name") if isinstance(table, Mapping) else None
    for name in names if isinstance(names, list) else [names]:
        if not isinstance(name, str) or ":" not in name:
            continue
        top = name.partition(":")[0].split(".")[0]
        if not top.isidentifier() or importlib.util.find_spec(top) is not None:
            continue
        beside = next((f for f in (folder / f"{top}.py", folder / top) if f.exists()), None)
        if beside is not None:
            raise InvalidInputError(
                f"{source}: [selector] name {name!r}: module {top!r} is beside the spec "
                f"({beside}) but not on Python's import path: run python -m paretostab from "
                f"{folder}, or add that folder to PYTHONPATH (the trials' processes and the "
                "report import the module too).")


def _studies_folder() -> Path:
    """The folder of the built-in specs: the installed package's ``studies/`` (the wheel
    maps the repository's top-level ``studies/`` there, unpacked); run from a source
    checkout (an editable install, ``PYTHONPATH``), that top-level folder itself."""
    installed = Path(str(resources.files("paretostab").joinpath("studies")))
    return installed if installed.is_dir() else installed.parents[1] / "studies"


def builtin_spec_names() -> tuple[str, ...]:
    """Names of the built-in specs, the ``.toml`` files of ``studies/``."""
    return tuple(sorted(p.stem for p in _studies_folder().glob("*.toml")))


def builtin_spec_path(name: str = "quickstart") -> Path:
    """The built-in spec ``name`` (also ``name.toml``): ``studies/<name>.toml``.

    Parameters
    ----------
    name : str
        A built-in spec's name (:func:`builtin_spec_names`), with or without ``.toml``;
        default the quickstart's.

    Raises
    ------
    UnknownNameError
        For a name that is no built-in spec, with the closest one.
    """
    stem = name[:-5] if isinstance(name, str) and name.endswith(".toml") else name
    path = _studies_folder() / f"{stem}.toml"
    if not isinstance(stem, str) or "/" in stem or not path.is_file():
        raise UnknownNameError.for_name("built-in study", name, builtin_spec_names())
    return path


def find_spec(spec: str | os.PathLike) -> Path:
    """The spec file a command line names: an existing file, else the built-in spec of
    that name (``quickstart``, ``quickstart.toml``).

    Parameters
    ----------
    spec : str or path-like
        A file path, or a built-in spec's name.

    Returns
    -------
    Path
        The file; a path that is no file and no built-in name is returned as given, for
        :func:`load_spec` to say that it does not exist.

    Raises
    ------
    UnknownNameError
        For a bare name (no folder, no suffix) that is no built-in spec.
    """
    path = Path(spec)
    if path.is_file():
        return path
    if len(path.parts) == 1 and (not path.suffix or (path.suffix == ".toml"
                                                     and path.stem in builtin_spec_names())):
        return builtin_spec_path(path.name)
    return path


def builtin_spec_text(name: str) -> str:
    """The TOML text of the built-in spec ``name``, to start a spec of one's own from: its
    ``#:schema`` line names the installed JSON Schema file, wherever the text is saved.

    Parameters
    ----------
    name : str
        A built-in spec's name (:func:`builtin_spec_names`), with or without ``.toml``.
    """
    lines = builtin_spec_path(name).read_text(encoding="utf-8").splitlines(keepends=True)
    if lines and lines[0].startswith(SCHEMA_DIRECTIVE):
        lines[0] = f"{SCHEMA_DIRECTIVE} {SCHEMA_FILE.as_uri()}\n"
    return "".join(lines)


def builtin_spec_summaries() -> dict[str, str]:
    """Each built-in spec's name → the first line of its header comment (what it runs)."""
    summaries = {}
    for name in builtin_spec_names():
        text = builtin_spec_path(name).read_text(encoding="utf-8")
        comments = (line[1:].strip() for line in text.splitlines()
                    if line.startswith("#") and not line.startswith(SCHEMA_DIRECTIVE))
        summaries[name] = next((c for c in comments if c), "")
    return summaries


def builtin_spec_data(name: str) -> str | None:
    """The data file the built-in spec ``name`` reads and the package does not ship (the
    file name of its ``[data] source``: the shared benchmark data of the papers'
    reproductions), or None when its data come with the package or scikit-learn
    (``breast_cancer``). ``paretostab studies`` marks the specs that need one.

    Parameters
    ----------
    name : str
        As :func:`builtin_spec_path`'s.

    Raises
    ------
    UnknownNameError
        For a name that is no built-in spec, with the closest one.
    """
    text = builtin_spec_path(name).read_text(encoding="utf-8")
    source = _tomllib().loads(text)["data"]["source"]
    return None if source.partition(":")[0] in BUILTIN_SOURCES else Path(source).name


def check_builtin_data(spec: StudySpec) -> None:
    """Fail clearly when a built-in spec's data file is not at hand.

    The built-in specs of the shared benchmark data read a file beside the source
    repository (``[data] source`` relative to the spec's folder), not shipped in the
    package: installed from a wheel, the file is absent.

    Parameters
    ----------
    spec : StudySpec
        A loaded spec; one that is not a built-in spec, or whose data are a built-in data
        set or a file that exists, passes.

    Raises
    ------
    InvalidInputError
        One line: the data file, that it is not in the package, where its spec says to get
        it and how to point ``[data] source`` at a copy.
    """
    source = spec.data.source
    if (spec.path is None or source.partition(":")[0] in BUILTIN_SOURCES
            or source == MEMORY_SOURCE or Path(source).exists()
            or spec.path.parent.resolve() != _studies_folder().resolve()):
        return
    name, file = spec.path.stem, Path(source).name
    raise InvalidInputError(
        f"The built-in study {name!r} reads {file}, which is not part of the package (the "
        f"source repository keeps it beside itself, in ../shared/data; looked for "
        f"{source}): its comments say where to get it (paretostab studies {name}); write "
        f"it out with paretostab studies {name} > {name}.toml, point its [data] source at "
        f"your copy of {file} and run paretostab tune {name}.toml.")
