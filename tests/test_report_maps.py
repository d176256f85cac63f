"""Feature stability maps: their data (003 §3) and the drawer."""

from __future__ import annotations

import dataclasses
import io

import matplotlib
import numpy as np
import pytest

from paretostab import InvalidInputError
from paretostab.maps import OTHER_COLOR, PALETTE, StabilityMap, feature_palette, stability_map
from paretostab.measures._inputs import normalise_importances

matplotlib.use("Agg", force=True)
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from paretostab.plot import draw_stability_map  # noqa: E402
from tests.runsets import make_runset, random_runset  # noqa: E402


def test_a_runset_of_no_run_or_of_one_dimension_is_refused():
    """The map's rows are the runs: a selection matrix of 0 runs, or not (M, d), is one
    line naming its shape (not numpy's error from the rows' bounds)."""
    import re
    from types import SimpleNamespace

    for Z in (np.zeros((0, 3), dtype=bool), np.ones(3, dtype=bool)):
        runset = SimpleNamespace(selection_matrix=Z, importance_matrix=Z.astype(float))
        with pytest.raises(InvalidInputError, match=r"must be \(M, d\) with M >= 1; got "
                                                    + re.escape(str(Z.shape))):
            stability_map(runset)


def row_sums(m: StabilityMap) -> np.ndarray:
    return np.bincount(m.row, weights=m.width, minlength=m.runs)


# --------------------------------------------------------------------------- data


def test_small_map_by_hand():
    Z = [[1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 0]]
    I = [[2.0, 1.0, 0, 0], [3.0, 0, 1.0, 0], [0, 0, 0, 0], [1.0, 1.0, 2.0, 0]]
    m = stability_map(make_runset(Z, I, ("a", "b", "c", "d")))
    assert (m.runs, m.n_features, m.mean_selected) == (4, 4, 1.75)
    # p = (.75, .5, .5, 0); b and c tie on p, c has more total importance
    assert m.features.tolist() == [0, 2, 1]
    assert m.names == ("a", "c", "b")
    np.testing.assert_allclose(m.frequency, [0.75, 0.5, 0.5])
    assert m.row.tolist() == [0, 0, 1, 1, 3, 3, 3]
    assert m.feature.tolist() == [0, 1, 0, 2, 0, 2, 1]  # left to right in map order
    k = 1.75
    np.testing.assert_allclose(m.width, [2 / 3 * k, 1 / 3 * k, 3 / 4 * k, 1 / 4 * k,
                                         k / 4, k / 2, k / 4])
    np.testing.assert_allclose(m.left, [0, 2 / 3 * k, 0, 3 / 4 * k, 0, k / 4, 3 * k / 4])
    np.testing.assert_allclose(m.cumulative_importance, [k * (2 / 3 + 3 / 4 + 1 / 4),
                                                         k * (1 / 4 + 1 / 2), k * (1 / 3 + 1 / 4)])
    np.testing.assert_allclose(m.mean_importance, m.cumulative_importance / [3, 2, 2])
    assert m.colors == PALETTE[:3]  # its own palette: colours in map order
    assert m.palette == feature_palette([0, 2, 1])
    assert m.legend.tolist() == [0, 2, 1]
    summary = m.summary()
    assert summary["name"].tolist() == ["a", "c", "b"]
    np.testing.assert_allclose(summary["frequency"], m.frequency)


def test_ties_on_frequency_and_importance_broken_by_index():
    Z = np.array([[0, 1, 1, 0, 1], [0, 1, 1, 0, 1]])
    m = stability_map(make_runset(Z))  # equal importances: everything ties but the index
    assert m.features.tolist() == [1, 2, 4]


@pytest.mark.parametrize("seed", range(5))
def test_order_widths_and_layout(seed):
    rs = random_runset(seed)
    m = stability_map(rs)
    Z = rs.selection_matrix
    p = Z.mean(axis=0)
    # decreasing p_f; ties by decreasing cumulative importance
    freq, cum = m.frequency, m.cumulative_importance
    assert np.all(np.diff(freq) <= 0)
    same = np.diff(freq) == 0
    assert np.all(np.diff(cum)[same] <= 1e-12)
    np.testing.assert_allclose(freq, p[m.features])
    assert set(m.features.tolist()) == set(np.flatnonzero(Z.any(axis=0)).tolist())
    # one rectangle per selected (run, feature); non-empty rows sum to k̄
    assert m.row.size == Z.sum()
    assert m.mean_selected == pytest.approx(rs.mean_selected)
    sums = row_sums(m)
    np.testing.assert_allclose(sums[Z.any(axis=1)], rs.mean_selected)
    # widths are the normalised importances of SPEC §0
    np.testing.assert_allclose(m.width, normalise_importances(rs.importance_matrix)[m.row, m.feature])
    # rectangles are contiguous from 0 and left to right in map order within each row
    position = {f: i for i, f in enumerate(m.features.tolist())}
    for r in range(m.runs):
        sel = m.row == r
        np.testing.assert_allclose(m.left[sel], np.concatenate(([0], np.cumsum(m.width[sel])[:-1])))
        assert [position[f] for f in m.feature[sel]] == sorted(position[f] for f in m.feature[sel])
    assert np.all(np.diff(m.row) >= 0)


