// The sum of two bounded inputs cannot overflow; the product can.
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int();
  if (a < 0 || a > 1000 || b < 0 || b > 1000) return 0;
  int s = a + b;
  int p = s * __VERIFIER_nondet_int();
  return p;
}
