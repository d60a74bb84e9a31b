"""`shapescript new NAME`: make a ShapeScript package to start from.

The folder NAME gets a pyproject.toml whose build backend is `shapescript.build` and which
requires this compiler's major.minor (its whole version for a pre-release, which pip takes
only when a requirement names one), a first `.ss` module and a test of it.
"""

from __future__ import annotations

import argparse
import os
import re

import shapescript
from shapescript.commands.support import EXIT_OK, UsageError

NAME = "new"
HELP = "make a ShapeScript package to start from"
DESCRIPTION = (
    "Make the folder NAME with a package that pip can build and install: pyproject.toml "
    "(build backend shapescript.build), NAME/layers.ss and tests/test_layers.py. See "
    "docs/packages.md."
)

_PROJECT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_PRERELEASE = re.compile(r"(a|b|rc|dev)\d*", re.IGNORECASE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the package's name, as shapes_extra")
    parser.add_argument("--path", metavar="FOLDER", help="make the package here (default: ./NAME)")


def requirement(version: str | None = None) -> str:
    """`shapescript>=X.Y` for this compiler; its whole version when it is a pre-release."""
    version = version or shapescript.__version__
    if _PRERELEASE.search(version):
        return f"shapescript>={version}"
    return "shapescript>=" + ".".join(version.split(".")[:2])


def pyproject(project: str) -> str:
    needed = requirement()
    return f"""[build-system]
requires = ["{needed}"]
build-backend = "shapescript.build"

[project]
name = "{project}"
version = "0.1.0"
description = "ShapeScript layers"
requires-python = ">=3.11"
dependencies = ["{needed}"]

[project.optional-dependencies]
test = ["pytest"]
"""


LAYERS = """## The width of a feature vector.
dim D = 16

## The features, doubled.
fn double(x: [b D]) -> [b D]:
    return x + x
"""

TEST = """import shapescript
import torch

# The hook finds layers.ss in the source folder too, where no module was generated.
shapescript.install()
shapescript.devices("cpu")

from {package} import layers  # noqa: E402


def test_double() -> None:
    x = torch.ones(3, layers.D)
    assert torch.equal(layers.double(x), 2 * x)
"""

README = """# {project}

A ShapeScript package. Build a wheel with `pip wheel .` (the build checks every `.ss`
file), install it with `pip install .`, and import its modules from ShapeScript
(`import {package}.layers`) or from Python (`from {package} import layers`).
"""


def files(project: str) -> dict[str, str]:
    """The package's files, by path relative to its folder."""
    package = project.replace("-", "_").lower()
    return {
        "pyproject.toml": pyproject(project),
        "README.md": README.format(project=project, package=package),
        os.path.join(package, "__init__.py"): f'"""{project}: ShapeScript layers."""\n',
        os.path.join(package, "layers.ss"): LAYERS,
        os.path.join("tests", "test_layers.py"): TEST.format(package=package),
    }


def run(args: argparse.Namespace) -> int:
    from shapescript import atomic_write

    project = args.name
    if not _PROJECT_NAME.match(project) or not project.replace("-", "_").isidentifier():
        raise UsageError(
            f"`{project}` can't name a package: use letters, digits, `_` and `-`, "
            "starting with a letter (as shapes_extra)"
        )
    folder = args.path or project
    if os.path.exists(folder) and (not os.path.isdir(folder) or os.listdir(folder)):
        raise UsageError(f"`{folder}` already exists: choose another NAME or --path")
    for relative, text in files(project).items():
        target = os.path.join(folder, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        atomic_write.write_text(target, text)
    package = project.replace("-", "_").lower()
    print(f"made the package {project} in {folder}: {package}/layers.ss is its first module")
    print(f"next: cd {folder} && pip install -e . && shapescript check {package}")
    return EXIT_OK
