// Per-op work model: FLOPs and bytes of one PyTorch op from its recorded
// shapes (Kineto `Input Dims`, `Input type`, `Concrete Inputs`).
//
// Contract: pure functions of strings. ParseShapeArgs() reads the verbatim JSON
// text the importer keeps on model::RangeTable; ModelOpWork() applies the
// formula of the op's class (docs/throughput.md lists every formula and where
// it differs from TraceLens on purpose). Unknown ops, unparseable shapes or a
// dtype without a byte size give missing (NaN) figures, never 0.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/gpu_arch/gpu_peaks.h"

namespace gpuwhy::analysis {

// OpClass: what kind of work an op does (matrix classes count toward MFU).
enum class OpClass : uint8_t {
  kNone,         // not modelled
  kGemm,         // mm, addmm, bmm, baddbmm, _scaled_mm (+ linear/matmul fallback)
  kConv,         // convolution fwd / bwd
  kAttention,    // SDPA flash / efficient / cuDNN, flash_attn fwd / bwd
  kElementwise,  // unary / binary pointwise, copies
  kReduce,       // sum, mean, max, ...
  kNorm,         // batch / layer norm fwd / bwd
  kSoftmax,      // softmax fwd / bwd
  kEmbedding,    // embedding, index_select gathers
};
inline constexpr int kOpClassCount = 9;

// ToString: "gemm", "conv", "attention", "elementwise", "reduce", "norm",
// "softmax", "embedding", "none".
std::string_view ToString(OpClass c);

// IsMatrixClass: GEMM, convolution and attention (the MFU numerator).
inline bool IsMatrixClass(OpClass c) {
  return c == OpClass::kGemm || c == OpClass::kConv || c == OpClass::kAttention;
}

// OpRole: how an op name takes part in attribution. kPrimary ops carry a model;
// kComposite ops (aten::linear, aten::matmul, aten::conv2d,
// aten::scaled_dot_product_attention) are modelled only when no descendant op
// is (their modelled children carry the numbers, as in TraceLens).
enum class OpRole : uint8_t { kNone, kPrimary, kComposite };

// RoleOf: the role of an op name (a cheap table lookup).
OpRole RoleOf(std::string_view op_name);

// ShapeArgs: the parsed recorded shapes of one op. dims[i] is empty for a
// non-tensor argument (Scalar, None); dims_ok[i] is false where the entry was
// not a flat list of integers (a TensorList).
struct ShapeArgs {
  std::vector<std::vector<int64_t>> dims;
  std::vector<bool> dims_ok;
  std::vector<std::string> types;
  std::vector<std::string> concrete;
};

// ParseShapeArgs: parse the JSON text of Input Dims / Input type / Concrete
// Inputs (each may be empty). Returns false when dims_text is empty or not a
// JSON list.
bool ParseShapeArgs(std::string_view dims_text, std::string_view types_text,
                    std::string_view concrete_text, ShapeArgs* out);

// BytesPerElement: bytes of one element of a PyTorch dtype name as the
// profiler writes it ("c10::BFloat16", "float", "long int", "Scalar" = 4 as in
// TraceLens); NaN for an unknown name.
double BytesPerElement(std::string_view dtype);

// PrecisionOf: the compute precision of a dtype name (unknown for int64 etc.).
Precision PrecisionOf(std::string_view dtype);

// OpWork: the modelled work of one op instance.
struct OpWork {
  OpClass op_class = OpClass::kNone;
  double flops = kNaN;   // FLOPs per call
  double bytes = kNaN;   // DRAM bytes per call (model: each operand once)
  Precision precision = Precision::kUnknown;
  std::string params;    // "M=141 N=512 K=512 bias", "B=1 Hq=8 Nq=141 ..."
  std::string note;      // why figures are missing, or a modelling caveat
  static constexpr double kNaN = __builtin_nan("");
};

// ModelOpWork: the work of op `name` with shapes `a`; op_class kNone when the
// name has no model, NaN figures (with note) when the shapes do not fit it.
OpWork ModelOpWork(std::string_view name, const ShapeArgs& a);

}  // namespace gpuwhy::analysis
