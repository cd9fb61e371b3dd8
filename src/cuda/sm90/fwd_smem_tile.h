// The smem tile layout of the Hopper forward's Q, K, V (and O staging) buffers: 128-byte
// swizzled, K-major, in blocks of 64 columns (the WGMMA's SW128 atom of 8 rows x 64 16-bit
// elements, tiled rows first). Its own header so that host code can check it without the
// kernel's device code (tests/cpp/test_sm90_q_stage_layout.cpp).
#pragma once

#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>

namespace amkl::cuda::sm90 {

/// A (Rows, Cols) tile of Element (Rows, Cols: cute integral constants).
template <class Element, class Rows, class Cols>
using SmemTile = decltype(cute::tile_to_shape(cute::GMMA::Layout_K_SW128_Atom<Element>{},
                                              cute::Shape<Rows, Cols>{}));

}  // namespace amkl::cuda::sm90
