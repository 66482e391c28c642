//! Running programs: the [`Scope`] that holds parameter values between runs, the
//! [`Plan`] compiled once from a program and a fetch list, and the [`Executor`] that
//! caches plans and runs them.

use super::fusion::{find_rewrites, Fused, StepView};
use super::op::OpKind;
use super::program::{fmt_shape, Dim, Program, VarKind};
use crate::autograd::engine::{grad_blocking, BackwardOptions};
use crate::autograd::GradModeGuard;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// Named persistent values (parameters), shared by the programs that run in it.
#[derive(Default)]
pub struct Scope {
    vars: Mutex<HashMap<String, Tensor>>,
}

impl Scope {
    /// An empty scope.
    pub fn new() -> Scope {
        Scope::default()
    }
    /// The value called `name`, if set.
    pub fn get(&self, name: &str) -> Option<Tensor> {
        self.vars.lock().get(name).cloned()
    }
    /// Sets `name` to `value` (stored without autograd history).
    pub fn set(&self, name: &str, value: Tensor) {
        self.vars.lock().insert(name.to_string(), value.detach());
    }
    /// Names of the values held, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.vars.lock().keys().cloned().collect();
        v.sort();
        v
    }
    /// Removes every value.
    pub fn clear(&self) {
        self.vars.lock().clear();
    }
}

/// Where a slot's value comes from before the first step that reads it.
#[derive(Clone, Debug)]
struct Feed {
    name: String,
    slot: usize,
    dtype: DType,
    shape: Vec<Dim>,
    /// Differentiated against by a backward section: fed as a leaf that requires grad.
    requires_grad: bool,
}

/// What a step runs: a recorded op, or several adjacent ones fused ([`super::fusion`]).
enum StepOp {
    Recorded(Arc<OpKind>),
    Fused(Fused),
}

/// One op of a plan, with its variable slots resolved.
struct Step {
    op: StepOp,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    out_shapes: Vec<Vec<usize>>,
    out_dtypes: Vec<DType>,
    /// Per output: differentiated against later, so it must require grad.
    grad_source: Vec<bool>,
    /// Runs with grad mode on (it precedes a backward section).
    record: bool,
}

/// A program compiled for one fetch list: the ops to run in order and where every
/// value comes from. Built once and reused while the program does not change.
pub struct Plan {
    steps: Vec<Step>,
    n_slots: usize,
    feeds: Vec<Feed>,
    params: Vec<Feed>,
    writeback: Vec<(usize, String)>,
    fetch: Vec<usize>,
    /// Names of all data variables of the program (valid feed keys).
    pub data_names: Vec<String>,
    /// The program's variable names, for messages.
    names: Vec<String>,
}

