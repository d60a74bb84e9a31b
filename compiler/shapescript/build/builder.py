"""hatchling's wheel builder with the ShapeScript build hook added to the configured ones."""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.builders.wheel import WheelBuilder

from shapescript.build.hook import HOOK_NAME, ShapeScriptBuildHook


class ShapeScriptWheelBuilder(WheelBuilder):
    """A wheel builder whose hooks end with the one that checks and adds the `.ss` modules."""

    def get_build_hooks(self, directory: str) -> dict[str, BuildHookInterface]:
        hooks: dict[str, Any] = dict(super().get_build_hooks(directory))
        hooks[HOOK_NAME] = ShapeScriptBuildHook(
            self.root,
            {},
            self.config,
            self.metadata,
            directory,
            self.PLUGIN_NAME,
            self.app,
            files=self.recurse_included_files,
        )
        return hooks
