// argusd: the Argus daemon. Modes:
//   argusd --stdio                                   LSP on stdin/stdout (one client)
//   argusd --listen 127.0.0.1:PORT --token-file F    JSON-RPC/LSP over TCP, loopback only
//                                                    (--allow-remote: any address, e.g. 0.0.0.0 in
//                                                    a container; the token is required as always)
//   argusd --worker [--memory-mb N] [--solver-memory-mb N] [--job-memory-mb N]  internal: a worker
// Common options: --workers N (default: cores), --store PATH | --no-store (result
// store; default $ARGUS_STORE or ~/.cache/argus/results.sqlite), --memory-mb N
// (RLIMIT_AS per worker), --debounce-ms N (default: adaptive, 50..500 ms),
// --memory-budget MB (daemon + workers; idle workers above their share are recycled),
// --solver-memory-mb N (Z3's allocations per worker process, a query that would pass it
// ends unknown "out of memory"; default a quarter of the budget, 0 = none),
// --job-memory-mb N (a worker process's resident memory at which the BMC unwinding and
// the CPA analyses stop "out of memory" with what they verified; default half the budget),
// --client-queue-mb N and --client-stall-s S (a client that does not read its
// messages is disconnected: queue over N MB, or no message taken for S seconds).
// Team service: --redis redis://[USER@]HOST:PORT/DB keeps results in Redis, shared by
// every replica given the same URL (server/service/redis_store.h); the password from
// --redis-password-file F or $ARGUS_REDIS_PASSWORD (never on the command line). Redis
// unreachable or the password wrong: an error at start, exit 1. With --redis the stages of
// argus/verify requests also go through the replicas' job stream on that Redis
// (server/service/redis_queue.h): --redis-claim-ms N (default 15000: a job whose runner
// stopped its heartbeat for N ms is reclaimed by another replica), --redis-max-deliveries
// N (default 3: a job that failed on N deliveries is reported failed to its client).
//   argusd --health HOST:PORT [--token-file F]       exit 0 when a daemon answers there
// (with a token: an authorized argus/stats; without: any JSON-RPC answer), else 1.
// Architecture: server/README.md.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <optional>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "protocol/stdio_transport.h"
#include "protocol/tcp_server.h"
#include "protocol/tcp_client.h"
#include "server/argusd/lsp_session.h"
#include "server/service/redis_store.h"
#include "server/service/service.h"

namespace {

const char* kUsage =
    "usage: argusd --stdio [options]\n"
    "       argusd --listen 127.0.0.1:PORT --token-file FILE [options]\n"
    "options: --workers N  --store PATH | --no-store  --memory-mb N  --debounce-ms N\n"
    "         --memory-budget MB  --solver-memory-mb N  --job-memory-mb N\n"
    "         --client-queue-mb N  --client-stall-s S\n"
    "         --allow-remote  (--listen on a non-loopback address, e.g. 0.0.0.0 in a container)\n"
    "         --redis redis://[USER@]HOST:PORT/DB [--redis-password-file F]  (shared result store\n"
    "           and job stream; the password from the file or $ARGUS_REDIS_PASSWORD)\n"
    "         --redis-claim-ms N (15000)  --redis-max-deliveries N (3)  (job stream)\n"
    "       argusd --health HOST:PORT [--token-file FILE]   (exit 0: a daemon answers)\n";

int usage(const std::string& msg) {
  std::cerr << "argusd: " << msg << "\n" << kUsage;
  return 2;
}

std::string selfExe(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<size_t>(n));
  return argv0;
}

std::optional<std::string> readSecret(const std::string& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  return s;
}

// argusd --health: a daemon answers JSON-RPC at hostPort (authorized when a token is given).
int health(const std::string& hostPort, const std::string& tokenFile) {
  try {
    argus::protocol::TcpClient c(hostPort, 3);
    nlohmann::json init = {{"processId", nullptr}, {"capabilities", nlohmann::json::object()}};
    if (!tokenFile.empty()) {
      auto token = readSecret(tokenFile);
      if (!token || token->empty()) {
        std::cerr << "argusd --health: cannot read the token file\n";
        return 1;
      }
      init["initializationOptions"] = {{"token", *token}};
      c.call("initialize", init, 5);
      c.call("argus/stats", nlohmann::json::object(), 5);
    } else {
      try {
        c.call("initialize", init, 5);
      } catch (const argus::protocol::RpcCallError&) {
        // unauthorized: the daemon is alive and speaking JSON-RPC
      }
    }
    std::cout << "argusd at " << hostPort << ": healthy\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "argusd --health: " << e.what() << "\n";
    return 1;
  }
}

