#include "core/smt/cvc5/cvc5_solver.h"

#include <cvc5/cvc5.h>

#include <csetjmp>
#include <csignal>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include "core/smt/solver_base.h"
#include "core/smt/translate.h"
#include "core/support/large_stack.h"

namespace argus::smt {

namespace {

// cvc5 1.0 has no thread-safe interrupt: interrupt() lowers the per-check time limit so
// the next check gives up at once; a running check ends at its own limit.
//
// Known cvc5 1.0.3 defect: when a time limit stops a check inside its CaDiCaL
// bit-vector sub-solver while bit-vectors are combined with arrays (or functions),
// theory combination then asks CaDiCaL for bit values it no longer has and CaDiCaL
// calls abort() ("cadical: fatal error ... can only get value in satisfied state").
// Reproduced with a hard 64-bit multiplication next to two array reads and any limit
// from 10 ms to 2 s; pure bit-vector queries give `unknown` as they should.
// No option avoids it at an acceptable price: bv-sat-solver=minisat still aborts,
// cryptominisat ignores the limit, Debian's cvc5 has no kissat, and
// `bv-solver=bitblast-internal` (cvc5's own SAT solver) does not abort but is much
// slower: with it for every query that has arrays, the construct tests' argv and
// memcpy programs went from 2-8 s to over 60 s; for all queries, pred's loop test
// went from seconds to a timeout.
// So a check runs with an abort guard (AbortGuard below): if CaDiCaL aborts inside
// it, control returns to the check, which gives `unknown` ("timeout"). The aborted
// instance is left as it is, never used or destroyed again (its memory is leaked on
// purpose: its state is inconsistent), and a new instance, with bitblast-internal,
// takes over with the same assertion stack (replayed from Cvc5Solver::frames_).
// bench and argusd also run checks in child processes, so an abort that still got
// through would cost one task or one worker, not the server.
constexpr unsigned kDeadlineGraceMs = 2000;

// The abort guard. One SIGABRT handler is installed per process, once; it chains to
// the disposition it replaced. While a thread is inside a guarded check, an abort on
// that thread jumps back to the check (abort() raises SIGABRT synchronously on the
// calling thread and releases its own lock before raising, so leaving the handler
// by siglongjmp is what glibc allows). An abort anywhere else (another thread, or
// outside a check) gets the previous disposition and is raised again, unchanged.
struct sigaction gPreviousAbortAction;
thread_local sigjmp_buf* tAbortJump = nullptr;

extern "C" void onAbortSignal(int) {
  if (sigjmp_buf* j = tAbortJump) {
    tAbortJump = nullptr;
    siglongjmp(*j, 1);
  }
  ::sigaction(SIGABRT, &gPreviousAbortAction, nullptr);
  ::raise(SIGABRT);
}

struct AbortGuard {
  sigjmp_buf jump;
  AbortGuard() {
    static std::once_flag installed;
    std::call_once(installed, [] {
      struct sigaction act {};
      act.sa_handler = onAbortSignal;
      sigemptyset(&act.sa_mask);
      ::sigaction(SIGABRT, &act, &gPreviousAbortAction);
    });
  }
  void arm() { tAbortJump = &jump; }
  ~AbortGuard() { tAbortJump = nullptr; }
  AbortGuard(const AbortGuard&) = delete;
  AbortGuard& operator=(const AbortGuard&) = delete;
};

class Cvc5Solver final : public SolverBase {
public:
  Cvc5Solver(TermManager& tm, const SolverOptions& opts) : tm_(tm), opts_(opts) {
    interpolants_ = opts.interpolants;
    // An interpolating instance bit-blasts internally from the start: its SyGuS search
    // often ends at the time limit (see the defect above).
    internalBitblast_ = opts.interpolants;
    owned_ = makeInstance();
    if (opts.timeoutMs) setTimeoutMs(opts.timeoutMs);
  }
  // cvc5 recurses over term structure (assertions, checks, destruction): deep formulas
  // from long unrollings run on a large stack (core/support/large_stack.h).
  ~Cvc5Solver() override {
    runOnLargeStack([&] {
      cache_.clear();
      functions_.clear();
      owned_.reset();
    });
  }
  SolverKind kind() const override { return SolverKind::CVC5; }
  std::string reasonUnknown() const override { return reason_; }
  // cvc5 1.0.3 has per-check resource limits (rlimit-per), but a limit that fires inside
  // CaDiCaL aborts it (see setTimeoutMs): not offered.
  bool setResourceLimit(unsigned) override { return false; }
  // With cvc5 a limit is what is left of a run's deadline (the short per-query probes
  // are Z3-only): cvc5 gets kDeadlineGraceMs beyond it, so that a check that straddles
  // the deadline finishes and the caller's own deadline test between checks ends the
  // run, instead of the limit firing inside CaDiCaL, aborting there and costing a
  // rebuild (the defect above; seen with pred, which runs many short checks up to its
  // deadline, also with less than a second left). A check that really runs that long
  // still ends at its (later) limit.
  void setTimeoutMs(unsigned ms) override {
    if (interrupted_) ms = 1;
    else if (ms > 0) ms += kDeadlineGraceMs;
    tlimit_ = std::to_string(ms);
    owned_->setOption("tlimit-per", tlimit_);
  }
  void interrupt() override { interrupted_ = true; }
  bool supportsInterpolation() const override { return interpolants_; }
  // cvc5's interpolation is SyGuS-based: it enumerates candidate terms over the shared
  // symbols, so it can be slow or give up (null term) where a proof-based interpolating
  // solver would not; the per-check time limit applies. The result is translated back;
  // a symbol or operator outside our term language makes it fail (nullptr).
  Term interpolant(Term a, Term b) override {
    if (!interpolants_) {
      reason_ = "interpolation was not enabled for this solver";
      return nullptr;
    }
    if (interrupted_) {
      reason_ = "interrupted";
      return nullptr;
    }
    Term out = nullptr;
    runOnLargeStack([&] {
      owned_->push();
      try {
        owned_->assertFormula(toCvc5(a));
        cvc5::Term nb = owned_->mkTerm(cvc5::Kind::NOT, {toCvc5(b)});
        if (!defs_.empty()) throw SolverError("cvc5 interpolation over floating-point bit images is not supported");
        cvc5::Term itp = owned_->getInterpolant(nb);
        if (itp.isNull()) reason_ = "cvc5 found no interpolant (SyGuS search gave up or hit the time limit)";
        else out = fromCvc5(itp);
      } catch (const cvc5::CVC5ApiException& e) {
        reason_ = std::string("cvc5 interpolation: ") + e.what();
      } catch (const SolverError& e) {
        reason_ = e.what();
      }
      owned_->pop();
      retractDefs();
    });
    return out;
  }

protected:
  void pushImpl() override {
    owned_->push();
    frames_.emplace_back();
  }
  void popImpl(unsigned n) override {
    owned_->pop(n);
    frames_.resize(frames_.size() - n);
    retractDefs();
  }
  void addImpl(Term f) override {
    runOnLargeStack([&] {
      cvc5::Term c = toCvc5(f);
      assertDefs();
      owned_->assertFormula(c);
    });
    frames_.back().push_back(f);
  }
  void addGuardedImpl(Term guard, Term f) override { addImpl(tm_.mkImplies(guard, f)); }
  CheckResult checkImpl(std::span<const Term> assumptions) override {
    CheckResult r = CheckResult::Unknown;
    runOnLargeStack([&] { r = checkOnStack(assumptions); });
    return r;
  }
  CheckResult checkOnStack(std::span<const Term> assumptions) {
    if (interrupted_) {
      reason_ = "interrupted";
      return CheckResult::Unknown;
    }
    try {
      std::vector<cvc5::Term> as;
      for (Term a : assumptions) as.push_back(toCvc5(a));
      assertDefs();
      cvc5::Result r;
      if (!guardedCheck(as, r)) {
        replaceAbortedInstance();
        reason_ = "timeout";
        return CheckResult::Unknown;
      }
      if (r.isSat()) return CheckResult::Sat;
      if (r.isUnsat()) return CheckResult::Unsat;
      reason_ = r.getUnknownExplanation() == cvc5::UnknownExplanation::TIMEOUT ? "timeout" : r.toString();
      return CheckResult::Unknown;
    } catch (const cvc5::CVC5ApiException& e) {
      reason_ = e.what();
      return CheckResult::Unknown;
    }
  }
  Term modelValueImpl(Term t) override {
    cvc5::Term v;
    runOnLargeStack([&] { v = owned_->getValue(toCvc5(t)); });
    if (t->sort->isBool()) return tm_.boolVal(v.getBooleanValue());
    if (t->sort->isBV() && t->width() > 64) {
      try {
        return tm_.bvValWide(smt::parseDecimal128(v.getBitVectorValue(10)), t->width());
      } catch (const std::invalid_argument& e) {
        throw SolverError(std::string("cvc5: ") + e.what());
      }
    }
    if (t->sort->isBV()) return tm_.bvVal(std::stoull(v.getBitVectorValue(10)), t->width());
    if (t->sort->isInt()) return tm_.intVal(v.getInt64Value());
    throw SolverError("cvc5: model values of arrays are not supported; select an element");
  }
  std::vector<Term> unsatCoreImpl() override {
    std::vector<Term> out;
    for (const cvc5::Term& c : owned_->getUnsatAssumptions())
      for (Term a : lastAssumptions_)
        if (toCvc5(a) == c) {
          out.push_back(a);
          break;
        }
    return out;
  }

private:
  TermManager& tm_;
  SolverOptions opts_;
  std::unique_ptr<cvc5::Solver> owned_;
  // The assertions per push level (frame 0: below every push), to rebuild the instance.
  std::vector<std::vector<Term>> frames_{1};
  std::string tlimit_;              // the current per-check limit, as set on the instance
  bool internalBitblast_ = false;   // bv-solver=bitblast-internal (see the defect above)
  std::unordered_map<Term, cvc5::Term> cache_;
  std::map<std::string, cvc5::Term> functions_;
  // cvc5 1.0 has no fp.to_ieee_bv: FPToBits(x) is a fresh constant b with the
  // definition (= ((_ to_fp eb sb) b) x) (exact for every value but NaN, any NaN
  // pattern for NaN). A definition is asserted (at the level where it is first needed)
  // before the assertion or check that uses it, and again after a pop removed it.
  struct Def {
    cvc5::Term formula;
    size_t level = SIZE_MAX;  // frame it is asserted in; SIZE_MAX: not asserted
  };
  std::vector<Def> defs_;
  void assertDefs() {
    for (Def& d : defs_)
      if (d.level == SIZE_MAX) {
        owned_->assertFormula(d.formula);
        d.level = frames_.size() - 1;
      }
  }
  void retractDefs() {
    for (Def& d : defs_)
      if (d.level != SIZE_MAX && d.level >= frames_.size()) d.level = SIZE_MAX;
  }
  std::string reason_;
  std::atomic<bool> interrupted_{false};  // set from any thread
  bool interpolants_ = false;

