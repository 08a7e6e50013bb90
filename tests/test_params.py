"""Declared parameters: defaults, unknown names, ranges."""

import pytest

from packbench.algorithms.params import Param, int_in, one_of, real_in, resolve_params

SPEC = {
    "eps": Param(0.1, real_in(0.0, 1.0, lo_open=True, hi_open=True)),
    "workers": Param(1, int_in(1, 8)),
    "mode": Param("a", one_of("a", "b")),
}


def test_defaults_are_filled_and_values_normalised():
    assert resolve_params("s", SPEC, {"eps": 1 / 4}) == {"eps": 0.25, "workers": 1, "mode": "a"}


def test_unknown_parameter_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) 'epsilon'; valid: eps, mode, workers"):
        resolve_params("strategy 'x'", SPEC, {"epsilon": 0.1})


@pytest.mark.parametrize("given, message", [
    ({"eps": 0.0}, "must be > 0.0"), ({"eps": 1.0}, "must be < 1.0"),
    ({"workers": 0}, "must be >= 1"), ({"workers": 9}, "must be <= 8"),
    ({"mode": "c"}, "must be one of"),
])
def test_out_of_range_values_name_the_bound(given, message):
    with pytest.raises(ValueError, match=message):
        resolve_params("s", SPEC, given)


@pytest.mark.parametrize("given", [{"eps": "0.1"}, {"eps": float("nan")}, {"workers": 1.0}, {"workers": True}])
def test_wrong_types_are_type_errors(given):
    with pytest.raises(TypeError, match="parameter"):
        resolve_params("s", SPEC, given)
