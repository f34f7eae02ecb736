// Counterexample steps a person reads (issue 26 item 3): variables by name, values in
// their C type, memory writes as the object written, pointers as the objects they
// point into.
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/unit/verify/verify_helpers.h"

namespace argus {
namespace {

using testing::snippetRequest;

// Every (name, value) the trace's steps show, in order.
std::vector<std::pair<std::string, std::string>> shown(const engine::VerifyOutcome& out) {
  std::vector<std::pair<std::string, std::string>> all;
  if (!out.result.counterexample) return all;
  for (const auto& st : out.result.counterexample->steps)
    for (const auto& kv : st.values) all.push_back(kv);
  return all;
}

bool has(const std::vector<std::pair<std::string, std::string>>& v, const std::string& k, const std::string& val) {
  for (const auto& [a, b] : v)
    if (a == k && b == val) return true;
  return false;
}

std::string dump(const std::vector<std::pair<std::string, std::string>>& v) {
  std::string s;
  for (const auto& [a, b] : v) s += "  " + a + " = " + b + "\n";
  return s;
}

TEST(TraceValues, PointerSwapExampleShowsNamesAndSignedValues) {
  std::ifstream in(std::string(ARGUS_SOURCE_DIR) + "/examples/pointer_swap.c");
  std::stringstream ss;
  ss << in.rdbuf();
  for (auto dm : {frontend::DataModel::LP64, frontend::DataModel::ILP32}) {
    engine::VerifyRequest req;
    req.file = "pointer_swap.c";
    req.source = ss.str();
    req.algorithm = engine::Algorithm::Bmc;
    req.solver = smt::SolverKind::Z3;
    req.dataModel = dm;
    req.timeoutS = 60;
    engine::VerifyOutcome out = engine::verify(req);
    ASSERT_EQ(out.result.verdict, result::Verdict::False) << out.result.reason;
    ASSERT_TRUE(out.result.counterexample && out.result.counterexample->replayed);
    auto v = shown(out);
    // the call passes the addresses of a and b: shown as such, not as numbers
    EXPECT_TRUE(has(v, "p", "&a")) << dump(v);
    EXPECT_TRUE(has(v, "q", "&b")) << dump(v);
    // no raw memory cells
    for (const auto& [k, val] : v) EXPECT_FALSE(std::regex_match(k, std::regex(R"(\*[0-9]+|\*0x[0-9a-f]+)"))) << k;
    // a is written three times (its initialiser, *p = *q in swap... ) under its own name,
    // with the value a0 has, in int (signed): the same text as a0's value
    std::string a0;
    for (const auto& [k, val] : v)
      if (k == "a0") a0 = val;
    ASSERT_FALSE(a0.empty()) << dump(v);
    EXPECT_TRUE(has(v, "a", a0)) << "a0 = " << a0 << "\n" << dump(v);
    EXPECT_TRUE(has(v, "b", a0)) << "*q = t writes a's old value into b\n" << dump(v);
  }
}

TEST(TraceValues, ObjectsArraysHeapAndFloatsAreShownInTheirCType) {
  const char* body =
      "int main(void) {\n"
      "  int a = -5; int *p = &a; *p = -7;\n"
      "  char buf[10]; buf[3] = 'x'; char *e = &buf[10];\n"
      "  unsigned u = 4000000000u; float f = 1.5f; double d = -0.25;\n"
      "  float g = 2.5f; float *pg = &g; *pg = 0.125f;\n"
      "  int *h = malloc(8); h[1] = 3; int *h1 = h + 1;\n"
      "  free(h); int *q = h; int *z = 0;\n"
      "  if (a == -7 && buf[3] == 'x' && h1 != z) reach_error();\n"
      "  return 0;\n"
      "}\n";
  for (auto dm : {frontend::DataModel::LP64, frontend::DataModel::ILP32}) {
    for (auto alg : {engine::Algorithm::Bmc, engine::Algorithm::Kind}) {
      engine::VerifyRequest req = snippetRequest(body, alg, smt::SolverKind::Z3, 60);
      req.dataModel = dm;
      engine::VerifyOutcome out = engine::verify(req);
      ASSERT_EQ(out.result.verdict, result::Verdict::False) << out.result.reason;
      auto v = shown(out);
      int mallocLine = 0;
      {
        std::istringstream lines(*req.source);
        std::string l;
        for (int n = 1; std::getline(lines, l); ++n)
          if (l.find("malloc(8)") != std::string::npos) mallocLine = n;
      }
      std::string block = "block from test.c:" + std::to_string(mallocLine);
      EXPECT_TRUE(has(v, "p", "&a")) << dump(v);
      EXPECT_TRUE(has(v, "a", "-5")) << dump(v);
      EXPECT_TRUE(has(v, "a", "-7")) << dump(v);
      EXPECT_TRUE(has(v, "buf[3]", "120")) << dump(v);
      EXPECT_TRUE(has(v, "e", "&buf[10]")) << "one past the end\n" << dump(v);
      EXPECT_TRUE(has(v, "u", "4000000000")) << dump(v);
      EXPECT_TRUE(has(v, "f", "1.5")) << dump(v);
      EXPECT_TRUE(has(v, "d", "-0.25")) << dump(v);
      EXPECT_TRUE(has(v, "g", "0.125")) << dump(v);
      EXPECT_TRUE(has(v, "h", block)) << dump(v);
      EXPECT_TRUE(has(v, block + " (bytes 4..7)", "3")) << dump(v);
      EXPECT_TRUE(has(v, "h1", block + " + 4")) << dump(v);
      EXPECT_TRUE(has(v, "q", "(freed) " + block)) << dump(v);
      EXPECT_TRUE(has(v, "z", "NULL")) << dump(v);
    }
  }
}

}  // namespace
}  // namespace argus
