// cfa::serialize / deserialize: real programs from the frontend survive the round trip
// (same dump, same verdict), and damaged bytes are an error, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/cfa/cfa_hash.h"
#include "core/cfa/closure.h"
#include "core/cfa/serialize.h"
#include "core/engine/verify.h"
#include "core/frontend/frontend.h"

namespace {

using namespace argus;

std::string readAll(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::filesystem::path examples() { return std::filesystem::path(ARGUS_SOURCE_DIR) / "examples"; }

TEST(CfaSerialize, EveryExampleRoundTripsToTheSameCfa) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(examples())) {
    if (e.path().extension() != ".c") continue;
    for (auto dm : {frontend::DataModel::LP64, frontend::DataModel::ILP32}) {
      frontend::FrontendOptions fo;
      fo.dataModel = dm;
      frontend::ParseResult pr = frontend::parseFile(e.path().string(), fo);
      ASSERT_TRUE(pr.ok()) << e.path() << pr.diagnostics;
      std::string bytes = cfa::serialize(*pr.program);
      std::unique_ptr<cfa::Program> back = cfa::deserialize(bytes);
      EXPECT_EQ(cfa::dump(*back), cfa::dump(*pr.program)) << e.path();
      EXPECT_EQ(back->funcByName, pr.program->funcByName);
      EXPECT_EQ(cfa::serialize(*back), bytes) << e.path();  // stable
      ASSERT_EQ(back->initParts.size(), pr.program->initParts.size());
      for (size_t i = 0; i < back->initParts.size(); ++i) {
        EXPECT_EQ(back->initParts[i].func, pr.program->initParts[i].func);
        EXPECT_EQ(back->initParts[i].firstEdge, pr.program->initParts[i].firstEdge);
        EXPECT_EQ(back->initParts[i].endEdge, pr.program->initParts[i].endEdge);
        EXPECT_EQ(back->initParts[i].to, pr.program->initParts[i].to);
        EXPECT_EQ(back->initParts[i].defines, pr.program->initParts[i].defines);
      }
      for (size_t i = 0; i < back->functions.size(); ++i)
        EXPECT_EQ(back->functions[i].systemHeader, pr.program->functions[i].systemHeader);
      ++n;
    }
  }
  EXPECT_GE(n, 10);
}

