// Subprocess: run an external program (no shell) and capture what it prints.
//
// Contract: RunProcess() never throws and never leaves a child behind: it
// returns once the child has exited (or was killed at the deadline) and been
// reaped. The program is found on PATH as execvp() would; a program that
// cannot be started is an error Status, not an exit code. Used for I/O with
// tools gpuwhy reads the files of (e.g. `nsys export`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gpuwhy {

// ProcessOptions: limits of one RunProcess() call.
struct ProcessOptions {
  // timeout_ms: the child is killed (SIGKILL) after this long; <= 0 waits forever.
  int64_t timeout_ms = 0;
  // max_output_bytes: stdout and stderr each keep at most this many bytes (the
  // rest is read and dropped, so the child never blocks on a full pipe).
  size_t max_output_bytes = size_t{1} << 20;
};

// ProcessResult: how the child ended and what it printed.
struct ProcessResult {
  // exit_code: the child's exit status; -1 when it died of a signal.
  int exit_code = -1;
  // term_signal: the signal that ended the child; 0 when it exited.
  int term_signal = 0;
  // timed_out: the child ran past ProcessOptions::timeout_ms and was killed.
  bool timed_out = false;
  std::string stdout_text;
  std::string stderr_text;
};

// RunProcess: run argv[0] (looked up on PATH when it has no '/') with `argv`,
// stdin from /dev/null, stdout and stderr captured. Returns the result, or an
// error Status when argv is empty or the program cannot be started (the
// message names the program and the OS error).
Result<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                 const ProcessOptions& options = {});

// FindOnPath: the path of the executable `name` in the directories of $PATH
// (first match), or an empty string when there is none.
std::string FindOnPath(std::string_view name);

// MakeTempDir: a new private directory (mode 0700) under $TMPDIR (or /tmp)
// whose name starts with `prefix`; the caller removes it (RemoveTree).
Result<std::string> MakeTempDir(std::string_view prefix);

// RemoveTree: remove `path` and everything under it; true when nothing is left.
bool RemoveTree(const std::string& path);

}  // namespace gpuwhy
