// The memory encoding's byte reads (ExprEncoder::readByte, issue 21): reads resolved
// through store chains and if-then-else merges of memories must equal the array
// theory's select in every model, and BMC must decide programs with constant-list
// array initialisers and symbolic indices quickly, in both data models.
#include <chrono>
#include <functional>
#include <map>
#include <stdexcept>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "core/encoding/expr_encoder.h"
#include "core/smt/solver.h"
#include "tests/unit/verify/verify_helpers.h"

namespace argus {
namespace {

using smt::Term;

class ReadByte : public ::testing::TestWithParam<smt::SolverKind> {};

// A concrete evaluator of the terms the tests build, independent of the encoder and of
// the solvers: variables from `env`, an array variable is the memory byte(a) =
// (37 a + 11) mod 256, stores and if-then-else of arrays as functions.
struct Eval {
  std::map<std::string, uint64_t> env;
  uint64_t value(Term t) {
    switch (t->kind) {
      case smt::Kind::BVConst:
      case smt::Kind::BoolConst: return t->value;
      case smt::Kind::Var: return env.at(t->name);
      case smt::Kind::BVAdd: return (value(t->children[0]) + value(t->children[1])) & 0xffffffffu;
      case smt::Kind::BVSub: return (value(t->children[0]) - value(t->children[1])) & 0xffffffffu;
      case smt::Kind::Eq: return value(t->children[0]) == value(t->children[1]);
      case smt::Kind::Extract: return (value(t->children[0]) >> t->p1) & ((uint64_t(1) << (t->p0 - t->p1 + 1)) - 1);
      case smt::Kind::BVUle: return value(t->children[0]) <= value(t->children[1]);
      case smt::Kind::BVUlt: return value(t->children[0]) < value(t->children[1]);
      case smt::Kind::And: {
        for (Term c : t->children)
          if (!value(c)) return 0;
        return 1;
      }
      case smt::Kind::Not: return !value(t->children[0]);
      case smt::Kind::Ite: return value(t->children[0]) ? value(t->children[1]) : value(t->children[2]);
      case smt::Kind::Select: return byte(t->children[0], value(t->children[1]));
      default: throw std::logic_error("Eval: unexpected term " + t->str());
    }
  }
  uint64_t byte(Term mem, uint64_t a) {
    switch (mem->kind) {
      case smt::Kind::Var: return (37 * a + 11) & 255;
      case smt::Kind::Store: return value(mem->children[1]) == a ? value(mem->children[2]) : byte(mem->children[0], a);
      case smt::Kind::Ite: return byte(value(mem->children[0]) ? mem->children[1] : mem->children[2], a);
      default: throw std::logic_error("Eval: unexpected memory " + mem->str());
    }
  }
};

// Random memories over an array variable: stores at constant addresses, at x + c and at
// y, y + c, merged by if-then-else on Boolean variables. readByte(mem, a) must give the
// byte that the evaluator reads from mem at a, under random values of x, y and the
// conditions (chosen so that x- and y-addresses often meet the constant ones), and
// the Z3/cvc5 array theory must agree on small instances.
TEST_P(ReadByte, EqualsTheArraySemanticsOnRandomChains) {
  smt::TermManager tm;
  encoding::ExprEncoder enc(tm, 32);
  std::mt19937 rng(21);
  Term x = tm.var("x", tm.bvSort(32)), y = tm.var("y", tm.bvSort(32));
  auto addrOf = [&](unsigned kind, uint64_t c) -> Term {
    switch (kind) {
      case 0: return tm.bvVal(4096 + c, 32);
      case 1: return tm.bvAdd(x, tm.bvVal(c, 32));
      default: return c % 2 ? y : tm.bvAdd(y, tm.bvVal(c, 32));
    }
  };
  size_t checked = 0, resolved = 0;
  for (int round = 0; round < 20; ++round) {
    Term mem = tm.var("m0_" + std::to_string(round), enc.memSort());
    std::vector<std::string> conds;
    for (int step = 0; step < 60; ++step) {
      if (rng() % 10 < 8) {
        mem = tm.store(mem, addrOf(rng() % 3, rng() % 12), tm.bvVal(rng() % 256, 8));
      } else {
        Term other = tm.store(mem, addrOf(rng() % 3, rng() % 12), tm.bvVal(rng() % 256, 8));
        conds.push_back("c" + std::to_string(round) + "_" + std::to_string(step));
        Term c = tm.var(conds.back(), tm.boolSort());
        mem = rng() % 2 ? tm.mkIte(c, mem, other) : tm.mkIte(c, other, mem);
      }
    }
    for (int k = 0; k < 12; ++k) {
      Term a = addrOf(k % 3, rng() % 12);
      Term read = enc.readByte(mem, a);
      if (read->kind != smt::Kind::Select) ++resolved;
      for (int trial = 0; trial < 40; ++trial) {
        Eval ev;
        ev.env["x"] = 4096 + rng() % 14 - 1;  // near the constant addresses, so they alias
        ev.env["y"] = 4096 + rng() % 14 - 1;
        for (const std::string& c : conds) ev.env[c] = rng() % 2;
        ASSERT_EQ(ev.value(read), ev.byte(mem, ev.value(a)))
            << "round " << round << " address " << a->str();
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 20u * 12 * 40);
  EXPECT_GT(resolved, 100u);  // the rewriting resolved most reads (not only plain selects)
}

// The solvers agree with readByte on a small chain (the array theory as the oracle).
TEST_P(ReadByte, TheSolverAgreesOnASmallChain) {
  smt::TermManager tm;
  encoding::ExprEncoder enc(tm, 32);
  Term x = tm.var("x", tm.bvSort(32)), c = tm.var("c", tm.boolSort());
  Term m0 = tm.var("m0", enc.memSort());
  Term m1 = tm.store(tm.store(m0, tm.bvVal(4096, 32), tm.bvVal(1, 8)), tm.bvAdd(x, tm.bvVal(1, 32)), tm.bvVal(2, 8));
  Term m2 = tm.mkIte(c, m1, tm.store(m1, tm.bvVal(4097, 32), tm.bvVal(3, 8)));
  Term M = tm.var("M", enc.memSort());
  for (Term a : {tm.bvVal(4096, 32), tm.bvVal(4097, 32), x, tm.bvAdd(x, tm.bvVal(1, 32))}) {
    Term read = enc.readByte(m2, a);
    auto solver = smt::makeSolver(GetParam(), tm);
    solver->add(tm.mkEq(M, m2));
    solver->add(tm.mkNot(tm.mkEq(read, tm.select(M, a))));
    EXPECT_EQ(solver->check(), smt::CheckResult::Unsat) << a->str();
  }
}

TEST_P(ReadByte, ResolvesConstantAndOffsetReadsWithoutArrays) {
  smt::TermManager tm;
  encoding::ExprEncoder enc(tm, 32);
  Term x = tm.var("x", tm.bvSort(32));
  Term mem = tm.var("m0", enc.memSort());
  // 600 stores at constant addresses (more than the old 64-step walk), then x + 1 := 7
  for (uint64_t i = 0; i < 600; ++i) mem = tm.store(mem, tm.bvVal(4096 + i, 32), tm.bvVal(i % 256, 8));
  mem = tm.store(mem, tm.bvAdd(x, tm.bvVal(1, 32)), tm.bvVal(7, 8));
  // x + 2 is distinct from x + 1: the read goes below it; 4096 + 5 gives an ite on x + 1
  EXPECT_EQ(enc.readByte(mem, tm.bvAdd(x, tm.bvVal(1, 32))), tm.bvVal(7, 8));
  Term r = enc.readByte(mem, tm.bvVal(4101, 32));
  EXPECT_NE(r->kind, smt::Kind::Select);
  auto solver = smt::makeSolver(GetParam(), tm);
  solver->add(tm.mkNot(tm.mkEq(tm.bvAdd(x, tm.bvVal(1, 32)), tm.bvVal(4101, 32))));
  solver->add(tm.mkNot(tm.mkEq(r, tm.bvVal(5, 8))));
  EXPECT_EQ(solver->check(), smt::CheckResult::Unsat);
}

// Runs of equal stores at consecutive constant addresses (zeroed globals, memset),
// rising and falling, partly overwritten above and below, mixed with stores at x + c:
// each read must still equal the evaluator's byte (including at the runs' ends and
// just outside them), and the runs must have been folded into range cases.
TEST_P(ReadByte, EqualsTheArraySemanticsOverRunsOfEqualStores) {
  smt::TermManager tm;
  encoding::ExprEncoder enc(tm, 32);
  std::mt19937 rng(1590);
  Term x = tm.var("x", tm.bvSort(32));
  size_t checked = 0, ranges = 0;
  std::function<void(Term)> countRanges = [&](Term t) {
    if (t->kind == smt::Kind::Ite && t->children[0]->kind == smt::Kind::And) ++ranges;
    if (t->kind == smt::Kind::Ite) countRanges(t->children[2]);
  };
  for (int round = 0; round < 30; ++round) {
    Term mem = tm.var("r0_" + std::to_string(round), enc.memSort());
    for (int step = 0; step < 8; ++step) {
      unsigned kind = rng() % 4;
      uint64_t start = 4096 + rng() % 24, len = 1 + rng() % 12;
      Term v = tm.bvVal(rng() % 3, 8);
      if (kind == 0) {
        mem = tm.store(mem, tm.bvAdd(x, tm.bvVal(rng() % 8, 32)), tm.bvVal(rng() % 256, 8));
      } else {
        for (uint64_t i = 0; i < len; ++i)
          mem = tm.store(mem, tm.bvVal(kind == 1 ? start + len - 1 - i : start + i, 32), v);
      }
    }
    for (int k = 0; k < 10; ++k) {
      Term a = k % 2 ? x : tm.bvAdd(x, tm.bvVal(rng() % 4, 32));
      Term read = enc.readByte(mem, a);
      countRanges(read);
      for (int trial = 0; trial < 40; ++trial) {
        Eval ev;
        ev.env["x"] = 4096 + rng() % 40 - 4;
        ASSERT_EQ(ev.value(read), ev.byte(mem, ev.value(a))) << "round " << round << " address " << a->str();
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 30u * 10 * 40);
  EXPECT_GT(ranges, 50u);
}

// A 1024-byte zeroed buffer with one int stored at its start (github_1590-generic's
// shape): a read at a symbolic address is one case per byte of the int, one range case
// for the buffer and the initial memory, not a case per byte of the buffer; and the solver agrees with the array theory on it.
TEST(ReadByteRuns, FoldsAZeroedBufferIntoOneCase) {
  smt::TermManager tm;
  encoding::ExprEncoder enc(tm, 32);
  Term x = tm.var("x", tm.bvSort(32)), v = tm.var("v", tm.bvSort(32));
  Term m0 = tm.var("m0", enc.memSort());
  Term mem = enc.zeroFill(m0, tm.bvVal(4096, 32), tm.bvVal(1024, 32));
  mem = enc.store(mem, tm.bvVal(4096, 32), v, 4);
  Term read = enc.readByte(mem, x);
  size_t ites = 0;
  Term t = read;
  for (; t->kind == smt::Kind::Ite; t = t->children[2]) ++ites;
  EXPECT_EQ(ites, 5u);  // the int's 4 bytes (different values), then 4096..5119 as one case
  EXPECT_EQ(t->kind, smt::Kind::Select);
  EXPECT_EQ(t->children[0], m0);
  // the evaluator agrees at every address in and around the buffer
  for (uint64_t a = 4090; a < 5130; ++a) {
    Eval ev;
    ev.env["x"] = a;
    ev.env["v"] = 0xa1b2c3d4;
    ASSERT_EQ(ev.value(read), ev.byte(mem, a)) << a;
  }
}

// SQLite's debug `memset(p, 0xaa, 128)` of a freed slot, then `p->next = v`: a read at
// any address not provably distinct from p + i is one range case for the memset's run
// (addr - p <= 127, modulo 2^32: the run may wrap around the address space), not 128;
// a read at a constant address too. The evaluator agrees everywhere around the run, with
// p near the top of the address space as well.
TEST(ReadByteRuns, FoldsAMemsetThroughAPointerIntoOneCase) {
  smt::TermManager tm;
  encoding::ExprEncoder enc(tm, 32);
  Term p = tm.var("p", tm.bvSort(32)), y = tm.var("y", tm.bvSort(32)), v = tm.var("v", tm.bvSort(32));
  Term m0 = tm.var("m0", enc.memSort());
  Term mem = m0;
  for (uint64_t i = 0; i < 128; ++i) mem = enc.store(mem, tm.bvAdd(p, tm.bvVal(i, 32)), tm.bvVal(0xaa, 8), 1);
  mem = enc.store(mem, p, v, 4);
  for (Term at : {y, tm.bvVal(175160, 32)}) {
    Term read = enc.readByte(mem, at);
    size_t ites = 0;
    Term t = read;
    for (; t->kind == smt::Kind::Ite; t = t->children[2]) ++ites;
    EXPECT_EQ(ites, 5u) << "v's 4 bytes, then p .. p+127 as one case: " << read->str().substr(0, 400);
    EXPECT_EQ(t->kind, smt::Kind::Select);
    for (uint64_t base : {uint64_t(175100), uint64_t(175160 - 127), uint64_t(175161), uint64_t(0xffffffc0)}) {
      for (uint64_t d = 0; d < 300; ++d) {
        Eval ev;
        ev.env["p"] = base;
        ev.env["v"] = 0xa1b2c3d4;
        uint64_t a = (base + d - 100) & 0xffffffffu;
        ev.env["y"] = a;
        uint64_t addr = at == y ? a : 175160;
        ASSERT_EQ(ev.value(read), ev.byte(mem, addr)) << "p = " << base << ", address " << addr;
      }
    }
  }
  // a read at p + 6 itself still resolves to the run's byte (one base, offsets differ)
  EXPECT_EQ(enc.readByte(mem, tm.bvAdd(p, tm.bvVal(6, 32))), tm.bvVal(0xaa, 8));
}

// The zero page (cfa::zeroPageEnd, issue 29): below its end a read is 0 whatever was
// stored there; above it reads are the array's. A constant address folds at once, and so
// does the null side of "null or an object, plus an offset"; a symbolic address gets one
// if-then-else in front of the usual read, and the solvers agree with that reading.
TEST_P(ReadByte, TheZeroPageReadsAsZero) {
  smt::TermManager tm;
  encoding::ExprEncoder enc(tm, 32, 0x1000), flat(tm, 32);
  Term x = tm.var("x", tm.bvSort(32)), c = tm.var("c", tm.boolSort());
  Term m0 = tm.var("m0", enc.memSort());
  Term mem = enc.store(enc.store(m0, tm.bvVal(24, 32), tm.bvVal(7, 8), 1), x, tm.bvVal(9, 8), 1);
  mem = enc.store(mem, tm.bvVal(0x1008, 32), tm.bvVal(5, 8), 1);
  EXPECT_EQ(enc.readByte(mem, tm.bvVal(24, 32)), tm.bvVal(0, 8));
  EXPECT_NE(flat.readByte(mem, tm.bvVal(24, 32)), tm.bvVal(0, 8));  // without the page: the store (or x's)
  Term field = enc.readByte(mem, tm.bvAdd(tm.mkIte(c, tm.bvVal(0, 32), tm.bvVal(0x1000, 32)), tm.bvVal(8, 32)));
  EXPECT_EQ(field, tm.mkIte(c, tm.bvVal(0, 8), tm.bvVal(5, 8))) << field->str();
  Term rx = enc.readByte(mem, x);
  Term inPage = tm.bvUlt(x, tm.bvVal(0x1000, 32));
  auto unsat = [&](std::vector<Term> fs) {
    auto solver = smt::makeSolver(GetParam(), tm);
    for (Term f : fs) solver->add(f);
    return solver->check() == smt::CheckResult::Unsat;
  };
  EXPECT_TRUE(unsat({inPage, tm.mkNot(tm.mkEq(rx, tm.bvVal(0, 8)))}));
  EXPECT_TRUE(unsat({tm.mkNot(inPage), tm.mkNot(tm.mkEq(x, tm.bvVal(0x1008, 32))), tm.mkNot(tm.mkEq(rx, tm.bvVal(9, 8)))}));
  EXPECT_FALSE(unsat({tm.mkNot(inPage), tm.mkNot(tm.mkEq(rx, tm.bvVal(0, 8)))}));
  // the flat reading of the same address can be anything in the page
  EXPECT_FALSE(unsat({inPage, tm.mkNot(tm.mkEq(x, tm.bvVal(24, 32))), tm.mkEq(flat.readByte(mem, x), tm.bvVal(9, 8))}));
}

// Value ranges (smt::ValueRanges, issue 29): `p->a[i - 1].f` with p a harness object at
// K or null (LP64, the zero page below 2^40) lies at or above K or in the page, so the
// initialiser stores of the globals below K are not its cases, and its null side reads
// zero; the term still equals the array reading above the page in every model.
TEST_P(ReadByte, AStoreWhoseAddressCannotMeetTheReadIsSkipped) {
  smt::TermManager tm;
  const uint64_t page = uint64_t(1) << 40, K = page + 0x2000;
  encoding::ExprEncoder enc(tm, 64, page);
  Term c = tm.var("c", tm.boolSort()), i = tm.var("i", tm.bvSort(32));
  Term m0 = tm.var("m0", enc.memSort());
  Term mem = m0;
  for (uint64_t k = 0; k < 40; ++k) mem = enc.store(mem, tm.bvVal(page + 16 + k, 64), tm.bvVal(k * 7 % 256, 8), 1);
  mem = enc.store(mem, tm.bvVal(K + 8, 64), tm.bvVal(5, 8), 1);
  Term base = tm.mkIte(c, tm.bvVal(0, 64), tm.bvVal(K, 64));
  Term addr = tm.bvAdd(tm.bvAdd(base, tm.bvMul(tm.zeroExt(tm.bvAdd(i, tm.bvVal(0xffffffff, 32)), 32), tm.bvVal(72, 64))),
                       tm.bvVal(8, 64));
  Term r = enc.readByte(mem, addr);
  std::function<size_t(Term, std::set<Term>&)> ites = [&](Term t, std::set<Term>& seen) -> size_t {
    if (!seen.insert(t).second) return 0;
    size_t n = t->kind == smt::Kind::Ite ? 1 : 0;
    for (Term ch : t->children) n += ites(ch, seen);
    return n;
  };
  std::set<Term> seen;
  EXPECT_EQ(ites(r, seen), 3u) << r->str();  // the base's, the page's, then the one store at K + 8
  Term exact = tm.mkIte(tm.bvUlt(addr, tm.bvVal(page, 64)), tm.bvVal(0, 8), tm.select(mem, addr));
  auto solver = smt::makeSolver(GetParam(), tm);
  solver->add(tm.mkNot(tm.mkEq(r, exact)));
  EXPECT_EQ(solver->check(), smt::CheckResult::Unsat);
  // an address the analysis knows nothing of still sees every store
  Term x = tm.var("x", tm.bvSort(64));
  std::set<Term> seen2;
  EXPECT_GT(ites(enc.readByte(mem, x), seen2), 2u);
}

INSTANTIATE_TEST_SUITE_P(Solvers, ReadByte, ::testing::Values(smt::SolverKind::Z3, smt::SolverKind::CVC5),
                         [](const auto& info) { return std::string(smt::solverName(info.param)); });

// eureka_01-1's shape (sv-benchmarks loops): int arrays initialised by constant lists,
// read at indices loaded from other arrays. The bug needs two iterations; before the
// encoding change the bound-2 query took > 10 s with Z3.
const char* kEurekaShape = R"(
int INFINITY = 899;
int main() {
  int nodecount = __VERIFIER_nondet_int();
  int edgecount = __VERIFIER_nondet_int();
  if (!(0 <= nodecount && nodecount <= 4)) return 0;
  if (!(0 <= edgecount && edgecount <= 19)) return 0;
  int Source[20] = {0,4,1,1,0,0,1,3,4,4,2,2,3,0,0,3,1,2,2,3};
  int Dest[20] = {1,3,4,1,1,4,3,4,3,0,0,0,0,2,3,0,2,1,0,4};
  int Weight[20] = {0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19};
  int distance[5];
  int x, y, i, j;
  for (i = 0; i < nodecount; i++) distance[i] = i == 0 ? 0 : INFINITY;
  for (i = 0; i < nodecount; i++)
    for (j = 0; j < edgecount; j++) {
      x = Dest[j]; y = Source[j];
      if (distance[x] > distance[y] + Weight[j]) distance[x] = -1;
    }
  for (i = 0; i < edgecount; i++) {
    x = Dest[i]; y = Source[i];
    if (distance[x] > distance[y] + Weight[i]) return 0;
  }
  for (i = 0; i < nodecount; i++) __VERIFIER_assert(distance[i] >= CHECK);
  return 0;
}
)";

std::string eureka(const char* check) {
  std::string s = kEurekaShape;
  s.replace(s.find("CHECK"), 5, check);
  return s;
}

class EurekaShape : public ::testing::TestWithParam<frontend::DataModel> {};

TEST_P(EurekaShape, BmcFindsTheBugQuickly) {
  auto req = testing::snippetRequest(eureka("0"), engine::Algorithm::Bmc, smt::SolverKind::Z3, 20);
  req.dataModel = GetParam();
  auto t0 = std::chrono::steady_clock::now();
  auto out = engine::verify(req);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(out.result.verdict, result::Verdict::False) << out.result.reason;
  ASSERT_TRUE(out.result.counterexample);
  EXPECT_TRUE(out.result.counterexample->replayed);
  EXPECT_LT(s, 10.0);  // 0.2 s on a quiet machine; > 20 s (timeout) before
}

// The same program with a check that holds (distance is -1, 0 or INFINITY): the bounded
// unwinding must not lose behaviours (no spurious bug; true or a bound, never false).
TEST_P(EurekaShape, BmcFindsNoBugWhereThereIsNone) {
  auto req = testing::snippetRequest(eureka("-1"), engine::Algorithm::Bmc, smt::SolverKind::Z3, 5);
  req.dataModel = GetParam();
  auto out = engine::verify(req);
  EXPECT_NE(out.result.verdict, result::Verdict::False) << out.result.reason;
}

INSTANTIATE_TEST_SUITE_P(DataModels, EurekaShape,
                         ::testing::Values(frontend::DataModel::ILP32, frontend::DataModel::LP64),
                         [](const auto& info) {
                           return std::string(info.param == frontend::DataModel::ILP32 ? "ILP32" : "LP64");
                         });

// github_1590-generic's shape (ESBMC regression): an int stored at the start of a
// zeroed 1024-byte global buffer, read back at a nondeterministic aligned offset. With
// a case per byte the query timed out at 30 s; BMC now proves it and finds the bug of
// the variant with a stricter check (a replayed counterexample).
const char* kZeroedBuffer = R"(
unsigned char buffer[1024];
int main() {
  *(int *)buffer = 2;
  unsigned long i = __VERIFIER_nondet_ulong();
  if (i % 4 != 0 || i >= sizeof(buffer)) return 0;
  __VERIFIER_assert(*(int *)(buffer + i) <= LIMIT);
  return 0;
}
)";

std::string zeroedBuffer(const char* limit) {
  std::string s = kZeroedBuffer;
  s.replace(s.find("LIMIT"), 5, limit);
  return s;
}

TEST_P(EurekaShape, BmcDecidesReadsFromAZeroedBuffer) {
  auto req = testing::snippetRequest(zeroedBuffer("2"), engine::Algorithm::Bmc, smt::SolverKind::Z3, 20);
  req.dataModel = GetParam();
  auto out = engine::verify(req);
  EXPECT_EQ(out.result.verdict, result::Verdict::True) << out.result.reason;
  req = testing::snippetRequest(zeroedBuffer("1"), engine::Algorithm::Bmc, smt::SolverKind::Z3, 20);
  req.dataModel = GetParam();
  out = engine::verify(req);
  ASSERT_EQ(out.result.verdict, result::Verdict::False) << out.result.reason;
  ASSERT_TRUE(out.result.counterexample);
  EXPECT_TRUE(out.result.counterexample->replayed);
}

// The zero page in whole programs: a pointer that may be null is read through. A real
// run crashes on the null side; Argus reads zero there (README "Memory"), so no error
// that needs another value is reported, every engine agrees, and the replay reads the
// same zero. With valid-deref checked, the read is the violation.
const char* kNullRead = R"(
int x;
int main() {
  int *p = __VERIFIER_nondet_int() ? &x : 0;
  int v = *p;
  if (v == 5) reach_error();
  if (p == 0 && v != 0) reach_error();
  return 0;
}
)";

// The entry-model shape that made SQLite's queries hang: a field tested against NULL
// somewhere (so the harness may make it null) and read through for a pointer further
// down. With `db` null, `m` came from the bytes at address 4 or 8: arbitrary, a garbage
// pointer, and a latent finding "fails if p[+0] is null, m" that no real run has (it
// crashes reading p->db->mutex). The harness's depth-2 slots are null, so `m` is null
// on every other path too. `enter2` is the control: a pointer the harness fills.
const char* kNullableField = R"(
struct Mutex { int held; };
struct Db { int flags; struct Mutex *mutex; };
struct Btree { struct Db *db; int locked; struct Mutex *mutex; };
int isOpen(struct Btree *p) { return p->db != 0; }
int enter(struct Btree *p) {
  struct Mutex *m = p->db->mutex;
  if (m) __VERIFIER_assert(m->held == 0 || m->held == 1 || p->locked);
  return p->locked;
}
int enter2(struct Btree *p) {
  struct Mutex *m = p->mutex;
  if (m) __VERIFIER_assert(m->held == 0 || m->held == 1 || p->locked);
  return p->locked;
}
)";

class ZeroPage : public ::testing::TestWithParam<frontend::DataModel> {};

TEST_P(ZeroPage, EveryEngineReadsZeroThroughANullPointer) {
  for (auto alg : {engine::Algorithm::Bmc, engine::Algorithm::Kind, engine::Algorithm::Pred}) {
    for (auto solver : {smt::SolverKind::Z3, smt::SolverKind::CVC5}) {
      auto req = testing::snippetRequest(kNullRead, alg, solver, 30);
      req.dataModel = GetParam();
      auto out = engine::verify(req);
      // pred reads the zero page at constant addresses only (expr_encoder.h): never `false`
      if (alg == engine::Algorithm::Pred)
        EXPECT_NE(out.result.verdict, result::Verdict::False) << smt::solverName(solver) << ": " << out.result.reason;
      else
        EXPECT_EQ(out.result.verdict, result::Verdict::True)
            << engine::algorithmName(alg) << "/" << smt::solverName(solver) << ": " << out.result.reason;
    }
  }
  auto req = testing::snippetRequest(kNullRead, engine::Algorithm::Bmc, smt::SolverKind::Z3, 30);
  req.dataModel = GetParam();
  req.property = "valid-deref";
  auto out = engine::verify(req);
  ASSERT_EQ(out.result.verdict, result::Verdict::False) << out.result.reason;
  ASSERT_TRUE(out.result.counterexample);
  EXPECT_TRUE(out.result.counterexample->replayed);
}

// A record array behind a pointer that may be null, read at a 32-bit index: under LP64
// `null + i * 72` stays in the zero page (below 2^40) whatever i is, so the read is 0 and
// the assertion holds in every engine that reads the page exactly; under ILP32 the
// address wraps past the page into the globals and the harness's objects (a flat
// reading, which the replay confirms: a latent finding, never `true`).
const char* kNullRecordArray = R"(
struct Rec { long key; long val; long pad[7]; };
long g = 5;
long get(struct Rec *r, unsigned i) {
  if (r == 0) {
    long v = r[i].val;
    __VERIFIER_assert(v == 0);
    return v;
  }
  return r->key + g;
}
)";

TEST_P(ZeroPage, ANullRecordArrayReadsZeroAtAnyIndexUnderLP64) {
  for (auto alg : {engine::Algorithm::Bmc, engine::Algorithm::Kind}) {
    auto req = testing::snippetRequest(kNullRecordArray, alg, smt::SolverKind::Z3, 30);
    req.dataModel = GetParam();
    req.function = "get";
    auto out = engine::verify(req);
    if (GetParam() == frontend::DataModel::LP64) {
      EXPECT_EQ(out.result.verdict, result::Verdict::True) << engine::algorithmName(alg) << ": " << out.result.reason;
    } else {
      EXPECT_NE(out.result.verdict, result::Verdict::True) << engine::algorithmName(alg) << ": " << out.result.reason;
      ASSERT_TRUE(out.result.counterexample) << out.result.reason;
      EXPECT_TRUE(out.result.counterexample->replayed);
    }
  }
}

TEST_P(ZeroPage, NoFindingFromAPointerReadAtANullField) {
  for (auto alg : {engine::Algorithm::Bmc, engine::Algorithm::Kind, engine::Algorithm::Pred}) {
    auto req = testing::snippetRequest(kNullableField, alg, smt::SolverKind::Z3, 30);
    req.dataModel = GetParam();
    req.function = "enter";
    auto out = engine::verify(req);
    if (alg == engine::Algorithm::Pred)  // constant zero-page addresses only: never `false`
      EXPECT_NE(out.result.verdict, result::Verdict::False) << out.result.reason;
    else
      EXPECT_EQ(out.result.verdict, result::Verdict::True) << engine::algorithmName(alg) << ": " << out.result.reason;
    req.function = "enter2";
    out = engine::verify(req);
    ASSERT_EQ(out.result.verdict, result::Verdict::Unknown) << engine::algorithmName(alg) << ": " << out.result.reason;
    EXPECT_NE(out.result.reason.find("latent"), std::string::npos) << out.result.reason;
    ASSERT_TRUE(out.result.counterexample) << out.result.reason;
    EXPECT_TRUE(out.result.counterexample->replayed);
  }
}

INSTANTIATE_TEST_SUITE_P(DataModels, ZeroPage,
                         ::testing::Values(frontend::DataModel::ILP32, frontend::DataModel::LP64),
                         [](const auto& info) {
                           return std::string(info.param == frontend::DataModel::ILP32 ? "ILP32" : "LP64");
                         });

}  // namespace
}  // namespace argus
