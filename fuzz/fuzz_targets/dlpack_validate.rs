//! Fuzzes the DLPack metadata check (`ferrograd::foreign::validate`): any shape, strides,
//! element size, data address and byte offset must give `Ok` with a span inside the
//! address space, or an `Err` — never a panic or an overflow. When it accepts, the
//! layout's every reachable element must lie inside `[base, base + len)`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn word(bytes: &[u8], i: usize) -> i64 {
    let mut w = [0u8; 8];
    for (k, b) in w.iter_mut().enumerate() {
        *b = bytes.get(i * 8 + k).copied().unwrap_or(0);
    }
    i64::from_le_bytes(w)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let ndim = (data[0] % 6) as usize;
    let itemsize = [1usize, 2, 4, 8, 16][(data[1] % 5) as usize];
    let has_strides = data[2] & 1 == 1;
    let rest = &data[4..];
    // small dims most of the time, extreme values otherwise
    let shape: Vec<i64> = (0..ndim)
        .map(|i| {
            let w = word(rest, i);
            if data[3] & 1 == 0 {
                w.rem_euclid(5)
            } else {
                w
            }
        })
        .collect();
    let strides: Vec<i64> = (0..ndim).map(|i| word(rest, ndim + i)).collect();
    let addr = word(rest, 2 * ndim) as u64 as usize;
    let byte_offset = word(rest, 2 * ndim + 1) as u64;
    let strides_opt = has_strides.then_some(strides.as_slice());
    if let Ok(v) =
        ferrograd::foreign::validate("fuzz", &shape, strides_opt, itemsize, addr, byte_offset)
    {
        let numel: usize = v.layout.shape.iter().product();
        if numel == 0 {
            assert_eq!(v.len, 0);
            return;
        }
        assert!(v.base != 0 && v.len.checked_mul(itemsize).is_some());
        assert!((v.base as u128) + (v.len as u128) * (itemsize as u128) <= isize::MAX as u128);
        // the first and the last element of every dim stay inside the span
        let mut lo = v.layout.offset as i128;
        let mut hi = lo;
        for (&d, &s) in v.layout.shape.iter().zip(&v.layout.strides) {
            let e = (d as i128 - 1) * s as i128;
            if e < 0 {
                lo += e
            } else {
                hi += e
            }
        }
        assert!(
            lo >= 0 && hi < v.len as i128,
            "span escapes: {lo}..={hi} of {}",
            v.len
        );
    }
});
