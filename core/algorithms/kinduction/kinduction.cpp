#include "core/algorithms/kinduction/kinduction.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "core/algorithms/bmc/bmc.h"
#include "core/algorithms/kinduction/segment_encoding.h"
#include "core/encoding/expr_encoder.h"
#include "core/support/deadline.h"

namespace argus::algorithms {

using cfa::EdgeKind;
using smt::CheckResult;
using smt::Term;

struct StepCase::Impl {
  const FlatProgram& fp;
  smt::TermManager tm;
  std::unique_ptr<smt::Solver> solver;
  SegmentEncoding seg;
  size_t reachAsserted = 0;                // seg.reaches[0..reachAsserted) are asserted
  struct Injected {
    Term lit;
    IntervalInvariant inv;
  };
  std::vector<Injected> invs;
  struct InjectedAffine {
    Term lit;
    AffineInvariant inv;
  };
  std::vector<InjectedAffine> affs;
  std::vector<Term> errLits;               // per segment: errLit => err

  Impl(const FlatProgram& f, smt::SolverKind kind) : fp(f), seg(f, tm) {
    smt::SolverOptions so;
    so.models = false;
    solver = smt::makeSolver(kind, tm, so);
    seg.onNewState = [this](size_t i) {
      for (const Injected& in : invs) assertInvariant(in, i);
      for (const InjectedAffine& in : affs) solver->add(tm.mkImplies(in.lit, seg.affineAt(in.inv, i)));
    };
    seg.start();
  }

  void encodeSegment() {
    seg.encodeNext([this](Term t) { solver->add(t); });
    Term lit = tm.freshVar("err", tm.boolSort());
    solver->add(tm.mkImplies(lit, seg.errs.back()));
    errLits.push_back(lit);
  }

  Term invariantAt(const IntervalInvariant& inv, size_t i) {
    const SegState& s = seg.states[i];
    std::vector<Term> conj;
    for (size_t c = 0; c < inv.atCut.size() && c < fp.cuts.size(); ++c) {
      const CutInvariant& ci = inv.atCut[c];
      Term at = tm.mkEq(seg.pcs[i], tm.bvVal(c, 32));
      if (ci.unreachable) {
        conj.push_back(tm.mkNot(at));
        continue;
      }
      std::vector<Term> alts;
      for (const auto& facts : ci.alternatives) {
        std::vector<Term> fs;
        for (const IntervalFact& f : facts) {
          Term x = f.isMem() ? seg.encoder().load(s.mem, tm.bvVal(f.addr, fp.prog->ptrWidth), f.width / 8)
                   : f.var < fp.vars.size() ? (*s.vars)[f.var]
                                            : s.brk;
          fs.push_back(tm.bvSle(tm.bvVal(static_cast<uint64_t>(f.itv.lo), f.width), x));
          fs.push_back(tm.bvSle(x, tm.bvVal(static_cast<uint64_t>(f.itv.hi), f.width)));
        }
        alts.push_back(tm.mkAnd(fs));
      }
      if (alts.empty()) continue;
      conj.push_back(tm.mkImplies(at, tm.mkOr(alts)));
    }
    return tm.mkAnd(conj);
  }

  void assertInvariant(const Injected& in, size_t i) { solver->add(tm.mkImplies(in.lit, invariantAt(in.inv, i))); }

  CheckResult check(uint32_t k, unsigned timeoutMs) {
    while (seg.errs.size() <= k) encodeSegment();
    while (reachAsserted < k) solver->add(seg.reaches[reachAsserted++]);
    std::vector<Term> assumptions{errLits[k]};
    for (const Injected& in : invs) assumptions.push_back(in.lit);
    for (const InjectedAffine& in : affs) assumptions.push_back(in.lit);
    solver->setTimeoutMs(timeoutMs);
    return solver->check(assumptions);
  }

  void inject(const IntervalInvariant& inv) {
    Injected in{tm.freshVar("inv", tm.boolSort()), inv};
    for (size_t i = 0; i < seg.states.size(); ++i) assertInvariant(in, i);
    invs.push_back(std::move(in));
  }

