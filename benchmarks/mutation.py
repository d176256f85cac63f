"""Seeded mutation testing of the numerical core, each module against its own tests.

Run from the repository root::

    python benchmarks/mutation.py                                   # every module, 40 each
    python benchmarks/mutation.py --modules measures/_weighted.py --sample 15 --seed 0
    python benchmarks/mutation.py --sample 0 --jobs 2 --out mutation.json   # all sites

Issue 24, point 2. mutmut skips decorated functions, and every registered measure is one,
so the mutants here come from a small AST mutator: comparison operators (``<``/``<=``,
``>``/``>=``, ``==``/``!=``), arithmetic (``+``/``-``, ``*``/``/``, ``** 2`` to ``* 2``),
numeric constants (``c`` to ``c + 1``, ``0`` and ``1``), ``min``/``max`` and
``minimum``/``maximum`` (names and attributes), ``and``/``or``, ``True``/``False``, and
the removal of an expression statement or an assignment (replaced by ``pass``; not
``__all__``, which no result reads). A mutant is named by ``(file, line, col, operator,
original, replacement)`` and a stable id, a hash of those; the edit is made on the source
text, so the rest of the module (comments, line numbers) stays as written, and a mutant
that does not compile is not counted.

For a seeded sample of each module's sites, the mutated module is written over the
original in a temporary copy of the repository (one copy per ``--jobs`` worker; the
working tree is never touched), the tests that exercise the mutated line run there
(``pytest -x``; killed = they fail or time out: five times what they took unmutated,
plus 30 s) and the original is written back.

Which tests exercise a line is measured, not guessed (issue 37: each module against every
test that exercises it, affordable for modules whose tests run tune end to end): before
any mutant, the module's tests run once unmutated under coverage.py (pytest-cov,
``--cov-context=test``, subprocesses followed), which records for every line of the module
the tests that ran it. A mutant in a function's body runs the tests that ran its statement
(every line of it; of a compound statement, its header). Where a test's name cannot say
which tests reach a mutant, all the module's tests run (after the named ones, if any): a
mutant at module level (a constant, a decorator, a default: executed once, at import, by
whichever test imported first) or in a statement that also ran outside a test (in a
subprocess, or while pytest collected). A mutant whose statement no test runs survives
without a run, listed as "not run by any test". A module whose tests fail unmutated is
reported, not mutated.

Mutants that cannot change a result are listed once, each with its reason, in
``benchmarks/mutation_equivalent.toml``; they are not run and not in the kill rate, so that
every run's survivors are new. An entry names a mutant by its file, the text of its line
(stripped), operator, original and replacement (``nth`` tells apart equal mutants on one
line, counted from 1), never by line number, which moves, and says in ``checked`` on which
NumPy and POT it was seen to survive: an equivalence can hold on one release only (NumPy
2.0.0's ``np.unique`` gave msi a 2-D inverse, which 2.0.1 took back). ``--equivalents`` runs the
listed mutants of the modules instead of a sample, to check them on the NumPy and POT
installed: each should survive, and one killed is no longer equivalent there. ``--ids``
runs only the mutants named, e.g. a survivor again after the test written for it.

Prints a Markdown table and the surviving mutants (with ``--equivalents``, the killed
ones), each with its original and mutated line, and the NumPy and POT it ran on; ``--out``
writes the results as JSON.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import functools
import hashlib
import io
import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from itertools import pairwise
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project's own fallback, see pyproject.toml
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENTS = Path(__file__).with_name("mutation_equivalent.toml")

# module under paretostab/ -> the pytest arguments of its own tests
MODULES = {
    "measures/_subset.py": ["tests/test_subset.py", "tests/test_measure_table.py"],
    "measures/_weighted.py": ["tests/test_weighted.py", "tests/test_measure_table.py"],
    "measures/_ranking.py": ["tests/test_ranking.py", "tests/test_measure_table.py"],
    "measures/_msi.py": ["tests/test_msi.py", "tests/test_measure_table.py"],
    "measures/_adjusted.py": ["tests/test_adjusted.py", "tests/test_measure_table.py"],
    "measures/_inputs.py": ["tests/test_inputs.py", "tests/test_contract.py"],
    "front.py": ["tests/test_report_front.py"],
    "report/_confidence.py": ["tests/test_report_confidence.py"],
    # the kill -9, Ctrl-C and PostgreSQL tests take minutes or a server, and the failing
    # worker's and the artifact store's end before this module runs: the one-process tests
    # of tests/test_coordination_units.py send the signals and fake the clock instead
    "_tuning/coordination.py": ["tests/test_coordination.py", "tests/test_coordination_units.py",
                               "-k", "not kill and not ctrl_c and not postgres "
                               "and not failing_worker and not artifact_store"],
    "selectors/_logistic.py": ["tests/test_logistic_paths.py"],
    # the hinge model and the elimination's solver switches are tested with the logistic core
    "selectors/_rfe.py": ["tests/test_rfe_reference.py", "tests/test_selectors.py",
                          "tests/test_logistic_paths.py"],
    # beyond the core: the estimates, weights, maps, importances, similarities and protocol
    # that a report shows, each against every test that imports it, its own first so that
    # -x stops a killed mutant early
    "evaluation.py": ["tests/test_evaluation.py", "tests/test_model.py"],
    "_weight.py": ["tests/test_weight.py", "tests/test_report_front.py",
                   "tests/test_report_study.py"],
    "maps.py": ["tests/test_maps_overview.py", "tests/test_report_maps.py",
                "tests/test_feature_colours.py", "tests/test_report_plot.py",
                "tests/test_tuning.py", "tests/test_own_failures.py"],
    "_palette.py": ["tests/test_maps_overview.py", "tests/test_feature_colours.py",
                    "tests/test_report_maps.py", "tests/test_report_plot.py",
                    "tests/test_tuning.py"],
    "report/_estimates.py": ["tests/test_report_estimates.py", "tests/test_evaluation.py",
                             "tests/test_report_study.py"],
    "_importance.py": ["tests/test_importance.py", "tests/test_kernel_svm.py",
                       "tests/test_multiclass_filters.py", "tests/test_other_selectors.py",
                       "tests/test_protocol.py", "tests/test_memory.py"],
    "_similarity.py": ["tests/test_similarity.py", "tests/test_adjusted.py", "tests/test_msi.py",
                       "tests/test_contract.py", "tests/test_spec.py",
                       "tests/test_report_study.py", "tests/test_tuning.py"],
    "_protocol.py": ["tests/test_protocol.py", "tests/test_binary_unchanged.py",
                     "tests/test_complementary_pairs.py", "tests/test_external_selector.py",
                     "tests/test_import_weight.py", "tests/test_kernel_svm.py",
                     "tests/test_multiclass_filters.py", "tests/test_multiclass_linear.py",
                     "tests/test_multiclass_rfe.py", "tests/test_run_cache.py",
                     "tests/test_memory.py", "tests/test_report_study.py"],
}

COMPARE = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="),
           ast.GtE: (">=", ">"), ast.Eq: ("==", "!="), ast.NotEq: ("!=", "==")}
ARITHMETIC = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"),
              ast.Div: ("/", "*")}
BOOLOP = {ast.And: ("and", "or"), ast.Or: ("or", "and")}
SWAPPED_NAMES = {"min": "max", "max": "min", "minimum": "maximum", "maximum": "minimum"}
IGNORED_IN_COPY = shutil.ignore_patterns(".git", ".ci", "__pycache__", "*.egg-info",
                                         "*-artifacts", ".pytest_cache", ".hypothesis",
                                         ".ruff_cache", "build", "dist")


@dataclass(frozen=True)
class Mutant:
    """One mutation of one module.

    Attributes
    ----------
    file : str
        The module, relative to the repository root.
    line, col : int
        Where the mutated token (or removed statement) starts; ``col`` counts characters.
    operator : str
        The kind of mutation: ``compare``, ``arithmetic``, ``power``, ``constant``,
        ``name``, ``boolop``, ``bool`` or ``remove``.
    original, replacement : str
        The source text replaced and its replacement.
    text : str
        The original line, stripped.
    mutated_text : str
        The same line in the mutant, stripped (the first line, if the mutation spans more).
    nth : int
        Which of the equal mutants (same file, text, operator, original and replacement)
        this is, counted from 1 in source order.
    """

    file: str
    line: int
    col: int
    operator: str
    original: str
    replacement: str
    text: str
    mutated_text: str
    nth: int

    @property
    def id(self):
        """str : A stable hash of file, line, col, operator, original and replacement."""
        key = "\0".join(map(str, (self.file, self.line, self.col, self.operator,
                                  self.original, self.replacement)))
        return hashlib.sha1(key.encode()).hexdigest()[:10]

    @property
    def key(self):
        """tuple : The description an equivalents entry matches, free of line numbers."""
        return (self.file, self.text, self.operator, self.original, self.replacement,
                self.nth)


class _Sites:
    """The mutation sites of one module's source, each with the edits that make it.

    Parameters
    ----------
    source : str
        The module's source.
    """

    def __init__(self, source):
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.line_starts = [0]
        for line in self.lines:
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                       if t.type in (tokenize.OP, tokenize.NAME, tokenize.NUMBER)]
        self.token_starts = [t.start for t in self.tokens]
        self.found = []  # (line, col, operator, original, replacement, edits)

    def char_col(self, line, byte_col):
        """Return the character column of the AST's UTF-8 byte column on ``line``."""
        return len(self.lines[line - 1].encode()[:byte_col].decode())

    def start(self, node):
        """Return ``(line, character column)`` where ``node`` starts."""
        return node.lineno, self.char_col(node.lineno, node.col_offset)

    def end(self, node):
        """Return ``(line, character column)`` where ``node`` ends."""
        return node.end_lineno, self.char_col(node.end_lineno, node.end_col_offset)

    def token_between(self, after, before, string):
        """Return the first token ``string`` that starts in ``[after, before)``."""
        i = bisect.bisect_left(self.token_starts, after)
        while i < len(self.tokens) and self.tokens[i].start < before:
            if self.tokens[i].string == string:
                return self.tokens[i]
            i += 1
        raise ValueError(f"no {string!r} between {after} and {before}")

    def add(self, operator, original, replacement, edits):
        """Record a site whose edits are ``[(start, end, text), ...]``; the first names it."""
        line, col = edits[0][0]
        self.found.append((line, col, operator, original, replacement, edits))

    def token_swap(self, operator, token, replacement):
        """Record the replacement of one token's text."""
        self.add(operator, token.string, replacement, [(token.start, token.end, replacement)])

    def offset(self, position):
        """Return the offset in ``source`` of a ``(line, character column)`` position."""
        return self.line_starts[position[0] - 1] + position[1]

    def apply(self, edits):
        """Return the source with ``edits`` made, the last first."""
        source = self.source
        for start, end, text in sorted(edits, key=lambda e: e[0], reverse=True):
            source = source[:self.offset(start)] + text + source[self.offset(end):]
        return source


