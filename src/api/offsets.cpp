#include "api/offsets.h"

#include <algorithm>
#include <string>
#include <vector>

#include "api/checks.h"
#include "cuda/cuda_backend.h"

namespace amkl::api {
std::vector<std::vector<int32_t>> read_index_vectors(const std::vector<TensorRef>& ts,
                                                     void* stream) {
  std::vector<std::vector<int32_t>> h(ts.size());
  std::vector<cuda::HostCopy> copies;
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorRef& t = ts[i];
    if (!t.defined()) continue;
    h[i].resize(size_t(t.numel()));
    if (h[i].empty()) continue;
    if (t.device.type == DeviceType::CPU) {
      const int32_t* p = static_cast<const int32_t*>(t.data);
      std::copy(p, p + h[i].size(), h[i].begin());
    } else {
      copies.push_back({h[i].data(), t.data, h[i].size() * sizeof(int32_t)});
    }
  }
  if (!copies.empty()) cuda::copy_to_host(copies, stream);
  return h;
}

int64_t check_side_offsets(const SideOffsets& s, const std::vector<int32_t>& cu,
                           const std::vector<int32_t>& used) {
  std::vector<int64_t> capacity(size_t(s.batch), s.dense_len);
  if (s.jagged) {
    const std::string n = s.cu_name;
    if (cu[0] < 0) fail(n + ": offsets must be >= 0, got " + n + "[0] = " + std::to_string(cu[0]));
    for (int64_t b = 0; b < s.batch; ++b) {
      if (cu[b + 1] < cu[b]) {
        fail(n + ": offsets must be non-decreasing, got " + n + "[" + std::to_string(b) +
             "] = " + std::to_string(cu[b]) + " > " + n + "[" + std::to_string(b + 1) + "] = " +
             std::to_string(cu[b + 1]));
      }
      capacity[b] = int64_t(cu[b + 1]) - cu[b];
    }
    if (cu[s.batch] > s.rows) {
      fail(n + ": the last offset (" + std::to_string(cu[s.batch]) + ") exceeds the " +
           std::to_string(s.rows) + " rows of " + s.tensor_name);
    }
  }
  std::vector<int64_t> lengths = capacity;
  if (s.seqused.defined()) {
    for (int64_t b = 0; b < s.batch; ++b) {
      if (used[b] < 0 || used[b] > capacity[b]) {
        fail(std::string(s.used_name) + ": entry " + std::to_string(b) + " must lie in [0, " +
             std::to_string(capacity[b]) + "] (the length of sequence " + std::to_string(b) +
             "), got " + std::to_string(used[b]));
      }
      lengths[b] = used[b];
    }
  }
  int64_t max_len = 0;
  for (int64_t l : lengths) max_len = std::max(max_len, l);
  if (s.max_hint >= 0 && s.max_hint < max_len) {
    fail(std::string(s.max_name) + ": given as " + std::to_string(s.max_hint) +
         ", but a sequence has length " + std::to_string(max_len));
  }
  return max_len;
}

void check_batch_map(const std::vector<int32_t>& m, int64_t kv_batch) {
  for (size_t b = 0; b < m.size(); ++b) {
    if (m[b] < 0 || m[b] >= kv_batch) {
      fail("q_to_kv: entry " + std::to_string(b) + " must lie in [0, " +
           std::to_string(kv_batch) + ") (the number of kv sequences), got " +
           std::to_string(m[b]));
    }
  }
}

}  // namespace amkl::api