  void injectAffine(const AffineInvariant& inv) {
    InjectedAffine in{tm.freshVar("aff", tm.boolSort()), inv};
    for (size_t i = 0; i < seg.states.size(); ++i) solver->add(tm.mkImplies(in.lit, seg.affineAt(in.inv, i)));
    affs.push_back(std::move(in));
  }
};

StepCase::StepCase(const FlatProgram& fp, smt::SolverKind solver) : impl_(std::make_unique<Impl>(fp, solver)) {}
StepCase::~StepCase() = default;
CheckResult StepCase::check(uint32_t k, unsigned timeoutMs) { return impl_->check(k, timeoutMs); }
void StepCase::inject(const IntervalInvariant& inv) { impl_->inject(inv); }
void StepCase::injectAffine(const AffineInvariant& inv) { impl_->injectAffine(inv); }
size_t StepCase::injected() const { return impl_->invs.size() + impl_->affs.size(); }
uint64_t StepCase::queries() const { return impl_->solver->stats().checks; }
double StepCase::solverSeconds() const { return impl_->solver->stats().checkTimeS; }

// ------------------------------------------------------------------ driver

// The conjunction of single-alternative invariants, fact by fact (for reporting).
static IntervalInvariant meetAll(const std::vector<IntervalInvariant>& invs, size_t cuts) {
  IntervalInvariant m;
  m.atCut.resize(cuts);
  for (size_t c = 0; c < cuts; ++c) {
    std::map<std::tuple<FlatVar, uint64_t, uint32_t>, IntervalFact> facts;  // (var, cell address, width)
    bool unreachable = false, disjunctive = false;
    for (const IntervalInvariant& inv : invs) {
      if (c >= inv.atCut.size()) continue;
      const CutInvariant& ci = inv.atCut[c];
      if (ci.unreachable) unreachable = true;
      if (ci.alternatives.size() != 1) {
        disjunctive = disjunctive || ci.alternatives.size() > 1;
        continue;
      }
      for (const IntervalFact& f : ci.alternatives[0]) {
        auto key = std::make_tuple(f.var, f.addr, f.width);
        auto it = facts.find(key);
        if (it == facts.end()) facts.emplace(key, f);
        else {
          it->second.itv.lo = std::max(it->second.itv.lo, f.itv.lo);
          it->second.itv.hi = std::min(it->second.itv.hi, f.itv.hi);
          if (it->second.itv.lo > it->second.itv.hi) unreachable = true;
        }
      }
    }
    if (unreachable) {
      m.atCut[c].unreachable = true;
      continue;
    }
    std::vector<IntervalFact> fs;
    for (auto& [v, f] : facts) fs.push_back(f);
    m.atCut[c].alternatives.push_back(std::move(fs));
  }
  return m;
}

result::VerificationResult runKInduction(const cfa::Program& prog, cfa::FuncId entry, const KInductionOptions& opts) {
  auto wall0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(); };
  support::Deadline deadline = support::Deadline::in(opts.timeoutS);
  std::shared_ptr<const FlatProgram> fp = buildFlatProgram(prog, entry);
  std::string disabled = fp->unusable;
  if (disabled.empty() && fp->nodes.size() * (fp->vars.size() + 1) > 20'000'000) disabled = "inlined program too large";
  std::unique_ptr<StepCase> step;
  std::unique_ptr<IntervalGenerator> gen;
  std::vector<IntervalInvariant> injected;
  std::optional<AffineInvariant> affine;  // injected affine equalities
  uint64_t stepChecks = 0, stepSkipped = 0;
  uint32_t provedK = 0;
  double stepTime = 0;
  std::string stepNote;
  if (disabled.empty()) {
    try {
      step = std::make_unique<StepCase>(*fp, opts.solver);
    } catch (const std::exception& e) {
      disabled = e.what();
    }
  }
  if (step && opts.invariants) {
    gen = std::make_unique<IntervalGenerator>(fp);
    gen->start();
  }
  auto injectAvailable = [&](uint32_t k) {
    if (!gen || k < opts.holdInvariantsUntilK) return false;
    bool any = false;
    if (std::optional<AffineInvariant> aff = gen->takeAffine()) {
      step->injectAffine(*aff);
      if (opts.progress) {
        std::string msg = "k-induction: injected " + std::to_string(aff->count()) + " affine equalit" +
                          (aff->count() == 1 ? "y" : "ies");
        for (size_t c = 0; c < fp->cuts.size() && c < aff->atCut.size(); ++c)
          if (!aff->atCut[c].empty()) msg += "\n  at " + fp->describe(fp->cuts[c]) + ": " + affineString(*fp, aff->atCut[c]);
        opts.progress(msg);
      }
      affine = std::move(aff);
      any = true;
    }
    for (IntervalInvariant& inv : gen->take()) {
      step->inject(inv);
      if (opts.progress) {
        std::string msg = "k-induction: injected interval invariant (level " + std::to_string(inv.level) + ")";
        for (size_t c = 0; c < fp->cuts.size() && c < inv.atCut.size(); ++c)
          msg += "\n  at " + fp->describe(fp->cuts[c]) + ": " + formulaString(*fp, inv.atCut[c]);
        opts.progress(msg);
      }
      injected.push_back(std::move(inv));
      any = true;
    }
    return any;
  };

