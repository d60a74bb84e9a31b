"""Devices: declared once, by a devices line or from Python; no default; only this machine's."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import shapescript
from shapescript import rt
from shapescript.rt import devices


def test_no_devices_declared_names_both_ways_to_declare_them() -> None:
    with pytest.raises(shapescript.DeviceError) as caught:
        rt.device()
    message = str(caught.value)
    assert "`devices cpu` line" in message
    assert 'shapescript.devices("cpu")' in message


def test_declared_device_is_a_torch_device() -> None:
    shapescript.devices("cpu")
    assert rt.device() == torch.device("cpu")
    assert devices._device is rt.device()
    assert devices.declared() == "cpu"


def test_declaring_the_same_devices_again_does_nothing() -> None:
    shapescript.devices("cpu")
    first = rt.device()
    shapescript.devices(" cpu ")
    rt.declare_devices("cpu", "/somewhere/model.ss")
    assert rt.device() is first


def test_declaring_other_devices_names_both_declarations() -> None:
    shapescript.devices("cpu")
    with pytest.raises(shapescript.DeviceError) as caught:
        rt.declare_devices("cuda[0]", "/work/model.ss")
    message = str(caught.value)
    assert 'shapescript.devices("cpu") at ' in message
    assert __file__ in message
    assert "the devices line of /work/model.ss" in message
    assert "`cuda[0]`" in message
    assert rt.device() == torch.device("cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_on_a_machine_without_it() -> None:
    with pytest.raises(shapescript.DeviceError, match="no CUDA GPU"):
        shapescript.devices("cuda[0]")
    with pytest.raises(shapescript.DeviceError):
        rt.device()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_number_beyond_the_machines_gpus() -> None:
    with pytest.raises(shapescript.DeviceError, match="numbered from 0"):
        shapescript.devices(f"cuda[{torch.cuda.device_count()}]")


@pytest.mark.skipif(torch.backends.mps.is_available(), reason="this machine has MPS")
def test_mps_on_a_machine_without_it() -> None:
    with pytest.raises(shapescript.DeviceError, match="MPS"):
        shapescript.devices("mps")


def test_several_cpu_workers_keep_the_controllers_tensors_on_its_cpu() -> None:
    shapescript.devices("cpu[0 1]")
    assert rt.device() == torch.device("cpu")
    assert devices.declared() == "cpu[0 1]"


@pytest.mark.skipif(torch.cuda.device_count() >= 2, reason="this machine has two GPUs")
def test_several_gpus_the_machine_lacks() -> None:
    with pytest.raises(shapescript.DeviceError, match="can't be used"):
        shapescript.devices("cuda[0 1]")


@pytest.mark.parametrize("text", ["tpu", "cuda", "cuda[]", "cuda[0 0]", "mps[0]", "cpu[0]", "cpu["])
def test_invalid_devices_text(text: str) -> None:
    with pytest.raises(shapescript.DeviceError, match="isn't a device"):
        shapescript.devices(text)


def test_parse_devices_reads_the_text_of_a_devices_line() -> None:
    assert devices.parse_devices("cuda[0 2]").text == "cuda[0 2]"
    assert devices.parse_devices("cuda[ 1 ]").numbers == (1,)
    assert devices.parse_devices("mps").numbers is None


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_function_called_before_devices_are_declared(tmp_path: Path) -> None:
    module = shapescript.compile("fn double(x: [n]) -> [n] = x * 2\n", str(tmp_path / "m.ss"))
    with pytest.raises(shapescript.DeviceError, match="no devices have been declared"):
        module.double(torch.ones(3))
    shapescript.devices("cpu")
    assert module.double(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]


def test_module_with_a_devices_line_declares_them_on_import(tmp_path: Path) -> None:
    _write(tmp_path, "on_cpu.ss", "devices cpu\n\nfn double(x: [n]) -> [n] = x * 2\n")
    shapescript.install()
    import sys

    sys.path.insert(0, str(tmp_path))
    import on_cpu  # type: ignore[import-not-found]

    assert devices.declared() == "cpu"
    assert on_cpu.double(torch.ones(2)).tolist() == [2.0, 2.0]


def test_module_declaring_other_devices_than_python_did(tmp_path: Path) -> None:
    shapescript.devices("cpu")
    path = tmp_path / "on_gpu.ss"
    with pytest.raises(shapescript.DeviceError) as caught:
        shapescript.compile("devices cuda[0]\n\nfn f(x: [n]) -> [n] = x\n", str(path))
    assert str(path) in str(caught.value)
    assert 'shapescript.devices("cpu")' in str(caught.value)


def test_tensor_argument_on_another_device(tmp_path: Path) -> None:
    shapescript.devices("cpu")
    module = shapescript.compile("fn double(x: [n]) -> [n] = x * 2\n", str(tmp_path / "m.ss"))
    with pytest.raises(shapescript.DeviceError) as caught:
        module.double(torch.ones(3, device="meta"))
    assert caught.value.parameter == "x"
    assert caught.value.function == "double"
