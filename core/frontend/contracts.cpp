// See contracts.h.
#include "core/frontend/contracts.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace argus::frontend {

namespace {

constexpr size_t npos = std::string::npos;

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// One line: whitespace runs (newlines too) become one space.
std::string oneLine(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : trim(s)) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// A comment, string or character literal starting at i: the index after it, else i.
size_t skipLexical(const std::string& s, size_t i) {
  if (s.compare(i, 2, "//") == 0) {
    while (i < s.size() && s[i] != '\n') ++i;
    return i;
  }
  if (s.compare(i, 2, "/*") == 0) {
    size_t e = s.find("*/", i + 2);
    return e == npos ? s.size() : e + 2;
  }
  if (s[i] == '"' || s[i] == '\'') {
    char q = s[i++];
    while (i < s.size() && s[i] != q && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
    return std::min(i + 1, s.size());
  }
  return i;
}

bool atLineStart(const std::string& s, size_t i) {
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) --i;
  return i == 0 || s[i - 1] == '\n';
}

// A preprocessor line starting at i (with its continuations): the index of its end, else i.
size_t skipDirective(const std::string& s, size_t i) {
  if (s[i] != '#' || !atLineStart(s, i)) return i;
  while (i < s.size() && s[i] != '\n') {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
    ++i;
  }
  return i;
}

uint32_t lineAt(const std::string& s, size_t pos) {
  return 1 + static_cast<uint32_t>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

// The index of the ')' matching the '(' at `open` in e (strings skipped), else npos.
size_t matching(const std::string& e, size_t open) {
  int depth = 0;
  for (size_t i = open; i < e.size();) {
    size_t j = skipLexical(e, i);
    if (j != i) {
      i = j;
      continue;
    }
    if (e[i] == '(') ++depth;
    if (e[i] == ')' && --depth == 0) return i;
    ++i;
  }
  return npos;
}

// The first `..` of e (a range), else npos.
size_t rangeDots(const std::string& e) { return e.find(".."); }

// ACSL chains comparisons (`a < b < c` is `a < b && b < c`), C does not: two
// comparison operators in one operand of && / || / ?: / , are outside the subset.
bool chainedComparison(const std::string& e) {
  std::vector<int> count{0};
  for (size_t i = 0; i < e.size();) {
    size_t j = skipLexical(e, i);
    if (j != i) {
      i = j;
      continue;
    }
    char c = e[i], d = i + 1 < e.size() ? e[i + 1] : '\0';
    if (c == '(' || c == '[') {
      count.push_back(0);
    } else if ((c == ')' || c == ']') && count.size() > 1) {
      count.pop_back();
    } else if ((c == '&' && d == '&') || (c == '|' && d == '|')) {
      count.back() = 0;
      ++i;
    } else if (c == '?' || c == ':' || c == ',') {
      count.back() = 0;
    } else if ((c == '<' && d == '<') || (c == '>' && d == '>') || (c == '-' && d == '>')) {
      i += (i + 2 < e.size() && e[i + 2] == '=') ? 2 : 1;  // shifts, ->, <<=, >>=
    } else if (((c == '=' || c == '!') && d == '=') || c == '<' || c == '>') {
      if (++count.back() >= 2) return true;
      if (d == '=') ++i;
    }
    ++i;
  }
  return false;
}

// e with the ACSL subset translated to C; nullopt with `why` outside the subset.
std::optional<std::string> translate(const std::string& e, std::string& why, bool& usesValid) {
  if (chainedComparison(e)) {
    why = "a chained comparison (ACSL reads `a < b < c` as `a < b && b < c`, C does not)";
    return std::nullopt;
  }
  std::string out;
  for (size_t i = 0; i < e.size();) {
    size_t j = skipLexical(e, i);
    if (j != i) {
      out.append(e, i, j - i);
      i = j;
      continue;
    }
    if (e.compare(i, 3, "==>") == 0 || e.compare(i, 4, "<==>") == 0 || e.compare(i, 2, "^^") == 0) {
      why = "the ACSL operator " + e.substr(i, e.compare(i, 4, "<==>") == 0 ? 4 : e[i] == '^' ? 2 : 3);
      return std::nullopt;
    }
    if (e.compare(i, 2, "..") == 0) {
      why = "a range `..` outside \\valid(p + (lo .. hi))";
      return std::nullopt;
    }
    if (e[i] != '\\') {
      out.push_back(e[i++]);
      continue;
    }
    size_t w = i + 1;
    while (w < e.size() && identChar(e[w])) ++w;
    std::string word = e.substr(i + 1, w - i - 1);
    if (word == "null") {
      out += "((void*)0)";
    } else if (word == "true" || word == "false") {
      out += word == "true" ? "1" : "0";
    } else if (word == "valid" || word == "valid_read") {
      size_t open = w;
      while (open < e.size() && std::isspace(static_cast<unsigned char>(e[open]))) ++open;
      size_t close = open < e.size() && e[open] == '(' ? matching(e, open) : npos;
      if (close == npos) {
        why = "\\" + word + " without its parenthesised argument";
        return std::nullopt;
      }
      std::string inner = trim(e.substr(open + 1, close - open - 1));
      size_t dots = rangeDots(inner);
      std::string ptr, lo, hi;
      if (dots == npos) {
        ptr = inner;
      } else {
        // p + (lo .. hi)
        size_t rclose = inner.empty() || inner.back() != ')' ? npos : inner.size() - 1;
        size_t ropen = npos;
        if (rclose != npos) {
          int depth = 0;
          for (size_t k = rclose + 1; k-- > 0;) {
            if (inner[k] == ')') ++depth;
            if (inner[k] == '(' && --depth == 0) {
              ropen = k;
              break;
            }
          }
        }
        std::string before = ropen == npos ? "" : trim(inner.substr(0, ropen));
        if (before.empty() || before.back() != '+') {
          why = "\\" + word + "(" + inner + ") (only \\valid(p) and \\valid(p + (lo .. hi)))";
          return std::nullopt;
        }
        ptr = trim(before.substr(0, before.size() - 1));
        std::string range = inner.substr(ropen + 1, rclose - ropen - 1);
        size_t d = range.find("..");
        lo = trim(range.substr(0, d));
        hi = trim(range.substr(d + 2));
        if (ptr.empty() || lo.empty() || hi.empty()) {
          why = "\\" + word + "(" + inner + ")";
          return std::nullopt;
        }
      }
      std::optional<std::string> p = translate(ptr, why, usesValid);
      if (!p) return std::nullopt;
      if (dots == npos) {
        out += "__argus_valid((" + *p + "), sizeof(*(" + *p + ")))";
      } else {
        std::optional<std::string> l = translate(lo, why, usesValid), h = translate(hi, why, usesValid);
        if (!l || !h) return std::nullopt;
        out += "__argus_valid_range((" + *p + "), (long long)(" + *l + "), (long long)(" + *h + "), sizeof(*(" + *p +
               ")))";
      }
      usesValid = true;
      i = close + 1;
      continue;
    } else {
      why = "\\" + word;
      return std::nullopt;
    }
    i = w;
  }
  return out;
}

}  // namespace

namespace {

// The function a declaration or definition starting at (or after) `i` names: the text up
// to the next `{` (a definition, after its parameter list's `)`) or `;` (a declaration)
// at parenthesis depth 0.
struct Target {
  std::string name;
  std::vector<std::string> params;  // as written; empty for `(void)` and `()`
  bool simpleParams = true;         // every parameter a plain `type name` (or `type name[]`)
  size_t body = npos;               // a definition: the index of its `{`
};

std::vector<std::string> paramNames(const std::string& list, bool& simple) {
  std::vector<std::string> out;
  std::string t = trim(list);
  if (t.empty() || t == "void") return out;
  int depth = 0;
  size_t start = 0;
  for (size_t q = 0; q <= t.size(); ++q) {
    if (q < t.size()) {
      if (t[q] == '(' || t[q] == '[') ++depth;
      if (t[q] == ')' || t[q] == ']') --depth;
      if (t[q] != ',' || depth != 0) continue;
    }
    std::string one = trim(t.substr(start, q - start));
    start = q + 1;
    size_t bracket = one.find('[');
    if (bracket != npos) one = trim(one.substr(0, bracket));
    if (one.find('(') != npos || one.find("...") != npos) simple = false;
    // the last identifier, if the parameter has more than one word (`int` alone is unnamed)
    size_t e = one.size();
    while (e > 0 && !identChar(one[e - 1])) --e;
    size_t b = e;
    while (b > 0 && identChar(one[b - 1])) --b;
    if (b == 0 || b == e) simple = false;
    out.push_back(one.substr(b, e - b));
  }
  return out;
}

Target targetAt(const std::string& s, size_t i) {
  Target t;
  size_t k = i, open = npos, close = npos;
  int depth = 0;
  char last = 0, prev = 0;
  std::string ident;
  while (k < s.size()) {
    size_t j = skipLexical(s, k);
    if (j == k) j = skipDirective(s, k);
    if (j != k) {
      k = j;
      continue;
    }
    char c = s[k];
    if (depth == 0 && (c == '{' || c == ';')) {
      if (c == '{' && last == ')') t.body = k;
      break;
    }
    if (c == '(' && depth++ == 0 && t.name.empty()) {
      t.name = ident;
      open = k;
    }
    if (c == ')' && --depth == 0 && open != npos && close == npos) close = k;
    if (identChar(c)) {
      if (!identChar(prev)) ident.clear();
      ident.push_back(c);
    }
    prev = c;
    if (!std::isspace(static_cast<unsigned char>(c))) last = c;
    ++k;
  }
  if (open != npos && close != npos) t.params = paramNames(s.substr(open + 1, close - open - 1), t.simpleParams);
  else t.simpleParams = false;
  return t;
}

// The function definitions at file scope, by name (the first of each name).
std::map<std::string, Target> definitionsIn(const std::string& s) {
  std::map<std::string, Target> out;
  int braces = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    size_t j = skipLexical(s, i);
    if (j == i) {
      j = skipDirective(s, i);
      if (j != i && braces == 0) start = j;
    }
    if (j != i) {
      i = j;
      continue;
    }
    char c = s[i];
    if (c == '{') {
      if (braces == 0) {
        Target t = targetAt(s, start);
        if (t.body == i && !t.name.empty()) out.emplace(t.name, t);
      }
      ++braces;
    } else if (c == '}') {
      if (--braces <= 0) {
        braces = 0;
        start = i + 1;
      }
    } else if (c == ';' && braces == 0) {
      start = i + 1;
    }
    ++i;
  }
  return out;
}

// A comment's clauses for the function `t` (a definition when t.body != npos): the calls
// to insert after its `{`, the clauses recorded in r, warnings for the rest. `file` and
// `line` are where the comment is; `mainFile` is the file being rewritten.
std::string clausesOf(std::string content, uint32_t line, const std::string& file, const std::string& mainFile,
                      const Target& t, bool validAllowed, ContractRewrite& r) {
  const std::string& name = t.name;
  const size_t body = t.body;
  // the clauses (ACSL allows `@` at the start of continuation lines: blanks)
  std::replace(content.begin(), content.end(), '@', ' ');
  std::string inserted;
  size_t start = 0;
  int pd = 0;
  for (size_t q = 0; q <= content.size(); ++q) {
    if (q < content.size()) {
      size_t j = skipLexical(content, q);
      if (j != q) {
        q = j - 1;
        continue;
      }
      if (content[q] == '(' || content[q] == '[') ++pd;
      if (content[q] == ')' || content[q] == ']') --pd;
      if (content[q] != ';' || pd != 0) continue;
    }
    std::string raw = content.substr(start, q - start);
    size_t first = raw.find_first_not_of(" \t\r\n");
    uint32_t cl = line + (first == npos ? 0 : lineAt(raw, first) - 1) + (lineAt(content, start) - 1);
    start = q + 1;
    std::string clause = oneLine(raw);
    if (clause.empty()) continue;
    std::string here = file + ":" + std::to_string(cl);
    size_t kw = 0;
    while (kw < clause.size() && identChar(clause[kw])) ++kw;
    if (clause.substr(0, kw) != "requires") {
      r.warnings.push_back(here + ": warning: contract clause `" + clause + "` is outside the supported subset (requires): ignored");
      continue;
    }
    if (body == npos) {
      r.warnings.push_back(here + ": warning: contract `" + clause + "` of " + (name.empty() ? "a declaration" : name) +
                           " is not before a function definition: ignored");
      continue;
    }
    std::string why;
    bool valid = false;
    std::optional<std::string> c = translate(trim(clause.substr(kw)), why, valid);
    if (c && valid && !validAllowed) {
      c.reset();
      why = "\\valid in a whole-project run (argus project)";
    }
    if (!c || trim(clause.substr(kw)).empty()) {
      r.warnings.push_back(here + ": warning: contract `" + clause + "` of " + name + " uses " +
                           (why.empty() ? "nothing to check" : why) + ", outside the supported subset: ignored");
      continue;
    }
    r.usesValid = r.usesValid || valid;
    inserted += " __argus_requires((" + oneLine(*c) + "), " + std::to_string(r.clauses.size()) + ");";
    r.clauses.push_back({cl, clause, file == mainFile ? std::string() : file});
  }
  return inserted;
}

}  // namespace

