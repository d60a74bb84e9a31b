"""Activation curves on hover: built-in activations, prelude math and functions of one number.

A function of one number becomes a `curve_math` tree: its one tensor parameter is the input,
its host scalars take the numbers written at the hovered call (or their defaults), values
defined with `=` and calls of other functions of one number are inlined. Anything the
reference doesn't allow in such a body means no curve, and no message; so does a body of
more than `_MAX_NODES` nodes. The walks over the body and the tree recurse, so the entry
points run them through `run_deep`.
"""

from __future__ import annotations

import math
import textwrap

from shapescript.check.algebra.ranges import NAMED_RANGES, REAL, Interval
from shapescript.check.algebra.types import TensorType
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript.deep import run_deep
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript_lsp.features.context import enclosing, item_at
from shapescript_lsp.features.curve_math import (
    FORMULAS,
    FUNCTIONS,
    Apply,
    Bin,
    Neg,
    Not,
    Num,
    Tree,
    Var,
    builtin_formula,
    evaluate,
    formula,
    interval,
)
from shapescript_lsp.render.curves import sample, svg_curve, text_curve
from shapescript_lsp.render.raster import png_from_svg

#: Python functions whose math is known, by the name of their math here.
PYTHON_NAMES = {
    "torch.exp": "exp",
    "torch.log": "log",
    "torch.log1p": "log1p",
    "torch.expm1": "expm1",
    "torch.sqrt": "sqrt",
    "torch.rsqrt": "rsqrt",
    "torch.sin": "sin",
    "torch.cos": "cos",
    "torch.tanh": "tanh",
    "torch.sigmoid": "sigmoid",
    "torch.erf": "erf",
    "torch.nn.functional.gelu": "gelu",
    "torch.nn.functional.silu": "silu",
    "torch.nn.functional.softplus": "softplus",
    "torch.nn.functional.logsigmoid": "log_sigmoid",
    "torch.relu": "relu",
}
#: Built-ins of one number that get a curve when hovered.
BUILTIN_CURVES = frozenset({"relu", "leaky_relu", "elu", "abs", "square"})
#: The plotted part of [-4, 4] and the whole domain, for an input's domain word.
_DOMAINS = {
    "Unit": ((0.0, 1.0), NAMED_RANGES["Unit"]),
    "Signed": ((-1.0, 1.0), NAMED_RANGES["Signed"]),
    "NonNeg": ((0.0, 4.0), NAMED_RANGES["NonNeg"]),
    "Pos": ((0.0, 4.0), NAMED_RANGES["Pos"]),
}
#: The kinds of symbol whose hover may hold a curve.
CURVE_KINDS = frozenset({"builtin", "prelude", "fn", "extern"})
_HOST_TYPES = frozenset({"int", "float", "bool"})
_MAX_FORMULA = 72
_MAX_DEPTH = 8
#: The most syntax nodes a curve's body may visit, inlined calls included, and the most
#: nodes its tree may have written out in full: a bigger body gets no curve. This bounds
#: the time a hover takes (the tree is evaluated at every sample) and how deep it recurses.
_MAX_NODES = 1_000


class _NoCurve(Exception):
    """The function isn't a function of one number, or a number is missing."""


class _Walk:
    """The checked file a curve's body is read from, and how many nodes it has visited."""

    def __init__(self, checked: Checked) -> None:
        self.checked = checked
        self.visited = 0

    def spend(self) -> None:
        self.visited += 1
        if self.visited > _MAX_NODES:
            raise _NoCurve


class Curve:
    """What a curve hover shows: the formula, the tree, the plotted interval and the range."""

    def __init__(self, title: str, tree: Tree, plotted: tuple[float, float], whole: Interval):
        self.title = title
        self.tree = tree
        self.plotted = plotted
        self.whole = whole
        self.notes: list[str] = []
        self.bound: Interval | None = None
        #: The body as written, shown instead of a formula (a body with an if, or a long one).
        self.body: str | None = None

    def range(self) -> Interval:
        found = interval(self.tree, self.whole)
        if self.bound is not None:
            narrowed = found.intersect(self.bound)
            if narrowed.lo <= narrowed.hi:
                found = narrowed
        return found


