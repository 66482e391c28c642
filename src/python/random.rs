//! `ferrograd.Generator` and the private samplers behind `ferrograd.random_gen`
//! (`normal`, `uniform`, `bernoulli`, `multinomial`, `randperm`, the in-place `normal_`,
//! `uniform_`, `exponential_`, ...). The Python layer parses the dialects' arguments; these
//! functions take plain shapes, numbers, a dtype and an optional generator.

use crate::dtype::DType;
use crate::python::args::check_device;
use crate::python::dtype::{parse_dtype, PyDType};
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::random::{self as rnd, Generator};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Arc;

type PyT = PyResult<Py<PyTensor>>;

enum Handle {
    Default,
    Own(Arc<Generator>),
}

/// A random number generator: `Generator().manual_seed(n)` gives a stream independent of
/// the global one (`ferrograd.seed`), for the `generator=` argument of the samplers.
#[pyclass(name = "Generator", module = "ferrograd", frozen)]
pub struct PyGenerator {
    h: Handle,
}

impl PyGenerator {
    /// The generator this object stands for.
    pub fn get(&self) -> &Generator {
        match &self.h {
            Handle::Default => &rnd::DEFAULT_GENERATOR,
            Handle::Own(g) => g,
        }
    }
}

/// The generator of an optional `generator=` argument (None: the default one).
fn gen<'a>(g: &'a Option<PyRef<'_, PyGenerator>>) -> Option<&'a Generator> {
    g.as_ref().map(|g| g.get())
}

/// A seed from Python: any int in `[-2**63, 2**64)`; negative ones wrap as torch's do.
fn parse_seed(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    if seed.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(
            "manual_seed: the seed must be an int, got a bool",
        ));
    }
    let v: i128 = seed.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "manual_seed: the seed must be an int, got {}",
            seed.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    if v < i128::from(i64::MIN) || v > i128::from(u64::MAX) {
        return Err(PyValueError::new_err(format!(
            "manual_seed: the seed must be in [-2**63, 2**64), got {v}"
        )));
    }
    Ok(v as u64)
}

/// A fresh seed from the OS's randomness (std's hash keys) and the clock.
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    h.write_u64(nanos);
    // keep it in i64's range, so that torch-style code may store it in an int64 tensor
    h.finish() >> 1
}

#[pymethods]
impl PyGenerator {
    #[new]
    #[pyo3(signature = (device=None))]
    fn new(device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        check_device(device, "Generator")?;
        Ok(PyGenerator {
            h: Handle::Own(Arc::new(Generator::new(rnd::DEFAULT_SEED))),
        })
    }
    /// Seeds the generator and returns it (`Generator().manual_seed(0)`).
    fn manual_seed<'py>(
        slf: Bound<'py, Self>,
        seed: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        slf.get().get().manual_seed(parse_seed(seed)?);
        Ok(slf)
    }
    /// Seeds the generator from the OS's randomness and returns that seed.
    fn seed(&self) -> u64 {
        let s = fresh_seed();
        self.get().manual_seed(s);
        s
    }
    /// The seed the generator was last seeded with.
    fn initial_seed(&self) -> u64 {
        self.get().initial_seed()
    }
    /// The state as an int64 tensor of 5 words (4 of state, then the seed), for
    /// `set_state`.
    fn get_state(&self, py: Python<'_>) -> PyT {
        let words: Vec<i64> = self.get().state().iter().map(|&w| w as i64).collect();
        wrap(py, crate::tensor::Tensor::from_vec(words, &[5]).py()?)
    }
    /// Restores a state from `get_state` (a tensor, or a sequence of 4 or 5 ints) and
    /// returns the generator.
    fn set_state<'py>(
        slf: Bound<'py, Self>,
        state: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let words = state_words(state)?;
        slf.get().get().set_state(&words).py()?;
        Ok(slf)
    }
    /// Always the CPU.
    #[getter]
    fn device(&self) -> &'static str {
        "cpu"
    }
    fn __repr__(&self) -> String {
        match self.h {
            Handle::Default => "<ferrograd.Generator (the default generator)>".into(),
            Handle::Own(_) => "<ferrograd.Generator>".into(),
        }
    }
}

/// The words of a generator state given as a Tensor or a sequence of ints.
fn state_words(state: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    let items: Vec<Bound<'_, PyAny>> = if let Ok(t) = state.cast::<PyTensor>() {
        let t = &t.get().inner();
        if t.dtype() != DType::I64 {
            return Err(PyTypeError::new_err(format!(
                "set_state: expected the int64 state tensor from get_state(), got dtype {}",
                t.dtype()
            )));
        }
        let v = t.to_vec::<i64>().py()?;
        return Ok(v.into_iter().map(|w| w as u64).collect());
    } else {
        state
            .try_iter()
            .map_err(|_| {
                PyTypeError::new_err(
                    "set_state: expected a state from get_state() / get_rng_state()",
                )
            })?
            .collect::<PyResult<_>>()?
    };
    items
        .iter()
        .map(|w| {
            let v: i128 = w.extract().map_err(|_| {
                PyTypeError::new_err("set_state: a generator state holds integers only")
            })?;
            if v < i128::from(i64::MIN) || v > i128::from(u64::MAX) {
                return Err(PyValueError::new_err(format!(
                    "set_state: {v} is not a 64-bit state word"
                )));
            }
            Ok(v as u64)
        })
        .collect()
}

