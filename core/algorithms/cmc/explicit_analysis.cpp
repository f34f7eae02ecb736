#include "core/algorithms/cmc/explicit_analysis.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/algorithms/cmc/assumptions.h"
#include "core/algorithms/common/counterexample.h"
#include "core/algorithms/common/cpa_algorithm.h"
#include "core/algorithms/common/path_replay.h"
#include "core/cpa/arg_cpa.h"
#include "core/cpa/automaton_cpa.h"
#include "core/cpa/callstack_cpa.h"
#include "core/cpa/composite_cpa.h"
#include "core/cpa/explicit_cpa.h"
#include "core/cpa/location_cpa.h"
#include "core/support/deadline.h"
#include "core/support/stopwatch.h"

namespace argus::algorithms {

using cpa::ArgState;
using result::Verdict;
using result::VerificationResult;

namespace {

constexpr size_t kMaxSummaryItems = 6;
constexpr size_t kMaxPsiFacts = 8;

class ExplicitRun {
public:
  ExplicitRun(const cfa::Program& prog, cfa::FuncId entry, const ExplicitAnalysisOptions& opts)
      : prog_(prog),
        entry_(entry),
        opts_(opts),
        deadline_(support::Deadline::in(opts.timeoutS)),
        cf_(prog, entry),
        loc_(cf_),
        cs_(cf_),
        val_(prog, opts.monitorArithmetic),
        mon_(cf_, opts.pathLimits),
        asm_(),
        reached_(cpa::WaitlistOrder::Dfs, partitionKey()) {
    std::vector<cpa::ConfigurableProgramAnalysis*> parts{&loc_, &cs_, &val_, &mon_, &asm_};
    if (opts.condition) {
      aut_ = std::make_unique<cpa::AutomatonCpa>(*opts.condition);
      parts.push_back(aut_.get());
    }
    comp_ = std::make_unique<cpa::CompositeCpa>(parts);
    arg_ = std::make_unique<cpa::ArgCpa>(*comp_);
  }

