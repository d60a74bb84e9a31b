dim C = 3
dim D = 4

fn other_size(x: [n] Index[C]) = x as Index[D]  # E0410

fn same_size(x: [n] Index[C]) = x as Index[3]
