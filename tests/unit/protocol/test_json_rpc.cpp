#include "protocol/json_rpc.h"

#include <gtest/gtest.h>

namespace argus::protocol {
namespace {

InvalidMessage expectInvalid(std::string_view text) {
  Message m = parseMessage(text);
  EXPECT_TRUE(std::holds_alternative<InvalidMessage>(m)) << text;
  if (auto* bad = std::get_if<InvalidMessage>(&m)) return *bad;
  return {};
}

TEST(JsonRpcTest, RequestWithIntegerAndStringIds) {
  Message m = parseMessage(R"({"jsonrpc":"2.0","id":7,"method":"textDocument/codeLens","params":{"a":1}})");
  ASSERT_TRUE(std::holds_alternative<Request>(m));
  auto& r = std::get<Request>(m);
  EXPECT_EQ(r.id, RequestId(7));
  EXPECT_EQ(r.method, "textDocument/codeLens");
  EXPECT_EQ(r.params, json({{"a", 1}}));

  m = parseMessage(R"({"jsonrpc":"2.0","id":"abc","method":"m","params":[1,2]})");
  ASSERT_TRUE(std::holds_alternative<Request>(m));
  EXPECT_EQ(std::get<Request>(m).id, RequestId("abc"));
  EXPECT_TRUE(std::get<Request>(m).params.is_array());
}

TEST(JsonRpcTest, NotificationAndNullParams) {
  Message m = parseMessage(R"({"jsonrpc":"2.0","method":"initialized","params":null})");
  ASSERT_TRUE(std::holds_alternative<Notification>(m));
  EXPECT_EQ(std::get<Notification>(m).method, "initialized");
  EXPECT_TRUE(std::get<Notification>(m).params.is_null());
}

TEST(JsonRpcTest, Responses) {
  Message m = parseMessage(R"({"jsonrpc":"2.0","id":3,"result":null})");
  ASSERT_TRUE(std::holds_alternative<Response>(m));
  EXPECT_EQ(std::get<Response>(m).id, std::optional<RequestId>(3));
  EXPECT_FALSE(std::get<Response>(m).isError());

  m = parseMessage(R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"nope","data":[1]}})");
  ASSERT_TRUE(std::holds_alternative<Response>(m));
  auto& resp = std::get<Response>(m);
  ASSERT_TRUE(resp.isError());
  EXPECT_EQ(std::get<RpcError>(resp.outcome), RpcError(ErrorCode::MethodNotFound, "nope", json::array({1})));

  m = parseMessage(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}})");
  ASSERT_TRUE(std::holds_alternative<Response>(m));
  EXPECT_FALSE(std::get<Response>(m).id.has_value());
}

TEST(JsonRpcTest, InvalidJsonIsParseErrorWithNullId) {
  auto bad = expectInvalid(R"({"jsonrpc":"2.0","id":1,"method":)");
  EXPECT_EQ(bad.error.code, static_cast<int>(ErrorCode::ParseError));
  EXPECT_FALSE(bad.id.has_value());
  EXPECT_TRUE(bad.shouldReply);
  EXPECT_EQ(expectInvalid("").error.code, static_cast<int>(ErrorCode::ParseError));
  EXPECT_EQ(expectInvalid("{\"s\":\"\xFF\"}").error.code, static_cast<int>(ErrorCode::ParseError));  // bad UTF-8
}

TEST(JsonRpcTest, DeepNestingIsRejectedBeforeParsing) {
  std::string deep(100000, '[');
  EXPECT_EQ(expectInvalid(deep).error.code, static_cast<int>(ErrorCode::ParseError));
  // Brackets inside strings do not count.
  std::string s = R"({"jsonrpc":"2.0","method":"m","params":{"x":")" + std::string(1000, '[') + R"("}})";
  EXPECT_TRUE(std::holds_alternative<Notification>(parseMessage(s)));
}

TEST(JsonRpcTest, WrongVersionEchoesId) {
  auto bad = expectInvalid(R"({"jsonrpc":"1.0","id":5,"method":"m"})");
  EXPECT_EQ(bad.error.code, static_cast<int>(ErrorCode::InvalidRequest));
  EXPECT_EQ(bad.id, std::optional<RequestId>(5));
  bad = expectInvalid(R"({"id":"q","method":"m"})");
  EXPECT_EQ(bad.error.code, static_cast<int>(ErrorCode::InvalidRequest));
  EXPECT_EQ(bad.id, std::optional<RequestId>("q"));
  EXPECT_EQ(expectInvalid(R"({"jsonrpc":2.0,"id":1,"method":"m"})").error.code,
            static_cast<int>(ErrorCode::InvalidRequest));
}

TEST(JsonRpcTest, BadIdsGiveNullId) {
  for (const char* text : {R"({"jsonrpc":"2.0","id":1.5,"method":"m"})", R"({"jsonrpc":"2.0","id":true,"method":"m"})",
                           R"({"jsonrpc":"2.0","id":null,"method":"m"})", R"({"jsonrpc":"2.0","id":{},"method":"m"})",
                           R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"m"})"}) {
    auto bad = expectInvalid(text);
    EXPECT_EQ(bad.error.code, static_cast<int>(ErrorCode::InvalidRequest)) << text;
    EXPECT_FALSE(bad.id.has_value()) << text;
  }
}

