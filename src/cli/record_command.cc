// Placeholder until the live-sampling issue lands: says so and fails cleanly.
#include <ostream>

#include "cli/commands.h"

namespace gpuwhy::cli {

int RecordMain(int /*argc*/, char** /*argv*/, std::ostream& /*out*/, std::ostream& err) {
  err << "gpuwhy record: not available in this build yet\n";
  return 2;
}

}  // namespace gpuwhy::cli
