#include "import/xplane/xplane_importer.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <google/protobuf/arena.h>
#include <google/protobuf/wire_format_lite.h>

#include "base/ascii.h"
#include "base/input_stream.h"
#include "base/units.h"
#include "xplane.pb.h"

namespace gpuwhy::import {

namespace {

namespace pb = tensorflow::profiler;
using WireType = google::protobuf::internal::WireFormatLite::WireType;
using google::protobuf::internal::WireFormatLite;
using model::ImportStat;
using model::RangeKind;

constexpr std::string_view kXplaneUtf8Replacement = "\xEF\xBF\xBD";
// Line timestamps at or past this are nanoseconds since the epoch (1973);
// below it they are relative to the profile's start (post-processed XSpace).
constexpr int64_t kXplaneEpochNsFloor = int64_t{100'000'000} * kNsPerS;

bool XplaneStartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

// XplaneDeviceOrdinal: N of "/device:GPU:N" / "/device:TPU:N" (nothing after
// the digits); nullopt otherwise (SparseCore, custom devices).
std::optional<int32_t> XplaneDeviceOrdinal(std::string_view name, std::string_view prefix) {
  if (!XplaneStartsWith(name, prefix)) return std::nullopt;
  std::string_view digits = name.substr(prefix.size());
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  int32_t n = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || p != digits.data() + digits.size() || n < 0) return std::nullopt;
  return n;
}

// XplaneFloorDiv1000: floor(v / 1000) for a picosecond count, and its
// remainder in [0, 1000).
int64_t XplaneFloorDiv1000(int64_t v, int64_t* rem) {
  int64_t q = v / 1000, r = v % 1000;
  if (r < 0) {
    --q;
    r += 1000;
  }
  *rem = r;
  return q;
}

// XplaneField: one field of a message, by byte offsets into the file.
struct XplaneField {
  uint32_t number = 0;
  size_t tag_at = 0;  // first byte of the field (its tag)
  size_t begin = 0;   // first byte of the value (length-delimited: after the length)
  size_t size = 0;    // value bytes after `begin` (0 for a varint: begin is past it)
  bool delimited = false;
};

// XplaneFraming: where and why a message's framing broke: the field (0: its
// tag itself is bad), the byte offset of its tag, and what is wrong.
struct XplaneFraming {
  uint32_t number = 0;
  size_t at = 0;
  std::string problem;
};

// XplaneFramingText: "field N at byte P <problem>" (`subject` replaces
// "field N" when given).
std::string XplaneFramingText(const XplaneFraming& b, const std::string& subject = {}) {
  if (b.number == 0) return fmt::format("bad field tag at byte {}", b.at);
  return fmt::format("{} at byte {} {}", subject.empty() ? fmt::format("field {}", b.number) : subject,
                     b.at, b.problem);
}

// XplaneReadVarint: a base-128 varint at bytes[*pos] before `end`.
bool XplaneReadVarint(std::string_view bytes, size_t end, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *pos < end; shift += 7) {
    auto b = static_cast<uint8_t>(bytes[(*pos)++]);
    v |= uint64_t{b & 0x7Fu} << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

// XplaneFields: the fields of the message in bytes[begin, begin + size), in
// order, calling `fn(const XplaneField&)` for each (it returns false to stop);
// checks framing only (tags, lengths), not the values. On broken framing,
// fills *bad and returns false.
template <typename Fn>
bool XplaneFields(std::string_view bytes, size_t begin, size_t size, XplaneFraming* bad, Fn&& fn) {
  const size_t end = begin + size;
  size_t pos = begin;
  while (pos < end) {
    XplaneField f;
    f.tag_at = pos;
    uint64_t tag = 0;
    if (!XplaneReadVarint(bytes, end, &pos, &tag) || tag > 0xFFFFFFFFu ||
        WireFormatLite::GetTagFieldNumber(static_cast<uint32_t>(tag)) == 0) {
      *bad = {0, f.tag_at, "is not a field tag"};
      return false;
    }
    f.number = WireFormatLite::GetTagFieldNumber(static_cast<uint32_t>(tag));
    const auto type = WireFormatLite::GetTagWireType(static_cast<uint32_t>(tag));
    uint64_t len = 0;
    switch (type) {
      case WireFormatLite::WIRETYPE_VARINT: {
        uint64_t v = 0;
        if (!XplaneReadVarint(bytes, end, &pos, &v)) {
          *bad = {f.number, f.tag_at, "is cut inside its value"};
          return false;
        }
        f.begin = pos;
        if (!fn(f)) return true;
        continue;
      }
      case WireFormatLite::WIRETYPE_FIXED64: len = 8; break;
      case WireFormatLite::WIRETYPE_FIXED32: len = 4; break;
      case WireFormatLite::WIRETYPE_LENGTH_DELIMITED:
        if (!XplaneReadVarint(bytes, end, &pos, &len)) {
          *bad = {f.number, f.tag_at, "is cut inside its length"};
          return false;
        }
        f.delimited = true;
        break;
      default:
        *bad = {f.number, f.tag_at, fmt::format("has wire type {}", static_cast<int>(type))};
        return false;
    }
    if (len > end - pos) {
      *bad = {f.number, f.tag_at, fmt::format("declares {} bytes, {} remain", len, end - pos)};
      return false;
    }
    f.begin = pos;
    f.size = static_cast<size_t>(len);
    pos += f.size;
    if (!fn(f)) return true;
  }
  return true;
}

// XplaneLineHead: a line's name and whether it has events, read from its bytes
// without parsing the events.
struct XplaneLineHead {
  std::string_view name;
  bool has_events = false;
};

XplaneLineHead XplaneReadLineHead(std::string_view bytes, const XplaneField& line) {
  XplaneLineHead h;
  XplaneFraming bad;
  bool named = false;
  // Fields come in number order (id 1, name 2, timestamp 3, events 4, ...):
  // the scan stops at the first event once the name is known.
  XplaneFields(bytes, line.begin, line.size, &bad, [&](const XplaneField& f) {
    if (f.number == 2 && f.delimited) {
      h.name = bytes.substr(f.begin, f.size);
      named = true;
    }
    if (f.number == 4 && f.delimited) h.has_events = true;
    return !(named && h.has_events);
  });
  return h;
}

// XplaneStatValue: one stat, resolved against its plane's stat metadata.
struct XplaneStatValue {
  bool present = false;
  bool is_int = false;
  int64_t i = 0;
  double d = 0;
  std::string_view s;
  bool is_str = false;
};

// XplaneLineView: one line, its events parsed one at a time into one reused
// XEvent as they are iterated (a line of a million events never exists as
// objects). The XLine API the reader uses, on the line without its events.
// An event that does not parse ends the iteration and sets failed_event().
class XplaneLineView {
 public:
  XplaneLineView(const pb::XLine& head, std::string_view bytes,
                 const std::vector<XplaneField>& events, pb::XEvent* scratch)
      : head_(head), bytes_(bytes), events_(events), ev_(scratch) {}

  int64_t id() const { return head_.id(); }
  const std::string& name() const { return head_.name(); }
  const std::string& display_name() const { return head_.display_name(); }
  int64_t timestamp_ns() const { return head_.timestamp_ns(); }
  size_t events_size() const { return events_.size(); }

  class Iter {
   public:
    Iter(XplaneLineView* v, size_t i) : v_(v), i_(i) { Load(); }
    const pb::XEvent& operator*() const { return *v_->ev_; }
    Iter& operator++() {
      ++i_;
      Load();
      return *this;
    }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }

   private:
    void Load() {
      if (i_ >= v_->events_.size()) {
        i_ = v_->events_.size();
        return;
      }
      const XplaneField& f = v_->events_[i_];
      if (f.size > static_cast<size_t>(std::numeric_limits<int>::max()) ||
          !v_->ev_->ParseFromArray(v_->bytes_.data() + f.begin, static_cast<int>(f.size))) {
        v_->failed_ = &f;
        v_->failed_index_ = i_;
        i_ = v_->events_.size();
      }
    }
    XplaneLineView* v_;
    size_t i_;
  };
  struct Range {
    XplaneLineView* v;
    Iter begin() const { return Iter(v, 0); }
    Iter end() const { return Iter(v, v->events_.size()); }
  };
  Range events() { return Range{this}; }

  // failed_event: the event field that did not parse (its index in
  // failed_index()), or nullptr.
  const XplaneField* failed_event() const { return failed_; }
  size_t failed_index() const { return failed_index_; }

 private:
  const pb::XLine& head_;
  std::string_view bytes_;
  const std::vector<XplaneField>& events_;
  pb::XEvent* ev_;
  const XplaneField* failed_ = nullptr;
  size_t failed_index_ = 0;
};

// XplaneSeen: streams and threads already added, across planes.
struct XplaneSeen {
  std::set<std::pair<int32_t, int64_t>> streams;
  std::set<int64_t> tids;
};

// XplanePlaneReader: maps one plane into the trace. `plane` is the plane
// without its lines; `lines` are the line fields, each parsed on its own arena
// when it is read, so that the largest line (not the largest plane) sets the
// parse's memory.
class XplanePlaneReader {
 public:
  XplanePlaneReader(const pb::XPlane& plane, std::string_view bytes,
                    std::vector<XplaneField> lines, std::string where, XplaneSeen* seen,
                    model::Trace& trace)
      : plane_(plane), bytes_(bytes), lines_(std::move(lines)), where_(std::move(where)),
        seen_(seen), trace_(trace) {
    for (const auto& [id, m] : plane_.stat_metadata()) {
      stat_names_.emplace(id, m.name());
      if (m.name() == "correlation_id") correlation_ = id;
      else if (m.name() == "kernel_details") kernel_details_ = id;
      else if (m.name() == "memcpy_details") memcpy_details_ = id;
      else if (m.name() == "Memset_details") memset_details_ = id;
      else if (m.name() == "memalloc_details" || m.name() == "MemFree_details" ||
               m.name() == "MemoryResidency_details")
        memory_other_.insert(id);
      else if (m.name() == "step_num") step_num_ = id;
      else if (m.name() == "group_id") group_id_ = id;
    }
  }

