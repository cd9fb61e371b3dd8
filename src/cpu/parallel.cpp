#include "cpu/parallel.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace amkl::cpu {

int num_threads() {
  if (const char* env = std::getenv("AMKL_NUM_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? int(hw) : 1;
}

void parallel_workers(int64_t n_items, const std::function<void(WorkQueue&)>& worker) {
  if (n_items <= 0) return;
  WorkQueue queue(n_items);
  const int64_t n_threads = std::min<int64_t>(num_threads(), n_items);
  if (n_threads == 1) {
    worker(queue);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&] {
    try {
      worker(queue);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      // Drain the queue so the other workers stop early.
      while (queue.next() >= 0) {
      }
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(size_t(n_threads - 1));
  for (int64_t t = 1; t < n_threads; ++t) helpers.emplace_back(run);
  run();
  for (std::thread& t : helpers) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace amkl::cpu
