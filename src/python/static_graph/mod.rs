//! The Python side of static graphs (`ferrograd.static`): the program being recorded
//! (`program.rs`), op names and attributes parsed into the core's op kinds
//! (`op_kinds.rs`, `ext_op_attrs.rs`), the scope and executor that run a program
//! (`executor.rs`), and Python callbacks inside a program (`py_func.rs`).

pub(crate) mod executor;
pub(crate) mod ext_op_attrs;
pub(crate) mod op_kinds;
pub(crate) mod program;
pub(crate) mod py_func;
