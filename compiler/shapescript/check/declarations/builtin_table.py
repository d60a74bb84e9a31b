"""The built-in operations that the checker types by its own rules, as data.

Prelude stubs (`exp`, `gelu`, `linear`, ...) are not here: they are ordinary `extern fn`
declarations in `prelude.ss` and `nn.ss`. What is here is everything whose typing needs a
rule of its own: reductions, operations along an axis, elementwise built-ins, pattern
operations, `matmul`, `causal`, host effects, training, iterator stages and dataset stages.

Each entry carries its signature in the notation of the generated `builtins.ss` (see
`builtins_ss`), a short summary and an example for hovers and completion, and the facts the
checker needs to match arguments: parameter names in order, which of them are required,
how `over=` is taken, which parameters must be given by name or by position, whether the
operation takes any number of arguments, and how many results it gives.
"""

from __future__ import annotations

import re
import textwrap

from shapescript.records import record

KINDS: frozenset[str] = frozenset(
    {
        "reduction",
        "along_axis",
        "elementwise",
        "pattern",
        "matmul",
        "mask",
        "special",
        "iterator",
        "dataset",
        "training",
    }
)

OVER_MODES: frozenset[str] = frozenset({"required", "optional", "none"})

#: `results` of an operation whose number of results the call decides (`split`, `load`).
VARIABLE_RESULTS = -1


@record(frozen=True)
class Builtin:
    """One built-in operation.

    `signature` is documentation in `builtins.ss` notation, not something to parse.
    For a variadic operation, the parameter written `name: T...` in the signature takes any
    number of positional arguments; it is in `required` when at least one is needed.
    `results` is 1 for most operations, 2 for `topk` and `value_and_grad`, 0 for those
    with no result, and `VARIABLE_RESULTS` when the call decides.
    """

    name: str
    kind: str
    signature: str
    summary: str
    example: str
    params: tuple[str, ...]
    required: tuple[str, ...]
    over: str
    results: int = 1
    variadic: bool = False
    #: Parameters that may only be given by name (`over=`, `seed=`, `lr=`, ...).
    keyword_only: tuple[str, ...] = ()
    #: Parameters that may only be given by position (`update`'s three, `save`'s path, ...).
    positional_only: tuple[str, ...] = ()
    #: Whether `name=size` keywords may give sizes to new names of the pattern.
    size_keywords: bool = False
    #: What each parameter means, by name, for the ones that need saying (an optimizer's
    #: options): shown by completion, signature help, hovers and `builtins.ss`.
    param_docs: tuple[tuple[str, str], ...] = ()

    def param_doc(self, param: str) -> str | None:
        """What the parameter `param` means, if the table says."""
        return dict(self.param_docs).get(param)

    @property
    def documentation(self) -> str:
        """The summary, then what each documented parameter means, as Markdown."""
        if not self.param_docs:
            return self.summary
        options = "\n".join(f"- `{name}`: {doc}" for name, doc in self.param_docs)
        return f"{self.summary}\n\n{options}"


def _reduction(name: str, returns: str, summary: str, example: str, x: str = "[... n]") -> Builtin:
    return Builtin(
        name=name,
        kind="reduction",
        signature=f"fn {name}(x: {x}, over: Axis[n] = none) -> {returns}",
        summary=summary,
        example=example,
        params=("x", "over"),
        required=("x",),
        over="optional",
        keyword_only=("over",),
    )


def _along(
    name: str,
    signature: str,
    summary: str,
    example: str,
    params: tuple[str, ...] = ("x", "over"),
    results: int = 1,
    variadic: bool = False,
) -> Builtin:
    return Builtin(
        name=name,
        kind="along_axis",
        signature=signature,
        summary=summary,
        example=example,
        params=params,
        required=params,
        over="required",
        results=results,
        variadic=variadic,
        keyword_only=("over",),
    )


def _elementwise(
    name: str,
    signature: str,
    summary: str,
    example: str,
    params: tuple[str, ...] = ("x",),
    required: tuple[str, ...] | None = None,
) -> Builtin:
    return Builtin(
        name=name,
        kind="elementwise",
        signature=signature,
        summary=summary,
        example=example,
        params=params,
        required=params if required is None else required,
        over="none",
    )


