#!/usr/bin/env bash
# Runs the Rust tests under Miri (by hand; needs the nightly toolchain with the miri
# component: `rustup +nightly component add miri rust-src`). Not part of CI: Miri
# interprets every instruction, so the run takes about 22 minutes on 2 cores.
#
# Tree Borrows rather than Stacked Borrows: crossbeam-epoch (under rayon) trips a known
# Stacked Borrows false positive. Isolation is off because the tests read environment
# variables and the clock. Floats are deterministic because by default Miri adds random
# last-bit error to every libm call (to mimic platform differences), which breaks the
# tests that compare a fused kernel with the scalar function bit for bit. Leaks are
# ignored because rayon's global pool threads live for the whole process and are never
# joined, which Miri reports when the test harness exits (valgrind in CI checks leaks).
# Skipped here (covered by valgrind in CI instead): tests whose point is a large size
# that crosses a threading or blocking threshold, the timing helper, an allocation meant
# to fail, the 10^5-10^6-op chains (Miri would take hours), and tests/thread_pool.rs
# (million-element sums on the pool; ASan covers it).
set -euo pipefail
cd "$(dirname "$0")/.."
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation -Zmiri-tree-borrows -Zmiri-deterministic-floats -Zmiri-ignore-leaks}"
target="${MIRI_TARGET_DIR:-target/miri}"
skips=(
  --skip f32_sum_is_accurate_and_thread_count_independent
  --skip large_fast_paths_match_naive
  --skip large_update_split_across_threads_matches_serial
  --skip impossible_allocation_is_an_error
  --skip million_op_chain_runs_and_drops_without_recursion
  --skip graph_dropped_without_backward_is_freed_iteratively
  --skip timing
)
cargo +nightly miri test --target-dir "$target" --lib --test engine --test indexing \
  --test static_graph --test static_graph_ext --test static_fusion \
  -- --test-threads=1 "${skips[@]}" "$@"
