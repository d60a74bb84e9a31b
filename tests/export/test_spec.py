"""The input spec an export traces with, worked out from the signature (no torch)."""

from __future__ import annotations

import pytest

from shapescript.analysis import check
from shapescript.export.spec import SpecError, describe, export_spec
from shapescript.syntax.source import SourceFile
from tests.export.programs import ATTENTION


def spec_of(text: str, name: str):
    checked = check(SourceFile.from_text("spec.ss", text))
    assert not checked.errors, [d.message for d in checked.errors]
    return export_spec(checked, name)


def kinds(spec, name: str) -> list[tuple]:
    item = next(item for item in spec.inputs if item.name == name)
    return [(axis.kind, axis.dim, axis.factor, axis.offset) for axis in item.axes]


def test_generic_axes_are_dims_shared_wherever_they_appear() -> None:
    spec = spec_of("fn f(x: [n D], m: [n n] Mask) -> [n D] = x\ndim D = 4\n", "f")
    assert kinds(spec, "x") == [("dim", "n", 1, 0), ("static", None, 1, 0)]
    assert kinds(spec, "m") == [("dim", "n", 1, 0), ("dim", "n", 1, 0)]
    assert spec.dims == {"n": 1}


def test_linear_sizes_are_derived_and_others_auto() -> None:
    text = "fn f(a: [16gh], b: [n], c: [n+1], d: [(h w)]) -> [n] = b\n"
    spec = spec_of(text, "f")
    assert kinds(spec, "a") == [("derived", "gh", 16, 0)]
    assert kinds(spec, "c") == [("derived", "n", 1, 1)]
    assert kinds(spec, "d")[0][0] == "auto"


def test_a_derived_dim_with_a_negative_offset_starts_where_the_size_is_one() -> None:
    spec = spec_of("fn f(a: [n], b: [n-2]) -> [n] = a\n", "f")
    assert spec.dims == {"n": 3}


def test_example_sizes_differ_from_every_other_size() -> None:
    spec = spec_of(ATTENTION, "causal_attention")
    sizes = [axis.example for item in spec.inputs for axis in item.axes]
    b, n = (axis.example for axis in spec.inputs[0].axes[:2])
    assert b != n
    assert sizes.count(b) == 1 and sizes.count(n) == 1
    assert 8 not in (b, n) and 24 not in (b, n)


def test_examples_of_a_derived_axis_avoid_the_static_sizes() -> None:
    spec = spec_of("fn f(a: [2n], b: [4]) -> [4] = b\n", "f")
    (axis,) = spec.inputs[0].axes
    assert axis.example not in (4,) and axis.example % 2 == 0


def test_domains_and_dtypes_come_from_the_types() -> None:
    text = "dim V = 5\nfn f(ids: [n] Index[V], p: [n V] Prob over V, m: [n] Mask) -> [n] Mask = m\n"
    spec = spec_of(text, "f")
    ids, p, m = spec.inputs
    assert (ids.domain, ids.size, ids.dtype) == ("Index", 5, "i64")
    assert (p.domain, p.over) == ("Prob", 1)
    assert m.dtype == "bool"


def test_host_scalars_with_defaults_are_fixed() -> None:
    spec = spec_of("fn f(x: [n], k: float = 2.0) -> [n] = x * k\n", "f")
    assert [item.name for item in spec.inputs] == ["x"]
    assert spec.fixed == ["k"]


def test_a_parameter_without_a_shape_has_no_spec() -> None:
    with pytest.raises(SpecError, match="`k`"):
        spec_of("fn f(x: [n], k: int) -> [n] = x * k\n", "f")


def test_describe_says_which_axes_vary() -> None:
    text = describe(spec_of(ATTENTION, "causal_attention"))
    assert "`x`: b Dim, n Dim, D static (f32)" in text
