"""One colour per feature in all the maps of a study (003 §3: "each feature is assigned a
color"; issue 22 point 5): the order of :func:`feature_color_order`, stored in the study
when it is created, colours each trial's dashboard map and the report's maps alike."""

from __future__ import annotations

import json
import warnings
from fractions import Fraction

import numpy as np
import optuna
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.feature_selection import f_classif

from paretostab._errors import InvalidInputError
from paretostab._palette import anova_f
from paretostab._problem import Problem
from paretostab._storage import open_storage
from paretostab._tuning import create_or_load_study, run_study
from paretostab._tuning import objective as objective_module
from paretostab._vocabulary import FEATURE_COLORS
from paretostab.maps import (
    OTHER_COLOR,
    PALETTE,
    feature_color_order,
    feature_palette,
    study_palette,
)
from paretostab.report._analysis import front_maps
from paretostab.report._compare import front_trials
from paretostab.report._load import open_source, read_runsets
from paretostab.spec import parse_spec
from tests.studies import analysed, read

# --------------------------------------------------------------------------- the order


def exact_f(column, y) -> Fraction | float:
    """The ANOVA F statistic of one integer column, in exact arithmetic: NaN when undefined
    (one class, or no variance at all), +inf when the classes differ but not within."""
    values = [Fraction(int(v)) for v in column]
    classes = sorted(set(y))
    groups = [[v for v, label in zip(values, y, strict=True) if label == c] for c in classes]
    n, k = len(values), len(classes)
    mean = sum(values) / n
    between = sum(len(g) * (sum(g) / len(g) - mean) ** 2 for g in groups)
    within = sum((v - sum(g) / len(g)) ** 2 for g in groups for v in g)
    if k < 2 or (between == 0 and within == 0):
        return float("nan")
    if within == 0:
        return float("inf")
    return (between / (k - 1)) / (within / (n - k))


def category(f) -> int:
    """+inf first, finite values, NaN last."""
    return 0 if f == float("inf") else 2 if f != f else 1


@st.composite
def labelled_integers(draw):
    n = draw(st.integers(4, 10))
    d = draw(st.integers(1, 8))
    y = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    X = draw(st.lists(st.lists(st.integers(0, 3), min_size=d, max_size=d), min_size=n,
                      max_size=n))
    return np.array(X, dtype=float), np.array(y), draw(st.integers(0, d + 2))


@settings(max_examples=80)
@given(labelled_integers())
@example((np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 1], [0, 0, 0], [0, 0, 1]]),
          np.array([0, 0, 1, 0, 1]), 2))  # F 3/5, 9/5, +inf: [2, 1] (was [2, 0])
def test_the_order_is_the_features_by_decreasing_anova_f(case):
    X, y, n = case
    order = feature_color_order(X, y, n).tolist()
    F = [exact_f(X[:, j], y.tolist()) for j in range(X.shape[1])]
    assert len(order) == min(n, X.shape[1]) == len(set(order))
    scale = max((f for f in F if category(f) == 1), default=Fraction(1)) or Fraction(1)
    tolerance = 1e-9 * float(scale)  # F equal to 12 decimals of the largest tie

    def on_a_rounding_edge(f) -> bool:  # where the computed F may round either way
        return abs((f / scale * 10**12) % 1 - Fraction(1, 2)) < Fraction(1, 1000)

    for a, b in zip(order[:-1], order[1:], strict=True):
        assert category(F[a]) <= category(F[b])
        if category(F[a]) == category(F[b]) == 1:
            assert F[a] >= F[b] - tolerance
            if F[a] == F[b] and not on_a_rounding_edge(F[a]):
                assert a < b  # ties by index
        elif category(F[a]) == category(F[b]):  # both +inf, both NaN: ties
            assert a < b
    rest = set(range(X.shape[1])) - set(order) if order else set()
    last = order[-1] if order else None
    for other in rest:  # the features left out come after the last one chosen
        assert category(F[last]) <= category(F[other])
        if category(F[last]) == category(F[other]) == 1:
            assert F[other] <= F[last] + tolerance


