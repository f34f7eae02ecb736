// Loop acceleration: a shortcut path for deep deterministic translation loops.
//
// A loop such as `while (x < 0x0fffffff) x += 2;` runs 2^27 times; no unrolling reaches
// the code after it. accelerateLoops adds, beside such a loop, a path that performs n
// iterations at once for a nondeterministic n >= 1 (the acceleration of a translation,
// as in FAST / Bardin et al. and Jeannet et al., "Abstract acceleration"). The guard's
// positive edge L -> B is redirected through a choice:
//
//   L --assume g--> C --havoc n--> D --assume n == 0--> B   (one ordinary iteration)
//                                  D --assume n != 0--> (guard holds at iterates 0 and
//   n-1, no wraparound on the way) --> x_j := x_j + n*d_j for every updated x_j --> L
//
// (a choice, not a third out-edge of L: the unwinding's merges need the out-edges of a
// location to be mutually exclusive).
//
// Which loops. L has exactly two out-edges, Assume(g) and Assume(!g) of the same
// condition; the positive side leads through locations with exactly one out-edge, each
// a Blank or an Assign `x := x + c` / `x := x - c` (x a register variable, c a
// constant; also the promoted form trunc(ext(x) + c) of char and short, and `i++` as
// t := i; i := t + 1 with a compiler temporary t, which the shortcut sets to its last
// value and the guard must not name), back to L. One
// iteration from L is then deterministic: if g holds, every updated x gains its delta d
// (mod 2^width). The guard g is a conjunction (LAnd) of atoms; an atom either names no
// updated variable (it is invariant: it holds in every iteration if it holds in the
// first), or compares (<, <=, ==, != in either signedness, either side) one updated
// variable v, possibly zero- or sign-extended, with an invariant expression K.
//
// Why it is exact. After i iterations v = v0 + i*d in bit-vector arithmetic, which is
// what the loop computes (the CFA's + wraps modulo 2^width), for every variable; so the
// closing assignments are exact whatever wraps. The guard must hold at each iterate
// i = 0 .. n-1. For an atom on v we ask, in the interpretation (unsigned or signed) the
// comparison reads v in, that v does not wrap up to iterate n-1: with the step D =
// |d| read as a positive step up or down, (n-1) <= (MAX - v0) / D going up, (n-1) <=
// (v0 - MIN) / D going down (all in unsigned w-bit arithmetic, exact because MAX - v0
// and v0 - MIN are in [0, 2^w)). Without wraparound the iterates are strictly monotone,
// so the set of i where `v_i REL K` holds (REL one of <, <=, ==) is an interval of
// integers: it holds at every i in [0, n-1] iff it holds at 0 and at n-1. An
// intersection of intervals is an interval, so the same is true for the conjunction.
// `v != K` holds at every iterate iff K lies outside [v_0, v_{n-1}] (in the monotone
// order) or K - v_0 is not a multiple of D. So the shortcut reaches exactly the states
// that n >= 1 iterations without wraparound of the compared variables reach: a subset of
// what the loop reaches, and the loop itself stays in the CFA (runs that wrap, or that
// leave after fewer iterations, take it).
//
// The shortcut's edges are marked by their text (kAccelerationCountText). The havoc of
// n is no input of the program: a counterexample's nondeterministic values skip it, the
// native harness never sees it, and the replay interpreter (core/result/replay.cpp)
// gives it 0 without consuming a value, so it runs the original loop iteration by
// iteration: a counterexample through a shortcut is confirmed by the loop itself.
#pragma once

#include <cstdint>

#include "core/cfa/cfa.h"

namespace argus::cfa {

// Whether some loop of `p` has the form above as far as its body goes (its guard's atoms
// not yet looked at): when not, accelerateLoops would add nothing (and a caller need not
// copy the program for it).
bool mayAccelerate(const Program& p);

// Adds a shortcut to every loop of every function that has the form above; returns how
// many. Adds locations, edges and one variable per loop; indices of existing
// locations, edges and variables do not change.
uint32_t accelerateLoops(Program& p);

// The text that starts every edge of a shortcut (no C statement starts so).
inline constexpr const char* kAccelerationCountText = "accelerated loop: ";
// Whether e belongs to a shortcut (the choice, the conditions, the assignments).
inline bool isAccelerationEdge(const Edge& e) { return e.text.rfind(kAccelerationCountText, 0) == 0; }
// Whether e is the havoc of a shortcut's iteration count (see above).
inline bool isAccelerationCount(const Edge& e) { return e.kind == EdgeKind::Havoc && isAccelerationEdge(e); }

}  // namespace argus::cfa
