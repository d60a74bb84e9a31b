"""Parameter groups: which params an optimizer's `no_decay` and `lr_scale` options select.

Shared by the checker, which reports the problems as diagnostics, and the runtime, which
raises them and builds torch's param groups from the settings. Nothing here imports torch.

An option's text is a list of words separated by spaces or commas. A word is a field path,
`b1`, `ln.w`, or for models that hold models `h.attn.w` (that field in every layer) or
`h.0.attn.w` (in one); a path that stops at a model held by a field selects all its params.
Two words name params by shape instead: `vectors`, every param with fewer than two axes
(biases, norm weights, scalars), and `matrices`, every param with two or more. A field of
that name is meant before the shape word. In `lr_scale` each word is followed by `=` and
the factor, `wte=0.1`. An empty text selects no params: the option's default.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: The options, in the order their settings are applied.
OPTIONS = ("no_decay", "lr_scale")
#: The words that select params by their number of axes, and what each selects.
SHAPE_WORDS = {
    "vectors": "every param with fewer than two axes",
    "matrices": "every param with two or more axes",
}

_ITEM = re.compile(r"[^\s,=]+(?:\s*=\s*[^\s,=]*)?|=[^\s,]*")
_PATH = re.compile(r"[A-Za-z_]\w*(?:\.(?:[A-Za-z_]\w*|\d+))*")


@dataclass(frozen=True, slots=True)
class Param:
    """A param as selectors see it: its path (`w1`, `h.0.attn.w`) and number of axes."""

    path: str
    rank: int


@dataclass(frozen=True, slots=True)
class Word:
    """One selector of an option: where it is in the option's text, and its factor."""

    option: str
    text: str
    start: int
    end: int
    scale: float | None = None


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong with an option: `kind` is "syntax", "unknown", "empty" or "conflict".

    `start` and `end` locate it in the option's text; `candidates` are the words that
    could have been meant (for "unknown").
    """

    kind: str
    option: str
    message: str
    start: int
    end: int
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Setting:
    """What a param's group says: whether it is decayed and its learning rate's factor."""

    decay: bool = True
    lr_scale: float = 1.0


DEFAULT = Setting()


def parse(option: str, text: str) -> tuple[list[Word], list[Problem]]:
    """The words of `option`'s text (`no_decay` or `lr_scale`), and what is malformed."""
    words: list[Word] = []
    problems: list[Problem] = []
    scaled = option == "lr_scale"
    for item in _ITEM.finditer(text):
        raw = item.group()
        start = item.start()
        selector, equals, factor = (part.strip() for part in raw.partition("="))
        end = start + len(raw.partition("=")[0].rstrip())
        if not selector or _PATH.fullmatch(selector) is None:
            problems.append(
                Problem(
                    "syntax",
                    option,
                    f"`{raw}` in `{option}` isn't a field path such as `w1` or `ln.w`, "
                    "nor `vectors` or `matrices`",
                    start,
                    item.end(),
                )
            )
            continue
        if not scaled:
            if equals:
                problems.append(
                    Problem(
                        "syntax",
                        option,
                        f"`{option}` lists params without settings: write `{selector}`, "
                        f"not `{raw}`",
                        start,
                        item.end(),
                    )
                )
                continue
            words.append(Word(option, selector, start, end))
            continue
        scale = _factor(factor) if equals else None
        if scale is None:
            shown = f"`{raw}`" if equals else f"`{selector}` has no factor"
            problems.append(
                Problem(
                    "syntax",
                    option,
                    f"{shown} in `lr_scale`: each param's factor is a number of at least 0, "
                    f"as in `{selector}=0.1`",
                    start,
                    item.end(),
                )
            )
            continue
        words.append(Word(option, selector, start, end, scale))
    return words, problems