// The entry model (README "Entry models") survives the round trip.
TEST(CfaSerialize, EntryModelsRoundTrip) {
  frontend::ParseResult pr = frontend::parseSource(
      "struct N { int v; struct N *next; char *name; int (*cmp)(int); };\n"
      "static int one(int x) { return 1; } static int two(int x) { return 2; }\n"
      "int f(struct N *n, int *p, int k, void *buf, int (*cb)(int)) { if (!p) return 0; return n->v + k; }\n"
      "void set(struct N *n) { n->cmp = one; n->cmp = two; }\n"
      "int use(struct N *n) { return n->cmp(3); }\n"
      "struct B; struct A { struct B *b; }; struct B { struct A *a; };\n"
      "int h(struct A *a) { return a->b->a != a; }\n",
      "t.c", {});
  ASSERT_TRUE(pr.ok()) << pr.diagnostics;
  const cfa::Function* f = pr.program->find("f");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->entryParams.size(), 5u);
  EXPECT_GE(f->entryParams[0].object, 0);
  EXPECT_FALSE(f->entryParams[0].nullable);
  EXPECT_TRUE(f->entryParams[1].nullable);  // tested with !p
  EXPECT_LT(f->entryParams[2].object, 0);   // a scalar
  EXPECT_GE(f->entryParams[3].object, 0);   // a buffer
  EXPECT_EQ(f->entryParams[4].functions.names, (std::vector<std::string>{"one", "two"}));  // a callback
  const auto& cmp = f->entryObjects[f->entryParams[0].object].pointers.back();  // n->cmp
  EXPECT_EQ(cmp.functions.names, (std::vector<std::string>{"one", "two"}));
  std::unique_ptr<cfa::Program> back = cfa::deserialize(cfa::serialize(*pr.program));
  const cfa::Function* g = back->find("f");
  ASSERT_TRUE(g);
  ASSERT_EQ(g->entryParams.size(), f->entryParams.size());
  for (size_t i = 0; i < f->entryParams.size(); ++i) {
    EXPECT_EQ(g->entryParams[i].object, f->entryParams[i].object);
    EXPECT_EQ(g->entryParams[i].nullable, f->entryParams[i].nullable);
    EXPECT_EQ(g->entryParams[i].functions.addrs, f->entryParams[i].functions.addrs);
    EXPECT_EQ(g->entryParams[i].functions.names, f->entryParams[i].functions.names);
  }
  ASSERT_EQ(g->entryObjects.size(), f->entryObjects.size());
  for (size_t i = 0; i < f->entryObjects.size(); ++i) {
    EXPECT_EQ(g->entryObjects[i].size, f->entryObjects[i].size);
    ASSERT_EQ(g->entryObjects[i].pointers.size(), f->entryObjects[i].pointers.size());
    for (size_t k = 0; k < f->entryObjects[i].pointers.size(); ++k) {
      EXPECT_EQ(g->entryObjects[i].pointers[k].offset, f->entryObjects[i].pointers[k].offset);
      EXPECT_EQ(g->entryObjects[i].pointers[k].object, f->entryObjects[i].pointers[k].object);
      EXPECT_EQ(g->entryObjects[i].pointers[k].functions.addrs, f->entryObjects[i].pointers[k].functions.addrs);
      EXPECT_EQ(g->entryObjects[i].pointers[k].functions.names, f->entryObjects[i].pointers[k].functions.names);
      EXPECT_EQ(g->entryObjects[i].pointers[k].functions.field, f->entryObjects[i].pointers[k].functions.field);
      EXPECT_EQ(g->entryObjects[i].pointers[k].functions.type, f->entryObjects[i].pointers[k].functions.type);
      EXPECT_EQ(g->entryObjects[i].pointers[k].back, -1);
    }
  }
  // a slot at the depth bound that points back to an enclosing object (a->b->a)
  const cfa::Function* h = pr.program->find("h");
  ASSERT_TRUE(h);
  ASSERT_EQ(h->entryObjects.size(), 2u);
  ASSERT_EQ(h->entryObjects[1].pointers.size(), 1u);
  EXPECT_LT(h->entryObjects[1].pointers[0].object, 0);
  EXPECT_EQ(h->entryObjects[1].pointers[0].back, 0);
  EXPECT_EQ(back->find("h")->entryObjects[1].pointers[0].back, 0);
  // the field a choice is for, and the fields the code calls through (pruneFunctionChoices)
  EXPECT_NE(cmp.functions.field, 0u);
  EXPECT_NE(cmp.functions.type, 0u);
  const cfa::Function* use = pr.program->find("use");
  ASSERT_TRUE(use);
  EXPECT_EQ(use->callsThrough, (std::vector<uint64_t>{cmp.functions.field}));
  EXPECT_EQ(back->find("use")->callsThrough, use->callsThrough);
  EXPECT_TRUE(pr.program->find("f")->callsThrough.empty());  // f calls through nothing
}

// Property check edges (issue 26) keep their property, check kind and operands.
TEST(CfaSerialize, PropertyCheckEdgesRoundTrip) {
  frontend::FrontendOptions fo;
  fo.properties = {"no-overflow", "div-by-zero", "shift"};
  frontend::ParseResult pr = frontend::parseSource(
      "int f(int a, int b) { return (a + b) / b << a; }\nint main(void) { return f(1, 2); }\n", "p.c", fo);
  ASSERT_TRUE(pr.ok()) << pr.diagnostics;
  std::unique_ptr<cfa::Program> back = cfa::deserialize(cfa::serialize(*pr.program));
  int checks = 0;
  for (size_t fi = 0; fi < pr.program->functions.size(); ++fi)
    for (size_t ei = 0; ei < pr.program->functions[fi].edges.size(); ++ei) {
      const cfa::Edge& a = pr.program->functions[fi].edges[ei];
      const cfa::Edge& b = back->functions[fi].edges[ei];
      EXPECT_EQ(a.property, b.property);
      EXPECT_EQ(a.check, b.check);
      EXPECT_EQ(a.args.size(), b.args.size());
      if (!a.property.empty()) ++checks;
    }
  EXPECT_EQ(checks, 4);  // a + b (overflow), / (by zero, MIN / -1), << (amount)
}

