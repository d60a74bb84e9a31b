"""The torch.compile switch: compiled function bodies run through `torch.compile`.

`shapescript.torch_compile(True)` (or `SHAPESCRIPT_TORCH_COMPILE=1` in the environment,
which `shapescript run --torch-compile` sets) makes every file compiled afterwards split
each function in two: the public function, which checks its arguments in plain Python as
always, and its body, which it calls and which runs through `torch.compile` (`compiled`).
So a wrong argument fails before anything is traced, with the usual message, and the
compiled region holds only the body's tensor code.

Each body is compiled on its first call, for that call's shapes, every size static: a
program whose shapes never change gets inductor's kernels for them. The first call whose
size variables (the axes of its tensor arguments that the checker knows may vary across
calls, `b` and `n`) differ from the first call's marks those axes dynamic, all of them at
once, and torch traces the body again; the dims (`D = 768`) stay static, so that second
graph serves every later `b` and `n`. Where torch refuses (no C compiler, an op inductor
can't lower, an error while tracing), the body warns once, naming the function and why,
and runs eagerly from then on.

Importing this module doesn't import torch; a body imports it when first called.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: The environment variable that turns the switch on in a new process (`1`, `true`, `on`).
ENVIRONMENT = "SHAPESCRIPT_TORCH_COMPILE"

#: The values of ENVIRONMENT that turn the switch on with inductor.
_ON_WORDS = ("1", "true", "yes", "on", "inductor")


class TorchCompileWarning(UserWarning):
    """torch.compile refused a function's body, which runs eagerly instead."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What `torch_compile(...)` asked for: a torch.compile backend (a name or a function)
    and mode."""

    backend: str | Callable[..., Any] = "inductor"
    mode: str | None = None


def _from_environment() -> Settings | None:
    value = os.environ.get(ENVIRONMENT, "").strip().lower()
    if value in _ON_WORDS:
        return Settings()
    if value in ("eager", "aot_eager"):
        return Settings(backend=value)
    return None


_settings: Settings | None = _from_environment()


def torch_compile(
    on: bool = True, *, backend: str | Callable[..., Any] = "inductor", mode: str | None = None
) -> None:
    """Compile the bodies of the functions of files compiled from now on with
    `torch.compile(backend=backend, mode=mode)`; `torch_compile(False)` turns it off.

    It applies to `.ss` files compiled after the call (imported, or given to
    `shapescript.compile`); modules already made keep the code they were made with, and a
    module made with the switch on reads the backend and mode when each body first runs.
    """
    global _settings
    if not isinstance(on, bool):
        raise TypeError(f"torch_compile takes True or False, not {type(on).__name__}")
    if not (isinstance(backend, str) and backend) and not callable(backend):
        raise TypeError("torch_compile's backend is a torch.compile backend, such as 'inductor'")
    _settings = Settings(backend, mode) if on else None


def enabled() -> bool:
    """Whether files compiled now get compiled bodies."""
    return _settings is not None


def settings() -> Settings | None:
    return _settings


def resolve(on: bool | None) -> bool:
    """A compile's own choice where it made one, else the process-wide switch."""
    return enabled() if on is None else bool(on)


def _refusals() -> tuple[type[BaseException], ...]:
    """The exceptions by which torch.compile says it can't compile (not a program's errors)."""
    from torch._dynamo.exc import TorchDynamoException

    found: list[type[BaseException]] = [TorchDynamoException]
    try:
        from torch._inductor.exc import InductorError
    except ImportError:  # pragma: no cover - older torch
        pass
    else:
        found.append(InductorError)
    return tuple(found)


def _reason(error: BaseException) -> str:
    """Why torch refused, in a line: the innermost error it wraps (a backend's own), without
    torch's long advice."""
    inner = error
    for _ in range(8):
        wrapped = getattr(inner, "inner_exception", None) or inner.__cause__
        if not isinstance(wrapped, BaseException):
            break
        inner = wrapped
    lines = str(inner).strip().splitlines()
    first = lines[0] if lines else ""
    return f"{type(inner).__name__}: {first}" if first else type(inner).__name__


