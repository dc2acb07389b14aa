#include "import/xplane/xplane_importer.h"

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "import/registry.h"
#include "model/trace.h"
#include "xplane.pb.h"

namespace gpuwhy::import::xplane_test {

namespace pb = tensorflow::profiler;

// PlaneBuilder: writes an XPlane the way the profiler does (names and stats
// indirected through the plane's metadata maps).
class PlaneBuilder {
 public:
  PlaneBuilder(pb::XPlane* p, int64_t id, const std::string& name) : p_(p) {
    p_->set_id(id);
    p_->set_name(name);
  }
  int64_t StatId(const std::string& name) {
    for (const auto& [id, m] : p_->stat_metadata())
      if (m.name() == name) return id;
    int64_t id = next_stat_++;
    auto& m = (*p_->mutable_stat_metadata())[id];
    m.set_id(id);
    m.set_name(name);
    return id;
  }
  int64_t EventId(const std::string& name) {
    for (const auto& [id, m] : p_->event_metadata())
      if (m.name() == name) return id;
    int64_t id = next_event_++;
    auto& m = (*p_->mutable_event_metadata())[id];
    m.set_id(id);
    m.set_name(name);
    return id;
  }
  void PlaneStr(const std::string& stat, const std::string& v) {
    pb::XStat* s = p_->add_stats();
    s->set_metadata_id(StatId(stat));
    s->set_str_value(v);
  }
  void PlaneInt(const std::string& stat, int64_t v) {
    pb::XStat* s = p_->add_stats();
    s->set_metadata_id(StatId(stat));
    s->set_int64_value(v);
  }
  pb::XLine* Line(int64_t id, const std::string& name, int64_t timestamp_ns) {
    pb::XLine* l = p_->add_lines();
    l->set_id(id);
    l->set_name(name);
    l->set_timestamp_ns(timestamp_ns);
    return l;
  }
  pb::XEvent* Event(pb::XLine* l, const std::string& name, int64_t offset_ps, int64_t dur_ps) {
    pb::XEvent* e = l->add_events();
    e->set_metadata_id(EventId(name));
    e->set_offset_ps(offset_ps);
    e->set_duration_ps(dur_ps);
    return e;
  }
  void Int(pb::XEvent* e, const std::string& stat, int64_t v) {
    pb::XStat* s = e->add_stats();
    s->set_metadata_id(StatId(stat));
    s->set_int64_value(v);
  }
  void Uint(pb::XEvent* e, const std::string& stat, uint64_t v) {
    pb::XStat* s = e->add_stats();
    s->set_metadata_id(StatId(stat));
    s->set_uint64_value(v);
  }
  void Str(pb::XEvent* e, const std::string& stat, const std::string& v) {
    pb::XStat* s = e->add_stats();
    s->set_metadata_id(StatId(stat));
    s->set_str_value(v);
  }