def _skipped(tree):
    """Return the ids of the nodes never mutated: annotations, f-strings, docstrings and
    ``__all__`` (it names what ``import *`` and the API pages list; no result reads it)."""
    roots = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)):
            roots.append(node)
        elif isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            roots.append(node.returns)
    return {id(n) for root in roots for n in ast.walk(root)}


def _visit(node, sites):
    """Record the sites of one AST node in ``sites``."""
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        for op, (left, right) in zip(node.ops, pairwise(operands), strict=True):
            if type(op) in COMPARE:
                original, replacement = COMPARE[type(op)]
                token = sites.token_between(sites.end(left), sites.start(right), original)
                sites.token_swap("compare", token, replacement)
    elif isinstance(node, ast.BinOp | ast.AugAssign):
        left, right = ((node.left, node.right) if isinstance(node, ast.BinOp)
                       else (node.target, node.value))
        symbol = "" if isinstance(node, ast.BinOp) else "="
        if type(node.op) in ARITHMETIC:
            original, replacement = ARITHMETIC[type(node.op)]
            token = sites.token_between(sites.end(left), sites.start(right), original + symbol)
            sites.token_swap("arithmetic", token, replacement + symbol)
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)
              and isinstance(right, ast.Constant) and right.value == 2):
            token = sites.token_between(sites.end(left), sites.start(right), "**")
            # parenthesised: a / b ** 2 must become a / (b * 2)
            sites.add("power", "**", "*", [(token.start, token.end, "*"),
                                           (sites.start(node), sites.start(node), "("),
                                           (sites.end(node), sites.end(node), ")")])
    elif isinstance(node, ast.BoolOp):
        original, replacement = BOOLOP[type(node.op)]
        edits = []
        for left, right in pairwise(node.values):
            token = sites.token_between(sites.end(left), sites.start(right), original)
            edits.append((token.start, token.end, replacement))
        sites.add("boolop", original, replacement, edits)
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        sites.add("bool", repr(node.value), repr(not node.value),
                  [(sites.start(node), sites.end(node), repr(not node.value))])
    elif (isinstance(node, ast.Constant) and type(node.value) in (int, float)
          and not isinstance(node.value, bool)):
        kind = type(node.value)
        original = sites.source[sites.offset(sites.start(node)):sites.offset(sites.end(node))]
        for value in dict.fromkeys((node.value + 1, kind(0), kind(1))):
            if value != node.value:
                sites.add("constant", original, repr(value),
                          [(sites.start(node), sites.end(node), repr(value))])
    elif isinstance(node, ast.Name) and node.id in SWAPPED_NAMES:
        sites.add("name", node.id, SWAPPED_NAMES[node.id],
                  [(sites.start(node), sites.end(node), SWAPPED_NAMES[node.id])])
    elif isinstance(node, ast.Attribute) and node.attr in SWAPPED_NAMES:
        token = sites.token_between(sites.end(node.value), sites.end(node), node.attr)
        sites.token_swap("name", token, SWAPPED_NAMES[node.attr])
    if isinstance(node, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign) and not (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)) and not (
            isinstance(node, ast.AnnAssign) and node.value is None):
        # the lines after the first kept as blank lines, so that line numbers stay
        padding = "\n" * (node.end_lineno - node.lineno)
        sites.add("remove", "statement", "pass",
                  [(sites.start(node), sites.end(node), "pass" + padding)])


