"""Value checks of a batch's fields against their domains: once per batch, on its stacked values.

A failure names the first example whose values break the domain; finding it costs a second
look at the batch, but only when the check has already failed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import torch

from shapescript.rt import modes
from shapescript.rt.errors import DomainError
from shapescript.rt.items import RecordField, location


def value_checks_on() -> bool:
    """Whether value checks run now: `value_checks` as `install()` set it (`debug` unless
    Python runs with -O), the rule compiled code follows."""
    mode = modes.installed().value_checks
    return mode == "always" or (mode == "debug" and __debug__)


def _first_bad(
    test: Callable[[torch.Tensor], torch.Tensor], values: torch.Tensor, bad: torch.Tensor
) -> int | None:
    """The position in the batch of the first example whose values break the domain."""
    count = values.shape[0]
    if bad.dim() >= 1 and bad.shape[0] == count:
        rows = bad.reshape(count, -1).any(1).nonzero()
        return int(rows[0, 0]) if rows.numel() else None
    for position in range(count):
        if bool(test(values[position]).any()):
            return position
    return None


def _found(values: torch.Tensor, promise: str) -> str:
    """What the values are, for a promise about their extent (a range or indices)."""
    if values.numel() == 0 or values.dtype == torch.bool:
        return ""
    nans = int(values.isnan().sum()) if values.is_floating_point() else 0
    if nans:
        return f", but {nans} of them {'is' if nans == 1 else 'are'} NaN"
    if not promise.startswith(("values in", "indices in", "only")) or "sum" in promise:
        return ""
    if values.numel() == 1:
        return f", got {values.item():g}"
    return f", but they go from {values.min().item():g} to {values.max().item():g}"


def check_domains(
    fields: Sequence[RecordField],
    tensors: Mapping[str, torch.Tensor],
    example: Callable[[int | None], str],
    *,
    on_device: bool = False,
    **where: object,
) -> None:
    """Raise DomainError for the first field whose values break its domain.

    `example(position)` says which example it is (`item 37`), or with None the whole batch.
    With `on_device`, a CUDA tensor is checked with an assertion on the device instead.
    """
    for field in fields:
        test = field.domain_bad
        if test is None:
            continue
        values = tensors[field.name]
        bad = test(values)
        if on_device and bad.device.type == "cuda":
            torch._assert_async(~bad.any())
            continue
        if not bool(bad.any()):
            continue
        position = _first_bad(test, values, bad)
        found = _found(values if position is None else values[position], field.domain_text or "")
        raise DomainError(
            f"field `{field.name}` of {example(position)} breaks the promise of its type "
            f"{field.type_text}: expected {field.domain_text or 'values in its domain'}{found}",
            **(location(field.where) | where),  # type: ignore[arg-type]
        )