impl Plan {
    /// Compiles `program` for fetching the variables `fetch`: keeps the ops those need
    /// plus the ops with side effects (writes to parameters, `py_func`s without outputs).
    pub fn compile(program: &Program, fetch: &[usize]) -> Result<Plan> {
        let nv = program.vars.len();
        for &f in fetch {
            program.var(f)?;
        }
        let mut needed = vec![false; nv];
        for &f in fetch {
            needed[f] = true;
        }
        let mut keep = vec![false; program.ops.len()];
        for (i, op) in program.ops.iter().enumerate().rev() {
            let side_effect = op
                .outputs
                .iter()
                .any(|&o| program.vars[o].kind == VarKind::Parameter)
                || (matches!(*op.kind, OpKind::PyFunc(_)) && op.outputs.is_empty());
            if side_effect || op.outputs.iter().any(|&o| needed[o]) {
                keep[i] = true;
                for &v in &op.inputs {
                    needed[v] = true;
                }
            }
        }
        // Variables differentiated against by a kept backward section.
        let mut grad_wrt = vec![false; nv];
        let mut last_backward = None;
        for (i, op) in program.ops.iter().enumerate() {
            if let (
                true,
                OpKind::Gradients {
                    n_targets, n_wrt, ..
                },
            ) = (keep[i], &*op.kind)
            {
                for &w in &op.inputs[*n_targets..n_targets + n_wrt] {
                    grad_wrt[w] = true;
                }
                last_backward = Some(i);
            }
        }
        let mut written = vec![false; nv];
        let mut loaded = vec![false; nv];
        let (mut feeds, mut params, mut steps) = (Vec::new(), Vec::new(), Vec::new());
        let mut load = |v: usize, written: &[bool], loaded: &mut [bool], op: &str| -> Result<()> {
            if written[v] || loaded[v] {
                return Ok(());
            }
            let d = &program.vars[v];
            let feed = Feed {
                name: d.name.clone(),
                slot: v,
                dtype: d.dtype,
                shape: d.shape.clone(),
                requires_grad: grad_wrt[v],
            };
            match d.kind {
                VarKind::Data => feeds.push(feed),
                VarKind::Parameter => params.push(feed),
                _ => {
                    return Err(Error::value(format!(
                        "{op}: variable '{}' is used but nothing computes it; declare it with \
                         static.data(...) to feed it, or compute it with an op first",
                        d.name
                    )))
                }
            }
            loaded[v] = true;
            Ok(())
        };
        for (i, op) in program.ops.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            for &v in &op.inputs {
                load(v, &written, &mut loaded, &op.kind.name())?;
            }
            for &o in &op.outputs {
                written[o] = true;
            }
            let out_shapes = op
                .outputs
                .iter()
                .map(|&o| {
                    program.vars[o]
                        .shape
                        .iter()
                        .map(|d| d.unwrap_or(0))
                        .collect()
                })
                .collect();
            steps.push(Step {
                op: StepOp::Recorded(op.kind.clone()),
                inputs: op.inputs.clone(),
                outputs: op.outputs.clone(),
                out_shapes,
                out_dtypes: op.outputs.iter().map(|&o| program.vars[o].dtype).collect(),
                grad_source: op.outputs.iter().map(|&o| grad_wrt[o]).collect(),
                record: last_backward.is_some_and(|l| i < l),
            });
        }
        for &f in fetch {
            load(f, &written, &mut loaded, "fetch")?;
        }
        let writeback: Vec<(usize, String)> = (0..nv)
            .filter(|&v| written[v] && program.vars[v].kind == VarKind::Parameter)
            .map(|v| (v, program.vars[v].name.clone()))
            .collect();
        let steps = fuse_steps(program, steps, fetch, &grad_wrt);
        Ok(Plan {
            steps,
            n_slots: nv,
            feeds,
            params,
            writeback,
            fetch: fetch.to_vec(),
            data_names: program
                .vars
                .iter()
                .filter(|v| v.kind == VarKind::Data)
                .map(|v| v.name.clone())
                .collect(),
            names: program.vars.iter().map(|v| v.name.clone()).collect(),
        })
    }

    /// Number of steps the plan runs (a fused chain of ops counts once).
    pub fn num_steps(&self) -> usize {
        self.steps.len()
    }

    /// Number of fused steps (see [`super::fusion`]).
    pub fn num_fused_steps(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s.op, StepOp::Fused(_)))
            .count()
    }

    /// Whether a step calls back into user code (`py_func`), which could see or keep the
    /// fed values.
    pub fn calls_user_code(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(&s.op, StepOp::Recorded(k) if matches!(**k, OpKind::PyFunc(_))))
    }

    /// Runs the plan with `feeds` (by data variable name) in `scope`; returns the
    /// fetched values in fetch-list order.
    pub fn run(&self, feeds: &HashMap<String, Tensor>, scope: &Scope) -> Result<Vec<Tensor>> {
        for name in feeds.keys() {
            if !self.data_names.contains(name) {
                return Err(Error::value(format!(
                    "feed: '{name}' is not a data variable of this program (data variables: {:?})",
                    self.data_names
                )));
            }
        }
        let mut slots: Vec<Option<Tensor>> = vec![None; self.n_slots];
        for f in &self.feeds {
            let t = feeds.get(&f.name).ok_or_else(|| {
                Error::value(format!(
                    "feed: data variable '{}' is needed but was not fed; pass feed={{'{}': array}}",
                    f.name, f.name
                ))
            })?;
            check_feed(f, t)?;
            slots[f.slot] = Some(leaf(t, f.requires_grad)?);
        }
        for p in &self.params {
            let t = scope.get(&p.name).ok_or_else(|| {
                Error::runtime(format!(
                    "parameter '{}' has no value; run the startup program first \
                     (exe.run(static.default_startup_program()))",
                    p.name
                ))
            })?;
            slots[p.slot] = Some(leaf(&t, p.requires_grad)?);
        }
        let recording = GradModeGuard::new(false);
        for step in &self.steps {
            crate::autograd::set_grad_enabled(step.record);
            let inputs: Vec<Tensor> = step
                .inputs
                .iter()
                .map(|&i| {
                    slots[i].clone().ok_or_else(|| {
                        Error::runtime(format!("variable '{}' was not computed", self.names[i]))
                    })
                })
                .collect::<Result<_>>()?;
            let kind = match &step.op {
                StepOp::Recorded(kind) => kind,
                StepOp::Fused(f) => {
                    let out = f.run(&inputs)?;
                    slots[step.outputs[0]] = Some(if step.grad_source[0] && !out.requires_grad() {
                        leaf(&out, true)?
                    } else {
                        out
                    });
                    continue;
                }
            };
            let outs = match &**kind {
                OpKind::Gradients {
                    n_targets,
                    n_wrt,
                    has_target_grads,
                    n_blocked,
                } => {
                    let given = if *has_target_grads { *n_targets } else { 0 };
                    let (head, blocked) = inputs.split_at(inputs.len() - n_blocked);
                    debug_assert_eq!(head.len(), n_targets + n_wrt + given);
                    run_gradients(head, *n_targets, *n_wrt, *has_target_grads, blocked)?
                }
                // only `Init` reads the declared shape and dtype (fully known for parameters)
                kind => kind.run(
                    &inputs,
                    step.out_shapes.first().map_or(&[][..], Vec::as_slice),
                    step.out_dtypes.first().copied().unwrap_or(DType::F32),
                )?,
            };
            for ((&slot, t), &src) in step.outputs.iter().zip(outs).zip(&step.grad_source) {
                slots[slot] = Some(if src && !t.requires_grad() {
                    leaf(&t, true)?
                } else {
                    t
                });
            }
        }
        drop(recording);
        for (slot, name) in &self.writeback {
            if let Some(t) = &slots[*slot] {
                scope.set(name, t.detach());
            }
        }
        self.fetch
            .iter()
            .map(|&f| {
                slots[f].as_ref().map(|t| t.detach()).ok_or_else(|| {
                    Error::runtime(format!(
                        "fetch: variable '{}' was not computed",
                        self.names[f]
                    ))
                })
            })
            .collect()
    }
}

