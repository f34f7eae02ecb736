// Child-process pool for `argus bench`: runs commands with resource limits,
// up to N at a time, in one thread (poll loop over the children's pipes).
//
// Each child gets its own process group (so the whole group can be killed),
// stdin from /dev/null, RLIMIT_CPU (soft -> SIGXCPU, hard -> SIGKILL),
// RLIMIT_AS, no core dumps. The parent kills the group when the wall-clock
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
  std::uint64_t memoryBytes = 0;  // RLIMIT_AS (0 = none)
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
