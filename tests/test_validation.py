"""One validation vocabulary (paretostab._validation): an Interval against a brute-force
reading of its definition, its words, and the same answer and error line for one value
through the spec, the API, tuning and the selectors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from paretostab._errors import InvalidInputError, ParetostabError, described
from paretostab._validation import (
    NON_NEGATIVE,
    PAIRED_RUNS,
    POSITIVE,
    Interval,
    is_int,
    is_number,
)

CLOSED = ("both", "left", "right", "neither")
SCALARS = st.one_of(
    st.integers(-5, 5), st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.booleans(), st.none(), st.sampled_from(["1", b"1", 1j, np.bool_(True)]),
    st.integers(-5, 5).map(np.int64), st.floats(-5, 5).map(np.float32))


def brute_force(interval: Interval, value: object) -> bool:
    """The definition, read literally: the kind, finiteness, each bound and None."""
    if value is None:
        return interval.none
    if isinstance(value, bool | np.bool_):
        return False
    if interval.kind == "integer":
        if not isinstance(value, int | np.integer):
            return False
        if interval.even and int(value) % 2 != 0:
            return False
    elif not isinstance(value, int | float | np.integer | np.floating) or not math.isfinite(
            float(value)):
        return False
    x = float(value)
    if interval.low is not None:
        if interval.closed in ("both", "left") and not x >= interval.low:
            return False
        if interval.closed in ("right", "neither") and not x > interval.low:
            return False
    if interval.high is not None:
        if interval.closed in ("both", "right") and not x <= interval.high:
            return False
        if interval.closed in ("left", "neither") and not x < interval.high:
            return False
    return True


@given(kind=st.sampled_from(["integer", "number"]),
       low=st.one_of(st.none(), st.integers(-3, 3)), high=st.one_of(st.none(), st.integers(-3, 3)),
       closed=st.sampled_from(CLOSED), none=st.booleans(), even=st.booleans(), value=SCALARS)
def test_an_interval_accepts_what_its_definition_says(kind, low, high, closed, none, even,
                                                      value):
    interval = Interval(kind, low, high, closed, none, even)
    assert interval.accepts(value) == brute_force(interval, value)
    if interval.accepts(value):
        assert interval.check("x", value) is value  # the value as given
    else:
        with pytest.raises(InvalidInputError) as error:
            interval.check("x", value)
        assert str(error.value) == f"x must be {interval.describe()}; got {value!r}."


@pytest.mark.parametrize("interval, words", [
    (Interval("integer", 2), "an integer >= 2"),
    (Interval("integer", 1, 10), "an integer in [1, 10]"),
    (Interval("integer", 0, none=True), "None or an integer >= 0"),
    (Interval("integer", 2, even=True), "an even integer >= 2"),
    (PAIRED_RUNS, "an even integer >= 2"),
    (Interval("number", 0, 1, "neither"), "a number in (0, 1)"),
    (Interval("number", 0, 1, "left"), "a number in [0, 1)"),
    (Interval("number", 0, 1, "right"), "a number in (0, 1]"),
    (Interval("number"), "a finite number"),
    (NON_NEGATIVE, "a finite number >= 0"),
    (POSITIVE, "a finite number > 0"),
    (Interval("number", high=0.5, closed="neither"), "a finite number < 0.5"),
])
def test_an_interval_says_itself_in_words(interval, words):
    assert interval.describe() == words


def test_integers_and_numbers_are_told_from_booleans_and_text():
    assert is_int(3) and is_int(np.int64(3)) and is_int(np.uint8(3))
    assert not any(is_int(v) for v in (True, np.bool_(False), 3.0, "3", None))
    assert is_number(3) and is_number(2.5) and is_number(np.float32(2.5))
    assert not any(is_number(v) for v in (False, "2.5", None, 1j))


def test_integer_and_number_give_python_values_or_the_error_line():
    assert type(Interval("integer", 1).integer("runs", np.int64(4))) is int
    assert type(POSITIVE.number("reg", np.float32(0.5))) is float
    with pytest.raises(InvalidInputError, match=r"^runs must be an integer >= 1; got 2\.0\.$"):
        Interval("integer", 1).integer("runs", 2.0)
    with pytest.raises(InvalidInputError,
                       match=r"^reg must be a finite number > 0 \(why\); got inf\.$"):
        Interval("number", 0, closed="neither", why=" (why)").number("reg", math.inf)


def test_data_in_an_error_line_are_described_not_printed():
    """Issue 33: an error about a DataFrame printed its cells; data are told by their type
    and size, other values by their repr."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(np.zeros((150, 2001)))
    assert described(frame) == "a DataFrame of 150 rows × 2 001 columns"
    assert described(frame[0]) == "a Series of 150 values"
    assert described(np.zeros((2, 3, 4))) == "an array of shape 2 × 3 × 4"
    for plain in ("tpe", 3, np.int64(3), None, [1, 2]):
        assert described(plain) == repr(plain)
    with pytest.raises(InvalidInputError) as caught:
        Interval("integer", 1).integer("runs", frame)
    assert str(caught.value) == ("runs must be an integer >= 1; got a DataFrame of 150 rows × "
                                 "2 001 columns.")


@pytest.mark.parametrize("table, key", [
    ("study", "name"), ("protocol", "runs"), ("protocol", "resampling"),
    ("objective", "stability"), ("selector", "fixed"), ("selector", "search")])
def test_a_spec_key_given_a_dataframe_describes_it(table, key):
    """Issue 33: every kind of key, and the registry's names, say what the DataFrame is in
    one short line."""
    from paretostab.spec import parse_spec

    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(np.zeros((150, 2001)))
    spec = {"study": {"name": "v"}, "data": {"source": "breast_cancer"},
            "selector": {"name": "t_test"}}
    value = {"n_features": frame} if key in ("fixed", "search") else frame
    spec[table] = {**spec.get(table, {}), key: value}
    with pytest.raises(ParetostabError) as caught:  # an UnknownNameError for the measure
        parse_spec(spec)
    message = str(caught.value)
    assert "a DataFrame of 150 rows × 2 001 columns" in message
    assert "\n" not in message and len(message) < 400


# --------------------------------------------------------------------------- one answer


def test_the_spec_and_the_api_say_the_same_of_one_value(tmp_path):
    """A numpy integer is an integer through every door, True never is; the spec's line and
    the API's line describe the interval in the same words."""
    from paretostab.selectors import HybridRFE
    from paretostab.spec import parse_spec

    spec = {"study": {"name": "v", "trials": 1}, "data": {"source": "breast_cancer"},
            "protocol": {"runs": 2},
            "selector": {"name": "t_test", "fixed": {"n_features": 3}}}
    for value in (True, 1):
        with pytest.raises(InvalidInputError) as from_spec:
            parse_spec({**spec, "protocol": {"runs": value}})
        assert "must be an integer >= 2" in str(from_spec.value)
    assert parse_spec({**spec, "protocol": {"runs": np.int64(3)}}).protocol.runs == 3
    with pytest.raises(InvalidInputError, match=r"workers must be an integer >= 1; got True"):
        from paretostab._tuning import run_study

        run_study(parse_spec(spec), storage=f"sqlite:///{tmp_path / 'v.db'}", workers=True)
    X = np.random.default_rng(0).normal(size=(20, 6))
    y = np.repeat([0, 1], 10)
    with pytest.raises(InvalidInputError, match=r"epsilon must be a finite number > 0; got"):
        HybridRFE(n_features=2, epsilon=np.inf).fit(X, y)
