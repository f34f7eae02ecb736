// Service: documents, per-function caching, edits, persistence (real workers).
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

#include "common.h"
#include "server/service/service.h"

namespace argus::server {
namespace {

using test::waitFor;

const char* kDoc = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int leaf(int x) { return x + 1; }
int caller(int x) { return leaf(x) * 2; }
int buggy(int y) {
  int k = 7; if (k == 7) reach_error();
  return y;
}
int main(void) {
  int v = caller(__VERIFIER_nondet_int());
  return v;
}
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return s.replace(p, from.size(), to);
}

struct Watch {
  std::mutex mu;
  std::optional<DocumentSnapshot> last;
  int updates = 0;
  Service::DocumentCallback cb() {
    return [this](const DocumentSnapshot& s) {
      std::lock_guard l(mu);
      last = s;
      updates++;
    };
  }
  bool settled(int version) {
    std::lock_guard l(mu);
    return last && last->version == version && last->pending == 0 && !last->functions.empty();
  }
  FunctionStatus fn(const std::string& name) {
    std::lock_guard l(mu);
    for (const auto& f : last->functions)
      if (f.name == name) return f;
    throw std::runtime_error("no function " + name);
  }
};

VerifyConfig quickConfig() {
  VerifyConfig c;
  c.chainSpec = "bmc:k=3,ibmc";
  c.timeoutS = 20;
  c.chain = planOf(c.chainSpec, c.timeoutS);
  return c;
}

ServiceOptions options(const std::string& store) {
  ServiceOptions o;
  o.scheduler.workerExe = test::workerExe();
  o.scheduler.workers = 2;
  o.storePath = store;
  o.debounceMs = 50;
  return o;
}

TEST(Service, VerifiesEveryFunctionAndReportsTheViolation) {
  test::TempDir dir;
  Service svc(options((dir.path / "s.sqlite").string()));
  Watch w;
  svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  EXPECT_EQ(w.last->functions.size(), 4u);  // leaf, caller, buggy, main
  EXPECT_EQ(w.fn("leaf").state, FunctionState::Verified);
  EXPECT_EQ(w.fn("main").state, FunctionState::Verified);
  const FunctionStatus& b = w.fn("buggy");
  ASSERT_EQ(b.state, FunctionState::Violated);
  ASSERT_TRUE(b.result && b.result->counterexample);
  EXPECT_EQ(b.result->counterexample->steps.back().line, 6u);
  EXPECT_EQ(b.runs, 1u);  // the shallow BMC found it; no deeper stage
}

// Properties (issue 26 item 4): the document is parsed with the configured properties'
// checks, each finding names its property, and the properties are part of the TU and
// result keys: switching them re-verifies, switching back is served from the cache.
TEST(Service, ChecksTheConfiguredProperties) {
  const char* text = R"(void *malloc(unsigned long n);
void free(void *p);
int twice(void) {
  int *p = malloc(sizeof(int));
  free(p);
  free(p);
  return 0;
}
int add(int a) { return a + 1; }
)";
  EXPECT_EQ(normalizeProperties({}), "unreach-call");
  EXPECT_EQ(normalizeProperties({"valid-free", "no-overflow,valid-free"}), "no-overflow,valid-free");
  EXPECT_EQ(normalizeProperties({"CHECK( init(main()), LTL(G ! overflow) )"}), "no-overflow");
  EXPECT_THROW(normalizeProperties({"valid-nothing"}), std::invalid_argument);
  EXPECT_EQ(jobProperties("unreach-call"), "");
  EXPECT_EQ(jobProperties("unreach-call,valid-free"), "unreach-call,valid-free");

