"""The attention pattern compiled to one `F.scaled_dot_product_attention` call.

The pattern is a scaled `q·k` einsum, maybe masked (`masked_fill(!mask, -inf)`, with
`causal[n m]` as `is_causal=True`, or an added float mask), then `softmax` over the keys,
then the einsum of those weights with `v`. Its steps may be a pipe's stages or statements
of their own, as long as each intermediate value is bound once, used once (by the next
step) and bound by the statement just before the one that uses it: then nothing else can
see it, and computing the whole pattern where its last einsum is computes the same thing.

`plan` finds every such pattern of a function before its body is compiled (so the
statements it absorbs are left out) and `emit` writes the call in place of the last einsum.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shapescript.check.algebra.syntax_facts import children as _children
from shapescript.check.algebra.types import FunctionType, HostType, TensorType
from shapescript.codegen import builtins, padding
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.declarations.signatures import Signature
    from shapescript.codegen.function import FunctionGenerator

LABEL = "attention as scaled_dot_product_attention"
SDPA = "torch.nn.functional.scaled_dot_product_attention"
FLOATS = ("f16", "bf16", "f32", "f64")
#: The operator each arithmetic built-in stands for, as a pipe stage (`|> div(s)`).
ARITHMETIC = {"div": "/", "mul": "*", "add": "+"}


@dataclass(frozen=True, slots=True)
class _Prefix:
    """The value of a pipe's input after its first `count` stages (count >= 1)."""

    pipe: ast.Pipe
    count: int

    @property
    def span(self) -> Span:
        return self.pipe.stages[self.count - 1].span


@dataclass(slots=True)
class _Op:
    """One step: a built-in's name or an operator, the node its facts are recorded at,
    its operands (a piped one in its place) and keyword arguments."""

    name: str
    node: ast.Call | ast.Binary
    operands: list
    keywords: dict[str, object] = field(default_factory=dict)
    pattern: ast.Pattern | None = None


@dataclass(slots=True)
class Plan:
    """What replaces one attention pattern."""

    q: ast.Expr
    k: ast.Expr
    v: ast.Expr
    #: The `q·k` einsum.
    first: ast.Call
    orders: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    #: `1 / s` for `/ s`, `s` for `* s`; None for no scale, "default" for `/ sqrt(Dh)`.
    scale: tuple[str, ast.Expr] | str | None
    #: "causal" (is_causal), "tril" (causal of two sizes), "bool", "added" or None.
    mask: str | None
    mask_node: ast.Expr | None = None
    mask_plan: tuple[int, ...] | None = None
    mask_result: object = None
    negated: bool = False
    key_padding: str | None = None
    #: q's and k's padded axes (operand, dim, mask), zeroed before the call.
    zeroed: list[tuple[int, int, str]] = field(default_factory=list)


@dataclass(slots=True)
class _Chain:
    """The statements a pattern may absorb: each one before the last absorbed."""

    stmts: list[ast.Stmt]
    cursor: int
    uses: dict[str, int]
    bindings: dict[str, int]
    absorbed: list[ast.Stmt] = field(default_factory=list)

    def resolve(self, value):
        """A name bound by the statement just before, and used only here, as its value."""
        while isinstance(value, ast.Name) and self.cursor >= 0:
            stmt = self.stmts[self.cursor]
            name = value.name
            if not (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and stmt.targets[0].name == name
                and self.uses.get(name) == 1
                and self.bindings.get(name) == 1
            ):
                return value
            self.absorbed.append(stmt)
            self.cursor -= 1
            value = stmt.value
        if isinstance(value, ast.Pipe):
            return _Prefix(value, len(value.stages)) if value.stages else value.input
        return value


# ---------------------------------------------------------------------- finding patterns


