// Bit-vector operations on concrete values of width 1..64, with SMT-LIB semantics.
//
// Values are unsigned 64-bit integers holding the low `w` bits (higher bits must be
// zero on input and are zero on output). These functions are the constant folder of
// TermManager and can serve any concrete interpreter that must agree with the solver:
//  - arithmetic wraps modulo 2^w;
//  - udiv(x, 0) = all ones, urem(x, 0) = x;
//  - sdiv/srem are defined through udiv/urem on magnitudes as in SMT-LIB, hence
//    sdiv(x, 0) = (x >= 0 ? -1 : 1), srem(x, 0) = x, sdiv(INT_MIN, -1) = INT_MIN;
//  - shifts by an amount >= w give 0 (shl, lshr) or the sign fill (ashr).
#pragma once

#include <cstdint>

namespace argus::smt::bv {

inline uint64_t mask(uint32_t w) { return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1; }
inline bool msb(uint64_t a, uint32_t w) { return (a >> (w - 1)) & 1; }
// Two's-complement value of the low w bits.
inline int64_t toSigned(uint64_t a, uint32_t w) {
  if (w >= 64) return static_cast<int64_t>(a);
  return msb(a, w) ? static_cast<int64_t>(a | ~mask(w)) : static_cast<int64_t>(a);
}

inline uint64_t neg(uint64_t a, uint32_t w) { return (~a + 1) & mask(w); }
inline uint64_t bnot(uint64_t a, uint32_t w) { return ~a & mask(w); }
inline uint64_t add(uint64_t a, uint64_t b, uint32_t w) { return (a + b) & mask(w); }
inline uint64_t sub(uint64_t a, uint64_t b, uint32_t w) { return (a - b) & mask(w); }
inline uint64_t mul(uint64_t a, uint64_t b, uint32_t w) { return (a * b) & mask(w); }
inline uint64_t udiv(uint64_t a, uint64_t b, uint32_t w) { return b == 0 ? mask(w) : a / b; }
inline uint64_t urem(uint64_t a, uint64_t b, uint32_t w) { return b == 0 ? a : a % b; }
uint64_t sdiv(uint64_t a, uint64_t b, uint32_t w);
uint64_t srem(uint64_t a, uint64_t b, uint32_t w);
inline uint64_t band(uint64_t a, uint64_t b) { return a & b; }
inline uint64_t bor(uint64_t a, uint64_t b) { return a | b; }
inline uint64_t bxor(uint64_t a, uint64_t b) { return a ^ b; }
inline uint64_t shl(uint64_t a, uint64_t b, uint32_t w) { return b >= w ? 0 : (a << b) & mask(w); }
inline uint64_t lshr(uint64_t a, uint64_t b, uint32_t w) { return b >= w ? 0 : a >> b; }
uint64_t ashr(uint64_t a, uint64_t b, uint32_t w);
inline bool ult(uint64_t a, uint64_t b) { return a < b; }
inline bool ule(uint64_t a, uint64_t b) { return a <= b; }
inline bool slt(uint64_t a, uint64_t b, uint32_t w) { return toSigned(a, w) < toSigned(b, w); }
inline bool sle(uint64_t a, uint64_t b, uint32_t w) { return toSigned(a, w) <= toSigned(b, w); }
// Bits hi..lo of a (hi < 64, lo <= hi).
inline uint64_t extract(uint64_t a, uint32_t hi, uint32_t lo) { return (a >> lo) & mask(hi - lo + 1); }
// Sign extension of a w-bit value to `to` bits (to <= 64).
inline uint64_t sext(uint64_t a, uint32_t w, uint32_t to) {
  return static_cast<uint64_t>(toSigned(a, w)) & mask(to);
}

}  // namespace argus::smt::bv
