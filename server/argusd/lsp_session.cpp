// See lsp_session.h.
#include "server/argusd/lsp_session.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <fstream>
#include <sstream>

#include "core/engine/verify.h"
#include "core/frontend/compile_flags.h"
#include "core/result/codec.h"
#include "core/result/sarif.h"
#include "protocol/content_changes.h"

namespace argus::server {

using protocol::ErrorCode;
using protocol::json;
using protocol::Reply;
using protocol::RpcError;

// Everything this session sends from service threads goes through one queue drained
// by the session's writer thread, so a client that stops reading blocks only its own
// writer — never the service's publish path, a scheduler slot, or other clients.
// Backpressure: the queue is bounded in bytes. Per-document messages coalesce while
// they wait: a newer publishDiagnostics replaces the queued one, and queued
// argus/status deltas merge into one (the latest state per function). A client that
// stays behind — the queue over `maxBytes`, or one message not taken by the client for
// `stallS` — is disconnected with a log line naming it (its jobs are then withdrawn like
// any other disconnect).
// Pacing: LSP's publishDiagnostics carries a document's whole list, so on a file with a
// thousand findings every state change resent them all (SQLite's amalgamation: 3.5 GB
// of notifications in ten minutes to a client that reads everything; a list there grows
// past 1 MB). After sending a document's diagnostics the next ones for it wait
// bytes / kPaceBytesPerS (at most kMaxPaceS), coalescing meanwhile, so a document's
// diagnostics cost at most about kPaceBytesPerS; other messages pass them. A few-KB list
// waits a few milliseconds; at stop everything queued is sent.
struct LspSession::Outbox {
  using Clock = std::chrono::steady_clock;
  static constexpr double kPaceBytesPerS = 128.0 * 1024;
  static constexpr double kMaxPaceS = 15.0;
  struct Item {
    std::function<void(protocol::Dispatcher&)> send;  // non-coalescing messages
    std::string method, key;  // coalescing notifications: key = method + uri
    json params;
    std::size_t bytes = 0;
  };
  std::mutex mu;  // guards the members below
  std::condition_variable cv;
  std::deque<Item> queue;
  std::size_t queuedBytes = 0;
  protocol::Dispatcher* d = nullptr;
  bool stopped = false;
  std::size_t maxBytes = 64u << 20;
  double stallS = 20;
  std::chrono::steady_clock::time_point writingSince{};  // while the writer is in a send
  bool writing = false;
  std::function<void(const std::string&)> onOverflow;
  std::map<std::string, Clock::time_point> nextSend;  // paced keys: not before
  std::thread writer;

  static bool paced(const Item& it) { return !it.key.empty() && it.method == "textDocument/publishDiagnostics"; }

  void start(protocol::Dispatcher* dispatcher, std::function<void(const std::string&)> overflow) {
    d = dispatcher;
    onOverflow = std::move(overflow);
    writer = std::thread([this] { run(); });
  }
  // Caller holds mu; returns the reason to disconnect, or "".
  std::string overLimitLocked() const {
    if (queuedBytes > maxBytes)
      return "its outgoing queue exceeds " + std::to_string(maxBytes >> 20) + " MB";
    if (writing && std::chrono::duration<double>(std::chrono::steady_clock::now() - writingSince).count() > stallS)
      return "it has not read a message for " + std::to_string(static_cast<int>(stallS)) + " s";
    return "";
  }
  void enqueue(Item item) {
    std::string reason;
    {
      std::lock_guard lock(mu);
      if (stopped) return;
      bool merged = false;
      if (!item.key.empty())
        for (Item& q : queue) {
          if (q.key != item.key) continue;
          queuedBytes -= q.bytes;
          if (item.method == "argus/status" && !item.params.value("full", false)) mergeStatus(q.params, item.params);
          else q.params = std::move(item.params);
          q.bytes = q.params.dump().size();
          queuedBytes += q.bytes;
          merged = true;
          break;
        }
      if (!merged) {
        queuedBytes += item.bytes;
        queue.push_back(std::move(item));
      }
      reason = overLimitLocked();
      if (!reason.empty()) {
        stopped = true;
        queue.clear();
        queuedBytes = 0;
      }
    }
    cv.notify_one();
    if (!reason.empty() && onOverflow) onOverflow(reason);
  }
  // A queued status (full or delta) absorbs a newer delta: newer entries win by name.
  static void mergeStatus(json& into, json& delta) {
    json& fns = into["functions"];
    std::map<std::string, std::size_t> at;
    for (std::size_t i = 0; i < fns.size(); ++i) at[fns[i].value("name", "")] = i;
    for (json& f : delta["functions"]) {
      auto it = at.find(f.value("name", ""));
      if (it != at.end()) fns[it->second] = std::move(f);
      else fns.push_back(std::move(f));
    }
    for (const char* k : {"version", "pending", "parseError"})
      if (delta.contains(k)) into[k] = delta[k];
  }
  void post(std::function<void(protocol::Dispatcher&)> fn) {
    Item it;
    it.send = std::move(fn);
    it.bytes = 256;
    enqueue(std::move(it));
  }
  void notify(std::string_view method, json params) {
    Item it;
    it.bytes = params.dump().size();
    it.method = std::string(method);
    it.params = std::move(params);
    enqueue(std::move(it));
  }
  // Per-document notification that coalesces with a queued one of the same key.
  void notifyLatest(std::string_view method, const std::string& uri, json params) {
    Item it;
    it.bytes = params.dump().size();
    it.method = std::string(method);
    it.key = it.method + "\n" + uri;
    it.params = std::move(params);
    enqueue(std::move(it));
  }
  // Called periodically: a writer stuck in one send for too long means the client
  // stopped reading (the kernel's socket buffer is full).
  void checkStall() {
    std::string reason;
    {
      std::lock_guard lock(mu);
      if (stopped) return;
      reason = overLimitLocked();
      if (reason.empty()) return;
      stopped = true;
      queue.clear();
      queuedBytes = 0;
    }
    cv.notify_all();
    if (onOverflow) onOverflow(reason);
  }
  void run() {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stopped || !queue.empty(); });
      if (queue.empty()) return;  // stopped and drained
      // the first item that may go now (a paced one waits for its time unless stopping)
      const auto now = Clock::now();
      auto pick = queue.end();
      auto wake = Clock::time_point::max();
      for (auto it = queue.begin(); it != queue.end(); ++it) {
        if (!stopped && paced(*it))
          if (auto n = nextSend.find(it->key); n != nextSend.end() && n->second > now) {
            wake = std::min(wake, n->second);
            continue;
          }
        pick = it;
        break;
      }
      if (pick == queue.end()) {
        cv.wait_until(lock, wake);  // or until something is enqueued
        continue;
      }
      Item item = std::move(*pick);
      queue.erase(pick);
      queuedBytes -= item.bytes;
      protocol::Dispatcher* dd = d;
      writing = true;
      writingSince = std::chrono::steady_clock::now();
      lock.unlock();
      if (dd) {
        if (item.send) item.send(*dd);
        else dd->notify(item.method, std::move(item.params));
      }
      lock.lock();
      writing = false;
      if (paced(item))
        nextSend[item.key] = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                                                 std::min(kMaxPaceS, static_cast<double>(item.bytes) / kPaceBytesPerS)));
    }
  }
  // Sends what is queued, then stops the writer; later posts are dropped.
  void stop() {
    {
      std::lock_guard lock(mu);
      stopped = true;
    }
    cv.notify_all();
    if (writer.joinable() && writer.get_id() != std::this_thread::get_id()) writer.join();
    std::lock_guard lock(mu);
    queue.clear();
    queuedBytes = 0;
    d = nullptr;
  }
};

