# From the reference's section on E2201.
dim Ping = [Pong n]  # E2201
dim Pong = [Ping m]  # E2201