@settings(max_examples=40)
@given(labelled_integers(), st.data())
def test_equal_columns_tie_and_are_ordered_by_index(case, data):
    X, y, _ = case
    copies = data.draw(st.lists(st.integers(0, X.shape[1] - 1), min_size=1, max_size=4))
    X = np.hstack([X, X[:, copies]])  # exact copies: the same F to the last bit
    order = feature_color_order(X, y, X.shape[1]).tolist()
    position = {feature: place for place, feature in enumerate(order)}
    for offset, original in enumerate(copies):
        copy = X.shape[1] - len(copies) + offset
        assert position[original] < position[copy]
    assert order == feature_color_order(X.copy(), y.copy(), X.shape[1]).tolist()


def test_values_equal_in_exact_arithmetic_tie_whatever_the_order_of_the_sums():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 7)
    base = rng.normal(size=21) / 3.0
    shuffled = base.copy()
    for c in range(3):  # the same values in each class, summed in another order
        within = np.flatnonzero(y == c)
        shuffled[within] = base[rng.permutation(within)]
    X = np.column_stack([rng.normal(size=21), shuffled, base, rng.normal(size=21)])
    X[:, 0] += 4 * y  # the most telling
    order = feature_color_order(X, y).tolist()
    assert order[0] == 0 and order.index(1) + 1 == order.index(2)  # the tie by index


def test_special_values_and_edges():
    y = np.array([0, 0, 1, 1])
    X = np.array([[1.0, 5, 0, 2], [1, 5, 1, 3], [1, 7, 0, 4], [1, 7, 1, 9]])
    # column 0 constant (NaN: last), 1 constant within classes (+inf: first)
    assert feature_color_order(X, y).tolist() == [1, 3, 2, 0]
    assert feature_color_order(X, np.array(["b", "b", "a", "a"])).tolist() == [1, 3, 2, 0]
    assert feature_color_order(X, np.zeros(4)).tolist() == [0, 1, 2, 3]  # one class
    assert feature_color_order(X, y, 0).size == 0
    with pytest.raises(InvalidInputError, match=r"^n must be an integer >= 0; got None"):
        feature_color_order(X, y, None)
    assert feature_color_order(X, y, 2).tolist() == [1, 3]
    assert feature_color_order(X, y).dtype == np.intp
    for bad in ({"X": X[0], "y": y}, {"X": X, "y": y[:3]}, {"X": X, "y": y, "n": -1},
                {"X": X, "y": y, "n": 1.5}, {"X": X, "y": y, "n": True}):
        with pytest.raises(InvalidInputError):
            feature_color_order(bad["X"], bad["y"], *([bad["n"]] if "n" in bad else []))
    with pytest.raises(InvalidInputError, match=r"n_samples >= 1; got \(0, 4\) and \(0,\)"):
        feature_color_order(X[:0], y[:0])  # no example: no F to order by


def test_a_column_constant_within_each_class_is_infinite_whatever_the_centring_rounds():
    """A column of 0 and 1 that is constant within each class: centred by its mean (1/5,
    not a float), a class of four 0s deviated by 3·10⁻¹⁷, F was 3.5·10³² instead of +inf,
    and as the largest finite F it set the scale of the rounding, which tied F = 1/5 with
    F = 4/5 and ordered them by index. Brute force: 3 000 random designs with a constant
    column (F NaN) and a column constant within each class (+inf)."""
    y = np.array([0, 0, 1, 0, 2])
    X = np.array([[0.0, 0, 0], [0, 0, 1], [0, 0, 1], [0, 1, 0], [1, 0, 0]])
    F = anova_f(X, y)
    assert F[0] == np.inf and F[1:].tolist() == pytest.approx([0.2, 0.8], rel=1e-15)
    assert feature_color_order(X, y).tolist() == [0, 2, 1]
    rng = np.random.default_rng(0)
    for _ in range(3_000):
        y = rng.integers(0, 3, int(rng.integers(4, 12)))
        levels = rng.choice([rng.random(), 0.1, 1 / 3, 1e5 * rng.random()], 3)
        if np.unique(levels[y]).size < 2 or np.unique(y).size == y.size:
            continue
        column = rng.choice([0.1, 0.2, 1 / 3, rng.normal() * 1e3])
        F = anova_f(np.column_stack([np.full(y.size, column), levels[y]]), y)
        assert np.isnan(F[0]) and F[1] == np.inf, (y, levels, column)