struct LspSession::PendingVerify {
  Reply reply;
  uint64_t handle = 0;
  std::atomic<bool> answered{false};
  explicit PendingVerify(Reply r) : reply(std::move(r)) {}
  bool claim() { return !answered.exchange(true); }
};

namespace {

std::string percentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// file:///a/b.c → /a/b.c; other schemes → the URI itself (used only as a name).
std::string uriToPath(const std::string& uri) {
  if (uri.rfind("file://", 0) == 0) return percentDecode(uri.substr(7));
  return uri;
}

std::optional<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The chain spec of an "algorithm" setting or parameter: auto → engine::kAutoChain, cmc
// → engine::kDefaultChain, any other algorithm a one-stage chain ("kind", "bmc:3").
std::string chainOfAlgorithm(const std::string& a) {
  if (a == "auto") return engine::kAutoChain;
  if (a == "cmc") return engine::kDefaultChain;
  return a;
}

// A "chain" setting or parameter: the engine's spec as one string ("ibmc:k=3,kind|pred")
// or a list of stage specs (["bmc:3", "ibmc"]).
std::string chainOfJson(const json& c) {
  if (c.is_string()) return c.get<std::string>();
  std::string spec;
  for (const json& st : c) spec += (spec.empty() ? "" : ",") + st.get<std::string>();
  return spec;
}

// The properties a session checks until its settings say otherwise (argus.properties):
// reachability, as `argus verify`. Not all of them (the wish) yet: argument-only
// findings are latent now, and k-induction proves simple counting loops under
// valid-memsafety too (the live-heap count is a register, core/cfa/memlayout.h); the
// switch, with the end-to-end tests and timings, is README "Properties in the editor".
constexpr const char* kEditorProperties = "unreach-call";

// A "properties" setting or parameter: a list of names (["valid-memsafety", "no-overflow"])
// or one string (names separated by commas, or an SV-COMP .prp text) → the normalised list
// (normalizeProperties; [] = reachability alone).
std::string propertiesOfJson(const json& p) {
  if (p.is_string()) return normalizeProperties({p.get<std::string>()});
  if (!p.is_array()) throw std::invalid_argument("properties must be a list of property names");
  return normalizeProperties(p.get<std::vector<std::string>>());
}

// Settings: {"algorithm": "auto"|"cmc"|"kind"|…, "chain": "ibmc:k=3,kind|pred" (or a list
// of stages), "timeout": s, "solver": "z3"|"cvc5", "dataModel": "LP64"|"ILP32",
// "properties": ["unreach-call", "valid-memsafety", …]}, optionally under "argus". Throws
// std::invalid_argument / json errors on bad values.
VerifyConfig parseConfig(const json& settingsIn, VerifyConfig cfg) {
  const json& s = settingsIn.is_object() && settingsIn.contains("argus") ? settingsIn["argus"] : settingsIn;
  if (!s.is_object()) return cfg;
  if (s.contains("timeout")) {
    cfg.timeoutS = s["timeout"].get<double>();
    if (cfg.timeoutS < 0) throw std::invalid_argument("timeout must be >= 0");
  }
  if (s.contains("solver")) cfg.solver = smt::parseSolverKind(s["solver"].get<std::string>());
  if (s.contains("dataModel")) cfg.dataModel = frontend::parseDataModel(s["dataModel"].get<std::string>());
  if (s.contains("properties")) cfg.properties = propertiesOfJson(s["properties"]);
  if (s.contains("chain")) cfg.chainSpec = chainOfJson(s["chain"]);
  else if (s.contains("algorithm")) cfg.chainSpec = chainOfAlgorithm(s["algorithm"].get<std::string>());
  cfg.chain = planOf(cfg.chainSpec, cfg.timeoutS);
  return cfg;
}

json rangeJson(const cfa::SourceRange& r) {
  protocol::Range x;
  x.start.line = r.line > 0 ? static_cast<int>(r.line - 1) : 0;
  x.start.character = r.column > 0 ? static_cast<int>(r.column - 1) : 0;
  x.end.line = r.endLine > 0 ? static_cast<int>(r.endLine - 1) : x.start.line;
  x.end.character = r.endColumn > 0 ? static_cast<int>(r.endColumn) : x.start.character;
  return protocol::toJSON(x);
}

// One function's entry in argus/status and argus/statusTable.
json statusJson(const FunctionStatus& f) {
  return {{"name", f.name}, {"range", rangeJson(f.range)}, {"state", stateName(f.state)},
          {"algorithm", f.algorithm}, {"elapsed", f.elapsedS}, {"stage", f.stage}, {"final", f.final},
          {"verifications", f.runs}, {"cacheHits", f.cached}};
}

// BMC's bound as a condition, with the call depth when the unwinding budget cut calls.
std::string boundText(const result::Condition& c) {
  if (c.complete && c.vacuous)
    return "unknown: nothing verified: every check lies behind " +
           (c.excluded.empty() ? std::string("an unsupported construct") : c.excluded.front());
  if (c.complete)
    return "verified on every path (loops fully unrolled within bound " + std::to_string(*c.bound) + ")" +
           (c.excluded.empty() ? std::string() : " except through " + c.excluded.front());
  std::string t = "verified for loops unrolled ≤ " + std::to_string(*c.bound) + " times";
  if (c.callDepth) t += " and calls nested ≤ " + std::to_string(*c.callDepth) + " deep";
  return t;
}

std::string lensTitle(const FunctionStatus& f) {
  auto conditional = [&]() -> std::string {
    const auto& r = *f.result;
    if (result::isLatent(r)) {
      // the first finding's precondition, how many more, and what every other check got
      std::string t = "unknown: latent finding: " + result::preconditionText(*r.counterexample);
      if (!r.moreLatent.empty()) t += " (and " + std::to_string(r.moreLatent.size()) + " more latent)";
      if (r.condition.summary.find("every other check proved") != std::string::npos)
        t += "; every other check proved";
      else if (r.condition.bound)
        t += "; every other check " + boundText(r.condition);
      return t;
    }
    if (r.condition.bound) return boundText(r.condition);
    // conditional model checking: the summary names what was left out
    if (r.condition.summary.rfind("verified except", 0) == 0) return "unknown: " + r.condition.summary;
    return "unknown: " + (r.reason.empty() ? r.condition.summary : r.reason);
  };
  std::string t;
  switch (f.state) {
    case FunctionState::Queued: t = "argus: queued"; break;
    case FunctionState::Running:
      t = f.result && f.result->verdict == result::Verdict::Unknown ? conditional() + " (" + f.algorithm + " running)"
                                                                     : "argus: running " + f.algorithm;
      break;
    case FunctionState::Verified:
      t = "verified";
      // for the inputs that meet its own contract (README "Contracts"), which callers' runs check
      // (a lens is one line: two clauses, then how many more; `argus verify` lists them all)
      if (f.result) {
        const std::vector<std::string>& pre = f.result->assumedPrecondition;
        for (size_t i = 0; i < pre.size() && i < 2; ++i) t += (i ? ", " : " assuming its precondition: ") + pre[i];
        if (pre.size() > 2) t += " and " + std::to_string(pre.size() - 2) + " more";
        // a true of the entry model's inputs, whose pointers stop at its depth bound
        // (README "Entry models"): a list bug at its third node is not in that model
        if (f.result->condition.summary.find(engine::kDepthBoundCaveat) != std::string::npos)
          t += " (entry model: pointers 2 objects deep are null)";
      }
      break;
    case FunctionState::Violated:
      t = "counterexample (" + std::to_string(f.result->counterexample ? f.result->counterexample->steps.size() : 0) +
          " steps)";
      // a property other than reachability is named: "false(valid-free): counterexample (9 steps)"
      if (f.result->counterexample && !f.result->counterexample->property.empty())
        t = result::verdictText(*f.result) + ": " + t;
      break;
    case FunctionState::Conditional: t = conditional(); break;
    case FunctionState::Error: t = "unknown: " + (f.error.empty() && f.result ? f.result->reason : f.error); break;
  }
  return t;
}

}  // namespace

