"""Comparing groups of trials (studies, or the selectors of one study) by their fronts:
the pure core (000 §6.2 Fig. 6 and Table 3; 002 §3 dominance-area intervals), and
``python -m paretostab compare`` end to end on two tiny studies in two storages."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import optuna
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from paretostab._cli import main
from paretostab._errors import InvalidInputError
from paretostab._optuna_internals import storage_of, study_id_of
from paretostab._tuning import run_study
from paretostab.front import dominance_area, pareto_front
from paretostab.report import Group, compare_groups, table3
from paretostab.report._analysis import default_measures
from paretostab.report._compare import NO_INTERVAL, OVERLAP
from paretostab.spec import parse_spec

# --------------------------------------------------------------------------- helpers


def make_group(name, points, *, replicates=None, measure="phi", selector=None):
    """A group of trials with values ``points`` (accuracy, ``measure``) and, per trial,
    ``replicates[i]``: a (B, 2) array."""
    points = np.asarray(points, dtype=float)
    table = pd.DataFrame({"trial": np.arange(len(points)), "accuracy": points[:, 0],
                          measure: points[:, 1]})
    if selector is not None:
        table["selector"] = selector
    found = {}
    for number, sample in enumerate(replicates or []):
        found[number] = {"accuracy": list(sample[:, 0]), measure: list(sample[:, 1])}
    return Group(name, table, found)


def drawn_around(expected, rng, *, b=10, sd=0.02):
    """Trials' own values and ``b`` replicates of each, drawn around their expected
    points."""
    expected = np.asarray(expected, dtype=float)
    own = expected + rng.normal(0.0, sd, expected.shape)
    replicates = [mu + rng.normal(0.0, sd, (b, 2)) for mu in expected]
    return own, replicates


EXPECTED_A = [(0.70, 0.60), (0.75, 0.50), (0.80, 0.40), (0.65, 0.45)]
EXPECTED_B = [(0.68, 0.58), (0.74, 0.53), (0.79, 0.38)]


# --------------------------------------------------------------------------- the core


def test_the_difference_interval_covers_the_difference_of_expected_dominance_areas():
    """Replicates drawn around known expected points: the interval of DA(A) − DA(B) holds
    the difference of the DAs of the front trials' expected points at least as often as
    its level says (it is conservative), and it is narrow enough to say something."""
    covered, widths = [], []
    for seed in range(50):
        rng = np.random.default_rng(seed)
        own_a, reps_a = drawn_around(EXPECTED_A, rng)
        own_b, reps_b = drawn_around(EXPECTED_B, rng)
        result = compare_groups([make_group("A", own_a, replicates=reps_a),
                                 make_group("B", own_b, replicates=reps_b)], ["phi"])
        (difference,) = result.differences
        front_a, front_b = result.front("phi", "A"), result.front("phi", "B")
        truth = (dominance_area(np.asarray(EXPECTED_A)[list(front_a.rows)])
                 - dominance_area(np.asarray(EXPECTED_B)[list(front_b.rows)]))
        covered.append(difference.low <= truth <= difference.high)
        widths.append(difference.high - difference.low)
    assert np.mean(covered) >= 0.95 - 0.03
    assert np.median(widths) < 0.25  # not a vacuous [−1, 1]


def test_one_front_point_each_the_interval_and_verdict_by_hand():
    """A: accuracies 0.78…0.82 at a constant stability 0.5; B: accuracy 0.7 with
    stabilities 0.38…0.42. Each region (level 1 − 0.05/2, one point) is a segment of half
    length h = sqrt(2(B−1)/(B(B−2)) F_{2,B−2}(0.975) · s²), s² = 0.00025."""
    steps = np.array([-0.02, -0.01, 0.0, 0.01, 0.02])
    a = make_group("A", [(0.8, 0.5)], replicates=[np.column_stack([0.8 + steps, [0.5] * 5])])
    b = make_group("B", [(0.7, 0.4)], replicates=[np.column_stack([[0.7] * 5, 0.4 + steps])])
    (difference,) = compare_groups([a, b], ["phi"], level=0.95).differences
    h = math.sqrt(2 * 4 / (5 * 3) * stats.f.ppf(0.975, 2, 3) * 0.00025)
    assert difference.low == pytest.approx(0.5 * (0.8 - h) - 0.7 * (0.4 + h))
    assert difference.high == pytest.approx(0.5 * (0.8 + h) - 0.7 * (0.4 - h))
    assert difference.estimate == pytest.approx(0.8 * 0.5 - 0.7 * 0.4)
    assert difference.verdict == "A's front dominates B's" and difference.winner == "A"


def test_verdicts_on_clear_domination_crossing_fronts_and_identical_groups():
    rng = np.random.default_rng(1)
    above = [(x + 0.1, y + 0.1) for x, y in EXPECTED_A]
    own_a, reps_a = drawn_around(above, rng, sd=0.005)
    own_b, reps_b = drawn_around(EXPECTED_A, rng, sd=0.005)
    a = make_group("A", own_a, replicates=reps_a)
    b = make_group("B", own_b, replicates=reps_b)
    for order in ([a, b], [b, a]):  # the verdict names the dominating group either way
        (difference,) = compare_groups(order, ["phi"]).differences
        assert difference.verdict == "A's front dominates B's" and difference.winner == "A"
        assert difference.low > 0 or difference.high < 0
    # crossing fronts: A accurate but less stable, B the reverse, A's area larger
    own_a, reps_a = drawn_around([(0.9, 0.5)], rng, sd=0.002)
    own_b, reps_b = drawn_around([(0.5, 0.8)], rng, sd=0.002)
    (difference,) = compare_groups([make_group("A", own_a, replicates=reps_a),
                                    make_group("B", own_b, replicates=reps_b)],
                                   ["phi"]).differences
    assert difference.low > 0
    assert difference.verdict == "A has the larger dominance area"
    # the same group twice (another name): nothing to tell them apart
    (difference,) = compare_groups([a, Group("A again", a.table, a.replicates)],
                                   ["phi"]).differences
    assert difference.low < 0 < difference.high and difference.dominance_area == 0
    assert difference.verdict == OVERLAP and difference.winner is None


def test_without_replicates_the_verdict_comes_from_the_trials_fronts():
    a = make_group("A", [(0.8, 0.5), (0.7, 0.6)])
    b = make_group("B", [(0.75, 0.45), (0.6, 0.55)])
    crossing = make_group("C", [(0.95, 0.1)])
    result = compare_groups([a, b, crossing], ["phi"])
    verdicts = {(d.first, d.second): d for d in result.differences}
    assert verdicts["A", "B"].verdict == f"A's front dominates B's {NO_INTERVAL}"
    assert verdicts["A", "B"].low is None and verdicts["A", "B"].estimate is None
    assert verdicts["A", "C"].verdict == f"A has the larger dominance area {NO_INTERVAL}"
    assert verdicts["A", "C"].dominance_area == pytest.approx(
        dominance_area([(0.8, 0.5), (0.7, 0.6)]) - 0.095)
    (same,) = compare_groups([a, Group("A'", a.table)], ["phi"]).differences
    assert same.verdict == f"equal dominance areas {NO_INTERVAL}" and same.winner is None
    assert result.front("phi", "A").replicates == 0
    assert result.front("phi", "A").interval is None


def test_a_group_front_has_002_intervals_nested_as_their_levels_say():
    rng = np.random.default_rng(3)
    own, reps = drawn_around(EXPECTED_A, rng)
    result = compare_groups([make_group("A", own, replicates=reps)], ["phi"], level=0.9)
    front = result.front("phi", "A")
    assert list(front.rows) == list(pareto_front(own))
    assert front.dominance_area == pytest.approx(dominance_area(own))
    assert front.replicates == 10 and len(front.regions) == len(front.rows)
    means = np.array([reps[r].mean(axis=0) for r in front.rows])
    assert front.interval.estimate == pytest.approx(dominance_area(means))
    assert front.simultaneous_interval.low <= front.interval.low
    assert front.interval.high <= front.simultaneous_interval.high
    assert front.pair_interval.low <= front.simultaneous_interval.low  # 1 − α/2 > 1 − α
    assert result.differences == ()


def test_a_missing_replicate_leaves_the_group_without_interval():
    rng = np.random.default_rng(4)
    own, reps = drawn_around(EXPECTED_A, rng)
    front_rows = pareto_front(own)
    reps[front_rows[0]] = None
    group = make_group("A", own)
    replicates = {n: {"accuracy": list(r[:, 0]), "phi": list(r[:, 1])}
                  for n, r in enumerate(reps) if r is not None}
    result = compare_groups([Group("A", group.table, replicates)], ["phi"])
    assert result.front("phi", "A").interval is None


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), n_a=st.integers(1, 4), n_b=st.integers(1, 4),
       b=st.integers(3, 6), level=st.sampled_from([0.8, 0.9, 0.95]))
def test_swapping_the_groups_negates_the_difference_and_keeps_the_verdict(seed, n_a, n_b, b,
                                                                          level):
    rng = np.random.default_rng(seed)
    own_a, reps_a = drawn_around(rng.uniform(0.3, 0.9, (n_a, 2)), rng, b=b, sd=0.03)
    own_b, reps_b = drawn_around(rng.uniform(0.3, 0.9, (n_b, 2)), rng, b=b, sd=0.03)
    a = make_group("A", own_a, replicates=reps_a)
    b_group = make_group("B", own_b, replicates=reps_b)
    before = copy.deepcopy((a.table, a.replicates))
    (ab,) = compare_groups([a, b_group], ["phi"], level=level).differences
    (ba,) = compare_groups([b_group, a], ["phi"], level=level).differences
    assert (ab.low, ab.high) == pytest.approx((-ba.high, -ba.low))
    assert ab.low <= ab.estimate <= ab.high
    assert ab.verdict == ba.verdict and ab.winner == ba.winner
    assert ab.winner is None or ab.low > 0 or ab.high < 0 or "dominates" in ab.verdict
    pd.testing.assert_frame_equal(a.table, before[0])  # inputs are not modified
    assert a.replicates == before[1]


def test_table3_ranges_and_combined_fronts_on_a_hand_made_table():
    a = Group("A", pd.DataFrame({"trial": [0, 1, 2], "accuracy": [0.7, 0.8, 0.6],
                                 "phi": [0.5, 0.3, 0.2], "msi": [0.6, 0.7, 0.9]}))
    b = Group("B", pd.DataFrame({"trial": [0, 1], "accuracy": [0.75, 0.65],
                                 "phi": [0.45, 0.55], "msi": [0.5, 0.6]}))
    table = table3([a, b], ["phi", "msi"])
    assert list(table.index) == ["A", "B", "all"] and table.index.name == "group"
    assert list(table.columns) == ["trials", "phi min", "phi max", "phi front", "msi min",
                                   "msi max", "msi front", "accuracy min", "accuracy max"]
    assert table.loc["A", ["trials", "phi min", "phi max", "accuracy min", "accuracy max"]] \
        .tolist() == [3, 0.2, 0.5, 0.6, 0.8]
    assert table.loc["B", ["msi min", "msi max"]].tolist() == [0.5, 0.6]
    assert table.loc["A", "phi front"] is True and table.loc["B", "phi front"] is True
    assert table.loc["A", "msi front"] is True and table.loc["B", "msi front"] is False
    assert table.loc["all", "phi front"] == "A / B" and table.loc["all", "msi front"] == "A"
    assert table.loc["all", ["trials", "phi min", "phi max", "msi min", "msi max"]].tolist() \
        == [5, 0.2, 0.55, 0.5, 0.9]
    combined = compare_groups([a, b], ["phi", "msi"]).combined
    assert combined["phi"].groups == ("A", "B") and combined["msi"].groups == ("A",)
    # (0.65, 0.55) B, (0.7, 0.5) A, (0.75, 0.45) B, (0.8, 0.3) A; (0.6, 0.2) is dominated
    assert combined["phi"].table[["group", "trial"]].values.tolist() == [
        ["B", 1], ["A", 0], ["B", 0], ["A", 1]]
    assert list(combined["phi"].rows) == [4, 0, 3, 1]  # in A's rows, then B's


def test_a_selector_column_names_the_points_study_colon_selector():
    multi = Group("multi", pd.DataFrame({"trial": [0, 1], "accuracy": [0.9, 0.5],
                                         "phi": [0.2, 0.9], "selector": ["lasso", "t_test"]}))
    single = Group("single", pd.DataFrame({"trial": [0], "accuracy": [0.45], "phi": [0.3]}))
    named = Group("lasso", pd.DataFrame({"trial": [0], "accuracy": [0.2], "phi": [0.95],
                                         "selector": ["lasso"]}))  # a report's selector group
    combined = compare_groups([multi, single, named], ["phi"]).combined["phi"]
    assert combined.table["label"].tolist() == ["lasso", "multi: t_test", "multi: lasso"]
    assert combined.table["selector"].tolist() == ["lasso", "t_test", "lasso"]
    assert list(combined.table.columns) == ["group", "label", "trial", "accuracy", "phi",
                                            "selector"]
    assert "selector" not in compare_groups([single], ["phi"]).combined["phi"].table


def test_csv_rows_and_json_of_a_comparison():
    rng = np.random.default_rng(5)
    own_a, reps_a = drawn_around(EXPECTED_A, rng)
    a = make_group("A", own_a, replicates=reps_a)
    b = make_group("B", EXPECTED_B)  # no replicates
    result = compare_groups([a, b], ["phi"], weight=("accuracy", 2.0))
    frame = result.to_frame()
    assert frame[["group", "measure"]].values.tolist() == [["A", "phi"], ["B", "phi"]]
    assert frame.loc[0, "dominance area"] == pytest.approx(
        dominance_area(own_a, weight=("accuracy", 2.0)))
    assert frame.loc[1, "replicates"] == 0 and math.isnan(frame.loc[1, "interval low"])
    assert frame.loc[0, "stability max"] == pytest.approx(own_a[:, 1].max())
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["pair_level"] == 0.975 and data["differences"][0]["interval"] is None
    assert data["fronts"][1]["interval"] is None
    assert data["combined_front"]["phi"]["groups"] == list(result.combined["phi"].groups)
    assert [row["group"] for row in data["table3"]] == ["A", "B", "all"]


@pytest.mark.parametrize(("call", "match"), [
    (lambda a: compare_groups([a, a], ["phi"]), "group names must be distinct; 'A' is given 2"),
    (lambda a: compare_groups([a], ["msi"]), "group 'A' has no column 'msi'"),
    (lambda a: compare_groups([a], ["phi"], level=1.5), r"level must be a number in \(0, 1\)"),
    (lambda a: compare_groups([], ["phi"]), "groups must be a non-empty sequence"),
    (lambda a: compare_groups([a.table], ["phi"]), "item 0 is a DataFrame"),
    (lambda a: Group("B", a.table.drop(columns="accuracy")), "no 'accuracy' column"),
    (lambda a: Group("B", a.table.iloc[:0]), "group 'B' has no trials"),
    (lambda a: compare_groups([make_group("C", [(0.5, 0.5)], replicates=[np.ones((2, 2))])],
                              ["phi"]), r"group 'C', measure 'phi', front trials \[0\]: .*B >= 3"),
])
def test_bad_groups_raise_one_clear_error(call, match):
    with pytest.raises(InvalidInputError, match=match):
        call(make_group("A", [(0.5, 0.5)]))


def test_default_measures_are_the_objectives_and_what_every_study_records():
    declared = [("iw", ["nogueira", "pearson", "jaccard"]), ("nogueira", ["pearson"])]
    assert default_measures(declared) == ["iw", "nogueira", "pearson"]
    assert default_measures([("iw", []), ("iw", ["msi"])]) == ["iw"]


# --------------------------------------------------------------------------- drawers


def test_draw_group_fronts_gives_each_group_its_colour_marker_front_and_regions():
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.patches import Ellipse as EllipsePatch

    from paretostab.front import ParetoFront
    from paretostab.plot import GROUP_COLORS, draw_group_fronts
    from paretostab.report import confidence_regions

    before = dict(matplotlib.rcParams)
    rng = np.random.default_rng(2)
    own_a, reps_a = drawn_around(EXPECTED_A, rng)
    front_a = pareto_front(own_a)
    regions = confidence_regions([reps_a[r] for r in front_a], level=0.9)
    ax = Figure().add_subplot()
    draw_group_fronts([("A", ParetoFront.of(own_a), regions),
                       ("B", ParetoFront.of(EXPECTED_B))], ax=ax)
    handles, labels = ax.get_legend_handles_labels()
    assert labels == ["A", "B", "90% confidence regions", "replicate means"]
    assert [h.get_color() for h in handles[:2]] == list(GROUP_COLORS[:2])
    assert [h.get_marker() for h in handles[:2]] == ["o", "s"]
    ellipses = [p for p in ax.patches if isinstance(p, EllipsePatch)]
    assert len(ellipses) == len(front_a)
    assert all(matplotlib.colors.same_color(e.get_edgecolor(), GROUP_COLORS[0])
               for e in ellipses)
    staircase = [line for line in ax.lines if len(line.get_xdata())]
    assert sorted(staircase[0].get_xdata()) == sorted(own_a[front_a, 0])
    assert dict(matplotlib.rcParams) == before
    with pytest.raises(InvalidInputError, match=r"one \(colour, marker\) pair per group"):
        draw_group_fronts([("A", ParetoFront.of(own_a))], ax=ax,
                          styles=[("red", "o"), ("blue", "s")])
    with pytest.raises(InvalidInputError, match="group 0 is"):
        draw_group_fronts(["A"], ax=ax)


def test_draw_combined_front_colours_points_by_group_and_joins_labels_at_one_place():
    from matplotlib.figure import Figure

    from paretostab.front import ParetoFront
    from paretostab.plot import draw_combined_front

    front = ParetoFront.of([(0.8, 0.5), (0.8, 0.5), (0.6, 0.7), (0.5, 0.4)])
    ax = Figure().add_subplot()
    draw_combined_front(front, ["A", "A", "B", "B"], ax=ax, labels=["1", "4", "2", ""])
    assert ax.get_legend_handles_labels()[1] == ["combined Pareto front", "A", "B"]
    assert sorted(t.get_text() for t in ax.texts) == ["1, 4", "2"]
    # a point off the front just behind one on it (mRMR under the random forest) shows:
    # its hollow marker is drawn above the solid one, the labels above both
    ax = Figure().add_subplot()
    draw_combined_front(ParetoFront.of([(0.93, 0.53), (0.9295, 0.529)]), ["forest", "mrmr"],
                        ax=ax, labels=["7", ""])
    solid, hollow = ([c for c in ax.collections if len(c.get_offsets()) and
                      tuple(c.get_offsets()[0]) == point] for point in ((0.93, 0.53),
                                                                         (0.9295, 0.529)))
    assert hollow[0].get_zorder() > solid[0].get_zorder()
    assert ax.texts[0].get_zorder() > hollow[0].get_zorder()
    with pytest.raises(InvalidInputError, match=r"the group of every point \(4\); got 3"):
        draw_combined_front(front, ["A", "A", "B"], ax=ax)
    with pytest.raises(InvalidInputError, match=r"no \(colour, marker\) for the group 'B'"):
        draw_combined_front(front, ["A", "A", "B", "B"], ax=ax, styles={"A": ("red", "o")})


def test_point_styles_are_distinct_for_a_multi_selector_study_among_studies():
    from paretostab.report._figures import point_styles

    multi = Group("multi", pd.DataFrame({"trial": [0, 1, 2], "accuracy": [0.9, 0.5, 0.4],
                                         "phi": [0.2, 0.9, 0.1],
                                         "selector": ["lasso", "t_test", "relief"]}))
    single = Group("single", pd.DataFrame({"trial": [0], "accuracy": [0.45], "phi": [0.3]}))
    styles = point_styles([multi, single])
    assert set(styles) == {"multi: lasso", "multi: t_test", "multi: relief", "single"}
    assert len(set(styles.values())) == 4
    assert len({marker for _, marker in styles.values()}) == 4  # shapes differ too
    assert len({styles[f"multi: {s}"][0] for s in ("lasso", "t_test", "relief")}) == 1


def test_nine_groups_get_nine_colours_as_000_section_6_2_compares_nine_methods():
    from matplotlib.colors import to_hex
    from matplotlib.figure import Figure

    from paretostab.front import ParetoFront
    from paretostab.plot import GROUP_COLORS, draw_combined_front, group_style

    names = [f"m{k}" for k in range(9)]
    ax = Figure().add_subplot()
    points = [(0.5 + 0.04 * k, 0.9 - 0.05 * k) for k in range(9)]
    draw_combined_front(ParetoFront.of(points), names, ax=ax)
    colours = {to_hex(line.get_color()) for line in ax.get_lines()[1:]}  # after the front
    assert len(colours) == 9
    assert [group_style(k, 6)[0] for k in range(6)] == list(GROUP_COLORS)  # up to six


# --------------------------------------------------------------------------- end to end

SPEC = {
    "study": {"name": "t_test", "trials": 5, "seed": 0, "sampler": "random"},
    "data": {"source": "simulated:n_other=30,n_per_class=20"},
    "protocol": {"runs": 4, "replicates": 3},
    "selector": {"name": "t_test", "fixed": {"n_features": 4}},
    "objective": {"stability": "iw", "record": ["nogueira", "pearson"]},
}
RFE = {**SPEC, "study": {**SPEC["study"], "name": "hybrid_rfe"},
       "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 4},
                    "search": {"n_stable": [0, 4],
                               "reg": {"low": 0.01, "high": 100.0, "log": True}}},
       "objective": {"stability": "nogueira", "record": ["pearson"]}}


@pytest.fixture(scope="module")
def storages(tmp_path_factory):
    """Two tiny studies in two storages: a t-test filter (objective φ_iw, recording φ and
    φ_pears) and hybrid RFE (objective φ, recording φ_pears)."""
    urls = []
    for spec in (SPEC, RFE):
        folder = tmp_path_factory.mktemp(spec["study"]["name"])
        urls.append(f"sqlite:///{folder / 'study.db'}")
        run_study(parse_spec(spec), storage=urls[-1], progress=False)
    return urls


def compare(storages, out, *extra):
    return main(["compare", "t_test", "hybrid_rfe", "--storage", storages[0], "--storage",
                 storages[1], "--out", str(out), *extra])


@pytest.mark.slow
def test_compare_writes_the_page_the_csv_and_the_json(storages, tmp_path, capsys,
                                                      monkeypatch):
    from tests.studies import read

    assert compare(storages, tmp_path / "cmp") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"Comparison written to {tmp_path / 'cmp' / 'index.html'} (with "
                      "comparison.csv and comparison.json).")
    # measures: both objectives, then what both record; one line per measure and pair
    assert [line.split(":")[0] for line in out[1:]] == ["φ_iw", "φ", "φ_pears"]
    assert all(" t_test vs hybrid_rfe: dominance area " in line for line in out[1:])
    assert all("95% interval [" in line for line in out[1:])
    csv = pd.read_csv(tmp_path / "cmp" / "comparison.csv")
    assert csv[["group", "measure"]].values.tolist() == [
        [g, m] for m in ("iw", "nogueira", "pearson") for g in ("t_test", "hybrid_rfe")]
    assert (csv["replicates"] == 3).all() and (csv["level"] == 0.95).all()
    assert (csv["interval low"] <= csv["dominance area of replicate means"]).all()
    data = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    assert [s["storage"] for s in data["studies"]] == storages
    assert [s["selectors"] for s in data["studies"]] == [["t_test"], ["hybrid_rfe"]]
    assert data["measures"] == ["iw", "nogueira", "pearson"] and len(data["differences"]) == 3
    for k, url in enumerate(storages):
        table = read(url, data["groups"][k], measures=["iw", "nogueira", "pearson"]).table
        if k == 1:  # hybrid_rfe did not record φ_iw: compare recomputed it from its runs
            trials = optuna.load_study(study_name=data["groups"][k], storage=url).trials
            assert not any("iw" in t.user_attrs["measures"] for t in trials)
            assert table["iw"].notna().all()
            continue
        for measure in ("iw", "nogueira", "pearson"):
            points = table[["accuracy", measure]].to_numpy(dtype=float)
            row = csv[(csv["group"] == "t_test") & (csv["measure"] == measure)].iloc[0]
            assert row["dominance area"] == pytest.approx(dominance_area(points))
            assert row["front trials"].split() == [
                str(t) for t in table["trial"].iloc[pareto_front(points)]]
    hybrid = [f for f in data["fronts"] if f["group"] == "hybrid_rfe" and f["measure"] == "iw"]
    assert hybrid[0]["points"] and all(0 <= p[1] <= 1 for p in hybrid[0]["points"])
    combined = data["combined_front"]["iw"]
    assert set(combined["groups"]) <= {"t_test", "hybrid_rfe"} and combined["points"]
    assert [row["group"] for row in data["table3"]] == ["t_test", "hybrid_rfe", "all"]
    page = (tmp_path / "cmp" / "index.html").read_text()
    assert "paretostab comparison: t_test, hybrid_rfe" in page
    assert page.count("data:image/png;base64,") == 2
    for title in ("Fronts and dominance areas", "Under φ_iw", "Pairwise differences",
                  "Combined front", "Table 3", "References"):
        assert f">{title}</h" in page
    assert "Hamer &amp; Dupont, ECML 2021" in page and "Hamer &amp; Dupont 2019" in page
    assert "1 − α/2" in page and "[low_A − high_B, high_A − low_B]" in page
    # the replicates are the report's, cached in the studies: a second compare re-runs none
    # (and, the page checked above, skips drawing it again)
    import paretostab._problem
    import paretostab.report._write

    study = optuna.load_study(study_name="t_test", storage=storages[0])
    cached = storage_of(study).get_study_system_attrs(study_id_of(study))
    fronts = {t for f in data["fronts"] if f["group"] == "t_test" for t in f["trials"]}
    assert {f"paretostab:replicates:{t}:3" for t in fronts} <= set(cached)
    monkeypatch.setattr(paretostab._problem, "replicate_protocols",
                        lambda *a, **k: pytest.fail("replicates were re-run"))
    monkeypatch.setattr(paretostab.report._write, "write_report", lambda *a, **k: None)
    assert compare(storages, tmp_path / "again") == 0
    again = json.loads((tmp_path / "again" / "comparison.json").read_text())
    assert again["differences"] == data["differences"]


@pytest.mark.slow
def test_compare_without_replicates_and_with_chosen_measures(storages, tmp_path, capsys):
    assert compare(storages, tmp_path / "cmp", "--replicates", "0", "--measures",
                   "phi,jaccard", "--weight", "accuracy:2") == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    assert [line.split(":")[0] for line in lines] == ["φ", "jaccard"]
    assert all(line.endswith(NO_INTERVAL) and "interval [" not in line for line in lines)
    data = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    assert data["weight"] == "accuracy:2" and data["measures"] == ["nogueira", "jaccard"]
    assert all(f["replicates"] == 0 and f["interval"] is None for f in data["fronts"])


def one_error_line(capsys, argv) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def test_compare_error_lines(storages, tmp_path, capsys):
    a, b = storages
    line = one_error_line(capsys, ["compare", "t_tets", "hybrid_rfe", "--storage", a,
                                   "--storage", b])
    assert line.startswith("error: Unknown study 't_tets'. Did you mean 't_test'?")
    missing = f"sqlite:///{tmp_path / 'nowhere.db'}"
    line = one_error_line(capsys, ["compare", "t_test", "x", "--storage", missing])
    assert line == one_error_line(capsys, ["report", "--storage", missing])  # report's own
    assert line.startswith("error: no study storage at")
    line = one_error_line(capsys, ["compare", "t_test", "hybrid_rfe", "x", "--storage", a,
                                   "--storage", b])
    assert line == ("error: --storage is given 2 times for 3 studies; give it once (for every "
                    "study) or once per study, in the studies' order.")
    line = one_error_line(capsys, ["compare", "t_test", "hybrid_rfe", "x", "--storage", a,
                                   "--artifacts", "p", "--artifacts", "q"])
    assert line.startswith("error: --artifacts is given 2 times for 3 studies")
    line = one_error_line(capsys, ["compare", "t_test", "t_test", "--storage", a, "--storage",
                                   a.replace("sqlite:///", "sqlite:///" + "/./")])
    assert line.startswith("error: study 't_test' of ") and "is given twice" in line
    line = one_error_line(capsys, ["compare", "t_test", "--storage", a])
    assert line == "error: compare needs at least two studies; got 1: t_test."
    line = one_error_line(capsys, ["compare", "t_test", "hybrid_rfe", "--storage", a,
                                   "--storage", b, "--replicates", "2"])
    assert line == "error: replicates must be 0 (no confidence regions) or >= 3; got 2."
