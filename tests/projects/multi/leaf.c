#include "multi.h"

int leaf(int x) { return x * 2; }