  // ForEachLine: fn(XplaneLineView&) for each line in turn; an error names
  // the line or event that does not parse. Lines with events raise
  // max_line_timestamp_ns().
  template <typename Fn>
  Status ForEachLine(Fn&& fn) {
    pb::XLine head;
    pb::XEvent scratch;
    std::vector<XplaneField> events;
    std::string head_bytes;
    for (size_t i = 0; i < lines_.size(); ++i) {
      const XplaneField& f = lines_[i];
      events.clear();
      head_bytes.clear();
      XplaneFraming bad;
      bool framed = XplaneFields(bytes_, f.begin, f.size, &bad, [&](const XplaneField& g) {
        if (g.number == 4 && g.delimited) events.push_back(g);
        else head_bytes.append(bytes_.substr(g.tag_at, g.begin + g.size - g.tag_at));
        return true;
      });
      if (!framed)
        return InvalidInput(fmt::format("{}, line {} (bytes {}-{}) does not parse as an XLine: {}",
                                        where_, i + 1, f.begin, f.begin + f.size,
                                        XplaneFramingText(bad)));
      if (!head.ParseFromString(head_bytes))
        return InvalidInput(fmt::format("{}, line {} (bytes {}-{}) does not parse as an XLine",
                                        where_, i + 1, f.begin, f.begin + f.size));
      if (!events.empty()) max_line_ts_ = std::max(max_line_ts_, head.timestamp_ns());
      XplaneLineView view(head, bytes_, events, &scratch);
      fn(view);
      if (const XplaneField* e = view.failed_event())
        return InvalidInput(fmt::format(
            "{}, line {}, event {} (bytes {}-{}) does not parse as an XEvent", where_, i + 1,
            view.failed_index() + 1, e->begin, e->begin + e->size));
    }
    return Status::Ok();
  }

