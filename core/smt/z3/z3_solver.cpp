#include "core/smt/z3/z3_solver.h"

#include <z3++.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <unistd.h>

#include "core/smt/solver_base.h"
#include "core/smt/translate.h"
#include "core/support/large_stack.h"
#include "core/support/watchdog.h"

namespace argus::smt {

namespace {

class Z3Solver final : public SolverBase {
public:
  Z3Solver(TermManager& tm, const SolverOptions& opts)
      : tm_(tm), solver_(ctx_), params_(ctx_), oneShot_(opts.oneShotChecks), oneShotAfter_(opts.oneShotAfterUnits) {
    params_.set("model", opts.models);
    params_.set("unsat_core", opts.unsatCores);
    if (opts.timeoutMs) params_.set("timeout", opts.timeoutMs);
    solver_.set(params_);
    timeoutMs_ = opts.timeoutMs;
  }
  // Z3 allocates while it frees a context, and its memory cap (setSolverMemoryLimitMb)
  // would throw out of that destructor (noexcept: the process aborts) when the context
  // is over the cap: the cap is lifted until the members are gone (CapBack restores it).
  ~Z3Solver() override {
    if (solverMemoryLimitMb()) setZ3MemoryLimitMb(0);
  }
  SolverKind kind() const override { return SolverKind::Z3; }
  std::string reasonUnknown() const override { return reason_; }
  void setTimeoutMs(unsigned ms) override {
    z3::params p(ctx_);
    p.set("timeout", ms ? ms : 4294967295u);
    params_.set("timeout", ms ? ms : 4294967295u);
    solver_.set(p);
    timeoutMs_ = ms;
  }
  bool setResourceLimit(unsigned units) override {
    if (units == rlimit_) return true;  // pred sets it before every check; setting is not free
    z3::params p(ctx_);
    p.set("rlimit", units);
    params_.set("rlimit", units);
    solver_.set(p);
    rlimit_ = units;
    return true;
  }
  // Z3 4.8.12: an interrupt that finds no check running is not lost: it stays pending in
  // the context, and an assertion added while it is pending is lost: the next check
  // answers sat, even for an unsat formula (tests/unit/smt/test_smt.cpp,
  // ChecksAfterAnInterruptAreAnswered; with z3++ alone: push, check, pop,
  // Z3_interrupt, add x*x == 2 over 8 bits, check: sat). Such an interrupt can happen (the
  // watchdog fires as a check ends; a caller interrupts between checks). So interrupts
  // are counted, and before any operation on the solver a pending one is absorbed by a
  // throw-away solver's check (which clears it: measured on 4.8.12); a check during which
  // one came answers unknown, whatever Z3 said. The watchdog's cannot come later than
  // that: disarm() waits for a running fire. Left: another thread's interrupt() racing an
  // add() or push() on this one (the contract is to interrupt a running check).
  void interrupt() override {
    ++interrupts_;
    ctx_.interrupt();
  }
  void setOneShotAtOnce(bool on) override { oneShotAtOnce_ = on; }
  Term interpolant(Term, Term) override {
    reason_ = "interpolation is not supported by z3 4.8.12";
    return nullptr;
  }

protected:
  void pushImpl() override {
    settle();
    guarded([&] { solver_.push(); });
  }
  void popImpl(unsigned n) override {
    settle();
    guarded([&] { solver_.pop(n); });
    // the popped assertions' AST ids may be reused by new terms: forget every guard
    // (what is left is copied whole into a one-shot check, as before addGuarded)
    guardOf_.clear();
  }
  // Z3 recurses over term structure in places; deep formulas run on a large stack.
  void addImpl(Term f) override {
    settle();
    guarded([&] { runOnLargeStack([&] { solver_.add(toZ3(f)); }); });
  }
  // The implication is asserted as it is; its AST id and the guard's are kept so that a
  // one-shot check can leave it out when the guard is not assumed (Solver::addGuarded).
  void addGuardedImpl(Term guard, Term f) override {
    settle();
    guarded([&] {
      runOnLargeStack([&] {
        z3::expr g = toZ3(guard);
        z3::expr imp = z3::implies(g, toZ3(f));
        solver_.add(imp);
        guardOf_[Z3_get_ast_id(ctx_, imp)] = Z3_get_ast_id(ctx_, g);
      });
    });
  }
  // A check past its time limit by more than the grace is interrupted (support/watchdog.h).
  // Z3 then stops at its next cancellation point. The interrupt is what its own timer does,
  // so a check deaf to both runs on until it reaches one. Measured on pred's atexit test
  // under load: one interrupted check came back 14 s after the interrupt, and the runs
  // ended at their 60 s deadline, where before half were still running at 120 s.
  CheckResult checkImpl(std::span<const Term> assumptions) override {
    CheckResult r = CheckResult::Unknown;
    settle();
    const unsigned seen = absorbed_;
    const bool watched = timeoutMs_ != 0 && timeoutMs_ != 4294967295u;
    if (watched) {
      watchdog_.arm(support::Watchdog::Clock::now() + std::chrono::milliseconds(uint64_t(timeoutMs_) + overrunGraceMs()));
    }
    unsigned before = watched ? watchdog_.firings() : 0;
    runOnLargeStack([&] { r = checkOnStack(assumptions); });
    bool fired = false;
    if (watched) {
      watchdog_.disarm();  // no fire after this
      fired = watchdog_.firings() != before;
    }
    if (unsigned now = interrupts_.load(); now != seen) {
      // interrupted: whatever Z3 answered may come from the interrupt (see interrupt())
      if (r != CheckResult::Unknown) {
        r = CheckResult::Unknown;
        reason_ = fired ? "timeout" : "interrupted";
      }
      absorbInterrupts(now);
    }
    if (fired) {
      ++stats_.overruns;
      if (r == CheckResult::Unknown) reason_ = "timeout";
      dumpOverrun(assumptions);
    }
    return r;
  }
  void settle() {
    if (unsigned n = interrupts_.load(); n != absorbed_) absorbInterrupts(n);
  }
  void absorbInterrupts(unsigned upTo) {
    try {
      z3::solver sink(ctx_);
      sink.check();
    } catch (const z3::exception&) {
    }
    absorbed_ = upTo;
  }
  unsigned overrunGraceMs() const { return std::max(1000u, timeoutMs_ / 4); }
  CheckResult checkOnStack(std::span<const Term> assumptions) {
    try {
      z3::expr_vector as(ctx_);
      for (Term a : assumptions) as.push_back(toZ3(a));
      dumpQuery(as);
      // SolverOptions::oneShotChecks: the solver itself within oneShotAfter_ units, then
      // (when those run out, and the assertions have arrays) a fresh solver within the
      // solver's own limits
      lastOneShot_ = false;
      if (oneShot_ && hasArrays_ && !as.empty() && (oneShotAtOnce_ || rlimit_ == 0 || rlimit_ > oneShotAfter_)) {
        auto t0 = std::chrono::steady_clock::now();
        if (!oneShotAtOnce_) {
          z3::params p(ctx_);
          p.set("rlimit", oneShotAfter_);
          solver_.set(p);
          uint64_t before = rlimitCount();
          z3::check_result r = solver_.check(as);
          p.set("rlimit", rlimit_);  // back to the solver's own (0: none)
          solver_.set(p);
          // out of units? (Z3 4.8.12 says "canceled" for a time limit and an interrupt too)
          if (r != z3::unknown || rlimitCount() - before < oneShotAfter_) return answer(solver_, r);
        }
        auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
        unsigned left = timeoutMs_ ? static_cast<unsigned>(std::max<int64_t>(1, int64_t(timeoutMs_) - spent.count())) : 0;
        return checkOnce(as, left);  // what is left of the check's time
      }
      return answer(solver_, solver_.check(as));
    } catch (const z3::exception& e) {
      reason_ = e.msg();
      if (reason_.find("memory") != std::string::npos) reason_ = "out of memory";
      return CheckResult::Unknown;
    }
  }
  // The assertions (less what addGuarded asserted under a guard `as` does not assume) and
  // `as` checked by a fresh solver within timeoutMs (0: the solver's own limit).
  CheckResult checkOnce(const z3::expr_vector& as, unsigned timeoutMs) {
    z3::solver once(ctx_);
    once.set(params_);
    if (timeoutMs) {
      z3::params left(ctx_);
      left.set("timeout", timeoutMs);
      once.set(left);
    }
    std::unordered_set<unsigned> assumed;
    for (unsigned i = 0; i < as.size(); ++i) assumed.insert(Z3_get_ast_id(ctx_, as[i]));
    z3::expr_vector asserted = solver_.assertions();
    for (unsigned i = 0; i < asserted.size(); ++i) {
      auto g = guardOf_.find(Z3_get_ast_id(ctx_, asserted[i]));
      if (g != guardOf_.end() && !assumed.count(g->second)) continue;
      once.add(asserted[i]);
    }
    for (unsigned i = 0; i < as.size(); ++i) once.add(as[i]);
    lastOneShot_ = true;
    return answer(once, once.check());
  }
  // Z3's count of units of work so far (cumulative; the rlimit of a check counts from it).
  uint64_t rlimitCount() {
    z3::stats st = solver_.statistics();
    for (unsigned i = 0; i < st.size(); ++i)
      if (st.key(i) == "rlimit count") return st.is_uint(i) ? st.uint_value(i) : static_cast<uint64_t>(st.double_value(i));
    return 0;
  }
  // The result of a check of `s` (the solver or a one-shot one): its model kept.
  CheckResult answer(z3::solver& s, z3::check_result r) {
    if (r == z3::sat) {
      model_ = std::make_unique<z3::model>(s.get_model());
      return CheckResult::Sat;
    }
    if (r == z3::unsat) return CheckResult::Unsat;
    reason_ = s.reason_unknown();
    if (reason_ == "canceled" || reason_ == "timeout") reason_ = "timeout";
    if (reason_.find("memory") != std::string::npos) reason_ = "out of memory";
    return CheckResult::Unknown;
  }
  Term modelValueImpl(Term t) override {
    settle();
    z3::expr v(ctx_);
    guarded([&] { runOnLargeStack([&] { v = model_->eval(toZ3(t), true); }); });
    if (t->sort->isBool()) return tm_.boolVal(v.is_true());
    if (t->sort->isBV() && t->width() > 64) {
      if (!v.is_numeral()) throw SolverError("z3: bit-vector model value is not a numeral");
      try {
        return tm_.bvValWide(smt::parseDecimal128(v.get_decimal_string(0)), t->width());
      } catch (const std::invalid_argument& e) {
        throw SolverError(std::string("z3: ") + e.what());
      }
    }
    if (t->sort->isBV()) {
      uint64_t x = 0;
      if (!v.is_numeral_u64(x)) throw SolverError("z3: bit-vector model value is not a numeral");
      return tm_.bvVal(x, t->width());
    }
    if (t->sort->isInt()) {
      int64_t x = 0;
      if (!v.is_numeral_i64(x)) throw SolverError("z3: integer model value does not fit 64 bits");
      return tm_.intVal(x);
    }
    throw SolverError("z3: model values of arrays are not supported; select an element");
  }
  std::vector<Term> unsatCoreImpl() override {
    settle();
    if (lastOneShot_) return {};  // SolverOptions::oneShotChecks: no cores
    z3::expr_vector core = solver_.unsat_core();
    std::vector<Term> out;
    for (unsigned i = 0; i < core.size(); ++i)
      for (Term a : lastAssumptions_)
        if (z3::eq(core[i], toZ3(a))) {
          out.push_back(a);
          break;
        }
    return out;
  }

private:
  // Debugging aid: with ARGUS_SMT_DUMP=DIR set, every check() writes its query as an
  // SMT-LIB script DIR/query-<n>.smt2 (the assertion stack, then the assumptions).
  void dumpQuery(const z3::expr_vector& as) {
    static const char* dir = std::getenv("ARGUS_SMT_DUMP");
    if (!dir || !*dir) return;
    static std::atomic<unsigned> counter{0};
    std::ofstream f(std::string(dir) + "/query-" + std::to_string(counter++) + ".smt2");
    f << solver_.to_smt2();
    for (unsigned i = 0; i < as.size(); ++i) f << "; assumption\n(assert " << as[i] << ")\n";
    f << "(check-sat)\n";
  }

