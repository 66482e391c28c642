//! Writing a tensor's elements straight from its storage to a file (used by
//! `autograd.graph.save_on_disk`, so packing a saved activation makes no in-memory copy).

use crate::python::errors::IntoPy;
use crate::python::tensor::class::PyTensor;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use std::io::Write;

/// Writes the elements of `tensor` in row-major order as raw native-endian bytes to
/// `path`, without the GIL. A non-contiguous view is made contiguous first. The file is
/// created exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`, so an existing file or a planted
/// symlink at `path` is an error, never followed or overwritten) with owner-only
/// permissions (0600).
#[pyfunction]
pub fn _tofile(
    py: Python<'_>,
    tensor: &Bound<'_, PyTensor>,
    path: std::path::PathBuf,
) -> PyResult<()> {
    let t = tensor.get().inner().contiguous_raw().py()?;
    py.detach(|| -> PyResult<()> {
        let bytes = t.numel() * t.dtype().size();
        let storage = t.storage();
        crate::with_dtype!(t.dtype(), T, {
            let guard = storage.read::<T>();
            let start = t.layout().offset;
            let elems = &guard[start..start + t.numel()];
            // SAFETY: every element type is plain old data; the slice covers `bytes` bytes.
            let raw = unsafe { std::slice::from_raw_parts(elems.as_ptr().cast::<u8>(), bytes) };
            let mut f = exclusive_create(&path)
                .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
            f.write_all(raw)
                .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))
        })
    })
}

/// Opens `path` for writing, creating it; fails if anything (file or symlink) is there.
fn exclusive_create(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    o.open(path)
}