bool isLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool stdio = false, worker = false, noStore = false, allowRemote = false;
  std::string listen, tokenFile, storePath, redisUrl, redisPasswordFile, healthOf;
  unsigned workers = 0, memoryMb = 4096;
  int debounceMs = -1;  // adaptive
  unsigned budgetMb = 1536, clientQueueMb = 64;
  int solverMemoryMb = -1;  // default: budgetMb / 4
  int jobMemoryMb = -1;     // default: budgetMb / 2
  long redisClaimMs = 15000;
  int redisMaxDeliveries = 3;
  bool redisQueueOpts = false;
  double clientStallS = 20;
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= args.size()) throw std::invalid_argument("option " + a + " needs a value");
        return args[++i];
      };
      if (a == "--stdio") stdio = true;
      else if (a == "--worker") worker = true;
      else if (a == "--listen") listen = value();
      else if (a == "--token-file") tokenFile = value();
      else if (a == "--store") storePath = value();
      else if (a == "--no-store") noStore = true;
      else if (a == "--redis") redisUrl = value();
      else if (a == "--redis-password-file") redisPasswordFile = value();
      else if (a == "--redis-claim-ms") redisClaimMs = std::stol(value()), redisQueueOpts = true;
      else if (a == "--redis-max-deliveries") redisMaxDeliveries = std::stoi(value()), redisQueueOpts = true;
      else if (a == "--health") healthOf = value();
      else if (a == "--allow-remote") allowRemote = true;
      else if (a == "--workers") workers = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--memory-mb") memoryMb = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--debounce-ms") debounceMs = std::stoi(value());
      else if (a == "--memory-budget") budgetMb = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--solver-memory-mb") solverMemoryMb = static_cast<int>(std::stoul(value()));
      else if (a == "--job-memory-mb") jobMemoryMb = static_cast<int>(std::stoul(value()));
      else if (a == "--client-queue-mb") clientQueueMb = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--client-stall-s") clientStallS = std::stod(value());
      else if (a == "--help" || a == "-h") {
        std::cout << kUsage;
        return 0;
      } else throw std::invalid_argument("unknown option '" + a + "'");
    }
  } catch (const std::exception& e) {
    return usage(e.what());
  }
  if (worker)
    return argus::server::runWorker(memoryMb, solverMemoryMb < 0 ? 0u : static_cast<unsigned>(solverMemoryMb),
                                    jobMemoryMb < 0 ? 0u : static_cast<unsigned>(jobMemoryMb));
  if (!healthOf.empty()) return health(healthOf, tokenFile);
  if (stdio == !listen.empty()) return usage("give exactly one of --stdio and --listen");

  std::string token;
  std::string host;
  uint16_t port = 0;
  if (!listen.empty()) {
    auto colon = listen.rfind(':');
    if (colon == std::string::npos) return usage("--listen needs HOST:PORT");
    host = listen.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    try {
      unsigned long p = std::stoul(listen.substr(colon + 1));
      if (p > 65535) throw std::out_of_range("port");
      port = static_cast<uint16_t>(p);
    } catch (const std::exception&) {
      return usage("bad port in --listen");
    }
    if (!isLoopback(host) && !allowRemote)
      return usage("--listen binds loopback addresses only (127.0.0.1, ::1); --allow-remote lets a container listen on others");
    if (tokenFile.empty()) return usage("--listen needs --token-file");
    std::ifstream in(tokenFile);
    if (!in) return usage("cannot read the token file");
    std::stringstream ss;
    ss << in.rdbuf();
    token = ss.str();
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.front()))) token.erase(0, 1);
    if (token.empty()) return usage("the token file is empty");
  }

  std::shared_ptr<argus::server::ResultStore> redisStore;
  std::string redisPassword;
  if (!redisUrl.empty()) {
    argus::server::RedisConfig rc;
    try {
      rc = argus::server::parseRedisUrl(redisUrl);
    } catch (const std::exception& e) {
      return usage(e.what());
    }
    if (!redisPasswordFile.empty()) {
      auto pw = readSecret(redisPasswordFile);
      if (!pw) return usage("cannot read the Redis password file");
      rc.password = *pw;
    } else if (const char* env = std::getenv("ARGUS_REDIS_PASSWORD")) {
      rc.password = env;
    }
    redisPassword = rc.password;
    redisStore = std::make_shared<argus::server::RedisStore>(rc);
    if (!redisStore->ok()) {
      std::cerr << "argusd: " << redisStore->error() << "\n";
      return 1;
    }
    std::cerr << "argusd: result store: redis " << rc.host << ":" << rc.port << "/" << rc.db << std::endl;
  } else if (!redisPasswordFile.empty()) {
    return usage("--redis-password-file needs --redis");
  } else if (redisQueueOpts) {
    return usage("--redis-claim-ms and --redis-max-deliveries need --redis");
  }
  if (redisClaimMs < 300) return usage("--redis-claim-ms takes at least 300");
  if (redisMaxDeliveries < 1) return usage("--redis-max-deliveries takes at least 1");

  argus::server::ServiceOptions so;
  so.store = redisStore;
  if (redisStore) {
    argus::server::RedisQueueOptions q;
    q.redis = argus::server::parseRedisUrl(redisUrl);
    q.redis.password = redisPassword;
    q.claimMs = redisClaimMs;
    q.maxDeliveries = redisMaxDeliveries;
    so.queue = q;
  }
  so.scheduler.workerExe = selfExe(argv[0]);
  so.scheduler.workers = workers;
  so.scheduler.memoryMb = memoryMb;
  so.scheduler.budgetMb = budgetMb;
  // A job's solver gets a quarter of the budget: two jobs (each with up to two stage
  // processes) and the daemon fit, and a solver's burst ends as "out of memory" with
  // the bound it verified instead of the whole job killed over the budget.
  so.scheduler.solverMemoryMb = solverMemoryMb >= 0 ? static_cast<unsigned>(solverMemoryMb) : budgetMb / 4;
  // and a job's process stops building formulas at half the budget ("out of memory"
  // with the bound it verified), before the budget check would kill it
  so.scheduler.jobMemoryMb = jobMemoryMb >= 0 ? static_cast<unsigned>(jobMemoryMb) : budgetMb / 2;
  so.storePath = noStore ? "" : storePath.empty() ? argus::server::defaultStorePath() : storePath;
  so.debounceMs = debounceMs;
  {
    struct stat st {};
    if (::stat(so.scheduler.workerExe.c_str(), &st) == 0)
      so.engineId = std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
                    std::to_string(st.st_mtim.tv_nsec);
  }

  if (stdio) {
    auto transport = argus::protocol::makeStdioTransport();  // also ignores SIGPIPE
    argus::server::Service service(so);
    if (!service.store().ok() && !so.storePath.empty())
      std::cerr << "argusd: " << service.store().error() << " (results will not persist)\n";
    if (so.queue && !service.queue()) {
      std::cerr << "argusd: " << service.queueError() << "\n";
      return 1;
    }
    argus::server::LspSession session(service, *transport,
                                      {false, "", "stdio:", {}, std::size_t(clientQueueMb) << 20, clientStallS});
    transport->run(session);
    return 0;
  }

  // --listen: SIGINT/SIGTERM end the server; block them before any thread starts.
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  argus::server::Service service(so);
  if (!service.store().ok() && !so.storePath.empty())
    std::cerr << "argusd: " << service.store().error() << " (results will not persist)\n";
  if (so.queue) {
    if (!service.queue()) {
      std::cerr << "argusd: " << service.queueError() << "\n";
      return 1;
    }
    std::cerr << "argusd: job stream: " << service.queue()->jobsKey() << ", consumer " << service.queue()->consumer()
              << std::endl;
  }
  argus::protocol::TcpServerOptions to;
  to.host = host;
  to.port = port;
  argus::protocol::TcpServer server(
      to,
      [&](argus::protocol::Transport& t, const argus::protocol::SessionInfo& info) -> std::unique_ptr<argus::protocol::TransportHandler> {
        return std::make_unique<argus::server::LspSession>(
            service, t,
            argus::server::LspSession::Options{true, token, "tcp" + std::to_string(info.id) + ":", {},
                                               std::size_t(clientQueueMb) << 20, clientStallS,
                                               "session " + std::to_string(info.id) + " (" + info.peer + ")"});
      });
  try {
    uint16_t bound = server.start();
    std::cerr << "argusd: listening on " << host << ":" << bound << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "argusd: cannot listen on " << listen << ": " << e.what() << "\n";
    return 1;
  }
  int sig = 0;
  sigwait(&stopSignals, &sig);
  std::cerr << "argusd: stopping (signal " << sig << ")" << std::endl;
  server.stop();
  return 0;
}
