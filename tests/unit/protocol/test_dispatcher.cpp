#include "protocol/dispatcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "protocol/lsp_text_sync.h"

namespace argus::protocol {
namespace {

// Captures everything the dispatcher sends and logs.
struct Harness {
  std::mutex mu;
  std::vector<json> sent;
  std::vector<std::string> logs;
  Dispatcher d{[this](const json& m) {
                 std::lock_guard<std::mutex> l(mu);
                 sent.push_back(m);
               },
               [this](std::string_view line) {
                 std::lock_guard<std::mutex> l(mu);
                 logs.emplace_back(line);
               }};

  void in(const std::string& text) { d.onMessage(text); }
  std::vector<json> out() {
    std::lock_guard<std::mutex> l(mu);
    return sent;
  }
  bool logged(std::string_view needle) {
    std::lock_guard<std::mutex> l(mu);
    for (auto& line : logs)
      if (line.find(needle) != std::string::npos) return true;
    return false;
  }
};

int errorCode(const json& response) { return response.at("error").at("code").get<int>(); }

TEST(DispatcherTest, RequestGetsResultWithSameId) {
  Harness h;
  h.d.onRequest("echo", [](const json& params, Reply reply) { reply.result(params); });
  h.in(R"({"jsonrpc":"2.0","id":"r1","method":"echo","params":{"x":1}})");
  auto out = h.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], json::parse(R"({"jsonrpc":"2.0","id":"r1","result":{"x":1}})"));
  EXPECT_EQ(h.d.inflightRequests(), 0u);
}

TEST(DispatcherTest, UnknownRequestIsMethodNotFound) {
  Harness h;
  h.in(R"({"jsonrpc":"2.0","id":3,"method":"nope"})");
  h.in(R"({"jsonrpc":"2.0","id":4,"method":"$/unknownRequest"})");
  auto out = h.out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["id"], 3);
  EXPECT_EQ(errorCode(out[0]), -32601);
  EXPECT_EQ(out[1]["id"], 4);
  EXPECT_EQ(errorCode(out[1]), -32601);
}

TEST(DispatcherTest, UnknownNotificationsAreIgnored) {
  Harness h;
  h.in(R"({"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"}})");
  h.in(R"({"jsonrpc":"2.0","method":"custom/thing"})");
  EXPECT_TRUE(h.out().empty());
  EXPECT_FALSE(h.logged("$/setTrace"));
  EXPECT_TRUE(h.logged("custom/thing"));
}

TEST(DispatcherTest, TypedParamsFailureIsInvalidParams) {
  Harness h;
  bool called = false;
  h.d.onRequest<DidCloseTextDocumentParams>("typed", [&](const DidCloseTextDocumentParams&, Reply reply) {
    called = true;
    reply.result(nullptr);
  });
  h.in(R"({"jsonrpc":"2.0","id":1,"method":"typed","params":{"textDocument":{"uri":5}}})");
  h.in(R"({"jsonrpc":"2.0","id":2,"method":"typed"})");
  auto out = h.out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(called);
  EXPECT_EQ(out[0]["id"], 1);
  EXPECT_EQ(errorCode(out[0]), -32602);
  EXPECT_NE(out[0]["error"]["message"].get<std::string>().find("params.textDocument.uri"), std::string::npos);
  EXPECT_EQ(errorCode(out[1]), -32602);
}

