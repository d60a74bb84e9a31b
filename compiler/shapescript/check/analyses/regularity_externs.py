"""The regularity class of what the analysis can't look into: Python functions, called
through an `extern fn` or an `import python` module.

A Python function's class comes from its dotted name where the checker knows it (the table
below: torch's functions that the prelude's stubs and the built-ins stand for, and a few
common others), else from its extern fn's doc comment, which may say
`regularity: smooth` (or `piecewise-smooth`, `discontinuous`). Anything else is counted as
discontinuous, so that a loss through a function no one vouched for is never
differentiated by mistake; E3001's help says how to vouch for it.
"""

from __future__ import annotations

import re

from shapescript.check.analyses.regularity_operations import (
    CLASS_NAMES,
    DISCONTINUOUS,
    PIECEWISE,
    SMOOTH,
)
from shapescript.records import record
from shapescript.syntax import ast

_TORCH_SMOOTH = [
    "exp",
    "exp2",
    "log",
    "log2",
    "log10",
    "log1p",
    "expm1",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "atan",
    "sigmoid",
    "erf",
    "erfc",
    "erfinv",
    "special.erf",
    "special.erfc",
    "special.expit",
    "special.log1p",
    "special.logsumexp",
    "special.log_softmax",
    "special.softmax",
    "special.xlogy",
    "square",
    "pow",
    "matmul",
    "mm",
    "bmm",
    "einsum",
    "sum",
    "mean",
    "prod",
    "std",
    "var",
    "logsumexp",
    "softmax",
    "log_softmax",
    "cumsum",
    "cumprod",
    "cat",
    "stack",
    "add",
    "sub",
    "mul",
    "div",
    "reciprocal",
    "neg",
    "lerp",
    "addmm",
    "outer",
    "linalg.matmul",
]
_FUNCTIONAL_SMOOTH = [
    "gelu",
    "silu",
    "softplus",
    "logsigmoid",
    "mish",
    "tanh",
    "sigmoid",
    "softmax",
    "log_softmax",
    "softmin",
    "linear",
    "bilinear",
    "layer_norm",
    "rms_norm",
    "group_norm",
    "batch_norm",
    "instance_norm",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "avg_pool1d",
    "avg_pool2d",
    "adaptive_avg_pool2d",
    "scaled_dot_product_attention",
    "cross_entropy",
    "nll_loss",
    "mse_loss",
    "kl_div",
    "binary_cross_entropy_with_logits",
    "cosine_similarity",
    "pad",
    "embedding",
]
_TORCH_PIECEWISE = [
    "relu",
    "abs",
    "clamp",
    "clip",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "amax",
    "amin",
    "norm",
    "linalg.norm",
    "linalg.vector_norm",
]
_FUNCTIONAL_PIECEWISE = [
    "relu",
    "relu6",
    "leaky_relu",
    "elu",
    "selu",
    "celu",
    "hardtanh",
    "hardswish",
    "hardsigmoid",
    "softshrink",
    "hardshrink",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "max_pool1d",
    "max_pool2d",
    "adaptive_max_pool2d",
    "normalize",
]

#: Python functions whose class the checker knows, by dotted name. torch's functions that
#: give indices as well (`torch.max` with a dim, `torch.sort`, `torch.topk`) aren't here:
#: through Python, the indices aren't told apart from the values.
PYTHON_CLASSES: dict[str, int] = {
    **{f"torch.{name}": SMOOTH for name in _TORCH_SMOOTH},
    **{f"torch.nn.functional.{name}": SMOOTH for name in _FUNCTIONAL_SMOOTH},
    **{f"torch.{name}": PIECEWISE for name in _TORCH_PIECEWISE},
    **{f"torch.nn.functional.{name}": PIECEWISE for name in _FUNCTIONAL_PIECEWISE},
    **{
        f"torch.{name}": DISCONTINUOUS
        for name in [
            "argmax",
            "argmin",
            "argsort",
            "round",
            "floor",
            "ceil",
            "trunc",
            "sign",
            "bucketize",
        ]
    },
    "torch.nn.functional.one_hot": DISCONTINUOUS,
    # the prelude's stubs into shapescript.rt
    "shapescript.rt.layer_norm": SMOOTH,
    "shapescript.rt.rms_norm": SMOOTH,
    "shapescript.rt.batch_norm": SMOOTH,
    "shapescript.rt.dropout": SMOOTH,
    "math.exp": SMOOTH,
    "math.log": SMOOTH,
    "math.sqrt": SMOOTH,
}

_DECLARED = re.compile(r"^\s*regularity:\s*(\S+)\s*$", re.MULTILINE)

#: The doc comment line that vouches for a Python function, for E3001's help.
DECLARE_SMOOTH = "## regularity: smooth"


@record(frozen=True)
class PythonClass:
    """What the analysis counts a Python function as: its class, and where that came from
    (`known`: the table; `declared`: the extern's doc comment; neither: assumed)."""

    grade: int
    python: str
    known: bool = False
    declared: bool = False

    @property
    def vouched(self) -> bool:
        return self.known or self.declared


def python_class(python: str) -> PythonClass:
    """A Python function's class by its dotted name: the table's, else discontinuous."""
    grade = PYTHON_CLASSES.get(python)
    if grade is None:
        return PythonClass(DISCONTINUOUS, python)
    return PythonClass(grade, python, known=True)


def declared_class(doc: ast.DocComment | None) -> int | None:
    """The class an extern fn's doc comment declares (`regularity: smooth`), if any."""
    if doc is None:
        return None
    found = _DECLARED.search(doc.text)
    if found is None:
        return None
    word = found.group(1).strip("`.")
    return CLASS_NAMES.index(word) if word in CLASS_NAMES else None


def extern_class(decl: ast.ExternFnDecl) -> PythonClass:
    """An extern fn's class: what its doc comment declares, else its Python function's."""
    python = decl.python_path.value if decl.python_path is not None else ""
    declared = declared_class(decl.doc)
    if declared is not None:
        return PythonClass(declared, python, declared=True)
    return python_class(python)


def unvouched_help(what: str, extern: bool) -> str:
    """E3001's help where the cause is a Python function no one has said is smooth."""
    if extern:
        return (
            f"the checker doesn't know whether {what} is smooth; if it is, say so on a "
            f"line of its extern fn's doc comment: `{DECLARE_SMOOTH}` (or `piecewise-smooth`)"
        )
    return (
        f"the checker doesn't know whether {what} is smooth; give it a type with an "
        f"extern fn, and if it is smooth, a doc comment line `{DECLARE_SMOOTH}` above it"
    )
