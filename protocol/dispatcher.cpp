#include "protocol/dispatcher.h"

#include <atomic>
#include <cstdio>
#include <exception>
#include <vector>

namespace argus::protocol {

namespace detail {

// Shared between the Dispatcher and its Replies (which hold it weakly).
struct DispatcherCore {
  LogFn log;

  std::mutex sendMu;           // serialises outgoing messages; guards `sender`
  Dispatcher::Sender sender;   // empty once closed

  struct Inflight {
    std::uint64_t seq;  // distinguishes requests that reuse an id
    CancellationSource source;
  };
  mutable std::mutex mu;  // guards everything below
  std::map<RequestId, Inflight> inflight;
  std::map<RequestId, Dispatcher::ResponseCallback> calls;
  std::int64_t nextCallId = 1;
  std::uint64_t nextSeq = 1;
  bool closed = false;

  void send(const json& message) {
    std::lock_guard<std::mutex> lock(sendMu);
    if (!sender) return;
    try {
      sender(message);
    } catch (const std::exception& e) {
      logLine(std::string("sender failed: ") + e.what());
    }
  }

  void logLine(std::string_view line) const {
    if (log) log(line);
  }
};

struct ReplyState {
  std::weak_ptr<DispatcherCore> core;
  RequestId id;
  std::string method;
  std::uint64_t seq = 0;
  CancellationToken token;
  std::atomic<bool> replied{false};

  ~ReplyState() {
    if (replied.load()) return;
    auto c = core.lock();
    if (!c) return;
    c->logLine("no reply from handler for " + method + " (id " + id.str() + "); sending InternalError");
    finish(*c, makeErrorResponse(id, RpcError(ErrorCode::InternalError, "no reply from handler for " + method)));
  }

  // Returns false (and logs) if a reply was already sent.
  bool claim() {
    if (!replied.exchange(true)) return true;
    if (auto c = core.lock()) c->logLine("second reply to " + method + " (id " + id.str() + ") dropped");
    return false;
  }

  void finish(DispatcherCore& c, const json& response) {
    {
      std::lock_guard<std::mutex> lock(c.mu);
      auto it = c.inflight.find(id);
      if (it != c.inflight.end() && it->second.seq == seq) c.inflight.erase(it);
    }
    c.send(response);
  }

  void send(const json& response) {
    if (auto c = core.lock()) finish(*c, response);
  }
};

}  // namespace detail

// ---- Reply ----

void Reply::result(json value) const {
  if (!state_->claim()) return;
  state_->send(makeResultResponse(state_->id, std::move(value)));
}

void Reply::error(RpcError err) const {
  if (!state_->claim()) return;
  state_->send(makeErrorResponse(state_->id, err));
}

const RequestId& Reply::id() const { return state_->id; }
const std::string& Reply::method() const { return state_->method; }
CancellationToken Reply::cancellation() const { return state_->token; }
bool Reply::replied() const { return state_->replied.load(); }

// ---- Dispatcher ----

Dispatcher::Dispatcher(Sender sender, LogFn log) : core_(std::make_shared<detail::DispatcherCore>()) {
  core_->sender = std::move(sender);
  core_->log = log ? std::move(log) : LogFn([](std::string_view line) {
    std::fprintf(stderr, "[argus-protocol] %.*s\n", static_cast<int>(line.size()), line.data());
  });
}

Dispatcher::~Dispatcher() { close(); }

void Dispatcher::onRequest(std::string method, RequestHandler handler) {
  requestHandlers_[std::move(method)] = std::move(handler);
}

void Dispatcher::onNotification(std::string method, NotificationHandler handler) {
  notificationHandlers_[std::move(method)] = std::move(handler);
}

void Dispatcher::logInvalidNotification(const std::string& method, const std::string& error) {
  core_->logLine("invalid params for notification " + method + ": " + error);
}

void Dispatcher::notify(std::string_view method, json params) {
  core_->send(makeNotification(method, std::move(params)));
}

RequestId Dispatcher::call(std::string_view method, json params, ResponseCallback callback) {
  RequestId id;
  bool closed;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    id = RequestId(core_->nextCallId++);
    closed = core_->closed;
    if (!closed) core_->calls.emplace(id, std::move(callback));
  }
  if (closed) {
    if (callback) callback(RpcError(ErrorCode::RequestCancelled, "connection closed"));
    return id;
  }
  core_->send(makeRequest(id, method, std::move(params)));
  return id;
}

void Dispatcher::onMessage(std::string_view body) { handle(parseMessage(body)); }

void Dispatcher::onFramingError(const FramingError& error) {
  std::string what = std::string("framing error: ") + toString(error.kind) + ": " + error.detail;
  core_->logLine(what);
  core_->send(makeErrorResponse(std::nullopt, RpcError(ErrorCode::ParseError, what)));
}

void Dispatcher::handle(const json& message) { handle(classifyMessage(message)); }