TEST(DispatcherTest, TypedParamsSuccess) {
  Harness h;
  std::string uri;
  h.d.onRequest<DidCloseTextDocumentParams>("typed", [&](const DidCloseTextDocumentParams& p, Reply reply) {
    uri = p.textDocument.uri;
    reply.result(json{{"ok", true}});
  });
  h.in(R"({"jsonrpc":"2.0","id":1,"method":"typed","params":{"textDocument":{"uri":"file:///a.c"}}})");
  EXPECT_EQ(uri, "file:///a.c");
  ASSERT_EQ(h.out().size(), 1u);
  EXPECT_EQ(h.out()[0]["result"]["ok"], true);
}

TEST(DispatcherTest, TypedNotificationFailureIsLoggedOnly) {
  Harness h;
  int calls = 0;
  h.d.onNotification<DidCloseTextDocumentParams>("textDocument/didClose",
                                                 [&](const DidCloseTextDocumentParams&) { ++calls; });
  h.in(R"({"jsonrpc":"2.0","method":"textDocument/didClose","params":{}})");
  h.in(R"({"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"u"}}})");
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(h.out().empty());
  EXPECT_TRUE(h.logged("params.textDocument"));
}

TEST(DispatcherTest, ForgottenReplyBecomesInternalError) {
  Harness h;
  h.d.onRequest("forgetful", [](const json&, Reply) {});
  h.in(R"({"jsonrpc":"2.0","id":11,"method":"forgetful"})");
  auto out = h.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]["id"], 11);
  EXPECT_EQ(errorCode(out[0]), -32603);
  EXPECT_EQ(h.d.inflightRequests(), 0u);
}

TEST(DispatcherTest, DoubleReplyIsLoggedNotSent) {
  Harness h;
  h.d.onRequest("twice", [](const json&, Reply reply) {
    reply.result(1);
    reply.result(2);
    reply.error(ErrorCode::InternalError, "three");
  });
  h.in(R"({"jsonrpc":"2.0","id":1,"method":"twice"})");
  auto out = h.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]["result"], 1);
  EXPECT_TRUE(h.logged("second reply"));
}

TEST(DispatcherTest, CopiesShareOneReplyObligation) {
  Harness h;
  std::vector<Reply> kept;
  h.d.onRequest("keep", [&](const json&, Reply reply) { kept.push_back(reply); });
  h.in(R"({"jsonrpc":"2.0","id":1,"method":"keep"})");
  EXPECT_TRUE(h.out().empty());  // a copy is still alive: no premature error
  EXPECT_EQ(h.d.inflightRequests(), 1u);
  Reply copy = kept[0];
  copy.result("late");
  kept[0].result("again");
  kept.clear();
  auto out = h.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]["result"], "late");
  EXPECT_EQ(h.d.inflightRequests(), 0u);
}

TEST(DispatcherTest, HandlerExceptionBecomesInternalError) {
  Harness h;
  h.d.onRequest("throws", [](const json&, Reply) { throw std::runtime_error("boom"); });
  h.in(R"({"jsonrpc":"2.0","id":1,"method":"throws"})");
  auto out = h.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(errorCode(out[0]), -32603);
  EXPECT_NE(out[0]["error"]["message"].get<std::string>().find("boom"), std::string::npos);
}

TEST(DispatcherTest, CancelRequestFlipsTokenOfThatRequestOnly) {
  Harness h;
  std::vector<Reply> pending;
  h.d.onRequest("slow", [&](const json&, Reply reply) { pending.push_back(reply); });
  h.in(R"({"jsonrpc":"2.0","id":1,"method":"slow"})");
  h.in(R"({"jsonrpc":"2.0","id":"two","method":"slow"})");
  ASSERT_EQ(pending.size(), 2u);
  CancellationToken t1 = pending[0].cancellation(), t2 = pending[1].cancellation();
  EXPECT_FALSE(t1.isCancelled());
  h.in(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"two"}})");
  EXPECT_FALSE(t1.isCancelled());
  EXPECT_TRUE(t2.isCancelled());
  EXPECT_TRUE(pending[1].isCancelled());
  // The handler notices and answers RequestCancelled.
  pending[1].error(ErrorCode::RequestCancelled, "cancelled");
  pending[0].result(0);
  pending.clear();
  auto out = h.out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["id"], "two");
  EXPECT_EQ(errorCode(out[0]), -32800);
  EXPECT_EQ(out[1]["id"], 1);
  // Cancelling something finished or unknown is harmless.
  h.in(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}})");
  h.in(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{}})");
  EXPECT_EQ(h.out().size(), 2u);
}

