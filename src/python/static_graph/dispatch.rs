//! `OpFunction`: a module function (`ferrograd.tanh`, `ferrograd.add`, `F.relu`, ...) that
//! runs its eager implementation on tensors and hands any other call to the argument type
//! that claims it through the `__ferrograd_function__` protocol (static `Variable`s
//! record the op into their program).
//!
//! Why this design: the module functions used to be the `Tensor` method descriptors
//! themselves, and `enable_static()` swapped them for recording wrappers with `setattr`
//! on the package. Dispatching on the argument type instead leaves the namespace alone.
//! The check sits in front of the same method: when the first argument is a `Tensor`
//! (the eager case) the call goes straight to the method with the caller's own argument
//! tuple. Only when it is not does the function look, in the arguments (and the items of a
//! list/tuple first argument, for `concat`/`stack`), for an object whose type defines
//! `__ferrograd_function__(name, args, kwargs)`, and returns what that returns; with no
//! such argument the eager implementation runs, so errors stay the eager ones.
//!
//! Why raw CPython calls rather than a `#[pyclass]` with `__call__`: the eager path must
//! cost nothing measurable next to a ~1 µs op, and a `#[pymethods] __call__` (PyO3's
//! argument parsing and trampoline, then a second call) measured 120–200 ns more than the
//! bare method. This type's `tp_call` is a plain C function doing one type check and
//! `PyObject_Call`; only the slow path (no tensor first) enters PyO3, inside
//! `catch_unwind`. Everything used is in the stable ABI of Python 3.9.

use crate::python::tensor::class::PyTensor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::PyTypeInfo;
use std::ffi::{c_int, c_void};
use std::mem::offset_of;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The instance layout: the object header and three owned references.
#[repr(C)]
struct RawOpFunction {
    ob_base: ffi::PyObject,
    /// The eager implementation (a `Tensor` method descriptor or a function).
    target: *mut ffi::PyObject,
    /// The op's name, as handlers receive it (also `__name__`/`__qualname__`).
    name: *mut ffi::PyObject,
    /// `__doc__` (the eager implementation's).
    doc: *mut ffi::PyObject,
}

/// `ferrograd.Tensor`'s type object (set once, by [`register`]).
static TENSOR_TYPE: AtomicPtr<ffi::PyTypeObject> = AtomicPtr::new(null_mut());
/// The `OpFunction` type object (set once, by [`register`]).
static OP_FUNCTION_TYPE: AtomicPtr<ffi::PyTypeObject> = AtomicPtr::new(null_mut());

/// `tp_call`: the eager fast path, else [`slow_call`]; with a profiler on, the call is
/// one `aten::<name>` event.
unsafe extern "C" fn op_call(
    slf: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let this = slf as *mut RawOpFunction;
    if (*this).target.is_null() || (*this).name.is_null() {
        return uninitialised();
    }
    if crate::profiler::is_on() {
        let _profiled = profiled(this, args);
        return op_call_body(this, args, kwargs);
    }
    op_call_body(this, args, kwargs)
}

/// The profiler's event of a call: the function's name, its tensor arguments' shapes
/// (`[]` for any other argument).
#[cold]
unsafe fn profiled(
    this: *mut RawOpFunction,
    args: *mut ffi::PyObject,
) -> Option<crate::profiler::Scope> {
    let py = Python::assume_attached();
    let name = Bound::from_borrowed_ptr(py, (*this).name);
    let args = Bound::from_borrowed_ptr(py, args);
    crate::profiler::named(
        crate::profiler::Kind::Op,
        || name.extract::<String>().unwrap_or_default().into(),
        || {
            let Ok(args) = args.cast::<PyTuple>() else {
                return Vec::new();
            };
            args.iter()
                .map(|a| {
                    a.cast::<PyTensor>()
                        .map_or(Vec::new(), |t| t.get().inner().shape().to_vec())
                })
                .collect()
        },
    )
}

/// [`op_call`]'s work.
#[inline(always)]
unsafe fn op_call_body(
    this: *mut RawOpFunction,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let slf = this as *mut ffi::PyObject;
    // PyTorch's `out=`: looked up only when keywords are passed
    if !kwargs.is_null() && ffi::PyDict_Size(kwargs) > 0 {
        let py = Python::assume_attached();
        let key = pyo3::intern!(py, "out");
        let out = ffi::PyDict_GetItemWithError(kwargs, key.as_ptr());
        if !out.is_null() {
            return guarded(py, || out_call(py, slf, args, kwargs));
        }
        if !ffi::PyErr_Occurred().is_null() {
            return null_mut();
        }
    }
    if ffi::PyTuple_Size(args) > 0 {
        let tp = ffi::Py_TYPE(ffi::PyTuple_GetItem(args, 0));
        let tensor = TENSOR_TYPE.load(Ordering::Relaxed);
        if tp == tensor || ffi::PyType_IsSubtype(tp, tensor) != 0 {
            return ffi::PyObject_Call((*this).target, args, kwargs);
        }
    }
    slow_call(this, args, kwargs)
}

