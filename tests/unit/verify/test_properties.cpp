// Properties beside reachability (issue 26): no-overflow, div-by-zero and shift as check
// edges added by the frontend (core/frontend/lower_checks.cpp), verified by every
// algorithm with no property-specific code. Each case runs under several algorithms:
// bmc must give the expected verdict, the others the expected one or unknown, never the
// opposite; every `false` must name the expected property and be replayed by the
// interpreter, which confirms the violation from the operands on its own.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "tests/unit/verify/verify_helpers.h"

using argus::engine::Algorithm;
using argus::frontend::DataModel;
using argus::result::Verdict;
using argus::smt::SolverKind;

namespace {

struct PropCase {
  const char* name;
  const char* body;      // after kPrelude
  const char* property;  // --property
  Verdict lp64;
  Verdict ilp32;
  const char* violated;  // for false: the property the counterexample must name
  // Non-linear: a proof may time out even for bmc (a violation must still be found).
  bool hardProof = false;
};


const PropCase kCases[] = {
    {"add_overflow", "int main(){ int x = __VERIFIER_nondet_int(); int y = x + 1; return y; }", "no-overflow",
     Verdict::False, Verdict::False, "no-overflow"},
    {"add_guarded", "int main(){ int x = __VERIFIER_nondet_int(); if (x < 2147483647) { int y = x + 1; return y; } return 0; }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    {"sub_overflow", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x < 0); int y = 2147483647 - x; return y; }",
     "no-overflow", Verdict::False, Verdict::False, "no-overflow"},
    {"unsigned_wraps", "int main(){ unsigned u = __VERIFIER_nondet_uint(); u = u + 1; u *= 3; return (int)(u & 1); }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    {"char_increment_is_conversion", "int main(){ char c = __VERIFIER_nondet_char(); c++; c += 100; short s = __VERIFIER_nondet_short(); s = s * s; return c + s; }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    {"postfix_increment", "int main(){ int i = __VERIFIER_nondet_int(); i++; return i; }", "no-overflow",
     Verdict::False, Verdict::False, "no-overflow"},
    {"compound_mul", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 40000 && x < 50000); x *= x; return x; }",
     "no-overflow", Verdict::False, Verdict::False, "no-overflow"},
    {"mul_fits", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > -46340 && x < 46340); return x * x; }",
     "no-overflow", Verdict::True, Verdict::True, "", true},
    // long is 64 bits under LP64 (the product fits), 32 bits under ILP32 (it does not)
    {"long_mul_data_model", "int main(){ long a = __VERIFIER_nondet_long(), b = __VERIFIER_nondet_long(); __VERIFIER_assume(a > 65536 && a < 3037000000L && b > 65536 && b < 3037000000L); long c = a * b; return c > 0; }",
     "no-overflow", Verdict::True, Verdict::False, "no-overflow", true},
    {"negation", "int main(){ int x = __VERIFIER_nondet_int(); return -x; }", "no-overflow", Verdict::False,
     Verdict::False, "no-overflow"},
    {"negation_guarded", "int main(){ int x = __VERIFIER_nondet_int(); if (x != (-2147483647 - 1)) return -x; return 0; }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    {"div_min_by_minus_one", "int main(){ int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int(); __VERIFIER_assume(y != 0); return x / y; }",
     "no-overflow", Verdict::False, Verdict::False, "no-overflow"},
    {"div_by_zero", "int main(){ int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int(); __VERIFIER_assume(y > -5 && y < 5); return x % y; }",
     "div-by-zero", Verdict::False, Verdict::False, "div-by-zero"},
    {"div_nonzero", "int main(){ int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int(); __VERIFIER_assume(y != 0); return x / y; }",
     "div-by-zero", Verdict::True, Verdict::True, ""},
    {"unsigned_div_by_zero", "int main(){ unsigned x = __VERIFIER_nondet_uint(), y = __VERIFIER_nondet_uint(); __VERIFIER_assume(y < 3); return (int)(x / y); }",
     "div-by-zero", Verdict::False, Verdict::False, "div-by-zero"},
    {"shift_too_wide", "int main(){ int s = __VERIFIER_nondet_int(); __VERIFIER_assume(s >= 0 && s <= 32); return (int)(1u << s); }",
     "shift", Verdict::False, Verdict::False, "shift"},
    {"shift_negative", "int main(){ int s = __VERIFIER_nondet_int(); __VERIFIER_assume(s > -3 && s < 3); return 8 >> s; }", "shift",
     Verdict::False, Verdict::False, "shift"},
    {"shift_in_range", "int main(){ int s = __VERIFIER_nondet_int(); __VERIFIER_assume(s >= 0 && s < 32); return (int)(1u << s); }",
     "shift", Verdict::True, Verdict::True, ""},
    // the width of long decides
    {"shift_long_data_model", "int main(){ int s = __VERIFIER_nondet_int(); __VERIFIER_assume(s >= 0 && s < 40); unsigned long v = 1ul << s; return v != 0; }",
     "shift", Verdict::True, Verdict::False, "shift"},
    // two properties: the one violated on the path is named
    {"two_properties", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x == 0); return 10 / x; }",
     "no-overflow,div-by-zero", Verdict::False, Verdict::False, "div-by-zero"},
    // not checking unreach-call: an error call ends the execution, it is no violation
    {"error_call_not_checked", "int main(){ int x = __VERIFIER_nondet_int(); if (x > 5) reach_error(); return x; }",
     "no-overflow", Verdict::True, Verdict::True, ""},
    // ... while with unreach-call as well it is one, and named as such ("")
    {"error_call_and_overflow", "int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 0); if (x > 5) reach_error(); return x; }",
     "unreach-call,no-overflow", Verdict::False, Verdict::False, ""},
    // the overflow is in a callee
    {"overflow_in_callee", "int inc(int a) { return a + 1; } int main(){ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 2147483000); return inc(x); }",
     "no-overflow", Verdict::False, Verdict::False, "no-overflow"},
    // ---- memory safety (the object-id layout, cfa::memlayout) ----
    {"double_free", "int main(){ int *p = malloc(4); free(p); if (__VERIFIER_nondet_int()) free(p); return 0; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-free"},
    {"free_of_stack_object", "int main(){ int x = 1; int *p = &x; if (__VERIFIER_nondet_int()) p = malloc(4); free(p); return 0; }",
     "valid-free", Verdict::False, Verdict::False, "valid-free"},
    {"free_inside_block", "int main(){ char *p = malloc(8); int k = __VERIFIER_nondet_int(); __VERIFIER_assume(k >= 0 && k < 2); free(p + k); return 0; }",
     "valid-free", Verdict::False, Verdict::False, "valid-free"},
    {"free_null_and_block", "int main(){ int *p = 0; free(p); if (__VERIFIER_nondet_int()) p = malloc(4); free(p); return 0; }",
     "valid-memsafety,valid-memcleanup", Verdict::True, Verdict::True, ""},
    {"leak_at_exit", "int main(){ int *p = malloc(4); if (__VERIFIER_nondet_int()) free(p); return 0; }",
     "valid-memcleanup", Verdict::False, Verdict::False, "valid-memcleanup"},
    {"leak_at_exit_call", "void exit(int); int *g; int main(){ g = malloc(4); if (__VERIFIER_nondet_int()) exit(0); free(g); return 0; }",
     "valid-memcleanup", Verdict::False, Verdict::False, "valid-memcleanup"},
    {"no_leak", "void *calloc(unsigned long, unsigned long); void *realloc(void *, unsigned long); int main(){ int *p = malloc(4); int *q = calloc(2, 4); q = realloc(q, 16); q[3] = *p = 1; free(q); free(p); return 0; }",
     "valid-memsafety,valid-memcleanup", Verdict::True, Verdict::True, ""},
    {"leak_unreachable_at_end", "int main(){ int *p = malloc(4); if (__VERIFIER_nondet_int()) p = 0; free(p); return 0; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-memtrack"},
    // a const global with a pointer member cannot point to a heap block (its initializer
    // is a constant expression): the leak at main's return is decided (was unsupported)
    {"leak_with_const_global_pointer", "struct db { const char *name; unsigned char off[3]; }; static const struct db g = { \"x\", { 1, 2, 3 } }; int main(){ char *t = malloc(10); if (t && g.off[2] != 3) free(t); return 0; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-memtrack"},
    {"no_leak_with_const_global_pointer", "struct db { const char *name; unsigned char off[3]; }; static const struct db g[2] = { { \"x\", { 1 } } }; int main(){ char *t = malloc(10); if (g[0].off[0] == 1) free(t); return 0; }",
     "valid-memsafety", Verdict::True, Verdict::True, ""},
    // globals that can hold pointers, in fixed places (globalPointerSlots): when none
    // points into a live heap block at main's return, the allocated blocks are lost
    {"leak_global_points_elsewhere", "int *g; int x; int main(){ g = &x; int *p = malloc(4); if (__VERIFIER_nondet_int()) free(p); return *g; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-memtrack"},
    // esbmc github_2335_4: the global's first block is lost when it is overwritten
    {"leak_global_overwritten", "char *global; void c1(void){ char *x = malloc(1); global = x; } int main(){ c1(); if (__VERIFIER_nondet_int()) c1(); free(global); return 0; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-memtrack"},
    // struct members and array elements at their offsets (which differ between the models)
    {"leak_global_struct_slots", "struct s { int d; struct s *next; } slots[2]; int main(){ slots[1].next = malloc(8); int *p = malloc(4); free(slots[1].next); if (__VERIFIER_nondet_int()) free(p); return 0; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-memtrack"},
    // a global still points to the block: reachable, not decided (never false)
    {"global_struct_slot_holds_block", "struct s { int d; struct s *next; } slots[2]; int main(){ slots[1].next = malloc(8); int *p = malloc(4); free(p); return 0; }",
     "valid-memsafety", Verdict::Unknown, Verdict::Unknown, ""},
    // a pointer copied into a byte array: no fixed place, not decided
    {"global_bytes_hold_pointer", "\n#include <string.h>\nchar buf[16]; int main(){ int *p = malloc(4); memcpy(buf + 1, &p, sizeof p); return 0; }",
     "valid-memsafety", Verdict::Unknown, Verdict::Unknown, ""},
    {"heap_out_of_bounds", "int main(){ int *p = malloc(10 * sizeof(int)); int i = __VERIFIER_nondet_int(); __VERIFIER_assume(i >= 0 && i <= 10); p[i] = 1; free(p); return 0; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-deref"},
    {"heap_in_bounds", "int main(){ int *p = malloc(10 * sizeof(int)); int i = __VERIFIER_nondet_int(); __VERIFIER_assume(i >= 0 && i < 10); p[i] = 1; int v = p[9 - i]; free(p); return v; }",
     "valid-memsafety", Verdict::True, Verdict::True, ""},
    // the example: a[i] for i up to n in a 10-element array (was unsupported)
    {"array_loop_out_of_bounds", "int main(){ int a[10]; int n = __VERIFIER_nondet_int(); for (int i = 0; i <= n && i < 12; i++) a[i] = i; return 0; }",
     "valid-deref", Verdict::False, Verdict::False, "valid-deref"},
    {"array_loop_in_bounds", "int main(){ int a[10]; int n = __VERIFIER_nondet_int(); for (int i = 0; i < n && i < 10; i++) a[i] = i; return a[0]; }",
     "valid-deref", Verdict::True, Verdict::True, ""},
    {"global_array_negative_index", "int g[4]; int main(){ int i = __VERIFIER_nondet_int(); __VERIFIER_assume(i > -2 && i < 4); return g[i]; }",
     "valid-deref", Verdict::False, Verdict::False, "valid-deref"},
    {"use_after_free", "int main(){ int *p = malloc(8); *p = 3; free(p); return __VERIFIER_nondet_int() ? *p : 0; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-deref"},
    {"null_dereference", "int main(){ int x = 0; int *p = __VERIFIER_nondet_int() ? &x : 0; return *p; }",
     "valid-deref", Verdict::False, Verdict::False, "valid-deref"},
    {"null_guarded", "int main(){ int x = 0; int *p = __VERIFIER_nondet_int() ? &x : 0; return p && *p; }",
     "valid-deref", Verdict::True, Verdict::True, ""},
    {"dead_stack_object", "int *f(void){ int x = 3; return &x; } int main(){ int *p = f(); return __VERIFIER_nondet_int() ? *p : 0; }",
     "valid-deref", Verdict::False, Verdict::False, "valid-deref"},
    {"struct_member_through_pointer", "struct s { int a; int b; }; int main(){ struct s *p = malloc(4); p->a = 1; if (__VERIFIER_nondet_int()) p->b = 2; free(p); return 0; }",
     "valid-deref", Verdict::False, Verdict::False, "valid-deref"},
    // a pointer may point before its object as long as it is not dereferenced (SV-COMP
    // counts dereferences; cfa::memlayout's provenance): `p - k` and back is no violation ...
    {"pointer_below_object_not_dereferenced", "int main(){ int *p = malloc(40); if (!p) return 0; int k = __VERIFIER_nondet_int(); __VERIFIER_assume(k >= 0 && k < 4); int *q = p - k; int *r = (q + 3) - 3 + k; *r = 1; int d = (int)(r - q); free(p); return d; }",
     "valid-memsafety", Verdict::True, Verdict::True, ""},
    // ... indexing from such a pointer back into the object is valid ...
    {"index_from_pointer_below_object", "int main(){ int *p = malloc(40); if (!p) return 0; int *q = p - 1; int i = __VERIFIER_nondet_int(); __VERIFIER_assume(i >= 1 && i <= 10); q[i] = 1; free(p); return 0; }",
     "valid-memsafety", Verdict::True, Verdict::True, ""},
    // ... and dereferencing it is a violation
    {"deref_below_object", "int main(){ int *p = malloc(40); if (!p) return 0; int k = __VERIFIER_nondet_int(); __VERIFIER_assume(k >= 0 && k < 4); int *q = p - k; *q = 1; free(p); return 0; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-deref"},
    {"index_below_object", "int main(){ int *p = malloc(40); if (!p) return 0; int *q = p - 1; int i = __VERIFIER_nondet_int(); __VERIFIER_assume(i >= 0 && i <= 10); q[i] = 1; free(p); return 0; }",
     "valid-memsafety", Verdict::False, Verdict::False, "valid-deref"},
    // an object of any size an `unsigned` holds fits the LP64 layout (esbmc github_330_5:
    // alloca of a nondeterministic unsigned size was unknown, "object larger than the
    // layout's 4026531840 bytes"); under ILP32 such a size exceeds the layout's 960 KiB
    // objects, so that path stays unsupported
    {"alloca_of_unsigned_size", "void g(void *a, unsigned n) {} void f(unsigned n){ void *a[8]; for (int i = 0; i != 8; ++i) a[i] = __builtin_alloca(n); g(a, n); } int main(){ f(__VERIFIER_nondet_uint()); return 0; }",
     "valid-memsafety,valid-memcleanup", Verdict::True, Verdict::Unknown, ""},
    {"malloc_of_unsigned_size", "int main(){ unsigned n = __VERIFIER_nondet_uint(); char *p = malloc(n); if (p && n > 0) { p[n - 1] = 1; p[0] = p[n - 1]; } free(p); return 0; }",
     "valid-memsafety,valid-memcleanup", Verdict::True, Verdict::Unknown, ""},
    {"memcpy_past_end", "\n#include <string.h>\nint main(){ char a[8], b[4] = {1, 2, 3, 4}; unsigned n = __VERIFIER_nondet_uint(); __VERIFIER_assume(n <= 5); memcpy(a, b, n); return a[0]; }",
     "valid-deref", Verdict::False, Verdict::False, "valid-deref"},
};

