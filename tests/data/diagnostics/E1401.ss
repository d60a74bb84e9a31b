# From the reference's section on E1401.
logs StepLogs:
    loss: [] mean

fn step(x: [n]) -> StepLogs = StepLogs(los=sum(x))  # E1401
