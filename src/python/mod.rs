//! PyO3 bindings (feature `python`): the only code that touches the Python API. It holds
//! no math: every method converts its arguments and calls the core.

// Python signatures mirror Paddle's and PyTorch's, keyword arguments and all.
#![allow(clippy::too_many_arguments)]

mod array_interface;
mod autograd;
// The buffer protocol needs CPython's limited API of 3.11; the abi3 (3.9+) wheel goes
// without it and NumPy reads tensors through `array_interface.rs` instead.
#[cfg(not(feature = "abi3"))]
mod buffer;
mod convert;
mod ctx;
mod ctx_attrs;
mod debug;
mod dlpack;
mod dlpack_abi;
mod dtype;
mod errors;
mod functions;
mod hooks;
mod indexing;
mod linalg;
mod memory;
mod node;
mod optim;
mod optim_more;
mod post_accumulate;
mod pylayer;
mod random;
mod repr;
mod signals;
mod static_dispatch;
mod static_exec;
mod static_ops;
mod static_ops_ext;
mod static_program;
mod static_pyfunc;
mod tensor;
mod tensor_complex;
mod tensor_conv;
mod tensor_ops;
mod tensor_reduce;
mod tensor_scan;
mod tensor_scatter;
mod tensor_shape;
mod tofile;

use pyo3::prelude::*;

/// The `ferrograd._core` extension module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    dtype::register(m)?;
    m.add_class::<tensor::PyTensor>()?;
    m.add_class::<node::PyNode>()?;
    m.add_class::<node::PyAccumulateGrad>()?;
    m.add_class::<node::PyHookHandle>()?;
    m.add_class::<array_interface::ArrayExport>()?;
    static_dispatch::register(m)?;
    // Whether `memoryview(tensor)` works: false in the abi3 wheel (see buffer.rs).
    m.add("_HAS_BUFFER_PROTOCOL", cfg!(not(feature = "abi3")))?;
    m.add_function(wrap_pyfunction!(tensor::_set_size_class, m)?)?;
    m.add_function(wrap_pyfunction!(memory::set_buffer_cache_limit, m)?)?;
    m.add_function(wrap_pyfunction!(memory::empty_buffer_cache, m)?)?;
    m.add_function(wrap_pyfunction!(memory::buffer_cache_info, m)?)?;
    m.add_function(wrap_pyfunction!(tofile::_tofile, m)?)?;
    m.add_function(wrap_pyfunction!(static_ops::_unary_op_table, m)?)?;
    m.add_function(wrap_pyfunction!(functions::tensor_fn, m)?)?;
    m.add_function(wrap_pyfunction!(functions::to_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(functions::from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(functions::zeros, m)?)?;
    m.add_function(wrap_pyfunction!(functions::ones, m)?)?;
    m.add_function(wrap_pyfunction!(functions::empty, m)?)?;
    m.add_function(wrap_pyfunction!(functions::full, m)?)?;
    m.add_function(wrap_pyfunction!(functions::zeros_like, m)?)?;
    m.add_function(wrap_pyfunction!(functions::ones_like, m)?)?;
    m.add_function(wrap_pyfunction!(functions::empty_like, m)?)?;
    m.add_function(wrap_pyfunction!(functions::full_like, m)?)?;
    m.add_function(wrap_pyfunction!(functions::arange, m)?)?;
    m.add_function(wrap_pyfunction!(functions::linspace, m)?)?;
    m.add_function(wrap_pyfunction!(functions::eye, m)?)?;
    m.add_function(wrap_pyfunction!(functions::rand, m)?)?;
    m.add_function(wrap_pyfunction!(functions::randn, m)?)?;
    m.add_function(wrap_pyfunction!(functions::randint, m)?)?;
    m.add_function(wrap_pyfunction!(functions::seed, m)?)?;
    m.add_function(wrap_pyfunction!(functions::_rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(functions::_set_rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(indexing::concat, m)?)?;
    m.add_function(wrap_pyfunction!(indexing::stack, m)?)?;
    m.add_function(wrap_pyfunction!(indexing::split, m)?)?;
    m.add_function(wrap_pyfunction!(indexing::where_fn, m)?)?;
    m.add_class::<ctx::PyCtx>()?;
    m.add_function(wrap_pyfunction!(pylayer::_apply_paddle, m)?)?;
    m.add_function(wrap_pyfunction!(pylayer::_apply_torch, m)?)?;
    m.add_function(wrap_pyfunction!(pylayer::_delayed_error, m)?)?;
    m.add_function(wrap_pyfunction!(hooks::_push_saved_tensors_hooks, m)?)?;
    m.add_function(wrap_pyfunction!(hooks::_pop_saved_tensors_hooks, m)?)?;
    m.add_function(wrap_pyfunction!(hooks::_saved_tensors_hooks_depth, m)?)?;
    m.add_function(wrap_pyfunction!(
        hooks::_set_saved_tensors_hooks_disabled,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(autograd::backward, m)?)?;
    m.add_function(wrap_pyfunction!(post_accumulate::_queue_callback, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::grad, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::is_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::is_inference_mode_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::is_inference, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_set_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_restore_inference_mode, m)?)?;
    m.add_class::<static_program::PyProgram>()?;
    m.add_class::<static_exec::PyScope>()?;
    m.add_class::<static_exec::PyExecutor>()?;
    m.add_function(wrap_pyfunction!(static_pyfunc::_py_func_eager, m)?)?;
    m.add_class::<optim::PyParamGroupState>()?;
    m.add_function(wrap_pyfunction!(tensor_complex::complex_fn, m)?)?;
    m.add_function(wrap_pyfunction!(dlpack::from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(signals::_install_sigint_hook, m)?)?;
    m.add_function(wrap_pyfunction!(debug::_debug_panic, m)?)?;
    // sliding-window ops behind convolution and pooling (nn/fn_conv.py, nn/fn_pool.py)
    m.add_function(wrap_pyfunction!(tensor_conv::_unfold, m)?)?;
    m.add_function(wrap_pyfunction!(tensor_conv::_fold, m)?)?;
    m.add_function(wrap_pyfunction!(tensor_conv::_max_pool_indices, m)?)?;
    m.add_function(wrap_pyfunction!(tensor_conv::_take_in_planes, m)?)?;
    m.add_function(wrap_pyfunction!(tensor_conv::_unpool_put, m)?)?;
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
        wrap_pyfunction!(repr::_set_print_options, m)?,
    ] {
        m.add_function(f)?;
    }
    m.add_function(wrap_pyfunction!(linalg::_linalg, m)?)?;
    signals::_install_sigint_hook(m.py())?;
    // Python's importing thread joins the kernels' pool (see crate::threads).
    crate::threads::init_pool_with_current_thread();
    Ok(())
}
