// Concrete replay of hand-built programs.
#include <gtest/gtest.h>

#include "core/cfa/cfa.h"
#include "core/result/replay.h"
#include "tests/unit/cfa/builder.h"

using namespace argus::cfa;
using namespace argus::result;
using argus::cfa::test::B;
using argus::cfa::test::C;
using argus::cfa::test::FuncBuilder;
using argus::cfa::test::globalVar;

namespace {

ReplayInput nd(std::vector<uint64_t> v) {
  ReplayInput in;
  in.nondets.assign(v.begin(), v.end());
  return in;
}

// main: i := 0; s := 0; while (i < 3) { v := nondet; s := s + v; i := i + 1; }
//       if (s == 100) error; return
struct LoopProgram {
  Program p;
  FuncId main;
  VarId v;
  LoopProgram() {
    FuncBuilder f(p, "main");
    main = f.id();
    auto i = f.var("i"), s = f.var("s"), vv = f.var("v");
    v = vv->var;
    LocId l1 = f.loc(), head = f.loc(), b1 = f.loc(), b2 = f.loc(), b3 = f.loc(),
          chk = f.loc(), done = f.loc();
    f.assign(f.entry(), l1, i, C(0));
    f.assign(l1, head, s, C(0));
    auto c = B(BinOp::SLt, i, C(3));
    f.assume(head, b1, c, true);
    f.assume(head, chk, c, false);
    f.havoc(b1, b2, vv);
    f.assign(b2, b3, s, B(BinOp::Add, s, vv));
    f.assign(b3, head, i, B(BinOp::Add, i, C(1)));
    auto hit = B(BinOp::Eq, s, C(100));
    f.assume(chk, done, hit, false);
    LocId err = f.loc();
    f.assume(chk, err, hit, true);
    f.error(err);
    f.ret(done);
  }
};

}  // namespace

TEST(Replay, StraightLineReachesError) {
  Program p;
  FuncBuilder f(p, "main");
  auto x = f.var("x");
  LocId a = f.loc(), b = f.loc();
  f.assign(f.entry(), a, x, C(5));
  f.assume(a, b, B(BinOp::Eq, x, C(5)));
  f.error(b);
  auto r = replay(p, f.id(), {});
  EXPECT_EQ(r.outcome, ReplayOutcome::ReachedError) << r.message;
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.stepCount, 3u);
  EXPECT_EQ(r.steps[0].func, f.id());
  EXPECT_EQ(r.steps[0].edge, 0u);
  ASSERT_EQ(r.steps[0].assigned.size(), 1u);
  EXPECT_EQ(r.steps[0].assigned[0], std::make_pair(x->var, argus::cfa::Value{5}));
  EXPECT_EQ(p.functions[0].edges[r.steps[2].edge].kind, EdgeKind::Error);
  EXPECT_EQ(r.endLoc, p.functions[0].error);
}

TEST(Replay, LoopWithHavocNeedsRightValues) {
  LoopProgram lp;
  auto hit = replay(lp.p, lp.main, nd({50, 25, 25}));
  EXPECT_EQ(hit.outcome, ReplayOutcome::ReachedError) << hit.message;
  EXPECT_EQ(hit.nondetsUsed, 3u);
  // The havocked values appear in the trace.
  std::vector<uint64_t> seen;
  for (const auto& st : hit.steps)
    if (lp.p.functions[st.func].edges[st.edge].kind == EdgeKind::Havoc)
      seen.push_back(st.assigned.at(0).second);
  EXPECT_EQ(seen, (std::vector<uint64_t>{50, 25, 25}));

  auto miss = replay(lp.p, lp.main, nd({1, 2, 3}));
  EXPECT_EQ(miss.outcome, ReplayOutcome::Terminated) << miss.message;
  // Wraparound also hits: 0xFFFFFFFF + 1 + 100 == 100 (mod 2^32).
  auto wrap = replay(lp.p, lp.main, nd({0xFFFFFFFF, 1, 100}));
  EXPECT_EQ(wrap.outcome, ReplayOutcome::ReachedError);
}

