# Audit of "Indexing": the types of slices and causal.
dim D = 8

# On an axis n, 0:n-1, 1: and :-1 all have size n-1.
fn upto(x: [n D]) = x[0:n-1]  #= [n-1 D]
fn from_one(x: [n D]) = x[1:]  #= [n-1 D]
fn drop_last(x: [n D]) = x[:-1]  #= [n-1 D]
# 0:2*h:2 on (2 h) has size h.
fn strided(x: [2*h D]) = x[0:2*h:2]  #= [h D]
# Known sizes clamp as in Python.
fn clamped(x: [100 D]) = x[0:1000]  #= [100 D]
# A slice that may not fit gives a new unknown size.
fn may_not_fit(x: [n D]) = x[0:3]  #= [?k D]
# An index drops its axis; axes without an index are kept.
fn first_row(x: [n D]) = x[0]  #= [D]
# causal[n m] is a [n m] Mask.
fn triangle(x: [n m]) = causal[n m]  #= [n m] Mask
