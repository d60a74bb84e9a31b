# From the reference's section on E0104.
fn f() -> []:
        a = 1.0
    return a  # E0104
