"""The Modal function a run calls, and the project's files in its image (built offline)."""

from __future__ import annotations

from pathlib import Path

import modal

from shapescript.modal_run.container import run_in_container
from shapescript.modal_run.gpu import parse_gpu
from shapescript.modal_run.launch import (
    RUN_TIMEOUT,
    FunctionSpec,
    define_function,
    function_spec,
    with_project,
)
from shapescript.modal_run.upload import select


def test_the_function_asks_for_the_gpus_and_a_day() -> None:
    spec = function_spec(parse_gpu("h100:3"))
    assert spec == FunctionSpec("H100:3", RUN_TIMEOUT)
    assert RUN_TIMEOUT == 24 * 60 * 60
    app = modal.App("shapescript-run-test")
    function = define_function(app, modal.Image.debian_slim(python_version="3.11"), spec)
    assert isinstance(function, modal.Function)
    assert function._spec_.gpus == "H100:3"
    assert function._is_generator_


class RecordingApp:
    """Records the options `app.function` is called with."""

    def __init__(self) -> None:
        self.options: dict[str, object] = {}

    def function(self, **options: object) -> object:
        self.options = options
        return lambda body: body


def test_the_function_is_the_container_side_sent_by_value() -> None:
    app = RecordingApp()
    function = define_function(app, "IMAGE", FunctionSpec("T4", 60))
    assert function is run_in_container
    assert app.options == {"image": "IMAGE", "gpu": "T4", "timeout": 60, "serialized": True}


def test_only_the_selected_files_are_added(tmp_path: Path) -> None:
    (tmp_path / "keep.py").write_text("")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "keep.cpython-311.pyc").write_text("")
    upload = select(str(tmp_path))
    image = with_project(modal.Image.debian_slim(python_version="3.11"), upload)
    assert isinstance(image, modal.Image)
