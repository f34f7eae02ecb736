#include "core/support/large_stack.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <exception>
#include <utility>

namespace argus {
namespace {

constexpr std::size_t kStackBytes = std::size_t(1) << 30;  // 1 GiB reserved, committed lazily

struct ThreadStack {
  void* base = nullptr;        // start of the mapping (guard page first)
  std::size_t mapped = 0;
  std::size_t guard = 0;
  bool failed = false;         // reservation failed once: do not retry on this thread
  bool active = false;         // currently running on this stack
  ucontext_t caller{}, callee{};
  const std::function<void()>* fn = nullptr;
  std::exception_ptr error;

  ~ThreadStack() {
    if (base) munmap(base, mapped);
  }

  bool reserve() {
    if (base) return true;
    if (failed) return false;
    guard = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    mapped = kStackBytes + guard;
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) {
      failed = true;
      return false;
    }
    // Stacks grow down: the lowest page traps an overflow instead of corrupting memory.
    mprotect(p, guard, PROT_NONE);
    base = p;
    return true;
  }
};

thread_local ThreadStack tls;

void trampoline() {
  try {
    (*tls.fn)();
  } catch (...) {
    tls.error = std::current_exception();
  }
  // Returning resumes uc_link, i.e. the caller's context.
}

}  // namespace

void runOnLargeStack(const std::function<void()>& fn) {
  ThreadStack& s = tls;
  if (s.active || !s.reserve()) {
    fn();
    return;
  }
  if (getcontext(&s.callee) != 0) {
    fn();
    return;
  }
  s.callee.uc_stack.ss_sp = static_cast<char*>(s.base) + s.guard;
  s.callee.uc_stack.ss_size = kStackBytes;
  s.callee.uc_link = &s.caller;
  makecontext(&s.callee, trampoline, 0);
  s.fn = &fn;
  s.error = nullptr;
  s.active = true;
  swapcontext(&s.caller, &s.callee);
  s.active = false;
  s.fn = nullptr;
  if (s.error) std::rethrow_exception(std::exchange(s.error, nullptr));
}

std::size_t largeStackBytes() { return kStackBytes; }

}  // namespace argus