  // AnyEvents: true when some line holds an event (from the line heads).
  bool AnyEvents() const {
    for (const XplaneField& f : lines_)
      if (XplaneReadLineHead(bytes_, f).has_events) return true;
    return false;
  }

  int64_t max_line_timestamp_ns() const { return max_line_ts_; }

  // Stat: the stat with metadata id `id` on the event, else on its metadata.
  XplaneStatValue Stat(const pb::XEvent& ev, const pb::XEventMetadata* md,
                       std::optional<int64_t> id) const {
    XplaneStatValue v;
    if (!id) return v;
    for (const pb::XStat& s : ev.stats())
      if (s.metadata_id() == *id) return Value(s);
    if (md != nullptr)
      for (const pb::XStat& s : md->stats())
        if (s.metadata_id() == *id) return Value(s);
    return v;
  }

  XplaneStatValue Value(const pb::XStat& s) const {
    XplaneStatValue v;
    v.present = true;
    switch (s.value_case()) {
      case pb::XStat::kInt64Value: v.is_int = true; v.i = s.int64_value(); break;
      case pb::XStat::kUint64Value:
        v.is_int = s.uint64_value() <= uint64_t{std::numeric_limits<int64_t>::max()};
        v.i = static_cast<int64_t>(s.uint64_value());
        v.present = v.is_int;
        break;
      case pb::XStat::kDoubleValue: v.d = s.double_value(); break;
      case pb::XStat::kStrValue: v.is_str = true; v.s = s.str_value(); break;
      case pb::XStat::kRefValue: {
        auto it = stat_names_.find(static_cast<int64_t>(s.ref_value()));
        if (it == stat_names_.end()) {
          trace_.stats.Bump(ImportStat::unknown_metadata_id);
          v.present = false;
        } else {
          v.is_str = true;
          v.s = it->second;
        }
        break;
      }
      default: v.present = false; break;
    }
    return v;
  }

  // PlaneStat: a plane-level stat by name.
  XplaneStatValue PlaneStat(std::string_view name) const {
    for (const pb::XStat& s : plane_.stats()) {
      auto it = stat_names_.find(s.metadata_id());
      if (it != stat_names_.end() && it->second == name) return Value(s);
    }
    return {};
  }

  const pb::XEventMetadata* Metadata(const pb::XEvent& ev) {
    auto it = plane_.event_metadata().find(ev.metadata_id());
    if (it == plane_.event_metadata().end()) {
      trace_.stats.Bump(ImportStat::unknown_metadata_id);
      return nullptr;
    }
    return &it->second;
  }

  // Name: the event's interned name, once per metadata entry (events of one
  // op share it: interning per event was 7% of a GPU import).
  StringId Name(const pb::XEventMetadata* md) {
    if (md == nullptr) return trace_.strings.Intern("(unknown event)");
    auto [it, inserted] = names_.try_emplace(md, kEmptyString);
    if (inserted)
      it->second = trace_.strings.Intern(md->display_name().empty() ? md->name() : md->display_name());
    return it->second;
  }

