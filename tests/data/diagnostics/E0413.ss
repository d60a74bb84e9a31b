# From the reference's section on E0413.
import python torch

fn f() -> [8] = torch.ones(8)  # E0413
