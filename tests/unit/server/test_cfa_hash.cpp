// Cache keys: core/cfa/cfa_hash.h.
#include <gtest/gtest.h>

#include "core/cfa/cfa_hash.h"
#include "core/frontend/frontend.h"

namespace {

using argus::cfa::closureHashes;

std::map<std::string, std::string> hashesOf(const std::string& src) {
  argus::frontend::ParseResult pr = argus::frontend::parseSource(src, "t.c", {});
  EXPECT_TRUE(pr.ok()) << pr.diagnostics;
  if (!pr.ok()) return {};
  return closureHashes(*pr.program);
}

const char* kBase = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int leaf(int x) { return x + 1; }
int mid(int x) { return leaf(x) * 2; }
int other(int y) { int t = y; if (t == 7) reach_error(); return t; }
int main(void) { int v = mid(__VERIFIER_nondet_int()); if (v == 3) reach_error(); return other(v); }
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return s.replace(p, from.size(), to);
}

TEST(CfaHash, DeterministicAcrossParses) {
  EXPECT_EQ(hashesOf(kBase), hashesOf(kBase));
}

TEST(CfaHash, EditingALeafChangesItAndItsCallersOnly) {
  auto a = hashesOf(kBase);
  auto b = hashesOf(replace(kBase, "return x + 1;", "return x + 2;"));
  EXPECT_NE(a["leaf"], b["leaf"]);
  EXPECT_NE(a["mid"], b["mid"]);
  EXPECT_NE(a["main"], b["main"]);
  EXPECT_EQ(a["other"], b["other"]);
}

TEST(CfaHash, EditingAnUncalledFunctionChangesOnlyItAndItsCallers) {
  auto a = hashesOf(kBase);
  auto b = hashesOf(replace(kBase, "t == 7", "t == 8"));
  EXPECT_NE(a["other"], b["other"]);
  EXPECT_NE(a["main"], b["main"]);  // main calls other
  EXPECT_EQ(a["leaf"], b["leaf"]);
  EXPECT_EQ(a["mid"], b["mid"]);
}

TEST(CfaHash, InsertingLinesAboveKeepsEveryHash) {
  auto a = hashesOf(kBase);
  auto b = hashesOf(replace(kBase, "int leaf(", "\n\n// a comment\nint leaf("));
  EXPECT_EQ(a, b);
}

TEST(CfaHash, MovingCodeInsideAFunctionChangesIt) {
  // Same statements, one line further down inside `other`: positions of its
  // diagnostics change, so its key must change too.
  auto a = hashesOf(kBase);
  auto b = hashesOf(replace(kBase, "int t = y; if", "int t = y;\n if"));
  EXPECT_NE(a["other"], b["other"]);
  EXPECT_EQ(a["leaf"], b["leaf"]);
}

TEST(CfaHash, GlobalsAreVisibleToEveryFunction) {
  auto a = hashesOf(kBase);
  auto b = hashesOf(std::string("int g;\n") + kBase);
  EXPECT_NE(a["leaf"], b["leaf"]);
  EXPECT_NE(a["other"], b["other"]);
}

}  // namespace
