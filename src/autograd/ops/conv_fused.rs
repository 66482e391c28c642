//! Convolution (1 to 3 spatial dims; stride, padding, dilation, groups, bias) as one
//! graph node: the forward runs `kernels::conv_shift` (unit stride on images of 512+
//! positions: one gemm per kernel tap over the padded input, no im2col),
//! `kernels::conv_gemm` (per-sample im2col + the project's gemm) or, for depthwise and
//! few channels per group, `kernels::conv_direct`; the
//! backward computes the input, weight and bias gradients in the same kernels. With
//! `create_graph=True` the backward instead recomposes the convolution from
//! differentiable ops (`unfold_window` + `matmul`, see `ops::conv`) and differentiates
//! that, so gradients of every order exist (as the fused RNN does).

use super::composed_grad::grads_with_graph;
use crate::autograd::{is_grad_enabled, Recorder};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::conv::Window;
use crate::kernels::conv_direct::{self as kd, ConvFloat};
use crate::kernels::conv_gemm::{self as kg, ConvDims};
use crate::kernels::conv_shift::{self as ks, ShiftPlan};
use crate::tensor::Tensor;
use smallvec::{smallvec, SmallVec};

/// Which kernel runs a convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvPath {
    /// The direct kernel for depthwise / few channels per group, else the shifted gemm
    /// where it applies (unit stride, 512+ output positions), else im2col + gemm.
    Auto,
    /// Per-sample im2col + gemm.
    Gemm,
    /// One gemm per kernel tap over the padded input where the geometry allows (unit
    /// stride, pads within `0..=dilation*(kernel-1)`, kernel larger than 1x1), at any
    /// size; else im2col + gemm.
    Shift,
    /// The direct kernel (needs non-negative padding).
    Direct,
}

/// Stride, dilation, padding and groups of a convolution; the kernel size comes from
/// the weight.
#[derive(Clone, Debug)]
pub struct ConvArgs {
    /// Stride per spatial dim.
    pub stride: Vec<usize>,
    /// Dilation per spatial dim.
    pub dilation: Vec<usize>,
    /// Padding before each spatial dim.
    pub pad_lo: Vec<isize>,
    /// Padding after each spatial dim.
    pub pad_hi: Vec<isize>,
    /// Channel groups.
    pub groups: usize,
    /// Kernel choice.
    pub path: ConvPath,
}

/// Runs `f` on the tensor's elements as one contiguous row-major slice.
fn with_slice<T: Element, R>(t: &Tensor, f: impl FnOnce(&[T]) -> Result<R>) -> Result<R> {
    let c = if t.is_contiguous() {
        t.clone()
    } else {
        let _g = crate::autograd::no_grad();
        t.contiguous()?
    };
    let s = c.storage().read::<T>();
    let off = c.layout().offset;
    f(&s[off..off + c.numel()])
}

/// Runs `f::<T>` for the float type of `d`.
macro_rules! float_dispatch {
    ($d:expr, $f:ident, ($($arg:expr),*)) => {
        match $d {
            DType::F32 => $f::<f32>($($arg),*),
            DType::F64 => $f::<f64>($($arg),*),
            d => Err(Error::type_err(format!("conv: expected float32/float64, got {d}"))),
        }
    };
}

/// Checks the operands; returns the sizes and the window.
fn check(x: &Tensor, w: &Tensor, b: Option<&Tensor>, a: &ConvArgs) -> Result<(ConvDims, Window)> {
    let op = match x.ndim() {
        3 => "conv1d",
        4 => "conv2d",
        5 => "conv3d",
        _ => {
            return Err(Error::value(format!(
                "conv: the input must be [N, C, *spatial] with 1 to 3 spatial dims (3-D to \
                 5-D), got shape {:?}",
                x.shape()
            )))
        }
    };
    let dt = x.dtype();
    if !matches!(dt, DType::F32 | DType::F64) {
        return Err(Error::type_err(format!(
            "{op}: the input must be float32 or float64, got {dt}; cast it with .astype/.to"
        )));
    }
    for (what, t) in [("weight", Some(w)), ("bias", b)] {
        if let Some(t) = t.filter(|t| t.dtype() != dt) {
            return Err(Error::type_err(format!(
                "{op}: input ({dt}) and {what} ({}) must have the same dtype",
                t.dtype()
            )));
        }
    }
    if w.ndim() != x.ndim() {
        return Err(Error::value(format!(
            "{op}: weight must be {}-D [out_channels, in/groups, *kernel], got shape {:?}",
            x.ndim(),
            w.shape()
        )));
    }
    let (n, c, o) = (x.shape()[0], x.shape()[1], w.shape()[0]);
    if a.groups == 0 || w.shape()[1].checked_mul(a.groups) != Some(c) || o % a.groups != 0 {
        return Err(Error::value(format!(
            "{op}: input {:?} and weight {:?} do not match: needs input channels {c} == \
             weight.shape[1] * groups = {} * {}, and out_channels {o} divisible by groups",
            x.shape(),
            w.shape(),
            w.shape()[1],
            a.groups
        )));
    }
    if let Some(b) = b.filter(|b| b.shape() != [o]) {
        return Err(Error::value(format!(
            "{op}: bias must have shape [{o}], got {:?}",
            b.shape()
        )));
    }
    let win = Window {
        kernel: w.shape()[2..].to_vec(),
        stride: a.stride.clone(),
        dilation: a.dilation.clone(),
        pad_lo: a.pad_lo.clone(),
        pad_hi: a.pad_hi.clone(),
    };
    let d = ConvDims::new(op, (n, c, o), a.groups, &x.shape()[2..], &win)?;
    Ok((d, win))
}

