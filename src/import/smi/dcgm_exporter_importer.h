// dcgm-exporter importer ("dcgm-exporter"): `/metrics` scrapes of NVIDIA's
// dcgm-exporter saved as text (`curl -s host:9400/metrics >> scrapes.txt`),
// one scrape or many concatenated, in the Prometheus text exposition format:
//   # HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
//   # TYPE DCGM_FI_DEV_GPU_UTIL gauge
//   DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-...",modelName="NVIDIA A100 ..."} 37
//
// Contract: DCGM_FI_* samples are mapped through the one DCGM field table
// (model/dcgm_fields.h), other metric families are skipped. The device is the
// `gpu` label (a MIG instance, `GPU_I_ID`, becomes device 1000 + 100*gpu + id);
// `modelName` and `UUID` name the device. Scrapes of several hosts
// (`Hostname` label) keep each host's GPUs apart: host k (in order of
// appearance, k < 10) GPU g is device 100k + g; MIG slices of hosts past the
// first are dropped (garbage_row). A new scrape starts where a series
// repeats or at a separator line (`date` output, an ISO or epoch time, or any
// other text line). Times, in order: the sample's own Prometheus timestamp
// (ms), else the separator's time; when some scrape has neither, every sample
// is untimed (scrape indexes, `ts_are_indexes`) and an import note says so.
// A scrape with no DCGM_FI_* sample gpuwhy maps is InvalidInput (one line).
#pragma once

#include <string_view>

#include "import/importer.h"

namespace gpuwhy::import {

// LooksLikeDcgmExporter: a `# HELP DCGM_FI_` / `# TYPE DCGM_FI_` line or a
// `DCGM_FI_*{...} value` sample line among the first lines of `prefix`.
bool LooksLikeDcgmExporter(std::string_view prefix);

// ReadDcgmExporterText: parse the scrapes in `text` into `trace` and Finalize().
Status ReadDcgmExporterText(std::string_view text, model::Trace& trace);

class DcgmExporterImporter final : public Importer {
 public:
  std::string_view name() const override { return "dcgm-exporter"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeDcgmExporter(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

}  // namespace gpuwhy::import
