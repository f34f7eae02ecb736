// Replays of long runs: counterexamples through loop-acceleration shortcuts
// (core/cfa/accelerate.h), whose loops the interpreter runs iteration by iteration.
//
// Step limit: the replay of such a program may take billions of steps (a loop of 2^27
// iterations is 2^28 steps, about 2 s); replayStepLimit raises replay()'s limit for it.
//
// Recording: a run keeps every step up to kRecordHead, then only the steps that are not
// Blank, Assume or Assign (havocs, calls, returns, stores, allocations: what a
// counterexample's inputs, objects and calls need), and again every step among the last
// kRecordTail. The ordinary iterations of an accelerated loop that the interpreter runs
// on its fast path (after the first kRecordHead steps) are recorded only for the last
// ones, about kRecordTail steps. ReplayResult::stepCount minus the recorded steps is what
// was left out, all of it after the first kRecordHead steps; ReplayResult::omittedAt is
// where the first of it was, and the counterexample's trace says so there.
#pragma once

#include <cstddef>

#include "core/cfa/cfa.h"

namespace argus::result {

constexpr size_t kRecordHead = 1'000, kRecordTail = 1'000;
constexpr size_t kAcceleratedMaxSteps = 4'000'000'000;

// kAcceleratedMaxSteps if `p` has a loop-acceleration shortcut, else replay()'s default.
size_t replayStepLimit(const cfa::Program& p);

}  // namespace argus::result
