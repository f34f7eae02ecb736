// Scheduler: real worker processes (build/argusd --worker), real Clang and Z3.
#include <signal.h>

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "common.h"
#include <nlohmann/json.hpp>

#include "core/result/assumption_automaton.h"
#include "server/service/scheduler.h"

namespace argus::server {
namespace {

using test::waitFor;

Scheduler::Options opts(unsigned workers = 1) {
  Scheduler::Options o;
  o.workerExe = test::workerExe();
  o.workers = workers;
  return o;
}

JobSpec spec(const char* src, engine::Algorithm a, double timeout, uint32_t bound = 0) {
  JobSpec s;
  s.file = "t.c";
  s.source = src;
  s.stage = std::string(engine::algorithmName(a)) + (bound ? ":k=" + std::to_string(bound) : "");
  s.timeoutS = timeout;
  return s;
}

struct Collector {
  std::mutex mu;
  std::vector<JobOutcome> outs;
  std::atomic<int> started{0};
  Scheduler::Done done() {
    return [this](const JobOutcome& o) {
      std::lock_guard l(mu);
      outs.push_back(o);
    };
  }
  Scheduler::Started start() {
    return [this] { started++; };
  }
  size_t count() {
    std::lock_guard l(mu);
    return outs.size();
  }
};

TEST(Scheduler, RunsAJobInAWorkerProcess) {
  Scheduler s(opts());
  Collector c;
  s.submit("k1", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0, c.done(), c.start());
  ASSERT_TRUE(waitFor([&] { return c.count() == 1; }, 60));
  EXPECT_EQ(c.outs[0].kind, JobOutcome::Kind::Done) << c.outs[0].error;
  EXPECT_EQ(c.outs[0].result.verdict, result::Verdict::False);
  ASSERT_TRUE(c.outs[0].result.counterexample);
  EXPECT_EQ(c.started.load(), 1);
  EXPECT_NE(s.workerPids()[0], 0);
  EXPECT_NE(s.workerPids()[0], getpid());
}

// The policy at the top of scheduler.h: explicit requests first, then round-robin
// among documents, so a small document (or request) never waits behind a big one.
TEST(Scheduler, ExplicitRequestsFirstThenRoundRobinAmongDocuments) {
  Scheduler s(opts(1));
  std::mutex mu;
  std::vector<std::string> order;
  auto started = [&](std::string label) {
    return [&, label] {
      std::lock_guard l(mu);
      order.push_back(label);
    };
  };
  Collector c;
  const char* prog = "int f(int x) { return x + 1; }\nint main(void) { return f(0) - 1; }\n";
  // The first job occupies the only worker while the others are queued.
  s.submit("big:0", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), Scheduler::Placement{0, Scheduler::kDocument, "big"},
           c.done(), started("big"));
  ASSERT_TRUE(waitFor([&] { return c.started.load() >= 0 && !s.workers()[0].function.empty(); }, 30));
  for (int i = 1; i <= 12; ++i)
    s.submit("big:" + std::to_string(i), spec(prog, engine::Algorithm::Bmc, 20),
             Scheduler::Placement{5, Scheduler::kDocument, "big"}, c.done(), started("big"));
  for (int i = 0; i < 2; ++i)
    s.submit("small:" + std::to_string(i), spec(prog, engine::Algorithm::Bmc, 20),
             Scheduler::Placement{1, Scheduler::kDocument, "small"}, c.done(), started("small"));
  s.submit("request", spec(prog, engine::Algorithm::Bmc, 20), Scheduler::Placement{0, Scheduler::kExplicit, "client"},
           c.done(), started("request"));
  ASSERT_TRUE(waitFor([&] { return c.count() == 16; }, 120));
  std::lock_guard l(mu);
  ASSERT_EQ(order.size(), 16u);
  EXPECT_EQ(order[0], "big");
  EXPECT_EQ(order[1], "request");  // before 12 queued jobs of documents
  // "small" was never served and "big" just was: it goes next, then they alternate
  // although "big" has the higher priority (its later edit) and was queued first.
  EXPECT_EQ(order[2], "small");
  EXPECT_EQ(order[3], "big");
  EXPECT_EQ(order[4], "small");
  for (size_t i = 5; i < order.size(); ++i) EXPECT_EQ(order[i], "big");
}

// Functions in the editor's visible range go before the rest (reclass of a queued job).
TEST(Scheduler, VisibleFunctionsGoBeforeTheRest) {
  Scheduler s(opts(1));
  std::mutex mu;
  std::vector<std::string> order;
  Collector c;
  auto started = [&](std::string label) {
    return [&, label] {
      std::lock_guard l(mu);
      order.push_back(label);
    };
  };
  const char* prog = "int f(int x) { return x + 1; }\nint main(void) { return f(0) - 1; }\n";
  s.submit("doc:0", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), Scheduler::Placement{0, Scheduler::kDocument, "doc"},
           c.done(), started("0"));
  ASSERT_TRUE(waitFor([&] { return !s.workers()[0].function.empty(); }, 30));
  std::vector<uint64_t> waiters;
  for (int i = 1; i <= 8; ++i)
    waiters.push_back(s.submit("doc:" + std::to_string(i), spec(prog, engine::Algorithm::Bmc, 20),
                               Scheduler::Placement{0, Scheduler::kDocument, "doc"}, c.done(), started(std::to_string(i))));
  s.reclass(waiters[6], Scheduler::kVisible);  // job 7 is on screen
  ASSERT_TRUE(waitFor([&] { return c.count() == 9; }, 120));
  std::lock_guard l(mu);
  ASSERT_EQ(order.size(), 9u);
  EXPECT_EQ(order[0], "0");
  EXPECT_EQ(order[1], "7");
  EXPECT_EQ(order[2], "1");  // then FIFO
}