  // With ARGUS_SMT_DUMP_OVERRUNS=DIR set, a check the watchdog stopped is written to
  // DIR/overrun-<pid>-<n>.smt2 (after the fact: the solver cannot be read during a check).
  void dumpOverrun(std::span<const Term> assumptions) {
    static const char* dir = std::getenv("ARGUS_SMT_DUMP_OVERRUNS");
    if (!dir || !*dir) return;
    static std::atomic<unsigned> counter{0};
    guarded([&] {
      runOnLargeStack([&] {
        std::ofstream f(std::string(dir) + "/overrun-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) +
                        ".smt2");
        f << "; stopped by the watchdog: limit " << timeoutMs_ << " ms\n" << solver_.to_smt2();
        for (Term a : assumptions) f << "; assumption\n(assert " << toZ3(a) << ")\n";
        f << "(check-sat)\n";
      });
    });
  }

  // Z3 reports failures outside check() (building or asserting a term, push, pop) as
  // z3::exception; a memory failure becomes std::bad_alloc (callers keep what they
  // verified so far and report "out of memory"), anything else a SolverError.
  template <class F>
  void guarded(F&& f) {
    try {
      f();
    } catch (const z3::exception& e) {
      std::string msg = e.msg();
      if (msg.find("memory") != std::string::npos) throw std::bad_alloc();
      throw SolverError("z3: " + msg);
    }
  }