_REDUCTIONS: tuple[Builtin, ...] = (
    _reduction(
        "sum",
        "[...]",
        "Adds up the values along the axis `over` names, removing it; without `over=` it adds "
        "every value into a `[]`. Only the sign of the range survives; booleans and integers "
        "give i64.",
        "sum(x, over=D)  # [b n], for x: [b n D]",
    ),
    _reduction(
        "mean",
        "[...]",
        "The average along `over`, removing the axis; without `over=`, the average of every "
        "value. Integers give the default float, and a mean over another axis keeps a "
        "`Prob over C`.",
        "mean(h, over=b)  # [D], for h: [b D]",
    ),
    _reduction(
        "max",
        "[...]",
        "The largest value along `over`, removing the axis (the values only; `argmax` gives "
        "positions); without `over=`, the largest of all. The range is kept.",
        "max(scores, over=m)  # [b H n], for scores: [b H n m]",
    ),
    _reduction(
        "min",
        "[...]",
        "The smallest value along `over`, removing the axis (the values only; `argmin` gives "
        "positions); without `over=`, the smallest of all. The range is kept.",
        "min(x, over=n)  # [b D], for x: [b n D]",
    ),
    _reduction(
        "prod",
        "[...]",
        "Multiplies the values along `over` together, removing the axis; without `over=`, "
        "all of them. Only the sign of the range survives; booleans and integers give i64.",
        "prod(x, over=k)  # [b], for x: [b k]",
    ),
    _reduction(
        "std",
        "[...] NonNeg",
        "The standard deviation along `over` (with torch's default correction of 1), "
        "removing the axis; without `over=`, of every value.",
        "std(x, over=n)  # [b D] NonNeg, for x: [b n D]",
    ),
    _reduction(
        "var",
        "[...] NonNeg",
        "The variance along `over` (with torch's default correction of 1), removing the "
        "axis; without `over=`, of every value.",
        "var(x, over=n)  # [b D] NonNeg, for x: [b n D]",
    ),
    _reduction(
        "norm",
        "[...] NonNeg",
        "The Euclidean norm $\\sqrt{\\sum x^2}$ along `over`, removing the axis; without "
        "`over=`, of every value. Also takes a gradient: `norm(g)` is one `[] NonNeg` for all "
        "of a `Grad[M]`'s values together.",
        "norm(x, over=D)  # [b n] NonNeg, for x: [b n D]",
    ),
    _reduction(
        "logsumexp",
        "[...]",
        "$\\log \\sum e^x$ along `over`, computed without overflow, removing the axis; "
        "without `over=`, of every value. It is at least the lowest value of its input.",
        "logsumexp(z, over=C)  # [b], for z: [b C]",
    ),
    _reduction(
        "any",
        "[...] Mask",
        "Whether any value of a Mask is true along `over`, removing the axis; without "
        "`over=`, a `[] Mask` for the whole mask, as an `if` condition needs.",
        "any(ids == 0, over=n)  # [b] Mask, for ids: [b n]",
        x="[... n] Mask",
    ),
    _reduction(
        "all",
        "[...] Mask",
        "Whether every value of a Mask is true along `over`, removing the axis; without "
        "`over=`, a `[] Mask` for the whole mask, as an `if` condition needs.",
        "all(x > 0.0, over=D)  # [b] Mask, for x: [b D]",
        x="[... n] Mask",
    ),
)