std::vector<std::string> flagsFromCompileCommands(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = fs::absolute(path, ec);
  std::vector<std::string> out;
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    for (const fs::path& cand : {dir / "compile_commands.json", dir / "build" / "compile_commands.json"}) {
      auto text = readFile(cand.string());
      if (!text) continue;
      json db = json::parse(*text, nullptr, false);
      if (!db.is_array()) return out;
      for (const json& e : db) {
        if (!e.is_object()) continue;
        fs::path edir = e.value("directory", "");
        fs::path efile = e.value("file", "");
        if (efile.is_relative()) efile = edir / efile;
        if (fs::weakly_canonical(efile, ec) != fs::weakly_canonical(file, ec)) continue;
        std::vector<std::string> args;
        if (e.contains("arguments")) args = e["arguments"].get<std::vector<std::string>>();
        else args = frontend::splitCommand(e.value("command", ""));
        out = frontend::frontendFlags(args, edir.string());
        return out;
      }
      return out;  // nearest database wins even without an entry
    }
    if (dir == dir.root_path()) break;
  }
  return out;
}

LspSession::LspSession(Service& service, protocol::Transport& transport, Options options)
    : service_(service),
      transport_(transport),
      opts_(std::move(options)),
      dispatcher_([this](const json& m) { transport_.send(m); }),
      outbox_(std::make_shared<Outbox>()) {
  outbox_->maxBytes = opts_.maxQueueBytes;
  outbox_->stallS = opts_.stallS;
  outbox_->start(&dispatcher_, [this](const std::string& why) {
    std::cerr << "argusd: disconnecting client " << (opts_.label.empty() ? opts_.idPrefix : opts_.label) << ": " << why
              << std::endl;
    transport_.close();
  });
  // Remote clients' text may #include only system headers (never the server's files).
  config_.systemHeadersOnly = opts_.requireToken;
  config_.properties = normalizeProperties({kEditorProperties});
  registerHandlers();
  watcher_ = std::thread([this] { watchCancellations(); });
}

