//! Binary elementwise ops with their gradients, expanded from the declarations in
//! [`crate::op_defs::binary`]; `where`.

use super::saved;
use crate::autograd::{Grads, Recorder};
use crate::dtype::{DType, ZeroDimRule};
use crate::error::{Error, Result};
#[allow(unused_imports)] // the table's formulas name some of these
use crate::op_defs::binary::fns::*;
use crate::op_defs::SaveWhen;
use crate::tensor::{BinaryOp, Tensor};
use smallvec::smallvec;
use std::cell::OnceCell;

/// What a binary formula reads: the operands `a`, `b` and the output, each from its
/// saved slot or (a Python number operand) captured by the formula.
pub(crate) struct Operands<'a> {
    saved: &'a [Option<Tensor>],
    /// The slot of `a`, `b`, `out` (`None`: the op never saves it).
    slots: [Option<usize>; 3],
    /// A number operand: its position (0 = `a`, 1 = `b`) and value.
    number: Option<(usize, Number<'a>)>,
    node: &'static str,
}

/// A Python number operand as a backward formula sees it.
#[derive(Clone, Copy)]
pub(crate) enum Number<'a> {
    /// Already a 0-d constant tensor.
    Tensor(&'a Tensor),
    /// A real value of a float32/float64 op, made a 0-d constant tensor only when a
    /// formula reads it (`y + 1.0`'s backward never does), in `cell`.
    Real {
        value: f64,
        dtype: DType,
        cell: &'a OnceCell<Tensor>,
    },
}

impl<'a> Number<'a> {
    fn tensor(self) -> &'a Tensor {
        match self {
            Number::Tensor(t) => t,
            Number::Real { value, dtype, cell } => cell.get_or_init(|| {
                // the value was rounded to `dtype` when recorded: this conversion is exact
                let t = if dtype == DType::F32 {
                    Tensor::scalar(value as f32)
                } else {
                    Tensor::scalar(value)
                };
                t.mark_constant()
            }),
        }
    }
}

impl<'a> Operands<'a> {
    pub(crate) fn new(
        saved: &'a [Option<Tensor>],
        rules: [SaveWhen; 3],
        number: Option<(usize, Number<'a>)>,
        node: &'static str,
    ) -> Self {
        Operands {
            saved,
            slots: slot_layout(rules),
            number,
            node,
        }
    }
    /// The left operand.
    pub(crate) fn a(&self) -> Result<&'a Tensor> {
        self.get(0)
    }
    /// The right operand.
    pub(crate) fn b(&self) -> Result<&'a Tensor> {
        self.get(1)
    }
    /// The op's output.
    pub(crate) fn out(&self) -> Result<&'a Tensor> {
        self.get(2)
    }
    fn get(&self, i: usize) -> Result<&'a Tensor> {
        if let Some((pos, t)) = self.number {
            if pos == i {
                return Ok(t.tensor());
            }
        }
        match self.slots[i] {
            Some(slot) => saved(self.saved, slot, self.node),
            None => Err(Error::runtime(format!(
                "internal: {} does not save {}",
                self.node,
                ["a", "b", "out"][i]
            ))),
        }
    }
}

/// The slot of each of `a`, `b`, `out`: the saved ones in that order.
fn slot_layout(rules: [SaveWhen; 3]) -> [Option<usize>; 3] {
    let mut next = 0;
    rules.map(|r| {
        (r != SaveWhen::Never).then(|| {
            next += 1;
            next - 1
        })
    })
}

/// Saves what `rules` ask for: one slot per rule that is not `Never` (empty where the
/// gradient that reads it is not needed, or where the operand is a number).
pub(crate) fn save_operands(rec: &mut Recorder, rules: [SaveWhen; 3], ops: [Option<&Tensor>; 2]) {
    let (na, nb) = (rec.needs(0), rec.needs(1));
    for (i, rule) in rules.into_iter().enumerate() {
        if rule == SaveWhen::Never {
            continue;
        }
        match (rule.wanted(na, nb), i) {
            (false, _) => rec.save_nothing(),
            (true, 2) => rec.save_output(),
            (true, i) => match ops[i] {
                Some(t) => rec.save(t),
                None => rec.save_nothing(),
            },
        }
    }
}