void Dispatcher::handle(Message message) {
  if (auto* r = std::get_if<Request>(&message)) return handleRequest(std::move(*r));
  if (auto* n = std::get_if<Notification>(&message)) return handleNotification(*n);
  if (auto* r = std::get_if<Response>(&message)) return handleResponse(std::move(*r));
  auto& bad = std::get<InvalidMessage>(message);
  core_->logLine("invalid message: " + bad.error.message);
  if (bad.shouldReply) core_->send(makeErrorResponse(bad.id, bad.error));
}

void Dispatcher::handleRequest(Request request) {
  if (gate_) {
    if (auto err = gate_(request.method)) {
      core_->send(makeErrorResponse(request.id, *err));
      return;
    }
  }
  auto it = requestHandlers_.find(request.method);
  if (it == requestHandlers_.end()) {
    core_->send(makeErrorResponse(request.id,
                                  RpcError(ErrorCode::MethodNotFound, "method not found: " + request.method)));
    return;
  }

  auto state = std::make_shared<detail::ReplyState>();
  state->core = core_;
  state->id = request.id;
  state->method = request.method;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    state->seq = core_->nextSeq++;
    detail::DispatcherCore::Inflight entry{state->seq, CancellationSource()};
    state->token = entry.source.token();
    if (core_->closed) entry.source.cancel();
    auto [pos, inserted] = core_->inflight.insert_or_assign(request.id, std::move(entry));
    if (!inserted) core_->logLine("duplicate in-flight request id " + request.id.str());
  }

  Reply reply(state);
  state.reset();
  try {
    it->second(request.params, reply);
  } catch (const std::exception& e) {
    if (reply.state_->claim())
      reply.state_->send(makeErrorResponse(
          request.id, RpcError(ErrorCode::InternalError, "handler for " + request.method + " failed: " + e.what())));
  } catch (...) {
    if (reply.state_->claim())
      reply.state_->send(makeErrorResponse(
          request.id, RpcError(ErrorCode::InternalError, "handler for " + request.method + " failed")));
  }
}

void Dispatcher::handleNotification(const Notification& n) {
  if (gate_) {
    if (auto err = gate_(n.method)) {
      core_->logLine("dropped notification " + n.method + ": " + err->message);
      return;
    }
  }
  if (n.method == "$/cancelRequest") return cancelRequest(n.params);
  auto it = notificationHandlers_.find(n.method);
  if (it == notificationHandlers_.end()) {
    if (n.method.rfind("$/", 0) != 0) core_->logLine("ignored unknown notification " + n.method);
    return;
  }
  try {
    it->second(n.params);
  } catch (const std::exception& e) {
    core_->logLine("notification handler for " + n.method + " failed: " + e.what());
  } catch (...) {
    core_->logLine("notification handler for " + n.method + " failed");
  }
}

void Dispatcher::cancelRequest(const json& params) {
  std::optional<RequestId> id;
  if (params.is_object())
    if (auto it = params.find("id"); it != params.end()) id = RequestId::fromJSON(*it);
  if (!id) {
    core_->logLine("$/cancelRequest without a valid id");
    return;
  }
  std::lock_guard<std::mutex> lock(core_->mu);
  // Unknown ids are normal: the request may have finished already.
  if (auto it = core_->inflight.find(*id); it != core_->inflight.end()) it->second.source.cancel();
}

void Dispatcher::handleResponse(Response response) {
  if (!response.id) {
    const auto* err = std::get_if<RpcError>(&response.outcome);
    core_->logLine("peer reported an error without id: " + (err ? err->message : std::string()));
    return;
  }
  ResponseCallback callback;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    auto it = core_->calls.find(*response.id);
    if (it != core_->calls.end()) {
      callback = std::move(it->second);
      core_->calls.erase(it);
    }
  }
  if (!callback) {
    core_->logLine("response to unknown request id " + response.id->str());
    return;
  }
  try {
    callback(std::move(response.outcome));
  } catch (const std::exception& e) {
    core_->logLine(std::string("response callback failed: ") + e.what());
  }
}

void Dispatcher::close() {
  {
    // Waits for a send in progress; afterwards nobody enters the sender.
    std::lock_guard<std::mutex> lock(core_->sendMu);
    core_->sender = nullptr;
  }
  std::map<RequestId, ResponseCallback> calls;
  {
    std::lock_guard<std::mutex> lock(core_->mu);
    if (core_->closed) return;
    core_->closed = true;
    calls.swap(core_->calls);
    for (auto& [id, entry] : core_->inflight) entry.source.cancel();
    core_->inflight.clear();
  }
  for (auto& [id, callback] : calls) {
    if (!callback) continue;
    try {
      callback(RpcError(ErrorCode::RequestCancelled, "connection closed"));
    } catch (const std::exception& e) {
      core_->logLine(std::string("response callback failed: ") + e.what());
    }
  }
}

std::size_t Dispatcher::inflightRequests() const {
  std::lock_guard<std::mutex> lock(core_->mu);
  return core_->inflight.size();
}

std::size_t Dispatcher::pendingCalls() const {
  std::lock_guard<std::mutex> lock(core_->mu);
  return core_->calls.size();
}

}  // namespace argus::protocol