TEST(Replay, OutOfNondets) {
  LoopProgram lp;
  auto r = replay(lp.p, lp.main, nd({50, 50}));
  EXPECT_EQ(r.outcome, ReplayOutcome::OutOfNondets);
  EXPECT_EQ(r.nondetsUsed, 2u);
  // The failed havoc is not recorded as a step: the last one entered the loop body.
  EXPECT_EQ(lp.p.functions[0].edges[r.steps.back().edge].kind, EdgeKind::Assume);
  EXPECT_EQ(r.stepCount, r.steps.size());
}

TEST(Replay, BlockedByAssume) {
  Program p;
  FuncBuilder f(p, "main");
  auto x = f.var("x", 8);
  LocId a = f.loc(), b = f.loc();
  f.havoc(f.entry(), a, x);
  f.assume(a, b, B(BinOp::Eq, x, C(7, 8)));
  f.error(b);
  auto r = replay(p, f.id(), nd({3}));
  EXPECT_EQ(r.outcome, ReplayOutcome::Blocked);
  EXPECT_EQ(r.endLoc, a);
  EXPECT_EQ(replay(p, f.id(), nd({7})).outcome, ReplayOutcome::ReachedError);
  // Havoc values are masked to the variable's width: 0x107 -> 7.
  EXPECT_EQ(replay(p, f.id(), nd({0x107})).outcome, ReplayOutcome::ReachedError);
}

TEST(Replay, CallWithParamsAndReturnValue) {
  Program p;
  FuncBuilder add(p, "add");
  auto a = add.var("a", 32, VarKind::Param), b = add.var("b", 32, VarKind::Param);
  auto ret = add.var("ret", 32, VarKind::Return);
  LocId l = add.loc();
  add.assign(add.entry(), l, ret, B(BinOp::Add, a, b));
  add.ret(l);

  FuncBuilder m(p, "main");
  auto r = m.var("r"), x = m.var("x");
  LocId l1 = m.loc(), l2 = m.loc(), l3 = m.loc();
  m.assign(m.entry(), l1, x, C(40));
  uint32_t callEdge = m.call(l1, l2, add.id(), {x, C(2)}, r);
  m.assume(l2, l3, B(BinOp::Eq, r, C(42)));
  m.error(l3);

  auto res = replay(p, m.id(), {});
  ASSERT_EQ(res.outcome, ReplayOutcome::ReachedError) << res.message;
  // steps: assign x, call, assign ret, return, assume, error
  ASSERT_EQ(res.steps.size(), 6u);
  EXPECT_EQ(res.steps[1].edge, callEdge);
  EXPECT_EQ(res.steps[1].assigned,
            (std::vector<std::pair<VarId, argus::cfa::Value>>{{a->var, 40}, {b->var, 2}}));
  EXPECT_EQ(res.steps[2].func, add.id());
  EXPECT_EQ(res.steps[2].depth, 1u);
  EXPECT_EQ(res.steps[3].func, add.id());
  EXPECT_EQ(res.steps[3].assigned, (std::vector<std::pair<VarId, argus::cfa::Value>>{{r->var, 42}}));
  EXPECT_EQ(res.steps[4].depth, 0u);
}

