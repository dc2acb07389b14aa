#include "record/format/recording_writer.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <bit>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gpuwhy::record {
namespace {

static_assert(std::endian::native == std::endian::little, "the wire format is little-endian");

// Enc: appends little-endian fields to a payload.
class Enc {
 public:
  template <typename T>
  Enc& Put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    s_.append(b, sizeof(T));
    return *this;
  }
  Enc& Str(const std::string& v) {
    Put<uint32_t>(static_cast<uint32_t>(v.size()));
    s_.append(v);
    return *this;
  }
  std::string& str() { return s_; }

 private:
  std::string s_;
};

int64_t PeriodFor(Source src, int64_t interval_ns, int64_t slow_ns, int64_t util_period_ns,
                  Metric m) {
  switch (src) {
    case Source::kNvmlSamples: return util_period_ns;
    case Source::kGpm: return std::max<int64_t>(interval_ns, 100 * kNsPerMs);
    case Source::kNvmlFields: return interval_ns;  // one counter read per tick
    case Source::kDcgm: return std::max<int64_t>(interval_ns, 100 * kNsPerMs);  // DCGM's minimum
    case Source::kNvmlPoll:
      if (m == Metric::kPowerLimitMw || m == Metric::kTemperatureC ||
          m == Metric::kPcieTxBytesPerS || m == Metric::kPcieRxBytesPerS) {
        return std::max(interval_ns, slow_ns);
      }
      return interval_ns;
    case Source::kNone: break;
  }
  return kMissingI64;
}

}  // namespace

RecordingWriter::~RecordingWriter() {
  if (fd_ >= 0) {
    (void)Flush();
    ::close(fd_);
  }
}

Result<std::unique_ptr<RecordingWriter>> RecordingWriter::Create(const std::string& path,
                                                                 int64_t interval_ns,
                                                                 int64_t slow_period_ns) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(fmt::format("{}: cannot create recording: {}", path, std::strerror(errno)));
  std::unique_ptr<RecordingWriter> w(new RecordingWriter());
  w->fd_ = fd;
  w->path_ = path;
  w->interval_ns_ = interval_ns;
  w->slow_period_ns_ = slow_period_ns;
  w->buf_.append(kRecordingMagic, sizeof kRecordingMagic);
  Enc e;
  e.Put<uint16_t>(kRecordingVersionMajor).Put<uint16_t>(kRecordingVersionMinor).Put<uint32_t>(0);
  w->buf_ += e.str();
  RETURN_IF_ERROR(w->Flush());
  return w;
}

void RecordingWriter::Frame(FrameType type, const std::string& payload) {
  Enc h;
  uint16_t t = static_cast<uint16_t>(type);
  uint16_t flags = 0;
  char tf[4];
  std::memcpy(tf, &t, 2);
  std::memcpy(tf + 2, &flags, 2);
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(tf), 4);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  h.Put<uint32_t>(static_cast<uint32_t>(payload.size())).Put<uint16_t>(t).Put<uint16_t>(flags);
  h.Put<uint32_t>(static_cast<uint32_t>(crc));
  buf_ += h.str();
  buf_ += payload;
}

void RecordingWriter::WriteRun(const RunInfo& run) {
  Enc e;
  e.Put(run.start_wall_ns).Put(run.interval_ns).Put(run.gpuwhy_pid).Put(run.rank);
  e.Put(run.local_rank).Put(run.world_size);
  e.Str(run.hostname).Str(run.gpuwhy_version).Str(run.driver_version).Str(run.nvml_version);
  e.Str(run.nvml_status).Str(run.cwd);
  e.Put<uint32_t>(static_cast<uint32_t>(run.argv.size()));
  for (const auto& a : run.argv) e.Str(a);
  Frame(FrameType::kRun, e.str());
}

void RecordingWriter::WriteDevices(const SystemInfo& system) {
  for (const DeviceInfo& d : system.devices) {
    Enc e;
    e.Put(d.index).Str(d.name).Str(d.uuid).Put(d.cc_major).Put(d.cc_minor).Put(d.architecture);
    e.Put(d.sm_count).Put(d.total_memory_bytes).Put(d.power_limit_mw).Put(d.max_sm_clock_mhz);
    e.Put(d.max_mem_clock_mhz).Put(d.memory_bus_width_bits).Put(d.compute_mode).Put(d.mig_mode);
    e.Put<uint8_t>(d.gpm_supported ? 1 : 0).Put(d.util_sample_period_ns);
    uint32_t n = 0;
    for (size_t i = 0; i < kMetricCount; ++i) n += d.supported[i] ? 0 : 1;
    e.Put(n);
    for (size_t i = 0; i < kMetricCount; ++i) {
      if (d.supported[i]) continue;
      e.Put<uint16_t>(static_cast<uint16_t>(MetricCounterKind(static_cast<Metric>(i))));
      e.Put<int32_t>(d.probe_status[i]);
    }
    Frame(FrameType::kDevice, e.str());
    util_period_ns_[d.index] = d.util_sample_period_ns;
  }
}

