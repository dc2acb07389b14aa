#include "import/smi/dcgm_exporter_importer.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "import/smi/smi_common.h"
#include "import/smi/smi_snapshot.h"
#include "model/dcgm_fields.h"

namespace gpuwhy::import {

using model::CounterKind;
using model::ImportStat;

namespace {

// PromLabelList: a sample's labels as written (views into the line; escape
// sequences are kept as written: the labels gpuwhy reads hold none).
using PromLabelList = std::vector<std::pair<std::string_view, std::string_view>>;

// PromLabel: the value of label `key`, or nullptr.
const std::string_view* PromLabel(const PromLabelList& labels, std::string_view key) {
  for (const auto& kv : labels)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

// PromSample: one parsed exposition line.
struct PromSample {
  std::string_view name;
  PromLabelList labels;
  std::string_view value;
  int64_t ts_ns = kMissingI64;  // the optional per-sample timestamp (ms)
  std::string_view series;      // name and raw {...}: the series' identity in a scrape
};

// PromParseSample: `name{k="v",...} value [ts_ms]`; false when the line is not one.
bool PromParseSample(std::string_view l, PromSample* out) {
  size_t i = 0;
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
  };
  while (i < l.size() && name_char(l[i])) ++i;
  if (i == 0 || std::isdigit(static_cast<unsigned char>(l[0]))) return false;
  out->name = l.substr(0, i);
  out->labels.clear();
  if (i < l.size() && l[i] == '{') {
    ++i;
    while (true) {
      while (i < l.size() && (l[i] == ' ' || l[i] == ',')) ++i;
      if (i >= l.size()) return false;
      if (l[i] == '}') break;
      size_t k0 = i;
      while (i < l.size() && name_char(l[i])) ++i;
      std::string_view key = l.substr(k0, i - k0);
      if (key.empty() || i + 1 >= l.size() || l[i] != '=' || l[i + 1] != '"') return false;
      i += 2;
      const size_t v0 = i;
      while (i < l.size() && l[i] != '"') i += l[i] == '\\' ? 2 : 1;
      if (i >= l.size()) return false;  // unterminated value
      out->labels.emplace_back(key, l.substr(v0, i - v0));
      ++i;
    }
    ++i;
  }
  out->series = l.substr(0, i);
  std::vector<std::string_view> rest = smi::SplitWhitespace(l.substr(i));
  if (rest.empty() || rest.size() > 2) return false;
  out->value = rest[0];
  out->ts_ns = kMissingI64;
  if (rest.size() == 2) {
    int64_t ms = 0;
    double d;
    // Range first: a double past int64 has no defined cast.
    if (!smi::ParseNumber(rest[1], &d, nullptr) || !(std::fabs(d) < 9.0e18) ||
        d != std::floor(d))
      return false;
    ms = static_cast<int64_t>(d);
    if (!smi::ScaledTimeNs(ms, kNsPerMs, &out->ts_ns)) out->ts_ns = kMissingI64;
  }
  return true;
}

// PromSeparatorTime: the time a separator line between scrapes states: `date`
// output ("Mon Dec  7 07:12:27 UTC 2026", the zone word dropped), ISO-8601 or
// epoch seconds/ms, optionally after '#', '-', '=' or spaces. `zone` receives
// a zone word other than UTC/GMT (read as UTC all the same).
bool PromSeparatorTime(std::string_view l, int64_t* ns, std::string* zone) {
  while (!l.empty() && (l[0] == '#' || l[0] == '-' || l[0] == '=' || l[0] == ' ' || l[0] == '\t'))
    l.remove_prefix(1);
  while (!l.empty() && (l.back() == '-' || l.back() == '=' || l.back() == ' ')) l.remove_suffix(1);
  if (l.empty()) return false;
  if (smi::ParseTimestamp(l, ns)) return true;
  std::vector<std::string_view> tok = smi::SplitWhitespace(l);
  if (tok.size() == 6) {  // `date`: weekday month day hh:mm:ss ZONE year
    std::string joined;
    for (size_t k = 0; k < tok.size(); ++k) {
      if (k == 4) continue;
      joined += std::string(tok[k]) + " ";
    }
    if (smi::ParseCtime(joined, ns)) {
      if (tok[4] != "UTC" && tok[4] != "GMT") *zone = std::string(tok[4]);
      return true;
    }
  }
  return smi::ParseCtime(l, ns);
}

// PromDevice: the model device of a sample's labels; kMissingI32 when the
// `gpu` label is missing or not an index.
int32_t PromDevice(const PromLabelList& labels, bool* mig) {
  const std::string_view* gpu = PromLabel(labels, "gpu");
  if (gpu == nullptr) return kMissingI32;
  const int32_t g = smi::EntityDevice(*gpu, {});
  *mig = false;
  if (!IsValid(g) || g >= smi::kMigInstanceDeviceBase) return kMissingI32;
  const std::string_view* gi = PromLabel(labels, "GPU_I_ID");
  if (gi == nullptr || gi->empty()) return g;
  const int32_t i = smi::EntityDevice(*gi, {});
  if (!IsValid(i) || i >= 100 || g >= 10) return kMissingI32;
  *mig = true;
  return smi::kMigInstanceDeviceBase + 100 * g + i;
}

struct PromPoint {
  int64_t scrape;
  int32_t device;
  const model::DcgmField* field;
  std::string_view metric;
  int64_t ts_ns;
  double value;
};

}  // namespace

bool LooksLikeDcgmExporter(std::string_view prefix) {
  std::vector<std::string_view> lines = smi::Lines(prefix, nullptr);
  for (size_t i = 0; i < lines.size() && i < 400; ++i) {
    std::string_view l = smi::Trim(lines[i]);
    if (l.rfind("# HELP DCGM_FI_", 0) == 0 || l.rfind("# TYPE DCGM_FI_", 0) == 0) return true;
    PromSample s;
    if (l.rfind("DCGM_FI_", 0) == 0 && PromParseSample(l, &s)) return true;
  }
  return false;
}

Status ReadDcgmExporterText(std::string_view text, model::Trace& t) {
  t.info.format = "dcgm-exporter";
  t.info.clock = "unix_realtime";
  bool last_complete = true;
  std::vector<std::string_view> lines = smi::Lines(text, &last_complete);
  std::vector<PromPoint> points;
  std::vector<int64_t> scrape_time;  // per scrape: the separator's time, or missing
  std::unordered_set<std::string_view> seen;  // series of the current scrape (views into text)
  std::string zone;
  int64_t scrape = -1;
  int64_t dcgm_samples = 0, help_lines = 0;
  bool mig_seen = false, pending_sep = false;
  int64_t pending_time = kMissingI64;
  std::map<int32_t, std::pair<std::string, std::string>> names;  // device -> (model, uuid)
  std::map<std::string, int32_t, std::less<>> hosts;  // Hostname label -> order of appearance
  auto begin_scrape = [&](int64_t ts) {
    ++scrape;
    scrape_time.push_back(ts);
    seen.clear();
  };
  PromSample s;
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string_view l = smi::Trim(lines[li]);
    if (l.empty()) continue;
    const bool tail = li + 1 == lines.size() && !last_complete;
    if (l[0] == '#') {
      if (l.rfind("# HELP ", 0) == 0 || l.rfind("# TYPE ", 0) == 0) {
        help_lines += l.rfind("# HELP DCGM_FI_", 0) == 0;
        continue;
      }
      int64_t ts;
      if (PromSeparatorTime(l, &ts, &zone)) {
        pending_sep = true;
        pending_time = ts;
      }
      continue;
    }
    if (!PromParseSample(l, &s)) {
      int64_t ts;
      if (!tail && PromSeparatorTime(l, &ts, &zone)) {
        pending_sep = true;
        pending_time = ts;
      } else if (tail) {
        t.stats.Bump(ImportStat::truncated_tail);
      } else {
        pending_sep = true;  // a text line between scrapes ("---", a host name)
        pending_time = kMissingI64;
        t.stats.Bump(ImportStat::garbage_row);
      }
      continue;
    }
    if (tail) {  // the cut may fall inside the value
      t.stats.Bump(ImportStat::truncated_tail);
      continue;
    }
    const std::string_view key = s.series;
    if (scrape < 0 || pending_sep || seen.count(key) != 0) begin_scrape(pending_sep ? pending_time : kMissingI64);
    pending_sep = false;
    pending_time = kMissingI64;
    seen.insert(key);
    if (s.name.rfind("DCGM_FI_", 0) != 0) continue;  // go_*, process_*, DCGM_EXP_*: not fields
    ++dcgm_samples;
    bool mig = false;
    int32_t dev = PromDevice(s.labels, &mig);
    // Scrapes of several nodes in one file: each host's GPUs are devices of
    // their own (host k's GPU g is 100k + g); a MIG slice past the first host
    // has no id left and is dropped.
    if (const std::string_view* h = PromLabel(s.labels, "Hostname"); h != nullptr && IsValid(dev)) {
      auto it = hosts.find(*h);
      if (it == hosts.end())
        it = hosts.emplace(std::string(*h), static_cast<int32_t>(hosts.size())).first;
      const int32_t k = it->second;
      if (k > 0 && (mig || dev >= 100 || k >= 10)) dev = kMissingI32;
      else if (k > 0) dev += 100 * k;
    }
    if (!IsValid(dev)) {
      t.stats.Bump(ImportStat::garbage_row);
      continue;
    }
    mig_seen = mig_seen || mig;
    double scale = 1;
    const model::DcgmField* f = model::FindDcgmField(s.name, &scale);
    if (f == nullptr) continue;
    double v = kMissingF64;
    if (!smi::IsMissingText(s.value)) {
      if (smi::ParseNumber(s.value, &v, nullptr)) {
        v = smi::CheckedValue(t, v) * scale;
      } else {
        t.stats.Bump(ImportStat::non_numeric_value);
        v = kMissingF64;
      }
    }
    auto& nm = names[dev];
    if (const std::string_view* m = PromLabel(s.labels, "modelName"); m != nullptr && nm.first.empty())
      nm.first = std::string(*m);
    if (const std::string_view* u = PromLabel(s.labels, "UUID"); u != nullptr && nm.second.empty())
      nm.second = std::string(*u);
    points.push_back({scrape, dev, f, s.name, s.ts_ns, v});
  }
  bool mapped = false;
  for (const PromPoint& p : points) mapped = mapped || p.field->kind != CounterKind::kOther;
  if (!mapped) {
    return InvalidInput(fmt::format(
        "Prometheus text with {} DCGM_FI_* HELP lines and {} DCGM_FI_* samples, none of a field "
        "gpuwhy maps (GPU utilization, SM activity, memory, power, clocks: docs/log_formats.md)",
        help_lines, dcgm_samples));
  }
  // The time axis: each sample's own timestamp, else its scrape's separator
  // time; samples with neither make the whole file untimed.
  bool timed = true;
  for (const PromPoint& p : points)
    timed = timed && (IsValid(p.ts_ns) || IsValid(scrape_time[static_cast<size_t>(p.scrape)]));
  smi::SeriesBuilder series(t, "dcgm-exporter");
  for (const PromPoint& p : points) {
    const int64_t ts = !timed                ? kMissingI64
                       : IsValid(p.ts_ns)    ? p.ts_ns
                                             : scrape_time[static_cast<size_t>(p.scrape)];
    series.Add(p.device, p.metric, smi::MetricSpec{p.field->kind, p.field->unit, 1, true}, ts,
               p.value);
  }
  series.Finish();
  const int64_t scrapes = scrape + 1;
  t.info.import_notes.push_back(
      timed ? fmt::format("{} dcgm-exporter scrape(s); times from {}", scrapes,
                          IsValid(points.front().ts_ns) ? "the samples' timestamps"
                                                        : "the time lines between scrapes")
            : fmt::format("{} dcgm-exporter scrape(s) without times: scrape N is sample N, no "
                          "time axis and no sample period",
                          scrapes));
  if (!zone.empty())
    t.info.import_notes.push_back("separator times in zone " + zone + " read as UTC");
  bool gr = false, sm = false;
  for (const model::CounterSeries& c : t.counters) {
    gr = gr || c.kind == CounterKind::kGrEngineActive;
    sm = sm || c.kind == CounterKind::kSmActive;
  }
  if (gr)
    t.info.import_notes.push_back(
        std::string("DCGM_FI_PROF_GR_ENGINE_ACTIVE read as graphics-engine activity, not SM "
                    "activity") +
        (sm ? "" : "; no DCGM_FI_PROF_SM_ACTIVE, so SM activity is unknown"));
  if (hosts.size() > 1) {
    std::vector<std::string> order(hosts.size());
    for (const auto& [h, k] : hosts) order[static_cast<size_t>(k)] = h;
    std::string list;
    for (size_t k = 0; k < order.size() && k < 10; ++k)
      list += (k ? ", " : "") + order[k] + " = " + std::to_string(100 * k) + "+gpu";
    t.info.import_notes.push_back(fmt::format(
        "scrapes of {} hosts kept apart as devices: {}{}", hosts.size(), list,
        hosts.size() > 10 ? "; hosts past the 10th dropped" : ""));
  }
  if (mig_seen)
    t.info.import_notes.push_back(
        "MIG instances (GPU_I_ID) kept as their own devices: GPU g instance i as device "
        "1000+100g+i");
  for (const auto& [dev, nm] : names) {
    model::Device& d = t.GetOrAddDevice(dev);
    d.vendor = model::Vendor::kNvidia;
    if (!nm.first.empty()) d.name = t.strings.Intern(nm.first);
    if (!nm.second.empty()) d.uuid = t.strings.Intern(nm.second);
  }
  t.Finalize();
  return Status::Ok();
}

Status DcgmExporterImporter::Read(const SourceInfo& src, model::Trace& trace) {
  return smi::ReadTextLog(src.path, trace, &ReadDcgmExporterText);
}

}  // namespace gpuwhy::import