std::vector<DeclaredContract> declaredContracts(const std::string& s, const std::string& file) {
  std::vector<DeclaredContract> out;
  int braces = 0, externC = 0;  // `extern "C" {` (C++ guards, not evaluated here) is no body
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, "/*@") != 0) {
      size_t j = skipLexical(s, i);
      if (j == i) j = skipDirective(s, i);
      if (j != i) {
        i = j;
        continue;
      }
      if (s[i] == '{') {
        size_t b = i;
        while (b > 0 && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
        if (braces == 0 && b >= 10 && s.compare(b - 10, 10, "extern \"C\"") == 0) ++externC;
        else ++braces;
      }
      if (s[i] == '}') {
        if (braces == 0 && externC > 0) --externC;
        else --braces;
      }
      ++i;
      continue;
    }
    size_t end = s.find("*/", i + 3);
    if (end == npos) break;
    DeclaredContract d;
    d.file = file;
    d.line = lineAt(s, i);
    d.content = s.substr(i + 3, end - i - 3);
    i = end + 2;
    if (braces > 0) continue;
    Target t = targetAt(s, i);
    if (t.body != npos || t.name.empty()) continue;  // a definition in a header is not rewritten
    d.function = t.name;
    d.params = t.params;
    d.simpleParams = t.simpleParams;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> quotedIncludes(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    size_t j = skipLexical(s, i);
    if (j != i) {
      i = j;
      continue;
    }
    if (s[i] == '#' && atLineStart(s, i)) {
      size_t e = skipDirective(s, i);
      std::string d = trim(s.substr(i + 1, e - i - 1));
      if (d.compare(0, 7, "include") == 0) {
        std::string rest = trim(d.substr(7));
        size_t close = rest.size() > 1 && rest[0] == '"' ? rest.find('"', 1) : npos;
        if (close != npos && close > 1) out.push_back(rest.substr(1, close - 1));
      }
      i = e;
      continue;
    }
    ++i;
  }
  return out;
}