  // Span: the event's [start, end) in ns on the trace clock; false (and
  // counted) when it has no time or lies past the model's range.
  bool Span(const XplaneLineView& line, const pb::XEvent& ev, int64_t* start, int64_t* end) {
    if (ev.data_case() == pb::XEvent::kNumOccurrences) {
      trace_.stats.Bump(ImportStat::aggregated_event);
      return false;
    }
    // start = timestamp_ns + floor(offset_ps / 1000); end adds the duration
    // to the exact picosecond start, all in int64 with overflow checks.
    int64_t dur_ps = ev.duration_ps();
    if (dur_ps < 0) {
      trace_.stats.Bump(ImportStat::negative_dur);
      dur_ps = 0;
    }
    int64_t sub_ps = 0;
    int64_t s = 0, e = 0;
    int64_t off_ns = XplaneFloorDiv1000(ev.offset_ps(), &sub_ps);
    int64_t dur_ns = dur_ps / 1000 + (sub_ps + dur_ps % 1000) / 1000;
    if (__builtin_add_overflow(line.timestamp_ns(), off_ns, &s) ||
        __builtin_add_overflow(s, dur_ns, &e) || s < -kMaxAbsTimeNs || e > kMaxAbsTimeNs) {
      trace_.stats.Bump(ImportStat::time_out_of_range);
      return false;
    }
    *start = s;
    *end = e;
    return true;
  }