def plan(gen: FunctionGenerator) -> None:
    """Find the function's attention patterns: `gen.fused` gets each last einsum's plan,
    `gen.absorbed` the statements the patterns compute (afresh for each body compiled)."""
    gen.fused, gen.absorbed = {}, set()
    if not gen.context.lower or _several_devices(gen):
        return
    decl = gen.decl
    uses, bindings = _names(gen)
    if "einsum" not in uses:
        return
    blocks: list[list[ast.Stmt]] = [decl.body] if decl.body else []
    if decl.expr_body is not None:
        _find(gen, [], -1, [decl.expr_body], uses, bindings)
    while blocks:
        stmts = blocks.pop()
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, ast.If):
                blocks.append(stmt.then_body)
                if stmt.else_body:
                    blocks.append(stmt.else_body)
            elif isinstance(stmt, ast.For):
                blocks.append(stmt.body)
            if id(stmt) not in gen.absorbed:
                _find(gen, stmts, index, _expressions(stmt), uses, bindings)


def _several_devices(gen: FunctionGenerator) -> bool:
    placement = getattr(gen.context.checked, "placement", None)
    return placement is not None and bool(placement.several)


def _expressions(stmt: ast.Stmt) -> list[ast.Expr]:
    if isinstance(stmt, ast.Return):
        return [stmt.value] if stmt.value is not None else []
    if isinstance(stmt, ast.Assign):
        return [stmt.value]
    if isinstance(stmt, ast.ExprStmt):
        return [stmt.expr]
    return []


def _names(gen: FunctionGenerator) -> tuple[dict[str, int], dict[str, int]]:
    """How often each name of the function is used, and bound (parameters, targets,
    lambda parameters): counted once for all its bodies and the causal masks in it."""
    decl = gen.decl
    counted = gen.context.name_counts.get(id(decl))
    if counted is None or counted[0] is not decl:
        uses, bindings = _count_names(decl)
        if "einsum" not in uses:
            # No pattern to find, so no mask to ask about: only that is kept.
            uses = bindings = _NO_EINSUM
        counted = gen.context.name_counts[id(decl)] = (decl, uses, bindings)
    return counted[1], counted[2]


#: The counts kept for a function that never names `einsum`.
_NO_EINSUM: dict[str, int] = {}


#: The nodes that bind a name (a tuple: isinstance is slower with a union).
_BINDINGS = (ast.Target, ast.LambdaParam)


def _count_names(decl: ast.FnDecl) -> tuple[dict[str, int], dict[str, int]]:
    uses: dict[str, int] = {}
    bindings: dict[str, int] = {}
    for param in decl.params:
        bindings[param.name] = bindings.get(param.name, 0) + 1
    stack: list = [*(decl.body or []), *([decl.expr_body] if decl.expr_body else [])]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            uses[node.name] = uses.get(node.name, 0) + 1
        elif isinstance(node, _BINDINGS):
            bindings[node.name] = bindings.get(node.name, 0) + 1
        stack.extend(_children(node))
    return uses, bindings


def _find(gen, stmts, index, roots, uses, bindings) -> None:
    """Plan each einsum in a statement's expressions (not in lambdas) that ends a pattern."""
    stack = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Call) and _builtin(gen, node) == "einsum":
            for probabilities in (0, 1):
                chain = _Chain(stmts, index - 1, uses, bindings)
                found = _match(gen, node, probabilities, chain)
                if found is not None and not _mutates(stmts, index) and _apart(gen, found, node):
                    gen.fused[id(node)] = found
                    gen.absorbed.update(id(stmt) for stmt in chain.absorbed)
                    break
        stack.extend(_children(node))


def _apart(gen: FunctionGenerator, found: Plan, final: ast.Call) -> bool:
    """Whether a pattern shares no einsum with another: one whose `q·k` einsum is another's
    last would read names whose statements the other absorbed."""
    if id(found.first) in gen.fused:
        return False
    return all(id(final) != id(other.first) for other in gen.fused.values())


def _mutates(stmts: list[ast.Stmt], index: int) -> bool:
    """Whether the statement passes anything as `mut` (which could change what a moved
    step reads)."""
    if index < 0:
        return False
    stack: list = [stmts[index]]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Arg) and node.mut:
            return True
        stack.extend(_children(node))
    return False


def _builtin(gen: FunctionGenerator, call: ast.Call) -> str | None:
    callee = call.callee
    if not isinstance(callee, ast.Name) or callee.name in gen.locals:
        return None
    type_ = gen.view.type(callee.span)
    if isinstance(type_, FunctionType) and type_.kind == "builtin":
        return callee.name
    return None