def mutants_of(path, relative, *, described=None):
    """Return the mutants of one module that compile, in source order.

    Parameters
    ----------
    path : Path
        The module's file.
    relative : str
        Its path relative to the repository root, the name used in the results.
    described : set of tuple, optional
        Only the mutants whose ``(text, operator, original, replacement)`` is one of these
        (their ``nth`` is the same: it counts equal mutants only), compiling no other:
        checking the equivalents entries of a module then takes milliseconds, not seconds.

    Returns
    -------
    list of tuple
        ``(Mutant, mutated source)`` pairs.
    """
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    skipped = _skipped(tree)
    sites = _Sites(source)
    for node in ast.walk(tree):
        if id(node) not in skipped:
            _visit(node, sites)
    result, seen = [], {}
    for line, col, operator, original, replacement, edits in sorted(
            sites.found, key=lambda s: s[:2]):
        text = sites.lines[line - 1].strip()
        if described is not None and (text, operator, original, replacement) not in described:
            continue
        mutated = sites.apply(edits)
        try:
            compile(mutated, relative, "exec")
        except SyntaxError:
            continue
        nth = seen[(text, operator, original, replacement)] = seen.get(
            (text, operator, original, replacement), 0) + 1
        mutated_text = mutated.splitlines()[line - 1].strip()
        result.append((Mutant(relative, line, col, operator, original, replacement, text,
                              mutated_text, nth), mutated))
    return result


