//! The unary elementwise ops, each declared once.
//!
//! **Adding a unary op is an entry in [`for_each_unary_op!`] (plus, if its kernel needs
//! one, a scalar helper in [`fns`]) — this file only.** Everything else is derived from the
//! entry: the [`UnaryOp`](crate::op_defs::UnaryOp) variant and its name, the result dtype,
//! the kernels per dtype class, what the backward saves and its formula, the node name,
//! static-graph support (unary ops keep their input's shape, so shape inference needs
//! nothing per op), the Python `Tensor` methods, and (through `scripts/gen_op_bindings.py`,
//! whose output a test keeps fresh) the module functions, `nn.functional` names, static
//! `Variable` methods and stub entries.
//!
//! Why a callback macro (a table passed to each consumer macro) rather than a trait per
//! op or a generated Rust file: the kernels must stay closures inlined into the monomorphic
//! loops of each dtype (a trait object or function pointer per element would cost the
//! ~1 µs budget of a small-tensor op), the consumers live in different layers (kernels,
//! autograd, bindings) that each need a `match` over all ops, and `macro_rules!` gives that
//! with no build step and no extra dependency. Python-side files cannot be derived by
//! a Rust macro, so those few blocks come from a small generator instead.
//!
//! Entry columns (all required; `[]` means "none"):
//! - `methods`: `Tensor` method names, also module functions (both dialects share them);
//!   `functional`: names in `nn.functional`.
//! - `extra`: one more keyword the methods take (before Paddle's `name`), or `[]`:
//!   `[decimals]` (`round`: `round(x * 10**d) / 10**d`, halves to even, as both peers).
//!   What each does is `unary_extra` in `src/python/tensor/unary.rs`; the generator gives
//!   it to the stubs, and the static `Variable` method composes it
//!   (`Variable._unary_extra`).
//! - `doc`: one line, used for the method, the function and the stub.
//! - `dtype`: [`DTypeRule`](crate::op_defs::DTypeRule) — `Same`, `Float` (integers and
//!   bools compute in the default float dtype), `Bool` (a bool result), `Modulus` (complex
//!   to real), `Integral` (integers and bools only: bitwise ops).
//! - `cost`: `CHEAP` or `COSTLY` (a [`Split`](crate::kernels::Split)): transcendental
//!   kernels split across threads earlier.
//! - `real`: the f32/f64 kernel, a closure over one element; `fast_f32`: an optional
//!   `(slice kernel, scalar kernel)` pair from [`crate::kernels::fastmath`].
//! - `int`, `complex`, `boolean`: optional kernels for i32/i64, complex and bool input;
//!   a dtype class without a kernel raises a `TypeError`.
//! - `saves`: [`Saves`](crate::op_defs::Saves) — what the backward formula reads: the
//!   `Input`, the `Output`, `Nothing`; or `ZeroGrad` (piecewise constant ops) / `NoGrad`.
//! - `grad`: `|g, v| ...` the input gradient from the incoming gradient `g` and the saved
//!   tensor `v`, written with differentiable tensor ops so double backward works.
//! - `node`: the backward node's name (as `grad_fn` shows it).

/// Scalar helpers used by the kernel closures of the table (each consumer imports them).
#[path = "unary_fns.rs"]
pub mod fns;