def test_classes_far_apart_tie_whatever_the_order_of_the_sums():
    """Classes 5 apart, spread 10⁻³: scikit-learn's differences of sums of squares give
    the same values in another order an F 2·10⁻⁸ apart, beyond any rounding (it ordered
    these [1, 0, 2]); deviations about the means give 2·10⁻¹⁶ (seed 1: the later column's
    F the larger), which the rounding ties. Relative to the largest F: absolutely, or
    relative to the smallest, the two would not tie."""
    y = np.repeat([0, 1, 2], 7)
    rng = np.random.default_rng(1)
    base = 5 * y + rng.normal(size=21) / 1000.0
    shuffled = base.copy()
    for c in range(3):
        within = np.flatnonzero(y == c)
        shuffled[within] = base[rng.permutation(within)]
    X = np.column_stack([shuffled, base, rng.normal(size=21)])
    F = anova_f(X, y)
    assert F[0] < F[1] and F[1] - F[0] < 1e-15 * F[1] and F[0] > 1e8
    assert feature_color_order(X, y).tolist() == [0, 1, 2]


def test_small_f_values_are_told_apart_relative_to_the_largest():
    """Classes barely apart (every F about 1.6·10⁻⁵): two F 2·10⁻⁹ apart relative to
    each other are ordered by F, the rounding being to 12 decimals of the largest finite
    F. Rounded absolutely — or over a scale of at least 1 — they would tie at 12 decimals
    and go by index."""
    y = np.repeat([0, 1], 20)
    base = np.random.default_rng(0).standard_normal(40)
    for c in (0, 1):
        base[y == c] -= base[y == c].mean()
    shift = np.where(y == 1, 1e-3, 0.0)
    X = np.column_stack([base + shift, base + shift * (1 + 1e-9)])
    F = anova_f(X, y)
    assert 0 < F[0] < F[1] < 1 and np.round(F[0], 12) == np.round(F[1], 12)
    assert feature_color_order(X, y).tolist() == [1, 0]


def test_anova_f_is_scikit_learns_and_its_edges():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 50)
    X = rng.normal(size=(50, 12)) * rng.uniform(0.5, 3, 12) + 3 * y[:, None] * rng.random(12)
    np.testing.assert_allclose(anova_f(X, y), f_classif(X, y)[0], rtol=1e-10)
    # lists; a constant column (NaN, last) and one of equal class means (F = 0, before it);
    # one example; none of it warns
    lists = [[1.0, 1.0, 5.0], [1.0, -1.0, 5.0], [1.0, -1.0, 7.0], [1.0, 1.0, 7.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert feature_color_order(lists, [0, 0, 1, 1]).tolist() == [2, 1, 0]
        assert anova_f(np.array(lists), np.array([0, 0, 1, 1]))[1] == 0.0
        assert feature_color_order(np.array([[3.0, 1.0]]), np.array([0])).tolist() == [0, 1]


@pytest.mark.filterwarnings("ignore:Features .* are constant", "ignore:invalid value")
def test_many_features_in_blocks_give_the_order_of_one_computation():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=30)
    X = rng.normal(size=(30, 9000))
    X[:, [17, 4500, 8999]] += 2.0 * y[:, None]
    X[:, 100] = 1.0  # constant: NaN
    F = f_classif(X, y)[0]  # all columns at once (the function computes them in blocks)
    F = np.where(np.isnan(F), -np.inf, F)
    expected = np.lexsort((np.arange(X.shape[1]), -np.round(F / F.max(), 12)))
    order = feature_color_order(X, y, 9000)
    assert np.array_equal(order, expected)
    assert set(order[:3].tolist()) == {17, 4500, 8999} and order[-1] == 100
    assert np.array_equal(feature_color_order(X, y), order[:len(PALETTE)])


# --------------------------------------------------------------------------- a study

SPEC = {
    "study": {"name": "colours", "trials": 4, "seed": 0, "sampler": "random"},
    "data": {"source": "simulated:n_other=30,n_per_class=20"},
    "protocol": {"runs": 3},
    "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 4},
                 "search": {"n_stable": [0, 4], "reg": {"low": 0.01, "high": 100.0,
                                                        "log": True}}},
    "objective": {"stability": "iw"},
}


