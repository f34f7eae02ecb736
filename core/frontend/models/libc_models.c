/* Argus's models of C library functions, in C.
 *
 * The frontend compiles this file with every program (an -include from memory, marked
 * as a system header) and lowers a model only when the program calls the library
 * function it models without defining it (core/frontend/lower_libc.cpp maps `NAME` to
 * `__argus_NAME`). The models are ordinary C: their loops are unwound, abstracted and
 * replayed like the program's own, so every algorithm and the replay interpreter
 * execute the same semantics.
 *
 * Three intrinsics, lowered by the frontend (and __argus_requires, __argus_valid,
 * __argus_valid_range for contracts, core/frontend/lower_contracts.cpp):
 *   __argus_nondet_int()       a value the C standard leaves unspecified (Havoc)
 *   __argus_assume(c)          the path continues only if c holds
 *   __argus_undefined("what")  undefined behaviour: the path is Unsupported, and a
 *                              verdict that depends on it is unknown naming `what`
 *
 * Semantics are C11's for the "C" locale. Where C leaves a result unspecified (the
 * magnitude of strcmp's result, the nonzero value of isalpha), the model returns any
 * value of the specified sign, so a verdict never depends on one library's choice.
 * Types come from the target (__SIZE_TYPE__, __LONG_MAX__), so one source serves
 * ILP32 and LP64. Only names reserved to the implementation are declared here.
 */
#pragma GCC system_header

typedef __SIZE_TYPE__ __argus_size_t;

int __argus_nondet_int(void);
void __argus_assume(int);
void __argus_undefined(const char *);
/* Contracts (core/frontend/contracts.h): the rewritten `requires` clauses call these. */
void __argus_requires(_Bool, int);
int __argus_valid(const void *, __argus_size_t);
int __argus_valid_range(const void *, long long, long long, __argus_size_t);

/* ---------------------------------------------------------------- helpers */

/* Any value with the sign of d (C: "greater than, equal to, or less than zero"). */
static int __argus_any_with_sign(int d) {
  if (d == 0) return 0;
  int r = __argus_nondet_int();
  __argus_assume(d < 0 ? r < 0 : r > 0);
  return r;
}

/* Any nonzero value if b, else 0 (the <ctype.h> predicates: "nonzero if and only if"). */
static int __argus_any_true(int b) {
  if (!b) return 0;
  int r = __argus_nondet_int();
  __argus_assume(r != 0);
  return r;
}

/* errno (glibc: `errno` is `(*__errno_location ())`) */
static int __argus_errno_value;
static int *__argus___errno_location(void) { return &__argus_errno_value; }
#define __ARGUS_ERANGE 34

/* ---------------------------------------------------------------- <string.h> */

/* strlen is lowered inline (core/frontend/lower_call.cpp): the same loop, no call. */

static int __argus_strcmp(const char *a, const char *b) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  while (*p != 0 && *p == *q) {
    p++;
    q++;
  }
  return __argus_any_with_sign((int)*p - (int)*q);
}

static int __argus_strncmp(const char *a, const char *b, __argus_size_t n) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  for (; n != 0; n--, p++, q++) {
    if (*p != *q) return __argus_any_with_sign((int)*p - (int)*q);
    if (*p == 0) return 0;
  }
  return 0;
}

static int __argus_memcmp(const void *a, const void *b, __argus_size_t n) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  for (; n != 0; n--, p++, q++)
    if (*p != *q) return __argus_any_with_sign((int)*p - (int)*q);
  return 0;
}

static char *__argus_strcpy(char *dst, const char *src) {
  char *d = dst;
  while ((*d = *src) != 0) {
    d++;
    src++;
  }
  return dst;
}

/* Copies at most n bytes; pads with null bytes up to n when src is shorter. */
static char *__argus_strncpy(char *dst, const char *src, __argus_size_t n) {
  __argus_size_t i = 0;
  for (; i < n && src[i] != 0; i++) dst[i] = src[i];
  for (; i < n; i++) dst[i] = 0;
  return dst;
}