/// The kernel that runs a convolution.
#[derive(Clone, Debug)]
enum Kernel {
    /// `conv_direct`.
    Direct,
    /// `conv_shift` (boxed: the plan holds two grids).
    Shift(Box<ShiftPlan>),
    /// `conv_gemm`.
    Gemm,
}

/// Chooses the kernel for `d`.
fn choose(d: &ConvDims, path: ConvPath) -> Result<Kernel> {
    if use_direct(d, path)? {
        return Ok(Kernel::Direct);
    }
    let force = match path {
        ConvPath::Shift => true,
        ConvPath::Auto => false,
        _ => return Ok(Kernel::Gemm),
    };
    Ok(ks::plan(d, force).map_or(Kernel::Gemm, |p| Kernel::Shift(Box::new(p))))
}

/// Whether the direct kernel runs this convolution.
fn use_direct(d: &ConvDims, path: ConvPath) -> Result<bool> {
    let pads_ok = d.win.pad_lo.iter().chain(&d.win.pad_hi).all(|&p| p >= 0);
    match path {
        ConvPath::Gemm | ConvPath::Shift => Ok(false),
        ConvPath::Direct if !pads_ok => Err(Error::value(
            "conv: the direct kernel needs non-negative padding",
        )),
        ConvPath::Direct => Ok(true),
        // depthwise-like: per group a product of [og, cg*kk] by [cg*kk, L] too thin for
        // gemm to pay for the columns it packs (with more outputs per group, gemm's
        // register blocking wins)
        ConvPath::Auto => Ok(pads_ok && d.og() <= 2 && d.cg() * d.kk <= 64),
    }
}

fn forward<T: ConvFloat>(
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    d: &ConvDims,
    kernel: &Kernel,
) -> Result<Vec<T>> {
    with_slice::<T, _>(x, |xs| {
        with_slice::<T, _>(w, |ws| {
            let run = |bs: Option<&[T]>| match kernel {
                Kernel::Direct => kd::forward(xs, ws, bs, d),
                Kernel::Shift(plan) => ks::forward(xs, ws, bs, d, plan),
                Kernel::Gemm => kg::forward(xs, ws, bs, d),
            };
            match b {
                Some(b) => with_slice::<T, _>(b, |bs| run(Some(bs))),
                None => run(None),
            }
        })
    })
}

/// The kernels' gradients for the inputs `needs` marks (x, w, bias).
fn backward<T: ConvFloat>(
    x: &Tensor,
    w: &Tensor,
    gy: &Tensor,
    d: &ConvDims,
    kernel: &Kernel,
    needs: &[bool],
) -> Result<Vec<Option<Tensor>>> {
    let need = |i: usize| needs.get(i).copied().unwrap_or(false);
    let (need_x, need_w, need_b) = (need(0), need(1), need(2));
    let (dx, dw, db) = with_slice::<T, _>(x, |xs| {
        with_slice::<T, _>(w, |ws| {
            with_slice::<T, _>(gy, |gs| {
                let bias_grad = |done: Option<Vec<T>>| match done {
                    Some(db) => Ok(Some(db)),
                    None if need_b => kg::bias_grad(gs, d.n, d.o, d.l).map(Some),
                    None => Ok(None),
                };
                match kernel {
                    Kernel::Direct => {
                        let dx = need_x.then(|| kd::input_grad(ws, gs, d)).transpose()?;
                        let (dw, db) = match need_w {
                            true => {
                                let (dw, db) = kd::weight_grad(xs, gs, d, need_b)?;
                                (Some(dw), db)
                            }
                            false => (None, None),
                        };
                        Ok((dx, dw, bias_grad(db)?))
                    }
                    Kernel::Shift(plan) => {
                        let g = ks::backward(xs, ws, gs, d, plan, (need_x, need_w, need_b))?;
                        Ok((g.dx, g.dw, g.db))
                    }
                    Kernel::Gemm => {
                        let g = kg::backward(xs, ws, gs, d, (need_x, need_w))?;
                        Ok((g.dx, g.dw, bias_grad(None)?))
                    }
                }
            })
        })
    })?;
    let wrap =
        |v: Option<Vec<T>>, shape: &[usize]| v.map(|v| Tensor::from_vec(v, shape)).transpose();
    Ok(vec![
        wrap(dx, x.shape())?,
        wrap(dw, w.shape())?,
        wrap(db, &[d.o])?,
    ])
}

