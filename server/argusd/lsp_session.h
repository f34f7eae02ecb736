// The LSP binding of argusd (the ClangdLSPServer of this project): one object per
// connection (stdio, or one per TCP session), owning its Dispatcher. It converts
// between LSP/JSON and the JSON-free Service: documents → Service documents (ids are
// prefixed per session, so clients never see each other's documents), snapshots →
// publishDiagnostics / argus/status / $/progress, code lenses from the latest
// snapshot, argus/verify → Service::verifyOnce with argus/partialResult
// notifications.
//
// Threads: handlers run on the transport thread; snapshot and stage callbacks come
// from service threads and never write to the client themselves: they queue
// notifications / replies on the session's Outbox, whose writer thread sends them
// (a slow or stuck client cannot stall the service or other clients; a queue that
// overflows closes that connection). A small watcher thread
// turns $/cancelRequest of a pending argus/verify into Service::cancelOnce and a
// RequestCancelled reply.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "protocol/dispatcher.h"
#include "protocol/lsp.h"
#include "protocol/transport.h"
#include "server/service/service.h"

namespace argus::server {

class LspSession : public protocol::TransportHandler {
 public:
  struct Options {
    bool requireToken = false;  // TCP: initialize must carry initializationOptions.token
    std::string token;
    std::string idPrefix;       // namespaces this session's documents in the Service
    std::function<void()> onExit;  // `exit` notification
    // Backpressure (see Outbox in lsp_session.cpp): a client whose outgoing queue grows
    // past maxQueueBytes, or that takes no message for stallS, is disconnected.
    std::size_t maxQueueBytes = 64u << 20;
    double stallS = 20;
    std::string label;  // names the client in log lines (session id and peer address)
  };
  LspSession(Service& service, protocol::Transport& transport, Options options);
  ~LspSession() override;

  void onMessage(std::string_view body) override { dispatcher_.onMessage(body); }
  void onFramingError(const protocol::FramingError& e) override { dispatcher_.onFramingError(e); }
  void onClose() override;

 private:
  struct Outbox;
  struct PendingVerify;
  void registerHandlers();
  void onSnapshot(const std::string& uri, const DocumentSnapshot& snap);
  void updateProgress(const std::string& uri, unsigned pending);
  void watchCancellations();
  std::string docId(const std::string& uri) const { return opts_.idPrefix + uri; }

  Service& service_;
  protocol::Transport& transport_;
  Options opts_;
  protocol::Dispatcher dispatcher_;
  std::shared_ptr<Outbox> outbox_;
  VerifyConfig config_;               // transport thread only
  bool initialized_ = false;          // written on the transport thread before the gate reads it
  bool shutdown_ = false;
  std::map<std::string, std::string> texts_;  // uri → current text (transport thread only)

  std::mutex mu_;  // guards the members below
  std::map<std::string, unsigned> pending_;  // uri → functions not final
  int progressState_ = 0;                    // 0 idle, 1 creating, 2 active
  bool progressWanted_ = false;
  int progressSeq_ = 0;
  std::string progressToken_;
  bool clientProgress_ = false;
  bool clientLensRefresh_ = false;
  std::map<std::string, std::string> lensTitles_;  // uri → last lens titles sent
  std::map<std::string, std::map<std::string, protocol::json>> fnDiags_;  // uri → function → its diagnostics
  std::map<std::string, std::shared_ptr<PendingVerify>> verifies_;  // request id → pending
  bool closing_ = false;
  std::condition_variable cv_;
  std::thread watcher_;
};

// Reads compile flags for `path` from the nearest compile_commands.json (searching
// the file's directory and its parents, and their build/ subdirectories). Keeps
// -I/-D/-U/-std/-include/-isystem; relative include paths are made absolute.
std::vector<std::string> flagsFromCompileCommands(const std::string& path);

}  // namespace argus::server