// The memory budget covers daemon and workers: a job whose worker is the largest when
// the budget is exceeded ends with a failure naming the budget (not retried).
TEST(Scheduler, AJobOverTheMemoryBudgetEndsWithThatReason) {
  Scheduler::Options o = opts(1);
  o.budgetMb = 1;  // below what any process takes: the first check ends the job
  Scheduler s(o);
  Collector c;
  s.submit("k", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0, c.done());
  ASSERT_TRUE(waitFor([&] { return c.count() == 1; }, 60));
  EXPECT_EQ(c.outs[0].kind, JobOutcome::Kind::Failed);
  EXPECT_NE(c.outs[0].error.find("over the memory budget"), std::string::npos) << c.outs[0].error;
  EXPECT_EQ(s.jobsOverBudget(), 1u);
  Scheduler::Options roomy = opts(1);
  roomy.budgetMb = 64 * 1024;
  Scheduler t(roomy);
  Collector d;
  t.submit("k", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0, d.done());
  ASSERT_TRUE(waitFor([&] { return d.count() == 1; }, 60));
  EXPECT_EQ(d.outs[0].kind, JobOutcome::Kind::Done) << d.outs[0].error;
}

// The text of a translation unit goes to a worker once; later jobs of the same TU
// name it by key (the worker keeps it parsed), and results stay right.
TEST(Scheduler, JobsOfOneTranslationUnitShareItsText) {
  Scheduler s(opts(1));
  Collector c;
  std::string prog = test::kBuggyProgram;
  SharedText text(prog);
  for (int i = 0; i < 3; ++i) {
    JobSpec j = spec("", engine::Algorithm::Bmc, 20);
    j.source = text;
    s.submit("k" + std::to_string(i), j, 0, c.done());
  }
  ASSERT_TRUE(waitFor([&] { return c.count() == 3; }, 60));
  for (auto& o : c.outs) {
    EXPECT_EQ(o.kind, JobOutcome::Kind::Done) << o.error;
    EXPECT_EQ(o.result.verdict, result::Verdict::False);
  }
  JobSpec j = spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20);
  EXPECT_EQ(encodeJob(1, j, false).find("reach_error"), std::string::npos);  // no text
  EXPECT_NE(encodeJob(1, j, true).find("reach_error"), std::string::npos);
}