/// Runs `run` with its error restored and panics caught, so none crosses into Python.
unsafe fn guarded<'py>(
    py: Python<'py>,
    run: impl FnOnce() -> PyResult<Bound<'py, PyAny>>,
) -> *mut ffi::PyObject {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(out)) => out.into_ptr(),
        Ok(Err(e)) => {
            e.restore(py);
            null_mut()
        }
        Err(_) => {
            PyRuntimeError::new_err("internal error (a panic) while dispatching a call")
                .restore(py);
            null_mut()
        }
    }
}

/// A call with `out=`: this function called without it, the result written into `out`
/// by `ferrograd._out_arg.call_with_out` (PyTorch's rules; `out=None` is no `out`).
unsafe fn out_call<'py>(
    py: Python<'py>,
    slf: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> PyResult<Bound<'py, PyAny>> {
    let this = slf as *mut RawOpFunction;
    let function = Bound::from_borrowed_ptr(py, slf);
    let args = Bound::from_borrowed_ptr(py, args).cast_into_unchecked::<PyTuple>();
    let kwargs = Bound::from_borrowed_ptr(py, kwargs)
        .cast_into_unchecked::<PyDict>()
        .copy()?;
    let key = pyo3::intern!(py, "out");
    let out = kwargs.get_item(key)?;
    kwargs.del_item(key)?;
    match out {
        Some(out) if !out.is_none() => {
            let name = Bound::from_borrowed_ptr(py, (*this).name);
            py.import(pyo3::intern!(py, "ferrograd._out_arg"))?
                .getattr(pyo3::intern!(py, "call_with_out"))?
                .call1((function, name, args, kwargs, out))
        }
        _ => function.call(args, Some(&kwargs)),
    }
}

/// The call without a tensor first: a handler's, or the eager implementation's (for its
/// error). Runs in PyO3 with panics caught, so none crosses into Python.
unsafe fn slow_call(
    this: *mut RawOpFunction,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let py = Python::assume_attached();
    let run = || -> PyResult<Bound<'_, PyAny>> {
        let target = Bound::from_borrowed_ptr(py, (*this).target);
        let name = Bound::from_borrowed_ptr(py, (*this).name);
        let args = Bound::from_borrowed_ptr(py, args).cast_into_unchecked::<PyTuple>();
        let kwargs = (!kwargs.is_null())
            .then(|| Bound::from_borrowed_ptr(py, kwargs).cast_into_unchecked::<PyDict>());
        match find_handler(&args, kwargs.as_ref())? {
            Some(handler) => {
                let kw = kwargs.unwrap_or_else(|| PyDict::new(py));
                handler.call1((name, args, kw))
            }
            None => match scalar_first(&target, &name, &args, kwargs.as_ref())? {
                Some(out) => Ok(out),
                None => match keyword_self(&target, &args, kwargs.as_ref())? {
                    Some((args, kw)) => target.call(args, Some(&kw)),
                    None => target.call(args, kwargs.as_ref()),
                },
            },
        }
    };
    guarded(py, run)
}

/// The peers' keyword for the tensor operand of a method-backed op: Paddle's `x`
/// (`paddle.mean(x=t)`, `paddle.add(x=a, y=b)`), `arr` (`take_along_axis`) and torch's
/// `input` (`torch.sum(input=t)`). With no positional argument, a `Tensor` under the
/// first of these keywords becomes the method's `self`, the other keywords kept; `None`
/// for any other call (a method descriptor called without `self` could only fail).
fn keyword_self<'py>(
    target: &Bound<'py, PyAny>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Option<(Bound<'py, PyTuple>, Bound<'py, PyDict>)>> {
    let Some(kwargs) = kwargs else {
        return Ok(None);
    };
    if !args.is_empty() || target.get_type().name()? != "method_descriptor" {
        return Ok(None);
    }
    for key in ["x", "input", "arr"] {
        if let Some(value) = kwargs.get_item(key)? {
            if !value.is_instance_of::<PyTensor>() {
                return Ok(None);
            }
            let rest = kwargs.copy()?;
            rest.del_item(key)?;
            return Ok(Some((PyTuple::new(args.py(), [value])?, rest)));
        }
    }
    Ok(None)
}

