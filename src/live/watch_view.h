// Watch view: Snapshots in, text out. Collect is separate from draw: the
// sampler produces immutable Snapshots, History keeps the last N seconds, and
// Draw() turns them into one frame string (no terminal I/O here, so frames
// are unit-testable).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "record/snapshot.h"

namespace gpuwhy::live {

// History: the recent snapshots' key figures per device, for curves and the
// live curve-shape verdict.
class History {
 public:
  explicit History(int64_t window_ns = 60 * kNsPerS) : window_ns_(window_ns) {}
  // Add: append the snapshot's readings (and driver-buffer samples) and drop
  // points older than the window.
  void Add(const record::Snapshot& snap);
  // Points: (ts_ns, value) of metric `m` on device slot `slot`, oldest first.
  struct Point {
    int64_t ts_ns;
    double value;
  };
  const std::vector<Point>& Points(size_t slot, record::Metric m) const;
  int64_t window_ns() const { return window_ns_; }
  void set_window_ns(int64_t w) { window_ns_ = w; }

 private:
  struct DeviceHistory {
    std::vector<std::vector<Point>> series;  // by metric
    std::vector<int64_t> last_ts;
  };
  int64_t window_ns_;
  std::vector<DeviceHistory> devices_;
  std::vector<Point> empty_;
};

// LiveVerdict: the curve-shape class of the recent GPU-Util curve and why.
struct LiveVerdict {
  std::string curve_class;  // "JUMPS", "HEALTHY", ... (analysis::CurveClass names)
  std::string reason;
  double confidence = 0;
};
// ClassifyLive: analysis::ClassifyCurve over the device's recent GPU-Util,
// with the recent SM-active mean as the real utilization when known.
LiveVerdict ClassifyLive(const History& history, size_t slot, int64_t period_ns);

// SortKey: process table order (nvitop-like keys in watch).
enum class SortKey : uint8_t { kMemory = 0, kSmUtil = 1, kPid = 2, kUser = 3, kCount = 4 };

// ViewState: what the user chose with keys.
struct ViewState {
  size_t selected_device = 0;
  size_t selected_process = 0;
  SortKey sort = SortKey::kMemory;
  bool reverse = false;
  bool help = false;
  bool ascii = false;  // no Unicode blocks
  bool color = true;
};

// Draw: one full frame of `width` x `height` cells (lines joined by "\n", no
// trailing cursor codes). Missing figures print "n/a", never 0.
std::string Draw(const record::Snapshot& snap, const History& history, const ViewState& view,
                 int width, int height);

// SnapshotJson: one JSON object with every device, figure (null when missing,
// with its source and status), process and the live verdict.
std::string SnapshotJson(const record::Snapshot& snap, const History& history);

// FormatBytes: "12.3 GiB"; "n/a" when missing.
std::string FormatBytes(double bytes);

}  // namespace gpuwhy::live
