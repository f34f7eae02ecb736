// libFuzzer target: framing → JSON-RPC parsing → dispatch → LSP types → edits.
//
// Input: byte 0 seeds how the rest is chunked; the rest is the raw stream a
// client would send. Besides crashes/sanitizer reports, it aborts when an
// invariant breaks:
// - the frame reader yields the same events whole and chunked;
// - every request, replyable invalid message and framing error gets exactly
//   one response (no more, no less), and everything we send re-parses as
//   valid JSON-RPC;
// - each body re-framed with encodeFrame reads back unchanged;
// - LSP structs survive toJSON → fromJSON; after applying didChange edits the
//   UTF-16 position/offset conversions agree with each other.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "protocol/content_changes.h"
#include "protocol/dispatcher.h"
#include "protocol/framing.h"
#include "protocol/json_rpc.h"
#include "protocol/lsp.h"
#include "protocol/utf16.h"

using namespace argus::protocol;

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant violated: %s\n", what);
    std::abort();
  }
}

constexpr FramingLimits kLimits{256, 4096};

std::vector<FrameEvent> readEvents(std::string_view input, std::uint8_t seed) {
  FrameReader reader(kLimits);
  std::vector<FrameEvent> events;
  std::size_t pos = 0, step = 0;
  while (pos < input.size()) {
    std::size_t n = seed == 0 ? input.size() : 1 + (seed * (step++ + 7)) % 23;
    n = std::min(n, input.size() - pos);
    reader.feed(input.substr(pos, n));
    pos += n;
    while (auto ev = reader.next()) events.push_back(std::move(*ev));
  }
  return events;
}

bool sameEvents(const std::vector<FrameEvent>& a, const std::vector<FrameEvent>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].index() != b[i].index()) return false;
    if (auto* s = std::get_if<std::string>(&a[i])) {
      if (*s != std::get<std::string>(b[i])) return false;
    } else if (std::get<FramingError>(a[i]).kind != std::get<FramingError>(b[i]).kind) {
      return false;
    }
  }
  return true;
}

template <class T>
void checkRoundTrip(const T& value) {
  T again{};
  std::string error;
  check(parseJSON(toJSON(value), again, &error), "toJSON output must parse");
  check(again == value, "fromJSON(toJSON(x)) == x");
}

void checkPositions(const std::string& text) {
  for (std::size_t o = 0; o <= text.size(); o += 1 + text.size() / 16) {
    Position p = offsetToPosition(text, o);
    auto back = positionToOffset(text, p);
    check(back.has_value(), "position of an offset must map back");
    check(*back <= o, "mapped-back offset must not pass the original");
    check(offsetToPosition(text, *back) == p, "offset/position conversions agree");
  }
}

struct Server {
  std::vector<json> sent;
  std::vector<Reply> kept;
  std::map<std::string, std::string> docs;
  Dispatcher d{[this](const json& m) { sent.push_back(m); }, [](std::string_view) {}};

  Server() {
    d.setRequestGate([](const std::string& method) -> std::optional<RpcError> {
      if (method.rfind("gated/", 0) == 0) return RpcError(ErrorCode::ServerNotInitialized, "gated");
      return std::nullopt;
    });
    d.onRequest<InitializeParams>("initialize", [](const InitializeParams& p, Reply r) {
      checkRoundTrip(p);
      InitializeResult result;
      result.capabilities.executeCommands = {"argus.verify"};
      r.result(result);
    });
    d.onNotification<DidOpenTextDocumentParams>("textDocument/didOpen", [this](const DidOpenTextDocumentParams& p) {
      checkRoundTrip(p);
      docs[p.textDocument.uri] = p.textDocument.text;
      checkPositions(p.textDocument.text);
    });
    d.onNotification<DidChangeTextDocumentParams>("textDocument/didChange",
                                                  [this](const DidChangeTextDocumentParams& p) {
                                                    checkRoundTrip(p);
                                                    auto it = docs.find(p.textDocument.uri);
                                                    if (it == docs.end()) return;
                                                    std::string before = it->second;
                                                    if (applyContentChanges(it->second, p.contentChanges)) {
                                                      if (it->second.size() > 8192) it->second.resize(8192);
                                                      checkPositions(it->second);
                                                    } else {
                                                      check(it->second == before, "failed edits change nothing");
                                                    }
                                                  });
    d.onNotification<DidCloseTextDocumentParams>("textDocument/didClose",
                                                 [this](const DidCloseTextDocumentParams& p) {
                                                   docs.erase(p.textDocument.uri);
                                                 });
    d.onRequest<CodeLensParams>("textDocument/codeLens", [](const CodeLensParams& p, Reply r) {
      CodeLens lens{Range{{0, 0}, {0, 1}}, Command{"verified", "argus.show", std::vector<json>{p.textDocument.uri}},
                    std::nullopt};
      r.result(json::array({toJSON(lens)}));
    });
    d.onRequest<PublishDiagnosticsParams>("test/diagnostics", [](const PublishDiagnosticsParams& p, Reply r) {
      checkRoundTrip(p);
      r.result(toJSON(p));
    });
    d.onRequest<CodeLens>("test/codeLens", [](const CodeLens& p, Reply r) {
      checkRoundTrip(p);
      r.result(toJSON(p));
    });
    d.onRequest("keep", [this](const json&, Reply r) { kept.push_back(r); });
    d.onRequest("forget", [](const json&, Reply) {});
    d.onRequest("twice", [](const json& p, Reply r) {
      r.result(p);
      r.error(ErrorCode::InternalError, "again");
    });
    d.onRequest("throw", [](const json&, Reply) { throw std::runtime_error("thrown"); });
    d.onRequest("call", [this](const json& p, Reply r) {
      d.call("client/method", p, [](CallResult) {});
      r.result(nullptr);
    });
    d.onRequest("cancelled", [this](const json&, Reply r) {
      if (kept.empty()) return r.result(false);
      r.result(kept.back().isCancelled());
    });
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t seed = data[0];
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  auto events = readEvents(input, 0);
  check(sameEvents(events, readEvents(input, seed)), "framing is chunking-invariant");

  Server server;
  std::size_t expectedResponses = 0;
  for (const auto& ev : events) {
    if (auto* body = std::get_if<std::string>(&ev)) {
      FrameReader again(kLimits);
      again.feed(encodeFrame(*body));
      auto rt = again.next();
      check(rt && std::holds_alternative<std::string>(*rt) && std::get<std::string>(*rt) == *body,
            "encodeFrame round trip");

      Message m = parseMessage(*body);
      if (std::holds_alternative<Request>(m)) ++expectedResponses;
      if (auto* bad = std::get_if<InvalidMessage>(&m); bad && bad->shouldReply) ++expectedResponses;
      server.d.onMessage(*body);
    } else {
      ++expectedResponses;
      server.d.onFramingError(std::get<FramingError>(ev));
    }
  }
  server.kept.clear();  // forgotten replies turn into InternalError now
  server.d.close();

  std::size_t responses = 0;
  FramingLimits big{1 << 20, 1 << 30};
  for (const json& out : server.sent) {
    FrameReader reader(big);
    reader.feed(serializeMessage(out));
    auto ev = reader.next();
    check(ev && std::holds_alternative<std::string>(*ev), "our frames parse");
    Message m = parseMessage(std::get<std::string>(*ev));
    check(!std::holds_alternative<InvalidMessage>(m), "we only send valid JSON-RPC");
    if (std::holds_alternative<Response>(m)) ++responses;
  }
  check(responses == expectedResponses, "exactly one response per request");
  return 0;
}