  test::TempDir dir;
  Service svc(options((dir.path / "s.sqlite").string()));
  Watch w;
  VerifyConfig reach = quickConfig();
  svc.open("d", "t.c", text, 1, {}, reach, w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  EXPECT_EQ(w.fn("twice").state, FunctionState::Verified);  // nothing to check for reachability
  EXPECT_EQ(w.fn("add").state, FunctionState::Verified);

  VerifyConfig props = quickConfig();
  props.properties = normalizeProperties({"valid-memsafety", "no-overflow"});
  svc.configure("d", props);
  ASSERT_TRUE(waitFor([&] {
    std::lock_guard l(w.mu);
    return w.last && w.last->pending == 0 && w.last->functions.size() == 2 && w.last->functions[0].runs >= 2;
  }, 120));
  FunctionStatus t = w.fn("twice"), a = w.fn("add");
  ASSERT_EQ(t.state, FunctionState::Violated);
  ASSERT_TRUE(t.result && t.result->counterexample);
  EXPECT_EQ(t.result->counterexample->property, "valid-free");
  EXPECT_EQ(t.result->counterexample->steps.back().line, 6u);
  EXPECT_EQ(t.result->property, "no-overflow,valid-memsafety");
  // `a + 1` overflows only for a == INT_MAX, an argument no caller passes: latent (issue 29)
  ASSERT_EQ(a.state, FunctionState::Conditional);
  ASSERT_TRUE(a.result && result::isLatent(*a.result));
  EXPECT_EQ(a.result->counterexample->property, "no-overflow");
  EXPECT_EQ(t.runs, 2u);  // once per configuration: the new keys missed the cache

  svc.configure("d", reach);  // back: both served from the cache, nothing re-run
  ASSERT_TRUE(waitFor([&] {
    std::lock_guard l(w.mu);
    return w.last && w.last->pending == 0 && w.last->functions.size() == 2 &&
           w.last->functions[0].state == FunctionState::Verified && w.last->functions[1].state == FunctionState::Verified;
  }, 120));
  EXPECT_EQ(w.fn("twice").runs, 2u);
  EXPECT_GE(w.fn("twice").cached, 1u);
}

// Issue 29 item 4: a finding that depends on a function's inputs is latent (unknown, final:
// no deeper stage runs for it) until a caller's manifest counterexample reaches the same
// error through it; then the function is violated with that caller's path.
TEST(Service, LatentFindingsStayConditionalUntilACallerMakesThemManifest) {
  test::TempDir dir;
  Service svc(options((dir.path / "s.sqlite").string()));
  Watch w;
  const char* text = R"(extern void reach_error(void);
int lonely(int z) {
  if (z > 1000) reach_error();
  return z;
}
int check(int y) {
  if (y == 14) reach_error();
  return y;
}
int main(void) { return check(14) + lonely(3); }
)";
  svc.open("d", "t.c", text, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  FunctionStatus l = w.fn("lonely");
  EXPECT_EQ(l.state, FunctionState::Conditional);
  EXPECT_TRUE(l.final);
  EXPECT_EQ(l.runs, 1u);  // the latent finding ends the chain
  ASSERT_TRUE(l.result && result::isLatent(*l.result));
  EXPECT_EQ(result::preconditionText(*l.result->counterexample), "fails if on entry: z > 1000 (t.c:3)");
  FunctionStatus m = w.fn("main");
  ASSERT_EQ(m.state, FunctionState::Violated);
  FunctionStatus c = w.fn("check");
  ASSERT_EQ(c.state, FunctionState::Violated);
  ASSERT_TRUE(c.result && c.result->counterexample);
  EXPECT_EQ(c.result->verdict, result::Verdict::False);
  EXPECT_EQ(c.result->counterexample->entry, "main");
  EXPECT_EQ(c.result->counterexample->finding, "manifest");
  EXPECT_EQ(c.result->counterexample->steps.back().line, 7u);
}

// The run goes on after a latent finding (engine continueAfterLatent): the editor gets every
// latent finding of the function, and the stored result brings them back, lines moved with
// the function, after a restart with lines inserted above.
TEST(Service, EveryLatentFindingIsKeptAndRestoredWithItsLines) {
  test::TempDir dir;
  std::string store = (dir.path / "s.sqlite").string();
  const std::string body = R"(int two(int a, int b) {
  if (a < 0) reach_error();
  if (b == 7) reach_error();
  return a;
}
)";
  const std::string head = "extern void reach_error(void);\n";
  auto lines = [](const FunctionStatus& f) {
    std::set<uint32_t> out;
    if (!f.result || !f.result->counterexample) return out;
    out.insert(f.result->counterexample->steps.back().line);
    for (const result::Counterexample& m : f.result->moreLatent) out.insert(m.steps.back().line);
    return out;
  };
  {
    Service svc(options(store));
    Watch w;
    svc.open("d", "t.c", head + body, 1, {}, quickConfig(), w.cb());
    ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
    FunctionStatus f = w.fn("two");
    ASSERT_EQ(f.state, FunctionState::Conditional);
    ASSERT_TRUE(f.result && result::isLatent(*f.result)) << (f.result ? f.result->reason : "");
    EXPECT_EQ(f.result->moreLatent.size(), 1u) << f.result->reason;
    EXPECT_EQ(lines(f), (std::set<uint32_t>{3, 4}));
  }
  Service svc(options(store));
  Watch w;
  svc.open("d", "t.c", head + "\n\n" + body, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 60));
  FunctionStatus f = w.fn("two");
  EXPECT_EQ(f.runs, 0u);  // from the store
  ASSERT_TRUE(f.result && result::isLatent(*f.result));
  ASSERT_EQ(f.result->moreLatent.size(), 1u);
  EXPECT_EQ(lines(f), (std::set<uint32_t>{5, 6}));
  EXPECT_NE(f.result->reason.find("; latent finding at "), std::string::npos) << f.result->reason;
  EXPECT_EQ(f.result->moreLatent[0].precondition.front().line + 0u,
            f.result->moreLatent[0].steps.back().line == 5 ? 5u : 6u);
}

