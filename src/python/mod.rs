//! PyO3 bindings (feature `python`): the only code that touches the Python API. It holds
//! no math: every method converts its arguments and calls the core.
//!
//! The folder, by concern (docs/internals.md has the same map):
//!
//! | module | holds |
//! |---|---|
//! | `errors`, `dtype`, `signals` | leaves: core errors as Python exceptions, dtype objects and names, Ctrl-C / fork |
//! | `args` | leaf: shared argument parsing (shapes, axes, keepdim/dtype args, operands, device checks) |
//! | `tensor/` | the `Tensor` class (`class.rs`, a leaf) and its methods, one file per family |
//! | `interop/` | Python/NumPy values <-> tensors, array interface, buffer protocol, DLPack, `tofile` |
//! | `autograd/` | `backward` / `grad` / grad mode, graph nodes and hooks, saved-tensor hooks |
//! | `pylayer/` | custom layers (`PyLayer` / `autograd.Function`): `apply`, `ctx` |
//! | `static_graph/` | `ferrograd.static`: programs, op-kind parsing, executor, `py_func` |
//! | `optim/` | `ParamGroupState` and its optimizer steps |
//! | `creation`, `creation_full`, `random` | factories (`zeros`, `arange`, `full`, ...); generators and samplers |
//! | `memory`, `debug` | the buffer cache's knobs; a test hook that panics on purpose |
//! | `dialect` | leaf: the calling module's dialect (`ferrograd._dialect`), for the calls the peers answer differently |
//!
//! Dependencies point from concerns to the leaves (`errors`, `dtype`, `args`,
//! `tensor::class`) and never back: `scripts/check_module_cycles.py` (run by
//! `tests/python/test_module_cycles.py`) fails on any import cycle between these modules.

// Python signatures mirror Paddle's and PyTorch's, keyword arguments and all.
#![allow(clippy::too_many_arguments)]

mod args;
mod autograd;
mod creation;
mod creation_full;
mod debug;
mod dialect;
mod dtype;
mod errors;
mod interop;
mod lazy_dict;
mod memory;
mod optim;
mod profiler;
mod pylayer;
mod random;
mod reduce_args;
mod shape_args;
mod signals;
mod static_graph;
mod tensor;

use pyo3::prelude::*;