TEST(Replay, RecursiveFactorial) {
  // fact(n) { if (n <= 1) return 1; t = fact(n - 1); return n * t; }
  Program p;
  FuncBuilder f(p, "fact");
  auto n = f.var("n", 64, VarKind::Param), t = f.var("t", 64);
  auto ret = f.var("ret", 64, VarKind::Return);
  LocId base = f.loc(), rec = f.loc(), back = f.loc(), out = f.loc();
  auto c = B(BinOp::SLe, n, C(1, 64));
  f.assume(f.entry(), base, c, true);
  f.assume(f.entry(), rec, c, false);
  f.assign(base, out, ret, C(1, 64));
  f.call(rec, back, f.id(), {B(BinOp::Sub, n, C(1, 64))}, t);
  f.assign(back, out, ret, B(BinOp::Mul, n, t));
  f.ret(out);

  FuncBuilder m(p, "main");
  auto r = m.var("r", 64);
  LocId l1 = m.loc(), l2 = m.loc(), l3 = m.loc();
  m.call(m.entry(), l1, f.id(), {C(20, 64)}, r);
  auto ok = B(BinOp::Eq, r, C(2432902008176640000ull, 64));
  m.assume(l1, l2, ok, true);
  m.assume(l1, l3, ok, false);
  m.error(l2);
  m.ret(l3);
  auto res = replay(p, m.id(), {});
  ASSERT_EQ(res.outcome, ReplayOutcome::ReachedError) << res.message;
  // The outermost return assigns 20! to r.
  uint64_t last = 0;
  uint32_t maxDepth = 0;
  for (const auto& st : res.steps) {
    maxDepth = std::max(maxDepth, st.depth);
    for (auto& [v, val] : st.assigned)
      if (v == r->var) last = val;
  }
  EXPECT_EQ(last, 2432902008176640000ull);
  EXPECT_EQ(maxDepth, 20u);

  // Entry is fact itself: its parameter comes from the nondets; returning terminates.
  auto direct = replay(p, f.id(), nd({5}));
  EXPECT_EQ(direct.outcome, ReplayOutcome::Terminated) << direct.message;
  ASSERT_EQ(direct.entryArgs.size(), 1u);
  EXPECT_EQ(direct.entryArgs[0].second, 5u);
  EXPECT_EQ(replay(p, f.id(), {}).outcome, ReplayOutcome::OutOfNondets);
}

TEST(Replay, AllocStoreLoadLittleEndian) {
  Program p;
  p.heapBase = 0x1000;
  FuncBuilder f(p, "main");
  auto q = f.var("q", 64), q2 = f.var("q2", 64), q3 = f.var("q3", 64), q4 = f.var("q4", 64);
  auto b = f.var("b", 8), w = f.var("w", 16);
  LocId l[10];
  for (auto& x : l) x = f.loc();
  f.alloc(f.entry(), l[0], q, C(4, 64));
  f.alloc(l[0], l[1], q2, C(0, 64));
  f.alloc(l[1], l[2], q3, C(9, 64));
  f.alloc(l[2], l[3], q4, C(1, 64));
  uint32_t st = f.store(l[3], l[4], q, C(0x11223344, 32));
  f.assign(l[4], l[5], b, Expr::mkLoad(q, 1));
  f.assign(l[5], l[6], w, Expr::mkLoad(B(BinOp::Add, q, C(1, 64)), 2));
  auto ok = B(BinOp::LAnd, B(BinOp::Eq, b, C(0x44, 8), 8), B(BinOp::Eq, w, C(0x2233, 16), 8), 8);
  f.assume(l[6], l[7], ok);
  f.error(l[7]);
  auto r = replay(p, f.id(), {});
  ASSERT_EQ(r.outcome, ReplayOutcome::ReachedError) << r.message;
  EXPECT_EQ(r.steps[0].assigned.at(0).second, 0x1000u);
  EXPECT_EQ(r.steps[1].assigned.at(0).second, 0x1008u);  // size 4 -> 8
  EXPECT_EQ(r.steps[2].assigned.at(0).second, 0x1010u);  // size 0 -> 8
  EXPECT_EQ(r.steps[3].assigned.at(0).second, 0x1020u);  // size 9 -> 16
  EXPECT_EQ(r.steps[4].edge, st);
  ASSERT_TRUE(r.steps[4].stored.has_value());
  EXPECT_EQ(*r.steps[4].stored, std::make_pair(uint64_t{0x1000}, argus::cfa::Value{0x11223344}));
  EXPECT_EQ(r.steps[5].assigned.at(0).second, 0x44u);
  EXPECT_EQ(r.steps[6].assigned.at(0).second, 0x2233u);
}