// Snapshots are coalesced: the first of a version lists every function as changed,
// later ones only the functions whose state changed since the previous one, and there
// are far fewer snapshots than state changes.
TEST(Service, SnapshotsAreCoalescedAndCarryOnlyWhatChanged) {
  std::string text;
  const int n = 60;
  for (int i = 0; i < n; ++i) text += "int f" + std::to_string(i) + "(int x) { return x + " + std::to_string(i) + "; }\n";
  ServiceOptions o = options("");
  o.publishIntervalMs = 300;
  Service svc(o);
  std::mutex mu;
  std::vector<DocumentSnapshot> snaps;
  svc.open("d", "t.c", text, 1, {}, quickConfig(), [&](const DocumentSnapshot& s) {
    std::lock_guard l(mu);
    snaps.push_back(s);
  });
  ASSERT_TRUE(waitFor(
      [&] {
        std::lock_guard l(mu);
        return !snaps.empty() && snaps.back().pending == 0;
      },
      120));
  std::lock_guard l(mu);
  ASSERT_TRUE(snaps.front().full);
  EXPECT_EQ(snaps.front().changed.size(), static_cast<size_t>(n));
  // every function ends verified; each went queued → running → verified (≥ 2 changes
  // after the first snapshot), i.e. ≥ 120 changes in far fewer snapshots.
  EXPECT_LT(snaps.size(), 40u);
  // every function's final state was sent: the last snapshot that lists a function as
  // changed shows it verified (on a loaded machine a function can already be final in
  // the first, full snapshot)
  std::map<size_t, FunctionState> lastSent;
  for (size_t i = 0; i < snaps.size(); ++i) {
    if (i > 0) EXPECT_FALSE(snaps[i].full);
    EXPECT_LT(snaps[i].changed.size(), static_cast<size_t>(n) + 1);
    for (size_t k : snaps[i].changed) {
      ASSERT_LT(k, snaps[i].functions.size());
      lastSent[k] = snaps[i].functions[k].state;
    }
  }
  EXPECT_EQ(lastSent.size(), static_cast<size_t>(n));
  for (const auto& [k, st] : lastSent) EXPECT_EQ(st, FunctionState::Verified) << "function #" << k;
  for (const auto& f : snaps.back().functions) EXPECT_EQ(f.state, FunctionState::Verified) << f.name;
}

