// CFA construction helpers, loop-head detection and dump.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/cfa/cfa.h"
#include "tests/unit/cfa/builder.h"

using namespace argus::cfa;
using argus::cfa::test::B;
using argus::cfa::test::C;
using argus::cfa::test::FuncBuilder;

TEST(Cfa, AddLocAndEdge) {
  Function f;
  f.name = "f";
  SourceRange r;
  r.line = 7;
  EXPECT_EQ(f.addLoc(), 0u);
  EXPECT_EQ(f.addLoc(r), 1u);
  EXPECT_EQ(f.addLoc(), 2u);
  EXPECT_EQ(f.locs[1].id, 1u);
  EXPECT_EQ(f.locs[1].range.line, 7u);
  Edge e;
  e.from = 0;
  e.to = 1;
  EXPECT_EQ(f.addEdge(e), 0u);
  e.from = 0;
  e.to = 2;
  EXPECT_EQ(f.addEdge(e), 1u);
  e.from = 2;
  e.to = 1;
  EXPECT_EQ(f.addEdge(e), 2u);
  EXPECT_EQ(f.locs[0].out, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(f.locs[1].in, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(f.locs[2].in, (std::vector<uint32_t>{1}));
  EXPECT_EQ(f.locs[2].out, (std::vector<uint32_t>{2}));
  EXPECT_TRUE(f.locs[1].out.empty());
  EXPECT_EQ(f.edges[2].from, 2u);
  e.to = 9;
  EXPECT_THROW(f.addEdge(e), std::out_of_range);
}

TEST(Cfa, ProgramVarsAndFind) {
  Program p;
  EXPECT_EQ(p.addVar(Variable{"g", "g", 32}), 0u);
  EXPECT_EQ(p.addVar(Variable{"main::x", "x", 8}), 1u);
  EXPECT_EQ(p.varNames(), (std::vector<std::string>{"g", "main::x"}));
  FuncBuilder m(p, "main");
  FuncBuilder f(p, "foo");
  ASSERT_NE(p.find("foo"), nullptr);
  EXPECT_EQ(p.find("foo")->id, f.id());
  EXPECT_EQ(p.find("main")->name, "main");
  EXPECT_EQ(p.find("bar"), nullptr);
}

TEST(Cfa, LoopHeadsSimpleLoop) {
  // entry -> L1 (head) -[i<10]-> L2 -> L1 ; L1 -[!(i<10)]-> ret
  Program p;
  FuncBuilder f(p, "main");
  auto i = f.var("i");
  LocId head = f.loc(), body = f.loc(), after = f.loc();
  f.assign(f.entry(), head, i, C(0));
  auto cond = B(BinOp::SLt, i, C(10));
  f.assume(head, body, cond, true);
  f.assume(head, after, cond, false);
  f.assign(body, head, i, B(BinOp::Add, i, C(1)));
  f.ret(after);
  p.markLoopHeads();
  for (const auto& l : p.functions[0].locs) EXPECT_EQ(l.isLoopHead, l.id == head) << "L" << l.id;
}

TEST(Cfa, LoopHeadsNestedLoopAndDiamond) {
  // outer: H1 -> H2 (inner) -> B2 -> H2 ; H2 -> X2 -> H1 ; H1 -> D (diamond) -> ret
  Program p;
  FuncBuilder f(p, "main");
  auto c = f.var("c");
  LocId h1 = f.loc(), h2 = f.loc(), b2 = f.loc(), x2 = f.loc(), d = f.loc(), t = f.loc(),
        e = f.loc(), j = f.loc();
  f.blank(f.entry(), h1);
  f.assume(h1, h2, c, true);
  f.assume(h1, d, c, false);
  f.assume(h2, b2, c, true);
  f.assume(h2, x2, c, false);
  f.blank(b2, h2);
  f.blank(x2, h1);
  f.assume(d, t, c, true);
  f.assume(d, e, c, false);
  f.blank(t, j);
  f.blank(e, j);
  f.ret(j);
  // Stale flags are cleared.
  p.functions[0].locs[j].isLoopHead = true;
  p.markLoopHeads();
  const auto& locs = p.functions[0].locs;
  EXPECT_TRUE(locs[h1].isLoopHead);
  EXPECT_TRUE(locs[h2].isLoopHead);
  int heads = 0;
  for (const auto& l : locs) heads += l.isLoopHead;
  EXPECT_EQ(heads, 2);  // the diamond's join is not a loop head
}

TEST(Cfa, LoopHeadsLongChainIsIterative) {
  // 100000 locations in a chain with a back edge to the first: no stack overflow.
  Program p;
  FuncBuilder f(p, "main");
  LocId first = f.loc();
  f.blank(f.entry(), first);
  LocId prev = first;
  for (int k = 0; k < 100000; ++k) {
    LocId n = f.loc();
    f.blank(prev, n);
    prev = n;
  }
  f.blank(prev, first);
  p.markLoopHeads();
  const auto& locs = p.functions[0].locs;
  EXPECT_TRUE(locs[first].isLoopHead);
  EXPECT_FALSE(locs[prev].isLoopHead);
  EXPECT_FALSE(locs[f.entry()].isLoopHead);
}

TEST(Cfa, LoopHeadsSelfLoopAndUnreachable) {
  Program p;
  FuncBuilder f(p, "main");
  LocId s = f.loc(), u1 = f.loc(), u2 = f.loc();
  f.blank(f.entry(), s);
  f.blank(s, s);
  f.blank(u1, u2);  // unreachable cycle: not visited
  f.blank(u2, u1);
  p.markLoopHeads();
  const auto& locs = p.functions[0].locs;
  EXPECT_TRUE(locs[s].isLoopHead);
  EXPECT_FALSE(locs[u1].isLoopHead);
  EXPECT_FALSE(locs[u2].isLoopHead);
}

TEST(Cfa, Dump) {
  Program p;
  FuncBuilder f(p, "main");
  auto i = f.var("i");
  LocId head = f.loc(42), body = f.loc();
  Edge a;
  a.kind = EdgeKind::Assign;
  a.from = f.entry();
  a.to = head;
  a.lhs = i->var;
  a.rhs = C(0);
  a.range.line = 41;
  a.text = "int i = 0;";
  f.add(a);
  f.assume(head, body, B(BinOp::SLt, i, C(10)));
  f.assign(body, head, i, B(BinOp::Add, i, C(1)));
  f.assume(head, f.fn().error, B(BinOp::SLt, i, C(10)), false);
  p.markLoopHeads();
  std::string d = dump(p);
  EXPECT_NE(d.find("function main"), std::string::npos) << d;
  EXPECT_NE(d.find("main::i := 0"), std::string::npos) << d;
  EXPECT_NE(d.find("@41"), std::string::npos) << d;
  EXPECT_NE(d.find("int i = 0;"), std::string::npos) << d;
  EXPECT_NE(d.find("[loop head]"), std::string::npos) << d;
  EXPECT_NE(d.find("assume [(main::i <s 10)]"), std::string::npos) << d;
  EXPECT_NE(d.find("assume ![(main::i <s 10)]"), std::string::npos) << d;
  EXPECT_NE(d.find("main::i := (main::i + 1)"), std::string::npos) << d;
  EXPECT_STREQ(edgeKindName(EdgeKind::Havoc), "havoc");
}
