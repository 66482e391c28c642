//! The static-graph core without Python: building with shape inference and build-time
//! errors, running through the executor with plan reuse, gradients via the engine,
//! parameter updates, and a `py_func` whose callbacks are Rust closures.

use ferrograd::op_defs::{ShapeArgs, ShapeOp};
use ferrograd::static_graph::{
    Executor, ExtOp, InitKind, OpKind, Program, PyFuncCallback, ReduceKind, Scope, VarKind,
};
use ferrograd::tensor::{BinaryOp, UnaryOp};
use ferrograd::{DType, Result, Tensor};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn t(v: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

fn feeds(items: &[(&str, Tensor)]) -> HashMap<String, Tensor> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

#[test]
fn infers_shapes_with_runtime_dims_and_rejects_mismatches() {
    let mut p = Program::new();
    let x = p
        .add_var("x", DType::F32, vec![None, Some(4)], VarKind::Data)
        .unwrap();
    let w = p
        .add_var("w", DType::F32, vec![Some(4), Some(3)], VarKind::Parameter)
        .unwrap();
    let h = p.append_op(OpKind::Matmul, vec![x, w]).unwrap();
    assert_eq!(p.vars[h].shape, vec![None, Some(3)]);
    let s = p
        .append_op(
            OpKind::Reduce {
                kind: ReduceKind::Sum,
                axes: Some(vec![1]),
                keepdim: false,
            },
            vec![h],
        )
        .unwrap();
    assert_eq!(p.vars[s].shape, vec![None]);
    let err = p.append_op(OpKind::Matmul, vec![h, w]).err().unwrap();
    assert!(err.message.contains("matmul"), "{}", err.message);
    let err = p
        .append_op(OpKind::Binary(BinaryOp::Add), vec![h, x])
        .err()
        .unwrap();
    assert!(err.message.starts_with("add:"), "{}", err.message);
    let reshape = |s: &[isize]| {
        OpKind::Ext(ExtOp::TableShape {
            op: ShapeOp::Reshape,
            args: ShapeArgs::shape(s),
        })
    };
    let r = p.append_op(reshape(&[-1]), vec![w]).unwrap();
    assert_eq!(p.vars[r].shape, vec![Some(12)]);
    assert!(p.append_op(reshape(&[5, -1]), vec![w]).is_err());
}

#[test]
fn runs_with_varying_batches_and_reuses_the_plan() {
    let mut p = Program::new();
    let x = p
        .add_var("x", DType::F64, vec![None, Some(2)], VarKind::Data)
        .unwrap();
    let y = p.append_op(OpKind::Unary(UnaryOp::Tanh), vec![x]).unwrap();
    let exe = Executor::new();
    let scope = Scope::new();
    for n in [1usize, 3, 2] {
        let xv: Vec<f64> = (0..2 * n).map(|i| i as f64 * 0.1).collect();
        let out = exe
            .run(&p, &feeds(&[("x", t(&xv, &[n, 2]))]), &[y], &scope)
            .unwrap();
        let got = out[0].to_vec::<f64>().unwrap();
        for (g, v) in got.iter().zip(&xv) {
            assert!((g - v.tanh()).abs() < 1e-12);
        }
    }
    assert_eq!(exe.cached_plans(), 1);
    let err = exe
        .run(&p, &feeds(&[("x", t(&[1.0], &[1, 1]))]), &[y], &scope)
        .err()
        .unwrap();
    assert!(
        err.message.contains("declared with shape [-1, 2]"),
        "{}",
        err.message
    );
}

#[test]
fn gradients_and_parameter_updates() {
    let mut startup = Program::new();
    let mut main = Program::new();
    let ws = startup
        .add_var("w", DType::F64, vec![Some(2)], VarKind::Parameter)
        .unwrap();
    startup.append_init(ws, InitKind::Constant(1.0)).unwrap();
    let x = main
        .add_var("x", DType::F64, vec![Some(2)], VarKind::Data)
        .unwrap();
    let w = main
        .add_var("w", DType::F64, vec![Some(2)], VarKind::Parameter)
        .unwrap();
    let xw = main
        .append_op(OpKind::Binary(BinaryOp::Mul), vec![x, w])
        .unwrap();
    let sq = main
        .append_op(OpKind::Unary(UnaryOp::Square), vec![xw])
        .unwrap();
    let loss = main
        .append_op(
            OpKind::Reduce {
                kind: ReduceKind::Sum,
                axes: None,
                keepdim: false,
            },
            vec![sq],
        )
        .unwrap();
    let grads = main
        .append_gradients(vec![loss], vec![w, x], vec![], vec![])
        .unwrap();
    let gw = grads[0].unwrap();
    assert_eq!(main.vars[gw].name, "w@GRAD");
    let lr = main.append_constant(Tensor::scalar(0.5f64)).unwrap();
    let step = main
        .append_op(OpKind::Binary(BinaryOp::Mul), vec![gw, lr])
        .unwrap();
    let new_w = main
        .append_op(OpKind::Binary(BinaryOp::Sub), vec![w, step])
        .unwrap();
    main.append_assign(new_w, w).unwrap();

    let exe = Executor::new();
    let scope = Scope::new();
    exe.run(&startup, &HashMap::new(), &[], &scope).unwrap();
    let f = feeds(&[("x", t(&[1.0, 2.0], &[2]))]);
    let out = exe.run(&main, &f, &[gw, loss], &scope).unwrap();
    // loss = sum((x*w)^2), d/dw = 2 x^2 w = [2, 8]
    assert_eq!(out[0].to_vec::<f64>().unwrap(), vec![2.0, 8.0]);
    assert_eq!(out[1].to_vec::<f64>().unwrap(), vec![5.0]);
    assert_eq!(
        scope.get("w").unwrap().to_vec::<f64>().unwrap(),
        vec![0.0, -3.0]
    );
    assert!(!scope.get("w").unwrap().requires_grad());
}

#[test]
fn unreachable_gradients_are_none_at_build_time() {
    let mut p = Program::new();
    let x = p
        .add_var("x", DType::F64, vec![Some(2)], VarKind::Data)
        .unwrap();
    let y = p
        .add_var("y", DType::F64, vec![Some(2)], VarKind::Data)
        .unwrap();
    let c = p
        .append_op(OpKind::Binary(BinaryOp::Gt), vec![y, x])
        .unwrap();
    let cf = p.append_op(OpKind::Cast(DType::F64), vec![c]).unwrap();
    let z = p
        .append_op(OpKind::Binary(BinaryOp::Mul), vec![x, cf])
        .unwrap();
    let g = p
        .append_gradients(vec![z], vec![x, y], vec![], vec![])
        .unwrap();
    assert!(g[0].is_some() && g[1].is_none());
}

struct Cube {
    backward_calls: AtomicUsize,
}

impl PyFuncCallback for Cube {
    fn name(&self) -> String {
        "cube".into()
    }
    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![inputs[0].mul(&inputs[0])?.mul(&inputs[0])?])
    }
    fn has_backward(&self) -> bool {
        true
    }
    fn backward(
        &self,
        inputs: &[Tensor],
        _outputs: &[Tensor],
        grads: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        self.backward_calls.fetch_add(1, Ordering::SeqCst);
        let x = &inputs[0];
        let g = grads[0].clone().unwrap();
        Ok(vec![Some(x.mul(x)?.mul_scalar(3.0)?.mul(&g)?)])
    }
}

