// JSON renderer: the machine-readable report (`gpuwhy analyze --json`).
//
// Contract: formats an analysis::Analysis, computes nothing. The document is
// described in docs/json-schema.md: top-level "schema_version" (bump it on any
// incompatible change), units in key names (`_ns`, `bytes`, `_gbps`,
// `_ratio`), null for missing values, deterministic key order and number
// formatting. Sections add keys through the list in json_sections.cc.
#pragma once

#include <iosfwd>

#include "analysis/analysis.h"

namespace gpuwhy::report {

// kJsonSchemaVersion: version of the document layout in docs/json-schema.md.
inline constexpr int kJsonSchemaVersion = 1;

// JsonOptions: presentation knobs (none yet; kept for call-site stability).
struct JsonOptions {};

// RenderJson: write the JSON document for `analysis` to `out`.
void RenderJson(const analysis::Analysis& analysis, std::ostream& out, const JsonOptions& options);

}  // namespace gpuwhy::report
