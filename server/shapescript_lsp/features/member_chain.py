"""The value before a `.` being completed, written as a chain through held models
(`m.h[1].attn`): its root name and the steps after it, and the type the steps lead to.

Read from the text, not the checker's facts, since the line being typed doesn't parse yet.
"""

from __future__ import annotations

import re

from shapescript.check.algebra.types import GradType, ModelType, StackType, Type
from shapescript.check.bodies.model_values import gradient_of_held
from shapescript.check.declarations.model_info import ModelInfo

#: A name, then `.name` and `[index]` steps, at the end of the text before the dot.
_CHAIN = re.compile(r"([^\W\d]\w*)((?:\s*\.\s*[^\W\d]\w*|\s*\[[^\[\]\n]*\])*)$")
_STEP = re.compile(r"\s*(?:\.\s*([^\W\d]\w*)|\[[^\[\]\n]*\])")


def chain_at_end(text: str) -> tuple[str, str, list[str | None]] | None:
    """The chain that ends `text`: its whole text, its root name, and each step, a field's
    name or None for an index; None when `text` doesn't end with a name or a step."""
    match = _CHAIN.search(text)
    if match is None:
        return None
    steps = [step.group(1) for step in _STEP.finditer(match.group(2))]
    return match.group(0), match.group(1), steps


def follow(root: Type | None, steps: list[str | None], infos: dict[str, ModelInfo]) -> Type | None:
    """The type that `steps` lead to from a value of type `root` through the models it
    holds: a field of a model or gradient, one model of a stack; None where they can't go."""
    current = root
    for step in steps:
        if current is None:
            return None
        if step is None:
            current = current.element if isinstance(current, StackType) else None
            continue
        if isinstance(current, ModelType | GradType):
            gradient = isinstance(current, GradType)
            info = infos.get(current.model if gradient else current.name)
            field = info.fields.get(step) if info is not None else None
            if field is None:
                return None
            current = gradient_of_held(field.type) if gradient else field.type
            continue
        return None
    return current