def spec(**study):
    raw = json.loads(json.dumps(SPEC))
    raw["study"].update(study)
    return parse_spec(raw)


def colours_of(m) -> dict[int, tuple]:
    return dict(zip(m.features.tolist(), m.colors, strict=True))


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """A study created by ``tune`` (it stores its colour order) and one created without
    its data, as by an older version (it stores none), in one storage; the maps each of
    their trials drew for the dashboard, by study and trial."""
    url = f"sqlite:///{tmp_path_factory.mktemp('colours') / 'study.db'}"
    drawn: dict[tuple[str, int], object] = {}
    note = objective_module.trial_note
    tuning = []  # the study being tuned (its trials run in this process)
    monkeypatch = pytest.MonkeyPatch()

    def spy(number, spec, values, accuracy, map_data, **kwargs):  # the map the trial drew
        drawn[tuning[-1], number] = map_data
        return note(number, spec, values, accuracy, map_data, **kwargs)

    monkeypatch.setattr(objective_module, "trial_note", spy)
    try:
        tuning.append("colours")
        run_study(spec(), storage=url, progress=False)
        tuning.append("old")
        create_or_load_study(spec(name="old"), storage=open_storage(url))  # no data given
        run_study(spec(name="old"), storage=url, progress=False)
    finally:
        monkeypatch.undo()
    return url, drawn


@pytest.mark.slow
def test_a_new_study_stores_the_order_of_its_data(studies):
    url, _ = studies
    reader = read(url, "colours")
    problem = Problem.from_spec(spec())
    stored = optuna.load_study(study_name="colours", storage=url).user_attrs[FEATURE_COLORS]
    assert stored == feature_color_order(problem.X, problem.y).tolist()
    assert len(stored) == len(PALETTE)
    assert reader.palette == feature_palette(stored)
    assert study_palette(stored, problem.X, problem.y) == reader.palette
    assert read(url, "old").feature_colors is None
    assert FEATURE_COLORS not in optuna.load_study(study_name="old",
                                                   storage=url).user_attrs


@pytest.mark.parametrize("name", ["colours", "old"])
def test_every_trial_map_and_the_report_colour_a_feature_alike(studies, name):
    url, drawn = studies
    reader = read(url, name)
    palette = reader.palette
    maps = [m for (study, _), m in drawn.items() if study == name]
    assert len(maps) == 4
    seen = {}
    for m in maps:  # every trial's map: the study's palette, grey beyond it
        assert m.palette == palette
        for feature, colour in colours_of(m).items():
            assert colour == palette.color(feature)
            assert colour == (OTHER_COLOR if feature not in palette.features
                              else PALETTE[palette.features.index(feature)])
            assert seen.setdefault(feature, colour) == colour
    assert any(colour != OTHER_COLOR for colour in seen.values())
    # the report's maps and overview, made as analyse_study makes them
    numbers = front_trials(reader.table, [reader.objective])
    runsets = read_runsets(open_source(url, name), numbers)
    report = front_maps([runsets[n] for n in numbers], numbers,
                        feature_names=reader.problem.feature_names, chosen=numbers[0],
                        palette=palette)
    assert report.palette == palette
    for m in report.maps:
        for feature, colour in colours_of(m).items():
            assert colour == seen[feature]  # the colour of the trials' maps
    for feature in report.overview.features.tolist():
        assert report.palette.color(feature) == seen[feature]


def test_a_study_without_the_attribute_gets_the_colours_it_would_have_stored(studies):
    url, drawn = studies
    new, old = read(url, "colours"), read(url, "old")
    assert old.palette == new.palette
    for (study, _), m in drawn.items():
        if study == "old":
            assert colours_of(m) == {f: new.palette.color(f) for f in m.features.tolist()}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["colours", "old"])
def test_the_report_colours_its_maps_with_the_study_palette(studies, name):
    url, drawn = studies
    reader = read(url, name)
    report = analysed(url, name, replicates=0, progress=False)
    assert report.maps.palette == reader.palette
    for m in report.maps.maps:
        for feature, colour in colours_of(m).items():
            assert all(colour == colours_of(trial_map)[feature]
                       for (study, _), trial_map in drawn.items()
                       if study == name and feature in trial_map.features)