TEST(Replay, ZeroInitAndInitialMemory) {
  Program p;
  FuncBuilder f(p, "main");
  auto z = f.var("z", 64), u = f.var("u", 64);
  auto a = f.var("a"), b = f.var("b"), c = f.var("c"), d = f.var("d");
  LocId l[8];
  for (auto& x : l) x = f.loc();
  f.alloc(f.entry(), l[0], z, C(4, 64), /*zero=*/true);
  f.alloc(l[0], l[1], u, C(4, 64), /*zero=*/false);
  f.assign(l[1], l[2], a, Expr::mkLoad(z, 4));
  f.assign(l[2], l[3], b, Expr::mkLoad(u, 4));
  f.store(l[3], l[4], B(BinOp::Add, u, C(1, 64)), C(0, 8));
  f.assign(l[4], l[5], c, Expr::mkLoad(u, 4));
  // Beyond the zeroed 4 bytes (padding) the initial memory shows through.
  f.assign(l[5], l[6], d, Expr::mkLoad(B(BinOp::Add, z, C(2, 64)), 4));
  f.ret(l[6]);

  ReplayInput in;
  int calls = 0;
  in.initialMemory = [&](uint64_t addr) -> std::optional<uint8_t> {
    ++calls;
    if (addr >= p.heapBase + 8 && addr < p.heapBase + 12) return 0xAB;
    if (addr >= p.heapBase + 4 && addr < p.heapBase + 8) return 0xCD;
    return std::nullopt;
  };
  auto r = replay(p, f.id(), in);
  ASSERT_EQ(r.outcome, ReplayOutcome::Terminated) << r.message;
  EXPECT_EQ(r.steps[2].assigned.at(0).second, 0u);
  EXPECT_EQ(r.steps[3].assigned.at(0).second, 0xABABABABu);
  EXPECT_EQ(r.steps[5].assigned.at(0).second, 0xABAB00ABu);
  EXPECT_EQ(r.steps[6].assigned.at(0).second, 0xCDCD0000u);
  EXPECT_GT(calls, 0);

  // Without a callback unwritten bytes read 0.
  auto r0 = replay(p, f.id(), {});
  EXPECT_EQ(r0.steps[3].assigned.at(0).second, 0u);
}

TEST(Replay, InitFunctionsAndNondetOrder) {
  Program p;
  auto g = globalVar(p, "g");
  FuncBuilder init(p, "__argus_init");
  LocId i1 = init.loc();
  init.assign(init.entry(), i1, g, C(7));
  init.ret(i1);
  FuncBuilder initNd(p, "__argus_init_nondet");
  LocId n1 = initNd.loc();
  initNd.havoc(initNd.entry(), n1, g);
  initNd.ret(n1);
  p.initFunc = init.id();
  p.initNondetFunc = initNd.id();

  // main: if (g == 7) error
  FuncBuilder m(p, "main");
  LocId m1 = m.loc();
  m.assume(m.entry(), m1, B(BinOp::Eq, g, C(7)));
  m.error(m1);
  auto rm = replay(p, m.id(), {});
  EXPECT_EQ(rm.outcome, ReplayOutcome::ReachedError) << rm.message;
  EXPECT_EQ(rm.steps.at(0).func, init.id());

  // foo(a): if (a == 1 && g == 2) error. The parameter's value comes first, then the
  // havoc in __argus_init_nondet.
  FuncBuilder foo(p, "foo");
  auto a = foo.var("a", 32, VarKind::Param);
  LocId f1 = foo.loc();
  foo.assume(foo.entry(), f1,
             B(BinOp::LAnd, B(BinOp::Eq, a, C(1)), B(BinOp::Eq, g, C(2))));
  foo.error(f1);
  auto rf = replay(p, foo.id(), nd({1, 2}));
  EXPECT_EQ(rf.outcome, ReplayOutcome::ReachedError) << rf.message;
  EXPECT_EQ(rf.steps.at(0).func, initNd.id());
  EXPECT_EQ(replay(p, foo.id(), nd({2, 1})).outcome, ReplayOutcome::Blocked);
}

