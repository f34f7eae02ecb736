// cvc5 backend (the only file besides cvc5_solver.cpp that may name cvc5).
#pragma once
#include <memory>
#include "core/smt/solver.h"
namespace argus::smt {
std::unique_ptr<Solver> makeCvc5Solver(TermManager& tm, const SolverOptions& opts);
}
