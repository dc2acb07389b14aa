// synth_smi: write a synthetic nvidia-smi log (full reports, or --query-gpu CSV) with known
// answers. usage: synth_smi CASE -o FILE [--truth]
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "synth_smi.h"

int main(int argc, char** argv) {
  using namespace gpuwhy::synth_smi;
  std::string name, out;
  bool truth = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-o" && i + 1 < argc) out = argv[++i];
    else if (a == "--truth") truth = true;
    else if (name.empty() && !a.starts_with("-")) name = std::string(a);
    else name = "?";
  }
  SmiLogParams p;
  if (name.empty() || out.empty() || !CaseParams(name, &p)) {
    std::cerr << "usage: synth_smi CASE -o FILE [--truth]\ncases:";
    for (const std::string& c : CaseNames()) std::cerr << ' ' << c;
    for (const std::string& c : RunCaseNames()) std::cerr << ' ' << c;
    std::cerr << '\n';
    return 1;
  }
  SmiLog log = Generate(p);
  std::ofstream f(out, std::ios::binary);
  f << log.text;
  if (!f) {
    std::cerr << "synth_smi: cannot write " << out << '\n';
    return 2;
  }
  if (truth) {
    std::cout << "reports " << log.truth.reports << "\nmalformed_rows " << log.truth.malformed_rows << '\n';
    for (size_t g = 0; g < log.truth.util_mean_ratio.size(); ++g)
      std::printf("gpu %zu util_mean %.4f proc_peak_bytes %lld\n", g, log.truth.util_mean_ratio[g],
                  static_cast<long long>(log.truth.proc_peak_bytes[g]));
    std::printf("setup_s %lld\ndip_period_s %lld\nstraggler_gpu %d\n",
                static_cast<long long>(log.truth.setup_s),
                static_cast<long long>(log.truth.dip_period_s), log.truth.straggler_gpu);
  }
  return 0;
}
