#include "protocol/tcp_server.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace argus::protocol {
namespace {

using namespace std::chrono_literals;

// A blocking test client with a 5 s receive timeout (keeps failures bounded).
class Client {
 public:
  explicit Client(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~Client() { close(); }
  bool connected() const { return connected_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  bool sendRaw(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  bool request(int id, const std::string& method, const json& params = nullptr) {
    return sendRaw(encodeFrame(makeRequest(id, method, params).dump()));
  }
  // Next message, or nullopt on EOF / timeout.
  std::optional<json> receive() {
    for (;;) {
      if (auto ev = reader_.next()) {
        if (auto* body = std::get_if<std::string>(&*ev)) return json::parse(*body);
        continue;
      }
      char buf[4096];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      reader_.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  FrameReader reader_;
};

// Per-session state: its own dispatcher and counter.
class EchoSession : public TransportHandler {
 public:
  EchoSession(Transport& t, std::uint64_t id) : d_([&t](const json& m) { t.send(m); }, [](std::string_view) {}) {
    d_.onRequest("echo", [](const json& p, Reply r) { r.result(p); });
    d_.onRequest("count", [this](const json&, Reply r) { r.result(++counter_); });
    d_.onRequest("session", [id](const json&, Reply r) { r.result(id); });
  }
  void onMessage(std::string_view body) override { d_.onMessage(body); }
  void onFramingError(const FramingError& e) override { d_.onFramingError(e); }
  void onClose() override { d_.close(); }

 private:
  Dispatcher d_;
  int counter_ = 0;
};

struct ServerFixture {
  std::atomic<int> sessionsCreated{0};
  TcpServer server;
  std::uint16_t port = 0;

  explicit ServerFixture(FramingLimits limits = {})
      : server(
            TcpServerOptions{"127.0.0.1", 0, limits, 8},
            [this](Transport& t, const SessionInfo& info) -> std::unique_ptr<TransportHandler> {
              ++sessionsCreated;
              return std::make_unique<EchoSession>(t, info.id);
            },
            [](std::string_view) {}) {
    port = server.start();
  }

  bool waitForActive(std::size_t n) {
    auto deadline = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (server.activeSessions() == n) return true;
      std::this_thread::sleep_for(2ms);
    }
    return false;
  }
};

TEST(TcpServerTest, EphemeralPortOnLoopback) {
  ServerFixture f;
  EXPECT_NE(f.port, 0);
  Client c(f.port);
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.request(1, "echo", {{"hello", "world"}}));
  auto r = c.receive();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"hello":"world"}})"));
}

TEST(TcpServerTest, ClientDisconnectMidMessageEndsOnlyItsSession) {
  ServerFixture f;
  Client a(f.port), b(f.port);
  ASSERT_TRUE(a.connected() && b.connected());
  // Both sessions exist before the test continues.
  ASSERT_TRUE(b.request(0, "session"));
  ASSERT_TRUE(a.request(0, "session"));
  auto sb = b.receive(), sa = a.receive();
  ASSERT_TRUE(sa && sb);
  EXPECT_NE((*sa)["result"], (*sb)["result"]);
  ASSERT_TRUE(f.waitForActive(2));

  // B talks continuously on its own thread while A sends half a message and vanishes.
  std::atomic<int> answered{0};
  std::thread talker([&] {
    for (int i = 1; i <= 50; ++i) {
      if (!b.request(i, "echo", json::array({i}))) break;
      auto r = b.receive();
      if (!r || (*r)["id"] != i || (*r)["result"] != json::array({i})) break;
      ++answered;
    }
  });
  std::string frame = encodeFrame(makeRequest(99, "echo", json::array({99})).dump());
  ASSERT_TRUE(a.sendRaw(frame.substr(0, frame.size() / 2)));
  std::this_thread::sleep_for(5ms);
  a.close();
  talker.join();
  EXPECT_EQ(answered.load(), 50);
  EXPECT_TRUE(f.waitForActive(1));

  // B's session is intact (its state too) and new clients still get their own session.
  ASSERT_TRUE(b.request(100, "count"));
  ASSERT_TRUE(b.request(101, "count"));
  auto c1 = b.receive(), c2 = b.receive();
  ASSERT_TRUE(c1 && c2);
  EXPECT_EQ((*c2)["result"], 2);
  Client c(f.port);
  ASSERT_TRUE(c.request(1, "count"));
  auto cc = c.receive();
  ASSERT_TRUE(cc.has_value());
  EXPECT_EQ((*cc)["result"], 1);
  EXPECT_EQ(f.sessionsCreated.load(), 3);
}

TEST(TcpServerTest, OversizedMessageGetsErrorAndSessionContinues) {
  FramingLimits limits;
  limits.maxMessageBytes = 1024;
  ServerFixture f(limits);
  Client c(f.port);
  ASSERT_TRUE(c.sendRaw(encodeFrame(std::string(5000, ' '))));
  auto err = c.receive();
  ASSERT_TRUE(err.has_value());
  EXPECT_TRUE((*err)["id"].is_null());
  EXPECT_EQ((*err)["error"]["code"], -32700);
  ASSERT_TRUE(c.request(2, "echo", json::array({"still here"})));
  auto r = c.receive();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)["result"], json::array({"still here"}));
}

TEST(TcpServerTest, StopClosesConnectedClients) {
  auto f = std::make_unique<ServerFixture>();
  Client c(f->port);
  ASSERT_TRUE(c.request(1, "echo", json::array({1})));
  ASSERT_TRUE(c.receive().has_value());
  auto start = std::chrono::steady_clock::now();
  f->server.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(f->server.activeSessions(), 0u);
  EXPECT_FALSE(c.receive().has_value());  // EOF
}

TEST(TcpServerTest, PortInUseThrows) {
  ServerFixture f;
  TcpServer second(TcpServerOptions{"127.0.0.1", f.port, {}, 8},
                   [](Transport&, const SessionInfo&) { return std::unique_ptr<TransportHandler>(); },
                   [](std::string_view) {});
  EXPECT_THROW(second.start(), std::runtime_error);
}

TEST(TcpServerTest, RefusedSessionIsClosed) {
  TcpServer server(TcpServerOptions{"127.0.0.1", 0, {}, 8},
                   [](Transport&, const SessionInfo&) { return std::unique_ptr<TransportHandler>(); },
                   [](std::string_view) {});
  auto port = server.start();
  Client c(port);
  ASSERT_TRUE(c.connected());
  EXPECT_FALSE(c.receive().has_value());  // closed without a word
}

}  // namespace
}  // namespace argus::protocol
