// The CPA operators on their own: defaults, reached set and waitlist, location,
// callstack, composite and ARG CPAs on hand-made CFAs.
#include <gtest/gtest.h>

#include "core/cpa/arg_cpa.h"
#include "core/cpa/callstack_cpa.h"
#include "core/cpa/composite_cpa.h"
#include "core/cpa/location_cpa.h"
#include "core/cpa/reached_set.h"
#include "tests/unit/cfa/builder.h"
#include "tests/unit/cpa/cpa_test_util.h"

using namespace argus;
using namespace argus::cpa;
using argus::cfa::test::B;
using argus::cfa::test::C;
using argus::cfa::test::FuncBuilder;
using argus::cpa::test::set;
using argus::cpa::test::SetDomain;
using argus::cpa::test::vals;

namespace {

TEST(DefaultOperators, MergeSepKeepsReached) {
  MergeSep m;
  StatePtr a = set({1}), r = set({2});
  EXPECT_EQ(m.merge(a, r, NoPrecision::get()), r);
}

TEST(DefaultOperators, MergeJoinJoinsOnlyWhenNeeded) {
  SetDomain d;
  MergeJoin m(d);
  StatePtr r = set({1, 2});
  EXPECT_EQ(m.merge(set({1}), r, NoPrecision::get()), r);  // already covered: unchanged
  StatePtr j = m.merge(set({3}), r, NoPrecision::get());
  EXPECT_NE(j, r);
  EXPECT_EQ(vals(j), (std::set<int>{1, 2, 3}));
}

TEST(DefaultOperators, StopSepChecksEachReachedState) {
  SetDomain d;
  StopSep s(d);
  std::vector<StatePtr> reached{set({2}), set({1, 2})};
  EXPECT_TRUE(s.stop(set({1}), reached, NoPrecision::get()));
  EXPECT_TRUE(s.stop(set({}), reached, NoPrecision::get()));
  EXPECT_FALSE(s.stop(set({3}), reached, NoPrecision::get()));
  EXPECT_FALSE(s.stop(set({1}), {}, NoPrecision::get()));
}

TEST(DefaultOperators, StaticPrecisionIsIdentity) {
  StaticPrecision p;
  StatePtr a = set({1});
  ReachedSet r;
  auto adj = p.adjust(a, NoPrecision::get(), r, *a);
  ASSERT_TRUE(adj);
  EXPECT_EQ(adj->state, a);
  EXPECT_EQ(adj->precision, NoPrecision::get());
}

TEST(ReachedSetTest, BfsDfsAndPriorityOrders) {
  StatePtr a = set({1}), b = set({2}), c = set({3});
  ReachedSet bfs(WaitlistOrder::Bfs);
  ReachedSet dfs(WaitlistOrder::Dfs);
  ReachedSet prio(WaitlistOrder::Priority, {}, [](const AbstractState& s) {
    return static_cast<int64_t>(*static_cast<const test::SetState&>(s).values.begin() % 3);  // 1,2,0
  });
  for (auto* r : {&bfs, &dfs, &prio})
    for (auto& s : {a, b, c}) r->add(s, NoPrecision::get());
  EXPECT_EQ(bfs.pop().first, a);
  EXPECT_EQ(bfs.pop().first, b);
  EXPECT_EQ(dfs.pop().first, c);
  EXPECT_EQ(dfs.pop().first, b);
  EXPECT_EQ(prio.pop().first, b);  // priority 2
  EXPECT_EQ(prio.pop().first, a);  // priority 1
  EXPECT_EQ(prio.pop().first, c);
  EXPECT_TRUE(prio.waitlistEmpty());
  EXPECT_EQ(prio.size(), 3u);  // popping keeps states reached
}

TEST(ReachedSetTest, PartitionsReplaceRemoveReAdd) {
  auto key = [](const AbstractState& s) -> uint64_t {
    return static_cast<uint64_t>(*static_cast<const test::SetState&>(s).values.begin() % 2);
  };
  ReachedSet r(WaitlistOrder::Bfs, key);
  StatePtr a = set({1}), b = set({2}), c = set({3});
  r.add(a, NoPrecision::get());
  r.add(b, NoPrecision::get());
  r.add(c, NoPrecision::get());
  EXPECT_EQ(r.partition(*set({5})).size(), 2u);  // odd: a, c
  EXPECT_EQ(r.partition(*set({4})).size(), 1u);
  EXPECT_EQ(r.first(), a);
  StatePtr a2 = set({1, 7});
  r.replace(a, a2, NoPrecision::get());
  EXPECT_FALSE(r.contains(a));
  EXPECT_TRUE(r.isWaiting(a2));
  EXPECT_EQ(r.first(), a2);
  r.remove(c);
  EXPECT_EQ(r.partition(*set({5})).size(), 1u);
  EXPECT_EQ(r.size(), 2u);
  while (!r.waitlistEmpty()) r.pop();
  r.reAddToWaitlist(b);
  EXPECT_EQ(r.waitlistSize(), 1u);
  EXPECT_EQ(r.pop().first, b);
  EXPECT_THROW(r.add(b, NoPrecision::get()), std::logic_error);
}

// main: entry -[x = 1]-> l1 ; l1 -[x > 0]-> error ; l1 -[!(x > 0)]-> l2 -unsupported-> l3 -> exit
struct Straight {
  cfa::Program p;
  cfa::FuncId main;
  uint32_t eAssign, eErr, eUns;
  Straight() {
    FuncBuilder m(p, "main");
    main = m.id();
    auto x = m.var("x");
    auto l1 = m.loc(), l1e = m.loc(), l2 = m.loc(), l3 = m.loc();
    eAssign = m.assign(m.entry(), l1, x, C(1));
    m.assume(l1, l1e, B(cfa::BinOp::SLt, C(0), x, 32));
    eErr = m.error(l1e);
    m.assume(l1, l2, B(cfa::BinOp::SLt, C(0), x, 32), false);
    eUns = m.unsupported(l2, l3, "float");
    m.ret(l3);
    p.markLoopHeads();
  }
};

TEST(LocationCpaTest, StepsAndTargets) {
  Straight s;
  ControlFlow cf(s.p, s.main);
  EXPECT_EQ(cf.startFunc(), s.main);  // no init function in hand-made programs
  LocationCpa loc(cf);
  StatePtr init = loc.initialState();
  auto succ = loc.transfer().successors(init, NoPrecision::get());
  ASSERT_EQ(succ.size(), 1u);
  EXPECT_EQ(succ[0].step.edge, s.eAssign);
  auto* l = extract<LocationState>(*succ[0].state);
  ASSERT_NE(l, nullptr);
  EXPECT_FALSE(loc.isTarget(*succ[0].state));
  auto succ2 = loc.transfer().successors(succ[0].state, NoPrecision::get());
  ASSERT_EQ(succ2.size(), 2u);
  // the error edge
  auto errSucc = loc.transfer().successors(succ2[0].state, NoPrecision::get());
  ASSERT_EQ(errSucc.size(), 1u);
  EXPECT_TRUE(loc.isTarget(*errSucc[0].state));
  EXPECT_EQ(extract<LocationState>(*errSucc[0].state)->property, Property::Error);
  EXPECT_TRUE(loc.transfer().successors(errSucc[0].state, NoPrecision::get()).empty());
  // the unsupported edge: a target without successors
  auto unsSucc = loc.transfer().successors(succ2[1].state, NoPrecision::get());
  ASSERT_EQ(unsSucc.size(), 1u);
  auto* u = extract<LocationState>(*unsSucc[0].state);
  EXPECT_EQ(u->property, Property::Unsupported);
  EXPECT_EQ(u->via->text, "float");
  EXPECT_TRUE(loc.transfer().successors(unsSucc[0].state, NoPrecision::get()).empty());
  // successorsForStep agrees and rejects steps from other locations
  EXPECT_EQ(loc.transfer().successorsForStep(init, NoPrecision::get(), succ[0].step).size(), 1u);
  EXPECT_TRUE(loc.transfer().successorsForStep(succ[0].state, NoPrecision::get(), succ[0].step).empty());
  EXPECT_TRUE(loc.domain().isLessOrEqual(*init, *loc.initialState()));
}

// main calls f twice; f calls g; g calls f (recursion)
struct Calls {
  cfa::Program p;
  cfa::FuncId main, f, g;
  uint32_t call1, call2, callG, callF;
  Calls() {
    FuncBuilder m(p, "main");
    FuncBuilder fb(p, "f");
    FuncBuilder gb(p, "g");
    main = m.id();
    f = fb.id();
    g = gb.id();
    auto l1 = m.loc(), l2 = m.loc();
    call1 = m.call(m.entry(), l1, f, {});
    call2 = m.call(l1, l2, f, {});
    m.ret(l2);
    auto fl = fb.loc(), fl2 = fb.loc();
    fb.assume(fb.entry(), fl, C(1));
    callG = fb.call(fl, fl2, g, {});
    fb.ret(fb.entry());
    fb.ret(fl2);
    auto gl = gb.loc();
    callF = gb.call(gb.entry(), gl, f, {});
    gb.ret(gl);
    p.markLoopHeads();
  }
};

cfa::Step find(const ControlFlow& cf, cfa::FuncId f, cfa::LocId l, cfa::StepKind k, uint32_t edge) {
  for (const cfa::Step& s : cf.outgoing(f, l))
    if (s.kind == k && s.edge == edge) return s;
  ADD_FAILURE() << "no such step";
  return {};
}

TEST(CallstackCpaTest, CallsReturnToTheirCallSiteAndRecursionIsATarget) {
  Calls c;
  ControlFlow cf(c.p, c.main);
  CallstackCpa cs(cf);
  StatePtr root = cs.initialState();
  const auto& fm = c.p.functions[c.main];
  cfa::Step enter1 = find(cf, c.main, fm.entry, cfa::StepKind::CallEnter, c.call1);
  auto inF = cs.transfer().successorsForStep(root, NoPrecision::get(), enter1);
  ASSERT_EQ(inF.size(), 1u);
  auto* csf = extract<CallstackState>(*inF[0]);
  EXPECT_EQ(csf->depth, 1u);
  EXPECT_EQ(csf->func, c.f);
  // f's exit has a Return step to each call site; only the matching one is followed
  const auto& ff = c.p.functions[c.f];
  cfa::Step back1 = find(cf, c.f, ff.exit, cfa::StepKind::Return, c.call1);
  cfa::Step back2 = find(cf, c.f, ff.exit, cfa::StepKind::Return, c.call2);
  EXPECT_EQ(back1.toLoc, c.p.functions[c.main].edges[c.call1].to);
  auto r1 = cs.transfer().successorsForStep(inF[0], NoPrecision::get(), back1);
  auto r2 = cs.transfer().successorsForStep(inF[0], NoPrecision::get(), back2);
  ASSERT_EQ(r1.size(), 1u);
  EXPECT_TRUE(r2.empty());
  EXPECT_TRUE(r1[0]->equals(*root));
  EXPECT_TRUE(cs.transfer().successorsForStep(root, NoPrecision::get(), back1).empty());  // nothing to return from
  // f -> g -> f: the second f is a recursion target without successors
  cfa::Step toG = find(cf, c.f, c.p.functions[c.f].edges[c.callG].from, cfa::StepKind::CallEnter, c.callG);
  auto inG = cs.transfer().successorsForStep(inF[0], NoPrecision::get(), toG);
  ASSERT_EQ(inG.size(), 1u);
  EXPECT_FALSE(cs.isTarget(*inG[0]));
  cfa::Step toF = find(cf, c.g, c.p.functions[c.g].entry, cfa::StepKind::CallEnter, c.callF);
  auto rec = cs.transfer().successorsForStep(inG[0], NoPrecision::get(), toF);
  ASSERT_EQ(rec.size(), 1u);
  EXPECT_TRUE(cs.isTarget(*rec[0]));
  EXPECT_TRUE(cs.transfer().successorsForStep(rec[0], NoPrecision::get(), toG).empty());
  // equality is structural
  auto inF2 = cs.transfer().successorsForStep(root, NoPrecision::get(), enter1);
  EXPECT_TRUE(inF2[0]->equals(*inF[0]));
  cfa::Step enter2 = find(cf, c.main, c.p.functions[c.main].edges[c.call2].from, cfa::StepKind::CallEnter, c.call2);
  auto inFb = cs.transfer().successorsForStep(root, NoPrecision::get(), enter2);
  EXPECT_FALSE(inFb[0]->equals(*inF[0]));
}

// A CPA over SetState: every step adds the edge index; merge-join, stop-sep.
class SetCpa final : public ConfigurableProgramAnalysis {
public:
  struct T final : TransferRelation {
    std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr&, const cfa::Step& st) override {
      auto v = vals(s);
      v.insert(static_cast<int>(st.edge));
      return {set(v)};
    }
  };
  AbstractDomain& domain() override { return d; }
  TransferRelation& transfer() override { return t; }
  MergeOperator& merge() override { return m; }
  StopOperator& stop() override { return s; }
  PrecisionAdjustment& precisionAdjustment() override { return p; }
  StatePtr initialState() override { return set({}); }
  PrecisionPtr initialPrecision() override { return NoPrecision::get(); }
  SetDomain d;
  T t;
  MergeJoin m{d};
  StopSep s{d};
  StaticPrecision p;
};