TEST(DispatcherTest, ReplyFromAnotherThreadAfterCancellation) {
  Harness h;
  std::thread worker;
  h.d.onRequest("work", [&](const json&, Reply reply) {
    worker = std::thread([reply] {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (!reply.isCancelled() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (reply.isCancelled()) reply.error(ErrorCode::RequestCancelled, "cancelled");
      else reply.result("timeout");
    });
  });
  h.in(R"({"jsonrpc":"2.0","id":5,"method":"work"})");
  h.in(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":5}})");
  worker.join();
  auto out = h.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(errorCode(out[0]), -32800);
}

TEST(DispatcherTest, InvalidMessagesAreAnsweredWithTheirId) {
  Harness h;
  h.in(R"({"jsonrpc":"1.0","id":8,"method":"m"})");
  h.in("not json");
  h.in(R"([1,2])");
  h.in(R"({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}})");  // bad response: no answer
  auto out = h.out();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0]["id"], 8);
  EXPECT_EQ(errorCode(out[0]), -32600);
  EXPECT_TRUE(out[1]["id"].is_null());
  EXPECT_EQ(errorCode(out[1]), -32700);
  EXPECT_TRUE(out[2]["id"].is_null());
  EXPECT_EQ(errorCode(out[2]), -32600);
}

TEST(DispatcherTest, FramingErrorIsParseErrorWithNullId) {
  Harness h;
  h.d.onFramingError(FramingError{FramingErrorKind::MessageTooLarge, "too big"});
  auto out = h.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0]["id"].is_null());
  EXPECT_EQ(errorCode(out[0]), -32700);
}

TEST(DispatcherTest, GateAnswersBeforeDispatch) {
  Harness h;
  bool initialized = false;
  int notes = 0;
  h.d.onRequest("argus/verify", [](const json&, Reply reply) { reply.result("ok"); });
  h.d.onNotification("textDocument/didSave", [&](const json&) { ++notes; });
  h.d.setRequestGate([&](const std::string& method) -> std::optional<RpcError> {
    if (initialized || method == "exit") return std::nullopt;
    return RpcError(ErrorCode::ServerNotInitialized, "not initialized");
  });
  h.in(R"({"jsonrpc":"2.0","id":1,"method":"argus/verify"})");
  h.in(R"({"jsonrpc":"2.0","id":2,"method":"unknown"})");
  h.in(R"({"jsonrpc":"2.0","method":"textDocument/didSave","params":{}})");
  initialized = true;
  h.in(R"({"jsonrpc":"2.0","id":3,"method":"argus/verify"})");
  h.in(R"({"jsonrpc":"2.0","method":"textDocument/didSave","params":{}})");
  auto out = h.out();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(errorCode(out[0]), -32002);
  EXPECT_EQ(errorCode(out[1]), -32002);
  EXPECT_EQ(out[2]["result"], "ok");
  EXPECT_EQ(notes, 1);
}

TEST(DispatcherTest, OutgoingCallsAreRoutedBack) {
  Harness h;
  std::vector<CallResult> results;
  RequestId a = h.d.call("window/workDoneProgress/create", {{"token", "t1"}},
                         [&](CallResult r) { results.push_back(std::move(r)); });
  RequestId b = h.d.call("workspace/configuration", {{"items", json::array()}},
                         [&](CallResult r) { results.push_back(std::move(r)); });
  EXPECT_NE(a, b);
  auto out = h.out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["method"], "window/workDoneProgress/create");
  EXPECT_EQ(out[0]["id"], a.toJSON());
  EXPECT_EQ(h.d.pendingCalls(), 2u);
  // Answer out of order; one with an error.
  h.d.handle(makeErrorResponse(b, RpcError(ErrorCode::InternalError, "client failed")));
  h.d.handle(makeResultResponse(a, nullptr));
  ASSERT_EQ(results.size(), 2u);
  ASSERT_TRUE(std::holds_alternative<RpcError>(results[0]));
  EXPECT_EQ(std::get<RpcError>(results[0]).message, "client failed");
  ASSERT_TRUE(std::holds_alternative<json>(results[1]));
  EXPECT_EQ(h.d.pendingCalls(), 0u);
  // A response nobody waits for is logged and dropped.
  h.d.handle(makeResultResponse(a, nullptr));
  EXPECT_EQ(results.size(), 2u);
  EXPECT_TRUE(h.logged("unknown request id"));
}

