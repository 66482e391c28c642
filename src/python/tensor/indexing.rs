//! `__getitem__` / `__setitem__`, and gather/scatter-style and joining ops.
//!
//! Where Paddle and PyTorch give one name two meanings, the call is resolved by the
//! keywords and argument types used: `gather(x, index, axis)` (Paddle: rows by index)
//! vs `gather(x, dim, index)` (torch: elementwise along dim); `split(x, 3)` as a module
//! function means 3 sections (Paddle), `x.split(3)` as a method means chunks of size 3
//! (torch), and the keywords `num_or_sections=` / `split_size_or_sections=` decide either.

use crate::autograd::ops::index::IndexItem;
use crate::dtype::{DType, ZeroDimRule};
use crate::kernels::index::NegIndex;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::{operand, to_tensor};
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::index_key::parse_key;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

type PyT = PyResult<Py<PyTensor>>;

fn tensor_seq(obj: &Bound<'_, PyAny>, op: &str) -> PyResult<Vec<Tensor>> {
    let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
    let like = items
        .iter()
        .find_map(|x| x.cast::<PyTensor>().ok().map(|t| t.get().inner().dtype()))
        .unwrap_or(crate::dtype::default_float());
    items
        .iter()
        .enumerate()
        .map(|(i, x)| {
            operand(x, like)
                .map_err(|_| PyTypeError::new_err(format!("{op}: element {i} is not a Tensor")))
        })
        .collect()
}

/// Wraps the pieces of one split-family op (`split`, `chunk`, `unbind`). In PyTorch code,
/// views among them made with no history recorded (the input needs no grad) are marked
/// as one op's several views, as PyTorch does: a later write into one of them that
/// requires grad is refused (`Tensor::check_untracked_view_write`). Paddle allows that
/// write (checked with Paddle 3.3.1), so Paddle code's pieces are not marked.
fn wrap_list(py: Python<'_>, ts: Vec<Tensor>) -> PyResult<Py<PyList>> {
    let untracked_views = ts.first().is_some_and(|t| {
        let m = t.meta(); // one lock, no node handle cloned
        m.grad_fn.is_none() && m.view_base.is_some()
    });
    if untracked_views
        && crate::autograd::is_grad_enabled()
        && crate::python::dialect::caller_is_torch(py)?
    {
        for t in &ts {
            t.meta().view_multi_output = true;
        }
    }
    let items: Vec<Py<PyTensor>> = ts
        .into_iter()
        .map(|t| wrap(py, t))
        .collect::<PyResult<_>>()?;
    Ok(PyList::new(py, items)?.unbind())
}

fn index_tensor(o: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    match o.cast::<PyTensor>() {
        Ok(t) => Ok(t.get().inner().take()),
        Err(_) => to_tensor(o, None),
    }
}

/// The iterator `iter(t)` returns: `t[0]`, `t[1]`, ... along the first dimension, each
/// made when it is reached (so it is recorded for autograd like `t[i]`).
#[pyclass(name = "TensorIterator", module = "ferrograd")]
pub struct PyTensorIterator {
    t: Tensor,
    next: usize,
    len: usize,
}

#[pymethods]
impl PyTensorIterator {
    /// The iterator itself.
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next slice `t[i]`; StopIteration after the last.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyTensor>>> {
        if self.next >= self.len {
            return Ok(None);
        }
        let i = self.next as isize;
        self.next += 1;
        Ok(Some(wrap(py, self.t.index(&[IndexItem::Int(i)]).py()?)?))
    }

    /// How many slices are left.
    fn __length_hint__(&self) -> usize {
        self.len - self.next
    }
}

#[pymethods]
impl PyTensor {
    /// Iterates over the first dimension, yielding `self[0]`, `self[1]`, ...; a TypeError
    /// for 0-d tensors.
    fn __iter__(&self) -> PyResult<PyTensorIterator> {
        let len = *self
            .inner()
            .shape()
            .first()
            .ok_or_else(|| PyTypeError::new_err("iteration over a 0-d tensor"))?;
        Ok(PyTensorIterator {
            t: self.inner().take(),
            next: 0,
            len,
        })
    }