// Link mode (argus project) records linkage, stubs and link information: kept too.
TEST(CfaSerialize, LinkInformationRoundTrips) {
  auto dir = std::filesystem::path(ARGUS_SOURCE_DIR) / "tests" / "projects" / "multi";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".c") continue;
    frontend::FrontendOptions fo;
    fo.linkMode = true;
    fo.extraArgs = {"-I" + (dir / "include").string()};
    frontend::ParseResult pr = frontend::parseFile(e.path().string(), fo);
    ASSERT_TRUE(pr.ok()) << e.path() << pr.diagnostics;
    auto back = cfa::deserialize(cfa::serialize(*pr.program));
    EXPECT_EQ(cfa::dump(*back), cfa::dump(*pr.program));
    EXPECT_EQ(back->link.globalDefs, pr.program->link.globalDefs);
    EXPECT_EQ(back->link.undefinedFunctions, pr.program->link.undefinedFunctions);
    EXPECT_EQ(back->link.functionAddresses, pr.program->link.functionAddresses);
    ASSERT_EQ(back->vars.size(), pr.program->vars.size());
    for (size_t i = 0; i < back->vars.size(); ++i) EXPECT_EQ(back->vars[i].linkage, pr.program->vars[i].linkage);
    ASSERT_EQ(back->functions.size(), pr.program->functions.size());
    for (size_t i = 0; i < back->functions.size(); ++i) {
      EXPECT_EQ(back->functions[i].linkage, pr.program->functions[i].linkage);
      EXPECT_EQ(back->functions[i].linkStub, pr.program->functions[i].linkStub);
    }
    ++n;
  }
  EXPECT_GE(n, 2);
}

TEST(CfaSerialize, SharedSubexpressionsStayShared) {
  auto x = cfa::Expr::mkVar(0, 32);
  auto sum = cfa::Expr::mkBinary(cfa::BinOp::Add, x, x);
  cfa::Program p;
  cfa::Variable v{"x", "x", 32, true, cfa::VarKind::Global, cfa::kNoFunc};
  p.addVar(v);
  cfa::Function f;
  f.name = "f";
  f.entry = f.addLoc();
  f.exit = f.addLoc();
  cfa::Edge e;
  e.kind = cfa::EdgeKind::Assume;
  e.from = f.entry;
  e.to = f.exit;
  e.cond = cfa::Expr::mkBinary(cfa::BinOp::Eq, sum, sum, 32);
  f.addEdge(e);
  p.functions.push_back(f);
  p.funcByName["f"] = 0;
  auto back = cfa::deserialize(cfa::serialize(p));
  const auto& c = back->functions[0].edges[0].cond;
  ASSERT_EQ(c->ops.size(), 2u);
  EXPECT_EQ(c->ops[0].get(), c->ops[1].get());
  EXPECT_EQ(c->ops[0]->ops[0].get(), c->ops[0]->ops[1].get());
}

TEST(CfaSerialize, DamagedBytesAreAnErrorNotACrash) {
  frontend::ParseResult pr = frontend::parseFile((examples() / "pointer_swap.c").string(), {});
  ASSERT_TRUE(pr.ok()) << pr.diagnostics;
  std::string bytes = cfa::serialize(*pr.program);
  EXPECT_THROW(cfa::deserialize(""), std::runtime_error);
  EXPECT_THROW(cfa::deserialize("ARGUSCFA\x02"), std::runtime_error);
  for (size_t cut = 0; cut < bytes.size(); cut += std::max<size_t>(1, bytes.size() / 300))
    EXPECT_THROW(cfa::deserialize(std::string_view(bytes).substr(0, cut)), std::runtime_error) << cut;
  // Flipped bytes either still decode (a different but well-formed program) or throw.
  for (size_t i = 9; i < bytes.size(); i += std::max<size_t>(1, bytes.size() / 200)) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    try {
      cfa::deserialize(bad);
    } catch (const std::runtime_error&) {
    }
  }
}

TEST(CfaSerialize, TheLoadedProgramGetsTheSameVerdicts) {
  for (const char* name : {"pointer_swap.c", "buggy_abs.c", "safe_sum.c", "heap_list.c"}) {
    auto path = examples() / name;
    if (!std::filesystem::exists(path)) continue;
    frontend::ParseResult pr = frontend::parseFile(path.string(), {});
    ASSERT_TRUE(pr.ok()) << pr.diagnostics;
    auto back = cfa::deserialize(cfa::serialize(*pr.program));
    engine::VerifyRequest req;
    req.file = path.string();
    req.algorithm = engine::Algorithm::Bmc;
    req.maxBound = 10;
    req.timeoutS = 30;
    auto a = engine::verifyParsed(*pr.program, req);
    auto b = engine::verifyParsed(*back, req);
    EXPECT_EQ(a.result.verdict, b.result.verdict) << name;
    EXPECT_EQ(a.result.counterexample.has_value(), b.result.counterexample.has_value()) << name;
  }
}

}  // namespace