  TermManager& tm_;
  struct CapBack {
    ~CapBack() {
      if (uint64_t mb = solverMemoryLimitMb()) setZ3MemoryLimitMb(mb);
    }
  } capBack_;  // destroyed after every Z3 object below
  z3::context ctx_;
  z3::solver solver_;
  std::atomic<unsigned> interrupts_{0};  // interrupt() calls so far
  unsigned absorbed_ = 0;                 // interrupts a throw-away check has absorbed
  support::Watchdog watchdog_{[this] { interrupt(); }};  // destroyed before ctx_
  z3::params params_;   // what solver_ was given (a one-shot solver gets the same)
  bool oneShot_;
  bool lastOneShot_ = false;
  bool oneShotAtOnce_ = false;  // setOneShotAtOnce
  std::unordered_map<unsigned, unsigned> guardOf_;  // addGuarded: implication's AST id -> guard's
  unsigned oneShotAfter_;
  unsigned timeoutMs_ = 0;  // per check (0: none)
  bool hasArrays_ = false;
  std::unique_ptr<z3::model> model_;
  std::unordered_map<Term, z3::expr> cache_;
  std::string reason_;
  unsigned rlimit_ = 0;

  z3::sort sortOf(Sort s) {
    switch (s->kind) {
      case SortKind::Bool: return ctx_.bool_sort();
      case SortKind::Int: return ctx_.int_sort();
      case SortKind::BV: return ctx_.bv_sort(s->width);
      case SortKind::Array:
        hasArrays_ = true;  // a term over arrays was translated (SolverOptions::oneShotChecks)
        return ctx_.array_sort(sortOf(s->index), sortOf(s->elem));
      case SortKind::FP: return ctx_.fpa_sort(s->eb, s->sb);
    }
    throw SolverError("z3: unknown sort");
  }

