"""The package's structure, checked on its source: what no reviewer should have to catch.

Read from the code's syntax (nothing is imported): no module reaches another module's
underscore names, no circle of imports (imports inside functions included), every public
module says what it exports (``__all__``), Optuna's private interfaces and Optuna itself
stay where they belong, the library sets no global logging, drawers compute nothing, and
no private function of the report or tuning takes a long list of loose arguments. The
tests keep to two of these rules too: they reach Optuna's internals through one module,
and no test module takes a helper from another (tests/*.py without the test_ prefix hold
them).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

from tests.public_modules import PUBLIC_MODULES

PACKAGE = Path(__file__).resolve().parents[1] / "paretostab"
TESTS = Path(__file__).resolve().parent
MAX_PRIVATE_PARAMETERS = 8


@dataclass
class Module:
    name: str  # dotted: paretostab.report._load
    path: Path
    tree: ast.Module
    imports: list[tuple[str, str | None, int]] = field(default_factory=list)
    """(module imported, name imported from it or None, line)."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def read_module(name: str, source: str, path: Path | None = None) -> Module:
    """A module's syntax tree and its absolute imports."""
    tree = ast.parse(source, filename=str(path or name))
    module = Module(name, path or Path(name), tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            module.imports += [(alias.name, None, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module.imports += [(node.module, alias.name, node.lineno) for alias in node.names]
    return module


@cache
def modules() -> dict[str, Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = read_module(_module_name(path), path.read_text(encoding="utf-8"), path)
        found[module.name] = module
    return found


def _target(imported: str, name: str | None, known: dict[str, Module]) -> str:
    """The module an import statement loads: ``from a import b`` loads ``a.b`` when that
    is a module of the package, else ``a``."""
    if name is not None and f"{imported}.{name}" in known:
        return f"{imported}.{name}"
    return imported


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


@pytest.mark.slow
def test_the_package_is_read():
    assert {"paretostab._problem", "paretostab.report._load", "paretostab._tuning.objective",
            "paretostab.spec._schema", "paretostab._weight"} <= set(modules())


def underscore_reaches(known: dict[str, Module]) -> list[str]:
    """Where a module takes another module's underscore name (``from x import _y``,
    ``x._y``) or imports a private module (``_base.py``) from outside its package."""
    found = []
    for module in known.values():
        aliases = {}
        for imported, name, line in module.imports:
            if not imported.startswith("paretostab"):
                continue
            target = _target(imported, name, known)
            if name is not None and _private(name) and target == imported:
                found.append(f"{module.name}:{line} imports {imported}.{name}")
            if any(_private(p) for p in target.split(".")):
                owner = target.rpartition(".")[0]
                if not (module.name + ".").startswith(owner + "."):
                    found.append(f"{module.name}:{line} imports the private module {target} "
                                 f"from outside {owner}")
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("paretostab"):
                for alias in node.names:
                    if f"{node.module}.{alias.name}" in known:
                        aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("paretostab") and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(module.tree):
            if (isinstance(node, ast.Attribute) and _private(node.attr)
                    and isinstance(node.value, ast.Name) and node.value.id in aliases):
                found.append(f"{module.name}:{node.lineno} reads "
                             f"{aliases[node.value.id]}.{node.attr}")
    return found


def test_no_module_imports_another_modules_underscore_names():
    found = underscore_reaches(modules())
    assert not found, "\n".join(found)


def test_the_underscore_check_finds_each_kind_of_reach():
    known = {name: read_module(name, source) for name, source in {
        "paretostab.a": "def _hidden(): pass\ndef shown(): pass\n",
        "paretostab.pkg._private": "def helper(): pass\n",
        "paretostab.pkg.inside": "from paretostab.pkg._private import helper\n",
        "paretostab.b": "from paretostab.a import _hidden\n",
        "paretostab.c": "from paretostab import a as alias\nalias._hidden()\n",
        "paretostab.d": "def f():\n    from paretostab.pkg._private import helper\n",
        "paretostab.e": "from paretostab.a import shown\nimport numpy as np\nnp._x\n",
    }.items()}
    assert underscore_reaches(known) == [
        "paretostab.b:1 imports paretostab.a._hidden",
        "paretostab.c:2 reads paretostab.a._hidden",
        "paretostab.d:2 imports the private module paretostab.pkg._private from outside "
        "paretostab.pkg"]


def _graph() -> dict[str, set[str]]:
    graph = {name: set() for name in modules()}
    for module in modules().values():
        for imported, name, _ in module.imports:
            target = _target(imported, name, modules())
            if target in modules() and target != module.name:
                graph[module.name].add(target)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_no_import_circle_between_modules():
    """Function-level imports count: they only hide a circle."""
    assert not _circles(_graph())


def test_the_circle_finder_finds_circles():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_every_public_module_has_all():
    missing = []
    for module in modules().values():
        parts = module.path.relative_to(PACKAGE.parent).with_suffix("").parts
        if any(_private(p) for p in parts) or parts[-1] == "__main__":
            continue
        names = [t.id for node in module.tree.body if isinstance(node, ast.Assign | ast.AnnAssign)
                 for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                 if isinstance(t, ast.Name)]
        if "__all__" not in names:
            missing.append(module.name)
    assert not missing, f"public modules without __all__: {missing}"


OPTUNA_MODULES = {"paretostab._optuna_internals", "paretostab._storage", "paretostab._cli",
                  "paretostab.report._load", "paretostab.report._write"}
#: Optuna's private attributes paretostab has needed; only optuna_internals reads them.
OPTUNA_PRIVATE_ATTRIBUTES = {"_storage", "_study_id", "_trial_id", "_backend",
                             "_get_stale_trial_ids", "_cached_frozen_trial", "_thread_local"}


def type_only_lines(tree: ast.Module) -> set[int]:
    """The lines of the imports under ``if TYPE_CHECKING:`` (for annotations alone: never
    run)."""
    return {inner.lineno for node in ast.walk(tree)
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
            for statement in node.body for inner in ast.walk(statement)
            if isinstance(inner, ast.Import | ast.ImportFrom)}


def test_optuna_is_imported_only_by_the_modules_that_talk_to_it():
    """Tuning, the storages, the command line, the report's reader and writer and the
    module of Optuna's private interfaces; in the report, only its reader and writer.
    Elsewhere Optuna may be named in annotations (an import under TYPE_CHECKING)."""
    found = sorted({module.name for module in modules().values()
                    for imported, _, line in module.imports
                    if imported.split(".")[0] in ("optuna", "optuna_dashboard")
                    and line not in type_only_lines(module.tree)
                    and module.name not in OPTUNA_MODULES
                    and not module.name.startswith("paretostab._tuning")})
    assert not found


def test_type_only_imports_are_told_apart():
    tree = ast.parse("from typing import TYPE_CHECKING\nimport optuna\n"
                     "if TYPE_CHECKING:\n    import optuna.storages\n")
    assert type_only_lines(tree) == {4}


def optuna_private_uses(module: Module) -> list[str]:
    """Where ``module`` imports a private name or module of Optuna or reads one of
    :data:`OPTUNA_PRIVATE_ATTRIBUTES` (``paretostab._storage``, the package's module of
    that name, is not Optuna's)."""
    found = []
    for imported, name, line in module.imports:
        if imported.split(".")[0] == "optuna" and (
                any(_private(p) for p in imported.split(".")) or (name and _private(name))):
            found.append(f"{module.name}:{line} imports {imported}.{name or ''}")
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Attribute) and node.attr in OPTUNA_PRIVATE_ATTRIBUTES \
                and ast.unparse(node.value).split(".")[0] != "paretostab":
            found.append(f"{module.name}:{node.lineno} reads .{node.attr}")
        elif isinstance(node, ast.Attribute) and _private(node.attr) \
                and ast.unparse(node.value).split(".")[0] == "optuna":
            found.append(f"{module.name}:{node.lineno} reads {ast.unparse(node)}")
    return found


def test_optunas_private_interfaces_are_used_in_one_module():
    found = [use for module in modules().values()
             if module.name != "paretostab._optuna_internals"
             for use in optuna_private_uses(module)]
    assert not found, "\n".join(found)


@pytest.mark.slow
def test_tests_reach_optunas_private_interfaces_through_one_module():
    """A test reaches Optuna's internals through ``paretostab._optuna_internals`` (whose own
    tests, ``tests/test_optuna_internals.py``, exercise them): an Optuna release that changes
    one fails there, naming it, and not in tests about something else (issue 38)."""
    found = [use for path in sorted(TESTS.glob("*.py")) if path.name != "test_optuna_internals.py"
             for use in optuna_private_uses(read_module(f"tests.{path.stem}",
                                                        path.read_text(encoding="utf-8"), path))]
    assert not found, "\n".join(found)


def test_a_reach_into_optunas_internals_is_found():
    source = ("import optuna\nimport paretostab._storage\n"
              "from optuna.study._multi_objective import _is_pareto_front\n"
              "study._storage.get_trial(trial._trial_id)\n"
              "optuna.storages._heartbeat.BaseHeartbeat\n"
              "paretostab._storage.open_storage\n")
    assert sorted(optuna_private_uses(read_module("tests.test_x", source))) == [
        "tests.test_x:3 imports optuna.study._multi_objective._is_pareto_front",
        "tests.test_x:4 reads ._storage", "tests.test_x:4 reads ._trial_id",
        "tests.test_x:5 reads optuna.storages._heartbeat"]


def _calls(tree: ast.AST) -> set[str]:
    return {node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)}


def _enclosing_functions(tree: ast.AST) -> dict[ast.AST, str]:
    """Each node → the name of the function it is in ("" at module level)."""
    owner: dict[ast.AST, str] = {}

    def visit(node: ast.AST, name: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) \
                else name
            owner[child] = inner
            visit(child, inner)

    visit(tree, "")
    return owner


LOGGING_CALLS = {"set_verbosity", "basicConfig", "disable_default_handler",
                 "enable_propagation", "setLevel"}


def test_the_library_configures_no_global_logging():
    """Only the command line sets Optuna's log level; a ``tune`` worker process mirrors
    the level of the process that started it (``paretostab._tuning.processes._worker``),
    and ``tune`` holds back Optuna's INFO lines for its call only, the caller's level
    restored after (``quiet_optuna``, issue 33)."""
    allowed = {("paretostab._tuning.processes", "_worker"),
               ("paretostab._tuning.processes", "quiet_optuna")}
    found = []
    for module in modules().values():
        if module.name == "paretostab._cli":
            continue
        owner = _enclosing_functions(module.tree)
        for node in ast.walk(module.tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name)
                    and (node.func.attr if isinstance(node.func, ast.Attribute)
                         else node.func.id) in LOGGING_CALLS
                    and (module.name, owner.get(node, "")) not in allowed):
                found.append(f"{module.name}:{node.lineno}")
    assert not found, found


def test_drawers_compute_no_statistics():
    """The plot package draws the fronts paretostab.front computed (ParetoFront), as it
    draws the maps paretostab.maps computed: none of its modules computes them."""
    plot = [module for name, module in modules().items()
            if name == "paretostab.plot" or name.startswith("paretostab.plot.")]
    assert {"paretostab.plot", "paretostab.plot._maps",
            "paretostab.plot._fronts"} <= {module.name for module in plot}
    found = {module.name: sorted(_calls(module.tree) & {
        "pareto_front", "dominance_area", "staircase", "gamma_table", "choose",
        "confidence_regions", "dominance_area_interval"}) for module in plot}
    assert not any(found.values()), found


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    """(all parameters, those that may be given by position), without self and cls."""
    args = function.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args) if a.arg not in ("self", "cls")]
    total = len(positional) + len(args.kwonlyargs) + bool(args.vararg) + bool(args.kwarg)
    return total, len(positional)