LspSession::~LspSession() {
  onClose();
  if (watcher_.joinable()) watcher_.join();
}

void LspSession::onClose() {
  {
    std::lock_guard lock(mu_);
    if (closing_) return;
    closing_ = true;
  }
  cv_.notify_all();
  for (const auto& [uri, text] : texts_) service_.close(docId(uri));
  texts_.clear();
  std::map<std::string, std::shared_ptr<PendingVerify>> pending;
  {
    std::lock_guard lock(mu_);
    pending.swap(verifies_);
  }
  for (auto& [id, p] : pending) {
    p->claim();  // late stage callbacks become no-ops
    service_.cancelOnce(p->handle);
  }
  outbox_->stop();
  dispatcher_.close();
}

void LspSession::registerHandlers() {
  using namespace protocol;
  dispatcher_.setRequestGate([this](const std::string& method) -> std::optional<RpcError> {
    if (method == "exit") return std::nullopt;
    if (shutdown_) return RpcError(ErrorCode::InvalidRequest, "server is shutting down");
    if (initialized_ || method == "initialize") return std::nullopt;
    if (opts_.requireToken) return RpcError(ErrorCode::Unauthorized, "unauthorized: initialize with a valid token first");
    return RpcError(ErrorCode::ServerNotInitialized, "server not initialized");
  });

  dispatcher_.onRequest("initialize", [this](const json& raw, Reply r) {
    InitializeParams p;
    std::string perr;
    if (!fromJSON(raw, p, JsonPath(&perr, "params"))) return r.error(ErrorCode::InvalidParams, "invalid params for initialize: " + perr);
    if (opts_.requireToken) {
      const json& io = p.initializationOptions;
      bool ok = io.is_object() && io.contains("token") && io["token"].is_string() &&
                io["token"].get<std::string>() == opts_.token;
      if (!ok) return r.error(ErrorCode::Unauthorized, "unauthorized: missing or wrong initializationOptions.token");
    }
    try {
      if (p.initializationOptions.is_object()) {
        config_ = parseConfig(p.initializationOptions, config_);
        config_.systemHeadersOnly = opts_.requireToken;
      }
    } catch (const std::exception& e) {
      return r.error(ErrorCode::InvalidParams, std::string("bad initializationOptions: ") + e.what());
    }
    {
      std::lock_guard lock(mu_);
      clientProgress_ = p.workDoneProgress;
      const json* cl = &raw;
      for (const char* k : {"capabilities", "workspace", "codeLens", "refreshSupport"})
        cl = cl && cl->is_object() && cl->contains(k) ? &(*cl)[k] : nullptr;
      clientLensRefresh_ = cl && cl->is_boolean() && cl->get<bool>();
    }
    initialized_ = true;
    InitializeResult res;
    res.capabilities.textDocumentSync = TextDocumentSyncKind::Incremental;
    res.capabilities.codeLensProvider = true;
    res.capabilities.experimental = json{{"argus", {{"verify", true}, {"status", true}, {"partialResult", true}}}};
    res.serverInfo = ServerInfo{"argusd", std::string("0.1")};
    r.result(res);
  });
  dispatcher_.onNotification("initialized", [](const json&) {});
  // argus/visibleRange {uri, range}: the lines the editor shows; their functions are
  // verified before the rest of the workspace (scheduler.h).
  dispatcher_.onNotification("argus/visibleRange", [this](const json& p) {
    if (!p.is_object() || !p.contains("uri") || !p["uri"].is_string() || !p.contains("range")) return;
    try {
      int first = p["range"]["start"]["line"].get<int>(), last = p["range"]["end"]["line"].get<int>();
      if (first < 0 || last < first) return;
      service_.setVisible(docId(p["uri"].get<std::string>()), static_cast<uint32_t>(first + 1), static_cast<uint32_t>(last + 1));
    } catch (const std::exception&) {
    }
  });
  dispatcher_.onRequest("shutdown", [this](const json&, Reply r) {
    shutdown_ = true;
    r.result(nullptr);
  });
  dispatcher_.onNotification("exit", [this](const json&) {
    if (opts_.onExit) opts_.onExit();
    transport_.close();
  });

  dispatcher_.onNotification<DidOpenTextDocumentParams>("textDocument/didOpen", [this](const DidOpenTextDocumentParams& p) {
    const auto& doc = p.textDocument;
    texts_[doc.uri] = doc.text;
    std::string path = uriToPath(doc.uri);
    // compile_commands.json is the server's file: local clients only
    std::vector<std::string> flags = doc.uri.rfind("file://", 0) == 0 && !opts_.requireToken
                                         ? flagsFromCompileCommands(path)
                                         : std::vector<std::string>{};
    std::string uri = doc.uri;
    service_.open(docId(uri), path, doc.text, doc.version, flags, config_,
                  [this, uri](const DocumentSnapshot& s) { onSnapshot(uri, s); });
  });
  dispatcher_.onNotification<DidChangeTextDocumentParams>("textDocument/didChange", [this](const DidChangeTextDocumentParams& p) {
    auto it = texts_.find(p.textDocument.uri);
    if (it == texts_.end()) return;
    std::string error;
    if (!applyContentChanges(it->second, p.contentChanges, &error)) {
      outbox_->notify("window/logMessage", {{"type", 1}, {"message", "argusd: bad didChange for " + p.textDocument.uri + ": " + error}});
      return;
    }
    service_.update(docId(p.textDocument.uri), it->second, p.textDocument.version);
  });
  dispatcher_.onNotification<DidSaveTextDocumentParams>("textDocument/didSave", [](const DidSaveTextDocumentParams&) {});
  dispatcher_.onNotification<DidCloseTextDocumentParams>("textDocument/didClose", [this](const DidCloseTextDocumentParams& p) {
    if (!texts_.erase(p.textDocument.uri)) return;
    service_.close(docId(p.textDocument.uri));
    updateProgress(p.textDocument.uri, 0);
    outbox_->notifyLatest("textDocument/publishDiagnostics", p.textDocument.uri, {{"uri", p.textDocument.uri}, {"diagnostics", json::array()}});
    {
      std::lock_guard lock(mu_);
      fnDiags_.erase(p.textDocument.uri);
      lensTitles_.erase(p.textDocument.uri);
    }
  });
  dispatcher_.onNotification<DidChangeConfigurationParams>("workspace/didChangeConfiguration", [this](const DidChangeConfigurationParams& p) {
    try {
      config_ = parseConfig(p.settings, config_);
      config_.systemHeadersOnly = opts_.requireToken;
    } catch (const std::exception& e) {
      outbox_->notify("window/showMessage", {{"type", 1}, {"message", std::string("argusd: bad configuration: ") + e.what()}});
      return;
    }
    for (const auto& [uri, text] : texts_) service_.configure(docId(uri), config_);
  });

  dispatcher_.onRequest<CodeLensParams>("textDocument/codeLens", [this](const CodeLensParams& p, Reply r) {
    json lenses = json::array();
    if (auto snap = service_.snapshot(docId(p.textDocument.uri)))
      for (const FunctionStatus& f : snap->functions) {
        CodeLens l;
        l.range.start.line = f.range.line > 0 ? static_cast<int>(f.range.line - 1) : 0;
        l.range.end = l.range.start;
        l.command = Command{lensTitle(f), "argus.showResult", std::vector<json>{p.textDocument.uri, f.name}};
        l.data = json{{"function", f.name}, {"state", stateName(f.state)}};
        lenses.push_back(toJSON(l));
      }
    r.result(lenses);
  });

  // argus/counterexample and argus/condition: {uri, function} → the latest result's
  // error path / condition for that entry (null when there is none).
  auto latest = [this](const json& params, Reply& r) -> std::optional<json> {
    if (!params.is_object() || !params.contains("uri") || !params["uri"].is_string() || !params.contains("function") ||
        !params["function"].is_string()) {
      r.error(ErrorCode::InvalidParams, "expected {\"uri\": string, \"function\": string}");
      return std::nullopt;
    }
    auto snap = service_.snapshot(docId(params["uri"].get<std::string>()));
    if (!snap) {
      r.error(ErrorCode::InvalidParams, "not an open document: " + params["uri"].get<std::string>());
      return std::nullopt;
    }
    for (const FunctionStatus& f : snap->functions)
      if (f.name == params["function"].get<std::string>()) {
        json j = f.result ? result::toJson(*f.result) : json();
        if (!j.is_null()) j["state"] = stateName(f.state);
        return j;
      }
    r.error(ErrorCode::InvalidParams, "no function '" + params["function"].get<std::string>() + "' in this document");
    return std::nullopt;
  };
  // argus/statusTable: {uri} → the whole table (argus/status notifications carry only
  // the functions that changed since the previous one).
  dispatcher_.onRequest("argus/statusTable", [this](const json& params, Reply r) {
    if (!params.is_object() || !params.contains("uri") || !params["uri"].is_string())
      return r.error(ErrorCode::InvalidParams, "expected {\"uri\": string}");
    auto snap = service_.snapshot(docId(params["uri"].get<std::string>()));
    if (!snap) return r.error(ErrorCode::InvalidParams, "not an open document: " + params["uri"].get<std::string>());
    json fns = json::array();
    for (const FunctionStatus& f : snap->functions) fns.push_back(statusJson(f));
    r.result({{"uri", params["uri"]}, {"version", snap->version}, {"pending", snap->pending},
              {"parseError", !snap->parseError.empty()}, {"full", true}, {"functions", fns}});
  });
  dispatcher_.onRequest("argus/counterexample", [latest](const json& params, Reply r) {
    auto j = latest(params, r);
    if (!j) return;
    r.result(j->is_object() && (*j)["counterexample"].is_object() ? (*j)["counterexample"] : json());
  });
  dispatcher_.onRequest("argus/condition", [latest](const json& params, Reply r) {
    auto j = latest(params, r);
    if (!j) return;
    if (!j->is_object()) return r.result(nullptr);
    json c = (*j)["condition"];
    c["verdict"] = (*j)["verdict"];
    c["algorithm"] = (*j)["algorithm"];
    c["state"] = (*j)["state"];
    if (j->contains("reason")) c["reason"] = (*j)["reason"];
    r.result(c);
  });

  dispatcher_.onRequest("argus/workers", [this](const json&, Reply r) {
    json pids = json::array(), workers = json::array();
    for (const auto& w : service_.scheduler().workers()) {
      pids.push_back(w.pid);
      workers.push_back({{"pid", w.pid}, {"file", w.file}, {"function", w.function}, {"stage", w.stage}});
    }
    r.result({{"pids", pids}, {"workers", workers}});
  });
  dispatcher_.onRequest("argus/stats", [this](const json&, Reply r) {
    Service::Stats s = service_.stats();
    r.result({{"parses", s.parses}, {"tuCacheHits", s.tuCacheHits}, {"memoryHits", s.memoryHits},
              {"storeHits", s.storeHits}, {"flightWaits", s.flightWaits}, {"workerRuns", s.workerRuns}, {"workerRestarts", s.workerRestarts},
              {"workerParses", s.workerParses}, {"cfaLoads", s.cfaLoads}, {"workersRecycled", s.workersRecycled},
              {"analyses", service_.scheduler().analysesRun()},
              {"jobsOverBudget", service_.scheduler().jobsOverBudget()},
              {"jobsRerunAlone", service_.scheduler().jobsRerunAlone()},
              {"memoryWaits", service_.scheduler().memoryWaits()},
              {"streamEnqueued", s.streamEnqueued}, {"streamJobsTaken", s.streamTaken},
              {"streamReclaims", s.streamReclaimed}, {"streamFailed", s.streamFailed},
              {"streamReleased", s.streamReleased}, {"streamReplies", s.streamReplies},
              {"streamLostReplies", s.streamLostReplies},
              {"jobStream", service_.queue() != nullptr},
              {"queued", service_.scheduler().queued()}, {"running", service_.scheduler().running()}});
  });

  dispatcher_.onRequest("argus/verify", [this](const json& params, Reply r) {
    if (!params.is_object()) return r.error(ErrorCode::InvalidParams, "argus/verify takes an object");
    Service::OnceRequest req;
    req.group = opts_.idPrefix;
    try {
      if (params.contains("text")) {
        req.text = params.at("text").get<std::string>();
        req.file = params.value("filename", std::string("input.c"));
      } else if (params.contains("uri")) {
        std::string uri = params["uri"].get<std::string>();
        if (auto it = texts_.find(uri); it != texts_.end()) req.text = it->second;
        else if (uri.rfind("file://", 0) != 0 || opts_.requireToken)
          // Remote clients may not make the server read its files.
          return r.error(ErrorCode::InvalidParams, "uri is not an open document" + std::string(opts_.requireToken ? "" : " or a file:// URI"));
        else if (auto t = readFile(uriToPath(uri))) req.text = *t;
        else return r.error(ErrorCode::InvalidParams, "cannot read " + uriToPath(uri));
        req.file = params.value("filename", uriToPath(uri));
      } else {
        return r.error(ErrorCode::InvalidParams, "argus/verify needs \"text\" (with \"filename\") or \"uri\"");
      }
      if (params.contains("flags")) {
        const json& f = params["flags"];
        if (f.is_string()) {
          std::istringstream ss(f.get<std::string>());
          for (std::string a; ss >> a;) req.flags.push_back(a);
        } else {
          req.flags = f.get<std::vector<std::string>>();
        }
      }
      if (opts_.requireToken)
        // Remote clients get only flags that cannot make the frontend read server files.
        for (const std::string& f : req.flags)
          if (!(f.rfind("-D", 0) == 0 || f.rfind("-U", 0) == 0 || f.rfind("-std=", 0) == 0))
            throw std::invalid_argument("flag '" + f + "' is not allowed for remote clients (allowed: -D, -U, -std=)");
      req.function = params.value("function", std::string("main"));
      double timeout = params.contains("timeout") ? params["timeout"].get<double>() : 60.0;
      if (timeout < 0) throw std::invalid_argument("timeout must be >= 0");
      req.cfg = config_;
      if (params.contains("solver")) req.cfg.solver = smt::parseSolverKind(params["solver"].get<std::string>());
      if (params.contains("properties")) req.cfg.properties = propertiesOfJson(params["properties"]);
      req.cfg.timeoutS = timeout;
      req.cfg.chainSpec = params.contains("chain") ? chainOfJson(params["chain"])
                                                   : chainOfAlgorithm(params.value("algorithm", std::string("auto")));
      req.cfg.chain = planOf(req.cfg.chainSpec, timeout);
    } catch (const std::exception& e) {
      return r.error(ErrorCode::InvalidParams, std::string("invalid params for argus/verify: ") + e.what());
    }
    auto pv = std::make_shared<PendingVerify>(r);
    std::string key = r.id().str();
    {
      std::lock_guard lock(mu_);
      verifies_[key] = pv;
    }
    json reqId = r.id().toJSON();
    auto outbox = outbox_;
    // "format": "sarif" answers with a SARIF 2.1.0 log (core/result/sarif.h) instead of
    // the result's JSON; "codec" with the lossless form (core/result/codec.h) that
    // `argus remote verify` decodes and prints with the CLI's own printers. The partial
    // results stay JSON.
    std::string format = params.value("format", std::string("json"));
    if (format != "json" && format != "sarif" && format != "codec")
      return r.error(ErrorCode::InvalidParams, "invalid params for argus/verify: format must be json, sarif or codec");
    std::string fileName = req.file, started = result::utcNow();
    // The callbacks never touch the session (they may outlive it): answered entries
    // are dropped from verifies_ by the watcher thread.
    uint64_t handle = service_.verifyOnce(
        std::move(req),
        [pv, outbox, reqId, format, fileName, started](unsigned stage, const result::VerificationResult& res, bool final,
                                                        bool cached) {
          if (pv->answered) return;
          json j = result::toJson(res);
          outbox->notify("argus/partialResult", {{"id", reqId}, {"stage", stage}, {"final", final}, {"cached", cached}, {"result", j}});
          if (final && pv->claim()) {
            if (format == "sarif")
              j = result::toSarif({{fileName, j}}, {{"argusd", "argus/verify"}, started, result::utcNow(), true});
            else if (format == "codec")
              j = result::encodeResult(res);
            outbox->post([pv, j = std::move(j)](protocol::Dispatcher&) mutable { pv->reply.result(std::move(j)); });
          }
        },
        [pv, outbox](const std::string& msg) {
          if (!pv->claim()) return;
          outbox->post([pv, msg](protocol::Dispatcher&) { pv->reply.error(ErrorCode::RequestFailed, msg); });
        });
    std::lock_guard lock(mu_);
    pv->handle = handle;
  });
}

