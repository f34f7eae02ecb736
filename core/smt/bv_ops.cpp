#include "core/smt/bv_ops.h"

namespace argus::smt::bv {

uint64_t sdiv(uint64_t a, uint64_t b, uint32_t w) {
  bool na = msb(a, w), nb = msb(b, w);
  uint64_t ma = na ? neg(a, w) : a, mb = nb ? neg(b, w) : b;
  uint64_t q = udiv(ma, mb, w);
  return na != nb ? neg(q, w) : q;
}

uint64_t srem(uint64_t a, uint64_t b, uint32_t w) {
  bool na = msb(a, w), nb = msb(b, w);
  uint64_t ma = na ? neg(a, w) : a, mb = nb ? neg(b, w) : b;
  uint64_t r = urem(ma, mb, w);
  return na ? neg(r, w) : r;  // the remainder takes the dividend's sign
}

uint64_t ashr(uint64_t a, uint64_t b, uint32_t w) {
  bool s = msb(a, w);
  if (b >= w) return s ? mask(w) : 0;
  uint64_t r = a >> b;
  if (s && b > 0) r |= mask(w) & ~(mask(w) >> b);
  return r;
}

}  // namespace argus::smt::bv