/// The reflected `Tensor` operator of a binary op that PyTorch also accepts with a
/// Python number first (`torch.pow(2, x)`, `torch.sub(1, x)`); Paddle accepts none.
fn reflected_method(name: &str) -> Option<&'static str> {
    Some(match name {
        "add" => "__radd__",
        "sub" | "subtract" => "__rsub__",
        "mul" | "multiply" => "__rmul__",
        "div" | "divide" | "true_divide" => "__rtruediv__",
        "floor_divide" => "__rfloordiv__",
        "remainder" | "mod" => "__rmod__",
        "pow" => "__rpow__",
        _ => return None,
    })
}

/// `op(number, tensor)`: the reflected operator where the op accepts a number first,
/// else, for an op whose eager `target` is a `Tensor` method, a TypeError naming the
/// argument (the method's own error would talk about a descriptor). `None` for any other
/// call, so a function such as `rand(2, tensor(3))` runs as given.
fn scalar_first<'py>(
    target: &Bound<'py, PyAny>,
    name: &Bound<'py, PyAny>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    if args.len() != 2 || kwargs.is_some_and(|k| !k.is_empty()) {
        return Ok(None);
    }
    let (first, second) = (args.get_item(0)?, args.get_item(1)?);
    let number = first.is_instance_of::<pyo3::types::PyInt>()
        || first.is_instance_of::<pyo3::types::PyFloat>()
        || first.is_instance_of::<pyo3::types::PyComplex>();
    if !number || !second.is_instance_of::<PyTensor>() {
        return Ok(None);
    }
    let op: String = name.extract()?;
    match reflected_method(&op) {
        Some(m) => Ok(Some(second.call_method1(m, (first,))?)),
        None if target.get_type().name()? != "method_descriptor" => Ok(None),
        None => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{op}(): the first argument must be a Tensor, not {}; pass the number second \
             or make it a tensor first (ferrograd.full_like(x, value))",
            first.get_type().name()?
        ))),
    }
}

/// The `__ferrograd_function__` of `obj`'s type, if it defines one. Only heap types
/// (classes defined in Python or extension classes) are asked: builtins such as lists,
/// numbers and NumPy arrays never define it, and skipping them keeps eager `concat`
/// of a list cheap.
fn handler_of<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if obj.is_instance_of::<PyTensor>() || obj.is_none() {
        return Ok(None);
    }
    let ty = obj.get_type();
    // SAFETY: a type object pointer from a live object.
    let flags = unsafe { ffi::PyType_GetFlags(ty.as_ptr() as *mut ffi::PyTypeObject) };
    if flags & ffi::Py_TPFLAGS_HEAPTYPE == 0 {
        return Ok(None);
    }
    ty.getattr_opt(pyo3::intern!(obj.py(), "__ferrograd_function__"))
}

/// The first handler among the arguments, the items of a list/tuple first argument, and
/// the keyword values.
fn find_handler<'py>(
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    for (i, a) in args.iter().enumerate() {
        if let Some(h) = handler_of(&a)? {
            return Ok(Some(h));
        }
        if i == 0 {
            let items = if let Ok(l) = a.cast::<PyList>() {
                Some(l.to_tuple())
            } else {
                a.cast::<PyTuple>().ok().cloned()
            };
            for item in items.iter().flat_map(|t| t.iter()) {
                if let Some(h) = handler_of(&item)? {
                    return Ok(Some(h));
                }
            }
        }
    }
    if let Some(kw) = kwargs {
        for (_, v) in kw.iter() {
            if let Some(h) = handler_of(&v)? {
                return Ok(Some(h));
            }
        }
    }
    Ok(None)
}

/// `tp_dealloc`: drops the three references, frees the object, releases its type.
unsafe extern "C" fn op_dealloc(slf: *mut ffi::PyObject) {
    let this = slf as *mut RawOpFunction;
    ffi::Py_XDECREF((*this).target);
    ffi::Py_XDECREF((*this).name);
    ffi::Py_XDECREF((*this).doc);
    let tp = ffi::Py_TYPE(slf);
    let free = ffi::PyType_GetSlot(tp, ffi::Py_tp_free);
    if !free.is_null() {
        let free: ffi::freefunc = std::mem::transmute(free);
        free(slf as *mut c_void);
    }
    ffi::Py_DECREF(tp as *mut ffi::PyObject);
}

/// `tp_repr`: `<ferrograd function NAME>`.
unsafe extern "C" fn op_repr(slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    let this = slf as *mut RawOpFunction;
    if (*this).name.is_null() {
        return uninitialised();
    }
    ffi::PyUnicode_FromFormat(c"<ferrograd function %U>".as_ptr(), (*this).name)
}

