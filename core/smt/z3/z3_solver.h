// Z3 backend (the only file besides z3_solver.cpp that may name Z3).
#pragma once
#include <memory>
#include "core/smt/solver.h"
namespace argus::smt {
std::unique_ptr<Solver> makeZ3Solver(TermManager& tm, const SolverOptions& opts);
// Z3's global memory_max_size (MB, 0 = none), in force at once for the whole process.
void setZ3MemoryLimitMb(uint64_t mb);
}
