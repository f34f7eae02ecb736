// The memory-safety layout (issue 26), continued from `cfa::memlayout` in
// core/cfa/cfa.h: the register that counts heap blocks, and pointers outside their
// object.
//
// The live-heap count. valid-memtrack and valid-memcleanup read the number of allocated
// heap blocks at termination. It is the register global kLiveHeapVar (pointer width; 0 at
// every entry: both initialisation functions set it; +1 per heap allocation, -1 per valid
// free), not a memory cell, so the invariant generators see it as an ordinary integer: a
// loop that does not allocate keeps it, and the k-induction step case, whose memory is
// arbitrary, knows its value at the loop head. Traces do not show it
// (core/algorithms/common/counterexample.cpp) and witnesses drop facts over `__` names.
//
// Pointers outside their object. C defines pointer arithmetic only within an object and
// one past its end, but SV-COMP's memory safety (as CPAchecker and ESBMC check it) counts
// dereferences, frees and leaks: `(p + 3) - 4` with p at an object's start is no
// violation as long as it is not dereferenced. So a pointer may point up to belowRoom
// bytes before its object's start (into the top of the previous id's range) and up to the
// end of its id's range past it: the object a pointer belongs to is its *provenance*
// provId(p) = (p + belowRoom) >> objectBits, a function of the address alone. No object
// is larger than maxObjectSize = (1 << objectBits) - belowRoom, so an address below an
// object's start (an offset >= maxObjectSize in the previous id's range) is outside every
// object: a dereference there is a violation for the check edges and the replay
// interpreter alike, as it is for the object the pointer came from; `q[i]` from such a q
// back into its object is valid (the check compares the accessed id with q's
// provenance). Arithmetic by a non-constant amount whose result has another provenance
// than its operand makes the path unsupported (Lowerer::ptrOffset); a constant step is not
// guarded (a pointer must already be near the edge of its range, 2^(objectBits-4) bytes
// away from its object, for it to leave). Comparisons and differences are plain address
// arithmetic, exact while both pointers keep their provenance.
#pragma once

#include <cstdint>

namespace argus::cfa::memlayout {

constexpr const char* kLiveHeapVar = "__argus_live_heap";
inline uint64_t belowRoom(uint32_t objectBits) { return uint64_t(1) << (objectBits - 4); }
inline uint64_t maxObjectSize(uint32_t objectBits) { return (uint64_t(1) << objectBits) - belowRoom(objectBits); }

}  // namespace argus::cfa::memlayout
