# Calls and returns compare tensor dtypes exactly; a shapeless parameter that names no
# dtype takes any, and an elementwise function's result has its arguments' float dtype.
dim D = 4

fn half(x: [n] f16) -> [n] f16 = x

fn returns_other(x: [n] bf16) -> [n] f16 = x  # E0502

fn calls_other(x: [n] bf16) -> [n] f16 = half(x)  # E0502

fn default_f32(x: [n]) -> [n] = x

fn passes_f64(x: [n] f64) -> [n] = default_f32(x)  # E0502

fn any_dtype(x: Real) -> Real = x * 2.0

fn keeps_bf16(x: [n D] bf16) -> [n D] bf16 = any_dtype(x)

fn indices(i: [n] Index[D]) -> [n] Index[D] = i

fn passes_ints(i: [n] Index[D] i32) -> [n] Index[D] = indices(i)  # E0502