def range_text(value: Interval) -> str:
    return str(value).replace("-inf", "−∞").replace("inf", "∞").replace("-", "−")


def curve_markdown(
    curve: Curve, images: bool, dark: bool = False, given: Interval | None = None
) -> str:
    """The hover section: formula, picture or text plot, range and notes; `given`, the
    range of the values a stage feeds in, is marked on the x axis when it has an end."""
    marked = _marked(given)
    plotted = curve.plotted
    if marked is not None:
        plotted = _widened(plotted, marked)
    samples = sample(curve.tree, *plotted)
    shown_range = range_text(curve.range())
    lines = [f"`{curve.title}`"]
    if curve.body is not None:
        lines.append(f"```shapescript\n{curve.body}\n```")
    picture = None
    if images:
        svg = svg_curve(samples, f"range {shown_range}", dark, marked)
        picture = png_from_svg(svg, "#1e1e1e" if dark else "#ffffff")
        if picture is not None:
            lines.append(f"![curve of {curve.title}]({picture}|width=320)")
    if picture is None:
        drawn = text_curve(samples, f"range {shown_range}", marked)
        lines.append("```text\n" + drawn + "\n```")
    lines.append(f"Range: {shown_range}")
    if marked is not None and given is not None:
        how = "shaded" if picture is not None else "underlined ━"
        lines.append(f"The input's range {range_text(given)} is {how}.")
    lines.extend(curve.notes)
    return "\n\n".join(lines)


def _marked(given: Interval | None) -> tuple[float, float] | None:
    """The input's range as an x interval to mark, when it has a finite end."""
    if given is None or (math.isinf(given.lo) and math.isinf(given.hi)):
        return None
    return given.lo, given.hi


def _widened(plotted: tuple[float, float], marked: tuple[float, float]) -> tuple[float, float]:
    """The plotted interval grown to hold the finite ends of the marked one, with room."""
    lo, hi = plotted
    ends = [end for end in marked if math.isfinite(end)]
    room = 0.25 * (max(ends) - min(ends)) if len(ends) == 2 else 1.0
    lo = min(lo, min(ends) - room)
    hi = max(hi, max(ends) + room)
    return lo, hi


def stage_curve(
    checked: Checked,
    symbol: Symbol,
    offset: int,
    given: Interval,
    images: bool,
    dark: bool = False,
) -> str:
    """The curve of the function a pipe stage at `offset` calls, the stage's input range
    marked on it, or "" when it has none."""
    return run_deep(_stage_curve, checked, symbol, offset, given, images, dark)


def _stage_curve(
    checked: Checked, symbol: Symbol, offset: int, given: Interval, images: bool, dark: bool
) -> str:
    try:
        curve = _curve(checked, symbol, _call_at(checked, offset, symbol.name))
    except _NoCurve:
        return ""
    return "" if curve is None else curve_markdown(curve, images, dark, given)


def curve_section(
    checked: Checked, symbol: Symbol, offset: int, images: bool, dark: bool = False
) -> str:
    """The curve of the hovered function, or "" when it has none."""
    return run_deep(_curve_section, checked, symbol, offset, images, dark)


def _curve_section(checked: Checked, symbol: Symbol, offset: int, images: bool, dark: bool) -> str:
    try:
        curve = _curve(checked, symbol, _call_at(checked, offset, symbol.name))
    except _NoCurve:
        return ""
    if curve is None:
        return ""
    return curve_markdown(curve, images, dark)


def documentation_curve(
    checked: Checked | None, name: str, images: bool, dark: bool = False
) -> str:
    """The curve that completion documentation and signature help show for a function,
    with its parameters' defaults, or "" when it has none."""
    return run_deep(_documentation_curve, checked, name, images, dark)


