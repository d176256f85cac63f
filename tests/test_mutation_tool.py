"""benchmarks/mutation.py (issue 24, point 2): the mutator, the modules and tests it names,
and the equivalents file, which must name mutants of the code as it is now."""

from __future__ import annotations

import ast
import re
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
    # those of some descriptions only: the same mutants, nth and all (a line written
    # twice), none other compiled
    path.write_text(SMALL + "\n\ndef g(a, b):\n    total = a + b * 2\n    return total\n",
                    encoding="utf-8")
    mutants = mutation.mutants_of(path, "small.py")
    described = {m.key[1:5] for m, _ in mutants[::2]}
    chosen = mutation.mutants_of(path, "small.py", described=described)
    assert chosen == [(m, source) for m, source in mutants if m.key[1:5] in described]
    assert len(chosen) < len(mutants) and any(m.nth == 2 for m, _ in chosen)


def _mutant_at(mutants, line, original):
    return next(m for m, _ in mutants if m.line == line and m.original == original)


def test_a_mutant_is_judged_by_the_tests_that_ran_its_statement(mutation, tmp_path):
    """Issue 37: each module against every test that exercises it. A mutant in a function
    runs the tests coverage saw run its statement (a multi-line statement: any of its
    lines; a compound statement: its header); all of the module's tests after them when
    the statement also ran outside a test, and alone for a mutant at module level (a
    default is evaluated once, at import); none when no test runs the statement."""
    source = SMALL.replace("    total = a + b * 2\n", "    total = (a +\n             b * 2)\n")
    path = tmp_path / "small.py"
    path.write_text(source, encoding="utf-8")
    mutants = mutation.mutants_of(path, "small.py")
    everything = ["tests/test_small.py"]
    exercised = mutation.Exercised(everything, {7: {"t::one"}, 8: {"t::two"},
                                                9: {"", "t::three"}}, source,
                                   {"t::one": 1.0, "t::two": 2.0, "t::three": 4.0})
    assert exercised.tests_for(_mutant_at(mutants, 8, "*")) == [["t::one", "t::two"]]
    assert exercised.tests_for(_mutant_at(mutants, 9, "<=")) == [["t::three"], everything]
    assert exercised.tests_for(_mutant_at(mutants, 10, "min")) == []
    assert exercised.tests_for(_mutant_at(mutants, 5, "2")) == [everything]
    tree = ast.parse(source)
    assert list(mutation.statement_lines(tree, 7, 12)) == [7, 8]
    assert list(mutation.statement_lines(tree, 9, 7)) == [9]  # the if's header only
    assert mutation.statement_lines(tree, 5, 20) is None
    # a run may take five times what its tests took unmutated, plus 30 s
    assert exercised.timeout(["t::one", "t::two"]) == 5 * 3.0 + 30
    assert exercised.timeout(everything) == 5 * 7.0 + 30


@pytest.mark.slow
def test_coverage_names_the_tests_that_ran_each_line_and_marks_a_subprocess(mutation,
                                                                            tmp_path):
    """The measurement itself, on a throwaway repository: pytest-cov's test contexts name
    the test that ran a line in process; a line run only by a test's subprocess carries
    no test's name (so its mutants run every test of the module)."""
    (tmp_path / "paretostab").mkdir()
    (tmp_path / "paretostab" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "paretostab" / "small.py").write_text(
        "def inside(a):\n    return a + 1\n\n\ndef outside(a):\n    return a - 1\n",
        encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_small.py").write_text(
        "import subprocess, sys\nfrom paretostab.small import inside\n\n\n"
        "def test_inside():\n    assert inside(1) == 2\n\n\n"
        "def test_outside():\n    subprocess.run([sys.executable, '-c', "
        "'from paretostab.small import outside; assert outside(1) == 0'], check=True)\n",
        encoding="utf-8")
    outcome, exercised = mutation.exercised(tmp_path, "small.py", ["tests/test_small.py"],
                                            tmp_path, 1, tmp_path / "log")
    assert outcome == "passed", (tmp_path / "log").read_text(encoding="utf-8")
    assert exercised.by_line[2] == {"tests/test_small.py::test_inside"}
    assert exercised.by_line[6] == {""}
    assert set(exercised.seconds) == {"tests/test_small.py::test_inside",
                                      "tests/test_small.py::test_outside"}


def test_the_mutants_run_are_a_seeded_sample_the_listed_ones_or_those_named(mutation, tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SMALL, encoding="utf-8")
    mutants = mutation.mutants_of(path, "small.py")
    listed = {mutants[0][0].key: {}, mutants[3][0].key: {}}
    options = mutation.parse_args(["--sample", "4", "--seed", "2"])
    sample = mutation.chosen(mutants, listed, "small.py", options)
    assert len(sample) == 4 and not {m.key for m, _ in sample} & set(listed)
    assert mutation.chosen(mutants, listed, "small.py", options) == sample  # seeded
    everything = mutation.chosen(mutants, listed, "small.py", mutation.parse_args(["--sample", "0"]))
    assert len(everything) == len(mutants) - 2
    assert mutation.chosen(mutants, listed, "small.py", mutation.parse_args(
        ["--equivalents"])) == [mutants[0], mutants[3]]
    named = mutation.parse_args(["--ids", mutants[1][0].id, mutants[3][0].id])
    assert mutation.chosen(mutants, listed, "small.py", named) == [mutants[1]]


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
    described: dict[str, set] = {}
    for key in equivalents:
        described.setdefault(key[0], set()).add(key[1:5])
    existing = {m.key for file, kinds in described.items()
                for m, _ in mutation.mutants_of(ROOT / file, file, described=kinds)}
    assert [key for key in equivalents if key not in existing] == []
    assert all(len(entry["reason"].split()) >= 8 for entry in equivalents.values())


def test_every_equivalents_entry_has_a_reason_and_says_on_which_numpy_and_pot_it_was_checked(
        mutation):
    """An equivalence can hold on one release only (msi's reshape of np.unique's inverse is
    a no-op but on NumPy 2.0.0): every entry says why it is equivalent and, in
    ``checked``, the versions it survived on, as the tool prints those installed (issue
    37: an entry without them is a claim nobody ran on a known release)."""
    one = r"numpy \d+\.\d+\.\d+\S*, POT \d+\.\d+\.\d+\S*"
    checked = re.compile(rf"{one}(; {one})*")  # one pair of versions or several
    entries = mutation.read_equivalents(mutation.EQUIVALENTS).values()
    assert entries
    assert [e["line"] for e in entries if not isinstance(e.get("checked"), str)
            or not checked.fullmatch(e["checked"])] == []
    assert [e["line"] for e in entries if not isinstance(e.get("reason"), str)
            or not e["reason"].strip()] == []
    assert re.fullmatch(one, mutation.versions())