def read_equivalents(path):
    """Return the equivalents file's entries, keyed as :attr:`Mutant.key`, with reasons.

    Parameters
    ----------
    path : Path
        A TOML file of ``[[mutant]]`` tables with ``file``, ``line``, ``operator``,
        ``original``, ``replacement``, ``reason``, ``checked`` (the NumPy and POT
        versions it was seen to survive on) and optionally ``nth`` (default 1).

    Returns
    -------
    dict
        ``{key: entry}``, the entry's table as read (``reason``, ``checked``, ...); empty
        if the file does not exist.
    """
    if not path.exists():
        return {}
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("mutant", [])
    return {(e["file"], e["line"].strip(), e["operator"], e["original"], e["replacement"],
             e.get("nth", 1)): e for e in entries}


def _function_bodies(tree):
    """Return the spans ``((line, col), (end line, end col))`` of every function's body
    (its first to its last statement; columns in UTF-8 bytes, as the AST gives them)."""
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first, last = node.body[0], node.body[-1]
            spans.append(((first.lineno, first.col_offset),
                          (last.end_lineno, last.end_col_offset)))
    return spans


def statement_lines(tree, line, col):
    """Return the lines of the statement a mutant at ``(line, col)`` is in, or ``None``
    when it is not in a function's body (module or class level: run at import).

    The innermost statement holding the position; of a compound statement (``if``,
    ``for``, ``while``, ``with``, ``try``), only its header, the lines before its body.

    Parameters
    ----------
    tree : ast.Module
        The module's AST.
    line, col : int
        The mutant's position; ``col`` in UTF-8 bytes.
    """
    position = (line, col)
    if not any(start <= position <= end for start, end in _function_bodies(tree)):
        return None
    best = None  # ((line, col) where the statement starts, its last line)
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = (max(node.lineno, body[0].lineno - 1), float("inf"))  # the header
        else:
            end = (node.end_lineno, node.end_col_offset)
        start = (node.lineno, node.col_offset)
        if start <= position <= end and (best is None or start > best[0]):
            best = (start, end[0])
    return range(best[0][0], best[1] + 1)


