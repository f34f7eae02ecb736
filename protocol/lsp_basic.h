// Basic LSP structures: positions, ranges, locations, document identifiers.
// Plain structs with free toJSON/fromJSON (see json_parse.h for the contract).
// URIs are kept as the client sent them (no decoding).
#pragma once

#include <string>

#include "protocol/json_parse.h"

namespace argus::protocol {

// Zero-based line and UTF-16 code-unit offset within the line.
struct Position {
  int line = 0;
  int character = 0;
  friend auto operator<=>(const Position&, const Position&) = default;
};

// Half-open [start, end).
struct Range {
  Position start;
  Position end;
  friend bool operator==(const Range&, const Range&) = default;
};

struct Location {
  std::string uri;
  Range range;
  friend bool operator==(const Location&, const Location&) = default;
};

struct TextDocumentIdentifier {
  std::string uri;
  friend bool operator==(const TextDocumentIdentifier&, const TextDocumentIdentifier&) = default;
};

struct VersionedTextDocumentIdentifier {
  std::string uri;
  int version = 0;
  friend bool operator==(const VersionedTextDocumentIdentifier&, const VersionedTextDocumentIdentifier&) = default;
};

struct TextDocumentItem {
  std::string uri;
  std::string languageId;
  int version = 0;
  std::string text;
  friend bool operator==(const TextDocumentItem&, const TextDocumentItem&) = default;
};

// Negative line/character are rejected.
bool fromJSON(const json& j, Position& out, JsonPath path);
json toJSON(const Position& p);
bool fromJSON(const json& j, Range& out, JsonPath path);
json toJSON(const Range& r);
bool fromJSON(const json& j, Location& out, JsonPath path);
json toJSON(const Location& l);
bool fromJSON(const json& j, TextDocumentIdentifier& out, JsonPath path);
json toJSON(const TextDocumentIdentifier& t);
bool fromJSON(const json& j, VersionedTextDocumentIdentifier& out, JsonPath path);
json toJSON(const VersionedTextDocumentIdentifier& t);
bool fromJSON(const json& j, TextDocumentItem& out, JsonPath path);
json toJSON(const TextDocumentItem& t);

}  // namespace argus::protocol
