/* Argus's C library models (core/frontend/models/libc_models.c) against glibc, natively:
 * the test LibcModels.AgreeWithGlibcNatively (test_builtins.cpp) compiles this file with
 * -I core/frontend/models and runs it; it exits 0 when every model gives glibc's result
 * (the sign for the comparison functions, whose magnitude C leaves unspecified) on
 * every input below, and the undefined cases reach __argus_undefined.
 *
 * The intrinsics: __argus_nondet_int() returns 1, and a failed __argus_assume is
 * recorded; a model that wanted a negative value (any_with_sign) shows as a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
int __argus_nondet_int(void) { return 1; }
static int assume_failed;
void __argus_assume(int c) { if (!c) assume_failed = 1; }
static int undefined_hit;
void __argus_undefined(const char *w) { undefined_hit = 1; }
#include "libc_models.c"
static int sgn(int x) { return (x > 0) - (x < 0); }
#define MS(call) (assume_failed = 0, msgn(call))
static int msgn(int r) { return assume_failed ? -1 : sgn(r); }
int main(void) {
  int bad = 0;
  /* ctype over all values */
  for (int c = -1; c < 256; c++) {
#define CHK(f) if ((!!__argus_c_##f(c)) != (!!f(c))) { printf(#f " %d\n", c); bad++; }
    CHK(isalpha) CHK(isdigit) CHK(isalnum) CHK(isspace) CHK(isupper) CHK(islower) CHK(isxdigit) CHK(isprint) CHK(ispunct) CHK(iscntrl) CHK(isgraph) CHK(isblank)
    assume_failed = 0; if ((__argus_isalpha(c) != 0) != (isalpha(c) != 0) || (__argus_ispunct(c) != 0) != (ispunct(c) != 0) || assume_failed) { printf("pred %d\n", c); bad++; }
    if (__argus_toupper(c) != toupper(c) || __argus_tolower(c) != tolower(c)) { printf("case %d\n", c); bad++; }
  }
  for (int c = -128; c < 256; c++) {
    if (__argus_ctype_b(c) != (*__ctype_b_loc())[c]) { printf("table %d: %x %x\n", c, __argus_ctype_b(c), (*__ctype_b_loc())[c]); bad++; }
    if (__argus_ctype_tolower(c) != (*__ctype_tolower_loc())[c] || __argus_ctype_toupper(c) != (*__ctype_toupper_loc())[c]) { printf("case table %d\n", c); bad++; }
  }
  const char *strs[] = {"", "0", "  -0x1fZ", "0777", "99999999999999999999", "-12abc", "+", "0x", "-1", "-9223372036854775808", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "-18446744073709551615", "-18446744073709551616", "z", "\t\n 42", "0X1G", "0x10", "-0", " +077", "1e5", "zz", "Zz9", "0b101", "   ", "-", "2147483648", "-2147483648", "-2147483649", "4294967296", "0x7fffffffffffffff", "0xffffffffffffffffff", "123456789012345678901234567890"};
  int bases[] = {0, 2, 8, 10, 16, 36};
  for (unsigned i = 0; i < sizeof strs / sizeof *strs; i++) for (unsigned b = 0; b < sizeof bases / sizeof *bases; b++) {
    const char *s = strs[i]; int base = bases[b]; char *e1, *e2; int er1, er2;
    errno = 0; __argus_errno_value = 0;
    long v1 = strtol(s, &e1, base); er1 = errno; long v2 = __argus_strtol(s, &e2, base); er2 = __argus_errno_value;
    if (v1 != v2 || e1 != e2 || er1 != er2) { printf("strtol '%s' %d: %ld %ld %d %d %d %d\n", s, base, v1, v2, (int)(e1 - s), (int)(e2 - s), er1, er2); bad++; }
    errno = 0; __argus_errno_value = 0;
    unsigned long u1 = strtoul(s, &e1, base); er1 = errno; unsigned long u2 = __argus_strtoul(s, &e2, base); er2 = __argus_errno_value;
    if (u1 != u2 || e1 != e2 || er1 != er2) { printf("strtoul '%s' %d: %lu %lu %d %d\n", s, base, u1, u2, er1, er2); bad++; }
    errno = 0; __argus_errno_value = 0;
    long long l1 = strtoll(s, &e1, base); er1 = errno; long long l2 = __argus_strtoll(s, &e2, base); er2 = __argus_errno_value;
    if (l1 != l2 || e1 != e2 || er1 != er2) { printf("strtoll '%s' %d\n", s, base); bad++; }
    errno = 0; __argus_errno_value = 0;
    unsigned long long q1 = strtoull(s, &e1, base); er1 = errno; unsigned long long q2 = __argus_strtoull(s, &e2, base); er2 = __argus_errno_value;
    if (q1 != q2 || e1 != e2 || er1 != er2) { printf("strtoull '%s' %d\n", s, base); bad++; }
    if (b == 0) {
      undefined_hit = 0; int a2 = __argus_atoi(s); if (!undefined_hit && a2 != atoi(s)) { printf("atoi %s\n", s); bad++; }
      undefined_hit = 0; long a3 = __argus_atol(s); if (!undefined_hit && a3 != atol(s)) { printf("atol %s\n", s); bad++; }
    }
  }
  /* strings */
  const char *ss[] = {"", "a", "ab", "abc", "abd", "b", "hello", "hellO", "hello, world", "\xff", "a\xff"};
  unsigned n = sizeof ss / sizeof *ss;
  for (unsigned i = 0; i < n; i++) {
    for (int c = 0; c < 256; c += 1) {
      if (__argus_strchr(ss[i], c) != strchr(ss[i], c) || __argus_strrchr(ss[i], c) != strrchr(ss[i], c)) { printf("strchr %u %d\n", i, c); bad++; }
      if (__argus_memchr(ss[i], c, strlen(ss[i])) != memchr(ss[i], c, strlen(ss[i]))) { printf("memchr\n"); bad++; }
    }
    for (unsigned j = 0; j < n; j++) {
      if (MS(__argus_strcmp(ss[i], ss[j])) != sgn(strcmp(ss[i], ss[j]))) { printf("strcmp %u %u\n", i, j); bad++; }
      for (unsigned k = 0; k < 6; k++) {
        if (MS(__argus_strncmp(ss[i], ss[j], k)) != sgn(strncmp(ss[i], ss[j], k))) { printf("strncmp\n"); bad++; }
        unsigned m = k; if (m > strlen(ss[i]) + 1) m = strlen(ss[i]) + 1; if (m > strlen(ss[j]) + 1) m = strlen(ss[j]) + 1;
        if (MS(__argus_memcmp(ss[i], ss[j], m)) != sgn(memcmp(ss[i], ss[j], m))) { printf("memcmp\n"); bad++; }
      }
      char b1[64], b2[64];
      memset(b1, 'x', 64); memset(b2, 'x', 64);
      strcpy(b1, ss[i]); __argus_strcpy(b2, ss[i]); strcat(b1, ss[j]); __argus_strcat(b2, ss[j]);
      if (memcmp(b1, b2, 64)) { printf("strcpy/cat\n"); bad++; }
      for (unsigned k = 0; k < 8; k++) { memset(b1, 'x', 64); memset(b2, 'x', 64); strncpy(b1, ss[i], k); __argus_strncpy(b2, ss[i], k); if (memcmp(b1, b2, 64)) { printf("strncpy\n"); bad++; } }
    }
  }
  { int ub[] = {1, 37, -1}; for (int k = 0; k < 3; k++) { undefined_hit = 0; __argus_strtol("5", 0, ub[k]); if (!undefined_hit) bad++; } }
  int ints[] = {0, 1, -1, 5, -5, INT_MAX, INT_MIN + 1};
  for (unsigned i = 0; i < 7; i++) if (__argus_abs(ints[i]) != abs(ints[i])) bad++;
  undefined_hit = 0; __argus_abs(INT_MIN); if (!undefined_hit) bad++;
  printf("bad = %d, assume_failed = %d\n", bad, assume_failed);
  return bad != 0;
}
