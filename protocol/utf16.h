// LSP positions count UTF-16 code units; documents are stored as UTF-8.
// These helpers convert between the two.
//
// Conventions:
// - Line terminators are "\n", "\r\n" and "\r" (as in the LSP spec).
// - A code point of 4 UTF-8 bytes is 2 UTF-16 units; others are 1. An invalid
//   or truncated UTF-8 byte counts as 1 unit (like the U+FFFD an editor shows).
// - A character offset past the end of its line clamps to the line end
//   (before the terminator), as the LSP spec asks.
// - A character offset inside a surrogate pair (between the two units of one
//   4-byte code point) rounds down to the start of that code point.
// - Line == number of lines (one past the last line) means end of document,
//   whatever the character; a larger line is an error.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "protocol/lsp_basic.h"

namespace argus::protocol {

std::size_t utf16Length(std::string_view utf8);

// Byte offset of `pos` in `text`, or nullopt when the line is out of range
// (or negative).
std::optional<std::size_t> positionToOffset(std::string_view text, const Position& pos);

// Position of byte `offset` (clamped to text.size()). An offset inside a
// multi-byte code point maps to that code point's start; an offset between
// '\r' and '\n' maps to the end of that line.
Position offsetToPosition(std::string_view text, std::size_t offset);

}  // namespace argus::protocol
