//! The static-graph ops of `ExtOp` and the optimizer update without Python: build-time
//! inference with run-time dimensions and errors naming the op, multi-output ops, and
//! a static SGD-with-momentum step matching the eager optimizer kernels.

use ferrograd::op_defs::{ShapeArgs, ShapeOp};
use ferrograd::optim::{sgd_step, ParamState, SgdConfig};
use ferrograd::static_graph::Executor;
use ferrograd::static_graph::{
    ExtOp, ExtReduce, IndexSpec, InitKind, OpKind, OptRule, Program, ReduceKind, Scope, VarKind,
};
use ferrograd::tensor::BinaryOp;
use ferrograd::{DType, Tensor};
use std::collections::HashMap;

fn t(v: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

#[test]
fn infers_ext_shapes_with_runtime_dims() {
    let mut p = Program::new();
    let x = p
        .add_var("x", DType::F32, vec![None, Some(6), Some(1)], VarKind::Data)
        .unwrap();
    let idx = p
        .add_var("i", DType::I64, vec![Some(4)], VarKind::Data)
        .unwrap();
    let items = vec![
        IndexSpec::Slice(None, None, 1),
        IndexSpec::Slice(Some(1), Some(5), 2),
        IndexSpec::NewAxis,
    ];
    let y = p
        .append_op(OpKind::Ext(ExtOp::Index(items)), vec![x])
        .unwrap();
    assert_eq!(p.vars[y].shape, vec![None, Some(2), Some(1), Some(1)]);
    let g = p
        .append_op(
            OpKind::Ext(ExtOp::Index(vec![IndexSpec::Var])),
            vec![x, idx],
        )
        .unwrap();
    assert_eq!(p.vars[g].shape, vec![Some(4), Some(6), Some(1)]);
    let parts = p
        .append_op_multi(
            OpKind::Ext(ExtOp::Split {
                axis: 1,
                sections: vec![Some(2), None],
            }),
            vec![x],
        )
        .unwrap();
    assert_eq!(p.vars[parts[1]].shape, vec![None, Some(4), Some(1)]);
    let f = p
        .append_op(
            OpKind::Ext(ExtOp::TableShape {
                op: ShapeOp::Flatten,
                args: ShapeArgs::range(0, 1),
            }),
            vec![x],
        )
        .unwrap();
    assert_eq!(p.vars[f].shape, vec![None, Some(1)]);
    let am = p
        .append_op(
            OpKind::Ext(ExtOp::ArgReduce {
                axis: Some(1),
                keepdim: false,
                max: true,
            }),
            vec![x],
        )
        .unwrap();
    assert_eq!(
        (p.vars[am].dtype, p.vars[am].shape.clone()),
        (DType::I64, vec![None, Some(1)])
    );
    let err = p
        .append_op(
            OpKind::Ext(ExtOp::Reduce {
                kind: ExtReduce::Prod,
                axes: Some(vec![3]),
                keepdim: false,
            }),
            vec![x],
        )
        .err()
        .unwrap();
    assert!(
        err.message.starts_with("prod: axis 3 is out of range"),
        "{}",
        err.message
    );
    let err = p
        .append_op_multi(OpKind::Ext(ExtOp::Unbind { axis: 0, count: 0 }), vec![x])
        .err()
        .unwrap();
    assert!(
        err.message.contains("known only at run time"),
        "{}",
        err.message
    );
}

#[test]
fn runs_split_and_where_with_gradients_through_the_engine() {
    let mut p = Program::new();
    let x = p
        .add_var("x", DType::F64, vec![None, Some(3)], VarKind::Data)
        .unwrap();
    let parts = p
        .append_op_multi(OpKind::Ext(ExtOp::Unbind { axis: 1, count: 3 }), vec![x])
        .unwrap();
    let zero = p.append_constant(Tensor::scalar(0.0f64)).unwrap();
    let cond = p
        .append_op(OpKind::Binary(BinaryOp::Gt), vec![parts[0], zero])
        .unwrap();
    let w = p
        .append_op(OpKind::Ext(ExtOp::Where), vec![cond, parts[1], parts[2]])
        .unwrap();
    let s = p
        .append_op(
            OpKind::Reduce {
                kind: ReduceKind::Sum,
                axes: None,
                keepdim: false,
            },
            vec![w],
        )
        .unwrap();
    let g = p
        .append_gradients(vec![s], vec![x], vec![], vec![])
        .unwrap()[0]
        .unwrap();
    let exe = Executor::new();
    let feeds: HashMap<String, Tensor> =
        [("x".to_string(), t(&[1., 2., 3., -1., 5., 6.], &[2, 3]))].into();
    let out = exe.run(&p, &feeds, &[w, g], &Scope::new()).unwrap();
    assert_eq!(out[0].to_vec::<f64>().unwrap(), vec![2., 6.]);
    assert_eq!(
        out[1].to_vec::<f64>().unwrap(),
        vec![0., 1., 0., 0., 0., 1.]
    );
}

#[test]
fn optimizer_step_matches_the_eager_kernel() {
    let cfg = SgdConfig {
        lr: 0.1,
        momentum: 0.9,
        dampening: 0.2,
        ..SgdConfig::default()
    };
    let mut p = Program::new();
    let w = p
        .add_var("w", DType::F64, vec![Some(2)], VarKind::Parameter)
        .unwrap();
    let step = p
        .add_var("w_step", DType::I64, vec![], VarKind::Parameter)
        .unwrap();
    let buf = p
        .add_var("w_buf", DType::F64, vec![Some(2)], VarKind::Parameter)
        .unwrap();
    let lr = p
        .add_var("lr", DType::F64, vec![], VarKind::Parameter)
        .unwrap();
    let sq = p
        .append_op(OpKind::Binary(BinaryOp::Mul), vec![w, w])
        .unwrap();
    let loss = p
        .append_op(
            OpKind::Reduce {
                kind: ReduceKind::Sum,
                axes: None,
                keepdim: false,
            },
            vec![sq],
        )
        .unwrap();
    let gw = p
        .append_gradients(vec![loss], vec![w], vec![], vec![])
        .unwrap()[0]
        .unwrap();
    p.append_optimizer_step(
        OptRule::Sgd(cfg),
        vec![w],
        vec![gw],
        vec![step],
        vec![buf],
        lr,
    )
    .unwrap();
    let mut startup = Program::new();
    for (name, dtype, shape, v) in [
        ("w", DType::F64, vec![Some(2)], 0.0),
        ("w_step", DType::I64, vec![], 0.0),
        ("w_buf", DType::F64, vec![Some(2)], 0.0),
        ("lr", DType::F64, vec![], 0.1),
    ] {
        let id = startup
            .add_var(name, dtype, shape, VarKind::Parameter)
            .unwrap();
        let init = if name == "w" {
            InitKind::Value(t(&[1.0, -2.0], &[2]))
        } else {
            InitKind::Constant(v)
        };
        startup.append_init(id, init).unwrap();
    }
    let (exe, scope) = (Executor::new(), Scope::new());
    exe.run(&startup, &HashMap::new(), &[], &scope).unwrap();
    let eager = t(&[1.0, -2.0], &[2]);
    let mut states = vec![ParamState {
        param: eager.clone(),
        buffers: vec![],
        step: 0,
    }];
    for _ in 0..3 {
        exe.run(&p, &HashMap::new(), &[loss], &scope).unwrap();
        let g = eager.mul_scalar(2.0).unwrap();
        eager.set_grad(Some(g)).unwrap();
        sgd_step(&mut states, &cfg).unwrap();
    }
    assert_eq!(
        scope.get("w").unwrap().to_vec::<f64>().unwrap(),
        eager.to_vec::<f64>().unwrap()
    );
    assert_eq!(
        scope.get("w_step").unwrap().to_vec::<i64>().unwrap(),
        vec![3]
    );
}

#[test]
fn bitwise_not_keeps_every_integer_width_and_rejects_floats_when_recorded() {
    use ferrograd::tensor::UnaryOp;
    let mut p = Program::new();
    let x = p
        .add_var("x", DType::U8, vec![None], VarKind::Data)
        .unwrap();
    let y = p
        .append_op(OpKind::Unary(UnaryOp::BitwiseNot), vec![x])
        .unwrap();
    assert_eq!(p.vars[y].dtype, DType::U8);
    let f = p
        .add_var("f", DType::F32, vec![Some(2)], VarKind::Data)
        .unwrap();
    let err = p
        .append_op(OpKind::Unary(UnaryOp::BitwiseNot), vec![f])
        .unwrap_err();
    assert!(err.to_string().contains("bitwise_not"), "{err}");
    let feeds = HashMap::from([(
        "x".to_string(),
        Tensor::from_vec(vec![0u8, 1, 200, 255], &[4]).unwrap(),
    )]);
    let out = Executor::new()
        .run(&p, &feeds, &[y], &Scope::new())
        .unwrap();
    assert_eq!(out[0].to_vec::<u8>().unwrap(), vec![255, 254, 55, 0]);
    for (v, want) in [(i64::MIN, i64::MAX), (-1, 0), (0, -1), (41, -42)] {
        let t = Tensor::from_vec(vec![v], &[1]).unwrap();
        let got = t
            .unary(UnaryOp::BitwiseNot)
            .unwrap()
            .to_vec::<i64>()
            .unwrap();
        assert_eq!(got, vec![want]);
    }
    let i8s = Tensor::from_vec(vec![i8::MIN, -1, 0, i8::MAX], &[4]).unwrap();
    let got = i8s.unary(UnaryOp::BitwiseNot).unwrap();
    assert_eq!(got.dtype(), DType::I8);
    assert_eq!(got.to_vec::<i8>().unwrap(), vec![i8::MAX, 0, -1, i8::MIN]);
    let i16s = Tensor::from_vec(vec![i16::MIN, 300], &[2]).unwrap();
    let got = i16s.unary(UnaryOp::BitwiseNot).unwrap();
    assert_eq!(got.to_vec::<i16>().unwrap(), vec![i16::MAX, -301]);
}