  VerificationResult run() {
    VerificationResult r;
    r.algorithm = "explicit";
    r.solver = smt::solverName(opts_.solver);
    Stopwatch total;
    cpa::StatePtr init = arg_->initialState();
    reached_.add(init, arg_->initialPrecision());
    arg_->onAdded(init);
    root_ = static_cast<const ArgState*>(init.get());
    CpaAlgorithmOptions co;
    co.deadline = deadline_;
    co.maxStates = opts_.maxStates;
    co.maxMemoryMb = opts_.maxMemoryMb;
    co.maxEdgePosts = opts_.maxEdgePosts;
    co.edgePosts = &edgePosts_;
    co.maxTimePerPostMs = opts_.maxTimePerPostMs;
    co.onCut = [this](const cpa::StatePtr& s, const std::string& why) {
      auto* a = static_cast<const ArgState*>(s.get());
      if (a->cut.empty()) a->cut = why;
      ++cuts_;
    };
    co.describeStep = [this](const cfa::Step& st) { return "at " + edgeWhere(st.cfaEdge(prog_)); };
    std::string stopped;  // why the exploration ended early ("" = waitlist empty)
    while (true) {
      CpaRunResult cr = runCpaAlgorithm(*arg_, reached_, co);
      expanded_ += cr.expanded;
      if (cr.status == CpaStatus::Completed) break;
      if (cr.status == CpaStatus::Interrupted) {
        stopped = cr.reason == "timeout" ? "time limit" : cr.reason;
        break;
      }
      const auto* t = static_cast<const ArgState*>(cr.target.get());
      auto* l = cpa::extract<cpa::LocationState>(*t);
      auto* c = cpa::extract<cpa::CallstackState>(*t);
      if (l->property == cpa::Property::Error) {
        PathReplay pr = checkAndReplayPath(prog_, entry_, pathTo(t), opts_.solver, deadline_, opts_.corruptReplayForTest);
        solverQueries_ += pr.solverQueries;
        solverTimeS_ += pr.solverTimeS;
        ++errorPaths_;
        if (pr.status == PathReplay::Status::Replayed) {
          r.verdict = Verdict::False;
          r.counterexample = std::move(pr.counterexample);
          r.condition.kind = "none";
          r.condition.summary = "error reachable";
          buildOutput(r, /*summarise=*/false);
          return finish(std::move(r), total);
        }
        if (pr.status == PathReplay::Status::Infeasible) {
          ++infeasiblePaths_;
          openTargets_[t] = "error location " + edgeWhere(l->via) +
                            " reached on an abstract path that is infeasible (explicit values cannot refute it)";
        } else {
          openTargets_[t] = "error location " + edgeWhere(l->via) + ": " + pr.reason;
          if (pr.reason == "timeout") {
            stopped = "time limit";
            break;
          }
        }
        continue;
      }
      if (c && c->recursion) {
        const cfa::Edge& call = prog_.functions[c->caller].edges[c->callEdge];
        openTargets_[t] = "recursive call of " + prog_.functions[c->func].name + " at " + edgeWhere(&call);
      } else {
        openTargets_[t] = "unsupported: " + (l->via ? l->via->text : std::string("construct")) + " at " + edgeWhere(l->via);
      }
    }
    stopped_ = stopped;
    buildOutput(r, true);
    if (built_.open.empty() && stopped.empty()) {
      r.verdict = Verdict::True;
      r.condition.kind = "none";
      r.condition.summary = opts_.condition ? "verified: every part the input condition left open was explored"
                                            : "verified: the explicit-value state space is closed";
    } else {
      r.verdict = Verdict::Unknown;
      r.condition.kind = "assumption";
      r.reason = stopped.empty() ? "not everything verified: " + built_.open.front().reason : "stopped: " + stopped;
    }
    return finish(std::move(r), total);
  }

private:
  const cfa::Program& prog_;
  cfa::FuncId entry_;
  ExplicitAnalysisOptions opts_;
  support::Deadline deadline_;
  cpa::ControlFlow cf_;
  cpa::LocationCpa loc_;
  cpa::CallstackCpa cs_;
  cpa::ExplicitCpa val_;
  cpa::PathMonitorCpa mon_;
  cpa::AssumptionStorageCpa asm_;
  std::unique_ptr<cpa::AutomatonCpa> aut_;
  std::unique_ptr<cpa::CompositeCpa> comp_;
  std::unique_ptr<cpa::ArgCpa> arg_;
  cpa::ReachedSet reached_;
  const ArgState* root_ = nullptr;
  std::unordered_map<const ArgState*, std::string> openTargets_;
  std::string stopped_;
  BuiltCondition built_;
  uint64_t expanded_ = 0, solverQueries_ = 0, errorPaths_ = 0, infeasiblePaths_ = 0, cuts_ = 0;
  EdgePostCounts edgePosts_;  // busy edge, over all CPA++ calls of the run
  double solverTimeS_ = 0;

  static cpa::ReachedSet::KeyFn partitionKey() {
    return [](const cpa::AbstractState& s) -> uint64_t {
      auto* l = cpa::extract<cpa::LocationState>(s);
      auto* c = cpa::extract<cpa::CallstackState>(s);
      auto* v = cpa::extract<cpa::ExplicitState>(s);
      uint64_t h = (static_cast<uint64_t>(l->func) << 40) ^ (static_cast<uint64_t>(l->loc) << 8) ^
                   static_cast<uint64_t>(l->property);
      (void)v;
      return h ^ (c->hash * 0x9e3779b97f4a7c15ull);
    };
  }

  std::vector<cfa::Step> pathTo(const ArgState* t) const {
    std::vector<cfa::Step> steps;
    for (const ArgState* s = t; !s->parents.empty(); s = s->parents.front().first) steps.push_back(s->parents.front().second);
    std::reverse(steps.begin(), steps.end());
    return steps;
  }

  std::string describe(const ArgState& n) const {
    auto* v = cpa::extract<cpa::ExplicitState>(n);
    if (!v || v->vars->empty()) return "false";
    std::string psi = "!(";
    size_t k = 0;
    for (auto& [var, x] : *v->vars) {
      if (k == kMaxPsiFacts) {
        psi += " && ...";
        break;
      }
      const cfa::Variable& vd = prog_.vars[var];
      int64_t shown = static_cast<int64_t>(x);
      std::string val = std::to_string(x);
      if (vd.isSigned && vd.width < 64 && (x >> (vd.width - 1)) & 1) {
        shown = static_cast<int64_t>(x | (~uint64_t{0} << vd.width));
        val = std::to_string(shown);
      } else if (vd.isSigned && vd.width == 64) {
        val = std::to_string(shown);
      }
      psi += (k ? " && " : "") + vd.name + " == " + val;
      ++k;
    }
    return psi + ")";
  }