static char *__argus_strcat(char *dst, const char *src) {
  char *d = dst;
  while (*d != 0) d++;
  while ((*d = *src) != 0) {
    d++;
    src++;
  }
  return dst;
}

/* The terminating null byte is part of the string: strchr(s, 0) finds it. */
static char *__argus_strchr(const char *s, int c) {
  char ch = (char)c;
  for (;; s++) {
    if (*s == ch) return (char *)s;
    if (*s == 0) return 0;
  }
}

static char *__argus_strrchr(const char *s, int c) {
  char ch = (char)c;
  const char *last = 0;
  for (;; s++) {
    if (*s == ch) last = s;
    if (*s == 0) return (char *)last;
  }
}

static void *__argus_memchr(const void *s, int c, __argus_size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  unsigned char ch = (unsigned char)c;
  for (; n != 0; n--, p++)
    if (*p == ch) return (void *)p;
  return 0;
}

/* ---------------------------------------------------------------- <ctype.h>, "C" locale */

/* The argument must be EOF or a value of unsigned char (C11 7.4p1). */
static int __argus_ctype_arg(int c) {
  if (c < -1 || c > 255) __argus_undefined("<ctype.h> function applied to a value that is neither EOF nor an unsigned char");
  return c;
}
static int __argus_c_isupper(int c) { return c >= 'A' && c <= 'Z'; }
static int __argus_c_islower(int c) { return c >= 'a' && c <= 'z'; }
static int __argus_c_isdigit(int c) { return c >= '0' && c <= '9'; }
static int __argus_c_isalpha(int c) { return __argus_c_isupper(c) || __argus_c_islower(c); }
static int __argus_c_isalnum(int c) { return __argus_c_isalpha(c) || __argus_c_isdigit(c); }
static int __argus_c_isxdigit(int c) { return __argus_c_isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int __argus_c_isspace(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static int __argus_c_isblank(int c) { return c == ' ' || c == '\t'; }
static int __argus_c_iscntrl(int c) { return (c >= 0 && c < 32) || c == 127; }
static int __argus_c_isprint(int c) { return c >= 32 && c < 127; }
static int __argus_c_isgraph(int c) { return c > 32 && c < 127; }
static int __argus_c_ispunct(int c) { return __argus_c_isgraph(c) && !__argus_c_isalnum(c); }

static int __argus_isupper(int c) { return __argus_any_true(__argus_c_isupper(__argus_ctype_arg(c))); }
static int __argus_islower(int c) { return __argus_any_true(__argus_c_islower(__argus_ctype_arg(c))); }
static int __argus_isdigit(int c) { return __argus_any_true(__argus_c_isdigit(__argus_ctype_arg(c))); }
static int __argus_isalpha(int c) { return __argus_any_true(__argus_c_isalpha(__argus_ctype_arg(c))); }
static int __argus_isalnum(int c) { return __argus_any_true(__argus_c_isalnum(__argus_ctype_arg(c))); }
static int __argus_isxdigit(int c) { return __argus_any_true(__argus_c_isxdigit(__argus_ctype_arg(c))); }
static int __argus_isspace(int c) { return __argus_any_true(__argus_c_isspace(__argus_ctype_arg(c))); }
static int __argus_isblank(int c) { return __argus_any_true(__argus_c_isblank(__argus_ctype_arg(c))); }
static int __argus_iscntrl(int c) { return __argus_any_true(__argus_c_iscntrl(__argus_ctype_arg(c))); }
static int __argus_isprint(int c) { return __argus_any_true(__argus_c_isprint(__argus_ctype_arg(c))); }
static int __argus_isgraph(int c) { return __argus_any_true(__argus_c_isgraph(__argus_ctype_arg(c))); }
static int __argus_ispunct(int c) { return __argus_any_true(__argus_c_ispunct(__argus_ctype_arg(c))); }
static int __argus_toupper(int c) { return __argus_c_islower(__argus_ctype_arg(c)) ? c - 'a' + 'A' : c; }
static int __argus_tolower(int c) { return __argus_c_isupper(__argus_ctype_arg(c)) ? c - 'A' + 'a' : c; }

/* glibc's <ctype.h> macros read (*__ctype_b_loc())[(int) c] and mask one bit; the
 * frontend lowers that element read to this function: the "C" locale's table entry,
 * with glibc's bit values on a little-endian target (<ctype.h>'s _ISbit). glibc's table
 * covers -128..255 (the entries below -1 are those of the unsigned char values, all
 * zero in the "C" locale); other indices read outside it. */
static unsigned short __argus_ctype_b(int c) {
  if (c < -128 || c > 255) __argus_undefined("<ctype.h> table read (__ctype_b_loc) outside -128..255");
  int up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z', di = c >= '0' && c <= '9';
  int al = up || lo, an = al || di, gr = c > 32 && c < 127;
  int xd = di || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  int sp = c == ' ' || (c >= '\t' && c <= '\r'), bl = c == ' ' || c == '\t';
  int pr = c >= 32 && c < 127, cn = (c >= 0 && c < 32) || c == 127, pu = gr && !an;
  return (unsigned short)(up << 8 | lo << 9 | al << 10 | di << 11 | xd << 12 | sp << 13 | pr << 14 | gr << 15 |
                          bl << 0 | cn << 1 | pu << 2 | an << 3);
}

/* (*__ctype_tolower_loc())[c] and (*__ctype_toupper_loc())[c]: glibc's tables map
 * -128..255; in the "C" locale the letters change case, EOF stays, a negative (signed
 * char) value c maps to the unsigned char c + 256, and every other value to itself. */
static int __argus_ctype_tolower(int c) {
  if (c < -128 || c > 255) __argus_undefined("<ctype.h> table read (__ctype_tolower_loc) outside -128..255");
  if (c < -1) return c + 256;
  return __argus_c_isupper(c) ? c - 'A' + 'a' : c;
}
static int __argus_ctype_toupper(int c) {
  if (c < -128 || c > 255) __argus_undefined("<ctype.h> table read (__ctype_toupper_loc) outside -128..255");
  if (c < -1) return c + 256;
  return __argus_c_islower(c) ? c - 'a' + 'A' : c;
}

/* ---------------------------------------------------------------- <stdlib.h> */

static int __argus_abs(int x) {
  if (x == -__INT_MAX__ - 1) __argus_undefined("abs(INT_MIN) (undefined: the result is not representable)");
  return x < 0 ? -x : x;
}
static long __argus_labs(long x) {
  if (x == -__LONG_MAX__ - 1) __argus_undefined("labs(LONG_MIN) (undefined: the result is not representable)");
  return x < 0 ? -x : x;
}
static long long __argus_llabs(long long x) {
  if (x == -__LONG_LONG_MAX__ - 1) __argus_undefined("llabs(LLONG_MIN) (undefined: the result is not representable)");
  return x < 0 ? -x : x;
}

/* The subject sequence of strtol and friends (C11 7.22.1.4): white space, an optional
 * sign, an optional 0x/0X prefix (base 16 or 0), the longest run of digits of the base.
 * Returns the magnitude; *neg: a minus sign; *ovf: the magnitude exceeds
 * unsigned long long. *endptr (if endptr) points after the digits, or to nptr when
 * there are none. A base other than 0 and 2..36 is undefined (C11 7.22.1.4p3 "shall";
 * glibc sets EINVAL and leaves *endptr alone). */
static unsigned long long __argus_strto_parse(const char *nptr, char **endptr, int base, int *neg, int *ovf) {
  const char *p = nptr;
  unsigned long long acc = 0;
  int any = 0;
  *neg = 0;
  *ovf = 0;
  if (base < 0 || base == 1 || base > 36) __argus_undefined("strtol family with a base other than 0 and 2..36");
  while (__argus_c_isspace((unsigned char)*p)) p++;
  if (*p == '+' || *p == '-') {
    *neg = *p == '-';
    p++;
  }
  if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
      __argus_c_isxdigit((unsigned char)p[2])) {
    p += 2;
    base = 16;
  } else if (base == 0) {
    base = p[0] == '0' ? 8 : 10;
  }
  for (;; p++) {
    int c = (unsigned char)*p, d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'z') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'Z') d = c - 'A' + 10;
    else break;
    if (d >= base) break;
    any = 1;
    /* acc * base + d without leaving 64 bits: base <= 36, so the product's high part
       comes from (acc >> 32) * base */
    unsigned long long hi = (acc >> 32) * (unsigned long long)base;
    unsigned long long lo = (acc & 0xffffffffull) * (unsigned long long)base + (unsigned long long)d;
    if (*ovf || hi + (lo >> 32) > 0xffffffffull) *ovf = 1;
    else acc = (hi << 32) + lo;
  }
  if (endptr) *endptr = (char *)(any ? p : nptr);
  return any ? acc : 0;
}