    /// `self[key]`: integers, slices, None, Ellipsis, bool/integer tensors and lists.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyT {
        let items = parse_key(key)?;
        wrap(py, self.inner().index(&items).py()?)
    }

    /// `self[key] = value` in place (value broadcast and cast to this tensor's dtype).
    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let items = parse_key(key)?;
        let v = operand(value, self.inner().dtype())?;
        self.inner().index_put_(&items, &v).py()
    }

    /// Rows (or slices along `axis`) picked by a 1-D integer index (Paddle `index_select`;
    /// torch's `index_select(dim, index)` order is accepted too).
    #[pyo3(signature = (index, axis=None, name=None, *, dim=None))]
    fn index_select(
        &self,
        py: Python<'_>,
        index: &Bound<'_, PyAny>,
        axis: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = name;
        // torch order: index_select(dim, index). A Tensor in the second slot is always the
        // index (a one-element index tensor also converts to an int, so "is it an int?"
        // alone would silently swap the two).
        let (idx, ax, torch_form) = match axis {
            Some(a)
                if index.extract::<isize>().is_ok()
                    && index.cast::<PyTensor>().is_err()
                    && !a.is_none()
                    && (a.cast::<PyTensor>().is_ok() || a.extract::<isize>().is_err()) =>
            {
                (a.clone(), index.extract::<isize>()?, true)
            }
            Some(a) if !a.is_none() => (index.clone(), a.extract::<isize>()?, false),
            _ => (index.clone(), dim.unwrap_or(0), dim.is_some()),
        };
        let it = index_tensor(&idx)?;
        // PyTorch code's `index_select(dim, index)`: PyTorch refuses an index below 0
        // (TensorAdvancedIndexing.cpp `index_select_out_cpu_`: "index out of range in
        // self"), where Paddle 3.x and ferrograd count it from the end
        // (`ferrograd._index_sign`); the kernel checks it in its own pass
        let neg = if torch_form && crate::python::dialect::caller_is_torch(py)? {
            NegIndex::Refuse("index_select")
        } else {
            NegIndex::Wrap
        };
        wrap(py, self.inner().index_select_neg(ax, &it, neg).py()?)
    }

    /// torch `gather(dim, index)`, or Paddle `gather(index, axis=None)` (= index_select).
    /// `refuse` (private, for `ferrograd._gather_sparse`): an op name to refuse an index
    /// below 0 with PyTorch's `IndexError` naming it; `None` counts it from the end.
    #[pyo3(signature = (a, b=None, *, axis=None, dim=None, index=None, refuse=None))]
    #[allow(clippy::too_many_arguments)]
    fn gather(
        &self,
        py: Python<'_>,
        a: Option<&Bound<'_, PyAny>>,
        b: Option<&Bound<'_, PyAny>>,
        axis: Option<isize>,
        dim: Option<isize>,
        index: Option<&Bound<'_, PyAny>>,
        refuse: Option<&str>,
    ) -> PyT {
        let neg = refuse.map_or(NegIndex::Wrap, NegIndex::Refuse);
        let a_is_dim =
            a.is_some_and(|a| a.extract::<isize>().is_ok() && a.cast::<PyTensor>().is_err());
        if a_is_dim || dim.is_some() {
            let d = if a_is_dim {
                a.map(|a| a.extract::<isize>()).transpose()?.unwrap_or(0)
            } else {
                dim.unwrap_or(0)
            };
            let idx = if a_is_dim { b.or(index) } else { a.or(index) };
            let idx = idx.ok_or_else(|| PyTypeError::new_err("gather() needs an index tensor"))?;
            return wrap(
                py,
                self.inner().gather_neg(d, &index_tensor(idx)?, neg).py()?,
            );
        }
        let idx = a
            .or(index)
            .ok_or_else(|| PyTypeError::new_err("gather() needs an index tensor"))?;
        let ax = match (b, axis) {
            (Some(b), _) if !b.is_none() => b.extract::<isize>()?,
            (_, Some(ax)) => ax,
            _ => 0,
        };
        let it = index_tensor(idx)?;
        let it = if it.ndim() == 0 {
            it.reshape(&[1]).py()?
        } else {
            it
        };
        wrap(py, self.inner().index_select_neg(ax, &it, neg).py()?)
    }

    /// Elementwise gather along `axis` (Paddle `take_along_axis`, torch `gather`). With
    /// `broadcast` (Paddle's default) the index and the tensor are first broadcast as
    /// Paddle's `take_along_axis` does (manipulation.py, `infer_broadcast_shape`): a
    /// `[[0]]` index on a `[3, 3]` tensor along axis 0 picks the whole row `[1, 3]`.
    #[pyo3(signature = (indices, axis, broadcast=true))]
    fn take_along_axis(
        &self,
        py: Python<'_>,
        indices: &Bound<'_, PyAny>,
        axis: isize,
        broadcast: bool,
    ) -> PyT {
        let arr = self.inner();
        let idx = index_tensor(indices)?;
        let nd = arr.ndim() as isize;
        let ax = if axis < 0 { axis + nd } else { axis };
        let same = |a: &[usize], i: &[usize]| {
            a.iter()
                .zip(i)
                .enumerate()
                .all(|(d, (x, y))| d as isize == ax || x == y)
        };
        if !broadcast
            || idx.ndim() != arr.ndim()
            || !(0..nd).contains(&ax)
            || same(arr.shape(), idx.shape())
        {
            return wrap(py, arr.gather(axis, &idx).py()?);
        }
        let (a, i) = (arr.shape().to_vec(), idx.shape().to_vec());
        let ax = ax as usize;
        // the tensor's shape with the index's length along axis; the index's own shape
        // when it is larger than the tensor somewhere
        let mut target = if a.iter().zip(&i).all(|(x, y)| x >= y) {
            let mut t = a.clone();
            t[ax] = i[ax];
            t
        } else {
            i.clone()
        };
        let idx = idx.expand(&target).py()?;
        target[ax] = a[ax];
        let arr = arr.expand(&target).py()?;
        wrap(py, arr.gather(axis, &idx).py()?)
    }

    /// Indices of non-zero elements: `[n, ndim]` int64, or a tuple of 1-D index tensors.
    #[pyo3(signature = (as_tuple=false))]
    fn nonzero(&self, py: Python<'_>, as_tuple: bool) -> PyResult<Py<PyAny>> {
        let nz = self.inner().nonzero().py()?;
        if !as_tuple {
            return Ok(wrap(py, nz)?.into_any());
        }
        let cols: Vec<Tensor> = if self.inner().ndim() == 0 {
            // a 0-d tensor reads as one element, as in PyTorch: `(tensor([0]),)` when it
            // is non-zero, `(tensor([]),)` when not
            vec![crate::tensor::zeros(&[nz.shape()[0]], DType::I64).py()?]
        } else {
            (0..self.inner().ndim() as isize)
                .map(|d| nz.select(1, d))
                .collect::<crate::Result<_>>()
                .py()?
        };
        let items: Vec<Py<PyTensor>> = cols
            .into_iter()
            .map(|t| wrap(py, t))
            .collect::<PyResult<_>>()?;
        Ok(PyTuple::new(py, items)?.into_any().unbind())
    }

    /// 1-D tensor of the elements where `mask` is true.
    fn masked_select(&self, py: Python<'_>, mask: &Bound<'_, PyAny>) -> PyT {
        wrap(py, self.inner().masked_select(&index_tensor(mask)?).py()?)
    }

    /// Splits along `dim`: torch `split(size)` / `split([sizes])`, or Paddle with
    /// `num_or_sections=` (an int means that many equal sections).
    #[pyo3(signature = (split_size_or_sections=None, dim=None, *, num_or_sections=None, axis=None))]
    fn split(
        &self,
        py: Python<'_>,
        split_size_or_sections: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
        num_or_sections: Option<&Bound<'_, PyAny>>,
        axis: Option<isize>,
    ) -> PyResult<Py<PyList>> {
        let d = dim.or(axis).unwrap_or(0);
        split_impl(
            py,
            &self.inner(),
            split_size_or_sections,
            num_or_sections,
            d,
        )
    }

    /// `chunks` nearly equal pieces along `axis`.
    #[pyo3(signature = (chunks, axis=0, name=None, *, dim=None))]
    fn chunk(
        &self,
        py: Python<'_>,
        chunks: usize,
        axis: isize,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyResult<Py<PyList>> {
        let _ = name;
        wrap_list(py, self.inner().chunk(chunks, dim.unwrap_or(axis)).py()?)
    }

    /// The slices along `axis`, as a list.
    #[pyo3(signature = (axis=0, *, dim=None))]
    fn unbind(&self, py: Python<'_>, axis: isize, dim: Option<isize>) -> PyResult<Py<PyList>> {
        wrap_list(py, self.inner().unbind(dim.unwrap_or(axis)).py()?)
    }
}

