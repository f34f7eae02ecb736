#include "multi.h"

static int helper(int x) { return x + 1; }

/* proved only through clamp's body in util.c */
int use_clamp(int x) {
  int y = clamp(x, 0, 10);
  CHECK(y >= 0 && y <= 10);
  return y;
}

/* a real bug across files: make_divisor(3) == 0 */
int divide(int x) {
  int d = make_divisor(x);
  CHECK(d != 0);
  return 100 / d;
}

/* divide's error depends on its parameter (a latent finding, issue 29 item 4); this
   caller passes the bad value, which makes it manifest */
int divide_three(void) { return divide(3); }

/* this file's static helper, not util.c's */
int check_helpers(int x) {
  if (x > -100 && x < 100) CHECK(helper(x) == x + 1);
  return 0;
}

/* util.c's static helper, reached through util_helper */
int cross_static(int x) {
  if (x > -100 && x < 100) CHECK(util_helper(x) == x - 1);
  return 0;
}

int leaf_user(int x) {
  if (x >= 0 && x < 1000) CHECK(leaf(x) % 2 == 0);
  return 0;
}

/* the initial state: counter = 5 from util.c's initialiser, one object in both files */
int main(void) {
  CHECK(counter == 5);
  counter++;
  CHECK(get_counter() == 6);
  return 0;
}