def _documentation_curve(checked: Checked | None, name: str, images: bool, dark: bool) -> str:
    symbol = None
    if checked is not None:
        symbol = checked.module_symbols.get(name) or checked.builtin_symbols.get(name)
    try:
        if symbol is None:
            if name not in BUILTIN_CURVES:
                return ""
            curve = _builtin_curve(name, None, _declared_bound(BUILTINS[name].signature))
        elif symbol.kind in CURVE_KINDS and checked is not None:
            curve = _curve(checked, symbol, None)
        else:
            return ""
    except _NoCurve:
        return ""
    return "" if curve is None else curve_markdown(curve, images, dark)


def _curve(checked: Checked, symbol: Symbol, call: _Call | None) -> Curve | None:
    name = symbol.name
    if symbol.kind == "builtin" and name in BUILTIN_CURVES:
        return _builtin_curve(name, call, _declared_bound(BUILTINS[name].signature))
    if symbol.kind == "prelude" and name in FUNCTIONS and name in FORMULAS:
        return _builtin_curve(name, call, None)
    declaration = _declaration(checked, name)
    if isinstance(declaration, ast.ExternFnDecl):
        path = declaration.python_path.value if declaration.python_path else ""
        if path not in PYTHON_NAMES or len(declaration.params) != 1:
            return None
        curve = _builtin_curve(PYTHON_NAMES[path], call, None)
        curve.title = f"{name}(x) = " + curve.title.split(" = ", 1)[1]
        return curve
    if isinstance(declaration, ast.FnDecl) and symbol.kind == "fn":
        return _user_curve(checked, declaration, call)
    return None


def _builtin_curve(name: str, call: _Call | None, bound: Interval | None) -> Curve:
    extra = FUNCTIONS[name][1]
    numbers, notes = _numbers(extra, call, first=1)
    tree = Apply(name, (Var(), *(Num(numbers[key]) for key, _ in extra)))
    curve = Curve(f"{name}(x) = {builtin_formula(name, numbers)}", tree, (-4.0, 4.0), REAL)
    if name in ("log", "log1p", "sqrt", "rsqrt"):
        curve.plotted = {"log1p": (-1.0, 4.0)}.get(name, (0.0, 4.0))
    curve.bound = bound
    curve.notes = notes
    return curve


def _declared_bound(signature: str) -> Interval | None:
    returned = signature.rsplit("->", 1)[-1].split()
    return NAMED_RANGES.get(returned[-1]) if returned else None


# ------------------------------------------------------------------------ the call


class _Call:
    """The arguments written at the hovered call, the piped input not among them."""

    def __init__(self, positional: list, keywords: dict, piped: bool):
        self.positional = positional
        self.keywords = keywords
        self.piped = piped


def _call_at(checked: Checked, offset: int, name: str) -> _Call | None:
    item = item_at(checked, offset)
    if item is None:
        return None
    local = offset - item.base
    for pipe in reversed(enclosing(item.item, local, (ast.Pipe,))):
        for stage in pipe.stages:
            callee = stage.callee if isinstance(stage, ast.Call) else stage
            if isinstance(callee, ast.Name) and callee.span.start <= local <= callee.span.end:
                args = stage.args if isinstance(stage, ast.Call) else []
                return _split(args, piped=True)
    for call in reversed(enclosing(item.item, local, (ast.Call,))):
        callee = call.callee
        named = isinstance(callee, ast.Name) and callee.name == name
        if named and callee.span.start <= local <= callee.span.end:
            return _split(call.args, piped=False)
    return None


def _split(args: list[ast.Arg], piped: bool) -> _Call:
    positional = [arg.value for arg in args if arg.name is None]
    keywords = {arg.name: arg.value for arg in args if arg.name is not None}
    return _Call(positional, keywords, piped)