// Parse once per version: the analysis worker's CFAs are loaded by the verification
// workers, which never run Clang on the text themselves.
TEST(Service, WorkersLoadTheAnalysisCfasInsteadOfParsing) {
  Service svc(options(""));
  Watch w;
  svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  EXPECT_EQ(w.fn("buggy").state, FunctionState::Violated);
  Service::Stats st = svc.stats();
  EXPECT_EQ(st.parses, 1u);
  EXPECT_EQ(st.workerParses, 0u);
  EXPECT_GE(st.cfaLoads, 1u);
  EXPECT_LE(st.cfaLoads, 2u);  // once per worker
}

TEST(Service, AnEditReverifiesOnlyTheChangedFunctionAndItsCallers) {
  test::TempDir dir;
  Service svc(options((dir.path / "s.sqlite").string()));
  Watch w;
  svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  std::map<std::string, unsigned> runs;
  for (const auto& f : w.last->functions) runs[f.name] = f.runs;

  svc.update("d", replace(kDoc, "return x + 1;", "return x + 2;"), 2);
  ASSERT_TRUE(waitFor([&] { return w.settled(2); }, 120));
  EXPECT_GT(w.fn("leaf").runs, runs["leaf"]);
  EXPECT_GT(w.fn("caller").runs, runs["caller"]);
  EXPECT_GT(w.fn("main").runs, runs["main"]);
  EXPECT_EQ(w.fn("buggy").runs, runs["buggy"]);  // unchanged: served from cache
  EXPECT_GE(w.fn("buggy").cached, 1u);
}

// The default chain's deep stage continues the shallow stage's unwinding and solver in
// the same worker (engine::SessionCache; Scheduler affinity) instead of starting again.
TEST(Service, DeepStageContinuesTheShallowDeepening) {
  test::TempDir dir;
  ServiceOptions o = options((dir.path / "s.sqlite").string());
  Service svc(o);
  Watch w;
  const char* loop = R"(
extern void reach_error(void);
int main(void) {
  int s = 0;
  for (int i = 0; i < 9; i++) s += i;
  if (s != 36) reach_error();
  return 0;
}
)";
  // the warm continuation is an optimisation inside a chain of consecutive ibmc stages
  VerifyConfig cfg;
  cfg.chainSpec = "ibmc:k=3,ibmc";
  cfg.chain = planOf(cfg.chainSpec, 30);
  svc.open("d", "loop.c", loop, 1, {}, cfg, w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  const FunctionStatus& m = w.fn("main");
  ASSERT_EQ(m.state, FunctionState::Verified);
  ASSERT_TRUE(m.result);
  EXPECT_EQ(m.runs, 2u);  // shallow (bound 3, inconclusive) and deep
  ASSERT_TRUE(m.result->stats.extra.count("resumed_from_bound"));
  EXPECT_EQ(m.result->stats.extra.at("resumed_from_bound"), 3);
}

TEST(Service, TheDefaultPlanIsAutoAndProvesALoopThatNeedsAnInvariant) {
  // the default plan (engine::kAutoChain): a counting loop that BMC cannot unroll is
  // proved by the parallel stage, and a reachable bug gets its path
  Service svc(options(""));
  Watch w;
  const char* text = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void reach_error(void);
int count(void) {
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n >= 0 && n < 1000000);
  int i = 0, j = 0;
  while (i < n) { i++; j += 2; }
  if (j != 2 * i) reach_error();
  return j;
}
int bug(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 7) reach_error();
  return x;
}
)";
  VerifyConfig cfg;
  EXPECT_EQ(cfg.chainSpec, engine::kAutoChain);
  ASSERT_EQ(cfg.chain.size(), 2u);
  svc.open("d", "t.c", text, 1, {}, cfg, w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  FunctionStatus c = w.fn("count");
  EXPECT_EQ(c.state, FunctionState::Verified) << (c.result ? c.result->reason : c.error);
  EXPECT_EQ(c.stage, 1u);  // decided by the parallel stage
  FunctionStatus b = w.fn("bug");
  ASSERT_EQ(b.state, FunctionState::Violated);
  ASSERT_TRUE(b.result && b.result->counterexample);
  EXPECT_TRUE(b.result->counterexample->replayed);
  EXPECT_EQ(b.stage, 0u);  // the shallow stage finds it
}

