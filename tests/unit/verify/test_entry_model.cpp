// Entry models (issue 29 item 3, README "Entry models", core/cfa/entry_harness.h): a
// function other than main verified as its own entry starts from fresh, separate objects
// behind its pointer parameters (to depth 2), null only where the function tests the
// pointer; --entry-model arbitrary keeps every parameter an arbitrary value. Each rule is
// checked in both data models, and each program below has a finding under the arbitrary
// model, so the harness is what makes the difference. Every such finding depends on the
// entry's inputs, so it is *latent* (issue 29 item 4, tests/unit/verify/test_latent.cpp):
// verdict unknown, with its replayed counterexample and a precondition.
#include <gtest/gtest.h>

#include "core/cfa/closure.h"
#include "core/cfa/entry_harness.h"
#include "core/engine/verify.h"
#include "core/frontend/frontend.h"
#include "core/result/result.h"
#include "tests/unit/verify/verify_helpers.h"

using namespace argus;
using argus::result::Verdict;

namespace {

const frontend::DataModel kModels[] = {frontend::DataModel::LP64, frontend::DataModel::ILP32};
const engine::Algorithm kAlgorithms[] = {engine::Algorithm::Bmc, engine::Algorithm::Kind};

engine::VerifyOutcome run(const std::string& body, const std::string& function, engine::EntryModel m,
                          frontend::DataModel dm, engine::Algorithm alg = engine::Algorithm::Bmc) {
  engine::VerifyRequest req = argus::testing::snippetRequest(body, alg, smt::SolverKind::Z3, 60);
  req.function = function;
  req.entryModel = m;
  req.dataModel = dm;
  req.maxBound = 6;
  return engine::verify(req);
}

std::string name(frontend::DataModel dm) { return dm == frontend::DataModel::ILP32 ? "ILP32" : "LP64"; }

// A latent finding: verdict unknown with a replayed counterexample that depends on the
// entry's inputs (its precondition non-empty).
::testing::AssertionResult latentFinding(const engine::VerifyOutcome& o) {
  if (o.inputError) return ::testing::AssertionFailure() << o.error;
  const result::VerificationResult& r = o.result;
  if (r.verdict != Verdict::Unknown || !r.counterexample)
    return ::testing::AssertionFailure() << "verdict " << result::verdictName(r.verdict) << " (" << r.reason << ")";
  if (!r.counterexample->replayed) return ::testing::AssertionFailure() << "counterexample not replayed";
  if (r.counterexample->finding != "latent" || r.counterexample->precondition.empty())
    return ::testing::AssertionFailure() << "finding " << r.counterexample->finding;
  if (r.reason.rfind("latent finding: fails if on entry: ", 0) != 0) return ::testing::AssertionFailure() << r.reason;
  return ::testing::AssertionSuccess();
}

// `body`'s `function` is `harness` under the harness model (False: a latent finding, see
// latentFinding) and has a latent finding under the arbitrary one.
void expectModels(const std::string& body, const std::string& function, Verdict harness) {
  for (auto dm : kModels) {
    for (auto alg : kAlgorithms) {
      auto h = run(body, function, engine::EntryModel::Harness, dm, alg);
      EXPECT_FALSE(h.inputError) << h.error;
      if (harness == Verdict::False)
        EXPECT_TRUE(latentFinding(h)) << name(dm) << " " << engine::algorithmName(alg) << " harness";
      else
        EXPECT_EQ(h.result.verdict, harness) << name(dm) << " " << engine::algorithmName(alg) << " harness: "
                                             << h.result.reason;
    }
    auto a = run(body, function, engine::EntryModel::Arbitrary, dm);
    EXPECT_TRUE(latentFinding(a)) << name(dm) << " arbitrary";
  }
}

TEST(EntryModel, PointerParametersPointToSeparateFreshObjects) {
  // arbitrary: p may point into *s, or at the global g (parameters of different types:
  // never the same object under the harness)
  expectModels("struct S { int a; int b; }; int g;\n"
               "int f(struct S *s, int *p) { g = 3; s->a = 1; s->b = 2; *p = 7;\n"
               "  if (s->a != 1 || s->b != 2 || g != 3) reach_error(); return 0; }\n",
               "f", Verdict::True);
}

TEST(EntryModel, FreshObjectsHaveNondeterministicContents) {
  // the harness does not make the pointee's contents anything in particular
  for (auto dm : kModels) {
    auto o = run("struct S { int a; long b; }; int f(struct S *s) { if (s->a == 42 && s->b == -1) reach_error(); return 0; }\n",
                 "f", engine::EntryModel::Harness, dm);
    EXPECT_TRUE(latentFinding(o)) << name(dm);
  }
}

TEST(EntryModel, NullOnlyWhereTheFunctionTestsThePointer) {
  // no test against NULL: never null (the integer comparison is not a null test)
  expectModels("int f(int *p) { int x = *p; if ((unsigned long)p == 0) reach_error(); return x; }\n", "f",
               Verdict::True);
  // each form of a test makes null possible
  for (const char* test : {"p == 0", "0 == p", "!p", "p != (void*)0 ? 0 : 1"}) {
    std::string body = std::string("int f(int *p) { if (") + test + ") reach_error(); return 0; }\n";
    expectModels(body, "f", Verdict::False);
  }
  expectModels("int f(int *p, int x) { if (p && x == 3) return 1; if (x == 3) reach_error(); return 0; }\n", "f",
               Verdict::False);
  expectModels("int f(int *p) { if (p) return 1; reach_error(); return 0; }\n", "f", Verdict::False);
  // declared _Nullable
  expectModels("int f(int * _Nullable p) { if ((unsigned long)p == 0) reach_error(); return 0; }\n", "f",
               Verdict::False);
  // a test of another parameter says nothing about this one
  expectModels("int f(int *p, int *q) { if (q == 0) return 0; if ((unsigned long)p == 0) reach_error(); return 0; }\n",
               "f", Verdict::True);
}

TEST(EntryModel, PointerFieldsToDepthTwoThenNull) {
  const std::string list = "struct N { int v; struct N *next; };\n";
  // n (depth 1) and n->next (depth 2) are fresh, distinct objects
  expectModels(list + "int f(struct N *n) { struct N *m = n->next; n->v = 1; m->v = 2;\n"
                      "  if (m == n || n->v != 1 || (unsigned long)m == 0) reach_error(); return 0; }\n",
               "f", Verdict::True);
  // beyond depth 2: null
  expectModels(list + "int f(struct N *n) { if ((unsigned long)n->next->next != 0) reach_error(); return 0; }\n", "f",
               Verdict::True);
  // a field some function tests against NULL may be null
  expectModels(list + "int len(struct N *n) { int k = 0; while (n->next != 0 && k < 3) { n = n->next; k++; } return k; }\n"
                      "int f(struct N *n) { if ((unsigned long)n->next == 0) reach_error(); return 0; }\n",
               "f", Verdict::False);
  // a pointer to a pointer: both levels fresh
  expectModels("int f(int **pp) { **pp = 5; if (**pp != 5 || (unsigned long)*pp == 0) reach_error(); return 0; }\n", "f",
               Verdict::True);
}

// At the depth bound a pointer to the type of an enclosing object (not the slot's own
// object's type: a list's `next` stays null) points back to the nearest such object:
// SQLite's `assert( db->pParse==pParse )` holds of the model. Where some code tests the
// field against NULL, null stays possible.
TEST(EntryModel, AtTheDepthBoundAPointerMayPointBackToAnEnclosingObject) {
  const std::string decls = "struct Db; struct Parse { struct Db *db; int n; };\n"
                            "struct Db { struct Parse *pParse; struct Db *pNext; int x; };\n";
  expectModels(decls + "int f(struct Parse *p) { if (p->db->pParse != p) reach_error(); return 0; }\n", "f",
               Verdict::True);
  // a slot of its own object's type: null (no cycle)
  expectModels(decls + "int f(struct Parse *p) { if ((unsigned long)p->db->pNext != 0) reach_error(); return 0; }\n",
               "f", Verdict::True);
  // tested against NULL somewhere: null or back
  expectModels(decls + "int t(struct Db *d) { return d->pParse == 0; }\n"
                       "int f(struct Parse *p) { if (p->db->pParse == 0) reach_error(); return 0; }\n",
               "f", Verdict::False);
  // writes through the back pointer are writes to the enclosing object
  expectModels(decls + "int f(struct Parse *p) { p->n = 1; p->db->pParse->n = 2; if (p->n != 2) reach_error(); return 0; }\n",
               "f", Verdict::True);
  // the trace says where the model points back
  for (auto dm : kModels) {
    auto o = run(decls + "int f(struct Parse *p) { if (p->db->pParse->n == 7) reach_error(); return 0; }\n", "f",
                 engine::EntryModel::Harness, dm);
    ASSERT_TRUE(latentFinding(o)) << name(dm);
    std::string steps;
    for (const auto& st : o.result.counterexample->steps) steps += st.statement + "\n";
    EXPECT_NE(steps.find("points back to p (depth bound)"), std::string::npos) << steps;
  }
}

// A `true` covers the model's inputs only: where the model stops at its depth bound, the
// verdict says so (a bug that needs a third node is not there to be found); without a
// depth-bounded object nothing is added.
TEST(EntryModel, ATrueOfTheDepthBoundedModelSaysWhereTheModelStops) {
  const std::string code = "struct N { int v; struct N *next; };\n"
                           "int f(struct N *n) { if ((unsigned long)n->next->next != 0) reach_error(); return 0; }\n"
                           "int g(int x) { if (x * 0 != 0) reach_error(); return x; }\n";
  for (auto dm : kModels) {
    auto f = run(code, "f", engine::EntryModel::Harness, dm);
    EXPECT_EQ(f.result.verdict, Verdict::True) << name(dm) << ": " << f.result.reason;
    EXPECT_NE(f.result.condition.summary.find(engine::kDepthBoundCaveat), std::string::npos)
        << name(dm) << ": " << f.result.condition.summary;
    auto g = run(code, "g", engine::EntryModel::Harness, dm);
    EXPECT_EQ(g.result.verdict, Verdict::True) << name(dm) << ": " << g.result.reason;
    EXPECT_EQ(g.result.condition.summary.find(engine::kDepthBoundCaveat), std::string::npos)
        << name(dm) << ": " << g.result.condition.summary;
  }
}

TEST(EntryModel, ObjectBoundLeavesLaterParametersTheirOwnObjects) {
  // the first parameter's 70 pointer fields exhaust the 64 objects: the rest are null,
  // and q still points to a fresh object of its own
  std::string fields;
  for (int i = 0; i < 70; ++i) fields += " int *f" + std::to_string(i) + ";";
  expectModels("struct Big {" + fields + " };\n"
               "int f(struct Big *b, int *q) { *q = 1; if ((unsigned long)b->f69 != 0 || *q != 1 || (unsigned long)q == 0)\n"
               "  reach_error(); b->f0[0] = 2; if (*q != 1) reach_error(); return 0; }\n",
               "f", Verdict::True);
}

TEST(EntryModel, BuffersForCharAndVoidPointees) {
  // char*, void*: a 64-byte buffer each, separate
  expectModels("int f(char *a, void *b) { a[63] = 1; ((char*)b)[0] = 2; if (a[63] != 1) reach_error(); return 0; }\n",
               "f", Verdict::True);
}

TEST(EntryModel, AVoidPointerCastToAStructIsThatStruct) {
  // `(struct S *)arg`: the object is an S, and its pointer field points to a fresh
  // object (as a struct S * parameter's would), not to whatever 64 bytes of a buffer hold
  const std::string s = "struct S { int a; int *q; };\n";
  expectModels(s + "int f(void *arg) { struct S *p = (struct S *)arg; int x = 5; *p->q = 1;\n"
                   "  if (p->q == &x || *p->q != 1) reach_error(); return 0; }\n",
               "f", Verdict::True);
  // an implicit conversion counts too (`struct S *p = arg;`), and the contents stay
  // nondeterministic
  expectModels(s + "int f(void *arg) { struct S *p = arg; if (p->a == 7) reach_error(); return 0; }\n", "f",
               Verdict::False);
  // so is a pointer to an opaque type (SQLite's sqlite3_stmt * cast to Vdbe *)
  expectModels(s + "struct opaque;\nint f(struct opaque *o) { struct S *p = (struct S *)o; int x = 5; *p->q = 1;\n"
                   "  if (p->q == &x || *p->q != 1) reach_error(); return 0; }\n",
               "f", Verdict::True);
  // a buffer still where the body never casts it to a struct
  expectModels("int f(void *arg, char *d) { char *c = arg; c[63] = 1; d[0] = 2; if (c[63] != 1) reach_error(); return 0; }\n",
               "f", Verdict::True);
}

TEST(EntryModel, StructsPassedByValueGetFreshPointerFields) {
  expectModels("struct P { int *x; int *y; };\n"
               "int f(struct P p) { *p.x = 1; *p.y = 2; if (*p.x != 1) reach_error(); return 0; }\n",
               "f", Verdict::True);
}

TEST(EntryModel, RecursiveCallsDoNotRunTheHarnessAgain) {
  // only the recursive call passes null
  for (auto dm : kModels) {
    auto o = run("int f(int *p, int d) { if (d == 7) { if ((unsigned long)p == 0) reach_error(); return 0; }\n"
                 "  if (d == 0) return f(0, 7); return 0; }\n",
                 "f", engine::EntryModel::Harness, dm);
    EXPECT_TRUE(latentFinding(o)) << name(dm);
  }
}

TEST(EntryModel, GlobalPointersPointToSeparateFreshObjects) {
  // arbitrary: gp may point into gt.s's object, or at gt itself, or at the parameter's
  const std::string decls = "struct S { int x; struct S *next; };\nstruct S *gp;\nstruct T { struct S *s; int n; } gt;\n";
  expectModels(decls + "int f(int *q) { *q = 3; gp->x = 1; gt.s->x = 2; gt.n = 4;\n"
                       "  if (gp->x != 1 || gt.s->x != 2 || *q != 3 || gt.n != 4) reach_error(); return 0; }\n",
               "f", Verdict::True);
  // a global's pointer fields to depth 2, then null; never null unless tested
  expectModels(decls + "int f(void) { struct S *m = gp->next; m->x = 5; gp->x = 6;\n"
                       "  if (m == gp || m->x != 5 || (unsigned long)m->next != 0 || (unsigned long)gt.s == 0) reach_error();\n"
                       "  return 0; }\n",
               "f", Verdict::True);
  // scalars of globals stay nondeterministic
  expectModels(decls + "int f(void) { if (gt.n == 42) reach_error(); return 0; }\n", "f", Verdict::False);
}

TEST(EntryModel, AGlobalPointerTestedAgainstNullMayBeNull) {
  const std::string decls = "int *gp; int *other;\nint get(void) { if (gp == 0) return 0; return *gp; }\n";
  expectModels(decls + "int f(void) { if ((unsigned long)gp == 0) reach_error(); return 0; }\n", "f", Verdict::False);
  // a static local is a global too (its value left by an earlier call)
  expectModels("int f(void) { static int *buf; if (buf == 0) reach_error(); return 0; }\n", "f", Verdict::False);
  // the test of gp says nothing about another global
  expectModels(decls + "int f(void) { if ((unsigned long)other == 0) reach_error(); return 0; }\n", "f",
               Verdict::True);
  // the precondition names the global, as the program tests it
  for (auto dm : kModels) {
    auto o = run(decls + "int f(void) { if ((unsigned long)gp == 0) reach_error(); return 0; }\n", "f",
                 engine::EntryModel::Harness, dm);
    ASSERT_TRUE(latentFinding(o)) << name(dm);
    EXPECT_NE(o.result.reason.find("fails if on entry: (unsigned long)gp == 0"), std::string::npos) << o.result.reason;
  }
}

TEST(EntryModel, ConstGlobalsKeepTheirInitialisersOnEveryEntry) {
  // C forbids changing a const object: its initial value holds on entry, in both models
  // (the rest of a partly initialised const array is 0, as in C)
  const std::string body = "static const int tab[4] = {1, 2, 3};\nint f(int i) {\n"
                           "  if (i >= 0 && i < 3 && tab[i] <= 0) reach_error();\n"
                           "  if (i == 3 && tab[i] != 0) reach_error(); return 0; }\n";
  for (auto dm : kModels)
    for (auto m : {engine::EntryModel::Harness, engine::EntryModel::Arbitrary}) {
      auto o = run(body, "f", m, dm);
      EXPECT_EQ(o.result.verdict, Verdict::True) << name(dm) << " " << engine::entryModelName(m) << ": " << o.result.reason;
    }
  // a table that is not const may have been changed before the entry
  for (auto dm : kModels) {
    auto o = run("int tab[3] = {1, 2, 3};\nint f(int i) { if (i >= 0 && i < 3 && tab[i] <= 0) reach_error(); return 0; }\n",
                 "f", engine::EntryModel::Harness, dm);
    EXPECT_TRUE(latentFinding(o)) << name(dm);
  }
}

// A function pointer of the model (a field of a fresh object or of a global, a callback
// parameter, a global function-pointer variable) holds one of the functions a call through
// it dispatches to: an address-taken function of its type, only those the unit stores in
// a closed field; null only where some code tests it. Under the arbitrary model the call
// may go anywhere (the dispatch's "unknown function": unknown, no finding).
TEST(EntryModel, FunctionPointersHoldTheFunctionsACallThroughThemReaches) {
  const std::string decls =
      "typedef struct M { int (*xLock)(int); int (*xOpt)(int); } M;\n"
      "typedef struct F { const M *m; int n; } F;\n"
      "static int lockA(int x) { return x > 0 ? RET : 0; }\n"
      "static int lockB(int x) { return 0; }\n"
      "static int wide(long x) { return 7; }\n"      // another type: never called through int (*)(int)
      "static int two(int a, int b) { return 7; }\n"  // another arity
      "long (*lp)(long) = (long (*)(long))0; int (*wp)(long) = wide; int (*tp)(int, int) = two;\n"
      "static const M mA = { lockA, 0 };\nstatic const M mB = { lockB, lockA };\n";
  auto code = [&](const std::string& ret, const std::string& rest) {
    std::string d = decls;
    d.replace(d.find("RET"), 3, ret);
    return d + rest;
  };
  const std::string viaField = "int f(F *p, int k) { int r = p->m->xLock(k); if (r != 0 && r != 1) reach_error(); return r; }\n";
  const std::string viaParam = "int f(int (*cb)(int), int k) { int r = cb(k); if (r != 0 && r != 1) reach_error(); return r; }\n";
  const std::string viaGlobal = "int (*hook)(int) = lockB;\n"
                                "int f(int k) { int r = hook(k); if (r != 0 && r != 1) reach_error(); return r; }\n";
  for (auto dm : kModels) {
    for (const std::string* body : {&viaField, &viaParam, &viaGlobal}) {
      for (auto alg : kAlgorithms) {
        auto h = run(code("1", *body), "f", engine::EntryModel::Harness, dm, alg);
        EXPECT_EQ(h.result.verdict, Verdict::True) << name(dm) << " " << engine::algorithmName(alg) << ": "
                                                   << h.result.reason << "\n" << *body;
      }
      auto a = run(code("1", *body), "f", engine::EntryModel::Arbitrary, dm);
      EXPECT_EQ(a.result.verdict, Verdict::Unknown) << name(dm) << " arbitrary\n" << *body;
      EXPECT_NE(a.result.reason.find("unknown function"), std::string::npos) << a.result.reason;
      // lockA returning 2 is a finding that depends on which function the entry got
      auto bad = run(code("2", *body), "f", engine::EntryModel::Harness, dm);
      ASSERT_TRUE(latentFinding(bad)) << name(dm) << "\n" << *body;
      EXPECT_NE(bad.result.reason.find("[calls lockA]"), std::string::npos) << bad.result.reason;
    }
    // the trace shows the function the model chose, one step per pointer
    auto bad = run(code("2", viaField), "f", engine::EntryModel::Harness, dm);
    ASSERT_TRUE(latentFinding(bad)) << name(dm);
    std::string steps;
    for (const auto& st : bad.result.counterexample->steps) steps += st.statement + "\n";
    EXPECT_NE(steps.find("entry model: p[+0][+0] holds function lockA\n"), std::string::npos) << steps;
    EXPECT_EQ(steps.find(" = a function"), std::string::npos) << steps;
    EXPECT_EQ(steps.find("holds its function"), std::string::npos) << steps;
    // in text, three or more choices in a row are one line
    auto three = run("typedef struct T { int (*xA)(int); int (*xB)(int); int (*xC)(int); } T;\n"
                     "static int one(int x) { return 1; } static int two(int x) { return 2; }\n"
                     "static const T t = { one, two, one }, u = { two, two, two };\n"
                     "int f(T *p, int k) { if (p->xA(k) + p->xB(k) + p->xC(k) == 5) reach_error(); return 0; }\n",
                     "f", engine::EntryModel::Harness, dm);
    ASSERT_TRUE(latentFinding(three)) << name(dm);
    std::string text = result::toText(three.result);
    EXPECT_NE(text.find("entry model: 3 function pointers in p hold "), std::string::npos) << text;
    EXPECT_EQ(text.find("holds function"), std::string::npos) << text;
    // a field no code tests against NULL is never null; one that some code tests may be
    const std::string untested = "int f(F *p, int k) { return p->m->xOpt(k) == 7; }\n"
                                 "int g(F *p) { if ((unsigned long)p->m->xOpt == 0) reach_error(); return 0; }\n";
    auto u = run(code("1", untested), "g", engine::EntryModel::Harness, dm);
    EXPECT_EQ(u.result.verdict, Verdict::True) << name(dm) << ": " << u.result.reason;
    const std::string tested = "int f(F *p, int k) { if (p->m->xOpt) return p->m->xOpt(k); return 0; }\n"
                               "int g(F *p) { if ((unsigned long)p->m->xOpt == 0) reach_error(); return 0; }\n";
    auto t = run(code("1", tested), "g", engine::EntryModel::Harness, dm);
    EXPECT_TRUE(latentFinding(t)) << name(dm);
    auto tf = run(code("1", tested), "f", engine::EntryModel::Harness, dm);
    EXPECT_EQ(tf.result.verdict, Verdict::True) << name(dm) << ": " << tf.result.reason;
    // an open field (the unit stores a variable in it): any function of its type in a
    // parameter's object; in a global's model it stays any value (README), so the call
    // through it is the dispatch's unknown function
    const std::string open = "int (*var)(int);\nvoid setv(F *p, M *m) { m->xLock = var; }\n";
    auto op = run(code("1", open + viaField), "f", engine::EntryModel::Harness, dm);
    EXPECT_EQ(op.result.verdict, Verdict::True) << name(dm) << ": " << op.result.reason;
    auto og = run(code("1", open + "M gm;\nint f(int k) { int r = gm.xLock(k); if (r != 0 && r != 1) reach_error(); return r; }\n"),
                  "f", engine::EntryModel::Harness, dm);
    EXPECT_EQ(og.result.verdict, Verdict::Unknown) << name(dm) << ": " << og.result.reason;
    EXPECT_NE(og.result.reason.find("unknown function"), std::string::npos) << og.result.reason;
    auto cg = run(code("1", "M gm;\nint f(int k) { int r = gm.xLock(k); if (r != 0 && r != 1) reach_error(); return r; }\n"),
                  "f", engine::EntryModel::Harness, dm);
    EXPECT_EQ(cg.result.verdict, Verdict::True) << name(dm) << ": " << cg.result.reason;
  }
}

// A pointer to a method table (a struct of scalars and function pointers, some call
// calling through one of them) is followed past the depth bound: `p->fd->m->xLock(k)`
// reaches its functions where a data pointer there would be null.
TEST(EntryModel, AMethodTableIsReachedPastTheDepthBound) {
  const std::string decls = "typedef struct M { int iVersion; int (*xLock)(int); } M;\n"
                            "typedef struct F { const M *m; struct F *next; } F;\n"
                            "typedef struct P { F *fd; int n; } P;\n"
                            "static int lockA(int x) { return x > 0 ? RET : 0; }\n"
                            "static const M mA = { 1, lockA };\n"
                            "int f(P *p, int k) { int r = p->fd->m->xLock(k); if (r != 0 && r != 1) reach_error(); return r; }\n"
                            "int g(P *p) { if ((unsigned long)p->fd->next != 0) reach_error(); return 0; }\n";
  auto code = [&](const std::string& ret) {
    std::string d = decls;
    d.replace(d.find("RET"), 3, ret);
    return d;
  };
  for (auto dm : kModels) {
    for (auto alg : kAlgorithms) {
      auto h = run(code("1"), "f", engine::EntryModel::Harness, dm, alg);
      EXPECT_EQ(h.result.verdict, Verdict::True) << name(dm) << " " << engine::algorithmName(alg) << ": " << h.result.reason;
    }
    auto bad = run(code("2"), "f", engine::EntryModel::Harness, dm);
    ASSERT_TRUE(latentFinding(bad)) << name(dm);
    EXPECT_NE(bad.result.reason.find("[calls lockA]"), std::string::npos) << bad.result.reason;
    auto a = run(code("1"), "f", engine::EntryModel::Arbitrary, dm);
    EXPECT_NE(a.result.reason.find("unknown function"), std::string::npos) << a.result.reason;
    // a data pointer in the same depth-2 object stays null
    auto g = run(code("1"), "g", engine::EntryModel::Harness, dm);
    EXPECT_EQ(g.result.verdict, Verdict::True) << name(dm) << ": " << g.result.reason;
  }
}

// A union the function reads exactly one member of is modelled as that member: a pointer
// member points to a fresh object of its own (SQLite's walker callbacks:
// `pWalker->u.pRefSrcList`). A union the function reads two members of (a tagged union),
// or never reads, keeps nondeterministic contents.
TEST(EntryModel, AUnionIsTheOneMemberTheFunctionReads) {
  const std::string decls = "struct R { int n; int a[4]; };\n"
                            "struct W { int k; union { struct R *pR; int *pI; long x; } u; };\n";
  expectModels(decls + "int f(struct W *w) { struct R *r = w->u.pR; r->n = 1; w->k = 2;\n"
                       "  if (r->n != 1 || (unsigned long)r == 0) reach_error(); return 0; }\n",
               "f", Verdict::True);
  // two members read (a tagged union): either may be the one the caller set, any value
  for (auto dm : kModels) {
    auto o = run(decls + "int f(struct W *w) { struct R *r = w->u.pR; if (w->k) return (int)w->u.x; r->n = 1; w->k = 2;\n"
                         "  if (r->n != 1) reach_error(); return 0; }\n",
                 "f", engine::EntryModel::Harness, dm);
    EXPECT_TRUE(latentFinding(o)) << name(dm);
  }
  // read through a callee only: the entry's body names no member, the union stays any value
  for (auto dm : kModels) {
    auto o = run(decls + "static struct R *get(struct W *w) { return w->u.pR; }\n"
                         "int f(struct W *w) { struct R *r = get(w); r->n = 1; w->k = 2; if (r->n != 1) reach_error(); return 0; }\n",
                 "f", engine::EntryModel::Harness, dm);
    EXPECT_TRUE(latentFinding(o)) << name(dm);
  }
}

// Parameters of the same pointee type (qualifiers aside) may be the same pointer; a
// finding that needs it is latent with "q == p" as its precondition. Different types, a
// `restrict` parameter, or a function that tests for it: never.
TEST(EntryModel, ParametersOfTheSameTypeMayAlias) {
  const std::string s = "struct S { int a; int b; };\n";
  for (auto dm : kModels) {
    for (auto alg : kAlgorithms) {
      auto same = run("int f(int *x, int *y) { *x = 1; *y = 2; if (*x != 1) reach_error(); return 0; }\n", "f",
                      engine::EntryModel::Harness, dm, alg);
      ASSERT_TRUE(latentFinding(same)) << name(dm) << " " << engine::algorithmName(alg);
      EXPECT_NE(same.result.reason.find("fails if on entry: y == x"), std::string::npos) << same.result.reason;
      auto qualified = run(s + "int f(struct S *p, const struct S *q) { p->a = q->a + 1; if (p->a != q->a + 1) reach_error(); return 0; }\n",
                           "f", engine::EntryModel::Harness, dm, alg);
      EXPECT_TRUE(latentFinding(qualified)) << name(dm) << " " << engine::algorithmName(alg);
      for (const char* body :
           {"int f(int *x, long *y) { *x = 1; *y = 2; if (*x != 1) reach_error(); return 0; }\n",
            "int f(int *restrict x, int *restrict y) { *x = 1; *y = 2; if (*x != 1) reach_error(); return 0; }\n",
            "int f(int *x, int *y) { if (x == y) return 0; *x = 1; *y = 2; if (*x != 1) reach_error(); return 0; }\n"}) {
        auto o = run(body, "f", engine::EntryModel::Harness, dm, alg);
        EXPECT_EQ(o.result.verdict, Verdict::True) << name(dm) << " " << engine::algorithmName(alg) << ": "
                                                   << o.result.reason << "\n" << body;
      }
    }
    // the third parameter may be either earlier one
    auto third = run("int f(int *x, int *y, int *z) { *x = 1; *y = 2; *z = 3; if (*x == 3) reach_error(); return 0; }\n",
                     "f", engine::EntryModel::Harness, dm);
    ASSERT_TRUE(latentFinding(third)) << name(dm);
    EXPECT_NE(third.result.reason.find("z == x"), std::string::npos) << third.result.reason;
  }
}

// The text trace puts three or more nulls at the model's depth bound in a row on one line
// (JSON keeps each step).
TEST(EntryModel, TextTracesPutTheDepthBoundsNullsOnOneLine) {
  for (auto dm : kModels) {
    auto o = run("struct L { int *a; int *b; int *c; }; struct N { struct L *l; int v; };\n"
                 "int f(struct N *n) { if (n->v == 3) reach_error(); return 0; }\n",
                 "f", engine::EntryModel::Harness, dm);
    ASSERT_TRUE(latentFinding(o)) << name(dm);
    size_t nulls = 0;
    for (const auto& st : o.result.counterexample->steps) nulls += st.statement.ends_with("= null (depth bound)");
    EXPECT_EQ(nulls, 3u) << name(dm);
    std::string text = result::toText(o.result);
    EXPECT_NE(text.find("entry model: 3 pointers in n are null (the model's depth bound)\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("= null (depth bound)"), std::string::npos) << text;
  }
}

// A choice of functions for a struct field no call of the entry's slice calls through
// (nor a call through a variable of the field's type) is dropped from the slice
// (cfa::pruneFunctionChoices): the field holds any value, and not null where no code
// tests it; the answers stay those with every choice.
TEST(EntryModel, ChoicesForFieldsTheSliceNeverCallsThroughAreDropped) {
  const std::string code =
      "typedef struct Ops { int (*a)(int); int (*b)(int); int (*c)(int); } Ops;\n"
      "static int one(int x) { return 1; }\nstatic int two(int x) { return 2; }\n"
      "Ops ops = { one, two, two };\n"
      "int useA(int k) { int r = ops.a(k); if (r != 1) reach_error(); return r; }\n"
      "int useC(int k) { int r = ops.c(k); if (r != 2) reach_error(); return r; }\n"
      "int never(void) { if ((unsigned long)ops.c == 0) reach_error(); return 0; }\n"  // c: never null
      "int maybe(void) { if ((unsigned long)ops.b == 0) reach_error(); return 0; }\n"  // b: useB tests it
      "int useB(int k) { return ops.b ? ops.b(k) : 0; }\n";
  for (auto dm : kModels) {
    for (auto alg : kAlgorithms) {
      for (const char* f : {"useA", "useC", "never"}) {
        auto r = run(code, f, engine::EntryModel::Harness, dm, alg);
        EXPECT_EQ(r.result.verdict, Verdict::True) << f << " " << name(dm) << ": " << r.result.reason;
      }
    }
    EXPECT_TRUE(latentFinding(run(code, "maybe", engine::EntryModel::Harness, dm))) << name(dm);
  }
  // the slices' choices: useA keeps a's and drops b's and c's; never drops all three; a
  // call through a variable of the fields' type keeps them all
  frontend::ParseResult pr = frontend::parseSource(std::string(argus::testing::kPrelude) + code, "t.c", {});
  ASSERT_TRUE(pr.ok()) << pr.diagnostics;
  auto choices = [](const cfa::Program& p, size_t& pruned, size_t& nonNull) {
    size_t n = 0;
    pruned = nonNull = 0;
    for (const cfa::Function& g : p.functions)
      for (const cfa::Edge& e : g.edges) {
        n += e.choiceField != 0;
        pruned += e.text.find(cfa::kFunctionAnyText) != std::string::npos;
        nonNull += e.text.find(cfa::kFunctionAnyNonNullText) != std::string::npos;
      }
    return n;
  };
  size_t pruned = 0, nonNull = 0;
  ASSERT_GT(choices(*pr.program, pruned, nonNull), 0u);
  for (const char* f : {"useA", "never"}) {
    std::unique_ptr<cfa::Program> sl = cfa::slice(*pr.program, pr.program->find(f)->id);
    const size_t before = choices(*sl, pruned, nonNull);
    ASSERT_GT(before, 0u) << f;
    EXPECT_TRUE(cfa::pruneFunctionChoices(*sl)) << f;
    const size_t after = choices(*sl, pruned, nonNull);
    EXPECT_EQ(pruned, 1u) << f;   // b (null-tested): any value
    EXPECT_EQ(nonNull, std::string(f) == "never" ? 2u : 1u) << f;  // c (and a): any value but null
    EXPECT_EQ(after, std::string(f) == "never" ? 0u : 1u) << f;    // useA: a's one function
    EXPECT_FALSE(cfa::pruneFunctionChoices(*sl)) << f;  // nothing left to prune
  }
  frontend::ParseResult viaVar = frontend::parseSource(
      std::string(argus::testing::kPrelude) + code + "int var(int k) { int (*g)(int) = ops.a; return g(k); }\n", "t.c", {});
  ASSERT_TRUE(viaVar.ok()) << viaVar.diagnostics;
  std::unique_ptr<cfa::Program> sl = cfa::slice(*viaVar.program, viaVar.program->find("var")->id);
  EXPECT_FALSE(cfa::withPrunedFunctionChoices(*sl));
}

TEST(EntryModel, MainKeepsTheInitialStateOfC) {
  for (auto dm : kModels) {
    auto o = run("int *g; int main(void) { if (g != 0) reach_error(); return 0; }\n", "main", engine::EntryModel::Harness,
                 dm);
    EXPECT_EQ(o.result.verdict, Verdict::True) << name(dm) << ": " << o.result.reason;
  }
}

TEST(EntryModel, Names) {
  EXPECT_EQ(engine::parseEntryModel("harness"), engine::EntryModel::Harness);
  EXPECT_EQ(engine::parseEntryModel("arbitrary"), engine::EntryModel::Arbitrary);
  EXPECT_THROW(engine::parseEntryModel("lazy"), std::invalid_argument);
  EXPECT_STREQ(engine::entryModelName(engine::EntryModel::Arbitrary), "arbitrary");
  EXPECT_EQ(engine::VerifyRequest{}.entryModel, engine::EntryModel::Harness);
}

}  // namespace
