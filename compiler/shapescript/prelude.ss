# The prelude: elementwise functions every ShapeScript file sees without importing them.
# A declaration of the same name in a file hides its stub. The checker knows the math of
# each Python function named here, so a call's range comes from its arguments' ranges; the
# return domain below is only the bound that holds for any input.

## The exponential $e^x$ of each value.
extern fn exp(x: Real) -> NonNeg = "torch.exp"

## The natural logarithm $\ln x$, defined for $x > 0$.
extern fn log(x: Real) -> Real = "torch.log"

## $\ln(1 + x)$, computed accurately for $x$ near 0; defined for $x > -1$.
extern fn log1p(x: Real) -> Real = "torch.log1p"

## $e^x - 1$, computed accurately for $x$ near 0; never below $-1$.
extern fn expm1(x: Real) -> Real = "torch.expm1"

## The square root $\sqrt{x}$, for $x \ge 0$.
extern fn sqrt(x: Real) -> NonNeg = "torch.sqrt"

## The reciprocal square root $1 / \sqrt{x}$, for $x > 0$.
extern fn rsqrt(x: Real) -> Pos = "torch.rsqrt"

## The sine of $x$ (in radians), in $[-1, 1]$.
extern fn sin(x: Real) -> Signed = "torch.sin"

## The cosine of $x$ (in radians), in $[-1, 1]$.
extern fn cos(x: Real) -> Signed = "torch.cos"

## The hyperbolic tangent $\tanh x = \frac{e^x - e^{-x}}{e^x + e^{-x}}$, in $[-1, 1]$.
extern fn tanh(x: Real) -> Signed = "torch.tanh"

## The logistic function $\sigma(x) = 1 / (1 + e^{-x})$, in $[0, 1]$.
extern fn sigmoid(x: Real) -> Unit = "torch.sigmoid"

## The error function $\operatorname{erf}(x) = \frac{2}{\sqrt{\pi}} \int_0^x e^{-t^2} \, dt$,
## in $[-1, 1]$.
extern fn erf(x: Real) -> Signed = "torch.erf"

## GELU, $x \cdot \Phi(x)$, with $\Phi$ the standard normal CDF (the exact form, not the
## tanh approximation); never below about $-0.17$.
extern fn gelu(x: Real) -> Real = "torch.nn.functional.gelu"

## SiLU, also called swish: $x \cdot \sigma(x)$; never below about $-0.28$.
extern fn silu(x: Real) -> Real = "torch.nn.functional.silu"

## Softplus, $\ln(1 + e^x)$: a smooth relu, never negative.
extern fn softplus(x: Real) -> NonNeg = "torch.nn.functional.softplus"

## $\ln \sigma(x) = -\ln(1 + e^{-x})$, computed without overflow; never positive.
extern fn log_sigmoid(x: Real) -> Real = "torch.nn.functional.logsigmoid"
