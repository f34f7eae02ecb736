// A second line of defence behind a library's own time limit.
//
// A solver is given a time limit for each check and normally honours it. Z3 4.8.12 does
// not always: in CI a run with a 60 s limit was still inside one check when ctest killed
// it at 900 s, and on this machine under load, pred's checks with 5-10 s limits came back
// after 12-22 s or were still running at 120 s. The run's deadline, and a daemon job's,
// would be lost. A Watchdog calls `fire` (e.g. the solver's thread-safe interrupt) when an armed
// time passes before disarm(). One background thread per Watchdog, started on the first
// arm(); arming again replaces the previous time.
//
// Contract:
//  - fire runs on the watchdog's thread, at most once per arm().
//  - disarm() returns only after a running fire has finished, so the caller may destroy
//    what fire touches once disarm() (or the destructor) has returned.
//  - firings() counts the times fire ran (stats, tests).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace argus::support {

class Watchdog {
public:
  using Clock = std::chrono::steady_clock;
  explicit Watchdog(std::function<void()> fire) : fire_(std::move(fire)) {}
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(Clock::time_point at);
  void disarm();
  unsigned firings() const {
    std::lock_guard<std::mutex> l(m_);
    return firings_;
  }

private:
  void loop();

  std::function<void()> fire_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
  bool armed_ = false, stop_ = false, firing_ = false;
  Clock::time_point at_{};
  unsigned firings_ = 0;
};

}  // namespace argus::support
