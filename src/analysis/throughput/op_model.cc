#include "analysis/throughput/op_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "base/ascii.h"
#include "base/units.h"

namespace gpuwhy::analysis {

namespace {

constexpr double kNaN = kMissingF64;

// Model: which formula an op name uses.
enum class Model : uint8_t {
  kNone, kMm, kAddmm, kScaledMm, kBmm, kBaddbmm, kLinear, kMatmul,
  kConv, kConvBwd, kConvComposite,
  kSdpaFlash, kSdpaEfficient, kSdpaCudnn, kFlashAttn, kSdpaFlashBwd, kSdpaEfficientBwd,
  kSdpaCudnnBwd, kFlashAttnBwd, kSdpaComposite, kFlashAttnVarlen, kFlashAttnVarlenBwd,
  kUnary, kBinary, kReduce, kBatchNorm, kCudnnBatchNormBwd, kBatchNormBwd, kLayerNorm,
  kLayerNormBwd, kGroupNorm, kNativeGroupNorm, kGroupNormBwd, kRmsNorm, kRmsNormBwd,
  kVllmRmsNorm, kVllmFusedAddRmsNorm, kRmsNormComposite,
  kSoftmax, kSoftmaxBwd, kEmbedding, kIndexSelect, kEmbeddingBwd,
};

const std::unordered_map<std::string_view, Model>& ModelTable() {
  static const auto* table = new std::unordered_map<std::string_view, Model>{
      {"aten::mm", Model::kMm}, {"aten::addmm", Model::kAddmm},
      {"aten::_scaled_mm", Model::kScaledMm}, {"aten::bmm", Model::kBmm},
      {"aten::baddbmm", Model::kBaddbmm}, {"aten::linear", Model::kLinear},
      {"aten::matmul", Model::kMatmul},
      {"aten::convolution", Model::kConv}, {"aten::convolution_backward", Model::kConvBwd},
      {"aten::conv1d", Model::kConvComposite}, {"aten::conv2d", Model::kConvComposite},
      {"aten::conv3d", Model::kConvComposite},
      {"aten::_scaled_dot_product_flash_attention", Model::kSdpaFlash},
      {"aten::_scaled_dot_product_efficient_attention", Model::kSdpaEfficient},
      {"aten::_scaled_dot_product_cudnn_attention", Model::kSdpaCudnn},
      {"flash_attn::_flash_attn_forward", Model::kFlashAttn},
      {"aten::_scaled_dot_product_flash_attention_backward", Model::kSdpaFlashBwd},
      {"aten::_scaled_dot_product_efficient_attention_backward", Model::kSdpaEfficientBwd},
      {"aten::_scaled_dot_product_cudnn_attention_backward", Model::kSdpaCudnnBwd},
      {"flash_attn::_flash_attn_backward", Model::kFlashAttnBwd},
      {"aten::scaled_dot_product_attention", Model::kSdpaComposite},
      {"flash_attn::_flash_attn_varlen_forward", Model::kFlashAttnVarlen},
      {"flash_attn::_flash_attn_varlen_backward", Model::kFlashAttnVarlenBwd},
      // Unary pointwise (TraceLens's list first, then ours).
      {"aten::copy", Model::kUnary}, {"aten::copy_", Model::kUnary},
      {"aten::clamp_min", Model::kUnary}, {"aten::clamp_min_", Model::kUnary},
      {"aten::clamp_max", Model::kUnary}, {"aten::clamp_max_", Model::kUnary},
      {"aten::sigmoid", Model::kUnary}, {"aten::rsqrt", Model::kUnary},
      {"aten::silu", Model::kUnary}, {"aten::neg", Model::kUnary}, {"aten::pow", Model::kUnary},
      {"aten::relu", Model::kUnary}, {"aten::relu_", Model::kUnary},
      {"aten::gelu", Model::kUnary}, {"aten::tanh", Model::kUnary},
      {"aten::exp", Model::kUnary}, {"aten::log", Model::kUnary},
      {"aten::sqrt", Model::kUnary}, {"aten::abs", Model::kUnary},
      {"aten::sin", Model::kUnary}, {"aten::cos", Model::kUnary},
      {"aten::silu_", Model::kUnary}, {"aten::sigmoid_", Model::kUnary},
      // Binary pointwise.
      {"aten::div", Model::kBinary}, {"aten::div_", Model::kBinary},
      {"aten::mul", Model::kBinary}, {"aten::mul_", Model::kBinary},
      {"aten::add", Model::kBinary}, {"aten::add_", Model::kBinary},
      {"aten::sigmoid_backward", Model::kBinary}, {"aten::threshold_backward", Model::kBinary},
      {"aten::sub", Model::kBinary}, {"aten::sub_", Model::kBinary},
      {"aten::gelu_backward", Model::kBinary}, {"aten::silu_backward", Model::kBinary},
      {"aten::maximum", Model::kBinary}, {"aten::minimum", Model::kBinary},
      // Reductions.
      {"aten::sum", Model::kReduce}, {"aten::mean", Model::kReduce},
      {"aten::max", Model::kReduce}, {"aten::min", Model::kReduce},
      {"aten::norm", Model::kReduce}, {"aten::linalg_norm", Model::kReduce},
      {"aten::std", Model::kReduce}, {"aten::var", Model::kReduce},
      {"aten::logsumexp", Model::kReduce}, {"aten::cumsum", Model::kReduce},
      {"aten::cumprod", Model::kReduce}, {"aten::amin", Model::kReduce},
      {"aten::amax", Model::kReduce},
      // Norms.
      {"aten::batch_norm", Model::kBatchNorm}, {"aten::native_batch_norm", Model::kBatchNorm},
      {"aten::cudnn_batch_norm", Model::kBatchNorm},
      {"aten::miopen_batch_norm", Model::kBatchNorm},
      {"aten::native_batch_norm_backward", Model::kBatchNormBwd},
      {"aten::batch_norm_backward", Model::kBatchNormBwd},
      {"aten::cudnn_batch_norm_backward", Model::kCudnnBatchNormBwd},
      {"aten::miopen_batch_norm_backward", Model::kCudnnBatchNormBwd},
      {"aten::layer_norm", Model::kLayerNorm}, {"aten::native_layer_norm", Model::kLayerNorm},
      // Norms TraceLens does not model from Kineto shapes.
      {"aten::native_layer_norm_backward", Model::kLayerNormBwd},
      {"aten::group_norm", Model::kGroupNorm}, {"aten::native_group_norm", Model::kNativeGroupNorm},
      {"aten::native_group_norm_backward", Model::kGroupNormBwd},
      {"aten::_fused_rms_norm", Model::kRmsNorm},
      {"aten::_fused_rms_norm_backward", Model::kRmsNormBwd},
      {"aten::rms_norm", Model::kRmsNormComposite},
      {"_C::rms_norm", Model::kVllmRmsNorm}, {"_C::fused_add_rms_norm", Model::kVllmFusedAddRmsNorm},
      // Softmax and gathers (not modelled by TraceLens).
      {"aten::_softmax", Model::kSoftmax}, {"aten::_log_softmax", Model::kSoftmax},
      {"aten::_softmax_backward_data", Model::kSoftmaxBwd},
      {"aten::_log_softmax_backward_data", Model::kSoftmaxBwd},
      {"aten::embedding", Model::kEmbedding}, {"aten::index_select", Model::kIndexSelect},
      {"aten::embedding_dense_backward", Model::kEmbeddingBwd},
  };
  return *table;
}

Model ModelOf(std::string_view name) {
  const auto& t = ModelTable();
  auto it = t.find(name);
  return it == t.end() ? Model::kNone : it->second;
}

// ---- tiny JSON-list readers (the profiler's own, well-formed output) ----

void SkipWs(std::string_view s, size_t& i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
}

// ReadString: a JSON string at s[i] == '"' (escapes kept minimal: \" \\ \/).
bool ReadString(std::string_view s, size_t& i, std::string* out) {
  if (i >= s.size() || s[i] != '"') return false;
  ++i;
  out->clear();
  while (i < s.size() && s[i] != '"') {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out->push_back(s[i++]);
  }
  if (i >= s.size()) return false;
  ++i;
  return true;
}

// SkipValue: any JSON value (nested lists, strings, numbers, literals).
bool SkipValue(std::string_view s, size_t& i) {
  SkipWs(s, i);
  if (i >= s.size()) return false;
  if (s[i] == '"') {
    std::string tmp;
    return ReadString(s, i, &tmp);
  }
  if (s[i] == '[' || s[i] == '{') {
    int depth = 0;
    std::string tmp;
    while (i < s.size()) {
      char c = s[i];
      if (c == '"') {
        if (!ReadString(s, i, &tmp)) return false;
        continue;
      }
      if (c == '[' || c == '{') ++depth;
      if (c == ']' || c == '}') {
        --depth;
        if (depth == 0) {
          ++i;
          return true;
        }
      }
      ++i;
    }
    return false;
  }
  while (i < s.size() && s[i] != ',' && s[i] != ']' && s[i] != '}') ++i;
  return true;
}

// ForEachItem: call f(i) at the start of each item of the list at s[i] == '['.
template <typename F>
bool ForEachItem(std::string_view s, F&& f) {
  size_t i = 0;
  SkipWs(s, i);
  if (i >= s.size() || s[i] != '[') return false;
  ++i;
  SkipWs(s, i);
  if (i < s.size() && s[i] == ']') return true;
  while (i < s.size()) {
    SkipWs(s, i);
    if (!f(i)) return false;
    SkipWs(s, i);
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    return i < s.size() && s[i] == ']';
  }
  return false;
}

// ReadIntList: "[1, 2, 3]" at s[i]; false (value skipped) when not flat ints.
bool ReadIntList(std::string_view s, size_t& i, std::vector<int64_t>* out) {
  size_t start = i;
  out->clear();
  if (i >= s.size() || s[i] != '[') {
    SkipValue(s, i);
    return false;
  }
  ++i;
  for (;;) {
    SkipWs(s, i);
    if (i >= s.size()) return false;
    if (s[i] == ']') {
      ++i;
      return true;
    }
    if (s[i] == ',') {
      ++i;
      continue;
    }
    if (s[i] == '-' || std::isdigit(static_cast<unsigned char>(s[i]))) {
      bool neg = s[i] == '-';
      if (neg) ++i;
      int64_t v = 0;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        v = v * 10 + (s[i] - '0');
        ++i;
      }
      out->push_back(neg ? -v : v);
      continue;
    }
    // Nested list (TensorList) or something else: skip the whole value.
    i = start;
    SkipValue(s, i);
    out->clear();
    return false;
  }
}

double Prod(const std::vector<int64_t>& d) {
  double p = 1;
  for (int64_t v : d) p *= static_cast<double>(v);
  return p;
}

// ParseIntTuple: "[1, 2]" or "1" (a Concrete Inputs string); empty when "".
std::vector<int64_t> ParseIntTuple(std::string_view s) {
  std::vector<int64_t> out;
  int64_t v = 0;
  bool in = false, neg = false;
  for (char c : s) {
    if (c == '-') {
      neg = true;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      v = v * 10 + (c - '0');
      in = true;
    } else if (in) {
      out.push_back(neg ? -v : v);
      v = 0;
      in = neg = false;
    }
  }
  if (in) out.push_back(neg ? -v : v);
  return out;
}

bool IsTrue(std::string_view s) { return s == "True" || s == "true" || s == "1"; }

std::string_view At(const std::vector<std::string>& v, size_t i) {
  return i < v.size() ? std::string_view(v[i]) : std::string_view();
}

const std::vector<int64_t>& DimsAt(const ShapeArgs& a, size_t i) {
  static const std::vector<int64_t> kEmpty;
  return i < a.dims.size() ? a.dims[i] : kEmpty;
}

// ---- formulas ----

struct Gemm {
  double b = 1, m = 0, n = 0, k = 0;
  bool bias = false;
};

void GemmWork(const Gemm& g, double bpe, double bpe_out, OpWork* w) {
  w->flops = g.b * (2 * g.m * g.n * g.k + (g.bias ? g.m * g.n : 0));
  w->bytes = g.b * (g.m * g.k * bpe + g.k * g.n * bpe + g.m * g.n * bpe_out + (g.bias ? g.n * bpe : 0));
  w->params = fmt::format("{}M={} N={} K={}{}", g.b != 1 ? fmt::format("B={} ", g.b) : "", g.m, g.n,
                          g.k, g.bias ? " bias" : "");
}

bool ModelGemm(Model m, const ShapeArgs& a, OpWork* w) {
  w->op_class = OpClass::kGemm;
  Gemm g;
  size_t ia = 0;
  if (m == Model::kAddmm || m == Model::kBaddbmm) ia = 1;
  const auto& A = DimsAt(a, ia);
  const auto& B = DimsAt(a, ia + 1);
  std::string_view ta = At(a.types, ia);
  if (m == Model::kBmm || m == Model::kBaddbmm) {
    if (A.size() != 3 || B.size() != 3) return false;
    g.b = static_cast<double>(A[0]);
    g.m = static_cast<double>(A[1]);
    g.k = static_cast<double>(A[2]);
    g.n = static_cast<double>(B[2]);
  } else if (m == Model::kLinear) {
    // linear(input [..., K], weight [N, K], bias [N]): the fallback when no
    // child mm/addmm carries the shapes.
    if (A.empty() || B.size() != 2) return false;
    ia = 0;
    const auto& X = DimsAt(a, 0);
    const auto& W = DimsAt(a, 1);
    if (X.empty()) return false;
    g.k = static_cast<double>(X.back());
    g.m = Prod(X) / std::max<double>(1, g.k);
    g.n = static_cast<double>(W[0]);
    g.bias = !DimsAt(a, 2).empty();
    ta = At(a.types, 0);
  } else if (m == Model::kMatmul) {
    if (A.size() < 2 || B.size() < 2) return false;
    g.m = static_cast<double>(A[A.size() - 2]);
    g.k = static_cast<double>(A.back());
    g.n = static_cast<double>(B.back());
    std::vector<int64_t> batch(A.begin(), A.end() - 2);
    g.b = Prod(batch);
  } else {
    if (A.size() != 2 || B.size() != 2) return false;
    g.m = static_cast<double>(A[0]);
    g.k = static_cast<double>(A[1]);
    g.n = static_cast<double>(B[1]);
  }
  if (m == Model::kAddmm || m == Model::kBaddbmm) g.bias = true;
  if (m == Model::kScaledMm) g.bias = a.dims.size() == 3;  // as TraceLens (see docs)
  double bpe = BytesPerElement(ta);
  double bpe_out = bpe;
  if (m == Model::kScaledMm) bpe_out = bpe == 1 ? 2 : bpe;  // fp8 in, 16-bit out
  w->precision = PrecisionOf(ta);
  GemmWork(g, bpe, bpe_out, w);
  return true;
}

bool ModelConv(Model m, const ShapeArgs& a, OpWork* w) {
  w->op_class = OpClass::kConv;
  bool bwd = m == Model::kConvBwd;
  size_t ix = bwd ? 1 : 0;
  size_t ci = bwd ? 4 : 3;  // stride index in Concrete Inputs
  const auto& X = DimsAt(a, ix);
  const auto& Wt = DimsAt(a, ix + 1);
  if (X.size() < 3 || Wt.size() != X.size()) return false;
  if (a.concrete.size() < ci + 6) {
    w->note = "no Concrete Inputs (stride/padding)";
    return false;
  }
  size_t nd = X.size() - 2;
  auto param = [&](size_t idx, int64_t def) {
    std::vector<int64_t> v = ParseIntTuple(a.concrete[idx]);
    if (v.empty()) v.assign(nd, def);
    if (v.size() == 1) v.assign(nd, v[0]);
    return v;
  };
  std::vector<int64_t> stride = param(ci, 1), pad = param(ci + 1, 0), dil = param(ci + 2, 1);
  bool transposed = IsTrue(a.concrete[ci + 3]);
  std::vector<int64_t> opad = param(ci + 4, 0);
  if (stride.size() != nd || pad.size() != nd || dil.size() != nd || opad.size() != nd) return false;
  bool bias = bwd ? !DimsAt(a, 3).empty() : a.dims.size() == 3 || !DimsAt(a, 2).empty();
  if (!bwd) bias = !DimsAt(a, 2).empty();
  std::vector<int64_t> out = {X[0], transposed ? Wt[1] : Wt[0]};
  for (size_t i = 0; i < nd; ++i) {
    int64_t in = X[2 + i], k = Wt[2 + i];
    int64_t o = transposed ? (in - 1) * stride[i] - 2 * pad[i] + dil[i] * (k - 1) + opad[i] + 1
                           : (in + 2 * pad[i] - dil[i] * (k - 1) - 1) / std::max<int64_t>(1, stride[i]) + 1;
    out.push_back(o);
  }
  std::vector<int64_t> wtail(Wt.begin() + 1, Wt.end());
  auto flops_fn = [](const std::vector<int64_t>& x, const std::vector<int64_t>& wt,
                     const std::vector<int64_t>& o, bool b, bool tr) {
    std::vector<int64_t> t(wt.begin() + 1, wt.end());
    double per = 2 * Prod(t);
    return (tr ? Prod(x) : Prod(o)) * per + (b ? Prod(o) : 0);
  };
  auto tr = [](std::vector<int64_t> s) {
    std::swap(s[0], s[1]);
    return s;
  };
  auto bytes_fn = [](const std::vector<int64_t>& x, const std::vector<int64_t>& wt,
                     const std::vector<int64_t>& o, bool b, double bpe) {
    return (Prod(x) + Prod(wt) + (b ? static_cast<double>(o[1]) : 0) + Prod(o)) * bpe;
  };
  std::string_view tx = At(a.types, ix);
  double bpe = BytesPerElement(tx);
  if (At(a.types, ix) != At(a.types, ix + 1)) w->note = "input and weight dtypes differ";
  w->precision = PrecisionOf(tx);
  if (!bwd) {
    w->flops = flops_fn(X, Wt, out, bias, transposed);
    w->bytes = bytes_fn(X, Wt, out, bias, bpe);
  } else {
    double fin = flops_fn(out, Wt, X, false, !transposed);
    double fw = transposed ? flops_fn(tr(out), tr(X), tr(Wt), false, false)
                           : flops_fn(tr(X), tr(out), tr(Wt), false, false);
    w->flops = fin + fw + (bias ? Prod(out) : 0);
    w->bytes = bytes_fn(out, Wt, X, false, bpe) + bytes_fn(out, X, Wt, false, bpe) +
               (bias ? Prod(out) + static_cast<double>(out[1]) : 0);
  }
  w->params = fmt::format("x={} w={} stride={} pad={}{}{}", fmt::join(X, "x"), fmt::join(Wt, "x"),
                          fmt::join(stride, ","), fmt::join(pad, ","), bias ? " bias" : "",
                          transposed ? " transposed" : "");
  return true;
}

bool ModelAttention(Model m, const ShapeArgs& a, OpWork* w) {
  w->op_class = OpClass::kAttention;
  bool bwd = m == Model::kSdpaFlashBwd || m == Model::kSdpaEfficientBwd ||
             m == Model::kSdpaCudnnBwd || m == Model::kFlashAttnBwd;
  // Backward ops take dO first: (dO, q, k, v, out, ...).
  size_t iq = bwd ? 1 : 0;
  const auto& Q = DimsAt(a, iq);
  const auto& K = DimsAt(a, iq + 1);
  const auto& V = DimsAt(a, iq + 2);
  if (Q.size() != 4 || K.size() != 4 || V.size() != 4) return false;
  // aten SDPA is B,H,N,d; flash_attn is B,N,H,d.
  bool bnhd = m == Model::kFlashAttn || m == Model::kFlashAttnBwd;
  size_t ih = bnhd ? 2 : 1, in = bnhd ? 1 : 2;
  double b = static_cast<double>(Q[0]), hq = static_cast<double>(Q[ih]);
  double nq = static_cast<double>(Q[in]), dqk = static_cast<double>(Q[3]);
  double hkv = static_cast<double>(K[ih]), nkv = static_cast<double>(K[in]);
  double dv = static_cast<double>(V[3]);
  size_t causal_idx = 0;
  switch (m) {
    case Model::kSdpaFlash: causal_idx = 4; break;
    case Model::kSdpaEfficient:
    case Model::kSdpaCudnn: causal_idx = 6; break;
    case Model::kFlashAttn: causal_idx = 5; break;
    case Model::kSdpaFlashBwd:
    case Model::kSdpaEfficientBwd: causal_idx = 11; break;
    // flash_attn 2.x: _flash_attn_backward(dout, q, k, v, out, softmax_lse,
    // dq, dk, dv, dropout_p, softmax_scale, causal, ...).
    case Model::kFlashAttnBwd: causal_idx = 11; break;
    default: causal_idx = 0; break;
  }
  bool causal = causal_idx != 0 && IsTrue(At(a.concrete, causal_idx));
  double pairs = nq * nkv;
  if (causal) {
    // Equal lengths: half the score matrix (as TraceLens and flash-attention's
    // benchmark); otherwise the top-left-aligned mask counted exactly.
    if (nq == nkv) pairs = nq * nkv / 2;
    else if (nq <= nkv) pairs = nq * (nq + 1) / 2;
    else pairs = nkv * (nkv + 1) / 2 + (nq - nkv) * nkv;
  }
  std::string_view tq = At(a.types, iq);
  double bpe = BytesPerElement(tq);
  w->precision = PrecisionOf(tq);
  double fwd_flops = b * hq * 2 * pairs * (dqk + dv);
  double fwd_bytes = (b * nq * hq * dqk + b * nkv * hkv * (dqk + dv) + b * nq * hq * dv) * bpe;
  // Backward: 5 matmuls (QK^T recompute, dV, dP, dQ, dK) against the 2 of the
  // forward; reads q,k,v,o,dO and writes dq,dk,dv.
  w->flops = bwd ? 2.5 * fwd_flops : fwd_flops;
  w->bytes = bwd ? 2 * fwd_bytes : fwd_bytes;
  w->params = fmt::format("B={} Hq={} Hkv={} Nq={} Nkv={} d={}{}", b, hq, hkv, nq, nkv, dqk,
                          causal ? " causal" : "");
  return true;
}

// ModelVarlenAttention: flash_attn's varlen ops, q (total_q, Hq, d), k/v
// (total_kv, Hkv, d), cu_seqlens (B+1). The per-sequence lengths are tensor
// values the profiler does not record, so the B sequences are taken as equal
// (total/B each): by convexity the fewest FLOPs those totals allow, capped by
// total_q x max_seqlen_k; the note says so.
bool ModelVarlenAttention(Model m, const ShapeArgs& a, OpWork* w) {
  w->op_class = OpClass::kAttention;
  bool bwd = m == Model::kFlashAttnVarlenBwd;
  // fwd: (q, k, v, cu_q, cu_k, max_q, max_k, dropout, scale, causal, ...)
  // bwd: (dout, q, k, v, out, lse, dq, dk, dv, cu_q, cu_k, max_q, max_k,
  //       dropout, scale, causal, ...)
  size_t iq = bwd ? 1 : 0, icu = bwd ? 9 : 3, imax = bwd ? 11 : 5, icausal = bwd ? 15 : 9;
  const auto& Q = DimsAt(a, iq);
  const auto& K = DimsAt(a, iq + 1);
  const auto& V = DimsAt(a, iq + 2);
  const auto& cu = DimsAt(a, icu);
  if (Q.size() != 3 || K.size() != 3 || V.size() != 3 || cu.size() != 1 || cu[0] < 2) return false;
  double b = static_cast<double>(cu[0] - 1);
  double tq = static_cast<double>(Q[0]), hq = static_cast<double>(Q[1]);
  double dqk = static_cast<double>(Q[2]);
  double tk = static_cast<double>(K[0]), hkv = static_cast<double>(K[1]);
  double dv = static_cast<double>(V[2]);
  std::vector<int64_t> maxk = ParseIntTuple(At(a.concrete, imax + 1));
  bool causal = IsTrue(At(a.concrete, icausal));
  double pairs = tq * tk / b;
  if (!maxk.empty() && maxk[0] > 0) pairs = std::min(pairs, tq * static_cast<double>(maxk[0]));
  if (causal && tq == tk) pairs /= 2;
  std::string_view tqt = At(a.types, iq);
  double bpe = BytesPerElement(tqt);
  w->precision = PrecisionOf(tqt);
  double fwd_flops = hq * 2 * pairs * (dqk + dv);
  double fwd_bytes = (tq * hq * dqk + tk * hkv * (dqk + dv) + tq * hq * dv) * bpe;
  w->flops = bwd ? 2.5 * fwd_flops : fwd_flops;
  w->bytes = bwd ? 2 * fwd_bytes : fwd_bytes;
  w->params = fmt::format("varlen B={} Hq={} Hkv={} total_q={} total_kv={} d={}{}", b, hq, hkv, tq,
                          tk, dqk, causal ? " causal" : "");
  w->note = "varlen: sequences taken as equal length (per-sequence lengths are not recorded)";
  return true;
}

bool ModelPointwise(Model m, const ShapeArgs& a, OpWork* w) {
  w->op_class = OpClass::kElementwise;
  if (m == Model::kUnary) {
    double n = Prod(DimsAt(a, 0));
    double bin = BytesPerElement(At(a.types, 0));
    double bout = a.dims.size() > 1 && !DimsAt(a, 1).empty() ? BytesPerElement(At(a.types, 1)) : bin;
    w->flops = n;
    w->bytes = n * bin + n * bout;
    w->precision = PrecisionOf(At(a.types, 0));
    w->params = fmt::format("n={}", n);
    return true;
  }
  const auto& s1 = DimsAt(a, 0);
  const auto& s2 = DimsAt(a, 1);
  size_t nd = std::max(s1.size(), s2.size());
  std::vector<int64_t> out(nd, 1);
  for (size_t i = 0; i < nd; ++i) {
    int64_t d1 = i + s1.size() >= nd ? s1[i + s1.size() - nd] : 1;
    int64_t d2 = i + s2.size() >= nd ? s2[i + s2.size() - nd] : 1;
    if (d1 != d2 && d1 != 1 && d2 != 1) return false;
    out[i] = std::max(d1, d2);
  }
  double b1 = BytesPerElement(At(a.types, 0)), b2 = BytesPerElement(At(a.types, 1));
  double bo;
  if (a.dims.size() > 2 && !DimsAt(a, 2).empty()) bo = BytesPerElement(At(a.types, 2));
  else if (!s1.empty() && !s2.empty()) bo = std::max(b1, b2);
  else bo = b1;
  double n1 = Prod(s1), n2 = Prod(s2), no = Prod(out);
  w->flops = no;
  w->bytes = n1 * b1 + n2 * b2 + no * bo;
  w->precision = PrecisionOf(At(a.types, 0));
  w->params = fmt::format("n={}", no);
  return true;
}

bool ModelReduce(std::string_view name, const ShapeArgs& a, OpWork* w) {
  w->op_class = OpClass::kReduce;
  const auto& x = DimsAt(a, 0);
  double nin = Prod(x);
  double nout = 1;
  if (name.find("cumsum") != std::string_view::npos || name.find("cumprod") != std::string_view::npos) {
    nout = nin;
  } else if (a.concrete.size() >= 2 && !a.concrete[1].empty()) {
    // dim (and keepdim) from Concrete Inputs; TraceLens leaves these unparsed
    // (docs/throughput.md).
    std::vector<int64_t> dims = ParseIntTuple(a.concrete[1]);
    bool keep = IsTrue(At(a.concrete, 2));
    if (!dims.empty() && a.concrete[1].find('.') == std::string::npos) {
      std::vector<int64_t> shape = x;
      std::vector<bool> drop(shape.size(), false);
      for (int64_t d : dims) {
        if (d < 0) d += static_cast<int64_t>(shape.size());
        if (d >= 0 && d < static_cast<int64_t>(shape.size())) drop[static_cast<size_t>(d)] = true;
      }
      nout = 1;
      for (size_t i = 0; i < shape.size(); ++i)
        if (!drop[i]) nout *= static_cast<double>(shape[i]);
      (void)keep;  // keepdim changes the shape, not the element count
    }
  }
  double bpe = BytesPerElement(At(a.types, 0));
  w->flops = nin;
  w->bytes = nin * bpe + nout * bpe;
  w->precision = PrecisionOf(At(a.types, 0));
  w->params = fmt::format("n_in={} n_out={}", nin, nout);
  return true;
}

double NormFlops(bool training, double n, double c) {
  return c * 3 + (training ? n * 3 : 0) + c * 3 + 2 * n;
}

double NormBytes(bool affine, bool bias, bool training, double n, double c, double bin, double bout) {
  double k = 2 + (affine ? 1 + (bias ? 1 : 0) : 0) + (training ? 2 : 0);
  return n * bin + n * bout + k * c * bin;
}

bool ModelNorm(Model m, const ShapeArgs& a, OpWork* w) {
  w->op_class = OpClass::kNorm;
  if (m == Model::kBatchNorm) {
    const auto& x = DimsAt(a, 0);
    if (x.size() < 2) return false;
    double n = Prod(x), c = static_cast<double>(x[1]);
    // TraceLens reads training as bool(str): only an empty string is false.
    bool training = a.concrete.size() > 5 ? IsTrue(a.concrete[5]) : true;
    bool affine = !DimsAt(a, 1).empty(), bias = !DimsAt(a, 2).empty();
    double bpe = BytesPerElement(At(a.types, 0));
    w->flops = NormFlops(training, n, c);
    w->bytes = NormBytes(affine, bias, training, n, c, bpe, bpe);
    w->precision = PrecisionOf(At(a.types, 0));
    w->params = fmt::format("x={} C={}{}", fmt::join(x, "x"), c, training ? " training" : "");
    return true;
  }
  if (m == Model::kLayerNorm) {
    const auto& x = DimsAt(a, 0);
    std::vector<int64_t> ns = ParseIntTuple(At(a.concrete, 1));
    if (x.empty() || ns.empty()) return false;
    double n = Prod(x), c = Prod(ns);
    bool affine = !DimsAt(a, 2).empty(), bias = !DimsAt(a, 3).empty();
    double bpe = BytesPerElement(At(a.types, 0));
    w->flops = NormFlops(true, n, c);
    w->bytes = NormBytes(affine, bias, true, n, c, bpe, bpe);
    w->precision = PrecisionOf(At(a.types, 0));
    w->params = fmt::format("x={} C={}", fmt::join(x, "x"), c);
    return true;
  }
  // Batch-norm backward (TraceLens's BatchNormBwd with output_mask [True]).
  bool cudnn = m == Model::kCudnnBatchNormBwd;
  size_t ix = cudnn ? 0 : 1;
  const auto& x = DimsAt(a, ix);
  if (x.size() < 2) return false;
  double n = Prod(x), c = static_cast<double>(x[1]);
  bool training = cudnn ? false : (a.concrete.size() > 7 ? IsTrue(a.concrete[7]) : true);
  bool affine = !DimsAt(a, 2).empty();
  double bpe = BytesPerElement(At(a.types, ix));
  double epc = n / c;
  double fpc = (training ? 0 : 3) + 4 * epc + (training ? 5 * epc : 0);
  w->flops = c * fpc;
  double bytes = n * bpe + n * bpe * (training ? 2 : 1);
  if (training) bytes += c * bpe;
  if (affine) {
    bytes += c * bpe;
    if (training) bytes += c * bpe * 2;
  }
  w->bytes = bytes;
  w->precision = PrecisionOf(At(a.types, ix));
  w->params = fmt::format("x={} C={}{}", fmt::join(x, "x"), c, training ? " training" : "");
  return true;
}

// ModelNormExtra: the norms beyond TraceLens's set: layer-norm and group-norm
// backward, group norm, RMS norm (PyTorch's fused op and vLLM's kernels).
// Per element: forward RMS norm squares, sums, scales and multiplies by the
// weight (4 FLOPs; +1 for vLLM's fused residual add); a backward recomputes
// x-hat, forms dy*w and dy*w*x-hat, two row reductions and the combine
// (8 FLOPs; RMS norm 6), plus 3 for the weight/bias gradients. Bytes: each
// operand once; mean/rstd statistics at their recorded dtype (fp32 when not
// recorded).
bool ModelNormExtra(Model m, const ShapeArgs& a, OpWork* w) {
  w->op_class = OpClass::kNorm;
  auto stats_bpe = [&](size_t i) {
    double b = BytesPerElement(At(a.types, i));
    return std::isfinite(b) ? b : 4.0;
  };
  switch (m) {
    case Model::kLayerNormBwd: {
      // (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
      const auto& x = DimsAt(a, 1);
      std::vector<int64_t> ns = ParseIntTuple(At(a.concrete, 2));
      const auto& wt = DimsAt(a, 5);
      double c = !ns.empty() ? Prod(ns) : (!wt.empty() ? Prod(wt) : kNaN);
      if (x.empty() || !std::isfinite(c) || c <= 0) return false;
      double n = Prod(x), rows = n / c;
      bool affine = !wt.empty();
      double bpe = BytesPerElement(At(a.types, 1));
      w->flops = 8 * n + (affine ? 3 * n : 0);
      w->bytes = 3 * n * bpe + 2 * rows * stats_bpe(3) + (affine ? 3 * c * bpe : 0);
      w->precision = PrecisionOf(At(a.types, 1));
      w->params = fmt::format("x={} C={}", fmt::join(x, "x"), c);
      return true;
    }
    case Model::kGroupNorm:
    case Model::kNativeGroupNorm: {
      // group_norm(input, num_groups, weight, bias, eps, cudnn_enabled);
      // native_group_norm(input, weight, bias, N, C, HxW, group, eps).
      const auto& x = DimsAt(a, 0);
      if (x.size() < 2) return false;
      size_t iw = m == Model::kGroupNorm ? 2 : 1;
      double n = Prod(x), c = static_cast<double>(x[1]);
      bool affine = !DimsAt(a, iw).empty(), bias = !DimsAt(a, iw + 1).empty();
      double bpe = BytesPerElement(At(a.types, 0));
      w->flops = NormFlops(true, n, c);
      w->bytes = NormBytes(affine, bias, true, n, c, bpe, bpe);
      w->precision = PrecisionOf(At(a.types, 0));
      w->params = fmt::format("x={} C={} groups={}", fmt::join(x, "x"), c,
                              At(a.concrete, m == Model::kGroupNorm ? 1 : 6));
      return true;
    }
    case Model::kGroupNormBwd: {
      // (grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)
      const auto& x = DimsAt(a, 1);
      if (x.size() < 2) return false;
      double n = Prod(x), c = static_cast<double>(x[1]);
      double stats = Prod(DimsAt(a, 2));
      bool affine = !DimsAt(a, 4).empty();
      double bpe = BytesPerElement(At(a.types, 1));
      w->flops = 8 * n + (affine ? 3 * n : 0);
      w->bytes = 3 * n * bpe + 2 * stats * stats_bpe(2) + (affine ? 3 * c * bpe : 0);
      w->precision = PrecisionOf(At(a.types, 1));
      w->params = fmt::format("x={} C={}", fmt::join(x, "x"), c);
      return true;
    }
    case Model::kRmsNorm:
    case Model::kRmsNormComposite:
    case Model::kRmsNormBwd: {
      // _fused_rms_norm / rms_norm(input, normalized_shape, weight, eps);
      // _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight, output_mask).
      bool bwd = m == Model::kRmsNormBwd;
      size_t ix = bwd ? 1 : 0, ins = bwd ? 2 : 1, iw = bwd ? 4 : 2;
      const auto& x = DimsAt(a, ix);
      const auto& wt = DimsAt(a, iw);
      std::vector<int64_t> ns = ParseIntTuple(At(a.concrete, ins));
      double c = !ns.empty() ? Prod(ns) : (!wt.empty() ? Prod(wt) : kNaN);
      if (x.empty() || !std::isfinite(c) || c <= 0) return false;
      double n = Prod(x), rows = n / c;
      bool affine = !wt.empty();
      double bpe = BytesPerElement(At(a.types, ix));
      if (!bwd) {
        w->flops = 4 * n;
        w->bytes = 2 * n * bpe + (affine ? c * bpe : 0) + rows * 4;  // rstd out (fp32)
      } else {
        w->flops = 6 * n + (affine ? 2 * n : 0);
        w->bytes = 3 * n * bpe + rows * stats_bpe(3) + (affine ? 2 * c * bpe : 0);
      }
      w->precision = PrecisionOf(At(a.types, ix));
      w->params = fmt::format("x={} C={}", fmt::join(x, "x"), c);
      return true;
    }
    case Model::kVllmRmsNorm:
    case Model::kVllmFusedAddRmsNorm: {
      // _C::rms_norm(out, input, weight, eps); _C::fused_add_rms_norm(input,
      // residual, weight, eps) normalizes input + residual in place and keeps
      // the sum in residual.
      bool fused = m == Model::kVllmFusedAddRmsNorm;
      const auto& x = DimsAt(a, fused ? 0 : 1);
      const auto& wt = DimsAt(a, 2);
      if (x.empty() || wt.empty()) return false;
      double n = Prod(x), c = Prod(wt);
      double bpe = BytesPerElement(At(a.types, fused ? 0 : 1));
      w->flops = fused ? 5 * n : 4 * n;
      w->bytes = (fused ? 4 : 2) * n * bpe + c * bpe;
      w->precision = PrecisionOf(At(a.types, fused ? 0 : 1));
      w->params = fmt::format("x={} C={}{}", fmt::join(x, "x"), c, fused ? " +residual" : "");
      return true;
    }
    default:
      return false;
  }
}

bool ModelOther(Model m, const ShapeArgs& a, OpWork* w) {
  switch (m) {
    case Model::kSoftmax: {
      w->op_class = OpClass::kSoftmax;
      double n = Prod(DimsAt(a, 0));
      double bin = BytesPerElement(At(a.types, 0));
      double bout = IsTrue(At(a.concrete, 2)) ? 4 : bin;  // half_to_float
      w->flops = 5 * n;  // max, subtract, exp, sum, divide
      w->bytes = n * bin + n * bout;
      w->precision = PrecisionOf(At(a.types, 0));
      w->params = fmt::format("n={}", n);
      return true;
    }
    case Model::kSoftmaxBwd: {
      w->op_class = OpClass::kSoftmax;
      double n = Prod(DimsAt(a, 0));
      double bpe = BytesPerElement(At(a.types, 0));
      w->flops = 3 * n;
      w->bytes = 3 * n * bpe;  // read dY and Y, write dX
      w->precision = PrecisionOf(At(a.types, 0));
      w->params = fmt::format("n={}", n);
      return true;
    }
    case Model::kEmbedding:
    case Model::kIndexSelect: {
      w->op_class = OpClass::kEmbedding;
      const auto& tbl = DimsAt(a, 0);
      size_t iidx = m == Model::kEmbedding ? 1 : 2;
      const auto& idx = DimsAt(a, iidx);
      if (tbl.size() != 2) return false;
      if (m == Model::kIndexSelect && At(a.concrete, 1) != "0") return false;
      double nidx = Prod(idx), d = static_cast<double>(tbl[1]);
      double bpe = BytesPerElement(At(a.types, 0));
      w->flops = 0;
      w->bytes = nidx * BytesPerElement(At(a.types, iidx)) + 2 * nidx * d * bpe;  // rows in, out
      w->precision = PrecisionOf(At(a.types, 0));
      w->params = fmt::format("rows={} dim={}", nidx, d);
      return true;
    }
    case Model::kEmbeddingBwd: {
      w->op_class = OpClass::kEmbedding;
      const auto& g = DimsAt(a, 0);
      if (g.empty()) return false;
      std::vector<int64_t> nw = ParseIntTuple(At(a.concrete, 2));
      double d = static_cast<double>(g.back());
      double ng = Prod(g);
      double bpe = BytesPerElement(At(a.types, 0));
      w->flops = ng;
      w->bytes = ng * bpe + Prod(DimsAt(a, 1)) * BytesPerElement(At(a.types, 1)) +
                 (nw.empty() ? 0 : static_cast<double>(nw[0]) * d * bpe);
      w->precision = PrecisionOf(At(a.types, 0));
      w->params = fmt::format("rows={} dim={}", ng / std::max(1.0, d), d);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

std::string_view ToString(OpClass c) {
  switch (c) {
    case OpClass::kGemm: return "gemm";
    case OpClass::kConv: return "conv";
    case OpClass::kAttention: return "attention";
    case OpClass::kElementwise: return "elementwise";
    case OpClass::kReduce: return "reduce";
    case OpClass::kNorm: return "norm";
    case OpClass::kSoftmax: return "softmax";
    case OpClass::kEmbedding: return "embedding";
    case OpClass::kNone: break;
  }
  return "none";
}

OpRole RoleOf(std::string_view op_name) {
  switch (ModelOf(op_name)) {
    case Model::kNone: return OpRole::kNone;
    case Model::kLinear:
    case Model::kMatmul:
    case Model::kConvComposite:
    case Model::kSdpaComposite:
    case Model::kRmsNormComposite: return OpRole::kComposite;
    default: return OpRole::kPrimary;
  }
}

bool ParseShapeArgs(std::string_view dims_text, std::string_view types_text,
                    std::string_view concrete_text, ShapeArgs* out) {
  out->dims.clear();
  out->dims_ok.clear();
  out->types.clear();
  out->concrete.clear();
  if (dims_text.empty()) return false;
  std::vector<int64_t> tmp;
  bool ok = ForEachItem(dims_text, [&](size_t& i) {
    bool flat = ReadIntList(dims_text, i, &tmp);
    out->dims.push_back(tmp);
    out->dims_ok.push_back(flat);
    return true;
  });
  if (!ok) return false;
  std::string s;
  auto read_strs = [&](std::string_view text, std::vector<std::string>* v) {
    if (text.empty()) return;
    ForEachItem(text, [&](size_t& i) {
      if (i < text.size() && text[i] == '"') {
        if (!ReadString(text, i, &s)) return false;
        v->push_back(s);
        return true;
      }
      size_t b = i;
      if (!SkipValue(text, i)) return false;
      v->emplace_back(text.substr(b, i - b));
      return true;
    });
  };
  read_strs(types_text, &out->types);
  read_strs(concrete_text, &out->concrete);
  return true;
}

double BytesPerElement(std::string_view dtype) {
  std::string t = AsciiLower(dtype);
  if (t == "double" || t == "long int" || t == "c10::complex<float>") return 8;
  if (t == "float" || t == "scalar" || t == "int") return 4;
  if (t == "c10::half" || t == "c10::bfloat16" || t == "short") return 2;
  if (t.rfind("c10::float8", 0) == 0 || t == "unsigned char" || t == "signed char" ||
      t == "fp8" || t == "bool" || t == "c10::float4_e2m1fn_x2" || t == "fp4")
    return 1;
  if (t == "c10::complex<double>") return 16;
  return kNaN;
}

Precision PrecisionOf(std::string_view dtype) {
  std::string t = AsciiLower(dtype);
  if (t == "float") return Precision::kFp32;
  if (t == "double") return Precision::kFp64;
  if (t == "c10::half") return Precision::kFp16;
  if (t == "c10::bfloat16") return Precision::kBf16;
  if (t.rfind("c10::float8", 0) == 0 || t == "fp8") return Precision::kFp8;
  if (t == "signed char" || t == "unsigned char") return Precision::kInt8;
  return Precision::kUnknown;
}

OpWork ModelOpWork(std::string_view name, const ShapeArgs& a) {
  OpWork w;
  Model m = ModelOf(name);
  bool ok = false;
  switch (m) {
    case Model::kNone: return w;
    case Model::kMm: case Model::kAddmm: case Model::kScaledMm: case Model::kBmm:
    case Model::kBaddbmm: case Model::kLinear: case Model::kMatmul:
      ok = ModelGemm(m, a, &w);
      break;
    case Model::kConv: case Model::kConvBwd:
      ok = ModelConv(m, a, &w);
      break;
    case Model::kConvComposite:
      w.op_class = OpClass::kConv;
      w.note = "composite conv op without a modelled child";
      return w;
    case Model::kSdpaComposite:
      w.op_class = OpClass::kAttention;
      w.note = "composite attention op without a modelled child";
      return w;
    case Model::kSdpaFlash: case Model::kSdpaEfficient: case Model::kSdpaCudnn:
    case Model::kFlashAttn: case Model::kSdpaFlashBwd: case Model::kSdpaEfficientBwd:
    case Model::kSdpaCudnnBwd: case Model::kFlashAttnBwd:
      ok = ModelAttention(m, a, &w);
      break;
    case Model::kFlashAttnVarlen: case Model::kFlashAttnVarlenBwd:
      ok = ModelVarlenAttention(m, a, &w);
      break;
    case Model::kLayerNormBwd: case Model::kGroupNorm: case Model::kNativeGroupNorm:
    case Model::kGroupNormBwd: case Model::kRmsNorm: case Model::kRmsNormBwd:
    case Model::kRmsNormComposite: case Model::kVllmRmsNorm: case Model::kVllmFusedAddRmsNorm:
      ok = ModelNormExtra(m, a, &w);
      break;
    case Model::kUnary: case Model::kBinary:
      ok = ModelPointwise(m, a, &w);
      break;
    case Model::kReduce:
      ok = ModelReduce(name, a, &w);
      break;
    case Model::kBatchNorm: case Model::kCudnnBatchNormBwd: case Model::kBatchNormBwd:
    case Model::kLayerNorm:
      ok = ModelNorm(m, a, &w);
      break;
    default:
      ok = ModelOther(m, a, &w);
      break;
  }
  if (!ok) {
    w.flops = kNaN;
    w.bytes = kNaN;
    if (w.note.empty()) w.note = "shapes do not fit the model";
  } else if (!std::isfinite(w.bytes) && w.note.empty()) {
    w.note = "dtype without a byte size";
  }
  return w;
}

}  // namespace gpuwhy::analysis