fn sections_to_sizes(
    total: usize,
    obj: &Bound<'_, PyAny>,
    count_means_sections: bool,
) -> PyResult<Vec<usize>> {
    if let Ok(n) = obj.extract::<i64>() {
        if n == 0 && total == 0 && !count_means_sections {
            // PyTorch's split(0) of a size-0 dim: one empty piece (TensorShape.cpp, split)
            return Ok(vec![0]);
        }
        if n <= 0 {
            return Err(PyValueError::new_err(format!(
                "split: the number or size of sections must be positive, got {n}"
            )));
        }
        let n = usize::try_from(n).map_err(|_| {
            PyMemoryError::new_err(format!("split: {n} sections do not fit in memory"))
        })?;
        if count_means_sections {
            if !total.is_multiple_of(n) {
                return Err(PyValueError::new_err(format!(
                    "split: a dimension of size {total} cannot be split into {n} equal sections"
                )));
            }
            // n comes from the user: a huge count of empty sections is a MemoryError
            let mut sizes = crate::storage::try_vec_with_capacity(n).py()?;
            sizes.resize(n, total / n);
            return Ok(sizes);
        }
        let mut sizes = vec![n; total / n];
        if !total.is_multiple_of(n) || total == 0 {
            sizes.push(total % n);
        }
        return Ok(sizes.into_iter().filter(|&s| s > 0 || total == 0).collect());
    }
    let raw: Vec<i64> = obj.extract()?;
    // Paddle allows one -1 section meaning "the rest"
    let known: i64 = raw
        .iter()
        .filter(|&&s| s >= 0)
        .try_fold(0i64, |acc, &s| acc.checked_add(s))
        .ok_or_else(|| {
            PyValueError::new_err(format!("split: section sizes {raw:?} overflow when summed"))
        })?;
    raw.iter()
        .map(|&s| {
            if s == -1 {
                Ok((total as i64 - known).max(0) as usize)
            } else {
                usize::try_from(s)
                    .map_err(|_| PyValueError::new_err(format!("split: invalid section size {s}")))
            }
        })
        .collect()
}

