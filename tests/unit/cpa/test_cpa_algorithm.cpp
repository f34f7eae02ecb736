// CPA++ on hand-made CFAs: exploration, abort and resume, merge inside the algorithm,
// forced covering hook, and waitlist orders.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/algorithms/common/cpa_algorithm.h"
#include "core/cpa/arg_cpa.h"
#include "core/cpa/callstack_cpa.h"
#include "core/cpa/composite_cpa.h"
#include "core/cpa/location_cpa.h"
#include "tests/unit/cfa/builder.h"
#include "tests/unit/cpa/cpa_test_util.h"

using namespace argus;
using namespace argus::cpa;
using argus::algorithms::CpaAlgorithmOptions;
using argus::algorithms::CpaStatus;
using argus::algorithms::runCpaAlgorithm;
using argus::cfa::test::B;
using argus::cfa::test::C;
using argus::cfa::test::FuncBuilder;
using argus::cpa::test::set;
using argus::cpa::test::SetDomain;
using argus::cpa::test::vals;

namespace {

// main: entry -> head; head -[i<3]-> body -[i=i+1]-> head ; head -[!(i<3)]-> after
//       after -call f-> l2 ; l2 -[i==7]-> error ; l2 -[!(i==7)]-> exit
// f: entry -> exit
struct LoopAndCall {
  cfa::Program p;
  cfa::FuncId main, f;
  cfa::LocId head;
  LoopAndCall() {
    FuncBuilder m(p, "main");
    FuncBuilder fb(p, "f");
    main = m.id();
    f = fb.id();
    auto i = m.var("i");
    head = m.loc();
    auto body = m.loc(), after = m.loc(), l2 = m.loc(), le = m.loc();
    m.assign(m.entry(), head, i, C(0));
    m.assume(head, body, B(cfa::BinOp::SLt, i, C(3), 32));
    m.assign(body, head, i, B(cfa::BinOp::Add, i, C(1)));
    m.assume(head, after, B(cfa::BinOp::SLt, i, C(3), 32), false);
    m.call(after, l2, f, {});
    m.assume(l2, le, B(cfa::BinOp::Eq, i, C(7), 32));
    m.error(le);
    m.assume(l2, m.exit(), B(cfa::BinOp::Eq, i, C(7), 32), false);
    fb.ret(fb.entry());
    p.markLoopHeads();
  }
};

struct Analysis {
  ControlFlow cf;
  LocationCpa loc;
  CallstackCpa cs;
  CompositeCpa comp;
  ArgCpa arg;
  ReachedSet reached;
  // `extra`: one more component after location and callstack
  explicit Analysis(const cfa::Program& p, cfa::FuncId entry, WaitlistOrder order = WaitlistOrder::Bfs,
                    ConfigurableProgramAnalysis* extra = nullptr)
      : cf(p, entry),
        loc(cf),
        cs(cf),
        comp(extra ? std::vector<ConfigurableProgramAnalysis*>{&loc, &cs, extra}
                   : std::vector<ConfigurableProgramAnalysis*>{&loc, &cs}),
        arg(comp),
        reached(order, key()) {
    StatePtr init = arg.initialState();
    reached.add(init, arg.initialPrecision());
    arg.onAdded(init);
  }
  static ReachedSet::KeyFn key() {
    return [](const AbstractState& s) -> uint64_t {
      auto* l = extract<LocationState>(s);
      return (static_cast<uint64_t>(l->func) << 32) | l->loc;
    };
  }
};

TEST(CpaAlgorithm, ExploresEveryLocationOnceAndStopsAtTheError) {
  LoopAndCall prog;
  Analysis a(prog.p, prog.main);
  auto r = runCpaAlgorithm(a.arg, a.reached);
  ASSERT_EQ(r.status, CpaStatus::Aborted);  // the location analysis cannot exclude the error
  auto* l = extract<LocationState>(*r.target);
  EXPECT_EQ(l->property, Property::Error);
  EXPECT_TRUE(a.reached.contains(r.target));
  // resume: the rest is explored, the target is not expanded
  auto r2 = runCpaAlgorithm(a.arg, a.reached);
  EXPECT_EQ(r2.status, CpaStatus::Completed);
  // main: entry, head, body, after, l2, le, error, exit (8); f: entry, exit (2)
  EXPECT_EQ(a.reached.size(), 10u);
  // loop back edge: body -> head was covered by the existing head state
  for (const StatePtr& s : a.reached.states()) {
    auto* as = static_cast<const ArgState*>(s.get());
    EXPECT_FALSE(as->removed);
  }
}

TEST(CpaAlgorithm, AbortHookAndInterrupt) {
  LoopAndCall prog;
  Analysis a(prog.p, prog.main);
  CpaAlgorithmOptions o;
  int calls = 0;
  o.abort = [&](const AbstractState& s) {
    ++calls;
    return extract<LocationState>(s)->func == prog.f;  // stop when entering f
  };
  auto r = runCpaAlgorithm(a.arg, a.reached, o);
  ASSERT_EQ(r.status, CpaStatus::Aborted);
  EXPECT_EQ(extract<CallstackState>(*r.target)->depth, 1u);
  EXPECT_GT(calls, 0);
  CpaAlgorithmOptions late;
  late.deadline = support::Deadline(support::Deadline::Clock::now());
  EXPECT_EQ(runCpaAlgorithm(a.arg, a.reached, late).status, CpaStatus::Interrupted);
  CpaAlgorithmOptions small;
  small.maxStates = 1;
  EXPECT_EQ(runCpaAlgorithm(a.arg, a.reached, small).status, CpaStatus::Interrupted);
}

TEST(CpaAlgorithm, ForcedCoveringHookSkipsExpansion) {
  LoopAndCall prog;
  Analysis a(prog.p, prog.main);
  CpaAlgorithmOptions o;
  int hooks = 0;
  o.forcedCovering = [&](ReachedSet&, const StatePtr& e, const PrecisionPtr&) {
    ++hooks;
    return extract<LocationState>(*e)->loc == prog.head;  // pretend the loop head is covered
  };
  auto r = runCpaAlgorithm(a.arg, a.reached, o);
  EXPECT_EQ(r.status, CpaStatus::Completed);  // nothing after the loop head is reached
  EXPECT_EQ(a.reached.size(), 2u);              // entry and head
  EXPECT_EQ(hooks, 2);
}

TEST(CpaAlgorithm, WaitlistOrdersReachTheSameStates) {
  LoopAndCall prog;
  for (auto order : {WaitlistOrder::Bfs, WaitlistOrder::Dfs}) {
    Analysis a(prog.p, prog.main, order);
    CpaAlgorithmOptions o;
    o.abort = [](const AbstractState&) { return false; };
    EXPECT_EQ(runCpaAlgorithm(a.arg, a.reached, o).status, CpaStatus::Completed);
    EXPECT_EQ(a.reached.size(), 10u);
  }
}

// Diamond: entry -[c]-> a -> join ; entry -[!c]-> b -> join ; join -> exit.
// With a set CPA using merge-join, the two states at `join` are merged into one whose
// set holds the edges of both branches, and it replaces the first in the reached set.
TEST(CpaAlgorithm, MergeReplacesReachedStatesAndFixesTheArg) {
  cfa::Program p;
  FuncBuilder m(p, "main");
  auto c = m.var("c");
  auto la = m.loc(), lb = m.loc(), join = m.loc();
  uint32_t ea = m.assume(m.entry(), la, c);
  uint32_t eb = m.assume(m.entry(), lb, c, false);
  uint32_t eaj = m.blank(la, join);
  uint32_t ebj = m.blank(lb, join);
  m.ret(join);
  p.markLoopHeads();
  ControlFlow cf(p, m.id());
  LocationCpa loc(cf);
  struct SetCpa final : ConfigurableProgramAnalysis {
    struct T final : TransferRelation {
      std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr&, const cfa::Step& st) override {
        auto v = vals(s);
        v.insert(static_cast<int>(st.edge));
        return {set(v)};
      }
    };
    AbstractDomain& domain() override { return d; }
    TransferRelation& transfer() override { return t; }
    MergeOperator& merge() override { return mj; }
    StopOperator& stop() override { return s; }
    PrecisionAdjustment& precisionAdjustment() override { return pa; }
    StatePtr initialState() override { return set({}); }
    PrecisionPtr initialPrecision() override { return NoPrecision::get(); }
    SetDomain d;
    T t;
    MergeJoin mj{d};
    StopSep s{d};
    StaticPrecision pa;
  } sc;
  CompositeCpa comp({&loc, &sc});
  ArgCpa arg(comp);
  ReachedSet reached(WaitlistOrder::Bfs, Analysis::key());
  StatePtr init = arg.initialState();
  reached.add(init, arg.initialPrecision());
  arg.onAdded(init);
  auto r = runCpaAlgorithm(arg, reached);
  EXPECT_EQ(r.status, CpaStatus::Completed);
  auto atJoin = reached.partition(*std::make_shared<CompositeState>(
      std::vector<StatePtr>{std::make_shared<LocationState>(m.id(), join), set({})}));
  ASSERT_EQ(atJoin.size(), 1u);
  auto* j = static_cast<const ArgState*>(atJoin[0].get());
  EXPECT_EQ(vals(j->wrapped->components()[1]),
            (std::set<int>{int(ea), int(eb), int(eaj), int(ebj)}));
  EXPECT_EQ(j->parents.size(), 2u);  // both branches lead to the merged state
  // one state per location: entry, a, b, join, exit
  EXPECT_EQ(reached.size(), 5u);
}

}  // namespace

