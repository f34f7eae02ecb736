// Shared bookkeeping for solver backends: stack depth, "model/core valid only right
// after check", statistics and timing. Backends implement the *Impl hooks.
#pragma once

#include <chrono>

#include "core/smt/solver.h"

namespace argus::smt {

class SolverBase : public Solver {
public:
  void push() final {
    invalidate();
    pushImpl();
    ++depth_;
  }
  void pop(unsigned n) final {
    if (n > depth_) throw SolverError("pop: more frames than pushed");
    invalidate();
    popImpl(n);
    depth_ -= n;
  }
  unsigned depth() const final { return depth_; }
  void add(Term f) final {
    if (!f->sort->isBool()) throw SolverError("add: Boolean term expected");
    invalidate();
    ++stats_.assertions;
    if (f->isTrue()) return;
    addImpl(f);
  }
  void addGuarded(Term guard, Term f) final {
    if (!guard->sort->isBool() || !f->sort->isBool()) throw SolverError("addGuarded: Boolean terms expected");
    invalidate();
    ++stats_.assertions;
    if (f->isTrue()) return;
    addGuardedImpl(guard, f);
  }
  CheckResult check(std::span<const Term> assumptions) final {
    auto t0 = std::chrono::steady_clock::now();
    lastAssumptions_.assign(assumptions.begin(), assumptions.end());
    CheckResult r = checkImpl(assumptions);
    stats_.checkTimeS += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++stats_.checks;
    if (r == CheckResult::Sat) ++stats_.sat;
    else if (r == CheckResult::Unsat) ++stats_.unsat;
    else ++stats_.unknown;
    last_ = r;
    return r;
  }
  Term modelValue(Term t) final {
    if (last_ != CheckResult::Sat) throw SolverError("modelValue: no model (last check was not sat, or the stack changed)");
    if (t->isConst()) return t;
    return modelValueImpl(t);
  }
  std::vector<Term> unsatCore() final {
    if (last_ != CheckResult::Unsat) throw SolverError("unsatCore: last check was not unsat");
    return unsatCoreImpl();
  }

protected:
  virtual void pushImpl() = 0;
  virtual void popImpl(unsigned n) = 0;
  virtual void addImpl(Term f) = 0;
  virtual void addGuardedImpl(Term guard, Term f) = 0;  // guard => f
  virtual CheckResult checkImpl(std::span<const Term> assumptions) = 0;
  virtual Term modelValueImpl(Term t) = 0;
  virtual std::vector<Term> unsatCoreImpl() = 0;
  std::vector<Term> lastAssumptions_;

private:
  void invalidate() { last_ = CheckResult::Unknown; }
  CheckResult last_ = CheckResult::Unknown;
  unsigned depth_ = 0;
};

}  // namespace argus::smt