TEST(Service, AStageGetsThePreviousStagesCondition) {
  // pred restricted by explicit's condition: the chain's conditions cross jobs
  Service svc(options(""));
  Watch w;
  const char* text = R"(
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int c = __VERIFIER_nondet_int();
  if (c) { int a = 2; if (a * 3 != 6) reach_error(); }
  else { int i = 0; while (i < 1000) i++; if (i != 1000) reach_error(); }
  return 0;
}
)";
  VerifyConfig cfg;
  cfg.chainSpec = "explicit:repeats=3,pred";
  cfg.chain = planOf(cfg.chainSpec, 60);
  svc.open("d", "t.c", text, 1, {}, cfg, w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  FunctionStatus m = w.fn("main");
  EXPECT_EQ(m.state, FunctionState::Verified) << (m.result ? m.result->reason : m.error);
  ASSERT_TRUE(m.result);
  EXPECT_EQ(m.stage, 1u);
  // pred explored only what explicit left open
  ASSERT_TRUE(m.result->stats.extra.count("condition_input_states")) << m.result->algorithm;
}

TEST(Service, LinesInsertedAboveKeepResultsAndMoveTheirPositions) {
  test::TempDir dir;
  Service svc(options((dir.path / "s.sqlite").string()));
  Watch w;
  svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  uint64_t runsBefore = svc.stats().workerRuns;
  svc.update("d", std::string("// new first line\n") + kDoc, 2);
  ASSERT_TRUE(waitFor([&] { return w.settled(2); }, 60));
  EXPECT_EQ(svc.stats().workerRuns, runsBefore);  // nothing re-verified
  const FunctionStatus& b = w.fn("buggy");
  ASSERT_TRUE(b.result && b.result->counterexample);
  EXPECT_EQ(b.result->counterexample->steps.back().line, 7u);  // was 6
  EXPECT_EQ(b.range.line, 6u);
}

TEST(Service, FixingTheBugClearsTheViolation) {
  test::TempDir dir;
  Service svc(options(""));
  Watch w;
  svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  ASSERT_EQ(w.fn("buggy").state, FunctionState::Violated);
  svc.update("d", replace(kDoc, "if (k == 7) reach_error();", "if (k == 7 && k != 7) reach_error();"), 2);
  ASSERT_TRUE(waitFor([&] { return w.settled(2); }, 120));
  EXPECT_EQ(w.fn("buggy").state, FunctionState::Verified);
}

TEST(Service, ResultsPersistAcrossRestarts) {
  test::TempDir dir;
  std::string store = (dir.path / "s.sqlite").string();
  {
    Service svc(options(store));
    Watch w;
    svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
    ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  }
  Service svc(options(store));
  Watch w;
  svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 30));
  EXPECT_EQ(svc.stats().workerRuns, 0u);
  EXPECT_GT(svc.stats().storeHits, 0u);
  for (const auto& f : w.last->functions) {
    EXPECT_EQ(f.runs, 0u) << f.name;
    EXPECT_GE(f.cached, 1u) << f.name;
  }
  EXPECT_EQ(w.fn("buggy").state, FunctionState::Violated);
}

TEST(Service, ParseErrorsAreReportedAndTheServiceGoesOn) {
  Service svc(options(""));
  Watch w;
  svc.open("bad", "bad.c", "int main(void) { return undeclared_thing; }", 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { std::lock_guard l(w.mu); return w.last.has_value(); }, 30));
  EXPECT_FALSE(w.last->parseError.empty());
  Watch w2;
  svc.open("good", "t.c", kDoc, 1, {}, quickConfig(), w2.cb());
  ASSERT_TRUE(waitFor([&] { return w2.settled(1); }, 120));
}

