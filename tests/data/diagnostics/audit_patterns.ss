# Audit of "Pattern operations": one probe per rule.
dim D = 8

fn side_rank(x: [b n D]) = rearrange(x, b n -> n b)  # E0403
fn name_in_scope(x: [b n D], y: [b m D]) = rearrange(y, b n D -> b D n)  # E0401
fn number_size(x: [b n D]) = rearrange(x, b n 4 -> b n)  # E0401
fn two_unknown_parts(x: [b 12]) = rearrange(x, b (h w) -> b h w)  # E0409
fn part_not_whole(x: [b 12]) = rearrange(x, b (h 5) -> b h 5)  # E0402
fn group_cannot_fit(x: [b 12]) = rearrange(x, b (2 5) -> b 2 5)  # E0401
fn nested_group(x: [b 12]) = rearrange(x, b ((h w) c) -> b h w c, h=2, w=2)  # E0407
fn name_twice(x: [b n D]) = rearrange(x, b b D -> b D)  # E0407
fn transposed(x: [b n D]) = rearrange(x, b D n -> b n D)  # E0408
fn keyword_in_scope(x: [b n D]) = rearrange(x, b n (h d) -> b h n d, h=2, D=8)  # E0406
fn keyword_absent(x: [b n D]) = rearrange(x, b n (h d) -> b h n d, h=2, q=3)  # E0406
fn output_new_name(x: [b n D]) = rearrange(x, b n D -> b n D q)  # E0405
fn output_new_number(x: [b n D]) = rearrange(x, b n D -> b n D 3)  # E0407
fn output_missing_name(x: [b n D]) = rearrange(x, b n D -> b D)  # E0407
fn einsum_group(x: [b n D], y: [D m]) = einsum(x, y: b n (D), D m -> b n m)  # E0407
