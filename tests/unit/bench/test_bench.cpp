// Tests for `argus bench` with a fake verifier: a shell script that sources the
// task's "C file", which here is a shell snippet printing canned JSON,
// sleeping, crashing, spinning or allocating.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <csignal>

#include "bench.h"
#include "bench_manifest.h"
#include "bench_outcome.h"
#include "task_file.h"

namespace fs = std::filesystem;
using argus::cli::runBench;
using namespace argus::cli::bench;
using nlohmann::json;

namespace {

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeFile(const fs::path& p, const std::string& text, bool exec = false) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  if (exec) fs::permissions(p, fs::perms::owner_all, fs::perm_options::add);
}

std::string manifestError(const std::string& text) {
  try {
    parseManifest(text, "/base", "M.tsv", false);
  } catch (const ManifestError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kHeader = "task\tfile\tcategory\tsource\tproperty\texpected\tdata_model\tnotes\n";

// ---- manifest ---------------------------------------------------------------

TEST(BenchManifest, ParsesGoodManifest) {
  std::string text =
      "\xEF\xBB\xBF"
      "expected\tTask\tfile\tdata_model\tcategory\r\n"
      "# a comment\n"
      "\n"
      "TRUE\tsv/a\ttasks/x/../a.c\tILP32\tsv-x\r\n"
      "false\tesbmc/b\t/abs/b.c\tlp64\tesbmc-y\n";
  Manifest m = parseManifest(text, "/base", "M.tsv", false);
  ASSERT_EQ(m.tasks.size(), 2u);
  EXPECT_EQ(m.tasks[0].id, "sv/a");
  EXPECT_EQ(m.tasks[0].file, "/base/tasks/a.c");
  EXPECT_TRUE(m.tasks[0].expectedSafe);
  EXPECT_EQ(m.tasks[0].dataModel, "ILP32");
  EXPECT_EQ(m.tasks[0].category, "sv-x");
  EXPECT_EQ(m.tasks[0].line, 4);
  EXPECT_EQ(m.tasks[1].file, "/abs/b.c");
  EXPECT_FALSE(m.tasks[1].expectedSafe);
  EXPECT_EQ(m.tasks[1].dataModel, "LP64");
}

TEST(BenchManifest, ReportsErrors) {
  EXPECT_NE(manifestError("task\tfile\tdata_model\nt\tf.c\tLP64\n").find("missing column 'expected'"),
            std::string::npos);
  EXPECT_NE(manifestError(kHeader + "t\tf.c\tc\ts\tunreach-call\tyes\tLP64\tn\n")
                .find("M.tsv:2: bad expected value 'yes'"),
            std::string::npos);
  EXPECT_NE(manifestError(kHeader + "t\tf.c\tc\ts\tunreach-call\ttrue\tLLP64\tn\n").find("data_model"),
            std::string::npos);
  EXPECT_NE(manifestError(kHeader + "t\tf.c\tc\ts\tunreach-call\ttrue\tLP64\tn\textra\n")
                .find("expected 8 tab-separated fields"),
            std::string::npos);
  EXPECT_NE(manifestError(kHeader + "t\tf.c\tc\ts\tunreach-call\ttrue\tLP64\tn\n" +
                          "t\tg.c\tc\ts\tunreach-call\ttrue\tLP64\tn\n")
                .find("M.tsv:3: duplicate task id 't'"),
            std::string::npos);
  // properties other than reachability (issue 26): any `argus verify --property` knows
  EXPECT_NE(manifestError(kHeader + "t\tf.c\tc\ts\tvalid-nonsense\ttrue\tLP64\tn\n")
                .find("unknown property 'valid-nonsense'"),
            std::string::npos);
  EXPECT_NE(manifestError(kHeader + "t\tf.c\tc\ts\tno-overflow\tfalse(no-overflow\tLP64\tn\n")
                .find("bad expected value"),
            std::string::npos);
  EXPECT_NE(manifestError(kHeader).find("no tasks"), std::string::npos);
  EXPECT_NE(manifestError("").find("empty manifest"), std::string::npos);
  // A short row (fewer fields) is fine as long as the required ones are there.
  EXPECT_EQ(manifestError("task\tfile\texpected\tdata_model\tnotes\nt\tf.c\ttrue\tLP64\n"),
            "(no error)");
}

TEST(BenchManifest, PropertiesAndSubproperties) {
  Manifest m = parseManifest(kHeader + "a\tf.c\tc\ts\tvalid-memsafety\tfalse(valid-deref)\tLP64\tn\n" +
                                 "b\tf.c\tc\ts\tno-overflow\ttrue\tILP32\tn\n" +
                                 "c\tf.c\tc\ts\tunreach-call\tfalse(unreach-call)\tLP64\tn\n",
                             "/nonexistent", "M", false);
  ASSERT_EQ(m.tasks.size(), 3u);
  EXPECT_EQ(m.tasks[0].property, "valid-memsafety");
  EXPECT_FALSE(m.tasks[0].expectedSafe);
  EXPECT_EQ(m.tasks[0].expectedViolation, "valid-deref");
  EXPECT_EQ(m.tasks[1].property, "no-overflow");
  EXPECT_TRUE(m.tasks[1].expectedSafe);
  EXPECT_EQ(m.tasks[2].property, "");  // reachability: nothing passed on
  EXPECT_FALSE(m.tasks[2].expectedSafe);
  EXPECT_EQ(m.tasks[2].expectedViolation, "");
}

TEST(BenchManifest, MissingFiles) {
  EXPECT_THROW(loadManifest("/nonexistent/MANIFEST.tsv"), ManifestError);
  try {
    parseManifest(kHeader + "t\tnope.c\tc\ts\tunreach-call\ttrue\tLP64\tn\n", "/nonexistent", "M",
                  true);
    FAIL() << "no error";
  } catch (const ManifestError& e) {
    EXPECT_NE(std::string(e.what()).find("file not found: /nonexistent/nope.c"), std::string::npos);
  }
}

// ---- SV-COMP task definitions (argus verify TASK.yml, argus bench DIR) ----------

class TaskFiles : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    std::string base = (fs::temp_directory_path() / "argus_tasks_XXXXXX").string();
    ASSERT_NE(::mkdtemp(base.data()), nullptr);
    dir = base;
    writeFile(dir / "properties/valid-memsafety.prp",
              "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\n"
              "CHECK( init(main()), LTL(G valid-memtrack) )\n");
    writeFile(dir / "properties/unreach-call.prp", "CHECK( init(main()), LTL(G ! call(reach_error())) )\n");
    writeFile(dir / "properties/termination.prp", "CHECK( init(main()), LTL(F end) )\n");
    writeFile(dir / "c/list.c", "int main(void) { return 0; }\n");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string task(const std::string& name, const std::string& text) {
    writeFile(dir / "c" / name, text);
    return (dir / "c" / name).string();
  }
  std::string error(const std::string& yml) {
    try {
      argus::cli::loadTaskFile(yml);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_F(TaskFiles, ReadsFormat2) {
  std::string y = task("list.yml",
                       "format_version: '2.0'\n"
                       "# a comment\n"
                       "input_files: 'list.c'\n"
                       "unknown_key: [1, 2]\n"
                       "properties:\n"
                       "  - property_file: ../properties/termination.prp\n"
                       "    expected_verdict: true\n"
                       "  - property_file: ../properties/valid-memsafety.prp\n"
                       "    expected_verdict: false\n"
                       "    subproperty: valid-memtrack\n"
                       "  - property_file: ../properties/unreach-call.prp\n"
                       "    expected_verdict: true\n"
                       "  - property_file: ../properties/no-overflow.prp\n"
                       "    expected_verdict: false\n"
                       "options:\n"
                       "  language: C\n"
                       "  data_model: ILP32\n");
  argus::cli::TaskFile t = argus::cli::loadTaskFile(y);
  EXPECT_EQ(t.inputFile, (dir / "c/list.c").string());
  EXPECT_EQ(t.dataModel, "ILP32");
  ASSERT_EQ(t.properties.size(), 3u);  // termination is skipped with a note
  EXPECT_EQ(t.properties[0].property, "valid-memsafety");  // the .prp relative to the yml
  EXPECT_EQ(t.properties[0].file, (dir / "properties/valid-memsafety.prp").string());
  EXPECT_FALSE(t.properties[0].expectedSafe);
  EXPECT_EQ(t.properties[0].expectedViolation, "valid-memtrack");
  EXPECT_EQ(t.properties[0].expectedText(), "false(valid-memtrack)");
  EXPECT_EQ(t.properties[1].property, "unreach-call");
  EXPECT_EQ(t.properties[1].expectedText(), "true");
  // no-overflow.prp is not there: identified by its name, with a note; a `false` of a
  // property without subproperties must name the property itself
  EXPECT_EQ(t.properties[2].property, "no-overflow");
  EXPECT_EQ(t.properties[2].expectedText(), "false(no-overflow)");
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_NE(t.notes[0].find("termination.prp skipped"), std::string::npos) << t.notes[0];
  EXPECT_NE(t.notes[1].find("no-overflow.prp not found"), std::string::npos) << t.notes[1];
}

TEST_F(TaskFiles, InputErrors) {
  auto props = "properties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: true\n";
  EXPECT_NE(error(task("a.yml", std::string("input_files: 'gone.c'\n") + props)).find("input file not found: " + (dir / "c/gone.c").string()),
            std::string::npos);
  EXPECT_NE(error(task("b.yml", std::string("input_files: ['list.c', 'list.c']\n") + props)).find("one file"), std::string::npos);
  EXPECT_NE(error(task("c.yml", "input_files: 'list.c'\n")).find("no properties"), std::string::npos);
  EXPECT_NE(error(task("d.yml", std::string("input_files: 'list.c'\n") + props + "options:\n  language: Java\n")).find("language Java"),
            std::string::npos);
  EXPECT_NE(error(task("e.yml", "input_files: 'list.c'\nproperties:\n  - property_file: ../properties/termination.prp\n"))
                .find("none of its properties"),
            std::string::npos);
  EXPECT_NE(error(task("f.yml", "input_files: 'list.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n"
                                "    expected_verdict: maybe\n")).find("bad expected_verdict"),
            std::string::npos);
  EXPECT_NE(error((dir / "c/none.yml").string()).find("cannot read"), std::string::npos);
  EXPECT_EQ(error(task("g.yml", std::string("input_files: 'list.c'\n") + props)), "(no error)");
}

TEST_F(TaskFiles, BenchManifestOfAFolder) {
  task("a.yml",
       "input_files: 'list.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: false\n"
       "options:\n  data_model: ILP32\n");
  task("sub/b.yml",
       "input_files: '../list.c'\nproperties:\n  - property_file: ../../properties/valid-memsafety.prp\n"
       "    expected_verdict: false\n    subproperty: valid-free\n"
       "  - property_file: ../../properties/unreach-call.prp\n    expected_verdict: true\n"
       "  - property_file: ../../properties/no-overflow.prp\n");  // no expected verdict: not a task
  Manifest m = argus::cli::manifestOfTaskFiles({(dir / "c").string()});
  ASSERT_EQ(m.tasks.size(), 3u);
  EXPECT_EQ(m.tasks[0].id, "a");
  EXPECT_EQ(m.tasks[0].property, "");  // reachability: nothing passed on
  EXPECT_FALSE(m.tasks[0].expectedSafe);
  EXPECT_EQ(m.tasks[0].expectedViolation, "");
  EXPECT_EQ(m.tasks[0].dataModel, "ILP32");
  EXPECT_EQ(m.tasks[1].id, "sub/b:valid-memsafety");
  EXPECT_EQ(m.tasks[1].property, "valid-memsafety");
  EXPECT_EQ(m.tasks[1].expectedViolation, "valid-free");
  EXPECT_EQ(m.tasks[1].dataModel, "LP64");  // Argus's default when the yml names none
  EXPECT_EQ(m.tasks[1].file, (dir / "c/list.c").string());
  EXPECT_EQ(m.tasks[2].id, "sub/b:unreach-call");
  EXPECT_TRUE(m.tasks[2].expectedSafe);
  // a broken yml among them: every problem listed
  task("z.yml", "input_files: 'nope.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n");
  EXPECT_THROW(argus::cli::manifestOfTaskFiles({(dir / "c").string()}), ManifestError);
  EXPECT_THROW(argus::cli::manifestOfTaskFiles({(dir / "empty-folder-that-is-not-there.tsv").string(), (dir / "c/a.yml").string()}),
               ManifestError);
}

TEST(BenchOutcome, Classification) {
  EXPECT_EQ(classify(Verdict::True, true), Classification::CorrectTrue);
  EXPECT_EQ(classify(Verdict::False, false), Classification::CorrectFalse);
  EXPECT_EQ(classify(Verdict::True, false), Classification::WrongTrue);
  EXPECT_EQ(classify(Verdict::False, true), Classification::WrongFalse);
  EXPECT_EQ(classify(Verdict::Unknown, true), Classification::Unknown);
  // SV-COMP: a false with another subproperty than the expected one is wrong
  EXPECT_EQ(classify(Verdict::False, false, "valid-deref", "valid-deref"), Classification::CorrectFalse);
  EXPECT_EQ(classify(Verdict::False, false, "valid-deref", "valid-free"), Classification::WrongFalse);
  EXPECT_EQ(classify(Verdict::False, false, "no-overflow", ""), Classification::WrongFalse);
  EXPECT_EQ(classify(Verdict::False, false, "", "div-by-zero"), Classification::WrongFalse);
  EXPECT_EQ(classify(Verdict::False, true, "", "no-overflow"), Classification::WrongFalse);
  ChildResult r;
  r.started = r.exited = true;
  r.out = R"({"verdict":"true"})";
  r.exitCode = 1;
  EXPECT_EQ(evaluateChild(r, {}).verdict, Verdict::Unknown);  // verdict only with exit 0
  r.exitCode = 0;
  EXPECT_EQ(evaluateChild(r, {}).verdict, Verdict::True);
}

TEST(BenchOutcome, KeepsTheCondition) {
  ChildResult r;
  r.started = r.exited = true;
  r.exitCode = 0;
  r.out = R"({"verdict":"unknown","reason":"timeout","condition":{"kind":"assumption","summary":"verified except: x",
             "automaton_initial":"restricted","automaton_states":7,"bound":2,
             "excluded":["a","b","c","d"],"assumptions":["ignored"]}})";
  Outcome o = evaluateChild(r, {});
  EXPECT_EQ(o.verdict, Verdict::Unknown);
  ASSERT_TRUE(o.condition.is_object());
  EXPECT_EQ(o.condition["automaton_initial"], "restricted");
  EXPECT_EQ(o.condition["automaton_states"], 7);
  EXPECT_EQ(o.condition["bound"], 2);
  EXPECT_EQ(o.condition["summary"], "verified except: x");
  EXPECT_EQ(o.condition["excluded"].size(), 3u);  // the first few only
  EXPECT_EQ(o.condition["excluded_count"], 4);
  EXPECT_FALSE(o.condition.contains("assumptions"));
  r.out = R"({"verdict":"true"})";
  EXPECT_TRUE(evaluateChild(r, {}).condition.is_null());
}

// ---- runs with a fake verifier ---------------------------------------------

struct Row {
  std::string id, script, category;
  bool safe;
  std::string dataModel = "LP64";
};

class BenchRun : public ::testing::Test {
 protected:
  fs::path dir;

  void SetUp() override {
    std::string base = (fs::temp_directory_path() / "argus_bench_XXXXXX").string();
    ASSERT_NE(::mkdtemp(base.data()), nullptr);
    dir = base;
    writeFile(dir / "fake.sh",
              "#!/bin/sh\n"
              "# fake `argus verify FILE ...`: record the arguments, run FILE as a script\n"
              "f=\"$2\"\n"
              "printf '%s\\n' \"$@\" > \"$f.args\"\n"
              ". \"$f\"\n",
              true);
    ::setenv("ARGUS_BENCH_VERIFIER", (dir / "fake.sh").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("ARGUS_BENCH_VERIFIER");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  std::string manifest(const std::vector<Row>& rows) {
    std::string text = kHeader;
    for (const Row& r : rows) {
      std::string file = "tasks/" + r.id + ".c";
      writeFile(dir / file, r.script + "\n");
      text += r.id + "\t" + file + "\t" + (r.category.empty() ? "cat" : r.category) +
              "\tsrc\tunreach-call\t" + (r.safe ? "true" : "false") + "\t" + r.dataModel + "\tn\n";
    }
    writeFile(dir / "MANIFEST.tsv", text);
    return (dir / "MANIFEST.tsv").string();
  }

  int bench(std::vector<std::string> args) {
    args.push_back("--out");
    args.push_back((dir / "results.json").string());
    return runBench(args, "/nonexistent/argus");
  }

  json results() { return json::parse(readFile(dir / "results.json")); }

  static const json& task(const json& res, const std::string& id) {
    for (const json& t : res["tasks"])
      if (t["task"] == id) return t;
    static const json none;
    ADD_FAILURE() << "no result for " << id;
    return none;
  }
};

const char* kTrue = R"(echo '{"verdict": "true", "stats": {"cpu_time_s": 0.1}}')";
const char* kFalse = R"(echo 'some log line'; echo '{"verdict": "false", "stats": {}}')";

TEST_F(BenchRun, BadInputExits2) {
  std::string m = manifest({{"a", kTrue, "", true}});
  EXPECT_EQ(bench({m, "--bogus"}), 2);
  EXPECT_EQ(bench({}), 2);
  EXPECT_EQ(bench({m, "--jobs", "0"}), 2);
  EXPECT_EQ(bench({m, "--solver", "yices"}), 2);
  EXPECT_EQ(bench({m, "--timeout"}), 2);
  EXPECT_EQ(bench({m, "--timeout", "abc"}), 2);
  EXPECT_EQ(bench({m, m}), 2);
  EXPECT_EQ(bench({m, "--filter", "no-such-task"}), 2);
  EXPECT_EQ(bench({(dir / "missing.tsv").string()}), 2);
  writeFile(dir / "bad.tsv", kHeader + "a\ttasks/a.c\tc\ts\tunreach-call\tmaybe\tLP64\tn\n");
  EXPECT_EQ(bench({(dir / "bad.tsv").string()}), 2);
  writeFile(dir / "nofile.tsv", kHeader + "a\ttasks/zz.c\tc\ts\tunreach-call\ttrue\tLP64\tn\n");
  EXPECT_EQ(bench({(dir / "nofile.tsv").string()}), 2);
  EXPECT_EQ(runBench({m, "--help"}, "/nonexistent"), 0);
  EXPECT_FALSE(fs::exists(dir / "results.json"));
}

TEST_F(BenchRun, ClassifiesVerdictsAndWritesResults) {
  std::string m = manifest({
      {"sv/ok_true", kTrue, "sv-loops", true, "ILP32"},
      {"sv/ok_false", kFalse, "sv-loops", false},
      {"cpa/wrong_true", kTrue, "cpa-simple", false},
      {"cpa/wrong_false", kFalse, "cpa-simple", true},
      {"cpa/unk", R"(echo '{"verdict":"unknown","reason":"solver unknown"}')", "cpa-simple", true},
  });
  testing::internal::CaptureStdout();
  int rc = bench({m, "--algorithm", "kind", "--solver", "cvc5", "--timeout", "7"});
  std::string out = testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0);

  json res = results();
  EXPECT_EQ(res["manifest"], m);
  EXPECT_EQ(res["algorithm"], "kind");
  EXPECT_EQ(res["solver"], "cvc5");
  EXPECT_EQ(res["timeout_s"], 7);
  EXPECT_EQ(res["jobs"], 1);
  ASSERT_EQ(res["tasks"].size(), 5u);
  const json& t0 = res["tasks"][0];  // manifest order
  EXPECT_EQ(t0["task"], "sv/ok_true");
  EXPECT_EQ(t0["file"], (dir / "tasks/sv/ok_true.c").string());
  EXPECT_EQ(t0["expected"], "true");
  EXPECT_EQ(t0["verdict"], "true");
  EXPECT_EQ(t0["result"], "correct_true");
  EXPECT_EQ(t0["reason"], "");
  for (const char* k : {"cpu_time_s", "wall_time_s", "memory_mb"}) EXPECT_TRUE(t0[k].is_number());
  EXPECT_EQ(task(res, "sv/ok_false")["result"], "correct_false");
  EXPECT_EQ(task(res, "cpa/wrong_true")["result"], "wrong_true");
  EXPECT_EQ(task(res, "cpa/wrong_false")["result"], "wrong_false");
  EXPECT_EQ(task(res, "cpa/unk")["verdict"], "unknown");
  EXPECT_EQ(task(res, "cpa/unk")["reason"], "solver unknown");

  const json& s = res["summary"];
  EXPECT_EQ(s["total"], 5);
  EXPECT_EQ(s["correct_true"], 1);
  EXPECT_EQ(s["correct_false"], 1);
  EXPECT_EQ(s["wrong_true"], 1);
  EXPECT_EQ(s["wrong_false"], 1);
  EXPECT_EQ(s["unknown"], 1);
  EXPECT_TRUE(s["cpu_time_s"].is_number());
  EXPECT_TRUE(s["wall_time_s"].is_number());

  // The verifier got the documented command line.
  std::string args = readFile(dir / "tasks/sv/ok_true.c.args");
  EXPECT_EQ(args, "verify\n" + (dir / "tasks/sv/ok_true.c").string() +
                      "\n--format\njson\n--timeout\n7\n--data-model\nILP32\n--algorithm\nkind\n"
                      "--solver\ncvc5\n");

  // Tables and the list of wrong verdicts.
  EXPECT_NE(out.find("correct true"), std::string::npos) << out;
  EXPECT_NE(out.find("sv-loops"), std::string::npos) << out;
  EXPECT_NE(out.find("cpa-simple"), std::string::npos) << out;
  EXPECT_NE(out.find("wrong verdicts: 2"), std::string::npos) << out;
  EXPECT_NE(out.find("WRONG TRUE   cpa/wrong_true"), std::string::npos) << out;
  EXPECT_NE(out.find("WRONG FALSE  cpa/wrong_false"), std::string::npos) << out;
}

TEST_F(BenchRun, TaskDefinitions) {
  writeFile(dir / "props/valid-memsafety.prp",
            "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\n"
            "CHECK( init(main()), LTL(G valid-memtrack) )\n");
  writeFile(dir / "yml/right.c", R"(echo '{"verdict": "false", "violated_property": "valid-free", "stats": {}}')" "\n");
  writeFile(dir / "yml/wrongsub.c", R"(echo '{"verdict": "false", "violated_property": "valid-deref", "stats": {}}')" "\n");
  for (const char* n : {"right", "wrongsub"})
    writeFile(dir / "yml" / (std::string(n) + ".yml"),
              std::string("format_version: '2.0'\ninput_files: '") + n + ".c'\nproperties:\n"
              "  - property_file: ../props/valid-memsafety.prp\n    expected_verdict: false\n    subproperty: valid-free\n"
              "options:\n  language: C\n  data_model: ILP32\n");
  testing::internal::CaptureStdout();
  int rc = bench({(dir / "yml").string()});
  testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0);
  json res = results();
  EXPECT_EQ(task(res, "right")["result"], "correct_false");
  EXPECT_EQ(task(res, "wrongsub")["result"], "wrong_false");  // the wrong subproperty (SV-COMP)
  std::string args = readFile(dir / "yml/right.c.args");
  EXPECT_NE(args.find("--data-model\nILP32\n"), std::string::npos) << args;
  EXPECT_NE(args.find("--property\nvalid-memsafety\n"), std::string::npos) << args;
  // one yml by name, and a yml beside a folder
  EXPECT_EQ(bench({(dir / "yml/right.yml").string()}), 0);
  EXPECT_EQ(results()["tasks"].size(), 1u);
  EXPECT_EQ(bench({(dir / "yml/right.yml").string(), (dir / "yml/wrongsub.yml").string()}), 0);
  EXPECT_EQ(results()["tasks"].size(), 2u);
}

TEST_F(BenchRun, FailingChildrenAreUnknown) {
  std::string m = manifest({
      {"crash", "kill -SEGV $$", "", true},
      {"badjson", "echo 'this is {not json'", "", true},
      {"empty", ":", "", true},
      {"exit3", "echo 'error: cannot parse file.c:3' >&2; exit 3", "", true},
      {"badverdict", R"(echo '{"verdict": "maybe"}')", "", true},
      {"noverdict", R"(echo '{"stats": {}}')", "", true},
      {"json_then_exit1", R"(echo '{"verdict": "true"}'; exit 1)", "", true},
      {"oom", std::string("exec ") + BENCH_ALLOC_HELPER, "", true},
  });
  ASSERT_EQ(bench({m, "--jobs", "2", "--memory-mb", "100"}), 0);
  json res = results();
  ASSERT_EQ(res["tasks"].size(), 8u);
  for (const json& t : res["tasks"]) {
    EXPECT_EQ(t["verdict"], "unknown") << t.dump();
    EXPECT_EQ(t["result"], "unknown") << t.dump();
  }
  auto reason = [&](const char* id) { return task(res, id)["reason"].get<std::string>(); };
  EXPECT_EQ(reason("crash"), "crashed: signal 11 (SIGSEGV)");
  EXPECT_EQ(reason("badjson").rfind("invalid output:", 0), 0u) << reason("badjson");
  EXPECT_EQ(reason("empty"), "invalid output: empty output");
  EXPECT_EQ(reason("exit3"), "exit code 3: error: cannot parse file.c:3");
  EXPECT_EQ(reason("badverdict").rfind("invalid output:", 0), 0u);
  EXPECT_EQ(reason("noverdict").rfind("invalid output:", 0), 0u);
  EXPECT_EQ(reason("json_then_exit1"), "exit code 1");
  EXPECT_EQ(reason("oom"), "out of memory");
  EXPECT_EQ(res["summary"]["unknown"], 8);
}

bool processGone(const std::string& pid) {
  std::string stat = readFile("/proc/" + pid + "/stat");
  if (stat.empty()) return true;
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

TEST_F(BenchRun, TimeoutsKillTheChildGroup) {
  std::string m = manifest({
      {"sleeper", "sleep 30 & echo $! > \"$f.pid\"; wait", "", true},
      {"spinner", "while :; do :; done", "", false},
  });
  auto start = std::chrono::steady_clock::now();
  // --algorithm bmc: one core per task (the default, auto, takes two)
  ASSERT_EQ(bench({m, "--timeout", "1", "--grace", "1", "--jobs", "2", "--algorithm", "bmc"}), 0);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed, 6.0);
  json res = results();
  for (const char* id : {"sleeper", "spinner"}) {
    const json& t = task(res, id);
    EXPECT_EQ(t["verdict"], "unknown");
    EXPECT_NE(t["reason"].get<std::string>().find("timeout"), std::string::npos) << t.dump();
  }
  EXPECT_EQ(task(res, "sleeper")["reason"], "timeout (wall-clock limit)");
  EXPECT_GE(task(res, "sleeper")["wall_time_s"].get<double>(), 2.9);
  std::string pid = readFile(dir / "tasks/sleeper.c.pid");
  pid.erase(pid.find_last_not_of("\n") + 1);
  ASSERT_FALSE(pid.empty());
  // The background `sleep` (a grandchild) was killed with the process group.
  for (int i = 0; i < 20 && !processGone(pid); ++i) ::usleep(50000);
  EXPECT_TRUE(processGone(pid)) << "sleep " << pid << " survived";
}

TEST_F(BenchRun, JobsRunConcurrently) {
  const char* s = R"(sleep 1; echo '{"verdict": "true"}')";
  std::string m = manifest({{"a", s, "", true}, {"b", s, "", true}});
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(bench({m, "--jobs", "2", "--algorithm", "bmc"}), 0);  // one core per task
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed, 1.8);
  json res = results();
  EXPECT_EQ(res["summary"]["correct_true"], 2);
  EXPECT_GE(task(res, "a")["wall_time_s"].get<double>(), 0.95);
  EXPECT_EQ(res["jobs"], 2);
}