def _factor(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 and text.strip() == text else None


def _parts(path: str) -> list[str]:
    return path.split(".")


def _without_indices(path: str) -> str:
    return ".".join(part for part in _parts(path) if not part.isdigit())


def selected(selector: str, params: list[Param]) -> list[int]:
    """The indices of the params `selector` selects: a shape word's, unless a field has
    that name, or the path's."""
    if selector in SHAPE_WORDS and not any(_parts(p.path)[0] == selector for p in params):
        vectors = selector == "vectors"
        return [index for index, param in enumerate(params) if (param.rank < 2) == vectors]
    return [index for index, param in enumerate(params) if on_path(selector, param.path)]


def on_path(selector: str, path: str) -> bool:
    """Whether the param at `path` is at the selector's path or under it; indices the
    selector leaves out (`h.attn.w` for `h.0.attn.w`) match any."""
    parts = _parts(path)
    wanted = _parts(selector)
    at = 0
    for part in parts:
        if at == len(wanted):
            return True
        if part == wanted[at]:
            at += 1
        elif not part.isdigit():
            return False
    return at == len(wanted)


def _known(selector: str, params: list[Param]) -> bool:
    """Whether the selector names fields the model has, whatever indices it gives."""
    if selector in SHAPE_WORDS:
        return True
    loose = _without_indices(selector)
    return any(on_path(loose, _without_indices(param.path)) for param in params)


def candidates(params: list[Param]) -> tuple[str, ...]:
    """The words an option could use for these params: their paths, then the shape words."""
    paths = dict.fromkeys(_without_indices(param.path) for param in params)
    return (*paths, *SHAPE_WORDS)


def listed(candidates: tuple[str, ...], model: str) -> str:
    """The params an option may name, as a message lists them."""
    paths = [f"`{word}`" for word in candidates if word not in SHAPE_WORDS]
    return f"{model}'s params are {', '.join(paths)}; `vectors` and `matrices` select by shape"


def plan(
    params: list[Param], words: list[Word], model: str = "the model", buffers: tuple[str, ...] = ()
) -> tuple[list[Setting], list[Problem]]:
    """Each param's setting under `words`, and the words that select nothing or disagree;
    `buffers` are the model's buffers' paths, which no option may name."""
    problems: list[Problem] = []
    decay = [True] * len(params)
    scales: list[tuple[float, Word] | None] = [None] * len(params)
    for word in words:
        chosen = selected(word.text, params)
        if not chosen:
            problems.append(_nothing(word, params, model, buffers))
            continue
        for index in chosen:
            if word.scale is None:
                decay[index] = False
                continue
            earlier = scales[index]
            if earlier is not None and earlier[0] != word.scale:
                problems.append(_conflict(word, earlier[1], params[index]))
                continue
            scales[index] = (word.scale, word)
    settings = [
        Setting(decay=decayed, lr_scale=scale[0] if scale is not None else 1.0)
        for decayed, scale in zip(decay, scales, strict=True)
    ]
    return settings, problems


def _nothing(word: Word, params: list[Param], model: str, buffers: tuple[str, ...]) -> Problem:
    if any(on_path(word.text, buffer) for buffer in buffers):
        return Problem(
            "unknown",
            word.option,
            f"`{word.text}` is a buffer of {model}, and only params have optimizer settings",
            word.start,
            word.end,
            candidates(params),
        )
    if not _known(word.text, params):
        return Problem(
            "unknown",
            word.option,
            f"{model} has no field `{word.text}` for `{word.option}`",
            word.start,
            word.end,
            candidates(params),
        )
    if word.text in SHAPE_WORDS:
        reason = f"{model} has no {SHAPE_WORDS[word.text].removeprefix('every ')}"
    else:
        reason = f"no param of {model} is at `{word.text}`"
    return Problem(
        "empty",
        word.option,
        f"`{word.text}` in `{word.option}` selects nothing: {reason}",
        word.start,
        word.end,
    )


def _conflict(word: Word, earlier: Word, param: Param) -> Problem:
    return Problem(
        "conflict",
        word.option,
        f"`{param.path}` gets two learning-rate factors, {earlier.scale:g} from "
        f"`{earlier.text}` and {word.scale:g} from `{word.text}`",
        word.start,
        word.end,
    )


def grouped(settings: list[Setting]) -> list[tuple[Setting, list[int]]]:
    """The params' indices by setting, each group in the order its first param comes."""
    groups: dict[Setting, list[int]] = {}
    for index, setting in enumerate(settings):
        groups.setdefault(setting, []).append(index)
    return list(groups.items())


__all__ = [
    "DEFAULT",
    "OPTIONS",
    "SHAPE_WORDS",
    "Param",
    "Problem",
    "Setting",
    "Word",
    "candidates",
    "grouped",
    "listed",
    "on_path",
    "parse",
    "plan",
    "selected",
]