fn split_impl(
    py: Python<'_>,
    t: &Tensor,
    torch_arg: Option<&Bound<'_, PyAny>>,
    paddle_arg: Option<&Bound<'_, PyAny>>,
    dim: isize,
) -> PyResult<Py<PyList>> {
    let d = crate::layout::normalize_axis(dim, t.ndim(), "split").py()?;
    let total = t.shape()[d];
    if let (Some(s), None) = (torch_arg, paddle_arg) {
        // torch `split(int)`: pieces of that size (PyTorch's `SplitBackward0` node)
        if let Ok(n) = s.extract::<i64>() {
            if n > 0 && total > 0 {
                let n = usize::try_from(n).unwrap_or(usize::MAX);
                return wrap_list(py, t.split_size(n, dim).py()?);
            }
        }
    }
    let sizes = match (torch_arg, paddle_arg) {
        (_, Some(p)) => sections_to_sizes(total, p, true)?,
        (Some(s), None) => sections_to_sizes(total, s, false)?,
        (None, None) => {
            return Err(PyTypeError::new_err(
                "split() needs a size or a list of sections",
            ))
        }
    };
    wrap_list(py, t.split(&sizes, dim).py()?)
}

/// Concatenates along an existing axis (`concat` in Paddle, `cat` in torch).
#[pyfunction]
#[pyo3(signature = (x, axis=0, name=None, *, dim=None))]
pub fn concat(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: isize,
    name: Option<&Bound<'_, PyAny>>,
    dim: Option<isize>,
) -> PyT {
    let _ = name;
    wrap(
        py,
        Tensor::cat(&tensor_seq(x, "concat")?, dim.unwrap_or(axis)).py()?,
    )
}

/// Stacks along a new axis.
#[pyfunction]
#[pyo3(signature = (x, axis=0, name=None, *, dim=None))]
pub fn stack(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: isize,
    name: Option<&Bound<'_, PyAny>>,
    dim: Option<isize>,
) -> PyT {
    let _ = name;
    if x.cast::<PyTensor>().is_ok() {
        // both peers refuse one Tensor (PyTorch: "argument 'tensors' must be tuple of
        // Tensors, not Tensor"; Paddle's test_stack_op.py test_single_tensor_error: a
        // TypeError) rather than stacking its rows
        return Err(PyTypeError::new_err(
            "stack(): argument 'tensors' must be a list or tuple of Tensors, not Tensor; \
             pass [x] to add a dimension, or x.unbind(0) to stack x's rows",
        ));
    }
    wrap(
        py,
        Tensor::stack(&tensor_seq(x, "stack")?, dim.unwrap_or(axis)).py()?,
    )
}

