#include "core/algorithms/bmc/bmc.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

#include "core/algorithms/bmc/unwinding.h"
#include "core/algorithms/bmc/unwinding_estimate.h"
#include "core/algorithms/common/counterexample.h"
#include "core/cfa/dead_ends.h"
#include "core/cfa/recursion.h"
#include "core/result/long_runs.h"
#include "core/result/replay.h"
#include "core/support/deadline.h"

namespace argus::algorithms {

using result::Verdict;
using result::VerificationResult;
using smt::CheckResult;
using smt::Term;

// The least time a forward condition gets (BmcRun::checkForward).
constexpr unsigned kForwardMinMs = 250;
// The time of a disjunction before it is split (BmcRun::checkAnySplit), and of each
// mark in the first round after.
constexpr unsigned kSplitFirstMs = 500;
constexpr unsigned kSplitMarkMs = 1000;

// One deepening run: owns the term manager, the solver(s) and the unwinding.
class BmcRun {
public:
  BmcRun(const cfa::Program& prog, cfa::FuncId entry, const BmcOptions& opts)
      : prog_(prog), entry_(entry), opts_(opts), deadline_(support::Deadline::in(opts.timeoutS)),
        nextK_(opts.startBound) {}

  // Deepens from the next unexplored bound up to maxBound within timeoutS (0 = none).
  // After "bound limit reached" the run can be resumed with a larger maxBound: the
  // incremental unwinding and its solver continue where they stopped.
  VerificationResult run(uint32_t maxBound, double timeoutS) {
    deadline_ = support::Deadline::in(timeoutS);
    if (unw_) unw_->setDeadline(deadline_.at());
    resumable_ = false;
    VerificationResult r;
    r.algorithm = opts_.incremental ? "ibmc" : "bmc";
    r.solver = smt::solverName(opts_.solver);
    uint32_t& verifiedBound = verifiedBound_;
    bool& anyBound = anyBound_;
    try {
      for (uint32_t k = nextK_; k <= maxBound; ++k) {
        // the call depth that keeps the unwinding within its budget (issue 29 item 6)
        if (!estimate_) estimate_ = std::make_unique<UnwindingEstimate>(prog_, entry_, opts_.maxNodes);
        std::optional<uint32_t> dMax = estimate_->maxDepth(k);
        if (!dMax)
          return unknown(std::move(r),
                         "bound " + std::to_string(k) + " does not fit the unwinding budget of " +
                             std::to_string(opts_.maxNodes) + " nodes even with no call expanded",
                         verifiedBound, anyBound, "bound");
        // Raise d before k: within the first bound that needs a depth limit, step d up
        // (each step about four times the size of the last), so that a condition comes
        // early; later bounds start at the depth reached.
        uint32_t d = *dMax;
        // A closure that fits the budget but is large (SQLite's: hundreds of functions)
        // is stepped up too on its first bound: a whole-closure query can take a solver
        // longer than the run has (and ignore its limit), while a query with the deep
        // calls cut answers at once and gives the condition "calls nested <= d deep".
        // (Large: over a 40th of the budget, 50,000 nodes by default; and the calls are
        // most of it, so that the cut query is much smaller: the entry's own part, as the
        // initialisation's pieces only deeper calls use are dropped, unwinding.h.)
        bool large = false;
        if (d == UnwindingEstimate::kNoDepthLimit && !depthSteps_) {
          uint64_t whole = estimate_->nodes(k, d);
          large = whole > opts_.maxNodes / 40 && 4 * estimate_->entryNodes(k, 0) <= whole;
        }
        if (d != UnwindingEstimate::kNoDepthLimit || large) {
          uint32_t from = depthSteps_ ? std::min(lastDepth_, d) : 0;
          depthSteps_ = true;
          while (from < d) {
            // the entry's own unwinding sets the pace: the initialisation's part of it
            // is mostly dropped below the limit (unwinding.h)
            uint64_t size = estimate_->entryNodes(k, from);
            if (auto done = checkBound(r, k, from, false)) return std::move(*done);
            from = std::max(from + 1, estimate_->depthFor(k, 4 * size, from, d, true));
          }
        }
        if (auto done = checkBound(r, k, d, true)) return std::move(*done);
      }
      nextK_ = maxBound + 1;
      resumable_ = true;
      return unknown(std::move(r), "bound limit " + std::to_string(maxBound) + " reached", verifiedBound, anyBound);
    } catch (const Unwinding::DeadlineExceeded&) {
      return unknown(std::move(r), "timeout", verifiedBound, anyBound);
    } catch (const Unwinding::TooLarge&) {
      // the estimate is an upper bound: only a defect of it leads here
      return unknown(std::move(r), "unwinding larger than its estimate (" + std::to_string(opts_.maxNodes) + " nodes)",
                     verifiedBound, anyBound);
    } catch (const smt::SolverError& e) {
      return unknown(std::move(r), std::string("solver error: ") + e.what(), verifiedBound, anyBound);
    } catch (const std::bad_alloc&) {
      return unknown(std::move(r), "out of memory", verifiedBound, anyBound);
    }
  }