_ALONG_AXIS: tuple[Builtin, ...] = (
    _along(
        "softmax",
        "fn softmax(x: [... n] Logit over n, over: Axis[n]) -> [... n] Prob over n",
        "Turns logits into probabilities along `over`: $e^{x_i} / \\sum_j e^{x_j}$. The input "
        "must be logits, so a softmax of probabilities is an error.",
        "softmax(scores, over=m)  # [b H n m] Prob over m",
    ),
    _along(
        "log_softmax",
        "fn log_softmax(x: [... n] Logit over n, over: Axis[n]) -> [... n] LogProb over n",
        "The logarithm of the softmax along `over`, computed stably: log-probabilities that "
        "are never positive.",
        "log_softmax(z, over=C)  # [b C] LogProb over C",
    ),
    _along(
        "cumsum",
        "fn cumsum(x: [... n], over: Axis[n]) -> [... n]",
        "Running totals along `over`: each position holds the sum of the values up to and "
        "including it. Only the sign of the range survives; integers give i64.",
        "cumsum(x, over=n)  # [b n], for x: [b n]",
    ),
    _along(
        "cumprod",
        "fn cumprod(x: [... n], over: Axis[n]) -> [... n]",
        "Running products along `over`: each position holds the product of the values up to "
        "and including it. Only the sign of the range survives; integers give i64.",
        "cumprod(x, over=n)  # [b n], for x: [b n]",
    ),
    _along(
        "sort",
        "fn sort(x: [... n], over: Axis[n]) -> [... n]",
        "The values along `over` in ascending order, as one result (no positions; "
        "`argsort` gives those). For descending order, sort the negated values.",
        "sort(x, over=n)  # [b n], for x: [b n]",
    ),
    _along(
        "argsort",
        "fn argsort(x: [... n], over: Axis[n]) -> [... n] Index[n]",
        "The positions along `over` that put the values in ascending order.",
        "argsort(x, over=n)  # [b n] Index[n], for x: [b n]",
    ),
    _along(
        "argmax",
        "fn argmax(x: [... n], over: Axis[n]) -> [...] Index[n]",
        "The position of the largest value along `over`, removing the axis.",
        "argmax(z, over=C)  # [b] Index[C], for z: [b C]",
    ),
    _along(
        "argmin",
        "fn argmin(x: [... n], over: Axis[n]) -> [...] Index[n]",
        "The position of the smallest value along `over`, removing the axis.",
        "argmin(d, over=m)  # [n] Index[m], for d: [n m]",
    ),
    _along(
        "topk",
        "fn topk(x: [... n], k: int, over: Axis[n]) -> ([... k], [... k] Index[n])",
        "The k largest values along `over`, largest first, and their positions: two results, "
        "bound to two names. k is a number, dim or axis size no larger than n (an int known "
        "only at run time gives an unknown size).",
        "v, i = topk(z, 5, over=C)  # [b 5], [b 5] Index[C], for z: [b C]",
        params=("x", "k", "over"),
        results=2,
    ),
    _along(
        "cross_entropy",
        "fn cross_entropy(z: [... C] Logit over C, y: [...] Index[C], over: Axis[C]) -> [] NonNeg",
        "The cross-entropy loss of logits z against class indices y, the classes along "
        "`over`: $-\\log \\operatorname{softmax}(z)_y$, averaged over every other position. "
        "z must be logits, not probabilities.",
        "cross_entropy(logits, labels, over=C)  # [] NonNeg, for logits: [b C]",
        params=("z", "y", "over"),
    ),
    _along(
        "cat",
        "fn cat(xs: [... n]..., over: Axis[n]) -> [... N]",
        "Joins tensors end to end along `over`; the joined axis N is the sum of their sizes. "
        "The other axes line up by position, and a Mask can't be joined with numbers.",
        "cat(x, y, over=n)  # [b 2*n D], for x and y: [b n D]",
        params=("xs", "over"),
        variadic=True,
    ),
    _along(
        "stack",
        "fn stack(xs: [...]..., over: Axis[k]) -> [k ...]",
        "Stacks tensors of one shape along a new first axis, which `over` names; a new name "
        "there becomes an axis whose size is the number of tensors.",
        "stack(q, k, v, over=s)  # [s b n D] with s = 3, for q, k and v: [b n D]",
        params=("xs", "over"),
        variadic=True,
    ),
    _along(
        "gather",
        "fn gather(x: [... n], idx: [... m] Index[n], over: Axis[n]) -> [... m]",
        "Picks values of x along `over` at the positions idx holds, as torch.gather does: "
        "the result has idx's shape, and the other axes line up by position.",
        "gather(z, y, over=C)  # [b 1], for z: [b C] and y: [b 1] Index[C]",
        params=("x", "idx", "over"),
    ),
    _along(
        "scatter",
        "fn scatter(x: [... n], idx: [... m] Index[n], src: [... m], over: Axis[n]) -> [... n]",
        "A copy of x with the values of src written along `over` at the positions idx holds, "
        "as torch.scatter does; x and src must have the same dtype.",
        "scatter(x, idx, src, over=n)  # [b n], for x: [b n], idx: [b k] Index[n], src: [b k]",
        params=("x", "idx", "src", "over"),
    ),
)

