"""`shapescript export --hf DIR` and `shapescript.export_hf`: a model as a Hugging Face
folder (config.json, model.safetensors, modeling_shapescript.py) that transformers loads
with trust_remote_code=True, checked against the source after it is written."""

from __future__ import annotations

import json
import shutil
import sys
import warnings
from pathlib import Path

from shapescript import atomic_write
from shapescript.check.algebra.types import ModelType, ModeType, TensorType
from shapescript.check.exports import export_diagnostics
from shapescript.check.program import Checked
from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.export.prepare import choose_function
from shapescript.syntax import ast
from shapescript.syntax.source import Span

DTYPES = {"float32": "float32", "bfloat16": "bfloat16", "float16": "float16"}
#: How close the folder's outputs must be to the source's, relative to their size.
TOLERANCE = {"float32": 1e-4, "bfloat16": 5e-2, "float16": 5e-2}


class ServingWarning(UserWarning):
    """A serving rule the exported folder breaks: transformers loads it, vLLM would not."""


class NotOurFolder(ValueError):
    """The output folder exists and ShapeScript didn't write it."""


def hf_problems(checked: Checked, name: str) -> list[Diagnostic]:
    """E3306 when the function doesn't take a model first; the export check otherwise,
    with the model allowed to be passed around and its fields read."""
    signature = checked.signatures[name]
    params = signature.params
    if not params or not isinstance(params[0].type, ModelType):
        item = next(
            item
            for item in checked.items
            if isinstance(item.item, ast.FnDecl) and item.item.name == name
        )
        decl = item.item
        where = decl.params[0].span if decl.params else decl.name_span
        shown = f"`{params[0].name}`" if params else "nothing"
        return [
            Diagnostic(
                "E3306",
                f"`{name}` doesn't take a model first",
                Label(
                    Span(item.base + where.start, item.base + where.end),
                    f"{shown} isn't a model",
                ),
                help="make the model the function's first parameter",
                path=checked.source.path,
            )
        ]
    return [d for d in export_diagnostics(checked, [name], model_first=True) if d.is_error]


def serving_form(checked: Checked, name: str) -> tuple[bool, str | None, str | None]:
    """Whether the function is a language model's forward a serving engine can take
    (E3301's rule: the model, `[b n] Index[V]` ids, optionally `[b n]` integer positions,
    defaults after): (language model, the reason it isn't one, the vocabulary dim)."""
    params = [p for p in checked.signatures[name].params[1:] if not isinstance(p.type, ModeType)]
    if not params:
        return False, "E3301: it takes no token ids", None
    ids = params[0].type
    if (
        not isinstance(ids, TensorType)
        or ids.axes is None
        or len(ids.axes) != 2
        or ids.domain.name != "Index"
        or ids.domain.size is None
    ):
        return False, "E3301: its second parameter isn't `[b n] Index[V]` token ids", None
    rest = params[1:]
    if rest and not rest[0].has_default:
        pos = rest[0].type
        if (
            not isinstance(pos, TensorType)
            or pos.axes is None
            or len(pos.axes) != 2
            or not pos.resolved_dtype.startswith(("i", "u"))
        ):
            return False, "E3301: its third parameter isn't `[b n]` integer positions", None
        rest = rest[1:]
    if any(not param.has_default for param in rest):
        return False, "E3301: a parameter after the ids and positions has no default", None
    return True, None, str(ids.domain.size)


