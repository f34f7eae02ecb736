// Checking one program path to an error location and replaying it: the path is
// encoded step by step (SSA path formula), a model gives the nondeterministic values,
// and the concrete interpreter must reach the error with them. Analyses that find
// abstract error paths without a solver (the explicit-value analysis) report `false`
// only through this.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/cfa/cfa.h"
#include "core/cfa/step.h"
#include "core/result/result.h"
#include "core/smt/solver.h"
#include "core/support/deadline.h"

namespace argus::algorithms {

struct PathReplay {
  enum class Status { Replayed, Infeasible, Unknown };
  Status status = Status::Unknown;
  std::optional<result::Counterexample> counterexample;  // Replayed
  std::string reason;                                    // Unknown: why
  uint64_t solverQueries = 0;
  double solverTimeS = 0;
};

// `steps` start at the start function's entry (the initial location of the CPAs).
PathReplay checkAndReplayPath(const cfa::Program& prog, cfa::FuncId entry, const std::vector<cfa::Step>& steps,
                              smt::SolverKind solver, const support::Deadline& deadline,
                              bool corruptReplayForTest = false);

}  // namespace argus::algorithms
