//! A static program: variables (name, dtype, shape with run-time dimensions, kind) and
//! the ordered list of op records over them. Building a program only records: every
//! op's output shape and dtype is inferred when it is appended, and a mismatch is an
//! error then, naming the op.

use super::infer::infer;
use super::infer_index_join_reduce::infer_ext;
use super::op::{InitKind, OpKind};
use super::optim_op::{OptRule, OptimizerStep};
use super::pyfunc::{OutSpec, PyFuncCallback, PyFuncOp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One dimension of a variable's shape: `None` is given at run time (`-1` in Paddle).
pub type Dim = Option<usize>;

/// Formats a shape with run-time dimensions as `[-1, 3]`.
pub fn fmt_shape(shape: &[Dim]) -> String {
    let parts: Vec<String> = shape
        .iter()
        .map(|d| d.map_or("-1".to_string(), |n| n.to_string()))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// What a variable is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// Fed at run time (`static.data`).
    Data,
    /// Persistent: read from and written back to the scope.
    Parameter,
    /// Produced by an op of the program.
    Temp,
    /// Declared with `create_var` (e.g. a `py_func` output) and produced by an op.
    Declared,
    /// The gradient of another variable (`<name>@GRAD`).
    Grad,
}

/// A variable of a program.
#[derive(Clone, Debug)]
pub struct VarDesc {
    /// Unique name within the program.
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Shape; `None` dimensions are known at run time only.
    pub shape: Vec<Dim>,
    /// What the variable is.
    pub kind: VarKind,
    /// Index of the op that produces it (the last one, for assigned variables).
    pub producer: Option<usize>,
}

/// One recorded op: what it does and which variables it reads and writes.
#[derive(Clone)]
pub struct OpRecord {
    /// The operation with its attributes.
    pub kind: Arc<OpKind>,
    /// Input variable ids.
    pub inputs: Vec<usize>,
    /// Output variable ids.
    pub outputs: Vec<usize>,
}

static NEXT_PROGRAM_ID: AtomicU64 = AtomicU64::new(1);

/// A static program. Its `version` changes with every edit, so executors can cache the
/// plan they compile from it and notice when it changed.
#[derive(Clone)]
pub struct Program {
    /// Process-unique id (a clone gets a new one).
    pub id: u64,
    /// Bumped by every change.
    pub version: u64,
    /// All variables; a variable's id is its index.
    pub vars: Vec<VarDesc>,
    /// Ops in execution order.
    pub ops: Vec<OpRecord>,
    temp_counter: usize,
}

impl Default for Program {
    fn default() -> Self {
        Self::new()
    }
}

impl Program {
    /// An empty program.
    pub fn new() -> Program {
        Program {
            id: NEXT_PROGRAM_ID.fetch_add(1, Ordering::Relaxed),
            version: 0,
            vars: Vec::new(),
            ops: Vec::new(),
            temp_counter: 0,
        }
    }

    /// A copy with a fresh id (Paddle's `Program.clone()`).
    pub fn duplicate(&self) -> Program {
        let mut p = self.clone();
        p.id = NEXT_PROGRAM_ID.fetch_add(1, Ordering::Relaxed);
        p
    }

    /// The id of the variable called `name`.
    pub fn find_var(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|v| v.name == name)
    }

    /// The variable with id `id`, or an error.
    pub fn var(&self, id: usize) -> Result<&VarDesc> {
        self.vars.get(id).ok_or_else(|| {
            Error::index(format!(
                "variable id {id} does not belong to this program ({} variables)",
                self.vars.len()
            ))
        })
    }

    /// Declares a variable. A name already used is an error, except that declaring a
    /// parameter again with the same dtype and shape returns the existing one.
    pub fn add_var(
        &mut self,
        name: &str,
        dtype: DType,
        shape: Vec<Dim>,
        kind: VarKind,
    ) -> Result<usize> {
        if name.is_empty() {
            return Err(Error::value("a variable needs a non-empty name"));
        }
        if let Some(id) = self.find_var(name) {
            let v = &self.vars[id];
            if kind == VarKind::Parameter && v.kind == kind && v.dtype == dtype && v.shape == shape
            {
                return Ok(id);
            }
            return Err(Error::value(format!(
                "a variable named '{name}' already exists in this program (dtype {}, shape {}); \
                 choose another name",
                v.dtype,
                fmt_shape(&v.shape)
            )));
        }
        if kind == VarKind::Parameter && shape.iter().any(|d| d.is_none()) {
            return Err(Error::value(format!(
                "parameter '{name}': every dimension must be known, got {}",
                fmt_shape(&shape)
            )));
        }
        self.vars.push(VarDesc {
            name: name.to_string(),
            dtype,
            shape,
            kind,
            producer: None,
        });
        self.version += 1;
        Ok(self.vars.len() - 1)
    }

    fn fresh_name(&mut self, stem: &str) -> String {
        loop {
            let name = format!("{stem}_{}.tmp", self.temp_counter);
            self.temp_counter += 1;
            if self.find_var(&name).is_none() {
                return name;
            }
        }
    }

    fn check_ids(&self, op: &str, ids: &[usize]) -> Result<()> {
        for &i in ids {
            if i >= self.vars.len() {
                return Err(Error::value(format!(
                    "{op}: input variable id {i} does not belong to this program; a variable can \
                     only be used in the program it was created in"
                )));
            }
        }
        Ok(())
    }

    fn push_op(&mut self, kind: OpKind, inputs: Vec<usize>, outputs: Vec<usize>) {
        let index = self.ops.len();
        for &o in &outputs {
            self.vars[o].producer = Some(index);
        }
        self.ops.push(OpRecord {
            kind: Arc::new(kind),
            inputs,
            outputs,
        });
        self.version += 1;
    }

    /// Appends an op computing a new variable from `inputs`; its shape and dtype are
    /// inferred now. Returns the new variable's id.
    pub fn append_op(&mut self, kind: OpKind, inputs: Vec<usize>) -> Result<usize> {
        let outs = self.append_op_multi(kind, inputs)?;
        match outs.as_slice() {
            [one] => Ok(*one),
            _ => Err(Error::runtime(format!(
                "append_op: the op has {} outputs; use append_op_multi",
                outs.len()
            ))),
        }
    }

    /// Appends an op with one or several outputs (split, unbind); their shapes and
    /// dtypes are inferred now. Returns the new variables' ids.
    pub fn append_op_multi(&mut self, kind: OpKind, inputs: Vec<usize>) -> Result<Vec<usize>> {
        self.check_ids(&kind.name(), &inputs)?;
        let descs: Vec<&VarDesc> = inputs.iter().map(|&i| &self.vars[i]).collect();
        let outs = match &kind {
            OpKind::Ext(op) => infer_ext(op, &descs)?,
            _ => vec![infer(&kind, &descs)?],
        };
        let mut ids = Vec::with_capacity(outs.len());
        for (dtype, shape) in outs {
            let name = self.fresh_name(&kind.name());
            ids.push(self.add_var(&name, dtype, shape, VarKind::Temp)?);
        }
        self.push_op(kind, inputs, ids.clone());
        Ok(ids)
    }

    /// Appends an optimizer update: `params` (trainable parameters) are updated from
    /// `grads` with the per-parameter `steps` (int64 scalars) and `buffers`
    /// (parameter-major, `rule.n_buffers()` each), all persistable, at learning rate `lr`
    /// (a persistable float64 scalar).
    pub fn append_optimizer_step(
        &mut self,
        rule: OptRule,
        params: Vec<usize>,
        grads: Vec<usize>,
        steps: Vec<usize>,
        buffers: Vec<usize>,
        lr: usize,
    ) -> Result<()> {
        let op = OptimizerStep {
            rule,
            n_params: params.len(),
        };
        let nb = rule.n_buffers();
        if grads.len() != params.len()
            || steps.len() != params.len()
            || buffers.len() != params.len() * nb
        {
            return Err(Error::value(format!(
                "optimizer: got {} parameters, {} gradients, {} step counters and {} buffers                  ({nb} per parameter expected)",
                params.len(),
                grads.len(),
                steps.len(),
                buffers.len()
            )));
        }
        for list in [&params, &grads, &steps, &buffers, &vec![lr]] {
            self.check_ids("optimizer", list)?;
        }
        for (k, &p) in params.iter().enumerate() {
            let pv = &self.vars[p];
            let same = |v: usize| self.vars[v].dtype == pv.dtype && self.vars[v].shape == pv.shape;
            let bufs = &buffers[k * nb..(k + 1) * nb];
            if pv.kind != VarKind::Parameter || !pv.dtype.is_differentiable() {
                return Err(Error::type_err(format!(
                    "optimizer: '{}' ({}) is not a floating parameter",
                    pv.name, pv.dtype
                )));
            }
            if !same(grads[k]) || !bufs.iter().all(|&b| same(b)) {
                return Err(Error::value(format!(
                    "optimizer: the gradient or state of '{}' does not match its shape {} and                      dtype {}",
                    pv.name,
                    fmt_shape(&pv.shape),
                    pv.dtype
                )));
            }
        }
        for &v in steps.iter().chain(&buffers).chain([&lr]) {
            if self.vars[v].kind != VarKind::Parameter {
                return Err(Error::value(format!(
                    "optimizer: state variable '{}' must be persistable",
                    self.vars[v].name
                )));
            }
        }
        let mut inputs = params.clone();
        inputs.extend(&grads);
        inputs.extend(&steps);
        inputs.extend(&buffers);
        inputs.push(lr);
        let mut outputs = params;
        outputs.extend(steps);
        outputs.extend(buffers);
        debug_assert_eq!(inputs.len(), op.n_inputs());
        self.push_op(OpKind::OptimizerStep(op), inputs, outputs);
        Ok(())
    }

    /// Appends a constant (a scalar or eager tensor used while building).
    pub fn append_constant(&mut self, value: Tensor) -> Result<usize> {
        let shape = value.shape().iter().map(|&n| Some(n)).collect();
        let name = self.fresh_name("constant");
        let out = self.add_var(&name, value.dtype(), shape, VarKind::Temp)?;
        self.push_op(OpKind::Constant(value.detach()), vec![], vec![out]);
        Ok(out)
    }

    /// Appends the initialisation of parameter `param` (startup programs).
    pub fn append_init(&mut self, param: usize, init: InitKind) -> Result<()> {
        let v = self.var(param)?;
        if v.kind != VarKind::Parameter {
            return Err(Error::value(format!(
                "init: '{}' is not a parameter",
                v.name
            )));
        }
        self.push_op(OpKind::Init(init), vec![], vec![param]);
        Ok(())
    }

    /// Appends `dst = src` (e.g. a parameter update). Shapes must agree and dtypes match.
    pub fn append_assign(&mut self, src: usize, dst: usize) -> Result<()> {
        self.check_ids("assign", &[src, dst])?;
        let (s, d) = (&self.vars[src], &self.vars[dst]);
        let compatible = s.shape.len() == d.shape.len()
            && s.shape.iter().zip(&d.shape).all(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            });
        if !compatible || s.dtype != d.dtype {
            return Err(Error::value(format!(
                "assign: cannot assign '{}' ({}, {}) to '{}' ({}, {}); shapes and dtypes must match",
                s.name,
                s.dtype,
                fmt_shape(&s.shape),
                d.name,
                d.dtype,
                fmt_shape(&d.shape)
            )));
        }
        if matches!(d.kind, VarKind::Data | VarKind::Grad) {
            return Err(Error::value(format!(
                "assign: '{}' is a fed or gradient variable and cannot be assigned to",
                d.name
            )));
        }
        self.push_op(OpKind::Assign, vec![src], vec![dst]);
        Ok(())
    }

    /// Appends a `py_func` op: `inputs` are passed to the callback, `outputs` are
    /// variables declared beforehand whose shapes and dtypes the results must match.
    pub fn append_py_func(
        &mut self,
        callback: Arc<dyn PyFuncCallback>,
        inputs: Vec<usize>,
        outputs: Vec<usize>,
    ) -> Result<()> {
        self.check_ids("py_func", &inputs)?;
        self.check_ids("py_func", &outputs)?;
        for &o in &outputs {
            let v = &self.vars[o];
            // a declared variable may be computed again (the later op's value wins, as in
            // Paddle); fed, parameter and gradient variables are not outputs
            if !matches!(v.kind, VarKind::Declared | VarKind::Temp) {
                return Err(Error::value(format!(
                    "py_func: output variable '{}' is a data, parameter or gradient variable; \
                     create the output with program.current_block().create_var(...)",
                    v.name
                )));
            }
        }
        let specs = outputs
            .iter()
            .map(|&o| OutSpec {
                name: self.vars[o].name.clone(),
                dtype: self.vars[o].dtype,
                shape: self.vars[o].shape.clone(),
            })
            .collect();
        let op = PyFuncOp {
            callback,
            outputs: specs,
        };
        self.push_op(OpKind::PyFunc(Arc::new(op)), inputs, outputs);
        Ok(())
    }

    /// For each variable, whether a gradient can flow from it to `target` through the ops
    /// recorded so far (differentiable ops over floating variables).
    fn reaches(&self, wrt: usize, target: usize, blocked: &[usize]) -> bool {
        let mut live = vec![false; self.vars.len()];
        live[wrt] = !blocked.contains(&wrt);
        for op in &self.ops {
            let fed = op.kind.passes_grad() && op.inputs.iter().any(|&v| live[v]);
            if fed {
                for &o in &op.outputs {
                    if self.vars[o].dtype.is_differentiable() && !blocked.contains(&o) {
                        live[o] = true;
                    }
                }
            }
        }
        live[target]
    }

    /// Appends the backward section computing d(sum of `targets`)/d(each of `wrt`),
    /// weighted by `target_grads` (ones when empty), treating the `blocked` variables as
    /// constants. Returns one gradient variable per `wrt`, or `None` where no gradient
    /// can reach it.
    pub fn append_gradients(
        &mut self,
        targets: Vec<usize>,
        wrt: Vec<usize>,
        target_grads: Vec<usize>,
        blocked: Vec<usize>,
    ) -> Result<Vec<Option<usize>>> {
        self.check_ids("gradients", &blocked)?;
        self.check_ids("gradients", &targets)?;
        self.check_ids("gradients", &wrt)?;
        self.check_ids("gradients", &target_grads)?;
        if targets.is_empty() {
            return Err(Error::value(
                "gradients: `targets` must name at least one variable",
            ));
        }
        if !target_grads.is_empty() && target_grads.len() != targets.len() {
            return Err(Error::value(format!(
                "gradients: got {} target gradient(s) for {} target(s)",
                target_grads.len(),
                targets.len()
            )));
        }
        for &t in &targets {
            let v = &self.vars[t];
            if !v.dtype.is_differentiable() {
                return Err(Error::type_err(format!(
                    "gradients: target '{}' has dtype {}; only floating variables can be differentiated",
                    v.name, v.dtype
                )));
            }
        }
        for (&t, &g) in targets.iter().zip(&target_grads) {
            let (tv, gv) = (&self.vars[t], &self.vars[g]);
            if tv.shape.len() != gv.shape.len() {
                return Err(Error::value(format!(
                    "gradients: the gradient given for '{}' has shape {}, but the target has shape {}",
                    tv.name,
                    fmt_shape(&gv.shape),
                    fmt_shape(&tv.shape)
                )));
            }
        }
        let mut result = Vec::with_capacity(wrt.len());
        let mut reached = Vec::new();
        let mut grad_vars = Vec::new();
        for &w in &wrt {
            let v = self.vars[w].clone();
            let reach = v.dtype.is_differentiable()
                && targets.iter().any(|&t| self.reaches(w, t, &blocked));
            if !reach {
                result.push(None);
                continue;
            }
            let mut name = format!("{}@GRAD", v.name);
            let mut k = 1;
            while self.find_var(&name).is_some() {
                name = format!("{}@GRAD_{k}", v.name);
                k += 1;
            }
            let g = self.add_var(&name, v.dtype, v.shape.clone(), VarKind::Grad)?;
            reached.push(w);
            grad_vars.push(g);
            result.push(Some(g));
        }
        if !reached.is_empty() {
            let kind = OpKind::Gradients {
                n_targets: targets.len(),
                n_wrt: reached.len(),
                has_target_grads: !target_grads.is_empty(),
                n_blocked: blocked.len(),
            };
            let mut inputs = targets;
            inputs.extend(reached);
            inputs.extend(target_grads);
            inputs.extend(blocked);
            self.push_op(kind, inputs, grad_vars);
        }
        Ok(result)
    }

    /// A readable listing of the variables and ops.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for v in &self.vars {
            s.push_str(&format!(
                "var {} : {:?} {} {}\n",
                v.name,
                v.kind,
                v.dtype,
                fmt_shape(&v.shape)
            ));
        }
        for op in &self.ops {
            let names = |ids: &[usize]| {
                ids.iter()
                    .map(|&i| self.vars[i].name.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            s.push_str(&format!(
                "{{{}}} = {}({})\n",
                names(&op.outputs),
                op.kind.name(),
                names(&op.inputs)
            ));
        }
        s
    }
}
