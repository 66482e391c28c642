//! The reductions' recording: one generic driver ([`Reduction::apply`]) that runs a
//! primitive's declared kernel and records its declared gradient formula (both from
//! [`crate::op_defs::reduce`]), the `Tensor` methods the crate calls, and `var`/`std`.

use crate::autograd::Recorder;
use crate::error::{Error, Result};
#[allow(unused_imports)] // used by the table's closures
use crate::op_defs::reduce::fns::*;
use crate::op_defs::{AxesKind, ReduceArgs, ReduceDType, ReduceSave, ReduceSaved, Reduction};
use crate::tensor::reduce::normalize_axes;
#[allow(unused_imports)] // used by the table's closures
use crate::tensor::{BinaryOp, ReduceOp, Tensor};
use smallvec::smallvec;

/// The kernels and gradient formulas of the primitive reductions, expanded from their
/// declarations in [`crate::op_defs::reduce`].
macro_rules! reduce_kernels_and_grads {
    ($($v:ident {
        name: $m:ident,
        doc: $doc:literal,
        params: [$($p:ident),*], keywords: [$($k:ident),*],
        other_order: [$($o:ident),*],
        dtype: $dtype:ident, axes: $axes:ident,
        kernel: [$($kernel:expr)?], saves: [$($save:ident),*], grad: [$($grad:expr)?],
        compose: [$($compose:expr)?],
        node: $node:literal,
    })*) => {
        impl Reduction {
            /// The forward of a primitive over normalized axes, recording nothing.
            fn kernel(self, x: &Tensor, ax: &[usize], keepdim: bool) -> Result<Tensor> {
                match self {
                    $($(Reduction::$v => kernel(x, ax, keepdim, $kernel),)?)*
                    _ => Err(Error::runtime(format!(
                        "internal: {} is a composite, not a kernel",
                        self.name()
                    ))),
                }
            }

            /// Whether the entry declares a gradient formula.
            fn has_formula(self) -> bool {
                match self {
                    $($(Reduction::$v => { let _ = stringify!($grad); true })?)*
                    _ => false,
                }
            }

            /// The input's gradient from the declared formula.
            fn grad(self, g: &Tensor, s: &ReduceSaved<'_>) -> Result<Tensor> {
                match self {
                    $($(Reduction::$v => formula(g, s, $grad),)?)*
                    _ => Err(Error::runtime(format!(
                        "internal: {} has no gradient formula",
                        self.name()
                    ))),
                }
            }
        }
    };
}

/// Gives a table's kernel closure its parameter types.
fn kernel(
    x: &Tensor,
    ax: &[usize],
    keepdim: bool,
    f: impl FnOnce(&Tensor, &[usize], bool) -> Result<Tensor>,
) -> Result<Tensor> {
    f(x, ax, keepdim)
}