def _op(gen: FunctionGenerator, value) -> _Op | None:
    """A step's operation, or None for anything that isn't a call of a built-in or an
    arithmetic operator."""
    piped = None
    if isinstance(value, _Prefix):
        stage = value.pipe.stages[value.count - 1]
        if not isinstance(stage, ast.Call):
            return None
        piped = _Prefix(value.pipe, value.count - 1) if value.count > 1 else value.pipe.input
        call = stage
    elif isinstance(value, ast.Binary):
        if value.op not in ("/", "*", "+"):
            return None
        return _Op(value.op, value, [value.left, value.right])
    elif isinstance(value, ast.Call):
        call = value
    else:
        return None
    name = _builtin(gen, call)
    if name is None:
        return None
    operands: list = []
    keywords: dict[str, object] = {}
    pattern = None
    placed = piped is None
    for arg in call.args:
        item = arg.value
        if isinstance(item, ast.Placeholder):
            if piped is None:
                return None
            item, placed = piped, True
        if isinstance(item, ast.Pattern):
            pattern = item
        elif arg.name is not None:
            keywords[arg.name] = item
        else:
            operands.append(item)
    if not placed:
        operands.insert(0, piped)
    return _Op(ARITHMETIC.get(name, name), call, operands, keywords, pattern)


def _pattern_names(side: ast.PatternSide) -> list[str] | None:
    names = []
    for entry in side.axes:
        if not isinstance(entry, ast.PatternName) or entry.name in names:
            return None
        names.append(entry.name)
    return names


def _einsum_sides(op: _Op | None) -> list[list[str]] | None:
    """The names of a two-operand einsum's inputs and output."""
    if op is None or op.name != "einsum" or op.pattern is None or op.keywords:
        return None
    if len(op.operands) != 2 or len(op.pattern.inputs) != 2:
        return None
    sides = [_pattern_names(side) for side in (*op.pattern.inputs, op.pattern.output)]
    return None if any(side is None for side in sides) else sides  # type: ignore[return-value]


def _float(gen: FunctionGenerator, node) -> str | None:
    type_ = gen.type(node)
    if isinstance(type_, TensorType) and type_.axes is not None:
        dtype = type_.resolved_dtype
        return dtype if dtype in FLOATS else None
    return None


def _scalar(gen: FunctionGenerator, node) -> bool:
    type_ = gen.type(node)
    return isinstance(type_, HostType) and type_.kind in ("int", "float")


