// Compile check: every generic tessel header, used from device code, for
// sm_90a.  Exercises the three ways a layout appears in a kernel: folded at
// compile time (StaticLayout), built from run-time extents and transformed by
// the algebra on the device, and swizzled.
#include "tessel/tessel.hpp"

using namespace tessel;

namespace {

constexpr Layout kTile = make_layout(make_shape(_8{}, _64{}), LayoutRight{});
constexpr SwizzledLayout kSmem = compose(Swizzle{3, 3, 3}, tile_to_shape(kTile, make_shape(128, 64)).value());

}  // namespace

// Extern kernels, so that nvcc generates their code (and the SASS checks of
// later kernels can inspect it).
__global__ void static_layouts(int* out) {
  // Everything about these layouts is known here: only index arithmetic remains.
  constexpr StaticLayout<logical_divide(kTile, make_tiler(2, 8)).value()> divided;
  constexpr StaticSwizzledLayout<kSmem> smem;
  const int i = static_cast<int>(threadIdx.x);
  out[i] = divided(i) + smem(i);
}

__global__ void dynamic_layouts(index_t* out, int m, int k) {
  // A global m x k row-major matrix, tiled by 128 x 64 on the device.
  const Layout global = make_layout(make_shape(m, k), LayoutRight{});
  const auto tiles = zipped_divide(global, make_tiler(_128{}, _64{}));
  if (!tiles.ok()) return;
  out[threadIdx.x] = tiles.val(static_cast<index_t>(threadIdx.x));
}