_ELEMENTWISE: tuple[Builtin, ...] = (
    _elementwise(
        "masked_fill",
        "fn masked_fill(x: [...], mask: [...] Mask, value: float) -> [...]",
        "A copy of x holding value (often `-inf`) wherever mask is true. The mask broadcasts "
        "to x's shape without adding axes, and logits stay logits.",
        "masked_fill(scores, !causal[n m], -inf)  # [b H n m], for scores: [b H n m]",
        params=("x", "mask", "value"),
    ),
    _elementwise(
        "abs",
        "fn abs(x: Real) -> NonNeg",
        "The absolute value $|x|$ of each value.",
        "abs(x - y)  # [b D] NonNeg",
    ),
    _elementwise(
        "square",
        "fn square(x: Real) -> NonNeg",
        "Each value times itself, $x^2$.",
        "square(h - mu)  # [b D] NonNeg",
    ),
    _elementwise(
        "pow",
        "fn pow(x: Real, p: Real) -> Real",
        "$x^p$ for each value (ShapeScript has no `**` operator). The range is tracked for "
        "exponents 1 and 2, or a base that is never negative.",
        "pow(x, 3)  # [b D]",
        params=("x", "p"),
    ),
    _elementwise(
        "clamp",
        "fn clamp(x: Real, lo: Real = none, hi: Real = none) -> Real",
        "Limits each value to $[\\mathit{lo}, \\mathit{hi}]$; either end may be left out.",
        "x |> clamp(0.0, 1.0)  # [b D] Unit",
        params=("x", "lo", "hi"),
        required=("x",),
    ),
    _elementwise(
        "maximum",
        "fn maximum(a: Real, b: Real) -> Real",
        "The larger of a and b at each position, broadcasting as `+` does.",
        "maximum(x, 0.0)  # [b D] NonNeg",
        params=("a", "b"),
    ),
    _elementwise(
        "minimum",
        "fn minimum(a: Real, b: Real) -> Real",
        "The smaller of a and b at each position, broadcasting as `+` does.",
        "minimum(x, 1.0)  # [b D]",
        params=("a", "b"),
    ),
    _elementwise(
        "where",
        "fn where(cond: Mask, a: Real, b: Real) -> Real",
        "a where cond is true and b where it is false, the three broadcast together. The "
        "range covers both a's and b's, and logits stay logits.",
        "where(keep, x, 0.0)  # [b n D], for keep: [b n D] Mask",
        params=("cond", "a", "b"),
    ),
    _elementwise(
        "relu",
        "fn relu(x: Real) -> NonNeg",
        "$\\max(x, 0)$ for each value: negative values become 0.",
        "relu(x @ w)  # [b H] NonNeg",
    ),
    _elementwise(
        "leaky_relu",
        "fn leaky_relu(x: Real, negative_slope: float = 0.01) -> Real",
        "Each value unchanged where it is at least 0, and multiplied by negative_slope where "
        "it is negative.",
        "leaky_relu(h, negative_slope=0.2)  # [b H]",
        params=("x", "negative_slope"),
        required=("x",),
    ),
    _elementwise(
        "elu",
        "fn elu(x: Real, alpha: float = 1.0) -> Real",
        "Each value unchanged where it is positive, and $\\alpha (e^x - 1)$ elsewhere, so "
        "never below $-\\alpha$.",
        "elu(h)  # [b H]",
        params=("x", "alpha"),
        required=("x",),
    ),
    _elementwise(
        "floor",
        "fn floor(x: Real) -> Real",
        "Each value rounded down to a whole number.",
        "floor(x * 4.0)  # [b D]",
    ),
    _elementwise(
        "ceil",
        "fn ceil(x: Real) -> Real",
        "Each value rounded up to a whole number.",
        "ceil(x * 4.0)  # [b D]",
    ),
    _elementwise(
        "round",
        "fn round(x: Real) -> Real",
        "Each value rounded to the nearest whole number, halves to the even one as torch does.",
        "round(x * 255.0)  # [b D]",
    ),
    _elementwise(
        "add",
        "fn add(a: Real, b: Real) -> Real",
        "`a + b` written as a function, for pipes: `x |> add(y, _)` is `y + x`.",
        "x |> add(y, _)  # [b n D], for x and y: [b n D]",
        params=("a", "b"),
    ),
    _elementwise(
        "sub",
        "fn sub(a: Real, b: Real) -> Real",
        "`a - b` written as a function, for pipes: `p |> sub(1.0, _)` is `1.0 - p`.",
        "p |> sub(1.0, _)  # [b C], for p: [b C]",
        params=("a", "b"),
    ),
    _elementwise(
        "mul",
        "fn mul(a: Real, b: Real) -> Real",
        "`a * b` written as a function, for pipes: `x |> mul(0.5)` is `x * 0.5`.",
        "x |> mul(0.5)  # [b D], for x: [b D]",
        params=("a", "b"),
    ),
    _elementwise(
        "div",
        "fn div(a: Real, b: Real) -> Real",
        "`a / b` written as a function, for pipes, with the same checks on the divisor as `/`.",
        "scores |> div(sqrt(Dh))  # [b H n m], for scores: [b H n m]",
        params=("a", "b"),
    ),
    _elementwise(
        "zeros_like",
        "fn zeros_like(x: [...]) -> [...]",
        "A tensor of zeros with x's shape and dtype.",
        "zeros_like(x)  # [b D], for x: [b D]",
    ),
)

_PATTERNS: tuple[Builtin, ...] = (
    Builtin(
        name="rearrange",
        kind="pattern",
        signature="fn rearrange(x: [...], pattern: Pattern, name=size...) -> [...]",
        summary="Reorders, groups and ungroups axes as the pattern says, moving values without "
        "computing anything; the output side's names name the result's axes.",
        example="rearrange(x, b n (h d) -> b h n d, h=12)  # [b h n d], for x: [b n D]",
        params=("x", "pattern"),
        required=("x", "pattern"),
        over="none",
        size_keywords=True,
    ),
    Builtin(
        name="reduce",
        kind="pattern",
        signature="fn reduce(x: [...], pattern: Pattern, reduction: Reduction, name=size...) "
        "-> [...]",
        summary="Like rearrange, except that input names missing from the output are reduced "
        "with the reduction, a bare name: sum, mean, max, min or prod.",
        example="reduce(x, b n D -> b D, mean)  # [b D], for x: [b n D]",
        params=("x", "pattern", "reduction"),
        required=("x", "pattern", "reduction"),
        over="none",
        size_keywords=True,
    ),
    Builtin(
        name="repeat",
        kind="pattern",
        signature="fn repeat(x: [...], pattern: Pattern, name=size...) -> [...]",
        summary="Like rearrange, except that the output may have new axes, along which the "
        "values are copied; each new name needs its size as a keyword.",
        example="repeat(x, n D -> n r D, r=3)  # [n r D], for x: [n D]",
        params=("x", "pattern"),
        required=("x", "pattern"),
        over="none",
        size_keywords=True,
    ),
    Builtin(
        name="einsum",
        kind="pattern",
        signature="fn einsum(xs: [...]..., pattern: Pattern) -> [...]",
        summary="Multiplies its operands and sums over the names missing from the output, as "
        "the pattern says; the pattern follows the last operand after a colon. No groups or "
        "numbers, and one dtype for all operands.",
        example="einsum(q, k: b H n Dh, b H m Dh -> b H n m)  # [b H n m]",
        params=("xs", "pattern"),
        required=("xs", "pattern"),
        over="none",
        variadic=True,
    ),
    Builtin(
        name="split",
        kind="pattern",
        signature="fn split(x: [...], pattern: Pattern, name=size...) -> ([...], ...)",
        summary="Cuts an axis into equal parts: the one number on the input side says how "
        "many, and the call is bound to that many names.",
        example="q, k, v = split(x, b n (3 H Dh) -> b H n Dh)  # three [b H n Dh]",
        params=("x", "pattern"),
        required=("x", "pattern"),
        over="none",
        results=VARIABLE_RESULTS,
        size_keywords=True,
    ),
    Builtin(
        name="matmul",
        kind="matmul",
        signature="fn matmul(x: [...], y: [...]) -> [...]",
        summary="The matrix product `x @ y`: x's last axis is contracted with y's "
        "second-to-last (or only) axis, and the leading axes broadcast. Both operands need "
        "the same dtype.",
        example="x |> matmul(m.w1)  # [b H], for x: [b D] and m.w1: [D H]",
        params=("x", "y"),
        required=("x", "y"),
        over="none",
    ),
)

