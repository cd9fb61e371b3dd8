// The problem shapes and masks the CPU attention tests sweep. Small, so the float64
// reference stays fast, but each stresses something: ragged lengths (0, 1, odd, Lq != Lk),
// several tiles per side (the CPU tiles are 384 query rows x 64 keys), GQA ratios 1/2/3,
// d_v != d, mixed dense/jagged sides, q_to_kv, seqused, strided and broadcast inputs.
#pragma once

#include <string>
#include <vector>

#include "test_support.h"

namespace amkl::test {

inline SideSpec dense(int64_t batch, int64_t len) {
  SideSpec s;
  s.dense_len = len;
  s.len.assign(size_t(batch), len);
  return s;
}
inline SideSpec dense_used(int64_t len, std::vector<int64_t> used) {
  SideSpec s;
  s.dense_len = len;
  s.len = std::move(used);
  s.seqused = true;
  return s;
}
inline SideSpec jagged(std::vector<int64_t> lens, int64_t first_row = 0, int64_t tail = 0) {
  SideSpec s;
  s.len = std::move(lens);
  s.jagged_first_row = first_row;
  s.jagged_tail_rows = tail;
  return s;
}

/// The structural cases (float64; tests change dtype where they need to).
inline std::vector<ProblemSpec> structural_cases() {
  std::vector<ProblemSpec> c;
  auto add = [&](std::string name, int64_t h, int64_t hkv, int64_t d, int64_t dv, SideSpec q,
                 SideSpec kv) -> ProblemSpec& {
    ProblemSpec p;
    p.name = std::move(name);
    p.heads = h;
    p.heads_kv = hkv;
    p.d = d;
    p.dv = dv;
    p.q = std::move(q);
    p.kv = std::move(kv);
    c.push_back(p);
    return c.back();
  };
  add("dense_square", 2, 2, 8, 8, dense(2, 37), dense(2, 37));
  add("dense_lq_lt_lk_gqa3_dv_ne_d", 3, 1, 16, 8, dense(2, 20), dense(2, 45));
  add("dense_lq_gt_lk_gqa2", 4, 2, 8, 8, dense(1, 33), dense(1, 14));
  add("jagged_ragged_0_1_odd", 4, 2, 8, 12, jagged({0, 1, 17, 5}, 1, 2),
      jagged({3, 0, 29, 5}, 0, 3));
  add("dense_q_jagged_kv", 2, 1, 8, 8, dense(3, 9), jagged({12, 1, 30}));
  add("jagged_q_dense_kv", 2, 2, 8, 4, jagged({13, 2}), dense(2, 21));
  add("q_to_kv", 2, 1, 8, 8, jagged({5, 9, 4}), jagged({11, 7}, 2)).q_to_kv = {1, 0, 1};
  add("seqused_dense", 2, 2, 8, 8, dense_used(24, {24, 7}), dense_used(24, {10, 24}));
  {
    ProblemSpec& p = add("seqused_jagged", 3, 3, 8, 8, jagged({10, 6}), jagged({12, 9}));
    p.q.used = {7, 6};
    p.kv.used = {12, 0};
  }
  add("padded_strides", 2, 1, 8, 8, dense(2, 19), dense(2, 23)).arrangement = Arrangement::Padded;
  add("head_major_jagged", 2, 2, 8, 8, jagged({11, 4}), jagged({7, 13})).arrangement =
      Arrangement::HeadMajor;
  add("head_major_dense", 2, 1, 16, 8, dense(2, 15), dense(2, 15)).arrangement =
      Arrangement::HeadMajor;
  add("broadcast_q", 2, 2, 8, 8, dense(3, 6), dense_used(16, {16, 5, 11})).broadcast_q = true;
  add("multi_tile_dense", 2, 1, 16, 24, dense(1, 400), dense(1, 150));
  add("multi_tile_jagged", 2, 2, 8, 8, jagged({100, 0, 97}), jagged({130, 65, 1}));
  return c;
}

/// Masks: (name, causal, window_left, window_right).
struct MaskCase {
  const char* name;
  bool causal;
  int64_t left, right;
};
inline std::vector<MaskCase> mask_cases() {
  return {{"none", false, -1, -1},   {"causal", true, -1, -1},    {"window_3_2", false, 3, 2},
          {"causal_window_4", true, 4, 0}, {"window_left_only", false, 5, -1},
          {"window_right_only", false, -1, 1}, {"window_0_0", false, 0, 0}};
}

inline AttentionOptions options_for(Activation a, const MaskCase& m, MaskAlign align) {
  AttentionOptions o;
  o.activation = a;
  o.causal = m.causal;
  o.window_left = m.left;
  o.window_right = m.causal ? -1 : m.right;
  if (m.causal && m.right == 0) o.window_right = 0;
  o.mask_align = align;
  return o;
}

inline std::string describe(const ProblemSpec& s, const AttentionOptions& o, const MaskCase& m) {
  return s.name + " / " + activation_name(o.activation) + " / mask " + m.name + " / align " +
         (o.mask_align == MaskAlign::BottomRight ? "bottom_right" : "top_left") + " / " +
         dtype_name(s.dtype) + "->" + dtype_name(s.out_dtype);
}

}  // namespace amkl::test
