"""ShapeScript in debugpy: the names the compiler makes up (`_ss_...`) are hidden, the
values of `.ss` frames show their ShapeScript types and tensors their sizes named after
their axes, and stepping passes over the `shapescript` package (the runtime) unless a
launch configuration's rule includes it.

debugpy loads every `pydevd_plugins.extensions.pydevd_plugin_*` module it finds; this
one patches the debugger once its modules are loaded.
"""

from __future__ import annotations

from _pydevd_bundle.pydevd_extension_api import DebuggerEventHandler

__all__ = ["ShapeScriptDebugging"]


def _patch_variables() -> None:
    from _pydevd_bundle import pydevd_suspended_frames as frames

    from shapescript import debugging

    if getattr(frames, "_ss_patched", False):
        return
    frames._ss_patched = True
    children = frames._FrameVariable.get_children_variables
    var_data = frames._AbstractVariable.get_var_data

    def get_children_variables(self, fmt=None, scope=None):
        found = children(self, fmt=fmt, scope=scope)
        if not debugging.is_shapescript_frame(self.frame):
            return found
        return [child for child in found if not debugging.hidden(str(child.get_name()))]

    def get_var_data(self, fmt=None, context=None, **attributes):
        data = var_data(self, fmt=fmt, context=context, **attributes)
        frame = getattr(self, "frame", None)
        # The expression that gives the value: a name, or a model's field as `m.w`.
        name = getattr(self, "evaluate_name", None)
        if frame is None or not isinstance(name, str) or not debugging.is_shapescript_frame(frame):
            return data
        type_ = debugging.frame_types(frame).get(name)
        value, type_text = debugging.describe(self.value, type_, data.get("value", ""))
        data["value"] = value
        if type_text is not None:
            data["type"] = type_text
        return data

    frames._FrameVariable.get_children_variables = get_children_variables
    frames._AbstractVariable.get_var_data = get_var_data


def _patch_frame_names() -> None:
    from _pydevd_bundle import pydevd_net_command_factory_json as factory

    from shapescript import debugging

    command_factory = factory.NetCommandFactoryJson
    if getattr(command_factory, "_ss_patched", False):
        return
    command_factory._ss_patched = True
    format_frame_name = command_factory._format_frame_name

    def _format_frame_name(self, fmt, initial_name, module_name, line, path):
        name = debugging.function_name(path, line, initial_name)
        return format_frame_name(self, fmt, name, module_name, line, path)

    command_factory._format_frame_name = _format_frame_name


def _patch_stepping() -> None:
    from _pydevd_bundle import pydevd_filtering as filtering

    if getattr(filtering, "_ss_patched", False):
        return
    filtering._ss_patched = True
    exclude_by_filter = filtering.FilesFiltering.exclude_by_filter

    def runtime(module_name) -> bool:
        return module_name == "shapescript" or str(module_name).startswith("shapescript.")

    def exclude(self, absolute_filename, module_name):
        found = exclude_by_filter(self, absolute_filename, module_name)
        if found is None and runtime(module_name):
            return True
        return found

    filtering.FilesFiltering.exclude_by_filter = exclude
    filtering.FilesFiltering.use_exclude_filters = lambda self: True
    original = filtering.FilesFiltering.set_exclude_filters

    def set_exclude_filters(self, exclude_filters):
        original(self, exclude_filters)
        self.require_module = True

    filtering.FilesFiltering.set_exclude_filters = set_exclude_filters


class ShapeScriptDebugging(DebuggerEventHandler):
    """Patches the debugger for ShapeScript once its modules are loaded."""

    def on_debugger_modules_loaded(self, **kwargs):
        try:
            _patch_variables()
            _patch_frame_names()
            _patch_stepping()
        except Exception:  # noqa: BLE001 - a debugger without the extension still works
            from _pydev_bundle import pydev_log

            pydev_log.exception("the ShapeScript extension couldn't load")
