# From the reference's section on E0103.
fn f(x: [n]) -> [n]:
	return x  # E0103
