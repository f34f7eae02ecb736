// Wall-clock stopwatch for statistics (solver time, phase timings).
#pragma once

#include <chrono>

namespace argus {

class Stopwatch {
public:
  using Clock = std::chrono::steady_clock;
  Stopwatch() : start_(Clock::now()) {}
  void restart() { start_ = Clock::now(); }
  // Seconds since construction or the last restart().
  double elapsedS() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double elapsedMs() const { return elapsedS() * 1000.0; }

private:
  Clock::time_point start_;
};

}  // namespace argus
