"""The built-in table is complete and self-consistent, and the prelude stubs parse."""

from __future__ import annotations

import re
from importlib.resources import files

import pytest

from shapescript.check.declarations.builtin_table import (
    BUILTINS,
    KINDS,
    OVER_MODES,
    VARIABLE_RESULTS,
    Builtin,
    builtins_ss,
)
from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text

# Tables 8a-8e of the reconstructed tables, the small names of decisions.md, and the
# iterator and dataset stages.
EXPECTED_BUILTINS: list[str] = [
    # 8a: reductions
    *("sum", "mean", "max", "min", "prod", "std", "var", "norm", "logsumexp", "any", "all"),
    # 8b: operations along an axis
    *("softmax", "log_softmax", "cumsum", "cumprod", "sort", "argsort", "argmax", "argmin"),
    *("topk", "cross_entropy", "cat", "stack", "gather", "scatter", "masked_fill"),
    # 8c: elementwise
    *("abs", "square", "pow", "clamp", "maximum", "minimum", "where", "relu", "leaky_relu"),
    *("elu", "floor", "ceil", "round", "add", "sub", "mul", "div", "zeros_like"),
    # 8d: patterns and matmul
    *("rearrange", "reduce", "repeat", "einsum", "split", "matmul"),
    # 8e: host effects and special types
    *("causal", "print", "save", "load", "value_and_grad", "update", "sgd", "adamw"),
    *("clip_norm", "cosine", "warmup", "Train", "Eval"),
    # issue 29: the positions along an axis
    "positions",
    # table 12 and table 15: iterator and dataset stages
    *("map", "filter", "zip", "enumerate", "shuffle", "batches"),
]

