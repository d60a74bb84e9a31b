"""The serving rules a language model's forward function must keep for an engine to run
its embedding, attention and output layer itself (E3301-E3305), as diagnostics.

This version checks the forms the rules name, on the syntax tree and the checker's facts:
the parameters (E3301), the final `linear` (E3302), the one `embedding` of the ids and
where the table and the output weight are read (E3303), `causal` only as the mask written
in a `scaled_dot_product_attention` call (or an extern fn naming torch's), which must have
exactly `causal[n n]`, by name or position, and no other work across the
sequence in any function the forward function reaches: a reduction `over=` an axis that
isn't a dim, a pattern that contracts one (sizes from the operands' recorded types), or a
chain over such a size, which computes positions (E3304); and at least one attention, all
on one `[b H n Dh]` shape with dims H and Dh (E3305). `@` and `matmul`
count by their left operand's last axis.
"""

from __future__ import annotations

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import TensorType
from shapescript.check.declarations.symbols import ItemFacts
from shapescript.check.exports import _children, _functions
from shapescript.check.program import Checked
from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.export.hf import serving_form
from shapescript.syntax import ast
from shapescript.syntax.source import Span


def serving_diagnostics(checked: Checked, name: str) -> list[Diagnostic]:
    """E3301-E3305 for the forward function `name` (whose first parameter is a model)."""
    functions = _functions(checked)
    item = functions[name]
    decl: ast.FnDecl = item.item
    found: list[Diagnostic] = []

    def report(code: str, message: str, span: Span, where: ItemFacts, label: str = "") -> None:
        absolute = Span(where.base + span.start, where.base + span.end)
        found.append(Diagnostic(code, message, Label(absolute, label), path=checked.source.path))

    language, reason, _vocabulary = serving_form(checked, name)
    if not language:
        span = decl.params[1].span if len(decl.params) > 1 else decl.name_span
        report("E3301", f"`{name}` isn't a language model's forward: {reason[7:]}", span, item)
        return found
    reached = _reach(functions, name)
    fields = _field_reads(reached)
    own_model = checked.signatures[name].params[0].type.name
    output = _output_field(item, decl)
    if output is None:
        where = decl.body[-1].span if decl.body else decl.span
        report(
            "E3302",
            f"`{name}` doesn't end with one `return linear(h, m.W)` without a bias",
            where,
            item,
            "the engine computes the output layer itself",
        )
    ids_name = decl.params[1].name
    table = _ids_embedding(item, decl, ids_name, report)
    kept = {read for read in (table, output) if read is not None}
    engine_fields = {read[0] for read in kept}
    if output is None and table is not None:
        # Without an output layer (E3302), the table's other reads aren't a second error.
        engine_fields = set()
    for field_key, reads in fields.items():
        if field_key not in engine_fields:
            continue
        for where, span in reads:
            if where is item and (field_key, span) in kept:
                continue
            report(
                "E3303",
                f"`{_shown(field_key, own_model)}` is read outside the embedding and the "
                "output layer",
                span,
                where,
                "the engine keeps this table itself",
            )
    _attention(reached, report, set(checked.dim_values), _attention_names(checked))
    return found


def vllm_diagnostics(checked: Checked, name: str) -> list[Diagnostic]:
    """The serving rules (`serving_diagnostics`) and, when they hold, E3303 for an embedding
    table or output layer that is a held model's param: an engine such as vLLM reads both
    from the forward's model's own fields (GGUF files, written by path, don't need that)."""
    found = serving_diagnostics(checked, name)
    if found:
        return found
    functions = _functions(checked)
    item = functions[name]
    decl: ast.FnDecl = item.item
    own_model = checked.signatures[name].params[0].type.name
    table = _ids_embedding(item, decl, decl.params[1].name, lambda *args: None)
    output = _output_field(item, decl)
    for role, read in (("embedding table", table), ("output layer", output)):
        if read is None or read[0][0] == own_model:
            continue
        (model, field_name), span = read
        absolute = Span(item.base + span.start, item.base + span.end)
        written = checked.source.text[absolute.start : absolute.end]
        found.append(
            Diagnostic(
                "E3303",
                f"the {role} `{written}` is the param `{field_name}` of a held model "
                f"`{model}`; a serving engine reads it from `{own_model}`'s own params",
                Label(absolute, "read through a held model"),
                help=f"declare it in `{own_model}` (`param {field_name}: ...`) and read it as "
                f"`m.{field_name}`, or export without --vllm (a transformers-only folder)",
                path=checked.source.path,
            )
        )
    return found


