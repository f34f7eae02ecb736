// A double free on one path: valid-free is violated, nothing else.
void *malloc(unsigned long size);
void free(void *p);
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int *p = malloc(sizeof(int));
  if (!p) return 0;
  *p = 1;
  free(p);
  if (__VERIFIER_nondet_int()) free(p);
  return 0;
}
