// The translation unit of one run-time compiled k13 fused instance
// (src/jit/jit.hpp, K13Spec): a specialization of the same kernel template
// the ahead-of-time instances are, with the epilogue's values as constants.
#include <string>

#include "src/jit/jit.hpp"

namespace tessel::jit {

namespace {

const char* type_name(DType t) { return t == DType::f16 ? "__half" : "__nv_bfloat16"; }
const char* act_name(Activation a) {
  switch (a) {
    case Activation::none:
      return "::tessel::Activation::none";
    case Activation::relu:
      return "::tessel::Activation::relu";
    case Activation::gelu_erf:
      return "::tessel::Activation::gelu_erf";
    case Activation::gelu_tanh:
      return "::tessel::Activation::gelu_tanh";
    case Activation::silu:
      return "::tessel::Activation::silu";
  }
  return "?";
}
const char* bias_name(BiasKind b) {
  switch (b) {
    case BiasKind::none:
      return "::tessel::BiasKind::none";
    case BiasKind::row:
      return "::tessel::BiasKind::row";
    case BiasKind::col:
      return "::tessel::BiasKind::col";
  }
  return "?";
}

}  // namespace

std::string describe(const K13Spec& s) {
  return "k13 128x" + std::to_string(s.tile_n) + " " + name(s.ab) + " " + name(s.layout) + " " + name(s.act) +
         " bias " + name(s.bias) + (s.with_c ? " +C" : "") + (s.with_aux ? " +aux" : "");
}

std::string k13_epilogue_source(const K13Spec& s) {
  const std::string t = type_name(s.ab);
  const std::string ma = s.layout.a == MajorA::k ? "::tessel::MajorA::k" : "::tessel::MajorA::m";
  const std::string mb = s.layout.b == MajorB::n ? "::tessel::MajorB::n" : "::tessel::MajorB::k";
  const std::string epi = std::string("::tessel::gemm_kernels::StaticEpilogue<") + act_name(s.act) + ", " +
                          bias_name(s.bias) + ", " + (s.with_c ? "true" : "false") + ", " +
                          (s.with_aux ? "true" : "false") + ">";
  const std::string cfg =
      "::tessel::gemm_kernels::k13::SpecializedConfig<" + std::to_string(s.tile_n) + ", " + epi + ">";
  std::string src;
  src += "// tessel: a run-time compiled kernel (docs/design.md section 6; src/jit/k13_source.cpp)\n";
  src += "// kernel: " + describe(s) + "\n";
  src += "#include \"tessel/kernels/gemm/k13_wgmma_in_flight.cuh\"\n\n";
  src += "namespace tessel_jit {\n";
  src += "using T = " + t + ";\n";
  src += "using Cfg = " + cfg + ";\n";
  src += "using X = ::tessel::gemm_kernels::k13::Tiles<T, " + ma + ", " + mb + ", Cfg>;\n";
  src += "using Generic = ::tessel::gemm_kernels::k13::Tiles<T, " + ma + ", " + mb +
         ", ::tessel::gemm_kernels::k13::Config<" + std::to_string(s.tile_n) + ", true>>;\n";
  src +=
      "static_assert(X::kSmemBytes == Generic::kSmemBytes, \"the launcher sizes this kernel as the generic one\");\n";
  if (s.smem_bytes > 0)
    src += "static_assert(X::kSmemBytes == " + std::to_string(s.smem_bytes) +
           ", \"tessel's headers differ from the library's: shared memory\");\n";
  if (s.params_bytes > 0)
    src += "static_assert(sizeof(::tessel::gemm_kernels::FusedParams<T>) == " + std::to_string(s.params_bytes) +
           ", \"tessel's headers differ from the library's: parameters\");\n";
  src += "}  // namespace tessel_jit\n\n";
  src += "template __global__ void ::tessel::gemm_kernels::k13::gemm_wgmma_in_flight<" + t + ", " + ma + ", " + mb +
         ", " + cfg + ">(\n";
  src += "    const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,\n";
  src += "    const __grid_constant__ CUtensorMap, bool, bool, ::tessel::gemm_kernels::FusedParams<" + t + ">,\n";
  src += "    ::tessel::gemm_kernels::k13::SplitK, int);\n";
  return src;
}

}  // namespace tessel::jit