  // Step: the step number an event states (step_num, group_id on a Steps
  // line, or a numeric name); missing when none.
  int32_t Step(const pb::XEvent& ev, const pb::XEventMetadata* md, bool steps_line) {
    XplaneStatValue v = Stat(ev, md, step_num_);
    if (!v.is_int && steps_line) v = Stat(ev, md, group_id_);
    if (v.is_int && v.i >= 0 && v.i <= std::numeric_limits<int32_t>::max())
      return static_cast<int32_t>(v.i);
    if (steps_line && md != nullptr) {
      std::string_view n = md->name();
      int32_t k = 0;
      auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), k);
      if (!n.empty() && ec == std::errc() && p == n.data() + n.size() && k >= 0) return k;
    }
    return kMissingI32;
  }

  Status ReadDevicePlane(int32_t device_id, model::Vendor vendor_hint) {
    model::Device& dev = trace_.GetOrAddDevice(device_id);
    const bool gpu = vendor_hint != model::Vendor::kGoogle;
    if (gpu) {
      XplaneStatValue v = PlaneStat("device_vendor");
      std::string vendor = v.is_str ? AsciiLower(v.s) : std::string();
      if (vendor == "nvidia") dev.vendor = model::Vendor::kNvidia;
      else if (vendor == "amd") dev.vendor = model::Vendor::kAmd;
    } else {
      dev.vendor = model::Vendor::kGoogle;
    }
    XplaneStatValue name = PlaneStat("gpu_device_name");
    if (!name.is_str || name.s.empty()) name = PlaneStat("device_type_string");
    if (name.is_str && !name.s.empty()) dev.name = trace_.strings.Intern(name.s);
    else if (dev.name == kEmptyString) dev.name = trace_.strings.Intern(gpu ? "GPU" : "TPU");
    XplaneStatValue mem = PlaneStat("memory_size");
    if (mem.is_int && mem.i > 0) dev.total_memory_bytes = mem.i;
    if (gpu) {
      // On a TPU, core_count counts TensorCores, not SMs.
      XplaneStatValue cores = PlaneStat("core_count");
      if (cores.is_int && cores.i > 0 && cores.i < 100000) dev.sm_count = static_cast<int32_t>(cores.i);
      XplaneStatValue ma = PlaneStat("compute_cap_major"), mi = PlaneStat("compute_cap_minor");
      if (ma.is_int && ma.i > 0 && ma.i < 100) dev.cc_major = static_cast<int32_t>(ma.i);
      if (mi.is_int && mi.i >= 0 && mi.i < 100) dev.cc_minor = static_cast<int32_t>(mi.i);
    }

    bool has_streams = false;
    for (const XplaneField& f : lines_) {
      XplaneLineHead h = XplaneReadLineHead(bytes_, f);
      if (XplaneStartsWith(h.name, "Stream #") && h.has_events) has_streams = true;
    }

    return ForEachLine([&](XplaneLineView& line) {
      const std::string& ln = line.name();
      if (XplaneStartsWith(ln, "Stream #")) {
        AddStream(device_id, line);
        ReadStreamLine(device_id, line);
      } else if (ln == "XLA Ops" && !has_streams) {
        AddStream(device_id, line);
        ReadKernelLine(device_id, line);
      } else if (ln == "_counters_" || ln == "CUPTI overhead") {
        if (line.events_size() > 0) trace_.stats.Bump(ImportStat::unmapped_plane);
      } else {
        ReadDeviceRangeLine(device_id, line, ln == "Steps" || ln == "Sparse Core Steps");
      }
    });
  }

  // AddStream: once per (device, line id): lines with one id are one
  // timeline (xplane.proto), split or repeated.
  void AddStream(int32_t device_id, const XplaneLineView& line) {
    if (!seen_->streams.emplace(device_id, line.id()).second) return;
    model::Stream s;
    s.device_id = device_id;
    s.stream_id = line.id();
    s.name = trace_.strings.Intern(line.display_name().empty() ? line.name() : line.display_name());
    trace_.streams.push_back(s);
  }

  void ReadKernelLine(int32_t device_id, XplaneLineView& line) {
    for (const pb::XEvent& ev : line.events()) {
      const pb::XEventMetadata* md = Metadata(ev);
      model::KernelRow k;
      if (!Span(line, ev, &k.start_ns, &k.end_ns)) continue;
      k.device_id = device_id;
      k.stream_id = line.id();
      k.name = Name(md);
      XplaneStatValue c = Stat(ev, md, correlation_);
      if (c.is_int) k.correlation_id = c.i;
      trace_.kernels.Append(k);
    }
  }

  void ReadStreamLine(int32_t device_id, XplaneLineView& line) {
    for (const pb::XEvent& ev : line.events()) {
      const pb::XEventMetadata* md = Metadata(ev);
      int64_t start = 0, end = 0;
      if (!Span(line, ev, &start, &end)) continue;
      std::string_view raw_name = md != nullptr ? std::string_view(md->name()) : "";
      XplaneStatValue corr = Stat(ev, md, correlation_);
      XplaneStatValue copy = Stat(ev, md, memcpy_details_);
      XplaneStatValue set = Stat(ev, md, memset_details_);
      if (copy.is_str || XplaneStartsWith(raw_name, "Memcpy")) {
        model::MemcpyRow m;
        m.device_id = device_id;
        m.stream_id = line.id();
        m.start_ns = start;
        m.end_ns = end;
        if (corr.is_int) m.correlation_id = corr.i;
        m.copy_kind = CopyKindOf(raw_name);
        if (copy.is_str) {
          std::string_view src = Field(copy.s, "kind_src:"), dst = Field(copy.s, "kind_dst:");
          m.src_kind = MemoryKindOf(src);
          m.dst_kind = MemoryKindOf(dst);
          m.bytes = IntField(copy.s, "size:");
        }
        if (m.copy_kind == model::CopyKind::kUnknown)
          trace_.stats.Bump(ImportStat::unknown_memcpy_kind);
        trace_.memcpys.Append(m);
        continue;
      }
      if (set.is_str || raw_name == "Memset") {
        model::MemsetRow m;
        m.device_id = device_id;
        m.stream_id = line.id();
        m.start_ns = start;
        m.end_ns = end;
        if (corr.is_int) m.correlation_id = corr.i;
        if (set.is_str) {
          m.bytes = IntField(set.s, "num_bytes:");
          m.dst_kind = MemoryKindOf(Field(set.s, "kind:"));
        }
        trace_.memsets.Append(m);
        continue;
      }
      bool other = false;
      for (int64_t id : memory_other_) other = other || Stat(ev, md, id).present;
      if (other || raw_name == "MemoryAlloc" || raw_name == "MemoryFree") {
        trace_.stats.Bump(ImportStat::unknown_category);
        continue;
      }
      model::KernelRow k;
      k.device_id = device_id;
      k.stream_id = line.id();
      k.start_ns = start;
      k.end_ns = end;
      k.name = Name(md);
      if (corr.is_int) k.correlation_id = corr.i;
      else trace_.stats.Bump(ImportStat::missing_correlation);
      XplaneStatValue kd = Stat(ev, md, kernel_details_);
      if (kd.is_str) ApplyKernelDetails(kd.s, k);
      trace_.kernels.Append(k);
    }
  }

  void ReadDeviceRangeLine(int32_t device_id, XplaneLineView& line, bool steps_line) {
    for (const pb::XEvent& ev : line.events()) {
      const pb::XEventMetadata* md = Metadata(ev);
      model::RangeRow r;
      if (!Span(line, ev, &r.start_ns, &r.end_ns)) continue;
      r.name = Name(md);
      r.step = steps_line ? Step(ev, md, true) : kMissingI32;
      // A step is a step marker of the run; other device lines are GPU
      // annotations (modules, async ops, device TraceMe).
      r.kind = IsValid(r.step) ? RangeKind::kUserAnnotation : RangeKind::kGpuUserAnnotation;
      r.device_id = device_id;
      trace_.ranges.Append(r);
    }
  }

  // ReadHostPlane: lines are threads; `kind` is what plain events are.
  Status ReadHostPlane(RangeKind kind, bool all_api) {
    return ForEachLine([&](XplaneLineView& line) {
      if (line.events_size() == 0) return;
      // One thread per tid: /host:CPU and /host:CUPTI name the same threads.
      if (seen_->tids.insert(line.id()).second) {
        model::Thread th;
        th.tid = line.id();
        th.name = trace_.strings.Intern(line.display_name().empty() ? line.name() : line.display_name());
        trace_.threads.push_back(th);
      }
      for (const pb::XEvent& ev : line.events()) {
        const pb::XEventMetadata* md = Metadata(ev);
        int64_t start = 0, end = 0;
        if (!Span(line, ev, &start, &end)) continue;
        XplaneStatValue corr = Stat(ev, md, correlation_);
        if (all_api || corr.is_int) {
          model::ApiRow a;
          a.tid = line.id();
          a.start_ns = start;
          a.end_ns = end;
          a.name = Name(md);
          if (corr.is_int) a.correlation_id = corr.i;
          std::string_view n = trace_.Str(a.name);
          if (XplaneStartsWith(n, "cuda") || XplaneStartsWith(n, "hip"))
            a.kind = model::ApiKind::kRuntime;
          else if (XplaneStartsWith(n, "cu"))
            a.kind = model::ApiKind::kDriver;
          else
            a.kind = model::ApiKind::kOther;
          trace_.api_calls.Append(a);
          continue;  // next event
        }
        model::RangeRow r;
        r.tid = line.id();
        r.start_ns = start;
        r.end_ns = end;
        r.name = Name(md);
        r.step = Step(ev, md, false);
        r.kind = IsValid(r.step) ? RangeKind::kUserAnnotation : kind;
        trace_.ranges.Append(r);
      }
    });
  }

 private:
  static std::string_view Field(std::string_view s, std::string_view key) {
    size_t p = 0;
    while ((p = s.find(key, p)) != std::string_view::npos) {
      if (p == 0 || s[p - 1] == ' ') {
        std::string_view v = s.substr(p + key.size());
        return v.substr(0, v.find(' '));
      }
      p += key.size();
    }
    return {};
  }

  static int64_t IntField(std::string_view s, std::string_view key) {
    std::string_view v = Field(s, key);
    int64_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size() || n < 0) return kMissingI64;
    return n;
  }

  // Ints: "x,y,z" into three int32 (missing when not three numbers).
  static void Ints(std::string_view v, int32_t* x, int32_t* y, int32_t* z) {
    int32_t out[3];
    for (int i = 0; i < 3; ++i) {
      size_t comma = v.find(',');
      std::string_view part = v.substr(0, comma);
      auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), out[i]);
      if (part.empty() || ec != std::errc() || p != part.data() + part.size() || out[i] < 0) return;
      if ((comma == std::string_view::npos) != (i == 2)) return;
      v = comma == std::string_view::npos ? std::string_view() : v.substr(comma + 1);
    }
    *x = out[0], *y = out[1], *z = out[2];
  }

  static int32_t Int32Field(std::string_view s, std::string_view key) {
    int64_t v = IntField(s, key);
    return IsValid(v) && v <= std::numeric_limits<int32_t>::max() ? static_cast<int32_t>(v)
                                                                  : kMissingI32;
  }

  // ApplyKernelDetails: "regs:R static_shared:S dynamic_shared:D grid:x,y,z
  // block:x,y,z occ_pct:P" (XLA's CUPTI collector).
  void ApplyKernelDetails(std::string_view s, model::KernelRow& k) {
    k.registers_per_thread = Int32Field(s, "regs:");
    int32_t st = Int32Field(s, "static_shared:"), dy = Int32Field(s, "dynamic_shared:");
    k.static_shared_mem_bytes = st;
    k.dynamic_shared_mem_bytes = dy;
    if (IsValid(st) && IsValid(dy) && int64_t{st} + dy <= std::numeric_limits<int32_t>::max())
      k.shared_mem_bytes = st + dy;
    Ints(Field(s, "grid:"), &k.grid_x, &k.grid_y, &k.grid_z);
    Ints(Field(s, "block:"), &k.block_x, &k.block_y, &k.block_z);
    std::string_view occ = Field(s, "occ_pct:");
    double pct = 0;
    auto [p, ec] = std::from_chars(occ.data(), occ.data() + occ.size(), pct);
    // 0 is what the collector writes when it could not compute occupancy.
    if (!occ.empty() && ec == std::errc() && p == occ.data() + occ.size() && pct > 0 && pct <= 100)
      k.est_occupancy_pct = static_cast<float>(pct);
  }

  static model::CopyKind CopyKindOf(std::string_view name) {
    if (name == "MemcpyH2D") return model::CopyKind::kHtoD;
    if (name == "MemcpyD2H") return model::CopyKind::kDtoH;
    if (name == "MemcpyD2D") return model::CopyKind::kDtoD;
    if (name == "MemcpyP2P") return model::CopyKind::kPtoP;
    return model::CopyKind::kUnknown;
  }

  static model::MemoryKind MemoryKindOf(std::string_view v) {
    std::string k = AsciiLower(v);
    if (k == "pageable") return model::MemoryKind::kPageable;
    if (k == "pinned") return model::MemoryKind::kPinned;
    if (k == "device") return model::MemoryKind::kDevice;
    if (k == "array") return model::MemoryKind::kArray;
    if (k == "managed") return model::MemoryKind::kManaged;
    return model::MemoryKind::kUnknown;
  }

  const pb::XPlane& plane_;
  std::string_view bytes_;
  std::vector<XplaneField> lines_;
  std::string where_;
  XplaneSeen* seen_;
  model::Trace& trace_;
  int64_t max_line_ts_ = std::numeric_limits<int64_t>::min();
  std::unordered_map<int64_t, std::string> stat_names_;
  std::unordered_map<const pb::XEventMetadata*, StringId> names_;
  std::optional<int64_t> correlation_, kernel_details_, memcpy_details_, memset_details_;
  std::optional<int64_t> step_num_, group_id_;
  std::set<int64_t> memory_other_;
};

