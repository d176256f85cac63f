"""The dominance-area weight, parsed once (SPEC §5; 002 §3 eq. 2): every accepted form,
the text round trip, one error per bad input, and the density and its primitives."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import dblquad, quad

from paretostab._errors import InvalidInputError, ParetostabError
from paretostab._weight import Weight, as_weight, weight_name
from paretostab.front import dominance_area


def density_function(a, phi):
    return a + phi


# --------------------------------------------------------------------------- forms


@pytest.mark.parametrize("given_weight, expected", [
    ("uniform", Weight("uniform")),
    ("accuracy:2", Weight("accuracy", 2.0)),
    ("stability:-1.5", Weight("stability", -1.5)),
    ("accuracy:0", Weight("accuracy", 0.0)),
    ("accuracy:1e-3", Weight("accuracy", 0.001)),
    (("accuracy", 2), Weight("accuracy", 2.0)),
    (["stability", np.float32(-0.5)], Weight("stability", -0.5)),
    (("accuracy", np.int64(3)), Weight("accuracy", 3.0)),
    (("stability", 1000.0), Weight("stability", 1000.0)),
    (density_function, Weight("callable", function=density_function)),
])
def test_every_accepted_form(given_weight, expected):
    weight = as_weight(given_weight)
    assert isinstance(weight, Weight) and weight == expected
    assert isinstance(weight.strength, float)


def test_none_is_no_weight_and_a_weight_is_itself():
    assert as_weight(None) is None
    weight = Weight("accuracy", 2.0)
    assert as_weight(weight) is weight
    assert hash(as_weight("accuracy:2")) == hash(as_weight(("accuracy", 2)))
    with pytest.raises(AttributeError):
        weight.strength = 3.0  # frozen


def test_callable_weights_are_equal_when_their_function_is_the_same():
    assert as_weight(density_function) == as_weight(density_function)
    assert as_weight(density_function) != as_weight(lambda a, phi: a + phi)
    assert as_weight(density_function).function is density_function


@pytest.mark.parametrize("weight, text, label", [
    ("uniform", "uniform", "uniform"),
    (("accuracy", 2), "accuracy:2", "accuracy, A = 2"),
    (("stability", -1.5), "stability:-1.5", "stability, A = -1.5"),
    (("accuracy", 0), "accuracy:0", "accuracy, A = 0"),
    (("accuracy", -0.0), "accuracy:0", "accuracy, A = 0"),
    (("stability", 1e-12), "stability:1e-12", "stability, A = 1e-12"),
    (("accuracy", 1000), "accuracy:1000", "accuracy, A = 1000"),
    (("accuracy", 2.123456789), "accuracy:2.123456789", "accuracy, A = 2.12346"),
])
def test_text_and_label(weight, text, label):
    parsed = as_weight(weight)
    assert parsed.text == text and parsed.label == label
    assert as_weight(parsed.text) == parsed


def test_callable_label_and_text():
    assert as_weight(density_function).label == "density_function"
    assert as_weight(lambda a, phi: 1.0).label == "<lambda>"

    class Density:
        def __call__(self, a, phi):
            return np.ones(np.shape(a))

    assert as_weight(Density()).label == "custom"
    assert as_weight(density_function).text is None


def test_the_name_files_and_pages_give_a_weight():
    """Its text form when it has one (what the command line takes back), a callable's
    label, and "uniform" for no weight: never the legend's label of a text-form weight."""
    assert weight_name(None) == "uniform"
    assert weight_name(as_weight("uniform")) == "uniform"
    assert weight_name(as_weight(("accuracy", 2))) == "accuracy:2"
    assert weight_name(as_weight(("stability", 2.123456789))) == "stability:2.123456789"
    assert weight_name(as_weight(density_function)) == "density_function"


@settings(max_examples=200)
@given(st.sampled_from(["accuracy", "stability"]),
       st.floats(allow_nan=False, allow_infinity=False))
def test_text_round_trip(axis, strength):
    weight = as_weight((axis, strength))
    assert as_weight(weight.text) == weight
    assert as_weight((axis, strength)) == as_weight(f"{axis}:{strength!r}")