TEST(Scheduler, ParseErrorsAreInputErrors) {
  Scheduler s(opts());
  Collector c;
  s.submit("k", spec("int main(void) { return x; }", engine::Algorithm::Bmc, 10), 0, c.done());
  ASSERT_TRUE(waitFor([&] { return c.count() == 1; }, 60));
  EXPECT_EQ(c.outs[0].kind, JobOutcome::Kind::InputError);
  EXPECT_NE(c.outs[0].error.find("parse"), std::string::npos) << c.outs[0].error;
}

TEST(Scheduler, IdenticalKeysShareOneJob) {
  Scheduler s(opts());
  Collector a, b;
  s.submit("same", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0, a.done());
  s.submit("same", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0, b.done());
  ASSERT_TRUE(waitFor([&] { return a.count() == 1 && b.count() == 1; }, 60));
  EXPECT_EQ(s.jobsRun(), 1u);
}

TEST(Scheduler, WithdrawingTheLastWaiterKillsTheRunningWorker) {
  Scheduler s(opts());
  Collector c;
  uint64_t w = s.submit("slow", spec(test::kSlowProgram, engine::Algorithm::Ibmc, 120), 0, c.done(), c.start());
  ASSERT_TRUE(waitFor([&] { return c.started.load() == 1; }, 30));
  pid_t before = s.workerPids()[0];
  ASSERT_GT(before, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto t0 = std::chrono::steady_clock::now();
  s.withdraw(w);
  ASSERT_TRUE(waitFor([&] { pid_t p = s.workerPids()[0]; return p != 0 && p != before; }, 5));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
  EXPECT_EQ(::kill(before, 0), -1);  // the old worker is gone (reaped)
  EXPECT_EQ(s.running(), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(c.count(), 0u);  // a withdrawn waiter is never called
  // The slot keeps serving.
  Collector d;
  s.submit("next", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0, d.done());
  ASSERT_TRUE(waitFor([&] { return d.count() == 1; }, 60));
  EXPECT_EQ(d.outs[0].kind, JobOutcome::Kind::Done);
}

TEST(Scheduler, WorkerCrashIsRetriedThenReportedAndTheDaemonKeepsServing) {
  Scheduler s(opts());
  Collector c;
  s.submit("slow", spec(test::kSlowProgram, engine::Algorithm::Ibmc, 120), 0, c.done(), c.start());
  ASSERT_TRUE(waitFor([&] { return c.started.load() == 1; }, 30));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  pid_t first = s.workerPids()[0];
  ASSERT_GT(first, 0);
  ASSERT_EQ(::kill(first, SIGKILL), 0);  // crash 1: the job is re-run on a fresh worker
  ASSERT_TRUE(waitFor([&] { pid_t p = s.workerPids()[0]; return p != 0 && p != first; }, 5));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(c.count(), 0u);
  EXPECT_EQ(s.running(), 1u);
  pid_t second = s.workerPids()[0];
  ASSERT_EQ(::kill(second, SIGKILL), 0);  // crash 2: reported as failed
  ASSERT_TRUE(waitFor([&] { return c.count() == 1; }, 5));
  EXPECT_EQ(c.outs[0].kind, JobOutcome::Kind::Failed);
  EXPECT_NE(c.outs[0].error.find("signal 9"), std::string::npos) << c.outs[0].error;
  EXPECT_GE(s.workerRestarts(), 2u);
  Collector d;
  s.submit("next", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0, d.done());
  ASSERT_TRUE(waitFor([&] { return d.count() == 1; }, 60));
  EXPECT_EQ(d.outs[0].kind, JobOutcome::Kind::Done);
  EXPECT_EQ(d.outs[0].result.verdict, result::Verdict::False);
}

TEST(Scheduler, OutOfMemoryInAWorkerFailsOnlyThatJob) {
  Scheduler::Options o = opts();
  o.memoryMb = 150;  // RLIMIT_AS: Clang itself runs out of memory and aborts the worker
  o.maxRetries = 0;
  Scheduler s(o);
  Collector c;
  s.submit("m", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0, c.done());
  ASSERT_TRUE(waitFor([&] { return c.count() == 1; }, 60));
  const JobOutcome& out = c.outs[0];
  EXPECT_EQ(out.kind, JobOutcome::Kind::Failed);
  EXPECT_NE(out.error.find("crashed"), std::string::npos) << out.error;
  // A fresh worker took the slot; this process (the "daemon") is unaffected.
  ASSERT_TRUE(waitFor([&] { return s.workerPids()[0] != 0; }, 5));
  EXPECT_GE(s.workerRestarts(), 1u);
}

// The workers' solver memory cap (argusd --solver-memory-mb): a query that needs more
// ends that job's verification as unknown "out of memory", the worker survives and runs
// the next job as before.
TEST(Scheduler, TheSolverMemoryCapEndsTheQueryNotTheWorker) {
  Scheduler::Options o = opts();
  o.solverMemoryMb = 24;
  Scheduler s(o);
  // 64 copies of "factor 2^61 - 1 into two factors below 2^32": the multipliers alone
  // take Z3 far beyond 24 MB (hundreds of MB uncapped)
  std::string src = "extern unsigned long __VERIFIER_nondet_ulong(void);\nextern void reach_error(void);\nint main(void) {\n  int ok = 1;\n";
  for (int i = 0; i < 64; ++i) {
    std::string x = "x" + std::to_string(i), y = "y" + std::to_string(i);
    src += "  unsigned long " + x + " = __VERIFIER_nondet_ulong(), " + y + " = __VERIFIER_nondet_ulong();\n";
    src += "  ok = ok && " + x + " > 1 && " + y + " > 1 && " + x + " < 4294967296ul && " + y + " < 4294967296ul && " + x +
           " * " + y + " == 2305843009213693951ul;\n";
  }
  src += "  if (ok) reach_error();\n  return 0;\n}\n";
  Collector c;
  s.submit("big", spec(src.c_str(), engine::Algorithm::Bmc, 60), 0, c.done());
  ASSERT_TRUE(waitFor([&] { return c.count() == 1; }, 90));
  EXPECT_EQ(c.outs[0].kind, JobOutcome::Kind::Done) << c.outs[0].error;
  EXPECT_EQ(c.outs[0].result.verdict, result::Verdict::Unknown);
  EXPECT_NE(c.outs[0].result.reason.find("out of memory"), std::string::npos) << c.outs[0].result.reason;
  EXPECT_EQ(s.workerRestarts(), 0u);
  s.submit("small", spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0, c.done());
  ASSERT_TRUE(waitFor([&] { return c.count() == 2; }, 60));
  EXPECT_EQ(c.outs[1].kind, JobOutcome::Kind::Done) << c.outs[1].error;
  EXPECT_EQ(c.outs[1].result.verdict, result::Verdict::False) << c.outs[1].result.reason;
}

TEST(Scheduler, HardDeadlineKillsARunawayJob) {
  Scheduler::Options o = opts();
  o.defaultHardLimitS = 1.0;  // the job itself has no timeout: only the kill stops it
  Scheduler s(o);
  Collector c;
  auto t0 = std::chrono::steady_clock::now();
  s.submit("d", spec(test::kSlowProgram, engine::Algorithm::Ibmc, 0), 0, c.done());
  ASSERT_TRUE(waitFor([&] { return c.count() == 1; }, 30));
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(took, 1.0);
  EXPECT_LT(took, 10.0);
  EXPECT_EQ(c.outs[0].kind, JobOutcome::Kind::Failed);
  EXPECT_NE(c.outs[0].error.find("time limit"), std::string::npos) << c.outs[0].error;
  EXPECT_TRUE(waitFor([&] { return s.workerPids()[0] != 0; }, 5));
}

}  // namespace
}  // namespace argus::server

