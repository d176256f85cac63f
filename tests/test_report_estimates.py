"""The report's estimates (paretostab.report._estimates) from hand-made tables and refit
stand-ins, no study tuned: which trials the label probe visits, the held-out table and
``retained``, and the nested evaluation's folds, stability and feature frequencies, each
against values worked out by hand or by brute force (issue 37: the mutants of the module
that its end-to-end tests let pass)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import FrozenInstanceError
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from paretostab._errors import InvalidInputError
from paretostab.evaluation import HeldOutScore
from paretostab.report._estimates import chance_flags, held_out_evaluation, nested_evaluation

NAMES = ("a", "b", "c", "d", "e")


def study(table, *, y=(), test_y=None, outer_folds=None, name="sim"):
    """What the estimates read of a StudyData: its table, labels, held-out part and spec."""
    split = None if test_y is None else SimpleNamespace(description="held-out 25%")
    problem = SimpleNamespace(y=np.asarray(y), test_y=test_y, split=split, feature_names=NAMES)
    protocol = SimpleNamespace(metric="accuracy", outer_folds=outer_folds)
    return SimpleNamespace(name=name, table=table, problem=problem,
                           checked_spec=SimpleNamespace(protocol=protocol))


class StandIn:
    """A Refits of ``data`` answering from dicts: label probes (recording each trial
    probed), held-out scores at one level, whole-data selections and outer folds."""

    def __init__(self, data, *, label_free=(), scores=None, level=0.9, selections=None,
                 folds=None):
        self.data, self.label_free, self.probed = data, set(label_free), []
        self.scores, self.level = scores or {}, level
        self.selections, self.folds = selections or {}, folds or {}

    def ignores_labels(self, number):
        self.probed.append(number)
        return number in self.label_free

    def held_out_score(self, number, level):
        assert level == self.level
        return self.scores[number]

    def whole_data_selection(self, number):
        return self.selections[number]

    def outer(self, fold):
        return self.folds[fold]


def score(value, n=20):
    return HeldOutScore(value, value - 0.1, min(value + 0.05, 1.0), n, 0.9, "wilson")


# --------------------------------------------------------------------------- chance


def test_the_label_probe_visits_the_front_of_all_trials_and_then_of_those_not_flagged():
    """200 balanced labels (no-information accuracy 0.5). The front of all trials is
    0, 1, 2, 4; trial 0 (accuracy 0.50: P(X ≥ 100) ≈ 0.53) is at chance, but it is probed
    too, and ignores the labels, as 4 does; without 0 and 4 the front gains 3 (0.58: P(X ≥
    116) ≈ 0.014), which is probed then; 5 (below 1) never."""
    table = pd.DataFrame({"trial": [0, 1, 2, 3, 4, 5],
                          "accuracy": [0.50, 0.80, 0.90, 0.58, 0.60, 0.70],
                          "phi": [0.95, 0.60, 0.30, 0.68, 0.70, 0.40]})
    data = study(table, y=np.repeat([0, 1], 100))
    refits = StandIn(data, label_free={0, 4})
    flags = chance_flags(data, refits, table, "phi", level=0.95)
    assert sorted(refits.probed) == [0, 1, 2, 3, 4]
    assert dict(flags.label_free) == {0: True, 1: False, 2: False, 3: False, 4: True}
    assert flags.reason(0) == ("accuracy not above chance (0.500; p = 0.53); selection "
                               "ignores the labels: its stability is not evidence of signal")
    assert flags.flagged_trials == (0, 4)


# --------------------------------------------------------------------------- held out


def two_front_trials(progress=False):
    """Front trials 1 and 0 of three, refitted on 30 examples and scored on 10."""
    table = pd.DataFrame({"trial": [0, 1, 2], "accuracy": [0.8, 1.0, 0.6]})
    data = study(table, y=np.zeros(30), test_y=np.zeros(10))
    refits = StandIn(data, scores={0: score(0.6, 10), 1: score(0.9, 10)})
    return held_out_evaluation(data, refits, table, [1, 0],
                               {1: {"accuracy": [0.7, math.nan, 0.9]}}, level=0.9,
                               progress=progress)


def test_the_held_out_table_and_what_the_front_retains():
    """Out of bag 1.0 and 0.8, held out 0.9 and 0.6, so the front retains (0.9 + 0.6) /
    (1.0 + 0.8) = 5/6 of its out-of-bag value; trial 1's replicate mean leaves its NaN
    out, trial 0 has no replicates."""
    held = two_front_trials()
    expected = pd.DataFrame({"trial": [1, 0], "out-of-bag": [1.0, 0.8],
                             "replicate mean": [0.8, math.nan], "held-out": [0.9, 0.6],
                             "held-out low": [0.8, 0.5], "held-out high": [0.95, 0.65]})
    pd.testing.assert_frame_equal(held.table, expected)
    assert (held.description, held.n_development, held.n_test) == ("held-out 25%", 30, 10)
    assert held.retained == pytest.approx(5 / 6)
    assert held.to_dict()["retained"] == held.retained


# --------------------------------------------------------------------------- nested


def outer_fold(rows, selections, scores):
    """An outer fold's study: trials (number, accuracy, phi), their selections as
    whole_data_selection gives them (column index, importance) and held-out scores."""
    table = pd.DataFrame(rows, columns=["trial", "accuracy", "phi"])
    return StandIn(study(table), scores=scores, selections={
        number: pd.DataFrame({"index": [f for f, _ in chosen],
                              "feature": [NAMES[f] for f, _ in chosen],
                              "importance": [w for _, w in chosen]})
        for number, chosen in selections.items()})


def four_folds(progress=False):
    """K = 4: fold 1 chooses trial 0 (it dominates trial 1), a selector without
    importances, of a and b; fold 2's study has no completed trial yet; fold 3 chooses
    trial 3, of a (importance 3) and c (−1); fold 4's study does not exist."""
    first = outer_fold([(0, 0.9, 0.8), (1, 0.7, 0.5)],
                       {0: [(0, math.nan), (1, math.nan)]}, {0: score(0.85)})
    third = outer_fold([(3, 0.8, 0.6)], {3: [(0, 3.0), (2, -1.0)]}, {3: score(0.75)})
    empty = StandIn(study(pd.DataFrame(columns=["trial", "accuracy", "phi"])))
    data = study(pd.DataFrame(), outer_folds=4)
    return nested_evaluation(data, StandIn(data, folds={1: first, 2: empty, 3: third, 4: None}),
                             "phi", gamma=0.5, level=0.9, allow_chance=True, progress=progress)