_SPECIAL: tuple[Builtin, ...] = (
    Builtin(
        name="causal",
        kind="mask",
        signature="fn causal(n: Axis[n], m: Axis[m]) -> [n m] Mask",
        summary="Written `causal[n m]`, with two axis names in brackets: a Mask that is true "
        "where the m index is at most the n index, so each position sees itself and earlier "
        "ones.",
        example="causal[n m]  # [n m] Mask",
        params=("n", "m"),
        required=("n", "m"),
        over="none",
    ),
    Builtin(
        name="positions",
        kind="mask",
        signature="fn positions(n: Axis[n]) -> [n] Index[n]",
        summary="The positions along an axis, 0 to n - 1, as a `[n] Index[n]` on the declared "
        "device: given an axis name in scope or a dim, by position. Being along `n`, they "
        "broadcast by name, so a table of position embeddings adds to `[b n D]` features.",
        example="embedding(ids, m.wte) + m.wpe[positions(n)]  # [b n D], for ids: [b n]",
        params=("n",),
        required=("n",),
        over="none",
        positional_only=("n",),
    ),
    Builtin(
        name="print",
        kind="special",
        signature="fn print(xs: Any...)",
        summary="Prints its arguments separated by spaces, as Python's print does: tensors "
        "(copied to the CPU), host scalars, strings, models and logs records. Arguments by "
        "position only; no result.",
        example='print("loss", l)  # no result',
        params=("xs",),
        required=(),
        over="none",
        results=0,
        variadic=True,
        positional_only=("xs",),
    ),
    Builtin(
        name="save",
        kind="special",
        signature="fn save(path: str, values: Any...)",
        summary="Writes a checkpoint to path, replacing the file: models, optimizer state and "
        "host scalars, in order, all by position. No result.",
        example='save("ckpt.pt", m, opt, epoch + 1)  # no result',
        params=("path", "values"),
        required=("path", "values"),
        over="none",
        results=0,
        variadic=True,
        positional_only=("path", "values"),
    ),
    Builtin(
        name="load",
        kind="special",
        signature="fn load(path: str, types: Type...) -> (Any, ...)",
        summary="Reads a checkpoint back as the types listed after the path (a model, "
        "`AdamW[M]` or `SGD[M]` state, int, float or bool), giving one value per type.",
        example='m, opt, done = load("ckpt.pt", Mlp, AdamW[Mlp], int)  # Mlp, AdamW[Mlp], int',
        params=("path", "types"),
        required=("path", "types"),
        over="none",
        results=VARIABLE_RESULTS,
        variadic=True,
        positional_only=("path", "types"),
    ),
)