/// Sets the TypeError of an object not made by `_op_function` (never the case through
/// the public API, since `tp_new` refuses) and returns NULL.
unsafe fn uninitialised() -> *mut ffi::PyObject {
    ffi::PyErr_SetString(
        ffi::PyExc_TypeError,
        c"this OpFunction was not made by ferrograd._core._op_function".as_ptr(),
    );
    null_mut()
}

/// `tp_new`: refuses; instances come from `_op_function` (which fills the fields).
unsafe extern "C" fn op_new(
    _tp: *mut ffi::PyTypeObject,
    _args: *mut ffi::PyObject,
    _kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    ffi::PyErr_SetString(
        ffi::PyExc_TypeError,
        c"cannot create 'OpFunction' instances directly; use ferrograd._core._op_function(target, name, doc)"
            .as_ptr(),
    );
    null_mut()
}

fn member(name: &'static std::ffi::CStr, offset: usize) -> ffi::PyMemberDef {
    ffi::PyMemberDef {
        name: name.as_ptr(),
        type_code: ffi::Py_T_OBJECT_EX,
        offset: offset as ffi::Py_ssize_t,
        flags: ffi::Py_READONLY,
        doc: std::ptr::null(),
    }
}

/// Creates the `OpFunction` type and adds it (and its constructor `_op_function`) to the
/// module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    TENSOR_TYPE.store(PyTensor::type_object_raw(py), Ordering::Relaxed);
    // CPython keeps pointers to the member table: it lives as long as the process.
    let members: &'static mut [ffi::PyMemberDef] = Box::leak(Box::new([
        member(c"__wrapped__", offset_of!(RawOpFunction, target)),
        member(c"__name__", offset_of!(RawOpFunction, name)),
        member(c"__qualname__", offset_of!(RawOpFunction, name)),
        member(c"__doc__", offset_of!(RawOpFunction, doc)),
        ffi::PyMemberDef::default(),
    ]));
    let slots: &'static mut [ffi::PyType_Slot] = Box::leak(Box::new([
        ffi::PyType_Slot {
            slot: ffi::Py_tp_call,
            pfunc: op_call as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_dealloc,
            pfunc: op_dealloc as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_repr,
            pfunc: op_repr as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_new,
            pfunc: op_new as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_members,
            pfunc: members.as_mut_ptr() as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: 0,
            pfunc: null_mut(),
        },
    ]));
    let spec: &'static mut ffi::PyType_Spec = Box::leak(Box::new(ffi::PyType_Spec {
        name: c"ferrograd._core.OpFunction".as_ptr(),
        basicsize: std::mem::size_of::<RawOpFunction>() as c_int,
        itemsize: 0,
        flags: ffi::Py_TPFLAGS_DEFAULT as std::ffi::c_uint,
        slots: slots.as_mut_ptr(),
    }));
    // SAFETY: a valid spec with 'static tables; the result is a new reference or NULL.
    let tp = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyType_FromSpec(spec))? };
    OP_FUNCTION_TYPE.store(tp.as_ptr() as *mut ffi::PyTypeObject, Ordering::Relaxed);
    m.add("OpFunction", tp.clone())?;
    // (the module keeps the type alive, so the stored pointer stays valid)
    m.add_function(wrap_pyfunction!(_op_function, m)?)?;
    Ok(())
}

/// `_op_function(target, name, doc)`: a new `OpFunction` running ``target`` on tensors and
/// handing other calls to ``__ferrograd_function__(name, args, kwargs)``.
#[pyfunction]
pub fn _op_function<'py>(
    target: Bound<'py, PyAny>,
    name: Bound<'py, PyString>,
    doc: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = target.py();
    if !target.is_callable() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "_op_function: the target must be callable, got {}",
            target.get_type().name()?
        )));
    }
    let tp = OP_FUNCTION_TYPE.load(Ordering::Relaxed);
    if tp.is_null() {
        return Err(PyRuntimeError::new_err("OpFunction is not registered"));
    }
    // SAFETY: `tp` is the live OpFunction heap type; tp_alloc zero-fills the object (and
    // takes a reference to the type), and each field then owns one reference.
    unsafe {
        let alloc = ffi::PyType_GetSlot(tp, ffi::Py_tp_alloc);
        let alloc: ffi::allocfunc = if alloc.is_null() {
            ffi::PyType_GenericAlloc
        } else {
            std::mem::transmute::<*mut c_void, ffi::allocfunc>(alloc)
        };
        let obj = alloc(tp, 0);
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        let this = obj as *mut RawOpFunction;
        (*this).target = target.into_ptr();
        (*this).name = name.into_any().into_ptr();
        (*this).doc = doc.into_ptr();
        Ok(Bound::from_owned_ptr(py, obj))
    }
}