TEST(CompositeCpaTest, MergeAgreesOnlyAtTheSameLocation) {
  Straight s;
  ControlFlow cf(s.p, s.main);
  LocationCpa loc(cf);
  SetCpa sc;
  CompositeCpa comp({&loc, &sc});
  StatePtr init = comp.initialState();
  PrecisionPtr prec = comp.initialPrecision();
  auto succ = comp.transfer().successors(init, prec);
  ASSERT_EQ(succ.size(), 1u);
  // same location, different set: joined
  auto a = std::make_shared<CompositeState>(std::vector<StatePtr>{succ[0].state->components()[0], set({7})});
  StatePtr m = comp.merge().merge(a, succ[0].state, prec);
  ASSERT_NE(m, succ[0].state);
  EXPECT_EQ(vals(m->components()[1]), (std::set<int>{static_cast<int>(s.eAssign), 7}));
  // different location: not merged
  EXPECT_EQ(comp.merge().merge(init, succ[0].state, prec), succ[0].state);
  // stop: component-wise
  std::vector<StatePtr> reached{m};
  EXPECT_TRUE(comp.stop().stop(a, reached, prec));
  EXPECT_TRUE(comp.stop().stop(succ[0].state, reached, prec));
  EXPECT_FALSE(comp.stop().stop(init, reached, prec));
  EXPECT_FALSE(comp.isTarget(*m));
}