  std::unique_ptr<cvc5::Solver> makeInstance() {
    auto s = std::make_unique<cvc5::Solver>();
    s->setOption("incremental", "true");
    s->setOption("produce-models", opts_.models ? "true" : "false");
    if (opts_.unsatCores) s->setOption("produce-unsat-assumptions", "true");
    if (opts_.interpolants) s->setOption("produce-interpolants", "true");
    if (internalBitblast_) s->setOption("bv-solver", "bitblast-internal");
    s->setLogic("ALL");
    if (!tlimit_.empty()) s->setOption("tlimit-per", tlimit_);
    return s;
  }

  // Runs the check; false if CaDiCaL aborted inside it (the defect above).
  bool guardedCheck(const std::vector<cvc5::Term>& as, cvc5::Result& r) {
    AbortGuard guard;
    if (sigsetjmp(guard.jump, 1) != 0) return false;
    guard.arm();
    r = owned_->checkSatAssuming(as);
    return true;
  }

  // After an abort: the old instance and every handle into it are abandoned (leaked);
  // a new one with bitblast-internal gets the assertion stack.
  void replaceAbortedInstance() {
    (void)owned_.release();
    (void)new std::unordered_map<Term, cvc5::Term>(std::move(cache_));
    (void)new std::map<std::string, cvc5::Term>(std::move(functions_));
    (void)new std::vector<Def>(std::move(defs_));
    cache_.clear();
    functions_.clear();
    defs_.clear();
    internalBitblast_ = true;
    owned_ = makeInstance();
    for (std::size_t level = 0; level < frames_.size(); ++level) {
      if (level > 0) owned_->push();
      for (Term f : frames_[level]) {
        cvc5::Term c = toCvc5(f);
        for (Def& d : defs_)
          if (d.level == SIZE_MAX) {
            owned_->assertFormula(d.formula);
            d.level = level;
          }
        owned_->assertFormula(c);
      }
    }
  }

