// The launch side's half of the boundary between the host API and the
// kernels: a tessel::GemmArgs (host/gemm.hpp) becomes the plain Params<T>
// a kernel takes (kernels/gemm/common.cuh).  Kept out of the kernel headers
// so that they do not depend on the host API.
#pragma once

#include "tessel/host/gemm.hpp"
#include "tessel/kernels/gemm/common.cuh"

namespace tessel::gemm_launch {

/// `g` as kernel parameters with A and B of type T; T must be the type that
/// g.ab_type names (with_types in dispatch.hpp picks it).
template <class T>
gemm_kernels::Params<T> make_params(const GemmArgs& g) {
  return gemm_kernels::Params<T>{{},
                                 static_cast<const T*>(g.a),
                                 static_cast<const T*>(g.b),
                                 g.c,
                                 g.d,
                                 g.m,
                                 g.n,
                                 g.k,
                                 g.lda,
                                 g.ldb,
                                 g.ldc,
                                 g.ldd,
                                 g.alpha,
                                 g.beta,
                                 g.cd_type,
                                 g.alpha_device,
                                 g.beta_device};
}

}  // namespace tessel::gemm_launch