  BmcOptions bo = incrementalBmcOptions(opts, opts.invariants ? "kind" : "kind-noinv");
  if (step) {
    bo.inductiveStep = [&](uint32_t k) -> bool {
      if (!step) return false;
      try {
        if (gen && opts.waitForGenerator)
          while (!gen->finished() && !deadline.expired()) gen->waitForResult(50);
        injectAvailable(k);
        while (true) {
          if (deadline.expired()) return false;
          // The step case may use about as much time as everything else (plus a second),
          // so that the base case keeps finding bugs nearly as deep as plain BMC; when
          // its share is used up, it waits for a later k.
          double other = elapsed() - stepTime;
          double budget = 1.0 + other - stepTime;
          if (budget < 0.2) {
            ++stepSkipped;
            return false;
          }
          unsigned ms = static_cast<unsigned>(budget * 1000);
          if (!deadline.isNever()) ms = std::min(ms, deadline.remainingMs());
          auto t0 = std::chrono::steady_clock::now();
          CheckResult r = step->check(k, ms);
          stepTime += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          ++stepChecks;
          if (opts.progress)
            opts.progress("k-induction: step case k=" + std::to_string(k) + " with " +
                          std::to_string(step->injected()) + " invariant(s): " + smt::checkResultName(r));
          if (r == CheckResult::Unsat) {
            provedK = k;
            return true;
          }
          // a stronger invariant arrived while the step case ran: try again at once
          if (!injectAvailable(k)) return false;
        }
      } catch (const smt::SolverError& e) {
        stepNote = std::string("step case: solver error: ") + e.what();
        step.reset();
        return false;
      }
    };
  }
  result::VerificationResult r = runBmc(prog, entry, bo);
  if (gen) gen->stop();
  r.algorithm = opts.invariants ? "kind" : "kind-noinv";
  if (!disabled.empty()) {
    r.stats.extra["step_case_disabled"] = 1;
    std::string note = "k-induction step case disabled (" + disabled + "): bmc only";
    if (r.verdict == result::Verdict::Unknown) r.reason = r.reason.empty() ? note : r.reason + "; " + note;
    if (opts.progress) opts.progress(note);
  }
  if (!stepNote.empty() && r.verdict == result::Verdict::Unknown) r.reason += "; " + stepNote;
  r.stats.extra["step_checks"] = static_cast<double>(stepChecks);
  r.stats.extra["step_time_s"] = stepTime;
  r.stats.extra["step_skipped"] = static_cast<double>(stepSkipped);
  r.stats.extra["invariants_injected"] = static_cast<double>(injected.size());
  if (affine) r.stats.extra["affine_equalities"] = static_cast<double>(affine->count());
  if (gen && gen->affineSeconds() > 0) r.stats.extra["affine_time_s"] = gen->affineSeconds();
  if (step) {
    r.stats.solverQueries += step->queries();
    r.stats.solverTimeS += step->solverSeconds();
  }
  if (provedK) {
    r.stats.extra["induction_k"] = provedK;
    if (!injected.empty()) {
      IntervalInvariant m = meetAll(injected, fp->cuts.size());
      for (size_t c = 0; c < fp->cuts.size(); ++c)
        r.invariant[fp->describe(fp->cuts[c])] = formulaString(*fp, m.atCut[c]);
    }
    if (affine)
      for (size_t c = 0; c < fp->cuts.size() && c < affine->atCut.size(); ++c) {
        if (affine->atCut[c].empty()) continue;
        std::string& f = r.invariant[fp->describe(fp->cuts[c])];
        if (f == "false") continue;
        f = (f.empty() || f == "true" ? "" : f + " && ") + affineString(*fp, affine->atCut[c]);
      }
  }
  return r;
}

result::VerificationResult runIntervalAnalysis(const cfa::Program& prog, cfa::FuncId entry,
                                               const KInductionOptions& opts) {
  result::VerificationResult r;
  r.algorithm = "ai";
  r.solver = "none";
  support::Deadline deadline = support::Deadline::in(opts.timeoutS);
  std::shared_ptr<const FlatProgram> fp = buildFlatProgram(prog, entry);
  auto unknown = [&](const std::string& why) {
    r.verdict = result::Verdict::Unknown;
    r.reason = why;
    r.condition.kind = "unsupported";
    r.condition.summary = "nothing verified";
    return r;
  };
  if (!fp->unusable.empty()) return unknown("abstract interpretation not applicable: " + fp->unusable);
  // the analysis polls `stop`; a watchdog sets it at the deadline
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog;
  if (!deadline.isNever())
    watchdog = std::thread([&] {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait_until(lk, deadline.at(), [&] { return done; });
      stop.store(true);
    });
  std::optional<IntervalInvariant> proof;
  int levels = 0;
  for (int level = 0; level <= 2 && !stop.load(); ++level) {
    auto inv = computeIntervals(*fp, level, &stop);
    if (!inv) continue;
    ++levels;
    if (opts.progress) opts.progress("intervals: level " + std::to_string(level) + (inv->errorUnreachable ? ": error unreachable" : ": error not excluded"));
    if (inv->errorUnreachable) {
      proof = std::move(inv);
      break;
    }
  }
  {
    std::lock_guard<std::mutex> lk(mu);
    done = true;
  }
  cv.notify_all();
  if (watchdog.joinable()) watchdog.join();
  r.stats.extra["ai_levels"] = levels;
  if (!proof) return unknown(deadline.expired() ? "timeout" : "the interval analysis does not exclude the error");
  r.verdict = result::Verdict::True;
  r.condition.kind = "none";
  r.condition.summary = "verified by interval analysis (level " + std::to_string(proof->level) + ")";
  for (size_t c = 0; c < fp->cuts.size(); ++c) r.invariant[fp->describe(fp->cuts[c])] = formulaString(*fp, proof->atCut[c]);
  return r;
}

}  // namespace argus::algorithms
