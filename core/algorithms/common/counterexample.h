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

// A latent path's needless nulls (README "Manifest and latent findings"): the entry
// harness's null choices the path took ("p->next is null") are tried as "object" instead,
// one at a time in path order; a flip is kept when the replay still reaches the same Error
// edge with fewer input decisions. A null the error does not need is then no part of the
// precondition (and a path left without decisions is manifest). Returns the run to report;
// `in` holds its inputs. Nothing changes for an entry whose inputs are not tracked (main).
result::ReplayResult withoutNeedlessNulls(const cfa::Program& prog, cfa::FuncId entry, result::ReplayInput& in,
                                          result::ReplayResult run, size_t maxSteps);

// "file.c:LINE" of an edge (base name of the file), for reasons such as
// "unsupported: ... at file.c:12"; "?" for none.
std::string edgeWhere(const cfa::Edge* e);

}  // namespace argus::algorithms
