#include "core/smt/cvc5/cvc5_solver.h"

#include <cvc5/cvc5.h>

#include <atomic>
#include <functional>
#include <map>

#include "core/smt/solver_base.h"
#include "core/support/large_stack.h"
#include "core/smt/translate.h"

namespace argus::smt {

namespace {

// cvc5 1.0 has no thread-safe interrupt: interrupt() lowers the per-check time limit so
// the next check gives up at once; a running check ends at its own limit.
// Known cvc5 1.0.3 defect: when a time limit stops a check inside its CaDiCaL
// bit-vector sub-solver, cvc5 may abort the process ("cadical: fatal error ... can only
// get value in satisfied state"). bench and argusd run checks in child processes, so
// this costs one task or one worker; `bv-solver=bitblast-internal` avoids it but made
// queries several times slower (pred's loop test went from seconds to a timeout).
constexpr unsigned kDeadlineGraceMs = 2000;

class Cvc5Solver final : public SolverBase {
public:
  Cvc5Solver(TermManager& tm, const SolverOptions& opts) : tm_(tm), owned_(std::make_unique<cvc5::Solver>()), s_(*owned_) {
    s_.setOption("incremental", "true");
    s_.setOption("produce-models", opts.models ? "true" : "false");
    if (opts.unsatCores) s_.setOption("produce-unsat-assumptions", "true");
    // An interpolating instance bit-blasts internally: its SyGuS search often ends at
    // the time limit, and with the CaDiCaL sub-solver that aborts the process (above;
    // bv-sat-solver=minisat alone does not avoid it).
    if (opts.interpolants) {
      s_.setOption("produce-interpolants", "true");
      s_.setOption("bv-solver", "bitblast-internal");
    }
    interpolants_ = opts.interpolants;
    s_.setLogic("ALL");
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
  // With cvc5 a limit is what is left of a run's deadline (the short per-query probes
  // are Z3-only): cvc5 gets kDeadlineGraceMs beyond it, so that a check that straddles
  // the deadline finishes and the caller's own deadline test between checks ends the
  // run, instead of the limit firing inside CaDiCaL and aborting the process (the
  // defect above; seen with pred, which runs many short checks up to its deadline,
  // also with less than a second left). A check that really runs that long still ends
  // at its (later) limit.
  void setTimeoutMs(unsigned ms) override {
    if (interrupted_) ms = 1;
    else if (ms > 0) ms += kDeadlineGraceMs;
    s_.setOption("tlimit-per", std::to_string(ms));
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
      s_.push();
      try {
        s_.assertFormula(toCvc5(a));
        cvc5::Term itp = s_.getInterpolant(s_.mkTerm(cvc5::Kind::NOT, {toCvc5(b)}));
        if (itp.isNull()) reason_ = "cvc5 found no interpolant (SyGuS search gave up or hit the time limit)";
        else out = fromCvc5(itp);
      } catch (const cvc5::CVC5ApiException& e) {
        reason_ = std::string("cvc5 interpolation: ") + e.what();
      } catch (const SolverError& e) {
        reason_ = e.what();
      }
      s_.pop();
    });
    return out;
  }

protected:
  void pushImpl() override { s_.push(); }
  void popImpl(unsigned n) override { s_.pop(n); }
  void addImpl(Term f) override {
    runOnLargeStack([&] { s_.assertFormula(toCvc5(f)); });
  }
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
      cvc5::Result r = s_.checkSatAssuming(as);
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
    runOnLargeStack([&] { v = s_.getValue(toCvc5(t)); });
    if (t->sort->isBool()) return tm_.boolVal(v.getBooleanValue());
    if (t->sort->isBV()) return tm_.bvVal(std::stoull(v.getBitVectorValue(10)), t->width());
    if (t->sort->isInt()) return tm_.intVal(v.getInt64Value());
    throw SolverError("cvc5: model values of arrays are not supported; select an element");
  }
  std::vector<Term> unsatCoreImpl() override {
    std::vector<Term> out;
    for (const cvc5::Term& c : s_.getUnsatAssumptions())
      for (Term a : lastAssumptions_)
        if (toCvc5(a) == c) {
          out.push_back(a);
          break;
        }
    return out;
  }

private:
  TermManager& tm_;
  std::unique_ptr<cvc5::Solver> owned_;
  cvc5::Solver& s_;
  std::unordered_map<Term, cvc5::Term> cache_;
  std::map<std::string, cvc5::Term> functions_;
  std::string reason_;
  std::atomic<bool> interrupted_{false};  // set from any thread
  bool interpolants_ = false;

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
        if (w > 64) throw SolverError("cvc5 interpolant: bit-vector constant wider than 64 bits");
        r = tm_.bvVal(std::stoull(c.getBitVectorValue(10)), w);
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
      case SortKind::Bool: return s_.getBooleanSort();
      case SortKind::Int: return s_.getIntegerSort();
      case SortKind::BV: return s_.mkBitVectorSort(s->width);
      case SortKind::Array: return s_.mkArraySort(sortOf(s->index), sortOf(s->elem));
    }
    throw SolverError("cvc5: unknown sort");
  }

  cvc5::Term toCvc5(Term root) {
    using K = cvc5::Kind;
    return translate<cvc5::Term>(root, cache_, [&](Term t, const std::vector<cvc5::Term>& a) -> cvc5::Term {
      auto op = [&](K k) { return s_.mkTerm(k, a); };
      switch (t->kind) {
        case Kind::BoolConst: return s_.mkBoolean(t->value != 0);
        case Kind::BVConst: return s_.mkBitVector(t->width(), t->value);
        case Kind::IntConst: return s_.mkInteger(t->ivalue);
        case Kind::Var: return s_.mkConst(sortOf(t->sort), t->name);
        case Kind::ConstArray: return s_.mkConstArray(sortOf(t->sort), a[0]);
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
        case Kind::Extract: return s_.mkTerm(s_.mkOp(K::BITVECTOR_EXTRACT, {t->p0, t->p1}), a);
        case Kind::ZeroExt: return s_.mkTerm(s_.mkOp(K::BITVECTOR_ZERO_EXTEND, {t->p0}), a);
        case Kind::SignExt: return s_.mkTerm(s_.mkOp(K::BITVECTOR_SIGN_EXTEND, {t->p0}), a);
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
            cvc5::Sort fs = dom.empty() ? sortOf(t->sort) : s_.mkFunctionSort(dom, sortOf(t->sort));
            it = functions_.emplace(t->name, s_.mkConst(fs, t->name)).first;
          }
          if (a.empty()) return it->second;
          std::vector<cvc5::Term> args{it->second};
          args.insert(args.end(), a.begin(), a.end());
          return s_.mkTerm(K::APPLY_UF, args);
        }
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
