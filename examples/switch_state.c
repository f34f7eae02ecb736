// Bug: a state machine reaches the error state after the input sequence 1, 2, 3.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int state = 0;
  for (int step = 0; step < 4; step++) {
    int in = __VERIFIER_nondet_int();
    switch (state) {
      case 0: state = in == 1 ? 1 : 0; break;
      case 1: state = in == 2 ? 2 : 0; break;
      case 2: if (in == 3) { state = 3; break; } /* fall through */
      default: state = 0;
    }
    if (state == 3) reach_error();
  }
  return 0;
}
