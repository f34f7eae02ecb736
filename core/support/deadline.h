// Wall-clock deadlines and CPU time, shared by all algorithms.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <sys/resource.h>
#include <unistd.h>

namespace argus::support {

class Deadline {
public:
  using Clock = std::chrono::steady_clock;
  static Deadline never() { return Deadline(Clock::time_point::max()); }
  static Deadline in(double seconds) {
    if (seconds <= 0) return never();
    return Deadline(Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
  }
  explicit Deadline(Clock::time_point t) : at_(t) {}
  bool expired() const { return Clock::now() >= at_; }
  bool isNever() const { return at_ == Clock::time_point::max(); }
  Clock::time_point at() const { return at_; }
  // Remaining milliseconds (at least 1), or 0 when there is no deadline.
  unsigned remainingMs() const {
    if (isNever()) return 0;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(at_ - Clock::now()).count();
    return ms < 1 ? 1u : static_cast<unsigned>(ms);
  }

private:
  Clock::time_point at_;
};

// A time budget for one operation (conditional model checking's "time per post"):
// CPA++ arms it around the computation of one successor; code that can take long
// (the predicate CPA's solver queries) checks it, bounds its queries by it and throws
// BudgetExceeded when it is used up. Disarmed, it limits nothing.
class OperationBudget {
public:
  void arm(unsigned ms) {
    until_ = Deadline::Clock::now() + std::chrono::milliseconds(ms);
    armed_ = true;
  }
  void disarm() { armed_ = false; }
  bool armed() const { return armed_; }
  bool expired() const { return armed_ && Deadline::Clock::now() >= until_; }
  // Remaining milliseconds (at least 1) while armed, else 0.
  unsigned remainingMs() const {
    if (!armed_) return 0;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(until_ - Deadline::Clock::now()).count();
    return ms < 1 ? 1u : static_cast<unsigned>(ms);
  }

private:
  bool armed_ = false;
  Deadline::Clock::time_point until_{};
};

struct BudgetExceeded : std::runtime_error {
  BudgetExceeded() : std::runtime_error("operation budget exceeded") {}
};

// Resident memory of this process in MiB (0 if unknown).
inline uint64_t residentMemoryMb() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, rss = 0;
  int n = std::fscanf(f, "%llu %llu", &size, &rss);
  std::fclose(f);
  if (n != 2) return 0;
  return rss * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) / (1024 * 1024);
}

// A cap on this process's resident memory for the loops that build formulas (the BMC
// unwinding checks it with its deadline and ends the run "out of memory", keeping the
// bound it verified); 0 = none. argusd's workers set it (--job-memory-mb), so a job's
// burst ends as a conditional answer rather than the job killed over the budget.
inline std::atomic<uint64_t>& processMemoryLimitMbRef() {
  static std::atomic<uint64_t> mb{0};
  return mb;
}
inline void setProcessMemoryLimitMb(uint64_t mb) { processMemoryLimitMbRef() = mb; }
inline uint64_t processMemoryLimitMb() { return processMemoryLimitMbRef(); }
// Whether this process is over that cap (reads /proc every `every`-th call only).
inline bool overProcessMemoryLimit(unsigned every = 256) {
  uint64_t cap = processMemoryLimitMb();
  if (!cap) return false;
  static thread_local unsigned calls = 0;
  if (++calls % every != 0) return false;
  return residentMemoryMb() > cap;
}

// CPU time (user + system) of this process, in seconds.
inline double processCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

// CPU time of this process plus that of its children that have been waited for (the
// members of a parallel chain stage run in child processes): what a run cost.
inline double processTreeCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  return processCpuSeconds() + ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec / 1e6;
}

// CPU time (user + system) of another process of ours, e.g. a parallel stage's member,
// from /proc/PID/stat (utime, stime: fields 14 and 15); 0 if it cannot be read.
inline double processCpuSecondsOf(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (!f) return 0;
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');  // the command name may hold spaces
  if (!p) return 0;
  unsigned long long utime = 0, stime = 0;
  // after ")": state (field 3) … utime (14), stime (15)
  if (std::sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return 0;
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace argus::support