@pytest.mark.parametrize("package", ["paretostab.report", "paretostab._tuning"])
def test_no_long_lists_of_loose_arguments(package):
    """No private function takes more than 8 parameters; public entry points may take
    more, but only as keyword-only options."""
    found = []
    for module in modules().values():
        if not module.name.startswith(package):
            continue
        for node in ast.walk(module.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                total, positional = _parameters(node)
                if (_private(node.name) and total > MAX_PRIVATE_PARAMETERS) or (
                        positional > MAX_PRIVATE_PARAMETERS):
                    found.append(f"{module.name}.{node.name}: {total} parameters")
    assert not found, found


#: A module past this many lines usually holds two ideas (the project's guide).
MAX_MODULE_LINES = 800
#: The report's edges: its only reader of a storage, its only writer, the pipelines that
#: call them, and the package, which exports the pipelines (imported when first used).
#: Every other module of the report computes or draws from what they pass.
REPORT_EDGES = {"paretostab.report._load", "paretostab.report._write", "paretostab.report._build",
                "paretostab.report"}
#: What only the edges may import: the storage, Optuna and its private interfaces.
STORAGE_MODULES = ("optuna", "optuna_dashboard", "paretostab._storage",
                   "paretostab._optuna_internals")


def test_no_module_of_the_package_is_longer_than_its_idea():
    long = {module.name: n for module in modules().values()
            if (n := len(module.path.read_text(encoding="utf-8").splitlines()))
            > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def report_reaches(known: dict[str, Module]) -> list[str]:
    """Where a report module other than its edges imports an edge (the reader, the writer,
    the pipelines) or a storage (Optuna, paretostab._storage, Optuna's internals)."""
    found = []
    for module in known.values():
        if not module.name.startswith("paretostab.report") or module.name in REPORT_EDGES:
            continue
        for imported, name, line in module.imports:
            target = _target(imported, name, known)
            if target in REPORT_EDGES or target.startswith(STORAGE_MODULES):
                found.append(f"{module.name}:{line} imports {target}")
    return found


def test_the_reports_analyses_neither_read_nor_write():
    """The report is a pipeline: read (load) → analyse → draw → write (write); the analyses
    take the frozen StudyData and the Refits, never the reader, and store nothing."""
    found = report_reaches(modules())
    assert not found, "\n".join(found)


def test_the_report_rule_finds_each_kind_of_reach():
    known = {name: read_module(name, source) for name, source in {
        "paretostab.report._load": "", "paretostab.report._write": "",
        "paretostab.report._analysis": "from paretostab.report._load import read_study\n",
        "paretostab.report._pages": "import optuna\n",
        "paretostab.report._figures": "from paretostab import _storage\n",
        "paretostab.report._refits": "from paretostab.report import _write\n",
        "paretostab.report._build": "from paretostab.report._load import read_study\n",
        "paretostab._storage": ""}.items()}
    assert sorted(report_reaches(known)) == [
        "paretostab.report._analysis:1 imports paretostab.report._load",
        "paretostab.report._figures:1 imports paretostab._storage",
        "paretostab.report._pages:1 imports optuna",
        "paretostab.report._refits:1 imports paretostab.report._write"]


def test_every_public_module_is_one_the_api_reference_documents():
    """A new module without an underscore is public API: add it to the reference (and
    here) on purpose, or name it ``_name.py``."""
    public = {module.name for module in modules().values()
              if not any(_private(p) for p in module.name.split("."))
              and module.name.rpartition(".")[2] != "__main__"}
    assert public == set(PUBLIC_MODULES)


def helpers_taken_from(module: Module) -> set[tuple[str, str]]:
    """(this module of tests/, a test module it imports from)."""
    importer = module.name.split(".")[-1]
    return {(importer, imported.split(".")[1] if imported != "tests" else name or "")
            for imported, name, _ in module.imports
            if imported.startswith("tests.test_")
            or (imported == "tests" and name and name.startswith("test_"))}


@pytest.mark.slow
def test_the_tests_are_laid_out_like_the_package():
    """Each test module says in its opening docstring which part of the package it tests,
    and shares its helpers through tests/ modules without the test_ prefix, not by being
    imported by other test modules or by those helper modules (issue 38: the suite reads
    like the package)."""
    taken, undocumented = set(), []
    for path in sorted(TESTS.rglob("*.py")):
        name = ".".join(path.relative_to(TESTS.parent).with_suffix("").parts)
        module = read_module(name, path.read_text(encoding="utf-8"), path)
        is_test = path.parent == TESTS and path.name.startswith("test_")
        if is_test and not (ast.get_docstring(module.tree) or "").strip():
            undocumented.append(path.name)
        taken |= helpers_taken_from(module)
    assert not undocumented, f"test modules without a docstring: {undocumented}"
    assert not taken, (f"helpers taken from a test module: {sorted(taken)}; move them into a "
                       "tests/ module without the test_ prefix")


def test_a_helper_taken_from_a_test_module_is_found():
    source = ("from tests.test_tuning import tiny\nfrom tests import test_multiclass_rfe, studies\n"
              "from tests.servers import free_port\n")
    assert helpers_taken_from(read_module("tests.test_x", source)) == {
        ("test_x", "test_tuning"), ("test_x", "test_multiclass_rfe")}