// XplaneSplit: the top-level fields of an XSpace, checked for framing; an
// error names the byte offset where framing breaks.
Status XplaneSplit(std::string_view bytes, const std::string& path,
                   std::vector<XplaneField>* fields) {
  XplaneFraming bad;
  int planes = 0;
  bool ok = XplaneFields(bytes, 0, bytes.size(), &bad, [&](const XplaneField& f) {
    if (f.number == 1 && f.delimited) ++planes;
    fields->push_back(f);
    return true;
  });
  if (ok) return Status::Ok();
  std::string subject = bad.number == 1 ? fmt::format("plane {}", planes + 1) : std::string();
  return InvalidInput(fmt::format("{}: truncated or corrupt XSpace protobuf: {}", path,
                                  XplaneFramingText(bad, subject)));
}

// XplaneMessageName: a plane name as an error line shows it: control bytes
// as \xNN (the line stays one line), at most 80 bytes, "(unnamed)" if empty.
std::string XplaneMessageName(std::string_view name) {
  if (name.empty()) return "(unnamed)";
  std::string out;
  for (char c : name.substr(0, 80)) {
    auto u = static_cast<uint8_t>(c);
    if (u < 0x20 || u == 0x7F) out += fmt::format("\\x{:02X}", u);
    else out += c;
  }
  if (name.size() > 80) out += "...";
  return out;
}