@pytest.mark.parametrize("weight, match", [
    ("exponential", r"weight must be None, 'uniform', 'accuracy:A', 'stability:A'"),
    ("heavy", r"got 'heavy'\.$"),
    ("", "got ''"),
    ("accuracy", "got 'accuracy'"),
    ("accuracy:two", r"got 'accuracy:two' \(A must be a finite real number\)"),
    ("accuracy:nan", "A must be a finite real number"),
    ("stability:inf", "A must be a finite real number"),
    ("size:2", r"the axis must be 'accuracy' or 'stability'"),
    ("Accuracy:2", r"the axis must be 'accuracy' or 'stability'"),
    (("size", 2.0), r"got \('size', 2\.0\) \(the axis must be 'accuracy' or 'stability'\)"),
    (("accuracy", np.nan), "A must be a finite real number"),
    (("accuracy", np.inf), "A must be a finite real number"),
    (("accuracy", "2"), "A must be a finite real number"),
    (("accuracy", True), "A must be a finite real number"),
    (("accuracy", None), "A must be a finite real number"),
    (("accuracy", 1.0, 2.0), r"got \('accuracy', 1\.0, 2\.0\)"),
    ((2.0, "accuracy"), "weight must be None"),
    (2.0, r"got 2\.0\.$"),
    ({"accuracy": 2}, "weight must be None"),
])
def test_bad_weights_raise_one_error_naming_the_forms(weight, match):
    with pytest.raises(InvalidInputError, match=match) as raised:
        as_weight(weight)
    message = str(raised.value)
    assert message.startswith("weight must be None, 'uniform', 'accuracy:A'")
    assert "callable density w(a, phi)" in message
    assert isinstance(raised.value, ParetostabError) and isinstance(raised.value, ValueError)


