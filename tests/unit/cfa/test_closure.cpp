// Entry closures and slices (core/cfa/closure.h), closure hashes over them
// (core/cfa/cfa_hash.h), and the frontend's part in them: per-function isolation of
// lowering failures, init pieces, the system-header flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/cfa/cfa_hash.h"
#include "core/cfa/closure.h"
#include "core/frontend/frontend.h"

namespace {

using namespace argus;

std::unique_ptr<cfa::Program> parse(const std::string& code) {
  frontend::ParseResult pr = frontend::parseSource(code, "closure.c", {});
  EXPECT_TRUE(pr.ok()) << pr.diagnostics;
  return std::move(pr.program);
}

bool hasFunction(const cfa::Program& p, const std::string& name) { return p.find(name) != nullptr; }

bool hasVar(const cfa::Program& p, const std::string& name) {
  return std::any_of(p.vars.begin(), p.vars.end(), [&](const cfa::Variable& v) { return v.name == name; });
}

std::vector<const cfa::Edge*> edgesOf(const cfa::Function& f, cfa::EdgeKind k) {
  std::vector<const cfa::Edge*> out;
  for (const cfa::Edge& e : f.edges)
    if (e.kind == k) out.push_back(&e);
  return out;
}

TEST(Closure, KeepsCalleesAndTheGlobalsTheyNameOnly) {
  auto p = parse(
      "int used = 3; int unused = 4; int other[100] = {1, 2, 3};\n"
      "int leaf(int x) { return x + used; }\n"
      "int f(int x) { return leaf(x); }\n"
      "int g(int x) { return x + unused + other[5]; }\n"
      "int main(void) { return f(1) + g(2); }\n");
  ASSERT_TRUE(p);
  auto s = cfa::slice(*p, p->find("f")->id);
  EXPECT_TRUE(hasFunction(*s, "f"));
  EXPECT_TRUE(hasFunction(*s, "leaf"));
  EXPECT_FALSE(hasFunction(*s, "g"));
  EXPECT_FALSE(hasFunction(*s, "main"));
  EXPECT_TRUE(hasVar(*s, "used"));
  EXPECT_FALSE(hasVar(*s, "unused"));
  EXPECT_FALSE(hasVar(*s, "other$addr"));
  ASSERT_NE(s->initFunc, cfa::kNoFunc);
  // the initialiser of `other` (three stores) is gone with it
  EXPECT_TRUE(edgesOf(s->functions[s->initFunc], cfa::EdgeKind::Store).empty());
  // main's closure is everything
  auto m = cfa::slice(*p, p->find("main")->id);
  EXPECT_TRUE(hasVar(*m, "unused"));
  EXPECT_TRUE(hasVar(*m, "other$addr"));
  EXPECT_EQ(m->functions.size(), p->functions.size());
}

TEST(Closure, FollowsAddressesTakenInInitialisers) {
  auto p = parse(
      "int b = 5; int *pb = &b; int **ppb = &pb; int lone = 7;\n"
      "int f(void) { return **ppb; }\n");
  auto s = cfa::slice(*p, p->find("f")->id);
  EXPECT_TRUE(hasVar(*s, "ppb$addr") || hasVar(*s, "ppb"));
  EXPECT_TRUE(hasVar(*s, "pb$addr"));
  EXPECT_TRUE(hasVar(*s, "b$addr"));
  EXPECT_FALSE(hasVar(*s, "lone"));
}

TEST(Closure, IndirectCallsReachAddressTakenFunctionsOnly) {
  auto p = parse(
      "int inc(int x) { return x + 1; } int dec(int x) { return x - 1; } int never(int x) { return 0; }\n"
      "int (*table[2])(int) = {inc, dec};\n"
      "int f(int i, int x) { return table[i & 1](x); }\n"
      "int h(int x) { return never(x); }\n");
  auto s = cfa::slice(*p, p->find("f")->id);
  EXPECT_TRUE(hasFunction(*s, "inc"));
  EXPECT_TRUE(hasFunction(*s, "dec"));
  EXPECT_FALSE(hasFunction(*s, "never"));  // only ever called directly
  EXPECT_FALSE(hasFunction(*s, "h"));
}

TEST(Closure, KeptGlobalsKeepTheirAddresses) {
  auto p = parse(
      "char before[10]; int g; char after[20];\n"
      "int f(void) { int *q = &g; return *q; }\n");
  auto s = cfa::slice(*p, p->find("f")->id);
  for (cfa::FuncId init : {s->initFunc, s->initNondetFunc}) {
    ASSERT_NE(init, cfa::kNoFunc);
    auto allocs = edgesOf(s->functions[init], cfa::EdgeKind::Alloc);
    // gap for `before` (10 bytes, rounded to 16), g itself, gap for `after` (24)
    ASSERT_EQ(allocs.size(), 3u) << cfa::dump(*s);
    EXPECT_EQ(allocs[0]->size->value, 16u);
    EXPECT_EQ(s->vars[*allocs[1]->lhs].name, "g$addr");
    EXPECT_EQ(allocs[2]->size->value, 24u);
    EXPECT_FALSE(allocs[0]->zeroInit);  // what lies there is unknown to the slice
  }
}

TEST(Closure, SliceOfASliceIsTheSame) {
  auto p = parse(
      "int a = 1; int b = 2; int c[4] = {1, 2, 3, 4};\n"
      "int f(int i) { return a + c[i & 3]; }\n"
      "int g(void) { return b; }\n");
  auto s = cfa::slice(*p, p->find("f")->id);
  auto ss = cfa::slice(*s, s->find("f")->id);
  EXPECT_EQ(cfa::dump(*s), cfa::dump(*ss));
}

TEST(ClosureHashes, FollowTheClosureOnly) {
  const std::string head = "int x = 1; int y = ";
  const std::string tail =
      "; int table[3] = {1, 2, 3};\n"
      "int usesX(void) { return x; }\n"
      "int usesY(void) { return y; }\n"
      "int callsY(void) { return usesY() + table[0]; }\n";
  auto h1 = cfa::closureHashes(*parse(head + "2" + tail));
  auto h2 = cfa::closureHashes(*parse(head + "3" + tail));
  EXPECT_EQ(h1.at("usesX"), h2.at("usesX"));  // y's initialiser is not in its closure
  EXPECT_NE(h1.at("usesY"), h2.at("usesY"));
  EXPECT_NE(h1.at("callsY"), h2.at("callsY"));
}

TEST(ClosureHashes, LinearOnAWideProgram) {
  // every function reaches every other through the one indirect call in `call`: a walk
  // over each function's closure would be quadratic, the component hashes are not
  std::string code = "typedef int (*fp)(int); extern fp pick(int);\n"
                     "int call(int x) { return x > 0 ? pick(x)(x - 1) : 0; }\n";
  for (int i = 0; i < 4000; ++i)
    code += "int f" + std::to_string(i) + "(int x) { return call(x) + " + std::to_string(i) + "; }\n";
  code += "fp all[] = {";
  for (int i = 0; i < 4000; ++i) code += "f" + std::to_string(i) + ",";
  code += "};\n";
  auto p = parse(code);
  auto h = cfa::closureHashes(*p);
  EXPECT_EQ(h.size(), p->functions.size());
  // one component: the same closure, different names
  EXPECT_NE(h.at("f1"), h.at("f2"));
}

// Issue 29 item 1: which functions have nothing to check in their closure (no Error and no
// Unsupported edge), computed for all at once, agrees with each function's slice.
bool sliceHasCheck(const cfa::Program& p, const std::string& f) {
  auto s = cfa::slice(p, p.find(f)->id);
  for (const cfa::Function& g : s->functions)
    for (const cfa::Edge& e : g.edges)
      if (e.kind == cfa::EdgeKind::Error || e.kind == cfa::EdgeKind::Unsupported) return true;
  return false;
}

TEST(Closure, ClosuresWithoutChecksAgreeWithTheSlices) {
  auto p = parse(
      "void reach_error(void);\n"
      "int checked(int x) { if (x == 3) reach_error(); return x; }\n"
      "int pure(int x) { return x * 2; }\n"
      "int calls_checked(int x) { return checked(x) + 1; }\n"
      "int calls_pure(int x) { return pure(x) + pure(x + 1); }\n"
      "int (*table[1])(int) = {checked};\n"
      "int through_table(int x) { return table[0](x); }\n"  // indirect: reaches checked
      "int (*hook)(int, int, int);\n"
      "int no_target(int x) { return hook(x, x, x); }\n"    // no 3-parameter target
      "int calls_no_target(int x) { return no_target(x) + pure(x); }\n"
      "int rec(int x) { return x > 0 ? rec(x - 1) + pure(x) : 0; }\n"
      "int rec_checked(int x) { return x > 0 ? rec_checked(x - 1) : checked(x); }\n"
      "int main(void) { return calls_pure(1); }\n");
  ASSERT_TRUE(p);
  std::vector<bool> free = cfa::closuresWithoutChecks(*p);
  ASSERT_EQ(free.size(), p->functions.size());
  for (const char* f : {"pure", "calls_pure", "rec", "main"}) EXPECT_TRUE(free[p->find(f)->id]) << f;
  for (const char* f : {"checked", "calls_checked", "through_table", "no_target", "calls_no_target", "rec_checked"})
    EXPECT_FALSE(free[p->find(f)->id]) << f;
  // and the same answer as each function's own slice
  for (const cfa::Function& f : p->functions) {
    if (f.id == p->initFunc || f.id == p->initNondetFunc || f.locs.empty()) continue;
    EXPECT_EQ(free[f.id], !sliceHasCheck(*p, f.name)) << f.name;
  }
}

TEST(FrontendIsolation, ALoweringFailureCostsOnlyItsFunction) {
  // vector types make the lowering fail with an internal error (operand widths differ)
  auto p = parse(
      "typedef int v4 __attribute__((vector_size(16)));\n"
      "int f(int x) { v4 a = {x, 1, 2, 3}; return a[1] == 1; }\n"
      "int g(int x) { return x + 1; }\n");
  ASSERT_TRUE(p);
  const cfa::Function* f = p->find("f");
  const cfa::Function* g = p->find("g");
  ASSERT_TRUE(f && g);
  auto fu = edgesOf(*f, cfa::EdgeKind::Unsupported);
  ASSERT_EQ(fu.size(), 1u);
  EXPECT_NE(fu[0]->text.find("internal error lowering f"), std::string::npos) << fu[0]->text;
  EXPECT_EQ(fu[0]->range.line, 2u);
  EXPECT_TRUE(edgesOf(*g, cfa::EdgeKind::Unsupported).empty());
  EXPECT_FALSE(edgesOf(*g, cfa::EdgeKind::Return).empty());
}

TEST(FrontendSystemHeaders, FunctionsDefinedInSystemHeadersAreMarked) {
  auto p = parse("#include <byteswap.h>\n#include <stdint.h>\nuint16_t mine(uint16_t x) { return bswap_16(x); }\n");
  ASSERT_TRUE(p);
  const cfa::Function* mine = p->find("mine");
  ASSERT_TRUE(mine);
  EXPECT_FALSE(mine->systemHeader);
  const cfa::Function* sys = p->find("__bswap_16");
  ASSERT_TRUE(sys) << "glibc's <bits/byteswap.h> defines __bswap_16";
  EXPECT_TRUE(sys->systemHeader);
  for (const cfa::Function& f : p->functions)
    if (f.name.rfind("__argus_", 0) == 0) {
      EXPECT_FALSE(f.systemHeader);
    }
}

}  // namespace
