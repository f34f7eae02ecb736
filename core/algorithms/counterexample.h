// Turning a replayed execution into the counterexample users see.
#pragma once

#include "core/cfa/cfa.h"
#include "core/result/replay.h"
#include "core/result/result.h"

namespace argus::algorithms {

// Steps with source positions, statement text and the values each step assigned
// (register variables by their C name; nondeterministic choices marked).
result::Counterexample counterexampleFromReplay(const cfa::Program& prog, cfa::FuncId entry,
                                                const result::ReplayResult& run);

}  // namespace argus::algorithms