struct AlgRun {
  Algorithm alg;
  bool mustDecide;  // the verdict must be the expected one (else: expected or unknown)
};

// bmc decides every case; kind, pred, explicit, impact and ibmc must agree or say
// unknown (within 5 s). auto and cmc are chains of these.
const AlgRun kRuns[] = {{Algorithm::Bmc, true},   {Algorithm::Kind, false},     {Algorithm::Pred, false},
                        {Algorithm::Explicit, false}, {Algorithm::Impact, false}, {Algorithm::Ibmc, false}};

class PropertyTest : public ::testing::TestWithParam<PropCase> {};

TEST_P(PropertyTest, VerdictAndViolatedProperty) {
  const PropCase& c = GetParam();
  for (DataModel dm : {DataModel::LP64, DataModel::ILP32}) {
    Verdict expected = dm == DataModel::LP64 ? c.lp64 : c.ilp32;
    for (const AlgRun& run : kRuns) {
      argus::engine::VerifyRequest req;
      req.file = "test.c";
      req.source = std::string(argus::testing::kPrelude) + c.body;
      req.algorithm = run.alg;
      req.solver = SolverKind::Z3;
      req.dataModel = dm;
      req.timeoutS = run.mustDecide ? 30 : 5;
      req.property = c.property;
      argus::engine::VerifyOutcome out = argus::engine::verify(req);
      std::string what = std::string(c.name) + " " + argus::engine::algorithmName(run.alg) + " " +
                         (dm == DataModel::LP64 ? "LP64" : "ILP32") + ": " +
                         argus::result::verdictText(out.result) + " " + out.result.reason;
      ASSERT_FALSE(out.inputError) << what << out.error;
      EXPECT_EQ(out.result.property, c.property) << what;
      if (run.mustDecide && !(c.hardProof && expected == Verdict::True)) {
        EXPECT_EQ(out.result.verdict, expected) << what;
      } else {
        EXPECT_TRUE(out.result.verdict == expected || out.result.verdict == Verdict::Unknown) << what;
      }
      if (out.result.verdict == Verdict::False) {
        ASSERT_TRUE(out.result.counterexample) << what;
        EXPECT_TRUE(out.result.counterexample->replayed) << what;
        EXPECT_EQ(out.result.counterexample->property, c.violated) << what;
        std::string text = argus::result::verdictText(out.result);
        EXPECT_EQ(text, *c.violated ? "false(" + std::string(c.violated) + ")" : std::string("false")) << what;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Checks, PropertyTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<PropCase>& i) { return std::string(i.param.name); });

// Signed __int128 (LP64 only: Clang rejects __int128 on ILP32): the overflow checks are
// exact in 128 bits (the interpreter confirms them with the host's 128-bit overflow
// test); bmc decides each case with both solvers, kind and pred agree or say unknown.
TEST(Properties, Int128SignedOverflow) {
  struct WideCase {
    const char* name;
    const char* body;
    Verdict expected;
  };
  const WideCase cases[] = {
      {"int128_add_overflow",
       "int main(){ long a = __VERIFIER_nondet_long(); __int128 x = (__int128)a << 64; __int128 y = x + x; return (int)y; }",
       Verdict::False},
      {"int128_add_fits",
       "int main(){ long a = __VERIFIER_nondet_long(); __int128 x = (__int128)a << 32; __int128 y = x + x; return (int)(y >> 100); }",
       Verdict::True},
      {"int128_mul_overflow",
       "int main(){ long a = __VERIFIER_nondet_long(); __int128 x = (__int128)a * a; __int128 y = x * 4; return (int)y; }",
       Verdict::False},
      {"int128_neg_min",
       "int main(){ long a = __VERIFIER_nondet_long(); __int128 x = (__int128)a << 64; __int128 y = -x; return (int)y; }",
       Verdict::False},
  };
  for (const WideCase& c : cases)
    for (SolverKind solver : {SolverKind::Z3, SolverKind::CVC5})
      for (const AlgRun& run : {AlgRun{Algorithm::Bmc, true}, AlgRun{Algorithm::Kind, false}, AlgRun{Algorithm::Pred, false}}) {
        argus::engine::VerifyRequest req;
        req.file = "test.c";
        req.source = std::string(argus::testing::kPrelude) + c.body;
        req.algorithm = run.alg;
        req.solver = solver;
        req.timeoutS = run.mustDecide ? 30 : 5;
        req.property = "no-overflow";
        argus::engine::VerifyOutcome out = argus::engine::verify(req);
        std::string what = std::string(c.name) + " " + argus::engine::algorithmName(run.alg) + " " +
                           argus::smt::solverName(solver) + ": " + argus::result::verdictText(out.result) + " " +
                           out.result.reason;
        ASSERT_FALSE(out.inputError) << what << out.error;
        if (run.mustDecide)
          EXPECT_EQ(out.result.verdict, c.expected) << what;
        else
          EXPECT_TRUE(out.result.verdict == c.expected || out.result.verdict == Verdict::Unknown) << what;
        if (out.result.verdict == Verdict::False) {
          ASSERT_TRUE(out.result.counterexample) << what;
          EXPECT_TRUE(out.result.counterexample->replayed) << what;
          EXPECT_EQ(out.result.counterexample->property, "no-overflow") << what;
        }
      }
}

// Reachability users pay nothing: without --property (or with unreach-call) no check
// edge is added, and a program without an error call is proved without a solver.
TEST(Properties, NothingEncodedForReachability) {
  for (const char* prop : {"", "unreach-call"}) {
    argus::engine::VerifyRequest req;
    req.file = "test.c";
    req.source = std::string(argus::testing::kPrelude) +
                 "int main(){ int x = __VERIFIER_nondet_int(); int y = x + 1; return y / x << x; }";
    req.algorithm = Algorithm::Bmc;
    req.property = prop;
    auto out = argus::engine::verify(req);
    EXPECT_EQ(out.result.verdict, Verdict::True) << prop;
    EXPECT_EQ(out.result.stats.extra.count("no_error_location"), 1u) << prop;
    EXPECT_EQ(out.result.stats.solverQueries, 0u) << prop;
  }
}

// Memory-safety cases that are not decided: blocks still allocated at the end of main
// while a global may point to them (valid-memtrack), an abort() with allocated blocks.
// Unknown, never true, and the reason names the construct.
TEST(Properties, MemtrackUndecidedIsUnknownNotTrue) {
  const char* bodies[] = {
      "#include <stdlib.h>\nint *g; int main(){ g = malloc(4); return 0; }",
      // a pointer to const is not a const object: it may hold the block
      "#include <stdlib.h>\nconst char *g; int main(){ g = malloc(4); return 0; }",
      "#include <stdlib.h>\nint main(){ int *p = malloc(4); if (*p) abort(); free(p); return 0; }",
  };
  for (const char* body : bodies) {
    argus::engine::VerifyRequest req;
    req.file = "test.c";
    req.source = body;
    req.algorithm = Algorithm::Bmc;
    req.property = "valid-memsafety";
    auto out = argus::engine::verify(req);
    EXPECT_EQ(out.result.verdict, Verdict::Unknown) << body << " " << out.result.reason;
    EXPECT_NE(out.result.reason.find("valid-memtrack"), std::string::npos) << out.result.reason;
  }
}

// A function verified as its own entry (its entry harness, core/cfa/entry_harness.h)
// under memory safety: the harness's objects are live objects of their size in the
// memory-safety layout, so an access inside them is valid and only a real violation is
// reported (they were not in the object table: every `*p` was a valid-deref violation).
TEST(Properties, EntryHarnessObjectsAreLiveObjects) {
  struct Case {
    const char* fn;
    Verdict verdict;
    const char* violated;
  };
  const char* src =
      "void *malloc(unsigned long); void free(void *);\n"
      "struct node { int v; struct node *next; };\n"
      "void set_first(int *p) { *p = 0; }\n"
      "void swap(int *p, int *q) { int t = *p; *p = *q; *q = t; }\n"
      "int length(struct node *l) { int n = 0; while (l && n < 3) { n++; l = l->next; } return n; }\n"
      "void destroy(int *p) { free(p); }\n"
      "void keep(int *p) { int *q = malloc(4); if (q) { *q = *p; free(q); } }\n"
      "int second(int *a) { return a[1]; }\n"
      "void twice(int *p) { free(p); free(p); }\n";
  const Case cases[] = {{"set_first", Verdict::True, ""},          {"swap", Verdict::True, ""},
                        {"length", Verdict::True, ""},             {"destroy", Verdict::True, ""},
                        {"keep", Verdict::True, ""},               {"second", Verdict::False, "valid-deref"},
                        {"twice", Verdict::False, "valid-free"}};
  for (DataModel dm : {DataModel::LP64, DataModel::ILP32})
    for (const Case& c : cases) {
      argus::engine::VerifyRequest req;
      req.file = "test.c";
      req.source = src;
      req.function = c.fn;
      req.algorithm = Algorithm::Bmc;
      req.dataModel = dm;
      req.timeoutS = 30;
      req.property = "valid-memsafety";
      auto out = argus::engine::verify(req);
      std::string what = std::string(c.fn) + (dm == DataModel::LP64 ? " LP64: " : " ILP32: ") +
                         argus::result::verdictText(out.result) + " " + out.result.reason;
      ASSERT_FALSE(out.inputError) << what << out.error;
      EXPECT_EQ(out.result.stats.extra["entry_harness"], 1) << what;
      EXPECT_EQ(out.result.verdict, c.verdict) << what;
      if (out.result.verdict == Verdict::False) {
        ASSERT_TRUE(out.result.counterexample) << what;
        EXPECT_TRUE(out.result.counterexample->replayed) << what;
        EXPECT_EQ(out.result.counterexample->property, c.violated) << what;
      }
    }
}

// The count of allocated heap blocks that valid-memtrack and valid-memcleanup read at
// termination is a register (cfa::memlayout::kLiveHeapVar), so the invariant generators
// see that a loop which does not allocate keeps it: k-induction and kIkI prove the
// editor's counting loop under the memory properties as under reachability (it was a
// memory cell, which the step case leaves arbitrary: "verified for loops unrolled <= N
// times" at best). The internal variable never appears in a trace (witnesses drop
// invariant facts over `__` names, as they drop __brk).
const char* kCountingLoop =
    "int main(void){ int n = __VERIFIER_nondet_int(); int i = 0, j = 0; if (n < 0 || n > 1000000) return 0;\n"
    "  while (i < n) { i++; j += 2; }\n"
    "  if (j != 2*i) reach_error(); return 0; }";

TEST(Properties, InductionProvesLoopThatDoesNotAllocate) {
  for (const char* prop : {"valid-memsafety", "valid-memcleanup", "unreach-call,valid-memsafety,no-overflow,div-by-zero,shift"})
    for (Algorithm alg : {Algorithm::Kind, Algorithm::Kiki})
      for (SolverKind solver : {SolverKind::Z3, SolverKind::CVC5})
        for (DataModel dm : {DataModel::LP64, DataModel::ILP32}) {
          argus::engine::VerifyRequest req;
          req.file = "test.c";
          req.source = std::string(argus::testing::kPrelude) + kCountingLoop;
          req.algorithm = alg;
          req.solver = solver;
          req.dataModel = dm;
          req.timeoutS = 30;
          req.property = prop;
          auto out = argus::engine::verify(req);
          std::string what = std::string(prop) + " " + argus::engine::algorithmName(alg) + " " +
                             argus::smt::solverName(solver) + (dm == DataModel::LP64 ? " LP64: " : " ILP32: ") +
                             argus::result::verdictText(out.result) + " " + out.result.reason;
          ASSERT_FALSE(out.inputError) << what << out.error;
          // kIkI under LP64 runs out of the 30 s here (0 solver queries answered: its own
          // invariant search; not investigated yet); it must not answer false
          if (alg == Algorithm::Kind || dm == DataModel::ILP32) {
            EXPECT_EQ(out.result.verdict, Verdict::True) << what;
          } else {
            EXPECT_NE(out.result.verdict, Verdict::False) << what;
          }
          // the proof's invariant states the count (kIkI: as an interval)
          if (out.result.verdict == Verdict::True) {
            bool named = false;
            for (const auto& [at, f] : out.result.invariant) named = named || f.find("__argus_live_heap") != std::string::npos;
            EXPECT_TRUE(named || alg == Algorithm::Kiki) << what;
          }
        }
}

// A loop over an array that neither allocates nor frees: the interval analysis keeps the
// array's entry of the object table (size, state) and the next free id as facts at the
// loop head (cells at addresses it knows exactly), so the step case, whose memory is
// otherwise arbitrary, sees a live object of 40 bytes and k-induction proves the accesses.
TEST(Properties, InductionProvesArrayLoopWithObjectTableFacts) {
  const std::string src = std::string(argus::testing::kPrelude) +
                          "int main(void){ int a[10]; int n = __VERIFIER_nondet_int(); int s = 0;\n"
                          "  for (int i = 0; i < n && i < 10; i++) { a[i] = i; s += a[i]; }\n"
                          "  return s; }";
  for (SolverKind solver : {SolverKind::Z3, SolverKind::CVC5})
    for (DataModel dm : {DataModel::LP64, DataModel::ILP32}) {
      argus::engine::VerifyRequest req;
      req.file = "test.c";
      req.source = src;
      req.algorithm = Algorithm::Kind;
      req.solver = solver;
      req.dataModel = dm;
      req.timeoutS = 30;
      req.property = "valid-memsafety";
      auto out = argus::engine::verify(req);
      std::string what = std::string(argus::smt::solverName(solver)) + (dm == DataModel::LP64 ? " LP64: " : " ILP32: ") +
                         argus::result::verdictText(out.result) + " " + out.result.reason;
      ASSERT_FALSE(out.inputError) << what << out.error;
      EXPECT_EQ(out.result.verdict, Verdict::True) << what;
    }
  // the same loop one element too far is still a violation
  argus::engine::VerifyRequest req;
  req.file = "test.c";
  req.source = std::string(argus::testing::kPrelude) +
               "int main(void){ int a[10]; int n = __VERIFIER_nondet_int(); int s = 0;\n"
               "  for (int i = 0; i < n && i <= 10; i++) { a[i] = i; s += a[i]; }\n"
               "  return s; }";
  req.algorithm = Algorithm::Kind;
  req.solver = SolverKind::Z3;
  req.timeoutS = 30;
  req.property = "valid-memsafety";
  auto out = argus::engine::verify(req);
  ASSERT_EQ(out.result.verdict, Verdict::False) << out.result.reason;
  EXPECT_TRUE(out.result.counterexample->replayed);
  EXPECT_EQ(out.result.counterexample->property, "valid-deref");
}

// ... and a leak inside a loop is still found by the same algorithms and by bmc, with a
// replayed counterexample that does not show the internal count.
TEST(Properties, LeakInLoopIsFoundWithTheCountAsRegister) {
  const std::string src = std::string(argus::testing::kPrelude) +
                          "int main(void){ int n = __VERIFIER_nondet_int(); if (n < 0 || n > 5) return 0;\n"
                          "  for (int i = 0; i < n; i++) { int *p = malloc(4); if (i != 2) free(p); }\n"
                          "  return 0; }";
  struct Want {
    const char* property;
    const char* violated;
  };
  for (Want w : {Want{"valid-memsafety", "valid-memtrack"}, Want{"valid-memcleanup", "valid-memcleanup"}})
    for (Algorithm alg : {Algorithm::Bmc, Algorithm::Kind, Algorithm::Kiki})
      for (DataModel dm : {DataModel::LP64, DataModel::ILP32}) {
        argus::engine::VerifyRequest req;
        req.file = "test.c";
        req.source = src;
        req.algorithm = alg;
        req.solver = SolverKind::Z3;
        req.dataModel = dm;
        req.timeoutS = 30;
        req.property = w.property;
        auto out = argus::engine::verify(req);
        std::string what = std::string(w.property) + " " + argus::engine::algorithmName(alg) +
                           (dm == DataModel::LP64 ? " LP64: " : " ILP32: ") + argus::result::verdictText(out.result) +
                           " " + out.result.reason;
        ASSERT_FALSE(out.inputError) << what << out.error;
        ASSERT_EQ(out.result.verdict, Verdict::False) << what;
        ASSERT_TRUE(out.result.counterexample) << what;
        EXPECT_TRUE(out.result.counterexample->replayed) << what;
        EXPECT_EQ(out.result.counterexample->property, w.violated) << what;
        for (const auto& st : out.result.counterexample->steps)
          for (const auto& [name, value] : st.values) EXPECT_EQ(name.find("__argus"), std::string::npos) << what;
      }
}

// The memory-safety layout is used only when a memory-safety property is checked.
TEST(Properties, MemoryLayoutOnlyForMemorySafety) {
  const std::string src = "#include <stdlib.h>\nint main(){ int *p = malloc(4); free(p); return 0; }";
  argus::frontend::FrontendOptions fo;
  auto flat = argus::frontend::parseSource(src, "test.c", fo);
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(flat.program->objectBits, 0u);
  EXPECT_EQ(flat.program->heapBase, uint64_t(1) << 40);  // LP64: the zero page is 1 TiB (cfa::zeroPageEnd)
  EXPECT_EQ(argus::cfa::zeroPageEnd(*flat.program), uint64_t(1) << 40);
  fo.properties = {"no-overflow"};
  EXPECT_EQ(argus::frontend::parseSource(src, "test.c", fo).program->objectBits, 0u);
  fo.properties = {"valid-memcleanup"};
  auto mem = argus::frontend::parseSource(src, "test.c", fo);
  EXPECT_EQ(mem.program->objectBits, 33u);  // an object of any unsigned size fits (github_330_5)
  EXPECT_EQ(mem.program->heapBase, uint64_t(1) << 33);
  EXPECT_EQ(argus::cfa::zeroPageEnd(*mem.program), 0u);
  fo.dataModel = DataModel::ILP32;
  EXPECT_EQ(argus::frontend::parseSource(src, "test.c", fo).program->objectBits, 20u);
  fo.properties.clear();
  auto flat32 = argus::frontend::parseSource(src, "test.c", fo);
  EXPECT_EQ(flat32.program->heapBase, 0x1000u);
  EXPECT_EQ(argus::cfa::zeroPageEnd(*flat32.program), 0x1000u);
}

TEST(Properties, ParsesNamesAndPropertyFiles) {
  using argus::engine::parseProperties;
  EXPECT_EQ(parseProperties("no-overflow, shift"), (std::set<std::string>{"no-overflow", "shift"}));
  EXPECT_EQ(parseProperties("CHECK( init(main()), LTL(G ! call(reach_error())) )\n"),
            (std::set<std::string>{"unreach-call"}));
  EXPECT_EQ(parseProperties("CHECK( init(main()), LTL(G ! overflow) )\n"), (std::set<std::string>{"no-overflow"}));
  EXPECT_EQ(parseProperties("CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\n"
                            "CHECK( init(main()), LTL(G valid-memtrack) )\n"),
            (std::set<std::string>{"valid-memsafety"}));
  EXPECT_EQ(parseProperties("CHECK( init(main()), LTL(G valid-memcleanup) )"), (std::set<std::string>{"valid-memcleanup"}));
  EXPECT_THROW(parseProperties("no-such-property"), std::invalid_argument);
  EXPECT_THROW(parseProperties("CHECK( init(main()), LTL(F end) )"), std::invalid_argument);
}

}  // namespace
