//! The op profiler's observer (`torch.profiler` / `paddle.profiler` read it): while a
//! session is on, each observed op records its name, thread, start and duration (and,
//! if asked, its inputs' shapes) into its thread's buffer, which
//! [`stop`] drains.
//!
//! Off by default, and then an observed op costs one relaxed atomic load ([`op`],
//! [`backward`] and [`named`] are `#[inline]` and test [`SESSION`] first; everything
//! else is out of line). The observed points: the Python-facing op calls (module
//! functions through `OpFunction`, binary operators and methods, reductions), the core's
//! differentiable unary, binary, matmul and shape-table ops (so the ops inside a backward
//! formula show too), and each node the autograd engine runs.
//!
//! An op observed inside an op of the same kind and name (the module function `add`
//! running the method `add` running the core's `add`) is one event, not three.

use crate::tensor::Tensor;
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// The running session: its id times 2, plus 1 if it records input shapes; 0 when no
/// session is on (one word, so that starting one sets both at once).
static SESSION: AtomicU64 = AtomicU64::new(0);
/// The id the next session gets.
static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);
/// Every thread's buffer (a thread's entry outlives the thread until drained).
static BUFFERS: Mutex<Vec<Buffer>> = Mutex::new(Vec::new());

type Buffer = Arc<Mutex<Vec<Event>>>;

/// What an event is; it decides the name's prefix in [`Event::full_name`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An op (`aten::<name>`, as PyTorch names its operators).
    Op,
    /// A node of a backward pass (`autograd::engine::evaluate_function: <name>`).
    Backward,
    /// A user range (`record_function`, `RecordEvent`): the name as given.
    Range,
}

/// One recorded event.
#[derive(Clone, Debug)]
pub struct Event {
    session: u64,
    /// What it is.
    pub kind: Kind,
    /// Its name, without the kind's prefix.
    pub name: Cow<'static, str>,
    /// The recording thread (the OS thread id on Linux).
    pub tid: u64,
    /// Start, in ns since the profiler's clock began ([`now_ns`]).
    pub start_ns: u64,
    /// Duration in ns.
    pub dur_ns: u64,
    /// The inputs' shapes, when the session records them.
    pub shapes: Option<Vec<Vec<usize>>>,
}

impl Event {
    /// The name as the profiler shows it: `aten::add`,
    /// `autograd::engine::evaluate_function: MulBackward0`, or a range's own name.
    pub fn full_name(&self) -> String {
        match self.kind {
            Kind::Op => format!("aten::{}", self.name),
            Kind::Backward => format!("autograd::engine::evaluate_function: {}", self.name),
            Kind::Range => self.name.to_string(),
        }
    }
}

/// A thread's state: its id, buffer and the stack of open events.
struct Local {
    tid: u64,
    buffer: Buffer,
    open: Vec<(Kind, Cow<'static, str>)>,
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

/// Nanoseconds since the profiler's clock began (the first call).
pub fn now_ns() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Whether a session is on.
#[inline]
pub fn is_on() -> bool {
    SESSION.load(Ordering::Relaxed) != 0
}

/// Whether the running session records input shapes.
pub fn records_shapes() -> bool {
    SESSION.load(Ordering::Relaxed) & 1 == 1
}

fn thread_id() -> u64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid has no preconditions
        (unsafe { libc::gettid() }) as u64
    }
    #[cfg(not(target_os = "linux"))]
    {
        static NEXT_TID: AtomicU64 = AtomicU64::new(1);
        NEXT_TID.fetch_add(1, Ordering::Relaxed)
    }
}

/// Runs `f` on this thread's state, made (and its buffer registered) on first use.
fn with_local<R>(f: impl FnOnce(&mut Local) -> R) -> Option<R> {
    LOCAL
        .try_with(|cell| {
            let mut slot = cell.try_borrow_mut().ok()?;
            let local = slot.get_or_insert_with(|| {
                let buffer: Buffer = Arc::default();
                BUFFERS
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(buffer.clone());
                Local {
                    tid: thread_id(),
                    buffer,
                    open: Vec::new(),
                }
            });
            Some(f(local))
        })
        .ok()
        .flatten()
}

/// An open event: recorded when dropped (if its session is still on). One pointer, so
/// that dropping the `None` of an op run with no session on is one test.
#[must_use = "the event is recorded when the scope is dropped"]
pub struct Scope(Box<Open>);

/// What an open event knows.
struct Open {
    session: u64,
    kind: Kind,
    name: Cow<'static, str>,
    tid: u64,
    depth: usize,
    start_ns: u64,
    shapes: Option<Vec<Vec<usize>>>,
}

/// Opens an op event named `name()` over `inputs`; `None` when no session is on (one
/// relaxed load) or when the innermost open event is this same op.
#[inline]
pub fn op(name: impl FnOnce() -> &'static str, inputs: &[&Tensor]) -> Option<Scope> {
    if SESSION.load(Ordering::Relaxed) == 0 {
        return None;
    }
    op_slow(name(), inputs)
}

#[cold]
#[inline(never)]
fn op_slow(name: &'static str, inputs: &[&Tensor]) -> Option<Scope> {
    begin(Kind::Op, Cow::Borrowed(name), || {
        inputs.iter().map(|t| t.shape().to_vec()).collect()
    })
}

/// Opens the event of a backward node (its name from `name`, called only when a session
/// is on).
#[inline]
pub fn backward(name: impl FnOnce() -> Cow<'static, str>) -> Option<Scope> {
    if SESSION.load(Ordering::Relaxed) == 0 {
        return None;
    }
    begin(Kind::Backward, name(), Vec::new)
}

