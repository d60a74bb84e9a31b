# Shapes and sizes > Unknown sizes and Functions and calls > Generic calls: each ?k in
# a return type becomes a new unknown size at each call, so two calls give two
# different unknown sizes, numbered per function (?k, then ?k2).
dim D = 64

fn nonzero(x: [n D]) -> [?k D] = x[sum(x, over=D) != 0]

fn twice(x: [n D], y: [m D]) -> []:
    a = nonzero(x)  #= [?k D]
    z = nonzero(y)  #= [?k2 D]
    return sum(a) + sum(z)
