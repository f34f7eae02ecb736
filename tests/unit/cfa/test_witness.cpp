// The SV-COMP witness writer (core/result/witness.h) and SHA-256 (core/support/sha256.h):
// known digests, YAML quoting, the invariant filter, and the waypoints a counterexample
// gives. Schema validity and the CLI are tested by tests/e2e/witness.test.mjs.
#include <gtest/gtest.h>

#include "core/result/witness.h"
#include "core/result/yaml.h"
#include "core/support/sha256.h"

using namespace argus::result;

namespace {

TEST(Sha256, KnownDigests) {  // FIPS 180-4 examples and padding edge cases
  EXPECT_EQ(argus::support::sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(argus::support::sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(argus::support::sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(argus::support::sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(argus::support::sha256Hex(std::string(55, 'a')),  // 55 + 1 + 8 = 64: one block
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(argus::support::sha256Hex(std::string(56, 'a')),  // needs a second padding block
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

TEST(Witness, QuotesYamlScalars) {
  EXPECT_EQ(yamlQuote("x"), "\"x\"");
  EXPECT_EQ(yamlQuote("\\result == -1"), "\"\\\\result == -1\"");
  EXPECT_EQ(yamlQuote("a\"b\nc"), "\"a\\\"b\\nc\"");
  EXPECT_EQ(yamlQuote(std::string("\x01", 1)), "\"\\x01\"");
}

TEST(Witness, InvariantsKeepOnlyTheProgramsNamesAndJoinContexts) {
  std::map<std::string, std::string> inv = {
      {"loop.c:7:3 in main", "0 <= x && 0 <= y && y <= 100 && __brk == 4096"},
      {"loop.c:9:5 in main", "true"},
      {"loop.c:12:3 in main", "false"},
      {"other.h:3:3 in f", "i <= 3"},                                     // another file
      {"loop.c:20:5 in g (called at line 30)", "0 <= k && k <= 4 && n@30 == 4"},
      {"loop.c:20:5 in g (called at line 31)", "0 <= k && k <= 8"},
      {"loop.c:25:5 in h (called at line 32)", "(x@32 <= 1 || x@32 >= 5)"},
  };
  std::vector<WitnessInvariant> w = witnessInvariants(inv, "loop.c");
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0].line, 7u);
  EXPECT_EQ(w[0].column, 3u);
  EXPECT_EQ(w[0].function, "main");
  EXPECT_EQ(w[0].value, "0 <= x && 0 <= y && y <= 100");  // __brk is Argus's, not the program's
  EXPECT_EQ(w[1].value, "1");
  EXPECT_EQ(w[2].value, "0");
  EXPECT_EQ(w[3].line, 20u);
  EXPECT_EQ(w[3].value, "(0 <= k && k <= 4) || (0 <= k && k <= 8)");  // both contexts, renamed n@30 dropped
  EXPECT_EQ(w[4].value, "1");                                          // nothing left but renamed names
}

VerificationResult violationResult() {
  VerificationResult r;
  r.verdict = Verdict::False;
  r.algorithm = "bmc";
  r.entryName = "main";
  Counterexample c;
  auto step = [](uint32_t line, uint32_t col, std::string stmt, bool nondet) {
    TraceStep s;
    s.file = "t.c";
    s.line = line;
    s.column = col;
    s.function = "main";
    s.statement = std::move(stmt);
    s.nondet = nondet;
    return s;
  };
  c.steps = {step(3, 11, "__VERIFIER_nondet_int()", true), step(3, 3, "int x = __VERIFIER_nondet_int();", false),
             step(4, 11, "__VERIFIER_nondet_uchar ( )", true), step(5, 16, "reach_error()", false)};
  c.inputs = {{"__VERIFIER_nondet_int", 0xfffffffbu, 32, true, "t.c", 3},
              {"__VERIFIER_nondet_uchar", 200, 8, false, "t.c", 4}};
  c.replayed = true;
  r.counterexample = c;
  return r;
}

const char* kSource =
    "int __VERIFIER_nondet_int(void); unsigned char __VERIFIER_nondet_uchar(void); void reach_error(void);\n"
    "int main(void) {\n"
    "  int x = __VERIFIER_nondet_int();\n"
    "  int y = __VERIFIER_nondet_uchar ( );\n"
    "  if (x < 0 && y > 100) reach_error();\n"
    "}\n";

TEST(Witness, ViolationHasAFunctionReturnPerInputAndTheTarget) {
  WitnessTask t{"t.c", kSource, "ILP32", {"argus", "verify", "t.c"}};
  std::optional<std::string> w = toWitness(violationResult(), t);
  ASSERT_TRUE(w);
  const std::string& y = *w;
  EXPECT_EQ(y.rfind("- entry_type: \"violation_sequence\"\n", 0), 0u) << y;
  EXPECT_NE(y.find("data_model: \"ILP32\""), std::string::npos) << y;
  EXPECT_NE(y.find("\"t.c\": \"" + argus::support::sha256Hex(kSource) + "\""), std::string::npos) << y;
  EXPECT_NE(y.find("specification: \"CHECK( init(main()), LTL(G ! call(reach_error())) )\""), std::string::npos);
  // the int's value is negative; its ')' is column 33 of line 3; the uchar call has spaces
  size_t a = y.find("value: \"\\\\result == -5\"");
  ASSERT_NE(a, std::string::npos) << y;
  EXPECT_NE(y.find("line: 3\n              column: 33\n", a), std::string::npos) << y;
  size_t b = y.find("value: \"\\\\result == 200\"");
  ASSERT_NE(b, std::string::npos) << y;
  EXPECT_NE(y.find("line: 4\n              column: 37\n", b), std::string::npos) << y;
  size_t target = y.find("type: \"target\"");
  ASSERT_NE(target, std::string::npos);
  EXPECT_GT(target, b);
  EXPECT_NE(y.find("line: 5\n              column: 16\n", target), std::string::npos) << y;
  EXPECT_EQ(y.find("type: \"target\"", target + 1), std::string::npos);  // one target
}

TEST(Witness, NoneForUnknownAndAnInvariantSetForTrue) {
  WitnessTask t{"t.c", kSource, "LP64", {}};
  VerificationResult u;
  EXPECT_FALSE(toWitness(u, t));
  VerificationResult p;
  p.verdict = Verdict::True;
  p.invariant["t.c:3:3 in main"] = "0 <= x && x <= 5";
  std::optional<std::string> w = toWitness(p, t);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->rfind("- entry_type: \"invariant_set\"\n", 0), 0u);
  EXPECT_NE(w->find("type: \"loop_invariant\""), std::string::npos);
  EXPECT_NE(w->find("value: \"0 <= x && x <= 5\"\n        format: \"c_expression\""), std::string::npos) << *w;
  p.invariant.clear();
  EXPECT_NE(toWitness(p, t)->find("  content: []\n"), std::string::npos);
}

}  // namespace

namespace {

TEST(YamlSubset, ReadsWhatTheWriterWritesAndCommonStyles) {
  WitnessTask t{"t.c", kSource, "ILP32", {"argus", "verify", "t.c"}};
  nlohmann::json doc = parseYamlSubset(*toWitness(violationResult(), t));
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 1u);
  EXPECT_EQ(doc[0]["entry_type"], "violation_sequence");
  EXPECT_EQ(doc[0]["metadata"]["task"]["input_files"][0], "t.c");
  const auto& content = doc[0]["content"];
  ASSERT_EQ(content.size(), 3u);
  EXPECT_EQ(content[0]["segment"][0]["waypoint"]["constraint"]["value"], "\\result == -5");
  EXPECT_EQ(content[0]["segment"][0]["waypoint"]["location"]["line"], 3);
  EXPECT_EQ(content[2]["segment"][0]["waypoint"]["type"], "target");

  // what other writers produce: plain scalars, folded long lines, comments, sequences at
  // the key's indentation, single quotes, flow lists
  nlohmann::json d = parseYamlSubset(
      "---\n"
      "- entry_type: invariant_set  # a comment\n"
      "  metadata:\n"
      "    producer:\n"
      "      command_line: argus verify /a/very/long/path.c --algorithm kind\n"
      "        --witness-out w.yml\n"
      "    note: \"a quoted text that goes\n"
      "      on\"\n"
      "    input_files: [a.c, 'b''s.c']\n"
      "    empty: []\n"
      "  content:\n"
      "  - invariant:\n"
      "      value: 'x >= 0 # not a comment'\n"
      "      line: 12\n");
  EXPECT_EQ(d[0]["metadata"]["producer"]["command_line"], "argus verify /a/very/long/path.c --algorithm kind --witness-out w.yml");
  EXPECT_EQ(d[0]["metadata"]["note"], "a quoted text that goes on");
  EXPECT_EQ(d[0]["metadata"]["input_files"], nlohmann::json::array({"a.c", "b's.c"}));
  EXPECT_TRUE(d[0]["metadata"]["empty"].is_array());
  EXPECT_EQ(d[0]["content"][0]["invariant"]["value"], "x >= 0 # not a comment");
  EXPECT_EQ(d[0]["content"][0]["invariant"]["line"], 12);
  EXPECT_THROW(parseYamlSubset("a: &x 1\n"), std::runtime_error);
  EXPECT_THROW(parseYamlSubset("a: |\n  text\n"), std::runtime_error);
  EXPECT_THROW(parseYamlSubset("a: 1\na: 2\n"), std::runtime_error);
}

}  // namespace