/// Calls `$consumer! { entries }` with every unary op's declaration (see the module docs
/// for the columns). Closures name only their own parameters, methods of the element
/// type, and helpers from [`fns`] — consumers glob-import `fns` and `UnaryOp`.
macro_rules! for_each_unary_op {
    ($consumer:ident) => {
        // (the entries of `unary_math.rs` are appended there: one table in two files)
        $crate::op_defs::unary_math::for_each_unary_op_more! { $consumer;
            Neg {
                methods: [neg, negative], functional: [], extra: [],
                doc: "Elementwise negation `-self`.",
                dtype: Same, cost: CHEAP,
                real: |x| -x, fast_f32: [],
                int: [|x| i_neg(x)], complex: [|x| -x], boolean: [],
                saves: Nothing, grad: [|g, _v| g.neg()], node: "NegBackward",
            }
            Abs {
                methods: [abs, absolute], functional: [], extra: [],
                doc: "Elementwise absolute value (the modulus for complex tensors).",
                dtype: Modulus, cost: CHEAP,
                real: |x| f_abs(x), fast_f32: [],
                int: [|x| Real::abs(x)], complex: [|x| x.norm()], boolean: [|x| x],
                saves: Input, grad: [|g, v| abs_grad(g, v)], node: "AbsBackward",
            }
            Sign {
                methods: [sign, sgn], functional: [], extra: [],
                doc: "Elementwise sign: -1, 0 or 1.",
                dtype: Same, cost: CHEAP,
                real: |x| Real::sign(x), fast_f32: [],
                int: [|x| Real::sign(x)], complex: [|x| c_sign(x)], boolean: [|x| x],
                saves: ZeroGrad, grad: [], node: "ZeroGradBackward",
            }
            Exp {
                methods: [exp], functional: [], extra: [],
                doc: "Elementwise `e ** self`.",
                dtype: Float, cost: COSTLY,
                real: |x| x.exp(), fast_f32: [exp_f32_slice, exp_f32],
                int: [], complex: [|x| cexp(x)], boolean: [],
                saves: Output, grad: [|g, y| g.mul_conj(y)], node: "ExpBackward",
            }
            Log {
                methods: [log], functional: [], extra: [],
                doc: "Elementwise natural logarithm.",
                dtype: Float, cost: COSTLY,
                real: |x| x.ln(), fast_f32: [],
                int: [], complex: [|x| cln(x)], boolean: [],
                saves: Input, grad: [|g, x| g.div_conj(x)], node: "LogBackward",
            }
            Log1p {
                methods: [log1p], functional: [], extra: [],
                doc: "Elementwise `log(1 + self)`, accurate near zero.",
                dtype: Float, cost: COSTLY,
                real: |x| x.ln_1p(), fast_f32: [],
                int: [], complex: [|x| c_log1p(x)], boolean: [],
                saves: Input, grad: [|g, x| g.div_conj(&x.add_scalar(1.0)?)], node: "Log1pBackward",
            }
            Expm1 {
                methods: [expm1], functional: [], extra: [],
                doc: "Elementwise `exp(self) - 1`, accurate near zero.",
                dtype: Float, cost: COSTLY,
                real: |x| x.exp_m1(), fast_f32: [],
                int: [], complex: [|x| c_expm1(x)], boolean: [],
                saves: Output, grad: [|g, y| g.mul_conj(&y.add_scalar(1.0)?)], node: "Expm1Backward",
            }
            Sqrt {
                methods: [sqrt], functional: [], extra: [],
                doc: "Elementwise square root.",
                dtype: Float, cost: CHEAP,
                real: |x| x.sqrt(), fast_f32: [],
                int: [], complex: [|x| csqrt(x)], boolean: [],
                saves: Output, grad: [|g, y| g.div_conj(&y.mul_scalar(2.0)?)], node: "SqrtBackward",
            }
            Rsqrt {
                methods: [rsqrt], functional: [], extra: [],
                doc: "Elementwise reciprocal square root `1 / sqrt(self)`.",
                dtype: Float, cost: CHEAP,
                real: |x| f_rsqrt(x), fast_f32: [],
                int: [], complex: [|x| c_rsqrt(x)], boolean: [],
                saves: Output,
                grad: [|g, y| g.mul_conj(&y.mul(y)?.mul(y)?.mul_scalar(-0.5)?)],
                node: "RsqrtBackward",
            }
            Square {
                methods: [square], functional: [], extra: [],
                doc: "Elementwise `self * self`.",
                dtype: Same, cost: CHEAP,
                real: |x| x * x, fast_f32: [],
                int: [|x| x.mul(x)], complex: [|x| x * x], boolean: [],
                saves: Input, grad: [|g, x| g.mul_conj(&x.mul_scalar(2.0)?)], node: "SquareBackward",
            }
            Reciprocal {
                methods: [reciprocal], functional: [], extra: [],
                doc: "Elementwise `1 / self`.",
                dtype: Float, cost: CHEAP,
                real: |x| f_recip(x), fast_f32: [],
                int: [], complex: [|x| c_recip(x)], boolean: [],
                saves: Output, grad: [|g, y| g.mul_conj(&y.mul(y)?.neg()?)],
                node: "ReciprocalBackward",
            }
            Sin {
                methods: [sin], functional: [], extra: [],
                doc: "Elementwise sine.",
                dtype: Float, cost: COSTLY,
                real: |x| x.sin(), fast_f32: [],
                int: [], complex: [|x| csin(x)], boolean: [],
                saves: Input, grad: [|g, x| g.mul_conj(&x.cos()?)], node: "SinBackward",
            }
            Cos {
                methods: [cos], functional: [], extra: [],
                doc: "Elementwise cosine.",
                dtype: Float, cost: COSTLY,
                real: |x| x.cos(), fast_f32: [],
                int: [], complex: [|x| ccos(x)], boolean: [],
                saves: Input, grad: [|g, x| g.mul_conj(&x.sin()?.neg()?)], node: "CosBackward",
            }
            Tan {
                methods: [tan], functional: [], extra: [],
                doc: "Elementwise tangent.",
                dtype: Float, cost: COSTLY,
                real: |x| x.tan(), fast_f32: [],
                int: [], complex: [|x| ctan(x)], boolean: [],
                saves: Output, grad: [|g, y| g.mul_conj(&y.mul(y)?.add_scalar(1.0)?)],
                node: "TanBackward",
            }
            Tanh {
                methods: [tanh], functional: [tanh], extra: [],
                doc: "Elementwise hyperbolic tangent.",
                dtype: Float, cost: COSTLY,
                real: |x| x.tanh(), fast_f32: [tanh_f32_slice, tanh_f32],
                int: [], complex: [|x| ctanh(x)], boolean: [],
                saves: Output, grad: [|g, y| composed_activation_grad(UnaryOp::Tanh, g, y)],
                node: "TanhBackward",
            }
            Sigmoid {
                methods: [sigmoid], functional: [sigmoid], extra: [],
                doc: "Elementwise logistic sigmoid `1 / (1 + exp(-self))`.",
                dtype: Float, cost: COSTLY,
                real: |x| f_sigmoid(x), fast_f32: [sigmoid_f32_slice, sigmoid_f32],
                int: [], complex: [|x| c_sigmoid(x)], boolean: [],
                saves: Output, grad: [|g, y| composed_activation_grad(UnaryOp::Sigmoid, g, y)],
                node: "SigmoidBackward",
            }
            Relu {
                methods: [relu], functional: [relu], extra: [],
                doc: "Elementwise `max(self, 0)`.",
                dtype: Same, cost: CHEAP,
                real: |x| f_relu(x), fast_f32: [],
                int: [|x| f_relu(x)], complex: [], boolean: [|x| x],
                saves: Output, grad: [|g, y| composed_activation_grad(UnaryOp::Relu, g, y)],
                node: "ReluBackward",
            }
            Gelu {
                methods: [gelu], functional: [], extra: [],
                doc: "Elementwise GELU (the exact, erf-based form).",
                dtype: Float, cost: COSTLY,
                real: |x| f_gelu(x), fast_f32: [gelu_f32_slice, gelu_f32],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| match crate::autograd::ops::fused_nn::gelu_grad(g, x)? {
                    // one pass when no graph is recorded
                    Some(grad) => Ok(grad),
                    None => {
                        // d/dx x*Phi(x) = Phi(x) + x*phi(x)
                        let cdf = x
                            .mul_scalar(std::f64::consts::FRAC_1_SQRT_2)?
                            .unary(UnaryOp::Erf)?
                            .add_scalar(1.0)?
                            .mul_scalar(0.5)?;
                        let pdf = x
                            .mul(x)?
                            .mul_scalar(-0.5)?
                            .exp()?
                            .mul_scalar(1.0 / (2.0 * std::f64::consts::PI).sqrt())?;
                        g.mul(&cdf.add(&x.mul(&pdf)?)?)
                    }
                }],
                node: "GeluBackward",
            }
            GeluTanh {
                methods: [gelu_tanh], functional: [], extra: [],
                doc: "Elementwise GELU, tanh approximation `0.5 * self * (1 + tanh(sqrt(2/pi) * (self + 0.044715 * self**3)))`.",
                dtype: Float, cost: COSTLY,
                real: |x| f_gelu_tanh(x), fast_f32: [gelu_tanh_f32_slice, gelu_tanh_f32],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| match crate::autograd::ops::fused_nn::gelu_tanh_grad(g, x)? {
                    // one pass when no graph is recorded
                    Some(grad) => Ok(grad),
                    None => {
                        // d/dx 0.5 x (1 + tanh(u)), u = k (x + c x^3):
                        // 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)
                        let (k, c) = (
                            crate::op_defs::unary::fns::GELU_TANH_K,
                            crate::op_defs::unary::fns::GELU_TANH_C,
                        );
                        let x2 = x.mul(x)?;
                        let t = x.add(&x2.mul(x)?.mul_scalar(c)?)?.mul_scalar(k)?.tanh()?;
                        let left = t.add_scalar(1.0)?.mul_scalar(0.5)?;
                        let sech2 = t.mul(&t)?.rsub_scalar(1.0)?;
                        let du = x2.mul_scalar(3.0 * c)?.add_scalar(1.0)?.mul_scalar(k)?;
                        g.mul(&left.add(&x.mul_scalar(0.5)?.mul(&sech2)?.mul(&du)?)?)
                    }
                }],
                node: "GeluBackward",
            }
            Softplus {
                methods: [softplus], functional: [], extra: [],
                doc: "Elementwise `log(1 + exp(self))` (linear above 20, as torch).",
                dtype: Float, cost: COSTLY,
                real: |x| f_softplus(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.mul(&x.sigmoid()?)], node: "SoftplusBackward",
            }
            Mish {
                methods: [mish], functional: [mish], extra: [],
                doc: "Elementwise Mish `self * tanh(softplus(self))`.",
                dtype: Float, cost: COSTLY,
                real: |x| f_mish(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    // d/dx x*tanh(sp(x)) = tanh(sp(x)) + x * sigmoid(x) * (1 - tanh(sp(x))^2)
                    let t = x.unary(UnaryOp::Softplus)?.tanh()?;
                    let sech2 = t.mul(&t)?.rsub_scalar(1.0)?;
                    g.mul(&t.add(&x.mul(&x.sigmoid()?)?.mul(&sech2)?)?)
                }],
                node: "MishBackward",
            }
            Erf {
                methods: [erf], functional: [], extra: [],
                doc: "Elementwise Gauss error function.",
                dtype: Float, cost: COSTLY,
                real: |x| FloatMath::erf(x), fast_f32: [erf_f32_slice, erf_f32],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    let c = 2.0 / std::f64::consts::PI.sqrt();
                    g.mul(&x.mul(x)?.neg()?.exp()?.mul_scalar(c)?)
                }],
                node: "ErfBackward",
            }
            Floor {
                methods: [floor], functional: [], extra: [],
                doc: "Elementwise rounding down.",
                dtype: Same, cost: CHEAP,
                real: |x| x.floor(), fast_f32: [],
                int: [|x| x], complex: [], boolean: [|x| x],
                saves: ZeroGrad, grad: [], node: "ZeroGradBackward",
            }
            Ceil {
                methods: [ceil], functional: [], extra: [],
                doc: "Elementwise rounding up.",
                dtype: Same, cost: CHEAP,
                real: |x| x.ceil(), fast_f32: [],
                int: [|x| x], complex: [], boolean: [|x| x],
                saves: ZeroGrad, grad: [], node: "ZeroGradBackward",
            }
            Round {
                methods: [round], functional: [], extra: [decimals],
                doc: "Elementwise rounding to the nearest integer, or with `decimals` to that many decimal places (halves to even, as NumPy).",
                dtype: Same, cost: CHEAP,
                real: |x| f_round(x), fast_f32: [],
                int: [|x| x], complex: [], boolean: [|x| x],
                saves: ZeroGrad, grad: [], node: "ZeroGradBackward",
            }
            Silu {
                methods: [silu], functional: [swish], extra: [],
                doc: "Elementwise SiLU (swish) `self * sigmoid(self)`.",
                dtype: Float, cost: COSTLY,
                real: |x| f_silu(x), fast_f32: [silu_f32_slice, silu_f32],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    // d/dx x*s(x) = s * (1 + x * (1 - s))
                    let s = x.sigmoid()?;
                    g.mul(&s.mul(&x.mul(&s.rsub_scalar(1.0)?)?.add_scalar(1.0)?)?)
                }],
                node: "SiluBackward",
            }
            Selu {
                methods: [selu], functional: [], extra: [],
                doc: "Elementwise SELU `scale * (self if self > 0 else alpha * (exp(self) - 1))`.",
                dtype: Float, cost: COSTLY,
                real: |x| f_selu(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    // scale * (1 if x > 0 else alpha * e^x); e^(x * [x <= 0]) never
                    // overflows, so double backward stays finite for large x
                    let pos = x.binary_raw(&x.scalar_like(0.0), BinaryOp::Gt)?.to_dtype(g.dtype())?;
                    let neg = pos.rsub_scalar(1.0)?;
                    let e = x.mul(&neg)?.exp()?.mul(&neg)?.mul_scalar(crate::op_defs::unary::fns::SELU_ALPHA)?;
                    g.mul(&pos.add(&e)?.mul_scalar(crate::op_defs::unary::fns::SELU_SCALE)?)
                }],
                node: "SeluBackward",
            }
            Relu6 {
                methods: [relu6], functional: [], extra: [],
                doc: "Elementwise `min(max(self, 0), 6)`.",
                dtype: Float, cost: CHEAP,
                real: |x| f_relu6(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    // 1 strictly inside (0, 6), as torch's hardtanh backward
                    let inside = x
                        .binary_raw(&x.scalar_like(0.0), BinaryOp::Gt)?
                        .binary_raw(&x.binary_raw(&x.scalar_like(6.0), BinaryOp::Lt)?, BinaryOp::LogicalAnd)?;
                    g.mul(&inside.to_dtype(g.dtype())?)
                }],
                node: "Relu6Backward",
            }
            Hardsigmoid {
                methods: [hardsigmoid], functional: [], extra: [],
                doc: "Elementwise hard sigmoid `relu6(self + 3) / 6`.",
                dtype: Float, cost: CHEAP,
                real: |x| f_hardsigmoid(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    // 1/6 strictly inside (-3, 3), as torch
                    let inside = x
                        .binary_raw(&x.scalar_like(-3.0), BinaryOp::Gt)?
                        .binary_raw(&x.binary_raw(&x.scalar_like(3.0), BinaryOp::Lt)?, BinaryOp::LogicalAnd)?;
                    g.mul(&inside.to_dtype(g.dtype())?.mul_scalar(1.0 / 6.0)?)
                }],
                node: "HardsigmoidBackward",
            }
            Hardswish {
                methods: [hardswish], functional: [], extra: [],
                doc: "Elementwise hard swish `self * relu6(self + 3) / 6`.",
                dtype: Float, cost: CHEAP,
                real: |x| f_hardswish(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    // 0 below -3, x/3 + 1/2 on [-3, 3], 1 above 3 (torch's boundaries)
                    let mid = x
                        .binary_raw(&x.scalar_like(-3.0), BinaryOp::Ge)?
                        .binary_raw(&x.binary_raw(&x.scalar_like(3.0), BinaryOp::Le)?, BinaryOp::LogicalAnd)?
                        .to_dtype(g.dtype())?;
                    let hi = x.binary_raw(&x.scalar_like(3.0), BinaryOp::Gt)?.to_dtype(g.dtype())?;
                    let d = x.mul_scalar(1.0 / 3.0)?.add_scalar(0.5)?.mul(&mid)?.add(&hi)?;
                    g.mul(&d)
                }],
                node: "HardswishBackward",
            }
            Softsign {
                methods: [softsign], functional: [softsign], extra: [],
                doc: "Elementwise `self / (1 + |self|)`.",
                dtype: Float, cost: CHEAP,
                real: |x| f_softsign(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    let d = x.unary(UnaryOp::Abs)?.add_scalar(1.0)?;
                    g.div(&d.mul(&d)?)
                }],
                node: "SoftsignBackward",
            }
            Tanhshrink {
                methods: [tanhshrink], functional: [tanhshrink], extra: [],
                doc: "Elementwise `self - tanh(self)`.",
                dtype: Float, cost: COSTLY,
                real: |x| f_tanhshrink(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    let t = x.tanh()?;
                    g.mul(&t.mul(&t)?)
                }],
                node: "TanhshrinkBackward",
            }
            LogSigmoid {
                methods: [log_sigmoid], functional: [log_sigmoid, logsigmoid], extra: [],
                doc: "Elementwise `log(sigmoid(self))`, computed stably.",
                dtype: Float, cost: COSTLY,
                real: |x| f_log_sigmoid(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.mul(&x.neg()?.sigmoid()?)], node: "LogSigmoidBackward",
            }
            LogicalNot {
                methods: [logical_not], functional: [], extra: [],
                doc: "Elementwise logical NOT of the truth values, as a bool tensor.",
                dtype: Bool, cost: CHEAP,
                real: |x| is_zero(x), fast_f32: [],
                int: [|x| is_zero(x)], complex: [|x| c_is_zero(x)], boolean: [|x: bool| !x],
                saves: NoGrad, grad: [], node: "UnaryBackward",
            }
            BitwiseNot {
                methods: [bitwise_not], functional: [], extra: [],
                doc: "Elementwise bitwise NOT `~self` of integers (logical NOT of bools).",
                dtype: Integral, cost: CHEAP,
                // (never runs: the `Integral` rule rejects floating input before the kernel)
                real: |x| x, fast_f32: [],
                int: [|x| i_not(x)], complex: [], boolean: [|x: bool| !x],
                saves: NoGrad, grad: [], node: "UnaryBackward",
            }
            IsNan {
                methods: [isnan], functional: [], extra: [],
                doc: "Elementwise test for NaN, as a bool tensor (complex: either part).",
                dtype: Bool, cost: CHEAP,
                real: |x| f_isnan(x), fast_f32: [],
                int: [|x| never(x)], complex: [|x| c_isnan(x)], boolean: [|x: bool| never(x)],
                saves: NoGrad, grad: [], node: "UnaryBackward",
            }
            IsInf {
                methods: [isinf], functional: [], extra: [],
                doc: "Elementwise test for +inf or -inf, as a bool tensor (complex: either part).",
                dtype: Bool, cost: CHEAP,
                real: |x| f_isinf(x), fast_f32: [],
                int: [|x| never(x)], complex: [|x| c_isinf(x)], boolean: [|x: bool| never(x)],
                saves: NoGrad, grad: [], node: "UnaryBackward",
            }
            IsFinite {
                methods: [isfinite], functional: [], extra: [],
                doc: "Elementwise test for a finite value (not NaN, not infinite), as a bool tensor.",
                dtype: Bool, cost: CHEAP,
                real: |x| f_isfinite(x), fast_f32: [],
                int: [|x| always(x)], complex: [|x| c_isfinite(x)], boolean: [|x: bool| always(x)],
                saves: NoGrad, grad: [], node: "UnaryBackward",
            }
            IsPosInf {
                methods: [isposinf], functional: [], extra: [],
                doc: "Elementwise test for +inf, as a bool tensor.",
                dtype: Bool, cost: CHEAP,
                real: |x| f_isposinf(x), fast_f32: [],
                int: [|x| never(x)], complex: [], boolean: [|x: bool| never(x)],
                saves: NoGrad, grad: [], node: "UnaryBackward",
            }
            IsNegInf {
                methods: [isneginf], functional: [], extra: [],
                doc: "Elementwise test for -inf, as a bool tensor.",
                dtype: Bool, cost: CHEAP,
                real: |x| f_isneginf(x), fast_f32: [],
                int: [|x| never(x)], complex: [], boolean: [|x: bool| never(x)],
                saves: NoGrad, grad: [], node: "UnaryBackward",
            }
        }
    };
}
pub(crate) use for_each_unary_op;
