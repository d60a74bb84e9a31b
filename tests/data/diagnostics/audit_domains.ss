# Audit of "Value domains", "Conversions with to" and "Dtypes": one probe per rule.
dim D = 8
dim C = 4
domain Empty = [3, 2]  # E0503
domain Named = [a, 2]  # E0503

fn over_missing(x: [n D] Prob over C) = x  # E0503
fn over_on_range(x: [n C] Unit over C) = x  # E0503
fn size_on_prob(x: [n C] Prob[C] over C) = x  # E0503
fn mask_f32(x: [n] Mask f32) = x  # E0503
fn unit_bool(x: [n] Unit bool) = x  # E0503
fn prob_i64(x: [n C] Prob over C i64) = x  # E0503

fn prob_as_logit(p: [n C] Prob over C) -> [n C] Logit over C = p  # E0501
fn prob_other_axis(p: [C n] Prob over C) -> [C n] Prob over n = p  # E0501
fn take_index(i: [n] Index[D]) = i
fn other_vocabulary(i: [n] Index[C]) = take_index(i)  # E0507
fn softmax_twice(x: [n C]) = softmax(softmax(x, over=C), over=C)  # E0501
fn softmax_before_loss(x: [n C], y: [n] Index[C]) = cross_entropy(softmax(x, over=C), y, over=C)  # E0501
fn where_on_numbers(x: [n D]) = where(x, x, x)  # E0501
fn not_on_numbers(x: [n D]) = !x  # E0501

fn log_touches_zero(x: [n D]) = log(relu(x))  # W0501
fn log_of_signed(x: [n D] Signed) = log(x)  # E0506
fn divide_by_zero(x: [n D]) = x / 0.0  # E0506
fn sqrt_of_negative(x: [n D]) = sqrt(clamp(x, -5.0, -1.0))  # E0506

fn nothing_to_convert(x: [n D] Unit) = x to Unit  # E0504
fn prob_to_signed(x: [n C] Prob over C) = x to Signed  # E0504
fn to_integer_dtype(x: [n D] Unit) = x to Unit i32  # E0504
fn to_bool(x: [n D]) = x to bool  # E0504
fn to_host_int(x: [n D]) = x to int  # E0504

# A shape written in `to` must be the value's own.
fn to_other_shape(x: [n D] Unit) = x to [n C] Signed  # E0401
fn to_other_rank(x: [n D] Unit) = x to [n] Signed  # E0403
fn pipe_to_other_shape(x: [n D] Unit) = x |> to [n C] Signed  # E0401
fn to_own_shape(x: [n 8] Unit) -> [n D] Signed = x to [n D] Signed

# Index[V] fits only an equal V at returns too.
fn returns_other_vocabulary(i: [n] Index[C]) -> [n] Index[D] = i  # E0507
fn argmax_other_vocabulary(x: [n C]) -> [n] Index[D] = argmax(x, over=C)  # E0507
fn returns_own_vocabulary(x: [n C]) -> [n] Index[C] = argmax(x, over=C)