TEST(JsonRpcTest, StructuralErrors) {
  auto code = [](std::string_view t) { return expectInvalid(t).error.code; };
  const int invalidRequest = static_cast<int>(ErrorCode::InvalidRequest);
  EXPECT_EQ(code(R"({"jsonrpc":"2.0","id":1,"method":5})"), invalidRequest);
  EXPECT_EQ(code(R"({"jsonrpc":"2.0","id":1})"), invalidRequest);
  EXPECT_EQ(code(R"({"jsonrpc":"2.0","id":1,"method":"m","params":"str"})"), invalidRequest);
  EXPECT_EQ(code(R"({"jsonrpc":"2.0","id":1,"method":"m","params":3})"), invalidRequest);
  EXPECT_EQ(code(R"({"jsonrpc":"2.0","id":1,"method":"m","result":1})"), invalidRequest);
  EXPECT_EQ(code("42"), invalidRequest);
  EXPECT_EQ(code("\"str\""), invalidRequest);
  EXPECT_EQ(expectInvalid(R"({"jsonrpc":"2.0","id":9,"method":"m","params":"str"})").id,
            std::optional<RequestId>(9));
}

TEST(JsonRpcTest, BatchesAreRejectedWithOneError) {
  auto bad = expectInvalid(R"([{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}])");
  EXPECT_EQ(bad.error.code, static_cast<int>(ErrorCode::InvalidRequest));
  EXPECT_FALSE(bad.id.has_value());
  EXPECT_TRUE(bad.shouldReply);
  EXPECT_EQ(expectInvalid("[]").error.code, static_cast<int>(ErrorCode::InvalidRequest));
}

TEST(JsonRpcTest, MalformedResponsesAreNotAnswered) {
  for (const char* text : {R"({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}})",
                           R"({"jsonrpc":"2.0","result":1})", R"({"jsonrpc":"2.0","id":1,"error":"x"})",
                           R"({"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}})",
                           R"({"jsonrpc":"2.0","id":null,"result":1})", R"({"id":1,"result":1})"}) {
    auto bad = expectInvalid(text);
    EXPECT_FALSE(bad.shouldReply) << text;
  }
}

TEST(JsonRpcTest, Builders) {
  EXPECT_EQ(makeRequest(4, "window/workDoneProgress/create", {{"token", "t"}}),
            json::parse(R"({"jsonrpc":"2.0","id":4,"method":"window/workDoneProgress/create","params":{"token":"t"}})"));
  EXPECT_EQ(makeNotification("exit", nullptr), json::parse(R"({"jsonrpc":"2.0","method":"exit"})"));
  EXPECT_EQ(makeResultResponse("a", json::array()), json::parse(R"({"jsonrpc":"2.0","id":"a","result":[]})"));
  EXPECT_EQ(makeErrorResponse(std::nullopt, RpcError(ErrorCode::ParseError, "bad")),
            json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}})"));
  EXPECT_EQ(makeErrorResponse(RequestId(2), RpcError(ErrorCode::Unauthorized, "token")),
            json::parse(R"({"jsonrpc":"2.0","id":2,"error":{"code":-32010,"message":"token"}})"));
}

TEST(JsonRpcTest, ErrorCodeValues) {
  EXPECT_EQ(static_cast<int>(ErrorCode::ParseError), -32700);
  EXPECT_EQ(static_cast<int>(ErrorCode::InvalidRequest), -32600);
  EXPECT_EQ(static_cast<int>(ErrorCode::MethodNotFound), -32601);
  EXPECT_EQ(static_cast<int>(ErrorCode::InvalidParams), -32602);
  EXPECT_EQ(static_cast<int>(ErrorCode::InternalError), -32603);
  EXPECT_EQ(static_cast<int>(ErrorCode::ServerNotInitialized), -32002);
  EXPECT_EQ(static_cast<int>(ErrorCode::RequestCancelled), -32800);
  EXPECT_EQ(static_cast<int>(ErrorCode::ContentModified), -32801);
  const int unauthorized = static_cast<int>(ErrorCode::Unauthorized);
  EXPECT_TRUE(unauthorized <= -32000 && unauthorized >= -32099);
}

TEST(JsonRpcTest, RequestIdKeys) {
  EXPECT_NE(RequestId(1), RequestId("1"));
  EXPECT_EQ(RequestId(1).str(), "1");
  EXPECT_EQ(RequestId("1").str(), "\"1\"");
  EXPECT_EQ(RequestId::fromJSON(json(-3)), std::optional<RequestId>(-3));
  EXPECT_FALSE(RequestId::fromJSON(json(2.5)).has_value());
}

}  // namespace
}  // namespace argus::protocol
