// Joining the per-domain CSV files of one rocprofv3 run.
//
// rocprofv3 writes kernel_trace.csv, hip_api_trace.csv, memory_copy_trace.csv,
// counter_collection.csv and agent_info.csv side by side; each imports alone
// (rocprof_csv_importer.h). Given together, they are one run: one clock
// ("rocprofiler"), with kernels joining their HIP launch on Correlation_Id.
//
// Contract:
// - Every trace whose TraceInfo::format is "rocprofv3-csv" is folded into the
//   first of them that holds GPU events (kernels, copies, memsets); rows are
//   appended with their strings re-interned, counter series and import stats
//   added, agent_info (names, CU counts, limits) fills the devices of the
//   same id that the events use (agents that ran nothing are not added). format_version lists the parts ("kernel_trace+hip_api_trace").
//   Merged inputs leave `traces` / `paths` (kept parallel).
// - When no part holds GPU events (an API trace or agent info alone) the run
//   holds nothing gpuwhy maps: one error line naming the first part and what
//   it holds, never an idle GPU.
// - Inputs of other formats are left alone. Pure data movement.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace gpuwhy::import {

// MergeRocprofParts: see the file comment.
Status MergeRocprofParts(std::vector<model::Trace>& traces, std::vector<std::string>& paths);

}  // namespace gpuwhy::import