void LspSession::watchCancellations() {
  std::unique_lock lock(mu_);
  while (!closing_) {
    cv_.wait_for(lock, std::chrono::milliseconds(20));
    std::vector<std::shared_ptr<PendingVerify>> cancelled;
    for (auto it = verifies_.begin(); it != verifies_.end();) {
      if (it->second->answered) {
        it = verifies_.erase(it);
      } else if (it->second->reply.isCancelled() && it->second->handle) {
        cancelled.push_back(it->second);
        it = verifies_.erase(it);
      } else {
        ++it;
      }
    }
    lock.unlock();
    outbox_->checkStall();
    for (auto& p : cancelled) {
      service_.cancelOnce(p->handle);
      if (p->claim())
        outbox_->post([p](protocol::Dispatcher&) { p->reply.error(ErrorCode::RequestCancelled, "request cancelled"); });
    }
    lock.lock();
  }
}

void LspSession::updateProgress(const std::string& uri, unsigned pending) {
  std::unique_lock lock(mu_);
  if (pending) pending_[uri] = pending;
  else pending_.erase(uri);
  unsigned total = 0;
  for (auto& [u, n] : pending_) total += n;
  progressWanted_ = total > 0;
  if (!clientProgress_) return;
  if (total > 0 && progressState_ == 0) {
    progressState_ = 1;
    progressToken_ = "argus/verify/" + std::to_string(++progressSeq_);
    std::string token = progressToken_;
    lock.unlock();
    auto outbox = outbox_;
    outbox_->post([this, outbox, token](protocol::Dispatcher& d) {
      d.call("window/workDoneProgress/create", {{"token", token}}, [this, outbox, token](protocol::CallResult res) {
                       std::lock_guard lock2(mu_);
                       if (closing_ || progressState_ != 1 || progressToken_ != token) return;
                       if (std::holds_alternative<RpcError>(res) || !progressWanted_) {
                         progressState_ = 0;
                         return;
                       }
                       progressState_ = 2;
                       outbox->notify("$/progress", {{"token", token}, {"value", {{"kind", "begin"}, {"title", "Argus: verifying"}, {"cancellable", false}}}});
                     });
    });
    return;
  }
  if (progressState_ != 2) return;
  if (total > 0) {
    outbox_->notify("$/progress", {{"token", progressToken_}, {"value", {{"kind", "report"}, {"message", std::to_string(total) + " function(s) pending"}}}});
  } else {
    outbox_->notify("$/progress", {{"token", progressToken_}, {"value", {{"kind", "end"}, {"message", "done"}}}});
    progressState_ = 0;
  }
}