def export_hf(
    path: str,
    output: str,
    *,
    fn: str = "forward",
    weights=None,
    seed: int = 0,
    dtype: str = "float32",
    tokenizer: str | None = None,
    max_len: int | None = None,
    verify: bool = True,
    vllm: bool = False,
) -> dict:
    """Write the Hugging Face folder of `fn` at `output`; the config.json written.

    `weights` is a checkpoint `save` wrote, or a model; without it the weights are
    `M.init(seed=seed)`. A file with errors, or a function that can't be exported, raises
    ShapeScriptError; a missing function, ValueError.
    """
    import torch

    import shapescript
    from shapescript import analysis
    from shapescript.export.hf_module import modeling_source
    from shapescript.rt import devices as rt_devices
    from shapescript.rt.errors import ShapeScriptError
    from shapescript.rt.models import tensors_of
    from shapescript.syntax.source import SourceFile

    if dtype not in DTYPES:
        raise ValueError(f"dtype is one of {', '.join(DTYPES)}, not {dtype!r}")
    text = Path(path).read_text(encoding="utf-8")
    source = SourceFile.from_text(str(path), text)
    checked = analysis.check(source, search_path=list(sys.path))
    if checked.errors:
        raise ShapeScriptError(checked.diagnostics, source)
    name = choose_function(checked, fn)
    found = hf_problems(checked, name)
    if found:
        raise ShapeScriptError(found, source)
    from shapescript.export.serving import positions_bound, vllm_diagnostics

    language, _reason, vocabulary = serving_form(checked, name)
    serving = vllm_diagnostics(checked, name)
    if vllm and serving:
        raise ShapeScriptError(serving, source)
    unservable = f"{serving[0].code}: {serving[0].message}" if serving else None
    for diag in serving:
        line = source.position(diag.span.start).line
        warnings.warn(
            f"{path}:{line}: [{diag.code}] {diag.message}; the folder is for transformers only",
            ServingWarning,
            stacklevel=2,
        )
    model_name = checked.signatures[name].params[0].type.name
    _claim(Path(output))
    if rt_devices._device is None:
        module = shapescript.compile(text, str(path), devices="cpu")
    else:
        module = shapescript.compile(text, str(path))
    model = _model(module, model_name, weights, seed)
    target = getattr(torch, DTYPES[dtype])
    fields = {}
    tensors = {}
    engine = _engine_fields(checked, name) if language and not serving else (None, None)
    engine, held_engine = _own_engine_fields(model, engine)
    if held_engine and unservable is None:
        unservable = (
            f"the embedding table or output layer is read from a held model ({held_engine})"
        )
    every = tensors_of(model)
    for field in type(model)._ss_all_fields:
        value = every[field.name].detach()
        if value.is_floating_point():
            value = value.to(target)
        fields[field.name] = [field.kind, list(value.shape), str(value.dtype).split(".")[-1]]
        tensors[_stored_name(field.name, language, engine)] = value.contiguous().cpu()
    inputs = [p for p in checked.signatures[name].params if not isinstance(p.type, ModeType)]
    positions = language and len(inputs) > 2 and not inputs[2].has_default
    config = {
        "architectures": ["ShapeScriptForCausalLM" if language else "ShapeScriptModel"],
        "model_type": "shapescript",
        "auto_map": {
            "AutoConfig": "modeling_shapescript.ShapeScriptConfig",
            "AutoModel": "modeling_shapescript.ShapeScriptModel",
            "AutoModelForCausalLM": "modeling_shapescript.ShapeScriptForCausalLM",
        },
        "dtype": dtype,
        "use_cache": False,
        "shapescript": {
            "written_by": f"shapescript {shapescript.__version__}",
            "source": str(path),
            "function": name,
            "model": model_name,
            "fields": fields,
            "positions": positions,
            "embedding": engine[0],
            "output": engine[1],
            "vllm": unservable is None,
            "unservable": unservable,
            "language": language,
            "modes": _modes(checked, name),
            "masks": language and not any(d.code in ("E3304", "E3305") for d in serving),
        },
    }
    if language:
        config["vocab_size"] = int(checked.dim_values.get(vocabulary, 0) or 0)
        bound = max_len or _positions_bound(checked, name) or positions_bound(checked, name)
        if bound is not None:
            config["max_position_embeddings"] = bound
        config.update(_attentions(checked, name, module, model))
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write.write_text(out / "modeling_shapescript.py", modeling_source(checked, name))
    atomic_write.write_text(out / "config.json", json.dumps(config, indent=2) + "\n")
    if language:
        generation = {"do_sample": False, "use_cache": False}
        atomic_write.write_text(
            out / "generation_config.json", json.dumps(generation, indent=2) + "\n"
        )
    from safetensors.torch import save

    atomic_write.write_bytes(out / "model.safetensors", save(tensors, metadata={"format": "pt"}))
    if tokenizer is not None:
        for item in Path(tokenizer).iterdir():
            if item.is_file() and item.name not in ("config.json", "model.safetensors"):
                atomic_write.write_bytes(out / item.name, item.read_bytes())
    if verify:
        _verify(checked, name, module, model, out, language, dtype)
    return config


