"""The container's image: described first (offline, testable), then built with `modal`."""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Literal

from shapescript.commands.support import UsageError

#: The packages the container gets at the local versions (Linux builds, with CUDA).
PINNED = ("torch", "numpy", "einops")
#: Where a wheel of ShapeScript is put in the image before it is installed.
WHEEL_FOLDER = "/opt/shapescript-wheels"
#: The time stamp of the files in a wheel built here (1980-01-01, the earliest a zip holds).
REPRODUCIBLE_EPOCH = "315532800"

SourceKind = Literal["wheel", "checkout", "requirement"]


@dataclass(frozen=True, slots=True)
class ShapeScriptSource:
    """Where the container's ShapeScript comes from: a wheel file, a source checkout (made
    into a wheel here), or a pip requirement."""

    kind: SourceKind
    value: str


@dataclass(frozen=True, slots=True)
class ImagePlan:
    """What the image holds: Python's version, pip requirements in order, and ShapeScript."""

    python_version: str
    requirements: tuple[str, ...]
    shapescript: ShapeScriptSource


def release(version: str) -> str:
    """A version without its local label (`2.5.1+cpu` is `2.5.1`): the build for Linux
    with CUDA is chosen by pip in the container."""
    return version.split("+", 1)[0]


def local_version(package: str) -> str:
    try:
        return release(metadata.version(package))
    except metadata.PackageNotFoundError as exc:
        raise UsageError(f"`{package}` isn't installed in this Python ({sys.executable})") from exc


def _requirement_name(requirement: str) -> str:
    name = requirement.strip()
    for mark in "<>=!~[; @":
        name = name.split(mark, 1)[0]
    return name.lower().replace("_", "-")


def requirements(extra: Sequence[str] = ()) -> tuple[str, ...]:
    """torch, numpy and einops at the local versions, unless `--pip` names one of them,
    then the `--pip` requirements."""
    named = {_requirement_name(requirement) for requirement in extra}
    pinned = [f"{name}=={local_version(name)}" for name in PINNED if name not in named]
    return (*pinned, *extra)


def _checkout_of(path: str) -> str | None:
    """The source checkout (a folder with pyproject.toml) a path is in, if any."""
    folder = os.path.abspath(path)
    while True:
        if os.path.isfile(os.path.join(folder, "pyproject.toml")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _checkout_with_package(module_folder: str) -> str | None:
    """The source checkout whose `compiler/shapescript` is `module_folder`, if it is one."""
    checkout = _checkout_of(module_folder)
    if checkout is None:
        return None
    inside = os.path.relpath(module_folder, checkout).replace(os.sep, "/")
    return checkout if inside == "compiler/shapescript" else None


def installed_source(module_folder: str | None = None) -> ShapeScriptSource:
    """This ShapeScript (its package in `module_folder`, default the imported one): the
    source checkout it is imported from, else what pip installed it from (a wheel file or a
    folder), else the release of its version on PyPI."""
    if module_folder is None:
        import shapescript

        module_folder = os.path.dirname(os.path.abspath(shapescript.__file__))
    checkout = _checkout_with_package(module_folder)
    if checkout is not None:
        return ShapeScriptSource("checkout", checkout)
    try:
        distribution = metadata.distribution("shapescript")
    except metadata.PackageNotFoundError as exc:
        raise UsageError(
            "can't tell where this ShapeScript came from: say it with --shapescript "
            "WHEEL, --shapescript CHECKOUT or --shapescript REQUIREMENT"
        ) from exc
    direct = distribution.read_text("direct_url.json")
    url = json.loads(direct).get("url", "") if direct else ""
    local = url[len("file://") :] if url.startswith("file://") else ""
    if local.endswith(".whl") and os.path.isfile(local):
        return ShapeScriptSource("wheel", local)
    if local and os.path.isfile(os.path.join(local, "pyproject.toml")):
        return ShapeScriptSource("checkout", local)
    return ShapeScriptSource("requirement", f"shapescript=={distribution.version}")


def source_from_option(value: str) -> ShapeScriptSource:
    """`--shapescript`: a wheel file, a source checkout or a pip requirement."""
    if value.endswith(".whl"):
        if not os.path.isfile(value):
            raise UsageError(f"--shapescript: no such wheel: `{value}`")
        name = os.path.basename(value)
        if not ("-none-any" in name or "linux" in name and "x86_64" in name):
            raise UsageError(
                f"--shapescript: `{name}` isn't a wheel for Linux x86_64 (nor a pure-Python one)"
            )
        return ShapeScriptSource("wheel", os.path.abspath(value))
    if os.path.isdir(value):
        if not os.path.isfile(os.path.join(value, "pyproject.toml")):
            raise UsageError(f"--shapescript: `{value}` is a folder without a pyproject.toml")
        return ShapeScriptSource("checkout", os.path.abspath(value))
    return ShapeScriptSource("requirement", value)


def plan_image(extra: Sequence[str] = (), shapescript: str | None = None) -> ImagePlan:
    """The image for this Python, these `--pip` requirements and `--shapescript`."""
    source = installed_source() if shapescript is None else source_from_option(shapescript)
    python = ".".join(platform.python_version_tuple()[:2])
    return ImagePlan(python, requirements(extra), source)


def build_wheel(checkout: str, into: str) -> str:
    """Build a wheel of the checkout into the empty folder `into` (no dependencies, no
    network); its path. The build is reproducible (SOURCE_DATE_EPOCH), so the same source
    makes the same wheel and Modal reuses the image built with it."""
    import subprocess

    command = [
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
        "--quiet", "-w", into, checkout,
    ]  # fmt: skip
    environment = {**os.environ, "SOURCE_DATE_EPOCH": REPRODUCIBLE_EPOCH}
    done = subprocess.run(command, stdout=sys.stderr, env=environment, check=False)
    wheels = sorted(name for name in os.listdir(into) if name.endswith(".whl"))
    if done.returncode != 0 or len(wheels) != 1:
        raise UsageError(
            f"can't build a wheel of ShapeScript from `{checkout}` (pip wheel failed); "
            "name one with --shapescript WHEEL"
        )
    return os.path.join(into, wheels[0])


def build_image(plan: ImagePlan, modal: Any, wheel: str | None = None) -> Any:
    """The `modal.Image` of a plan; a checkout's `wheel` must have been built already."""
    image = modal.Image.debian_slim(python_version=plan.python_version).pip_install(
        *plan.requirements
    )
    source = plan.shapescript
    if source.kind == "requirement":
        return image.pip_install(source.value)
    path = source.value if source.kind == "wheel" else wheel
    if path is None:
        raise ValueError("a checkout's wheel must be built before the image")
    inside = f"{WHEEL_FOLDER}/{os.path.basename(path)}"
    return image.add_local_file(path, inside, copy=True).pip_install(inside)
