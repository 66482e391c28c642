//! Tensor-level entry points of 2-D grid sampling (`kernels::grid_sample`): shape and
//! dtype checks, then the kernels on contiguous copies. They record nothing: the Python
//! `F.grid_sample` wraps them in a custom autograd function whose backward calls
//! [`Tensor::grid_sample_2d_backward`] (and, under `create_graph=True`, differentiates
//! the composed formula instead).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::grid_sample::{self as kg, GridSpec, Mode, Padding};
use crate::tensor::Tensor;

/// The spec of sampling `x` `[N, C, H, W]` at `grid` `[N, Ho, Wo, 2]`, after checking
/// both.
fn spec(x: &Tensor, grid: &Tensor, mode: Mode, padding: Padding, align: bool) -> Result<GridSpec> {
    let (xs, gs) = (x.shape(), grid.shape());
    if xs.len() != 4 || gs.len() != 4 || gs[3] != 2 || gs[0] != xs[0] {
        return Err(Error::value(format!(
            "grid_sample: input must be [N, C, H, W] and grid [N, Ho, Wo, 2], got shapes \
             {xs:?} and {gs:?}"
        )));
    }
    if !matches!(x.dtype(), DType::F32 | DType::F64) || grid.dtype() != x.dtype() {
        return Err(Error::type_err(format!(
            "grid_sample: input and grid must both be float32 or both float64, got {} and {}",
            x.dtype(),
            grid.dtype()
        )));
    }
    let points = gs[1]
        .checked_mul(gs[2])
        .ok_or_else(|| Error::value("grid_sample: the grid's size overflows"))?;
    Ok(GridSpec {
        n: xs[0],
        c: xs[1],
        h: xs[2],
        w: xs[3],
        points,
        mode,
        padding,
        align_corners: align,
    })
}

/// Reads `"bilinear"`/`"nearest"` and `"zeros"`/`"border"`/`"reflection"`.
pub fn parse_options(mode: &str, padding: &str) -> Result<(Mode, Padding)> {
    let m = match mode {
        "bilinear" => Mode::Bilinear,
        "nearest" => Mode::Nearest,
        _ => {
            return Err(Error::value(format!(
                "grid_sample: mode must be 'bilinear' or 'nearest', got {mode:?}"
            )))
        }
    };
    let p = match padding {
        "zeros" => Padding::Zeros,
        "border" => Padding::Border,
        "reflection" => Padding::Reflection,
        _ => {
            return Err(Error::value(format!(
                "grid_sample: padding_mode must be 'zeros', 'border' or 'reflection', got \
                 {padding:?}"
            )))
        }
    };
    Ok((m, p))
}

impl Tensor {
    /// `self` `[N, C, H, W]` sampled at the normalised positions `grid` `[N, Ho, Wo, 2]`:
    /// `[N, C, Ho, Wo]` (no graph is recorded).
    pub fn grid_sample_2d(
        &self,
        grid: &Tensor,
        mode: Mode,
        padding: Padding,
        align_corners: bool,
    ) -> Result<Tensor> {
        let s = spec(self, grid, mode, padding, align_corners)?;
        let shape = [s.n, s.c, grid.shape()[1], grid.shape()[2]];
        match self.dtype() {
            DType::F32 => {
                let v = kg::forward(&self.to_vec::<f32>()?, &grid.to_vec::<f32>()?, &s)?;
                Tensor::from_vec(v, &shape)
            }
            _ => {
                let v = kg::forward(&self.to_vec::<f64>()?, &grid.to_vec::<f64>()?, &s)?;
                Tensor::from_vec(v, &shape)
            }
        }
    }

    /// The gradients of [`Tensor::grid_sample_2d`] given the output's gradient `self`
    /// `[N, C, Ho, Wo]`: the input's and the grid's, each only when asked for.
    #[allow(clippy::too_many_arguments)]
    pub fn grid_sample_2d_backward(
        &self,
        x: &Tensor,
        grid: &Tensor,
        mode: Mode,
        padding: Padding,
        align_corners: bool,
        need_x: bool,
        need_grid: bool,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let s = spec(x, grid, mode, padding, align_corners)?;
        let want = [s.n, s.c, grid.shape()[1], grid.shape()[2]];
        if self.shape() != want || self.dtype() != x.dtype() {
            return Err(Error::value(format!(
                "grid_sample backward: the output gradient must be {} {want:?}, got {} {:?}",
                x.dtype(),
                self.dtype(),
                self.shape()
            )));
        }
        macro_rules! run {
            ($t:ty) => {{
                let (gx, gg) = kg::backward(
                    &self.to_vec::<$t>()?,
                    &x.to_vec::<$t>()?,
                    &grid.to_vec::<$t>()?,
                    &s,
                    need_x,
                    need_grid,
                )?;
                let gx = gx.map(|v| Tensor::from_vec(v, x.shape())).transpose()?;
                let gg = gg.map(|v| Tensor::from_vec(v, grid.shape())).transpose()?;
                Ok((gx, gg))
            }};
        }
        match self.dtype() {
            DType::F32 => run!(f32),
            _ => run!(f64),
        }
    }
}
