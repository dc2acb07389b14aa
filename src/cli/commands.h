// Subcommand entry points. Each parses its own arguments (CLI11) and returns
// the process exit code: 0 success, 1 usage error, 2 bad input / failed run,
// 3 a `diff --fail-if` gate violated.
// They live in the gpuwhy_cli library so tests can call them in-process.
#pragma once

#include <iosfwd>

namespace gpuwhy::cli {

// AnalyzeMain: `gpuwhy analyze FILE... [--json] ...`.
int AnalyzeMain(int argc, char** argv, std::ostream& out, std::ostream& err);
// SummarizeMain: `gpuwhy summarize FILE... -o RANK.gwsum` (docs/gwsum.md):
// one rank's per-rank summary; prints one line with its size against the trace's.
int SummarizeMain(int argc, char** argv, std::ostream& out, std::ostream& err);
// RecordMain: `gpuwhy record [-o FILE] [--interval MS] -- CMD ARGS...`.
int RecordMain(int argc, char** argv, std::ostream& out, std::ostream& err);
// DiffMain: `gpuwhy diff BEFORE AFTER [--json] [--fail-if EXPR]...`; exit 3
// when a --fail-if gate is violated (docs/diff.md).
int DiffMain(int argc, char** argv, std::ostream& out, std::ostream& err);
// WatchMain: `gpuwhy watch [--once] [--json] ...`.
int WatchMain(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace gpuwhy::cli
