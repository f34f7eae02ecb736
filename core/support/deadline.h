// Wall-clock deadlines and CPU time, shared by all algorithms.
#pragma once

#include <chrono>

#include <sys/resource.h>

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

// CPU time (user + system) of this process, in seconds.
inline double processCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

}  // namespace argus::support
