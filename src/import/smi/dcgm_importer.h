// DCGM importer ("dcgm"): DCGM field samples as CSV, long format
// (`GPUId,TimeStampUs,Field,Values`, one field per row) or wide (one
// `DCGM_FI_*` column per field), and `dcgmi dmon` text (`#Entity SMACT SMOCC
// TENSO DRAMA ...` header, `GPU 0 ...` rows, no timestamps).
//
// Contract: fields are recognised by full name (DCGM_FI_PROF_SM_ACTIVE, the
// DCGM 4.x *_RATIO names), short name (sm_active, power_usage_instant), field
// id (1002) or dmon tag (SMACT). DCGM_FI_PROF_* are ratios 0..1 and kept as
// such; DCGM_FI_DEV_* utilizations are percents (divided by 100); power W ->
// mW, framebuffer MiB -> bytes. Series have source "dcgm" (or "dcgmi dmon").
#pragma once

#include <string_view>

#include "import/importer.h"

namespace gpuwhy::import {

bool LooksLikeDcgm(std::string_view prefix);
// ReadDcgmText: parse a DCGM CSV or dcgmi dmon log into `trace` and Finalize().
Status ReadDcgmText(std::string_view text, model::Trace& trace);

class DcgmImporter final : public Importer {
 public:
  std::string_view name() const override { return "dcgm"; }
  bool Sniff(const SourceInfo& src) const override { return LooksLikeDcgm(src.prefix); }
  Status Read(const SourceInfo& src, model::Trace& trace) override;
};

}  // namespace gpuwhy::import
