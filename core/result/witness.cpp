#include "core/result/witness.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "core/result/sarif.h"  // utcNow
#include "core/support/sha256.h"

#ifndef ARGUS_VERSION
#define ARGUS_VERSION "0.0.0"
#endif

namespace argus::result {

namespace {

std::string newUuid() {
  std::random_device rd;
  std::mt19937_64 gen((uint64_t(rd()) << 32) ^ rd());
  unsigned char b[16];
  for (int i = 0; i < 16; i += 8) {
    uint64_t v = gen();
    for (int k = 0; k < 8; ++k) b[i + k] = static_cast<unsigned char>(v >> (8 * k));
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char s[37];
  std::snprintf(s, sizeof s, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return s;
}

std::string commandLineOf(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    bool quote = a.empty() || a.find_first_of(" \t\n\"'|&;<>()$`\\*?[]#~=%") != std::string::npos;
    std::string q = a;
    if (quote) {
      q = "'";
      for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      q += "'";
    }
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

// The source's line `line` (1-based), without its newline; empty past the end.
std::string sourceLine(const std::string& src, uint32_t line) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = src.find('\n', pos);
    if (pos == std::string::npos) return "";
    ++pos;
  }
  size_t end = src.find('\n', pos);
  return src.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

// The 1-based column of the ')' closing the call `fn(...)` that starts at (line, column),
// when the call is written on that line as `fn (` ... `)`; 0 otherwise.
uint32_t closingParen(const std::string& src, uint32_t line, uint32_t column, const std::string& fn) {
  std::string l = sourceLine(src, line);
  if (column == 0 || column > l.size() || l.compare(column - 1, fn.size(), fn) != 0) return 0;
  size_t i = column - 1 + fn.size();
  while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
  if (i >= l.size() || l[i] != '(') return 0;
  int depth = 0;
  for (; i < l.size(); ++i) {
    if (l[i] == '"' || l[i] == '\'') {  // a string or character literal: to its closing quote
      char q = l[i];
      for (++i; i < l.size() && l[i] != q; ++i)
        if (l[i] == '\\') ++i;
      if (i >= l.size()) return 0;
      continue;
    }
    if (l[i] == '(') ++depth;
    if (l[i] == ')' && --depth == 0) return static_cast<uint32_t>(i + 1);
  }
  return 0;
}

std::string signedValue(const PathInput& in) {
  if (in.width > 64 || in.width == 0) return cfa::valueToString(in.value, in.width ? in.width : 128, in.isSigned);
  if (!in.isSigned) return std::to_string(static_cast<uint64_t>(in.value));
  uint64_t sign = uint64_t(1) << (in.width - 1);
  uint64_t value = static_cast<uint64_t>(in.value);
  if (!(value & sign)) return std::to_string(value);
  // negative: -(2^width - value), as a C/ACSL literal that needs no suffix
  uint64_t mag = in.width == 64 ? ~value + 1 : (sign << 1) - value;
  return "-" + std::to_string(mag);
}

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A C identifier token in an invariant formula that a witness may not name: renamed
// instances (`x@12`), unique names with other punctuation, Argus's internal `__` names.
bool foreignName(const std::string& f) {
  for (size_t i = 0; i < f.size();) {
    if (isIdentStart(f[i]) && (i == 0 || !isIdentChar(f[i - 1]))) {
      size_t j = i;
      while (j < f.size() && isIdentChar(f[j])) ++j;
      std::string id = f.substr(i, j - i);
      if (id.rfind("__", 0) == 0) return true;
      if (j < f.size() && (f[j] == '@' || f[j] == '#' || f[j] == '.' || f[j] == '$')) return true;
      if (j < f.size() && f[j] == ':') return true;  // main::i, x:3 (a ?: colon stands apart)
      i = j;
    } else if (f[i] == '@' || f[i] == '#' || f[i] == '$' ||
               (f[i] == ':' && ((i + 1 < f.size() && (isIdentChar(f[i + 1]) || f[i + 1] == ':')) ||
                                (i > 0 && (isIdentChar(f[i - 1]) || f[i - 1] == ':'))))) {
      return true;
    } else {
      ++i;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> witnessConjuncts(const std::string& f) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '(') ++depth;
    else if (f[i] == ')') --depth;
    else if (depth == 0 && f.compare(i, 2, "&&") == 0) {
      out.push_back(f.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  out.push_back(f.substr(start));
  for (std::string& c : out) {
    size_t a = c.find_first_not_of(" \t"), b = c.find_last_not_of(" \t");
    c = a == std::string::npos ? "" : c.substr(a, b - a + 1);
  }
  return out;
}

namespace {

// f without the conjuncts a witness may not hold; "1" when nothing is left. Argus's
// `true`/`false` become C's 1/0.
std::string witnessFormula(const std::string& f) {
  std::string kept;
  for (const std::string& c : witnessConjuncts(f)) {
    if (c.empty() || c == "true" || foreignName(c)) continue;
    std::string v = c == "false" ? "0" : c;
    kept += (kept.empty() ? "" : " && ") + v;
  }
  return kept.empty() ? "1" : kept;
}

void writeMetadata(std::ostringstream& o, const VerificationResult& r, const WitnessTask& t, const std::string& hash) {
  std::string entry = r.entryName.empty() ? "main" : r.entryName;
  o << "  metadata:\n"
    << "    format_version: \"2.0\"\n"
    << "    uuid: " << yamlQuote(newUuid()) << "\n"
    << "    creation_time: " << yamlQuote(utcNow()) << "\n"
    << "    producer:\n"
    << "      name: \"Argus\"\n"
    << "      version: " << yamlQuote(ARGUS_VERSION) << "\n"
    << "      configuration: " << yamlQuote(r.algorithm.empty() ? "default" : r.algorithm) << "\n";
  if (!t.commandLine.empty()) o << "      command_line: " << yamlQuote(commandLineOf(t.commandLine)) << "\n";
  o << "    task:\n"
    << "      input_files:\n"
    << "        - " << yamlQuote(t.file) << "\n"
    << "      input_file_hashes:\n"
    << "        " << yamlQuote(t.file) << ": " << yamlQuote(hash) << "\n"
    << "      specification: " << yamlQuote("CHECK( init(" + entry + "()), LTL(G ! call(reach_error())) )") << "\n"
    << "      data_model: " << yamlQuote(t.dataModel == "ILP32" ? "ILP32" : "LP64") << "\n"
    << "      language: \"C\"\n";
}

void writeLocation(std::ostringstream& o, const std::string& indent, const std::string& file, uint32_t line,
                   uint32_t column, const std::string& function) {
  o << indent << "location:\n"
    << indent << "  file_name: " << yamlQuote(file) << "\n"
    << indent << "  line: " << std::max<uint32_t>(line, 1) << "\n";
  if (column > 0) o << indent << "  column: " << column << "\n";
  if (!function.empty()) o << indent << "  function: " << yamlQuote(function) << "\n";
}

// A decimal integer as the trace shows it ("-5", "128"): usable in a constraint.
// A number as the trace shows it ("-5", "128", "0x1000000000000", "1.5", "4.9e-324"):
// usable as the value of a C constraint.
bool numberText(const std::string& v) {
  size_t i = v.size() > 1 && v[0] == '-' ? 1 : 0;
  if (i >= v.size()) return false;
  if (v.compare(i, 2, "0x") == 0) return v.size() - i > 2 && v.size() - i <= 18 && v.find_first_not_of("0123456789abcdef", i + 2) == std::string::npos;
  if (v.find_first_not_of("0123456789", i) == std::string::npos) return v.size() - i <= 20;
  // a finite floating-point value as %.17g / %.9g print it
  return v.find_first_not_of("0123456789.e+-", i) == std::string::npos && v.find_first_of("0123456789") != std::string::npos;
}

// The step after `s` that starts a later line of the same function (where an assumption
// on what step `s` chose can stand: before that statement); npos when there is none.
size_t nextStatement(const Counterexample& cex, size_t s) {
  for (size_t k = s + 1; k < cex.steps.size(); ++k) {
    const TraceStep& t = cex.steps[k];
    if (t.function != cex.steps[s].function) return std::string::npos;
    if (t.line > cex.steps[s].line && t.column > 0) return k;
  }
  return std::string::npos;
}

std::string violation(const VerificationResult& r, const WitnessTask& t, const std::string& hash) {
  const Counterexample& cex = *r.counterexample;
  std::ostringstream o;
  o << "- entry_type: \"violation_sequence\"\n";
  writeMetadata(o, r, t, hash);
  o << "  content:\n";
  // One segment per environment value, ordered by the step where its waypoint stands:
  // a function_return waypoint for each nondet call's result (matched to the inputs in
  // path order), and an assumption waypoint `NAME == V` for a value the environment
  // chose without a call the format can name — an uninitialised local, or a variable
  // scanf read into — standing before the next statement after the choice.
  std::vector<std::pair<size_t, std::string>> segments;  // (step index, text)
  auto waypoint = [&](const std::string& type, const std::string& constraint, const std::string& format,
                      const TraceStep& at, uint32_t column) {
    std::ostringstream w;
    w << "    - segment:\n"
      << "        - waypoint:\n"
      << "            type: " << yamlQuote(type) << "\n"
      << "            action: \"follow\"\n"
      << "            constraint:\n"
      << "              value: " << yamlQuote(constraint) << "\n"
      << "              format: " << yamlQuote(format) << "\n";
    writeLocation(w, "            ", t.file, at.line, column, at.function);
    return w.str();
  };
  size_t step = 0;
  for (const PathInput& in : cex.inputs) {
    size_t s = step;
    while (s < cex.steps.size() &&
           !(cex.steps[s].nondet && cex.steps[s].line == in.line && cex.steps[s].statement.rfind(in.function, 0) == 0))
      ++s;
    if (s >= cex.steps.size()) continue;  // not found after the previous one: no waypoint for it
    step = s + 1;
    const TraceStep& ts = cex.steps[s];
    if (!ts.file.empty() && ts.file != t.file) continue;  // a call in another file (a header)
    uint32_t col = closingParen(t.source, ts.line, ts.column, in.function);
    if (col == 0) continue;
    segments.push_back({s, waypoint("function_return", "\\result == " + signedValue(in), "acsl_expression", ts, col)});
  }
  for (size_t s = 0; s < cex.steps.size(); ++s) {
    const TraceStep& ts = cex.steps[s];
    if (!ts.file.empty() && ts.file != t.file) continue;
    // what a scanf call returned (its count of conversions): a function_return too
    if (ts.nondet && ts.values.size() == 1 && ts.values[0].first == "nondet" && numberText(ts.values[0].second)) {
      for (const char* fn : {"scanf", "fscanf", "sscanf"}) {
        if (ts.statement.rfind(std::string(fn) + "(", 0) != 0 && ts.statement.rfind(std::string(fn) + " (", 0) != 0) continue;
        uint32_t col = closingParen(t.source, ts.line, ts.column, fn);
        if (col > 0)
          segments.push_back({s, waypoint("function_return", "\\result == " + ts.values[0].second, "acsl_expression", ts, col)});
      }
      continue;
    }
    std::string name, value;
    if (ts.statement.rfind("uninitialised ", 0) == 0 && ts.values.size() == 1 &&
        ts.values[0].first == ts.statement.substr(14)) {
      std::tie(name, value) = ts.values[0];
    } else if (s > 0 && !ts.nondet && cex.steps[s - 1].nondet && cex.steps[s - 1].statement == "scanf input" &&
               ts.values.size() == 1) {
      std::tie(name, value) = ts.values[0];  // the value scanf stored into its argument
    } else {
      continue;
    }
    if (!numberText(value) || foreignName(name)) continue;
    size_t at = nextStatement(cex, s);
    if (at == std::string::npos) continue;
    const TraceStep& where = cex.steps[at];
    if (!where.file.empty() && where.file != t.file) continue;
    segments.push_back({at, waypoint("assumption", name + " == " + value, "c_expression", where, where.column)});
  }
  std::stable_sort(segments.begin(), segments.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& seg : segments) o << seg.second;
  // the target: the error call, the path's last step
  const TraceStep* last = cex.steps.empty() ? nullptr : &cex.steps.back();
  o << "    - segment:\n"
    << "        - waypoint:\n"
    << "            type: \"target\"\n"
    << "            action: \"follow\"\n";
  writeLocation(o, "            ", t.file, last ? last->line : r.entryLine, last ? last->column : 0,
                last ? last->function : r.entryName);
  return o.str();
}

std::string correctness(const VerificationResult& r, const WitnessTask& t, const std::string& hash) {
  std::ostringstream o;
  o << "- entry_type: \"invariant_set\"\n";
  writeMetadata(o, r, t, hash);
  std::vector<WitnessInvariant> invs = t.invariants ? *t.invariants : witnessInvariants(r.invariant, t.file);
  if (invs.empty()) {
    o << "  content: []\n";
    return o.str();
  }
  o << "  content:\n";
  for (const WitnessInvariant& w : invs) {
    o << "    - invariant:\n"
      << "        type: \"loop_invariant\"\n";
    writeLocation(o, "        ", t.file, w.line, w.column, w.function);
    o << "        value: " << yamlQuote(w.value) << "\n"
      << "        format: \"c_expression\"\n";
  }
  return o.str();
}

}  // namespace

std::string yamlQuote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char b[8];
          std::snprintf(b, sizeof b, "\\x%02x", c);
          out += b;
        } else {
          out += static_cast<char>(c);  // UTF-8 passes through
        }
    }
  }
  return out + "\"";
}

std::vector<WitnessInvariant> witnessInvariants(const std::map<std::string, std::string>& invariant,
                                                const std::string& file) {
  // location (function, line, column) -> the formula of each calling context
  std::map<std::tuple<uint32_t, uint32_t, std::string>, std::vector<std::string>> at;
  for (const auto& [loc, f] : invariant) {
    size_t in = loc.find(" in ");
    if (in == std::string::npos) continue;
    std::string where = loc.substr(0, in), rest = loc.substr(in + 4);
    std::string fn = rest.substr(0, rest.find(' '));
    size_t c2 = where.rfind(':');
    if (c2 == std::string::npos || c2 == 0) continue;
    size_t c1 = where.rfind(':', c2 - 1);
    if (c1 == std::string::npos) continue;
    std::string lf = where.substr(0, c1);
    if (!file.empty() && !lf.empty() && lf != file) continue;  // a loop in another file
    uint32_t line = 0, column = 0;
    try {
      line = static_cast<uint32_t>(std::stoul(where.substr(c1 + 1, c2 - c1 - 1)));
      column = static_cast<uint32_t>(std::stoul(where.substr(c2 + 1)));
    } catch (const std::exception&) {
      continue;
    }
    if (line == 0 || fn.empty()) continue;
    at[{line, column, fn}].push_back(witnessFormula(f));
  }
  std::vector<WitnessInvariant> out;
  for (auto& [key, forms] : at) {
    std::sort(forms.begin(), forms.end());
    forms.erase(std::unique(forms.begin(), forms.end()), forms.end());
    std::string v;
    if (std::find(forms.begin(), forms.end(), "1") != forms.end()) v = "1";  // one context says nothing
    else if (forms.size() == 1) v = forms[0];
    else
      for (const std::string& f : forms) v += (v.empty() ? "(" : " || (") + f + ")";
    out.push_back({std::get<2>(key), std::get<0>(key), std::get<1>(key), v});
  }
  return out;
}

std::optional<std::string> toWitness(const VerificationResult& r, const WitnessTask& t) {
  std::string hash = support::sha256Hex(t.source);
  if (r.verdict == Verdict::False && r.counterexample) return violation(r, t, hash);
  if (r.verdict == Verdict::True) return correctness(r, t, hash);
  return std::nullopt;
}

}  // namespace argus::result