def test_the_nested_folds_name_those_not_tuned_and_score_the_others():
    nested = four_folds()
    assert nested.missing == (2, 4) and nested.outer_folds == 4
    expected = pd.DataFrame({"fold": [1, 3], "study": ["sim/outer-1", "sim/outer-3"],
                             "trials": [2, 1], "chosen": [0, 3], "out-of-bag": [0.9, 0.8],
                             "outer": [0.85, 0.75], "outer low": [0.75, 0.65],
                             "outer high": [0.9, 0.8], "n test": [20, 20], "selected": [2, 2]})
    pd.testing.assert_frame_equal(nested.folds, expected)
    assert nested.mean == pytest.approx(0.8)
    assert nested.spread == pytest.approx(0.1 / math.sqrt(2))


def test_the_nested_stability_of_two_chosen_selections_and_their_features():
    """{a, b} and {a, c} of d = 5 (k̄ = 2): φ = 1 − (Σ_f s_f² / d) / (k̄/d (1 − k̄/d)) with
    s² = (0, ½, ½, 0, 0), 1 − 0.2 / 0.24 = 1/6. φ_iw (003 eq. 6) weighs fold 1's features
    1 each (no importances: all alike) and fold 3's |3| and |−1| scaled to sum to k̄, 1.5
    and 0.5: shared min(1, 1.5) = 1, by chance (1 + 0.5 + 1 + 0.5) / 5 = 0.6, so
    (1 − 0.6) / (2 − 0.6) = 2/7."""
    nested = four_folds()
    assert nested.stability["nogueira"] == pytest.approx(1 / 6)
    assert nested.stability["iw"] == pytest.approx(2 / 7)
    pd.testing.assert_frame_equal(nested.frequencies,
                                  pd.DataFrame({"feature": ["a", "b", "c"], "folds": [2, 1, 1]}))


