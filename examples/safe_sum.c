// Safe: the loop sums 0..n-1 with n bounded; the assertion always holds.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void reach_error(void);
void __VERIFIER_assert(int c) { if (!c) reach_error(); }

int main(void) {
  unsigned int n = __VERIFIER_nondet_uint();
  if (n > 10) return 0;
  unsigned int sum = 0;
  for (unsigned int i = 0; i < n; i++) sum += i;
  __VERIFIER_assert(sum <= 45);
  return 0;
}