TEST_F(BenchRun, JobsCountTheCoresOfAParallelStrategy) {
  // auto (the default) runs k-induction and predicate abstraction in two processes:
  // --jobs 2 fills the two cores with one task; --jobs 4 runs two tasks at once
  const char* s = R"(sleep 1; echo '{"verdict": "true"}')";
  std::string m = manifest({{"a", s, "", true}, {"b", s, "", true}});
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(bench({m, "--jobs", "2"}), 0);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(elapsed, 1.9);
  EXPECT_EQ(results()["algorithm"], "auto");
  start = std::chrono::steady_clock::now();
  ASSERT_EQ(bench({m, "--jobs", "4", "--algorithm", "auto"}), 0);
  elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed, 1.8);
}

TEST_F(BenchRun, InterruptKillsChildrenAndWritesPartialResults) {
  const char* s = "sleep 30";
  std::string m = manifest({{"a", s, "", true}, {"b", s, "", true}, {"c", s, "", true}});
  std::thread interrupter([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(::getpid(), SIGINT);  // runBench's handler is installed while it runs
  });
  auto start = std::chrono::steady_clock::now();
  int rc = bench({m});
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  interrupter.join();
  EXPECT_EQ(rc, 130);
  EXPECT_LT(elapsed, 3.0);
  json res = results();
  EXPECT_EQ(res["interrupted"], true);
  ASSERT_EQ(res["tasks"].size(), 1u);
  EXPECT_EQ(res["tasks"][0]["reason"], "interrupted");
  EXPECT_EQ(res["summary"]["not_run"], 2);
}