  // cvc5 term -> our term (interpolants): variables are mapped back through the
  // translation cache; unknown symbols or operators throw SolverError.
  Term fromCvc5(const cvc5::Term& root) {
    std::unordered_map<cvc5::Term, Term> back;
    for (auto& [t, c] : cache_)
      if (t->kind == Kind::Var) back.emplace(c, t);
    std::unordered_map<cvc5::Term, Term> memo;
    std::function<Term(const cvc5::Term&)> go = [&](const cvc5::Term& c) -> Term {
      auto it = memo.find(c);
      if (it != memo.end()) return it->second;
      Term r = nullptr;
      if (auto b = back.find(c); b != back.end()) r = b->second;
      else if (c.isBooleanValue()) r = tm_.boolVal(c.getBooleanValue());
      else if (c.isBitVectorValue()) {
        uint32_t w = c.getSort().getBitVectorSize();
        if (w > 128) throw SolverError("cvc5 interpolant: bit-vector constant wider than 128 bits");
        r = w > 64 ? tm_.bvValWide(smt::parseDecimal128(c.getBitVectorValue(10)), w)
                   : tm_.bvVal(std::stoull(c.getBitVectorValue(10)), w);
      } else {
        std::vector<Term> a;
        for (size_t i = 0; i < c.getNumChildren(); ++i) a.push_back(go(c[i]));
        auto fold = [&](auto f) {
          if (a.empty()) throw SolverError("cvc5 interpolant: empty application");
          Term x = a[0];
          for (size_t i = 1; i < a.size(); ++i) x = f(x, a[i]);
          return x;
        };
        auto two = [&]() {
          if (a.size() != 2) throw SolverError("cvc5 interpolant: binary operator with " + std::to_string(a.size()) + " arguments");
        };
        using K = cvc5::Kind;
        switch (c.getKind()) {
          case K::NOT: r = tm_.mkNot(a.at(0)); break;
          case K::AND: r = tm_.mkAnd(a); break;
          case K::OR: r = tm_.mkOr(a); break;
          case K::IMPLIES: two(); r = tm_.mkImplies(a[0], a[1]); break;
          case K::XOR: r = fold([&](Term x, Term y) { return tm_.mkXor(x, y); }); break;
          case K::ITE: r = tm_.mkIte(a.at(0), a.at(1), a.at(2)); break;
          case K::EQUAL: {
            std::vector<Term> eqs;
            for (size_t i = 1; i < a.size(); ++i) eqs.push_back(tm_.mkEq(a[0], a[i]));
            r = tm_.mkAnd(eqs);
            break;
          }
          case K::DISTINCT: {
            std::vector<Term> ds;
            for (size_t i = 0; i < a.size(); ++i)
              for (size_t j = i + 1; j < a.size(); ++j) ds.push_back(tm_.mkDistinct(a[i], a[j]));
            r = tm_.mkAnd(ds);
            break;
          }
          case K::BITVECTOR_NEG: r = tm_.bvNeg(a.at(0)); break;
          case K::BITVECTOR_NOT: r = tm_.bvNot(a.at(0)); break;
          case K::BITVECTOR_ADD: r = fold([&](Term x, Term y) { return tm_.bvAdd(x, y); }); break;
          case K::BITVECTOR_SUB: two(); r = tm_.bvSub(a[0], a[1]); break;
          case K::BITVECTOR_MULT: r = fold([&](Term x, Term y) { return tm_.bvMul(x, y); }); break;
          case K::BITVECTOR_UDIV: two(); r = tm_.bvUDiv(a[0], a[1]); break;
          case K::BITVECTOR_SDIV: two(); r = tm_.bvSDiv(a[0], a[1]); break;
          case K::BITVECTOR_UREM: two(); r = tm_.bvURem(a[0], a[1]); break;
          case K::BITVECTOR_SREM: two(); r = tm_.bvSRem(a[0], a[1]); break;
          case K::BITVECTOR_AND: r = fold([&](Term x, Term y) { return tm_.bvAnd(x, y); }); break;
          case K::BITVECTOR_OR: r = fold([&](Term x, Term y) { return tm_.bvOr(x, y); }); break;
          case K::BITVECTOR_XOR: r = fold([&](Term x, Term y) { return tm_.bvXor(x, y); }); break;
          case K::BITVECTOR_NAND: two(); r = tm_.bvNot(tm_.bvAnd(a[0], a[1])); break;
          case K::BITVECTOR_NOR: two(); r = tm_.bvNot(tm_.bvOr(a[0], a[1])); break;
          case K::BITVECTOR_XNOR: two(); r = tm_.bvNot(tm_.bvXor(a[0], a[1])); break;
          case K::BITVECTOR_SHL: two(); r = tm_.bvShl(a[0], a[1]); break;
          case K::BITVECTOR_LSHR: two(); r = tm_.bvLShr(a[0], a[1]); break;
          case K::BITVECTOR_ASHR: two(); r = tm_.bvAShr(a[0], a[1]); break;
          case K::BITVECTOR_ULT: two(); r = tm_.bvUlt(a[0], a[1]); break;
          case K::BITVECTOR_ULE: two(); r = tm_.bvUle(a[0], a[1]); break;
          case K::BITVECTOR_UGT: two(); r = tm_.bvUgt(a[0], a[1]); break;
          case K::BITVECTOR_UGE: two(); r = tm_.bvUge(a[0], a[1]); break;
          case K::BITVECTOR_SLT: two(); r = tm_.bvSlt(a[0], a[1]); break;
          case K::BITVECTOR_SLE: two(); r = tm_.bvSle(a[0], a[1]); break;
          case K::BITVECTOR_SGT: two(); r = tm_.bvSgt(a[0], a[1]); break;
          case K::BITVECTOR_SGE: two(); r = tm_.bvSge(a[0], a[1]); break;
          case K::BITVECTOR_CONCAT: r = fold([&](Term x, Term y) { return tm_.concat(x, y); }); break;
          case K::BITVECTOR_EXTRACT:
            r = tm_.extract(a.at(0), c.getOp()[0].getUInt32Value(), c.getOp()[1].getUInt32Value());
            break;
          case K::BITVECTOR_ZERO_EXTEND: r = tm_.zeroExt(a.at(0), c.getOp()[0].getUInt32Value()); break;
          case K::BITVECTOR_SIGN_EXTEND: r = tm_.signExt(a.at(0), c.getOp()[0].getUInt32Value()); break;
          case K::SELECT: two(); r = tm_.select(a[0], a[1]); break;
          case K::STORE: r = tm_.store(a.at(0), a.at(1), a.at(2)); break;
          default:
            throw SolverError(c.getKind() == K::CONSTANT ? "cvc5 interpolant: unknown symbol " + c.toString()
                                                         : "cvc5 interpolant: unsupported operator in " + c.toString().substr(0, 200));
        }
      }
      memo.emplace(c, r);
      return r;
    };
    return go(root);
  }