/// Replaces the fusable chains of `steps` by fused steps (see [`super::fusion`]).
fn fuse_steps(
    program: &Program,
    steps: Vec<Step>,
    fetch: &[usize],
    grad_wrt: &[bool],
) -> Vec<Step> {
    let nv = program.vars.len();
    // values needed beyond the steps' own inputs
    let mut pinned: Vec<bool> = (0..nv)
        .map(|v| grad_wrt[v] || program.vars[v].kind != VarKind::Temp)
        .collect();
    for &f in fetch {
        pinned[f] = true;
    }
    let bias_1d: Vec<bool> = program.vars.iter().map(|v| v.shape.len() == 1).collect();
    let rewrites = {
        let views: Vec<StepView<'_>> = steps
            .iter()
            .map(|s| StepView {
                kind: match &s.op {
                    StepOp::Recorded(k) => Some(&**k),
                    StepOp::Fused(_) => None,
                },
                inputs: &s.inputs,
                outputs: &s.outputs,
            })
            .collect();
        find_rewrites(&views, &pinned, &bias_1d)
    };
    if rewrites.is_empty() {
        return steps;
    }
    let mut out = Vec::with_capacity(steps.len());
    let mut pending = rewrites.into_iter().peekable();
    let mut steps = steps.into_iter().enumerate().peekable();
    while let Some((i, step)) = steps.next() {
        match pending.peek() {
            Some(r) if r.start == i => {
                let r = pending.next().expect("peeked");
                // the chain's last step has the fused output's shape, dtype and flags
                let mut last = step;
                for _ in 1..r.len {
                    last = steps.next().expect("a rewrite covers existing steps").1;
                }
                let out_pos = last
                    .outputs
                    .iter()
                    .position(|&o| o == r.output)
                    .unwrap_or(0);
                out.push(Step {
                    op: StepOp::Fused(r.fused),
                    inputs: r.inputs,
                    outputs: vec![r.output],
                    out_shapes: vec![last.out_shapes[out_pos].clone()],
                    out_dtypes: vec![last.out_dtypes[out_pos]],
                    grad_source: vec![last.grad_source[out_pos]],
                    record: last.record,
                });
            }
            _ => out.push(step),
        }
    }
    out
}