/// The default generator (`ferrograd.default_generator`).
#[pyfunction]
pub fn _default_generator() -> PyGenerator {
    PyGenerator { h: Handle::Default }
}

/// Uniform samples in `[low, high)`.
#[pyfunction]
#[pyo3(signature = (shape, low, high, dtype, generator=None))]
pub fn _uniform(
    py: Python<'_>,
    shape: Vec<usize>,
    low: f64,
    high: f64,
    dtype: &Bound<'_, PyAny>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyT {
    let d = parse_dtype(dtype)?;
    wrap(
        py,
        rnd::uniform(&shape, low, high, d, gen(&generator)).py()?,
    )
}

/// Normal samples with `mean` and `std`.
#[pyfunction]
#[pyo3(signature = (shape, mean, std, dtype, generator=None))]
pub fn _normal(
    py: Python<'_>,
    shape: Vec<usize>,
    mean: f64,
    std: f64,
    dtype: &Bound<'_, PyAny>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyT {
    let d = parse_dtype(dtype)?;
    wrap(py, rnd::normal(&shape, mean, std, d, gen(&generator)).py()?)
}

/// Exponential samples with rate `lambd`.
#[pyfunction]
#[pyo3(signature = (shape, lambd, dtype, generator=None))]
pub fn _exponential(
    py: Python<'_>,
    shape: Vec<usize>,
    lambd: f64,
    dtype: &Bound<'_, PyAny>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyT {
    let d = parse_dtype(dtype)?;
    wrap(
        py,
        rnd::exponential(&shape, lambd, d, gen(&generator)).py()?,
    )
}

/// Integers uniform in `[low, high)` as `dtype`.
#[pyfunction]
#[pyo3(signature = (low, high, shape, dtype, generator=None))]
pub fn _randint(
    py: Python<'_>,
    low: i64,
    high: i64,
    shape: Vec<usize>,
    dtype: &Bound<'_, PyAny>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyT {
    let d = parse_dtype(dtype)?;
    wrap(
        py,
        rnd::randint_with(low, high, &shape, d, gen(&generator)).py()?,
    )
}

/// 0/1 samples with the probabilities in `p` (same shape and dtype).
#[pyfunction]
#[pyo3(signature = (p, generator=None))]
pub fn _bernoulli(
    py: Python<'_>,
    p: PyRef<'_, PyTensor>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyT {
    wrap(py, rnd::bernoulli_tensor(&p.inner(), gen(&generator)).py()?)
}

/// 0/1 samples of `shape`, 1 with probability `p`.
#[pyfunction]
#[pyo3(signature = (shape, p, dtype, generator=None))]
pub fn _bernoulli_scalar(
    py: Python<'_>,
    shape: Vec<usize>,
    p: f64,
    dtype: &Bound<'_, PyAny>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyT {
    let d = parse_dtype(dtype)?;
    wrap(
        py,
        rnd::bernoulli_scalar(&shape, p, d, gen(&generator)).py()?,
    )
}

/// A random permutation of `0..n`.
#[pyfunction]
#[pyo3(signature = (n, dtype, generator=None))]
pub fn _randperm(
    py: Python<'_>,
    n: i64,
    dtype: &Bound<'_, PyAny>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyT {
    let n = usize::try_from(n)
        .map_err(|_| PyValueError::new_err(format!("randperm: n must be non-negative, got {n}")))?;
    let d = parse_dtype(dtype)?;
    wrap(py, rnd::randperm(n, d, gen(&generator)).py()?)
}

/// `num_samples` category indices per row of `probs` (int64).
#[pyfunction]
#[pyo3(signature = (probs, num_samples, replacement, generator=None))]
pub fn _multinomial(
    py: Python<'_>,
    probs: PyRef<'_, PyTensor>,
    num_samples: i64,
    replacement: bool,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyT {
    let k = usize::try_from(num_samples).map_err(|_| {
        PyValueError::new_err(format!(
            "multinomial: num_samples must be positive, got {num_samples}"
        ))
    })?;
    wrap(
        py,
        rnd::multinomial(&probs.inner(), k, replacement, gen(&generator)).py()?,
    )
}

/// Sets the default floating dtype (`set_default_dtype`).
#[pyfunction]
pub fn _set_default_dtype(dtype: &Bound<'_, PyAny>) -> PyResult<()> {
    crate::dtype::set_default_float(parse_dtype(dtype)?).py()
}

/// The default floating dtype (`get_default_dtype`).
#[pyfunction]
pub fn _get_default_dtype(py: Python<'_>) -> PyResult<Py<PyDType>> {
    crate::python::dtype::dtype_object(py, crate::dtype::default_float())
}
