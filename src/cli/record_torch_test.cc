// record --torch's CLI side: the status files the shim writes, --steps, and
// the one line each outcome gets.
#include "cli/torch_status.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpuwhy::cli {
namespace {

TorchStatus Status(const std::string& text) { return ParseTorchStatus(text); }

const char* kRank0 =
    "pid=101\nroot=0\nrank=0\npython=/usr/bin/python3\ntorch=1\ntorch_error=\n"
    "hook=torch.optim.optimizer:Optimizer.step\nhooked=1\nsteps=14\nrecorded=5\n"
    "trace=/d/h.101.rank0.pt.trace.json\ncuda=0\nerror=\n";

TEST(RecordTorch, ParsesStatus) {
  TorchStatus s = Status(kRank0);
  EXPECT_EQ(s.pid, 101);
  EXPECT_FALSE(s.root);
  EXPECT_EQ(s.rank, "0");
  EXPECT_EQ(s.torch, "1");
  EXPECT_TRUE(s.hooked);
  EXPECT_EQ(s.steps, 14);
  EXPECT_EQ(s.recorded, 5);
  EXPECT_EQ(s.trace, "/d/h.101.rank0.pt.trace.json");
  EXPECT_FALSE(s.cuda);
  // Unknown keys and lines without '=' are ignored; a bad number keeps the default.
  TorchStatus t = Status("future=1\nnonsense\nsteps=abc\ncuda=1\n");
  EXPECT_EQ(t.steps, 0);
  EXPECT_TRUE(t.cuda);
  EXPECT_EQ(t.pid, -1);
}

TEST(RecordTorch, ParsesSteps) {
  long a = 0, b = 0;
  EXPECT_TRUE(ParseTorchSteps("5:10", &a, &b));
  EXPECT_EQ(a, 5);
  EXPECT_EQ(b, 10);
  EXPECT_TRUE(ParseTorchSteps("1:2", &a, &b));
  for (const char* bad : {"0:5", "5:5", "6:5", "5", ":5", "5:", "a:b", "5:10x", "-1:3", ""})
    EXPECT_FALSE(ParseTorchSteps(bad, &a, &b)) << bad;
}

TEST(RecordTorch, OneLinePerOutcome) {
  // No Python process ran the shim.
  EXPECT_NE(TorchOutcome({}, 5, 10, "/d", false).find("no Python process"), std::string::npos);
  // torch not importable: the interpreter and Python's message are named.
  TorchStatus missing = Status(
      "pid=1\nroot=1\npython=/opt/py/bin/python3\ntorch=missing\n"
      "torch_error=No module named 'torch'\n");
  std::string line = TorchOutcome({missing}, 5, 10, "/d", false);
  EXPECT_NE(line.find("torch is not importable by /opt/py/bin/python3"), std::string::npos);
  EXPECT_NE(line.find("No module named 'torch'"), std::string::npos);
  // A launcher that never imported torch, and a rank that took no step: the
  // hook that never fired is named.
  TorchStatus launcher = Status("pid=1\nroot=1\ntorch=0\n");
  TorchStatus idle = Status(
      "pid=2\ntorch=1\nhook=torch.optim.optimizer:Optimizer.step\nhooked=1\nsteps=0\n");
  line = TorchOutcome({launcher, idle}, 5, 10, "/d", false);
  EXPECT_NE(line.find("no step happened: torch.optim.optimizer:Optimizer.step was never called"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("--step-on"), std::string::npos);
  TorchStatus unhooked = Status("pid=2\ntorch=1\nhook=mypkg.loop:step\nhooked=0\nsteps=0\n");
  line = TorchOutcome({unhooked}, 5, 10, "/d", false);
  EXPECT_NE(line.find("mypkg.loop:step was never hooked"), std::string::npos) << line;
  // Too few steps for the window.
  TorchStatus few = Status("pid=2\ntorch=1\nhook=m:f\nhooked=1\nsteps=3\n");
  line = TorchOutcome({few}, 5, 10, "/d", false);
  EXPECT_NE(line.find("only 3 steps happened"), std::string::npos) << line;
  EXPECT_NE(line.find("starts at step 5"), std::string::npos) << line;
  // A hook error is the line.
  TorchStatus err = Status("pid=2\ntorch=1\nhook=m:f\nerror=cannot hook m:f: AttributeError: x\n");
  EXPECT_NE(TorchOutcome({err}, 5, 10, "/d", false).find("cannot hook m:f"), std::string::npos);
  // Traces of a CPU-only run: the line counts the recorded steps and traces.
  TorchStatus r1 = Status(std::string(kRank0) + "pid=102\nrank=1\n"
                          "trace=/d/h.102.rank1.pt.trace.json\n");
  line = TorchOutcome({launcher, Status(kRank0), r1}, 5, 10, "/d", false);
  EXPECT_EQ(line,
            "a CPU-only run: the script never used a GPU; recorded 5 steps (ProfilerStep#5..#9) "
            "of 14 in 2 traces under /d");
  EXPECT_NE(TorchOutcome({Status(kRank0)}, 5, 10, "/d", true).find("NVML sampled"),
            std::string::npos);
  // A recorded count past the window (or near LONG_MAX) is held to the window.
  TorchStatus huge = Status(std::string(kRank0) + "recorded=9223372036854775807\n");
  line = TorchOutcome({huge}, 5, 10, "/d", false);
  EXPECT_NE(line.find("recorded 5 steps (ProfilerStep#5..#9)"), std::string::npos) << line;
  // A GPU run: no line (the report says it all).
  TorchStatus gpu = Status(std::string(kRank0) + "cuda=1\n");
  EXPECT_EQ(TorchOutcome({gpu}, 5, 10, "/d", true), "");
}

}  // namespace
}  // namespace gpuwhy::cli