def test_a_study_without_outer_folds_has_no_nested_evaluation():
    data = study(pd.DataFrame())
    with pytest.raises(InvalidInputError, match="has no outer folds"):
        nested_evaluation(data, StandIn(data, folds={}), "phi", gamma=0.5, level=0.9,
                          allow_chance=True, progress=False)


@pytest.mark.filterwarnings("ignore::paretostab.StabilityWarning")  # φ of k̄ = d: NaN
@settings(max_examples=40)
@given(st.lists(st.sets(st.integers(0, len(NAMES) - 1), min_size=1), min_size=1, max_size=4))
@example(chosen=[{0, 1}])  # one fold tuned: no stability, and no error
def test_the_nested_frequencies_count_the_chosen_selections(chosen):
    """Every feature some fold's chosen selection holds, by decreasing count and then
    column order, and φ of them by its definition (Nogueira et al. 2018) from 2 folds on
    (NaN with one fold, or when every fold chose all d features)."""
    folds = {fold: outer_fold([(0, 0.8, 0.5)], {0: [(f, math.nan) for f in sorted(s)]},
                              {0: score(0.7)})
             for fold, s in enumerate(chosen, start=1)}
    data = study(pd.DataFrame(), outer_folds=len(chosen))
    nested = nested_evaluation(data, StandIn(data, folds=folds), "phi", gamma=0.5, level=0.9,
                               allow_chance=True, progress=False)
    counts = Counter(f for s in chosen for f in s)
    ranked = sorted(counts, key=lambda f: (-counts[f], f))
    assert list(nested.frequencies["feature"]) == [NAMES[f] for f in ranked]
    assert list(nested.frequencies["folds"]) == [counts[f] for f in ranked]
    m, d = len(chosen), len(NAMES)
    k = sum(map(len, chosen)) / m
    if m < 2 or k == d:
        assert math.isnan(nested.stability["nogueira"])
    else:
        p = np.array([counts[f] / m for f in range(d)])
        phi = 1 - np.mean(m / (m - 1) * p * (1 - p)) / (k / d * (1 - k / d))
        assert nested.stability["nogueira"] == pytest.approx(phi, abs=1e-12)


@pytest.mark.parametrize(("estimate", "table"), [(two_front_trials, "table"),
                                                 (four_folds, "folds")])
def test_the_estimates_are_frozen_and_each_is_equal_only_to_itself(estimate, table):
    """The pages show them as computed; their tables are DataFrames, whose == is element
    by element, not a truth value, so they compare and hash as themselves."""
    one, other = estimate(), estimate()
    with pytest.raises(FrozenInstanceError):
        setattr(one, table, getattr(other, table))
    assert one == one and one != other and len({one, other}) == 2


# --------------------------------------------------------------------------- progress


def screen(text):
    """The lines a terminal shows after ``text``: ``\r`` goes back to the line's start,
    and what follows overwrites it."""
    lines, line, column = [], [], 0
    for character in text:
        if character == "\n":
            lines, line, column = [*lines, "".join(line)], [], 0
        elif character == "\r":
            column = 0
        else:
            line[column:column + 1] = [character]
            column += 1
    return [*lines, "".join(line)]


@pytest.mark.parametrize(("estimate", "done"), [(two_front_trials, "held-out refits: 2/2 trials"),
                                                (four_folds, "outer folds: 4/4 folds")])
def test_the_refits_progress_counts_every_step_and_its_bar_leaves_no_line(estimate, done,
                                                                            capsys):
    """Off a terminal, the last line counts every trial refitted or fold looked at
    (missing ones too); the bar (progress=True) is the report's passing detail and is
    cleared once done."""
    estimate(progress=None)
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"{done}, done in "), last
    estimate(progress=True)
    err = capsys.readouterr().err
    assert done.split(": ")[0] in err and [line.strip() for line in screen(err)] == [""]
