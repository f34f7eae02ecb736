#include "server/argus/loop_instrument.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace argus::cli {

namespace {

// From src[open] == '(': the matching ')', skipping string and character literals and
// comments; npos if none.
size_t matchParen(const std::string& s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"' || c == '\'') {
      for (++i; i < s.size() && s[i] != c; ++i)
        if (s[i] == '\\') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      i = s.find('\n', i);
      if (i == std::string::npos) return i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      i = s.find("*/", i + 2);
      if (i == std::string::npos) return i;
      ++i;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return i;
    }
  }
  return std::string::npos;
}

struct Edit {
  size_t at;
  std::string text;
  size_t order = 0;  // at equal positions, a later edit's text goes after an earlier one's
};

}  // namespace

size_t offsetOf(const std::string& src, uint32_t line, uint32_t column) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = src.find('\n', pos);
    if (pos == std::string::npos) return std::string::npos;
    ++pos;
  }
  pos += column - 1;
  return pos < src.size() ? pos : std::string::npos;
}

// The program with each invariant `wrap`ped into its loop's condition (evaluated at every
// test of the condition); the empty string and a note when a location is not a while or
// for loop.
std::string instrumentLoops(const std::string& src, const std::vector<LoopInv>& invs,
                       const std::function<std::string(size_t, const std::string&)>& wrap, std::string& note) {
  std::vector<Edit> edits;
  for (size_t k = 0; k < invs.size(); ++k) {
    const LoopInv& v = invs[k];
    size_t p = offsetOf(src, v.line, std::max<uint32_t>(v.column, 1));
    bool isWhile = p != std::string::npos && src.compare(p, 5, "while") == 0;
    bool isFor = p != std::string::npos && src.compare(p, 3, "for") == 0;
    if (!isWhile && !isFor) {
      note = "the invariant at line " + std::to_string(v.line) + " is not at a while or for keyword";
      return "";
    }
    size_t open = src.find('(', p);
    size_t close = open == std::string::npos ? open : matchParen(src, open);
    if (close == std::string::npos) {
      note = "no loop condition at line " + std::to_string(v.line);
      return "";
    }
    std::string check = wrap(k, v.value);
    if (isWhile) {
      edits.push_back({open + 1, "(" + check + "), ("});
      edits.push_back({close, ")"});
      continue;
    }
    // for (init; cond; step): the condition between the two top-level semicolons
    size_t semi1 = std::string::npos, semi2 = std::string::npos;
    int depth = 0;
    for (size_t i = open + 1; i < close; ++i) {
      if (src[i] == '(') ++depth;
      else if (src[i] == ')') --depth;
      else if (src[i] == ';' && depth == 0) {
        if (semi1 == std::string::npos) semi1 = i;
        else if (semi2 == std::string::npos) semi2 = i;
      }
    }
    if (semi2 == std::string::npos) {
      note = "cannot find the condition of the for loop at line " + std::to_string(v.line);
      return "";
    }
    bool empty = src.find_first_not_of(" \t\n", semi1 + 1) == semi2;
    edits.push_back({semi1 + 1, "(" + check + "), (" + (empty ? std::string("1") : std::string())});
    edits.push_back({semi2, ")"});
  }
  for (size_t i = 0; i < edits.size(); ++i) edits[i].order = i;
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.at != b.at ? a.at > b.at : a.order > b.order; });
  std::string out = src;
  for (const Edit& e : edits) out.insert(e.at, e.text);
  return out;
}

namespace {

std::set<std::string> identifiers(const std::string& e) {
  std::set<std::string> ids;
  for (size_t i = 0; i < e.size();) {
    unsigned char c = static_cast<unsigned char>(e[i]);
    if ((std::isalpha(c) || c == '_') && (i == 0 || !(std::isalnum(static_cast<unsigned char>(e[i - 1])) || e[i - 1] == '_'))) {
      size_t j = i;
      while (j < e.size() && (std::isalnum(static_cast<unsigned char>(e[j])) || e[j] == '_')) ++j;
      ids.insert(e.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return ids;
}

std::string join(const std::vector<std::string>& cs) {
  std::string v;
  for (const std::string& c : cs) v += (v.empty() ? "" : " && ") + c;
  return v.empty() ? "1" : v;
}

}  // namespace

std::vector<result::WitnessInvariant> inScopeInvariants(const std::vector<result::WitnessInvariant>& invs,
                                                        const std::string& file, const std::string& source,
                                                        const frontend::FrontendOptions& fo) {
  if (invs.empty()) return invs;
  frontend::ParseResult pr = frontend::parseSource(source, file, fo);
  if (!pr.ok()) return {};
  const cfa::Program& prog = *pr.program;
  // C names used by more than one variable of a function (its own and the globals)
  std::map<std::string, std::map<std::string, int>> uses;  // function -> C name -> count
  std::map<cfa::FuncId, std::string> fname;
  for (const auto& [n, id] : prog.funcByName) fname[id] = n;
  std::map<std::string, int> globals;
  for (const cfa::Variable& v : prog.vars)
    if (!v.cName.empty() && v.func == cfa::kNoFunc) globals[v.cName]++;
  for (const cfa::Variable& v : prog.vars)
    if (!v.cName.empty() && v.func != cfa::kNoFunc && fname.count(v.func)) uses[fname[v.func]][v.cName]++;
  auto ambiguous = [&](const std::string& fn, const std::string& id) {
    int n = globals.count(id) ? globals[id] : 0;
    auto f = uses.find(fn);
    if (f != uses.end() && f->second.count(id)) n += f->second.at(id);
    return n > 1;
  };
  std::vector<std::vector<std::string>> kept(invs.size());
  for (size_t k = 0; k < invs.size(); ++k)
    for (const std::string& c : result::witnessConjuncts(invs[k].value)) {
      if (c.empty() || c == "1") continue;
      bool ok = true;
      for (const std::string& id : identifiers(c)) ok = ok && !ambiguous(invs[k].function, id);
      if (ok) kept[k].push_back(c);
    }
  auto compiles = [&](const std::vector<LoopInv>& li) {
    std::string note;
    std::string text = instrumentLoops(source, li, [](size_t, const std::string& v) { return "(" + v + ") ? 0 : 0"; }, note);
    return !text.empty() && frontend::parseSource(text, file, fo).ok();
  };
  auto loopInv = [&](size_t k, const std::string& v) { return LoopInv{invs[k].line, invs[k].column, v}; };
  std::vector<LoopInv> all;
  for (size_t k = 0; k < invs.size(); ++k) all.push_back(loopInv(k, join(kept[k])));
  if (!compiles(all)) {
    for (size_t k = 0; k < invs.size(); ++k) {
      if (kept[k].empty() || compiles({loopInv(k, join(kept[k]))})) continue;
      std::vector<std::string> good;
      for (const std::string& c : kept[k])
        if (compiles({loopInv(k, c)})) good.push_back(c);
      kept[k] = good;
    }
  }
  std::vector<result::WitnessInvariant> out = invs;
  for (size_t k = 0; k < invs.size(); ++k) out[k].value = join(kept[k]);
  return out;
}

}  // namespace argus::cli
