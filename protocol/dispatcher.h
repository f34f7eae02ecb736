// JSON-RPC dispatcher for one connection (the clangd MessageHandler idea).
//
// Incoming: the transport hands it message bodies (it is a TransportHandler);
// it parses and validates them and routes
// - requests to onRequest handlers, each with a Reply that must be used
//   exactly once (see Reply);
// - notifications to onNotification handlers; `$/cancelRequest` is built in;
// - responses to the callbacks of our own call()s.
// Errors it answers by itself: ParseError (bad JSON, framing errors; id
// null), InvalidRequest (JSON-RPC violations; id echoed when readable),
// MethodNotFound (unknown request method), InvalidParams (typed handlers whose
// params fail fromJSON), and whatever the request gate returns. Unknown
// notifications are ignored (logged unless `$/`-prefixed).
//
// Threading:
// - Register handlers (onRequest/onNotification/setRequestGate) before the
//   transport starts delivering; registration is not synchronised.
// - Incoming messages are handled on the transport's thread; handlers run
//   synchronously there and must not block for long: long work captures the
//   Reply and finishes on another thread.
// - Reply, notify() and call() are thread-safe. Outgoing messages go through
//   the Sender under one mutex (so it needs no locking of its own); the
//   Sender must not call back into this Dispatcher (it would deadlock).
// - close() (also run by onClose() and the destructor) detaches the Sender:
//   once it returns, no thread is inside the Sender and none will enter it,
//   so the transport may then be destroyed even if Replies are still alive;
//   they become no-ops. close() also cancels all in-flight requests and
//   fails all pending call()s with RequestCancelled.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "protocol/cancellation.h"
#include "protocol/json_parse.h"
#include "protocol/json_rpc.h"
#include "protocol/transport.h"

namespace argus::protocol {

using LogFn = std::function<void(std::string_view)>;

namespace detail {
struct DispatcherCore;
struct ReplyState;
}  // namespace detail

// The right (and obligation) to answer one request. Copies share one state.
// - Exactly one of result()/error() may be called, from any thread.
// - A second call is a bug: it is logged and nothing is sent.
// - If the last copy is destroyed without replying, an InternalError
//   response is sent ("no reply from handler").
class Reply {
 public:
  void result(json value) const;
  template <class T>
    requires requires(const T& v) { { toJSON(v) } -> std::convertible_to<json>; }
  void result(const T& value) const { result(json(toJSON(value))); }
  void error(RpcError err) const;
  void error(ErrorCode code, std::string message) const { error(RpcError(code, std::move(message))); }

  const RequestId& id() const;
  const std::string& method() const;
  // Flipped by `$/cancelRequest` for this id, or when the connection closes.
  CancellationToken cancellation() const;
  bool isCancelled() const { return cancellation().isCancelled(); }
  bool replied() const;

 private:
  friend class Dispatcher;
  explicit Reply(std::shared_ptr<detail::ReplyState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::ReplyState> state_;
};

// Outcome of a server→client call(): the result or the error response.
using CallResult = std::variant<json, RpcError>;

class Dispatcher : public TransportHandler {
 public:
  // Writes one message; e.g. [&t](const json& m) { t.send(m); }.
  using Sender = std::function<void(const json&)>;
  using RequestHandler = std::function<void(const json& params, Reply reply)>;
  using NotificationHandler = std::function<void(const json& params)>;
  using ResponseCallback = std::function<void(CallResult)>;
  // Decides before dispatch whether a request may run; an error is sent
  // instead of running the handler (e.g. ServerNotInitialized, Unauthorized).
  using RequestGate = std::function<std::optional<RpcError>(const std::string& method)>;

  // `log` defaults to stderr.
  explicit Dispatcher(Sender sender, LogFn log = {});
  ~Dispatcher() override;
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Untyped registration; params is null, an object or an array.
  void onRequest(std::string method, RequestHandler handler);
  void onNotification(std::string method, NotificationHandler handler);

  // Typed registration: params are converted with fromJSON(json, P&,
  // JsonPath) (found by ADL); a failure replies InvalidParams with the
  // location of the problem (requests) or is logged (notifications).
  template <class P, class F>
  void onRequest(std::string method, F handler);
  template <class P, class F>
  void onNotification(std::string method, F handler);

  // Also applied to notifications: a gated notification is dropped (so a
  // gate should let e.g. "exit" through).
  void setRequestGate(RequestGate gate) { gate_ = std::move(gate); }

  // Outgoing. Thread-safe.
  void notify(std::string_view method, json params);
  // Sends a request to the peer; `callback` runs once, on the thread that
  // delivers the response (or in close(), with RequestCancelled).
  RequestId call(std::string_view method, json params, ResponseCallback callback);

  // Entry points (TransportHandler): one framed body, a framing error, EOF.
  void onMessage(std::string_view body) override;
  void onFramingError(const FramingError& error) override;
  void onClose() override { close(); }
  // Dispatches an already parsed message.
  void handle(const json& message);
  void handle(Message message);

  // See the threading notes above. Idempotent.
  void close();

  // Requests that were dispatched but not yet replied to.
  std::size_t inflightRequests() const;
  // call()s still waiting for their response.
  std::size_t pendingCalls() const;

 private:
  void handleRequest(Request request);
  void handleNotification(const Notification& notification);
  void handleResponse(Response response);
  void cancelRequest(const json& params);
  void logInvalidNotification(const std::string& method, const std::string& error);

  std::shared_ptr<detail::DispatcherCore> core_;
  std::map<std::string, RequestHandler, std::less<>> requestHandlers_;
  std::map<std::string, NotificationHandler, std::less<>> notificationHandlers_;
  RequestGate gate_;
};

template <class P, class F>
void Dispatcher::onRequest(std::string method, F handler) {
  onRequest(method, RequestHandler([method, handler = std::move(handler)](const json& params, Reply reply) mutable {
    P typed{};
    std::string error;
    if (!fromJSON(params, typed, JsonPath(&error, "params"))) {
      reply.error(ErrorCode::InvalidParams, "invalid params for " + method + ": " + error);
      return;
    }
    handler(static_cast<const P&>(typed), std::move(reply));
  }));
}

template <class P, class F>
void Dispatcher::onNotification(std::string method, F handler) {
  // The logger is reached through the core at call time.
  onNotification(method, NotificationHandler([this, method, handler = std::move(handler)](const json& params) mutable {
    P typed{};
    std::string error;
    if (!fromJSON(params, typed, JsonPath(&error, "params"))) {
      logInvalidNotification(method, error);
      return;
    }
    handler(static_cast<const P&>(typed));
  }));
}

}  // namespace argus::protocol
