#include "protocol/framing.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace argus::protocol {
namespace {

// Events rendered as strings: "M:<body>" or "E:<kind>".
std::vector<std::string> drain(FrameReader& r) {
  std::vector<std::string> out;
  while (auto ev = r.next()) {
    if (auto* body = std::get_if<std::string>(&*ev))
      out.push_back("M:" + *body);
    else
      out.push_back(std::string("E:") + toString(std::get<FramingError>(*ev).kind));
  }
  return out;
}

std::vector<std::string> readAll(std::string_view input, FramingLimits limits = {}) {
  FrameReader r(limits);
  r.feed(input);
  return drain(r);
}

std::vector<std::string> readChunked(std::string_view input, const std::vector<std::size_t>& cuts,
                                     FramingLimits limits = {}) {
  FrameReader r(limits);
  std::vector<std::string> out;
  std::size_t prev = 0;
  for (std::size_t cut : cuts) {
    r.feed(input.substr(prev, cut - prev));
    for (auto& e : drain(r)) out.push_back(e);
    prev = cut;
  }
  r.feed(input.substr(prev));
  for (auto& e : drain(r)) out.push_back(e);
  return out;
}

const std::string kBody1 = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})";
const std::string kBody2 = "{\"text\":\"h\xC3\xA9llo \xF0\x9F\x98\x80\"}";  // multi-byte UTF-8
const std::string kBody3 = R"({"jsonrpc":"2.0","method":"exit"})";

std::string threeMessages() {
  return encodeFrame(kBody1) +
         "content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH: " +
         std::to_string(kBody2.size()) + "\r\n\r\n" + kBody2 + encodeFrame(kBody3);
}

TEST(FramingTest, EncodeFrameAddsContentLength) {
  EXPECT_EQ(encodeFrame("{}"), "Content-Length: 2\r\n\r\n{}");
  EXPECT_EQ(readAll(encodeFrame(kBody2)), std::vector<std::string>{"M:" + kBody2});
}

TEST(FramingTest, TwoMessagesInOneChunk) {
  auto events = readAll(encodeFrame(kBody1) + encodeFrame(kBody3));
  EXPECT_EQ(events, (std::vector<std::string>{"M:" + kBody1, "M:" + kBody3}));
}

TEST(FramingTest, SplitAtEveryByteBoundary) {
  const std::string input = threeMessages();
  const std::vector<std::string> expected = {"M:" + kBody1, "M:" + kBody2, "M:" + kBody3};
  ASSERT_EQ(readAll(input), expected);
  for (std::size_t cut = 0; cut <= input.size(); ++cut)
    EXPECT_EQ(readChunked(input, {cut}), expected) << "cut at " << cut;
}

TEST(FramingTest, ByteAtATime) {
  const std::string input = threeMessages();
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < input.size(); ++i) cuts.push_back(i);
  EXPECT_EQ(readChunked(input, cuts), (std::vector<std::string>{"M:" + kBody1, "M:" + kBody2, "M:" + kBody3}));
}

TEST(FramingTest, NothingUntilBodyComplete) {
  FrameReader r;
  std::string frame = encodeFrame(kBody1);
  r.feed(frame.substr(0, frame.size() - 1));
  EXPECT_FALSE(r.next().has_value());
  EXPECT_TRUE(r.midMessage());
  r.feed(frame.substr(frame.size() - 1));
  auto ev = r.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(std::get<std::string>(*ev), kBody1);
  EXPECT_FALSE(r.midMessage());
}

TEST(FramingTest, ZeroLengthBody) {
  EXPECT_EQ(readAll("Content-Length: 0\r\n\r\n"), std::vector<std::string>{"M:"});
}

TEST(FramingTest, MissingContentLengthIsReportedThenRecovers) {
  auto events = readAll("Content-Type: application/json\r\n\r\n{\"lost\":1}" + encodeFrame(kBody3));
  EXPECT_EQ(events, (std::vector<std::string>{"E:missing Content-Length", "M:" + kBody3}));
}

TEST(FramingTest, InvalidContentLengthValues) {
  for (std::string bad : {"abc", "-5", "+5", "1 2", "", "99999999999999999999999"}) {
    auto events = readAll("Content-Length: " + bad + "\r\n\r\nxx" + encodeFrame(kBody3));
    EXPECT_EQ(events, (std::vector<std::string>{"E:invalid Content-Length", "M:" + kBody3})) << bad;
  }
}

