"""A compact s-expression view of expressions and types, for readable parser tests."""

from __future__ import annotations

from shapescript.syntax import ast


def size(node: ast.SizeExpr) -> str:
    if isinstance(node, ast.SizeName):
        return node.name
    if isinstance(node, ast.SizeInt):
        return str(node.value)
    return f"({node.op} {size(node.left)} {size(node.right)})"


def axis(node: ast.Axis) -> str:
    match node:
        case ast.SizeAxis():
            return size(node.size)
        case ast.GroupAxis():
            return "(" + " ".join(axis(item) for item in node.items) + ")"
        case ast.GroupedSizeAxis():
            return f"{node.count}{node.name}"
        case ast.UnknownAxis():
            return f"?{node.name}"
        case _:
            return "..."


def type_(node: ast.TypeExpr) -> str:
    parts = []
    if node.shape is not None:
        parts.append("[" + " ".join(axis(a) for a in node.shape.axes) + "]")
    for word in node.words:
        text = word.name
        if word.arg is not None:
            text += f"[{size(word.arg)}]"
        if word.over:
            text += f" over {word.over}"
        parts.append(text)
    if node.dtype:
        parts.append(node.dtype)
    return " ".join(parts)


def pattern_axis(node: ast.PatternAxis) -> str:
    match node:
        case ast.PatternName():
            return node.name
        case ast.PatternInt():
            return str(node.value)
        case ast.PatternGroupedSize():
            return f"{node.count}{node.name}"
        case _:
            return "(" + " ".join(pattern_axis(item) for item in node.items) + ")"


def pattern(node: ast.Pattern) -> str:
    sides = [" ".join(pattern_axis(a) for a in side.axes) for side in node.inputs]
    output = " ".join(pattern_axis(a) for a in node.output.axes)
    return "{" + ", ".join(sides) + " -> " + output + "}"


def expr(node) -> str:
    match node:
        case ast.Name():
            return node.name
        case ast.IntLit() | ast.BoolLit():
            return str(node.value).lower()
        case ast.FloatLit():
            return node.text
        case ast.StringLit():
            return repr(node.value)
        case ast.InfLit():
            return "inf"
        case ast.Placeholder():
            return "_"
        case ast.Unary():
            return f"({node.op} {expr(node.operand)})"
        case ast.Binary():
            return f"({node.op} {expr(node.left)} {expr(node.right)})"
        case ast.Cast():
            return f"({node.kind} {expr(node.operand)} <{type_(node.type)}>)"
        case ast.Call():
            args = []
            for arg in node.args:
                value = (
                    pattern(arg.value) if isinstance(arg.value, ast.Pattern) else expr(arg.value)
                )
                prefix = ("mut " if arg.mut else "") + (f"{arg.name}=" if arg.name else "")
                args.append(prefix + value)
            return f"(call {expr(node.callee)} {' '.join(args)})".replace(" )", ")")
        case ast.Index():
            return f"(index {expr(node.target)} {' '.join(expr(i) for i in node.items)})"
        case ast.Slice():
            parts = [expr(p) if p is not None else "" for p in (node.lo, node.hi, node.step)]
            return ":".join(parts).rstrip(":") or ":"
        case ast.SpacedIndex():
            return "{" + " ".join(expr(i) for i in node.items) + "}"
        case ast.Member():
            return f"{expr(node.target)}.{node.name}"
        case ast.Pipe():
            return f"(|> {expr(node.input)} {' '.join(expr(s) for s in node.stages)})"
        case ast.ToStage():
            return f"(to <{type_(node.type)}>)"
        case ast.Range():
            return f"(.. {expr(node.lo)} {expr(node.hi)})"
        case ast.Lambda():
            return f"(=> ({' '.join(p.name for p in node.params)}) {expr(node.body)})"
        case ast.ErrorExpr():
            return "<error>"
    raise TypeError(type(node))
