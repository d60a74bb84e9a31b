# Iterator chains: the reference's five examples, with the types it states. `table`'s
# body is [3 D] with f32 values, which prints as [3 D] (f32 is the default dtype).
dim D = 8
dim C = 4

fn scale_rows(x: [n D], w: [n]) -> [n D] = n |> map(i => x[i] * w[i])  #= [n D]

fn per_row(x: [n D], w: [D C]) -> [n C] = x |> map(row => softmax(row @ w, over=C), over=n)  #= [n C] Prob over C

fn gram(x: [n D]) -> [n n] = x |> map(a => x |> map(b => sum(a * b), over=n), over=n)  #= [n n]

fn table() -> [3 D] f32 = 3 |> map(i => D |> map(j => j to f32))  #= [3 D]

fn positive(x: [n D]) -> [] = (x |> map(row => sum(row), over=n) |> filter(t => t > 0.0) |> sum)  #= []
