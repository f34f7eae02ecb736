#include "protocol/framing.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace argus::protocol {

namespace {

constexpr std::string_view kContentLength = "content-length";

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

bool isTokenChar(char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != '\0';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Decimal, digits only, at most 2^62 (anything larger is certainly garbage).
std::optional<std::uint64_t> parseLength(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (v > (std::uint64_t{1} << 62)) return std::nullopt;
  return v;
}

// The charset parameter of a Content-Type value, lower-cased, if any.
std::optional<std::string> charsetOf(std::string_view value) {
  std::size_t semi = value.find(';');
  while (semi != std::string_view::npos) {
    value.remove_prefix(semi + 1);
    semi = value.find(';');
    std::string_view param = trim(value.substr(0, semi));
    constexpr std::string_view kCharset = "charset=";
    if (param.size() >= kCharset.size() && iequals(param.substr(0, kCharset.size()), kCharset)) {
      std::string_view v = trim(param.substr(kCharset.size()));
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      std::string out(v);
      for (char& c : out) c = lower(c);
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace

const char* toString(FramingErrorKind kind) {
  switch (kind) {
    case FramingErrorKind::MalformedHeader: return "malformed header";
    case FramingErrorKind::MissingContentLength: return "missing Content-Length";
    case FramingErrorKind::InvalidContentLength: return "invalid Content-Length";
    case FramingErrorKind::UnsupportedCharset: return "unsupported charset";
    case FramingErrorKind::HeaderTooLarge: return "header too large";
    case FramingErrorKind::MessageTooLarge: return "message too large";
  }
  return "framing error";
}

FrameReader::FrameReader(FramingLimits limits) : limits_(limits) {
  // At least one byte, so that every error makes progress.
  limits_.maxHeaderBytes = std::max<std::size_t>(limits_.maxHeaderBytes, 1);
}

void FrameReader::feed(std::string_view bytes) {
  compact();
  buf_.append(bytes.data(), bytes.size());
}

void FrameReader::compact() {
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > 64 * 1024 && pos_ > buf_.size() / 2) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
}

bool FrameReader::midMessage() const {
  return (state_ == State::Headers && available() > 0) || state_ == State::Body;
}

void FrameReader::startHeaderBlock() {
  state_ = State::Headers;
  lineStart_ = 0;
  scanned_ = 0;
  contentLength_.reset();
  badCharset_.reset();
}

FramingError FrameReader::fail(FramingErrorKind kind, std::string detail, std::size_t resumeAt) {
  pos_ += resumeAt;
  startHeaderBlock();
  state_ = State::Resync;
  return FramingError{kind, std::move(detail)};
}

std::optional<FrameEvent> FrameReader::next() {
  for (;;) {
    switch (state_) {
      case State::Headers: {
        if (available() == 0) return std::nullopt;
        if (auto ev = parseHeaders()) return ev;
        if (state_ == State::Headers) return std::nullopt;  // need more input
        break;
      }
      case State::Body:
        return takeBody();
      case State::SkipBody:
        skipBody();
        if (state_ == State::SkipBody) return std::nullopt;
        break;
      case State::Resync:
        resync();
        if (state_ == State::Resync) return std::nullopt;
        break;
    }
  }
}

std::optional<FrameEvent> FrameReader::parseHeaders() {
  for (;;) {
    const std::size_t window = std::min(available(), limits_.maxHeaderBytes);
    const char* base = buf_.data() + pos_;
    const void* nlPtr = scanned_ < window ? std::memchr(base + scanned_, '\n', window - scanned_) : nullptr;
    if (!nlPtr) {
      scanned_ = window;
      if (window == limits_.maxHeaderBytes)
        return fail(FramingErrorKind::HeaderTooLarge,
                    "no end of header block within " + std::to_string(limits_.maxHeaderBytes) + " bytes",
                    window);
      return std::nullopt;
    }
    const std::size_t nl = static_cast<std::size_t>(static_cast<const char*>(nlPtr) - base);
    const std::size_t lineEnd = nl + 1;
    std::string_view line(base + lineStart_, nl - lineStart_);
    scanned_ = lineEnd;
    lineStart_ = lineEnd;

    if (line.empty() || line.back() != '\r')
      return fail(FramingErrorKind::MalformedHeader, "header line not terminated by CRLF", lineEnd);
    line.remove_suffix(1);
    if (line.find('\r') != std::string_view::npos)
      return fail(FramingErrorKind::MalformedHeader, "stray CR in header line", lineEnd);

    if (line.empty()) {  // end of the header block
      if (!contentLength_)
        return fail(FramingErrorKind::MissingContentLength, "header block without Content-Length", lineEnd);
      const std::size_t length = *contentLength_;
      pos_ += lineEnd;
      if (badCharset_ || length > limits_.maxMessageBytes) {
        FramingError err = badCharset_
            ? FramingError{FramingErrorKind::UnsupportedCharset, "charset '" + *badCharset_ + "' (only utf-8)"}
            : FramingError{FramingErrorKind::MessageTooLarge,
                           "Content-Length " + std::to_string(length) + " exceeds limit " +
                               std::to_string(limits_.maxMessageBytes)};
        startHeaderBlock();
        state_ = State::SkipBody;
        skipRemaining_ = length;
        return err;
      }
      state_ = State::Body;
      bodyLength_ = length;
      return std::nullopt;
    }

    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0)
      return fail(FramingErrorKind::MalformedHeader, "header line without 'name:'", lineEnd);
    std::string_view name = line.substr(0, colon);
    if (!std::all_of(name.begin(), name.end(), isTokenChar))
      return fail(FramingErrorKind::MalformedHeader, "invalid header name", lineEnd);
    std::string_view value = trim(line.substr(colon + 1));

    if (iequals(name, kContentLength)) {
      auto n = parseLength(value);
      if (!n) return fail(FramingErrorKind::InvalidContentLength, "Content-Length is not a number", lineEnd);
      if (contentLength_ && *contentLength_ != *n)
        return fail(FramingErrorKind::InvalidContentLength, "conflicting Content-Length headers", lineEnd);
      contentLength_ = static_cast<std::size_t>(*n);
    } else if (iequals(name, "content-type")) {
      if (auto cs = charsetOf(value); cs && *cs != "utf-8" && *cs != "utf8") badCharset_ = *cs;
    }
  }
}

std::optional<FrameEvent> FrameReader::takeBody() {
  if (available() < bodyLength_) return std::nullopt;
  std::string body;
  if (pos_ == 0 && buf_.size() == bodyLength_) {
    body = std::move(buf_);
    buf_.clear();
  } else {
    body.assign(buf_, pos_, bodyLength_);
    pos_ += bodyLength_;
  }
  startHeaderBlock();
  return FrameEvent{std::move(body)};
}

void FrameReader::skipBody() {
  const std::size_t n = std::min(available(), skipRemaining_);
  pos_ += n;
  skipRemaining_ -= n;
  if (skipRemaining_ == 0) startHeaderBlock();
}

void FrameReader::resync() {
  const std::size_t k = kContentLength.size();
  const char* base = buf_.data();
  for (std::size_t i = pos_; i + k <= buf_.size(); ++i) {
    if (lower(base[i]) != 'c') continue;
    if (iequals(std::string_view(base + i, k), kContentLength)) {
      pos_ = i;
      startHeaderBlock();
      return;
    }
  }
  // Keep a possible partial match at the end.
  if (buf_.size() >= k - 1) pos_ = std::max(pos_, buf_.size() - (k - 1));
}

std::string encodeFrame(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body.data(), body.size());
  return out;
}

}  // namespace argus::protocol