uint16_t RecordingWriter::SeriesId(int32_t device, Metric m, Source src) {
  auto key = std::make_tuple(device, static_cast<uint8_t>(m), static_cast<uint8_t>(src));
  auto it = series_.find(key);
  if (it != series_.end()) return it->second;
  uint16_t id = static_cast<uint16_t>(series_.size());
  series_.emplace(key, id);
  last_ts_.push_back(kMissingI64);
  model::CounterKind kind = MetricCounterKind(m);
  auto up = util_period_ns_.find(device);
  int64_t period = PeriodFor(src, interval_ns_, slow_period_ns_,
                             up == util_period_ns_.end() ? kMissingI64 : up->second, m);
  Enc e;
  e.Put(id).Put(device).Put<uint16_t>(static_cast<uint16_t>(kind));
  e.Put<uint8_t>(static_cast<uint8_t>(model::CanonicalUnit(kind))).Put<uint8_t>(static_cast<uint8_t>(src));
  e.Put(period).Str(std::string(MetricName(m))).Str(std::string(SourceName(src)));
  Frame(FrameType::kSeries, e.str());
  return id;
}

void RecordingWriter::WriteSnapshot(const Snapshot& snap) {
  Enc samples;
  uint32_t n = 0;
  auto add = [&](uint16_t id, int32_t status, int64_t ts, double v) {
    samples.Put(id).Put<uint16_t>(0).Put(status).Put(ts).Put(v);
    last_ts_[id] = ts;
    ++n;
  };
  for (const DeviceSnapshot& d : snap.devices) {
    if (d.lost_now) {
      WriteEvent(snap.ts_ns, EventKind::kDeviceLost, d.index, 0, d.lost_reason);
    }
    if (d.lost) continue;
    for (const FineSample& f : d.fine) {
      add(SeriesId(d.index, f.metric, Source::kNvmlSamples), kStatusOk, f.ts_ns, f.value);
    }
    for (size_t i = 0; i < kMetricCount; ++i) {
      const Reading& r = d.readings[i];
      // Driver-buffer readings were written as fine samples above.
      if (!IsValid(r.ts_ns) || r.status == kStatusNotSampled || r.source == Source::kNone ||
          r.source == Source::kNvmlSamples) {
        continue;
      }
      uint16_t id = SeriesId(d.index, static_cast<Metric>(i), r.source);
      if (last_ts_[id] == r.ts_ns) continue;  // carried, not new
      add(id, r.status, r.ts_ns, r.valid() ? r.value : kMissingF64);
    }
    // Per-link NVLink and MIG figures change slowly relative to their size:
    // written on the slow cadence only.
    auto due = [&](std::map<int32_t, int64_t>& last) {
      auto it = last.find(d.index);
      if (it != last.end() && snap.ts_ns - it->second < slow_period_ns_) return false;
      last[d.index] = snap.ts_ns;
      return true;
    };
    auto reading = [](Enc& e, const Reading& r) {
      e.Put<int32_t>(r.status).Put<double>(r.valid() ? r.value : kMissingF64);
    };
    if (!d.nvlinks.empty() && due(last_links_ns_)) {
      Enc l;
      l.Put(d.index).Put(snap.ts_ns).Put<uint32_t>(static_cast<uint32_t>(d.nvlinks.size()));
      for (const LinkReading& lr : d.nvlinks) {
        l.Put(lr.link);
        reading(l, lr.tx);
        reading(l, lr.rx);
      }
      Frame(FrameType::kLinks, l.str());
    }
    if (!d.mig.empty() && due(last_mig_ns_)) {
      Enc m;
      m.Put(d.index).Put(snap.ts_ns).Put<uint32_t>(static_cast<uint32_t>(d.mig.size()));
      for (const MigReading& mr : d.mig) {
        m.Put(mr.index).Put(mr.gpu_instance_id).Put(mr.compute_instance_id).Str(mr.uuid);
        for (const Reading* r : {&mr.mem_used, &mr.mem_total, &mr.sm_active, &mr.sm_occupancy,
                                 &mr.tensor_active, &mr.dram_active}) {
          reading(m, *r);
        }
      }
      Frame(FrameType::kMig, m.str());
    }
    if (d.processes_read) {
      Enc p;
      p.Put(d.index).Put(snap.ts_ns).Put(d.process_status);
      p.Put<uint32_t>(static_cast<uint32_t>(d.processes.size()));
      for (const ProcessInfo& pi : d.processes) {
        uint8_t flags = (pi.is_mps_client ? 1 : 0) | (pi.in_target ? 2 : 0);
        p.Put(pi.pid).Put(pi.used_memory_bytes).Put(pi.sm_util_ratio).Put(pi.mem_util_ratio);
        p.Put(flags).Str(pi.name).Str(pi.user);
      }
      Frame(FrameType::kProcesses, p.str());
    }
  }
  if (n > 0) {
    Enc e;
    e.Put(n);
    e.str() += samples.str();
    Frame(FrameType::kSamples, e.str());
    samples_written_ += n;
  }
}