ContractRewrite rewriteContracts(const std::string& s, const std::string& file, bool validAllowed,
                                 const std::vector<DeclaredContract>& declared) {
  ContractRewrite r;
  std::vector<std::pair<size_t, std::string>> inserts;
  std::vector<DeclaredContract> here;   // comments before this file's own declarations
  std::set<std::string> withOwn;        // definitions with a comment of their own
  int braces = 0;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, "/*@") != 0) {
      size_t j = skipLexical(s, i);
      if (j == i) j = skipDirective(s, i);
      if (j != i) {
        i = j;
        continue;
      }
      if (s[i] == '{') ++braces;
      if (s[i] == '}') --braces;
      ++i;
      continue;
    }
    size_t end = s.find("*/", i + 3);
    if (end == npos) break;
    const uint32_t line = lineAt(s, i);
    const std::string where = file + ":" + std::to_string(line);
    std::string content = s.substr(i + 3, end - i - 3);
    i = end + 2;
    if (braces > 0) {
      r.warnings.push_back(where + ": warning: ACSL annotation inside a function body is not supported: ignored");
      continue;
    }
    Target t = targetAt(s, i);
    if (t.body == npos && !t.name.empty()) {
      // a prototype's contract: for this file's definition of the function (below)
      here.push_back({t.name, t.params, t.simpleParams, file, line, content});
      continue;
    }
    if (t.body != npos) withOwn.insert(t.name);
    std::string inserted = clausesOf(content, line, file, file, t, validAllowed, r);
    if (!inserted.empty()) inserts.emplace_back(t.body + 1, inserted);
  }
  // Contracts on prototypes (this file's, then the included headers'): for the definition
  // in this file that has none of its own, when the parameter names are the same.
  if (!here.empty() || !declared.empty()) {
    std::map<std::string, Target> defs = definitionsIn(s);
    std::set<std::string> applied;
    auto use = [&](const DeclaredContract& d, bool own) {
      auto it = defs.find(d.function);
      const std::string at = d.file + ":" + std::to_string(d.line);
      if (it == defs.end() || withOwn.count(d.function) || applied.count(d.function)) {
        if (!own) return;  // a header's prototype of a function defined elsewhere
        Target decl;
        decl.name = d.function;
        if (it == defs.end()) clausesOf(d.content, d.line, d.file, file, decl, validAllowed, r);  // the warnings
        else
          r.warnings.push_back(at + ": warning: the contract on a declaration of " + d.function +
                               " is ignored: its definition has a contract of its own");
        return;
      }
      const Target& def = it->second;
      if (!d.simpleParams || !def.simpleParams || d.params != def.params) {
        r.warnings.push_back(at + ": warning: the contract on the declaration of " + d.function +
                             " is ignored: its parameter names differ from the definition's");
        return;
      }
      applied.insert(d.function);
      std::string inserted = clausesOf(d.content, d.line, d.file, file, def, validAllowed, r);
      if (!inserted.empty()) inserts.emplace_back(def.body + 1, inserted);
    };
    for (const DeclaredContract& d : here) use(d, true);
    for (const DeclaredContract& d : declared) use(d, false);
    std::stable_sort(inserts.begin(), inserts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  if (inserts.empty()) {
    r.code = s;
    return r;
  }
  r.changed = true;
  size_t from = 0;
  for (const auto& [at, text] : inserts) {
    r.code.append(s, from, at - from);
    r.code += text;
    from = at;
  }
  r.code.append(s, from, npos);
  return r;
}

}  // namespace argus::frontend
