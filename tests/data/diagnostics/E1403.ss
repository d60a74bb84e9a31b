# From the reference's section on E1403.
logs StepLogs:
    loss: [] mean

fn report(sink: LogSink, x: [n]):
    sink.write(sum(x))  # E1403