/// The convolution written with differentiable ops: `W @ unfold(x)` (+ bias).
pub fn conv_composed(
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    win: &Window,
    groups: usize,
) -> Result<Tensor> {
    let cols = x.unfold_window(win)?; // [N, C*K, L]
    let (n, o) = (x.shape()[0] as isize, w.shape()[0] as isize);
    let (rows, l) = (cols.shape()[1] as isize, cols.shape()[2] as isize);
    let g = groups as isize;
    let out = if groups == 1 {
        w.reshape(&[o, rows])?.matmul(&cols)?
    } else {
        let wg = w.reshape(&[g, o / g, rows / g])?;
        wg.matmul(&cols.reshape(&[n, g, rows / g, l])?)?
    };
    let geo = crate::kernels::conv::Geometry::new("conv", &x.shape()[2..], win)?;
    let mut shape: Vec<isize> = vec![n, o];
    shape.extend(geo.out_shape().iter().map(|&v| v as isize));
    let out = out.reshape(&shape)?;
    match b {
        Some(b) => {
            let mut bs = vec![1isize; x.ndim() - 1];
            bs[0] = o;
            out.add(&b.reshape(&bs)?)
        }
        None => Ok(out),
    }
}

impl Tensor {
    /// Convolution (cross-correlation, as in both peers) of `self` `[N, C, *S]` (1 to 3
    /// spatial dims) with `weight` `[O, C/groups, *kernel]` and optional `bias` `[O]`:
    /// `[N, O, *out]`. One graph node; see the module docs for the kernels.
    pub fn conv_nd(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        args: &ConvArgs,
    ) -> Result<Tensor> {
        let (d, win) = check(self, weight, bias, args)?;
        let kernel = choose(&d, args.path)?;
        let mut shape = vec![d.n, d.o];
        shape.extend_from_slice(d.geo.out_shape());
        let out = match self.dtype() {
            DType::F32 => {
                Tensor::from_vec(forward::<f32>(self, weight, bias, &d, &kernel)?, &shape)?
            }
            DType::F64 => {
                Tensor::from_vec(forward::<f64>(self, weight, bias, &d, &kernel)?, &shape)?
            }
            dt => {
                return Err(Error::type_err(format!(
                    "conv: expected float32/float64, got {dt}"
                )))
            }
        };
        let mut ins: SmallVec<[&Tensor; 3]> = smallvec![self, weight];
        ins.extend(bias);
        let Some(mut rec) = Recorder::begin(&ins) else {
            return Ok(out);
        };
        for t in &ins {
            rec.save(t);
        }
        let groups = args.groups;
        rec.finish("ConvolutionBackward", &out, move |gr, saved, needs| {
            let get = |i: usize| super::saved(saved, i, "ConvolutionBackward").cloned();
            let (x, w) = (get(0)?, get(1)?);
            let b = if saved.len() > 2 { Some(get(2)?) } else { None };
            if is_grad_enabled() {
                return composed_backward(&x, &w, b.as_ref(), &win, groups, gr, needs);
            }
            let g = float_dispatch!(gr.dtype(), backward, (&x, &w, gr, &d, &kernel, needs))?;
            Ok(g.into_iter().take(saved.len()).collect())
        })?;
        Ok(out)
    }
}

/// Backward with `create_graph=True`: differentiates the composed convolution, so the
/// gradients carry a graph of their own (double backward).
fn composed_backward(
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    win: &Window,
    groups: usize,
    gr: &Tensor,
    needs: &[bool],
) -> Result<SmallVec<[Option<Tensor>; 2]>> {
    let out = conv_composed(x, w, b, win, groups)?;
    let inputs: Vec<Tensor> = [Some(x), Some(w), b]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    grads_with_graph(out, &inputs, |i| needs[i], gr)
}