@dataclass
class Exercised:
    """The tests that ran each line of one module, measured once, unmutated.

    Attributes
    ----------
    everything : list of str
        The module's own pytest arguments (:data:`MODULES`).
    by_line : dict
        ``{line: set of test node ids}``; ``""`` in a set: the line ran outside a test's
        context too (at import or in a subprocess).
    source : str
        The module's source, unmutated.
    seconds : dict
        ``{test node id: seconds}`` of the run under coverage.
    """

    everything: list
    by_line: dict
    source: str
    seconds: dict

    @functools.cached_property
    def tree(self):
        """ast.Module : The module's AST, parsed once for all its mutants."""
        return ast.parse(self.source)

    def timeout(self, tests, factor=5.0, start_up=30.0):
        """Seconds to allow one run of ``tests`` (a list of pytest arguments): ``factor``
        times what they took under coverage, plus ``start_up`` (a mutant caught in a loop
        is killed by this, at a cost in proportion to the tests it runs)."""
        if tests is self.everything:
            return factor * sum(self.seconds.values()) + start_up
        return factor * sum(self.seconds.get(t, 0.0) for t in tests) + start_up

    def tests_for(self, mutant):
        """Return the runs of pytest that judge ``mutant``, each a list of arguments, run
        in turn until one fails: the tests that ran its statement, then — when it also ran
        outside a test's context, or is at module level — all the module's tests (a second
        run: pytest would run one argument list in its collection order, not the list's).
        No run when no test runs its statement."""
        text = self.source.splitlines()[mutant.line - 1]
        byte_col = len(text[:mutant.col].encode())
        lines = statement_lines(self.tree, mutant.line, byte_col)
        if lines is None:
            return [self.everything]
        tests = set().union(*(self.by_line.get(n, set()) for n in lines))
        named = sorted(tests - {""})
        return [*([named] if named else []), *([self.everything] if "" in tests else [])]


def exercised(copy, module, arguments, scratch, jobs, log):
    """Run ``module``'s tests once in ``copy`` under coverage, test by test.

    Returns
    -------
    (str, Exercised or None)
        The outcome (``"passed"``, ``"failed"``) and, when passed, the tests of each line.
    """
    from coverage import CoverageData

    target = (copy / "paretostab" / module).resolve()
    config = Path(scratch) / f"coveragerc-{module.replace('/', '-')}"
    data_file = Path(scratch) / f"coverage-{module.replace('/', '-')}"
    config.write_text(f"[run]\ninclude = {target}\nparallel = true\n"
                      f"patch = subprocess\ndata_file = {data_file}\n", encoding="utf-8")
    junit = Path(scratch) / f"junit-{module.replace('/', '-')}.xml"
    outcome = run_tests(copy, ["-n", str(max(1, jobs)), "--cov", "--cov-context=test",
                               "--cov-report=", f"--cov-config={config}",
                               f"--junitxml={junit}", *arguments],
                        timeout=None, log=log, stop_first=False)
    if outcome != "passed":
        return outcome, None
    data = CoverageData(basename=str(data_file))
    data.read()
    by_line = {}
    for line, contexts in data.contexts_by_lineno(str(target)).items():
        # pytest-cov names a context "node id|setup", "|run" or "|teardown"
        by_line[line] = {c.rpartition("|")[0] if "|" in c else c for c in contexts}
    return outcome, Exercised(list(arguments), by_line, target.read_text(encoding="utf-8"),
                              test_seconds(junit, copy))


def test_seconds(junit, copy):
    """Return ``{node id: seconds}`` from a JUnit XML report of pytest run in ``copy``
    (it names a test by its dotted module and classes, ``classname``, and ``name``)."""
    import xml.etree.ElementTree as ElementTree

    seconds = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        parts = case.get("classname", "").split(".")
        # the longest prefix of the dotted name that is a file is the module; the rest
        # are classes
        for cut in range(len(parts), 0, -1):
            if (copy / Path(*parts[:cut])).with_suffix(".py").is_file():
                path = "/".join(parts[:cut]) + ".py"
                node = "::".join([path, *parts[cut:], case.get("name", "")])
                seconds[node] = seconds.get(node, 0.0) + float(case.get("time", 0.0))
                break
    return seconds