  z3::expr rm(uint32_t code) {
    switch (static_cast<RoundingMode>(code)) {
      case RoundingMode::RNE: return z3::expr(ctx_, Z3_mk_fpa_rne(ctx_));
      case RoundingMode::RNA: return z3::expr(ctx_, Z3_mk_fpa_rna(ctx_));
      case RoundingMode::RTP: return z3::expr(ctx_, Z3_mk_fpa_rtp(ctx_));
      case RoundingMode::RTN: return z3::expr(ctx_, Z3_mk_fpa_rtn(ctx_));
      case RoundingMode::RTZ: return z3::expr(ctx_, Z3_mk_fpa_rtz(ctx_));
    }
    throw SolverError("z3: unknown rounding mode");
  }
  z3::expr wrap(Z3_ast a) {
    ctx_.check_error();
    return z3::expr(ctx_, a);
  }
  // The bit image of an FP value: fp.to_ieee_bv for every value but NaN; a NaN gives
  // sign ++ 1...1 ++ (fraction != 0) from a fresh constant of this term, so that every
  // NaN pattern is possible (the host's NaN bits are not modelled).
  z3::expr toBits(Term t, const z3::expr& a) {
    Sort s = t->children[0]->sort;
    uint32_t eb = s->eb, sb = s->sb;
    z3::expr n = ctx_.constant(("fpnan!" + std::to_string(t->id)).c_str(), ctx_.bv_sort(sb - 1 + 1));
    z3::expr frac = n.extract(sb - 2, 0);
    z3::expr nanFrac = z3::ite(frac == ctx_.bv_val(0, sb - 1), ctx_.bv_val(1, sb - 1), frac);
    z3::expr nan = z3::concat(z3::concat(n.extract(sb - 1, sb - 1), ctx_.bv_val(-1, eb)), nanFrac);
    z3::expr ieee = wrap(Z3_mk_fpa_to_ieee_bv(ctx_, a));
    return z3::ite(wrap(Z3_mk_fpa_is_nan(ctx_, a)), nan, ieee);
  }