TEST(FramingTest, ConflictingDuplicateContentLength) {
  auto events = readAll("Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + encodeFrame(kBody3));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front(), "E:invalid Content-Length");
  EXPECT_EQ(events.back(), "M:" + kBody3);
  // Equal duplicates are fine.
  EXPECT_EQ(readAll("Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}"), std::vector<std::string>{"M:{}"});
}

TEST(FramingTest, OversizedMessageIsSkippedNotBuffered) {
  FramingLimits limits;
  limits.maxMessageBytes = 100;
  const std::string big(1000, 'x');
  const std::string input = encodeFrame(big) + encodeFrame(kBody3);
  EXPECT_EQ(readAll(input, limits), (std::vector<std::string>{"E:message too large", "M:" + kBody3}));
  // Same result when the big body trickles in.
  std::vector<std::size_t> cuts;
  for (std::size_t i = 7; i < input.size(); i += 7) cuts.push_back(i);
  EXPECT_EQ(readChunked(input, cuts, limits), (std::vector<std::string>{"E:message too large", "M:" + kBody3}));
}

TEST(FramingTest, HugeDeclaredLengthIsAnErrorNotAnAllocation) {
  FrameReader r;  // default 64 MiB limit
  r.feed("Content-Length: 4611686018427387904\r\n\r\n");
  auto ev = r.next();
  ASSERT_TRUE(ev.has_value());
  ASSERT_TRUE(std::holds_alternative<FramingError>(*ev));
  EXPECT_EQ(std::get<FramingError>(*ev).kind, FramingErrorKind::MessageTooLarge);
}

TEST(FramingTest, HeaderTooLarge) {
  FramingLimits limits;
  limits.maxHeaderBytes = 64;
  std::string input = "X-Long: " + std::string(200, 'a') + "\r\nContent-Length: 2\r\n\r\n{}" + encodeFrame(kBody3);
  auto events = readAll(input, limits);
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.front(), "E:header too large");
  EXPECT_EQ(events.back(), "M:" + kBody3);
  // An endless header line is reported once the limit is reached, with no end in sight.
  FrameReader r(limits);
  r.feed(std::string(65, 'z'));
  auto ev = r.next();
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(std::get<FramingError>(*ev).kind, FramingErrorKind::HeaderTooLarge);
}

TEST(FramingTest, GarbageBeforeMessageResynchronises) {
  auto events = readAll("this is not a header\r\n" + encodeFrame(kBody1));
  EXPECT_EQ(events, (std::vector<std::string>{"E:malformed header", "M:" + kBody1}));
  // Garbage without any line break is skipped by the resync scan.
  events = readAll("\x01\x02garbage{]}" + std::string("\r\n") + encodeFrame(kBody1));
  EXPECT_EQ(events, (std::vector<std::string>{"E:malformed header", "M:" + kBody1}));
}

TEST(FramingTest, BareLineFeedIsMalformed) {
  auto events = readAll("Content-Length: 2\n\n{}" + encodeFrame(kBody3));
  EXPECT_EQ(events, (std::vector<std::string>{"E:malformed header", "M:" + kBody3}));
}

TEST(FramingTest, InvalidHeaderName) {
  auto events = readAll("Content Length: 2\r\n\r\n{}" + encodeFrame(kBody3));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front(), "E:malformed header");
  EXPECT_EQ(events.back(), "M:" + kBody3);
}

TEST(FramingTest, Charset) {
  EXPECT_EQ(readAll("Content-Type: application/vscode-jsonrpc; charset=utf8\r\nContent-Length: 2\r\n\r\n{}"),
            std::vector<std::string>{"M:{}"});
  EXPECT_EQ(readAll("Content-Type: application/vscode-jsonrpc; charset=\"UTF-8\"\r\nContent-Length: 2\r\n\r\n{}"),
            std::vector<std::string>{"M:{}"});
  auto events =
      readAll("Content-Type: text/plain; charset=latin1\r\nContent-Length: 2\r\n\r\n{}" + encodeFrame(kBody3));
  EXPECT_EQ(events, (std::vector<std::string>{"E:unsupported charset", "M:" + kBody3}));
}

TEST(FramingTest, UnknownHeadersAreIgnored) {
  EXPECT_EQ(readAll("X-Foo: bar\r\nContent-Length: 2\r\nX-Empty:\r\n\r\n{}"), std::vector<std::string>{"M:{}"});
}

// Random byte soup mixed with valid frames: the reader terminates, yields the
// same events however the input is chunked, and keeps finding valid frames.
TEST(FramingTest, RandomInputIsChunkingInvariant) {
  std::mt19937 rng(12345);
  FramingLimits limits;
  limits.maxHeaderBytes = 128;
  limits.maxMessageBytes = 256;
  const std::string alphabet = "Content-Length: 0123456789\r\n\r\n{}abc\xF0\x9F";
  for (int round = 0; round < 200; ++round) {
    std::string input;
    int parts = 1 + static_cast<int>(rng() % 6);
    for (int p = 0; p < parts; ++p) {
      if (rng() % 2) {
        input += encodeFrame(kBody3);
      } else {
        std::size_t n = rng() % 80;
        for (std::size_t i = 0; i < n; ++i) input += alphabet[rng() % alphabet.size()];
      }
    }
    auto whole = readAll(input, limits);
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < input.size(); i += 1 + rng() % 9) cuts.push_back(i);
    EXPECT_EQ(readChunked(input, cuts, limits), whole) << "round " << round;
    // A valid frame appended after anything is always recovered.
    auto withTail = readAll(input + "\r\n" + encodeFrame(kBody1), limits);
    ASSERT_FALSE(withTail.empty());
    if (withTail.back() != "M:" + kBody1) {
      // Only acceptable if the garbage declared a length that swallows the tail.
      bool swallowed = input.find("ength:") != std::string::npos;
      EXPECT_TRUE(swallowed) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace argus::protocol
