// Dead ends (core/cfa/dead_ends.h): the locations from which no check is reachable,
// over real frontend CFAs: a program's own exit() that loops forever, code after the
// last check, callees whose return is followed by a check, checks in nested callees.
#include <gtest/gtest.h>

#include <string>

#include "core/cfa/dead_ends.h"
#include "core/frontend/frontend.h"

namespace {

using namespace argus;

std::unique_ptr<cfa::Program> parse(const std::string& code) {
  frontend::ParseResult pr = frontend::parseSource(
      "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\n" + code, "dead.c", {});
  EXPECT_TRUE(pr.ok()) << pr.diagnostics;
  return std::move(pr.program);
}

// Number of live and dead locations of function `name`, counting only the locations
// reachable from its entry (the frontend leaves a few unreachable ones behind).
struct Counts {
  size_t live = 0, dead = 0;
};
Counts count(const cfa::Program& p, const cfa::DeadEnds& d, const std::string& name) {
  const cfa::Function* f = p.find(name);
  EXPECT_NE(f, nullptr) << name;
  Counts c;
  if (!f) return c;
  std::vector<bool> seen(f->locs.size(), false);
  std::vector<cfa::LocId> stack{f->entry};
  seen[f->entry] = true;
  while (!stack.empty()) {
    cfa::LocId l = stack.back();
    stack.pop_back();
    (d.dead(f->id, l) ? c.dead : c.live)++;
    for (uint32_t ei : f->locs[l].out)
      if (!seen[f->edges[ei].to]) {
        seen[f->edges[ei].to] = true;
        stack.push_back(f->edges[ei].to);
      }
  }
  return c;
}

bool entryDead(const cfa::Program& p, const cfa::DeadEnds& d, const std::string& name) {
  const cfa::Function* f = p.find(name);
  return f && d.dead(f->id, f->entry);
}

// list-ext_1 of CPAchecker's tests: exit() defined as a self-loop. No location of it can
// reach the assertion (it never returns), and neither can main after the last check.
TEST(DeadEnds, OwnExitThatLoopsForeverIsDead) {
  auto p = parse(
      "void exit(int s) { _EXIT: goto _EXIT; }\n"
      "int main() { int x = __VERIFIER_nondet_int();\n"
      "  if (x < 0) exit(1);\n"
      "  if (x == 5) reach_error();\n"
      "  while (1) { x++; }\n"
      "}\n");
  cfa::DeadEnds d = cfa::computeDeadEnds(*p);
  Counts ex = count(*p, d, "exit");
  EXPECT_EQ(ex.live, 0u);
  EXPECT_GT(ex.dead, 0u);
  EXPECT_TRUE(entryDead(*p, d, "exit"));
  // main: its entry and the check are live, the final loop is dead
  EXPECT_FALSE(entryDead(*p, d, "main"));
  Counts m = count(*p, d, "main");
  EXPECT_GT(m.live, 0u);
  EXPECT_GT(m.dead, 0u);
  EXPECT_GE(d.deadCount, ex.dead + m.dead);
}

// A callee without any check is live while a check may follow its return, and dead
// where it cannot return (its infinite loop).
TEST(DeadEnds, CalleeIsLiveWhenACheckFollowsItsReturn) {
  auto p = parse(
      "int g;\n"
      "void count(int n) { for (int i = 0; i < n; i++) g++; }\n"
      "void spin(void) { while (1) { g++; } }\n"
      "int main() { count(__VERIFIER_nondet_int());\n"
      "  if (__VERIFIER_nondet_int()) spin();\n"
      "  if (g == 3) reach_error();\n"
      "  return 0; }\n");
  cfa::DeadEnds d = cfa::computeDeadEnds(*p);
  Counts c = count(*p, d, "count");
  EXPECT_EQ(c.dead, 0u);  // every location of count reaches its return, and the check follows
  EXPECT_GT(c.live, 0u);
  EXPECT_TRUE(entryDead(*p, d, "spin"));  // never returns, contains no check
  EXPECT_FALSE(entryDead(*p, d, "main"));
}

// A check two calls down makes the callers' call sites live, though they contain none.
TEST(DeadEnds, CheckInANestedCalleeMakesTheCallersLive) {
  auto p = parse(
      "void leaf(int x) { if (x == 7) reach_error(); }\n"
      "void mid(int x) { leaf(x + 1); while (1) { } }\n"
      "int main() { mid(__VERIFIER_nondet_int()); return 0; }\n");
  cfa::DeadEnds d = cfa::computeDeadEnds(*p);
  EXPECT_FALSE(entryDead(*p, d, "leaf"));
  EXPECT_FALSE(entryDead(*p, d, "mid"));
  EXPECT_FALSE(entryDead(*p, d, "main"));
  // mid's loop after the call is dead, and so is main after its call of mid (mid never
  // returns, and nothing is checked after it anyway)
  EXPECT_GT(count(*p, d, "mid").dead, 0u);
  EXPECT_GT(count(*p, d, "main").dead, 0u);
}

// A program without any check: everything is dead except the initialisation, whose exit
// starts the entry (conservatively live).
TEST(DeadEnds, NoCheckMeansNothingIsLiveInMain) {
  auto p = parse("int main() { int x = __VERIFIER_nondet_int(); while (x > 0) x--; return x; }\n");
  cfa::DeadEnds d = cfa::computeDeadEnds(*p);
  EXPECT_EQ(count(*p, d, "main").live, 0u);
}

// An unsupported construct counts as a check: the path to it must stay explored.
TEST(DeadEnds, UnsupportedEdgesAreChecks) {
  auto p = parse("int main() { int x = __VERIFIER_nondet_int(); if (x) { __asm__(\"nop\"); } return 0; }\n");
  bool anyUnsupported = false;
  for (const cfa::Edge& e : p->find("main")->edges) anyUnsupported |= e.kind == cfa::EdgeKind::Unsupported;
  ASSERT_TRUE(anyUnsupported) << "inline assembly is lowered to an Unsupported edge";
  cfa::DeadEnds d = cfa::computeDeadEnds(*p);
  EXPECT_FALSE(entryDead(*p, d, "main"));
}

}  // namespace
