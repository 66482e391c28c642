//! A backward pass's containers (node states, id index, leaves, post-order, discovery
//! stack, ready queue): a small pass leaves them, emptied, to the thread's next pass; new
//! ones start with room for the thread's last pass (see [`GraphTask::take`]).

use super::{GraphTask, Ready, SMALL_GRAPH};
use crate::autograd::pass_targets::PtrMap;
use std::cell::Cell;

/// Passes of up to this many nodes and leaves leave their (emptied) containers to the
/// thread's next pass; bigger ones free them (clearing a hash map costs its capacity).
pub(super) const KEEP_CAPACITY: usize = 64;

/// The most nodes (and leaves) new containers make room for from the last pass's size
/// (a map's room is initialised when made: 64k entries cost a few microseconds).
const MAX_ROOM: usize = 1 << 16;

thread_local! {
    /// The emptied containers of the thread's last small pass (see [`GraphTask::keep`]).
    pub(super) static KEPT: Cell<Option<Box<GraphTask>>> = const { Cell::new(None) };
    /// How many nodes and leaves the thread's last pass had (see [`GraphTask::take`]).
    pub(super) static LAST_SIZE: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

impl GraphTask {
    /// The thread's kept containers (empty), or new ones. A small pass otherwise
    /// allocates and frees seven vectors and maps (~1k instructions of the ~33k of a
    /// one-element `(a*b + a).sum().backward()` step). A pass nested in another (a custom
    /// backward calling `backward`) finds none kept and makes its own.
    ///
    /// New containers start with room for as many nodes and leaves as the thread's last
    /// pass had (`LAST_SIZE`): a training loop runs the same graph every step, and a
    /// 10k-node pass otherwise copied its vectors and rehashed its index some fourteen
    /// times as they grew (~0.2k instructions per node). (A small pass right after a big
    /// one therefore gets the big one's room, once, and does not keep it.)
    pub(super) fn take() -> Box<GraphTask> {
        if let Some(g) = KEPT.try_with(|k| k.take()).ok().flatten() {
            return g;
        }
        let (nodes, leaves) = LAST_SIZE.try_with(Cell::get).unwrap_or((0, 0));
        // (capped: a small pass after a huge one must not pay for the huge one's index)
        let (nodes, leaves) = (nodes.clamp(SMALL_GRAPH, MAX_ROOM), leaves.min(MAX_ROOM));
        Box::new(GraphTask {
            states: with_room(nodes),
            index: map_with_room(nodes),
            leaves: map_with_room(leaves),
            post: with_room(nodes),
            stack: with_room(nodes),
            spare_ready: None,
        })
    }

    /// Ends the pass: drops what it holds (node states, buffers, leaves: when the pass
    /// ends, as before) and keeps the emptied containers for the thread's next pass when
    /// they are small.
    pub(super) fn keep(mut self: Box<GraphTask>, mut ready: Ready) {
        // (capacities do not change when emptied: a big pass's containers are dropped
        // with what they hold, without clearing them first)
        let small = [
            self.states.capacity(),
            self.index.capacity(),
            self.leaves.capacity(),
            ready.nodes.capacity(),
        ]
        .iter()
        .all(|&c| c <= KEEP_CAPACITY);
        if !small {
            return;
        }
        self.states.clear();
        self.index.clear();
        self.leaves.clear();
        self.post.clear();
        self.stack.clear();
        ready.nodes.clear();
        ready.leaves.clear();
        self.spare_ready = Some(ready);
        // (a thread that is exiting drops them instead)
        let _ = KEPT.try_with(|k| k.set(Some(self)));
    }
}

/// A vector with room for `n` items, or for a few if that much memory is not there (the
/// room is only a guess from the last pass).
fn with_room<T>(n: usize) -> Vec<T> {
    let mut v = Vec::new();
    if v.try_reserve_exact(n).is_err() {
        v.reserve(SMALL_GRAPH);
    }
    v
}

/// [`with_room`] for a map.
fn map_with_room<V>(n: usize) -> PtrMap<V> {
    let mut m = PtrMap::default();
    if n > 0 && m.try_reserve(n).is_err() {
        m = PtrMap::default();
    }
    m
}