def _literal(node) -> float | None:
    sign = 1.0
    while isinstance(node, ast.Unary) and node.op == "-":
        sign, node = -sign, node.operand
    if isinstance(node, ast.IntLit | ast.FloatLit):
        return sign * float(node.value)
    if isinstance(node, ast.InfLit):
        return sign * math.inf
    if isinstance(node, ast.BoolLit):
        return sign * (1.0 if node.value else 0.0)
    return None


def _numbers(
    params: tuple[tuple[str, float | None], ...], call: _Call | None, first: int
) -> tuple[dict[str, float], list[str]]:
    """The number each host parameter takes: the call's, else its default."""
    numbers: dict[str, float] = {}
    notes: list[str] = []
    positional = []
    if call is not None:
        positional = call.positional if call.piped else call.positional[first:]
    for index, (name, default) in enumerate(params):
        written = None
        if call is not None:
            written = call.keywords.get(name)
            if written is None and index < len(positional):
                written = positional[index]
        value = _literal(written) if written is not None else None
        if written is not None and value is None:
            notes.append(f"`{name}` isn't a number written in the source, so its default is used.")
        if value is None:
            value = default
        if value is None:
            raise _NoCurve
        numbers[name] = value
    return numbers, notes


# ------------------------------------------------------------------------ functions of one number


def _declaration(checked: Checked, name: str):
    for item in checked.items:
        node = item.item
        if isinstance(node, ast.FnDecl | ast.ExternFnDecl) and node.name == name:
            return node
    return None


def _is_host(param: ast.Param) -> bool:
    written = param.type
    if written is None:
        return param.default is not None
    if written.shape is not None:
        return False
    names = [word.name for word in written.words] + ([written.dtype] if written.dtype else [])
    return len(names) == 1 and names[0] in _HOST_TYPES


def _user_curve(checked: Checked, node: ast.FnDecl, call: _Call | None) -> Curve | None:
    if checked.errors:
        return None
    tensors = [param for param in node.params if not _is_host(param)]
    if len(tensors) != 1 or any(param.mut for param in node.params):
        return None
    tensor = tensors[0]
    if not _same_axes(checked, tensor, node):
        return None
    hosts = [param for param in node.params if param is not tensor]
    defaults = tuple((param.name, _literal(param.default)) for param in hosts)
    numbers, notes = _numbers(defaults, _without_tensor(call, node, tensor), first=0)
    scope: dict[str, Tree] = {tensor.name: Var()}
    scope.update({name: Num(value) for name, value in numbers.items()})
    seen: set[str] = set()
    try:
        tree = _small(_body_tree(_Walk(checked), node, scope, 0, seen))
    except (_NoCurve, KeyError):
        return None
    domain = _domain_word(tensor)
    plotted, whole = _DOMAINS.get(domain, ((-4.0, 4.0), REAL))
    written = formula(tree, tensor.name)
    curve = Curve(f"{node.name}({tensor.name}) = {written}", tree, plotted, whole)
    if seen or len(written) > _MAX_FORMULA:
        curve.title = f"{node.name}({tensor.name})"
        curve.body = _body_text(checked, node)
    curve.bound = _checked_bound(checked, node)
    curve.notes = notes
    return curve


def _checked_bound(checked: Checked, node: ast.FnDecl) -> Interval | None:
    """The declared return domain narrowed by the checker's range for the returned value."""
    bound = NAMED_RANGES.get(_domain_word_of(node.return_type) or "")
    returned = node.expr_body
    if returned is None and node.body and isinstance(node.body[-1], ast.Return):
        returned = node.body[-1].value
    if returned is None:
        return bound
    base = _base(checked, node)
    found = checked.type_of(Span(base + returned.span.start, base + returned.span.end))
    domain = found.domain if isinstance(found, TensorType) else None
    inferred = None
    if domain is not None:
        inferred = domain.interval or NAMED_RANGES.get(domain.name)
    if inferred is None:
        return bound
    return inferred if bound is None else bound.intersect(inferred)


