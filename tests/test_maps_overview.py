"""Compact, readable stability maps (003 §3; issue 11): the categorical palette and its
colour distances, maps a reader sees as the same picture, small multiples, and the
features × trials overview of selection frequencies."""

from __future__ import annotations

import io
import subprocess
import sys
from fractions import Fraction

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretostab import InvalidInputError
from paretostab.maps import (
    OTHER_COLOR,
    PALETTE,
    FeaturePalette,
    SelectionOverview,
    feature_palette,
    group_identical_maps,
    map_difference,
    selection_overview,
    stability_map,
)

matplotlib.use("Agg", force=True)
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from paretostab.plot import (  # noqa: E402
    draw_selection_overview,
    selection_overview_figure,
    stability_maps_figure,
)
from tests.runsets import make_runset, random_runset

# --------------------------------------------------------------------------- colour science
# sRGB (IEC 61966-2-1) → CIE XYZ (D65) → CIELAB, and the CIEDE2000 difference (Sharma, Wu
# & Dalal 2005), written here as the measuring instrument of the palette's tests.

_SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                         [0.2126729, 0.7151522, 0.0721750],
                         [0.0193339, 0.1191920, 0.9503041]])
_D65 = np.array([0.95047, 1.0, 1.08883])


def srgb_to_lab(rgb):
    c = np.asarray(rgb, dtype=float)
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    t = linear @ _SRGB_TO_XYZ.T / _D65
    delta = 6 / 29
    f = np.where(t > delta ** 3, np.cbrt(t), t / (3 * delta ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]),
                     200 * (f[..., 1] - f[..., 2])], axis=-1)