  z3::expr toZ3(Term root) {
    return translate<z3::expr>(root, cache_, [&](Term t, const std::vector<z3::expr>& a) -> z3::expr {
      switch (t->kind) {
        case Kind::BoolConst: return ctx_.bool_val(t->value != 0);
        case Kind::BVConst: return ctx_.bv_val(static_cast<uint64_t>(t->value), t->width());
        case Kind::IntConst: return ctx_.int_val(static_cast<int64_t>(t->ivalue));
        case Kind::Var: return ctx_.constant(t->name.c_str(), sortOf(t->sort));
        case Kind::ConstArray: return z3::const_array(sortOf(t->sort->index), a[0]);
        case Kind::Not: return !a[0];
        case Kind::And: {
          z3::expr_vector v(ctx_);
          for (auto& x : a) v.push_back(x);
          return z3::mk_and(v);
        }
        case Kind::Or: {
          z3::expr_vector v(ctx_);
          for (auto& x : a) v.push_back(x);
          return z3::mk_or(v);
        }
        case Kind::Implies: return z3::implies(a[0], a[1]);
        case Kind::Xor: return a[0] != a[1];
        case Kind::Ite: return z3::ite(a[0], a[1], a[2]);
        case Kind::Eq: return a[0] == a[1];
        case Kind::BVNeg: return -a[0];
        case Kind::BVNot: return ~a[0];
        case Kind::BVAdd: return a[0] + a[1];
        case Kind::BVSub: return a[0] - a[1];
        case Kind::BVMul: return a[0] * a[1];
        case Kind::BVUDiv: return z3::udiv(a[0], a[1]);
        case Kind::BVSDiv: return a[0] / a[1];
        case Kind::BVURem: return z3::urem(a[0], a[1]);
        case Kind::BVSRem: return z3::srem(a[0], a[1]);
        case Kind::BVAnd: return a[0] & a[1];
        case Kind::BVOr: return a[0] | a[1];
        case Kind::BVXor: return a[0] ^ a[1];
        case Kind::BVShl: return z3::shl(a[0], a[1]);
        case Kind::BVLShr: return z3::lshr(a[0], a[1]);
        case Kind::BVAShr: return z3::ashr(a[0], a[1]);
        case Kind::BVUlt: return z3::ult(a[0], a[1]);
        case Kind::BVUle: return z3::ule(a[0], a[1]);
        case Kind::BVSlt: return z3::slt(a[0], a[1]);
        case Kind::BVSle: return z3::sle(a[0], a[1]);
        case Kind::Concat: return z3::concat(a[0], a[1]);
        case Kind::Extract: return a[0].extract(t->p0, t->p1);
        case Kind::ZeroExt: return z3::zext(a[0], t->p0);
        case Kind::SignExt: return z3::sext(a[0], t->p0);
        case Kind::IntAdd: return a[0] + a[1];
        case Kind::IntSub: return a[0] - a[1];
        case Kind::IntMul: return a[0] * a[1];
        case Kind::IntNeg: return -a[0];
        case Kind::IntLe: return a[0] <= a[1];
        case Kind::IntLt: return a[0] < a[1];
        case Kind::Select: return z3::select(a[0], a[1]);
        case Kind::Store: return z3::store(a[0], a[1], a[2]);
        case Kind::Apply: {
          z3::sort_vector dom(ctx_);
          z3::expr_vector args(ctx_);
          for (size_t i = 0; i < a.size(); ++i) {
            dom.push_back(sortOf(t->children[i]->sort));
            args.push_back(a[i]);
          }
          z3::func_decl f = ctx_.function(t->name.c_str(), dom, sortOf(t->sort));
          return f(args);
        }
        case Kind::FPFromBits: return wrap(Z3_mk_fpa_to_fp_bv(ctx_, a[0], sortOf(t->sort)));
        case Kind::FPToBits: return toBits(t, a[0]);
        case Kind::FPAdd: return wrap(Z3_mk_fpa_add(ctx_, rm(t->p0), a[0], a[1]));
        case Kind::FPSub: return wrap(Z3_mk_fpa_sub(ctx_, rm(t->p0), a[0], a[1]));
        case Kind::FPMul: return wrap(Z3_mk_fpa_mul(ctx_, rm(t->p0), a[0], a[1]));
        case Kind::FPDiv: return wrap(Z3_mk_fpa_div(ctx_, rm(t->p0), a[0], a[1]));
        case Kind::FPRem: return wrap(Z3_mk_fpa_rem(ctx_, a[0], a[1]));
        case Kind::FPSqrt: return wrap(Z3_mk_fpa_sqrt(ctx_, rm(t->p0), a[0]));
        case Kind::FPRti: return wrap(Z3_mk_fpa_round_to_integral(ctx_, rm(t->p0), a[0]));
        case Kind::FPEq: return wrap(Z3_mk_fpa_eq(ctx_, a[0], a[1]));
        case Kind::FPLt: return wrap(Z3_mk_fpa_lt(ctx_, a[0], a[1]));
        case Kind::FPLe: return wrap(Z3_mk_fpa_leq(ctx_, a[0], a[1]));
        case Kind::FPIsNaN: return wrap(Z3_mk_fpa_is_nan(ctx_, a[0]));
        case Kind::FPToFP: return wrap(Z3_mk_fpa_to_fp_float(ctx_, rm(t->p0), a[0], sortOf(t->sort)));
        case Kind::SBVToFP: return wrap(Z3_mk_fpa_to_fp_signed(ctx_, rm(t->p0), a[0], sortOf(t->sort)));
        case Kind::UBVToFP: return wrap(Z3_mk_fpa_to_fp_unsigned(ctx_, rm(t->p0), a[0], sortOf(t->sort)));
        case Kind::FPToSBV: return wrap(Z3_mk_fpa_to_sbv(ctx_, rm(t->p0), a[0], t->p1));
        case Kind::FPToUBV: return wrap(Z3_mk_fpa_to_ubv(ctx_, rm(t->p0), a[0], t->p1));
      }
      throw SolverError("z3: unknown term kind");
    });
  }
};

}  // namespace

void setZ3MemoryLimitMb(uint64_t mb) {
  z3::set_param("memory_max_size", std::to_string(mb).c_str());
}

std::unique_ptr<Solver> makeZ3Solver(TermManager& tm, const SolverOptions& opts) {
  return std::make_unique<Z3Solver>(tm, opts);
}

}  // namespace argus::smt
