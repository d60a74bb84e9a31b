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

    options = BuildOptions(
        devices=devices,
        checks="never",
        value_checks="never",
        padding=False,
        claim_checks="always",
    )
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
    modes = _Modes()
    hidden = _hidden(functions[function]) if function in functions else None
    if hidden is not None:
        functions["_ss_hidden"] = hidden
        reached.add("_ss_hidden")
    for name in functions:
        if name in reached:
            node = _Claims().visit(_Attention().visit(_DeviceFromModel().visit(functions[name])))
            node = modes.visit(node)
            if _uses_runtime(node):
                raise NeedsRuntime(f"`{name}` uses the ShapeScript runtime")
            kept.append(node)
    if modes.used:
        from shapescript.codegen.standalone import MODE_HELPERS

        kept[:0] = [ast.Import([ast.alias("hashlib", "_ss_hashlib")])]
        kept.extend(ast.parse(MODE_HELPERS).body)
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


class _Claims(ast.NodeTransformer):
    """`_ss_rt.as_shape(...)`, an `as` shape check, calls the folder's own `_ss_as_shape`."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if (
            node.attr == "as_shape"
            and isinstance(node.value, ast.Name)
            and node.value.id in RUNTIME_NAMES
        ):
            return ast.copy_location(ast.Name("_ss_as_shape", ast.Load()), node)
        return self.generic_visit(node)


class _Modes(ast.NodeTransformer):
    """`_ss_rt.randomness.X` (Eval, dropout, the call counter) is the folder's own copy,
    `_ss_X`, which a standalone build defines the same way; `used` says whether any is."""

    def __init__(self) -> None:
        self.used = False

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        inner = node.value
        if (
            isinstance(inner, ast.Attribute)
            and inner.attr == "randomness"
            and isinstance(inner.value, ast.Name)
            and inner.value.id in RUNTIME_NAMES
        ):
            self.used = True
            return ast.copy_location(ast.Name(f"_ss_{node.attr}", ast.Load()), node)
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
from transformers.modeling_outputs import BaseModelOutput, CausalLMOutput
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

_ss_hf_device = _ss_torch.device("cpu")
#: The model running, and how many attentions it has run in this call.
_ss_hf_state = {"model": None, "layer": 0, "keys": None}


class ShapeError(ValueError):
    """A value whose shape isn't the one an `as` in the `.ss` source claims."""


