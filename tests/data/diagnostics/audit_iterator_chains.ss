# Audit of "Iterator chains": one probe per rule.
import python torch
dim D = 8
dim C = 4

fn needs_over(x: [n D]) = x |> map(r => r)  # E0406
fn over_not_an_axis(x: [n D]) = x |> map(r => r, over=C)  # E0405
fn runtime_length(k: int) = k |> map(i => i)  # E2401
fn python_length() = torch.zeros(3) |> map(i => i)  # E2401
fn index_of_other_axis(x: [n D], y: [m D]) = n |> map(i => y[i])  # E0507
fn pairs_at_the_end(x: [n D], y: [n D]) = x |> zip(y, over=n)  # E3205
fn pairs_to_a_reduction(x: [n D], y: [n D]) = x |> zip(y, over=n) |> sum  # E3205
fn pairs_one_parameter(x: [n D], y: [n D]) = x |> zip(y, over=n) |> map(a => a)  # E3206
fn pairs_to_a_named_stage(x: [n D], y: [n D]) = x |> zip(y, over=n) |> map(gelu)  # E3206
fn lambda_named_like_axis(x: [n D]) = x |> map(D => D, over=n)  # E0303
fn lambda_elsewhere(x: [n D]) = i => i  # E3202
fn prints_inside(x: [n D]) = x |> map(r => print(r), over=n)  # E2403

fn recurrence(x: [n]) -> [n]:
    y = n |> map(i => y[i - 1] + x[i])  # E2402
    return y
