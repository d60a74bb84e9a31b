"""`modeling_shapescript.py` of a Hugging Face folder: the compiled function and what it
calls, with no ShapeScript left in them, and the transformers classes around them.

It is the file's ordinary build, with checks off (the engine gives the inputs), whose
Python tree is rewritten: the runtime's imports and the model classes go, the device
the runtime kept is the model's, and only the functions the exported one reaches stay.
"""

from __future__ import annotations

import ast
import copy

from shapescript.check.program import Checked

RUNTIME_NAMES = frozenset({"_ss_rt", "_ss_devices"})


class NeedsRuntime(ValueError):
    """The function uses something only the ShapeScript runtime does."""


def compiled_functions(checked: Checked, function: str, devices: str | None = None) -> str:
    """The Python of `function` and everything it calls, needing torch and einops only."""
    from shapescript.codegen import BuildOptions, generate

    options = BuildOptions(devices=devices, checks="never", value_checks="never", padding=False)
    generated = generate(checked, options)
    if generated.tree is None:
        raise NeedsRuntime("the file doesn't compile")
    tree = generated.tree
    kept: list[ast.stmt] = []
    functions: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom) and _is_runtime_import(node):
            continue
        if isinstance(node, ast.ClassDef):
            continue
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = node
            continue
        if _uses_runtime(node):
            continue
        kept.append(node)
    reached = _reached(functions, function)
    hidden = _hidden(functions[function]) if function in functions else None
    if hidden is not None:
        functions["_ss_hidden"] = hidden
        reached.add("_ss_hidden")
    for name in functions:
        if name in reached:
            node = _Attention().visit(_DeviceFromModel().visit(functions[name]))
            if _uses_runtime(node):
                raise NeedsRuntime(f"`{name}` uses the ShapeScript runtime")
            kept.append(node)
    module = ast.fix_missing_locations(ast.Module(body=kept, type_ignores=[]))
    return ast.unparse(module) + "\n"


def _hidden(function: ast.FunctionDef) -> ast.FunctionDef | None:
    """A copy of a language model's forward that stops before the output layer: its final
    `return linear(h, m.W)` returns h, which the engine's (or lm_head's) linear takes."""
    last = function.body[-1] if function.body else None
    value = last.value if isinstance(last, ast.Return) else None
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id.endswith("linear")
        and len(value.args) == 2
    ):
        return None
    made = copy.deepcopy(function)
    made.name = "_ss_hidden"
    made.body[-1] = ast.copy_location(ast.Return(copy.deepcopy(value.args[0])), last)
    return made


def _is_runtime_import(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] == "shapescript"
    return any(alias.name.split(".")[0] == "shapescript" for alias in node.names)


def _uses_runtime(node: ast.AST) -> bool:
    return any(
        isinstance(inner, ast.Name) and inner.id in RUNTIME_NAMES for inner in ast.walk(node)
    )


def _reached(functions: dict[str, ast.FunctionDef], root: str) -> set[str]:
    reached: set[str] = set()
    queue = [root]
    while queue:
        name = queue.pop()
        if name in reached or name not in functions:
            continue
        reached.add(name)
        queue.extend(
            inner.id
            for inner in ast.walk(functions[name])
            if isinstance(inner, ast.Name) and inner.id in functions
        )
    return reached


class _DeviceFromModel(ast.NodeTransformer):
    """`_ss_devices._device or _ss_rt.device()` becomes the device the model is on."""

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        if _uses_runtime(node):
            return ast.copy_location(ast.Name("_ss_hf_device", ast.Load()), node)
        return self.generic_visit(node)


