#include "inject/trace_translator.h"

#include <zlib.h>

#include <cstring>

namespace gpuwhy::inject {
namespace {

constexpr size_t kMaxPayload = 8u << 20;  // well under wire::kMaxFrameBytes

template <typename T>
void Put(std::string& s, const T& v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// StripVersion: "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
std::string_view StripVersion(std::string_view n) {
  size_t p = n.rfind("_v");
  if (p == std::string_view::npos || p + 2 >= n.size()) return n;
  for (size_t i = p + 2; i < n.size(); ++i)
    if (n[i] < '0' || n[i] > '9') return n;
  return n.substr(0, p);
}

// Records: append `n` fixed-size records from `recs` as frames of `type`.
void Records(std::string& out, wire::FrameType type, const std::string& recs, size_t rec_bytes) {
  size_t per = kMaxPayload / rec_bytes;
  std::string payload;
  for (size_t off = 0; off < recs.size(); off += per * rec_bytes) {
    size_t bytes = std::min(recs.size() - off, per * rec_bytes);
    payload.clear();
    Put<uint32_t>(payload, static_cast<uint32_t>(bytes / rec_bytes));
    payload.append(recs, off, bytes);
    AppendFrame(out, type, payload);
  }
}

}  // namespace

void AppendFrame(std::string& out, wire::FrameType type, std::string_view payload) {
  uint16_t t = static_cast<uint16_t>(type);
  uint16_t flags = 0;
  unsigned char tf[4];
  std::memcpy(tf, &t, 2);
  std::memcpy(tf + 2, &flags, 2);
  uLong crc = crc32(0L, tf, 4);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  Put<uint32_t>(out, static_cast<uint32_t>(payload.size()));
  Put<uint16_t>(out, t);
  Put<uint16_t>(out, flags);
  Put<uint32_t>(out, static_cast<uint32_t>(crc));
  out.append(payload);
}

TraceTranslator::TraceTranslator(NextRecordFn next, CallbackNameFn callback_name,
                                 int64_t clock_offset_ns)
    : next_(next), callback_name_(callback_name), offset_ns_(clock_offset_ns) {}

size_t TraceTranslator::pending_bytes() const {
  return kernels_.size() + copies_.size() + api_.size() + syncs_.size() + ranges_.size() +
         new_names_.size() + new_contexts_.size();
}

uint32_t TraceTranslator::NameId(std::string_view text) {
  auto it = by_text_.find(std::string(text));
  if (it != by_text_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(by_text_.size()) + 1;
  by_text_.emplace(std::string(text), id);
  Put<uint32_t>(new_names_, id);
  Put<uint32_t>(new_names_, static_cast<uint32_t>(text.size()));
  new_names_.append(text);
  ++n_new_names_;
  return id;
}

uint32_t TraceTranslator::NameId(const char* text) {
  if (text == nullptr) return 0;
  auto it = by_pointer_.find(text);
  if (it != by_pointer_.end()) return it->second;
  uint32_t id = NameId(std::string_view(text));
  // Bounded: a program that generates names without end is served by by_text_.
  if (by_pointer_.size() < (1u << 20)) by_pointer_.emplace(text, id);
  return id;
}

uint32_t TraceTranslator::ApiNameId(CUpti_ActivityKind kind, uint32_t cbid) {
  uint64_t key = (static_cast<uint64_t>(kind) << 32) | cbid;
  auto it = api_names_.find(key);
  if (it != api_names_.end()) return it->second;
  const char* name = nullptr;
  CUpti_CallbackDomain dom = kind == CUPTI_ACTIVITY_KIND_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API
                                                                : CUPTI_CB_DOMAIN_RUNTIME_API;
  uint32_t id;
  if (kind != CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API && callback_name_ != nullptr &&
      callback_name_(dom, cbid, &name) == CUPTI_SUCCESS && name != nullptr) {
    id = NameId(StripVersion(name));
  } else if (kind == CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API) {
    id = NameId(std::string_view("internal launch"));
  } else {
    id = NameId(std::string_view(
        (kind == CUPTI_ACTIVITY_KIND_DRIVER ? "driver cbid " : "runtime cbid ") +
        std::to_string(cbid)));
  }
  api_names_.emplace(key, id);
  return id;
}

void TraceTranslator::Context(uint32_t context, uint32_t device) {
  auto [it, fresh] = contexts_.try_emplace(context, device);
  if (!fresh && it->second == device) return;
  it->second = device;
  Put<uint32_t>(new_contexts_, context);
  Put<uint32_t>(new_contexts_, device);
  ++n_new_contexts_;
}

uint64_t TraceTranslator::Translate(uint8_t* buffer, size_t valid_bytes) {
  if (buffer == nullptr || valid_bytes == 0 || next_ == nullptr) return 0;
  CUpti_Activity* r = nullptr;
  uint64_t n = 0;
  while (next_(buffer, valid_bytes, &r) == CUPTI_SUCCESS && r != nullptr) {
    One(r);
    ++n;
  }
  stats_[static_cast<size_t>(wire::TraceStat::kRecords)] += n;
  ++stats_[static_cast<size_t>(wire::TraceStat::kBuffers)];
  return n;
}

void TraceTranslator::One(const CUpti_Activity* r) {
  auto bump = [&](wire::TraceStat s, uint64_t v = 1) { stats_[static_cast<size_t>(s)] += v; };
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      // Kernel10 in 13.0; every field read here is in the Kernel9 prefix too.
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      if (k->start == 0 && k->end == 0) {
        bump(wire::TraceStat::kMissingTimestamps);
        return;
      }
      wire::WireKernel w{};
      w.start_ns = Ts(k->start);
      w.end_ns = Ts(k->end);
      w.device = k->deviceId;
      w.context = k->contextId;
      w.stream = k->streamId;
      w.correlation = k->correlationId;
      w.name = NameId(k->name);
      w.graph_id = k->graphId;
      w.grid[0] = k->gridX, w.grid[1] = k->gridY, w.grid[2] = k->gridZ;
      w.block[0] = k->blockX, w.block[1] = k->blockY, w.block[2] = k->blockZ;
      w.registers_per_thread = k->registersPerThread;
      w.static_shared_bytes = k->staticSharedMemory;
      w.dynamic_shared_bytes = k->dynamicSharedMemory;
      Context(k->contextId, k->deviceId);
      Put(kernels_, w);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      if (m->start == 0 && m->end == 0) {
        bump(wire::TraceStat::kMissingTimestamps);
        return;
      }
      wire::WireCopy w{};
      w.start_ns = Ts(m->start);
      w.end_ns = Ts(m->end);
      w.bytes = static_cast<int64_t>(m->bytes);
      w.device = m->deviceId;
      w.context = m->contextId;
      w.stream = m->streamId;
      // [verify-on-GPU] Kineto links copies to their launch API by correlationId.
      w.correlation = m->correlationId;
      w.graph_id = m->graphId;
      w.op = static_cast<uint8_t>(wire::TraceCopyOp::kMemcpy);
      w.copy_kind = m->copyKind;
      w.src_kind = m->srcKind;
      w.dst_kind = m->dstKind;
      w.src_device = w.dst_device = wire::kTraceMissingU32;
      Context(m->contextId, m->deviceId);
      Put(copies_, w);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(r);
      if (m->start == 0 && m->end == 0) {
        bump(wire::TraceStat::kMissingTimestamps);
        return;
      }
      wire::WireCopy w{};
      w.start_ns = Ts(m->start);
      w.end_ns = Ts(m->end);
      w.bytes = static_cast<int64_t>(m->bytes);
      w.device = m->deviceId;
      w.context = m->contextId;
      w.stream = m->streamId;
      w.correlation = m->correlationId;
      w.graph_id = m->graphId;
      w.op = static_cast<uint8_t>(wire::TraceCopyOp::kPeerMemcpy);
      w.copy_kind = m->copyKind;
      w.src_kind = m->srcKind;
      w.dst_kind = m->dstKind;
      w.src_device = m->srcDeviceId;
      w.dst_device = m->dstDeviceId;
      Context(m->contextId, m->deviceId);
      Put(copies_, w);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      if (m->start == 0 && m->end == 0) {
        bump(wire::TraceStat::kMissingTimestamps);
        return;
      }
      wire::WireCopy w{};
      w.start_ns = Ts(m->start);
      w.end_ns = Ts(m->end);
      w.bytes = static_cast<int64_t>(m->bytes);
      w.device = m->deviceId;
      w.context = m->contextId;
      w.stream = m->streamId;
      w.correlation = m->correlationId;
      w.graph_id = m->graphId;
      w.op = static_cast<uint8_t>(wire::TraceCopyOp::kMemset);
      w.dst_kind = static_cast<uint8_t>(m->memoryKind);
      w.src_device = w.dst_device = wire::kTraceMissingU32;
      Context(m->contextId, m->deviceId);
      Put(copies_, w);
      return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
      wire::WireApi w{};
      w.start_ns = Ts(a->start);
      w.end_ns = Ts(a->end);
      w.tid = a->threadId;
      w.correlation = a->correlationId;
      w.cbid = a->cbid;
      w.name = ApiNameId(r->kind, a->cbid);
      w.kind = static_cast<uint8_t>(r->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? wire::TraceApiKind::kRuntime
                                    : r->kind == CUPTI_ACTIVITY_KIND_DRIVER
                                        ? wire::TraceApiKind::kDriver
                                        : wire::TraceApiKind::kInternalLaunch);
      w.return_value = static_cast<int32_t>(a->returnValue);
      Put(api_, w);
      return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(r);
      wire::WireSync w{};
      w.start_ns = Ts(s->start);
      w.end_ns = Ts(s->end);
      w.context = s->contextId;
      w.stream = s->streamId;
      w.correlation = s->correlationId;
      w.event_id = s->cudaEventId;
      w.type = static_cast<uint8_t>(s->type);
      Put(syncs_, w);
      return;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto* c = reinterpret_cast<const CUpti_ActivityContext3*>(r);
      Context(c->contextId, c->deviceId);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(r);
      uint32_t tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
                             m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS
                         ? m->objectId.pt.threadId
                         : wire::kTraceMissingU32;
      if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        if (open_ranges_.size() >= (1u << 16)) {
          bump(wire::TraceStat::kUnpairedRanges);
          return;
        }
        open_ranges_[m->id] = {Ts(m->timestamp), tid, NameId(m->name), NameId(m->domain)};
      } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        auto it = open_ranges_.find(m->id);
        if (it == open_ranges_.end()) {
          bump(wire::TraceStat::kUnpairedRanges);
          return;
        }
        wire::WireRange w{};
        w.start_ns = it->second.start_ns;
        w.end_ns = Ts(m->timestamp);
        w.tid = it->second.tid;
        w.name = it->second.name;
        w.domain = it->second.domain;
        open_ranges_.erase(it);
        Put(ranges_, w);
      } else {
        bump(wire::TraceStat::kOtherRecords);
      }
      return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(r);
      bump(wire::TraceStat::kOverheadRecords);
      if (o->end > o->start) bump(wire::TraceStat::kOverheadNs, o->end - o->start);
      return;
    }
    default:
      bump(wire::TraceStat::kOtherRecords);
      return;
  }
}