def test_one_palette_colours_a_feature_alike_in_every_map():
    names = tuple(f"gene{j}" for j in range(30))
    first_runs, second_runs = random_runset(0, names=names), random_runset(1, M=7, names=names)
    own = [stability_map(first_runs), stability_map(second_runs)]
    assert set(own[0].features.tolist()) & set(own[1].features.tolist())  # the test compares some
    assert own[0].features.tolist() != own[1].features.tolist()  # orders differ
    # without a palette: each map's features get the palette in its own order
    for m in own:
        n = min(m.features.size, len(PALETTE))
        assert m.colors[:n] == PALETTE[:n]
        assert all(c == OTHER_COLOR for c in m.colors[n:])
    # with one palette: one colour per feature across the maps
    palette = feature_palette(np.arange(30)[::-1])
    shared = [stability_map(first_runs, palette=palette), stability_map(second_runs, palette=palette)]
    colours = {}
    for m in shared:
        assert m.palette is palette
        for f, c in zip(m.features.tolist(), m.colors, strict=True):
            assert colours.setdefault(f, c) == c == palette.color(f)
        for f, c in zip(m.feature, m.rectangle_colors, strict=True):
            assert tuple(c) == colours[int(f)]
    with pytest.raises(InvalidInputError, match="palette"):
        stability_map(first_runs, palette={0: (0.0, 0.0, 0.0)})


def test_empty_runs():
    Z = np.array([[0, 0, 0], [1, 0, 1], [0, 0, 0]])
    m = stability_map(make_runset(Z, Z * [1.0, 0, 3.0]))
    assert m.runs == 3 and set(m.row.tolist()) == {1}
    np.testing.assert_allclose(m.width, [0.5, 1 / 6])  # k̄ = 2/3; feature 2 (more important) first
    assert m.feature.tolist() == [2, 0]
    empty = stability_map(make_runset(np.zeros((4, 3))))
    assert empty.runs == 4 and empty.mean_selected == 0
    assert empty.row.size == empty.features.size == empty.legend.size == 0
    assert empty.rectangle_colors.shape == (0, 3)
    assert empty.summary().shape == (0, 5)


def test_importances_outside_the_contract():
    Z = np.array([[1, 1, 0], [1, 0, 1]], dtype=bool)
    # an unselected feature's importance is ignored; a row of zero importances gets
    # equal widths; a selected feature of importance 0 has a zero-width rectangle
    I = np.array([[0.0, 0.0, 5.0], [2.0, 0.0, 0.0]])
    m = stability_map(make_runset(Z, I))
    np.testing.assert_allclose(row_sums(m), [2.0, 2.0])
    widths = {(int(r), int(f)): w for r, f, w in zip(m.row, m.feature, m.width, strict=True)}
    assert widths == pytest.approx({(0, 0): 1.0, (0, 1): 1.0, (1, 0): 2.0, (1, 2): 0.0})
    # one feature of positive importance a run (k̄ = 2 over 1 of them): rows still sum to k̄
    one = stability_map(make_runset(Z, [[0.0, 3.0, 0.0], [2.0, 0.0, 0.0]]))
    np.testing.assert_allclose(row_sums(one), [2.0, 2.0])
    widths = {(int(r), int(f)): w for r, f, w in zip(one.row, one.feature, one.width, strict=True)}
    assert widths == pytest.approx({(0, 0): 0.0, (0, 1): 2.0, (1, 0): 2.0, (1, 2): 0.0})
    with pytest.raises(InvalidInputError, match="run 1, feature 0"):
        stability_map(make_runset(Z, [[1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]]))
    with pytest.raises(InvalidInputError, match="finite"):
        stability_map(make_runset(Z, [[1.0, np.nan, 0.0], [1.0, 0.0, 1.0]]))


