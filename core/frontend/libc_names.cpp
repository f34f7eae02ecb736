// The functions of the C library (C11 and the POSIX functions C programs commonly
// call), by name. A call to one of them without a body in the program is modelled or
// unsupported, never a function returning an arbitrary value: its result is determined
// by its arguments or restricted in range, so an arbitrary value would admit behaviour
// the real function never shows (a false alarm). The name is what counts, whether the
// program includes the header or declares the function itself.
#include <string_view>
#include <unordered_set>

#include "core/frontend/lower.h"

namespace argus::frontend {

namespace {

constexpr std::string_view kNames[] = {
    "_Exit", "_exit", "a64l", "abort", "abs", "access", "acos", "acosf", "acosh", "acoshf", "acoshl", "acosl",
    "aligned_alloc", "alloca", "asctime", "asin", "asinf", "asinh", "asinhf", "asinhl", "asinl", "asprintf",
    "at_quick_exit", "atan", "atan2", "atan2f", "atan2l", "atanf", "atanh", "atanhf", "atanhl", "atanl", "atexit",
    "atof", "atoi", "atol", "atoll", "basename", "bcmp", "bcopy", "bsearch", "btowc", "bzero", "c16rtomb",
    "c32rtomb", "cabs", "calloc", "cbrt", "cbrtf", "cbrtl", "ceil", "ceilf", "ceill", "chdir", "clearerr", "clock",
    "clock_gettime", "close", "copysign", "copysignf", "copysignl", "cos", "cosf", "cosh", "coshf", "coshl", "cosl",
    "ctime", "difftime", "dirname", "div", "drand48", "dup", "dup2", "erf", "erfc", "erfcf", "erfcl", "erff", "erfl",
    "execl", "execv", "execve", "execvp", "exit", "exp", "exp2", "exp2f", "exp2l", "expf", "expl", "expm1",
    "expm1f", "expm1l", "explicit_bzero", "fabs", "fabsf", "fabsl", "fclose", "fcntl", "fdim", "fdimf", "fdiml",
    "fdopen", "feof", "ferror", "fflush", "ffs", "ffsl", "ffsll", "fgetc", "fgetpos", "fgets", "fgetwc", "fgetws",
    "fileno", "floor", "floorf", "floorl", "fma", "fmaf", "fmal", "fmax", "fmaxf", "fmaxl", "fmin", "fminf", "fminl",
    "fmod", "fmodf", "fmodl", "fnmatch", "fopen", "fork", "fprintf", "fputc", "fputs", "fputwc", "fputws", "fread",
    "free", "freopen", "frexp", "frexpf", "frexpl", "fscanf", "fseek", "fseeko", "fsetpos", "fstat", "fsync", "ftell",
    "ftello", "ftruncate", "fwide", "fwprintf", "fwrite", "fwscanf", "getc", "getchar", "getcwd", "getdelim",
    "getenv", "getline", "getopt", "getpid", "getppid", "gets", "gettimeofday", "getuid", "getwc", "getwchar",
    "gmtime", "hypot", "hypotf", "hypotl", "ilogb", "ilogbf", "ilogbl", "imaxabs", "imaxdiv", "index", "isalnum",
    "isalpha", "isascii", "isatty", "isblank", "iscntrl", "isdigit", "isgraph", "islower", "isprint", "ispunct",
    "isspace", "isupper", "iswalnum", "iswalpha", "iswdigit", "iswspace", "isxdigit", "kill", "l64a", "labs",
    "lcong48", "ldexp", "ldexpf", "ldexpl", "ldiv", "lgamma", "lgammaf", "lgammal", "link", "llabs", "lldiv",
    "llrint", "llrintf", "llrintl", "llround", "llroundf", "llroundl", "localeconv", "localtime", "log", "log10",
    "log10f", "log10l", "log1p", "log1pf", "log1pl", "log2", "log2f", "log2l", "logb", "logbf", "logbl", "logf",
    "logl", "longjmp", "lrand48", "lrint", "lrintf", "lrintl", "lround", "lroundf", "lroundl", "lseek", "lstat",
    "malloc", "malloc_usable_size", "mblen", "mbrlen", "mbrtowc", "mbsinit", "mbsrtowcs", "mbstowcs", "mbtowc",
    "memccpy", "memchr", "memcmp", "memcpy", "memmem", "memmove", "mempcpy", "memrchr", "memset", "mkdir", "mkstemp",
    "mktime", "mmap", "modf", "modff", "modfl", "mrand48", "munmap", "nan", "nanf", "nanl", "nanosleep",
    "nearbyint", "nearbyintf", "nearbyintl", "nextafter", "nextafterf", "nextafterl", "nexttoward", "nrand48",
    "open", "opendir", "perror", "pipe", "poll", "posix_memalign", "pow", "powf", "powl", "pread", "printf",
    "pthread_create", "pthread_join", "pthread_mutex_lock", "pthread_mutex_unlock", "putc", "putchar", "putenv",
    "puts", "putwc", "putwchar", "pwrite", "qsort", "qsort_r", "quick_exit", "raise", "rand", "rand_r", "random",
    "read", "readdir", "readlink", "realloc", "reallocarray", "realpath", "remainder", "remainderf", "remainderl",
    "remove", "remquo", "remquof", "remquol", "rename", "rewind", "rindex", "rint", "rintf", "rintl", "rmdir",
    "round", "roundf", "roundl", "scalbln", "scalblnf", "scalblnl", "scalbn", "scalbnf", "scalbnl", "scanf",
    "seed48", "select", "setbuf", "setenv", "setjmp", "setlocale", "setvbuf", "sigaction", "signal", "sin", "sinf",
    "sinh", "sinhf", "sinhl", "sinl", "sleep", "snprintf", "sprintf", "sqrt", "sqrtf", "sqrtl", "srand",
    "srand48", "srandom", "sscanf", "stat", "stpcpy", "stpncpy", "strcasecmp", "strcasestr", "strcat", "strchr",
    "strchrnul", "strcmp", "strcoll", "strcpy", "strcspn", "strdup", "strerror", "strerror_r", "strftime",
    "strlcat", "strlcpy", "strlen", "strncasecmp", "strncat", "strncmp", "strncpy", "strndup", "strnlen",
    "strpbrk", "strptime", "strrchr", "strsep", "strsignal", "strspn", "strstr", "strtod", "strtof", "strtoimax",
    "strtok", "strtok_r", "strtol", "strtold", "strtoll", "strtoul", "strtoull", "strtoumax", "strverscmp",
    "strxfrm", "swprintf", "swscanf", "symlink", "sysconf", "system", "tan", "tanf", "tanh", "tanhf", "tanhl",
    "tanl", "tgamma", "tgammaf", "tgammal", "time", "timegm", "tmpfile", "tmpnam", "toascii", "tolower", "toupper",
    "towlower", "towupper", "trunc", "truncf", "truncl", "tzset", "umask", "ungetc", "ungetwc", "unlink",
    "unsetenv", "usleep", "valloc", "vfprintf", "vfscanf", "vprintf", "vscanf", "vsnprintf", "vsprintf",
    "vsscanf", "wait", "waitpid", "wcrtomb", "wcscat", "wcschr", "wcscmp", "wcscpy", "wcslen", "wcsncmp",
    "wcsncpy", "wcstol", "wcstombs", "wctomb", "wmemchr", "wmemcmp", "wmemcpy", "wmemmove", "wmemset", "wprintf",
    "write", "wscanf",
};

}  // namespace

bool isCLibraryName(std::string_view name) {
  static const std::unordered_set<std::string_view> names(std::begin(kNames), std::end(kNames));
  return names.count(name) > 0;
}

}  // namespace argus::frontend
