# From the reference's section on E0507.
dim V = 100
dim V2 = 50

fn f(emb: [V 8], ids: [t] Index[V2]) = emb[ids]  # E0507
