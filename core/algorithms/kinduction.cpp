#include "core/algorithms/kinduction.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "core/algorithms/bmc.h"
#include "core/encoding/expr_encoder.h"
#include "core/support/deadline.h"

namespace argus::algorithms {

using cfa::EdgeKind;
using smt::CheckResult;
using smt::Term;

namespace {
struct SymState {
  std::shared_ptr<const std::vector<Term>> vars;  // per flat variable
  Term mem = nullptr, brk = nullptr;
};
}  // namespace

struct StepCase::Impl {
  const FlatProgram& fp;
  const cfa::Program& prog;
  smt::TermManager tm;
  std::unique_ptr<smt::Solver> solver;
  encoding::ExprEncoder enc;
  std::vector<uint32_t> order;  // topological order of the segment DAG
  std::vector<SymState> states;            // s_0, s_1, ... (loop-head states)
  std::vector<Term> pcs;                   // pc of each state (32-bit)
  std::vector<Term> errs;                  // per encoded segment: it reaches an error
  std::vector<Term> reaches;               // per encoded segment: it reaches a loop head
  size_t reachAsserted = 0;                // reaches[0..reachAsserted) are asserted
  struct Injected {
    Term lit;
    IntervalInvariant inv;
  };
  std::vector<Injected> invs;
  std::vector<Term> errLits;               // per segment: errLit => err

  Impl(const FlatProgram& f, smt::SolverKind kind) : fp(f), prog(*f.prog), enc(tm, f.prog->ptrWidth) {
    smt::SolverOptions so;
    so.models = false;
    solver = smt::makeSolver(kind, tm, so);
    // segment DAG: all flat edges except those entering a loop head
    size_t nn = fp.nodes.size();
    std::vector<uint32_t> indeg(nn, 0);
    for (const FlatEdge& e : fp.edges)
      if (fp.nodes[e.to].cut < 0) ++indeg[e.to];
    std::vector<uint32_t> ready;
    for (uint32_t n = 0; n < nn; ++n)
      if (indeg[n] == 0) ready.push_back(n);
    while (!ready.empty()) {
      uint32_t n = ready.back();
      ready.pop_back();
      order.push_back(n);
      for (uint32_t ei : fp.nodes[n].out) {
        uint32_t t = fp.edges[ei].to;
        if (fp.nodes[t].cut < 0 && --indeg[t] == 0) ready.push_back(t);
      }
    }
    if (order.size() != nn) throw std::logic_error("StepCase: a cycle without a loop head");
    addState();
  }

  Term freshState(SymState& s, const std::string& tag) {
    auto vars = std::make_shared<std::vector<Term>>();
    vars->reserve(fp.vars.size());
    for (size_t i = 0; i < fp.vars.size(); ++i)
      vars->push_back(tm.freshVar(prog.vars[fp.vars[i].var].name + tag, tm.bvSort(fp.vars[i].width)));
    s.vars = vars;
    s.mem = tm.freshVar("mem" + tag, enc.memSort());
    s.brk = tm.freshVar("brk" + tag, tm.bvSort(prog.ptrWidth));
    return tm.freshVar("pc" + tag, tm.bvSort(32));
  }

  void addState() {
    SymState s;
    std::string tag = "@s" + std::to_string(states.size());
    Term pc = freshState(s, tag);
    states.push_back(std::move(s));
    pcs.push_back(pc);
    for (const Injected& in : invs) assertInvariant(in, states.size() - 1);
  }

  Term value(const SymState& s, uint32_t inst, cfa::VarId v) {
    FlatVar x = fp.varOf(inst, v);
    if (x == UINT32_MAX) return tm.freshVar(prog.vars[v].name + "!undef", tm.bvSort(prog.vars[v].width));
    return (*s.vars)[x];
  }
  void set(SymState& s, uint32_t inst, cfa::VarId v, Term t) {
    FlatVar x = fp.varOf(inst, v);
    if (x == UINT32_MAX) return;
    auto nv = std::make_shared<std::vector<Term>>(*s.vars);
    (*nv)[x] = t;
    s.vars = nv;
  }