static long long __argus_strto_signed(const char *nptr, char **endptr, int base, long long max) {
  int neg, ovf;
  unsigned long long m = __argus_strto_parse(nptr, endptr, base, &neg, &ovf);
  if (!neg) {
    if (ovf || m > (unsigned long long)max) {
      __argus_errno_value = __ARGUS_ERANGE;
      return max;
    }
    return (long long)m;
  }
  if (ovf || m > (unsigned long long)max + 1) {
    __argus_errno_value = __ARGUS_ERANGE;
    return -max - 1;
  }
  return (long long)(0 - m);
}

/* strtoul: a negated magnitude wraps ("-1" is ULONG_MAX); out of range: ULONG_MAX, ERANGE. */
static unsigned long long __argus_strto_unsigned(const char *nptr, char **endptr, int base, unsigned long long max) {
  int neg, ovf;
  unsigned long long m = __argus_strto_parse(nptr, endptr, base, &neg, &ovf);
  if (ovf || m > max) {
    __argus_errno_value = __ARGUS_ERANGE;
    return max;
  }
  return neg ? (0 - m) & max : m;
}

static long __argus_strtol(const char *nptr, char **endptr, int base) {
  return (long)__argus_strto_signed(nptr, endptr, base, __LONG_MAX__);
}
static long long __argus_strtoll(const char *nptr, char **endptr, int base) {
  return __argus_strto_signed(nptr, endptr, base, __LONG_LONG_MAX__);
}
static unsigned long __argus_strtoul(const char *nptr, char **endptr, int base) {
  return (unsigned long)__argus_strto_unsigned(nptr, endptr, base, __LONG_MAX__ * 2ul + 1);
}
static unsigned long long __argus_strtoull(const char *nptr, char **endptr, int base) {
  return __argus_strto_unsigned(nptr, endptr, base, __LONG_LONG_MAX__ * 2ull + 1);
}

