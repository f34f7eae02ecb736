// The concrete-playback harness writer (core/result/harness.h): the error-function
// instrumentation of the program's source and the harness's nondet queues. The native
// run itself is tested end to end by tests/cli/native-check.sh.
#include <gtest/gtest.h>

#include "core/result/harness.h"

using namespace argus::result;

namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Harness, InstrumentsDefinitionsOfTheErrorFunctionsOnly) {
  const std::string src =
      "#include <assert.h>\n"
      "#define reach_error() { bad }\n"               // a preprocessor line: untouched
      "void reach_error(void);\n"                     // a prototype: untouched
      "/* void reach_error() { in a comment } */\n"
      "const char* s = \"reach_error() { in a string }\";\n"
      "void reach_error() { __assert_fail(\"0\", \"f.c\", 3, \"reach_error\"); }\n"
      "static void __VERIFIER_error ( void ) // comment\n{ abort(); }\n"
      "int main() { reach_error(); if (1) { reach_error(); } return 0; }\n";
  int n = -1;
  std::string out = instrumentErrorFunctions(src, "f.c", &n);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(count(out, "__argus_error_reached();"), 2u);
  EXPECT_NE(out.find("void reach_error() { __argus_error_reached(); __assert_fail("), std::string::npos) << out;
  EXPECT_NE(out.find("// comment\n{ __argus_error_reached(); abort(); }"), std::string::npos) << out;
  EXPECT_NE(out.find("#define reach_error() { bad }"), std::string::npos);
  EXPECT_NE(out.find("\"reach_error() { in a string }\""), std::string::npos);
  // a prototype first, then the original line numbers
  EXPECT_EQ(out.rfind("void __argus_error_reached(void);\n#line 1 \"f.c\"\n", 0), 0u);
  EXPECT_EQ(count(out, "\n"), count(src, "\n") + 2);
}

TEST(Harness, OneQueuePerFunctionInCallOrder) {
  Counterexample cex;
  cex.inputs = {{"__VERIFIER_nondet_int", 0xfffffffbull, 32, true, "p.c", 3},
                {"__VERIFIER_nondet_uchar", 200, 8, false, "p.c", 4},
                {"__VERIFIER_nondet_int", 7, 32, true, "p.c", 5},
                {"__VERIFIER_nondet_bool", 6, 8, false, "p.c", 6}};
  HarnessOptions o;
  o.token = "TOKEN42";
  o.unexpected = {"sensor", "__VERIFIER_nondet_int"};
  std::string h = writeHarness(cex, o);
  // two values for int, in order; one for uchar; the bool normalised to 0/1
  EXPECT_NE(h.find("4294967291ULL, /* p.c:3 */ 7ULL, /* p.c:5 */"), std::string::npos) << h;
  EXPECT_NE(h.find("int __VERIFIER_nondet_int(void)"), std::string::npos);
  EXPECT_NE(h.find("unsigned char __VERIFIER_nondet_uchar(void)"), std::string::npos);
  EXPECT_NE(h.find("_Bool __VERIFIER_nondet_bool(void)"), std::string::npos);
  EXPECT_NE(h.find("!= 0)"), std::string::npos);
  // an unexpected function gets a stub; one the path calls is not defined twice
  EXPECT_NE(h.find("long long sensor(void) { return 0; }"), std::string::npos);
  EXPECT_EQ(count(h, "__VERIFIER_nondet_int(void)"), 1u);
  // the error report carries the token and the distinct exit code
  EXPECT_NE(h.find("TOKEN42"), std::string::npos);
  EXPECT_NE(h.find("\"error reached\", \"\", " + std::to_string(kHarnessErrorExit)), std::string::npos);
  EXPECT_NE(h.find("__attribute__((weak)) void reach_error(void)"), std::string::npos);
  EXPECT_NE(h.find("__attribute__((weak)) void abort(void) { argus_report(\"abort called\", \"\", " +
                   std::to_string(kHarnessAbortExit)),
            std::string::npos);
}

// valid-memcleanup (issue 26): the error function, abort() and _Exit end the program,
// so the harness runs LeakSanitizer's check there; other properties do not reference it
// (the program is then built without AddressSanitizer).
TEST(Harness, LeakCheckAtEveryEndForMemcleanup) {
  Counterexample cex;
  HarnessOptions o;
  std::string plain = writeHarness(cex, o);
  EXPECT_EQ(count(plain, "__lsan_do_leak_check"), 0u);
  EXPECT_EQ(count(plain, "_Exit"), 0u);
  o.leakCheckAtEnd = true;
  std::string h = writeHarness(cex, o);
  EXPECT_EQ(count(h, "void __lsan_do_leak_check(void);"), 1u) << h;
  EXPECT_NE(h.find("if (code == " + std::to_string(kHarnessErrorExit) + " || code == " +
                   std::to_string(kHarnessAbortExit) + ") __lsan_do_leak_check();\n  _exit(code);"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("void _Exit(int code) {\n  __lsan_do_leak_check();\n  _exit(code);\n}"), std::string::npos) << h;
}

TEST(Harness, NondetNames) {
  EXPECT_TRUE(isNondetFunctionName("__VERIFIER_nondet_int"));
  EXPECT_TRUE(isNondetFunctionName("nondet_foo"));
  EXPECT_FALSE(isNondetFunctionName("reach_error"));
  EXPECT_FALSE(isNondetFunctionName("my_nondet"));
}

// Float nondets return their type (the caller reads a floating-point register), with the
// recorded bit image; an integer function of the same width stays an integer.
TEST(Harness, FloatNondetsReturnTheirType) {
  Counterexample cex;
  cex.inputs = {{"__VERIFIER_nondet_float", 0x7f800001ull, 32, false, "p.c", 3},
                {"__VERIFIER_nondet_double", 0x8000000000000000ull, 64, false, "p.c", 4},
                {"nondet_float", 0x3f800000ull, 32, false, "p.c", 5},
                {"__VERIFIER_nondet_uint", 1, 32, false, "p.c", 6}};
  std::string h = writeHarness(cex, HarnessOptions{});
  EXPECT_NE(h.find("float __VERIFIER_nondet_float(void)"), std::string::npos) << h;
  EXPECT_NE(h.find("double __VERIFIER_nondet_double(void)"), std::string::npos) << h;
  EXPECT_NE(h.find("\nfloat nondet_float(void)"), std::string::npos) << h;
  EXPECT_NE(h.find("unsigned int __VERIFIER_nondet_uint(void)"), std::string::npos) << h;
  EXPECT_EQ(count(h, "__builtin_memcpy(&r, &b, sizeof r)"), 3u) << h;
  EXPECT_NE(h.find("2139095041ULL"), std::string::npos) << h;
}

}  // namespace