def test_names_top_and_validation():
    rs = random_runset(2, names=tuple(f"n{j}" for j in range(30)))
    m = stability_map(rs, top=3)
    assert m.legend.tolist() == m.features[:3].tolist()
    assert m.legend_names == tuple(f"n{f}" for f in m.features[:3])
    assert m.names == tuple(f"n{f}" for f in m.features)
    assert stability_map(rs, top=0).legend.size == 0
    assert stability_map(rs, top=1000).legend.size == m.features.size
    other = stability_map(rs, feature_names=[f"x{j}" for j in range(30)])
    assert other.names[0] == f"x{other.features[0]}"
    plain = stability_map(random_runset(2))
    assert plain.names == tuple(f"f{f}" for f in plain.features)
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidInputError, match="top"):
            stability_map(rs, top=bad)
    with pytest.raises(InvalidInputError, match="feature_names"):
        stability_map(rs, feature_names=["a", "b"])
    with pytest.raises(InvalidInputError, match="feature_names"):
        stability_map(rs, feature_names="abc")
    with pytest.raises(InvalidInputError, match="RunSet"):
        stability_map(np.zeros((3, 3)))
    with pytest.raises(InvalidInputError, match="0/1"):
        runs = make_runset(np.ones((2, 2)))
        stability_map(dataclasses.replace(runs, selection_matrix=np.array([[2, 0], [1, 1]])))


def test_map_is_read_only_and_input_untouched():
    rs = random_runset(3)
    Z, I = rs.selection_matrix.copy(), rs.importance_matrix.copy()
    m = stability_map(rs)
    np.testing.assert_array_equal(rs.selection_matrix, Z)
    np.testing.assert_array_equal(rs.importance_matrix, I)
    with pytest.raises(ValueError):
        m.width[0] = 1.0
    with pytest.raises(AttributeError):
        m.runs = 3  # frozen


def test_a_map_is_equal_only_to_itself():
    """Its arrays compare element by element, not to a truth value, so a map compares
    and hashes as itself: two maps of one run set are two maps, and both fit in a set."""
    rs = random_runset(3)
    one, other = stability_map(rs), stability_map(rs)
    assert one == one and one != other and len({one, other}) == 2


# --------------------------------------------------------------------------- drawer


