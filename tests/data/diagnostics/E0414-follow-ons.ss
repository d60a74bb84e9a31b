# A dim too large for 128 bits is reported once; a literal too large for the lexer is
# E0208 alone, not E0414 as well. Their uses are unknown sizes, silently.
dim Big = 18446744073709551615 * 18446744073709551615 * 18446744073709551615  # E0414
dim Literal = 170141183460469231731687303715884105727  # E0208
dim Both = Big + Literal

fn big(x: [n Big]) -> [n Big] = x * 2.0

fn literal(x: [Literal]) -> [] = sum(x)

fn both(x: [n D]) -> [n Both] = x

dim D = 4