TEST(Replay, GlobalsSharedFramesSeparate) {
  // inc() { g = g + 1; x = 5; }  main: x = 1; inc(); inc(); if (g == 2 && x == 1) error
  Program p;
  auto g = globalVar(p, "g");
  FuncBuilder inc(p, "inc");
  auto xi = inc.var("x");
  LocId a = inc.loc(), b = inc.loc();
  inc.assign(inc.entry(), a, g, B(BinOp::Add, g, C(1)));
  inc.assign(a, b, xi, C(5));
  inc.ret(b);
  FuncBuilder m(p, "main");
  auto x = m.var("x");
  LocId l[4];
  for (auto& v : l) v = m.loc();
  m.assign(m.entry(), l[0], x, C(1));
  m.call(l[0], l[1], inc.id(), {});
  m.call(l[1], l[2], inc.id(), {});
  m.assume(l[2], l[3], B(BinOp::LAnd, B(BinOp::Eq, g, C(2)), B(BinOp::Eq, x, C(1))));
  m.error(l[3]);
  EXPECT_EQ(replay(p, m.id(), {}).outcome, ReplayOutcome::ReachedError);
}

TEST(Replay, AbortUnsupportedStepLimitAmbiguity) {
  {
    Program p;
    FuncBuilder f(p, "main");
    f.abort(f.entry());
    auto r = replay(p, f.id(), {});
    EXPECT_EQ(r.outcome, ReplayOutcome::Terminated);
    EXPECT_EQ(r.steps.size(), 1u);
  }
  {
    Program p;
    FuncBuilder f(p, "main");
    LocId a = f.loc();
    f.unsupported(f.entry(), a, "inline asm");
    f.error(a);
    auto r = replay(p, f.id(), {});
    EXPECT_EQ(r.outcome, ReplayOutcome::Unsupported);
    EXPECT_NE(r.message.find("inline asm"), std::string::npos) << r.message;
  }
  {
    Program p;
    FuncBuilder f(p, "main");
    LocId a = f.loc();
    f.blank(f.entry(), a);
    f.blank(a, f.entry());
    auto r = replay(p, f.id(), {}, 1000);
    EXPECT_EQ(r.outcome, ReplayOutcome::StepLimit);
    EXPECT_EQ(r.stepCount, 1000u);
    auto r2 = replay(p, f.id(), {}, 1000, /*recordSteps=*/false);
    EXPECT_EQ(r2.outcome, ReplayOutcome::StepLimit);
    EXPECT_TRUE(r2.steps.empty());
  }
  {
    // Two enabled edges: the first in `out` order is taken and the choice is counted.
    Program p;
    FuncBuilder f(p, "main");
    LocId a = f.loc(), b = f.loc();
    f.assume(f.entry(), a, C(1));
    f.assume(f.entry(), b, C(1));
    f.error(a);
    f.ret(b);
    auto r = replay(p, f.id(), {});
    EXPECT_EQ(r.outcome, ReplayOutcome::ReachedError);
    EXPECT_EQ(r.ambiguousChoices, 1u);
  }
  {
    // Unbounded recursion stops at the depth limit (or the step limit).
    Program p;
    FuncBuilder f(p, "main");
    LocId a = f.loc();
    f.call(f.entry(), a, f.id(), {});
    f.ret(a);
    auto r = replay(p, f.id(), {}, 10'000'000, false);
    EXPECT_EQ(r.outcome, ReplayOutcome::DepthLimit);
  }
}

TEST(Replay, ThirtyTwoBitPointersWrap) {
  Program p;
  p.ptrWidth = 32;
  p.heapBase = 0xFFFFFFF8;
  FuncBuilder f(p, "main");
  auto q = f.var("q", 32), q2 = f.var("q2", 32), v = f.var("v", 16);
  LocId l[4];
  for (auto& x : l) x = f.loc();
  f.alloc(f.entry(), l[0], q, C(8, 32));
  f.alloc(l[0], l[1], q2, C(8, 32));  // brk wrapped to 0
  f.store(l[1], l[2], B(BinOp::Add, q, C(7, 32)), C(0xBBAA, 16));  // bytes at ...FF and 0
  f.assign(l[2], l[3], v, Expr::mkLoad(C(0xFFFFFFFF, 32), 2));
  f.ret(l[3]);
  auto r = replay(p, f.id(), {});
  ASSERT_EQ(r.outcome, ReplayOutcome::Terminated) << r.message;
  EXPECT_EQ(r.steps[1].assigned.at(0).second, 0u);
  EXPECT_EQ(r.steps[3].assigned.at(0).second, 0xBBAAu);
}
