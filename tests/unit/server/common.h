#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

namespace argus::server::test {

inline std::string workerExe() { return std::string(ARGUS_BINARY_DIR) + "/argusd"; }

// Polls `cond` every 10 ms up to `seconds`.
inline bool waitFor(const std::function<bool()>& cond, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "argusd-test-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Runs until the deep stage's timeout: the error needs 2^28 loop iterations.
inline const char* kSlowProgram = R"(
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  unsigned x = 0;
  while (__VERIFIER_nondet_int()) { x++; }
  if (x == 0xFFFFFFF) reach_error();
  return 0;
}
)";

inline const char* kBuggyProgram = R"(
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 42) reach_error();
  return 0;
}
)";

}  // namespace argus::server::test
