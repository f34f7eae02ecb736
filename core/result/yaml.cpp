#include "core/result/yaml.h"

#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace argus::result {

namespace {

using nlohmann::json;

struct Line {
  int indent = 0;
  std::string text;  // without indentation and comment
  int number = 0;
};

[[noreturn]] void fail(int line, const std::string& what) {
  throw std::runtime_error("line " + std::to_string(line) + ": " + what);
}

// Cuts a comment (a '#' after whitespace, outside quotes) and trailing blanks.
std::string stripComment(const std::string& s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (quote == '"' && c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
      return s.substr(0, i);
    }
  }
  return s;
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) out += static_cast<char>(cp);
  else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// A quoted scalar starting at s[0]; `end` gets the index after the closing quote.
std::string quoted(const std::string& s, size_t& end, int line) {
  char q = s[0];
  std::string out;
  for (size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (q == '\'') {
      if (c == '\'') {
        if (i + 1 < s.size() && s[i + 1] == '\'') {
          out += '\'';
          ++i;
          continue;
        }
        end = i + 1;
        return out;
      }
      out += c;
      continue;
    }
    if (c == '"') {
      end = i + 1;
      return out;
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= s.size()) break;
    char e = s[i];
    auto hex = [&](int n) {
      if (i + n >= s.size()) fail(line, "short escape");
      uint32_t v = static_cast<uint32_t>(std::strtoul(s.substr(i + 1, n).c_str(), nullptr, 16));
      i += n;
      return v;
    };
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case ' ': out += ' '; break;
      case 'x': appendUtf8(out, hex(2)); break;
      case 'u': appendUtf8(out, hex(4)); break;
      case 'U': appendUtf8(out, hex(8)); break;
      default: fail(line, std::string("unknown escape \\") + e);
    }
  }
  fail(line, "unterminated quoted scalar");
}

json plain(const std::string& raw, int line) {
  std::string s = trim(raw);
  if (s.empty() || s == "~" || s == "null") return nullptr;
  if (s[0] == '&' || s[0] == '*' || s[0] == '!' || s[0] == '|' || s[0] == '>')
    fail(line, "anchors, tags and block scalars are not supported");
  bool digits = true;
  for (size_t i = (s[0] == '-' ? 1 : 0); i < s.size(); ++i) digits = digits && std::isdigit(static_cast<unsigned char>(s[i]));
  if (digits && s != "-" && s.size() < 19) return std::stoll(s);
  return s;
}

json flowOrScalar(const std::string& raw, int line) {
  std::string s = trim(raw);
  if (s.empty()) return nullptr;
  if (s[0] == '"' || s[0] == '\'') {
    size_t end = 0;
    std::string v = quoted(s, end, line);
    if (!trim(s.substr(end)).empty()) fail(line, "text after a quoted scalar");
    return v;
  }
  if (s[0] == '{') {
    if (trim(s.substr(1)) != "}") fail(line, "only empty flow mappings are supported");
    return json::object();
  }
  if (s[0] == '[') {
    if (s.back() != ']') fail(line, "multi-line flow sequences are not supported");
    json arr = json::array();
    std::string body = trim(s.substr(1, s.size() - 2));
    size_t i = 0;
    while (i < body.size()) {
      std::string rest = trim(body.substr(i));
      if (rest.empty()) break;
      size_t used = body.size() - rest.size();  // leading blanks
      if (rest[0] == '"' || rest[0] == '\'') {
        size_t end = 0;
        arr.push_back(quoted(rest, end, line));
        i = used + end;
      } else {
        size_t comma = rest.find(',');
        arr.push_back(plain(rest.substr(0, comma), line));
        i = comma == std::string::npos ? body.size() : used + comma;
      }
      std::string after = trim(body.substr(std::min(i, body.size())));
      if (after.empty()) break;
      if (after[0] != ',') fail(line, "expected ',' in a flow sequence");
      i = body.size() - after.size() + 1;
    }
    return arr;
  }
  return plain(s, line);
}

// `key: rest` at the start of s (key plain or quoted): true and the parts, else false.
bool splitKey(const std::string& s, std::string& key, std::string& rest, int line) {
  if (s.empty()) return false;
  size_t after = 0;
  if (s[0] == '"' || s[0] == '\'') {
    key = quoted(s, after, line);
    if (after >= s.size() || s[after] != ':') return false;
  } else {
    size_t c = 0;
    for (;; ++c) {
      c = s.find(':', c);
      if (c == std::string::npos) return false;
      if (c + 1 == s.size() || s[c + 1] == ' ' || s[c + 1] == '\t') break;
    }
    key = trim(s.substr(0, c));
    after = c;
  }
  rest = trim(s.substr(after + 1));
  return true;
}

class Parser {
 public:
  explicit Parser(std::vector<Line> lines) : lines_(std::move(lines)) {}

  json parseDocument() {
    if (lines_.empty()) return nullptr;
    json v = parseNode(lines_[0].indent);
    if (pos_ < lines_.size()) fail(lines_[pos_].number, "unexpected indentation");
    return v;
  }

 private:
  std::vector<Line> lines_;
  size_t pos_ = 0;

