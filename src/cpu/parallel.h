// A small fork-join parallel loop on std::threads, for the CPU backend. Work items are
// claimed dynamically (an atomic counter), so uneven items (causal tiles, ragged sequences)
// balance themselves. Each item must write only outputs it owns: results never depend on
// which thread ran an item, so every op stays deterministic.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace amkl::cpu {

/// Threads the CPU backend uses: $AMKL_NUM_THREADS if set (> 0), else the hardware count.
int num_threads();

/// Hands out item indices 0, 1, ..., n-1, each exactly once across all workers.
class WorkQueue {
 public:
  explicit WorkQueue(int64_t n) : n_(n) {}
  /// The next unclaimed item, or -1 when none is left.
  int64_t next() {
    const int64_t i = next_.fetch_add(1, std::memory_order_relaxed);
    return i < n_ ? i : -1;
  }

 private:
  const int64_t n_;
  std::atomic<int64_t> next_{0};
};

/// Runs worker(queue) on min(num_threads(), n_items) threads (the calling thread is one of
/// them) and waits for all. A worker sets up its scratch memory once, then loops on
/// queue.next(). The first exception thrown by a worker is rethrown here after all joined.
void parallel_workers(int64_t n_items, const std::function<void(WorkQueue&)>& worker);

/// parallel_workers for items that need no per-thread setup: body(i) for i in [0, n).
inline void parallel_for(int64_t n, const std::function<void(int64_t)>& body) {
  parallel_workers(n, [&](WorkQueue& q) {
    for (int64_t i = q.next(); i >= 0; i = q.next()) body(i);
  });
}

}  // namespace amkl::cpu