def gguf_diagnostics(checked: Checked, name: str) -> list[Diagnostic]:
    """E3307 for a language model's forward function that takes no positions: llama.cpp's
    architectures (learned positions, rotary embeddings) each need them."""
    language, _reason, _vocabulary = serving_form(checked, name)
    params = checked.signatures[name].params
    if not language or (len(params) > 2 and not params[2].has_default):
        return []
    item = _functions(checked)[name]
    decl: ast.FnDecl = item.item
    span = decl.params[1].span
    return [
        Diagnostic(
            "E3307",
            f"`{name}` takes no positions, which every architecture llama.cpp runs needs",
            Label(Span(item.base + span.start, item.base + span.end), "the ids, then nothing"),
            help="add `pos: [b n] Index[P]` after the ids and look the positions up "
            "(`embedding(pos, m.wpe)`) or rotate by them",
            path=checked.source.path,
        )
    ]


def engine_fields(checked: Checked, name: str) -> tuple[str | None, str | None]:
    """The embedding table's and the output layer's fields of a forward function that
    keeps the serving rules."""
    functions = _functions(checked)
    item = functions[name]
    decl = item.item
    table = _ids_embedding(item, decl, decl.params[1].name, lambda *args: None)
    output = _output_field(item, decl)
    own_model = checked.signatures[name].params[0].type.name
    return tuple(  # type: ignore[return-value]
        _shown(read[0], own_model) if read else None for read in (table, output)
    )


def _shown(field_key: tuple[str, str], own_model: str) -> str:
    """A field read as the user knows it: `wte` for the forward's own model's field,
    `TokenEmbedding.weight` for a held model's (fields of different models that share a
    name, such as every `weight`, are different tensors)."""
    model, field_name = field_key
    return field_name if model == own_model else f"{model}.{field_name}"


def _reach(functions: dict[str, ItemFacts], root: str) -> list[ItemFacts]:
    order: list[str] = []
    queue = [root]
    while queue:
        name = queue.pop(0)
        if name in order or name not in functions:
            continue
        order.append(name)
        item = functions[name]
        for facts in item.fact_tables():
            queue.extend(ref.module_name for ref in facts.references if ref.module_name)
    return [functions[name] for name in order]


def _field_reads(
    reached: list[ItemFacts],
) -> dict[tuple[str, str], list[tuple[ItemFacts, Span]]]:
    """Where each field is read, by (model, field): a held model's `weight` isn't the
    forward's model's `weight`."""
    reads: dict[tuple[str, str], list[tuple[ItemFacts, Span]]] = {}
    for item in reached:
        for facts in item.fact_tables():
            for span, (model, field_name) in sorted(facts.fields.items()):
                reads.setdefault((model, field_name), []).append((item, span))
    return reads


def _field_of(item: ItemFacts, node) -> tuple[str, str] | None:
    for facts in item.fact_tables():
        found = facts.fields.get(getattr(node, "span", None))
        if found is not None:
            return (found[0], found[1])
    return None


def _is_call(node, name: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.callee, ast.Name)
        and node.callee.name == name
    )


def _output_field(item: ItemFacts, decl: ast.FnDecl) -> tuple[tuple[str, str], Span] | None:
    """The field of the final `linear(h, m.W)` and where it is read, or None when the
    function doesn't end so."""
    body = decl.body or []
    returns = [stmt for stmt in body if isinstance(stmt, ast.Return)]
    value = decl.expr_body if decl.expr_body is not None else None
    if body:
        if len(returns) != 1 or returns[0] is not body[-1]:
            return None
        value = returns[0].value
    if isinstance(value, ast.Pipe) and value.stages:
        last = value.stages[-1]
        if _is_call(last, "linear") and len(last.args) == 1:
            return _read(item, last.args[0].value)
        return None
    if _is_call(value, "linear") and len(value.args) == 2:
        return _read(item, value.args[1].value)
    return None


def _read(item: ItemFacts, node) -> tuple[tuple[str, str], Span] | None:
    found = _field_of(item, node)
    return (found, node.span) if found is not None else None