/// Gives a table formula its parameter types.
fn formula(
    g: &Tensor,
    s: &Operands<'_>,
    f: impl FnOnce(&Tensor, &Operands<'_>) -> Result<Tensor>,
) -> Result<Tensor> {
    f(g, s)
}

fn no_formula(op: BinaryOp) -> Error {
    Error::runtime(format!("internal: {} has no gradient formula", op.name()))
}

/// The gradient formulas of the binary ops, expanded from their declarations.
macro_rules! binary_grads {
    ($($v:ident {
        methods: [$($m:ident),+], dunders: [$($dunder:ident),*], kwargs: [$($kw:ident),*],
        extra: [$($ex:ident)?],
        doc: $doc:literal,
        dtype: $dtype:ident,
        float: [$($float:expr)?], int: [$($int:expr)?],
        complex: [$($cplx:expr)?], boolean: [$($b:expr)?],
        saves: [$sa:ident, $sb:ident, $so:ident],
        grad: [$($lhs:expr, $rhs:expr)?],
        number_lhs: [$([$na:ident, $nb:ident, $no:ident], $nf:expr)?], node: $node:literal,
    })*) => {
        /// The left operand's gradient from the incoming gradient `g`.
        pub(crate) fn grad_lhs(op: BinaryOp, g: &Tensor, s: &Operands<'_>) -> Result<Tensor> {
            match op {
                $($(BinaryOp::$v => formula(g, s, $lhs),)?)*
                #[allow(unreachable_patterns)]
                _ => Err(no_formula(op)),
            }
        }
        /// The right operand's gradient from the incoming gradient `g`.
        pub(crate) fn grad_rhs(op: BinaryOp, g: &Tensor, s: &Operands<'_>) -> Result<Tensor> {
            match op {
                $($(BinaryOp::$v => formula(g, s, $rhs),)?)*
                #[allow(unreachable_patterns)]
                _ => Err(no_formula(op)),
            }
        }
        /// The right operand's gradient with a number on the left, for the ops that
        /// declare a cheaper formula for it ([`BinaryOp::number_lhs_saves`]).
        pub(crate) fn grad_rhs_of_number(
            op: BinaryOp,
            g: &Tensor,
            s: &Operands<'_>,
        ) -> Result<Tensor> {
            match op {
                $($(BinaryOp::$v => formula(g, s, $nf),)?)*
                _ => grad_rhs(op, g, s),
            }
        }
    };
}

crate::op_defs::for_each_binary_op!(binary_grads);

impl Tensor {
    /// `self op other` with broadcasting, recording the gradient when needed (PyTorch's
    /// 0-d promotion, [`ZeroDimRule::Torch`]).
    pub fn binary(&self, other: &Tensor, op: BinaryOp) -> Result<Tensor> {
        self.binary_ranked(other, op, ZeroDimRule::Torch)
    }

    /// [`Tensor::binary`] with a 0-d operand promoted by `rule` (the gradients reach each
    /// input in its own dtype and shape).
    pub fn binary_ranked(&self, other: &Tensor, op: BinaryOp, rule: ZeroDimRule) -> Result<Tensor> {
        let _profiled = crate::profiler::op(|| op.name(), &[self, other]);
        let out = self.binary_raw_ranked(other, op, rule)?;
        if !op.has_gradient() || !out.dtype().is_differentiable() {
            return Ok(out);
        }
        let Some(mut rec) = Recorder::begin(&[self, other]) else {
            return Ok(out);
        };
        let rules = op.saves();
        save_operands(&mut rec, rules, [Some(self), Some(other)]);
        let node = op.node_name();
        rec.finish(node, &out, move |g, s, n| {
            let ops = Operands::new(s, rules, None, node);
            let ga = if n[0] {
                Some(grad_lhs(op, g, &ops)?)
            } else {
                None
            };
            let gb = if n[1] {
                Some(grad_rhs(op, g, &ops)?)
            } else {
                None
            };
            Ok(smallvec![ga, gb] as Grads)
        })?;
        Ok(out)
    }

    /// `self + other`.
    pub fn add(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Add)
    }
    /// `self - other`.
    pub fn sub(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Sub)
    }
    /// `self * other`.
    pub fn mul(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Mul)
    }
    /// `self / other` (true division).
    pub fn div(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Div)
    }
    /// `self ** other`.
    pub fn pow(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Pow)
    }
    /// `self * v` for a real scalar `v` (in this tensor's dtype).
    pub fn mul_scalar(&self, v: f64) -> Result<Tensor> {
        self.binary_with_scalar(&self.scalar_like(v), BinaryOp::Mul, false)
    }
    /// `self + v`.
    pub fn add_scalar(&self, v: f64) -> Result<Tensor> {
        self.binary_with_scalar(&self.scalar_like(v), BinaryOp::Add, false)
    }
    /// `v - self`.
    pub fn rsub_scalar(&self, v: f64) -> Result<Tensor> {
        self.binary_with_scalar(&self.scalar_like(v), BinaryOp::Sub, true)
    }

    /// `cond ? x : y` elementwise with broadcasting; differentiable in `x` and `y`
    /// (PyTorch's 0-d promotion of `x` and `y`).
    pub fn where_(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        Self::where_ranked(cond, x, y, ZeroDimRule::Torch)
    }

    /// [`Tensor::where_`] with a 0-d `x` or `y` promoted by `rule`.
    pub fn where_ranked(
        cond: &Tensor,
        x: &Tensor,
        y: &Tensor,
        rule: ZeroDimRule,
    ) -> Result<Tensor> {
        let out = Self::where_raw_ranked(cond, x, y, rule)?;
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        let Some(mut rec) = Recorder::begin(&[x, y]) else {
            return Ok(out);
        };
        rec.save(cond);
        rec.finish("WhereBackward", &out, |g, s, n| {
            let c = saved(s, 0, "WhereBackward")?;
            let z = g.zeros_like()?;
            let gx = if n[0] {
                Some(Tensor::where_(c, g, &z)?)
            } else {
                None
            };
            let gy = if n[1] {
                Some(Tensor::where_(c, &z, g)?)
            } else {
                None
            };
            Ok(smallvec![gx, gy] as Grads)
        })?;
        Ok(out)
    }

    /// Raw `where`: promotes `x` and `y` (PyTorch's 0-d rule), broadcasts all three.
    pub fn where_raw(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        Self::where_raw_ranked(cond, x, y, ZeroDimRule::Torch)
    }

    /// [`Tensor::where_raw`] with a 0-d `x` or `y` promoted by `rule`.
    fn where_raw_ranked(
        cond: &Tensor,
        x: &Tensor,
        y: &Tensor,
        rule: ZeroDimRule,
    ) -> Result<Tensor> {
        let dtype = crate::dtype::DType::promote_ranked(
            x.dtype(),
            x.ndim() == 0,
            y.dtype(),
            y.ndim() == 0,
            rule,
        );
        // a 0-d integer operand narrowed to the other's dtype must fit it (as for `+`)
        crate::tensor::check_fits(x, dtype, "where")?;
        crate::tensor::check_fits(y, dtype, "where")?;
        let shape = crate::layout::broadcast_shapes(x.shape(), y.shape(), "where")?;
        let shape = crate::layout::broadcast_shapes(cond.shape(), &shape, "where")?;
        let c = cond
            .cast_raw(crate::dtype::DType::Bool)?
            .expand_raw(&shape)?;
        let (x, y) = (
            x.cast_raw(dtype)?.expand_raw(&shape)?,
            y.cast_raw(dtype)?.expand_raw(&shape)?,
        );
        // One of `x`, `y` a single value, as in tril's `where(mask, x, 0)`: one broadcasting
        // (and threaded) pass over the other two with a select, instead of the offset
        // tables (8 bytes an element for each operand) and serial loop below.
        let single = |t: &Tensor| t.layout().strides.iter().all(|&s| s == 0);
        if shape.iter().product::<usize>() > 0 && (single(&x) || single(&y)) {
            use crate::kernels::elementwise::map_binary;
            let data = crate::with_dtype!(dtype, T, {
                let cs = c.storage().read::<bool>();
                let v = if single(&y) {
                    let yv: T = y.storage().read::<T>()[y.layout().offset];
                    let xs = x.storage().read::<T>();
                    let pick = move |ci: bool, xi: T| if ci { xi } else { yv };
                    map_binary(&cs, c.layout(), &xs, x.layout(), &shape, pick)?
                } else {
                    let xv: T = x.storage().read::<T>()[x.layout().offset];
                    let ys = y.storage().read::<T>();
                    let pick = move |ci: bool, yi: T| if ci { xv } else { yi };
                    map_binary(&cs, c.layout(), &ys, y.layout(), &shape, pick)?
                };
                crate::storage::Storage::from_vec(v)
            });
            let l = crate::layout::Layout::contiguous(&shape);
            return Ok(Tensor::from_parts(std::sync::Arc::new(data), l));
        }
        // all three dense and of the output's shape: one threaded select pass
        let n = shape.iter().product::<usize>();
        let dense = |t: &Tensor| t.is_contiguous() && t.shape() == shape.as_slice();
        if n > 0 && dense(&c) && dense(&x) && dense(&y) {
            use crate::kernels::elementwise::map_ternary;
            let data = crate::with_dtype!(dtype, T, {
                let cs = c.storage().read::<bool>();
                let (xs, ys) = (x.storage().read::<T>(), y.storage().read::<T>());
                let (co, xo, yo) = (c.layout().offset, x.layout().offset, y.layout().offset);
                let pick = |ci: bool, xi: T, yi: T| if ci { xi } else { yi };
                let v = map_ternary(&cs[co..co + n], &xs[xo..xo + n], &ys[yo..yo + n], pick)?;
                crate::storage::Storage::from_vec(v)
            });
            let l = crate::layout::Layout::contiguous(&shape);
            return Ok(Tensor::from_parts(std::sync::Arc::new(data), l));
        }
        // out = y; out[c] = x   (two contiguous passes, no per-dtype branching)
        let out = y.contiguous_copy()?;
        crate::with_dtype!(dtype, T, {
            let cs = c.storage().read::<bool>();
            let xs = x.storage().read::<T>();
            let mut os = out.storage().write::<T>()?;
            let (co, xo) = (c.layout().offsets()?, x.layout().offsets()?);
            for (i, (ci, xi)) in co.iter().zip(&xo).enumerate() {
                if cs[*ci] {
                    os[i] = xs[*xi];
                }
            }
        });
        Ok(out)
    }
}
