//! Plan-time fusion in the static executor: `matmul → add bias → activation` chains and
//! gradient-descent updates run as single steps, with values and gradients bit-identical
//! to the separate ops; a value needed elsewhere (fetched) ends a chain.

use ferrograd::autograd::engine::{grad_blocking, BackwardOptions};
use ferrograd::static_graph::{Executor, OpKind, Program, ReduceKind, Scope, VarKind};
use ferrograd::tensor::{BinaryOp, UnaryOp};
use ferrograd::{DType, Tensor};
use std::collections::HashMap;

fn seq(n: usize, scale: f64, shift: f64) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 7919 % 1009) as f64 / 1009.0 - shift) * scale)
        .collect()
}

fn tensor(v: Vec<f64>, shape: &[usize], dtype: DType) -> Tensor {
    Tensor::from_vec(v, shape).unwrap().to_dtype(dtype).unwrap()
}

fn bits(t: &Tensor) -> Vec<u64> {
    t.to_dtype(DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

struct Net {
    program: Program,
    loss: usize,
    pre_act: usize,
    params: Vec<(usize, &'static str)>,
}

/// `loss = sum(act(x @ w + b) @ v)`, gradients for w, b, v and an SGD update of each.
fn build(dtype: DType, act: UnaryOp, bias_first: bool) -> Net {
    let mut p = Program::new();
    let x = p
        .add_var("x", dtype, vec![None, Some(5)], VarKind::Data)
        .unwrap();
    let w = p
        .add_var("w", dtype, vec![Some(5), Some(7)], VarKind::Parameter)
        .unwrap();
    let b = p
        .add_var("b", dtype, vec![Some(7)], VarKind::Parameter)
        .unwrap();
    let v = p
        .add_var("v", dtype, vec![Some(7), Some(1)], VarKind::Parameter)
        .unwrap();
    let mm = p.append_op(OpKind::Matmul, vec![x, w]).unwrap();
    let add_inputs = if bias_first { vec![b, mm] } else { vec![mm, b] };
    let pre_act = p
        .append_op(OpKind::Binary(BinaryOp::Add), add_inputs)
        .unwrap();
    let h = p.append_op(OpKind::Unary(act), vec![pre_act]).unwrap();
    let out = p.append_op(OpKind::Matmul, vec![h, v]).unwrap();
    let loss = p
        .append_op(
            OpKind::Reduce {
                kind: ReduceKind::Sum,
                axes: None,
                keepdim: false,
            },
            vec![out],
        )
        .unwrap();
    let params = vec![(w, "w"), (b, "b"), (v, "v")];
    let grads = p
        .append_gradients(
            vec![loss],
            params.iter().map(|q| q.0).collect(),
            vec![],
            vec![],
        )
        .unwrap();
    for (&(param, _), g) in params.iter().zip(grads) {
        let lr = p.append_constant(tensor(vec![0.05], &[], dtype)).unwrap();
        let step = p
            .append_op(OpKind::Binary(BinaryOp::Mul), vec![lr, g.unwrap()])
            .unwrap();
        let new = p
            .append_op(OpKind::Binary(BinaryOp::Sub), vec![param, step])
            .unwrap();
        p.append_assign(new, param).unwrap();
    }
    Net {
        program: p,
        loss,
        pre_act,
        params,
    }
}

/// The same training step op by op with the crate's eager ops.
fn eager_step(x: &Tensor, vals: &mut [Tensor], act: UnaryOp, bias_first: bool) -> Tensor {
    let leaves: Vec<Tensor> = vals
        .iter()
        .map(|t| {
            let l = t.detach();
            l.set_requires_grad(true).unwrap();
            l
        })
        .collect();
    let mm = x.matmul(&leaves[0]).unwrap();
    let pre = if bias_first {
        leaves[1].add(&mm).unwrap()
    } else {
        mm.add(&leaves[1]).unwrap()
    };
    let h = pre.unary(act).unwrap();
    let loss = h.matmul(&leaves[2]).unwrap().sum(None, false).unwrap();
    let grads = grad_blocking(
        std::slice::from_ref(&loss),
        vec![loss.ones_like().unwrap()],
        &leaves,
        &[],
        BackwardOptions {
            retain_graph: false,
            create_graph: false,
        },
    )
    .unwrap();
    let _off = ferrograd::autograd::GradModeGuard::new(false);
    for (val, g) in vals.iter_mut().zip(grads) {
        let lr = val.scalar_like(0.05);
        *val = val.sub(&lr.mul(&g.unwrap()).unwrap()).unwrap();
    }
    loss
}

#[test]
fn fused_training_steps_match_the_separate_ops_bit_for_bit() {
    for dtype in [DType::F32, DType::F64] {
        for act in [UnaryOp::Tanh, UnaryOp::Sigmoid, UnaryOp::Relu] {
            for bias_first in [false, true] {
                let net = build(dtype, act, bias_first);
                let exe = Executor::new();
                let plan = exe.plan(&net.program, &[net.loss]).unwrap();
                // the linear chain and the three updates
                assert_eq!(plan.num_fused_steps(), 4, "{dtype} {act:?}");
                let scope = Scope::new();
                let mut vals = vec![
                    tensor(seq(35, 0.8, 0.5), &[5, 7], dtype),
                    tensor(seq(7, 0.3, 0.4), &[7], dtype),
                    tensor(seq(7, 1.1, 0.5), &[7, 1], dtype),
                ];
                for (&(_, name), val) in net.params.iter().zip(&vals) {
                    scope.set(name, val.clone());
                }
                for (step, batch) in [3usize, 8, 1].into_iter().enumerate() {
                    let x = tensor(
                        seq(5 * batch, 2.0, 0.45 + step as f64 * 0.01),
                        &[batch, 5],
                        dtype,
                    );
                    let feeds = HashMap::from([("x".to_string(), x.clone())]);
                    let out = exe.run(&net.program, &feeds, &[net.loss], &scope).unwrap();
                    let want = eager_step(&x, &mut vals, act, bias_first);
                    assert_eq!(bits(&out[0]), bits(&want), "loss, step {step}");
                    for (&(_, name), val) in net.params.iter().zip(&vals) {
                        let got = scope.get(name).unwrap();
                        assert_eq!(bits(&got), bits(val), "{name} {dtype} {act:?} step {step}");
                    }
                }
            }
        }
    }
}

#[test]
fn values_needed_elsewhere_end_a_chain() {
    let net = build(DType::F64, UnaryOp::Tanh, false);
    let exe = Executor::new();
    // the fetched pre-activation may be the output of a fused matmul + add, but the
    // activation must then read it as a separate step: still 1 + 3 fused steps, one more
    // step in all than when only the loss is fetched
    let fused_all = exe.plan(&net.program, &[net.loss]).unwrap();
    let plan = exe.plan(&net.program, &[net.loss, net.pre_act]).unwrap();
    assert_eq!(plan.num_fused_steps(), 4);
    assert_eq!(plan.num_steps(), fused_all.num_steps() + 1);
    let scope = Scope::new();
    scope.set("w", tensor(seq(35, 0.8, 0.5), &[5, 7], DType::F64));
    scope.set("b", tensor(seq(7, 0.3, 0.4), &[7], DType::F64));
    scope.set("v", tensor(seq(7, 1.1, 0.5), &[7, 1], DType::F64));
    let x = tensor(seq(10, 2.0, 0.45), &[2, 5], DType::F64);
    let w = scope.get("w").unwrap();
    let b = scope.get("b").unwrap();
    let feeds = HashMap::from([("x".to_string(), x.clone())]);
    let out = exe
        .run(&net.program, &feeds, &[net.loss, net.pre_act], &scope)
        .unwrap();
    let want = x.matmul(&w).unwrap().add(&b).unwrap();
    assert_eq!(bits(&out[1]), bits(&want));
}

#[test]
fn linear_of_other_shapes_and_dtypes_runs_as_the_separate_ops() {
    use ferrograd::kernels::bias_act::Activation;
    // batched x (3-D) and an int bias: not fusable, same result as the separate ops
    let x = tensor(seq(24, 1.0, 0.5), &[2, 3, 4], DType::F64);
    let w = tensor(seq(8, 1.0, 0.5), &[4, 2], DType::F64);
    let b = tensor(vec![1.0, -1.0], &[2], DType::F64);
    let got = x.linear(&w, Some(&b), Activation::Tanh).unwrap();
    let want = x.matmul(&w).unwrap().add(&b).unwrap().tanh().unwrap();
    assert_eq!(bits(&got), bits(&want));
    // 2-D float32 with a strided (transposed) weight: the fused path, same bits
    let x = tensor(seq(12, 1.0, 0.5), &[3, 4], DType::F32);
    let wt = tensor(seq(8, 1.0, 0.5), &[2, 4], DType::F32);
    let w = wt.transpose(0, 1).unwrap();
    let got = x.linear(&w, None, Activation::Relu).unwrap();
    let want = x.matmul(&w).unwrap().relu().unwrap();
    assert_eq!(bits(&got), bits(&want));
    // a wrong bias length is the add's error
    let bad = tensor(vec![1.0, 2.0, 3.0], &[3], DType::F32);
    assert!(x.linear(&w, Some(&bad), Activation::Identity).is_err());
}

#[test]
fn linear_gradients_can_be_differentiated_again() {
    use ferrograd::kernels::bias_act::Activation;
    let leaf = |v: Vec<f64>, shape: &[usize]| {
        let t = tensor(v, shape, DType::F64);
        t.set_requires_grad(true).unwrap();
        t
    };
    let x = leaf(seq(12, 1.0, 0.5), &[3, 4]);
    let w = leaf(seq(8, 1.0, 0.4), &[4, 2]);
    let b = leaf(vec![0.3, -0.2], &[2]);
    let create = BackwardOptions {
        retain_graph: true,
        create_graph: true,
    };
    for act in [Activation::Tanh, Activation::Sigmoid, Activation::Identity] {
        // d/dx of sum(d loss/dw * ones) through the fused op and through the separate ops
        let second = |fused: bool| -> Vec<u64> {
            let y = if fused {
                x.linear(&w, Some(&b), act).unwrap()
            } else {
                let z = x.matmul(&w).unwrap().add(&b).unwrap();
                match act {
                    Activation::Tanh => z.tanh().unwrap(),
                    Activation::Sigmoid => z.sigmoid().unwrap(),
                    _ => z,
                }
            };
            let loss = y.mul(&y).unwrap().sum(None, false).unwrap();
            let one = loss.ones_like().unwrap();
            let gw = grad_blocking(
                std::slice::from_ref(&loss),
                vec![one],
                std::slice::from_ref(&w),
                &[],
                create,
            )
            .unwrap()
            .remove(0)
            .unwrap();
            let s = gw.sum(None, false).unwrap();
            let ones = s.ones_like().unwrap();
            let gx = grad_blocking(
                std::slice::from_ref(&s),
                vec![ones],
                std::slice::from_ref(&x),
                &[],
                create,
            )
            .unwrap()
            .remove(0)
            .unwrap();
            bits(&gx)
        };
        assert_eq!(second(true), second(false), "{act:?}");
    }
}