def _ids_embedding(
    item: ItemFacts, decl: ast.FnDecl, ids_name: str, report
) -> tuple[tuple[str, str], Span] | None:
    """The table of the one `embedding(ids, m.E)` and where it is read; E3303 for any
    other use of the ids."""
    uses: list[tuple[object, object]] = []

    def visit(node, parent) -> None:
        if isinstance(node, ast.Name) and node.name == ids_name:
            uses.append((node, parent))
        for child in _children(node):
            visit(child, node)

    for stmt in decl.body or []:
        for expr in _statement_exprs(stmt):
            visit(expr, None)
    if decl.expr_body is not None:
        visit(decl.expr_body, None)
    table = None
    for node, parent in uses:
        if (
            len(uses) == 1
            and _is_call(parent, "embedding")
            and parent.args
            and parent.args[0].value is node
        ):
            table = _read(item, parent.args[1].value) if len(parent.args) > 1 else None
            continue
        report(
            "E3303",
            f"the token ids `{ids_name}` are used other than by one `embedding(ids, m.E)`",
            node.span,
            item,
            "the engine embeds the tokens itself",
        )
    return table


def _statement_exprs(stmt) -> list:
    if isinstance(stmt, ast.Return):
        return [stmt.value] if stmt.value is not None else []
    if isinstance(stmt, ast.Assign | ast.FieldAssign):
        return [stmt.value]
    if isinstance(stmt, ast.ExprStmt):
        return [stmt.expr]
    if isinstance(stmt, ast.For):
        return [stmt.iterable] + [e for inner in stmt.body for e in _statement_exprs(inner)]
    if isinstance(stmt, ast.If):
        inner = stmt.then_body + (stmt.else_body or [])
        return [stmt.condition] + [e for s in inner for e in _statement_exprs(s)]
    return []


#: The torch function a serving engine replaces with its own attention.
ATTENTION_PATH = "torch.nn.functional.scaled_dot_product_attention"


def _attention_names(checked: Checked) -> frozenset[str]:
    """The names that call torch's attention: the prelude's stub and any extern fn of the
    file that names the same torch function under another name."""
    return frozenset(
        name
        for name, signature in checked.signatures.items()
        if getattr(signature, "extern", False) and getattr(signature, "path", "") == ATTENTION_PATH
    ) | {"scaled_dot_product_attention"}


def _mask_argument(node: ast.Call):
    """The argument given for `attn_mask`, by name or as the fourth by position, or None."""
    for position, arg in enumerate(node.args):
        if arg.name == "attn_mask" or (arg.name is None and position == 3):
            return arg
    return None


def _mask_problem(mask) -> str | None:
    """Why an attention's mask isn't the one an engine's attention applies, or None: it
    must be `causal[n n]` written in the call, the queries' own axis twice."""
    if mask is None:
        return "attention without a mask works across the whole sequence"
    if not _is_causal(mask.value):
        return "attention's mask isn't `causal[n n]` written in the call"
    items = mask.value.items
    if len(items) == 1 and isinstance(items[0], ast.SpacedIndex):
        items = items[0].items
    names = [index.name for index in items if isinstance(index, ast.Name)]
    if len(names) != 2 or names[0] != names[1]:
        return "attention's mask is causal between two different axes, not `causal[n n]`"
    return None


def _attention(
    reached: list[ItemFacts], report, dims: set[str], attention_names: frozenset[str]
) -> None:
    """E3304 for `causal` anywhere but an attention's mask and for an attention whose mask
    isn't `causal[n n]` written in the call; E3305 for no attention, or attentions on
    different or non-dim shapes."""
    shapes: list[tuple] = []
    handwritten = []
    for item in reached:
        decl = item.item
        types = {}
        for facts in item.fact_tables():
            types.update(facts.types)
        masks: set[int] = set()

        def visit(node, item=item, types=types, masks=masks) -> None:
            if (
                isinstance(node, ast.Call)
                and isinstance(node.callee, ast.Name)
                and node.callee.name in attention_names
            ):
                mask = _mask_argument(node)
                if mask is not None and _is_causal(mask.value):
                    masks.add(id(mask.value))
                problem = _mask_problem(mask)
                if problem is not None and mask is not None:
                    masks.update(id(inner) for inner in _walk(mask.value) if _is_causal(inner))
                if problem is not None:
                    report(
                        "E3304",
                        problem,
                        mask.value.span if mask is not None else node.span,
                        item,
                        "an engine's attention is causal over its packed sequence: "
                        "give `attn_mask=causal[n n]`",
                    )
                query = types.get(node.args[0].value.span) if node.args else None
                shapes.append((item, node.span, query))
            elif (
                why := _mixes(node, dims, types)
                or _from_size(node, dims, types)
                or _sliced_by_size(node, dims, types)
                or _matmul(node, dims, types)
            ) is not None:
                handwritten.append(node)
                report("E3304", why, node.span, item, "the engine packs requests along n")
            elif _is_causal(node) and id(node) not in masks and _across(types.get(node.span), dims):
                handwritten.append(node)
                report(
                    "E3304",
                    "`causal` outside an attention's mask works across the sequence",
                    node.span,
                    item,
                    "write attention as scaled_dot_product_attention",
                )
                return
            for child in _children(node):
                visit(child)

        for stmt in decl.body or []:
            for expr in _statement_exprs(stmt):
                visit(expr)
        if decl.expr_body is not None:
            visit(decl.expr_body)
    if not shapes and not handwritten:
        first = reached[0]
        report(
            "E3305",
            "the forward function runs no `scaled_dot_product_attention`",
            first.item.name_span,
            first,
            "a served model needs at least one attention",
        )
        return
    seen = None
    for item, span, query in shapes:
        axes = query.axes if isinstance(query, TensorType) and query.axes else None
        key = None
        if axes is not None and len(axes) == 4:
            heads, width = axes[1].size, axes[3].size
            if heads.symbols() <= dims and width.symbols() <= dims:
                key = (str(heads), str(width))
        if key is None or (seen is not None and key != seen):
            report(
                "E3305",
                "attention's queries aren't one `[b H n Dh]` shape with dims H and Dh",
                span,
                item,
                "the engine's attention works on one head shape",
            )
        seen = seen or key


