"""The build backend `shapescript.build`: hatchling's, with the package's `.ss` files checked.

A package names it in pyproject.toml (`build-backend = "shapescript.build"`). A wheel is
built by hatchling (its `[tool.hatch.build]` options apply) with one more build hook
(`shapescript.build.hook`), which checks every `.ss` file of the wheel (errors fail the
build) and adds each file's Python module, a `py.typed` in each top-level package with
`.ss` files and a `shapescript-build.toml` naming the compiler in each folder with them.
The sdist and editable installs are hatchling's own.
"""

from __future__ import annotations

import os
from typing import Any

import hatchling.build as _hatchling
from hatchling.build import (
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
]

# hatchling offers these only outside pip (whose build tracker calls build_wheel instead).
for _name in ("prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel"):
    if hasattr(_hatchling, _name):
        globals()[_name] = getattr(_hatchling, _name)
        __all__.append(_name)


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 517's build_wheel: hatchling's wheel, with the ShapeScript hook."""
    from shapescript.build.builder import ShapeScriptWheelBuilder

    builder = ShapeScriptWheelBuilder(os.getcwd())
    return os.path.basename(next(builder.build(directory=wheel_directory, versions=["standard"])))
