# The forward pass of examples/mlp.ss with its weights as parameters instead of a
# model: Matrix multiplication, Broadcasting by name (+ b1), Pipes, Built-in
# operations (argmax) and Value domains (Logit over C, Index[C], to Binary).
dim D = 784
dim Hd = 256
dim C = 10

fn forward(x: [b D], w1: [D Hd], b1: [Hd], w2: [Hd C]) -> [b C] Logit over C:
    return x @ w1 + b1
        |> gelu
        |> matmul(w2)

fn predict(x: [b D], w1: [D Hd], b1: [Hd], w2: [Hd C]) -> [b] Index[C] = argmax(forward(x, w1, b1, w2), over=C)

fn accuracy(x: [b D], labels: [b] Index[C], w1: [D Hd], b1: [Hd], w2: [Hd C]) -> [] Unit:
    hits = predict(x, w1, b1, w2) == labels
    return mean(hits to Binary)

fn centred(x: [b D], mean_img: [D], w1: [D Hd], b1: [Hd]) -> [b Hd]:
    return (x - mean_img) @ w1 + b1 |> relu