def _walk(node):
    """The node and every node under it."""
    yield node
    for child in _children(node):
        yield from _walk(child)


def _across(type_, dims: set[str]) -> bool:
    """Whether a mask's axes include one that isn't a dim: a sequence, not features."""
    if not isinstance(type_, TensorType) or type_.axes is None:
        return True
    return any(not axis.size.symbols() <= dims for axis in type_.axes)


def _is_causal(node) -> bool:
    return (
        isinstance(node, ast.Index)
        and isinstance(node.target, ast.Name)
        and node.target.name == "causal"
    )


#: Built-ins that make positions from a size: positions must come in as a parameter.
_POSITIONS = frozenset({"positions"})


#: Functions whose `over=` axis they sum, normalize or scan along.
_REDUCING = frozenset(
    {"sum", "mean", "max", "min", "prod", "softmax", "log_softmax", "logsumexp", "cumsum"}
    | {"cumprod", "argmax", "argmin", "var", "std", "norm", "any", "all"}
)


def _mixes(node, dims: set[str], types: dict) -> str | None:
    """Why a call works across the sequence (a sum, softmax or contraction over an axis
    that isn't a dim, or positions computed from a size), or None."""
    if not isinstance(node, ast.Call) or not isinstance(node.callee, ast.Name):
        return None
    callee = node.callee.name
    operands = [arg.value for arg in node.args if not isinstance(arg.value, ast.Pattern)]
    for arg in node.args:
        if arg.name == "over" and callee in _REDUCING:
            across = sorted(_names(arg.value) - dims)
            if across:
                return f"`{callee}` over `{across[0]}` works across the sequence"
        if isinstance(arg.value, ast.Pattern):
            sizes = _pattern_sizes(arg.value, operands, types)
            output = _names(arg.value.output)
            inputs = set().union(*(_names(side) for side in arg.value.inputs))
            across = sorted(name for name in inputs - output if not sizes.get(name, {name}) <= dims)
            if across:
                return f"`{callee}` contracts `{across[0]}` across the sequence"
    if callee in _POSITIONS:
        across = sorted(set().union(set(), *(_names(arg.value) for arg in node.args)) - dims)
        if across:
            return f"positions computed from `{across[0]}`; pass them in as a parameter"
    return None


def _from_size(node, dims: set[str], types: dict) -> str | None:
    """Why a chain over a size that isn't a dim computes positions from n, or None."""
    if not isinstance(node, ast.Pipe) or not isinstance(node.input, ast.Name):
        return None
    name = node.input.name
    if name in dims or isinstance(types.get(node.input.span), TensorType):
        return None
    sizes = {
        symbol
        for type_ in types.values()
        if isinstance(type_, TensorType) and type_.axes is not None
        for axis in type_.axes
        for symbol in axis.size.symbols()
    }
    if name not in sizes:
        return None
    return f"positions computed from `{name}`; pass them in as a parameter"


def _size_symbols(types: dict) -> set[str]:
    """Every size symbol of the recorded tensor types."""
    return {
        symbol
        for type_ in types.values()
        if isinstance(type_, TensorType) and type_.axes is not None
        for axis in type_.axes
        for symbol in axis.size.symbols()
    }


