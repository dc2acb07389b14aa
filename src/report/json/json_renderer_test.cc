#include "report/json/json_renderer.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <sstream>

#include "report/json/json_writer.h"

namespace gpuwhy::report {
namespace {

TEST(JsonWriter, EscapesAndNulls) {
  EXPECT_EQ(JsonWriter::EscapeString("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  EXPECT_EQ(JsonWriter::EscapeString("µs"), "\"µs\"");
  EXPECT_EQ(JsonWriter::EscapeString("bad\xff"), "\"bad\xEF\xBF\xBD\"");
  std::ostringstream os;
  JsonWriter w(os);
  w.BeginObject();
  w.FieldDouble("nan", std::nan(""), 3);
  w.FieldDouble("inf", INFINITY, 3);
  w.FieldDouble("neg_zero", -0.0001, 3);
  w.FieldInt("missing", kMissingI64);
  w.FieldInt32("missing32", kMissingI32);
  w.FieldInt("zero", 0);
  w.Key("empty");
  w.BeginArray();
  w.EndArray();
  w.EndObject();
  EXPECT_EQ(os.str(),
            "{\n  \"nan\": null,\n  \"inf\": null,\n  \"neg_zero\": 0.000,\n"
            "  \"missing\": null,\n  \"missing32\": null,\n  \"zero\": 0,\n  \"empty\": []\n}\n");
}

TEST(JsonWriter, CompactAndExactScaled) {
  std::ostringstream os;
  {
    JsonWriter w(os, JsonWriter::Style::kCompact);
    w.BeginObject();
    w.FieldScaled("ts", 1'700'000'000'123'456'789, 3);  // 19 digits: exact, no double
    w.FieldScaled("neg", -1'001, 3);
    w.FieldScaled("small", 7, 3);
    w.FieldScaled("missing", kMissingI64, 3);
    w.Key("a");
    w.BeginArray();
    w.String("x\"y");
    w.Int(1);
    w.EndArray();
    w.EndObject();
  }
  EXPECT_EQ(os.str(),
            "{\"ts\":1700000000123456.789,\"neg\":-1.001,\"small\":0.007,\"missing\":null,"
            "\"a\":[\"x\\\"y\",1]}");
}

TEST(JsonRenderer, ValidJsonWithSchemaVersionAndNulls) {
  model::Trace t;
  t.info.source_path = "x \"quoted\".json";
  t.info.format = "kineto-json";
  model::KernelRow k;
  k.device_id = 0;
  k.stream_id = 7;
  k.start_ns = 100;
  k.end_ns = 300;
  k.name = t.strings.Intern("gemm<\"T\">\n");
  t.kernels.Append(k);
  t.Finalize();
  analysis::Analysis a;
  a.tool_version = "9.9.9";
  a.traces.push_back(analysis::AnalyzeTrace(t, {}));
  std::ostringstream os;
  RenderJson(a, os, JsonOptions{});
  std::string text = os.str();

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << text;
  int64_t version = 0;
  ASSERT_EQ(doc["schema_version"].get_int64().get(version), simdjson::SUCCESS);
  EXPECT_EQ(version, kJsonSchemaVersion);
  std::string_view tool;
  ASSERT_EQ(doc["tool"]["version"].get_string().get(tool), simdjson::SUCCESS);
  EXPECT_EQ(tool, "9.9.9");
  simdjson::dom::element trace = doc["traces"].at(0);
  std::string_view path;
  ASSERT_EQ(trace["input"]["path"].get_string().get(path), simdjson::SUCCESS);
  EXPECT_EQ(path, "x \"quoted\".json");
  EXPECT_TRUE(trace["input"]["size_bytes"].is_null());
  EXPECT_TRUE(trace["input"]["rank"].is_null());
  simdjson::dom::element dev = trace["devices"].at(0);
  EXPECT_TRUE(dev["sm_count"].is_null());
  EXPECT_TRUE(dev["name"].is_null());
  int64_t busy = 0;
  ASSERT_EQ(dev["busy"]["kernel_busy_ns"].get_int64().get(busy), simdjson::SUCCESS);
  EXPECT_EQ(busy, 200);
  std::string_view kname;
  ASSERT_EQ(dev["kernels"]["top"].at(0)["name"].get_string().get(kname), simdjson::SUCCESS);
  EXPECT_EQ(kname, "gemm<\"T\">\n");
  EXPECT_TRUE(dev["memcpy"]["total"]["bandwidth_gbps"].is_null());
  EXPECT_TRUE(dev["steps"]["step_time"]["mean_ns"].is_null());
  bool has_steps = true;
  ASSERT_EQ(dev["steps"]["has_steps"].get_bool().get(has_steps), simdjson::SUCCESS);
  EXPECT_FALSE(has_steps);
}

}  // namespace
}  // namespace gpuwhy::report