/// Gives a table's gradient closure its parameter types.
fn formula(
    g: &Tensor,
    s: &ReduceSaved<'_>,
    f: impl FnOnce(&Tensor, &ReduceSaved<'_>) -> Result<Tensor>,
) -> Result<Tensor> {
    f(g, s)
}

crate::op_defs::reduce::for_each_reduce_op!(reduce_kernels_and_grads);

impl Reduction {
    /// A primitive reduction of `x` over `axes` (None = all): its `kernel`, then, when `x`
    /// requires grad, one node with the entry's `saves` and `grad` formula. A `Float`
    /// rule computes integer and bool input in the default float dtype.
    pub fn apply(self, x: &Tensor, axes: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        if self.dtype_rule() == ReduceDType::Float && !x.dtype().is_differentiable() {
            return self.apply(&x.to_dtype(crate::dtype::default_float())?, axes, keepdim);
        }
        let ax = normalize_axes(axes, x.ndim(), self.name())?;
        let out = self.kernel(x, &ax, keepdim)?;
        if !self.has_formula() {
            return Ok(out);
        }
        let Some(mut rec) = Recorder::begin(&[x]) else {
            return Ok(out);
        };
        let saves = self.saves();
        for s in saves {
            match s {
                ReduceSave::Input => rec.save(x),
                ReduceSave::Output => rec.save_output(),
            }
        }
        let shape = x.shape_vec();
        let node = self.node_name();
        rec.finish(node, &out, move |g, saved, _| {
            let s = ReduceSaved {
                saved,
                saves,
                shape: &shape,
                axes: &ax,
                keepdim,
                node,
            };
            Ok(smallvec![Some(self.grad(g, &s)?)])
        })?;
        Ok(out)
    }

    /// [`Reduction::apply`] with a call's parsed arguments (the `dtype=` cast first).
    pub(crate) fn run_primitive(self, x: &Tensor, args: &ReduceArgs) -> Result<Tensor> {
        if self.axes_kind() == AxesKind::One {
            args.axis()?; // one axis or none
        }
        match args.dtype {
            // an index result's `dtype` names the index type (int64 is what is returned)
            Some(d) if d != x.dtype() && self.dtype_rule() != ReduceDType::Index => {
                self.apply(&x.to_dtype(d)?, args.axes(), args.keepdim)
            }
            _ => self.apply(x, args.axes(), args.keepdim),
        }
    }
}

impl Tensor {
    /// Sum over `axes` (None = all).
    pub fn sum(&self, axes: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        Reduction::Sum.apply(self, axes, keepdim)
    }

    /// Mean over `axes` (None = all); integer input gives the default float.
    pub fn mean(&self, axes: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        Reduction::Mean.apply(self, axes, keepdim)
    }

    /// Reduces `self` to `shape` by summing broadcast dimensions (inverse of expand).
    pub fn sum_to(&self, shape: &[usize]) -> Result<Tensor> {
        if self.shape() == shape {
            return Ok(self.clone());
        }
        let lead = self.ndim().checked_sub(shape.len()).ok_or_else(|| {
            Error::value(format!(
                "sum_to: cannot reduce shape {:?} to {shape:?}",
                self.shape()
            ))
        })?;
        let mut axes: Vec<isize> = (0..lead as isize).collect();
        for (i, &d) in shape.iter().enumerate() {
            if d == 1 && self.shape()[lead + i] != 1 {
                axes.push((lead + i) as isize);
            }
        }
        let s = self.sum(Some(&axes), true)?;
        s.reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
    }

    /// Product over `axes`; the gradient is exact also where inputs are zero.
    pub fn prod(&self, axes: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        Reduction::Prod.apply(self, axes, keepdim)
    }

    /// Max (`is_max`) or min over `axes`; ties share the gradient evenly.
    pub fn amax_amin(&self, axes: Option<&[isize]>, keepdim: bool, is_max: bool) -> Result<Tensor> {
        let op = if is_max {
            Reduction::Max
        } else {
            Reduction::Min
        };
        op.apply(self, axes, keepdim)
    }

    /// `log(sum(exp(x)))` over `axes`, computed stably.
    pub fn logsumexp(&self, axes: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        Reduction::Logsumexp.apply(self, axes, keepdim)
    }

    /// Variance over `axes` with `correction` (1 = unbiased, like torch's default).
    pub fn var(&self, axes: Option<&[isize]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        let ax = normalize_axes(axes, self.ndim(), "var")?;
        let n: usize = ax.iter().map(|&a| self.shape()[a]).product();
        let x = if self.dtype().is_differentiable() {
            self.clone()
        } else {
            self.to_dtype(crate::dtype::default_float())?
        };
        if let Some(v) = var_fast(&x, &ax, correction, keepdim, false)? {
            return Ok(v);
        }
        let centered = x.sub(&x.mean(axes, true)?)?;
        // one saved tensor (square saves its input once; centered * centered saves it twice)
        let square = |t: &Tensor| t.unary(crate::tensor::UnaryOp::Square);
        let sq = if x.dtype().is_complex() {
            // |z - mean|^2 = re^2 + im^2: a real variance, as PyTorch's
            square(&centered.real()?)?.add(&square(&centered.imag()?)?)?
        } else {
            square(&centered)?
        };
        let divisor = sq.scalar_like((n as f64 - correction).max(0.0));
        sq.sum(axes, keepdim)?
            .binary_with_scalar(&divisor, BinaryOp::Div, false)
    }

    /// Standard deviation over `axes` with `correction`.
    pub fn std(&self, axes: Option<&[isize]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        let ax = normalize_axes(axes, self.ndim(), "std")?;
        if self.dtype().is_float() {
            if let Some(v) = var_fast(self, &ax, correction, keepdim, true)? {
                return Ok(v);
            }
        }
        let v = self.var(axes, correction, keepdim)?;
        if !(crate::autograd::is_grad_enabled() && v.requires_grad()) {
            return v.unary(crate::tensor::UnaryOp::Sqrt);
        }
        // PyTorch's std_backward: a zero gradient where the std is 0 (not sqrt's inf
        // times var's 0): there sqrt reads a constant 0, and `where`'s backward sends
        // sqrt's infinite gradient to that constant, not to the variance (the last node
        // stays SqrtBackward, as the op table declares)
        let zero = v.binary_raw(&v.zeros_like()?, BinaryOp::Eq)?;
        let masked = Tensor::where_(&zero, &v.scalar_like(0.0), &v)?;
        masked.unary(crate::tensor::UnaryOp::Sqrt)
    }

    /// Index of the max / min along `axis` (None = flattened), int64.
    pub fn argmax_argmin(
        &self,
        axis: Option<isize>,
        keepdim: bool,
        is_max: bool,
    ) -> Result<Tensor> {
        let op = if is_max {
            Reduction::Argmax
        } else {
            Reduction::Argmin
        };
        op.apply(self, axis.as_ref().map(std::slice::from_ref), keepdim)
    }

    /// All / Any (`is_all`) over `axes`.
    pub fn all_any(&self, axes: Option<&[isize]>, keepdim: bool, is_all: bool) -> Result<Tensor> {
        let op = if is_all {
            Reduction::All
        } else {
            Reduction::Any
        };
        op.apply(self, axes, keepdim)
    }
}

/// Variance (standard deviation when `sqrt`) of float32/float64 `x` over normalised `ax`
/// in one fused pass ([`crate::kernels::reduce::var`]) when nothing is recorded, the
/// input is not empty and `ax` is a run of neighbouring dims; `None` otherwise (the
/// composed ops then run and record the gradient).
fn var_fast(
    x: &Tensor,
    ax: &[usize],
    correction: f64,
    keepdim: bool,
    sqrt: bool,
) -> Result<Option<Tensor>> {
    use crate::dtype::DType;
    let run = ax.windows(2).all(|w| w[1] == w[0] + 1);
    let recorded = crate::autograd::is_grad_enabled() && x.requires_grad();
    let (Some(&a0), Some(&a1)) = (ax.first(), ax.last()) else {
        return Ok(None);
    };
    if recorded || !run || x.numel() == 0 || !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Ok(None);
    }
    let shape = x.shape();
    let n: usize = shape[a0..=a1].iter().product();
    let inner: usize = shape[a1 + 1..].iter().product();
    let out_shape: Vec<usize> = if keepdim {
        (0..shape.len())
            .map(|d| if ax.contains(&d) { 1 } else { shape[d] })
            .collect()
    } else {
        crate::kernels::reduce::reduced_shape(shape, ax).to_vec()
    };
    let xc = x.contiguous_raw()?;
    let out = if x.dtype() == DType::F32 {
        var_of::<f32>(&xc, n, inner, correction, sqrt, &out_shape)?
    } else {
        var_of::<f64>(&xc, n, inner, correction, sqrt, &out_shape)?
    };
    Ok(Some(out))
}

/// [`var_dense`](crate::kernels::reduce::var::var_dense) of the dense row-major `xc`
/// (element type `T`), as a tensor of `out_shape`.
fn var_of<T: crate::kernels::reduce::var::VarElem + crate::dtype::Element>(
    xc: &Tensor,
    n: usize,
    inner: usize,
    correction: f64,
    sqrt: bool,
    out_shape: &[usize],
) -> Result<Tensor> {
    let (off, len) = (xc.layout().offset, xc.numel());
    let s = xc.storage().read::<T>();
    let x = s
        .get(off..off + len)
        .ok_or_else(|| Error::runtime("internal: var: the view reaches past its buffer"))?;
    let v = crate::kernels::reduce::var::var_dense(x, n, inner, correction, sqrt)?;
    Tensor::from_vec(v, out_shape)
}