/// `t` as a fresh leaf (sharing storage) that requires grad, or `t` itself.
fn leaf(t: &Tensor, requires_grad: bool) -> Result<Tensor> {
    if !requires_grad {
        return Ok(t.clone());
    }
    let l = t.detach();
    l.set_requires_grad(true)?;
    Ok(l)
}

fn check_feed(f: &Feed, t: &Tensor) -> Result<()> {
    if t.dtype() != f.dtype {
        return Err(Error::type_err(format!(
            "feed: data variable '{}' has dtype {}, but the fed value has dtype {}; convert it \
             first, e.g. array.astype('{}')",
            f.name,
            f.dtype,
            t.dtype(),
            f.dtype
        )));
    }
    let ok = t.ndim() == f.shape.len()
        && t.shape()
            .iter()
            .zip(&f.shape)
            .all(|(&n, d)| d.is_none_or(|d| d == n));
    if !ok {
        return Err(Error::value(format!(
            "feed: data variable '{}' was declared with shape {}, but the fed value has shape {:?}",
            f.name,
            fmt_shape(&f.shape),
            t.shape()
        )));
    }
    Ok(())
}

/// The backward section: gradients of the targets with respect to the `wrt` inputs.
fn run_gradients(
    inputs: &[Tensor],
    nt: usize,
    nw: usize,
    given: bool,
    blocked: &[Tensor],
) -> Result<Vec<Tensor>> {
    let targets = &inputs[..nt];
    let wrt = &inputs[nt..nt + nw];
    let mut roots = Vec::new();
    let mut root_grads = Vec::new();
    for (k, t) in targets.iter().enumerate() {
        if !t.requires_grad() {
            continue; // this target does not depend on any differentiated variable
        }
        roots.push(t.clone());
        root_grads.push(if given {
            inputs[nt + nw + k].detach()
        } else {
            t.ones_like()?
        });
    }
    let grads = if roots.is_empty() {
        vec![None; nw]
    } else {
        let _no_record = GradModeGuard::new(false);
        grad_blocking(
            &roots,
            root_grads,
            wrt,
            blocked,
            BackwardOptions {
                retain_graph: true,
                create_graph: false,
            },
        )?
    };
    // A variable the backward functions gave no gradient gets zeros: its gradient variable
    // exists in the program, and "no gradient" means nothing flowed into it.
    grads
        .into_iter()
        .zip(wrt)
        .map(|(g, w)| match g {
            Some(g) => Ok(g.detach()),
            None => w.zeros_like(),
        })
        .collect()
}

/// What a plan is cached under: program id, program version, fetched variable ids.
type PlanKey = (u64, u64, Vec<usize>);

/// Runs programs, caching one compiled [`Plan`] per (program, version, fetch list).
#[derive(Default)]
pub struct Executor {
    plans: Mutex<HashMap<PlanKey, Arc<Plan>>>,
}

impl Executor {
    /// An executor with an empty plan cache.
    pub fn new() -> Executor {
        Executor::default()
    }

    /// The plan for `program` and `fetch`, compiled on first use and then reused until
    /// the program changes.
    pub fn plan(&self, program: &Program, fetch: &[usize]) -> Result<Arc<Plan>> {
        let key = (program.id, program.version, fetch.to_vec());
        if let Some(p) = self.plans.lock().get(&key) {
            return Ok(p.clone());
        }
        let plan = Arc::new(Plan::compile(program, fetch)?);
        let mut cache = self.plans.lock();
        // drop plans of older versions of this program
        cache.retain(|k, _| k.0 != program.id || k.1 == program.version);
        cache.insert(key, plan.clone());
        Ok(plan)
    }

    /// Number of cached plans.
    pub fn cached_plans(&self) -> usize {
        self.plans.lock().len()
    }

    /// Compiles (or reuses) the plan and runs it.
    pub fn run(
        &self,
        program: &Program,
        feeds: &HashMap<String, Tensor>,
        fetch: &[usize],
        scope: &Scope,
    ) -> Result<Vec<Tensor>> {
        self.plan(program, fetch)?.run(feeds, scope)
    }
}