// XplaneMangledNote: when the bytes carry many U+FFFD sequences (binary data
// decoded and re-encoded as UTF-8 text), a clause saying so; else "".
std::string XplaneMangledNote(std::string_view bytes) {
  size_t n = 0;
  for (size_t p = bytes.find(kXplaneUtf8Replacement); p != std::string_view::npos;
       p = bytes.find(kXplaneUtf8Replacement, p + 3))
    ++n;
  if (n < 16 || n * 3 * 100 < bytes.size()) return {};
  return fmt::format(
      " ({} of its bytes are EF BF BD, the UTF-8 replacement character: the binary file was "
      "saved as text somewhere on its way; copy the original in binary mode)",
      n * 3);
}

// XplaneTaskEnv: the Task Environment plane's profile start/stop (epoch ns).
struct XplaneTaskEnv {
  int64_t start_ns = kMissingI64;
  int64_t stop_ns = kMissingI64;
};

void XplaneReadTaskEnv(const pb::XPlane& plane, XplaneTaskEnv* env) {
  for (const pb::XStat& s : plane.stats()) {
    auto it = plane.stat_metadata().find(s.metadata_id());
    if (it == plane.stat_metadata().end()) continue;
    int64_t v = kMissingI64;
    if (s.value_case() == pb::XStat::kInt64Value) v = s.int64_value();
    if (s.value_case() == pb::XStat::kUint64Value &&
        s.uint64_value() <= uint64_t{std::numeric_limits<int64_t>::max()})
      v = static_cast<int64_t>(s.uint64_value());
    if (!IsValid(v) || v < kXplaneEpochNsFloor || v > kMaxAbsTimeNs) continue;
    if (it->second.name() == "profile_start_time") env->start_ns = v;
    if (it->second.name() == "profile_stop_time") env->stop_ns = v;
  }
}

// XplaneShiftColumn: add `shift` to every valid time; a time pushed past the
// model's range becomes missing and is counted.
void XplaneShiftColumn(std::vector<int64_t>& col, int64_t shift, model::ImportStats& stats) {
  for (int64_t& t : col) {
    if (!IsValid(t)) continue;
    int64_t v = 0;
    if (__builtin_add_overflow(t, shift, &v) || !PlausibleTimeNs(v)) {
      t = kMissingI64;
      stats.Bump(ImportStat::time_out_of_range);
    } else {
      t = v;
    }
  }
}

// XplaneShiftTimes: move session-relative times onto the epoch.
void XplaneShiftTimes(model::Trace& t, int64_t shift) {
  for (auto* col : {&t.kernels.start_ns, &t.kernels.end_ns, &t.memcpys.start_ns,
                    &t.memcpys.end_ns, &t.memsets.start_ns, &t.memsets.end_ns,
                    &t.api_calls.start_ns, &t.api_calls.end_ns, &t.ranges.start_ns,
                    &t.ranges.end_ns})
    XplaneShiftColumn(*col, shift, t.stats);
}

// XplaneParsePlane: the plane at `f` without its lines into `plane`, and its
// line fields into `lines`.
Status XplaneParsePlane(std::string_view bytes, const XplaneField& f, const std::string& where,
                        pb::XPlane* plane, std::vector<XplaneField>* lines) {
  std::string head;
  XplaneFraming bad;
  bool ok = XplaneFields(bytes, f.begin, f.size, &bad, [&](const XplaneField& g) {
    if (g.number == 3 && g.delimited) lines->push_back(g);
    else head.append(bytes.substr(g.tag_at, g.begin + g.size - g.tag_at));
    return true;
  });
  if (!ok)
    return InvalidInput(fmt::format("{} does not parse as an XPlane: {}{}", where,
                                    XplaneFramingText(bad), XplaneMangledNote(bytes)));
  if (!plane->ParseFromString(head))
    return InvalidInput(fmt::format("{} does not parse as an XPlane{}", where,
                                    XplaneMangledNote(bytes)));
  return Status::Ok();
}

}  // namespace

bool XSpaceReaderBuilt() { return true; }