def run_tests(copy, tests, timeout, log=None, stop_first=True):
    """Run pytest on ``tests`` in the repository copy ``copy``; its output goes to the
    file ``log`` if given, else nowhere.

    Returns
    -------
    str
        ``"passed"``, ``"failed"`` or ``"timeout"``.
    """
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
    with open(log or os.devnull, "w", encoding="utf-8") as output:
        # a session of its own, so that a timeout ends the test's own child processes too
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest", *(["-x"] if stop_first else []), "-q",
             "-p", "no:cacheprovider", *tests],
            cwd=copy, env=env, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return "timeout"
    return "passed" if code == 0 else "failed"


def parse_args(argv=None):
    """Return the command line's options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", nargs="+", choices=sorted(MODULES), default=sorted(MODULES),
                        metavar="MODULE", help="modules under paretostab/ (default: all)")
    parser.add_argument("--sample", type=int, default=40,
                        help="mutants drawn per module; 0 runs them all (default: 40)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default: 0)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per run of tests (default: 5 x what those tests took "
                             "under coverage, unmutated, + 30)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="mutants run at once, each in its own copy (default: 1)")
    parser.add_argument("--out", type=Path, help="write the results here as JSON")
    parser.add_argument("--equivalents", action="store_true",
                        help="run the listed equivalent mutants of the modules instead, to "
                             "check that each survives on the NumPy and POT installed")
    parser.add_argument("--ids", nargs="+", metavar="ID",
                        help="run only the mutants with these ids (of the modules chosen)")
    return parser.parse_args(argv)


def versions():
    """str : The NumPy and POT installed, as the equivalents' ``checked`` field says them."""
    from importlib.metadata import version
    return f"numpy {version('numpy')}, POT {version('pot')}"


def chosen(mutants, equivalents, module, args):
    """Return the mutants of ``module`` to run: with ``--equivalents`` the listed ones,
    else a seeded sample of the others (all of them for ``--sample 0``); with ``--ids``,
    only those of them named.

    Parameters
    ----------
    mutants : list of tuple
        :func:`mutants_of`'s ``(Mutant, mutated source)`` pairs of the module.
    equivalents : dict
        :func:`read_equivalents`'s entries.
    module : str
        The module under paretostab/, which seeds its sample.
    args : argparse.Namespace
        :func:`parse_args`'s options.
    """
    pool = [m for m in mutants if (m[0].key in equivalents) == args.equivalents]
    if args.ids:
        return [m for m in pool if m[0].id in args.ids]
    if args.equivalents or args.sample <= 0 or args.sample >= len(pool):
        return pool
    return random.Random(f"{args.seed}:{module}").sample(pool, args.sample)


