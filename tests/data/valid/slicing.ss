# Indexing > Slices: 1:, :-1 and 0:n-1 have size n-1, 0:2*h:2 on (2 h) has size h,
# bounds past the ends are clamped when every size is known, and an integer index
# removes its axis.
dim D = 64

fn diff(x: [n D]) -> [n - 1 D] = x[1:] - x[:-1]

fn trimmed(x: [n D]) -> [n - 1 D] = x[0:n-1]

fn evens(x: [(2 h) D]) -> [h D] = x[0:2*h:2]

fn odds(x: [(2 h) D]) -> [h D] = x[1:2*h:2]

fn clamp_end(x: [100 D]) -> [100 D] = x[0:1000]

fn window(x: [100 D]) -> [10 D] = x[10:20]

fn first_row(x: [n D]) -> [D] = x[0]

fn first_column(x: [b n D]) -> [b D] = x[:, 0]

fn last_feature(x: [n D]) -> [n] = x[:, D - 1]
