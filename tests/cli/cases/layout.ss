## An unclosed call, then a good function.
fn f(x: [n]) -> [n] = add(x, x

fn g(x: [n]) -> [n]:
	return x
        extra