namespace argus::server {
namespace {

// A job whose condition no later stage reads (JobSpec::wantAutomaton off) returns the
// condition without its assumption automaton, only the automaton's summary (on SQLite a
// shallow stage's automaton is up to ~8 MB of JSON per function); with it on, the
// automaton comes back whole.
TEST(Scheduler, TheAutomatonComesBackOnlyWhenWanted) {
  const char* loop =
      "extern int __VERIFIER_nondet_int(void); void reach_error(void);\n"
      "int main(void) { int n = __VERIFIER_nondet_int(), s = 0;\n"
      "  for (int i = 0; i < n; i++) s += 1;\n"
      "  if (s < 0) reach_error(); return 0; }\n";
  Scheduler s(opts());
  Collector c;
  JobSpec with = spec(loop, engine::Algorithm::Bmc, 20, 2), without = with;
  without.wantAutomaton = false;
  s.submit("with", with, 0, c.done(), c.start());
  ASSERT_TRUE(waitFor([&] { return c.count() == 1; }, 60));
  s.submit("without", without, 0, c.done(), c.start());
  ASSERT_TRUE(waitFor([&] { return c.count() == 2; }, 60));
  const result::Condition& a = c.outs[0].result.condition;
  const result::Condition& b = c.outs[1].result.condition;
  ASSERT_EQ(c.outs[0].kind, JobOutcome::Kind::Done) << c.outs[0].error;
  ASSERT_EQ(c.outs[1].kind, JobOutcome::Kind::Done) << c.outs[1].error;
  ASSERT_TRUE(a.automaton);
  EXPECT_FALSE(b.automaton);
  EXPECT_EQ(b.automatonStates, a.automaton->ordinaryStates());
  EXPECT_EQ(b.automatonInitial, "restricted");
  EXPECT_EQ(b.bound, a.bound);
  EXPECT_EQ(b.summary, a.summary);
  // the summary survives the codec, as argus/condition shows it
  auto j = result::toJson(c.outs[1].result);
  EXPECT_EQ(j["condition"]["automaton_states"].get<uint64_t>(), a.automaton->ordinaryStates());
}

}  // namespace
}  // namespace argus::server