@pytest.mark.parametrize("kwargs, match", [
    ({"kind": "size"}, "Weight kind must be one of"),
    ({"kind": "accuracy", "strength": math.nan}, "Weight strength must be a finite"),
    ({"kind": "uniform", "strength": 2.0}, "Weight strength"),
    ({"kind": "callable"}, "Weight function must be a callable"),
    ({"kind": "accuracy", "strength": 1.0, "function": density_function}, "Weight function"),
])
def test_a_weight_made_by_hand_is_checked(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        Weight(**kwargs)


def test_dominance_area_takes_every_form_alike():
    stairs = [[0.8, 0.5], [0.5, 0.8]]
    expected = dominance_area(stairs, weight=("accuracy", 2.0))
    for form in ("accuracy:2", ["accuracy", 2], Weight("accuracy", 2.0)):
        assert dominance_area(stairs, weight=form) == expected
    with pytest.raises(InvalidInputError, match="A must be a finite real number"):
        dominance_area(stairs, weight="accuracy:x")


# --------------------------------------------------------------------------- density


STRENGTHS = [-30.0, -4.0, -1.0, 0.0, 1e-9, 0.5, 2.0, 7.5, 30.0]


@pytest.mark.parametrize("weight", ["uniform", *[(axis, a) for a in STRENGTHS
                                                 for axis in ("accuracy", "stability")]])
def test_density_integrates_to_one_over_the_unit_square(weight):
    w = as_weight(weight)
    total, _ = dblquad(lambda phi, a: float(w.density(a, phi)), 0.0, 1.0, 0.0, 1.0,
                       epsabs=1e-12, epsrel=1e-10)
    assert total == pytest.approx(1.0, abs=1e-8)


def test_density_depends_on_its_axis_only_and_broadcasts():
    a = np.linspace(0.0, 1.0, 5)[None, :]
    phi = np.linspace(0.0, 1.0, 3)[:, None]
    accuracy = as_weight(("accuracy", 2.0)).density(a, phi)
    assert accuracy.shape == (3, 5) and np.allclose(accuracy, accuracy[:1])
    assert np.all(np.diff(accuracy, axis=1) > 0)
    np.testing.assert_allclose(accuracy[0], 2.0 * np.exp(2.0 * a[0]) / math.expm1(2.0))
    stability = as_weight(("stability", -3.0)).density(a, phi)
    assert np.allclose(stability, stability[:, :1]) and np.all(np.diff(stability, axis=0) < 0)
    np.testing.assert_array_equal(as_weight("uniform").density(a, phi), np.ones((3, 5)))
    np.testing.assert_array_equal(as_weight(("accuracy", 0)).density(a, phi), np.ones((3, 5)))
    # a callable's value broadcast to the points' shape
    assert as_weight(lambda x, y: 1.0).density(a, phi).shape == (3, 5)
    np.testing.assert_allclose(as_weight(density_function).density(a, phi), a + phi)
    assert float(as_weight(("accuracy", 1.0)).density(0.5, 0.2)) == pytest.approx(
        math.exp(0.5) / math.expm1(1.0))


@pytest.mark.parametrize("strength", STRENGTHS)
@pytest.mark.parametrize("axis", ["accuracy", "stability"])
def test_primitives_are_the_integrals_of_the_density(axis, strength):
    w = as_weight((axis, strength))
    w_a, w_phi = w.primitives
    weighted, flat = (w_a, w_phi) if axis == "accuracy" else (w_phi, w_a)
    for x in (0.0, 0.1, 0.37, 0.5, 0.9, 1.0):
        along = (lambda t: float(w.density(t, 0.3))) if axis == "accuracy" else \
            (lambda t: float(w.density(0.3, t)))
        expected, _ = quad(along, 0.0, x, epsabs=1e-13, epsrel=1e-12)
        assert float(weighted(np.array(x))) == pytest.approx(expected, abs=1e-10)
        assert float(flat(np.array(x))) == pytest.approx(x, abs=1e-15)
    # the weight of a rectangle is the product of the primitives' increments
    rectangle, _ = dblquad(lambda phi, a: float(w.density(a, phi)), 0.2, 0.7, 0.1, 0.6,
                           epsabs=1e-12, epsrel=1e-10)
    assert (w_a(0.7) - w_a(0.2)) * (w_phi(0.6) - w_phi(0.1)) == pytest.approx(rectangle,
                                                                              abs=1e-9)


def test_uniform_and_callable_primitives():
    x = np.linspace(0.0, 1.0, 11)
    w_a, w_phi = as_weight("uniform").primitives
    np.testing.assert_array_equal(w_a(x), x)
    np.testing.assert_array_equal(w_phi(x), x)
    assert as_weight(density_function).primitives is None  # integrated numerically


@pytest.mark.parametrize("weight", ["uniform", "accuracy:2", "stability:-3"])
def test_primitives_take_numbers_of_any_kind_and_give_floats(weight):
    """Array in, array out: a list or integer array of ends gives the float array of
    their primitives, as a float array does (W(0) = 0, W(1) = 1 exactly)."""
    expected = [primitive(np.array([0.0, 1.0, 0.5]))
                for primitive in as_weight(weight).primitives]
    for ends in ([0, 1, 0.5], np.array([0, 1]), [0, 1]):
        for primitive, floats in zip(as_weight(weight).primitives, expected, strict=True):
            values = primitive(ends)
            assert isinstance(values, np.ndarray) and values.dtype == np.float64
            np.testing.assert_array_equal(values, floats[:len(ends)])
            assert values[:2].tolist() == [0.0, 1.0]


# --------------------------------------------------------------------------- properties

any_strength = st.one_of(st.floats(-1000.0, 1000.0), st.sampled_from([-1000.0, 1000.0, 0.0]),
                         st.floats(-1e300, 1e300))


@settings(max_examples=300)
@given(st.sampled_from(["accuracy", "stability"]), any_strength,
       st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_primitives_are_monotone_from_zero_to_one_without_overflow(axis, strength, xs):
    w = as_weight((axis, strength))
    x = np.sort(np.concatenate([[0.0, 1.0], xs]))
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        for primitive in w.primitives:
            values = primitive(x)
            assert np.all(np.isfinite(values))
            assert np.all(np.diff(values) >= 0.0)
            assert values[0] == 0.0 and values[-1] == pytest.approx(1.0, abs=1e-15)
            assert np.all((values >= 0.0) & (values <= 1.0 + 1e-15))
        density = w.density(x, x[::-1])
    assert np.all(np.isfinite(density)) and np.all(density >= 0.0)


@settings(max_examples=100)
@given(st.sampled_from(["accuracy", "stability"]), st.floats(-1000.0, 1000.0))
def test_the_weighted_area_of_the_ideal_point_is_one(axis, strength):
    assert dominance_area([[1.0, 1.0]], weight=(axis, strength)) == pytest.approx(1.0)
