//! The binary elementwise ops, each declared once.
//!
//! **Adding a binary op is an entry in [`for_each_binary_op!`] (plus, if its kernel or
//! formula needs one, a helper in [`fns`]) — this file only.** Everything else is derived
//! from the entry: the [`BinaryOp`](crate::op_defs::BinaryOp) variant and its names, the
//! result dtype, the kernels per dtype class, what the backward saves and its formulas
//! (also for a Python-number operand, `x * 3` / `2 ** x`), the node name, static-graph
//! support (shape inference is broadcasting for every binary op), the Python `Tensor`
//! methods and operators, and (through `scripts/gen_op_bindings.py`, whose output a test
//! keeps fresh) the module functions of both dialects, the static `Variable` methods and
//! the stub entries.
//!
//! Why a callback macro rather than a trait per op: see [`crate::op_defs`]. The kernels
//! are closures inlined into the monomorphic loops of `map_binary` (a 1-element `a + b`
//! costs ~0.2 µs from Python; a function pointer per element would not be free).
//!
//! Entry columns (all required; `[]` means "none"):
//! - `methods`: `Tensor` method names, also module functions (both dialects share them);
//!   the first is the op's name (Paddle's spelling), in errors and static programs.
//! - `dunders`: `[__op__, __rop__]`, the Python operator and its reflected form; `[]` for
//!   none (comparisons go through `__richcmp__`, `**` through `__pow__(other, modulo)`).
//! - `kwargs`: keyword names also accepted for the second operand (Paddle's `y=`,
//!   torch's `exponent=`).
//! - `extra`: one more torch keyword the methods take, or `[]`: `[alpha]` (a number that
//!   scales the second operand first: `add(x, y, alpha=a)` is `x + a * y`) or
//!   `[rounding_mode]` (`div`: `'trunc'` or `'floor'` rounds the quotient). What each
//!   does is `binary_extra` in `src/python/tensor/math.rs`.
//! - `doc`: one line, used for the method, the function and the stub.
//! - `dtype`: [`BinaryDType`](crate::op_defs::BinaryDType).
//! - `float`, `int`, `complex`, `boolean`: the kernel over one pair of elements for
//!   f32/f64, i32/i64, complex and bool operands (after promotion); a dtype class without
//!   a kernel raises a `TypeError`. Write trait calls fully qualified (`Num::add(x, y)`):
//!   the element types implement several traits with methods of the same name.
//! - `saves`: `[a, b, out]`, when the backward keeps the left operand, the right operand
//!   and the output — a [`SaveWhen`](crate::op_defs::SaveWhen): `Never`, `Always`,
//!   `IfLhs` / `IfRhs` (only when that operand's gradient is needed).
//! - `grad`: `[lhs formula, rhs formula]` or `[]` (no gradient: integer-valued and bool
//!   results). Each is `|g, s| ...`: the operand's gradient from the incoming gradient `g`
//!   and `s.a()?`, `s.b()?`, `s.out()?`, written with differentiable tensor ops so double
//!   backward works. The engine reduces broadcast gradients to the operand's shape.
//!   With a Python number operand the same formulas run with the number in its place
//!   (captured, never saved).
//! - `number_lhs`: `[[a, b, out], formula]`: a cheaper rhs formula (and its saves) for a
//!   Python number on the left (`2 ** x`), or `[]`.
//! - `node`: the backward node's name (as `grad_fn` shows it).

/// Scalar kernels and gradient helpers used by the table (each consumer imports them); the
/// orthogonal polynomials' kernels are in `binary_polynomials.rs`.
#[path = "binary_fns.rs"]
pub mod fns;

