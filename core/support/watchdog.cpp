#include "core/support/watchdog.h"

namespace argus::support {

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> l(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::arm(Clock::time_point at) {
  {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return !firing_; });
    armed_ = true;
    at_ = at;
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  cv_.notify_all();
}

void Watchdog::disarm() {
  std::unique_lock<std::mutex> l(m_);
  armed_ = false;
  cv_.wait(l, [&] { return !firing_; });
  cv_.notify_all();
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> l(m_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(l);
      continue;
    }
    if (Clock::now() < at_) {
      cv_.wait_until(l, at_);
      continue;  // re-read: disarmed, re-armed or stopped meanwhile
    }
    armed_ = false;
    firing_ = true;
    ++firings_;
    l.unlock();
    fire_();
    l.lock();
    firing_ = false;
    cv_.notify_all();
  }
}

}  // namespace argus::support