/// Opens an event of `kind` named by `name` with input shapes from `shapes` (called only
/// when the session records shapes); `None` when no session is on.
#[inline]
pub fn named(
    kind: Kind,
    name: impl FnOnce() -> Cow<'static, str>,
    shapes: impl FnOnce() -> Vec<Vec<usize>>,
) -> Option<Scope> {
    if SESSION.load(Ordering::Relaxed) == 0 {
        return None;
    }
    begin(kind, name(), shapes)
}

/// PyTorch's operator name for the ops whose first spelling is Paddle's (`multiply` is
/// `aten::mul`), so that `fg.mul`, `fg.multiply` and `*` are one op.
fn aten_alias(name: &str) -> Option<&'static str> {
    Some(match name {
        "subtract" => "sub",
        "multiply" => "mul",
        "divide" | "true_divide" => "div",
        "equal" => "eq",
        "not_equal" => "ne",
        "less_than" => "lt",
        "less_equal" => "le",
        "greater_than" => "gt",
        "greater_equal" => "ge",
        "arctan2" => "atan2",
        _ => return None,
    })
}

#[cold]
#[inline(never)]
fn begin(
    kind: Kind,
    name: Cow<'static, str>,
    shapes: impl FnOnce() -> Vec<Vec<usize>>,
) -> Option<Scope> {
    let session = SESSION.load(Ordering::Relaxed);
    if session == 0 {
        return None;
    }
    let name = match aten_alias(&name).filter(|_| kind == Kind::Op) {
        Some(alias) => Cow::Borrowed(alias),
        None => name,
    };
    let (tid, depth) = with_local(|l| {
        // (`add` calling `add`: one event; ranges always nest)
        if kind != Kind::Range && l.open.last().is_some_and(|(k, n)| *k == kind && *n == name) {
            return None;
        }
        l.open.push((kind, name.clone()));
        Some((l.tid, l.open.len() - 1))
    })??;
    let shapes = (kind == Kind::Op && records_shapes()).then(shapes);
    Some(Scope(Box::new(Open {
        session,
        kind,
        name,
        tid,
        depth,
        start_ns: now_ns(),
        shapes,
    })))
}

impl Drop for Scope {
    #[inline]
    fn drop(&mut self) {
        self.0.close();
    }
}

impl Open {
    /// Records the event (the work of [`Scope`]'s drop).
    #[cold]
    #[inline(never)]
    fn close(&mut self) {
        let end = now_ns();
        let event = Event {
            session: self.session,
            kind: self.kind,
            name: std::mem::take(&mut self.name),
            tid: self.tid,
            start_ns: self.start_ns,
            dur_ns: end.saturating_sub(self.start_ns),
            shapes: self.shapes.take(),
        };
        let session = self.session;
        let (tid, depth) = (self.tid, self.depth);
        with_local(|l| {
            // (a range ended on another thread leaves this thread's stack alone; one
            // ended out of order closes the ones opened after it)
            if l.tid == tid {
                l.open.truncate(depth);
            }
            if SESSION.load(Ordering::Relaxed) == session {
                l.buffer
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(event);
            }
        });
    }
}

/// Error of [`start`] while a session is on.
#[derive(Debug)]
pub struct AlreadyOn;

/// Starts a session (recording input shapes if `record_shapes`), dropping what an earlier
/// one left in the buffers. Fails while a session is on.
pub fn start(record_shapes: bool) -> Result<(), AlreadyOn> {
    let session = NEXT_SESSION.fetch_add(1, Ordering::Relaxed) * 2 + u64::from(record_shapes);
    now_ns(); // (the clock starts before the first event)
    SESSION
        .compare_exchange(0, session, Ordering::SeqCst, Ordering::SeqCst)
        .map_err(|_| AlreadyOn)?;
    // (what an op of an earlier session pushed after it stopped)
    for b in BUFFERS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        b.lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|e| e.session == session);
    }
    Ok(())
}

/// Ends the session and returns its events, each thread's in the order they ended
/// (empty when no session was on). Buffers of threads that have exited are dropped.
pub fn stop() -> Vec<Event> {
    let session = SESSION.swap(0, Ordering::SeqCst);
    let mut out = Vec::new();
    let mut buffers = BUFFERS.lock().unwrap_or_else(|e| e.into_inner());
    for b in buffers.iter() {
        let mut events = b.lock().unwrap_or_else(|e| e.into_inner());
        out.extend(
            events
                .drain(..)
                .filter(|e| e.session == session && session != 0),
        );
    }
    // (only this list holds the buffer of a thread that has exited)
    buffers.retain(|b| Arc::strong_count(b) > 1);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiler_records_nested_and_merges_same_name() {
        start(true).unwrap();
        let a = Tensor::scalar(1.0f64);
        {
            let _outer = op(|| "add", &[&a]);
            let _same = op(|| "add", &[&a]);
            assert!(_same.is_none());
            let _inner = op(|| "mul", &[&a, &a]);
        }
        let me = thread_id();
        let ev: Vec<Event> = stop().into_iter().filter(|e| e.tid == me).collect();
        assert!(op(|| "add", &[&a]).is_none());
        let names: Vec<String> = ev.iter().map(Event::full_name).collect();
        assert_eq!(names, ["aten::mul", "aten::add"]);
        assert_eq!(ev[0].shapes.as_ref().unwrap().len(), 2);
        assert!(ev[1].start_ns <= ev[0].start_ns);
    }
}