class CompiledBody:
    """A function's body, run through torch.compile from its first call, eagerly if refused.

    `dynamic` lists, per tensor argument of the body, its position and the axes that may
    vary across calls (negative after a `...`); the first trace has them static, and the
    first call where one differs from the first call's marks them all dynamic.
    """

    __slots__ = (
        "__name__",
        "__wrapped__",
        "_compiled",
        "_first_sizes",
        "_refusals",
        "dynamic",
        "eager",
        "where",
    )

    def __init__(
        self,
        eager: Callable[..., Any],
        where: str,
        dynamic: tuple[tuple[int, tuple[int, ...]], ...],
    ) -> None:
        self.eager = eager
        self.where = where
        self.dynamic = dynamic
        self.__wrapped__ = eager
        self.__name__ = getattr(eager, "__name__", "body")
        self._compiled: Callable[..., Any] | None = None
        self._refusals: tuple[type[BaseException], ...] = ()
        #: The first call's sizes on the axes that may vary, until a call differs (None
        #: from then on, and for a body with no such axes).
        self._first_sizes: tuple[int, ...] | None = None

    def __call__(self, *args: Any) -> Any:
        # Called from another body that is being traced: trace this one into it.
        if _is_compiling():
            return self.eager(*args)
        compiled = self._compiled
        if compiled is None:
            return self._first(args)
        if compiled is self.eager:
            return compiled(*args)
        first = self._first_sizes
        if first is not None and self._sizes(args) != first:
            self._first_sizes = None
            self._mark(args)
        try:
            return compiled(*args)
        except self._refusals as error:
            return self._refused(error, args)

    def _first(self, args: tuple[Any, ...]) -> Any:
        import torch

        chosen = _settings or Settings()
        try:
            self._refusals = _refusals()
            self._compiled = torch.compile(self.eager, backend=chosen.backend, mode=chosen.mode)
        except Exception as error:  # torch.compile itself refused: an old Python, a platform
            return self._refused(error, args)
        if self.dynamic:
            self._first_sizes = self._sizes(args)
        try:
            return self._compiled(*args)
        except self._refusals as error:
            return self._refused(error, args)

    def _axes(self, args: tuple[Any, ...]) -> list[tuple[Any, int]]:
        """Each tensor argument with an axis that may vary, and that axis's index."""
        found = []
        for position, axes in self.dynamic:
            tensor = args[position] if position < len(args) else None
            shape = getattr(tensor, "shape", None)
            if shape is None:
                continue
            rank = len(shape)
            for axis in axes:
                index = axis + rank if axis < 0 else axis
                if 0 <= index < rank:
                    found.append((tensor, index))
        return found

    def _sizes(self, args: tuple[Any, ...]) -> tuple[int, ...]:
        """The sizes of the axes that may vary, in this call."""
        return tuple(tensor.shape[index] for tensor, index in self._axes(args))

    def _mark(self, args: tuple[Any, ...]) -> None:
        """Mark the axes that may vary dynamic, for the trace this call makes."""
        import torch

        for tensor, index in self._axes(args):
            torch._dynamo.maybe_mark_dynamic(tensor, index)

    def _refused(self, error: BaseException, args: tuple[Any, ...]) -> Any:
        self._compiled = self.eager
        warnings.warn(
            f"torch.compile can't compile `{self.where}`, which runs without it: {_reason(error)}",
            TorchCompileWarning,
            stacklevel=3,
        )
        return self.eager(*args)


def compiled(
    body: Callable[..., Any], where: str, dynamic: tuple[tuple[int, tuple[int, ...]], ...] = ()
) -> CompiledBody:
    """The body of the function `where` names (`attention.ss:17 causal_attention`), compiled."""
    global _is_compiling
    if _is_compiling is _not_yet:
        import torch

        _is_compiling = torch.compiler.is_compiling
    return CompiledBody(body, where, dynamic)


def _not_yet() -> bool:
    return False


#: `torch.compiler.is_compiling`, bound when the first body is made (torch is imported then).
_is_compiling: Callable[[], bool] = _not_yet
