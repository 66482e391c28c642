//! The crate's one error type. Every fallible operation returns [`Result`]; the Python
//! bindings map each variant onto the matching Python exception class.

use std::fmt;

/// Which Python exception class an [`Error`] becomes at the binding boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad argument value: `ValueError`.
    Value,
    /// Wrong kind of object or dtype: `TypeError`.
    Type,
    /// Index out of range: `IndexError`.
    Index,
    /// State problem at run time (freed graph, version mismatch): `RuntimeError`.
    Runtime,
    /// An allocation that cannot fit: `MemoryError`.
    Memory,
    /// Not supported for this dtype/feature: `NotImplementedError`.
    NotImplemented,
    /// Too deep a nesting (re-entrant backward calls): `RecursionError`.
    Recursion,
    /// A misuse the two peers report with different classes (Paddle `ValueError`, PyTorch
    /// `RuntimeError`): `ferrograd.AutogradUsageError`, a subclass of both.
    Usage,
    /// An exception raised by user code (a Python callback), carried unchanged in
    /// [`Error::external`] and re-raised as itself.
    External,
}

/// An error raised by the ferrograd core. The message is complete and user facing:
/// it names the operation and what was wrong.
#[derive(Clone, thiserror::Error)]
pub struct Error {
    /// Python exception class to raise.
    pub kind: ErrorKind,
    /// Full message, already naming the op and the offending values.
    pub message: String,
    /// The original exception object for [`ErrorKind::External`] (e.g. a `PyErr`).
    pub external: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}: {})", self.kind, self.message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error {
    /// Builds an error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            external: None,
        }
    }
    /// Wraps an exception raised by user code so it can cross the core unchanged.
    pub fn external(
        message: impl Into<String>,
        payload: std::sync::Arc<dyn std::any::Any + Send + Sync>,
    ) -> Self {
        Error {
            kind: ErrorKind::External,
            message: message.into(),
            external: Some(payload),
        }
    }
    /// `ValueError`.
    pub fn value(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Value, message)
    }
    /// `TypeError`.
    pub fn type_err(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Type, message)
    }
    /// `IndexError`.
    pub fn index(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Index, message)
    }
    /// `AutogradUsageError` (a `ValueError` and a `RuntimeError`).
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }
    /// `RuntimeError`.
    pub fn runtime(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Runtime, message)
    }
    /// `MemoryError`.
    pub fn memory(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Memory, message)
    }
    /// `RecursionError` (a `RuntimeError` subclass).
    pub fn recursion(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Recursion, message)
    }
    /// `NotImplementedError`.
    pub fn not_implemented(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotImplemented, message)
    }
}

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns early with a `ValueError`-kind error built by `format!`.
#[macro_export]
macro_rules! bail_value {
    ($($arg:tt)*) => { return Err($crate::error::Error::value(format!($($arg)*))) };
}

/// Returns early with a `TypeError`-kind error built by `format!`.
#[macro_export]
macro_rules! bail_type {
    ($($arg:tt)*) => { return Err($crate::error::Error::type_err(format!($($arg)*))) };
}
