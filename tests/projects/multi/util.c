#include "multi.h"

int counter = 5;

/* file-local: main.c has its own helper with another body */
static int helper(int x) { return x - 1; }

int clamp(int x, int lo, int hi) {
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}

/* can return 0: the caller in main.c divides by it */
int make_divisor(int x) { return x % 3; }

int util_helper(int x) { return helper(x); }

int get_counter(void) { return counter; }