void RecordingWriter::WriteEvent(int64_t ts_ns, EventKind kind, int32_t device, int64_t code,
                                 const std::string& text) {
  Enc e;
  e.Put(ts_ns).Put<uint16_t>(static_cast<uint16_t>(kind)).Put(device).Put(code).Str(text);
  Frame(FrameType::kEvent, e.str());
}

namespace {

// ReadFull: read exactly n bytes; false at end of file or on error.
bool ReadFull(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

Status RecordingWriter::AppendTraceStream(const std::string& stream_path, int32_t* pid,
                                          std::string* status, uint64_t* frames) {
  *frames = 0;
  int fd = ::open(stream_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(fmt::format("{}: {}", stream_path, std::strerror(errno)));
  char header[wire::kRecordingHeaderBytes];
  uint16_t major = 0;
  if (ReadFull(fd, header, sizeof header)) std::memcpy(&major, header + 8, 2);
  if (std::memcmp(header, kRecordingMagic, sizeof kRecordingMagic) != 0 ||
      major != kRecordingVersionMajor) {
    ::close(fd);
    return InvalidInput(fmt::format("{}: not a gpuwhy trace stream", stream_path));
  }
  std::string payload;
  char fh[wire::kFrameHeaderBytes];
  while (ReadFull(fd, fh, sizeof fh)) {
    uint32_t len, crc;
    uint16_t type;
    std::memcpy(&len, fh, 4);
    std::memcpy(&type, fh + 4, 2);
    std::memcpy(&crc, fh + 8, 4);
    if (len > wire::kMaxFrameBytes) break;
    payload.resize(len);
    if (!ReadFull(fd, payload.data(), len)) break;  // torn tail (the process was killed)
    uLong c = crc32(0L, reinterpret_cast<const Bytef*>(fh + 4), 4);
    c = crc32(c, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(len));
    if (static_cast<uint32_t>(c) != crc) break;
    if (type == static_cast<uint16_t>(FrameType::kTrace) && len >= 4) {
      std::memcpy(pid, payload.data(), 4);
      // status: after 5 x i32, 3 x i64, u32 version.
      size_t off = 5 * 4 + 3 * 8 + 4;
      uint32_t n = 0;
      if (len >= off + 4) std::memcpy(&n, payload.data() + off, 4);
      if (len >= off + 4 + n) *status = payload.substr(off + 4, n);
    }
    buf_.append(fh, sizeof fh);
    buf_ += payload;
    ++*frames;
    if (buf_.size() > (8u << 20)) {
      if (Status s = Flush(); !s.ok()) {
        ::close(fd);
        return s;
      }
    }
  }
  ::close(fd);
  return Flush();
}

Status RecordingWriter::Flush() {
  size_t off = 0;
  while (off < buf_.size()) {
    ssize_t w = ::write(fd_, buf_.data() + off, buf_.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      std::string why = std::strerror(errno);
      buf_.erase(0, off);
      return IoError(fmt::format("{}: write failed at byte {}: {}", path_, bytes_written_, why));
    }
    off += static_cast<size_t>(w);
    bytes_written_ += static_cast<uint64_t>(w);
  }
  buf_.clear();
  return Status::Ok();
}

Status RecordingWriter::Close(int64_t ts_ns, int32_t exit_code) {
  if (closed_ || fd_ < 0) return Status::Ok();
  closed_ = true;
  Enc e;
  e.Put(ts_ns).Put(exit_code);
  Frame(FrameType::kEnd, e.str());
  Status st = Flush();
  ::close(fd_);
  fd_ = -1;
  return st;
}

}  // namespace gpuwhy::record
