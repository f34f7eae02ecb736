#include <gtest/gtest.h>

#include "common.h"
#include "core/result/codec.h"
#include "server/service/redis_store.h"
#include "server/service/store.h"

namespace argus::server {
namespace {

TEST(ResultStore, PersistsAcrossReopen) {
  test::TempDir dir;
  std::string path = (dir.path / "sub" / "r.sqlite").string();
  {
    SqliteStore s(path);
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_FALSE(s.get("k1"));
    s.put("k1", "v1");
    s.put("k2", "v2");
    s.put("k1", "v1b");
    EXPECT_EQ(s.size(), 2u);
  }
  SqliteStore again(path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.get("k1").value_or(""), "v1b");
  EXPECT_EQ(again.get("k2").value_or(""), "v2");
  EXPECT_FALSE(again.get("k3"));
}

TEST(ResultStore, UnopenableStoreDegradesWithAnError) {
  SqliteStore s("/proc/definitely/not/writable/r.sqlite");
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.error().empty());
  s.put("a", "b");  // no crash, no effect
  EXPECT_FALSE(s.get("a"));
}

TEST(RedisUrl, ParsesHostPortDbAndUser) {
  RedisConfig c = parseRedisUrl("redis://127.0.0.1:6380/3");
  EXPECT_EQ(c.host, "127.0.0.1");
  EXPECT_EQ(c.port, 6380);
  EXPECT_EQ(c.db, 3);
  EXPECT_EQ(c.user, "");
  c = parseRedisUrl("redis://argus@redis");
  EXPECT_EQ(c.host, "redis");
  EXPECT_EQ(c.port, 6379);
  EXPECT_EQ(c.db, 0);
  EXPECT_EQ(c.user, "argus");
  c = parseRedisUrl("redis://[::1]:7000/1");
  EXPECT_EQ(c.host, "::1");
  EXPECT_EQ(c.port, 7000);
  EXPECT_EQ(c.db, 1);
}

TEST(RedisUrl, RefusesPasswordsAndBadParts) {
  try {
    parseRedisUrl("redis://user:hunter2@127.0.0.1:6379/0");
    FAIL() << "a password in the URL was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).find("hunter2"), std::string::npos) << "the error repeats the password";
  }
  EXPECT_THROW(parseRedisUrl("http://127.0.0.1:6379"), std::invalid_argument);
  EXPECT_THROW(parseRedisUrl("redis://127.0.0.1:0"), std::invalid_argument);
  EXPECT_THROW(parseRedisUrl("redis://127.0.0.1:70000"), std::invalid_argument);
  EXPECT_THROW(parseRedisUrl("redis://127.0.0.1:63x79"), std::invalid_argument);
  EXPECT_THROW(parseRedisUrl("redis://127.0.0.1:6379/x"), std::invalid_argument);
}

TEST(RedisStore, UnreachableServerIsAnErrorNotACrash) {
  RedisConfig c;
  c.port = 1;  // nothing listens on port 1
  c.password = "secret-pw";
  RedisStore s(c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error().find("cannot connect"), std::string::npos) << s.error();
  EXPECT_EQ(s.error().find("secret-pw"), std::string::npos);
  EXPECT_FALSE(s.get("k"));
  s.put("k", "v");  // no crash, no effect
  EXPECT_EQ(s.size(), 0u);
}

TEST(ResultCodec, RoundTripKeepsTraceOrderAndCondition) {
  result::VerificationResult r;
  r.verdict = result::Verdict::False;
  r.algorithm = "bmc";
  r.solver = "z3";
  result::Counterexample c;
  c.entry = "main";
  c.replayed = true;
  result::TraceStep s;
  s.file = "t.c";
  s.line = 5;
  s.column = 3;
  s.function = "main";
  s.statement = "x = f()";
  s.values = {{"z", "1"}, {"a", "-2"}};
  c.steps.push_back(s);
  // what native playback needs when the counterexample comes from another process
  c.inputs.push_back({"f", 0xfffffffeull, 32, true, "t.c", 5});
  c.uncontrolled = {"uninitialised y at t.c:4"};
  c.confirmedBy = {"interpreter"};
  c.nativeNote = "not run: the entry is 'g', not main";
  c.assumptions = {"f() may return any value"};
  r.counterexample = c;
  r.condition.kind = "bound";
  r.condition.bound = 3;
  r.stats.solverQueries = 7;
  r.stages.push_back({"kind|pred", "pred", result::Verdict::False, 1.5, 2.9, ""});
  r.invariant["t.c:4"] = "x >= 0";
  r.closureHash = "abc123";
  r.entryName = "main";
  r.entryFile = "t.c";
  r.entryLine = 3;
  result::VerificationResult back = result::decodeResult(result::encodeResult(r));
  ASSERT_TRUE(back.counterexample);
  ASSERT_EQ(back.counterexample->inputs.size(), 1u);
  EXPECT_EQ(back.counterexample->inputs[0].value, 0xfffffffeull);
  EXPECT_TRUE(back.counterexample->inputs[0].isSigned);
  EXPECT_EQ(back.counterexample->uncontrolled, c.uncontrolled);
  EXPECT_EQ(back.counterexample->confirmedBy, c.confirmedBy);
  EXPECT_EQ(back.counterexample->nativeNote, c.nativeNote);
  ASSERT_EQ(back.stages.size(), 1u);
  EXPECT_EQ(back.stages[0].decidedBy, "pred");
  EXPECT_EQ(back.invariant, r.invariant);
  EXPECT_EQ(back.closureHash, "abc123");
  EXPECT_EQ(back.entryLine, 3u);
  EXPECT_EQ(back.verdict, result::Verdict::False);
  ASSERT_TRUE(back.counterexample);
  ASSERT_EQ(back.counterexample->steps.size(), 1u);
  EXPECT_EQ(back.counterexample->steps[0].values, s.values);
  EXPECT_EQ(back.counterexample->steps[0].line, 5u);
  EXPECT_EQ(back.condition.bound, std::optional<uint32_t>(3));
  EXPECT_EQ(back.stats.solverQueries, 7u);
  EXPECT_EQ(result::toJson(back), result::toJson(r));
}

}  // namespace
}  // namespace argus::server
