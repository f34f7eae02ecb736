// A small multi-file project for `argus project` (tests/cli/project.sh).
#ifndef MULTI_H
#define MULTI_H
void reach_error(void);
#define CHECK(c) do { if (!(c)) reach_error(); } while (0)

extern int counter;           /* defined (with an initialiser) in util.c */
int clamp(int x, int lo, int hi);
int make_divisor(int x);
int util_helper(int x);
int get_counter(void);
int leaf(int x);              /* leaf.c */
#endif