namespace {

// A component whose precision adjustment at one location takes longer than any budget:
// it watches the post budget as the predicate CPA does and gives up when it is used up.
class SlowAtCpa final : public ConfigurableProgramAnalysis, PrecisionAdjustment {
public:
  SlowAtCpa(cfa::LocId slowLoc, support::OperationBudget& budget)
      : slowLoc_(slowLoc), budget_(budget) {}
  AbstractDomain& domain() override { return flat_.domain(); }
  TransferRelation& transfer() override { return flat_.transfer(); }
  MergeOperator& merge() override { return flat_.merge(); }
  StopOperator& stop() override { return flat_.stop(); }
  PrecisionAdjustment& precisionAdjustment() override { return *this; }
  StatePtr initialState() override { return set({0}); }
  PrecisionPtr initialPrecision() override { return NoPrecision::get(); }
  std::optional<Adjusted> adjust(const StatePtr& e, const PrecisionPtr& p, const ReachedSet&,
                                 const AbstractState& full) override {
    auto* l = extract<LocationState>(full);
    if (l && l->loc == slowLoc_) {
      ++slowCalls;
      if (failHard) throw std::runtime_error("solver gave up");
      while (!budget_.expired()) {
        if (!budget_.armed()) return Adjusted{e, p};  // no budget: it would just take long
      }
      throw support::BudgetExceeded();
    }
    return Adjusted{e, p};
  }
  int slowCalls = 0;
  bool failHard = false;  // throw another exception (as a run-ending solver timeout does)

private:
  struct Same final : TransferRelation {
    std::vector<StatePtr> successorsForStep(const StatePtr& s, const PrecisionPtr&, const cfa::Step&) override { return {s}; }
  };
  struct SameFlat final : FlatCpa {
    SameFlat() : FlatCpa(std::make_unique<Same>()) {}
    StatePtr initialState() override { return set({0}); }
  };
  SameFlat flat_;
  cfa::LocId slowLoc_;
  support::OperationBudget& budget_;
};

TEST(CpaAlgorithm, TimePerPostCutsTheExpandedStateAndTheRestGoesOn) {
  LoopAndCall prog;
  // the successor at `after` (the loop exit) is too slow: the loop head is cut there,
  // the loop body is still explored, and the error behind the exit is never reached
  cfa::LocId after = prog.p.functions[prog.main].edges[3].to;
  support::OperationBudget budget;
  SlowAtCpa slow(after, budget);
  Analysis a(prog.p, prog.main, WaitlistOrder::Bfs, &slow);
  CpaAlgorithmOptions o;
  o.maxTimePerPostMs = 20;
  o.postBudget = &budget;
  std::vector<std::pair<cfa::LocId, std::string>> cuts;
  o.onCut = [&](const StatePtr& s, const std::string& why) {
    cuts.push_back({extract<LocationState>(*s)->loc, why});
    static_cast<const ArgState&>(*s).cut = why;
  };
  auto r = runCpaAlgorithm(a.arg, a.reached, o);
  EXPECT_EQ(r.status, CpaStatus::Completed);
  ASSERT_EQ(cuts.size(), 1u);
  EXPECT_EQ(cuts[0].first, prog.head);
  EXPECT_NE(cuts[0].second.find("time per post"), std::string::npos) << cuts[0].second;
  EXPECT_NE(cuts[0].second.find("20 ms"), std::string::npos) << cuts[0].second;
  EXPECT_EQ(r.cuts, 1u);
  EXPECT_FALSE(budget.armed());
  // the body was explored, nothing behind the exit was
  bool body = false, afterReached = false;
  for (const StatePtr& s : a.reached.states()) {
    auto* l = extract<LocationState>(*s);
    if (l->func == prog.main && l->loc == prog.p.functions[prog.main].edges[1].to) body = true;
    if (l->func == prog.main && l->loc == after) afterReached = true;
    EXPECT_NE(l->property, Property::Error);
  }
  EXPECT_TRUE(body);
  EXPECT_FALSE(afterReached);
  // without the monitor the same CPA reaches the error
  Analysis a2(prog.p, prog.main, WaitlistOrder::Bfs, &slow);
  auto r2 = runCpaAlgorithm(a2.arg, a2.reached);
  EXPECT_EQ(r2.status, CpaStatus::Aborted);
}

TEST(CpaAlgorithm, AnExceptionDuringAnExpansionLeavesTheStateWaiting) {
  // a run ended by an exception in the middle of an expansion: the state being expanded
  // is waiting again (its successors may be incomplete), so a condition built from the
  // reached set treats it as not explored
  LoopAndCall prog;
  cfa::LocId after = prog.p.functions[prog.main].edges[3].to;
  support::OperationBudget budget;
  SlowAtCpa slow(after, budget);
  slow.failHard = true;
  Analysis a(prog.p, prog.main, WaitlistOrder::Bfs, &slow);
  EXPECT_THROW(runCpaAlgorithm(a.arg, a.reached), std::runtime_error);
  size_t waitingHeads = 0;
  for (const StatePtr& s : a.reached.states())
    if (extract<LocationState>(*s)->loc == prog.head && a.reached.isWaiting(s)) ++waitingHeads;
  EXPECT_EQ(waitingHeads, 1u);
  EXPECT_FALSE(a.reached.waitlistEmpty());
}

}  // namespace