  cvc5::Sort sortOf(Sort s) {
    switch (s->kind) {
      case SortKind::Bool: return owned_->getBooleanSort();
      case SortKind::Int: return owned_->getIntegerSort();
      case SortKind::BV: return owned_->mkBitVectorSort(s->width);
      case SortKind::Array: return owned_->mkArraySort(sortOf(s->index), sortOf(s->elem));
      case SortKind::FP: return owned_->mkFloatingPointSort(s->eb, s->sb);
    }
    throw SolverError("cvc5: unknown sort");
  }

  cvc5::Term rm(uint32_t code) {
    using R = cvc5::RoundingMode;
    switch (static_cast<RoundingMode>(code)) {
      case RoundingMode::RNE: return owned_->mkRoundingMode(R::ROUND_NEAREST_TIES_TO_EVEN);
      case RoundingMode::RNA: return owned_->mkRoundingMode(R::ROUND_NEAREST_TIES_TO_AWAY);
      case RoundingMode::RTP: return owned_->mkRoundingMode(R::ROUND_TOWARD_POSITIVE);
      case RoundingMode::RTN: return owned_->mkRoundingMode(R::ROUND_TOWARD_NEGATIVE);
      case RoundingMode::RTZ: return owned_->mkRoundingMode(R::ROUND_TOWARD_ZERO);
    }
    throw SolverError("cvc5: unknown rounding mode");
  }
  cvc5::Term toBits(Term t, const cvc5::Term& x) {
    Sort s = t->children[0]->sort;
    cvc5::Term b = owned_->mkConst(owned_->mkBitVectorSort(s->width), "fpbits!" + std::to_string(t->id));
    cvc5::Term back = owned_->mkTerm(owned_->mkOp(cvc5::Kind::FLOATINGPOINT_TO_FP_FROM_IEEE_BV, {s->eb, s->sb}), {b});
    defs_.push_back({owned_->mkTerm(cvc5::Kind::EQUAL, {back, x})});
    return b;
  }