def _pure(gen: FunctionGenerator, node) -> bool:
    """Whether computing an expression later, or in another order, changes nothing: no
    calls but those of numbers (`sqrt(Dh)`) and `causal`, no lambdas."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Lambda | ast.Pipe | ast.Placeholder | _Prefix):
            return False
        if isinstance(current, ast.Call) and not isinstance(gen.type(current), HostType):
            return False
        stack.extend(_children(current))
    return True


def _match(gen: FunctionGenerator, final: ast.Call, probabilities: int, chain: _Chain):
    """The plan for an einsum of softmax weights with v, or None."""
    last = _op(gen, final)
    last_sides = _einsum_sides(last)
    if last is None or last_sides is None or any(isinstance(o, _Prefix) for o in last.operands):
        return None
    softmax = _op(gen, chain.resolve(last.operands[probabilities]))
    if softmax is None or softmax.name != "softmax" or len(softmax.operands) != 1:
        return None
    over = softmax.keywords.get("over")
    if set(softmax.keywords) != {"over"} or not isinstance(over, ast.Name):
        return None
    scores_type = gen.type(softmax.operands[0])
    if not isinstance(scores_type, TensorType) or scores_type.axes is None:
        return None
    over_at = [i for i, axis in enumerate(scores_type.axes) if axis.name == over.name]
    if len(over_at) != 1:
        return None
    read = _scores(gen, chain.resolve(softmax.operands[0]), chain)
    if read is None:
        return None
    first, sides, mask, factor = read
    q, k = first.operands
    v = last.operands[1 - probabilities]
    layout = _layout(sides, last_sides, probabilities, over_at[0])
    if layout is None:
        return None
    orders, (n, m), d_at, keys_at = layout
    dtypes = {_float(gen, node) for node in (q, k, v, first.node, last.node)}
    if len(dtypes) != 1 or None in dtypes:
        return None
    if not all(_pure(gen, node) for node in (q, k, *mask[2:3], *factor[1:2])):
        return None
    found = Plan(q, k, v, first.node, orders, None, None)
    if not _masks_fit(gen, found, mask, sides[2], n, m, dtypes.pop()):
        return None
    found.scale = _scale_text(gen, factor, q, d_at)
    return _padded(gen, found, first, softmax, last, keys_at, mask)


def _scores(gen: FunctionGenerator, masked, chain: _Chain):
    """The `q·k` einsum under the mask and scale, its sides, the mask and the scale."""
    mark = (chain.cursor, len(chain.absorbed))
    for scaled, mask in _masks(gen, masked):
        chain.cursor, chain.absorbed[mark[1] :] = mark[0], []
        scale = _scale(gen, chain.resolve(scaled), chain)
        if scale is None:
            continue
        unscaled, factor = scale
        first = _op(gen, chain.resolve(unscaled))
        sides = _einsum_sides(first)
        if first is not None and sides is not None:
            return first, sides, mask, factor
    return None


def _masks(gen: FunctionGenerator, value) -> list:
    """The ways to read a step as scores and a mask: (scores, ("fill", op, mask)) for
    `masked_fill(s, mask, -inf)`, (scores, ("added", op, mask, place)) for `s + mask`
    either way round, else the value itself, unmasked."""
    op = _op(gen, value)
    if op is not None and op.name == "masked_fill":
        names = ("x", "mask", "value")
        given = dict(zip(names, op.operands, strict=False)) | op.keywords
        fill = given.get("value")
        if set(given) != set(names) or not (
            isinstance(fill, ast.Unary) and fill.op == "-" and isinstance(fill.operand, ast.InfLit)
        ):
            return []
        if padding.masked_symbol(gen, op.node) is not None:
            return []
        return [(given["x"], ("fill", op, given["mask"]))]
    if op is not None and op.name == "+" and len(op.operands) == 2 and not op.keywords:
        return [
            (op.operands[place], ("added", op, op.operands[1 - place], place))
            for place in (0, 1)
            if isinstance(gen.type(op.operands[1 - place]), TensorType)
        ]
    return [(value, (None,))]


def _scale(gen: FunctionGenerator, value, chain: _Chain):
    """The unscaled scores and ("/", s), ("*", s) or (None,)."""
    op = _op(gen, value)
    if op is None or op.keywords or op.name not in ("/", "*") or len(op.operands) != 2:
        return value, (None,)
    left, right = op.operands
    if _scalar(gen, right) and isinstance(gen.type(left), TensorType):
        return chain.resolve(left), (op.name, right)
    if op.name == "*" and _scalar(gen, left) and isinstance(gen.type(right), TensorType):
        return chain.resolve(right), ("*", left)
    return None


def _layout(sides, last_sides, probabilities: int, over_at: int):
    """The permutations to SDPA's `[... L E]` layout of q, k and v and back from its
    result, the scores' query and key positions, q's feature position and the key axis's
    position in each operand of the last einsum; None unless
    the two einsums are `q·k` over one feature axis and `p·v` over the keys."""
    q_names, k_names, scores = sides
    feature = [x for x in q_names if x in k_names and x not in scores]
    queries = [x for x in q_names if x not in k_names]
    keys = [x for x in k_names if x not in q_names]
    if len(feature) != 1 or len(queries) != 1 or len(keys) != 1:
        return None
    n, m, d = queries[0], keys[0], feature[0]
    batch = [x for x in scores if x not in (n, m)]
    if (
        set(q_names) != {*batch, n, d}
        or set(k_names) != {*batch, m, d}
        or set(scores) != {*batch, n, m}
        or scores.index(m) != over_at
    ):
        return None
    p_names = last_sides[probabilities]
    v_names = last_sides[1 - probabilities]
    out = last_sides[2]
    if len(p_names) != len(scores):
        return None
    renamed = dict(zip(scores, p_names, strict=True))
    batch2 = [renamed[x] for x in batch]
    n2, m2 = renamed[n], renamed[m]
    values = [x for x in v_names if x not in p_names]
    if len(values) != 1:
        return None
    e = values[0]
    if set(v_names) != {*batch2, m2, e} or set(out) != {*batch2, n2, e}:
        return None
    fused = [*batch2, n2, e]
    orders = (
        tuple(q_names.index(x) for x in [*batch, n, d]),
        tuple(k_names.index(x) for x in [*batch, m, d]),
        tuple(v_names.index(x) for x in [*batch2, m2, e]),
        tuple(fused.index(x) for x in out),
    )
    keys_at = {probabilities: scores.index(m), 1 - probabilities: v_names.index(m2)}
    return orders, (scores.index(n), scores.index(m)), q_names.index(d), keys_at


def _masks_fit(gen, found: Plan, mask, scores: list[str], n: int, m: int, dtype: str) -> bool:
    """Record the mask in the plan; False when it can't be SDPA's."""
    if mask[0] is None:
        return True
    op = mask[1]
    plans = gen.view.alignment(op.node.span) or (None, None, None)
    rank = len(scores)
    last_two = (n, m) == (rank - 2, rank - 1)
    if mask[0] == "fill":
        node = mask[2]
        kept = node.operand if isinstance(node, ast.Unary) and node.op == "!" else None
        plan_ = plans[1] if len(plans) > 1 else None
        if isinstance(kept, ast.Index) and _is_causal(gen, kept):
            places = plan_ if plan_ is not None else (rank - 2, rank - 1)
            if tuple(places) != (n, m):
                return False
            axes = gen.type(kept).axes
            found.mask = "causal" if axes[0].size == axes[1].size else "tril"
            found.mask_node = kept
            return True
        if not last_two or gen.type(node) is None:
            return False
        found.mask, found.mask_node, found.mask_plan = "bool", node, plan_
        found.mask_result, found.negated = gen.type(op.node), kept is None
        return True
    added = mask[2]
    place = 1 - mask[3]
    if not last_two or _float(gen, added) != dtype:
        return False
    found.mask, found.mask_node = "added", added
    found.mask_plan = plans[place] if place < len(plans) else None
    found.mask_result = gen.type(op.node)
    return True


def _is_causal(gen: FunctionGenerator, node: ast.Index) -> bool:
    """Whether `node` is the built-in `causal[a b]`, not an index into a local."""
    target = node.target
    type_ = gen.type(node)
    return (
        isinstance(target, ast.Name)
        and target.name == "causal"
        and "causal" not in _names(gen)[1]
        and isinstance(type_, TensorType)
        and type_.axes is not None
        and len(type_.axes) == 2
    )


def _scale_text(gen: FunctionGenerator, factor, q, d_at: int):
    if factor[0] is None:
        return None
    if factor[0] == "/" and _root_of_features(gen, factor[1], q, d_at):
        return "default"
    return factor


def _root_of_features(gen: FunctionGenerator, node, q, d_at: int) -> bool:
    """Whether `node` is `sqrt` of the size of q's feature axis: SDPA's own scale."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.args[0].name is not None:
        return False
    callee = node.callee
    if not isinstance(callee, ast.Name) or callee.name in gen.locals:
        return False
    checked = gen.context.checked
    signature = checked.signatures.get(callee.name)
    if signature is None or callee.name in checked.module_symbols:
        return False
    if signature.path != "torch.sqrt" or not getattr(signature, "extern", False):
        return False
    size = gen.type(node.args[0].value)
    q_type = gen.type(q)
    return (
        isinstance(size, HostType)
        and size.size is not None
        and isinstance(q_type, TensorType)
        and q_type.axes is not None
        and q_type.axes[d_at].size == size.size
    )