def test_draw_stability_map_on_given_axes():
    before = dict(matplotlib.rcParams)
    m = stability_map(random_runset(4, names=tuple(f"gene{j}" for j in range(30))), top=5)
    fig = Figure()
    ax = fig.add_subplot()
    out = draw_stability_map(m, ax=ax)
    assert out is ax
    (rectangles,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    corners = np.array([path.vertices[:4] for path in rectangles.get_paths()])
    assert corners.shape == (m.row.size, 4, 2)
    np.testing.assert_allclose(rectangles.get_facecolor()[:, :3], m.rectangle_colors)
    np.testing.assert_allclose(corners[:, :, 0].min(axis=1), m.left)
    np.testing.assert_allclose(corners[:, :, 0].max(axis=1), m.left + m.width)
    np.testing.assert_allclose(corners[:, :, 1].mean(axis=1), m.row)
    legend = ax.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert [t.split(" (")[0] for t in texts[:-1]] == list(m.legend_names)
    assert texts[-1] == f"+{m.features.size - 5} more features"  # top = 5 of more
    assert ax.get_xlabel() == "cumulative importance" and ax.get_ylabel() == "run"
    assert ax.get_ylim() == (m.runs - 0.5, -0.5)  # run 0 on top
    np.testing.assert_array_equal(ax.get_yticks(), [0, (m.runs - 1) // 2, m.runs - 1])
    ticks = ax.get_xticks()  # round ones within [0, k̄]: not 0, k̄/2, k̄ (15.03, 30.07)
    assert ticks[0] == 0 and ticks[-1] <= m.mean_selected and 2 <= len(ticks) <= 5
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0]) and steps[0] in (0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10)
    fig.savefig(io.BytesIO(), format="png")
    assert dict(matplotlib.rcParams) == before


def test_draw_stability_map_options():
    import matplotlib.pyplot as plt

    before = dict(matplotlib.rcParams)
    m = stability_map(random_runset(5))
    ax = draw_stability_map(m, ax=Figure().add_subplot(), legend=False)
    assert ax.get_legend() is None
    empty = stability_map(make_runset(np.zeros((3, 4))))
    ax = draw_stability_map(empty, ax=Figure().add_subplot())
    assert not ax.collections and ax.get_legend() is None
    ax = draw_stability_map(m)  # a new figure
    assert len(ax.collections[0].get_paths()) == m.row.size
    plt.close(ax.figure)
    with pytest.raises(InvalidInputError, match="StabilityMap"):
        draw_stability_map(random_runset(5), ax=Figure().add_subplot())
    assert dict(matplotlib.rcParams) == before


@pytest.mark.parametrize("name", ["g{}", "AFFX-HUMGAPDH/M33197_{}_at"])
def test_the_standalone_map_figure_keeps_its_legend_inside(name):
    from paretostab.plot import stability_map_figure

    runs = random_runset(8, M=40, d=30, names=tuple(name.format(j) for j in range(30)))
    figure = stability_map_figure(stability_map(runs, top=10), size=(8.0, 5.0))
    ax = figure.axes[0]
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()  # the Agg canvas the figure was laid out on
    legend = ax.get_legend().get_window_extent(renderer)
    assert 0 < legend.x0 and legend.x1 <= figure.bbox.width + 1  # not cut off
    assert ax.get_window_extent(renderer).x1 < legend.x0  # beside the map
    assert ax.get_position().width > 0.2


# --------------------------------------------------------------------------- complete legends


def legend_entries(ax):
    legend = ax.get_legend()
    return ([t.get_text() for t in legend.get_texts()],
            [tuple(h.get_facecolor()) for h in legend.legend_handles])


def test_a_cut_legend_ends_with_how_many_more_features():
    # 12 features, a legend of 10: "+2 more features" (both coloured: no grey)
    Z = np.tril(np.ones((12, 12), dtype=bool))  # feature j in 12 - j runs: p decreasing
    m = stability_map(make_runset(Z, names=tuple(f"g{j}" for j in range(12))), top=10)
    texts, colours = legend_entries(draw_stability_map(m, ax=Figure().add_subplot()))
    assert texts[:10] == [f"g{j} (p = {(12 - j) / 12:.2f})" for j in range(10)]
    assert texts[10:] == ["+2 more features"]
    assert colours[10][3] == 0.0  # no swatch: no feature of the two is grey
    np.testing.assert_allclose(np.array(colours[:10])[:, :3], PALETTE[:10])
    # a legend of them all: nothing more to say
    texts, _ = legend_entries(draw_stability_map(stability_map(make_runset(Z)),
                                                 ax=Figure().add_subplot()))
    assert len(texts) == 12 and not any(t.startswith("+") for t in texts)
    # one left out
    texts, _ = legend_entries(draw_stability_map(stability_map(make_runset(Z), top=11),
                                                 ax=Figure().add_subplot()))
    assert texts[-1] == "+1 more feature"


def test_the_legend_shows_the_grey_of_the_features_beyond_the_palette():
    d = len(PALETTE) + 5
    Z = np.tril(np.ones((d, d), dtype=bool))
    m = stability_map(make_runset(Z), top=10)
    assert m.other_features.tolist() == list(range(len(PALETTE), d))
    texts, colours = legend_entries(draw_stability_map(m, ax=Figure().add_subplot()))
    assert texts[-1] == f"+{d - 10} more features (5 in grey)"
    assert colours[-1][:3] == pytest.approx(OTHER_COLOR)
    # a legend of the twenty coloured: what it leaves out is exactly the grey
    texts, colours = legend_entries(draw_stability_map(stability_map(make_runset(Z), top=20),
                                                       ax=Figure().add_subplot()))
    assert texts[-1] == "+5 more features, in grey"
    assert colours[-1][:3] == pytest.approx(OTHER_COLOR)
    # grey features named in the legend (a palette that colours only two) keep their names
    two = feature_palette([0, 1])
    m = stability_map(make_runset(Z), top=4, palette=two)
    texts, colours = legend_entries(draw_stability_map(m, ax=Figure().add_subplot()))
    assert texts[-1] == f"+{d - 4} more features, in grey"
    np.testing.assert_allclose(np.array(colours[:4])[:, :3],
                               [PALETTE[0], PALETTE[1], OTHER_COLOR, OTHER_COLOR])


@pytest.mark.parametrize("width, ticks", [(30.07, [0, 10, 20, 30]), (15.03, [0, 5, 10, 15]),
                                          (1.0, [0, 0.25, 0.5, 0.75, 1]), (0.3, [0, 0.1, 0.2, 0.3])])
def test_map_ticks_are_round(width, ticks):
    from paretostab.plot import round_ticks

    assert round_ticks(width) == ticks