namespace argus::server {
namespace {

// With a budget that cannot hold a second job beside the first (daemon + workers above
// the concurrent share), jobs run one at a time instead of being killed over the budget.
TEST(Scheduler, ASecondJobWaitsWhileTheBudgetCannotHoldTwo) {
  uint64_t idleKb = 0;
  {
    Scheduler probe(opts(2));
    ASSERT_TRUE(waitFor([&] {
      auto p = probe.workerPids();
      return p.size() == 2 && p[0] > 0 && p[1] > 0;
    }, 30));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    idleKb = probe.residentKb();
  }
  ASSERT_GT(idleKb, 0u);
  Scheduler::Options o = opts(2);
  o.budgetMb = static_cast<unsigned>(idleKb * 3 / 2 / 1024);  // idle is over the share (55 %); a small job fits
  Scheduler s(o);
  // the gate reads real memory: wait until the fresh workers have loaded their libraries
  ASSERT_TRUE(waitFor([&] { return s.residentKb() * 10 >= idleKb * 9; }, 30));
  std::mutex mu;
  std::vector<std::string> events;
  auto note = [&](std::string e) {
    std::lock_guard l(mu);
    events.push_back(e);
  };
  Collector c;
  for (const char* k : {"a", "b"}) {
    std::string key = k;
    s.submit(key, spec(test::kBuggyProgram, engine::Algorithm::Bmc, 20), 0,
             [&, key](const JobOutcome& out) {
               note("done " + key);
               c.done()(out);
             },
             [&, key] { note("start " + key); });
  }
  ASSERT_TRUE(waitFor([&] { return c.count() == 2; }, 60));
  for (auto& out : c.outs) EXPECT_EQ(out.kind, JobOutcome::Kind::Done) << out.error;
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].substr(0, 5), "start");
  EXPECT_EQ(events[1].substr(0, 4), "done") << "the second job started beside the first; budget " << o.budgetMb << " MB, idle " << idleKb / 1024 << " MB, waits " << s.memoryWaits();
  EXPECT_GT(s.memoryWaits(), 0u);
  EXPECT_EQ(s.jobsOverBudget(), 0u);
}

}  // namespace
}  // namespace argus::server
