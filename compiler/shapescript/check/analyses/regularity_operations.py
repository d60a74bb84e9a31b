"""The regularity class of each library operation: the lattice's three classes and the
built-ins, prelude and nn.ss functions in each."""

from __future__ import annotations

from shapescript.check.algebra.syntax_facts import PRELUDE_MATH

SMOOTH = 0
PIECEWISE = 1
DISCONTINUOUS = 2
CLASS_NAMES = ("smooth", "piecewise-smooth", "discontinuous")

#: Library operations that are piecewise-smooth in their real arguments: continuous, with
#: kinks where the gradient jumps (torch takes one side there).
PIECEWISE_OPERATIONS = frozenset(
    {
        "relu",
        "leaky_relu",
        "elu",
        "abs",
        "clamp",
        "maximum",
        "minimum",
        "max",
        "min",
        "sort",
        "topk",
        "norm",
        "max_pool2d",
    }
)
#: Library operations whose result is discontinuous in every argument: they pick
#: positions, or round to whole numbers.
DISCONTINUOUS_OPERATIONS = frozenset(
    {"argmax", "argmin", "argsort", "floor", "ceil", "round", "any", "all"}
)
#: Library operations whose result doesn't depend on the values of their arguments.
CONSTANT_OPERATIONS = frozenset({"zeros_like", "causal", "positions", "load"})
#: Library operations that are smooth in their real arguments. Integer and boolean
#: arguments (the labels of cross_entropy, a mask, the ids of embedding) are
#: discontinuous by the type rule, whatever the operation.
SMOOTH_OPERATIONS = frozenset(
    {
        # reductions and operations along an axis
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
        "cross_entropy",
        "cat",
        "stack",
        "gather",
        "scatter",
        # elementwise (a fixed mask only selects values, so where and masked_fill pass
        # their values' class through; the mask's own dependencies are discontinuous)
        "masked_fill",
        "where",
        "square",
        "pow",
        "add",
        "sub",
        "mul",
        "div",
        # patterns and matmul
        "rearrange",
        "reduce",
        "repeat",
        "einsum",
        "split",
        "matmul",
        # prelude.ss
        *PRELUDE_MATH,
        # nn.ss (dropout's mask is drawn from the mode's seed, not from the values)
        "linear",
        "layer_norm",
        "rms_norm",
        "batch_norm",
        "conv2d",
        "avg_pool2d",
        "embedding",
        "scaled_dot_product_attention",
        "dropout",
        # iterator stages, gradient transforms and the rest: their values' classes pass
        # through (map and filter's functions are followed where they are lambdas or fns)
        "map",
        "filter",
        "zip",
        "enumerate",
        "clip_norm",
        "value_and_grad",
    }
)
#: Library operations with no result a loss could be differentiated through.
UNRELATED_OPERATIONS = frozenset(
    {
        "print",
        "save",
        "update",
        "sgd",
        "adamw",
        "cosine",
        "warmup",
        "Train",
        "Eval",
        "shuffle",
        "batches",
    }
)
#: Every library name the analysis classifies; a built-in or library fn missing from it
#: fails `tests/check/analyses/test_regularity.py`.
CLASSIFIED = (
    PIECEWISE_OPERATIONS
    | DISCONTINUOUS_OPERATIONS
    | CONSTANT_OPERATIONS
    | SMOOTH_OPERATIONS
    | UNRELATED_OPERATIONS
)
