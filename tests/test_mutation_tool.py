"""benchmarks/mutation.py (issue 24, point 2): the mutator, the modules and tests it names,
and the equivalents file, which must name mutants of the code as it is now."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchmark_modules import benchmark_module

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mutation():
    with benchmark_module("mutation") as module:
        yield module


SMALL = '''"""A module."""
__all__ = ["f"]


def f(a: int, b: int = 2) -> bool:
    """Docstring 1 < 2."""
    total = a + b * 2
    if total <= 3 and not False:
        return min(total, 1) == 0
    return f"{a + 1}" != "x"
'''


@pytest.mark.slow
def test_the_mutator_makes_each_kind_of_mutant_and_leaves_the_rest(mutation, tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SMALL, encoding="utf-8")
    mutants = mutation.mutants_of(path, "small.py")
    kinds = {(m.operator, m.original, m.replacement) for m, _ in mutants}
    assert {("arithmetic", "+", "-"), ("arithmetic", "*", "/"), ("compare", "<=", "<"),
            ("compare", "==", "!="), ("name", "min", "max"), ("bool", "False", "True"),
            ("constant", "3", "4"), ("constant", "3", "0"), ("constant", "2", "1"),
            ("remove", "statement", "pass")} <= kinds
    for mutant, source in mutants:
        assert source != SMALL and source.count("\n") == SMALL.count("\n")  # lines stay
        compile(source, "small.py", "exec")
        assert mutant.line not in (2, 6)  # __all__ and the docstring
        assert "{a - 1}" not in source  # f-strings are text
    assert len({m.id for m, _ in mutants}) == len(mutants)


@pytest.mark.slow
def test_the_modules_and_their_tests_exist(mutation):
    for module, arguments in mutation.MODULES.items():
        assert (ROOT / "paretostab" / module).is_file(), module
        for argument in arguments:
            if argument.startswith("tests/"):
                assert (ROOT / argument).is_file(), argument


@pytest.mark.slow
def test_every_equivalents_entry_names_a_mutant_of_the_code_as_it_is(mutation):
    """An entry names its mutant by the line's text: an edited line leaves the entry
    naming nothing, and it must then be removed or rewritten, not left stale."""
    equivalents = mutation.read_equivalents(mutation.EQUIVALENTS)
    assert equivalents
    files = {key[0] for key in equivalents}
    existing = {m.key for file in files
                for m, _ in mutation.mutants_of(ROOT / file, file)}
    assert [key for key in equivalents if key not in existing] == []
    assert all(len(reason.split()) >= 8 for reason in equivalents.values())