TEST(Service, SupersededVersionsAreCancelled) {
  Service svc(options(""));
  Watch w;
  VerifyConfig cfg;
  cfg.chain = planOf("ibmc", 120);
  svc.open("d", "t.c", test::kSlowProgram, 1, {}, cfg, w.cb());
  ASSERT_TRUE(waitFor([&] { return svc.scheduler().running() == 1; }, 30));
  pid_t busy = 0;
  for (pid_t p : svc.scheduler().workerPids()) busy = busy ? busy : p;
  svc.update("d", test::kBuggyProgram, 2);  // main changes: the slow job is superseded
  ASSERT_TRUE(waitFor([&] { return w.settled(2); }, 60));
  EXPECT_EQ(w.fn("main").state, FunctionState::Violated);
  EXPECT_GE(svc.stats().workerRestarts, 1u);  // the superseded job's worker was killed
}

TEST(Service, VerifyOnceStreamsStagesAndCachesTheAnswer) {
  Service svc(options(""));
  std::mutex mu;
  std::vector<std::pair<unsigned, bool>> stages;
  std::optional<result::VerificationResult> final;
  Service::OnceRequest req;
  req.file = "t.c";
  req.text = test::kBuggyProgram;
  req.cfg = quickConfig();
  auto onStage = [&](unsigned s, const result::VerificationResult& r, bool fin, bool cached) {
    std::lock_guard l(mu);
    stages.emplace_back(s, cached);
    if (fin) final = r;
  };
  svc.verifyOnce(req, onStage, [](const std::string& e) { ADD_FAILURE() << e; });
  ASSERT_TRUE(waitFor([&] { std::lock_guard l(mu); return final.has_value(); }, 60));
  EXPECT_EQ(final->verdict, result::Verdict::False);
  stages.clear();
  final.reset();
  svc.verifyOnce(req, onStage, [](const std::string& e) { ADD_FAILURE() << e; });
  std::lock_guard l(mu);
  ASSERT_TRUE(final.has_value());  // served synchronously from the cache
  EXPECT_TRUE(stages.back().second);
}

}  // namespace
}  // namespace argus::server

namespace argus::server {
namespace {

// An edit elsewhere in the file must not kill a running job whose key is unchanged.
TEST(Service, AnEditKeepsUnaffectedRunningJobs) {
  Service svc(options(""));
  Watch w;
  VerifyConfig cfg;
  cfg.chain = planOf("ibmc", 120);
  const std::string text = std::string(R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int quick(int a) { return a + 1; }
int slow(void) {
  unsigned x = 0;
  while (__VERIFIER_nondet_int()) { x++; }
  if (x == 0xFFFFFFF) reach_error();
  return 0;
}
)");
  svc.open("d", "t.c", text, 1, {}, cfg, w.cb());
  auto slowState = [&] {
    std::lock_guard l(w.mu);
    if (!w.last) return FunctionState::Queued;
    for (const auto& f : w.last->functions)
      if (f.name == "slow") return f.state;
    return FunctionState::Queued;
  };
  ASSERT_TRUE(waitFor([&] { return slowState() == FunctionState::Running; }, 30));
  ASSERT_TRUE(waitFor([&] { return svc.stats().workerRuns >= 1; }, 30));  // quick is done
  uint64_t restarts = svc.stats().workerRestarts;
  std::string edited = text;
  edited.replace(edited.find("a + 1"), 5, "a + 2");
  svc.update("d", edited, 2);
  ASSERT_TRUE(waitFor([&] { std::lock_guard l(w.mu); return w.last && w.last->version == 2 && w.last->pending == 1; }, 30));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(svc.stats().workerRestarts, restarts);  // nothing was killed
  EXPECT_EQ(svc.scheduler().running(), 1u);
  EXPECT_EQ(slowState(), FunctionState::Running);
  EXPECT_EQ(w.fn("quick").state, FunctionState::Verified);
  // Editing `slow` itself supersedes its job: its worker is killed.
  std::string edited2 = edited;
  edited2.replace(edited2.find("x++"), 3, "x += 2");
  svc.update("d", edited2, 3);
  ASSERT_TRUE(waitFor([&] { return svc.stats().workerRestarts > restarts; }, 10));
}

}  // namespace
}  // namespace argus::server