 private:
  pb::XPlane* p_;
  int64_t next_stat_ = 1;
  int64_t next_event_ = 1;
};

constexpr int64_t kT0 = 1'700'000'000'000'000'000;  // epoch ns

// GpuSpace: one GPU plane (stream with a kernel, a memcpy, a memset; XLA Ops
// and XLA Modules lines), CUPTI API calls, a CPU thread with a step.
pb::XSpace GpuSpace() {
  pb::XSpace space;
  {
    PlaneBuilder g(space.add_planes(), 1, "/device:GPU:0");
    g.PlaneStr("device_vendor", "Nvidia");
    g.PlaneStr("gpu_device_name", "NVIDIA H100 80GB HBM3");
    g.PlaneInt("core_count", 132);
    g.PlaneInt("compute_cap_major", 9);
    g.PlaneInt("compute_cap_minor", 0);
    g.PlaneInt("memory_size", int64_t{80} << 30);
    pb::XLine* s = g.Line(7, "Stream #7(Compute)", kT0);
    pb::XEvent* k = g.Event(s, "fusion_1", 1'500'700, 2'000'000);  // 1500.7 ns, 2 µs
    g.Uint(k, "correlation_id", 41);
    g.Str(k, "kernel_details",
          "regs:32 static_shared:1024 dynamic_shared:2048 grid:80,1,1 block:256,2,1 occ_pct:50");
    pb::XEvent* m = g.Event(s, "MemcpyH2D", 10'000'000, 3'000'000);
    g.Int(m, "correlation_id", 42);
    g.Str(m, "memcpy_details", "kind_src:pinned kind_dst:device size:4096 dest:0 async:1");
    pb::XEvent* z = g.Event(s, "Memset", 20'000'000, 1'000'000);
    g.Int(z, "correlation_id", 43);
    g.Str(z, "Memset_details", "num_bytes:512 kind:device async:1");
    pb::XLine* ops = g.Line(100, "XLA Ops", kT0);
    g.Event(ops, "fusion_1", 1'500'700, 2'000'000);
    pb::XLine* mods = g.Line(101, "XLA Modules", kT0);
    g.Event(mods, "jit_train_step(12)", 0, 30'000'000);
  }
  {
    PlaneBuilder c(space.add_planes(), 2, "/host:CUPTI");
    pb::XLine* l = c.Line(3001, "3001", kT0);
    pb::XEvent* e = c.Event(l, "cuLaunchKernel", 500'000, 900'000);
    c.Int(e, "correlation_id", 41);
    pb::XEvent* e2 = c.Event(l, "cudaMemcpyAsync", 9'000'000, 500'000);
    c.Int(e2, "correlation_id", 42);
  }
  {
    PlaneBuilder h(space.add_planes(), 3, "/host:CPU");
    pb::XLine* l = h.Line(3001, "python3", kT0);
    pb::XEvent* st = h.Event(l, "train_step", 0, 40'000'000);
    h.Int(st, "step_num", 5);
    h.Event(l, "PjitFunction(train_step)", 100'000, 1'000'000);
  }
  space.add_hostnames("worker-0");
  return space;
}

std::string Bytes(const pb::XSpace& s) {
  std::string out;
  EXPECT_TRUE(s.SerializeToString(&out));
  return out;
}

Status Read(const pb::XSpace& s, model::Trace& t) {
  return ReadXSpaceBytes(Bytes(s), "t.xplane.pb", t);
}

TEST(XplaneImporter, ProtobufReaderIsBuilt) { EXPECT_TRUE(XSpaceReaderBuilt()); }

TEST(XplaneImporter, SniffsWhatProtobufWrites) {
  EXPECT_TRUE(LooksLikeXSpace(Bytes(GpuSpace())));
  pb::XSpace tpu;
  PlaneBuilder(tpu.add_planes(), 0, "/device:TPU:0");
  EXPECT_TRUE(LooksLikeXSpace(Bytes(tpu)));
}

TEST(XplaneImporter, GpuPlaneStreamsKernelsCopiesAndDevice) {
  model::Trace t;
  ASSERT_TRUE(Read(GpuSpace(), t).ok());
  EXPECT_EQ(t.info.format, "xplane");
  EXPECT_EQ(t.info.clock, "unix_realtime");
  EXPECT_EQ(t.Str(t.rank.hostname), "worker-0");
  ASSERT_EQ(t.devices.size(), 1u);
  const model::Device& d = t.devices[0];
  EXPECT_EQ(d.device_id, 0);
  EXPECT_EQ(d.vendor, model::Vendor::kNvidia);
  EXPECT_EQ(t.Str(d.name), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.cc_minor, 0);
  EXPECT_EQ(d.total_memory_bytes, int64_t{80} << 30);

  ASSERT_EQ(t.kernels.size(), 1u);
  model::KernelRow k = t.kernels.Get(0);
  EXPECT_EQ(t.Str(k.name), "fusion_1");
  EXPECT_EQ(k.stream_id, 7);
  EXPECT_EQ(k.start_ns, kT0 + 1500);  // 1,500,700 ps floored
  EXPECT_EQ(k.end_ns, kT0 + 3500);    // (1,500,700 + 2,000,000) ps floored
  EXPECT_EQ(k.correlation_id, 41);
  EXPECT_EQ(k.registers_per_thread, 32);
  EXPECT_EQ(k.shared_mem_bytes, 3072);
  EXPECT_EQ(k.grid_x, 80);
  EXPECT_EQ(k.block_x, 256);
  EXPECT_EQ(k.block_y, 2);
  EXPECT_FLOAT_EQ(k.est_occupancy_pct, 50.0f);

  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys.copy_kind[0], model::CopyKind::kHtoD);
  EXPECT_EQ(t.memcpys.bytes[0], 4096);
  EXPECT_EQ(t.memcpys.src_kind[0], model::MemoryKind::kPinned);
  EXPECT_EQ(t.memcpys.dst_kind[0], model::MemoryKind::kDevice);
  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets.bytes[0], 512);

  // CUPTI calls are API rows joined to the kernel by correlation id.
  ASSERT_EQ(t.api_calls.size(), 2u);
  EXPECT_EQ(t.Str(t.api_calls.name[0]), "cuLaunchKernel");
  EXPECT_EQ(t.api_calls.kind[0], model::ApiKind::kDriver);
  EXPECT_EQ(t.api_calls.correlation_id[0], 41);
  EXPECT_EQ(t.api_calls.kind[1], model::ApiKind::kRuntime);

  // Streams: the stream line, not XLA Ops (a GPU with streams).
  ASSERT_EQ(t.streams.size(), 1u);
  EXPECT_EQ(t.streams[0].stream_id, 7);
  // Threads: tid 3001 of /host:CUPTI and /host:CPU is one thread.
  ASSERT_EQ(t.threads.size(), 1u);
  EXPECT_EQ(t.threads[0].tid, 3001);

  // Ranges: XLA Ops and XLA Modules as GPU annotations, the host step, the CPU op.
  int gpu_ann = 0, steps = 0, cpu_ops = 0;
  for (size_t i = 0; i < t.ranges.size(); ++i) {
    model::RangeRow r = t.ranges.Get(i);
    if (r.kind == model::RangeKind::kGpuUserAnnotation) {
      ++gpu_ann;
      EXPECT_EQ(r.device_id, 0);
    } else if (r.kind == model::RangeKind::kUserAnnotation) {
      ++steps;
      EXPECT_EQ(r.step, 5);
      EXPECT_EQ(t.Str(r.name), "train_step");
    } else if (r.kind == model::RangeKind::kCpuOp) {
      ++cpu_ops;
    }
  }
  EXPECT_EQ(gpu_ann, 2);
  EXPECT_EQ(steps, 1);
  EXPECT_EQ(cpu_ops, 1);
}

TEST(XplaneImporter, TpuPlaneXlaOpsAreTheKernels) {
  pb::XSpace space;
  for (int n = 0; n < 2; ++n) {
    PlaneBuilder p(space.add_planes(), n, "/device:TPU:" + std::to_string(n));
    p.PlaneStr("device_type_string", "TPU v6 lite");
    pb::XLine* steps = p.Line(1, "Steps", kT0);
    p.Event(steps, "3", 0, 50'000'000);
    pb::XLine* mods = p.Line(2, "XLA Modules", kT0);
    p.Event(mods, "jit_f(1)", 0, 40'000'000);
    pb::XLine* ops = p.Line(3, "XLA Ops", kT0);
    p.Event(ops, "fusion.1", 1'000'000, 5'000'000);
    p.Event(ops, "convolution.2", 7'000'000, 20'000'000);
  }
  {
    PlaneBuilder sc(space.add_planes(), 9, "/device:TPU:0 SparseCore 0");
    pb::XLine* l = sc.Line(1, "XLA Ops", kT0);
    sc.Event(l, "sc_op", 0, 1000);
  }
  model::Trace t;
  Status st = Read(space, t);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(t.devices.size(), 2u);
  for (const model::Device& d : t.devices) {
    EXPECT_EQ(d.vendor, model::Vendor::kGoogle);
    EXPECT_EQ(t.Str(d.name), "TPU v6 lite");
    EXPECT_FALSE(IsValid(d.sm_count));  // TPU cores are not SMs
  }
  EXPECT_EQ(t.kernels.size(), 4u);
  for (size_t i = 0; i < t.kernels.size(); ++i) EXPECT_EQ(t.kernels.stream_id[i], 3);
  EXPECT_EQ(t.streams.size(), 2u);
  int steps = 0, modules = 0;
  for (size_t i = 0; i < t.ranges.size(); ++i) {
    if (t.ranges.step[i] == 3) ++steps;
    if (t.ranges.kind[i] == model::RangeKind::kGpuUserAnnotation) ++modules;
  }
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(modules, 2);
  EXPECT_EQ(t.stats.Get(model::ImportStat::unmapped_plane), 1u);
}

TEST(XplaneImporter, SessionRelativeTimesShiftByTaskEnvironment) {
  pb::XSpace space;
  {
    PlaneBuilder p(space.add_planes(), 0, "/device:TPU:0");
    pb::XLine* ops = p.Line(3, "XLA Ops", 1000);  // ns since the session began
    p.Event(ops, "fusion", 0, 1'000'000);
  }
  model::Trace rel;
  ASSERT_TRUE(Read(space, rel).ok());
  EXPECT_EQ(rel.info.clock, "xplane_session");
  EXPECT_EQ(rel.kernels.start_ns[0], 1000);
  EXPECT_EQ(rel.kernels.end_ns[0], 2000);

  PlaneBuilder env(space.add_planes(), 5, "Task Environment");
  env.PlaneInt("profile_start_time", kT0);
  env.PlaneInt("profile_stop_time", kT0 + 5'000'000);
  model::Trace abs;
  ASSERT_TRUE(Read(space, abs).ok());
  EXPECT_EQ(abs.info.clock, "unix_realtime");
  EXPECT_EQ(abs.kernels.start_ns[0], kT0 + 1000);
  EXPECT_EQ(abs.info.capture_start_ns, kT0);
  EXPECT_EQ(abs.info.capture_end_ns, kT0 + 5'000'000);
}

TEST(XplaneImporter, MalformedEventsAreCountedAndSkipped) {
  pb::XSpace space = GpuSpace();
  pb::XPlane* g = space.mutable_planes(0);
  pb::XLine* s = g->mutable_lines(0);
  pb::XEvent* agg = s->add_events();  // an aggregate: a count, no time
  agg->set_metadata_id(1);
  agg->set_num_occurrences(12);
  pb::XEvent* unknown = s->add_events();  // names no metadata
  unknown->set_metadata_id(999);
  unknown->set_offset_ps(50'000'000);
  unknown->set_duration_ps(1000);
  pb::XEvent* neg = s->add_events();
  neg->set_metadata_id(1);
  neg->set_offset_ps(60'000'000);
  neg->set_duration_ps(-5);
  pb::XLine* far_line = g->add_lines();  // past the model's time range
  far_line->set_id(8);
  far_line->set_name("Stream #8");
  far_line->set_timestamp_ns(std::numeric_limits<int64_t>::max() - 10);
  pb::XEvent* far = far_line->add_events();
  far->set_metadata_id(1);
  far->set_offset_ps(0);
  far->set_duration_ps(1'000'000);
  model::Trace t;
  ASSERT_TRUE(Read(space, t).ok());
  EXPECT_EQ(t.stats.Get(model::ImportStat::aggregated_event), 1u);
  EXPECT_GE(t.stats.Get(model::ImportStat::unknown_metadata_id), 1u);
  EXPECT_EQ(t.stats.Get(model::ImportStat::negative_dur), 1u);
  EXPECT_EQ(t.stats.Get(model::ImportStat::time_out_of_range), 1u);
  EXPECT_EQ(t.kernels.size(), 3u);  // fusion_1, the unknown one, the clamped one
}

TEST(XplaneImporter, NamesThatAreNotUtf8AreKept) {
  // proto3 `string` parsing would refuse the plane; the schema is built with
  // bytes (src/import/xplane/CMakeLists.txt), so the name comes through as is.
  pb::XSpace space;
  PlaneBuilder p(space.add_planes(), 0, "/device:TPU:0");
  p.Event(p.Line(3, "XLA Ops", kT0), "fusion_\xff\xfe", 0, 1000);
  model::Trace t;
  Status s = Read(space, t);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.Str(t.kernels.name[0]), "fusion_\xff\xfe");
}

