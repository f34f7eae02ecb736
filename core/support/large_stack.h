// Running deeply recursive third-party code on a big stack.
//
// SMT solvers recurse over term structure in places (preprocessing, model evaluation,
// destruction), and formulas produced by long unrollings can be 100k+ levels deep, which
// overflows the default 8 MiB thread stack. runOnLargeStack() switches the current
// thread onto a large, lazily committed stack (reserved once per thread, pages are only
// backed by memory when touched), runs `fn` there and switches back. It stays on the
// same thread, so thread-local state of the called library (e.g. cvc5's per-thread node
// manager) is unaffected, and another thread may still interrupt the work.
//
// Contract:
//  - Exceptions thrown by fn propagate to the caller unchanged.
//  - Nested calls (fn calling runOnLargeStack again) simply run the inner fn in place.
//  - If the stack cannot be reserved, fn runs on the normal stack.
//  - Not async-signal-safe; do not longjmp out of fn.
#pragma once

#include <cstddef>
#include <functional>

namespace argus {

void runOnLargeStack(const std::function<void()>& fn);

// Size in bytes of the per-thread stack used by runOnLargeStack().
std::size_t largeStackBytes();

}  // namespace argus
