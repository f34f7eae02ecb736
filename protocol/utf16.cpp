#include "protocol/utf16.h"

namespace argus::protocol {

namespace {

struct CodePoint {
  std::size_t bytes;
  std::size_t units;
};

bool isCont(std::string_view s, std::size_t i) {
  return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80;
}

// The code point starting at s[i] (i < s.size()).
CodePoint codePointAt(std::string_view s, std::size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {1, 1};
  const unsigned char c1 = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
  if (c >= 0xC2 && c <= 0xDF) return isCont(s, i + 1) ? CodePoint{2, 1} : CodePoint{1, 1};
  if (c >= 0xE0 && c <= 0xEF) {
    bool ok = isCont(s, i + 1) && isCont(s, i + 2) && !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 > 0x9F);
    return ok ? CodePoint{3, 1} : CodePoint{1, 1};
  }
  if (c >= 0xF0 && c <= 0xF4) {
    bool ok = isCont(s, i + 1) && isCont(s, i + 2) && isCont(s, i + 3) && !(c == 0xF0 && c1 < 0x90) &&
              !(c == 0xF4 && c1 > 0x8F);
    return ok ? CodePoint{4, 2} : CodePoint{1, 1};
  }
  return {1, 1};
}

bool isEol(char c) { return c == '\n' || c == '\r'; }

}  // namespace

std::size_t utf16Length(std::string_view utf8) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < utf8.size();) {
    CodePoint cp = codePointAt(utf8, i);
    units += cp.units;
    i += cp.bytes;
  }
  return units;
}

std::optional<std::size_t> positionToOffset(std::string_view text, const Position& pos) {
  if (pos.line < 0 || pos.character < 0) return std::nullopt;
  std::size_t off = 0;
  for (int line = 0; line < pos.line; ++line) {
    std::size_t eol = text.find_first_of("\r\n", off);
    if (eol == std::string_view::npos) {
      if (line + 1 == pos.line) return text.size();  // one past the last line
      return std::nullopt;
    }
    off = eol + ((text[eol] == '\r' && eol + 1 < text.size() && text[eol + 1] == '\n') ? 2 : 1);
  }
  std::size_t units = 0;
  const auto wanted = static_cast<std::size_t>(pos.character);
  while (off < text.size() && !isEol(text[off])) {
    CodePoint cp = codePointAt(text, off);
    if (units + cp.units > wanted) break;
    units += cp.units;
    off += cp.bytes;
  }
  return off;
}

Position offsetToPosition(std::string_view text, std::size_t offset) {
  if (offset > text.size()) offset = text.size();
  Position p;
  std::size_t units = 0;
  for (std::size_t i = 0; i < offset;) {
    char c = text[i];
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      if (i + 1 == offset) break;  // between CR and LF: end of this line
      i += 2;
      ++p.line;
      units = 0;
      continue;
    }
    if (isEol(c)) {
      ++i;
      ++p.line;
      units = 0;
      continue;
    }
    CodePoint cp = codePointAt(text, i);
    if (i + cp.bytes > offset) break;  // inside a code point
    units += cp.units;
    i += cp.bytes;
  }
  p.character = static_cast<int>(units);
  return p;
}

}  // namespace argus::protocol
