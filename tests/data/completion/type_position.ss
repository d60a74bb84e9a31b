# In a type, domains first.
dim D = 8
#? Additive, Binary, Index, Logit, LogProb
fn g(y: [t D]) -> [t D]
