"""Recorded steps: a training step recorded once per signature as a CUDA graph, replayed.

`recorded(step, name, where)` wraps a step the checker found recordable. Each call is
keyed by its signature (the shapes, dtypes and devices of its tensors, which model and
optimizer state, its host values, whether each mode trains). Where a recorder is
available (CUDA), the first call warms up, then each new signature is recorded and later
calls replay its graph; at most `LIMIT` signatures per step, more run as they are. A
recording that fails turns recording off for that step, with a RuntimeWarning. Where no
recorder is available (CPU, MPS), or recording is off, every call runs as it is.

The decision code here takes its recorder as a parameter, so it is tested with a fake
one; `CudaRecorder` is the real one, which has never run on a GPU in this project's
tests. Dropout draws of Train modes are logged in the warm-up (`Draw`); a recording
gives each its own generator, registered with the graph, and each replay seeds them
with the seeds the draws would have had without recording.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import torch

from shapescript.records import field, record
from shapescript.rt import randomness

#: The most signatures a step records; further ones run as they are.
LIMIT = 64
_OFF_WORDS = frozenset({"0", "false", "off", "no"})
_state = {"on": os.environ.get("SHAPESCRIPT_RECORD_STEPS", "1").strip().lower() not in _OFF_WORDS}
_steps: dict[str, RecordedStep] = {}


def record_steps(on: bool) -> bool:
    """Turn recording of steps on or off; returns what it was."""
    was = _state["on"]
    _state["on"] = bool(on)
    return was


def recording_on() -> bool:
    return _state["on"]


def recorded_steps() -> dict[str, dict[str, Any]]:
    """For each step by name: its graphs and their shapes, and how its calls ran."""
    return {name: step.stats.summary() for name, step in _steps.items()}


class NotRecordable(Exception):
    """A call the recorder declines (not an error): it runs as it is, with no warning."""


class Graph(Protocol):
    def replay(self, args: tuple, kwargs: dict[str, Any]) -> Any: ...


class Recorder(Protocol):
    """What records and replays steps: CUDA graphs, or a fake one in tests."""

    def why_not(self, args: tuple, kwargs: dict[str, Any]) -> str | None:
        """Why calls with these arguments can't be recorded here (None: they can)."""
        ...

    def warm_up(self, step: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> Any: ...

    def record(
        self, step: Callable[..., Any], args: tuple, kwargs: dict[str, Any], draws: list[Draw]
    ) -> Graph:
        """Record the step for these arguments; `draws` are its dropout draws, as its
        warm-up made them, each to get a generator of its own."""
        ...


# ---------------------------------------------------------------------- dropout draws


@record(frozen=True)
class Draw:
    """One dropout draw of a step: where its mode is among the step's arguments (a
    position or a keyword; None: not one of them), the path it adds to that mode's, and
    the device it draws on."""

    place: int | str | None
    path: tuple[str, ...]
    device: str


def _modes(args: tuple, kwargs: dict[str, Any]) -> list[tuple[int | str, Any]]:
    places: list[tuple[int | str, Any]] = list(enumerate(args)) + list(kwargs.items())
    return [(place, value) for place, value in places if type(value).__name__ == "Mode"]


class DrawLog:
    """Notes each draw of a run (the warm-up) and gives it the generator it would have
    had without recording."""

    def __init__(self, args: tuple, kwargs: dict[str, Any]) -> None:
        self.modes = _modes(args, kwargs)
        self.draws: list[Draw] = []

    def __call__(self, mode: Any, device: torch.device) -> torch.Generator:
        place: int | str | None = None
        suffix = tuple(mode.path)
        for where, given in self.modes:
            own = tuple(given.path)
            if given.seed == mode.seed and suffix[: len(own)] == own:
                place, suffix = where, suffix[len(own) :]
                break
        self.draws.append(Draw(place, suffix, str(device)))
        generator = torch.Generator(device=device)
        generator.manual_seed(mode.generator_seed())
        return generator


def draw_seeds(draws: list[Draw], args: tuple, kwargs: dict[str, Any]) -> list[int]:
    """The seed each draw has in a call with these arguments, as it would without
    recording: from the seed of the call's own mode and the draw's path."""
    from shapescript.rt.randomness import Mode

    seeds = []
    for draw in draws:
        if draw.place is None:
            raise NotRecordable("a dropout draw's mode isn't one the step is given")
        given = args[draw.place] if isinstance(draw.place, int) else kwargs[draw.place]
        seeds.append(Mode(given.seed, (*given.path, *draw.path)).generator_seed())
    return seeds


class DrawSupply:
    """Hands a recorded step's draws their own generators, in the order they were
    logged; a step that draws differently is an error (its recording fails)."""

    def __init__(self, generators: list[torch.Generator]) -> None:
        self.generators = generators
        self.given = 0

    def __call__(self, mode: Any, device: torch.device) -> torch.Generator:
        if self.given >= len(self.generators):
            raise RuntimeError("the step drew more random numbers than when it was warmed up")
        self.given += 1
        return self.generators[self.given - 1]

    def check(self) -> None:
        if self.given != len(self.generators):
            raise RuntimeError("the step drew fewer random numbers than when it was warmed up")


# ---------------------------------------------------------------------- signatures


def signature(args: Iterable[Any], kwargs: dict[str, Any]) -> tuple:
    """What a recorded graph depends on, of a call's arguments."""
    return (
        tuple(_key(value) for value in args),
        tuple((k, _key(v)) for k, v in sorted(kwargs.items())),
    )


def _tensor_key(value: torch.Tensor) -> tuple:
    return ("tensor", tuple(value.shape), str(value.dtype), str(value.device))


def _key(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return _tensor_key(value)
    if value is None or isinstance(value, bool | int | float | str):
        return (type(value).__name__, value)
    if isinstance(value, dict):
        return ("dict", tuple((k, _key(v)) for k, v in sorted(value.items())))
    if isinstance(value, tuple | list):
        return ("seq", tuple(_key(v) for v in value))
    seed = getattr(value, "seed", _MISSING) if type(value).__name__ == "Mode" else _MISSING
    if seed is not _MISSING:
        return ("mode", seed is not None)
    if isinstance(value, torch.nn.Module):
        tensors = tuple(_tensor_key(t) for t in value.state_dict().values())
        return ("model", type(value).__qualname__, id(value), tensors)
    fields = getattr(value, "_fields", None)
    if callable(fields) and hasattr(value, "_ss_record"):
        return ("batch", value._ss_record._ss_name, _key(fields()))
    if hasattr(value, "torch") and hasattr(value, "steps"):
        return ("optimizer", getattr(value, "name", ""), id(value))
    return ("object", type(value).__qualname__, id(value))


_MISSING = object()


# ---------------------------------------------------------------------- the wrapper


@record
class Stats:
    """How a step's calls ran."""

    shapes: list[tuple] = field(default_factory=list)
    replays: int = 0
    as_is: int = 0
    waits: int = 0
    recording_seconds: float = 0.0
    why_not: str | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "graphs": len(self.shapes),
            "shapes": list(self.shapes),
            "replays": self.replays,
            "as_is": self.as_is,
            "waits": self.waits,
            "recording_seconds": self.recording_seconds,
            "why_not": self.why_not,
        }


class RecordedStep:
    """A step recorded per signature by `recorder`, replayed on later calls."""

    def __init__(self, step: Callable[..., Any], name: str, where: str, recorder: Recorder) -> None:
        self.step = step
        self.name = name
        self.where = where
        self.recorder = recorder
        self.graphs: dict[tuple, Graph] = {}
        self.warmed = False
        self.failed = False
        self.stats = Stats()
        self.lock = threading.Lock()
        self.pending: list[tuple[tuple, dict[str, Any]]] = []
        self.sizes: tuple[str, list[int]] | None = None
        self.last: tuple[tuple, dict[str, Any]] | None = None
        self.draws: list[Draw] = []
        functools.update_wrapper(self, step)  # type: ignore[arg-type]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not recording_on() or self.failed:
            return self.as_is(args, kwargs)
        why = self.recorder.why_not(args, kwargs)
        if why is not None:
            self.stats.why_not = why
            return self.as_is(args, kwargs)
        if not self.warmed:
            self.warmed = True
            self.stats.as_is += 1
            log = DrawLog(args, kwargs)
            with randomness.drawing(log):
                result = self.recorder.warm_up(self.step, args, kwargs)
            self.draws = log.draws
            self.last = (args, kwargs)
            self.record_pending()
            self.plan_sizes()
            return result
        key = signature(args, kwargs)
        with self.lock:
            graph = self.graphs.get(key)
        if graph is None:
            if len(self.graphs) >= LIMIT:
                return self.as_is(args, kwargs)
            graph = self.record(key, args, kwargs)
            if graph is None:
                return self.as_is(args, kwargs)
        self.stats.replays += 1
        return graph.replay(args, kwargs)

    def as_is(self, args: tuple, kwargs: dict[str, Any]) -> Any:
        self.stats.as_is += 1
        return self.step(*args, **kwargs)

    def record(self, key: tuple, args: tuple, kwargs: dict[str, Any]) -> Graph | None:
        """Record the step for `key`, or None (and from now on run as is) if it fails."""
        started = time.perf_counter()
        try:
            if any(draw.place is None for draw in self.draws):
                raise NotRecordable("a dropout draw's mode isn't one the step is given")
            graph = self.recorder.record(self.step, args, kwargs, self.draws)
        except NotRecordable as declined:
            self.stats.why_not = str(declined)
            return None
        except Exception as problem:  # noqa: BLE001 - any failure falls back, with a warning
            self.failed = True
            warnings.warn(
                f"{self.name} ({self.where}) couldn't be recorded as a CUDA graph and runs "
                f"operation by operation from now on: {problem}",
                RuntimeWarning,
                stacklevel=3,
            )
            return None
        finally:
            self.stats.recording_seconds += time.perf_counter() - started
        with self.lock:
            self.graphs[key] = graph
            self.stats.shapes.append(key)
        return graph

    def announce(self, calls: Iterable[tuple[tuple, dict[str, Any]]]) -> None:
        """Calls whose signatures an epoch will have: recorded ahead, after the warm-up."""
        self.pending.extend(calls)
        if self.warmed:
            self.record_pending()

    def announce_sizes(self, record: str, sizes: Iterable[int]) -> None:
        """A loop over batches of `record` will give batches of these sizes: once the step
        has run, it is recorded ahead for each, from the arguments of its last call."""
        self.sizes = (record, sorted(set(sizes)))
        if self.last is not None:
            self.plan_sizes()

    def plan_sizes(self) -> None:
        if self.sizes is None or self.last is None:
            return
        record, sizes = self.sizes
        self.sizes = None
        args, kwargs = self.last
        for size in sizes:
            resized = _resized(args, kwargs, record, size)
            if resized is not None:
                self.pending.append(resized)
        self.record_pending()

    def record_pending(self) -> None:
        while self.pending and not self.failed and len(self.graphs) < LIMIT:
            args, kwargs = self.pending.pop(0)
            key = signature(args, kwargs)
            if key not in self.graphs:
                self.record(key, args, kwargs)


def announce_batches(record: str, sizes: Iterable[int]) -> None:
    """A loop over batches of `record` announces its epoch's batch sizes as it starts."""
    if not recording_on():
        return
    sizes = list(sizes)
    for step in _steps.values():
        step.announce_sizes(record, sizes)


def _resized(args: tuple, kwargs: dict[str, Any], record: str, size: int) -> tuple | None:
    """A call's arguments with its batches of `record` (and their masks) at `size`
    examples, for recording ahead; None if it has no such batch."""
    from shapescript.rt.padding import mask_for, pad_along

    found = False

    def resize(value: Any) -> Any:
        nonlocal found
        fields = getattr(value, "_fields", None)
        if callable(fields) and getattr(value, "_ss_record", None) is not None:
            if value._ss_record._ss_name != record:
                return value
            found = True
            copy = type(value).__new__(type(value))
            copy.__dict__.update(value.__dict__)
            for key, tensor in fields().items():
                copy.__dict__[key] = (
                    pad_along(tensor, 0, size) if tensor.shape[0] < size else tensor[:size]
                )
            copy.__dict__.pop("_ss_mask", None)
            copy.__dict__.pop("_ss_real", None)
            return copy
        return value

    new_args = tuple(resize(value) for value in args)
    new_kwargs = {key: resize(value) for key, value in kwargs.items() if key != "_ss_pad"}
    if "_ss_pad" in kwargs:
        new_kwargs["_ss_pad"] = {
            axis: None if mask is None else mask_for(size, size, mask.device)
            for axis, mask in kwargs["_ss_pad"].items()
        }
    return (new_args, new_kwargs) if found else None


def recorded(step: Callable[..., Any], name: str, where: str) -> Callable[..., Any]:
    """The compiled form of a recordable step: recorded on CUDA, as it is elsewhere."""
    wrapped = RecordedStep(step, name, where, CudaRecorder())
    _steps[name] = wrapped
    return wrapped


# ---------------------------------------------------------------------- CUDA


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    if isinstance(value, tuple | list):
        return [t for v in value for t in _tensors(v)]
    fields = getattr(value, "_fields", None)
    if callable(fields) and hasattr(value, "_ss_record"):
        return _tensors(fields())
    return []


def _optimizers(args: Iterable[Any]) -> list[Any]:
    return [a for a in args if hasattr(a, "torch") and hasattr(a, "steps") and hasattr(a, "lr")]


class CudaRecorder:
    """Records steps as CUDA graphs: warm-up on a side stream, capture, replay."""

    def why_not(self, args: tuple, kwargs: dict[str, Any]) -> str | None:
        if not torch.cuda.is_available():
            return "CUDA isn't available: steps run as they are"
        tensors = _tensors(list(args) + list(kwargs.values()))
        if not any(t.is_cuda for t in tensors):
            return "the step's tensors aren't on a CUDA device"
        if any(not getattr(opt, "capturable", False) for opt in _optimizers(args)):
            return "the optimizer wasn't made with capturable=True"
        return None

    def warm_up(self, step: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> Any:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            result = step(*args, **kwargs)
        torch.cuda.current_stream().wait_stream(stream)
        return result

    def record(
        self, step: Callable[..., Any], args: tuple, kwargs: dict[str, Any], draws: list[Draw]
    ) -> Graph:
        static_args = tuple(_static(value) for value in args)
        static_kwargs = {key: _static(value) for key, value in kwargs.items()}
        optimizers = _optimizers(args)
        counts = [opt.steps for opt in optimizers]
        graph = torch.cuda.CUDAGraph()
        # Each draw gets a generator of its own, registered with the graph before it is
        # captured, so that each replay reads the seed and offset it has then.
        generators = [torch.Generator(device=draw.device) for draw in draws]
        for generator, seed in zip(
            generators, draw_seeds(draws, static_args, static_kwargs), strict=True
        ):
            graph.register_generator_state(generator)
            generator.manual_seed(seed)
        supply = DrawSupply(generators)
        torch.cuda.synchronize()
        with randomness.drawing(supply), torch.cuda.graph(graph):
            out = step(*static_args, **static_kwargs)
        supply.check()
        for opt, count in zip(optimizers, counts, strict=True):
            opt.steps = count
        return CudaGraph(graph, static_args, static_kwargs, out, optimizers, draws, generators)


def _static(value: Any) -> Any:
    """A copy of a call's inputs that the graph reads from: tensors and batches copied,
    models and optimizer state as they are (the graph updates them in place)."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, dict):
        return {key: _static(v) for key, v in value.items()}
    fields = getattr(value, "_fields", None)
    if callable(fields) and hasattr(value, "_ss_record"):
        copy = type(value).__new__(type(value))
        copy.__dict__.update(value.__dict__)
        copy.__dict__.update({key: t.clone() for key, t in fields().items()})
        return copy
    return value


class CudaGraph:
    """One recorded signature of a step: its graph and the tensors it reads and writes."""

    def __init__(
        self,
        graph: Any,
        args: tuple,
        kwargs: dict,
        out: Any,
        optimizers: list,
        draws: list[Draw] | None = None,
        generators: list[torch.Generator] | None = None,
    ) -> None:
        self.graph = graph
        self.inputs = _tensors(list(args) + list(kwargs.values()))
        self.out = out
        self.optimizers = optimizers
        self.draws = draws or []
        self.generators = generators or []

    def replay(self, args: tuple, kwargs: dict[str, Any]) -> Any:
        for static, given in zip(
            self.inputs, _tensors(list(args) + list(kwargs.values())), strict=True
        ):
            static.copy_(given)
        # Each draw's generator gets the seed it would have had without recording (its
        # offset back to 0), which the graph reads as it replays.
        for generator, seed in zip(
            self.generators, draw_seeds(self.draws, args, kwargs), strict=True
        ):
            generator.manual_seed(seed)
        for opt in self.optimizers:
            _write_learning_rate(opt)
        self.graph.replay()
        for opt in self.optimizers:
            opt.steps += 1
        return _copied(self.out)


def _write_learning_rate(opt: Any) -> None:
    """The rate the schedule gives for the update count, into the tensor the update reads."""
    from shapescript.rt.optimizer_groups import scale_of
    from shapescript.rt.optimizers import learning_rate

    rate = learning_rate(opt.lr, opt.steps)
    for group in opt.torch.param_groups:
        if isinstance(group["lr"], torch.Tensor):
            group["lr"].fill_(rate * scale_of(group))


def _copied(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, tuple):
        return tuple(_copied(v) for v in value)
    if isinstance(value, dict):
        return {key: _copied(v) for key, v in value.items()}
    if hasattr(value, "__dict__") and not isinstance(value, torch.nn.Module):
        copy = type(value).__new__(type(value))
        copy.__dict__.update({key: _copied(v) for key, v in value.__dict__.items()})
        return copy
    return value
