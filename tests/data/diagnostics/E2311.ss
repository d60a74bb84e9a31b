import shapescript.std.fit as std

dim D = 4

model Plain:
    param w: [D] = zeros

data Ex:
    x: [D]

fn train(mut m: Plain, data: Dataset[Ex], sink: LogSink, mode: Mode):
    std.fit(mut m, data, sink, 1, 8, 0.1, mode)  # E2311
