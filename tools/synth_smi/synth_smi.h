// Synthetic nvidia-smi full-report logs with known answers, for tests: the
// default table printed in a loop (driver layouts 418 .. 570, MIG, no banner,
// corrupted), `nvidia-smi -q` text and `-q -x` XML. Layouts follow real
// output of those driver branches (column widths, header labels, the MIG
// devices table, the process table with and without GI/CI).
//
// Contract: SmiCase() is deterministic (fixed LCG) and machine-independent.
// Every GPU's GPU-Util of report i is util_pct[gpu] + a wobble in
// [-wobble, +wobble] (whole percent, clamped 0..100); the truth holds the
// exact means of the printed values. A GPU with a `schedule` follows it
// instead (stretches of reports, each with its own GPU-Util, memory and pid),
// and `dip_every` cuts periodic dips into its busy stretches: the run cases
// ("csv_straggler_8gpu", "setup_memory_held", "sequential_processes",
// "periodic_dips") whose known answers are phases, processes and stragglers.
// Format::kQueryCsv writes `nvidia-smi --query-gpu=... --format=csv -l`
// rows, one per GPU per tick (1 ms apart), with or without the index column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy::synth_smi {

enum class Layout {
  kR418,  // 2 header lines, no MIG column, "GPU PID Type Process name Usage"
  kR470,  // 3 header lines (MIG M.), process table with GI/CI (450..525)
  kR535,  // wider first column (41), Pwr:Usage/Cap right-aligned
  kR550,  // 550/560/570: Bus-Id cell 24 wide
  kR580,  // 580: as 550 with "Disp.M" and wider memory figures
};

enum class Format { kTable, kQueryText, kQueryXml, kQueryCsv };

// Stretch: `reports` reports of one GPU at `util_pct` (+ the wobble), its
// process holding `proc_mib` (0: no process) under `pid` (0: 4242 + GPU).
struct Stretch {
  int reports = 0;
  int util_pct = 0;
  int proc_mib = 0;
  int pid = 0;
};

// SmiLogParams: one log.
struct SmiLogParams {
  Format format = Format::kTable;
  Layout layout = Layout::kR550;
  int reports = 30;
  int64_t start_epoch_s = 1796309169;  // Thu Dec  3 14:46:09 2026 UTC
  int period_s = 60;                   // nvidia-smi -l 60
  bool banner = true;                  // false: untimed dump
  bool mig_gpu0 = false;               // GPU 0 in MIG mode (2 slices)
  int wobble = 4;
  uint64_t seed = 1;
  // Per GPU: mean GPU-Util (%), memory used by its process (MiB, 0: no
  // process), product name.
  std::vector<int> util_pct = {85};
  std::vector<int> proc_mib = {30000};
  std::vector<std::string> names = {"NVIDIA H100 80GB HBM3"};
  // Per GPU: the stretches it runs through (empty: util_pct / proc_mib for
  // every report); the schedule's reports should add up to `reports`.
  std::vector<std::vector<Stretch>> schedule;
  // Periodic dips: in stretches at >= 50%, reports r with r % dip_every == 0
  // (not a stretch's first or last) read dip_util_pct. 0: none.
  int dip_every = 0;
  int dip_util_pct = 3;
  // Per GPU: power draw as a percentage of the cap while GPU-Util > 0
  // (empty or -1: 70 W + 6 W per GPU-Util point).
  std::vector<int> power_pct;
  int period_ms = 0;      // > 0: overrides period_s (kQueryCsv)
  bool csv_index = true;  // kQueryCsv: write the index column
  // corrupt: a GPU row with a broken memory cell, a process row without a
  // type, a garbage line, and the last report cut mid-row (no final newline).
  bool corrupt = false;
};

// SmiTruth: what the log holds.
struct SmiTruth {
  int reports = 0;                     // complete reports (the cut one excluded)
  std::vector<double> util_mean_ratio; // per GPU, over complete reports (MIG GPU: NaN)
  std::vector<int64_t> proc_peak_bytes;
  int malformed_rows = 0;              // rows a correct importer must count and skip
  // Run cases: what a reader of the log must conclude.
  int64_t setup_s = 0;             // idle set-up before the main work (0: none)
  int64_t dip_period_s = 0;        // periodic dips (0: none)
  int straggler_gpu = -1;          // the GPU the others wait for (-1: none)
  bool processes_overlap = false;  // two processes on one GPU at once
};

struct SmiLog {
  std::string text;
  SmiTruth truth;
};

// Generate: the log for `p`.
SmiLog Generate(const SmiLogParams& p);

// CaseNames / CaseParams: the named cases of the synth_smi CLI and tests
// ("table_r418", "table_r470_mig", ..., "two_gpu_idle", "imbalance", "q_text",
// "q_xml"); RunCaseNames: the run cases (schedules, dips, stragglers), also
// known to CaseParams; CaseParams returns false for an unknown name.
std::vector<std::string> CaseNames();
std::vector<std::string> RunCaseNames();
bool CaseParams(std::string_view name, SmiLogParams* p);

}  // namespace gpuwhy::synth_smi