_TRAINING: tuple[Builtin, ...] = (
    Builtin(
        name="value_and_grad",
        kind="training",
        signature="fn value_and_grad(f: Function, m: Model, args: Any...) -> ([], Grad[Model])",
        summary="Calls `f(m, args...)`, whose result is a `[]` of floats such as a loss, and "
        "gives that value and its gradient with respect to m's params: two results.",
        example="l, g = value_and_grad(loss, m, x, y)  # [] NonNeg, Grad[Mlp]",
        params=("f", "m", "args"),
        required=("f", "m"),
        over="none",
        results=2,
        variadic=True,
    ),
    Builtin(
        name="update",
        kind="training",
        signature="fn update(mut m: Model, mut opt: Optimizer[Model], g: Grad[Model])",
        summary="Takes one optimizer step on m with the gradient g, at the learning rate opt's "
        "schedule gives for the steps so far, and counts it. Arguments by position; no "
        "result.",
        example="update(mut m, mut opt, g)  # no result",
        params=("m", "opt", "g"),
        required=("m", "opt", "g"),
        over="none",
        results=0,
        positional_only=("m", "opt", "g"),
    ),
    Builtin(
        name="sgd",
        kind="training",
        signature="fn sgd(m: Model, lr: Schedule, momentum: float = 0.0, "
        "dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = false, "
        'maximize: bool = false, no_decay: str = "", lr_scale: str = "") -> SGD[Model]',
        summary="New SGD state for every param of m. lr, a number or a Schedule, is required; "
        "it and the other settings are given by name, with PyTorch's defaults. no_decay lists "
        "the params without weight decay (field paths, or `vectors` for every param of fewer "
        "than two axes) and lr_scale gives params a factor of lr (`wte=0.1`).",
        example="sgd(m, lr=0.1, momentum=0.9)  # SGD[Mlp]",
        params=(
            "m",
            "lr",
            "momentum",
            "dampening",
            "weight_decay",
            "nesterov",
            "maximize",
            "no_decay",
            "lr_scale",
        ),
        required=("m", "lr"),
        over="none",
        keyword_only=(
            "lr",
            "momentum",
            "dampening",
            "weight_decay",
            "nesterov",
            "maximize",
            "no_decay",
            "lr_scale",
        ),
        positional_only=("m",),
        param_docs=(
            ("m", "the model whose params the state covers, by position"),
            ("lr", "the learning rate: a number, or a Schedule such as `cosine(0.1, steps)`"),
            ("momentum", "the momentum factor; 0.0 is plain SGD"),
            ("dampening", "how much of each new gradient the momentum leaves out"),
            ("weight_decay", "an L2 penalty: `weight_decay * param` is added to each gradient"),
            ("nesterov", "Nesterov momentum (needs momentum > 0 and dampening 0)"),
            ("maximize", "step up the gradient instead of down"),
        ),
    ),
    Builtin(
        name="adamw",
        kind="training",
        signature="fn adamw(m: Model, lr: Schedule, beta1: float = 0.9, beta2: float = 0.999, "
        "eps: float = 1e-8, weight_decay: float = 0.01, amsgrad: bool = false, "
        'maximize: bool = false, fused: bool = false, no_decay: str = "", lr_scale: str = "") '
        "-> AdamW[Model]",
        summary="New AdamW state (moments and a step count) for every param of m. lr, a "
        "number or a Schedule, is required; it and the other settings are given by name, with "
        "PyTorch's defaults. no_decay lists the params without weight decay (`vectors`: biases and "
        "norm weights) and lr_scale gives params a factor of lr (`wte=0.1`).",
        example='adamw(m, lr=warmup(100, cosine(3e-4, steps)), no_decay="vectors")  # AdamW[Mlp]',
        params=(
            "m",
            "lr",
            "beta1",
            "beta2",
            "eps",
            "weight_decay",
            "amsgrad",
            "maximize",
            "fused",
            "no_decay",
            "lr_scale",
        ),
        required=("m", "lr"),
        over="none",
        keyword_only=(
            "lr",
            "beta1",
            "beta2",
            "eps",
            "weight_decay",
            "amsgrad",
            "maximize",
            "fused",
            "no_decay",
            "lr_scale",
        ),
        positional_only=("m",),
        param_docs=(
            ("m", "the model whose params the state covers, by position"),
            ("lr", "the learning rate: a number, or a Schedule such as `cosine(3e-4, steps)`"),
            (
                "beta1",
                "decay of the running mean of gradients (the first moment); PyTorch's "
                "`betas=(beta1, beta2)` is written `beta1=0.9, beta2=0.95`",
            ),
            (
                "beta2",
                "decay of the running mean of squared gradients (the second moment), the "
                "second of PyTorch's betas",
            ),
            ("eps", "added to the denominator, for numerical stability"),
            (
                "weight_decay",
                "decoupled weight decay: each step also shrinks every param by "
                "`lr * weight_decay` of itself",
            ),
            ("amsgrad", "keep the largest second moment seen so far (the AMSGrad variant)"),
            ("maximize", "step up the gradient instead of down"),
            (
                "fused",
                "step with PyTorch's fused kernel (`torch.optim.AdamW(fused=True)`) where the "
                "device has one: faster, and the fused kernel's numbers, which differ from the "
                "default AdamW's in the last bits",
            ),
        ),
    ),
    Builtin(
        name="clip_norm",
        kind="training",
        signature="fn clip_norm(g: Grad[Model], max_norm: float) -> Grad[Model]",
        summary="Scales a gradient down so that the norm of all its values together is at most "
        "max_norm, the factor being `min(1, max_norm / (norm(g) + 1e-6))`.",
        example="g |> clip_norm(1.0)  # Grad[Mlp]",
        params=("g", "max_norm"),
        required=("g", "max_norm"),
        over="none",
    ),
    Builtin(
        name="cosine",
        kind="training",
        signature="fn cosine(peak: float, steps: int, end: float = 0.0) -> Schedule",
        summary="A learning rate that starts at peak, falls along half a cosine to end at step "
        "`steps`, and stays at end from then on.",
        example="cosine(3e-4, 10000)  # Schedule",
        params=("peak", "steps", "end"),
        required=("peak", "steps"),
        over="none",
        param_docs=(
            ("peak", "the learning rate at step 0"),
            ("steps", "the step at which the rate reaches end (at least 1)"),
            ("end", "the learning rate from step `steps` on"),
        ),
    ),
    Builtin(
        name="warmup",
        kind="training",
        signature="fn warmup(steps: int, then: Schedule) -> Schedule",
        summary="A learning rate that climbs in a straight line from 0 for `steps` steps, then "
        "follows then (a number or a schedule) as if from its step 0.",
        example="warmup(100, cosine(3e-4, 10000))  # Schedule",
        params=("steps", "then"),
        required=("steps", "then"),
        over="none",
        param_docs=(
            ("steps", "how many steps the rate climbs from 0 (0 or more)"),
            ("then", "the rate after the warm-up, a number or a Schedule started at its step 0"),
        ),
    ),
    Builtin(
        name="Train",
        kind="training",
        signature="fn Train(seed: int) -> Mode",
        summary="The training mode: random operations such as dropout draw from the seed, "
        "which is given by name.",
        example="forward(m, x, Train(seed=step))  # Train(seed=step) is a Mode",
        params=("seed",),
        required=("seed",),
        over="none",
        keyword_only=("seed",),
    ),
    Builtin(
        name="Eval",
        kind="training",
        signature="fn Eval() -> Mode",
        summary="The evaluation mode, written `Eval` without parentheses: random operations "
        "do nothing in it.",
        example="forward(m, x, Eval)  # Eval is a Mode",
        params=(),
        required=(),
        over="none",
    ),
)

