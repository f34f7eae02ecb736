// support::Watchdog: the second line behind a solver's own time limit (z3_solver.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/support/watchdog.h"

using argus::support::Watchdog;
using namespace std::chrono_literals;

namespace {
// Waits (up to 10 s) until done() holds.
template <class F>
void waitFor(F done) {
  auto until = Watchdog::Clock::now() + 10s;
  while (!done() && Watchdog::Clock::now() < until) std::this_thread::sleep_for(1ms);
}
}  // namespace

TEST(Watchdog, FiresOnceWhenTheArmedTimePasses) {
  std::atomic<int> fired{0};
  Watchdog w([&] { ++fired; });
  w.arm(Watchdog::Clock::now() + 50ms);
  waitFor([&] { return fired > 0; });
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(fired.load(), 1);
  EXPECT_EQ(w.firings(), 1u);
}

TEST(Watchdog, DisarmedInTimeNeverFires) {
  std::atomic<int> fired{0};
  Watchdog w([&] { ++fired; });
  for (int i = 0; i < 100; ++i) {
    w.arm(Watchdog::Clock::now() + 1s);
    w.disarm();
  }
  std::this_thread::sleep_for(1200ms);
  EXPECT_EQ(fired.load(), 0);
  EXPECT_EQ(w.firings(), 0u);
}

TEST(Watchdog, ReArmingReplacesTheTime) {
  std::atomic<int> fired{0};
  Watchdog w([&] { ++fired; });
  w.arm(Watchdog::Clock::now() + 100ms);
  w.arm(Watchdog::Clock::now() + 1h);  // the earlier time no longer applies
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(fired.load(), 0);
  w.arm(Watchdog::Clock::now());  // already due
  waitFor([&] { return fired > 0; });
  EXPECT_EQ(fired.load(), 1);
}

TEST(Watchdog, DisarmWaitsForARunningFire) {
  std::atomic<bool> inFire{false}, done{false};
  Watchdog w([&] {
    inFire = true;
    std::this_thread::sleep_for(300ms);
    done = true;
  });
  w.arm(Watchdog::Clock::now());
  waitFor([&] { return inFire.load(); });
  ASSERT_TRUE(inFire.load());
  w.disarm();
  EXPECT_TRUE(done.load());  // what fire touches may be destroyed after disarm()
}
