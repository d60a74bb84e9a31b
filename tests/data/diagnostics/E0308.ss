# From the reference's section on E0308.
extern fn erfc(x: Real) = "torch.special.erfc"  # E0308
