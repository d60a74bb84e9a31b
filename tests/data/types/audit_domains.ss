# Audit of "Value domains", "Range inference", "Conversions with to" and "Dtypes".
dim D = 8
dim C = 4
domain Temp = [0.05, 10]

# Widening: Unit fits NonNeg; plain numbers and LogProb fit Logit; Prob along C is a range.
fn unit_as_nonneg(x: [n D] Unit) -> [n D] NonNeg = x  #= [n D] Unit
fn real_as_logit(x: [n C]) -> [n C] Logit over C = x  #= [n C]
fn logprob_as_logit(x: [n C] LogProb over C) -> [n C] Logit over C = x  #= [n C] LogProb over C
fn prob_as_unit(p: [n C] Prob over C) -> [n C] Unit = p  #= [n C] Prob over C

# Range inference.
fn signed_from_sigmoid(x: [n D]) = sigmoid(x) * 2.0 - 1.0  #= [n D] Signed
fn trig(x: [n D]) = sin(x)  #= [n D] Signed
fn sum_keeps_sign(x: [n D] Unit) = sum(x, over=D)  #= [n] NonNeg
fn max_keeps_range(x: [n D] Unit) = max(x, over=D)  #= [n] Unit
fn std_nonneg(x: [n D]) = std(x, over=D)  #= [n] NonNeg
fn matmul_real(x: [n D] Unit, w: [D D] Unit) = x @ w  #= [n D]
fn user_domain(x: [n D] Temp) = x  #= [n D] Temp

# Semantic domains: mean over another axis keeps Prob; removing C leaves the range.
fn mixture(p: [b n C] Prob over C) = mean(p, over=n)  #= [b C] Prob over C
fn reduced_away(p: [n C] Prob over C) = max(p, over=C)  #= [n] Unit
fn shifted_logits(z: [n C] Logit over C) = z * 2.0 + 1.0  #= [n C] Logit over C

# Discrete domains: comparisons give masks; Binary times Binary stays Binary.
fn compare(x: [n D]) = x > 0.0  #= [n D] Mask
fn binary_product(a: [n] Binary, b: [n] Binary) = a * b  #= [n] Binary
fn additive_sum(a: [n] Additive, b: [n] Additive) = a + b  #= [n] Additive
fn argmax_index(x: [n C]) = argmax(x, over=C)  #= [n] Index[C]

# to: dtype-only conversions.
fn bool_to_float(m: [n] bool) = m to f32  #= [n] Binary
fn bool_to_int(m: [n] bool) = m to i64  #= [n] Unit i64
fn u8_to_unit(x: [n] u8) = x to Unit  #= [n] Unit
fn half(x: [n D] Unit) = x to f16  #= [n D] Unit f16

# Promotion.
fn bf16_scaled(x: [b D] bf16) = x * 0.5  #= [b D] bf16
fn u8_doubled(x: [b D] u8) = x * 2  #= [b D] u8
fn mixed_halves(x: [b D] bf16, y: [b D] f16) = x + y  #= [b D]
fn int_sum(x: [b D] i32) = sum(x, over=D)  #= [b] i64
fn int_division(x: [b D] i32) = x / 2  #= [b D]