namespace {

// Floating-point operators and casts, math.h and _ExtInt(N) normalisation survive the
// round trip (the new expression kinds are part of the format).
TEST(CfaSerialize, FloatingPointAndExtIntRoundTrip) {
  const char* src =
      "extern double __VERIFIER_nondet_double(void); double sqrt(double); double floor(double);\n"
      "double ceil(double); double round(double); double trunc(double); double rint(double);\n"
      "double fmin(double, double);\n"
      "int main(){ double d = __VERIFIER_nondet_double(); float f = (float)d; double s = sqrt(d) + floor(d) - ceil(d)\n"
      " * round(d) / trunc(d) + rint(d) + fmin(d, 1.0); unsigned long long u = (unsigned long long)(s > 0 ? s : 0);\n"
      " long long i = (long long)f; double back = i + (double)u; unsigned _ExtInt(10) x = u; x++;\n"
      " return d == f || d < s || d <= back || x == 3; }\n";
  frontend::FrontendOptions fo;
  frontend::ParseResult pr = frontend::parseSource(src, "fp.c", fo);
  ASSERT_TRUE(pr.ok()) << pr.diagnostics;
  std::string dump = cfa::dump(*pr.program);
  for (const char* op : {"+f", "-f", "*f", "/f", "==f", "<f", "<=f", "fsqrt", "ffloor", "fceil", "fround", "ftrunc",
                         "frint", "fcvt", "sitof", "uitof", "ftosi", "ftoui"})
    EXPECT_NE(dump.find(op), std::string::npos) << op << " missing from\n" << dump;
  std::string bytes = cfa::serialize(*pr.program);
  std::unique_ptr<cfa::Program> back = cfa::deserialize(bytes);
  EXPECT_EQ(cfa::dump(*back), dump);
  EXPECT_EQ(cfa::serialize(*back), bytes);
}

}  // namespace

namespace {

// ProgramImage::slice decodes only the entry's closure (argusd's workers hold the image of
// a translation unit, not its decoded CFAs): for every function it gives exactly what
// cfa::slice gives on the whole program, init pieces and the gaps of dropped ones included.
TEST(CfaSerialize, ImageSlicesAreTheSlicesOfTheProgram) {
  std::vector<std::pair<std::string, std::string>> sources;
  for (const auto& e : std::filesystem::directory_iterator(examples()))
    if (e.path().extension() == ".c") sources.emplace_back(e.path().string(), readAll(e.path()));
  sources.emplace_back("globals.c",
                       "int a = 1; int b = 2; int c[4] = {1, 2, 3, 4}; char *s = \"text\"; int *pa = &a;\n"
                       "struct { int x; int *p; } st = {3, &b};\n"
                       "static int counter;\n"
                       "int f(int i) { return a + c[i & 3]; }\n"
                       "int g(void) { return b + *st.p; }\n"
                       "int h(void) { counter++; return s[0] + *pa; }\n"
                       "int k(int n) { return n > 0 ? f(n) + g() : h(); }\n"
                       "int main(void) { return k(2); }\n");
  int slices = 0;
  for (const auto& [name, code] : sources)
    for (auto dm : {frontend::DataModel::LP64, frontend::DataModel::ILP32}) {
      frontend::FrontendOptions fo;
      fo.dataModel = dm;
      frontend::ParseResult pr = frontend::parseSource(code, name, fo);
      ASSERT_TRUE(pr.ok()) << name << pr.diagnostics;
      cfa::ProgramImage image(cfa::serialize(*pr.program));
      EXPECT_EQ(image.shell().functions.size(), pr.program->functions.size());
      EXPECT_EQ(cfa::dump(*image.program()), cfa::dump(*pr.program)) << name;
      for (const cfa::Function& f : pr.program->functions) {
        if (cfa::isSyntheticFunction(f)) continue;
        auto want = cfa::slice(*pr.program, f.id);
        auto got = image.slice(f.id);
        EXPECT_EQ(cfa::dump(*got), cfa::dump(*want)) << name << " " << f.name;
        EXPECT_EQ(got->initParts.size(), want->initParts.size()) << name << " " << f.name;
        ++slices;
      }
    }
  EXPECT_GE(slices, 40);
}

// A damaged body is found when the slice that needs it is decoded: an error, no crash.
TEST(CfaSerialize, DamagedBodiesAreAnErrorWhenSliced) {
  frontend::ParseResult pr = frontend::parseFile((examples() / "pointer_swap.c").string(), {});
  ASSERT_TRUE(pr.ok()) << pr.diagnostics;
  std::string bytes = cfa::serialize(*pr.program);
  const cfa::Function* main = pr.program->find("main");
  ASSERT_TRUE(main);
  int errors = 0;
  for (size_t i = bytes.size() / 2; i < bytes.size(); i += std::max<size_t>(1, bytes.size() / 400)) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x7f);
    try {
      cfa::ProgramImage image(bad);
      image.slice(main->id);
    } catch (const std::exception&) {  // runtime_error from the reader, out_of_range from a variable index
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
