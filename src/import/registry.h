// Import registry: picks the importer for a path by content and runs it.
//
// Contract: ImportFile() never returns a partial trace: on any container error
// it returns the Status (missing file, directory, empty file, unknown format,
// corrupt data), with a message naming the path and position.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "import/importer.h"
#include "model/trace.h"

namespace gpuwhy::import {

// ImportOptions: what the command line may tune in the importers. The model
// does not depend on it.
struct ImportOptions {
  // parse_threads: Kineto JSON parser threads (KinetoOptions::threads); 0 picks
  // by the machine's cores.
  int parse_threads = 0;
};

// BuiltinImporters: one instance of every importer gpuwhy ships, in sniff order.
std::vector<std::unique_ptr<Importer>> BuiltinImporters(const ImportOptions& options = {});

// ImportFile: detect the format of `path` and import it.
Result<model::Trace> ImportFile(const std::string& path, const ImportOptions& options = {});

// ImportFileRanks: as ImportFile, but one trace per rank when the file holds
// several (a `record --trace` recording of a launcher whose processes carry
// different RANKs, Importer::ReadRanks); otherwise one trace.
Result<std::vector<model::Trace>> ImportFileRanks(const std::string& path,
                                                  const ImportOptions& options = {});

// ExpandInputs: files named on the command line, with directories expanded to
// the traces they contain (sorted), for multi-rank analysis.
Result<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& args);

}  // namespace gpuwhy::import
