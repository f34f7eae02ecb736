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
    {"aligned_alloc", "unsigned long n = 64; int main(void){ char *p = aligned_alloc(64, n); if (p && (unsigned long)p % 64 != 0) reach_error(); return 0; }", Verdict::True},
};

// Exit status of the native run of `body`, or -1 when it could not be compiled or run.
int runNatively(const NativeCase& c, std::string& log) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("argus-native-" + std::to_string(::getpid()) + "-" + c.name);
  fs::create_directories(dir);
  { std::ofstream(dir / "p.c") << kNativePrelude << c.body << "\n"; }
  std::string cmd = "cd '" + dir.string() + "' && cc -std=gnu11 -O0 -w -m64" +
                    " -fsanitize=undefined -fno-sanitize-recover p.c -o p > log 2>&1 && timeout 10 ./p >> log 2>&1";
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

// What Argus does not model is unknown and named, with its line; never any value.
TEST(LibraryNames, UnmodelledFunctionsAreNamed) {
  struct {
    const char* body;
    const char* named;
  } cases[] = {
      {"int isxdigit(int);\nint main(){ if (isxdigit('g')) reach_error(); return 0; }", "'isxdigit'"},
      {"int main(){\n if (__builtin_bitreverse32(__VERIFIER_nondet_uint()) == 1u) reach_error(); return 0; }", "'__builtin_bitreverse32'"},
      {"long long strtoll(const char *, char **, int);\nint main(){ if (strtoll(\"5\", 0, 10) == 5) reach_error(); return 0; }", "'strtoll'"},
      {"int main(){ unsigned x = __VERIFIER_nondet_uint();\n if (__builtin_clz(x) > 31) reach_error(); return 0; }", "'__builtin_clz' of 0"},
  };
  for (const auto& c : cases) {
    auto out = verifySource(std::string(argus::testing::kPrelude) + c.body, Algorithm::Bmc, SolverKind::Z3);
    ASSERT_FALSE(out.inputError) << out.error;
    EXPECT_EQ(out.result.verdict, Verdict::Unknown) << c.body;
    EXPECT_NE(out.result.reason.find(c.named), std::string::npos) << out.result.reason;
    EXPECT_NE(out.result.reason.find("test.c:"), std::string::npos) << out.result.reason;
  }
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
