"""One small program per layer kind, each with the layer the analysis recognises."""

from __future__ import annotations

import pytest

from tests.architecture.programs import boxes, read

#: (case id, model and functions, the kinds and labels of the boxes at the layers level,
#: in drawing order: (kind, label, repeat)).
CASES = [
    (
        "linear_bias_activation",
        """
        model M:
            param w: [D C] = normal(std=0.1)
            param b: [C] = zeros
        fn forward(m: M, x: [n D]) -> [n C] = x @ m.w + m.b |> relu
        """,
        [("linear", "Linear D → C · ReLU", "")],
    ),
    (
        "linear_no_bias",
        """
        model M:
            param w: [D C] = normal(std=0.1)
        fn forward(m: M, x: [n D]) -> [n C] = x @ m.w
        """,
        [("linear", "Linear D → C", "")],
    ),
    (
        "linear_call_with_bias",
        """
        model M:
            param w: [C D] = normal(std=0.1)
            param b: [C] = zeros
        fn forward(m: M, x: [n D]) -> [n C] = linear(x, m.w, m.b)
        """,
        [("linear", "Linear D → C", "")],
    ),
    (
        "tied_weights",
        """
        model M:
            param wte: [V D] = normal(std=0.1)
        fn forward(m: M, ids: [n] Index[V]) -> [n V] = linear(embedding(ids, m.wte), m.wte)
        """,
        [("embedding", "Embedding V → D", ""), ("linear", "Linear D → V · tied to wte", "")],
    ),
    (
        "mlp_with_dropout",
        """
        model M:
            param w1: [D Hd] = normal(std=0.1)
            param b1: [Hd] = zeros
            param w2: [Hd C] = normal(std=0.1)
        fn forward(m: M, x: [n D], mode: Mode) -> [n C]:
            return x @ m.w1 + m.b1 |> gelu |> dropout(0.1, mode) |> matmul(m.w2)
        """,
        [("mlp", "MLP D → Hd → C · GELU · dropout 0.1", "")],
    ),
    (
        "attention_causal",
        """
        dim H = 2
        dim Dh = D / H
        model M:
            param w_qkv: [D 3*D] = normal(std=0.1)
            param w_o: [D D] = normal(std=0.1)
        fn forward(m: M, x: [b n D]) -> [b n D]:
            q, k, v = x @ m.w_qkv |> split(b n (3 H Dh) -> b H n Dh)
            att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
                |> masked_fill(!causal[n m], -inf)
                |> softmax(over=m)
            return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
                |> rearrange(b H n Dh -> b n (H Dh))
                |> matmul(m.w_o)
        """,
        [("attention", "Multi-head attention · H heads · causal", "")],
    ),
    (
        "attention_not_causal",
        """
        dim H = 2
        dim Dh = D / H
        model M:
            param w_qkv: [D 3*D] = normal(std=0.1)
            param w_o: [D D] = normal(std=0.1)
        fn forward(m: M, x: [b n D]) -> [b n D]:
            q, k, v = x @ m.w_qkv |> split(b n (3 H Dh) -> b H n Dh)
            return scaled_dot_product_attention(q, k, v)
                |> rearrange(b H n Dh -> b n (H Dh))
                |> matmul(m.w_o)
        """,
        [("attention", "Multi-head attention · H heads", "")],
    ),
    (
        "layer_norm",
        """
        model M:
            param g: [D] = ones
        fn forward(m: M, x: [n D]) -> [n D] = layer_norm(x, over=D, weight=m.g)
        """,
        [("norm", "LayerNorm", "")],
    ),
    (
        "rms_norm",
        """
        model M:
            param g: [D] = ones
        fn forward(m: M, x: [n D]) -> [n D] = rms_norm(x, over=D, weight=m.g)
        """,
        [("norm", "RMSNorm", "")],
    ),
    (
        "rms_norm_written_out",
        """
        model M:
            param g: [D] = ones
        fn rms_norm(x: [n D], g: [D]) -> [n D]:
            return x * rsqrt(mean(x * x, over=D) + 1e-6) * g
        fn forward(m: M, x: [n D]) -> [n D] = rms_norm(x, m.g)
        """,
        [("norm", "RMSNorm", "")],
    ),
    (
        "batch_norm",
        """
        model M:
            param g: [C] = ones
        fn forward(m: M, x: [b C], mode: Mode) -> [b C] = batch_norm(x, mode, over=C, weight=m.g)
        """,
        [("norm", "BatchNorm", "")],
    ),
    (
        "group_norm_written_out",
        """
        model M:
            param g: [D] = ones
        fn group_norm(x: [n D], g: [D]) -> [n D]:
            return (x - mean(x, over=D)) * g
        fn forward(m: M, x: [n D]) -> [n D] = group_norm(x, m.g)
        """,
        [("norm", "GroupNorm", "")],
    ),
    (
        "patch_embedding",
        """
        model M:
            param w: [D 3 4 4] = normal(std=0.1)
        fn forward(m: M, img: [b 3 16 16]) -> [b D 4 4] = conv2d(img, m.w, stride=4)
        """,
        [("patch", "Patch embedding 4×4 · 3 → D", "")],
    ),
    (
        "convolution",
        """
        model M:
            param w: [D 3 3 3] = normal(std=0.1)
        fn forward(m: M, img: [b 3 16 16]) -> [b D 14 14] = conv2d(img, m.w)
        """,
        [("conv", "Conv 3×3 · 3 → D", "")],
    ),
    (
        "patchify",
        """
        model M:
            param w: [48 D] = normal(std=0.1)
        fn forward(m: M, img: [b 3 4gh 4gw]) -> [b (gh gw) D]:
            return img |> rearrange(b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)) |> matmul(m.w)
        """,
        [("patchify", "Patchify 4×4", ""), ("linear", "Linear 48 → D", "")],
    ),
    (
        "residual",
        """
        model M:
            param w: [D D] = normal(std=0.1)
        fn forward(m: M, x: [n D]) -> [n D]:
            h = x @ m.w |> gelu
            return x + h
        """,
        [("linear", "Linear D → D · GELU", ""), ("residual", "", "")],
    ),
    (
        "position_embedding",
        """
        model M:
            param wte: [V D] = normal(std=0.1)
            param wpe: [16 D] = normal(std=0.1)
        fn forward(m: M, ids: [b 16] Index[V]) -> [b 16 D] = embedding(ids, m.wte) + m.wpe
        """,
        [("embedding", "Embedding V → D", ""), ("position", "Position embedding", "")],
    ),
    (
        "loop_times_l",
        """
        model M:
            param w: [L D D] = normal(std=0.1)
        fn forward(m: M, x: [n D]) -> [n D]:
            for l in 0..L:
                x = x @ m.w[l] |> relu
            return x
        """,
        [("linear", "Linear D → D · ReLU", "× L = 3")],
    ),
    (
        "repeated_call_times_3",
        """
        model M:
            param w: [D D] = normal(std=0.1)
        fn layer(m: M, x: [n D]) -> [n D] = x @ m.w |> tanh
        fn forward(m: M, x: [n D]) -> [n D] = layer(m, layer(m, layer(m, x)))
        """,
        [("linear", "Linear D → D · Tanh", "× 3")],
    ),
    (
        "dropout_and_softmax",
        """
        model M:
            param w: [D C] = normal(std=0.1)
        fn forward(m: M, x: [n D], mode: Mode) -> [n C] Prob over C:
            return dropout(x, 0.2, mode) @ m.w |> softmax(over=C)
        """,
        [
            ("dropout", "Dropout 0.2", ""),
            ("linear", "Linear D → C", ""),
            ("softmax", "Softmax over C", ""),
        ],
    ),
    (
        "cross_entropy_loss",
        """
        model M:
            param w: [D C] = normal(std=0.1)
        fn forward(m: M, x: [n D]) -> [n C] Logit over C = x @ m.w
        fn loss(m: M, x: [n D], y: [n] Index[C]) -> [] NonNeg:
            return cross_entropy(forward(m, x), y, over=C)
        """,
        [("call", "forward (above)", ""), ("loss", "Cross-entropy over C", "")],
    ),
    (
        "mse_loss_function",
        """
        model M:
            param w: [D C] = normal(std=0.1)
        fn mse_loss(a: [n C], b: [n C]) -> [] = mean((a - b) * (a - b))
        fn forward(m: M, x: [n D]) -> [n C] = x @ m.w
        fn loss(m: M, x: [n D], y: [n C]) -> [] = mse_loss(forward(m, x), y)
        """,
        [("call", "forward (above)", ""), ("loss", "MSE loss", "")],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_layer_is_recognised(source: str, expected: list[tuple[str, str, str]]) -> None:
    found = read(source)
    section = 1 if expected[0][1] == "forward (above)" else 0
    shown = [
        (node.kind, node.label, node.repeat)
        for node in boxes(found, section)
        if node.kind != "frame"
    ]
    assert shown == expected


def test_residual_names_the_value_added() -> None:
    found = read(CASES[15][1])
    residual = [node for node in boxes(found) if node.kind == "residual"]
    assert [(node.arrow, node.added) for node in residual] == [("⊕", "x")]


def test_loss_labels_are_beside_it() -> None:
    found = read(CASES[-2][1])
    loss = [node for node in boxes(found, 1) if node.kind == "loss"][0]
    assert [(held.name, held.type) for held in loss.beside] == [("y", "[n] Index[C]")]
    assert [node.label for node in found.sections[1].nodes if node.kind == "input"] == ["x"]


def test_linear_params_include_the_bias_only_when_there_is_one() -> None:
    with_bias = boxes(read(CASES[0][1]))[0]
    without = boxes(read(CASES[1][1]))[0]
    assert [held.name for held in with_bias.params] == ["w", "b"]
    assert [held.name for held in without.params] == ["w"]