/* atoi, atol, atoll: strtol's value when it is representable; otherwise the behaviour
 * is undefined (C11 7.22.1p1). */
static int __argus_atoi(const char *nptr) {
  int neg, ovf;
  unsigned long long m = __argus_strto_parse(nptr, 0, 10, &neg, &ovf);
  if (ovf || m > (neg ? (unsigned long long)__INT_MAX__ + 1 : (unsigned long long)__INT_MAX__))
    __argus_undefined("atoi of a number that int cannot represent");
  return neg ? (int)(0 - (unsigned)m) : (int)m;
}
static long __argus_atol(const char *nptr) {
  int neg, ovf;
  unsigned long long m = __argus_strto_parse(nptr, 0, 10, &neg, &ovf);
  if (ovf || m > (neg ? (unsigned long long)__LONG_MAX__ + 1 : (unsigned long long)__LONG_MAX__))
    __argus_undefined("atol of a number that long cannot represent");
  return neg ? (long)(0 - (unsigned long)m) : (long)m;
}
static long long __argus_atoll(const char *nptr) {
  int neg, ovf;
  unsigned long long m = __argus_strto_parse(nptr, 0, 10, &neg, &ovf);
  if (ovf || m > (neg ? (unsigned long long)__LONG_LONG_MAX__ + 1 : (unsigned long long)__LONG_LONG_MAX__))
    __argus_undefined("atoll of a number that long long cannot represent");
  return neg ? (long long)(0 - m) : (long long)m;
}
