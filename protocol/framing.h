// LSP base-protocol framing: "Header: value\r\n"... "\r\n" then the body.
//
// FrameReader takes bytes in arbitrary chunks and yields, in order, complete
// message bodies and framing errors. Its output depends only on the byte
// sequence, never on how it was chunked.
//
// Header rules: lines end with CRLF; names are case-insensitive RFC 7230
// tokens; `Content-Length` (decimal) is required; `Content-Type` is optional
// and, when it names a charset, that must be utf-8 (or the legacy "utf8");
// other headers are ignored.
//
// Error recovery (the stream is never closed by the reader; every error
// consumes at least one byte, so it cannot loop):
// - MessageTooLarge, UnsupportedCharset: the length is known, so the body is
//   discarded exactly (as it arrives, never buffered) and reading continues
//   with the next message.
// - MalformedHeader (bad line, bare LF, non-token name), InvalidContentLength:
//   the offending line is dropped and the reader *resynchronises*: it discards
//   input up to the next case-insensitive occurrence of "Content-Length" and
//   parses a new header block from there.
// - MissingContentLength (blank line reached without it): resynchronise from
//   just after the blank line (the lost body is skipped by the scan).
// - HeaderTooLarge (no complete header block within maxHeaderBytes): those
//   maxHeaderBytes bytes are dropped, then resynchronise.
// A body that itself contains the text "Content-Length" can mislead the
// resynchronisation scan; only messages after a framing error are at risk.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace argus::protocol {

struct FramingLimits {
  // Longest header block (all header lines including the blank line).
  std::size_t maxHeaderBytes = 8 * 1024;
  // Largest accepted Content-Length.
  std::size_t maxMessageBytes = 64 * 1024 * 1024;
};

enum class FramingErrorKind {
  MalformedHeader,
  MissingContentLength,
  InvalidContentLength,
  UnsupportedCharset,
  HeaderTooLarge,
  MessageTooLarge,
};

const char* toString(FramingErrorKind kind);

struct FramingError {
  FramingErrorKind kind;
  std::string detail;  // human-readable, for logs and error replies
};

// Either a complete message body or an error.
using FrameEvent = std::variant<std::string, FramingError>;

class FrameReader {
 public:
  explicit FrameReader(FramingLimits limits = {});

  // Appends input. Cheap; parsing happens in next().
  void feed(std::string_view bytes);

  // The next complete event, or nullopt when more input is needed.
  std::optional<FrameEvent> next();

  // True when bytes of an unfinished message are buffered (useful to report
  // a truncated message at end of stream).
  bool midMessage() const;

  const FramingLimits& limits() const { return limits_; }

 private:
  enum class State { Headers, Body, SkipBody, Resync };

  std::optional<FrameEvent> parseHeaders();
  std::optional<FrameEvent> takeBody();
  void skipBody();
  void resync();
  FramingError fail(FramingErrorKind kind, std::string detail, std::size_t resumeAt);
  void startHeaderBlock();
  std::size_t available() const { return buf_.size() - pos_; }
  void compact();

  FramingLimits limits_;
  std::string buf_;
  std::size_t pos_ = 0;  // bytes before pos_ are consumed
  State state_ = State::Headers;

  // Header-block state; offsets are relative to pos_ (the block start).
  std::size_t lineStart_ = 0;  // start of the line being parsed
  std::size_t scanned_ = 0;    // bytes already searched for '\n'
  std::optional<std::size_t> contentLength_;
  std::optional<std::string> badCharset_;

  std::size_t bodyLength_ = 0;     // State::Body
  std::size_t skipRemaining_ = 0;  // State::SkipBody
};

// Frames one body: "Content-Length: N\r\n\r\n" + body.
std::string encodeFrame(std::string_view body);

}  // namespace argus::protocol