  // Post-state and guard of a flat edge from (act, s).
  std::pair<Term, SymState> transfer(const FlatEdge& fe, Term act, const SymState& in) {
    SymState s = in;
    Term guard = act;
    switch (fe.kind) {
      case FlatEdge::Kind::Start: {
        for (cfa::VarId p : prog.functions[fp.entry].params)
          set(s, fe.calleeInst, p, tm.freshVar(prog.vars[p].name + "!nondet", tm.bvSort(prog.vars[p].width)));
        return {guard, s};
      }
      case FlatEdge::Kind::CallEnter: {
        const cfa::Function& callee = prog.functions[fe.edge->callee];
        encoding::Env env{[&](cfa::VarId v) { return value(in, fe.inst, v); }, in.mem};
        std::vector<Term> args;
        for (size_t i = 0; i < callee.params.size() && i < fe.edge->args.size(); ++i)
          args.push_back(enc.encode(fe.edge->args[i], env));
        auto nv = std::make_shared<std::vector<Term>>(*s.vars);
        for (FlatVar x : fp.instLocals[fe.calleeInst])
          (*nv)[x] = tm.freshVar(prog.vars[fp.vars[x].var].name + "!undef", tm.bvSort(fp.vars[x].width));
        for (size_t i = 0; i < callee.params.size(); ++i) {
          FlatVar x = fp.varOf(fe.calleeInst, callee.params[i]);
          if (x == UINT32_MAX) continue;
          (*nv)[x] = i < args.size() ? args[i] : tm.freshVar("arg!undef", tm.bvSort(fp.vars[x].width));
        }
        s.vars = nv;
        return {guard, s};
      }
      case FlatEdge::Kind::Return: {
        const cfa::Function& callee = prog.functions[fp.instances[fe.calleeInst].func];
        if (fe.edge->lhs) {
          uint32_t w = prog.vars[*fe.edge->lhs].width;
          Term rv = callee.retVar ? value(in, fe.calleeInst, *callee.retVar) : tm.freshVar("noret", tm.bvSort(w));
          set(s, fe.inst, *fe.edge->lhs, rv);
        }
        return {guard, s};
      }
      case FlatEdge::Kind::Cfa:
        break;
    }
    const cfa::Edge& e = *fe.edge;
    encoding::Env env{[&](cfa::VarId v) { return value(in, fe.inst, v); }, in.mem};
    switch (e.kind) {
      case EdgeKind::Assume: {
        Term c = enc.nonZero(enc.encode(e.cond, env));
        guard = tm.mkAnd(guard, e.positive ? c : tm.mkNot(c));
        break;
      }
      case EdgeKind::Assign:
        set(s, fe.inst, *e.lhs, enc.encode(e.rhs, env));
        break;
      case EdgeKind::Havoc:
        set(s, fe.inst, *e.lhs, tm.freshVar(prog.vars[*e.lhs].name + "!nondet", tm.bvSort(prog.vars[*e.lhs].width)));
        break;
      case EdgeKind::Store:
        s.mem = enc.store(s.mem, enc.encode(e.addr, env), enc.encode(e.value, env), e.bytes);
        break;
      case EdgeKind::Alloc: {
        Term size = enc.encode(e.size, env);
        Term base = s.brk;
        Term next = tm.bvAdd(base, enc.allocStep(size));
        if (!size->isConst() || size->value >= (uint64_t(1) << (prog.ptrWidth - 2)))
          guard = tm.mkAnd(guard, tm.bvUlt(base, next));
        set(s, fe.inst, *e.lhs, base);
        s.brk = next;
        if (e.zeroInit && size->isConst()) {
          cfa::forEachChunk(size->value, [&](uint64_t off, uint32_t chunk) {
            Term a = off ? tm.bvAdd(base, tm.bvVal(off, prog.ptrWidth)) : base;
            s.mem = enc.store(s.mem, a, tm.bvVal(0, chunk * 8), chunk);
          });
        }
        break;
      }
      default:
        break;  // Blank, Free, Return, Error, Abort
    }
    return {guard, s};
  }

  SymState merge(std::vector<std::pair<Term, SymState>>& posts) {
    if (posts.size() == 1) return posts[0].second;
    auto pick = [&](auto get) -> Term {
      Term r = get(posts.back().second);
      bool same = true;
      for (auto& p : posts)
        if (get(p.second) != r) same = false;
      if (same) return r;
      for (size_t i = posts.size() - 1; i-- > 0;) r = tm.mkIte(posts[i].first, get(posts[i].second), r);
      return r;
    };
    SymState s;
    auto vars = std::make_shared<std::vector<Term>>(fp.vars.size());
    for (size_t x = 0; x < fp.vars.size(); ++x) (*vars)[x] = pick([&](const SymState& st) { return (*st.vars)[x]; });
    s.vars = vars;
    s.mem = pick([](const SymState& st) { return st.mem; });
    s.brk = pick([](const SymState& st) { return st.brk; });
    return s;
  }

