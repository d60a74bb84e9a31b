# Shapes and sizes > Tensor types and Value domains: a type is a shape, a domain and a
# dtype; messages show no domain for Real and a dtype only when it isn't the one the
# domain implies (bool for Mask, i64 for Index, f32 otherwise): [b 3 h w] u8.
dim D = 64
dim C = 10

fn bytes(img: [b 3 h w] u8) = img  #= [b 3 h w] u8

fn low(x: [b n D] Signed bf16) = x  #= [b n D] Signed bf16

fn default_float(x: [b D] f32) = x  #= [b D]

fn bools(keep: [n m] bool) = keep  #= [n m] Mask

fn labels(ids: [b t] Index[C]) = ids  #= [b t] Index[C]

fn dist(p: [b C] Prob over C) = p  #= [b C] Prob over C

fn scalar(s: []) = s  #= []
