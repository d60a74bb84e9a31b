# From the reference's section on E1402.
dim D = 64

logs StepLogs:
    loss: [D] mean  # E1402
