# Audit of "Assertions with as": one probe per rule.
dim D = 8
dim C = 4
domain Big = [2, 3]

fn wrong_rank(x: [n D]) = x as [n D 1]  # E0410
fn known_sizes_differ(x: [4 D]) = x as [5 D]  # E0410
fn mask_as_numbers(m: [n D] bool) = m as Unit  # E0410
fn numbers_as_mask(x: [n D]) = x as Mask  # E0410
fn range_misses(x: [n D] Unit) = x as Big  # E0410
fn additive_bounded_below(x: [n D]) = relu(x) as Additive  # E0410
fn binary_far(x: [n D]) = (sigmoid(x) + 2.0) as Binary  # E0410
fn index_of_floats(x: [n D]) = x as Index[C]  # E0410
fn prob_of_logits(x: [n C] Logit over C) = x as Prob over C  # E0410
fn other_dtype_kind(x: [n D]) = x as [n D] i64  # E0410
fn size_not_in_scope(x: [n D]) = x as [m D]  # E0301