TEST(XplaneImporter, UnknownFieldsOfEveryWireTypeAreSkipped) {
  // A newer schema's fields on a plane and on a line: varint, fixed64,
  // length-delimited and fixed32 (field numbers 20-23).
  const std::string extra = std::string("\xA0\x01\x05", 3) +                          // 20: varint 5
                            std::string("\xA9\x01" "\x01\x02\x03\x04\x05\x06\x07\x08", 10) +  // 21: fixed64
                            std::string("\xB2\x01\x02" "ab", 5) +                     // 22: "ab"
                            std::string("\xBD\x01" "\x01\x02\x03\x04", 6);          // 23: fixed32
  pb::XSpace space;
  PlaneBuilder p(space.add_planes(), 0, "/device:TPU:0");
  pb::XLine* l = p.Line(3, "XLA Ops", kT0);
  p.Event(l, "fusion", 0, 1000);
  std::string line_bytes;
  ASSERT_TRUE(l->SerializeToString(&line_bytes));
  l->Clear();
  ASSERT_TRUE(l->ParseFromString(line_bytes + extra));
  std::string b;
  ASSERT_TRUE(space.SerializeToString(&b));
  pb::XSpace again;
  ASSERT_TRUE(again.ParseFromString(b));
  std::string plane_bytes;
  ASSERT_TRUE(again.planes(0).SerializeToString(&plane_bytes));
  plane_bytes += extra;
  std::string file = "\x0A";
  for (uint64_t n = plane_bytes.size();; n >>= 7) {
    if (n < 0x80) {
      file += static_cast<char>(n);
      break;
    }
    file += static_cast<char>((n & 0x7F) | 0x80);
  }
  file += plane_bytes;
  model::Trace t;
  Status s = ReadXSpaceBytes(file, "u.xplane.pb", t);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(t.kernels.size(), 1u);
}

