//! Each phase of the backward pass on its own: discovery (which counts dependencies), seeding
//! and output validation (the whole pass is tested in `tests/engine.rs`).

use super::*;

fn leaf(v: &[f64]) -> Tensor {
    let t = Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

/// `x -> a = x*x -> (b = a.exp(), c = a*2) -> y = (b + c).sum()`: node `a` has two
/// parents.
fn diamond() -> (Tensor, Tensor, Tensor) {
    let x = leaf(&[0.5, 1.5]);
    let a = x.mul(&x).unwrap();
    let b = a.exp().unwrap();
    let c = a.add(&a).unwrap();
    let y = b.add(&c).unwrap().sum(None, false).unwrap();
    (x, a, y)
}

fn leaf_id(t: &Tensor) -> usize {
    match t.gradient_edge() {
        Edge::Leaf(l) => l.leaf_key(),
        _ => panic!("not a leaf"),
    }
}

fn position(g: &GraphTask, t: &Tensor) -> usize {
    let id = t.grad_fn().unwrap().id();
    g.states.iter().position(|s| s.node.id() == id).unwrap()
}

#[test]
fn discovery_finds_each_node_once_children_before_parents() {
    let (x, a, y) = diamond();
    let roots = root_edges(std::slice::from_ref(&y)).unwrap();
    let g = discover(&roots, &Targets::AllLeaves, &Blocked::default()).unwrap();
    // sum, add(b, c), exp, add(a, a), mul: five nodes, one leaf.
    assert_eq!(g.states.len(), 5);
    assert_eq!(g.post.len(), 5);
    assert_eq!(g.leaves.len(), 1);
    assert!(g.leaves.contains_key(&leaf_id(&x)));
    let order: Vec<usize> = g.post.iter().map(|&i| i as usize).collect();
    let pos = |n: usize| order.iter().position(|&i| i == n).unwrap();
    assert!(pos(position(&g, &a)) < pos(position(&g, &y)));
    assert_eq!(*order.last().unwrap(), position(&g, &y));
}

#[test]
fn dependencies_count_executing_parents() {
    let (x, a, y) = diamond();
    let roots = root_edges(std::slice::from_ref(&y)).unwrap();
    let g = discover(&roots, &Targets::AllLeaves, &Blocked::default()).unwrap();
    let ia = position(&g, &a);
    // `a` feeds exp and add(a, a) (twice): three gradients arrive.
    assert_eq!(g.states[ia].deps, 3);
    assert_eq!(g.states[position(&g, &y)].deps, 0);
    assert!(g.states.iter().all(|s| s.execute && s.reaches));
    assert_eq!(g.leaves[&leaf_id(&x)].deps, 2);
}

#[test]
fn blocked_edges_are_neither_discovered_nor_counted() {
    let (x, a, y) = diamond();
    let blocked = Blocked::new(std::slice::from_ref(&a));
    let roots = root_edges(std::slice::from_ref(&y)).unwrap();
    let g = discover(&roots, &Targets::AllLeaves, &blocked).unwrap();
    // Only sum, add(b, c), exp, add(a, a): the mul below `a` is cut off, and so is x.
    assert_eq!(g.states.len(), 4);
    assert!(g.leaves.is_empty());
    let _ = x;
    assert!(g
        .states
        .iter()
        .all(|s| !s.execute || s.node.name() != "MulBackward"));
}

#[test]
fn grad_of_an_intermediate_runs_only_what_leads_to_it() {
    let (_x, a, y) = diamond();
    let mut nodes: PtrMap<Vec<(usize, usize)>> = PtrMap::default();
    if let Edge::Node { node, input_nr } = a.gradient_edge() {
        nodes.insert(node.id(), vec![(input_nr, 0)]);
    }
    let targets = Targets::Inputs {
        nodes,
        leaves: PtrMap::default(),
        count: 1,
        accumulate: false,
    };
    let roots = root_edges(std::slice::from_ref(&y)).unwrap();
    let g = discover(&roots, &targets, &Blocked::default()).unwrap();
    let ia = position(&g, &a);
    // `a`'s node holds the wanted gradient but need not run its own backward.
    assert!(g.states[ia].reaches);
    assert!(!g.states[ia].execute);
    assert!(g.states[position(&g, &y)].execute);
}

#[test]
fn seeding_makes_the_root_ready() {
    let (_x, _a, y) = diamond();
    let roots = root_edges(std::slice::from_ref(&y)).unwrap();
    let mut g = discover(&roots, &Targets::AllLeaves, &Blocked::default()).unwrap();
    let ready = seed_roots(&mut g, &roots, vec![y.ones_like().unwrap()]).unwrap();
    assert_eq!(ready.nodes.len(), 1);
    assert!(g.index.is_empty());
    let (_, i) = *ready.nodes.peek().unwrap();
    assert!(g.states[i as usize].buffer[0].is_some());
}

#[test]
fn a_root_that_needs_no_grad_is_named() {
    let t = Tensor::from_vec(vec![1.0f64], &[1]).unwrap();
    let Err(err) = root_edges(&[t]) else {
        panic!("a root without grad was accepted")
    };
    let err = err.to_string();
    assert!(err.contains("element 0"), "{err}");
}

#[test]
fn validation_checks_count_and_sums_broadcast_gradients() {
    let x = leaf(&[1.0, 2.0, 3.0]);
    let y = x.exp().unwrap();
    let node = y.grad_fn().unwrap();
    let err = validate_outputs(&node, vec![None, None], &Blocked::default()).unwrap_err();
    assert!(
        err.to_string().contains("incorrect number of gradients"),
        "{err}"
    );
    let wide = Tensor::from_vec(vec![1.0f64; 6], &[2, 3]).unwrap();
    let out = validate_outputs(&node, vec![Some(wide)], &Blocked::default()).unwrap();
    let g = out[0].as_ref().unwrap();
    assert_eq!(g.shape(), &[3]);
    assert_eq!(g.to_vec::<f64>().unwrap(), vec![2.0, 2.0, 2.0]);
    let bad = Tensor::from_vec(vec![1.0f64; 2], &[2]).unwrap();
    let err = validate_outputs(&node, vec![Some(bad)], &Blocked::default()).unwrap_err();
    assert!(
        err.to_string().contains("invalid gradient at index 0"),
        "{err}"
    );
}

/// `y = f(a, b)` with a formula that records the `needs` mask it is called with.
fn recording_node(
    a: &Tensor,
    b: &Tensor,
) -> (Tensor, std::sync::Arc<parking_lot::Mutex<Vec<Vec<bool>>>>) {
    let seen = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
    let out = a.detach().mul(&b.detach()).unwrap();
    let rec = crate::autograd::Recorder::begin(&[a, b]).unwrap();
    let log = seen.clone();
    rec.finish("RecordingBackward", &out, move |g, _, needs| {
        log.lock().push(needs.to_vec());
        Ok(smallvec::smallvec![
            needs[0].then(|| g.clone()),
            needs[1].then(|| g.clone())
        ])
    })
    .unwrap();
    (out, seen)
}

#[test]
fn a_pass_asks_only_for_the_gradients_it_wants() {
    let (a, b) = (leaf(&[1.0, 2.0]), leaf(&[3.0, 4.0]));
    let (y, seen) = recording_node(&a, &b);
    let y = y.sum(None, false).unwrap();
    let opts = BackwardOptions {
        retain_graph: true,
        create_graph: false,
    };
    let one = || vec![Tensor::scalar(1.0f64)];
    // grad(y, a): b's gradient reaches nothing the pass wants
    let ga = grad(
        std::slice::from_ref(&y),
        one(),
        std::slice::from_ref(&a),
        opts,
    )
    .unwrap();
    assert_eq!(
        ga[0].as_ref().unwrap().to_vec::<f64>().unwrap(),
        vec![1.0, 1.0]
    );
    let gb = grad(
        std::slice::from_ref(&y),
        one(),
        std::slice::from_ref(&b),
        opts,
    )
    .unwrap();
    assert!(gb[0].is_some());
    // a full backward wants both; a blocked input is not wanted either
    backward(std::slice::from_ref(&y), one(), opts).unwrap();
    grad_blocking(
        std::slice::from_ref(&y),
        one(),
        &[a.clone(), b.clone()],
        std::slice::from_ref(&b),
        opts,
    )
    .unwrap();
    assert_eq!(
        *seen.lock(),
        vec![
            vec![true, false],
            vec![false, true],
            vec![true, true],
            vec![true, false]
        ]
    );
    assert!(b.grad().is_some() && a.grad().is_some());
}

/// Whether the thread holds the emptied containers of a finished pass.
fn kept() -> bool {
    KEPT.with(|k| {
        let g = k.take();
        let some = g.as_ref().is_some_and(|g| {
            g.states.is_empty() && g.index.is_empty() && g.leaves.is_empty() && g.post.is_empty()
        });
        k.set(g);
        some
    })
}

fn chain(n: usize) -> (Tensor, Tensor) {
    let x = leaf(&[1.0, 2.0]);
    let mut y = x.clone();
    for _ in 0..n {
        y = y.add(&x).unwrap();
    }
    (x, y.sum(None, false).unwrap())
}

#[test]
fn a_small_pass_leaves_its_emptied_containers_to_the_next_and_a_big_one_does_not() {
    let opts = BackwardOptions::default();
    let (x, y) = chain(3);
    backward(std::slice::from_ref(&y), vec![y.ones_like().unwrap()], opts).unwrap();
    assert!(kept(), "a small pass kept nothing");
    // the next pass runs on the kept containers
    let (x2, y2) = chain(3);
    backward(
        std::slice::from_ref(&y2),
        vec![y2.ones_like().unwrap()],
        opts,
    )
    .unwrap();
    let g = |t: &Tensor| t.grad().unwrap().to_vec::<f64>().unwrap();
    assert_eq!(g(&x), vec![4.0, 4.0]);
    assert_eq!(g(&x2), vec![4.0, 4.0]);
    let (_x3, y3) = chain(2 * KEEP_CAPACITY);
    backward(
        std::slice::from_ref(&y3),
        vec![y3.ones_like().unwrap()],
        opts,
    )
    .unwrap();
    assert!(!kept(), "a big pass kept its containers");
    // new containers start with room for the last pass's nodes (no growth on the next)
    let (nodes, leaves) = LAST_SIZE.with(std::cell::Cell::get);
    assert_eq!((nodes, leaves), (2 * KEEP_CAPACITY + 1, 1));
    let task = GraphTask::take();
    assert!(task.states.capacity() >= nodes && task.post.capacity() >= nodes);
    assert!(task.index.capacity() >= nodes && task.leaves.capacity() >= leaves);
    drop(task);
    // the next small pass runs in new containers of that room (too big to keep); the one
    // after it in small ones again, which it keeps
    for kept_after in [false, true] {
        let (x4, y4) = chain(1);
        backward(
            std::slice::from_ref(&y4),
            vec![y4.ones_like().unwrap()],
            opts,
        )
        .unwrap();
        assert_eq!(g(&x4), vec![2.0, 2.0]);
        assert_eq!(kept(), kept_after);
    }
}
