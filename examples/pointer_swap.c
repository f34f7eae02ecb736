// Bug: swap through pointers, then a wrong expectation about the result.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

void swap(int *p, int *q) {
  int t = *p;
  *p = *q;
  *q = t;
}

int main(void) {
  int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int();
  int a0 = a;
  swap(&a, &b);
  if (b != a0) reach_error();  // holds
  if (a > b + 100) reach_error();  // reachable: nothing relates a and b
  return 0;
}