TEST(XplaneImporter, HoldsNothingIsOneLineNamingThePlanes) {
  pb::XSpace space;
  PlaneBuilder h(space.add_planes(), 1, "/host:CPU");
  h.Event(h.Line(1, "python3", kT0), "train_step", 0, 1000);
  PlaneBuilder(space.add_planes(), 2, "/host:metadata");
  model::Trace t;
  Status s = Read(space, t);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
  EXPECT_NE(s.message().find("2 planes (/host:CPU, /host:metadata)"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("no /device:GPU:N or /device:TPU:N plane"), std::string::npos)
      << s.message();

  // A plane name with a newline stays on the one line.
  pb::XSpace odd;
  PlaneBuilder(odd.add_planes(), 1, "/host:CPU\nsecond line");
  model::Trace t3;
  s = Read(odd, t3);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("/host:CPU\\x0Asecond line"), std::string::npos) << s.message();

  // A device plane whose lines are empty: the device tracer captured nothing.
  PlaneBuilder(space.add_planes(), 3, "/device:GPU:0").Line(7, "Stream #7", kT0);
  model::Trace t2;
  s = Read(space, t2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("device planes hold no"), std::string::npos) << s.message();
}

TEST(XplaneImporter, TruncatedFileNamesTheByteOffset) {
  std::string b = Bytes(GpuSpace());
  for (size_t cut : {b.size() - 1, b.size() / 2, size_t{3}}) {
    model::Trace t;
    Status s = ReadXSpaceBytes(b.substr(0, cut), "cut.xplane.pb", t);
    ASSERT_FALSE(s.ok()) << cut;
    EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
    EXPECT_NE(s.message().find("at byte"), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find('\n'), std::string::npos);
  }
}