def sliced_table(node, dims: set[str], types: dict) -> tuple[str, int] | None:
    """`(n, axis)` when `node` slices an axis of fixed size (a table of positions, say
    `m.wpe[0:n]`) with a bound that mentions the size `n` that isn't a dim, or None."""
    if not isinstance(node, ast.Index):
        return None
    target = types.get(getattr(node.target, "span", None))
    if not isinstance(target, TensorType) or target.axes is None:
        return None
    sizes = _size_symbols(types)
    for axis, item in enumerate(node.items):
        if not isinstance(item, ast.Slice) or axis >= len(target.axes):
            continue
        if not target.axes[axis].size.symbols() <= dims:
            continue
        bounds = [part for part in (item.lo, item.hi, item.step) if part is not None]
        across = sorted((set().union(set(), *(_names(part) for part in bounds)) - dims) & sizes)
        if across:
            return across[0], axis
    return None


def _sliced_by_size(node, dims: set[str], types: dict) -> str | None:
    """Why a slice of a fixed-size axis by the sequence length computes positions, or None."""
    found = sliced_table(node, dims, types)
    if found is None:
        return None
    return (
        f"positions computed from `{found[0]}` (a slice of a fixed-size axis by the "
        "sequence length); pass them in as a parameter"
    )


def positions_bound(checked: Checked, name: str) -> int | None:
    """The number of positions a forward function that slices a table by the sequence
    length has: the sliced axis's size (the table's rows), or None when it slices none."""
    dims = set(checked.dim_values)
    values = {key: Poly.const(value) for key, value in checked.dim_values.items()}
    for item in _reach(_functions(checked), name):
        types: dict = {}
        for facts in item.fact_tables():
            types.update(facts.types)
        decl = item.item
        roots = [e for stmt in decl.body or [] for e in _statement_exprs(stmt)]
        if decl.expr_body is not None:
            roots.append(decl.expr_body)
        stack = list(roots)
        while stack:
            node = stack.pop()
            stack.extend(_children(node))
            found = sliced_table(node, dims, types) or _made_positions_lookup(node, types)
            if found is not None:
                size = types[node.target.span].axes[found[1]].size.substitute(values)
                if size.value is not None:
                    return size.value
    return None


def _made_positions_lookup(node, types: dict) -> tuple[str, int] | None:
    """`("positions", 0)` when `node` looks rows of a table up by `positions(n)` (through an
    `as`, say `m.wpe[positions(n) as [n] Index[P]]`), or None."""
    if not isinstance(node, ast.Index) or len(node.items) != 1:
        return None
    target = types.get(getattr(node.target, "span", None))
    if not isinstance(target, TensorType) or not target.axes:
        return None
    item = node.items[0]
    while isinstance(item, ast.Cast):
        item = item.operand
    made = (
        isinstance(item, ast.Call)
        and isinstance(item.callee, ast.Name)
        and item.callee.name in _POSITIONS
    )
    return ("positions", 0) if made else None


def _matmul(node, dims: set[str], types: dict) -> str | None:
    """Why `a @ b` or `matmul(a, b)` contracts an axis that isn't a dim, or None."""
    if isinstance(node, ast.Binary) and node.op == "@":
        left = node.left
    elif _is_call(node, "matmul") and node.args:
        left = node.args[0].value
    else:
        return None
    type_ = types.get(getattr(left, "span", None))
    if not isinstance(type_, TensorType) or not type_.axes:
        return None
    size = type_.axes[-1].size
    if size.symbols() <= dims:
        return None
    return f"the product contracts `{size}` across the sequence"


def _pattern_sizes(pattern: ast.Pattern, operands: list, types: dict) -> dict[str, set[str]]:
    """The size symbols of each plain name of a pattern's inputs, from its operands' types."""
    sizes: dict[str, set[str]] = {}
    for side, operand in zip(pattern.inputs, operands, strict=False):
        type_ = types.get(getattr(operand, "span", None))
        if not isinstance(type_, TensorType) or type_.axes is None:
            continue
        if len(type_.axes) != len(side.axes):
            continue
        for axis, size in zip(side.axes, type_.axes, strict=True):
            if isinstance(axis, ast.PatternName):
                sizes[axis.name] = set(size.size.symbols())
    return sizes


def _names(node) -> set[str]:
    """The names a size or pattern expression mentions."""
    found: set[str] = set()
    if isinstance(node, ast.Name | ast.PatternName):
        found.add(node.name)
    for part in getattr(node, "axes", None) or getattr(node, "items", None) or []:
        if isinstance(node, ast.PatternSide | ast.PatternGroup):
            found |= _names(part)
    for child in _children(node):
        found |= _names(child)
    return found
