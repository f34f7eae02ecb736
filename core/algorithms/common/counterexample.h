// Turning a replayed execution into the counterexample users see.
#pragma once

#include <string>

#include "core/cfa/cfa.h"
#include "core/result/replay.h"
#include "core/result/result.h"

namespace argus::algorithms {

// Steps with source positions, statement text and the values each step assigned
// (register variables by their C name; nondeterministic choices marked).
result::Counterexample counterexampleFromReplay(const cfa::Program& prog, cfa::FuncId entry,
                                                const result::ReplayResult& run);

// "file.c:LINE" of an edge (base name of the file), for reasons such as
// "unsupported: ... at file.c:12"; "?" for none.
std::string edgeWhere(const cfa::Edge* e);

}  // namespace argus::algorithms