def main(argv=None):
    """Run the sampled mutants and print the table and the survivors."""
    args = parse_args(argv)
    started = time.monotonic()
    equivalents = read_equivalents(EQUIVALENTS)
    plan, rows, matched = [], {}, set()
    for module in args.modules:
        relative = f"paretostab/{module}"
        mutants = mutants_of(ROOT / relative, relative)
        live = [m for m in mutants if m[0].key not in equivalents]
        matched.update(m[0].key for m in mutants if m[0].key in equivalents)
        sample = chosen(mutants, equivalents, module, args)
        plan += [(module, mutant, source) for mutant, source in sample]
        rows[module] = {"module": module, "total": len(live),
                        "equivalent": len(mutants) - len(live), "run": len(sample),
                        "killed": 0, "survived": 0}
    stale = [key for key in equivalents if key[0] in {f"paretostab/{m}" for m in args.modules}
             and key not in matched]

    with tempfile.TemporaryDirectory(prefix="paretostab-mutation-") as scratch:
        copies = queue.Queue()
        if (ROOT.parent / "shared").is_dir():  # the tests read ../shared beside the copies
            (Path(scratch) / "shared").symlink_to(ROOT.parent / "shared")
        for job in range(max(1, args.jobs)):
            shutil.copytree(ROOT, Path(scratch) / f"copy{job}", ignore=IGNORED_IN_COPY)
            copies.put(Path(scratch) / f"copy{job}")
        baseline, reach = {}, {}
        for module in args.modules:
            began = time.monotonic()
            log = Path(scratch) / "baseline.log"
            outcome, reach[module] = exercised(Path(scratch) / "copy0", module, MODULES[module],
                                               scratch, args.jobs, log)
            baseline[module] = (outcome, time.monotonic() - began)
            if outcome == "passed":
                ran = set().union(*reach[module].by_line.values()) - {""}
                print(f"{module}: its tests ran once under coverage in "
                      f"{baseline[module][1]:.0f} s; {len(ran)} of them ran its lines",
                      file=sys.stderr, flush=True)
            if outcome != "passed":
                tail = "".join(log.read_text(encoding="utf-8").splitlines(True)[-40:])
                print(f"{module}: its tests fail unmutated; not mutated. The end of their "
                      f"output:\n{tail}", file=sys.stderr)
        plan = [p for p in plan if baseline[p[0]][0] == "passed"]

        def run(item):
            module, mutant, source = item
            runs = reach[module].tests_for(mutant)
            if not runs:
                return module, mutant, "not run"
            copy = copies.get()
            target = copy / mutant.file
            original = target.read_text(encoding="utf-8")
            try:
                target.write_text(source, encoding="utf-8")
                for tests in runs:
                    outcome = run_tests(copy, tests,
                                        args.timeout or reach[module].timeout(tests))
                    if outcome != "passed":
                        break
                # as it goes, on stderr: a long run stopped part way still tells what it did
                ran = " then ".join("all the module's tests" if t is reach[module].everything
                                    else f"{len(t)} test(s)" for t in runs)
                print(f"{mutant.file}:{mutant.line}:{mutant.col} [{mutant.id}] {outcome} "
                      f"({ran})", file=sys.stderr, flush=True)
                return module, mutant, outcome
            finally:
                target.write_text(original, encoding="utf-8")
                copies.put(copy)

        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            outcomes = list(pool.map(run, plan))

    survivors = []
    for module, mutant, outcome in outcomes:
        killed = outcome in ("failed", "timeout")
        rows[module]["killed" if killed else "survived"] += 1
        rows[module]["timed out"] = rows[module].get("timed out", 0) + (outcome == "timeout")
        if killed == args.equivalents:
            survivors.append((mutant, outcome))
    print("| module | mutants run of total | killed (timed out) | survived | kill rate "
          "| known equivalent |")
    print("|---|---|---|---|---|---|")
    for module in args.modules:
        row = rows[module]
        if baseline[module][0] != "passed":
            print(f"| {module} | tests fail unmutated | | | | {row['equivalent']} |")
            continue
        rate = f"{row['killed'] / row['run']:.0%}" if row["run"] else "-"
        print(f"| {module} | {row['run']} of {row['total']} | {row['killed']} "
              f"({row.get('timed out', 0)}) "
              f"| {row['survived']} | {rate} | {row['equivalent']} |")
    if survivors:
        print("\nKilled equivalents (no longer equivalent on these versions):"
              if args.equivalents else "\nSurviving mutants:")
    for mutant, outcome in sorted(survivors, key=lambda s: (s[0].file, s[0].line, s[0].col)):
        print(f"\n{mutant.file}:{mutant.line}:{mutant.col} [{mutant.id}] {mutant.operator} "
              f"{mutant.original} -> {mutant.replacement}"
              f"{f' (nth {mutant.nth})' if mutant.nth > 1 else ''}"
              f"{' (not run by any test)' if outcome == 'not run' else ''}")
        print(f"  - {mutant.text}\n  + {mutant.mutated_text}")
    for key in stale:
        print(f"\nstale equivalents entry (no such mutant): {key}", file=sys.stderr)
    elapsed = time.monotonic() - started
    print(f"\n{len(outcomes)} mutants in {elapsed:.0f} s (seed {args.seed}, "
          f"{max(1, args.jobs)} job(s); {versions()})")
    if args.out:
        args.out.write_text(json.dumps({
            "seed": args.seed, "sample": args.sample, "seconds": elapsed,
            "equivalents": args.equivalents, "versions": versions(),
            "modules": [rows[m] | {"baseline": baseline[m][0]} for m in args.modules],
            "mutants": [asdict(m) | {"id": m.id, "outcome": outcome}
                        for _, m, outcome in outcomes],
        }, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
