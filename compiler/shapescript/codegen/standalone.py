"""The few helpers a `--standalone` module defines itself instead of importing
`shapescript.rt`: its checks raise plain ValueError and RuntimeError."""

from __future__ import annotations

HELPERS = """
def _ss_argument_error(spec, index, value, known):
    path, line, column, function, params = spec
    name, pline, pcolumn, shown, _axes, dtype = params[index]
    shape = tuple(getattr(value, "shape", ()))
    got = f"shape {shape}, {getattr(value, 'dtype', type(value).__name__)}"
    device = getattr(value, "device", None)
    if device is not None and device != known.get("_ss_dev"):
        raise RuntimeError(
            f"{path}:{pline}:{pcolumn}: in fn {function}, argument for parameter `{name}`: "
            f"it is on {device}, not {known.get('_ss_dev')}"
        )
    raise ValueError(
        f"{path}:{pline}:{pcolumn}: in fn {function}, argument for parameter `{name}`: "
        f"expected {shown}, got {got}"
    )


def _ss_not_tensors(spec, known):
    for index, param in enumerate(spec[4]):
        value = known.get(param[0], known.get(param[0] + "_"))
        if param[5] is not None and not isinstance(value, _ss_torch.Tensor):
            _ss_argument_error(spec, index, value, known)


def _ss_whole(bad):
    while _ss_torch._C._functorch.is_batchedtensor(bad):
        bad = _ss_torch._C._functorch.get_unwrapped(bad)
    return bad.any()


def _ss_domain_error(bad, spec, index, what, value=None):
    if bad.device.type == "cuda":
        _ss_torch._assert_async(~_ss_whole(bad))
        return
    if bool(_ss_whole(bad)):
        path, line, column, function, params = spec
        name, pline, pcolumn = params[index][:3]
        raise ValueError(
            f"{path}:{pline}:{pcolumn}: in fn {function}, argument for parameter `{name}`: "
            f"its values break the domain's promise ({what})"
        )


def _ss_as_shape(value, sizes, dtype, site):
    path, line, column, function = site
    shape = tuple(getattr(value, "shape", ()))
    if len(shape) != len(sizes) or any(
        want is not None and have != want for have, want in zip(shape, sizes)
    ) or (dtype is not None and getattr(value, "dtype", None) != dtype):
        raise ValueError(
            f"{path}:{line}:{column}: in fn {function}: `as` expected shape "
            f"{tuple('?' if s is None else s for s in sizes)}, got {shape}"
        )
    return value


def _ss_as_domain(value, bad, what, site):
    if bool(_ss_whole(bad)):
        path, line, column, function = site
        raise ValueError(
            f"{path}:{line}:{column}: in fn {function}: `as` claimed {what}, and it isn't so"
        )
    return value


def _ss_as_host(value, kind, site):
    types = {"int": int, "float": (int, float), "bool": bool}
    if not isinstance(value, types[kind]) or (kind != "bool" and isinstance(value, bool)):
        path, line, column, function = site
        raise ValueError(
            f"{path}:{line}:{column}: in fn {function}: `as {kind}` got {type(value).__name__}"
        )
    return value
"""