def _modes(checked: Checked, name: str) -> list[str]:
    """The function's `Mode` parameters, which the folder gives Eval or Train itself."""
    return [p.name for p in checked.signatures[name].params if isinstance(p.type, ModeType)]


def _eval_modes(checked: Checked, name: str) -> dict:
    """Eval for each `Mode` parameter, for calling the compiled source."""
    from shapescript.rt.randomness import Eval

    return {mode: Eval for mode in _modes(checked, name)}


def _engine_fields(checked: Checked, name: str) -> tuple[str | None, str | None]:
    """The fields of the embedding table and the output layer an engine runs itself."""
    from shapescript.export.serving import engine_fields

    return engine_fields(checked, name)


def _own_engine_fields(
    model, engine: tuple[str | None, str | None]
) -> tuple[tuple[str | None, str | None], str | None]:
    """The engine's fields when they are the model's own: a name read through a held model
    (`t.wte.weight`) isn't a field of the model passed in, so the folder runs the whole
    function instead; the second value names such a field."""
    own = type(model)._ss_by_name
    kept = tuple(field if field is None or field in own else None for field in engine)
    dropped = [field for field, was in zip(engine, kept, strict=True) if field and was is None]
    return (kept[0], kept[1]), (", ".join(dropped) or None)


def _stored_name(field: str, language: bool, engine: tuple[str | None, str | None]) -> str:
    """A field's name in model.safetensors: model.embed_tokens.weight, lm_head.weight,
    else model.<field> for a language model and <field> for any other model."""
    table, output = engine
    if not language:
        return field
    if field == table:
        return "model.embed_tokens.weight"
    if field == output:
        return "lm_head.weight"
    return f"model.{field}"


def _attentions(checked: Checked, name: str, module, model) -> dict:
    """What an engine reads about the attentions, found by running the function once on
    example arguments: how many it runs, their heads and head width, and their scales."""
    import math

    import torch

    from shapescript.export.helpers import HELPERS
    from shapescript.export.spec import export_spec

    spec = export_spec(checked, name, model_first=True).as_data()
    space: dict = {"_ss_torch": torch, "_ss_whole": lambda bad: bad.any()}
    exec(compile(HELPERS, "<shapescript export>", "exec"), space)
    examples = [space["_ss_example"](item, torch.device("cpu")) for item in spec["inputs"]]
    namespace = vars(module)
    names = [key for key in namespace if key.endswith("scaled_dot_product_attention")]
    seen: list[tuple[int, int, float]] = []
    originals = {key: namespace[key] for key in names}

    def counting(query, key, value, *args, scale=None, **kwargs):
        width = query.shape[-1]
        seen.append((query.shape[1], width, scale if scale is not None else 1 / math.sqrt(width)))
        return torch.nn.functional.scaled_dot_product_attention(
            query, key, value, *args, scale=scale, **kwargs
        )

    try:
        for key in names:
            namespace[key] = counting
        with torch.no_grad():
            getattr(module, name)(model, *examples, **_eval_modes(checked, name))
    finally:
        namespace.update(originals)
    if not seen:
        return {}
    heads, width, _scale = seen[0]
    return {
        "num_hidden_layers": len(seen),
        "num_attention_heads": heads,
        "num_key_value_heads": heads,
        "head_dim": width,
        "hidden_size": heads * width,
        "attention_scales": [scale for _heads, _width, scale in seen],
    }