def _padded(gen, found: Plan, first: _Op, softmax: _Op, last: _Op, keys_at, mask):
    """The plan with the key axis's padding mask, when the softmax is masked; None when
    padding reaches the pattern anywhere else."""
    # A padded feature axis: q and k zeroed there, as the einsum has them (an explicit
    # scale, since SDPA's own would count the padded positions).
    found.zeroed = padding.masked_operands(gen, first.node)
    if found.zeroed and found.scale == "default":
        return None
    if mask[0] == "added" and padding.masked_symbol(gen, mask[1].node) is not None:
        return None
    symbol = padding.masked_symbol(gen, softmax.node)
    # The last einsum zeroes the weights or v at padded keys: the keys' mask does it.
    for index, dim, expression in padding.masked_operands(gen, last.node):
        rank = len(gen.type(last.operands[index]).axes)
        if symbol is None or dim % rank != keys_at[index] or expression != padding.mask(symbol):
            return None
    found.key_padding = symbol
    return found


# ---------------------------------------------------------------------- writing the call


def emit(gen: FunctionGenerator, node: ast.Call) -> str:
    """The SDPA call standing for the pattern that ends at `node`."""
    found: Plan = gen.fused[id(node)]
    q_order, k_order, v_order, out_order = found.orders
    q, k = gen.expr(found.q), gen.expr(found.k)
    for index, dim, mask in found.zeroed:
        if index == 0:
            q = f"_ss_rt.padding.zeroed({q}, {dim}, {mask})"
        else:
            k = f"_ss_rt.padding.zeroed({k}, {dim}, {mask})"
    q, k = _permuted(q, q_order), _permuted(k, k_order)
    v = _permuted(gen.expr(found.v), v_order)
    keywords = []
    if found.mask == "causal":
        keywords.append("is_causal=True")
    elif found.mask == "tril":
        keywords.append(f"attn_mask={builtins.causal(gen, found.mask_node)}")
    elif found.mask is not None:
        node = found.mask_node
        if found.mask == "bool" and not found.negated:
            value = gen.expr(node.operand)  # `masked_fill(s, !x, -inf)` keeps x
        elif found.mask == "bool":
            value = f"(~{gen.expr(node)})"
        else:
            value = gen.expr(node)
        value = gen.aligned(value, found.mask_plan, found.mask_node, found.mask_result)
        keywords.append(f"attn_mask={value}")
    if isinstance(found.scale, tuple):
        operator, factor = found.scale
        value = gen.expr(factor)
        keywords.append(f"scale={value}" if operator == "*" else f"scale=(1 / {value})")
    elif found.scale is None:
        keywords.append("scale=1.0")
    if found.key_padding is not None:
        function = "_ss_rt.attention.padded"
        arguments = [q, k, v, padding.mask(found.key_padding), *keywords]
    else:
        function = "_ss_F.scaled_dot_product_attention"
        arguments = [q, k, v, *keywords]
    gen.lowers(LABEL)
    return _permuted(f"{function}({', '.join(arguments)})", out_order)


def _permuted(value: str, order: tuple[int, ...]) -> str:
    if order == tuple(range(len(order))):
        return value
    return f"{value}.permute({', '.join(map(str, order))})"


# ---------------------------------------------------------------------- the built-in


def extern_call(
    gen: FunctionGenerator, node: ast.Call, signature: Signature, piped: str | None
) -> str | None:
    """`scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])` with
    `is_causal=True` in place of the mask; None for any other call."""
    if signature.path != SDPA or not gen.context.lower:
        return None
    masks = [arg for arg in node.args if arg.name == "attn_mask"]
    if len(masks) != 1 or not isinstance(masks[0].value, ast.Index):
        return None
    mask = masks[0].value
    if not _is_causal(gen, mask):
        return None
    axes = gen.type(mask).axes
    if axes[0].size != axes[1].size:
        return None
    rest = [arg for arg in node.args if arg is not masks[0]]
    written = builtins.extern_call(
        gen, ast.Call(node.callee, rest, node.span, node.operands_form), signature, piped
    )
    gen.lowers("causal mask as is_causal")
    return f"{written[:-1]}, is_causal=True)"