  cvc5::Term toCvc5(Term root) {
    using K = cvc5::Kind;
    return translate<cvc5::Term>(root, cache_, [&](Term t, const std::vector<cvc5::Term>& a) -> cvc5::Term {
      auto op = [&](K k) { return owned_->mkTerm(k, a); };
      switch (t->kind) {
        case Kind::BoolConst: return owned_->mkBoolean(t->value != 0);
        case Kind::BVConst: return owned_->mkBitVector(t->width(), t->value);
        case Kind::IntConst: return owned_->mkInteger(t->ivalue);
        case Kind::Var: return owned_->mkConst(sortOf(t->sort), t->name);
        case Kind::ConstArray: return owned_->mkConstArray(sortOf(t->sort), a[0]);
        case Kind::Not: return op(K::NOT);
        case Kind::And: return op(K::AND);
        case Kind::Or: return op(K::OR);
        case Kind::Implies: return op(K::IMPLIES);
        case Kind::Xor: return op(K::XOR);
        case Kind::Ite: return op(K::ITE);
        case Kind::Eq: return op(K::EQUAL);
        case Kind::BVNeg: return op(K::BITVECTOR_NEG);
        case Kind::BVNot: return op(K::BITVECTOR_NOT);
        case Kind::BVAdd: return op(K::BITVECTOR_ADD);
        case Kind::BVSub: return op(K::BITVECTOR_SUB);
        case Kind::BVMul: return op(K::BITVECTOR_MULT);
        case Kind::BVUDiv: return op(K::BITVECTOR_UDIV);
        case Kind::BVSDiv: return op(K::BITVECTOR_SDIV);
        case Kind::BVURem: return op(K::BITVECTOR_UREM);
        case Kind::BVSRem: return op(K::BITVECTOR_SREM);
        case Kind::BVAnd: return op(K::BITVECTOR_AND);
        case Kind::BVOr: return op(K::BITVECTOR_OR);
        case Kind::BVXor: return op(K::BITVECTOR_XOR);
        case Kind::BVShl: return op(K::BITVECTOR_SHL);
        case Kind::BVLShr: return op(K::BITVECTOR_LSHR);
        case Kind::BVAShr: return op(K::BITVECTOR_ASHR);
        case Kind::BVUlt: return op(K::BITVECTOR_ULT);
        case Kind::BVUle: return op(K::BITVECTOR_ULE);
        case Kind::BVSlt: return op(K::BITVECTOR_SLT);
        case Kind::BVSle: return op(K::BITVECTOR_SLE);
        case Kind::Concat: return op(K::BITVECTOR_CONCAT);
        case Kind::Extract: return owned_->mkTerm(owned_->mkOp(K::BITVECTOR_EXTRACT, {t->p0, t->p1}), a);
        case Kind::ZeroExt: return owned_->mkTerm(owned_->mkOp(K::BITVECTOR_ZERO_EXTEND, {t->p0}), a);
        case Kind::SignExt: return owned_->mkTerm(owned_->mkOp(K::BITVECTOR_SIGN_EXTEND, {t->p0}), a);
        case Kind::IntAdd: return op(K::ADD);
        case Kind::IntSub: return op(K::SUB);
        case Kind::IntMul: return op(K::MULT);
        case Kind::IntNeg: return op(K::NEG);
        case Kind::IntLe: return op(K::LEQ);
        case Kind::IntLt: return op(K::LT);
        case Kind::Select: return op(K::SELECT);
        case Kind::Store: return op(K::STORE);
        case Kind::Apply: {
          auto it = functions_.find(t->name);
          if (it == functions_.end()) {
            std::vector<cvc5::Sort> dom;
            for (Term c : t->children) dom.push_back(sortOf(c->sort));
            cvc5::Sort fs = dom.empty() ? sortOf(t->sort) : owned_->mkFunctionSort(dom, sortOf(t->sort));
            it = functions_.emplace(t->name, owned_->mkConst(fs, t->name)).first;
          }
          if (a.empty()) return it->second;
          std::vector<cvc5::Term> args{it->second};
          args.insert(args.end(), a.begin(), a.end());
          return owned_->mkTerm(K::APPLY_UF, args);
        }
        case Kind::FPFromBits:
          return owned_->mkTerm(owned_->mkOp(K::FLOATINGPOINT_TO_FP_FROM_IEEE_BV, {t->sort->eb, t->sort->sb}), a);
        case Kind::FPToBits: return toBits(t, a[0]);
        case Kind::FPAdd: return owned_->mkTerm(K::FLOATINGPOINT_ADD, {rm(t->p0), a[0], a[1]});
        case Kind::FPSub: return owned_->mkTerm(K::FLOATINGPOINT_SUB, {rm(t->p0), a[0], a[1]});
        case Kind::FPMul: return owned_->mkTerm(K::FLOATINGPOINT_MULT, {rm(t->p0), a[0], a[1]});
        case Kind::FPDiv: return owned_->mkTerm(K::FLOATINGPOINT_DIV, {rm(t->p0), a[0], a[1]});
        case Kind::FPRem: return owned_->mkTerm(K::FLOATINGPOINT_REM, {a[0], a[1]});
        case Kind::FPSqrt: return owned_->mkTerm(K::FLOATINGPOINT_SQRT, {rm(t->p0), a[0]});
        case Kind::FPRti: return owned_->mkTerm(K::FLOATINGPOINT_RTI, {rm(t->p0), a[0]});
        case Kind::FPEq: return op(K::FLOATINGPOINT_EQ);
        case Kind::FPLt: return op(K::FLOATINGPOINT_LT);
        case Kind::FPLe: return op(K::FLOATINGPOINT_LEQ);
        case Kind::FPIsNaN: return op(K::FLOATINGPOINT_IS_NAN);
        case Kind::FPToFP:
          return owned_->mkTerm(owned_->mkOp(K::FLOATINGPOINT_TO_FP_FROM_FP, {t->sort->eb, t->sort->sb}), {rm(t->p0), a[0]});
        case Kind::SBVToFP:
          return owned_->mkTerm(owned_->mkOp(K::FLOATINGPOINT_TO_FP_FROM_SBV, {t->sort->eb, t->sort->sb}), {rm(t->p0), a[0]});
        case Kind::UBVToFP:
          return owned_->mkTerm(owned_->mkOp(K::FLOATINGPOINT_TO_FP_FROM_UBV, {t->sort->eb, t->sort->sb}), {rm(t->p0), a[0]});
        case Kind::FPToSBV: return owned_->mkTerm(owned_->mkOp(K::FLOATINGPOINT_TO_SBV, {t->p1}), {rm(t->p0), a[0]});
        case Kind::FPToUBV: return owned_->mkTerm(owned_->mkOp(K::FLOATINGPOINT_TO_UBV, {t->p1}), {rm(t->p0), a[0]});
      }
      throw SolverError("cvc5: unknown term kind");
    });
  }
};

}  // namespace

std::unique_ptr<Solver> makeCvc5Solver(TermManager& tm, const SolverOptions& opts) {
  return std::make_unique<Cvc5Solver>(tm, opts);
}

}  // namespace argus::smt