TEST(XplaneImporter, CorruptPlaneBodyIsOneLine) {
  std::string b = Bytes(GpuSpace());
  // Inside plane 1, after its name: a field with wire type 7 (invalid).
  size_t at = b.find("/device:GPU:0") + 13;
  b[at] = static_cast<char>(0x07);
  model::Trace t;
  Status s = ReadXSpaceBytes(b, "bad.xplane.pb", t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("plane 1"), std::string::npos) << s.message();
}

TEST(XplaneImporter, CorruptEventNamesLineAndEvent) {
  std::string b = Bytes(GpuSpace());
  // The kernel_details stat of the first event: its str_value tag (field 5,
  // length-delimited, 0x2A) becomes wire type 7; the line's framing holds.
  size_t at = b.find("regs:32") - 2;
  ASSERT_EQ(b[at], '\x2A');
  b[at] = '\x2F';
  model::Trace t;
  Status s = ReadXSpaceBytes(b, "ev.xplane.pb", t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("plane 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("line 1, event 1 (bytes"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("does not parse as an XEvent"), std::string::npos) << s.message();
}

TEST(XplaneImporter, TextMangledFileSaysSo) {
  // Binary bytes >= 0x80 replaced with U+FFFD, as when the file went through
  // a UTF-8 text decoder.
  std::string b = Bytes(GpuSpace()), mangled;
  for (char c : b) {
    if (static_cast<uint8_t>(c) >= 0x80) mangled += "\xEF\xBF\xBD";
    else mangled += c;
  }
  ASSERT_TRUE(LooksLikeXSpace(mangled));
  model::Trace t;
  Status s = ReadXSpaceBytes(mangled, "m.xplane.pb", t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("EF BF BD"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(XplaneImporter, GzipFileThroughTheRegistry) {
  std::string b = Bytes(GpuSpace());
  std::string path = ::testing::TempDir() + "xplane_test_" + std::to_string(::getpid()) + ".pb.gz";
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, b.data(), static_cast<unsigned>(b.size())), static_cast<int>(b.size()));
  gzclose(f);
  Result<model::Trace> r = ImportFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().info.format, "xplane");
  EXPECT_EQ(r.value().kernels.size(), 1u);
}

}  // namespace gpuwhy::import::xplane_test