void TraceTranslator::TakeFrames(std::string& out) {
  if (n_new_names_ > 0) {
    std::string p;
    Put<uint32_t>(p, n_new_names_);
    p += new_names_;
    AppendFrame(out, wire::FrameType::kTraceNames, p);
    new_names_.clear();
    n_new_names_ = 0;
  }
  if (n_new_contexts_ > 0) {
    std::string p;
    Put<uint32_t>(p, n_new_contexts_);
    p += new_contexts_;
    AppendFrame(out, wire::FrameType::kTraceContexts, p);
    new_contexts_.clear();
    n_new_contexts_ = 0;
  }
  Records(out, wire::FrameType::kTraceKernels, kernels_, sizeof(wire::WireKernel));
  Records(out, wire::FrameType::kTraceCopies, copies_, sizeof(wire::WireCopy));
  Records(out, wire::FrameType::kTraceApi, api_, sizeof(wire::WireApi));
  Records(out, wire::FrameType::kTraceSyncs, syncs_, sizeof(wire::WireSync));
  Records(out, wire::FrameType::kTraceRanges, ranges_, sizeof(wire::WireRange));
  kernels_.clear();
  copies_.clear();
  api_.clear();
  syncs_.clear();
  ranges_.clear();
  std::string p;
  Put<uint32_t>(p, static_cast<uint32_t>(stats_.size()));
  for (uint64_t v : stats_) Put<uint64_t>(p, v);
  AppendFrame(out, wire::FrameType::kTraceStats, p);
}

}  // namespace gpuwhy::inject
