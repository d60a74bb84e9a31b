# From the reference's section on E1404.
logs StepLogs:
    loss: [] mean

fn report(sink: LogSink, l: []) = sink.write(StepLogs(loss=l))

fn f(x: [n]) = report(x, sum(x))  # E1404
