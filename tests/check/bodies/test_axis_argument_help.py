"""A tensor passed by position where a library function takes an axis (`layer_norm(x,
ln.weight, ...)`) gets a help line with the function's signature and, for a tensor, which
parameter `over` is and how to pass the weight."""

from __future__ import annotations

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile

HEADER = """dim D = 8

model LayerNorm:
    param weight: [D] = ones
    param bias: [D] = zeros

"""
SIGNATURE = (
    "`fn layer_norm(x: [... D], over: Axis[D], weight: [D] = none, bias: [D] = none, "
    "eps = 1e-5) -> [... D]`"
)


def _error(body: str):
    text = HEADER + body
    (error,) = check(SourceFile.from_text("t.ss", text)).errors
    return error, text


def _spanned(error, text: str) -> str:
    return text[error.span.start : error.span.end]


def test_a_field_on_over_names_the_parameter_and_the_signature() -> None:
    error, text = _error(
        "fn f(ln: LayerNorm, x: [b D]) -> [b D]:\n"
        "    return layer_norm(x, ln.weight, ln.bias, eps=1e-5)\n"
    )
    assert error.code == "E0406"
    assert _spanned(error, text) == "ln.weight"
    assert "`over` is the 2nd parameter; pass the weight as `weight=`" in error.help
    assert SIGNATURE in error.help


def test_a_tensor_name_on_over_names_the_parameter_and_the_signature() -> None:
    error, text = _error(
        "fn g(x: [b D], w: [D], c: [D]) -> [b D]:\n    return layer_norm(x, w, c)\n"
    )
    assert error.code == "E0405"
    assert error.message == "[b D] has no axis `w`"
    assert _spanned(error, text) == "w"
    assert "`over` is the 2nd parameter; pass the weight as `weight=`" in error.help
    assert SIGNATURE in error.help


def test_rms_norms_help_gives_its_own_signature() -> None:
    error, _ = _error("fn k(x: [b D], w: [D]) -> [b D]:\n    return rms_norm(x, w)\n")
    assert error.code == "E0405"
    assert "pass the weight as `weight=`" in error.help
    assert "fn rms_norm(x: [... D], over: Axis[D], weight: [D] = none, eps = 1e-6)" in (error.help)


def test_an_unknown_name_by_position_gets_the_signature_only() -> None:
    error, _ = _error("fn h(x: [b D]) -> [b D]:\n    return layer_norm(x, q)\n")
    assert error.code == "E0405"
    assert SIGNATURE in error.help
    assert "pass the weight" not in error.help


def test_a_wrong_axis_given_by_name_is_unchanged() -> None:
    error, _ = _error("fn h(x: [b D]) -> [b D]:\n    return layer_norm(x, over=q)\n")
    assert error.code == "E0405"
    assert error.help is None
    assert error.notes == ["its named axes are `b`, `D`"]
