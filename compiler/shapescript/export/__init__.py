"""Export: a ShapeScript function as a torch.export program (`.pt2`) or an AOTInductor
package, with example inputs and dynamic shapes worked out from its signature.

`shapescript.export` is this package, and calling it is `export.api.export`: the package
and the function share the name the reference gives the function.
"""

from __future__ import annotations

import sys
import types


def export(*args, **kwargs):
    """`shapescript.export(path, fn=None, output=None, ...)`: see `export.api.export`."""
    from shapescript.export.api import export as run

    return run(*args, **kwargs)


class _CallablePackage(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return export(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