class _Attention(ast.NodeTransformer):
    """Each `scaled_dot_product_attention` call goes through `_ss_attention`, which asks
    transformers' attention-function table, so an engine can put its own in its place."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id.endswith("scaled_dot_product_attention"):
            return ast.copy_location(ast.Name("_ss_attention", node.ctx), node)
        return node


MODELING = '''
import types as _ss_types

from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

_ss_hf_device = _ss_torch.device("cpu")
#: The model running, and how many attentions it has run in this call.
_ss_hf_state = {"model": None, "layer": 0}


class ShapeScriptAttention(_ss_torch.nn.Module):
    """One attention of the forward function, as transformers' attention functions take it:
    its index in the order the forward function runs them, and its scale."""

    def __init__(self, config, layer_idx, scaling):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.scaling = scaling
        self.is_causal = True


def _ss_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """The source's attention with the model's attention function: eager is the source's
    own; another (sdpa, an engine's) gets [b H n Dh] queries, keys and values."""
    model = _ss_hf_state["model"]
    implementation = getattr(model.config, "_attn_implementation", None) if model else None
    if implementation in (None, "eager"):
        return _ss_torch.nn.functional.scaled_dot_product_attention(
            query, key, value, attn_mask=attn_mask, scale=scale
        )
    index = _ss_hf_state["layer"]
    _ss_hf_state["layer"] = index + 1
    scaling = scale if scale is not None else query.shape[-1] ** -0.5
    module = ShapeScriptAttention(model.config, index, scaling)
    function = ALL_ATTENTION_FUNCTIONS[implementation]
    output, _ = function(module, query, key, value, None, scaling=scaling, is_causal=True)
    return output.transpose(1, 2)


class ShapeScriptConfig(PretrainedConfig):
    """The model's fields (shape, dtype, param or buffer) and how its function is called."""

    model_type = "shapescript"

    def __init__(self, shapescript=None, **kwargs):
        self.shapescript = shapescript or {}
        kwargs.setdefault("use_cache", False)
        super().__init__(**kwargs)


def _ss_fields(model):
    """The fields as the compiled function reads them, `m.w`, whatever they're named here."""
    spec = model.config.shapescript
    values = {}
    for name in spec["fields"]:
        if name == spec.get("embedding"):
            values[name] = model.embed_tokens.weight
        elif name != spec.get("output") or spec.get("output") == spec.get("embedding"):
            values[name] = getattr(model, name)
    return _ss_types.SimpleNamespace(**values)


class ShapeScriptModel(PreTrainedModel):
    """The model's fields as parameters; for a language model, up to the output layer, with
    the embedding table as embed_tokens.weight. Its forward is the function."""

    config_class = ShapeScriptConfig
    base_model_prefix = "model"
    _no_split_modules = []
    _supports_sdpa = True
    _supports_flash_attn = True
    _supports_flex_attn = True
    _supports_attention_backend = True

    def __init__(self, config):
        super().__init__(config)
        spec = config.shapescript
        for name, (kind, shape, dtype) in spec["fields"].items():
            value = _ss_torch.zeros(shape, dtype=getattr(_ss_torch, dtype))
            if name == spec.get("embedding"):
                self.embed_tokens = _ss_torch.nn.Embedding(*shape, dtype=value.dtype)
            elif name == spec.get("output"):
                continue
            elif kind == "param":
                trained = value.is_floating_point()
                self.register_parameter(name, _ss_torch.nn.Parameter(value, requires_grad=trained))
            else:
                self.register_buffer(name, value)
        self.post_init()

    def _init_weights(self, module):
        pass

    def get_input_embeddings(self):
        return getattr(self, "embed_tokens", None)

    def forward(self, *args, **kwargs):
        global _ss_hf_device
        _ss_hf_device = next(iter(self.state_dict().values())).device
        _ss_hf_state["model"] = self
        _ss_hf_state["layer"] = 0
        function = _ss_hidden if self.config.shapescript.get("embedding") else {FUNCTION}
        return function(_ss_fields(self), *args, **kwargs)


class ShapeScriptForCausalLM(PreTrainedModel, GenerationMixin):
    """A language model: token ids (and positions) in, next-token logits out; the output
    layer is lm_head.weight, or the embedding table when the source ties them."""

    config_class = ShapeScriptConfig
    base_model_prefix = "model"
    _no_split_modules = []
    _supports_sdpa = True
    _supports_flash_attn = True
    _supports_flex_attn = True
    _supports_attention_backend = True

    def __init__(self, config):
        super().__init__(config)
        self.model = ShapeScriptModel(config)
        spec = config.shapescript
        if spec.get("output") not in (None, spec.get("embedding")):
            _kind, shape, dtype = spec["fields"][spec["output"]]
            self.lm_head = _ss_torch.nn.Linear(
                shape[1], shape[0], bias=False, dtype=getattr(_ss_torch, dtype)
            )
        self.post_init()

    def _init_weights(self, module):
        pass

    def get_input_embeddings(self):
        return self.model.embed_tokens

    def forward(self, input_ids=None, position_ids=None, attention_mask=None, **kwargs):
        if self.config.shapescript.get("positions"):
            if position_ids is None:
                count = input_ids.shape[-1]
                position_ids = _ss_torch.arange(count, device=input_ids.device)
                position_ids = position_ids.expand(input_ids.shape)
            hidden = self.model(input_ids, position_ids)
        else:
            hidden = self.model(input_ids)
        head = getattr(self, "lm_head", None)
        weight = head.weight if head is not None else self.model.embed_tokens.weight
        return CausalLMOutput(logits=_ss_torch.nn.functional.linear(hidden, weight))

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        return {"input_ids": input_ids}
'''


def modeling_source(checked: Checked, function: str) -> str:
    """The whole `modeling_shapescript.py`."""
    header = (
        f"# Generated by ShapeScript from {checked.source.path}: `{function}` and what it "
        "calls, for transformers.\n"
    )
    body = compiled_functions(checked, function)
    return header + body + MODELING.replace("{FUNCTION}", function)
