# Audit of "Indexing" and "Built-in operations": one probe per rule.
import python torch
dim D = 8
dim C = 4

fn too_many_indices(x: [n D]) = x[0, 1, 2]  # E0403
fn string_index(x: [n D]) = x["a"]  # E0406
fn float_bound(x: [n D]) = x[0.5:2]  # E0406
fn causal_unknown_axis(x: [n m]) = causal[n q]  # E0301
fn causal_number(x: [n m]) = causal[n 3]  # E0406

fn missing_over(x: [n D]) = softmax(x)  # E0406
fn over_not_a_name(x: [n D]) = softmax(x, over=3)  # E0406
fn over_not_an_axis(x: [n D]) = softmax(x, over=C)  # E0405
fn over_python_value(x: [n D]) = softmax(torch.zeros(3), over=n)  # E0413
fn cat_names(x: [n D], y: [n C]) = cat(x, y, over=n)  # E0404
fn cat_count(x: [n D], y: [n D 1]) = cat(x, y, over=n)  # E0403
fn cat_sizes(x: [n D], y: [n 4]) = cat(x, y, over=n)  # E0401
fn cat_mask(x: [n D], y: [n D] bool) = cat(x, y, over=n)  # E0501
fn stack_mask(x: [n D], y: [n D] bool) = stack(y, x, over=k)  # E0501
fn unknown_keyword(x: [n D]) = softmax(x, over=n, axis=1)  # E0406
fn topk_largest(x: [n D]) = topk(x, 2, over=D, largest=false)  # E0406
fn sort_descending(x: [n D]) = sort(x, over=D, descending=true)  # E0406
fn too_many_arguments(x: [n D]) = softmax(x, x, over=n)  # E0406
fn mask_arithmetic(m: [n D] bool) = m + 1.0  # E0505
fn mask_as_numbers(m: [n D] bool) = exp(m)  # E0501