TEST(DispatcherTest, NotifyFormat) {
  Harness h;
  h.d.notify("textDocument/publishDiagnostics", {{"uri", "u"}, {"diagnostics", json::array()}});
  auto out = h.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], json::parse(
                        R"({"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"u","diagnostics":[]}})"));
}

TEST(DispatcherTest, CloseCancelsInflightAndFailsPendingCalls) {
  Harness h;
  std::vector<Reply> pending;
  h.d.onRequest("slow", [&](const json&, Reply reply) { pending.push_back(reply); });
  h.in(R"({"jsonrpc":"2.0","id":1,"method":"slow"})");
  std::optional<CallResult> callResult;
  h.d.call("window/workDoneProgress/create", {{"token", 1}}, [&](CallResult r) { callResult = std::move(r); });
  const std::size_t sentBefore = h.out().size();
  h.d.close();
  EXPECT_TRUE(pending[0].isCancelled());
  ASSERT_TRUE(callResult.has_value());
  ASSERT_TRUE(std::holds_alternative<RpcError>(*callResult));
  EXPECT_EQ(std::get<RpcError>(*callResult).code, -32800);
  // After close nothing reaches the sender, not even the forgotten-reply error.
  pending[0].result("late");
  pending.clear();
  h.d.notify("late", nullptr);
  std::optional<CallResult> afterClose;
  h.d.call("x", nullptr, [&](CallResult r) { afterClose = std::move(r); });
  EXPECT_TRUE(afterClose.has_value());
  EXPECT_EQ(h.out().size(), sentBefore);
}

TEST(DispatcherTest, ReplyMayOutliveDispatcher) {
  std::vector<json> sent;
  std::optional<Reply> kept;
  {
    Dispatcher d([&](const json& m) { sent.push_back(m); }, [](std::string_view) {});
    d.onRequest("keep", [&](const json&, Reply r) { kept = r; });
    d.onMessage(R"({"jsonrpc":"2.0","id":1,"method":"keep"})");
  }
  ASSERT_TRUE(kept.has_value());
  EXPECT_TRUE(kept->isCancelled());
  kept->result(1);
  kept.reset();
  EXPECT_TRUE(sent.empty());
}

TEST(DispatcherTest, ConcurrentRepliesAreAllSent) {
  Harness h;
  std::vector<Reply> pending;
  h.d.onRequest("r", [&](const json&, Reply reply) { pending.push_back(reply); });
  for (int i = 0; i < 64; ++i)
    h.in(R"({"jsonrpc":"2.0","id":)" + std::to_string(i) + R"(,"method":"r"})");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = t; i < 64; i += 4) pending[i].result(i);
    });
  for (auto& t : threads) t.join();
  pending.clear();
  auto out = h.out();
  ASSERT_EQ(out.size(), 64u);
  std::vector<bool> seen(64, false);
  for (auto& m : out) {
    int id = m["id"].get<int>();
    EXPECT_EQ(m["result"], id);
    EXPECT_FALSE(seen[id]);
    seen[id] = true;
  }
  EXPECT_EQ(h.d.inflightRequests(), 0u);
}

}  // namespace
}  // namespace argus::protocol