/// The `ferrograd._core` extension module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    dtype::register(m)?;
    tensor::identity::install_sparse_accumulator();
    m.add_class::<tensor::class::PyTensor>()?;
    m.add_class::<autograd::node::PyNode>()?;
    m.add_class::<autograd::node::PyAccumulateGrad>()?;
    m.add_class::<autograd::node::PyHookHandle>()?;
    m.add_class::<autograd::saved_by_name::PySavedTensor>()?;
    m.add_class::<interop::array_interface::ArrayExport>()?;
    static_graph::dispatch::register(m)?;
    profiler::register(m)?;
    // Whether `memoryview(tensor)` works: true in every build since the abi3 floor is
    // CPython 3.11 (kept for code that checks it).
    m.add("_HAS_BUFFER_PROTOCOL", true)?;
    m.add_function(wrap_pyfunction!(tensor::class::_set_size_class, m)?)?;
    m.add_function(wrap_pyfunction!(memory::set_buffer_cache_limit, m)?)?;
    m.add_function(wrap_pyfunction!(memory::empty_buffer_cache, m)?)?;
    m.add_function(wrap_pyfunction!(memory::buffer_cache_info, m)?)?;
    m.add_function(wrap_pyfunction!(memory::_set_packs_suspend_cache, m)?)?;
    m.add_function(wrap_pyfunction!(interop::tofile::_tofile, m)?)?;
    m.add_function(wrap_pyfunction!(
        static_graph::op_kinds::_unary_op_table,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        static_graph::op_kinds::_binary_op_table,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        static_graph::op_kinds::_reduce_op_table,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        static_graph::op_kinds::_shape_op_table,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(creation::tensor_fn, m)?)?;
    m.add_function(wrap_pyfunction!(creation::to_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(creation::from_numpy, m)?)?;
    creation::register_factories(m)?;
    m.add_function(wrap_pyfunction!(creation::_creation_op_table, m)?)?;
    m.add_function(wrap_pyfunction!(creation_full::full, m)?)?;
    m.add_function(wrap_pyfunction!(creation_full::full_like, m)?)?;
    m.add_function(wrap_pyfunction!(creation::arange, m)?)?;
    m.add_function(wrap_pyfunction!(creation::linspace, m)?)?;
    m.add_function(wrap_pyfunction!(creation::eye, m)?)?;
    m.add_function(wrap_pyfunction!(creation::randint, m)?)?;
    m.add_function(wrap_pyfunction!(creation::seed, m)?)?;
    m.add_function(wrap_pyfunction!(creation::_rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(creation::_set_rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::indexing::concat, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::indexing::stack, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::indexing::split, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::indexing::where_fn, m)?)?;
    m.add_class::<pylayer::ctx::PyCtx>()?;
    m.add_class::<autograd::hooks_context::PySavedTensorsHooks>()?;
    m.add_function(wrap_pyfunction!(pylayer::entry::_apply_paddle, m)?)?;
    m.add_function(wrap_pyfunction!(pylayer::entry::_apply_torch, m)?)?;
    m.add_function(wrap_pyfunction!(pylayer::entry::_bind_apply, m)?)?;
    m.add_function(wrap_pyfunction!(debug::_lazy_dict_active, m)?)?;
    m.add_function(wrap_pyfunction!(pylayer::delayed_error::_delayed_error, m)?)?;
    m.add_function(wrap_pyfunction!(pylayer::forward_ad::_forward_ad_pass, m)?)?;
    m.add_function(wrap_pyfunction!(
        pylayer::ctx_attrs::_ctx_output_attribute,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        pylayer::ctx_attrs::_ctx_forget_output_attribute,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        autograd::saved_hooks::_push_saved_tensors_hooks,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        autograd::saved_hooks::_pop_saved_tensors_hooks,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        autograd::saved_hooks::_saved_tensors_hooks_depth,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        autograd::saved_hooks::_set_saved_tensors_hooks_disabled,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(autograd::backward::backward, m)?)?;
    autograd::anomaly::install();
    m.add_function(wrap_pyfunction!(
        autograd::anomaly::_set_anomaly_enabled,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(autograd::anomaly::_is_anomaly_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(
        autograd::anomaly::_is_anomaly_check_nan_enabled,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(autograd::anomaly::_set_warn_always, m)?)?;
    m.add_function(wrap_pyfunction!(
        autograd::anomaly::_is_warn_always_enabled,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        autograd::post_accumulate::_queue_callback,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(autograd::backward::grad, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::grad_edges::_gradient_edge, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::backward::is_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::autocast::_set_autocast, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::autocast::_get_autocast, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::backward::_set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(
        autograd::backward::is_inference_mode_enabled,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(autograd::backward::is_inference, m)?)?;
    m.add_function(wrap_pyfunction!(
        autograd::backward::_set_inference_mode,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        autograd::backward::_restore_inference_mode,
        m
    )?)?;
    m.add_class::<static_graph::program::PyProgram>()?;
    m.add_class::<static_graph::executor::PyScope>()?;
    m.add_class::<static_graph::executor::PyExecutor>()?;
    m.add_function(wrap_pyfunction!(static_graph::py_func::_py_func_eager, m)?)?;
    m.add_class::<optim::param_group::PyParamGroupState>()?;
    m.add_function(wrap_pyfunction!(tensor::complex::complex_fn, m)?)?;
    m.add_function(wrap_pyfunction!(interop::dlpack::from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(signals::_install_sigint_hook, m)?)?;
    m.add_function(wrap_pyfunction!(debug::_debug_panic, m)?)?;
    // sliding-window ops behind convolution and pooling (nn/fn_conv.py, nn/fn_pool.py)
    m.add_function(wrap_pyfunction!(tensor::sliding_window::_unfold, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::grid_sample::_grid_sample_2d, m)?)?;
    m.add_function(wrap_pyfunction!(
        tensor::grid_sample::_grid_sample_2d_backward,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(tensor::sliding_window::_fold, m)?)?;
    m.add_function(wrap_pyfunction!(
        tensor::sliding_window::_max_pool_indices,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        tensor::sliding_window::_take_in_planes,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(tensor::sliding_window::_unpool_put, m)?)?;
    // random generators and samplers; default dtype; print options (ferrograd.random_gen)
    m.add_class::<random::PyGenerator>()?;
    for f in [
        wrap_pyfunction!(random::_default_generator, m)?,
        wrap_pyfunction!(random::_uniform, m)?,
        wrap_pyfunction!(random::_normal, m)?,
        wrap_pyfunction!(random::_exponential, m)?,
        wrap_pyfunction!(random::_randint, m)?,
        wrap_pyfunction!(random::_bernoulli, m)?,
        wrap_pyfunction!(random::_bernoulli_scalar, m)?,
        wrap_pyfunction!(random::_randperm, m)?,
        wrap_pyfunction!(random::_multinomial, m)?,
        wrap_pyfunction!(random::_set_default_dtype, m)?,
        wrap_pyfunction!(random::_get_default_dtype, m)?,
        wrap_pyfunction!(tensor::repr::_set_print_options, m)?,
    ] {
        m.add_function(f)?;
    }
    m.add_function(wrap_pyfunction!(tensor::linalg::_linalg, m)?)?;
    // fused network ops behind nn.functional (layer_norm, losses, dropout, linear)
    m.add_function(wrap_pyfunction!(tensor::fused::_layer_norm, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::fused::_class_loss, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::fused::_dropout, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::fused::_linear, m)?)?;
    m.add_function(wrap_pyfunction!(dialect::py_caller_dialect, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::rnn::_rnn_layer, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::attention::_sdpa, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::batch_norm::_batch_norm, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::conv::_conv, m)?)?;
    m.add_function(wrap_pyfunction!(_num_threads, m)?)?;
    signals::_install_sigint_hook(m.py())?;
    // Python's importing thread joins the kernels' pool (see crate::threads).
    crate::threads::init_pool_with_current_thread();
    Ok(())
}

/// The number of threads of the kernels' pool (rayon's global pool, sized when the module
/// is imported: `RAYON_NUM_THREADS` or the available parallelism).
#[pyfunction]
fn _num_threads() -> usize {
    rayon::current_num_threads()
}
