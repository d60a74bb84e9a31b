# From the reference's section on E0102.
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc
#^ E0102
