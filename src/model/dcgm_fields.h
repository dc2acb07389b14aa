// The one table of DCGM fields gpuwhy maps: field id, DCGM_FI_* name, the
// DCGM 4.x rename (if any), the `dcgmi dmon` short name, what it measures, the
// unit DCGM reports it in, and the model counter it becomes. Every reader of
// DCGM data (dcgmi dmon text, DCGM field CSVs, dcgm-exporter scrapes) looks
// fields up here.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "model/enums.h"

namespace gpuwhy::model {

// DcgmField: one DCGM field. `scale` turns a value in `source_unit` into the
// canonical unit of `kind` (CanonicalUnit); kOther fields keep their own unit.
struct DcgmField {
  uint16_t id;                    // DCGM field id (dcgm_fields.h)
  std::string_view fi_name;       // "DCGM_FI_PROF_SM_ACTIVE"
  std::string_view renamed;       // DCGM 4.x name ("DCGM_FI_PROF_SM_UTIL_RATIO"), or ""
  std::string_view short_name;    // `dcgmi dmon` column tag ("SMACT"), or ""
  std::string_view meaning;       // one phrase, for notes and docs
  std::string_view source_unit;   // "ratio", "%", "W", "MiB", "MHz", "C", "B/s", "bitmask", ...
  CounterKind kind;
  CounterUnit unit;               // the unit the model stores it in
  double scale;
};

// DcgmFields: every field of the table, in field-id order.
std::span<const DcgmField> DcgmFields();

// FindDcgmField: the field named by `name`, case-insensitive and trimmed of
// spaces: its id ("1002"), DCGM_FI_* name with or without the DCGM_FI_PROF_ /
// DCGM_FI_DEV_ / DCGM_FI_ prefix ("SM_ACTIVE"), DCGM 4.x name, or dmon short
// name ("SMACT"). nullptr when the table does not hold it. `scale` (optional)
// receives the factor to the model's unit: the field's, or 1 when a DCGM 4.x
// `*_RATIO` name gives a percent field as a ratio.
const DcgmField* FindDcgmField(std::string_view name, double* scale = nullptr);

}  // namespace gpuwhy::model
