// Compiler builtins and C library functions, checked against the real compiler: each
// deterministic program's verdict from Argus must match what the program does when GCC
// compiles and runs it natively (reach_error exits with 1). An encoding of a builtin that
// the replay interpreter agrees with but GCC does not fails here. LP64 only: this
// machine's kernel does not execute 32-bit binaries (`gcc -m32` links, the run fails with
// "Exec format error"), so the ILP32 variants are in test_constructs.cpp, which also runs
// the nondeterministic variants under every algorithm and both solvers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/unit/verify/verify_helpers.h"

using argus::engine::Algorithm;
using argus::frontend::DataModel;
using argus::result::Verdict;
using argus::smt::SolverKind;
using argus::testing::verifySource;

namespace {

struct NativeCase {
  const char* name;
  const char* body;  // after: #include <stdlib.h> and a reach_error()
  Verdict expected;
};

const char* kNativePrelude = "#include <stdlib.h>\nvoid reach_error(void) { exit(1); }\n";

const NativeCase kNative[] = {
    // Operands are non-const globals: on constants Clang folds the builtins itself.
    {"bswap", "unsigned a = 0x11223344u; unsigned short b = 0xa1b2; unsigned long long c = 0x0102030405060708ull; int main(void){ if (__builtin_bswap32(a) != 0x44332211u || __builtin_bswap16(b) != 0xb2a1 || __builtin_bswap64(c) != 0x0807060504030201ull) reach_error(); return 0; }", Verdict::True},
    {"bswap_differs", "unsigned a = 0x01020304u; int main(void){ if (__builtin_bswap32(a) == 0x04030201u) reach_error(); return 0; }", Verdict::False},
    {"counts", "unsigned one = 1, low24 = 0x00ffffffu, top = 0x80000000u, f0 = 0xF0F0u, seven = 7; unsigned long long b50 = 1ull << 50, all = ~0ull, three = 3; long long b40 = 1ll << 40, m2 = -2; unsigned long lone = 1; int zero = 0, imin = -2147483647 - 1, mone = -1, ione = 1; int main(void){ if (__builtin_clz(one) != 31 || __builtin_clz(low24) != 8 || __builtin_ctz(top) != 31 || __builtin_ctzll(b50) != 50 || __builtin_popcount(f0) != 8 || __builtin_popcountll(all) != 64 || __builtin_parity(seven) != 1 || __builtin_parityll(three) != 0 || __builtin_ffs(zero) != 0 || __builtin_ffs(imin) != 32 || __builtin_ffsll(b40) != 41 || __builtin_clrsb(zero) != 31 || __builtin_clrsb(mone) != 31 || __builtin_clrsb(ione) != 30 || __builtin_clrsbll(m2) != 62 || __builtin_clzl(lone) != 63) reach_error(); return 0; }", Verdict::True},
    {"popcount_found", "unsigned x = 0x10001u; int main(void){ if (__builtin_popcount(x) == 2) reach_error(); return 0; }", Verdict::False},
    {"ffs_declared_by_program", "int ffs(int); int ffsl(long); int ffsll(long long); long e = 8; long long z = 0, big = 1LL << 40; int six = 6; int main(void){ if (ffsl(e) != 4 || ffsll(z) != 0 || ffs(six) != 2 || ffsll(big) != 41) reach_error(); return 0; }", Verdict::True},
    {"overflow", "int imax = 2147483647, m5 = -5, s7 = 7, i200 = 200, i100 = 100, m1 = -1, k = 65536; long lmin = -9223372036854775807L - 1, lm1 = -1, a = -3037000499L, b = 3037000499L, c = -4294967296L, d = 2147483648L; unsigned long p32 = 4294967296ul, u1 = 1, u2 = 2; int main(void){ int r; unsigned char ch; unsigned u; long l; unsigned long ul; if (!__builtin_sadd_overflow(imax, 1, &r) || r != -2147483647 - 1 || __builtin_ssub_overflow(m5, s7, &r) || r != -12 || !__builtin_add_overflow(i200, i100, &ch) || ch != 44 || !__builtin_add_overflow(m1, 0, &u) || u != 4294967295u || !__builtin_mul_overflow(lmin, lm1, &l) || l != lmin || __builtin_mul_overflow(a, b, &l) || !__builtin_umull_overflow(p32, p32, &ul) || ul != 0 || !__builtin_mul_overflow(k, k, &r) || r != 0 || __builtin_smull_overflow(c, d, &l) || !__builtin_usubl_overflow(u1, u2, &ul) || ul != 18446744073709551615ul) reach_error(); return 0; }", Verdict::True},
    {"overflow_found", "int x = 46341; int main(void){ int r; if (__builtin_mul_overflow(x, x, &r)) reach_error(); return 0; }", Verdict::False},
    // memory barriers: nothing changes in a single thread (SQLite's sqlite3MemoryBarrier)
    {"barriers", "#include <stdatomic.h>\nint x = 1; int main(void){ __sync_synchronize(); x++; __atomic_thread_fence(__ATOMIC_SEQ_CST); __atomic_signal_fence(__ATOMIC_ACQUIRE); atomic_thread_fence(memory_order_release); atomic_signal_fence(memory_order_seq_cst); if (x != 2) reach_error(); return 0; }", Verdict::True},
    {"barrier_found", "int x = 1; int main(void){ x++; __sync_synchronize(); if (x == 2) reach_error(); return 0; }", Verdict::False},
    {"aligned_alloc", "unsigned long n = 64; int main(void){ char *p = aligned_alloc(64, n); if (p && (unsigned long)p % 64 != 0) reach_error(); return 0; }", Verdict::True},
    // The C models (core/frontend/models/libc_models.c), with the real headers: glibc's
    // functions natively. Strings are non-const globals, so nothing is folded.
    {"string_functions", "#include <string.h>\nchar buf[24]; char hello[] = \"hello\"; char help[] = \"help\"; int n5 = 5; int main(void){ if (strlen(hello) != 5) reach_error(); strcpy(buf, hello); strcat(buf, \", you\"); if (strlen(buf) != 10 || strcmp(buf, \"hello, you\") != 0) reach_error(); if (strcmp(hello, help) >= 0 || strcmp(help, hello) <= 0 || strncmp(hello, help, 3) != 0 || strncmp(hello, help, n5) >= 0) reach_error(); if (strchr(buf, 'o') != buf + 4 || strrchr(buf, 'o') != buf + 8 || strchr(buf, 'z') != 0 || strchr(buf, 0) != buf + 10 || strrchr(hello, 'x') != 0) reach_error(); return 0; }", Verdict::True},
    {"memory_functions", "#include <string.h>\nchar buf[12] = \"abcdef\"; char d[8]; int n = 6; int main(void){ if (memcmp(buf, \"abcdeF\", n) <= 0 || memcmp(buf, \"abd\", 3) >= 0 || memcmp(buf, \"abz\", 2) != 0) reach_error(); if (memchr(buf, 'd', n) != buf + 3 || memchr(buf, 'f', 5) != 0) reach_error(); memmove(buf + 1, buf, n); if (memcmp(buf, \"aabcdef\", 7) != 0) reach_error(); d[5] = 'x'; strncpy(d, \"ab\", n); if (d[0] != 'a' || d[1] != 'b' || d[2] != 0 || d[5] != 0) reach_error(); strncpy(d, \"wxyz\", 2); if (d[0] != 'w' || d[1] != 'x' || d[2] != 0) reach_error(); return 0; }", Verdict::True},
    {"strcmp_found", "#include <string.h>\nchar a[] = \"abc\", b[] = \"abd\"; int main(void){ if (strcmp(a, b) < 0) reach_error(); return 0; }", Verdict::False},
    {"ctype_header", "#include <ctype.h>\nint ch[] = {'a', 'Z', '5', ' ', '\\n', '!', 127, 200, -1, 'f', 'g', '~'}; int main(void){ if (!isalpha(ch[0]) || !isupper(ch[1]) || isupper(ch[0]) || !islower(ch[0]) || !isdigit(ch[2]) || isdigit(ch[0]) || !isspace(ch[3]) || !isspace(ch[4]) || isspace(ch[0]) || !ispunct(ch[5]) || ispunct(ch[2]) || !iscntrl(ch[6]) || isprint(ch[6]) || !isprint(ch[3]) || isgraph(ch[3]) || !isgraph(ch[11]) || isalpha(ch[7]) || isalnum(ch[8]) || !isalnum(ch[2]) || !isxdigit(ch[9]) || isxdigit(ch[10]) || isblank(ch[4]) || !isblank(ch[3])) reach_error(); if (toupper(ch[0]) != 'A' || tolower(ch[1]) != 'z' || toupper(ch[2]) != '5' || tolower(ch[8]) != -1 || toupper(ch[7]) != 200) reach_error(); return 0; }", Verdict::True},
    {"ctype_declared_by_program", "int isalpha(int); int isdigit(int); int isxdigit(int); int isspace(int); int ispunct(int); int toupper(int); int tolower(int); int ch[] = {'q', '7', 'G', '\\t', '.', -1}; int main(void){ if (!isalpha(ch[0]) || isalpha(ch[1]) || !isdigit(ch[1]) || isxdigit(ch[2]) || !isxdigit(ch[1]) || !isspace(ch[3]) || !ispunct(ch[4]) || isdigit(ch[5]) || toupper(ch[0]) != 'Q' || tolower(ch[2]) != 'g' || toupper(ch[4]) != '.') reach_error(); return 0; }", Verdict::True},
    {"ctype_found", "#include <ctype.h>\nchar s[] = \"x9\"; int main(void){ if (isdigit(s[1])) reach_error(); return 0; }", Verdict::False},
    {"strtol_family", "#include <errno.h>\n#include <limits.h>\nchar s1[] = \"  -0x1fZ\", s2[] = \"0777\", s3[] = \"99999999999999999999\", s4[] = \"-12abc\", s5[] = \"+\", s6[] = \"0x\", s7[] = \"-1\", s8[] = \"-9223372036854775808\", s9[] = \"z\"; int main(void){ char *end; if (strtol(s1, &end, 0) != -31 || *end != 'Z') reach_error(); if (strtol(s2, &end, 0) != 511 || *end != 0 || strtol(s2, 0, 10) != 777) reach_error(); errno = 0; if (strtol(s3, &end, 10) != LONG_MAX || errno != ERANGE || *end != 0) reach_error(); errno = 0; if (strtoull(s3, 0, 10) != ULLONG_MAX || errno != ERANGE) reach_error(); if (atoi(s4) != -12 || atol(s4) != -12) reach_error(); if (strtol(s5, &end, 10) != 0 || end != s5) reach_error(); if (strtol(s6, &end, 16) != 0 || end != s6 + 1) reach_error(); if (strtoul(s7, 0, 10) != ULONG_MAX) reach_error(); errno = 0; if (strtoll(s8, 0, 10) != LLONG_MIN || errno != 0) reach_error(); if (strtol(s9, &end, 36) != 35 || strtol(s9, &end, 10) != 0 || end != s9) reach_error(); return 0; }", Verdict::True},
    {"strtol_found", "char s[] = \" 42\"; int main(void){ if (strtol(s, 0, 10) == 42) reach_error(); return 0; }", Verdict::False},
    {"abs_calloc_realloc", "int m7 = -7; long lm = -5; long long llm = -9; unsigned long big = ~0ul / 2; int main(void){ if (abs(m7) != 7 || labs(lm) != 5 || llabs(llm) != 9) reach_error(); if (calloc(big, 4) != 0) reach_error(); int *p = calloc(4, sizeof(int)); if (!p || p[3] != 0) reach_error(); p[0] = 11; p[3] = 44; p = realloc(p, 8 * sizeof(int)); if (!p || p[0] != 11 || p[3] != 44) reach_error(); if (realloc(p, 0) != 0) reach_error(); int *q = realloc(0, sizeof(int)); if (!q) reach_error(); *q = 1; return 0; }", Verdict::True},
    // remainder (IEEE 754 remainder, the quotient rounded to nearest even), glibc's libm
    {"remainder", "#include <math.h>\ndouble five = 5.0, two = 2.0, seven = 7.0, three = 3.0, m7 = -7.0, big = 1e300, tiny = 1e-300; float fx = 3.40282347e38f, fy = 3.14159274f, f55 = 5.5f, f2 = 2.0f; int main(void){ if (remainder(five, two) != 1.0 || remainder(seven, two) != -1.0 || remainder(three, two) != -1.0 || remainder(m7, two) != 1.0 || remainderf(fx, fy) != -1.40962958f || remainderf(f55, f2) != -0.5f || remainder(big, seven) != 1.0 || remainder(big, three) != 0.0 || remainder(tiny, three) != tiny) reach_error(); return 0; }", Verdict::True},
    {"remainder_found", "#include <math.h>\nfloat x = 3.40282347e38f, y = 3.14159274f; int main(void){ if (remainderf(x, y) == -1.40962958f) reach_error(); return 0; }", Verdict::False},
    {"compiler_queries", "int a[10]; int x = 3; struct s { int f[4]; int g; } st; int main(void){ if (__builtin_expect(x, 0) != 3 || __builtin_expect_with_probability(x, 3, 0.9) != 3) reach_error(); if (__builtin_object_size(&a[2], 0) != 32 || __builtin_object_size(&a[2], 1) != 32 || __builtin_object_size(&a[2], 2) != 32 || __builtin_object_size(&st.f[1], 1) != 12 || __builtin_object_size(&st.f[1], 0) != 16) reach_error(); if (!__builtin_constant_p(42) || !__builtin_constant_p(3 * 7)) reach_error(); if (x == 4) __builtin_unreachable(); return 0; }", Verdict::True},
};

// Exit status of the native run of `body`, or -1 when it could not be compiled or run.
int runNatively(const NativeCase& c, std::string& log) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("argus-native-" + std::to_string(::getpid()) + "-" + c.name);
  fs::create_directories(dir);
  { std::ofstream(dir / "p.c") << kNativePrelude << c.body << "\n"; }
  std::string cmd = "cd '" + dir.string() + "' && cc -std=gnu11 -O0 -w -m64" +
                    " -fsanitize=undefined -fno-sanitize-recover p.c -o p -lm > log 2>&1 && timeout 10 ./p >> log 2>&1";
  int st = std::system(cmd.c_str());
  std::ifstream in(dir / "log");
  log.assign(std::istreambuf_iterator<char>(in), {});
  fs::remove_all(dir);
  if (st == -1 || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

class Native : public ::testing::TestWithParam<NativeCase> {};

TEST_P(Native, ArgusAgreesWithGcc) {
  const NativeCase& c = GetParam();
  std::string log;
  int code = runNatively(c, log);
  ASSERT_TRUE(code == 0 || code == 1) << c.name << ": the native run did not finish normally (exit " << code << "):\n"
                                      << log;
  EXPECT_EQ(code == 1, c.expected == Verdict::False) << c.name << ": the expected verdict is wrong natively";
  // Argus sees the same program, with reach_error as the error function.
  std::string body = std::string("extern void reach_error(void);\n#include <stdlib.h>\n") + c.body;
  auto out = verifySource(body, Algorithm::Bmc, SolverKind::Z3, DataModel::LP64);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, c.expected) << c.name << ": " << out.result.reason;
}

INSTANTIATE_TEST_SUITE_P(Builtins, Native, ::testing::ValuesIn(kNative),
                         [](const ::testing::TestParamInfo<NativeCase>& i) { return std::string(i.param.name); });

// The C models themselves, compiled natively and compared with glibc on many inputs
// (tests/unit/verify/libc_models_vs_glibc.c): every <ctype.h> value and table entry, the
// strtol family on prefixes, signs, white space, overflow and every base, the string
// functions on pairs of strings.
TEST(LibcModels, AgreeWithGlibcNatively) {
  namespace fs = std::filesystem;
  std::string src = ARGUS_SOURCE_DIR;
  fs::path exe = fs::temp_directory_path() / ("argus-models-" + std::to_string(::getpid()));
  std::string cmd = "cc -std=gnu11 -O0 -w -I '" + src + "/core/frontend/models' '" + src +
                    "/tests/unit/verify/libc_models_vs_glibc.c' -o '" + exe.string() + "' && '" + exe.string() + "'";
  int st = std::system(cmd.c_str());
  fs::remove(exe);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << "a model disagrees with glibc (the run prints which)";
}

// What Argus does not model is unknown and named, with its line; never any value.
TEST(LibraryNames, UnmodelledFunctionsAreNamed) {
  struct {
    const char* body;
    const char* named;
  } cases[] = {
      {"int iswxdigit(int);\nint strverscmp(const char *, const char *);\nint main(){ if (strverscmp(\"a\", \"b\")) reach_error(); return 0; }", "'strverscmp'"},
      {"int main(){\n if (__builtin_bitreverse32(__VERIFIER_nondet_uint()) == 1u) reach_error(); return 0; }", "'__builtin_bitreverse32'"},
      {"unsigned long strspn(const char *, const char *);\nint main(){ if (strspn(\"5\", \"5\") == 1) reach_error(); return 0; }", "'strspn'"},
      {"#include <ctype.h>\nint main(){ const unsigned short *t = *__ctype_b_loc();\n if (t['a'] & 1) reach_error(); return 0; }", "'__ctype_b_loc'"},
      // undefined behaviour inside a model: named by the model
      {"int abs(int);\nint main(){ if (abs(__VERIFIER_nondet_int()) < 0) reach_error(); return 0; }", "abs(INT_MIN)"},
      {"int main(){ char *p = malloc(4);\n if (__builtin_object_size(p, 0) == 4) reach_error(); return 0; }", "'__builtin_object_size'"},
      {"int main(){ unsigned x = __VERIFIER_nondet_uint();\n if (__builtin_clz(x) > 31) reach_error(); return 0; }", "'__builtin_clz' of 0"},
  };
  for (const auto& c : cases) {
    auto out = verifySource(std::string(argus::testing::kPrelude) + c.body, Algorithm::Bmc, SolverKind::Z3);
    ASSERT_FALSE(out.inputError) << out.error;
    EXPECT_EQ(out.result.verdict, Verdict::Unknown) << c.body;
    EXPECT_NE(out.result.reason.find(c.named), std::string::npos) << out.result.reason;
    if (!strstr(c.named, "INT_MIN")) { EXPECT_NE(out.result.reason.find("test.c:"), std::string::npos) << out.result.reason; }
  }
}

// The models replace what used to be unknown: strtoll (named above before the models)
// now decides, on a concrete string and on a nondeterministic digit.
TEST(LibraryNames, StrtollIsModelled) {
  auto t = verifySource(std::string(argus::testing::kPrelude) +
                            "long long strtoll(const char *, char **, int);\nint main(){ if (strtoll(\"5\", 0, 10) != 5) reach_error(); return 0; }",
                        Algorithm::Bmc, SolverKind::Z3);
  ASSERT_FALSE(t.inputError) << t.error;
  EXPECT_EQ(t.result.verdict, Verdict::True) << t.result.reason;
  auto f = verifySource(std::string(argus::testing::kPrelude) +
                            "long long strtoll(const char *, char **, int);\nint main(){ char s[3]; s[0] = '-'; s[1] = __VERIFIER_nondet_char(); s[2] = 0; if (strtoll(s, 0, 10) == -8) reach_error(); return 0; }",
                        Algorithm::Bmc, SolverKind::CVC5);
  EXPECT_TRUE(argus::testing::replayedWithValue(f, "nondet", "56"));  // '8'
}

// __builtin_constant_p of a value the compiler may or may not prove constant (gcc -O0
// answers 0, -O2 answers 1 for `int x = 5`): a verdict never depends on one answer.
TEST(CompilerQueries, ConstantPIsEitherAnswer) {
  for (const char* body : {"int main(){ int x = 5; if (__builtin_constant_p(x)) reach_error(); return 0; }",
                           "int main(){ int x = 5; if (!__builtin_constant_p(x)) reach_error(); return 0; }"}) {
    auto out = verifySource(std::string(argus::testing::kPrelude) + body, Algorithm::Bmc, SolverKind::Z3);
    ASSERT_FALSE(out.inputError) << out.error;
    EXPECT_NE(out.result.verdict, Verdict::True) << body;
  }
}

// The ESBMC task builtin_object_size_array_idx asserts __builtin_object_size(&a[2], 0) ==
// 40 for int a[10]; GCC 12 and Clang 14 both give 32 (the bytes from &a[2] to the end),
// at -O0 and -O2, so the assertion fails natively and Argus says false.
TEST(CompilerQueries, ObjectSizeOfArrayElementIsGccs) {
  auto out = verifySource("#include <assert.h>\n#include <stddef.h>\nint main(){ int a[10]; size_t s = __builtin_object_size(&a[2], 0);\n assert(s == 10 * sizeof(int)); return 0; }",
                          Algorithm::Bmc, SolverKind::Z3);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_TRUE(argus::testing::replayedWithValue(out, "s", "32"));
}

// A counterexample through a function the program declares without a body says which
// value it assumed, in the text and in JSON; inputs by convention (__VERIFIER_nondet_*,
// nondet_*) and library functions are not assumptions.
TEST(Assumptions, UserDeclaredFunctionIsNamed) {
  auto out = verifySource(std::string(argus::testing::kPrelude) +
                              "int sensor(void); struct pair { int a, b; } probe(void); int nondet_int(void);\n"
                              "int main(){ int k = nondet_int(); struct pair p = probe(); if (sensor() == 7 && sensor() == 8 && k == 1 && p.a == 2) reach_error(); return 0; }",
                          Algorithm::Bmc, SolverKind::Z3);
  ASSERT_FALSE(out.inputError) << out.error;
  ASSERT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  ASSERT_TRUE(out.result.counterexample.has_value());
  EXPECT_EQ(out.result.counterexample->assumptions,
            (std::vector<std::string>{"probe() may return any value", "sensor() may return any value"}));
  std::string text = argus::result::toText(out.result);
  EXPECT_NE(text.find("assuming sensor() may return any value\n"), std::string::npos) << text;
  EXPECT_NE(text.find("assuming probe() may return any value\n"), std::string::npos) << text;
  auto j = argus::result::toJson(out.result);
  EXPECT_EQ(j["counterexample"]["assumptions"],
            nlohmann::json::array({"probe() may return any value", "sensor() may return any value"}));

  auto none = verifySource(std::string(argus::testing::kPrelude) +
                               "int main(){ if (__VERIFIER_nondet_int() == 7) reach_error(); return 0; }",
                           Algorithm::Bmc, SolverKind::Z3);
  ASSERT_EQ(none.result.verdict, Verdict::False);
  EXPECT_TRUE(none.result.counterexample->assumptions.empty());
  EXPECT_EQ(argus::result::toText(none.result).find("assuming"), std::string::npos);
  EXPECT_TRUE(argus::result::toJson(none.result)["counterexample"]["assumptions"].empty());
}

// A function the program declares without a body that is not a library name is still an
// input with any value (the SV-COMP convention for external functions).
TEST(LibraryNames, UserDeclaredFunctionStaysNondeterministic) {
  auto out = verifySource(std::string(argus::testing::kPrelude) +
                              "int sensor(void); int main(){ if (sensor() == 7) reach_error(); return 0; }",
                          Algorithm::Bmc, SolverKind::Z3);
  ASSERT_FALSE(out.inputError) << out.error;
  EXPECT_EQ(out.result.verdict, Verdict::False);
}

}  // namespace