#[test]
fn py_func_callbacks_run_forward_and_backward() {
    let mut p = Program::new();
    let x = p
        .add_var("x", DType::F64, vec![None], VarKind::Data)
        .unwrap();
    let o = p
        .add_var("o", DType::F64, vec![None], VarKind::Declared)
        .unwrap();
    let cube = Arc::new(Cube {
        backward_calls: AtomicUsize::new(0),
    });
    p.append_py_func(cube.clone(), vec![x], vec![o]).unwrap();
    let g = p
        .append_gradients(vec![o], vec![x], vec![], vec![])
        .unwrap()[0]
        .unwrap();
    let exe = Executor::new();
    let out = exe
        .run(
            &p,
            &feeds(&[("x", t(&[1.0, 2.0], &[2]))]),
            &[o, g],
            &Scope::new(),
        )
        .unwrap();
    assert_eq!(out[0].to_vec::<f64>().unwrap(), vec![1.0, 8.0]);
    assert_eq!(out[1].to_vec::<f64>().unwrap(), vec![3.0, 12.0]);
    assert_eq!(cube.backward_calls.load(Ordering::SeqCst), 1);
    // fetching only the forward value does not run the backward section
    exe.run(&p, &feeds(&[("x", t(&[1.0], &[1]))]), &[o], &Scope::new())
        .unwrap();
    assert_eq!(cube.backward_calls.load(Ordering::SeqCst), 1);
}