/// Calls `$consumer! { entries }` with every binary op's declaration (see the module docs
/// for the columns). Closures name only their own parameters, traits and helpers from
/// [`fns`] — consumers glob-import `fns` and the scalar traits.
macro_rules! for_each_binary_op {
    ($consumer:ident) => {
        $consumer! {
            Add {
                methods: [add], dunders: [__add__, __radd__], kwargs: [y], extra: [alpha],
                doc: "Elementwise `self + other` (broadcasting; Paddle's `y=` also accepted).",
                dtype: Promote,
                float: [|x, y| Num::add(x, y)], int: [|x, y| Num::add(x, y)],
                complex: [|x, y| Num::add(x, y)], boolean: [|x, y| x | y],
                saves: [Never, Never, Never],
                grad: [|g, _s| Ok(g.clone()), |g, _s| Ok(g.clone())],
                number_lhs: [], node: "AddBackward",
            }
            Sub {
                methods: [subtract, sub], dunders: [__sub__, __rsub__], kwargs: [y],
                extra: [alpha],
                doc: "Elementwise `self - other` (broadcasting; Paddle's `y=` also accepted).",
                dtype: PromoteNotBool,
                float: [|x, y| Num::sub(x, y)], int: [|x, y| Num::sub(x, y)],
                complex: [|x, y| Num::sub(x, y)], boolean: [],
                saves: [Never, Never, Never],
                grad: [|g, _s| Ok(g.clone()), |g, _s| g.neg()],
                number_lhs: [], node: "SubBackward",
            }
            Mul {
                methods: [multiply, mul], dunders: [__mul__, __rmul__], kwargs: [y], extra: [],
                doc: "Elementwise `self * other` (broadcasting; Paddle's `y=` also accepted).",
                dtype: Promote,
                float: [|x, y| Num::mul(x, y)], int: [|x, y| Num::mul(x, y)],
                complex: [|x, y| Num::mul(x, y)], boolean: [|x, y| x & y],
                saves: [IfRhs, IfLhs, Never],
                grad: [|g, s| g.mul_conj(s.b()?), |g, s| g.mul_conj(s.a()?)],
                number_lhs: [], node: "MulBackward",
            }
            Div {
                methods: [divide, div, true_divide], dunders: [__truediv__, __rtruediv__],
                kwargs: [y], extra: [rounding_mode],
                doc: "Elementwise true division `self / other` (Paddle's `y=` also accepted).",
                dtype: Float,
                float: [|x, y| Num::div(x, y)], int: [],
                complex: [|x, y| Num::div(x, y)], boolean: [],
                saves: [IfRhs, Always, Never],
                grad: [
                    |g, s| g.div_conj(s.b()?),
                    |g, s| {
                        let b = s.b()?;
                        g.neg()?.mul_conj(s.a()?)?.div_conj(&b.mul(b)?)
                    }
                ],
                // d(c / x)/dx = -c / x^2 = -out / x
                number_lhs: [
                    [Never, Always, Always],
                    |g, s| g.neg()?.mul_conj(&s.out()?.div(s.b()?)?)
                ],
                node: "DivBackward",
            }
            FloorDiv {
                methods: [floor_divide], dunders: [__floordiv__, __rfloordiv__], kwargs: [y],
                extra: [],
                doc: "Elementwise `self // other` (rounding toward minus infinity).",
                dtype: PromoteBoolToInt,
                float: [|x, y| Real::floor_div(x, y)], int: [|x, y| Real::floor_div(x, y)],
                complex: [], boolean: [],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "FloorDivBackward",
            }
            Rem {
                methods: [remainder, r#mod], dunders: [__mod__, __rmod__], kwargs: [y], extra: [],
                doc: "Elementwise `self % other`, with the sign of the divisor (Python's `%`).",
                dtype: PromoteBoolToInt,
                float: [|x, y| Real::rem(x, y)], int: [|x, y| Real::rem(x, y)],
                complex: [], boolean: [],
                saves: [IfRhs, IfRhs, Never],
                grad: [
                    |g, _s| Ok(g.clone()),
                    |g, s| g.neg()?.mul(&s.a()?.binary_raw(s.b()?, BinaryOp::FloorDiv)?)
                ],
                number_lhs: [], node: "RemainderBackward",
            }
            Pow {
                methods: [pow], dunders: [], kwargs: [exponent, y], extra: [],
                doc: "Elementwise `self ** other` (torch's `exponent=` and Paddle's `y=` also accepted).",
                dtype: PromoteBoolToInt,
                float: [|x, y| Num::pow(x, y)], int: [|x, y| Num::pow(x, y)],
                complex: [|x, y| Num::pow(x, y)], boolean: [],
                saves: [Always, Always, IfRhs],
                grad: [
                    |g, s| pow_base_grad(g, s.a()?, s.b()?),
                    |g, s| pow_exponent_grad(g, s.a()?, s.b()?, s.out()?)
                ],
                // d(c ** x)/dx = c ** x * ln c (a zero base takes the masked formula)
                number_lhs: [
                    [Never, Never, Always],
                    |g, s| g.mul_conj(&s.out()?.mul(&s.a()?.log()?)?)
                ],
                node: "PowBackward",
            }
            Maximum {
                methods: [maximum], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise maximum of `self` and `other` (NaN propagates).",
                dtype: Promote,
                float: [|x, y| Real::maximum(x, y)], int: [|x, y| Real::maximum(x, y)],
                complex: [], boolean: [|x, y| x | y],
                saves: [Always, Always, Never],
                grad: [
                    |g, s| g.mul(&lhs_wins(s.a()?, s.b()?, BinaryOp::Gt, g.dtype())?),
                    |g, s| g.mul(&lhs_wins(s.a()?, s.b()?, BinaryOp::Gt, g.dtype())?.rsub_scalar(1.0)?)
                ],
                number_lhs: [], node: "MaximumBackward",
            }
            Minimum {
                methods: [minimum], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise minimum of `self` and `other` (NaN propagates).",
                dtype: Promote,
                float: [|x, y| Real::minimum(x, y)], int: [|x, y| Real::minimum(x, y)],
                complex: [], boolean: [|x, y| x & y],
                saves: [Always, Always, Never],
                grad: [
                    |g, s| g.mul(&lhs_wins(s.a()?, s.b()?, BinaryOp::Lt, g.dtype())?),
                    |g, s| g.mul(&lhs_wins(s.a()?, s.b()?, BinaryOp::Lt, g.dtype())?.rsub_scalar(1.0)?)
                ],
                number_lhs: [], node: "MinimumBackward",
            }
            Eq {
                methods: [equal, eq], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise `self == other`, as a bool tensor.",
                dtype: Bool,
                float: [|x, y| x == y], int: [|x, y| x == y],
                complex: [|x, y| x == y], boolean: [|x, y| x == y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "EqBackward",
            }
            Ne {
                methods: [not_equal, ne], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise `self != other`, as a bool tensor.",
                dtype: Bool,
                float: [|x, y| x != y], int: [|x, y| x != y],
                complex: [|x, y| x != y], boolean: [|x, y| x != y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "NeBackward",
            }
            Lt {
                methods: [less_than, lt], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise `self < other`, as a bool tensor.",
                dtype: Bool,
                float: [|x, y| x < y], int: [|x, y| x < y],
                complex: [], boolean: [|x: bool, y: bool| !x & y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "LtBackward",
            }
            Le {
                methods: [less_equal, le], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise `self <= other`, as a bool tensor.",
                dtype: Bool,
                float: [|x, y| x <= y], int: [|x, y| x <= y],
                complex: [], boolean: [|x, y| x <= y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "LeBackward",
            }
            Gt {
                methods: [greater_than, gt], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise `self > other`, as a bool tensor.",
                dtype: Bool,
                float: [|x, y| x > y], int: [|x, y| x > y],
                complex: [], boolean: [|x: bool, y: bool| x & !y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "GtBackward",
            }
            Ge {
                methods: [greater_equal, ge], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise `self >= other`, as a bool tensor.",
                dtype: Bool,
                float: [|x, y| x >= y], int: [|x, y| x >= y],
                complex: [], boolean: [|x, y| x >= y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "GeBackward",
            }
            LogicalAnd {
                methods: [logical_and], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise logical AND of the truth values, as a bool tensor.",
                dtype: Bool,
                float: [|x, y| truthy(x) && truthy(y)], int: [|x, y| truthy(x) && truthy(y)],
                complex: [|x, y| truthy(x) && truthy(y)], boolean: [|x, y| x & y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "LogicalAndBackward",
            }
            LogicalOr {
                methods: [logical_or], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise logical OR of the truth values, as a bool tensor.",
                dtype: Bool,
                float: [|x, y| truthy(x) || truthy(y)], int: [|x, y| truthy(x) || truthy(y)],
                complex: [|x, y| truthy(x) || truthy(y)], boolean: [|x, y| x | y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "LogicalOrBackward",
            }
            LogicalXor {
                methods: [logical_xor], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise logical XOR of the truth values, as a bool tensor.",
                dtype: Bool,
                float: [|x, y| truthy(x) != truthy(y)], int: [|x, y| truthy(x) != truthy(y)],
                complex: [|x, y| truthy(x) != truthy(y)], boolean: [|x, y| x != y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "LogicalXorBackward",
            }
            BitAnd {
                methods: [bitwise_and], dunders: [__and__, __rand__], kwargs: [y], extra: [],
                doc: "Elementwise bitwise AND of integer or bool tensors (`&`).",
                dtype: IntOrBool,
                float: [], int: [|x, y| IntBits::bit_and(x, y)],
                complex: [], boolean: [|x, y| x & y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "BitAndBackward",
            }
            BitOr {
                methods: [bitwise_or], dunders: [__or__, __ror__], kwargs: [y], extra: [],
                doc: "Elementwise bitwise OR of integer or bool tensors (`|`).",
                dtype: IntOrBool,
                float: [], int: [|x, y| IntBits::bit_or(x, y)],
                complex: [], boolean: [|x, y| x | y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "BitOrBackward",
            }
            BitXor {
                methods: [bitwise_xor], dunders: [__xor__, __rxor__], kwargs: [y], extra: [],
                doc: "Elementwise bitwise XOR of integer or bool tensors (`^`).",
                dtype: IntOrBool,
                float: [], int: [|x, y| IntBits::bit_xor(x, y)],
                complex: [], boolean: [|x, y| x != y],
                saves: [Never, Never, Never], grad: [],
                number_lhs: [], node: "BitXorBackward",
            }
            Copysign {
                methods: [copysign], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise `|self|` with the sign of `other` (IEEE `copysign`; `-0.0` counts as negative).",
                dtype: Float,
                float: [|x, y| FloatBits::copy_sign(x, y)], int: [],
                complex: [], boolean: [],
                saves: [IfLhs, Never, IfLhs],
                // d/dx = out / x (that is, +-1), 0 at x == 0 as torch; nothing flows to the sign
                grad: [
                    |g, s| g.mul(&ratio_or_zero(s.out()?, s.a()?)?),
                    |g, _s| g.zeros_like()
                ],
                number_lhs: [], node: "CopysignBackward",
            }
            Atan2 {
                methods: [atan2, arctan2], dunders: [], kwargs: [y], extra: [],
                doc: "Elementwise angle of the point `(other, self)`: `atan(self / other)` in the right quadrant, in `[-pi, pi]`.",
                dtype: Float,
                float: [|x, y| FloatBits::atan2(x, y)], int: [],
                complex: [], boolean: [],
                saves: [Always, Always, Never],
                // d/da atan2(a, b) = b / (a^2 + b^2), d/db = -a / (a^2 + b^2)
                grad: [
                    |g, s| g.mul(&s.b()?.div(&squares_sum(s.a()?, s.b()?)?)?),
                    |g, s| g.mul(&s.a()?.div(&squares_sum(s.a()?, s.b()?)?)?.neg()?)
                ],
                number_lhs: [], node: "Atan2Backward",
            }
            Zeta {
                methods: [zeta], dunders: [], kwargs: [q], extra: [],
                doc: "Elementwise Hurwitz zeta function `sum_k (other + k) ** -self` (NaN for `self < 1`; differentiable in `other` only).",
                dtype: Float,
                float: [|x, y| FloatBits::zeta(x, y)], int: [],
                complex: [], boolean: [],
                saves: [IfRhs, IfRhs, Never],
                // d/dq zeta(s, q) = -s * zeta(s + 1, q); the derivative in s has no closed
                // form (PyTorch does not implement it either)
                grad: [
                    |_g, _s| zeta_exponent_grad(),
                    |g, s| {
                        let a = s.a()?;
                        g.mul(&a.mul(&a.add_scalar(1.0)?.binary(s.b()?, BinaryOp::Zeta)?)?)?.neg()
                    }
                ],
                number_lhs: [], node: "ZetaBackward",
            }
            ChebyshevT {
                methods: [chebyshev_polynomial_t], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise Chebyshev polynomial of the first kind `T_n(self)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::ChebT, false)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("chebyshev_polynomial_t"),
                    |_g, _s| polynomial_no_derivative("chebyshev_polynomial_t")
                ],
                number_lhs: [], node: "SpecialChebyshevTBackward",
            }
            ChebyshevU {
                methods: [chebyshev_polynomial_u], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise Chebyshev polynomial of the second kind `U_n(self)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::ChebU, false)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("chebyshev_polynomial_u"),
                    |_g, _s| polynomial_no_derivative("chebyshev_polynomial_u")
                ],
                number_lhs: [], node: "SpecialChebyshevUBackward",
            }
            ChebyshevV {
                methods: [chebyshev_polynomial_v], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise Chebyshev polynomial of the third kind `V_n(self)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::ChebV, false)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("chebyshev_polynomial_v"),
                    |_g, _s| polynomial_no_derivative("chebyshev_polynomial_v")
                ],
                number_lhs: [], node: "SpecialChebyshevVBackward",
            }
            ChebyshevW {
                methods: [chebyshev_polynomial_w], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise Chebyshev polynomial of the fourth kind `W_n(self)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::ChebW, false)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("chebyshev_polynomial_w"),
                    |_g, _s| polynomial_no_derivative("chebyshev_polynomial_w")
                ],
                number_lhs: [], node: "SpecialChebyshevWBackward",
            }
            ShiftedChebyshevT {
                methods: [shifted_chebyshev_polynomial_t], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise shifted Chebyshev polynomial of the first kind `T_n(2 self - 1)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::ChebT, true)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("shifted_chebyshev_polynomial_t"),
                    |_g, _s| polynomial_no_derivative("shifted_chebyshev_polynomial_t")
                ],
                number_lhs: [], node: "SpecialShiftedChebyshevTBackward",
            }
            ShiftedChebyshevU {
                methods: [shifted_chebyshev_polynomial_u], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise shifted Chebyshev polynomial of the second kind `U_n(2 self - 1)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::ChebU, true)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("shifted_chebyshev_polynomial_u"),
                    |_g, _s| polynomial_no_derivative("shifted_chebyshev_polynomial_u")
                ],
                number_lhs: [], node: "SpecialShiftedChebyshevUBackward",
            }
            ShiftedChebyshevV {
                methods: [shifted_chebyshev_polynomial_v], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise shifted Chebyshev polynomial of the third kind `V_n(2 self - 1)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::ChebV, true)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("shifted_chebyshev_polynomial_v"),
                    |_g, _s| polynomial_no_derivative("shifted_chebyshev_polynomial_v")
                ],
                number_lhs: [], node: "SpecialShiftedChebyshevVBackward",
            }
            ShiftedChebyshevW {
                methods: [shifted_chebyshev_polynomial_w], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise shifted Chebyshev polynomial of the fourth kind `W_n(2 self - 1)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::ChebW, true)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("shifted_chebyshev_polynomial_w"),
                    |_g, _s| polynomial_no_derivative("shifted_chebyshev_polynomial_w")
                ],
                number_lhs: [], node: "SpecialShiftedChebyshevWBackward",
            }
            HermiteH {
                methods: [hermite_polynomial_h], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise physicists' Hermite polynomial `H_n(self)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::HermiteH, false)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("hermite_polynomial_h"),
                    |_g, _s| polynomial_no_derivative("hermite_polynomial_h")
                ],
                number_lhs: [], node: "SpecialHermiteHBackward",
            }
            HermiteHe {
                methods: [hermite_polynomial_he], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise probabilists' Hermite polynomial `He_n(self)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::HermiteHe, false)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("hermite_polynomial_he"),
                    |_g, _s| polynomial_no_derivative("hermite_polynomial_he")
                ],
                number_lhs: [], node: "SpecialHermiteHeBackward",
            }
            LaguerreL {
                methods: [laguerre_polynomial_l], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise Laguerre polynomial `L_n(self)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::Laguerre, false)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("laguerre_polynomial_l"),
                    |_g, _s| polynomial_no_derivative("laguerre_polynomial_l")
                ],
                number_lhs: [], node: "SpecialLaguerreLBackward",
            }
            LegendreP {
                methods: [legendre_polynomial_p], dunders: [], kwargs: [n], extra: [],
                doc: "Elementwise Legendre polynomial `P_n(self)` of degree `n = other` (truncated; 0 for `n < 0`; not differentiable).",
                dtype: Float,
                float: [|x, n| FloatBits::poly(x, n, Poly::Legendre, false)], int: [],
                complex: [], boolean: [],
                saves: [Never, Never, Never],
                grad: [
                    |_g, _s| polynomial_no_derivative("legendre_polynomial_p"),
                    |_g, _s| polynomial_no_derivative("legendre_polynomial_p")
                ],
                number_lhs: [], node: "SpecialLegendrePBackward",
            }
        }
    };
}
pub(crate) use for_each_binary_op;