PRELUDE_NAMES: list[str] = [
    *("exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "erf"),
    *("gelu", "silu", "softplus", "log_sigmoid"),
]

NN_NAMES: list[str] = [
    *("linear", "layer_norm", "rms_norm", "batch_norm", "conv2d", "max_pool2d", "avg_pool2d"),
    *("embedding", "scaled_dot_product_attention", "dropout"),
]

ENTRIES = [pytest.param(builtin, id=name) for name, builtin in BUILTINS.items()]


def _signature_params(signature: str) -> list[str]:
    """The parameter list of a signature, split at top-level commas."""
    start = signature.index("(")
    depth = 0
    for end in range(start, len(signature)):
        if signature[end] in "([":
            depth += 1
        elif signature[end] in ")]":
            depth -= 1
            if depth == 0:
                break
    parts: list[str] = []
    depth = 0
    current = ""
    for char in signature[start + 1 : end]:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def test_covers_exactly_the_listed_operations() -> None:
    assert sorted(BUILTINS) == sorted(EXPECTED_BUILTINS)
    assert len(EXPECTED_BUILTINS) == len(set(EXPECTED_BUILTINS))


def test_transpose_is_left_out() -> None:
    assert "transpose" not in BUILTINS


def test_prelude_stubs_are_not_builtins() -> None:
    assert not set(BUILTINS) & (set(PRELUDE_NAMES) | set(NN_NAMES))


@pytest.mark.parametrize("builtin", ENTRIES)
def test_entry_is_well_formed(builtin: Builtin) -> None:
    assert BUILTINS[builtin.name] is builtin
    assert builtin.summary.strip()
    assert builtin.example.strip()
    assert builtin.signature.startswith(f"fn {builtin.name}(")
    assert builtin.kind in KINDS
    assert builtin.over in OVER_MODES
    assert set(builtin.required) <= set(builtin.params)
    assert set(builtin.keyword_only) <= set(builtin.params)
    assert set(builtin.positional_only) <= set(builtin.params)
    assert not set(builtin.keyword_only) & set(builtin.positional_only)
    assert len(set(builtin.params)) == len(builtin.params)
    assert builtin.results >= 0 or builtin.results == VARIABLE_RESULTS


@pytest.mark.parametrize("builtin", ENTRIES)
def test_signature_lists_the_params_in_order(builtin: Builtin) -> None:
    written = [p for p in _signature_params(builtin.signature) if p != "name=size..."]
    names = [re.match(r"(?:mut )?(\w+)", p).group(1) for p in written]  # type: ignore[union-attr]
    assert names == list(builtin.params)
    for name, text in zip(names, written, strict=True):
        has_default = " = " in text
        is_rest = text.endswith("...")
        if has_default:
            assert name not in builtin.required, text
        elif not is_rest:
            assert name in builtin.required, text


@pytest.mark.parametrize("builtin", ENTRIES)
def test_variadic_entries_write_one_rest_parameter(builtin: Builtin) -> None:
    rest = [p for p in _signature_params(builtin.signature) if re.match(r"\w+: .*\.\.\.$", p)]
    assert len(rest) == (1 if builtin.variadic else 0)


@pytest.mark.parametrize("builtin", ENTRIES)
def test_over_mode_matches_params(builtin: Builtin) -> None:
    if builtin.over == "none":
        assert "over" not in builtin.params
    else:
        assert "over" in builtin.params
        assert "over" in builtin.keyword_only
        assert ("over" in builtin.required) == (builtin.over == "required")


@pytest.mark.parametrize("builtin", ENTRIES)
def test_result_count_matches_signature(builtin: Builtin) -> None:
    returns = builtin.signature.partition(") -> ")[2]
    if builtin.results == 0:
        assert " -> " not in builtin.signature
    elif builtin.results == 2:
        assert returns.startswith("(") and len(_signature_params(f"f{returns}")) == 2
    elif builtin.results == VARIABLE_RESULTS:
        assert returns.startswith("(") and returns.endswith(", ...)")
    else:
        assert returns and not returns.startswith("(")


def test_result_counts_of_note() -> None:
    assert BUILTINS["topk"].results == 2
    assert BUILTINS["value_and_grad"].results == 2
    assert BUILTINS["sort"].results == 1
    for name in ("print", "save", "update"):
        assert BUILTINS[name].results == 0
    for name in ("cat", "stack", "print"):
        assert BUILTINS[name].variadic


def test_builtins_ss_mentions_every_builtin() -> None:
    text = builtins_ss()
    assert "generated" in text.lower()
    for name in ("Function", "Model", "Pattern", "Reduction", "Type", "Any"):
        assert re.search(rf"^#\s+{name}\b", text, re.MULTILINE), name
    for name, builtin in BUILTINS.items():
        assert f"fn {name}(" in text
        assert builtin.example in text


def test_builtins_ss_doc_lines_keep_math_and_code_on_one_line() -> None:
    for line in builtins_ss().splitlines():
        if line.startswith("##"):
            assert line.count("$") % 2 == 0, line
            assert line.count("`") % 2 == 0, line


def _parse_stub_file(name: str) -> ast.Module:
    text = files("shapescript").joinpath(name).read_text(encoding="utf-8")
    result = parse_text(text, path=name)
    assert result.diagnostics == [], [d.message for d in result.diagnostics]
    return result.module


@pytest.mark.parametrize(("file", "names"), [("prelude.ss", PRELUDE_NAMES), ("nn.ss", NN_NAMES)])
def test_stub_file_parses_and_declares_its_names(file: str, names: list[str]) -> None:
    module = _parse_stub_file(file)
    assert all(isinstance(item, ast.ExternFnDecl) for item in module.items)
    declared = [item.name for item in module.items if isinstance(item, ast.ExternFnDecl)]
    assert declared == names
    for item in module.items:
        assert isinstance(item, ast.ExternFnDecl)
        assert item.doc is not None and item.doc.text.strip(), item.name
        assert len(item.doc.text.splitlines()) <= 2, item.name
        assert item.python_path is not None and item.return_type is not None, item.name


def test_prelude_stubs_take_one_real_and_name_their_torch_function() -> None:
    module = _parse_stub_file("prelude.ss")
    domains = {"Real", "NonNeg", "Pos", "Unit", "Signed"}
    for item in module.items:
        assert isinstance(item, ast.ExternFnDecl)
        (param,) = item.params
        assert param.name == "x" and param.type is not None
        assert [word.name for word in param.type.words] == ["Real"]
        assert item.return_type is not None and item.return_type.shape is None
        assert [word.name for word in item.return_type.words][0] in domains
        assert item.python_path is not None
        assert item.python_path.value.startswith(("torch.", "torch.nn.functional."))
    paths = {item.name: item.python_path.value for item in module.items}  # type: ignore[union-attr]
    assert paths["log_sigmoid"] == "torch.nn.functional.logsigmoid"
    assert paths["gelu"] == "torch.nn.functional.gelu"
    assert paths["exp"] == "torch.exp"