  // Encodes segment i from states[i]; creates states[i+1] and its defining constraints.
  void encodeSegment(size_t i) {
    const SymState& s0 = states[i];
    Term pc = pcs[i];
    size_t nn = fp.nodes.size();
    std::vector<std::vector<std::pair<Term, SymState>>> incoming(nn);
    std::vector<std::vector<std::pair<Term, SymState>>> exits(fp.cuts.size());
    std::vector<Term> errTaken;
    for (uint32_t n : order) {
      const FlatNode& node = fp.nodes[n];
      Term act;
      SymState st;
      if (node.cut >= 0) {
        act = tm.mkEq(pc, tm.bvVal(static_cast<uint64_t>(node.cut), 32));
        st = s0;
      } else {
        auto& in = incoming[n];
        if (in.empty()) continue;
        std::vector<Term> takens;
        for (auto& p : in) takens.push_back(p.first);
        act = tm.mkOr(takens);
        st = merge(in);
        in.clear();
        in.shrink_to_fit();
      }
      if (act->isFalse()) continue;
      for (uint32_t ei : node.out) {
        const FlatEdge& fe = fp.edges[ei];
        if (fe.kind == FlatEdge::Kind::Cfa &&
            (fe.edge->kind == EdgeKind::Error || fe.edge->kind == EdgeKind::Unsupported)) {
          errTaken.push_back(act);  // an unsupported construct counts as bad: the path may go on to an error
          continue;
        }
        if (fe.kind == FlatEdge::Kind::Cfa && fe.edge->kind == EdgeKind::Alloc && fe.edge->zeroInit) {
          encoding::Env env{[&](cfa::VarId v) { return value(st, fe.inst, v); }, st.mem};
          if (!enc.encode(fe.edge->size, env)->isConst()) {
            errTaken.push_back(act);  // not encodable (unsupported in the unwinding as well)
            continue;
          }
        }
        if (fe.kind == FlatEdge::Kind::Cfa && fe.edge->kind == EdgeKind::Abort) continue;
        auto post = transfer(fe, act, st);
        if (post.first->isFalse()) continue;
        int cut = fp.nodes[fe.to].cut;
        if (cut >= 0) exits[cut].push_back(std::move(post));
        else incoming[fe.to].push_back(std::move(post));
      }
    }
    addState();
    const SymState& next = states.back();
    Term npc = pcs.back();
    std::vector<Term> reach;
    for (size_t c = 0; c < exits.size(); ++c) {
      if (exits[c].empty()) continue;
      std::vector<Term> takens;
      for (auto& p : exits[c]) takens.push_back(p.first);
      Term taken = tm.mkOr(takens);
      SymState m = merge(exits[c]);
      std::vector<Term> eqs{tm.mkEq(npc, tm.bvVal(c, 32))};
      for (size_t x = 0; x < fp.vars.size(); ++x) eqs.push_back(tm.mkEq((*next.vars)[x], (*m.vars)[x]));
      eqs.push_back(tm.mkEq(next.mem, m.mem));
      eqs.push_back(tm.mkEq(next.brk, m.brk));
      solver->add(tm.mkImplies(taken, tm.mkAnd(eqs)));
      reach.push_back(taken);
    }
    errs.push_back(tm.mkOr(errTaken));
    reaches.push_back(tm.mkOr(reach));
    Term lit = tm.freshVar("err", tm.boolSort());
    solver->add(tm.mkImplies(lit, errs.back()));
    errLits.push_back(lit);
  }

  Term invariantAt(const IntervalInvariant& inv, size_t i) {
    const SymState& s = states[i];
    std::vector<Term> conj;
    for (size_t c = 0; c < inv.atCut.size() && c < fp.cuts.size(); ++c) {
      const CutInvariant& ci = inv.atCut[c];
      Term at = tm.mkEq(pcs[i], tm.bvVal(c, 32));
      if (ci.unreachable) {
        conj.push_back(tm.mkNot(at));
        continue;
      }
      std::vector<Term> alts;
      for (const auto& facts : ci.alternatives) {
        std::vector<Term> fs;
        for (const IntervalFact& f : facts) {
          Term x = f.var < fp.vars.size() ? (*s.vars)[f.var] : s.brk;
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
    while (errs.size() <= k) encodeSegment(errs.size());
    while (reachAsserted < k) solver->add(reaches[reachAsserted++]);
    std::vector<Term> assumptions{errLits[k]};
    for (const Injected& in : invs) assumptions.push_back(in.lit);
    solver->setTimeoutMs(timeoutMs);
    return solver->check(assumptions);
  }

  void inject(const IntervalInvariant& inv) {
    Injected in{tm.freshVar("inv", tm.boolSort()), inv};
    for (size_t i = 0; i < states.size(); ++i) assertInvariant(in, i);
    invs.push_back(std::move(in));
  }
};

StepCase::StepCase(const FlatProgram& fp, smt::SolverKind solver) : impl_(std::make_unique<Impl>(fp, solver)) {}
StepCase::~StepCase() = default;
CheckResult StepCase::check(uint32_t k, unsigned timeoutMs) { return impl_->check(k, timeoutMs); }
void StepCase::inject(const IntervalInvariant& inv) { impl_->inject(inv); }
size_t StepCase::injected() const { return impl_->invs.size(); }
uint64_t StepCase::queries() const { return impl_->solver->stats().checks; }
double StepCase::solverSeconds() const { return impl_->solver->stats().checkTimeS; }

// ------------------------------------------------------------------ driver

// The conjunction of single-alternative invariants, fact by fact (for reporting).
static IntervalInvariant meetAll(const std::vector<IntervalInvariant>& invs, size_t cuts) {
  IntervalInvariant m;
  m.atCut.resize(cuts);
  for (size_t c = 0; c < cuts; ++c) {
    std::map<FlatVar, IntervalFact> facts;
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
        auto it = facts.find(f.var);
        if (it == facts.end()) facts.emplace(f.var, f);
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

  BmcOptions bo;
  bo.incremental = true;
  bo.solver = opts.solver;
  bo.timeoutS = opts.timeoutS;
  bo.maxBound = opts.maxBound;
  bo.progress = opts.progress;
  bo.corruptReplayForTest = opts.corruptReplayForTest;
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
