// Placeholder; replaced by the analyze command.
#include <ostream>

#include "cli/commands.h"

namespace gpuwhy::cli {

int AnalyzeMain(int /*argc*/, char** /*argv*/, std::ostream& /*out*/, std::ostream& err) {
  err << "gpuwhy analyze: not available yet\n";
  return 2;
}

}  // namespace gpuwhy::cli
