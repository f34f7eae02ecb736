// Bug: abs of INT_MIN overflows (wraps) and stays negative.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int my_abs(int x) { return x < 0 ? -x : x; }

int main(void) {
  int x = __VERIFIER_nondet_int();
  if (my_abs(x) < 0) reach_error();
  return 0;
}