void LspSession::onSnapshot(const std::string& uri, const DocumentSnapshot& snap) {
  // Positions: 1-based byte columns from the engine are sent as UTF-16 columns
  // (identical for ASCII source lines).
  // Diagnostics are kept per function (fnDiags_) and rebuilt only for the functions
  // that changed; the document's list is published when one of them changed.
  json* target = nullptr;
  json parseDiags = json::array();
  auto diag = [&](const protocol::Range& r, protocol::DiagnosticSeverity sev, std::string msg, json related, json data) {
    json d = {{"range", protocol::toJSON(r)}, {"severity", static_cast<int>(sev)}, {"source", "argus"}, {"message", std::move(msg)}};
    if (!related.empty()) d["relatedInformation"] = std::move(related);
    if (!data.is_null()) d["data"] = std::move(data);
    target->push_back(std::move(d));
  };
  auto simpleRange = [](uint32_t line1, uint32_t col1, size_t len) {
    protocol::Range r;
    r.start.line = line1 > 0 ? static_cast<int>(line1 - 1) : 0;
    r.start.character = col1 > 0 ? static_cast<int>(col1 - 1) : 0;
    r.end.line = r.start.line;
    r.end.character = r.start.character + static_cast<int>(std::max<size_t>(len, 1));
    return r;
  };
  target = &parseDiags;
  if (!snap.parseError.empty()) {
    // First "file:line:col: error: ..." line of Clang's output.
    uint32_t line = 1, col = 1;
    std::string first = snap.parseError.substr(0, snap.parseError.find('\n'));
    std::istringstream ss(snap.parseError);
    for (std::string l; std::getline(ss, l);) {
      auto e = l.find(": error: ");
      if (e == std::string::npos) continue;
      first = l.substr(e + 2);
      std::string head = l.substr(0, e);
      auto c2 = head.rfind(':'), c1 = c2 == std::string::npos ? c2 : head.rfind(':', c2 - 1);
      if (c1 != std::string::npos) {
        try {
          line = static_cast<uint32_t>(std::stoul(head.substr(c1 + 1, c2 - c1 - 1)));
          col = static_cast<uint32_t>(std::stoul(head.substr(c2 + 1)));
        } catch (...) {
        }
      }
      break;
    }
    diag(simpleRange(line, col, 1), protocol::DiagnosticSeverity::Error, "argus: cannot parse: " + first, json::array(), nullptr);
  }
  json status = json::array();
  std::map<std::string, json> fresh;  // changed function → its diagnostics
  for (std::size_t idx : snap.changed) {
    const FunctionStatus& f = snap.functions.at(idx);
    json& mine = fresh[f.name];
    mine = json::array();
    target = &mine;
    status.push_back(statusJson(f));
    // the path as relatedInformation, one entry per step
    auto pathOf = [&](const std::vector<result::TraceStep>& steps) {
      json related = json::array();
      size_t i = 0;
      for (const auto& s : steps) {
        std::string msg = "step " + std::to_string(++i) + ": " + s.statement;
        if (!s.values.empty()) {
          msg += "  [";
          for (size_t k = 0; k < s.values.size(); ++k)
            msg += (k ? ", " : "") + s.values[k].first + " = " + s.values[k].second;
          msg += "]";
        }
        if (s.nondet) msg += " (nondet)";
        related.push_back({{"location", {{"uri", uri}, {"range", protocol::toJSON(simpleRange(s.line, s.column, s.statement.size()))}}},
                           {"message", msg}});
      }
      return related;
    };
    if (f.state == FunctionState::Conditional && f.result && result::isLatent(*f.result)) {
      // a latent finding (issue 29 item 4): Information, at the error, with its path
      const auto& cex = *f.result->counterexample;
      const result::TraceStep* last = cex.steps.empty() ? nullptr : &cex.steps.back();
      uint32_t line = last ? last->line : f.range.line, col = last ? last->column : f.range.column;
      std::string msg = "argus: latent finding in '" + f.name + "': " +
                        (last ? last->statement : std::string("error location")) + " is reachable when '" + f.name +
                        "' " + result::preconditionText(cex) + " (no caller passes such inputs; counterexample with " +
                        std::to_string(cex.steps.size()) + " steps, " + f.algorithm + ")";
      const std::string prop = cex.property.empty() ? "unreach-call" : cex.property;
      diag(simpleRange(line, col, last ? last->statement.size() : 1), protocol::DiagnosticSeverity::Information, msg,
           pathOf(cex.steps), json{{"function", f.name}, {"state", "latent"}, {"property", prop}});
      target->back()["code"] = "argus." + prop;
    } else if (f.state == FunctionState::Violated && f.result && f.result->counterexample) {
      const auto& cex = *f.result->counterexample;
      const auto& steps = cex.steps;
      const result::TraceStep* last = steps.empty() ? nullptr : &steps.back();
      json related = pathOf(steps);
      uint32_t line = last ? last->line : f.range.line, col = last ? last->column : f.range.column;
      const std::string entry = "entry '" + f.name + "'" +
                                (f.name == "main"       ? " (initial state)"
                                 : cex.entry != f.name ? " (through its caller '" + cex.entry + "')"
                                                       : " (whatever its arguments)");
      const std::string where = last ? last->statement : std::string("error location");
      const std::string tail = " — counterexample with " + std::to_string(steps.size()) + " steps (" + f.algorithm + ")";
      // each property its own code (argus.unreach-call, argus.valid-deref, argus.no-overflow, ...)
      const std::string prop = cex.property.empty() ? "unreach-call" : cex.property;
      std::string msg = cex.property.empty()
                            ? "error reachable from " + entry + ": " + where + tail
                            : prop + " violated from " + entry + ": " + where +
                                  (cex.violation.empty() ? "" : " — " + cex.violation) + tail;
      diag(simpleRange(line, col, last ? last->statement.size() : 1), protocol::DiagnosticSeverity::Error, msg, related,
           json{{"function", f.name}, {"state", "violated"}, {"property", prop}});
      target->back()["code"] = "argus." + prop;
    } else if (f.state == FunctionState::Conditional && f.result) {
      std::string what = f.result->condition.bound
                             ? boundText(f.result->condition)
                         : f.result->condition.summary.rfind("verified except", 0) == 0
                             ? "unknown: " + f.result->condition.summary
                             : "unknown: " + (f.result->reason.empty() ? f.result->condition.summary : f.result->reason);
      diag(simpleRange(f.range.line, f.range.column, f.name.size()), protocol::DiagnosticSeverity::Information,
           "argus: '" + f.name + "' " + what + (f.final ? "" : " (deeper check pending)"), json::array(),
           json{{"function", f.name}, {"state", "conditional"}});
    } else if (f.state == FunctionState::Error) {
      std::string why = !f.error.empty() ? f.error : f.result ? f.result->reason : std::string("error");
      diag(simpleRange(f.range.line, f.range.column, f.name.size()), protocol::DiagnosticSeverity::Warning,
           "argus: could not verify '" + f.name + "': " + why, json::array(), json{{"function", f.name}, {"state", "error"}});
    }
    // further latent findings (the run went on after the first): Information each, at its
    // error, with its own path
    if (f.result && (f.state == FunctionState::Conditional || f.state == FunctionState::Violated))
      for (const result::Counterexample& m : f.result->moreLatent) {
        if (m.steps.empty()) continue;
        const result::TraceStep& last = m.steps.back();
        std::string msg = "argus: latent finding in '" + f.name + "': " + last.statement + " is reachable when '" +
                          f.name + "' " + result::preconditionText(m) + " (no caller passes such inputs; counterexample with " +
                          std::to_string(m.steps.size()) + " steps, " + f.algorithm + ")";
        const std::string prop = m.property.empty() ? "unreach-call" : m.property;
        diag(simpleRange(last.line, last.column, last.statement.size()), protocol::DiagnosticSeverity::Information, msg,
             pathOf(m.steps), json{{"function", f.name}, {"state", "latent"}, {"property", prop}});
        target->back()["code"] = "argus." + prop;
      }
  }
  bool diagsChanged = snap.full;
  json diags;
  {
    std::lock_guard lock(mu_);
    auto& cache = fnDiags_[uri];
    if (snap.full) cache.clear();
    if (cache["\x01parse"] != parseDiags) {
      cache["\x01parse"] = parseDiags;
      diagsChanged = true;
    }
    for (auto& [name, d] : fresh) {
      json& old = cache[name];
      if (old != d) {
        old = std::move(d);
        diagsChanged = true;
      }
    }
    if (diagsChanged) {
      diags = parseDiags;
      for (const FunctionStatus& f : snap.functions)
        if (auto it = cache.find(f.name); it != cache.end())
          for (const json& d : it->second) diags.push_back(d);
    }
  }
  if (diagsChanged)
    outbox_->notifyLatest("textDocument/publishDiagnostics", uri, {{"uri", uri}, {"version", snap.version}, {"diagnostics", diags}});
  // argus/status: the first message of a version lists every function ("full": true),
  // later ones only those whose state changed; argus/statusTable returns the table.
  if (snap.full || !status.empty())
    outbox_->notifyLatest("argus/status", uri, {{"uri", uri}, {"version", snap.version}, {"pending", snap.pending},
                                                {"parseError", !snap.parseError.empty()}, {"full", snap.full},
                                                {"functions", status}});
  updateProgress(uri, snap.pending);

  // Editors ask for code lenses themselves after edits, not after results arrive:
  // tell them (workspace/codeLens/refresh) when a lens title of this document changed.
  std::string titles;
  for (const FunctionStatus& f : snap.functions) titles += f.name + "\x1f" + lensTitle(f) + "\x1e";
  bool refresh = false;
  {
    std::lock_guard lock(mu_);
    if (clientLensRefresh_ && lensTitles_[uri] != titles) {
      lensTitles_[uri] = titles;
      refresh = true;
    }
  }
  if (refresh)
    outbox_->post([](protocol::Dispatcher& d) { d.call("workspace/codeLens/refresh", nullptr, [](protocol::CallResult) {}); });
}

}  // namespace argus::server
