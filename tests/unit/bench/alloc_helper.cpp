// Test helper for test_bench: allocates and touches memory 1 MB at a time until
// allocation fails (std::bad_alloc -> terminate -> SIGABRT), like a verifier
// running into its RLIMIT_AS. Stops at 2 GB in case no limit is set.
#include <cstring>
#include <memory>
#include <vector>

int main() {
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 2048; ++i) {
    blocks.emplace_back(new char[1 << 20]);
    std::memset(blocks.back().get(), i & 0xff, 1 << 20);
  }
  return blocks.size() == 2048 ? 0 : 1;
}