def _ss_as_shape(value, sizes, dtype, site):
    """`x as [..]`, as the ShapeScript runtime checks it: the value, if its shape fits."""
    path, line, column, function = site
    shape = tuple(value.shape)
    wanted = "(" + ", ".join("?" if size is None else str(size) for size in sizes) + ")"
    if len(shape) != len(sizes) or any(
        want is not None and have != want for have, want in zip(shape, sizes)
    ):
        raise ShapeError(
            f"{path}:{line}:{column}: in fn {function}: `as` expected shape {wanted}, got {shape}"
        )
    if dtype is not None and value.dtype != dtype:
        raise ShapeError(
            f"{path}:{line}:{column}: in fn {function}: `as` expected {dtype} values, "
            f"got {value.dtype}"
        )
    return value


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
    own; another (sdpa, an engine's) gets [b H n Dh] queries, keys and values. With an
    attention mask that has zeros, the source's causal mask also hides the padding keys."""
    model = _ss_hf_state["model"]
    keys = _ss_hf_state.get("keys")
    allowed = _ss_allowed(keys, query) if keys is not None else None
    implementation = getattr(model.config, "_attn_implementation", None) if model else None
    if implementation in (None, "eager"):
        return _ss_torch.nn.functional.scaled_dot_product_attention(
            query, key, value, attn_mask=attn_mask if allowed is None else allowed, scale=scale
        )
    if allowed is not None and implementation != "sdpa":
        raise ValueError(
            f"an attention_mask with zeros works with the eager and sdpa attention "
            f"implementations, not {implementation!r}"
        )
    index = _ss_hf_state["layer"]
    _ss_hf_state["layer"] = index + 1
    scaling = scale if scale is not None else query.shape[-1] ** -0.5
    module = ShapeScriptAttention(model.config, index, scaling)
    function = ALL_ATTENTION_FUNCTIONS[implementation]
    output, _ = function(
        module, query, key, value, allowed, scaling=scaling, is_causal=allowed is None
    )
    return output.transpose(1, 2)


def _ss_allowed(keys, query):
    """Which keys each query sees: earlier ones that aren't padding, and itself (so that a
    padding token's row isn't empty), as a [b 1 n n] bool mask."""
    count = query.shape[-2]
    causal = _ss_torch.ones(count, count, dtype=_ss_torch.bool, device=query.device).tril()
    itself = _ss_torch.eye(count, dtype=_ss_torch.bool, device=query.device)
    return (causal & keys.to(query.device)[:, None, None, :]) | itself


def _ss_modes(model, given):
    """The function's `Mode` arguments, unless given: Eval (dropout off) in eval mode,
    Train with a seed from torch's random numbers in training mode."""
    made = dict(given)
    for name in model.config.shapescript.get("modes", ()):
        if name not in made:
            seed = int(_ss_torch.randint(0, 2**62, ())) if model.training else None
            made[name] = _ss_Mode(seed)
    return made


def _ss_start(model, input_ids, position_ids, attention_mask):
    """Set up a call of a language model: the device, the attention count, the padding
    keys of the mask; the positions (from the mask when it has zeros and none are given)."""
    global _ss_hf_device
    _ss_hf_device = next(iter(model.state_dict().values())).device
    _ss_hf_state.update(model=model, layer=0, keys=None)
    spec = model.config.shapescript
    padded = attention_mask is not None and not bool(attention_mask.bool().all())
    if padded and not spec.get("masks"):
        raise ValueError(
            "this model can't apply an attention_mask with zeros: its forward function "
            f"({spec.get('unservable') or 'see config.json'}) works across the sequence "
            "other than through `scaled_dot_product_attention` with `causal[n n]`, so the "
            "padding would change the other tokens' outputs; give sequences of one length "
            "without padding, or one at a time"
        )
    if padded:
        mask = attention_mask.to(input_ids.device)
        _ss_hf_state["keys"] = mask.bool()
        if position_ids is None:
            position_ids = (mask.long().cumsum(-1) - 1).clamp(min=0)
    if position_ids is None:
        count = input_ids.shape[-1]
        position_ids = _ss_torch.arange(count, device=input_ids.device).expand(input_ids.shape)
    return position_ids


class ShapeScriptConfig(PretrainedConfig):
    """The model's fields (shape, dtype, param or buffer) and how its function is called."""

    model_type = "shapescript"

    def __init__(self, shapescript=None, **kwargs):
        self.shapescript = shapescript or {}
        kwargs.setdefault("use_cache", False)
        super().__init__(**kwargs)


def _ss_fields(model):
    """The fields as the compiled function reads them, `m.w` or `m.h[0].attn.w`, whatever
    they're named here: a held model is a namespace, a stack of them a list."""
    spec = model.config.shapescript
    values = {}
    for name in spec["fields"]:
        if name == spec.get("embedding"):
            values[name] = model.embed_tokens.weight
        elif name != spec.get("output") or spec.get("output") == spec.get("embedding"):
            value = model
            for step in name.split("."):
                value = getattr(value, step)
            values[name] = value
    return _ss_tree(values)


def _ss_tree(values):
    """Nested namespaces from full paths (`h.0.attn.w`): a level whose names are all
    numbers is a list, the stack of models `h: [L] Block` holds."""
    root = {}
    for name, value in values.items():
        level = root
        *outer, last = name.split(".")
        for step in outer:
            level = level.setdefault(step, {})
        level[last] = value
    # Innermost levels first, so each is made before the level that holds it.
    levels = [root]
    order = []
    while levels:
        level = levels.pop()
        order.append(level)
        levels.extend(inner for inner in level.values() if isinstance(inner, dict))
    made = {}
    for level in reversed(order):
        items = {
            step: made.pop(id(inner)) if isinstance(inner, dict) else inner
            for step, inner in level.items()
        }
        if items and all(step.isdigit() for step in items):
            value = [items[step] for step in sorted(items, key=int)]
        else:
            value = _ss_types.SimpleNamespace(**items)
        made[id(level)] = value
    return made[id(root)]


def _ss_place(model, name, value, kind):
    """Register a field under its full path, making the held models' modules on the way
    (an `nn.ModuleList` for a stack), so state_dict() names are the source's."""
    *outer, last = name.split(".")
    owner = model
    for index, step in enumerate(outer):
        following = outer[index + 1] if index + 1 < len(outer) else last
        if step.isdigit():
            while len(owner) <= int(step):
                owner.append(_ss_torch.nn.Module())
            owner = owner[int(step)]
            continue
        if step not in owner._modules:
            stack = following.isdigit()
            owner.add_module(step, _ss_torch.nn.ModuleList() if stack else _ss_torch.nn.Module())
        owner = owner._modules[step]
    if kind == "param":
        trained = value.is_floating_point()
        owner.register_parameter(last, _ss_torch.nn.Parameter(value, requires_grad=trained))
    else:
        owner.register_buffer(last, value)


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
            else:
                _ss_place(self, name, value, kind)
        self.post_init()

    def _init_weights(self, module):
        pass

    def get_input_embeddings(self):
        return getattr(self, "embed_tokens", None)

    def forward(self, *args, input_ids=None, position_ids=None, attention_mask=None, **kwargs):
        """A language model: the ids (and positions), by name or in order, with an optional
        attention_mask, to the hidden states before the output layer (the function's output
        when the export couldn't split it off). Any other model: the function itself."""
        spec = self.config.shapescript
        if not spec.get("language"):
            global _ss_hf_device
            _ss_hf_device = next(iter(self.state_dict().values())).device
            _ss_hf_state.update(model=self, layer=0, keys=None)
            given = {"input_ids": input_ids, "position_ids": position_ids}
            given["attention_mask"] = attention_mask
            kwargs.update({key: value for key, value in given.items() if value is not None})
            return {FUNCTION}(_ss_fields(self), *args, **_ss_modes(self, kwargs))
        if input_ids is None and args:
            input_ids, args = args[0], args[1:]
        if position_ids is None and args and spec.get("positions"):
            position_ids, args = args[0], args[1:]
        position_ids = _ss_start(self, input_ids, position_ids, attention_mask)
        inputs = (input_ids, position_ids) if spec.get("positions") else (input_ids,)
        function = _ss_hidden if spec.get("embedding") else {FUNCTION}
        hidden = function(_ss_fields(self), *inputs, *args, **_ss_modes(self, kwargs))
        return BaseModelOutput(last_hidden_state=hidden)


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

    def forward(
        self, input_ids=None, position_ids=None, attention_mask=None, labels=None, **kwargs
    ):
        """Next-token logits; with `labels`, also transformers' causal-LM loss (each position
        predicts the next label, -100 ignored) as `loss`."""
        for ignored in ("use_cache", "return_dict", "output_attentions", "output_hidden_states"):
            kwargs.pop(ignored, None)
        loss_options = {
            key: kwargs.pop(key) for key in ("num_items_in_batch", "ignore_index") if key in kwargs
        }
        hidden = self.model(
            input_ids, position_ids=position_ids, attention_mask=attention_mask, **kwargs
        ).last_hidden_state
        if self.config.shapescript.get("embedding"):
            head = getattr(self, "lm_head", None)
            weight = head.weight if head is not None else self.model.embed_tokens.weight
            logits = _ss_torch.nn.functional.linear(hidden, weight)
        else:
            logits = hidden
        loss = None
        if labels is not None:
            loss = self.loss_function(
                logits=logits, labels=labels, vocab_size=logits.shape[-1], **loss_options
            )
        return CausalLMOutput(loss=loss, logits=logits)

    def prepare_inputs_for_generation(self, input_ids, attention_mask=None, **kwargs):
        return {"input_ids": input_ids, "attention_mask": attention_mask}
'''


def modeling_source(checked: Checked, function: str) -> str:
    """The whole `modeling_shapescript.py`."""
    header = (
        f"# Generated by ShapeScript from {checked.source.path}: `{function}` and what it "
        "calls, for transformers.\n"
    )
    body = compiled_functions(checked, function)
    return header + body + MODELING.replace("{FUNCTION}", function)
