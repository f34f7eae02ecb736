// Child-process pool for `argus bench`: runs commands with resource limits,
// up to N at a time, in one thread (poll loop over the children's pipes).
//
// Each child gets its own process group (so the whole group can be killed),
// stdin from /dev/null, RLIMIT_CPU (soft -> SIGXCPU, hard -> SIGKILL),
// RLIMIT_AS (soft), no core dumps. The parent kills the group when the wall-clock
// limit passes, and also right after the child exits (stray grandchildren).
// CPU time and peak RSS come from wait4()'s rusage.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace argus::cli::bench {

struct ChildLimits {
  int cpuSoftSec = 0;             // RLIMIT_CPU soft (0 = none)
  int cpuHardSec = 0;             // RLIMIT_CPU hard (>= soft)
  // RLIMIT_AS soft limit (0 = none). Only the soft limit: the hard limit stays what the
  // parent has, so the verifier's native check can lift it for a sanitizer build, whose
  // shadow memory is a reservation of terabytes (issue 26; liftAddressSpace below).
  std::uint64_t memoryBytes = 0;
  // Raise the soft RLIMIT_AS to the hard limit (when memoryBytes is 0): for a program
  // built with AddressSanitizer, which cannot start under a few-GB address-space limit.
  bool liftAddressSpace = false;
  double wallSec = 0;             // parent watchdog (0 = none)
};

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0]: executable (searched in PATH if no '/')
  ChildLimits limits;
};

struct ChildResult {
  bool started = false;
  std::string startError;  // fork/pipe failure
  bool exited = false;     // normal exit (exitCode valid)
  int exitCode = 0;
  int termSignal = 0;      // signal that ended the child, if !exited
  bool wallKilled = false;   // killed by the wall-clock watchdog
  bool interrupted = false;  // killed because the run was interrupted
  std::string out;           // captured stdout (capped)
  bool outTruncated = false;
  std::string errTail;       // last bytes of stderr
  double cpuSec = 0;         // user + system
  double wallSec = 0;
  double maxRssMb = 0;
};

struct PoolOptions {
  int jobs = 1;  // cores to fill
  // Cores one child uses (a verifier whose strategy runs two processes in parallel
  // counts as 2): at most max(1, jobs / coresPerTask) children run at once.
  int coresPerTask = 1;
  std::size_t maxStdoutBytes = 64u << 20;
  std::size_t stderrTailBytes = 2048;
  // When set and non-zero, running children are killed and no new ones start.
  const volatile std::sig_atomic_t* stopFlag = nullptr;
  std::function<void(std::size_t index)> onStart;  // optional
  std::function<void()> onTick;                     // optional, ~every 250 ms
};

// Runs specs (in order, up to opts.jobs at once) and calls done(index, result)
// as each child finishes. After a stop, unstarted specs are not reported.
void runChildren(const std::vector<ChildSpec>& specs, const PoolOptions& opts,
                 const std::function<void(std::size_t, ChildResult)>& done);

}  // namespace argus::cli::bench