TEST(ArgCpaTest, LinksCoverageAndSubtreeRemoval) {
  Straight s;
  ControlFlow cf(s.p, s.main);
  LocationCpa loc(cf);
  CompositeCpa comp({&loc});
  ArgCpa arg(comp);
  ReachedSet reached;
  StatePtr root = arg.initialState();
  PrecisionPtr prec = arg.initialPrecision();
  reached.add(root, prec);
  arg.onAdded(root);
  reached.pop();
  auto s1 = arg.transfer().successors(root, prec);
  ASSERT_EQ(s1.size(), 1u);
  reached.add(s1[0].state, prec);
  arg.onAdded(s1[0].state);
  auto* a0 = static_cast<const ArgState*>(root.get());
  auto* a1 = static_cast<const ArgState*>(s1[0].state.get());
  ASSERT_EQ(a0->children.size(), 1u);
  EXPECT_EQ(a0->children[0], a1);
  ASSERT_EQ(a1->parents.size(), 1u);
  EXPECT_EQ(a1->parents[0].first, a0);
  EXPECT_EQ(a1->parents[0].second.edge, s.eAssign);
  reached.pop();
  auto s2 = arg.transfer().successors(s1[0].state, prec);
  ASSERT_EQ(s2.size(), 2u);
  for (auto& x : s2) {
    reached.add(x.state, prec);
    arg.onAdded(x.state);
  }
  // a duplicate of s2[0] is covered by it (flat domain: equal locations)
  auto dup = arg.transfer().successors(s1[0].state, prec);
  std::vector<StatePtr> cand{s2[0].state};
  EXPECT_TRUE(arg.stop().stop(dup[0].state, cand, prec));
  auto* d = static_cast<const ArgState*>(dup[0].state.get());
  EXPECT_EQ(d->coveredBy, s2[0].state.get());
  // removing s1's subtree removes s1, its children and the covered duplicate, and
  // re-adds the root
  auto readded = arg.removeSubtree(reached, const_cast<ArgState*>(a1));
  ASSERT_EQ(readded.size(), 1u);
  EXPECT_EQ(readded[0], a0);
  EXPECT_EQ(reached.size(), 1u);
  EXPECT_TRUE(reached.isWaiting(root));
  EXPECT_TRUE(a0->children.empty());
  EXPECT_TRUE(a1->removed);
  EXPECT_TRUE(d->removed);
}

}  // namespace