  // someExecutionGetsThrough (bmc.h): at bound 1, as deep as the budget allows, is any
  // error, cut, unsupported construct or path end reachable?
  CheckResult anyExecution() {
    try {
      estimate_ = std::make_unique<UnwindingEstimate>(prog_, entry_, opts_.maxNodes);
      std::optional<uint32_t> d = estimate_->maxDepth(1);
      if (!d) return CheckResult::Unknown;
      fresh(*d);
      unw_->unwindTo(1, [&](Term t) { solver_->add(t); });
      std::vector<Unwinding::Marked> marks = unw_->errors();
      for (const std::vector<Unwinding::Marked>& more : {unw_->currentCuts(), unw_->unsupported(), unw_->pathEnds()})
        marks.insert(marks.end(), more.begin(), more.end());
      return checkAnySplit(marks);
    } catch (const Unwinding::DeadlineExceeded&) {
    } catch (const Unwinding::TooLarge&) {
    } catch (const smt::SolverError&) {
    } catch (const std::bad_alloc&) {
    }
    return CheckResult::Unknown;
  }

private:
  // One check at bound k with calls nested <= d deep: a final result, or nullopt to go on.
  // finalDepth: d is the deepest that fits at k (and so at any larger bound).
  std::optional<VerificationResult> checkBound(VerificationResult& r, uint32_t k, uint32_t d, bool finalDepth) {
    uint32_t& verifiedBound = verifiedBound_;
    bool& anyBound = anyBound_;
    if (!opts_.incremental || !unw_ || unw_->maxCallDepth() != d) fresh(d);
    lastDepth_ = d;
    unw_->unwindTo(k, [&](Term t) { solver_->add(t); });
    r.stats.bound = k;
    r.stats.unrollNodes = unw_->nodeCount();
    const bool depthCut = unw_->depthCutCount() > 0;
    if (unw_->skippedCalls()) r.stats.extra["skipped_calls"] = static_cast<double>(unw_->skippedCalls());
    if (unw_->droppedInitParts()) r.stats.extra["init_parts_beyond_depth"] = static_cast<double>(unw_->droppedInitParts());
    else r.stats.extra.erase("init_parts_beyond_depth");
    if (depthCut) r.stats.extra["call_depth"] = d;
    else r.stats.extra.erase("call_depth");
    // 1. any error within the bound?
    double t0 = solverSeconds();
    CheckResult cr = checkAnySplit(unw_->errors());
    double tErr = solverSeconds() - t0;
    const bool errSplit = splitLast_;
    if (cr == CheckResult::Sat) return counterexample(std::move(r));
    if (cr == CheckResult::Unknown) return unknown(std::move(r), "solver: " + solver_->reasonUnknown(), verifiedBound, anyBound);
    verifiedBound = k;
    verifiedDepth_ = depthCut ? std::optional<uint32_t>(d) : std::nullopt;
    anyBound = true;
    if (opts_.checkpoint) opts_.checkpoint(unknown(r, "timeout", verifiedBound, anyBound));
    // 2. forward condition: does any path go beyond the bound?
    auto cuts = unw_->currentCuts();
    t0 = solverSeconds();
    // a cut taken on every execution needs no query (its model is not used)
    bool cutAlways = std::any_of(cuts.begin(), cuts.end(), [](const auto& c) { return c.taken->isTrue(); });
    // The query may take a quarter of the time left (checkForward): on real code it is
    // satisfiable at every bound (loops bounded by the inputs), and finding its model
    // can cost far more than the error query (SQLite's sqlite3_keyword_check: an error
    // query of no time, a forward condition of 10 s at every bound, following the keyword
    // hash chain through its tables). Out of its time, it is read as "longer paths may
    // exist": no `true` from this bound, and the run goes on to the next one.
    bool fcUndecided = false;
    CheckResult fc = CheckResult::Unsat;
    if (!cuts.empty()) fc = cutAlways ? CheckResult::Sat : checkForward(cuts, fcUndecided);
    double tFc = solverSeconds() - t0;
    if (fcUndecided) fc = CheckResult::Sat;
    if (forwardUndecided_) r.stats.extra["forward_undecided"] = forwardUndecided_;
    if (splitQueries_) r.stats.extra["split_queries"] = splitQueries_;
    if (fc == CheckResult::Unknown) return unknown(std::move(r), "solver: " + solver_->reasonUnknown(), verifiedBound, anyBound);
    if (opts_.progress) {
      std::ostringstream o;
      o << "bound " << k << (depthCut ? " (calls nested <= " + std::to_string(d) + " deep)" : "") << ": no error; "
        << unw_->nodeCount() << " nodes; "
        << (fcUndecided ? "longer paths not ruled out in its time"
            : fc == CheckResult::Sat ? "longer paths exist"
                                     : "no longer paths")
        << " (solver " << std::fixed << std::setprecision(2) << tErr << " s error query"
        << (errSplit ? " location by location" : "") << ", " << tFc
        << " s forward condition)";
      opts_.progress(o.str());
    }
    if (fc == CheckResult::Unsat) {
      // 3. every path is covered, unless an unsupported construct is reachable
      const auto& uns = unw_->unsupported();
      CheckResult ur = uns.empty() ? CheckResult::Unsat : checkAny(uns);
      // ... and, for a function entry, some execution gets through the entry's
      // assumptions. Where none does (a precondition the entry model cannot meet:
      // SQLite's sqlite3CreateIndex assumes db->pParse == pParse, and the harness leaves
      // db->pParse null at its depth bound), nothing was verified. (A whole program whose
      // main assumes false is correct: no execution violates a check.)
      if (ur == CheckResult::Unsat && prog_.functions[entry_].name != "main" &&
          checkAnySplit(unw_->pathEnds()) == CheckResult::Unsat) {
        verifiedDepth_.reset();
        return unknown(std::move(r), kNoExecutionGetsThrough, 0, false);
      }
      if (ur == CheckResult::Unsat) {
        r.verdict = Verdict::True;
        r.condition.kind = "none";
        r.condition.summary = "verified: no error on any path (all loops fully unrolled within bound " +
                              std::to_string(k) + ")";
        r.condition.bound = k;
        return finish(std::move(r));
      }
      const cfa::Edge* e = firstReachable(uns);
      std::string what = e ? e->text + " at " + edgeWhere(e) : "an unsupported construct";
      r.condition.excluded.push_back(what);
      // No path avoiding the construct goes beyond the bound: the condition is complete,
      // unless calls were cut below the depth limit or a recursion bound (a deeper
      // inlining, verify.cpp) is among the constructs reached
      if (!depthCut) {
        std::vector<Unwinding::Marked> deeper;
        for (const Unwinding::Marked& m : uns)
          if (m.edge && cfa::mentionsRecursionBound(m.edge->text)) deeper.push_back(m);
        r.condition.complete = checkAny(deeper) == CheckResult::Unsat;
        r.condition.vacuous = r.condition.complete && !cfa::checkReachableAvoidingUnsupported(prog_, entry_);
      }
      return unknown(std::move(r), "unsupported: " + what, verifiedBound, anyBound, "unsupported");
    }
    // Only depth cuts left and no deeper call fits the budget: a larger bound would
    // build the same unwinding again.
    if (depthCut && finalDepth && unw_->boundCutCount() == 0)
      return unknown(std::move(r),
                     "calls nested more than " + std::to_string(d) + " deep not expanded (unwinding budget of " +
                         std::to_string(opts_.maxNodes) + " nodes)",
                     verifiedBound, anyBound);
    // 4. k-induction: the base case for k passed; does the inductive step hold?
    // An unsupported construct within the bound rules out a proof (the step case
    // treats those constructs as errors; the base case must exclude them as well),
    // and so does a depth cut (the base case did not cover the calls below it).
    CheckResult unsupportedReach = CheckResult::Unknown;
    if (opts_.inductiveStep && !depthCut) unsupportedReach = checkAny(unw_->unsupported());
    if (opts_.stopAtUnsupported && unsupportedReach != CheckResult::Unsat) {
      // only the recursion-depth edges stop the run (a deeper inlining is tried); any other
      // unsupported construct rules out a proof, but the base case goes on finding errors
      // and verifying larger bounds, as plain BMC does (on SQLite an indirect call through
      // a nondeterministic pointer stopped it after its first query)
      std::vector<Unwinding::Marked> deeper;
      for (const Unwinding::Marked& m : unw_->unsupported())
        if (m.edge && cfa::mentionsRecursionBound(m.edge->text)) deeper.push_back(m);
      if (checkAny(deeper) == CheckResult::Sat) {
        const cfa::Edge* e = firstReachable(deeper);
        std::string what = e ? e->text + " at " + edgeWhere(e) : "an unsupported construct";
        r.condition.excluded.push_back(what);
        return unknown(std::move(r), "unsupported: " + what, verifiedBound, anyBound, "unsupported");
      }
    }
    if (opts_.inductiveStep && !depthCut && unsupportedReach == CheckResult::Unsat && opts_.inductiveStep(k)) {
      r.verdict = Verdict::True;
      r.condition.kind = "none";
      r.condition.summary = "verified by k-induction with k = " + std::to_string(k);
      r.condition.bound = k;
      return finish(std::move(r));
    }
    return std::nullopt;
  }

  const cfa::Program& prog_;
  cfa::FuncId entry_;
  BmcOptions opts_;
  support::Deadline deadline_;
  std::unique_ptr<smt::TermManager> tm_;
  std::unique_ptr<smt::Solver> solver_;
  std::unique_ptr<Unwinding> unw_;
  uint64_t queries_ = 0;
  double solverTime_ = 0;

  double solverSeconds() const { return solver_ ? solver_->stats().checkTimeS : 0; }

  void fresh(uint32_t callDepth) {
    if (solver_) {
      queries_ += solver_->stats().checks;
      solverTime_ += solver_->stats().checkTimeS;
    }
    unw_.reset();
    solver_.reset();
    tm_ = std::make_unique<smt::TermManager>();
    smt::SolverOptions so;
    so.models = true;
    // a solver per bound: a check that runs long goes one-shot (SolverOptions). Not for
    // incremental BMC: as k-induction's base case it made the base case faster and so
    // left the step case less time (bhmr2007: proved at k = 13 in 6 s before, unknown at
    // 30 s with it)
    so.oneShotChecks = !opts_.incremental;
    solver_ = smt::makeSolver(opts_.solver, *tm_, so);
    unw_ = std::make_unique<Unwinding>(prog_, entry_, *tm_, opts_.incremental);
    unw_->setDeadline(deadline_.at());
    unw_->setMaxNodes(opts_.maxNodes);
    unw_->setMaxCallDepth(callDepth);
  }

  // While it lives, the solver's checks go to its one-shot path at once (nested: the
  // outermost one ends it).
  struct OneShotAtOnce {
    BmcRun& run;
    bool was;
    explicit OneShotAtOnce(BmcRun& r) : run(r), was(r.oneShotAtOnce_) {
      run.oneShotAtOnce_ = true;
      run.solver_->setOneShotAtOnce(true);
    }
    ~OneShotAtOnce() {
      run.oneShotAtOnce_ = was;
      run.solver_->setOneShotAtOnce(was);
    }
  };
  bool oneShotAtOnce_ = false;

  // A formula over BmcOptions::splitAtOnceTerms terms, in a run with a solver per bound.
  bool largeFormula() const { return !opts_.incremental && tm_->size() > opts_.splitAtOnceTerms; }

  // Is any of the marked edges taken on a feasible path? One query, with a fresh
  // literal so that the disjunction is retracted afterwards.
  // limitMs: a time limit of this check below the run's deadline (0: the deadline's)
  // On a large formula the check goes to the one-shot path at once: the incremental
  // core's first check of a large formula takes in the whole formula before it looks at
  // its limit (SQLite's sqlite3_bind_double: a check with a 0.5 s limit ran 16 s, on the
  // one-shot path 2.8 s).
  CheckResult checkAny(const std::vector<Unwinding::Marked>& marks, unsigned limitMs = 0) {
    if (marks.empty()) return CheckResult::Unsat;
    std::optional<OneShotAtOnce> atOnce;
    if (largeFormula()) atOnce.emplace(*this);
    std::vector<Term> disj;
    for (const auto& m : marks) disj.push_back(m.taken);
    Term lit = tm_->freshVar("query", tm_->boolSort());
    solver_->addGuarded(lit, tm_->mkOr(disj));
    std::vector<Term> assumptions = unw_->danglingAssumptions();
    assumptions.push_back(lit);
    if (deadline_.expired()) throw Unwinding::DeadlineExceeded{};
    unsigned left = deadline_.remainingMs();
    solver_->setTimeoutMs(limitMs && (left == 0 || limitMs < left) ? limitMs : left);
    CheckResult cr = solver_->check(assumptions);
    if (cr == CheckResult::Unknown && deadline_.expired()) throw Unwinding::DeadlineExceeded{};
    return cr;
  }

  // checkAny, split when the disjunction is slow: is any of the marked edges taken?
  // On large closures the disjunction can run far longer than its parts: SQLite's
  // sqlite3_bind_double with calls nested <= 3 deep has 17 error locations (memory with
  // 6,550 initial stores); Z3 had no answer for their disjunction in 60 s, nor for groups
  // of 6 or 11 in 30 s, while alone on Z3's one-shot path 10 of them were reachable in
  // 0.8 s each: one location's guard, asserted, is propagated through the memory of the
  // whole unwinding; a disjunction's is not. So the disjunction gets kSplitFirstMs on the
  // solver's usual path (not tried over BmcOptions::splitAtOnceTerms terms: that check
  // ran 2.2-2.8 s past its limit); then each mark alone, on the one-shot path at once
  // (Solver::setOneShotAtOnce), in rounds, each with twice the last round's time per
  // mark: the first reachable mark answers Sat (the solver's model is its), unreachable
  // ones drop out, and Unsat needs every one unreachable. limitMs bounds the whole (0:
  // the run's deadline); past it the answer is Unknown. (Not for an incremental run, whose
  // solver has no one-shot path.)
  CheckResult checkAnySplit(const std::vector<Unwinding::Marked>& marks, unsigned limitMs = 0) {
    using Clock = std::chrono::steady_clock;
    splitLast_ = false;
    if (marks.size() < 2 || opts_.incremental) return checkAny(marks, limitMs);
    const auto start = Clock::now();
    auto leftMs = [&]() -> unsigned {  // of limitMs (0: no limit but the deadline's)
      if (!limitMs) return 0;
      auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      return spent >= limitMs ? 1 : static_cast<unsigned>(limitMs - spent);
    };
    auto slice = [&](unsigned want) {
      unsigned l = leftMs();
      return l && l < want ? l : want;
    };
    auto outOfLimit = [&] { return limitMs && leftMs() <= 1; };
    CheckResult cr = CheckResult::Unknown;
    if (!largeFormula()) {
      cr = checkAny(marks, slice(kSplitFirstMs));
      if (cr != CheckResult::Unknown || solver_->reasonUnknown() != "timeout" || outOfLimit()) return cr;
    }
    ++splitQueries_;
    splitLast_ = true;
    OneShotAtOnce atOnce(*this);
    std::vector<Unwinding::Marked> pending = marks;
    for (unsigned ms = kSplitMarkMs; !pending.empty(); ms = std::min(2 * ms, 1u << 30)) {
      std::vector<Unwinding::Marked> next;
      for (const Unwinding::Marked& m : pending) {
        if (outOfLimit()) return CheckResult::Unknown;  // reasonUnknown(): the last timeout
        cr = checkAny({m}, slice(ms));
        if (cr == CheckResult::Sat) return cr;
        if (cr == CheckResult::Unsat) continue;
        if (solver_->reasonUnknown() != "timeout") return cr;
        next.push_back(m);
      }
      pending = std::move(next);
    }
    return CheckResult::Unsat;
  }

  // The forward condition (checkAny of the cuts) within a quarter of the time left (at
  // least kForwardMinMs; unlimited in a run without a deadline). `undecided`: it ran out
  // of that time, the run's deadline not reached.
  CheckResult checkForward(const std::vector<Unwinding::Marked>& cuts, bool& undecided) {
    undecided = false;
    if (deadline_.isNever()) return checkAnySplit(cuts);
    unsigned left = deadline_.remainingMs();
    unsigned limit = std::max(kForwardMinMs, left / 4);
    if (limit >= left) return checkAnySplit(cuts);
    CheckResult fc = checkAnySplit(cuts, limit);
    if (fc == CheckResult::Unknown && solver_->reasonUnknown() != "out of memory") {
      undecided = true;
      ++forwardUndecided_;
    }
    return fc;
  }

  const cfa::Edge* firstReachable(const std::vector<Unwinding::Marked>& marks) {
    for (const auto& m : marks)
      if (solver_->modelValue(m.taken)->isTrue()) return m.edge;
    return marks.empty() ? nullptr : marks.front().edge;
  }

  VerificationResult counterexample(VerificationResult r) {
    Unwinding::ModelPath path = unw_->extractPath(*solver_);
    result::ReplayInput in;
    in.nondets = path.nondets;
    if (opts_.corruptReplayForTest)
      for (cfa::Value& v : in.nondets) v ^= 0x5a5a5a5a;
    // bytes never written: the model's initial memory
    Term mem0 = unw_->initialMemory();
    smt::TermManager& tm = *tm_;
    smt::Solver& solver = *solver_;
    uint32_t pw = prog_.ptrWidth;
    in.initialMemory = [&tm, &solver, mem0, pw](uint64_t addr) -> std::optional<uint8_t> {
      Term v = solver.modelValue(tm.select(mem0, tm.bvVal(addr, pw)));
      return static_cast<uint8_t>(v->value);
    };
    result::ReplayResult run = result::replay(cfa::original(prog_), entry_, in, result::replayStepLimit(prog_));
    if (run.outcome != result::ReplayOutcome::ReachedError) {
      // Never report a path we could not execute.
      return unknown(std::move(r),
                     std::string("error path found by the solver did not replay (") +
                         result::outcomeName(run.outcome) + (run.message.empty() ? "" : ": " + run.message) + ")",
                     0, false, "replay-failed");
    }
    run = withoutNeedlessNulls(cfa::original(prog_), entry_, in, std::move(run), result::replayStepLimit(prog_));
    r.verdict = Verdict::False;
    r.counterexample = counterexampleFromReplay(cfa::original(prog_), entry_, run);
    r.condition.kind = "none";
    r.condition.summary = "error reachable";
    return finish(std::move(r));
  }

  VerificationResult unknown(VerificationResult r, const std::string& reason, uint32_t bound, bool anyBound,
                             const std::string& kind = "bound") {
    r.verdict = Verdict::Unknown;
    r.reason = reason;
    r.condition.kind = kind;
    if (anyBound) {
      r.condition.bound = bound;
      r.condition.summary = r.condition.complete
                                ? "verified on every path (all loops and recursion fully unrolled within bound " +
                                      std::to_string(bound) + ")"
                                : "verified for loops and recursion unrolled <= " + std::to_string(bound) + " times";
      if (verifiedDepth_) {
        r.condition.callDepth = verifiedDepth_;
        r.condition.summary += " and calls nested <= " + std::to_string(*verifiedDepth_) + " deep";
      }
      if (!r.condition.excluded.empty()) r.condition.summary += " (except: " + r.condition.excluded.front() + ")";
      if (r.condition.vacuous)  // (what holds of the paths avoiding it holds of none)
        r.condition.summary = "nothing verified: every check lies behind " +
                              (r.condition.excluded.empty() ? std::string("an unsupported construct")
                                                            : r.condition.excluded.front());
    } else {
      r.condition.summary = "nothing verified";
    }
    return finish(std::move(r));
  }

  // Statistics so far (a resumed run reports the totals of all its calls). The solver
  // is kept only while the run can be resumed.
  VerificationResult finish(VerificationResult r) {
    r.stats.solverQueries = queries_;
    r.stats.solverTimeS = solverTime_;
    if (solver_) {
      r.stats.solverQueries += solver_->stats().checks;
      r.stats.solverTimeS += solver_->stats().checkTimeS;
      r.stats.formulaTerms = tm_->size();
    }
    return r;
  }

public:
  bool resumable() const { return resumable_ && opts_.incremental; }
  size_t termCount() const { return tm_ ? tm_->size() : 0; }

private:
  uint32_t nextK_;
  uint32_t verifiedBound_ = 0;
  std::optional<uint32_t> verifiedDepth_;  // the call depth of verifiedBound_ (none: no call was cut)
  std::unique_ptr<UnwindingEstimate> estimate_;
  uint32_t lastDepth_ = 0;
  bool depthSteps_ = false;  // the depth has been stepped up once
  bool anyBound_ = false;
  bool resumable_ = false;
  uint32_t forwardUndecided_ = 0;  // forward conditions that ran out of their time (checkForward)
  uint32_t splitQueries_ = 0;      // disjunctions checked location by location (checkAnySplit)
  bool splitLast_ = false;         // the last checkAnySplit was one of them
};

VerificationResult runBmc(const cfa::Program& prog, cfa::FuncId entry, const BmcOptions& opts) {
  BmcRun run(prog, entry, opts);
  return run.run(opts.maxBound, opts.timeoutS);
}

CheckResult someExecutionGetsThrough(const cfa::Program& prog, cfa::FuncId entry, const BmcOptions& opts) {
  BmcRun run(prog, entry, opts);
  return run.anyExecution();
}

BmcSession::BmcSession(const cfa::Program& prog, cfa::FuncId entry, const BmcOptions& opts)
    : run_(std::make_unique<BmcRun>(prog, entry, opts)) {}
BmcSession::~BmcSession() = default;

VerificationResult BmcSession::deepen(uint32_t maxBound, double timeoutS) { return run_->run(maxBound, timeoutS); }
bool BmcSession::resumable() const { return run_->resumable(); }
size_t BmcSession::termCount() const { return run_->termCount(); }

}  // namespace argus::algorithms