/// Module-level split: `split(x, num_or_sections, axis)` (Paddle: an int is a section
/// count) unless torch's `split_size_or_sections=` / `dim=` keywords are used.
#[pyfunction]
#[pyo3(signature = (x, num_or_sections=None, axis=0, name=None, *, split_size_or_sections=None, dim=None))]
pub fn split(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    num_or_sections: Option<&Bound<'_, PyAny>>,
    axis: isize,
    name: Option<&Bound<'_, PyAny>>,
    split_size_or_sections: Option<&Bound<'_, PyAny>>,
    dim: Option<isize>,
) -> PyResult<Py<PyList>> {
    let _ = name;
    let t = &x.get().inner();
    let torch_style = split_size_or_sections.is_some() || dim.is_some();
    let d = dim.unwrap_or(axis);
    if torch_style {
        split_impl(py, t, split_size_or_sections.or(num_or_sections), None, d)
    } else {
        split_impl(py, t, None, num_or_sections, d)
    }
}

/// How `where` promotes a 0-d `x` or `y`: PyTorch's rule, or (Paddle code) as two tensors,
/// as Paddle 3.3.1's `where` does. The dialect is asked only when the two differ.
fn where_rule(py: Python<'_>, x: &Tensor, y: &Tensor) -> PyResult<ZeroDimRule> {
    let (a, b) = (x.dtype(), y.dtype());
    let (a0, b0) = (x.ndim() == 0, y.ndim() == 0);
    if a == b
        || DType::promote_ranked(a, a0, b, b0, ZeroDimRule::Torch)
            == DType::promote_ranked(a, a0, b, b0, ZeroDimRule::Plain)
    {
        return Ok(ZeroDimRule::Torch);
    }
    Ok(if crate::python::dialect::caller_is_paddle(py)? {
        ZeroDimRule::Plain
    } else {
        ZeroDimRule::Torch
    })
}

/// One operand of `where` under Paddle's keyword (`x`/`y`) or PyTorch's (`input`/`other`,
/// `where(condition, input, other)`); both is an error.
fn where_operand<'a, 'py>(
    paddle: Option<&'a Bound<'py, PyAny>>,
    torch: Option<&'a Bound<'py, PyAny>>,
    names: (&str, &str),
) -> PyResult<Option<&'a Bound<'py, PyAny>>> {
    if paddle.is_some() && torch.is_some() {
        return Err(PyTypeError::new_err(format!(
            "where() got both {} and {}, two names of the same operand; pass one",
            names.0, names.1
        )));
    }
    Ok(paddle.or(torch))
}

/// `condition ? x : y` elementwise; with only `condition`, its non-zero indices (one
/// piece per dimension: 1-D in PyTorch code and by default, `[z, 1]` in Paddle code).
/// PyTorch's keywords `input=`/`other=` name `x`/`y`.
#[pyfunction]
#[pyo3(name = "where", signature = (condition, x=None, y=None, name=None, *, input=None, other=None))]
pub fn where_fn(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    x: Option<&Bound<'_, PyAny>>,
    y: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    input: Option<&Bound<'_, PyAny>>,
    other: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = name;
    let c = index_tensor(condition)?;
    let x = where_operand(x, input, ("x", "input"))?;
    let y = where_operand(y, other, ("y", "other"))?;
    match (x, y) {
        (Some(x), Some(y)) => {
            let like = x
                .cast::<PyTensor>()
                .map(|t| t.get().inner().dtype())
                .or_else(|_| y.cast::<PyTensor>().map(|t| t.get().inner().dtype()))
                .unwrap_or(crate::dtype::default_float());
            let (xt, yt) = (operand(x, like)?, operand(y, like)?);
            let rule = where_rule(py, &xt, &yt)?;
            Ok(wrap(py, Tensor::where_ranked(&c, &xt, &yt, rule).py()?)?.into_any())
        }
        (None, None) => {
            let nz = c.nonzero().py()?;
            // Paddle 3.3.1's where(c) is nonzero(c, as_tuple=True): [z, 1] column slices
            // of the [z, ndim] result; PyTorch's pieces are the 1-D columns.
            let paddle = crate::python::dialect::caller_is_paddle(py)?;
            let cols: Vec<Tensor> = (0..c.ndim() as isize)
                .map(|d| {
                    if paddle {
                        nz.slice(1, Some(d), Some(d + 1), 1)
                    } else {
                        nz.select(1, d)
                    }
                })
                .collect::<crate::Result<_>>()
                .py()?;
            let items: Vec<Py<PyTensor>> = cols
                .into_iter()
                .map(|t| wrap(py, t))
                .collect::<PyResult<_>>()?;
            Ok(PyTuple::new(py, items)?.into_any().unbind())
        }
        _ => Err(PyTypeError::new_err(
            "where() takes a condition and both x and y, or only a condition",
        )),
    }
}
