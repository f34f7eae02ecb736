// A fixed subset of ../shared/benchmarks/MANIFEST.tsv with a short timeout: any wrong
// verdict fails the test (unknown is allowed here; `argus bench` measures coverage).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/engine/verify.h"

namespace fs = std::filesystem;
using argus::result::Verdict;

namespace {

struct Task {
  std::string id, file, expected, dataModel;
};

fs::path sharedDir() {
  if (const char* s = std::getenv("ARGUS_SHARED")) return s;
  return fs::path(ARGUS_SOURCE_DIR) / ".." / "shared";
}

std::vector<Task> loadManifest() {
  std::vector<Task> tasks;
  fs::path m = sharedDir() / "benchmarks" / "MANIFEST.tsv";
  std::ifstream in(m);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, '\t')) cols.push_back(c);
    if (cols.size() < 7) continue;
    tasks.push_back({cols[0], (m.parent_path() / cols[1]).string(), cols[5], cols[6]});
  }
  return tasks;
}

// Every 6th task: a fixed, category-spread subset of about 40 tasks.
class BenchmarkSubset : public ::testing::TestWithParam<argus::engine::Algorithm> {};

TEST_P(BenchmarkSubset, NoWrongVerdicts) {
  std::vector<Task> tasks = loadManifest();
  if (tasks.empty()) GTEST_FAIL() << "benchmark manifest not found under " << sharedDir();
  int checked = 0, solved = 0;
  std::string wrong;
  for (size_t i = 0; i < tasks.size(); i += 6) {
    const Task& t = tasks[i];
    argus::engine::VerifyRequest req;
    req.file = t.file;
    req.algorithm = GetParam();
    req.timeoutS = 5;
    req.dataModel = argus::frontend::parseDataModel(t.dataModel);
    auto out = argus::engine::verify(req);
    ++checked;
    if (out.inputError) continue;  // counted as unknown
    Verdict v = out.result.verdict;
    if (v == Verdict::Unknown) continue;
    ++solved;
    bool expectTrue = t.expected == "true";
    if ((v == Verdict::True) != expectTrue) wrong += "  " + t.id + ": expected " + t.expected + ", got " +
                                                     argus::result::verdictName(v) + "\n";
  }
  EXPECT_TRUE(wrong.empty()) << "wrong verdicts:\n" << wrong;
  EXPECT_GT(checked, 30);
  std::cout << "[ benchmarks ] " << checked << " tasks, " << solved << " solved\n";
}

INSTANTIATE_TEST_SUITE_P(Algorithms, BenchmarkSubset,
                         ::testing::Values(argus::engine::Algorithm::Bmc, argus::engine::Algorithm::Ibmc,
                                           argus::engine::Algorithm::BmcCpa),
                         [](const auto& info) {
                           std::string n = argus::engine::algorithmName(info.param);
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace

namespace {

// Predicate abstraction on state-machine programs whose refinements need the
// predicates of plain conjunctions (the session-3 regression: projecting ABE
// disjunctions disjunct by disjunct gave pred dozens of ite atoms and "refinement
// made no progress" on each of these).
TEST(PredStateMachines, SolvesSystemcTasks) {
  std::vector<Task> tasks = loadManifest();
  if (tasks.empty()) GTEST_FAIL() << "benchmark manifest not found under " << sharedDir();
  const std::vector<std::string> ids = {"sv/systemc/token_ring.01.cil-1", "sv/systemc/bist_cell.cil",
                                        "sv/systemc/transmitter.02.cil", "sv/systemc/token_ring.03.cil-1"};
  for (const std::string& id : ids) {
    auto it = std::find_if(tasks.begin(), tasks.end(), [&](const Task& t) { return t.id == id; });
    ASSERT_NE(it, tasks.end()) << id << " is not in the manifest";
    argus::engine::VerifyRequest req;
    req.file = it->file;
    req.algorithm = argus::engine::Algorithm::Pred;
    req.timeoutS = 60;
    req.dataModel = argus::frontend::parseDataModel(it->dataModel);
    auto out = argus::engine::verify(req);
    ASSERT_FALSE(out.inputError) << id;
    Verdict expected = it->expected == "true" ? Verdict::True : Verdict::False;
    EXPECT_EQ(out.result.verdict, expected) << id << ": " << out.result.reason;
  }
}

}  // namespace