def _without_tensor(call: _Call | None, node: ast.FnDecl, tensor: ast.Param) -> _Call | None:
    """The call's host arguments: the positional ones with the tensor's taken out."""
    if call is None:
        return None
    positional = list(call.positional)
    index = node.params.index(tensor)
    if not call.piped and index < len(positional) and tensor.name not in call.keywords:
        positional.pop(index)
    keywords = {key: value for key, value in call.keywords.items() if key != tensor.name}
    return _Call(positional, keywords, piped=True)


def _same_axes(checked: Checked, tensor: ast.Param, node: ast.FnDecl) -> bool:
    """Whether the declared result has the input's axes (as written)."""
    if node.return_type is None or tensor.type is None:
        return True
    given, returned = tensor.type.shape, node.return_type.shape
    if given is None or returned is None:
        return given is None and returned is None
    text = checked.source.text
    base = _base(checked, node)

    def written(shape: ast.Shape) -> str:
        return " ".join(text[base + shape.span.start : base + shape.span.end].split())

    return written(given) == written(returned)


def _base(checked: Checked, node) -> int:
    for item in checked.items:
        if item.item is node:
            return item.base
    return 0


def _domain_word(param: ast.Param) -> str | None:
    return _domain_word_of(param.type)


def _domain_word_of(written: ast.TypeExpr | None) -> str | None:
    if written is None:
        return None
    for word in written.words:
        if word.name in NAMED_RANGES or word.name == "Real":
            return word.name
    return None


def _body_text(checked: Checked, node: ast.FnDecl) -> str:
    """The body as written: the expression, or the block's lines without their indentation."""
    base = _base(checked, node)
    text = checked.source.text
    if node.expr_body is not None:
        span = node.expr_body.span
        return " ".join(text[base + span.start : base + span.end].split())
    body = node.body or []
    block = text[base + body[0].span.start : base + body[-1].span.end]
    return textwrap.dedent(" " * _column(text, base + body[0].span.start) + block)


def _column(text: str, offset: int) -> int:
    return offset - (text.rfind("\n", 0, offset) + 1)


def _body_tree(
    walk: _Walk, node: ast.FnDecl, scope: dict[str, Tree], depth: int, seen: set | None = None
) -> Tree:
    """The function's result as a tree; `seen` collects "if" when an if chose a branch."""
    if depth > _MAX_DEPTH:
        raise _NoCurve
    if node.expr_body is not None:
        return _tree(walk, node.expr_body, scope, depth)
    seen = seen if seen is not None else set()
    found = _statements(walk, node.body or [], dict(scope), depth, seen)
    if found is None:
        raise _NoCurve
    return found


def _statements(walk: _Walk, statements, scope: dict[str, Tree], depth: int, seen: set):
    for statement in statements:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            scope[statement.targets[0].name] = _tree(walk, statement.value, scope, depth)
        elif isinstance(statement, ast.Return) and statement.value is not None:
            return _tree(walk, statement.value, scope, depth)
        elif isinstance(statement, ast.If):
            condition = _small(_tree(walk, statement.condition, scope, depth))
            if _uses_input(condition):
                raise _NoCurve
            seen.add("if")
            taken = statement.then_body if evaluate(condition, 0.0) else statement.else_body
            found = _statements(walk, taken or [], scope, depth, seen)
            if found is not None:
                return found
        else:
            raise _NoCurve
    return None


def _uses_input(tree: Tree) -> bool:
    return any(isinstance(node, Var) for node in _nodes(tree))


def _nodes(tree: Tree) -> list[Tree]:
    """The tree's nodes, a node shared by two parents counted twice; no recursion."""
    found: list[Tree] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        if len(found) > _MAX_NODES:
            raise _NoCurve
        if isinstance(node, Neg | Not):
            stack.append(node.operand)
        elif isinstance(node, Bin):
            stack += (node.left, node.right)
        elif isinstance(node, Apply):
            stack.extend(node.args)
    return found


def _small(tree: Tree) -> Tree:
    """The tree, if it has at most `_MAX_NODES` nodes written out in full."""
    _nodes(tree)
    return tree