def _claim(out: Path) -> None:
    """Remove an earlier folder ShapeScript wrote at `out`; refuse anyone else's."""
    if not out.exists():
        return
    config = out / "config.json"
    try:
        written = json.loads(config.read_text(encoding="utf-8")).get("shapescript")
    except (OSError, ValueError, AttributeError):
        written = None
    if not out.is_dir() or not isinstance(written, dict):
        raise NotOurFolder(f"`{out}` exists and ShapeScript didn't write it: not replacing it")
    shutil.rmtree(out)


def _model(module, model_name: str, weights, seed: int):
    """The model to export: `cls.init(seed=seed)`, a checkpoint `save` wrote, or a model
    given in Python, from this compile of the source or any other (`import nanogpt`), whose
    state dict is copied into this compile's class."""
    import torch

    from shapescript.rt.checkpoints import load_model

    cls = getattr(module, model_name)
    if weights is None:
        return cls.init(seed=seed)
    if isinstance(weights, cls):
        return weights
    if isinstance(weights, torch.nn.Module):
        return _copied(cls, model_name, weights)
    if not isinstance(weights, str | Path):
        raise ValueError(f"weights is a checkpoint's path or a model, not {type(weights).__name__}")
    return load_model(weights, cls)


def _copied(cls, model_name: str, weights):
    """A new `cls` model holding the weights of `weights`, a model with the same fields."""
    given = weights.state_dict()
    model = cls.init(seed=0)
    wanted = model.state_dict()
    mismatched = sorted(
        key
        for key in given.keys() | wanted.keys()
        if key not in given or key not in wanted or given[key].shape != wanted[key].shape
    )
    if mismatched:
        kind = type(weights).__name__
        raise ValueError(
            f"weights is a `{kind}` whose fields aren't those of the source's `{model_name}`: "
            f"{', '.join(mismatched[:5])} differ (a missing field, an extra one or another "
            "shape); pass a model of this source's type, or a checkpoint `save` wrote"
        )
    model.load_state_dict({key: value.detach() for key, value in given.items()})
    return model


def _positions_bound(checked: Checked, name: str) -> int | None:
    params = checked.signatures[name].params
    if len(params) < 3 or not isinstance(params[2].type, TensorType):
        return None
    size = params[2].type.domain.size
    if size is None:
        return None
    value = size.substitute({}).value
    if value is None and size.single_symbol() is not None:
        value = checked.dim_values.get(size.single_symbol())
    return value


def _verify(checked, name, module, model, out: Path, language: bool, dtype: str) -> None:
    """Load the folder with transformers, if installed, and compare with the source."""
    try:
        import transformers
    except ImportError:
        return
    import torch

    from shapescript.export.helpers import HELPERS
    from shapescript.export.spec import export_spec

    spec = export_spec(checked, name, model_first=True).as_data()
    space: dict = {"_ss_torch": torch, "_ss_whole": lambda bad: bad.any()}
    exec(compile(HELPERS, "<shapescript export>", "exec"), space)
    examples = [space["_ss_example"](item, torch.device("cpu")) for item in spec["inputs"]]
    with torch.no_grad():
        want = getattr(module, name)(model, *examples, **_eval_modes(checked, name))
        auto = transformers.AutoModelForCausalLM if language else transformers.AutoModel
        loaded = auto.from_pretrained(str(out), trust_remote_code=True, dtype=getattr(torch, dtype))
        loaded.eval()
        target = getattr(torch, dtype)
        given = [e.to(target) if e.is_floating_point() else e for e in examples]
        got = loaded(*given)
        if language:
            got = got.logits
    scale = float(want.abs().max()) or 1.0
    difference = float((got.float() - want.float()).abs().max())
    if difference > TOLERANCE[dtype] * scale:
        raise ValueError(
            f"the folder at `{out}` gives outputs {difference:.3g} away from the source's "
            f"(largest {scale:.3g})"
        )