_ITERATORS: tuple[Builtin, ...] = (
    Builtin(
        name="map",
        kind="iterator",
        signature="fn map(xs: Iteration, f: Function, over: Axis[n] = none) -> [n ...]",
        summary="Computes f for every element at once: the indices of a size or a range, or a "
        "tensor's slices along `over`. The result's first axis is the one iterated.",
        example="x |> map(row => softmax(row @ w, over=C), over=n)  # [n C], for x: [n D]",
        params=("xs", "f", "over"),
        required=("xs", "f"),
        over="optional",
        keyword_only=("over",),
    ),
    Builtin(
        name="filter",
        kind="iterator",
        signature="fn filter(xs: Iteration, f: Function, over: Axis[n] = none) -> [?k ...]",
        summary="Keeps the elements for which f gives a true `[] Mask`; the kept axis has an "
        "unknown size and no name.",
        example="v |> filter(t => t > 0.0)  # [?k], for v: [n]",
        params=("xs", "f", "over"),
        required=("xs", "f"),
        over="optional",
        keyword_only=("over",),
    ),
    Builtin(
        name="zip",
        kind="iterator",
        signature="fn zip(xs: Iteration, other: Iteration, over: Axis[n] = none) -> Iteration",
        summary="Pairs each element with the element at the same index of another iteration "
        "(a size, a range or a tensor); a map or filter must take the pairs apart.",
        example="x |> zip(w, over=n) |> map((row, s) => row * s)  # [n D], for x: [n D], w: [n]",
        params=("xs", "other", "over"),
        required=("xs", "other"),
        over="optional",
        keyword_only=("over",),
    ),
    Builtin(
        name="enumerate",
        kind="iterator",
        signature="fn enumerate(xs: Iteration, over: Axis[n] = none) -> Iteration",
        summary="Pairs each element with its index, an `Index[n]`, index first; a map or "
        "filter must take the pairs apart.",
        example="x |> enumerate(over=n) |> map((i, row) => row * (i to f32))  # [n D]",
        params=("xs", "over"),
        required=("xs",),
        over="optional",
        keyword_only=("over",),
    ),
)

_DATASETS: tuple[Builtin, ...] = (
    Builtin(
        name="shuffle",
        kind="dataset",
        signature="fn shuffle(data: Dataset[E], seed: int) -> Dataset[E]",
        summary="The dataset in an order drawn from the seed, given by name, with a generator "
        "of its own: the same seed always gives the same order. It comes before batches.",
        example="train |> shuffle(seed=epoch)  # Dataset[Digit]",
        params=("data", "seed"),
        required=("data", "seed"),
        over="none",
        keyword_only=("seed",),
    ),
    Builtin(
        name="batches",
        kind="dataset",
        signature="fn batches(data: Dataset[E], n: int) -> Batches[E]",
        summary="Cuts a dataset into batches of n examples for a `for` loop, the last holding "
        "whatever is left; the loop variable is a batch `[b] E`.",
        example="for batch in train |> batches(64):  # batch: [b] Digit",
        params=("data", "n"),
        required=("data", "n"),
        over="none",
    ),
)

