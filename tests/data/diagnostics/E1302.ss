# From the reference's section on E1302.
data Sentence:
    tokens: [?n]  # E1302