  json parseNode(int indent) {
    const Line& l = lines_[pos_];
    if (l.text == "-" || l.text.rfind("- ", 0) == 0) return parseSequence(indent);
    std::string k, r;
    if (splitKey(l.text, k, r, l.number)) return parseMapping(indent);
    ++pos_;
    return flowOrScalar(continued(l.text, indent), l.number);
  }

  // A scalar that goes on over more-indented lines (a folded plain scalar, or a quoted
  // one not closed on its line): the lines joined by spaces (a line ending in a
  // backslash escape inside double quotes: joined directly).
  std::string continued(std::string text, int indent) {
    auto openQuote = [](const std::string& t) {
      if (t.empty() || (t[0] != '"' && t[0] != '\'')) return false;
      char q = t[0];
      for (size_t i = 1; i < t.size(); ++i) {
        if (q == '"' && t[i] == '\\') ++i;
        else if (t[i] == q) {
          if (q == '\'' && i + 1 < t.size() && t[i + 1] == '\'') ++i;
          else return false;
        }
      }
      return true;
    };
    bool plainText = !text.empty() && text[0] != '"' && text[0] != '\'' && text[0] != '[' && text[0] != '{';
    while (pos_ < lines_.size() && lines_[pos_].indent > indent && (plainText || openQuote(text))) {
      const std::string& next = lines_[pos_].text;
      if (plainText) {
        std::string k, r;
        if (next.rfind("- ", 0) == 0 || next == "-") break;
        if (splitKey(next, k, r, lines_[pos_].number)) break;
      }
      if (!plainText && text.size() >= 2 && text.back() == '\\' && text[text.size() - 2] != '\\') text.pop_back();
      else text += ' ';
      text += next;
      ++pos_;
    }
    return text;
  }

  // The value after "key:" or "-": inline, or the block on the next lines.
  json valueAfter(const std::string& rest, int indent, int line, bool sequenceParent) {
    if (!rest.empty()) return flowOrScalar(continued(rest, indent), line);
    if (pos_ < lines_.size()) {
      const Line& n = lines_[pos_];
      bool seq = n.text == "-" || n.text.rfind("- ", 0) == 0;
      // a mapping's block sequence may sit at the mapping's own indentation
      if (n.indent > indent || (!sequenceParent && seq && n.indent == indent)) return parseNode(n.indent);
    }
    return nullptr;
  }

  json parseSequence(int indent) {
    json arr = json::array();
    while (pos_ < lines_.size() && lines_[pos_].indent == indent &&
           (lines_[pos_].text == "-" || lines_[pos_].text.rfind("- ", 0) == 0)) {
      Line l = lines_[pos_];
      std::string item = l.text.size() > 1 ? l.text.substr(2) : "";
      size_t lead = item.find_first_not_of(' ');
      if (lead == std::string::npos) {
        ++pos_;
        arr.push_back(valueAfter("", indent, l.number, true));
        continue;
      }
      // "- rest": the item is a node at column indent + 2 + lead; re-read it there
      lines_[pos_].indent = indent + 2 + static_cast<int>(lead);
      lines_[pos_].text = item.substr(lead);
      arr.push_back(parseNode(lines_[pos_].indent));
    }
    if (pos_ < lines_.size() && lines_[pos_].indent > indent) fail(lines_[pos_].number, "bad indentation in a sequence");
    return arr;
  }

  json parseMapping(int indent) {
    json obj = json::object();
    while (pos_ < lines_.size() && lines_[pos_].indent == indent) {
      const Line l = lines_[pos_];
      if (l.text == "-" || l.text.rfind("- ", 0) == 0) break;
      std::string key, rest;
      if (!splitKey(l.text, key, rest, l.number)) fail(l.number, "expected 'key: value'");
      if (obj.contains(key)) fail(l.number, "duplicate key '" + key + "'");
      ++pos_;
      obj[key] = valueAfter(rest, indent, l.number, false);
    }
    if (pos_ < lines_.size() && lines_[pos_].indent > indent) fail(lines_[pos_].number, "bad indentation in a mapping");
    return obj;
  }
};

}  // namespace

json parseYamlSubset(const std::string& text) {
  std::vector<Line> lines;
  size_t start = 0;
  int number = 0;
  bool seenDoc = false;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string raw = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    ++number;
    start = end == std::string::npos ? text.size() + 1 : end + 1;
    if (raw.find('\t') != std::string::npos && raw.find_first_not_of(" \t") != std::string::npos &&
        raw.find_first_not_of(' ') < raw.size() && raw[raw.find_first_not_of(' ')] == '\t')
      fail(number, "tab indentation");
    std::string t = stripComment(raw);
    if (trim(t).empty()) continue;
    if (trim(t) == "---") {
      if (seenDoc || !lines.empty()) fail(number, "more than one document");
      seenDoc = true;
      continue;
    }
    if (trim(t) == "...") break;
    if (t.rfind("%", 0) == 0) fail(number, "directives are not supported");
    Line l;
    l.indent = static_cast<int>(t.find_first_not_of(' '));
    l.text = trim(t);
    l.number = number;
    lines.push_back(std::move(l));
  }
  return Parser(std::move(lines)).parseDocument();
}

}  // namespace argus::result
