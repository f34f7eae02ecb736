// Safe: the maximum of an array is at least every element.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
#define N 5

int main(void) {
  int a[N];
  for (int i = 0; i < N; i++) a[i] = __VERIFIER_nondet_int();
  int max = a[0];
  for (int i = 1; i < N; i++)
    if (a[i] > max) max = a[i];
  for (int i = 0; i < N; i++)
    if (a[i] > max) reach_error();
  return 0;
}