BUILTINS: dict[str, Builtin] = {
    builtin.name: builtin
    for group in (
        _REDUCTIONS,
        _ALONG_AXIS,
        _ELEMENTWISE,
        _PATTERNS,
        _SPECIAL,
        _TRAINING,
        _ITERATORS,
        _DATASETS,
    )
    for builtin in group
}

_SECTIONS: tuple[tuple[str, str], ...] = (
    ("reduction", "Reductions. Without over=, every axis is reduced, to []."),
    ("along_axis", "Operations along an axis. over= is required and names the axis."),
    ("elementwise", "Elementwise operations. Operands broadcast by name, as with + - * /."),
    ("pattern", "Pattern operations. A pattern is written as it is, not as a string."),
    ("matmul", "Matrix multiplication."),
    ("mask", "Masks and positions, made from axis names."),
    ("special", "Printing and checkpoints."),
    ("training", "Gradients, optimizers, schedules and modes."),
    ("iterator", "Iterator stages, used in pipes."),
    ("dataset", "Dataset stages, used in pipes."),
)

_HEADER = """\
# builtins.ss: the built-in operations the checker types by its own rules.
#
# Generated from shapescript.check.declarations.builtin_table. It is only for reading: nothing reads
# this file back, and editing it changes nothing. The functions of prelude.ss and nn.ss
# are ordinary extern fn stubs, declared there.
#
# The signatures aren't ShapeScript that parses; they use this notation:
#   [... n]        any axes, the axis n among them, in any position; over= names n
#   [...]          any axes
#   Axis[n]        the name of an axis of the first operand, whose size is n
#   = none         the argument may be left out
#   xs: T...       any number of arguments of type T, by position
#   name=size...   keyword arguments that give sizes to new names of the pattern
#   -> (A, B)      two results, bound to two names; (A, ...) one result per part or type
#   no ->          no result
# Names for things the language has no type for:
#   Function       the name of a fn, or a lambda where a stage takes one
#   Model          a model (Mlp); Grad[Model] is its gradient
#   Optimizer[M]   optimizer state, AdamW[M] or SGD[M]
#   Pattern        a pattern such as b n (h d) -> b h n d
#   Reduction      sum, mean, max, min or prod, written as a bare name
#   Type           a type written as a value, such as Mlp, AdamW[Mlp] or int
#   Iteration      what an iterator stage iterates: a size, a range, a tensor, or pairs
#   E              a data record; Batches[E] is what a for loop over batches gets
#   Any            a value of any kind
"""


_KEEP_TOGETHER = re.compile(r"\$[^$]*\$|`[^`]*`")
_NO_BREAK = "\x00"
_WIDTH = 92


def _doc_lines(text: str) -> list[str]:
    """Wrap a summary into `##` lines, never breaking inside `$...$` math or a code span."""
    glued = _KEEP_TOGETHER.sub(lambda m: m.group().replace(" ", _NO_BREAK), text)
    lines = textwrap.wrap(glued, width=_WIDTH, break_long_words=False, break_on_hyphens=False)
    return [f"## {line.replace(_NO_BREAK, ' ')}" for line in lines]


def split_top_level(text: str) -> list[str]:
    """Split at the commas that aren't inside brackets or parentheses."""
    parts: list[str] = []
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def closing_bracket(text: str, opened: int) -> int | None:
    """Where the bracket or parenthesis opened at `opened` closes, or None."""
    depth = 0
    for index in range(opened, len(text)):
        if text[index] in "([":
            depth += 1
        elif text[index] in ")]":
            depth -= 1
            if depth == 0:
                return index
    return None


def one_parameter_a_line(signature: str) -> str:
    """The signature with each parameter on a line of its own, as nn.ss writes long ones;
    as it is when it has fewer than two parameters."""
    opened = signature.find("(")
    closed = closing_bracket(signature, opened) if opened >= 0 else None
    if closed is None:
        return signature
    params = split_top_level(signature[opened + 1 : closed])
    if len(params) < 2:
        return signature
    body = "".join(f"    {param},\n" for param in params)
    return f"{signature[: opened + 1]}\n{body}{signature[closed:]}"


def _render_signature(signature: str) -> str:
    """One line when it fits, otherwise one parameter per line, as nn.ss writes them."""
    line = f"{signature} = builtin"
    if len(line) <= 100:
        return line
    return f"{one_parameter_a_line(signature)} = builtin"


def builtins_ss() -> str:
    """The text of the read-only `builtins.ss`: every built-in, its docs and its signature."""
    parts = [_HEADER]
    for kind, heading in _SECTIONS:
        members = [b for b in BUILTINS.values() if b.kind == kind]
        if not members:
            continue
        parts.append(f"# {'-' * 20} {heading}\n")
        for builtin in members:
            lines = _doc_lines(builtin.summary)
            for name, doc in builtin.param_docs:
                lines.append("##")
                lines.extend(_doc_lines(f"`{name}`: {doc}"))
            lines.append("##")
            lines.append(f"## Example: `{builtin.example}`")
            lines.append(_render_signature(builtin.signature))
            parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)