Status ReadXSpaceBytes(std::string_view bytes, const std::string& path, model::Trace& trace) {
  trace.info.source_path = path;
  trace.info.format = "xplane";
  std::vector<XplaneField> fields;
  Status split = XplaneSplit(bytes, path, &fields);
  if (!split.ok()) {
    std::string note = XplaneMangledNote(bytes);
    return note.empty() ? split : InvalidInput(split.message() + note);
  }

  // One pass, one plane parsed at a time; times are shifted onto the epoch
  // afterwards, since the Task Environment plane comes last.
  XplaneTaskEnv env;
  int64_t max_line_ts = std::numeric_limits<int64_t>::min();
  std::vector<std::string> plane_names;
  int index = 0;
  int device_planes = 0;
  XplaneSeen seen;
  for (const XplaneField& f : fields) {
    if (f.number == 4 && f.delimited && trace.rank.hostname == kEmptyString)
      trace.rank.hostname = trace.strings.Intern(bytes.substr(f.begin, f.size));
    if (f.number != 1 || !f.delimited) continue;
    ++index;
    const std::string where = fmt::format("{}: corrupt XSpace protobuf: plane {} (bytes {}-{})",
                                          path, index, f.begin, f.begin + f.size);
    // An arena per plane (and per line, in the reader): one block list
    // instead of a heap allocation per event and stat.
    google::protobuf::Arena arena;
    pb::XPlane& plane = *google::protobuf::Arena::CreateMessage<pb::XPlane>(&arena);
    std::vector<XplaneField> lines;
    RETURN_IF_ERROR(XplaneParsePlane(bytes, f, where, &plane, &lines));
    const std::string& name = plane.name();
    plane_names.push_back(name);
    XplanePlaneReader reader(plane, bytes, std::move(lines), where, &seen, trace);
    if (auto n = XplaneDeviceOrdinal(name, "/device:GPU:")) {
      ++device_planes;
      RETURN_IF_ERROR(reader.ReadDevicePlane(*n, model::Vendor::kUnknown));
    } else if (auto t = XplaneDeviceOrdinal(name, "/device:TPU:")) {
      ++device_planes;
      RETURN_IF_ERROR(reader.ReadDevicePlane(*t, model::Vendor::kGoogle));
    } else if (name == "/host:CUPTI" || name == "/host:ROCTRACER") {
      RETURN_IF_ERROR(reader.ReadHostPlane(RangeKind::kCpuOp, /*all_api=*/true));
    } else if (name == "/host:python-tracer") {
      RETURN_IF_ERROR(reader.ReadHostPlane(RangeKind::kPythonFunction, false));
    } else if (name == "/host:NVTX-CUPTI") {
      RETURN_IF_ERROR(reader.ReadHostPlane(RangeKind::kNvtx, false));
    } else if (name == "/host:CPU" || name == "/host:TPU-runtime") {
      RETURN_IF_ERROR(reader.ReadHostPlane(RangeKind::kCpuOp, false));
    } else if (name == "/host:metadata" || name == "Task Environment") {
      if (name == "Task Environment") XplaneReadTaskEnv(plane, &env);
      XplaneStatValue v = reader.PlaneStat("cuda_runtime_version");
      if (v.is_str) trace.info.cuda_runtime_version = std::string(v.s);
      v = reader.PlaneStat("cuda_driver_version");
      if (v.is_str) trace.info.cuda_driver_version = std::string(v.s);
    } else if (reader.AnyEvents()) {
      trace.stats.Bump(model::ImportStat::unmapped_plane);
    }
    max_line_ts = std::max(max_line_ts, reader.max_line_timestamp_ns());
  }
  if (max_line_ts >= kXplaneEpochNsFloor) {
    trace.info.clock = "unix_realtime";
  } else if (IsValid(env.start_ns)) {
    XplaneShiftTimes(trace, env.start_ns);
    trace.info.clock = "unix_realtime";
  } else {
    trace.info.clock = "xplane_session";
  }
  if (trace.info.clock == "unix_realtime" && IsValid(env.start_ns)) {
    trace.info.capture_start_ns = env.start_ns;
    if (IsValid(env.stop_ns) && env.stop_ns >= env.start_ns) trace.info.capture_end_ns = env.stop_ns;
  }

  const size_t device_events = trace.kernels.size() + trace.memcpys.size() + trace.memsets.size();
  if (device_events == 0) {
    std::string names;
    for (size_t i = 0; i < plane_names.size() && i < 8; ++i)
      names += fmt::format("{}{}", i ? ", " : "", XplaneMessageName(plane_names[i]));
    if (plane_names.size() > 8) names += fmt::format(", and {} more", plane_names.size() - 8);
    return InvalidInput(fmt::format(
        "{}: XSpace protobuf (JAX/XLA profiler) with {} plane{}{}{}{} but no GPU or TPU op, "
        "copy or kernel gpuwhy maps ({}): the device tracer captured nothing",
        path, plane_names.size(), plane_names.size() == 1 ? "" : "s", names.empty() ? "" : " (",
        names, names.empty() ? "" : ")",
        device_planes == 0 ? "no /device:GPU:N or /device:TPU:N plane"
                           : "its device planes hold no stream or XLA Ops event"));
  }
  trace.Finalize();
  return Status::Ok();
}

Status ReadXSpaceFile(const std::string& path, model::Trace& trace) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(path));
  std::string bytes;
  if (!in->compressed() && in->raw_size() > 0) bytes.reserve(in->raw_size());
  std::vector<char> buf(size_t{4} << 20);
  for (;;) {
    ASSIGN_OR_RETURN(size_t n, in->Read(buf.data(), buf.size()));
    if (n == 0) break;
    bytes.append(buf.data(), n);
  }
  return ReadXSpaceBytes(bytes, path, trace);
}

}  // namespace gpuwhy::import