_BINARY = frozenset({"+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">=", "and", "or"})


def _tree(walk: _Walk, node, scope: dict[str, Tree], depth: int) -> Tree:
    walk.spend()
    number = _literal(node)
    if number is not None and not isinstance(node, ast.Unary):
        return Num(number)
    if isinstance(node, ast.Name):
        if node.name in scope:
            return scope[node.name]
        if node.name in walk.checked.dim_values:
            return Num(float(walk.checked.dim_values[node.name]))
        raise _NoCurve
    if isinstance(node, ast.Unary):
        operand = _tree(walk, node.operand, scope, depth)
        return Neg(operand) if node.op == "-" else Not(operand)
    if isinstance(node, ast.Binary) and node.op in _BINARY:
        left = _tree(walk, node.left, scope, depth)
        return Bin(node.op, left, _tree(walk, node.right, scope, depth))
    if isinstance(node, ast.Pipe):
        value = _tree(walk, node.input, scope, depth)
        for stage in node.stages:
            value = _stage(walk, stage, value, scope, depth)
        return value
    if isinstance(node, ast.Call):
        return _call(walk, node, None, scope, depth)
    raise _NoCurve


def _stage(walk: _Walk, stage, value: Tree, scope, depth: int) -> Tree:
    if isinstance(stage, ast.Name):
        return _apply(walk, stage.name, [value], {}, scope, depth)
    if isinstance(stage, ast.Call):
        return _call(walk, stage, value, scope, depth)
    raise _NoCurve


def _call(walk: _Walk, node: ast.Call, piped: Tree | None, scope, depth: int) -> Tree:
    if not isinstance(node.callee, ast.Name):
        raise _NoCurve
    positional: list[Tree] = []
    keywords: dict[str, Tree] = {}
    placed = False
    for arg in node.args:
        if isinstance(arg.value, ast.Placeholder):
            if piped is None:
                raise _NoCurve
            tree, placed = piped, True
        else:
            tree = _tree(walk, arg.value, scope, depth)
        if arg.name is None:
            positional.append(tree)
        else:
            keywords[arg.name] = tree
    if piped is not None and not placed:
        positional.insert(0, piped)
    return _apply(walk, node.callee.name, positional, keywords, scope, depth)


def _apply(walk: _Walk, name: str, positional, keywords, scope, depth: int) -> Tree:
    declaration = _declaration(walk.checked, name)
    if isinstance(declaration, ast.FnDecl):
        return _inline(walk, declaration, positional, keywords, depth)
    if isinstance(declaration, ast.ExternFnDecl):
        path = declaration.python_path.value if declaration.python_path else ""
        if path not in PYTHON_NAMES:
            raise _NoCurve
        name = PYTHON_NAMES[path]
    if name not in FUNCTIONS:
        raise _NoCurve
    params = FUNCTIONS[name][1]
    first = ("cond",) if name == "where" else ("a",) if name in _TWO_SIDED else ("x",)
    names = [*first, *(param for param, _ in params)]
    args: list[Tree] = []
    for index, param in enumerate(names):
        if index < len(positional):
            args.append(positional[index])
        elif param in keywords:
            args.append(keywords[param])
        else:
            default = params[index - 1][1] if index > 0 else None
            if default is None:
                raise _NoCurve
            args.append(Num(default))
    return Apply(name, tuple(args))


_TWO_SIDED = frozenset({"maximum", "minimum", "add", "sub", "mul", "div"})


def _inline(walk: _Walk, node: ast.FnDecl, positional, keywords, depth: int) -> Tree:
    scope: dict[str, Tree] = {}
    for index, param in enumerate(node.params):
        if index < len(positional):
            scope[param.name] = positional[index]
        elif param.name in keywords:
            scope[param.name] = keywords[param.name]
        elif param.default is not None and _literal(param.default) is not None:
            scope[param.name] = Num(_literal(param.default))
        else:
            raise _NoCurve
    return _body_tree(walk, node, scope, depth + 1)
