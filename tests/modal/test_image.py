"""The container's image: the local Python and package versions, `--pip`, `--shapescript`."""

from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path

import modal
import pytest

from shapescript.commands.support import UsageError
from shapescript.modal_run import image as image_module
from shapescript.modal_run.image import (
    ImagePlan,
    ShapeScriptSource,
    build_image,
    plan_image,
    release,
    source_from_option,
)


def local(name: str) -> str:
    return metadata.version(name).split("+", 1)[0]


def test_local_python_and_pinned_packages() -> None:
    plan = plan_image(shapescript="shapescript==0.1.0")
    assert plan.python_version == ".".join(platform.python_version_tuple()[:2])
    assert plan.requirements == (
        f"torch=={local('torch')}",
        f"numpy=={local('numpy')}",
        f"einops=={local('einops')}",
    )
    assert plan.shapescript == ShapeScriptSource("requirement", "shapescript==0.1.0")


def test_a_local_label_is_dropped_so_the_container_gets_a_cuda_build() -> None:
    assert release("2.5.1+cpu") == "2.5.1"
    assert release("1.26.4") == "1.26.4"


def test_pip_adds_packages_and_replaces_a_pinned_version() -> None:
    plan = plan_image(["torch==2.6.0", "scipy>=1.13"], shapescript="shapescript")
    assert plan.requirements == (
        f"numpy=={local('numpy')}",
        f"einops=={local('einops')}",
        "torch==2.6.0",
        "scipy>=1.13",
    )


def test_shapescript_option_kinds(tmp_path: Path) -> None:
    wheel = tmp_path / "shapescript-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    assert source_from_option(str(wheel)) == ShapeScriptSource("wheel", str(wheel))
    (tmp_path / "checkout").mkdir()
    (tmp_path / "checkout" / "pyproject.toml").write_text("[project]\n")
    checkout = str(tmp_path / "checkout")
    assert source_from_option(checkout) == ShapeScriptSource("checkout", checkout)
    assert source_from_option("shapescript>=0.1") == ShapeScriptSource(
        "requirement", "shapescript>=0.1"
    )
    mac = tmp_path / "shapescript-0.1.0-cp311-cp311-macosx_11_0_arm64.whl"
    mac.write_bytes(b"PK")
    with pytest.raises(UsageError, match="Linux x86_64"):
        source_from_option(str(mac))
    with pytest.raises(UsageError, match="no such wheel"):
        source_from_option(str(tmp_path / "missing-0.1-py3-none-any.whl"))


class FakeDistribution:
    def __init__(self, direct_url: dict[str, object] | None) -> None:
        self.version = "0.1.0"
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return None if self.direct_url is None else json.dumps(self.direct_url)


def installed_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str | None
) -> ShapeScriptSource:
    """The source found for a ShapeScript installed in site-packages from `url`."""
    site = tmp_path / "site-packages" / "shapescript"
    site.mkdir(parents=True)
    direct = None if url is None else {"url": url}
    monkeypatch.setattr(image_module.metadata, "distribution", lambda _: FakeDistribution(direct))
    return image_module.installed_source(str(site))


def test_from_an_index_it_is_the_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = installed_from(monkeypatch, tmp_path, None)
    assert source == ShapeScriptSource("requirement", "shapescript==0.1.0")


def test_from_a_folder_it_is_that_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkout = tmp_path / "src"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text("[project]\n")
    source = installed_from(monkeypatch, tmp_path, f"file://{checkout}")
    assert source == ShapeScriptSource("checkout", str(checkout))


def test_from_a_wheel_it_is_that_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wheel = tmp_path / "shapescript-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    source = installed_from(monkeypatch, tmp_path, f"file://{wheel}")
    assert source == ShapeScriptSource("wheel", str(wheel))


def test_imported_from_a_checkout_it_is_that_checkout() -> None:
    import shapescript

    here = Path(shapescript.__file__).resolve().parent
    source = image_module.installed_source(str(here))
    assert source == ShapeScriptSource("checkout", str(here.parent.parent))


def test_the_plan_becomes_a_modal_image(tmp_path: Path) -> None:
    wheel = tmp_path / "shapescript-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    plan = ImagePlan("3.11", ("torch==2.5.1",), ShapeScriptSource("wheel", str(wheel)))
    assert isinstance(build_image(plan, modal), modal.Image)
    released = ImagePlan("3.11", ("torch==2.5.1",), ShapeScriptSource("requirement", "x==1"))
    assert isinstance(build_image(released, modal), modal.Image)
    checkout = ImagePlan("3.11", (), ShapeScriptSource("checkout", str(tmp_path)))
    with pytest.raises(ValueError, match="wheel"):
        build_image(checkout, modal)
    assert isinstance(build_image(checkout, modal, str(wheel)), modal.Image)


class RecordingImage:
    """Stands in for `modal.Image` to record what a plan asks of it, in order."""

    calls: list[tuple[str, tuple[object, ...], dict[str, object]]] = []

    @classmethod
    def debian_slim(cls, **options: object) -> RecordingImage:
        cls.calls = [("debian_slim", (), options)]
        return cls()

    def __getattr__(self, name: str) -> object:
        def record(*args: object, **options: object) -> RecordingImage:
            RecordingImage.calls.append((name, args, options))
            return self

        return record


class RecordingModal:
    Image = RecordingImage


def test_the_image_holds_python_then_packages_then_this_shapescript(tmp_path: Path) -> None:
    wheel = tmp_path / "shapescript-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    plan = ImagePlan(
        "3.11", ("torch==2.5.1", "numpy==2.1.0"), ShapeScriptSource("wheel", str(wheel))
    )
    build_image(plan, RecordingModal)
    inside = f"{image_module.WHEEL_FOLDER}/{wheel.name}"
    assert RecordingImage.calls == [
        ("debian_slim", (), {"python_version": "3.11"}),
        ("pip_install", ("torch==2.5.1", "numpy==2.1.0"), {}),
        ("add_local_file", (str(wheel), inside), {"copy": True}),
        ("pip_install", (inside,), {}),
    ]


@pytest.mark.slow
def test_a_checkout_becomes_a_reproducible_wheel(tmp_path: Path) -> None:
    import zipfile

    checkout = tmp_path / "checkout"
    (checkout / "tiny").mkdir(parents=True)
    (checkout / "tiny" / "__init__.py").write_text("")
    (checkout / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "tiny"\nversion = "1.0"\n[tool.setuptools]\npackages = ["tiny"]\n'
    )
    into = tmp_path / "wheels"
    into.mkdir()
    wheel = image_module.build_wheel(str(checkout), str(into))
    assert Path(wheel).name == "tiny-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        assert {entry.date_time for entry in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
