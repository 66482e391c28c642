//! More unary elementwise ops (inverse trigonometric and hyperbolic functions, base-2/10
//! logarithms and powers, `trunc`/`frac`, `erfc`/`erfinv`, angle conversions, `signbit`,
//! `lgamma`/`digamma`, the Bessel functions `i0`/`i0e`/`i1`/`i1e`, `erfcx`, and
//! `torch.special`'s other Bessel functions and `airy_ai` (kernels in `unary_bessel.rs`;
//! not differentiable, as PyTorch)), declared
//! exactly like the entries of [`for_each_unary_op!`](crate::op_defs::unary) — the columns
//! are documented there. They live in their own file only to keep each table file short:
//! [`for_each_unary_op!`](crate::op_defs::unary) passes its own entries to
//! [`for_each_unary_op_more!`], which appends these and calls the consumer once with all.
//! **A new unary op goes into either list; nothing else changes.**

/// Calls `$consumer! { <the entries passed in> <the entries below> }`.
macro_rules! for_each_unary_op_more {
    ($consumer:ident; $($first:tt)*) => {
        $consumer! {
            $($first)*
            Asin {
                methods: [asin, arcsin], functional: [], extra: [],
                doc: "Elementwise inverse sine (NaN outside [-1, 1]).",
                dtype: Float, cost: COSTLY,
                real: |x| x.asin(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| g.div(&x.mul(x)?.rsub_scalar(1.0)?.unary(UnaryOp::Sqrt)?)],
                node: "AsinBackward",
            }
            Acos {
                methods: [acos, arccos], functional: [], extra: [],
                doc: "Elementwise inverse cosine (NaN outside [-1, 1]).",
                dtype: Float, cost: COSTLY,
                real: |x| x.acos(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| g.div(&x.mul(x)?.rsub_scalar(1.0)?.unary(UnaryOp::Sqrt)?)?.neg()],
                node: "AcosBackward",
            }
            Atan {
                methods: [atan, arctan], functional: [], extra: [],
                doc: "Elementwise inverse tangent.",
                dtype: Float, cost: COSTLY,
                real: |x| x.atan(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.div(&x.mul(x)?.add_scalar(1.0)?)],
                node: "AtanBackward",
            }
            Sinh {
                methods: [sinh], functional: [], extra: [],
                doc: "Elementwise hyperbolic sine.",
                dtype: Float, cost: COSTLY,
                real: |x| x.sinh(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.mul(&x.unary(UnaryOp::Cosh)?)], node: "SinhBackward",
            }
            Cosh {
                methods: [cosh], functional: [], extra: [],
                doc: "Elementwise hyperbolic cosine.",
                dtype: Float, cost: COSTLY,
                real: |x| x.cosh(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.mul(&x.unary(UnaryOp::Sinh)?)], node: "CoshBackward",
            }
            Asinh {
                methods: [asinh, arcsinh], functional: [], extra: [],
                doc: "Elementwise inverse hyperbolic sine.",
                dtype: Float, cost: COSTLY,
                real: |x| x.asinh_libm(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| g.div(&x.mul(x)?.add_scalar(1.0)?.unary(UnaryOp::Sqrt)?)],
                node: "AsinhBackward",
            }
            Acosh {
                methods: [acosh, arccosh], functional: [], extra: [],
                doc: "Elementwise inverse hyperbolic cosine (NaN below 1).",
                dtype: Float, cost: COSTLY,
                real: |x| x.acosh_libm(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| g.div(&x.mul(x)?.add_scalar(-1.0)?.unary(UnaryOp::Sqrt)?)],
                node: "AcoshBackward",
            }
            Atanh {
                methods: [atanh, arctanh], functional: [], extra: [],
                doc: "Elementwise inverse hyperbolic tangent (NaN outside [-1, 1]).",
                dtype: Float, cost: COSTLY,
                real: |x| x.atanh_libm(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.div(&x.mul(x)?.rsub_scalar(1.0)?)],
                node: "AtanhBackward",
            }
            Log2 {
                methods: [log2], functional: [], extra: [],
                doc: "Elementwise base-2 logarithm.",
                dtype: Float, cost: COSTLY,
                real: |x| x.log2(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.div(&x.mul_scalar(std::f64::consts::LN_2)?)],
                node: "Log2Backward",
            }
            Log10 {
                methods: [log10], functional: [], extra: [],
                doc: "Elementwise base-10 logarithm.",
                dtype: Float, cost: COSTLY,
                real: |x| x.log10(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.div(&x.mul_scalar(std::f64::consts::LN_10)?)],
                node: "Log10Backward",
            }
            Exp2 {
                methods: [exp2], functional: [], extra: [],
                doc: "Elementwise `2 ** self`.",
                dtype: Float, cost: COSTLY,
                real: |x| x.exp2(), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Output, grad: [|g, y| g.mul(&y.mul_scalar(std::f64::consts::LN_2)?)],
                node: "Exp2Backward",
            }
            Erfc {
                methods: [erfc], functional: [], extra: [],
                doc: "Elementwise complementary error function `1 - erf(self)`, accurate for large inputs.",
                dtype: Float, cost: COSTLY,
                real: |x| FloatMath::erfc(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                grad: [|g, x| {
                    let c = -2.0 / std::f64::consts::PI.sqrt();
                    g.mul(&x.mul(x)?.neg()?.exp()?.mul_scalar(c)?)
                }],
                node: "ErfcBackward",
            }
            Erfinv {
                methods: [erfinv], functional: [], extra: [],
                doc: "Elementwise inverse error function (NaN outside [-1, 1], +-inf at +-1).",
                dtype: Float, cost: COSTLY,
                real: |x| f_erfinv(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Output,
                grad: [|g, y| {
                    // d/dx erfinv(x) = sqrt(pi)/2 * exp(erfinv(x)^2)
                    let c = std::f64::consts::PI.sqrt() / 2.0;
                    g.mul(&y.mul(y)?.exp()?.mul_scalar(c)?)
                }],
                node: "ErfinvBackward",
            }
            Trunc {
                methods: [trunc, fix], functional: [], extra: [],
                doc: "Elementwise rounding toward zero.",
                dtype: Same, cost: CHEAP,
                real: |x| x.trunc(), fast_f32: [],
                int: [|x| x], complex: [], boolean: [],
                saves: ZeroGrad, grad: [], node: "ZeroGradBackward",
            }
            Frac {
                methods: [frac], functional: [], extra: [],
                doc: "Elementwise fractional part `self - trunc(self)` (keeps the sign; 0 for integers).",
                dtype: Same, cost: CHEAP,
                real: |x| x.fract(), fast_f32: [],
                int: [|x| x.sub(x)], complex: [], boolean: [],
                saves: Nothing, grad: [|g, _v| g.mul_scalar(1.0)], node: "FracBackward",
            }
            Deg2rad {
                methods: [deg2rad], functional: [], extra: [],
                doc: "Elementwise conversion of degrees to radians.",
                dtype: Float, cost: CHEAP,
                real: |x| x * f_const(std::f64::consts::PI / 180.0), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|g, _v| g.mul_scalar(std::f64::consts::PI / 180.0)],
                node: "Deg2RadBackward",
            }
            Rad2deg {
                methods: [rad2deg], functional: [], extra: [],
                doc: "Elementwise conversion of radians to degrees.",
                dtype: Float, cost: CHEAP,
                real: |x| x * f_const(180.0 / std::f64::consts::PI), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|g, _v| g.mul_scalar(180.0 / std::f64::consts::PI)],
                node: "Rad2DegBackward",
            }
            Lgamma {
                methods: [lgamma], functional: [], extra: [],
                doc: "Elementwise natural logarithm of the absolute value of the gamma function (+inf at the poles 0, -1, -2, ...).",
                dtype: Float, cost: COSTLY,
                real: |x| FloatMath::lgamma(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.mul(&x.unary(UnaryOp::Digamma)?)],
                node: "LgammaBackward",
            }
            Digamma {
                methods: [digamma], functional: [], extra: [],
                doc: "Elementwise digamma function, the derivative of `lgamma` (-inf at 0, NaN at negative integers).",
                dtype: Float, cost: COSTLY,
                real: |x| f_digamma(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                // d/dx digamma = trigamma = zeta(2, x) (the binary table's Hurwitz zeta)
                grad: [|g, x| g.mul(&x.scalar_like(2.0).binary(x, BinaryOp::Zeta)?)],
                node: "DigammaBackward",
            }
            I0 {
                methods: [i0], functional: [], extra: [],
                doc: "Elementwise modified Bessel function of the first kind of order 0.",
                dtype: Float, cost: COSTLY,
                real: |x| f_i0(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input, grad: [|g, x| g.mul(&x.unary(UnaryOp::I1)?)], node: "I0Backward",
            }
            I0e {
                methods: [i0e], functional: [], extra: [],
                doc: "Elementwise exponentially scaled modified Bessel function `i0(self) * exp(-|self|)`.",
                dtype: Float, cost: COSTLY,
                real: |x| f_i0e(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                // d/dx i0e = i1e(x) - sign(x) i0e(x)
                grad: [|g, x| {
                    let s = x.unary(UnaryOp::Sign)?.mul(&x.unary(UnaryOp::I0e)?)?;
                    g.mul(&x.unary(UnaryOp::I1e)?.sub(&s)?)
                }],
                node: "SpecialI0eBackward",
            }
            I1 {
                methods: [i1], functional: [], extra: [],
                doc: "Elementwise modified Bessel function of the first kind of order 1.",
                dtype: Float, cost: COSTLY,
                real: |x| f_i1(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                // d/dx i1 = i0(x) - i1(x) / x, 1/2 at 0
                grad: [|g, x| {
                    use crate::op_defs::unary::fns::bessel_i1_grad;
                    g.mul(&bessel_i1_grad(x, UnaryOp::I0, UnaryOp::I1, false)?)
                }],
                node: "SpecialI1Backward",
            }
            I1e {
                methods: [i1e], functional: [], extra: [],
                doc: "Elementwise exponentially scaled modified Bessel function `i1(self) * exp(-|self|)`.",
                dtype: Float, cost: COSTLY,
                real: |x| f_i1e(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                // d/dx i1e = i0e(x) - i1e(x) (sign(x) + 1 / x), 1/2 at 0
                grad: [|g, x| {
                    use crate::op_defs::unary::fns::bessel_i1_grad;
                    g.mul(&bessel_i1_grad(x, UnaryOp::I0e, UnaryOp::I1e, true)?)
                }],
                node: "SpecialI1eBackward",
            }
            Erfcx {
                methods: [erfcx], functional: [], extra: [],
                doc: "Elementwise scaled complementary error function `exp(self**2) * erfc(self)`, accurate for large inputs.",
                dtype: Float, cost: COSTLY,
                real: |x| f_erfcx(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Input,
                // d/dx erfcx = 2 x erfcx(x) - 2 / sqrt(pi)
                grad: [|g, x| {
                    let c = -2.0 / std::f64::consts::PI.sqrt();
                    g.mul(&x.mul(&x.unary(UnaryOp::Erfcx)?)?.mul_scalar(2.0)?.add_scalar(c)?)
                }],
                node: "SpecialErfcxBackward",
            }
            BesselJ0 {
                methods: [bessel_j0], functional: [], extra: [],
                doc: "Elementwise Bessel function of the first kind of order 0 (not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_bessel_j0(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("bessel_j0")],
                node: "SpecialBesselJ0Backward",
            }
            BesselJ1 {
                methods: [bessel_j1], functional: [], extra: [],
                doc: "Elementwise Bessel function of the first kind of order 1 (not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_bessel_j1(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("bessel_j1")],
                node: "SpecialBesselJ1Backward",
            }
            BesselY0 {
                methods: [bessel_y0], functional: [], extra: [],
                doc: "Elementwise Bessel function of the second kind of order 0 (-inf at 0, NaN below; not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_bessel_y0(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("bessel_y0")],
                node: "SpecialBesselY0Backward",
            }
            BesselY1 {
                methods: [bessel_y1], functional: [], extra: [],
                doc: "Elementwise Bessel function of the second kind of order 1 (-inf at 0, NaN below; not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_bessel_y1(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("bessel_y1")],
                node: "SpecialBesselY1Backward",
            }
            ModifiedBesselK0 {
                methods: [modified_bessel_k0], functional: [], extra: [],
                doc: "Elementwise modified Bessel function of the second kind of order 0 (+inf at 0, NaN below; not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_k0(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("modified_bessel_k0")],
                node: "SpecialModifiedBesselK0Backward",
            }
            ModifiedBesselK1 {
                methods: [modified_bessel_k1], functional: [], extra: [],
                doc: "Elementwise modified Bessel function of the second kind of order 1 (+inf at 0, NaN below; not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_k1(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("modified_bessel_k1")],
                node: "SpecialModifiedBesselK1Backward",
            }
            ScaledModifiedBesselK0 {
                methods: [scaled_modified_bessel_k0], functional: [], extra: [],
                doc: "Elementwise exponentially scaled `modified_bessel_k0(self) * exp(self)` (not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_k0e(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("scaled_modified_bessel_k0")],
                node: "SpecialScaledModifiedBesselK0Backward",
            }
            ScaledModifiedBesselK1 {
                methods: [scaled_modified_bessel_k1], functional: [], extra: [],
                doc: "Elementwise exponentially scaled `modified_bessel_k1(self) * exp(self)` (not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_k1e(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("scaled_modified_bessel_k1")],
                node: "SpecialScaledModifiedBesselK1Backward",
            }
            SphericalBesselJ0 {
                methods: [spherical_bessel_j0], functional: [], extra: [],
                doc: "Elementwise spherical Bessel function of the first kind of order 0, `sin(self) / self` (not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_spherical_j0(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("spherical_bessel_j0")],
                node: "SpecialSphericalBesselJ0Backward",
            }
            AiryAi {
                methods: [airy_ai], functional: [], extra: [],
                doc: "Elementwise Airy function of the first kind `Ai(self)` (not differentiable).",
                dtype: Float, cost: COSTLY,
                real: |x| f_airy_ai(x), fast_f32: [],
                int: [], complex: [], boolean: [],
                saves: Nothing, grad: [|_g, _v| crate::op_defs::unary::fns::no_derivative("airy_ai")],
                node: "SpecialAiryAiBackward",
            }
            Signbit {
                methods: [signbit], functional: [], extra: [],
                doc: "Elementwise test of the sign bit (true for negative numbers and -0.0), as a bool tensor.",
                dtype: Bool, cost: CHEAP,
                real: |x| x.is_sign_negative(), fast_f32: [],
                int: [|x| i_is_negative(x)], complex: [], boolean: [|x: bool| never(x)],
                saves: NoGrad, grad: [], node: "UnaryBackward",
            }
        }
    };
}
pub(crate) use for_each_unary_op_more;