def ciede2000(lab1, lab2):
    L1, a1, b1 = np.moveaxis(np.asarray(lab1, dtype=float), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(lab2, dtype=float), -1, 0)
    c7 = ((np.hypot(a1, b1) + np.hypot(a2, b2)) / 2) ** 7
    g = 0.5 * (1 - np.sqrt(c7 / (c7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    achromatic = c1p * c2p == 0
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(achromatic, 0.0, dh)
    dL, dC = L2 - L1, c2p - c1p
    dH = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    L, C = (L1 + L2) / 2, (c1p + c2p) / 2
    hsum = h1p + h2p
    h = np.where(np.abs(h1p - h2p) > 180, np.where(hsum < 360, hsum + 360, hsum - 360), hsum) / 2
    h = np.where(achromatic, hsum, h)
    T = (1 - 0.17 * np.cos(np.radians(h - 30)) + 0.24 * np.cos(np.radians(2 * h))
         + 0.32 * np.cos(np.radians(3 * h + 6)) - 0.20 * np.cos(np.radians(4 * h - 63)))
    theta = 30 * np.exp(-(((h - 275) / 25) ** 2))
    rc = 2 * np.sqrt(C ** 7 / (C ** 7 + 25.0 ** 7))
    sl = 1 + 0.015 * (L - 50) ** 2 / np.sqrt(20 + (L - 50) ** 2)
    sc, sh = 1 + 0.045 * C, 1 + 0.015 * C * T
    rt = -np.sin(np.radians(2 * theta)) * rc
    return np.sqrt((dL / sl) ** 2 + (dC / sc) ** 2 + (dH / sh) ** 2
                   + rt * (dC / sc) * (dH / sh))


def delta_e(rgb1, rgb2):
    return ciede2000(srgb_to_lab(rgb1), srgb_to_lab(rgb2))


# Sharma, Wu & Dalal (2005), Table 1: the 34 CIEDE2000 test pairs (L1 a1 b1, L2 a2 b2, ΔE00)
SHARMA = np.array([
    [50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425],
    [50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615],
    [50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412],
    [50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669],
    [50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461],
    [50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065],
    [50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492],
    [50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977],
    [50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030],
    [50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000],
    [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
    [63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630],
    [61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731],
    [35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645],
    [22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373],
    [36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146],
    [90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441],
    [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
    [6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377],
    [2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082],
])


def test_ciede2000_reproduces_sharma_wu_dalal_table_1():
    np.testing.assert_allclose(ciede2000(SHARMA[:, :3], SHARMA[:, 3:6]), SHARMA[:, 6],
                               atol=5e-5)
    np.testing.assert_allclose(ciede2000(SHARMA[:, 3:6], SHARMA[:, :3]), SHARMA[:, 6],
                               atol=5e-5)  # symmetric


def test_srgb_to_lab_reproduces_published_values():
    # sRGB primaries, white and the 8-bit mid grey under D65 (Lindbloom's sRGB matrix)
    rgb = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [0, 0, 0], [128 / 255] * 3]
    expected = [[53.2408, 80.0925, 67.2032], [87.7347, -86.1827, 83.1793],
                [32.2970, 79.1875, -107.8602], [100.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                [53.5850, 0.0, 0.0]]
    np.testing.assert_allclose(srgb_to_lab(rgb), expected, atol=2e-3)


# --------------------------------------------------------------------------- the palette

WHITE = (1.0, 1.0, 1.0)
MIN_DELTA_E = 19.0  # between any two palette colours, and each of them and white or the grey
MIN_GREY_WHITE = 12.0  # the grey only needs to stand out from the background


def test_palette_colours_are_far_apart_from_each_other_white_and_the_grey():
    """The hashed colours this palette replaces had pairs at ΔE00 4-5 among a legend's
    twelve (the indigo/violet, yellow-greens and pinks a user could not tell apart);
    Tableau 10's nine chromatic colours are at least 16.2 apart. Twenty colours at least
    19 apart are what the greedy search below reaches under its lightness and chroma
    bounds."""
    assert len(PALETTE) == 20 and len(set(PALETTE)) == 20
    colours = np.array(PALETTE)
    assert np.all((colours >= 0) & (colours <= 1))
    pairwise = delta_e(colours[:, None], colours[None])
    np.fill_diagonal(pairwise, np.inf)
    assert pairwise.min() >= MIN_DELTA_E
    assert delta_e(colours, WHITE).min() >= MIN_DELTA_E
    assert delta_e(colours, OTHER_COLOR).min() >= MIN_DELTA_E
    assert delta_e(OTHER_COLOR, WHITE) >= MIN_GREY_WHITE


def test_the_hashed_colours_were_indeed_too_close():
    # what the issue reported, measured: the twelve colours a map's legend showed
    lab = srgb_to_lab(np.array([_old_hashed_colour(f) for f in range(12)]))
    pairwise = ciede2000(lab[:, None], lab[None])
    np.fill_diagonal(pairwise, np.inf)
    assert pairwise.min() < 5.0 < MIN_DELTA_E


def _old_hashed_colour(f):  # the removed feature_color: golden-ratio hues in HLS
    import colorsys

    hue = (0.5 + f * (np.sqrt(5.0) - 1.0) / 2.0) % 1.0
    lightness = 0.35 + 0.30 * ((0.5 + f * (np.sqrt(2.0) - 1.0)) % 1.0)
    saturation = 0.55 + 0.40 * ((0.5 + f * (np.sqrt(3.0) - 1.0)) % 1.0)
    return colorsys.hls_to_rgb(hue, lightness, saturation)


def glasbey(n, first, avoid, *, step=24, lightness=(30, 82), chroma=(20, 75)):
    """Greedy maximin colours in CIEDE2000: ``first``, then repeatedly the colour of the
    sRGB grid (step 1/``step``) within the lightness and chroma bounds farthest from
    ``avoid`` and from every colour taken."""
    grid = np.arange(step + 1) / step
    candidates = np.stack(np.meshgrid(grid, grid, grid, indexing="ij"), -1).reshape(-1, 3)
    lab = srgb_to_lab(candidates)
    c = np.hypot(lab[:, 1], lab[:, 2])
    keep = ((lab[:, 0] >= lightness[0]) & (lab[:, 0] <= lightness[1])
            & (c >= chroma[0]) & (c <= chroma[1]))
    candidates, lab = candidates[keep], lab[keep]
    chosen = [np.asarray(x, dtype=float) for x in first]
    nearest = np.full(len(candidates), np.inf)
    for colour in [*avoid, *chosen]:
        nearest = np.minimum(nearest, ciede2000(lab, srgb_to_lab(colour)))
    while len(chosen) < n:
        j = int(np.argmax(nearest))
        chosen.append(candidates[j])
        nearest = np.minimum(nearest, ciede2000(lab, lab[j]))
    return chosen


def hex_code(rgb):
    return "#" + "".join(f"{round(255 * c):02x}" for c in rgb)


def test_the_palette_is_what_its_comment_says():
    made = glasbey(len(PALETTE), first=PALETTE[:4], avoid=[WHITE, OTHER_COLOR])
    assert [hex_code(c) for c in made] == [hex_code(c) for c in PALETTE]
    # the first four are Tableau 10's blue, orange, green and red
    assert [hex_code(c) for c in PALETTE[:4]] == ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]


def test_feature_palette_assigns_colours_in_order_then_grey():
    palette = feature_palette([7, 3, 11])
    assert palette == FeaturePalette(features=(7, 3, 11), colors=PALETTE[:3])
    assert palette.color(7) == PALETTE[0] and palette.color(11) == PALETTE[2]
    assert palette.color(np.int64(3)) == PALETTE[1]
    assert palette.color(0) == OTHER_COLOR == palette.other
    assert palette.colors_of(np.array([11, 0, 7])) == (PALETTE[2], OTHER_COLOR, PALETTE[0])
    many = feature_palette(np.arange(50)[::-1])
    assert many.features == tuple(range(49, 29, -1)) and many.colors == PALETTE
    assert many.color(5) == OTHER_COLOR
    custom = feature_palette([1, 2, 3], colors=[(0, 0, 0), (1, 0, 0)], other=(0.5, 0.5, 0.5))
    assert custom.colors_of([1, 2, 3]) == ((0, 0, 0), (1, 0, 0), (0.5, 0.5, 0.5))
    assert feature_palette([]).features == ()


@pytest.mark.parametrize("kwargs, match", [
    ({"features": [1, 1]}, "distinct"),
    ({"features": [-1]}, "column indices"),
    ({"features": [0.5]}, "column indices"),
    ({"features": [True, False]}, "column indices"),
    ({"features": [[1, 2]]}, "column indices"),
    ({"features": [1], "colors": []}, "at least one"),
    ({"features": [1], "colors": [(1, 0)]}, "colour"),
    ({"features": [1], "colors": [(2, 0, 0)]}, "colour"),
    ({"features": [1], "other": "grey"}, "other"),
])
def test_feature_palette_rejects_bad_input(kwargs, match):
    features = kwargs.pop("features")
    with pytest.raises(InvalidInputError, match=match):
        feature_palette(features, **kwargs)


def test_palette_constructor_checks_itself():
    with pytest.raises(InvalidInputError, match="one colour per feature"):
        FeaturePalette(features=(1, 2), colors=PALETTE[:1])
    with pytest.raises(InvalidInputError, match="distinct"):
        FeaturePalette(features=(1, 1), colors=PALETTE[:2])


@settings(max_examples=60)
@given(st.lists(st.integers(0, 10_000), unique=True, max_size=40))
def test_no_two_features_share_a_colour_while_the_palette_lasts(features):
    palette = feature_palette(features)
    colours = palette.colors_of(features)
    n = min(len(features), len(PALETTE))
    assert len(set(colours[:n])) == n
    assert all(c == OTHER_COLOR for c in colours[n:])
    assert OTHER_COLOR not in colours[:n]


@settings(max_examples=40)
@given(seed=st.integers(0, 2 ** 32 - 1), d=st.integers(1, 40), top=st.integers(0, 30),
       shared=st.booleans())
def test_no_two_legend_features_share_a_colour_while_the_palette_lasts(seed, d, top, shared):
    rng = np.random.default_rng(seed)
    Z = rng.random((int(rng.integers(1, 15)), d)) < rng.uniform(0.05, 0.9)
    palette = feature_palette(rng.permutation(d)) if shared else None
    m = stability_map(make_runset(Z), top=top, palette=palette)
    coloured = [c for c in m.legend_colors if c != OTHER_COLOR]
    assert len(set(coloured)) == len(coloured)
    in_palette = np.isin(m.legend, m.palette.features)
    assert len(coloured) == in_palette.sum()
    if not shared:  # its own palette: the first twenty of the map are coloured
        assert in_palette.tolist() == [i < len(PALETTE) for i in range(m.legend.size)]


# --------------------------------------------------------------------------- identical maps


def rasterised_difference(a, b, pixels=20_000):
    """An independent map_difference for the rows: sample each row at ``pixels`` points
    and count where the colours differ."""
    x = (np.arange(pixels) + 0.5) / pixels
    worst = 0.0
    for r in range(a.runs):
        drawn = []
        for m in (a, b):
            k = m.mean_selected or 1.0
            sel = m.row == r
            ends = (m.left[sel] + m.width[sel]) / k
            starts = m.left[sel] / k
            colours = m.rectangle_colors[sel]
            row = np.full((pixels, 3), -1.0)
            for s, e, c in zip(starts, ends, colours, strict=True):
                row[(x >= s) & (x < e)] = c
            drawn.append(row)
        worst = max(worst, float(np.mean(np.any(drawn[0] != drawn[1], axis=1))))
    return worst


def test_identical_pictures_differ_by_zero():
    rs = random_runset(0)
    m = stability_map(rs, top=5)
    assert map_difference(m, m) == 0.0
    scaled = make_runset(rs.selection_matrix, rs.importance_matrix * 7.0)
    assert map_difference(m, stability_map(scaled, top=5)) == pytest.approx(0.0, abs=1e-12)


def test_two_maps_that_select_nothing_are_the_same_picture():
    """k̄ = 0 in both: no width to compare (not a relative difference of 0/0), no row,
    no legend number — the same empty picture."""
    Z = np.zeros((3, 4), dtype=bool)
    empty = stability_map(make_runset(Z, np.zeros((3, 4))), top=2)
    again = stability_map(make_runset(Z, np.zeros((3, 4))), top=2, palette=empty.palette)
    assert empty.mean_selected == again.mean_selected == 0.0
    assert map_difference(empty, again) == 0.0


def test_equal_selections_are_not_enough_nor_necessary():
    Z = np.ones((4, 3), dtype=bool)
    I = np.tile([3.0, 2.0, 1.0], (4, 1))
    base = stability_map(make_runset(Z, I))
    # same selections, one run's importances changed: its boundaries move
    moved = I.copy()
    moved[2] = [1.0, 1.0, 1.0]
    difference = map_difference(base, stability_map(make_runset(Z, moved)))
    # row 2: [3,2,1]/6 vs [1,1,1]/3 → features differ on |1/2 - 1/3| + |5/6 - 2/3|
    assert difference == pytest.approx(1 / 6 + 1 / 6)
    # a feature of importance ~0 selected in run 0 instead of another one in run 1:
    # the selections (and k̄) differ, no pixel and no legend number does
    tiny = np.zeros((4, 2))
    before, after = tiny.copy(), tiny.copy()
    before[1, 0], after[0, 1] = 1e-9, 1e-9
    palette = feature_palette([0, 1, 2])
    a, b = (stability_map(make_runset(np.column_stack([Z, extra > 0]),
                                      np.column_stack([I, extra])), top=3, palette=palette)
            for extra in (before, after))
    assert a.mean_selected == b.mean_selected == 3.25
    assert map_difference(a, b) < 1e-8


def test_swapped_features_and_legends():
    # two features tied on p_f, ordered by importance: swapping importances swaps places
    Z = np.array([[1, 1], [1, 1]], dtype=bool)
    a = stability_map(make_runset(Z, [[2.0, 1.0], [2.0, 1.0]]))
    b = stability_map(make_runset(Z, [[1.0, 2.0], [1.0, 2.0]]), palette=a.palette)
    assert a.features.tolist() == [0, 1] and b.features.tolist() == [1, 0]
    assert map_difference(a, b) == 1.0  # the legends differ (order)
    palette = a.palette
    a = stability_map(make_runset(Z, [[2.0, 1.0], [2.0, 1.0]]), top=0, palette=palette)
    b = stability_map(make_runset(Z, [[1.0, 2.0], [1.0, 2.0]]), top=0, palette=palette)
    assert map_difference(a, b) == 1.0  # f0 on [0, 2/3) then f1, against f1 then f0
    b = stability_map(make_runset(Z, [[1.0, 3.0], [1.0, 3.0]]), top=0, palette=palette)
    # f1 on [0, 3/4) then f0: both show f1 on [2/3, 3/4) only
    assert map_difference(a, b) == pytest.approx(11 / 12)
    # features in the same grey look alike: a swap among them is not seen
    grey = feature_palette([5])
    a = stability_map(make_runset(Z, [[2.0, 1.0], [2.0, 1.0]]), top=0, palette=grey)
    b = stability_map(make_runset(Z, [[1.0, 2.0], [1.0, 2.0]]), top=0, palette=grey)
    assert map_difference(a, b) == 0.0
    # different numbers of runs, or of legend frequencies
    assert map_difference(a, stability_map(make_runset(Z[:1]), top=0)) == 1.0
    one = stability_map(make_runset([[1, 0]] * 10), top=1)
    nine = stability_map(make_runset([[1, 0]] * 9 + [[0, 1]]), top=1, palette=one.palette)
    assert map_difference(one, nine) == pytest.approx(1.0)  # run 9 changes entirely
    with pytest.raises(InvalidInputError, match="StabilityMap"):
        map_difference(a, random_runset(0))


@settings(max_examples=25)
@given(seed=st.integers(0, 2 ** 32 - 1), noise=st.sampled_from([0.0, 1e-3, 0.05, 1.0]),
       flips=st.integers(0, 3))
def test_map_difference_matches_a_rasterised_comparison(seed, noise, flips):
    rng = np.random.default_rng(seed)
    rs = random_runset(seed, M=6, d=12, k=(1, 6))
    Z = rs.selection_matrix.copy()
    for _ in range(flips):  # select or drop a feature in a run
        Z[rng.integers(Z.shape[0]), rng.integers(Z.shape[1])] ^= True
    I = np.where(Z, np.where(rs.importance_matrix > 0, rs.importance_matrix, 1.0)
                 * np.exp(noise * rng.standard_normal(Z.shape)), 0.0)
    palette = feature_palette(rng.permutation(12)[:int(rng.integers(1, 12))])
    a = stability_map(rs, top=0, palette=palette)
    b = stability_map(make_runset(Z, I), top=0, palette=palette)
    value = map_difference(a, b)
    assert value == map_difference(b, a)
    assert 0.0 <= value <= 1.0
    width = abs(a.mean_selected - b.mean_selected) / max(a.mean_selected, b.mean_selected, 1e-300)
    assert max(rasterised_difference(a, b), width) == pytest.approx(value, abs=2e-4)


def test_group_identical_maps():
    rs = random_runset(1, M=20)
    palette = feature_palette(np.arange(30))
    shown = stability_map(rs, top=5, palette=palette)
    nearly = stability_map(make_runset(rs.selection_matrix, rs.importance_matrix
                                       * (1 + 1e-5 * np.arange(30))), top=5, palette=palette)
    other = stability_map(random_runset(2, M=20), top=5, palette=palette)
    assert 0 < map_difference(shown, nearly) <= 0.01
    maps = [shown, other, nearly, shown, other]
    assert group_identical_maps(maps, [12, 17, 40, 41, 50]) == [(12, 40, 41), (17, 50)]
    assert group_identical_maps(maps) == [(0, 2, 3), (1, 4)]
    assert group_identical_maps(maps, list("abcde"), tolerance=0.0) == [("a", "d"), ("b", "e"),
                                                                        ("c",)]
    assert group_identical_maps([]) == []
    # each map joins the group of the first map (the one drawn) within the tolerance
    groups = group_identical_maps(maps, tolerance=0.5)
    for group in groups:
        for k in group:
            assert map_difference(maps[group[0]], maps[k]) <= 0.5
    for bad in (-0.1, 1.0, "0.01", True):
        with pytest.raises(InvalidInputError, match="tolerance"):
            group_identical_maps(maps, tolerance=bad)
    with pytest.raises(InvalidInputError, match="labels"):
        group_identical_maps(maps, [1, 2])
    with pytest.raises(InvalidInputError, match="StabilityMap"):
        group_identical_maps([shown, rs])


# --------------------------------------------------------------------------- overview


def test_selection_overview_by_hand():
    # three trials on 6 features, M = 4, 4, 2
    first = [[1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]]
    second = [[1, 0, 1, 0, 0, 0], [1, 0, 1, 0, 0, 0], [0, 1, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]]
    third = [[0, 0, 0, 1, 0, 1], [0, 0, 0, 1, 0, 0]]
    runs = [make_runset(Z, names=tuple("abcdef")) for Z in (first, second, third)]
    ov = selection_overview(runs, [12, 17, 40])
    # p: a (1, .75, 0), b (.5, .25, 0), c (.25, .75, 0), d (0, 0, 1), f (0, 0, .5)
    # means: a .5833, c .3333, d .3333, b .25, f .1667; c and d tie on the mean, c's
    # smallest p (0) equals d's (0): by index
    assert ov.all_features.tolist() == [0, 2, 3, 1, 5]
    assert ov.features.tolist() == [0, 2, 3, 1, 5] and ov.omitted == 0
    assert ov.names == ("a", "c", "d", "b", "f")
    np.testing.assert_allclose(ov.frequency, [[1, .75, 0], [.25, .75, 0], [0, 0, 1],
                                              [.5, .25, 0], [0, 0, .5]])
    np.testing.assert_allclose(ov.mean_frequency, ov.frequency.mean(axis=1))
    assert ov.labels == (12, 17, 40) and ov.runs.tolist() == [4, 4, 2] and ov.n_features == 6
    # colours go first to what some trial selects most: a and d (1), c (.75), b, f (.5)
    assert ov.color_order.tolist() == [0, 3, 2, 1, 5]
    assert ov.palette().features == (0, 3, 2, 1, 5)
    assert ov.palette(colors=PALETTE[:2]).features == (0, 3)
    # rows: the `top` most frequent in some trial, shown in mean order
    top3 = selection_overview(runs, [12, 17, 40], top=3)
    assert top3.features.tolist() == [0, 2, 3] and top3.omitted == 2
    top2 = selection_overview(runs, top=2)
    assert top2.features.tolist() == [0, 3] and top2.labels == (0, 1, 2)
    assert top2.all_features.tolist() == ov.all_features.tolist()
    assert selection_overview(runs, top=0).frequency.shape == (0, 3)
    plain = selection_overview([make_runset(first)])
    assert plain.names == ("f0", "f1", "f2") and plain.frequency.shape == (3, 1)
    # any iterable of RunSets, read once (a generator too)
    once = selection_overview((r for r in runs), [12, 17, 40])
    assert once.features.tolist() == ov.features.tolist() and once.runs.tolist() == [4, 4, 2]


def test_ties_on_the_mean_go_to_what_every_trial_keeps():
    # f0: p = (.5, .5); f1: (1, 0); equal means, f0's smallest p is larger
    runs = [make_runset([[1, 1], [0, 1]]), make_runset([[1, 0], [0, 0]])]
    assert selection_overview(runs).features.tolist() == [0, 1]
    # ties of means computed in different orders are still ties (compared exactly)
    Z = np.zeros((10, 3), dtype=bool)
    Z[:1, 0] = Z[:2, 1] = True
    one, two = make_runset(Z), make_runset(Z[:, [1, 0, 2]])
    assert selection_overview([one, two, one]).features.tolist() == [1, 0]


def counted_runset(counts, M):
    """A RunSet of M runs whose feature f is selected in ``counts[f]`` of them."""
    return make_runset(np.arange(M)[:, None] < np.asarray(counts)[None, :])


def fraction_order(counts, runs):
    """The overview's order computed in fractions: decreasing mean p_f, then decreasing
    smallest p_f, then index; features no trial selects left out."""
    p = [[Fraction(int(c), M) for c, M in zip(row, runs, strict=True)] for row in counts]
    kept = [f for f, row in enumerate(p) if max(row) > 0]
    return sorted(kept, key=lambda f: (-sum(p[f]), -min(p[f]), f))


def test_means_a_rounding_apart_are_ordered_exactly():
    """Four trials of M = 997, 991, 983, 977 runs: f0's mean p_f exceeds f1's by
    1 / (4 · lcm(M)), 2.6e-13, and f1's smallest p_f is the larger. Rounded to 12
    decimals the means tie and f1 would go first."""
    runs = [997, 991, 983, 977]
    counts = np.array([[76, 309, 921, 923], [638, 921, 115, 570]])
    assert fraction_order(counts, runs) == [0, 1]
    means = (counts / runs).mean(axis=1)
    assert np.round(means[0], 12) == np.round(means[1], 12)  # the tie rounding made
    overview = selection_overview([counted_runset(counts[:, t], M) for t, M in enumerate(runs)])
    assert overview.all_features.tolist() == [0, 1]


@settings(max_examples=60)
@given(st.data())
def test_the_overview_is_ordered_as_fractions_order_it(data):
    runs = data.draw(st.lists(st.integers(1, 12), min_size=1, max_size=5))
    d = data.draw(st.integers(1, 6))
    counts = np.array([[data.draw(st.integers(0, M)) for M in runs] for _ in range(d)])
    overview = selection_overview([counted_runset(counts[:, t], M)
                                   for t, M in enumerate(runs)])
    assert overview.all_features.tolist() == fraction_order(counts, runs)


def test_an_lcm_beyond_int64_is_ordered_in_pythons_integers():
    runs = [1009, 1013, 1019, 1021, 1031, 1033, 1039]  # lcm · 7 ≈ 8e21 > 2**63
    counts = np.random.default_rng(3).integers(0, 1009, size=(5, 7))
    counts[1] = counts[0][::-1]  # a tie on the mean or near it
    overview = selection_overview([counted_runset(counts[:, t], M) for t, M in enumerate(runs)])
    assert overview.all_features.tolist() == fraction_order(counts, runs)


def test_selection_overview_validation_and_read_only():
    rs = random_runset(3)
    Z = rs.selection_matrix.copy()
    ov = selection_overview([rs, random_runset(4)], feature_names=[f"n{j}" for j in range(30)])
    np.testing.assert_array_equal(rs.selection_matrix, Z)
    assert isinstance(ov, SelectionOverview) and ov.names[0].startswith("n")
    with pytest.raises(ValueError):
        ov.frequency[0, 0] = 1.0
    with pytest.raises(InvalidInputError, match="at least one"):
        selection_overview([])
    with pytest.raises(InvalidInputError, match="labels"):
        selection_overview([rs], [1, 2])
    with pytest.raises(InvalidInputError, match="labels"):
        selection_overview([rs], "a")
    with pytest.raises(InvalidInputError, match="same number of features"):
        selection_overview([rs, random_runset(3, d=31)])
    with pytest.raises(InvalidInputError, match="feature_names"):
        selection_overview([rs], feature_names=["a"])
    with pytest.raises(InvalidInputError, match="top"):
        selection_overview([rs], top=-1)
    with pytest.raises(InvalidInputError, match="RunSet"):
        selection_overview([Z])


# --------------------------------------------------------------------------- drawers


def front_trials():
    names = tuple(f"gene{j}" for j in range(40))
    runs = [random_runset(s, M=15, d=40, names=names) for s in (0, 1, 0, 2)]
    numbers = [12, 17, 40, 44]
    ov = selection_overview(runs, numbers, top=15)
    palette = ov.palette()
    maps = [stability_map(r, top=10, palette=palette) for r in runs]
    return numbers, ov, palette, maps


def test_small_multiples_one_panel_per_picture_one_legend():
    numbers, _, palette, maps = front_trials()
    groups = group_identical_maps(maps, numbers)
    assert groups == [(12, 40), (17,), (44,)]
    shown = [maps[numbers.index(g[0])] for g in groups]
    figure = stability_maps_figure(shown, groups, title="Maps of the front trials", columns=2)
    axes = figure.axes
    assert len(axes) == 3  # the grid's fourth cell removed
    assert [ax.get_title(loc="left") for ax in axes] == ["trials 12, 40", "trial 17",
                                                         "trial 44"]
    assert all(ax.get_legend() is None for ax in axes)
    assert figure.get_suptitle() == "Maps of the front trials"
    (legend,) = figure.legends
    texts = [t.get_text() for t in legend.get_texts()]
    union = set().union(*(m.features.tolist() for m in shown))
    coloured = [f for f in palette.features if f in union]
    assert texts[:len(coloured)] == [f"gene{f}" for f in coloured]
    grey = len(union) - len(coloured)
    assert texts[len(coloured):] == ([f"+{grey} more features, in grey"] if grey else [])
    # the rectangles carry the shared palette's colours
    for ax, m in zip(axes, shown, strict=True):
        np.testing.assert_allclose(ax.collections[0].get_facecolor()[:, :3], m.rectangle_colors)
    # labels only on the outer panels
    assert [ax.get_ylabel() for ax in axes] == ["run", "", "run"]
    assert [ax.get_xlabel() for ax in axes] == ["", "cumulative importance",
                                                "cumulative importance"]
    figure.savefig(io.BytesIO(), format="png")


def test_small_multiples_legend_top_and_options():
    numbers, _, palette, maps = front_trials()
    figure = stability_maps_figure(maps, top=3)
    texts = [t.get_text() for t in figure.legends[0].get_texts()]
    union = set().union(*(m.features.tolist() for m in maps))
    assert len(texts) == 4 and texts[3].startswith(f"+{len(union) - 3} more features")
    assert all(not ax.get_title(loc="left") for ax in figure.axes)
    assert len(figure.axes) == 4 and figure.get_suptitle() == ""
    # into a given figure (e.g. a subfigure)
    parent = Figure(layout="constrained")
    sub = parent.subfigures(1, 2)[1]
    assert stability_maps_figure(maps[:2], [[12], "a title"], figure=sub) is sub
    assert [ax.get_title(loc="left") for ax in sub.axes] == ["trial 12", "a title"]
    # long titles wrap
    long = stability_maps_figure(maps[:1], [list(range(100, 130))])
    assert "\n" in long.axes[0].get_title(loc="left")


@pytest.mark.parametrize("kwargs, match", [
    ({"titles": ["one"]}, "titles"),
    ({"titles": "abcd"}, "titles"),
    ({"titles": [[], [1], [2], [3]]}, "title"),
    ({"columns": 0}, "columns"),
    ({"top": -1}, "top"),
])
def test_small_multiples_reject_bad_options(kwargs, match):
    _, _, _, maps = front_trials()
    with pytest.raises(InvalidInputError, match=match):
        stability_maps_figure(maps, **kwargs)


def test_small_multiples_need_one_palette():
    rs = [random_runset(0), random_runset(1)]
    with pytest.raises(InvalidInputError, match="one palette"):
        stability_maps_figure([stability_map(r) for r in rs])
    with pytest.raises(InvalidInputError, match="StabilityMaps"):
        stability_maps_figure([])
    with pytest.raises(InvalidInputError, match="StabilityMaps"):
        stability_maps_figure(rs)


@pytest.mark.slow
def test_overview_heatmap():
    numbers, ov, palette, _ = front_trials()
    figure = Figure()
    ax = figure.add_subplot()
    assert draw_selection_overview(ov, ax=ax, chosen=40, chosen_label="γ = 0.6 choice",
                                   palette=palette, title="Which features") is ax
    (image,) = ax.images
    np.testing.assert_array_equal(image.get_array(), ov.frequency)
    assert image.get_clim() == (1e-9, 1.0)  # p_f = 0 below the scale: white
    assert image.cmap(image.norm(0.0)) == (1.0, 1.0, 1.0, 1.0)
    assert image.cmap(image.norm(0.01)) != (1.0, 1.0, 1.0, 1.0)
    assert [t.get_text() for t in ax.get_yticklabels()] == list(ov.names)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["12", "17", "40", "44"]
    assert ax.get_xlabel() == "trial (outlined: γ = 0.6 choice)"
    assert ax.get_ylabel() == f"the 15 of {ov.all_features.size} features most selected in a trial"
    assert ax.get_title(loc="left") == "Which features"
    # the chosen column outlined, its label bold
    (outline,) = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert outline.get_x() == 1.5 and outline.get_width() == 1.0
    assert outline.get_height() == len(ov.features)
    assert ax.get_xticklabels()[2].get_fontweight() == "bold"
    # the palette's colour beside each name
    (squares,) = [c for c in ax.collections if isinstance(c, PathCollection)]
    np.testing.assert_allclose(squares.get_facecolor()[:, :3], palette.colors_of(ov.features))
    # the colour bar from 0 to 1
    assert len(figure.axes) == 2
    figure.savefig(io.BytesIO(), format="png")


def test_overview_options_and_figure():
    _, ov, palette, _ = front_trials()
    ax = draw_selection_overview(ov, ax=Figure().add_subplot(), colorbar=False)
    assert len(ax.figure.axes) == 1 and not ax.patches and not ax.collections
    assert ax.get_xlabel() == "trial"
    full = selection_overview([make_runset([[1, 0], [1, 1]])])
    assert draw_selection_overview(full, ax=Figure().add_subplot()).get_ylabel() == "feature"
    for nothing in (selection_overview([make_runset(np.zeros((3, 2)))]),  # none selected
                    selection_overview([make_runset([[1, 0]])], top=0)):
        figure = selection_overview_figure(nothing, title="empty")
        figure.savefig(io.BytesIO(), format="png")
        assert not figure.axes[0].get_yticklabels()
    figure = selection_overview_figure(ov, chosen=12, palette=palette, title="Overview")
    assert figure.axes[0].get_title(loc="left") == "Overview"
    width, height = figure.get_size_inches()
    assert 3 < width < 12 and 3 < height < 8  # sized to 15 rows, 4 columns
    figure.savefig(io.BytesIO(), format="png")
    for kwargs, match in [({"chosen": 99}, "chosen"), ({"palette": [1, 2]}, "palette")]:
        with pytest.raises(InvalidInputError, match=match):
            draw_selection_overview(ov, ax=Figure().add_subplot(), **kwargs)
    with pytest.raises(InvalidInputError, match="SelectionOverview"):
        draw_selection_overview(palette, ax=Figure().add_subplot())
    with pytest.raises(InvalidInputError, match="SelectionOverview"):
        selection_overview_figure(palette)


def test_fifteen_trials_by_twenty_five_features_read():
    names = tuple(f"AFFX-HUMGAPDH/M{j:05d}_at" for j in range(300))
    runs = [random_runset(s, M=30, d=300, k=(5, 20), names=names) for s in range(15)]
    ov = selection_overview(runs, list(range(100, 115)))
    assert ov.frequency.shape == (25, 15)
    figure = selection_overview_figure(ov, chosen=107, palette=ov.palette())
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    ax = figure.axes[0]
    # names and trial numbers do not overlap their neighbours and stay inside the figure
    for labels in (ax.get_yticklabels(), ax.get_xticklabels()):
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert all(b.x0 >= 0 and b.y0 >= 0 and b.x1 <= figure.bbox.width + 1 for b in boxes)
        assert not any(a.overlaps(b) for a, b in zip(boxes, boxes[1:], strict=False))


@pytest.mark.slow
def test_the_pure_modules_do_not_load_matplotlib_and_drawers_not_pyplot():
    code = ("import sys; import paretostab.maps, paretostab.report; "
            "assert 'matplotlib' not in sys.modules, 'maps loads matplotlib'; "
            "import numpy as np; from paretostab._runset import RunSet; "
            "from paretostab.maps import stability_map, selection_overview, "
            "group_identical_maps; "
            "from paretostab.plot import stability_maps_figure, selection_overview_figure, "
            "stability_map_figure; import io; "
            "Z = np.eye(3, dtype=bool); "
            "rs = RunSet(selection_matrix=Z, importance_matrix=Z * 1.0, rank_matrix=None, "
            "scores=np.ones(3), seeds=np.zeros(3, dtype=np.uint32), fit_seconds=np.zeros(3), "
            "metric='accuracy', resampling='bootstrap', selector='t'); "
            "ov = selection_overview([rs, rs]); p = ov.palette(); "
            "maps = [stability_map(rs, palette=p)] * 2; "
            "group_identical_maps(maps); "
            "[f.savefig(io.BytesIO(), format='png') for f in (stability_maps_figure(maps), "
            "selection_overview_figure(ov), stability_map_figure(maps[0], title='t'))]; "
            "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot loaded'")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr
