#include "core/algorithms/predicate/predicate_analysis.h"

#include "core/cfa/accelerate.h"
#include "core/cfa/recursion.h"
#include "core/cpa/loop_bound_cpa.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/algorithms/cmc/assumptions.h"
#include "core/algorithms/common/c_formula.h"
#include "core/algorithms/common/counterexample.h"
#include "core/algorithms/common/cpa_algorithm.h"
#include "core/algorithms/predicate/newton_refiner.h"
#include "core/cfa/loops.h"
#include "core/cpa/arg_cpa.h"
#include "core/cpa/automaton_cpa.h"
#include "core/cpa/callstack_cpa.h"
#include "core/cpa/composite_cpa.h"
#include "core/cpa/location_cpa.h"
#include "core/result/replay.h"
#include "core/support/deadline.h"
#include "core/support/stopwatch.h"

namespace argus::algorithms {

using cpa::ArgState;
using cpa::PredicateState;
using result::Verdict;
using result::VerificationResult;
using smt::CheckResult;
using smt::Term;

namespace {

constexpr size_t kPredicateComponent = 2;  // index in Composite(Location, Callstack, Predicate)
constexpr int kMaxPathCandidates = 64;
constexpr uint32_t kMaxAllSatModelsLimit = 4096;
constexpr size_t kMaxForcedCoveringCandidates = 8;


const PredicateState& predOf(const ArgState& s) { return *cpa::extract<PredicateState>(s); }

// The refinement engine's configuration for this analysis. Predicate abstraction
// takes the atoms of τ as predicates: projecting ABE disjunctions disjunct by
// disjunct gives τ many atoms over merged (ite) values and the abstraction blows
// up (measured: the systemc token_ring/pc_sfifo/bist_cell tasks end with
// "refinement made no progress"), so pred drops such disjunctions; Impact conjoins τ
// itself to its states and keeps the stronger projection.
RefinerConfig engineConfig(const PredicateAnalysisOptions& o) {
  RefinerConfig c = o.refiner;
  if (!o.impact) c.disjunctionDepth = 0;
  return c;
}

struct Abort {
  std::string reason;
  std::string kind = "error";
};

// A refinement ran out of its own time limit (maxTimePerRefinementMs).
struct RefinementTimeLimit {};

// A refinement could not exclude a spurious error path (every engine failed, or the
// predicates it found were already in the precision). The target is cut, as a monitor
// would cut it (conditional-model-checking paper, Sect. III: an analysis that cannot
// decide a part records it as an assumption and goes on); the run can then no longer
// answer `true`, but it still finds other bugs and says what it verified.
struct RefinementFailed {
  std::string reason;
};

// Number of distinct term nodes of t, counting stops above `cap`.
size_t dagSizeUpTo(Term t, size_t cap) {
  std::unordered_set<Term> seen{t};
  std::vector<Term> work{t};
  while (!work.empty() && seen.size() <= cap) {
    Term x = work.back();
    work.pop_back();
    for (Term c : x->children)
      if (seen.insert(c).second) work.push_back(c);
  }
  return seen.size();
}

cpa::PredicateCpaOptions withBudget(cpa::PredicateCpaOptions o, support::OperationBudget* b, unsigned postMs) {
  if (postMs) o.postBudget = b;
  return o;
}

class PredicateRun {
public:
  PredicateRun(const cfa::Program& prog, cfa::FuncId entry, const PredicateAnalysisOptions& opts)
      : prog_(prog),
        entry_(entry),
        opts_(opts),
        deadline_(support::Deadline::in(opts.timeoutS)),
        pfm_(prog, tm_),
        cf_(prog, entry),
        absSolver_(smt::makeSolver(opts.solver, tm_, {})),
        cexSolver_(smt::makeSolver(opts.solver, tm_, {})),
        loc_(cf_),
        cs_(cf_),
        pred_(cf_, pfm_, *absSolver_, withBudget(opts.cpa, &postBudget_, opts.maxTimePerPostMs), deadline_),
        aut_(opts.condition ? std::make_unique<cpa::AutomatonCpa>(*opts.condition) : nullptr),
        bound_(opts.bmcBound ? std::make_unique<cpa::LoopBoundCpa>(cf_, opts.bmcBound) : nullptr),
        comp_(components()),
        arg_(comp_),
        newton_(pfm_, opts.solver, deadline_),
        engine_(makeRefinementEngine(engineConfig(opts), pfm_, opts.solver, deadline_)),
        reached_(waitlistOrder(), partitionKey(), priority()) {
    if (opts.bmcBound) pfm_.setFactorMerges(true);
  }

  VerificationResult run() {
    VerificationResult r;
    r.algorithm = opts_.impact ? "impact" : opts_.bmcBound ? "bmc-cpa" : "pred";
    r.solver = smt::solverName(opts_.solver);
    Stopwatch total;
    try {
      cpa::StatePtr init = arg_.initialState();
      initPrec_ = arg_.initialPrecision();
      reached_.add(init, initPrec_);
      arg_.onAdded(init);
      root_ = static_cast<const ArgState*>(init.get());
      CpaAlgorithmOptions co;
      co.deadline = deadline_;
      co.maxStates = opts_.maxStates;
      co.maxMemoryMb = opts_.maxMemoryMb;
      co.maxEdgePosts = opts_.maxEdgePosts;
      co.edgePosts = &edgePosts_;
      co.maxTimePerPostMs = opts_.maxTimePerPostMs;
      co.postBudget = &postBudget_;
      co.onCut = [this](const cpa::StatePtr& s, const std::string& why) { markCut(static_cast<const ArgState*>(s.get()), why); };
      co.describeStep = [this](const cfa::Step& st) { return "at " + edgeWhere(st.cfaEdge(prog_)); };
      if (opts_.maxPathFormulaSize)
        co.cutCheck = [this](const cpa::AbstractState& e) -> std::optional<std::string> {
          const PredicateState& p = predOf(static_cast<const ArgState&>(e));
          if (p.isAbstraction || !p.pf.formula) return std::nullopt;
          size_t n = dagSizeUpTo(p.pf.formula, opts_.maxPathFormulaSize);
          if (n <= opts_.maxPathFormulaSize) return std::nullopt;
          return "path-formula size: the block's path formula has more than " +
                 std::to_string(opts_.maxPathFormulaSize) + " term nodes";
        };
      if (opts_.impact && opts_.forcedCovering)
        co.forcedCovering = [this](cpa::ReachedSet&, const cpa::StatePtr& e, const cpa::PrecisionPtr&) {
          return forceCover(std::static_pointer_cast<const ArgState>(e));
        };
      while (true) {
        if (!pendingTargets_.empty()) {
          ArgState* t = pendingTargets_.back();
          pendingTargets_.pop_back();
          if (t->removed || t->coveredBy || !reached_.contains(t->shared_from_this())) continue;
          if (auto cex = handleTarget(std::static_pointer_cast<const ArgState>(t->shared_from_this()))) {
            r.verdict = Verdict::False;
            r.counterexample = std::move(*cex);
            r.condition.kind = "none";
            r.condition.summary = "error reachable";
            return finish(std::move(r), total);
          }
          continue;
        }
        CpaRunResult cr = runCpaAlgorithm(arg_, reached_, co);
        if (cr.status == CpaStatus::Interrupted) throw Abort{cr.reason, cr.reason == "timeout" ? "timeout" : "limit"};
        if (cr.status == CpaStatus::Completed) {
          if (!pendingTargets_.empty()) continue;
          if (!unsupported_.empty()) {
            r.condition.excluded = unsupported_;
            throw Abort{"unsupported: " + unsupported_.front(), "unsupported"};
          }
          if (const ArgState* c = liveCut()) {
            // a monitor cut a part: everything else was explored
            r.verdict = Verdict::Unknown;
            r.reason = "not everything verified: " + c->cut;
            r.condition.kind = "assumption";
            return finish(std::move(r), total);
          }
          if (opts_.bmcBound) return finishBmc(std::move(r), total);
          r.verdict = Verdict::True;
          r.condition.kind = "none";
          r.condition.summary = "verified: the abstract reachability graph is closed (" +
                                std::to_string(maxPredicates_) + " predicates)";
          loopInvariants(r);
          return finish(std::move(r), total);
        }
        auto target = std::static_pointer_cast<const ArgState>(cr.target);
        if (auto cex = handleTarget(target)) {
          r.verdict = Verdict::False;
          r.counterexample = std::move(*cex);
          r.condition.kind = "none";
          r.condition.summary = "error reachable";
          return finish(std::move(r), total);
        }
      }
    } catch (const Abort& a) {
      r.verdict = Verdict::Unknown;
      r.reason = a.reason;
      r.condition.kind = a.kind;
      r.condition.summary = "nothing verified";
      if (!r.condition.excluded.empty()) r.condition.summary += " (unsupported: " + r.condition.excluded.front() + ")";
      return finish(std::move(r), total);
    } catch (const cpa::SolverUnknown& e) {
      r.verdict = Verdict::Unknown;
      r.reason = e.what();
      r.condition.kind = std::string(e.what()) == "timeout" ? "timeout" : "solver";
      r.condition.summary = "nothing verified";
      return finish(std::move(r), total);
    } catch (const smt::SolverError& e) {
      r.verdict = Verdict::Unknown;
      r.reason = std::string("solver error: ") + e.what();
      r.condition.kind = "solver";
      r.condition.summary = "nothing verified";
      return finish(std::move(r), total);
    }
  }

private:
  const cfa::Program& prog_;
  cfa::FuncId entry_;
  PredicateAnalysisOptions opts_;
  support::Deadline deadline_;
  support::OperationBudget postBudget_;  // time per post (armed by CPA++)
  smt::TermManager tm_;
  encoding::PathFormulaManager pfm_;
  cpa::ControlFlow cf_;
  std::unique_ptr<smt::Solver> absSolver_, cexSolver_;
  cpa::LocationCpa loc_;
  cpa::CallstackCpa cs_;
  cpa::PredicateCpa pred_;
  std::unique_ptr<cpa::AutomatonCpa> aut_;
  std::unique_ptr<cpa::LoopBoundCpa> bound_;  // input condition, if any (after pred_: kPredicateComponent stays 2)
  cpa::CompositeCpa comp_;
  cpa::ArgCpa arg_;
  NewtonRefiner newton_;
  std::unique_ptr<RefinementEngine> engine_;
  cpa::ReachedSet reached_;
  cpa::PrecisionPtr initPrec_;
  // Impact statistics
  uint64_t strengthened_ = 0, uncovered_ = 0, removedFalse_ = 0, fcAttempts_ = 0, fcCandidates_ = 0, fcSuccess_ = 0;
  uint64_t sequenceChecks_ = 0, engineFailures_ = 0, pathSequenceAttempts_ = 0, pathSequenceSuccesses_ = 0;
  uint64_t infeasibleTargets_ = 0;
  double fcTimeS_ = 0, checkTimeS_ = 0;
  std::vector<ArgState*> pendingTargets_;
  std::vector<std::string> unsupported_;
  std::vector<const ArgState*> cuts_;  // states a monitor cut (some may be removed since)
  EdgePostCounts edgePosts_;           // busy edge, over all CEGAR iterations
  uint64_t cutCount_ = 0, refinementCuts_ = 0, refinementFailures_ = 0;
  const ArgState* root_ = nullptr;
  uint64_t refinements_ = 0, cexChecks_ = 0, pathCandidates_ = 0, fallbackRefinements_ = 0, allSatEscalations_ = 0;
  size_t maxPredicates_ = 0;
  double refineTimeS_ = 0, cexTimeS_ = 0;

  cpa::WaitlistOrder waitlistOrder() const {
    switch (opts_.waitlist) {
      case WaitlistKind::Bfs: return cpa::WaitlistOrder::Bfs;
      case WaitlistKind::Dfs: return cpa::WaitlistOrder::Dfs;
      default: return cpa::WaitlistOrder::Priority;
    }
  }
  cpa::ReachedSet::KeyFn partitionKey() const {
    return [](const cpa::AbstractState& s) -> uint64_t {
      auto* l = cpa::extract<cpa::LocationState>(s);
      auto* c = cpa::extract<cpa::CallstackState>(s);
      uint64_t h = (static_cast<uint64_t>(l->func) << 40) ^ (static_cast<uint64_t>(l->loc) << 8) ^
                   static_cast<uint64_t>(l->property);
      return h ^ (c->hash * 0x9e3779b97f4a7c15ull);
    };
  }
  cpa::ReachedSet::PriorityFn priority() const {
    const cpa::ControlFlow* cf = &cf_;
    bool rpo = opts_.waitlist == WaitlistKind::ReversePostorder;
    // BMC (blk^never): also the states inside more loops first (the loop stack of
    // CPAchecker's BMC waitlist), so that the paths leaving a loop after different
    // numbers of iterations all arrive before the exit is expanded and ABE merges
    // them (the reverse postorder alone can put a loop exit before the loop body).
    bool loopStack = opts_.bmcBound > 0;
    return [cf, rpo, loopStack](const cpa::AbstractState& s) -> int64_t {
      auto* l = cpa::extract<cpa::LocationState>(s);
      auto* c = cpa::extract<cpa::CallstackState>(s);
      int64_t p = static_cast<int64_t>(c->depth) << 40;
      if (loopStack)
        if (auto* lb = cpa::extract<cpa::LoopBoundState>(s)) p += static_cast<int64_t>(std::min<size_t>(lb->visits->size(), 255)) << 32;
      if (rpo) p += static_cast<int64_t>(0xffffffffu - cf->reversePostorder(l->func, l->loc));
      return p;
    };
  }

  void markCut(const ArgState* s, const std::string& why) {
    if (s->cut.empty()) s->cut = why;
    cuts_.push_back(s);
    ++cutCount_;
  }
  const ArgState* liveCut() const {
    for (const ArgState* c : cuts_)
      if (!c->removed) return c;
    return nullptr;
  }
  // A target whose error path is not decided (a limit): cut, off the waitlist.
  void cutTarget(const std::shared_ptr<const ArgState>& target, const std::string& why) {
    reached_.unwait(target);
    markCut(target.get(), why);
  }

  CheckResult check(smt::Solver& s, std::span<const Term> as = {}) {
    if (deadline_.expired()) throw Abort{"timeout", "timeout"};
    s.setTimeoutMs(deadline_.remainingMs());
    CheckResult r = s.check(as);
    if (r == CheckResult::Unknown) {
      if (deadline_.expired()) throw Abort{"timeout", "timeout"};
      throw Abort{"solver: " + s.reasonUnknown(), "solver"};
    }
    return r;
  }

  // Time per refinement: the engines get the earlier of the run's deadline and the
  // refinement's own; a failure after the refinement's own expired is a cut.
  support::Deadline refineDeadline_ = support::Deadline::never();
  void armRefinementLimit() {
    if (!opts_.maxTimePerRefinementMs) return;
    support::Deadline own = support::Deadline::in(opts_.maxTimePerRefinementMs / 1000.0);
    refineDeadline_ = own.at() < deadline_.at() ? own : deadline_;
    engine_->setDeadline(refineDeadline_);
    newton_.setDeadline(refineDeadline_);
  }
  void disarmRefinementLimit() {
    if (!opts_.maxTimePerRefinementMs) return;
    refineDeadline_ = support::Deadline::never();
    engine_->setDeadline(deadline_);
    newton_.setDeadline(deadline_);
  }
  // Called when a refinement step failed: a cut if its own limit (not the run's) ran out.
  void throwIfRefinementLimit() {
    if (opts_.maxTimePerRefinementMs && refineDeadline_.expired() && !deadline_.expired()) throw RefinementTimeLimit{};
  }
  const support::Deadline& refinementDeadline() const {
    return opts_.maxTimePerRefinementMs && !refineDeadline_.isNever() ? refineDeadline_ : deadline_;
  }

  // The abstraction states from the root to `target` along first parents.
  std::vector<const ArgState*> abstractPath(const ArgState* target) {
    std::vector<const ArgState*> out;
    const ArgState* s = target;
    while (s) {
      if (predOf(*s).isAbstraction) out.push_back(s);
      s = s->parents.empty() ? nullptr : s->parents.front().first;
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  // Returns a replayed counterexample, or nothing when the analysis goes on.
  std::optional<result::Counterexample> handleTarget(const std::shared_ptr<const ArgState>& target) {
    auto path = abstractPath(target.get());
    if (path.size() < 2 || path.front()->parents.size() != 0) throw Abort{"internal: malformed abstract counterexample", "error"};
    Term f = predOf(*path.front()).abstractionInstantiated;
    for (size_t i = 1; i < path.size(); ++i) f = tm_.mkAnd(f, predOf(*path[i]).blockFormula);
    if (opts_.maxPathFormulaSize && dagSizeUpTo(f, opts_.maxPathFormulaSize) > opts_.maxPathFormulaSize) {
      auto* l = cpa::extract<cpa::LocationState>(*target);
      cutTarget(target, "path-formula size: the formula of the abstract path to the " +
                            std::string(cpa::propertyName(l->property)) + " target " + edgeWhere(l->via) +
                            " has more than " + std::to_string(opts_.maxPathFormulaSize) + " term nodes");
      return std::nullopt;
    }
    Stopwatch sw;
    ++cexChecks_;
    cexSolver_->push();
    cexSolver_->add(f);
    CheckResult cr;
    try {
      cr = check(*cexSolver_);
    } catch (...) {
      cexSolver_->pop();
      throw;
    }
    if (cr == CheckResult::Sat) {
      auto* l = cpa::extract<cpa::LocationState>(*target);
      auto* c = cpa::extract<cpa::CallstackState>(*target);
      if (l->property == cpa::Property::Error) {
        auto cex = concreteCounterexample(target.get());
        cexSolver_->pop();
        cexTimeS_ += sw.elapsedS();
        return cex;
      }
      cexSolver_->pop();
      cexTimeS_ += sw.elapsedS();
      std::string what;
      if (c && c->recursion) {
        const cfa::Edge& call = prog_.functions[c->caller].edges[c->callEdge];
        what = "recursive call of " + prog_.functions[c->func].name + " at " + edgeWhere(&call);
      } else {
        what = (l->via ? l->via->text : std::string("construct")) + " at " + edgeWhere(l->via);
      }
      if (std::find(unsupported_.begin(), unsupported_.end(), what) == unsupported_.end()) unsupported_.push_back(what);
      return std::nullopt;  // the target stays a leaf; explore the rest
    }
    cexSolver_->pop();
    cexTimeS_ += sw.elapsedS();
    if (opts_.bmcBound) {
      dropInfeasibleTarget(target.get());
      return std::nullopt;
    }
    armRefinementLimit();
    try {
      if (refinementFailures_ < opts_.failRefinementsForTest) throw RefinementFailed{"refinement disabled for a test"};
      if (opts_.impact) refineImpact(path, target.get());
      else refine(path, target);
    } catch (const RefinementFailed& f) {
      disarmRefinementLimit();
      ++refinementFailures_;
      auto* l = cpa::extract<cpa::LocationState>(*target);
      cutTarget(target, "refinement failed on the error path to " + edgeWhere(l->via) + ": " + f.reason);
      return std::nullopt;
    } catch (const RefinementTimeLimit&) {
      disarmRefinementLimit();
      ++refinementCuts_;
      auto* l = cpa::extract<cpa::LocationState>(*target);
      cutTarget(target, "time per refinement: refining the error path to " + edgeWhere(l->via) + " took longer than " +
                            std::to_string(opts_.maxTimePerRefinementMs) + " ms");
      return std::nullopt;
    } catch (...) {
      disarmRefinementLimit();
      throw;
    }
    disarmRefinementLimit();
    return std::nullopt;
  }

  void refine(const std::vector<const ArgState*>& path, const std::shared_ptr<const ArgState>& target) {
    Stopwatch sw;
    if (++refinements_ > opts_.maxRefinements) throw Abort{"refinement limit reached", "limit"};
    // Two views of the counterexample: the block formulas (all paths inside the blocks,
    // with disjunctions where ABE merged) and one ARG path (first parents) re-encoded
    // step by step, which is infeasible too and gives Newton plain conjunctions.
    RefinementInput blocksIn;
    for (size_t i = 1; i < path.size(); ++i) {
      Term b = predOf(*path[i]).blockFormula;
      if (i == 1) b = tm_.mkAnd(predOf(*path[0]).abstractionInstantiated, b);
      blocksIn.blocks.push_back(b);
      blocksIn.ssaAfter.push_back(predOf(*path[i]).pf.ssa.get());
    }
    std::vector<std::shared_ptr<const encoding::SsaMap>> keepAlive;
    RefinementInput pathIn = singlePathInput(target.get(), path, keepAlive);
    bool havePath = pathIn.blocks.size() == blocksIn.blocks.size();
    auto targetPrec = std::dynamic_pointer_cast<const cpa::CompositePrecision>(reached_.precision(target));
    auto predPrec = cpa::extractPrecision<cpa::PredicatePrecision>(targetPrec->parts[kPredicateComponent]);
    RefinementOutput out;
    std::shared_ptr<const cpa::PredicatePrecision> newPred;
    const ArgState* pivot = nullptr;
    // the engine's predicates on the single path, then on the blocks; if they do not
    // grow the precision, for Newton engines the predicates of newton_refiner.h (its
    // core minimisation differs), and last its stale-keeping predicates
    enum class Via { Engine, Legacy, LegacyKeepStale };
    struct Attempt {
      const RefinementInput* in;
      Via via;
    };
    std::vector<Attempt> attempts;
    if (havePath) attempts.push_back({&pathIn, Via::Engine});
    attempts.push_back({&blocksIn, Via::Engine});
    if (opts_.refiner.kind == RefinerConfig::Kind::Newton) {
      if (havePath) attempts.push_back({&pathIn, Via::Legacy});
      attempts.push_back({&blocksIn, Via::Legacy});
      if (havePath) attempts.push_back({&pathIn, Via::LegacyKeepStale});
      attempts.push_back({&blocksIn, Via::LegacyKeepStale});
    }
    for (size_t ai = 0; ai < attempts.size(); ++ai) {
      if (attempts[ai].via != Via::Engine) {
        out = newton_.refine(*attempts[ai].in, attempts[ai].via == Via::LegacyKeepStale);
      } else {
        InterpolationSequence sq = engine_->interpolate(*attempts[ai].in);
        out = RefinementOutput{};
        out.ok = sq.ok;
        out.reason = sq.reason;
        out.coreSize = sq.coreSize;
        out.conjunctCount = sq.conjunctCount;
        if (sq.ok) {
          if (opts_.checkSequences) {
            Stopwatch cw;
            ++sequenceChecks_;
            std::string bad = checkSequence(pfm_, opts_.solver, *attempts[ai].in, sq.seq, refinementDeadline().remainingMs());
            checkTimeS_ += cw.elapsedS();
            if (!bad.empty()) throwIfRefinementLimit();
            if (!bad.empty()) throw Abort{"refinement: " + opts_.refiner.name() + " gave a bad sequence: " + bad, "refinement"};
          }
          out.sequence = sq.seq;
          out.predicates = sequencePredicates(pfm_, sq.seq);
        } else {
          ++engineFailures_;
        }
      }
      if (getenv("ARGUS_DEBUG_PRED"))
        fprintf(stderr, "attempt %zu: ok %d core %llu/%llu\n", ai, out.ok, (unsigned long long)out.coreSize,
                (unsigned long long)out.conjunctCount);
      if (!out.ok) {
        throwIfRefinementLimit();
        if (ai + 1 < attempts.size()) continue;
        throw RefinementFailed{out.reason};
      }
      std::map<cpa::LocKey, std::vector<Term>> added;
      for (size_t i = 1; i < path.size(); ++i) {
        auto* l = cpa::extract<cpa::LocationState>(*path[i]);
        auto& v = added[cpa::locKey(l->func, l->loc)];
        for (Term p : out.predicates[i - 1]) v.push_back(p);
      }
      newPred = predPrec->join(added);
      // pivot: the first abstraction state whose precision grows
      for (size_t i = 1; i < path.size() && !pivot; ++i) {
        auto* l = cpa::extract<cpa::LocationState>(*path[i]);
        cpa::LocKey k = cpa::locKey(l->func, l->loc);
        auto usedPrec = std::dynamic_pointer_cast<const cpa::CompositePrecision>(reached_.precision(path[i]->shared_from_this()));
        auto used = cpa::extractPrecision<cpa::PredicatePrecision>(usedPrec->parts[kPredicateComponent]);
        for (Term p : newPred->at(k))
          if (std::find(used->at(k).begin(), used->at(k).end(), p) == used->at(k).end()) {
            pivot = path[i];
            break;
          }
      }
      if (pivot) break;
      if (ai == 0 || (ai == 1 && !havePath)) ++fallbackRefinements_;
    }
    maxPredicates_ = std::max(maxPredicates_, newPred->total());
    if (!pivot && pred_.stats().cartesianFallbacks > 0 && pred_.maxAllSatModels() != 0 &&
        pred_.maxAllSatModels() < kMaxAllSatModelsLimit) {
      // The predicates are there but an abstraction fell back to the cartesian one:
      // raise the all-SAT limit and re-explore the whole counterexample.
      pred_.setMaxAllSatModels(pred_.maxAllSatModels() * 8);
      ++allSatEscalations_;
      pivot = path[1];
    }
    if (getenv("ARGUS_DEBUG_PRED")) {
      for (size_t i = 1; i < path.size(); ++i) {
        auto* l = cpa::extract<cpa::LocationState>(*path[i]);
        fprintf(stderr, "  e%zu at %s: abs %s\n", i, l->str().c_str(), predOf(*path[i]).abstraction->str().c_str());
        fprintf(stderr, "    block %s\n", predOf(*path[i]).blockFormula->str().substr(0, 600).c_str());
        fprintf(stderr, "    tau %s\n", out.sequence[i - 1]->str().substr(0, 600).c_str());
        for (Term p : out.predicates[i - 1]) fprintf(stderr, "    pred %s\n", p->str().c_str());
      }
    }
    if (!pivot) throwIfRefinementLimit();
    if (!pivot) throw RefinementFailed{"no new predicates for a spurious counterexample" +
                                       (out.ok ? std::string() : " (" + out.reason + ")")};
    auto newPrec = targetPrec->with(kPredicateComponent, newPred);
    arg_.removeSubtree(reached_, const_cast<ArgState*>(pivot), newPrec);
    refineTimeS_ += sw.elapsedS();
    if (opts_.progress) {
      std::ostringstream o;
      o << "refinement " << refinements_ << ": " << path.size() - 1 << " blocks, core " << out.coreSize << "/"
        << out.conjunctCount << ", " << newPred->total() << " predicates, reached " << reached_.size();
      opts_.progress(o.str());
    }
  }

  std::vector<cpa::ConfigurableProgramAnalysis*> components() {
    // the predicate CPA stays at kPredicateComponent
    std::vector<cpa::ConfigurableProgramAnalysis*> c{&loc_, &cs_, &pred_};
    if (aut_) c.push_back(aut_.get());
    if (bound_) c.push_back(bound_.get());
    return c;
  }

  // ---- BMC as a configuration (bmcBound > 0)

  // A target whose path formula is unsatisfiable: removed with nothing re-added (it
  // has no successors; no precision to refine).
  void dropInfeasibleTarget(const ArgState* target) {
    ++infeasibleTargets_;
    for (ArgState* x : arg_.removeUnreachableSubtree(reached_, const_cast<ArgState*>(target)))
      if (!x->removed) reached_.add(x->shared_from_this(), initPrec_);
  }

  // The reached set is complete: the forward condition over the states the loop bound
  // cut (one query: is any of their path formulas satisfiable?).
  VerificationResult finishBmc(VerificationResult r, const Stopwatch& total) {
    std::vector<Term> cuts;
    std::vector<std::string> loops;
    for (const cpa::StatePtr& s : reached_.states()) {
      auto* lb = cpa::extract<cpa::LoopBoundState>(*s);
      if (!lb || !lb->cut) continue;
      const PredicateState& p = predOf(static_cast<const ArgState&>(*s));
      cuts.push_back(tm_.mkAnd(predOf(*root_).abstractionInstantiated, p.pf.formula));
      std::string where = loopWhere(lb->cutFunc, lb->cutLoc);
      if (std::find(loops.begin(), loops.end(), where) == loops.end()) loops.push_back(where);
    }
    bool reachable = false;
    if (!cuts.empty()) {
      cexSolver_->push();
      try {
        cexSolver_->add(tm_.mkOr(cuts));
        reachable = check(*cexSolver_) == CheckResult::Sat;
      } catch (...) {
        cexSolver_->pop(cexSolver_->depth());
        throw;
      }
      cexSolver_->pop();
    }
    r.stats.bound = opts_.bmcBound;
    r.stats.extra["bmc_cut_states"] = static_cast<double>(cuts.size());
    if (!reachable) {
      r.verdict = Verdict::True;
      r.condition.kind = "none";
      r.condition.bound = opts_.bmcBound;
      r.condition.summary = "verified: no error on any path (forward condition: no path goes beyond " +
                            std::to_string(opts_.bmcBound) + " loop iterations)";
      return finishCounts(std::move(r), total);
    }
    r.verdict = Verdict::Unknown;
    r.reason = "bound " + std::to_string(opts_.bmcBound) + " reached";
    r.condition.kind = "bound";
    r.condition.bound = opts_.bmcBound;
    for (const std::string& l : loops) r.condition.excluded.push_back("the loop at " + l + " beyond " + std::to_string(opts_.bmcBound) + " iterations");
    r.condition.summary = "verified for loops unrolled <= " + std::to_string(opts_.bmcBound) + " times";
    return finishCounts(std::move(r), total);
  }

  // The proof's loop invariants, for correctness witnesses: at each loop head, the
  // disjunction of the abstraction formulas of the abstraction states there (every
  // calling context), written in C (c_formula.h; parts C cannot say are weakened away).
  void loopInvariants(VerificationResult& r) {
    std::map<std::pair<cfa::FuncId, cfa::LocId>, std::vector<Term>> at;
    std::map<cfa::FuncId, std::vector<bool>> heads;
    for (const cpa::StatePtr& s : reached_.states()) {
      const auto& a = static_cast<const ArgState&>(*s);
      if (a.removed) continue;
      const PredicateState& p = predOf(a);
      auto* l = cpa::extract<cpa::LocationState>(a);
      if (!p.isAbstraction || !l || l->property != cpa::Property::None) continue;
      auto h = heads.find(l->func);
      if (h == heads.end()) {
        const cfa::Function& f = prog_.functions[l->func];
        std::vector<bool> head(f.locs.size(), false);
        cfa::LoopStructure ls = cfa::computeLoopStructure(f);
        for (size_t ei = 0; ei < f.edges.size(); ++ei)
          if (ls.backEdge[ei]) head[f.edges[ei].to] = true;
        h = heads.emplace(l->func, std::move(head)).first;
      }
      if (l->loc < h->second.size() && h->second[l->loc]) at[{l->func, l->loc}].push_back(p.abstraction);
    }
    for (auto& [key, fs] : at) {
      const cfa::Function& f = prog_.functions[key.first];
      const cfa::SourceRange& rg = f.locs[key.second].range;
      if (rg.line == 0) continue;
      std::string where = (rg.file.empty() ? prog_.mainFile : rg.file) + ":" + std::to_string(rg.line) + ":" +
                          std::to_string(rg.column) + " in " + f.name;
      r.invariant[where] = cFormula(prog_, key.first, tm_.mkOr(fs));
    }
  }

  std::string loopWhere(cfa::FuncId f, cfa::LocId l) const {
    const cfa::SourceRange& r = prog_.functions[f].locs[l].range;
    std::string file = r.file;
    if (auto slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
    return file + ":" + std::to_string(r.line);
  }

  // ---- Impact (unifying-view paper, Sect. 3.2 "Impact refinement", 3.3 forced covering)

  cpa::PredicateState& predMut(const ArgState* s) { return const_cast<PredicateState&>(predOf(*s)); }

  // The abstraction states from the root to `s` (inclusive), via first parents (the
  // abstraction states form a tree: every block has one start).
  std::vector<const ArgState*> abstractionAncestors(const ArgState* s) { return abstractPath(s); }

  // An interpolation sequence for `in`, checked; nullopt if the engine fails or the
  // check does not pass (then nothing is strengthened).
  std::optional<std::vector<Term>> checkedSequence(const RefinementInput& in, std::string& why) {
    InterpolationSequence sq = engine_->interpolate(in);
    if (!sq.ok) {
      ++engineFailures_;
      why = sq.reason;
      return std::nullopt;
    }
    Stopwatch cw;
    ++sequenceChecks_;
    std::string bad = checkSequence(pfm_, opts_.solver, in, sq.seq, refinementDeadline().remainingMs());
    checkTimeS_ += cw.elapsedS();
    if (!bad.empty()) {
      why = opts_.refiner.name() + " gave a sequence that fails the check: " + bad;
      return std::nullopt;
    }
    return sq.seq;
  }

  void uncover(ArgState* x) {
    if (x->coveredBy) {
      auto& cv = x->coveredBy->covers;
      cv.erase(std::remove(cv.begin(), cv.end(), x), cv.end());
    }
    x->coveredBy = nullptr;
    if (x->removed) return;
    ++uncovered_;
    reached_.add(x->shared_from_this(), initPrec_);
    // CPA++ checks abort() only for new states: an uncovered target is handled by the
    // CEGAR loop before CPA++ resumes
    if (arg_.isTarget(*x)) pendingTargets_.push_back(x);
  }

  // ψ_e := ψ_e ∧ u (u over unindexed variables); rechecks what e covers. Returns
  // whether e changed.
  bool strengthen(const ArgState* e, Term u) {
    auto& ps = predMut(e);
    if (pred_.implies(ps.abstraction, u)) return false;
    ps.abstraction = tm_.mkAnd(ps.abstraction, u);
    ps.abstractionInstantiated = pfm_.instantiate(ps.abstraction, *ps.pf.ssa);
    ++strengthened_;
    std::vector<ArgState*> covered = e->covers;
    for (ArgState* x : covered)
      if (!pred_.implies(predOf(*x).abstraction, ps.abstraction)) uncover(x);
    return true;
  }

  void removeFalse(const ArgState* e) {
    ++removedFalse_;
    for (ArgState* x : arg_.removeUnreachableSubtree(reached_, const_cast<ArgState*>(e))) uncover(x);
  }

  // Strengthens chain[j] with seq[j] (j < chain.size()); a false element removes its
  // state and everything below. Returns false if a state was removed.
  bool applySequence(const std::vector<const ArgState*>& chain, const std::vector<Term>& seq) {
    for (size_t j = 0; j < chain.size(); ++j) {
      Term u = pfm_.uninstantiate(seq[j]);
      if (u->isFalse() || pred_.implies(predOf(*chain[j]).abstraction, tm_.mkNot(u))) {
        removeFalse(chain[j]);
        return false;
      }
      strengthen(chain[j], u);
    }
    return true;
  }

  // A sequence for the blocks of `in` from the single ARG path to `target` (Ufo-like):
  // the engine's sequence for that path gives predicates P_i (its atoms, as in pred);
  // τ'_i is the boolean predicate abstraction of τ'_{i-1} ∧ φ_i over P_i for the whole
  // block formula φ_i (every path of the block, as Impact needs), so τ'_{i-1} ∧ φ_i ⇒
  // τ'_i holds by construction; the result counts only if τ'_{n-1} ∧ φ_n is
  // unsatisfiable, and checkSequence checks it once more, as every sequence Impact uses.
  std::optional<std::vector<Term>> abstractedPathSequence(const std::vector<const ArgState*>& path,
                                                          const ArgState* target, const RefinementInput& in,
                                                          std::string& why) {
    std::vector<std::shared_ptr<const encoding::SsaMap>> keep;
    RefinementInput pathIn = singlePathInput(target, path, keep);
    const size_t n = in.blocks.size();
    if (pathIn.blocks.size() != n || n == 0) {
      why = "no single path for the blocks";
      return std::nullopt;
    }
    InterpolationSequence sq = engine_->interpolate(pathIn);
    if (!sq.ok) {
      why = sq.reason;
      return std::nullopt;
    }
    ++pathSequenceAttempts_;
    std::vector<std::vector<Term>> preds = sequencePredicates(pfm_, sq.seq);
    std::vector<Term> out;
    Term prev = tm_.trueTerm();  // τ'_{i-1}, instantiated at the block's start
    for (size_t i = 0; i + 1 < n; ++i) {
      Term psi = pred_.abstract(tm_.mkAnd(prev, in.blocks[i]), preds[i], *in.ssaAfter[i]);
      prev = pfm_.instantiate(psi, *in.ssaAfter[i]);
      out.push_back(prev);
    }
    cexSolver_->push();
    CheckResult r;
    try {
      cexSolver_->add(tm_.mkAnd(prev, in.blocks[n - 1]));
      r = check(*cexSolver_);
    } catch (...) {
      cexSolver_->pop(cexSolver_->depth());
      throw;
    }
    cexSolver_->pop();
    if (r != CheckResult::Unsat) {
      why = "the abstraction of the blocks over the path's predicates does not exclude the error";
      return std::nullopt;
    }
    out.push_back(tm_.falseTerm());
    Stopwatch cw;
    ++sequenceChecks_;
    std::string bad = checkSequence(pfm_, opts_.solver, in, out, deadline_.remainingMs());
    checkTimeS_ += cw.elapsedS();
    if (!bad.empty()) throw Abort{"internal: abstracted path sequence fails the check: " + bad, "error"};
    ++pathSequenceSuccesses_;
    return out;
  }

  void refineImpact(const std::vector<const ArgState*>& path, const ArgState* target) {
    Stopwatch sw;
    if (++refinements_ > opts_.maxRefinements) throw Abort{"refinement limit reached", "limit"};
    RefinementInput in;
    for (size_t i = 1; i < path.size(); ++i) {
      Term b = predOf(*path[i]).blockFormula;
      if (i == 1) b = tm_.mkAnd(predOf(*path[0]).abstractionInstantiated, b);
      in.blocks.push_back(b);
      in.ssaAfter.push_back(predOf(*path[i]).pf.ssa.get());
    }
    std::string why;
    auto seq = checkedSequence(in, why);
    if (!seq) throwIfRefinementLimit();
    if (!seq) {
      // the projection of the blocks' ABE disjunctions can lose the infeasibility;
      // then the blocks abstracted over the single path's predicates
      std::string why2;
      seq = abstractedPathSequence(path, target, in, why2);
      if (!seq) throwIfRefinementLimit();
      if (!seq) throw RefinementFailed{why + "; on the single path: " + why2};
    }
    std::vector<const ArgState*> chain(path.begin() + 1, path.end());
    if (applySequence(chain, *seq)) throw Abort{"internal: Impact refinement did not remove the error state", "error"};
    refineTimeS_ += sw.elapsedS();
    if (opts_.progress) {
      std::ostringstream o;
      o << "impact refinement " << refinements_ << ": " << path.size() - 1 << " blocks, reached " << reached_.size()
        << ", strengthened " << strengthened_;
      opts_.progress(o.str());
    }
  }

  // fcover^Impact: try to cover the abstraction state e (about to be expanded) by an
  // older reached abstraction state e' at the same location: with ê the nearest common
  // ancestor and φ the blocks from ê to e, if ψ̂ ∧ φ ⇒ ψ' then the abstraction states
  // after ê on the way to e are strengthened with a checked interpolation sequence for
  // ψ̂ ∧ φ ∧ ¬ψ', e with ψ', and e is covered by e'.
  bool forceCover(const std::shared_ptr<const ArgState>& e) {
    const PredicateState& pe = predOf(*e);
    if (!pe.isAbstraction || e->parents.empty()) return false;
    if (cpa::extract<cpa::LocationState>(*e)->property != cpa::Property::None) return false;
    Stopwatch sw;
    ++fcAttempts_;
    bool done = false;
    auto mine = abstractionAncestors(e.get());
    std::vector<cpa::StatePtr> cands;
    for (const cpa::StatePtr& o : reached_.partition(*e)) {
      auto a = std::static_pointer_cast<const ArgState>(o);
      if (a.get() == e.get() || a->removed || a->id > e->id || !predOf(*a).isAbstraction) continue;
      if (predOf(*a).abstraction->isTrue()) continue;  // stop would have covered e
      cands.push_back(o);
    }
    // most recent first, a bounded number per attempt
    std::reverse(cands.begin(), cands.end());
    if (cands.size() > kMaxForcedCoveringCandidates) cands.resize(kMaxForcedCoveringCandidates);
    for (const cpa::StatePtr& o : cands) {
      auto c = std::static_pointer_cast<const ArgState>(o);
      if (c->removed || !reached_.contains(o)) continue;
      ++fcCandidates_;
      Term psiC = predOf(*c).abstraction;
      if (pred_.implies(pe.abstraction, psiC)) {
        coverBy(e, c);
        done = true;
        break;
      }
      auto theirs = abstractionAncestors(c.get());
      size_t k = 0;
      while (k < mine.size() && k < theirs.size() && mine[k] == theirs[k]) ++k;
      if (k == 0) continue;
      const ArgState* nca = mine[k - 1];
      std::vector<const ArgState*> chain(mine.begin() + static_cast<long>(k), mine.end());
      if (chain.empty()) continue;  // e is an ancestor of c (cannot happen: c is older)
      RefinementInput in;
      in.ssaBefore = predOf(*nca).pf.ssa.get();
      for (size_t j = 0; j < chain.size(); ++j) {
        Term b = predOf(*chain[j]).blockFormula;
        if (j == 0) b = tm_.mkAnd(predOf(*nca).abstractionInstantiated, b);
        if (j + 1 == chain.size()) b = tm_.mkAnd(b, tm_.mkNot(pfm_.instantiate(psiC, *predOf(*chain[j]).pf.ssa)));
        in.blocks.push_back(b);
        in.ssaAfter.push_back(predOf(*chain[j]).pf.ssa.get());
      }
      cexSolver_->push();
      cexSolver_->add(tm_.mkAnd(in.blocks));
      CheckResult r;
      try {
        r = check(*cexSolver_);
      } catch (...) {
        cexSolver_->pop();
        throw;
      }
      cexSolver_->pop();
      if (r != CheckResult::Unsat) continue;
      if (chain.size() > 1) {
        std::string why;
        auto seq = checkedSequence(in, why);
        if (!seq) continue;
        std::vector<const ArgState*> inner(chain.begin(), chain.end() - 1);
        if (!applySequence(inner, *seq)) {  // e became unreachable
          done = true;
          break;
        }
      }
      strengthen(e.get(), psiC);
      if (!reached_.contains(o) || c->removed) continue;
      if (getenv("ARGUS_DEBUG_PRED"))
        fprintf(stderr, "fcover #%llu by #%llu (nca #%llu, %zu blocks): %s\n", (unsigned long long)e->id,
                (unsigned long long)c->id, (unsigned long long)nca->id, chain.size(), psiC->str().substr(0, 300).c_str());
      coverBy(e, c);
      done = true;
      break;
    }
    fcTimeS_ += sw.elapsedS();
    if (done) ++fcSuccess_;
    return done;
  }

  void coverBy(const std::shared_ptr<const ArgState>& e, const std::shared_ptr<const ArgState>& c) {
    ArgState* x = const_cast<ArgState*>(e.get());
    x->coveredBy = const_cast<ArgState*>(c.get());
    x->coveredBy->covers.push_back(x);
    reached_.remove(e);
  }

  // Is the path through `parent` and `step` into `child` the one the model (of
  // cexSolver_) took? In the merged block formula it is the disjunct
  // extend(φ_parent, step) ∧ (indices unified with the child's), recomputed here
  // (extend is deterministic). By induction some parent of every state on a model
  // path qualifies, so a guided search normally succeeds with its first candidate.
  bool modelTakes(const ArgState* child, const ArgState* parent, const cfa::Step& step) {
    try {
      const auto& cpf = predOf(*child).pf;
      encoding::PathFormula ext = pfm_.extend(predOf(*parent).pf, step);
      Term f = ext.formula;
      for (auto& [k, idx] : cpf.ssa->entries())
        if (ext.ssa->index(k) != idx) f = tm_.mkAnd(f, tm_.mkEq(pfm_.indexed(k, idx), pfm_.current(k, *ext.ssa)));
      return cexSolver_->modelValue(f)->isTrue();
    } catch (const smt::SolverError&) {
      return false;
    }
  }

  // One ARG path from the root to `target`, re-encoded step by step and cut into
  // blocks at the abstraction states (ψ_0 conjoined to the first). Inside the longest
  // feasible prefix of blocks the path follows a model of that prefix, so it is
  // infeasible for the reason the whole counterexample is (not because of an
  // arbitrary inconsistent choice of branches); after it, first parents.
  RefinementInput singlePathInput(const ArgState* target, const std::vector<const ArgState*>& path,
                                  std::vector<std::shared_ptr<const encoding::SsaMap>>& keep) {
    // longest feasible prefix
    size_t feasibleBlocks = 0;
    cexSolver_->push();
    cexSolver_->add(predOf(*path[0]).abstractionInstantiated);
    for (size_t i = 1; i < path.size(); ++i) {
      cexSolver_->push();
      cexSolver_->add(predOf(*path[i]).blockFormula);
      if (check(*cexSolver_) != CheckResult::Sat) {
        cexSolver_->pop();
        break;
      }
      feasibleBlocks = i;
    }
    bool haveModel = feasibleBlocks > 0 && check(*cexSolver_) == CheckResult::Sat;
    std::unordered_map<uint64_t, size_t> blockIndex;  // block id -> index of its end in path
    for (size_t i = 0; i + 1 < path.size(); ++i) blockIndex[predOf(*path[i]).id] = i + 1;
    std::vector<const ArgState*> chain;
    std::vector<cfa::Step> steps;
    for (const ArgState* s = target; s;) {
      chain.push_back(s);
      if (s->parents.empty()) break;
      size_t pick = 0;
      const PredicateState& ps = predOf(*s);
      size_t blk = ps.isAbstraction ? 0 : blockIndex.count(ps.block) ? blockIndex[ps.block] : 0;
      if (ps.isAbstraction)
        for (size_t i = 1; i < path.size(); ++i)
          if (path[i] == s) blk = i;
      if (haveModel && blk >= 1 && blk <= feasibleBlocks)
        for (size_t j = 0; j < s->parents.size(); ++j)
          if (modelTakes(s, s->parents[j].first, s->parents[j].second)) {
            pick = j;
            break;
          }
      steps.push_back(s->parents[pick].second);
      s = s->parents[pick].first;
    }
    cexSolver_->pop(cexSolver_->depth());
    std::reverse(steps.begin(), steps.end());
    std::reverse(chain.begin(), chain.end());
    RefinementInput in;
    encoding::PathFormula pf = pfm_.empty();
    Term init = pfm_.instantiate(pfm_.initialCondition(), *pf.ssa);
    for (size_t j = 1; j < chain.size(); ++j) {
      pf = pfm_.extend(pf, steps[j - 1]);
      if (!predOf(*chain[j]).isAbstraction) continue;
      Term b = in.blocks.empty() ? tm_.mkAnd(init, pf.formula) : pf.formula;
      in.blocks.push_back(b);
      keep.push_back(pf.ssa);
      in.ssaAfter.push_back(pf.ssa.get());
      pf = pfm_.emptyWithSsa(pf);
    }
    return in;
  }

  // A single ARG path from the root to `target` whose path formula is satisfiable,
  // replayed; called while cexSolver_ holds the model of the whole counterexample.
  std::optional<result::Counterexample> concreteCounterexample(const ArgState* target) {
    // backward DFS over parents, guided by the model
    struct Frame {
      const ArgState* s;
      std::vector<std::pair<ArgState*, cfa::Step>> parents;
      size_t next = 0;
    };
    auto framesFor = [&](const ArgState* s) {
      Frame f{s, s->parents, 0};
      std::vector<int> score;
      for (auto& [p, st] : f.parents) score.push_back(modelTakes(s, p, st) ? 1 : 0);
      std::vector<size_t> order(f.parents.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
      std::vector<std::pair<ArgState*, cfa::Step>> sorted;
      for (size_t i : order) sorted.push_back(f.parents[i]);
      f.parents = std::move(sorted);
      return f;
    };
    std::vector<Frame> stack{framesFor(target)};
    std::vector<cfa::Step> steps;  // reversed
    int candidates = 0;
    smt::SolverOptions so;
    auto pathSolver = smt::makeSolver(opts_.solver, tm_, so);
    while (!stack.empty() && candidates < kMaxPathCandidates) {
      Frame& top = stack.back();
      if (top.s->parents.empty()) {
        ++candidates;
        ++pathCandidates_;
        std::vector<cfa::Step> forward(steps.rbegin(), steps.rend());
        if (auto cex = tryPath(forward, *pathSolver)) return cex;
        stack.pop_back();
        if (!steps.empty()) steps.pop_back();
        continue;
      }
      if (top.next == top.parents.size()) {
        stack.pop_back();
        if (!steps.empty()) steps.pop_back();
        continue;
      }
      auto [p, step] = top.parents[top.next++];
      steps.push_back(step);
      stack.push_back(framesFor(p));
    }
    throw Abort{"a feasible abstract error path was found but no concrete path could be extracted", "error"};
  }

  std::optional<result::Counterexample> tryPath(const std::vector<cfa::Step>& steps, smt::Solver& solver) {
    encoding::PathFormula pf = pfm_.empty();
    Term f = pfm_.instantiate(pfm_.initialCondition(), *pf.ssa);
    std::vector<Term> havocs, params;
    for (const cfa::Step& st : steps) {
      pf = pfm_.extend(pf, st);
      if (st.kind == cfa::StepKind::Edge) {
        const cfa::Edge& e = prog_.functions[st.func].edges[st.edge];
        if (e.kind == cfa::EdgeKind::Havoc && !cfa::isAccelerationCount(e)) havocs.push_back(pfm_.current(*e.lhs, *pf.ssa));
      } else if (st.kind == cfa::StepKind::Start) {
        for (cfa::VarId p : prog_.functions[st.toFunc].params) params.push_back(pfm_.current(p, *pf.ssa));
      }
    }
    f = tm_.mkAnd(f, pf.formula);
    solver.push();
    solver.add(f);
    CheckResult r = check(solver);
    if (r != CheckResult::Sat) {
      solver.pop();
      return std::nullopt;
    }
    result::ReplayInput in;
    for (Term p : params) in.nondets.push_back(smt::modelBits(solver, p));
    for (Term h : havocs) in.nondets.push_back(smt::modelBits(solver, h));
    if (opts_.corruptReplayForTest)
      for (cfa::Value& v : in.nondets) v ^= 0x5a5a5a5a;
    Term mem0 = pfm_.indexed(encoding::kMemKey, 0);
    uint32_t pw = prog_.ptrWidth;
    std::map<uint64_t, uint8_t> memCache;
    smt::TermManager& tm = tm_;
    in.initialMemory = [&](uint64_t addr) -> std::optional<uint8_t> {
      auto it = memCache.find(addr);
      if (it != memCache.end()) return it->second;
      uint8_t v = static_cast<uint8_t>(solver.modelValue(tm.select(mem0, tm.bvVal(addr, pw)))->value);
      memCache[addr] = v;
      return v;
    };
    result::ReplayResult run = result::replay(cfa::original(prog_), entry_, in);
    run = withoutNeedlessNulls(cfa::original(prog_), entry_, in, std::move(run), 10'000'000);
    solver.pop();
    if (run.outcome != result::ReplayOutcome::ReachedError)
      throw Abort{std::string("error path found by the solver did not replay (") + result::outcomeName(run.outcome) +
                      (run.message.empty() ? "" : ": " + run.message) + ")",
                  "replay-failed"};
    return counterexampleFromReplay(cfa::original(prog_), entry_, run);
  }

  // Conditional model checking: an unknown run still says what it verified, from the
  // ARG (cmc/assumptions.h): states still waiting and undecided targets are open.
  void attachCondition(VerificationResult& r) {
    constexpr size_t kMaxDescribedAbstractions = 50;
    size_t described = 0;
    BuiltCondition b = buildCondition(
        prog_, prog_.functions[entry_].name, reached_, root_,
        [](const ArgState& n) -> std::optional<std::string> {
          auto* l = cpa::extract<cpa::LocationState>(n);
          auto* c = cpa::extract<cpa::CallstackState>(n);
          if (c && c->recursion) return std::string("recursive call (not decided)");
          if (l && l->property != cpa::Property::None)
            return std::string(cpa::propertyName(l->property)) + " target not decided";
          return std::nullopt;
        },
        [&described](const ArgState& n) {
          // printing abstractions is not free: the first few only; `false` (a stronger
          // assumption, so claiming less) for the rest
          const PredicateState& p = predOf(n);
          if (!p.isAbstraction || !p.abstraction || ++described > kMaxDescribedAbstractions) return std::string("false");
          std::string a = p.abstraction->str();
          if (a.size() > 200) a = a.substr(0, 200) + "...";
          return "!(" + a + ")";
        });
    r.condition.automaton = std::make_shared<result::AssumptionAutomaton>(b.automaton);
    r.condition.assumptions = b.formula;
    if (b.automaton.initial == result::AssumptionAutomaton::kOpen) return;  // nothing verified after all
    std::vector<std::string> items = summarizeOpen(prog_, b, r.reason == "timeout" ? "time limit" : r.reason);
    for (const std::string& e : r.condition.excluded)
      if (std::find(items.begin(), items.end(), e) == items.end()) items.push_back(e);
    r.condition.excluded = items;
    r.condition.summary = exceptSummary(items);
  }

  VerificationResult finish(VerificationResult r, const Stopwatch& total) {
    if (r.verdict == Verdict::Unknown && root_ && !opts_.bmcBound) attachCondition(r);
    return finishCounts(std::move(r), total);
  }

  VerificationResult finishCounts(VerificationResult r, const Stopwatch& total) {
    const auto& ps = pred_.stats();
    r.stats.solverQueries = absSolver_->stats().checks + cexSolver_->stats().checks + newton_.solverQueries() +
                            engine_->solverQueries() + sequenceChecks_;
    r.stats.solverTimeS = absSolver_->stats().checkTimeS + cexSolver_->stats().checkTimeS + newton_.solverTimeS() +
                          engine_->solverTimeS() + checkTimeS_;
    r.stats.extra["refiner_engine_failures"] = static_cast<double>(engineFailures_);
    if (opts_.bmcBound) r.stats.extra["bmc_infeasible_targets"] = static_cast<double>(infeasibleTargets_);
    if (opts_.impact) {
      r.stats.extra["impact_path_sequences_tried"] = static_cast<double>(pathSequenceAttempts_);
      r.stats.extra["impact_path_sequences_used"] = static_cast<double>(pathSequenceSuccesses_);
    }
    r.stats.extra["sequence_checks"] = static_cast<double>(sequenceChecks_);
    r.stats.extra["time_refiner_engine_s"] = engine_->solverTimeS();
    if (opts_.impact) {
      r.stats.extra["strengthened_states"] = static_cast<double>(strengthened_);
      r.stats.extra["uncovered_states"] = static_cast<double>(uncovered_);
      r.stats.extra["removed_false_states"] = static_cast<double>(removedFalse_);
      r.stats.extra["forced_covering_attempts"] = static_cast<double>(fcAttempts_);
      r.stats.extra["forced_covering_candidates"] = static_cast<double>(fcCandidates_);
      r.stats.extra["forced_coverings"] = static_cast<double>(fcSuccess_);
      r.stats.extra["time_forced_covering_s"] = fcTimeS_;
    }
    r.stats.formulaTerms = tm_.size();
    r.stats.extra["refinements"] = static_cast<double>(refinements_);
    r.stats.extra["monitor_cuts"] = static_cast<double>(cutCount_);
    r.stats.extra["refinement_cuts"] = static_cast<double>(refinementCuts_);
    r.stats.extra["refinement_failures"] = static_cast<double>(refinementFailures_);
    r.stats.extra["refinements_with_fallback"] = static_cast<double>(fallbackRefinements_);
    r.stats.extra["allsat_limit_raises"] = static_cast<double>(allSatEscalations_);
    r.stats.extra["abstractions"] = static_cast<double>(ps.abstractions);
    r.stats.extra["abstraction_cache_hits"] = static_cast<double>(ps.abstractionCacheHits);
    r.stats.extra["allsat_models"] = static_cast<double>(ps.allSatModels);
    r.stats.extra["cartesian_fallbacks"] = static_cast<double>(ps.cartesianFallbacks);
    r.stats.extra["abstraction_query_giveups"] = static_cast<double>(ps.queryGiveUps);
    r.stats.extra["coverage_checks"] = static_cast<double>(ps.implicationChecks);
    if (const cpa::BddRegions* regions = pred_.regions()) {
      r.stats.extra["bdd_coverage_checks"] = static_cast<double>(ps.bddImplications);
      r.stats.extra["bdd_regions"] = static_cast<double>(regions->regions());
    }
    r.stats.extra["arg_states_created"] = static_cast<double>(arg_.created());
    r.stats.extra["reached_states"] = static_cast<double>(reached_.size());
    r.stats.extra["predicates"] = static_cast<double>(maxPredicates_);
    r.stats.extra["counterexample_checks"] = static_cast<double>(cexChecks_);
    r.stats.extra["concrete_path_candidates"] = static_cast<double>(pathCandidates_);
    r.stats.extra["time_abstraction_s"] = ps.abstractionTimeS;
    r.stats.extra["time_coverage_s"] = ps.coverageTimeS;
    r.stats.extra["time_refinement_s"] = refineTimeS_;
    r.stats.extra["time_counterexample_s"] = cexTimeS_;
    r.stats.extra["time_analysis_s"] = total.elapsedS();
    return r;
  }
};

}  // namespace

namespace {
// An IEEE remainder of a format wider than float: its SMT circuit (fp.rem) has one step
// per exponent difference, 2,046 for a double, and neither solver stops building it at
// its time limit (session 27: `remainder(1e300, 7.0)` through globals ran 37 minutes at
// 5 GB with Z3; cvc5 alike). bmc folds such a remainder of constants before the solver;
// pred's path formulas keep the values in equations, so the solver would build it.
bool hasWideRemainder(const cfa::Expr& e) {
  if (e.kind == cfa::ExprKind::Binary && e.binop == cfa::BinOp::FRem && e.width > 32) return true;
  for (const cfa::ExprPtr& o : e.ops)
    if (o && hasWideRemainder(*o)) return true;
  return false;
}
}  // namespace

VerificationResult runPredicateAnalysis(const cfa::Program& prog, cfa::FuncId entry, const PredicateAnalysisOptions& opts) {
  // Floating-point operations are encoded exactly (SMT FloatingPoint, as bmc and kind
  // encode them): abstraction queries, counterexample checks and the refiners' formulas
  // may contain float terms, and predicates over them are as good as any (issue 20:
  // remainderf and fscanf_gen_double_read_lf are decided). Where a refiner cannot handle
  // such a path (no interpolant, no new predicate), the target is cut with that reason,
  // as for any other path. The one exception is the remainder of doubles (above): each
  // edge with one becomes an Unsupported edge naming it, so the analysis cuts those
  // paths (unknown if one is reachable) and still finds the bugs before them.
  auto wide = [](const cfa::ExprPtr& e) { return e && hasWideRemainder(*e); };
  auto edgeHasWide = [&](const cfa::Edge& e) {
    if (wide(e.cond) || wide(e.rhs) || wide(e.addr) || wide(e.value) || wide(e.size)) return true;
    for (const cfa::ExprPtr& a : e.args)
      if (wide(a)) return true;
    return false;
  };
  bool any = false;
  for (const cfa::Function& f : prog.functions)
    for (const cfa::Edge& e : f.edges) any = any || edgeHasWide(e);
  if (any) {
    cfa::Program cut = prog;
    for (cfa::Function& f : cut.functions)
      for (cfa::Edge& e : f.edges) {
        if (!edgeHasWide(e)) continue;
        e.text = "remainder of doubles '" + e.text + "' (predicate abstraction does not encode the IEEE remainder wider than float)";
        e.kind = cfa::EdgeKind::Unsupported;
      }
    PredicateRun run(cut, entry, opts);
    return run.run();
  }
  PredicateRun run(prog, entry, opts);
  return run.run();
}

VerificationResult runCpaBmc(const cfa::Program& prog, cfa::FuncId entry, PredicateAnalysisOptions opts,
                             uint32_t maxBound) {
  Stopwatch total;
  const double timeoutS = opts.timeoutS;
  opts.cpa.block = cpa::BlockOperator::Never;
  opts.impact = false;
  VerificationResult last;
  uint64_t queries = 0;
  double solverTime = 0;
  for (uint32_t k = 1;; ++k) {
    opts.bmcBound = k;
    if (timeoutS > 0) {
      double left = timeoutS - total.elapsedS();
      if (left <= 0.05) {
        last.verdict = Verdict::Unknown;
        last.reason = "timeout";
        break;
      }
      opts.timeoutS = left;
    }
    if (opts.progress) opts.progress("bmc-cpa: bound " + std::to_string(k));
    VerificationResult r = runPredicateAnalysis(prog, entry, opts);
    queries += r.stats.solverQueries;
    solverTime += r.stats.solverTimeS;
    r.stats.bound = k;
    bool deepen = r.verdict == Verdict::Unknown && r.condition.kind == "bound" && (maxBound == 0 || k < maxBound);
    if (!deepen) {
      if (r.verdict == Verdict::Unknown && r.condition.kind != "bound" && last.condition.kind == "bound") {
        // a later bound ran out of time: what the last complete bound verified stands
        r.condition = last.condition;
        r.stats.bound = last.stats.bound;
      }
      last = std::move(r);
      break;
    }
    last = std::move(r);
  }
  last.algorithm = "bmc-cpa";
  last.stats.solverQueries = queries;
  last.stats.solverTimeS = solverTime;
  return last;
}

}  // namespace argus::algorithms