namespace argus::server {
namespace {

TEST(Service, TheSameCodeUnderAnotherNameSharesResultsWithItsOwnFileName) {
  Service svc(options(""));
  Watch a, b;
  svc.open("a", "first.c", kDoc, 1, {}, quickConfig(), a.cb());
  ASSERT_TRUE(waitFor([&] { return a.settled(1); }, 120));
  uint64_t runs = svc.stats().workerRuns;
  svc.open("b", "second.c", kDoc, 1, {}, quickConfig(), b.cb());
  ASSERT_TRUE(waitFor([&] { return b.settled(1); }, 60));
  EXPECT_EQ(svc.stats().workerRuns, runs);
  FunctionStatus f = b.fn("buggy");
  ASSERT_TRUE(f.result && f.result->counterexample);
  for (const auto& s : f.result->counterexample->steps) EXPECT_EQ(s.file, "second.c");
}

}  // namespace
}  // namespace argus::server

namespace argus::server {
namespace {

// Clang runs in workers: a frontend that dies (here: out of memory under a tiny
// RLIMIT_AS) is a parse error for that document; the service goes on.
TEST(Service, AFrontendCrashIsAParseErrorNotADeadDaemon) {
  ServiceOptions o = options("");
  o.scheduler.memoryMb = 150;
  Service svc(o);
  Watch w;
  svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { std::lock_guard l(w.mu); return w.last.has_value(); }, 60));
  EXPECT_NE(w.last->parseError.find("frontend failed"), std::string::npos) << w.last->parseError;
  EXPECT_NE(w.last->parseError.find("crashed"), std::string::npos) << w.last->parseError;
  EXPECT_GE(svc.stats().workerRestarts, 1u);
}

}  // namespace
}  // namespace argus::server

namespace argus::server {
namespace {

// A later stage that starts while an edit waits in the debounce window must verify the
// planned text, not the pending one (else the pending text's result would be cached
// under the planned version's key).
TEST(Service, StagesVerifyThePlannedTextDuringTheDebounce) {
  ServiceOptions o = options("");
  o.debounceMs = 3000;
  Service svc(o);
  Watch w;
  const std::string v1 = R"(extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int f(void) {
  int i, s = 0, n = __VERIFIER_nondet_int();
  if (n < 0 || n > 5) return 0;
  for (i = 0; i < n; i++) s += 1;
  if (s > 5) reach_error();
  return s;
}
)";
  std::string v2 = v1;
  v2.replace(v2.find("s > 5"), 5, "s > 4");
  svc.open("d", "t.c", v1, 1, {}, quickConfig(), w.cb());
  // Version 1 is planned (its first stage queued or running) ...
  ASSERT_TRUE(waitFor([&] { std::lock_guard l(w.mu); return w.last && w.last->version == 1; }, 30));
  svc.update("d", v2, 2);  // ... and version 2 is planned only after 3 s
  // Both stages of version 1 run meanwhile (bmc:3 is inconclusive, ibmc proves it).
  ASSERT_TRUE(waitFor([&] { return svc.stats().workerRuns >= 2; }, 30));
  ASSERT_TRUE(waitFor([&] { return w.settled(2); }, 60));
  EXPECT_EQ(w.fn("f").state, FunctionState::Violated);
  svc.update("d", v1, 3);
  ASSERT_TRUE(waitFor([&] { return w.settled(3); }, 60));
  EXPECT_EQ(w.fn("f").state, FunctionState::Verified);
}

}  // namespace
}  // namespace argus::server

namespace argus::server {
namespace {

TEST(Service, ResultsOfAnotherEngineBuildAreNotServed) {
  test::TempDir dir;
  std::string store = (dir.path / "s.sqlite").string();
  {
    ServiceOptions o = options(store);
    o.engineId = "build-1";
    Service svc(o);
    Watch w;
    svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
    ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  }
  ServiceOptions o = options(store);
  o.engineId = "build-2";
  Service svc(o);
  Watch w;
  svc.open("d", "t.c", kDoc, 1, {}, quickConfig(), w.cb());
  ASSERT_TRUE(waitFor([&] { return w.settled(1); }, 120));
  EXPECT_EQ(svc.stats().storeHits, 0u);
  EXPECT_GT(svc.stats().workerRuns, 0u);
}

}  // namespace
}  // namespace argus::server
