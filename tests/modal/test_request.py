"""`--modal GPU[:N]`: the request, and a devices line checked against it before anything starts."""

from __future__ import annotations

import pytest

from shapescript.commands.support import UsageError
from shapescript.modal_run.gpu import GpuRequest, check_devices_fit, parse_gpu


@pytest.mark.parametrize(
    ("text", "name", "count", "shown"),
    [
        ("T4", "T4", 1, "T4"),
        ("t4", "T4", 1, "T4"),
        ("H100:3", "H100", 3, "H100:3"),
        ("a100-80gb:8", "A100-80GB", 8, "A100-80GB:8"),
    ],
)
def test_gpu_requests_in_any_case(text: str, name: str, count: int, shown: str) -> None:
    request = parse_gpu(text)
    assert request == GpuRequest(name, count)
    assert request.text == shown


@pytest.mark.parametrize("text", ["T4:0", "T4:9", "T4:", ":2", "T4 2", ""])
def test_bad_gpu_requests_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError, match="--modal"):
        parse_gpu(text)


def test_more_cuda_devices_than_gpus_suggests_enough() -> None:
    with pytest.raises(UsageError) as raised:
        check_devices_fit(("cuda", (0, 1, 2)), parse_gpu("T4"))
    assert "cuda[0 1 2]" in str(raised.value)
    assert "--modal T4:3" in str(raised.value)


def test_devices_that_fit_pass() -> None:
    assert check_devices_fit(("cuda", (0, 1, 2)), parse_gpu("T4:3")) is None
    assert check_devices_fit(("cuda", (0,)), parse_gpu("L4")) is None
    assert check_devices_fit(None, parse_gpu("L4")) is None


@pytest.mark.parametrize("devices", [("cpu", None), ("cpu", (0, 1)), ("mps", None)])
def test_a_program_on_the_cpu_is_warned_the_gpu_is_unused(
    devices: tuple[str, tuple[int, ...] | None],
) -> None:
    warning = check_devices_fit(devices, parse_gpu("A10G"))
    assert warning is not None
    assert "A10G is unused" in warning
