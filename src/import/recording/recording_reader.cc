#include "import/recording/recording_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

namespace gpuwhy::import {
namespace {

// Dec: reads little-endian fields from one payload; `ok` turns false on overrun.
class Dec {
 public:
  explicit Dec(std::string_view s) : s_(s) {}
  template <typename T>
  T Get() {
    T v{};
    if (pos_ + sizeof(T) > s_.size()) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, s_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string Str() {
    uint32_t n = Get<uint32_t>();
    if (!ok_ || pos_ + n > s_.size()) {
      ok_ = false;
      return {};
    }
    std::string v(s_.substr(pos_, n));
    pos_ += n;
    return v;
  }
  bool ok() const { return ok_; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// Buffered: a window over the stream with absolute offsets.
class Buffered {
 public:
  explicit Buffered(InputStream& in) : in_(in) {}
  // Ensure: make `n` bytes from `pos_` available; returns how many are (<n at EOF).
  Result<size_t> Ensure(size_t n) {
    while (buf_.size() - pos_ < n && !eof_) {
      if (pos_ > (1u << 20)) {
        buf_.erase(0, pos_);
        base_ += pos_;
        pos_ = 0;
      }
      size_t old = buf_.size();
      size_t want = std::max<size_t>(n - (old - pos_), 1u << 16);
      buf_.resize(old + want);
      ASSIGN_OR_RETURN(size_t got, in_.Read(buf_.data() + old, want));
      buf_.resize(old + got);
      if (got == 0) eof_ = true;
    }
    return std::min(n, buf_.size() - pos_);
  }
  std::string_view View(size_t n) const { return std::string_view(buf_).substr(pos_, n); }
  void Skip(size_t n) { pos_ += n; }
  uint64_t offset() const { return base_ + pos_; }
  // RestIsZero: true when every byte from here to EOF is 0 (preallocated tail).
  Result<bool> RestIsZero() {
    while (true) {
      ASSIGN_OR_RETURN(size_t have, Ensure(buf_.size() - pos_ + (1u << 16)));
      (void)have;
      if (eof_) break;
    }
    return std::all_of(buf_.begin() + static_cast<long>(pos_), buf_.end(),
                       [](char c) { return c == 0; });
  }

 private:
  InputStream& in_;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t base_ = 0;
  bool eof_ = false;
};

Status Malformed(const InputStream& in, std::string_view what, uint64_t off) {
  return InvalidInput(fmt::format("{}: malformed {} frame at byte {}", in.path(), what, off));
}

}  // namespace

bool LooksLikeRecording(std::string_view prefix) {
  return prefix.size() >= sizeof kRecordingMagic &&
         std::memcmp(prefix.data(), kRecordingMagic, sizeof kRecordingMagic) == 0;
}

Result<Recording> ReadRecording(InputStream& in) {
  Recording rec;
  Buffered b(in);
  ASSIGN_OR_RETURN(size_t hn, b.Ensure(kRecordingHeaderBytes));
  if (hn < sizeof kRecordingMagic || !LooksLikeRecording(b.View(hn))) {
    return InvalidInput(fmt::format("{}: not a gpuwhy recording (bad magic at byte 0)", in.path()));
  }
  if (hn < kRecordingHeaderBytes) {
    return InvalidInput(fmt::format("{}: truncated recording header ({} of {} bytes)", in.path(), hn,
                                    kRecordingHeaderBytes));
  }
  {
    Dec h(b.View(kRecordingHeaderBytes).substr(sizeof kRecordingMagic));
    rec.version_major = h.Get<uint16_t>();
    rec.version_minor = h.Get<uint16_t>();
  }
  if (rec.version_major != kRecordingVersionMajor) {
    return Unsupported(fmt::format("{}: recording format version {}.{} at byte 8; this gpuwhy reads {}.x",
                                   in.path(), rec.version_major, rec.version_minor,
                                   kRecordingVersionMajor));
  }
  b.Skip(kRecordingHeaderBytes);

  while (true) {
    uint64_t off = b.offset();
    ASSIGN_OR_RETURN(size_t have, b.Ensure(kFrameHeaderBytes));
    if (have == 0) break;  // clean EOF
    auto torn = [&]() {
      rec.torn_tail = true;
      rec.torn_offset = off;
    };
    if (have < kFrameHeaderBytes) {
      torn();
      break;
    }
    Dec fh(b.View(kFrameHeaderBytes));
    uint32_t len = fh.Get<uint32_t>();
    uint16_t type = fh.Get<uint16_t>();
    uint16_t flags = fh.Get<uint16_t>();
    uint32_t crc = fh.Get<uint32_t>();
    if (len == 0 && type == 0) {
      ASSIGN_OR_RETURN(bool zero, b.RestIsZero());
      if (zero) {
        torn();
        break;
      }
    }
    if (len > kMaxFrameBytes) {
      return InvalidInput(fmt::format("{}: corrupt frame header at byte {} (length {})", in.path(),
                                      off, len));
    }
    ASSIGN_OR_RETURN(size_t fhave, b.Ensure(kFrameHeaderBytes + len));
    if (fhave < kFrameHeaderBytes + len) {
      torn();  // cut short by EOF: the writer was killed mid-write
      break;
    }
    std::string_view frame = b.View(kFrameHeaderBytes + len);
    std::string_view payload = frame.substr(kFrameHeaderBytes);
    uLong c = crc32(0L, reinterpret_cast<const Bytef*>(frame.data() + 4), 4);
    c = crc32(c, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
    if (static_cast<uint32_t>(c) != crc) {
      b.Skip(kFrameHeaderBytes + len);
      ASSIGN_OR_RETURN(size_t more, b.Ensure(1));
      if (more == 0) {
        torn();  // the last frame: a torn write
        break;
      }
      return InvalidInput(fmt::format("{}: CRC mismatch in frame at byte {} (type {}, {} bytes)",
                                      in.path(), off, type, len));
    }
    (void)flags;
    ++rec.frames;
    Dec d(payload);
    switch (static_cast<RecFrame>(type)) {
      case RecFrame::kRun: {
        RecRun& r = rec.run;
        r.start_wall_ns = d.Get<int64_t>();
        r.interval_ns = d.Get<int64_t>();
        r.gpuwhy_pid = d.Get<int32_t>();
        r.rank = d.Get<int32_t>();
        r.local_rank = d.Get<int32_t>();
        r.world_size = d.Get<int32_t>();
        r.hostname = d.Str();
        r.gpuwhy_version = d.Str();
        r.driver_version = d.Str();
        r.nvml_version = d.Str();
        r.nvml_status = d.Str();
        r.cwd = d.Str();
        uint32_t argc = d.Get<uint32_t>();
        for (uint32_t i = 0; i < argc && d.ok(); ++i) r.argv.push_back(d.Str());
        if (!d.ok()) return Malformed(in, "run", off);
        rec.has_run = true;
        break;
      }
      case RecFrame::kDevice: {
        RecDevice v;
        v.index = d.Get<int32_t>();
        v.name = d.Str();
        v.uuid = d.Str();
        v.cc_major = d.Get<int32_t>();
        v.cc_minor = d.Get<int32_t>();
        v.architecture = d.Get<int32_t>();
        v.sm_count = d.Get<int32_t>();
        v.total_memory_bytes = d.Get<int64_t>();
        v.power_limit_mw = d.Get<int64_t>();
        v.max_sm_clock_mhz = d.Get<int32_t>();
        v.max_mem_clock_mhz = d.Get<int32_t>();
        v.memory_bus_width_bits = d.Get<int32_t>();
        v.compute_mode = d.Get<int32_t>();
        v.mig_mode = d.Get<int32_t>();
        v.gpm_supported = d.Get<uint8_t>() != 0;
        v.util_sample_period_ns = d.Get<int64_t>();
        uint32_t n = d.Get<uint32_t>();
        for (uint32_t i = 0; i < n && d.ok(); ++i) {
          uint16_t k = d.Get<uint16_t>();
          int32_t s = d.Get<int32_t>();
          v.unsupported.emplace_back(k, s);
        }
        if (!d.ok()) return Malformed(in, "device", off);
        rec.devices.push_back(std::move(v));
        break;
      }
      case RecFrame::kSeries: {
        RecSeries s;
        s.id = d.Get<uint16_t>();
        s.device = d.Get<int32_t>();
        s.kind = d.Get<uint16_t>();
        s.unit = d.Get<uint8_t>();
        s.source_code = d.Get<uint8_t>();
        s.period_ns = d.Get<int64_t>();
        s.name = d.Str();
        s.source = d.Str();
        if (!d.ok()) return Malformed(in, "series", off);
        if (s.id != rec.series.size()) {
          return InvalidInput(fmt::format("{}: series id {} out of order in frame at byte {}",
                                          in.path(), s.id, off));
        }
        rec.series.push_back(std::move(s));
        break;
      }
      case RecFrame::kSamples: {
        uint32_t n = d.Get<uint32_t>();
        if (!d.ok() || static_cast<uint64_t>(n) * wire::kSampleRecordBytes > payload.size()) {
          return Malformed(in, "samples", off);
        }
        for (uint32_t i = 0; i < n; ++i) {
          uint16_t id = d.Get<uint16_t>();
          d.Get<uint16_t>();
          int32_t status = d.Get<int32_t>();
          int64_t ts = d.Get<int64_t>();
          double v = d.Get<double>();
          if (id >= rec.series.size()) {
            ++rec.bad_samples;
            continue;
          }
          if (!PlausibleTimeNs(ts)) {
            ++rec.samples_out_of_range;
            continue;
          }
          RecSeries& s = rec.series[id];
          s.ts_ns.push_back(ts);
          s.value.push_back(status == 0 ? v : kMissingF64);
          s.status.push_back(status);
        }
        if (!d.ok()) return Malformed(in, "samples", off);
        break;
      }
      case RecFrame::kProcesses: {
        RecProcessList pl;
        pl.device = d.Get<int32_t>();
        pl.ts_ns = d.Get<int64_t>();
        pl.status = d.Get<int32_t>();
        uint32_t n = d.Get<uint32_t>();
        for (uint32_t i = 0; i < n && d.ok(); ++i) {
          RecProcess p;
          p.pid = d.Get<int32_t>();
          p.used_memory_bytes = d.Get<int64_t>();
          p.sm_util_ratio = d.Get<double>();
          p.mem_util_ratio = d.Get<double>();
          uint8_t fl = d.Get<uint8_t>();
          p.is_mps_client = (fl & 1) != 0;
          p.in_target = (fl & 2) != 0;
          p.name = d.Str();
          p.user = d.Str();
          pl.processes.push_back(std::move(p));
        }
        if (!d.ok()) return Malformed(in, "processes", off);
        rec.process_lists.push_back(std::move(pl));
        break;
      }
      case RecFrame::kEvent: {
        RecEvent e;
        e.ts_ns = d.Get<int64_t>();
        e.kind = d.Get<uint16_t>();
        e.device = d.Get<int32_t>();
        e.code = d.Get<int64_t>();
        e.text = d.Str();
        if (!d.ok()) return Malformed(in, "event", off);
        rec.events.push_back(std::move(e));
        break;
      }
      case RecFrame::kLinks: {
        RecLinks l;
        l.device = d.Get<int32_t>();
        l.ts_ns = d.Get<int64_t>();
        uint32_t n = d.Get<uint32_t>();
        if (!d.ok() || static_cast<uint64_t>(n) * 28 > payload.size()) return Malformed(in, "links", off);
        auto fig = [&]() {
          RecFigure f;
          f.status = d.Get<int32_t>();
          double v = d.Get<double>();
          f.value = f.status == 0 ? v : kMissingF64;
          return f;
        };
        for (uint32_t i = 0; i < n && d.ok(); ++i) {
          RecLinks::Link k;
          k.link = d.Get<int32_t>();
          k.tx = fig();
          k.rx = fig();
          l.links.push_back(k);
        }
        if (!d.ok()) return Malformed(in, "links", off);
        rec.links.push_back(std::move(l));
        break;
      }
      case RecFrame::kMig: {
        RecMig m;
        m.device = d.Get<int32_t>();
        m.ts_ns = d.Get<int64_t>();
        uint32_t n = d.Get<uint32_t>();
        if (!d.ok() || static_cast<uint64_t>(n) * 16 > payload.size()) return Malformed(in, "mig", off);
        for (uint32_t i = 0; i < n && d.ok(); ++i) {
          RecMig::Instance x;
          x.index = d.Get<int32_t>();
          x.gpu_instance_id = d.Get<int32_t>();
          x.compute_instance_id = d.Get<int32_t>();
          x.uuid = d.Str();
          for (RecFigure& f : x.figures) {
            f.status = d.Get<int32_t>();
            double v = d.Get<double>();
            f.value = f.status == 0 ? v : kMissingF64;
          }
          m.instances.push_back(std::move(x));
        }
        if (!d.ok()) return Malformed(in, "mig", off);
        rec.mig.push_back(std::move(m));
        break;
      }
      case RecFrame::kEnd: {
        rec.end_ts_ns = d.Get<int64_t>();
        rec.exit_code = d.Get<int32_t>();
        if (!d.ok()) return Malformed(in, "end", off);
        rec.has_end = true;
        break;
      }
      case RecFrame::kTrace: {
        RecTrace t;
        t.pid = d.Get<int32_t>();
        t.ppid = d.Get<int32_t>();
        t.rank = d.Get<int32_t>();
        t.local_rank = d.Get<int32_t>();
        t.world_size = d.Get<int32_t>();
        t.start_wall_ns = d.Get<int64_t>();
        t.clock_offset_ns = d.Get<int64_t>();
        t.clock_uncertainty_ns = d.Get<int64_t>();
        t.cupti_version = d.Get<uint32_t>();
        t.status = d.Str();
        t.kinds = d.Str();
        t.exe = d.Str();
        if (!d.ok()) return Malformed(in, "trace", off);
        rec.traces.push_back(std::move(t));
        break;
      }
      case RecFrame::kTraceNames:
      case RecFrame::kTraceKernels:
      case RecFrame::kTraceCopies:
      case RecFrame::kTraceApi:
      case RecFrame::kTraceSyncs:
      case RecFrame::kTraceRanges:
      case RecFrame::kTraceContexts:
      case RecFrame::kTraceStats: {
        if (rec.traces.empty()) return Malformed(in, "trace data (no trace header before it)", off);
        RecTrace& t = rec.traces.back();
        uint32_t n = d.Get<uint32_t>();
        std::string_view body = payload.substr(std::min<size_t>(4, payload.size()));
        auto fixed = [&](auto& vec, const char* what) -> Status {
          using T = typename std::decay_t<decltype(vec)>::value_type;
          if (!d.ok() || static_cast<uint64_t>(n) * sizeof(T) > body.size()) return Malformed(in, what, off);
          if (n == 0)
            return Status::Ok();  // an empty vector's data() may be null, which memcpy may not take
          size_t old = vec.size();
          vec.resize(old + n);
          std::memcpy(static_cast<void*>(vec.data() + old), body.data(), n * sizeof(T));
          return Status::Ok();
        };
        switch (static_cast<RecFrame>(type)) {
          case RecFrame::kTraceNames:
            for (uint32_t i = 0; i < n && d.ok(); ++i) {
              uint32_t id = d.Get<uint32_t>();
              std::string text = d.Str();
              // Ids are dense from 1 (a name is sent once, when first used): an id
              // past the next one would size the table from the input's say-so
              // (a 10-byte frame asked for 2 GB), so it is malformed.
              if (!d.ok() || id == 0 || id > std::max<size_t>(t.names.size(), 1))
                return Malformed(in, "trace names", off);
              if (t.names.size() <= id) t.names.resize(id + 1);
              t.names[id] = std::move(text);
            }
            if (!d.ok()) return Malformed(in, "trace names", off);
            break;
          case RecFrame::kTraceContexts:
            if (!d.ok() || static_cast<uint64_t>(n) * 8 > body.size()) return Malformed(in, "trace contexts", off);
            for (uint32_t i = 0; i < n; ++i) {
              uint32_t ctx = d.Get<uint32_t>(), dev = d.Get<uint32_t>();
              t.contexts.emplace_back(ctx, dev);
            }
            break;
          case RecFrame::kTraceStats:
            if (!d.ok() || static_cast<uint64_t>(n) * 8 > body.size()) return Malformed(in, "trace stats", off);
            for (uint32_t i = 0; i < n; ++i) {
              uint64_t v = d.Get<uint64_t>();
              if (i < t.stats.size()) t.stats[i] = v;  // cumulative: the last frame wins
            }
            break;
          case RecFrame::kTraceKernels: RETURN_IF_ERROR(fixed(t.kernels, "trace kernels")); break;
          case RecFrame::kTraceCopies: RETURN_IF_ERROR(fixed(t.copies, "trace copies")); break;
          case RecFrame::kTraceApi: RETURN_IF_ERROR(fixed(t.api, "trace api")); break;
          case RecFrame::kTraceSyncs: RETURN_IF_ERROR(fixed(t.syncs, "trace syncs")); break;
          case RecFrame::kTraceRanges: RETURN_IF_ERROR(fixed(t.ranges, "trace ranges")); break;
          default: break;
        }
        break;
      }
      default:
        ++rec.unknown_frames;  // a newer minor version: skip what we do not know
        break;
    }
    b.Skip(kFrameHeaderBytes + len);
  }
  if (!rec.has_run && !rec.torn_tail && rec.traces.empty()) {
    return InvalidInput(fmt::format("{}: recording has no run frame", in.path()));
  }
  return rec;
}

}  // namespace gpuwhy::import