TEST_F(BenchRun, CheckpointKeepsFinishedTasksWhileTheRunGoesOn) {
  // a finishes at once, b runs for 30 s: before b ends, results.json already holds a
  std::string m = manifest({{"a", kTrue, "", true}, {"b", "sleep 30", "", true}});
  const fs::path file = dir / "results.json";
  json seen;
  std::thread watcher([&] {
    for (int i = 0; i < 200 && seen.is_null(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      std::error_code ec;
      if (!fs::exists(file, ec)) continue;
      json j = json::parse(readFile(file), nullptr, false);  // never half written
      if (!j.is_discarded() && j.is_object() && j.value("in_progress", false)) seen = j;
    }
    ::kill(::getpid(), SIGINT);
  });
  int rc = bench({m, "--jobs", "1"});
  watcher.join();
  EXPECT_EQ(rc, 130);
  ASSERT_FALSE(seen.is_null()) << "no checkpoint while b was running";
  ASSERT_EQ(seen["tasks"].size(), 1u);
  EXPECT_EQ(seen["tasks"][0]["task"], "a");
  EXPECT_EQ(seen["tasks"][0]["result"], "correct_true");
  EXPECT_EQ(seen["summary"]["not_run"], 1);
  json last = results();
  EXPECT_EQ(last["in_progress"], false);
  EXPECT_EQ(last["interrupted"], true);
  EXPECT_FALSE(fs::exists(dir / "results.json.part"));
}

TEST_F(BenchRun, FilterAndLimit) {
  std::string m = manifest({{"sv/loops/a", kTrue, "", true},
                            {"sv/loops/b", kTrue, "", true},
                            {"cpa/x", kTrue, "", true}});
  ASSERT_EQ(bench({m, "--filter", "loops"}), 0);
  EXPECT_EQ(results()["summary"]["total"], 2);
  ASSERT_EQ(bench({m, "--filter", "loops", "--limit", "1"}), 0);
  ASSERT_EQ(results()["tasks"].size(), 1u);
  EXPECT_EQ(results()["tasks"][0]["task"], "sv/loops/a");
  ASSERT_EQ(bench({m, "--filter=cpa", "--filter", "loops/b"}), 0);
  EXPECT_EQ(results()["summary"]["total"], 2);
  EXPECT_EQ(results()["summary"]["correct_true"], 2);
}

TEST_F(BenchRun, DefaultVerifierIsArgusExe) {
  std::string m = manifest({{"a", kTrue, "", true}});
  ::unsetenv("ARGUS_BENCH_VERIFIER");
  ASSERT_EQ(runBench({m, "--out", (dir / "results.json").string()}, (dir / "fake.sh").string()), 0);
  EXPECT_EQ(results()["summary"]["correct_true"], 1);
  EXPECT_EQ(results()["verifier"], (dir / "fake.sh").string());
  EXPECT_EQ(runBench({m, "--out", (dir / "r2.json").string()}, (dir / "nope").string()), 2);
}

}  // namespace
