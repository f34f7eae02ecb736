#include "protocol/fd_transport.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "protocol/dispatcher.h"

namespace argus::protocol {
namespace {

using namespace std::chrono_literals;

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    r = fds[0];
    w = fds[1];
  }
  ~Pipe() {
    closeRead();
    closeWrite();
  }
  void closeRead() {
    if (r >= 0) ::close(r);
    r = -1;
  }
  void closeWrite() {
    if (w >= 0) ::close(w);
    w = -1;
  }
  void write(std::string_view s) const { ASSERT_EQ(::write(w, s.data(), s.size()), static_cast<ssize_t>(s.size())); }
};

struct Recorder : TransportHandler {
  std::vector<std::string> bodies;
  std::vector<FramingErrorKind> errors;
  int closes = 0;
  void onMessage(std::string_view body) override { bodies.emplace_back(body); }
  void onFramingError(const FramingError& e) override { errors.push_back(e.kind); }
  void onClose() override { ++closes; }
};

// Reads everything from `fd` until EOF and splits it into frames.
std::vector<std::string> readFrames(int fd) {
  FrameReader reader;
  std::vector<std::string> bodies;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    reader.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    while (auto ev = reader.next()) {
      EXPECT_TRUE(std::holds_alternative<std::string>(*ev));
      if (auto* b = std::get_if<std::string>(&*ev)) bodies.push_back(*b);
    }
  }
  return bodies;
}

TEST(FdTransportTest, DeliversMessagesAndErrorsUntilEndOfStream) {
  Pipe in, out;
  FdTransport t(in.r, out.w, false, false);
  in.write(encodeFrame("{\"a\":1}") + "garbage\r\n" + encodeFrame("{\"b\":2}"));
  in.closeWrite();
  Recorder rec;
  EXPECT_EQ(t.run(rec), RunEnd::EndOfStream);
  EXPECT_EQ(rec.bodies, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  EXPECT_EQ(rec.errors, std::vector<FramingErrorKind>{FramingErrorKind::MalformedHeader});
  EXPECT_EQ(rec.closes, 1);
}

TEST(FdTransportTest, CloseFromAnotherThreadUnblocksRun) {
  Pipe in, out;
  FdTransport t(in.r, out.w, false, false);
  Recorder rec;
  auto result = std::async(std::launch::async, [&] { return t.run(rec); });
  EXPECT_EQ(result.wait_for(50ms), std::future_status::timeout);  // idle: blocked
  t.close();
  ASSERT_EQ(result.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(result.get(), RunEnd::Closed);
  EXPECT_EQ(rec.closes, 1);
  EXPECT_FALSE(t.send(json{{"x", 1}}));  // sends after close are dropped
}

TEST(FdTransportTest, SendWritesWholeFramesFromManyThreads) {
  Pipe in, out;
  auto t = std::make_unique<FdTransport>(in.r, out.w, false, false);
  auto frames = std::async(std::launch::async, [&] { return readFrames(out.r); });
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (int i = 0; i < 200; ++i)
        EXPECT_TRUE(t->send(json{{"thread", k}, {"i", i}, {"pad", std::string(300, 'p')}}));
    });
  for (auto& th : threads) th.join();
  t.reset();
  out.closeWrite();
  auto bodies = frames.get();
  ASSERT_EQ(bodies.size(), 800u);
  std::vector<int> next(4, 0);
  for (auto& b : bodies) {
    json j = json::parse(b);  // throws (fails the test) if frames interleaved
    int k = j["thread"].get<int>();
    EXPECT_EQ(j["i"].get<int>(), next[k]++);  // per-thread order is kept
  }
}

TEST(FdTransportTest, SendToVanishedReaderFails) {
  std::signal(SIGPIPE, SIG_IGN);
  Pipe in, out;
  FdTransport t(in.r, out.w, false, false);
  out.closeRead();
  EXPECT_FALSE(t.send(json{{"x", 1}}));
  EXPECT_FALSE(t.send(json{{"x", 2}}));
}

TEST(FdTransportTest, InvalidUtf8IsReplacedNotThrown) {
  Pipe in, out;
  FdTransport t(in.r, out.w, false, false);
  EXPECT_TRUE(t.send(json{{"s", "bad \xFF byte"}}));
  out.closeWrite();
  auto bodies = readFrames(out.r);
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(json::parse(bodies[0])["s"], "bad \xEF\xBF\xBD byte");
}

TEST(FdTransportTest, DispatcherOverPipes) {
  Pipe in, out;
  FdTransport t(in.r, out.w, false, false);
  Dispatcher d([&](const json& m) { t.send(m); }, [](std::string_view) {});
  d.onRequest("echo", [](const json& p, Reply r) { r.result(p); });
  d.onNotification("exit", [&](const json&) { t.close(); });
  in.write(encodeFrame(R"({"jsonrpc":"2.0","id":1,"method":"echo","params":[1]})"));
  in.write(encodeFrame(R"({"jsonrpc":"2.0","id":2,"method":"missing"})"));
  in.write("Content-Length: 5\r\n\r\n{bad}");
  in.write(encodeFrame(R"({"jsonrpc":"2.0","method":"exit"})"));
  in.write(encodeFrame(R"({"jsonrpc":"2.0","id":3,"method":"echo","params":[3]})"));  // after exit: unread
  EXPECT_EQ(t.run(d), RunEnd::Closed);
  out.closeWrite();
  auto bodies = readFrames(out.r);
  ASSERT_EQ(bodies.size(), 3u);
  EXPECT_EQ(json::parse(bodies[0]), json::parse(R"({"jsonrpc":"2.0","id":1,"result":[1]})"));
  EXPECT_EQ(json::parse(bodies[1])["error"]["code"], -32601);
  EXPECT_EQ(json::parse(bodies[2])["error"]["code"], -32700);
}

}  // namespace
}  // namespace argus::protocol