  void buildOutput(VerificationResult& r, bool summarise) {
    built_ = buildCondition(
        prog_, prog_.functions[entry_].name, reached_, root_,
        [&](const ArgState& n) -> std::optional<std::string> {
          auto it = openTargets_.find(&n);
          if (it != openTargets_.end()) return it->second;
          return std::nullopt;
        },
        [&](const ArgState& n) { return describe(n); });
    r.condition.automaton = std::make_shared<result::AssumptionAutomaton>(built_.automaton);
    r.condition.assumptions = built_.formula;
    if (!summarise) return;
    // human summary: one item per loop / kind of cut / open target
    std::vector<std::string> items;
    auto add = [&](const std::string& s) {
      if (std::find(items.begin(), items.end(), s) == items.end()) items.push_back(s);
    };
    size_t waiting = 0;
    std::string firstWaiting;
    for (const OpenPart& o : built_.open) {
      auto* l = cpa::extract<cpa::LocationState>(*o.node);
      std::string where = l ? locationWhere(prog_, l->func, l->loc) : "?";
      auto* as = cpa::extract<cpa::AssumptionState>(*o.node);
      if (openTargets_.count(o.node)) {
        add(o.reason);
      } else if (!o.node->cut.empty()) {
        add(o.reason);
      } else if (as && as->excluded) {
        switch (as->limit) {
          case cpa::PathLimit::Repeats:
            add("the loop at " + where + " beyond " + std::to_string(opts_.pathLimits.maxRepeats - 1) + " iterations");
            break;
          case cpa::PathLimit::PathLength:
            add("paths longer than " + std::to_string(opts_.pathLimits.maxPathLength) + " steps (cut at " + where + ")");
            break;
          case cpa::PathLimit::AssumeEdges:
            add("paths with more than " + std::to_string(opts_.pathLimits.maxAssumeEdges) + " assume edges (cut at " +
                where + ")");
            break;
          case cpa::PathLimit::StatesPerLocation:
            add("states beyond " + std::to_string(opts_.pathLimits.maxStatesPerLocation) + " per location at " + where);
            break;
          case cpa::PathLimit::Overflow:
          case cpa::PathLimit::NonLinear: add(as->reason); break;  // "the path through f.c:L where ..."
          case cpa::PathLimit::None: add(as->reason + " at " + where); break;
        }
      } else {
        if (!waiting++) firstWaiting = where;
      }
    }
    if (waiting)
      items.push_back(std::to_string(waiting) + " state" + (waiting > 1 ? "s" : "") + " not explored when the " +
                      (stopped_.empty() ? "analysis" : stopped_) + " stopped it (first at " + firstWaiting + ")");
    r.condition.excluded = items;
    if (items.empty()) return;
    std::string s = "verified except: ";
    for (size_t i = 0; i < items.size() && i < kMaxSummaryItems; ++i) s += (i ? "; " : "") + items[i];
    if (items.size() > kMaxSummaryItems) s += "; and " + std::to_string(items.size() - kMaxSummaryItems) + " more";
    r.condition.summary = s;
  }

  VerificationResult finish(VerificationResult r, const Stopwatch& total) {
    r.stats.solverQueries = solverQueries_;
    r.stats.solverTimeS = solverTimeS_;
    r.stats.extra["arg_states_created"] = static_cast<double>(arg_->created());
    r.stats.extra["reached_states"] = static_cast<double>(reached_.size());
    r.stats.extra["expanded_states"] = static_cast<double>(expanded_);
    r.stats.extra["error_paths_checked"] = static_cast<double>(errorPaths_);
    r.stats.extra["infeasible_error_paths"] = static_cast<double>(infeasiblePaths_);
    r.stats.extra["open_parts"] = static_cast<double>(built_.open.size());
    r.stats.extra["monitor_cuts"] = static_cast<double>(cuts_);
    r.stats.extra["automaton_states"] = static_cast<double>(built_.automaton.ordinaryStates());
    r.stats.extra["time_analysis_s"] = total.elapsedS();
    return r;
  }
};

}  // namespace

VerificationResult runExplicitAnalysis(const cfa::Program& prog, cfa::FuncId entry, const ExplicitAnalysisOptions& opts) {
  ExplicitRun run(prog, entry, opts);
  return run.run();
}

}  // namespace argus::algorithms
