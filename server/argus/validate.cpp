#include "server/argus/validate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/engine/verify.h"
#include "core/frontend/frontend.h"
#include "core/result/replay.h"
#include "core/result/yaml.h"
#include "core/support/sha256.h"
#include "server/argus/loop_instrument.h"

namespace argus::cli {

namespace {

using nlohmann::json;

const char* kUsage =
    "usage: argus validate --witness W.yml FILE.c [--data-model ILP32|LP64] [--timeout SEC]\n"
    "                      [--format text|json]\n"
    "  validates an SV-COMP witness (format 2.0) for FILE.c:\n"
    "  violation_sequence: the program runs on the concrete interpreter with the witness's\n"
    "    function_return values; confirmed when that run follows the waypoints and reaches\n"
    "    the error at the target (VERDICT: false)\n"
    "  invariant_set: each loop invariant is checked at its loop's condition by k-induction\n"
    "    (the ones that can fail are listed), then the program is verified with them\n"
    "    assumed there; confirmed when both hold (VERDICT: true)\n"
    "  anything the validator cannot decide is unknown, never a guess\n";

struct Outcome {
  std::string witness = "unknown";  // confirmed | rejected | unknown
  std::string verdict = "unknown";  // what the validation shows about the program
  std::string type;                 // violation_sequence | invariant_set
  std::vector<std::string> notes;
  json failed = json::array();      // correctness: the invariants that can fail
};

std::string readFile(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string baseName(const std::string& p) {
  size_t s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

std::string where(const cfa::SourceRange& r) { return baseName(r.file) + ":" + std::to_string(r.line); }

// "\result == V" (V a decimal integer, maybe negative, maybe with a U/L suffix).
std::optional<int64_t> returnValue(const std::string& c) {
  std::string s;
  for (char ch : c)
    if (ch != ' ' && ch != '(' && ch != ')') s += ch;
  const std::string pre = "\\result==";
  if (s.rfind(pre, 0) != 0) return std::nullopt;
  std::string v = s.substr(pre.size());
  while (!v.empty() && (v.back() == 'u' || v.back() == 'U' || v.back() == 'l' || v.back() == 'L')) v.pop_back();
  if (v.empty() || v.find_first_not_of("-0123456789") != std::string::npos || v.find('-', 1) != std::string::npos)
    return std::nullopt;
  try {
    if (v[0] == '-') return std::stoll(v);
    return static_cast<int64_t>(std::stoull(v));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// ------------------------------------------------------------------ violation witnesses

struct Waypoint {
  std::string type;
  uint32_t line = 0;
  std::optional<int64_t> value;  // function_return: \result's value; assumption: NAME's
  std::optional<double> fvalue;  // assumption: NAME's value when it is a floating-point literal
  std::string name;              // assumption: the variable its constraint fixes
  std::string text;              // assumption: V as written
  bool used = false;             // assumption: a value the witness leaves open was taken from it
  bool bound = false;            // assumption: checked where it stands
};

// "NAME == V" (an assumption on one variable; NAME a C identifier, V an integer as for
// \result, hexadecimal too, or a finite floating-point literal).
struct Assumed {
  std::string name;
  std::optional<int64_t> value;
  std::optional<double> fvalue;
};
std::optional<Assumed> assumedValue(const std::string& c) {
  size_t eq = c.find("==");
  if (eq == std::string::npos) return std::nullopt;
  std::string lhs, rhs;
  for (char ch : c.substr(0, eq))
    if (ch != ' ' && ch != '(' && ch != ')') lhs += ch;
  for (char ch : c.substr(eq + 2))
    if (ch != ' ' && ch != '(' && ch != ')') rhs += ch;
  if (lhs.empty() || !(std::isalpha(static_cast<unsigned char>(lhs[0])) || lhs[0] == '_')) return std::nullopt;
  for (char ch : lhs)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$')) return std::nullopt;
  Assumed a;
  a.name = lhs;
  if (rhs.size() > 2 && rhs[0] == '0' && (rhs[1] == 'x' || rhs[1] == 'X')) {
    std::string h = rhs.substr(2);
    while (!h.empty() && (h.back() == 'u' || h.back() == 'U' || h.back() == 'l' || h.back() == 'L')) h.pop_back();
    if (h.empty() || h.size() > 16 || h.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      return std::nullopt;
    a.value = static_cast<int64_t>(std::stoull(h, nullptr, 16));
    return a;
  }
  if (auto v = returnValue("\\result==" + rhs)) {
    a.value = *v;
    return a;
  }
  if (rhs.find_first_of(".eE") == std::string::npos) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(rhs.c_str(), &end);
  if (end != rhs.c_str() + rhs.size() || !std::isfinite(d)) return std::nullopt;
  a.fvalue = d;
  return a;
}

// The bits of an assumption's value in a `width`-bit variable or memory object (a
// floating-point value only as float or double); nullopt when it does not fit.
std::optional<uint64_t> assumedBits(const Waypoint& w, uint32_t width) {
  if (w.value) return static_cast<uint64_t>(*w.value);
  if (!w.fvalue) return std::nullopt;
  if (width == 64) {
    uint64_t b;
    std::memcpy(&b, &*w.fvalue, sizeof b);
    return b;
  }
  if (width == 32) {
    float f = static_cast<float>(*w.fvalue);
    if (static_cast<double>(f) != *w.fvalue) return std::nullopt;
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
  }
  return std::nullopt;
}

void validateViolation(const json& entry, const std::string& file, const std::string& source,
                       frontend::DataModel dm, Outcome& out) {
  std::vector<Waypoint> follow;
  const json& content = entry["content"];
  if (!content.is_array() || content.empty()) {
    out.notes.push_back("the violation sequence has no segments");
    return;
  }
  for (size_t si = 0; si < content.size(); ++si) {
    const json& seg = content[si].is_object() && content[si].contains("segment") ? content[si]["segment"] : json();
    if (!seg.is_array() || seg.empty()) {
      out.notes.push_back("segment " + std::to_string(si + 1) + " is malformed");
      return;
    }
    for (const json& item : seg) {
      const json w = item.is_object() && item.contains("waypoint") ? item["waypoint"] : json();
      std::string type = w.is_object() ? w.value("type", "") : "";
      std::string action = w.is_object() ? w.value("action", "follow") : "";
      if (action != "follow") {
        out.notes.push_back("waypoint action '" + action + "' is outside this validator");
        return;
      }
      Waypoint p;
      p.type = type;
      const json loc = w.is_object() && w.contains("location") ? w["location"] : json();
      if (loc.is_object() && loc.contains("line") && loc["line"].is_number_integer()) p.line = loc["line"].get<uint32_t>();
      if (loc.is_object() && loc.contains("file_name") && loc["file_name"].is_string() &&
          baseName(loc["file_name"].get<std::string>()) != baseName(file)) {
        out.notes.push_back("a waypoint in another file (" + loc["file_name"].get<std::string>() + ")");
        return;
      }
      if (type == "function_return") {
        std::string c = w.contains("constraint") && w["constraint"].is_object() ? w["constraint"].value("value", "") : "";
        p.value = returnValue(c);
        if (!p.value) {
          out.notes.push_back("function_return constraint '" + c + "' is not of the form \\result == V");
          return;
        }
      } else if (type == "assumption") {
        std::string c = w.contains("constraint") && w["constraint"].is_object() ? w["constraint"].value("value", "") : "";
        auto nv = assumedValue(c);
        if (!nv) {
          out.notes.push_back("assumption '" + c + "' is not of the form NAME == V");
          return;
        }
        p.name = nv->name;
        p.value = nv->value;
        p.fvalue = nv->fvalue;
        p.text = c.substr(c.find("==") + 2);
        p.text.erase(0, p.text.find_first_not_of(' '));
      } else if (type != "target") {
        out.notes.push_back("waypoint type '" + type + "' is outside this validator");
        return;
      }
      if (p.line == 0) {
        out.notes.push_back("a waypoint without a line");
        return;
      }
      follow.push_back(p);
    }
  }
  if (follow.back().type != "target" ||
      std::count_if(follow.begin(), follow.end(), [](const Waypoint& w) { return w.type == "target"; }) != 1) {
    out.notes.push_back("the last waypoint must be the only target");
    return;
  }
  frontend::FrontendOptions fo;
  fo.dataModel = dm;
  frontend::ParseResult pr = frontend::parseSource(source, file, fo);
  if (!pr.ok()) {
    out.notes.push_back("the program does not parse: " + pr.diagnostics);
    return;
  }
  const cfa::Program& prog = *pr.program;
  auto it = prog.funcByName.find("main");
  if (it == prog.funcByName.end()) {
    out.notes.push_back("no main function");
    return;
  }
  if (!prog.functions[it->second].params.empty()) {
    out.notes.push_back("main takes parameters, which a witness cannot fix");
    return;
  }
  // The run's values, chosen as the run meets each Havoc edge (it is deterministic, so
  // the run is repeated with one more value each time): a nondeterministic call on the
  // line of the next function_return waypoint gets its value (the waypoint is passed).
  // A Havoc the witness has no function_return for (an uninitialised local, scanf's
  // input) takes the value of a pending `assumption` waypoint `NAME == V` when it havocs
  // NAME itself, or when it is an input without a C name (scanf's value, stored into NAME
  // next); scanf's "conversion succeeds?" choice is taken as yes when an assumption is
  // pending. Those are only choices: the run must then satisfy every assumption where its
  // waypoint stands (checked below), or the witness is not followed. Any other Havoc gets
  // 0, one of its possible values, and is counted: with such defaults, a run that misses
  // the target shows nothing about the witness.
  std::vector<uint64_t> nondets;
  size_t nextWaypoint = 0, defaulted = 0;
  std::string firstDefault;
  auto isReturn = [](const Waypoint& w) { return w.type == "function_return"; };
  size_t returns = std::count_if(follow.begin(), follow.end(), isReturn);
  size_t returnsPassed = 0;
  // the pending assumptions: from nextWaypoint up to the target or a function_return of a
  // call on another line than `line` (the havoc's own call returns after its inputs)
  auto pendingAssumption = [&](uint32_t line, auto pred) -> Waypoint* {
    for (size_t i = nextWaypoint; i < follow.size(); ++i) {
      if (follow[i].type == "function_return" && follow[i].line == line) continue;
      if (follow[i].type != "assumption") break;
      if (!follow[i].used && pred(follow[i])) return &follow[i];
    }
    return nullptr;
  };
  for (size_t round = 0; round < 200000; ++round) {
    result::ReplayInput in;
    in.nondets.assign(nondets.begin(), nondets.end());
    result::ReplayResult rr = result::replay(prog, it->second, in, 10'000'000, true);
    if (rr.outcome == result::ReplayOutcome::OutOfNondets) {
      const cfa::Edge* next = nullptr;
      if (rr.endFunc != cfa::kNoFunc) {
        const cfa::Function& f = prog.functions[rr.endFunc];
        for (uint32_t ei : f.locs[rr.endLoc].out)
          if (f.edges[ei].kind == cfa::EdgeKind::Havoc) next = &f.edges[ei];
      }
      size_t seen = 0;
      for (const result::ReplayStep& st : rr.steps) {  // or the Havoc recorded as the last step
        const cfa::Edge& e = prog.functions[st.func].edges[st.edge];
        if (e.kind == cfa::EdgeKind::Havoc && seen++ == nondets.size()) next = &e;
      }
      if (!next) {
        out.notes.push_back("the run needs a value the validator cannot place: " + rr.message);
        return;
      }
      // the function_return waypoint after the pending assumptions
      size_t r = nextWaypoint;
      while (r < follow.size() && follow[r].type == "assumption") ++r;
      // scanf's own choices (does a conversion succeed, the value it reads) are not its result
      bool scanfChoice = next->text == "scanf input" || next->text.rfind("scanf: conversion", 0) == 0;
      bool call = (next->isNondetCall || !next->nondetFunction.empty()) && !scanfChoice;
      std::string lhsName = next->lhs ? prog.vars[*next->lhs].cName : std::string();
      if (call && r < follow.size() && follow[r].type == "function_return" && follow[r].line == next->range.line) {
        nondets.push_back(static_cast<uint64_t>(*follow[r].value));
        nextWaypoint = r + 1;
        ++returnsPassed;
        continue;
      }
      if (!call) {
        Waypoint* a = nullptr;
        if (!lhsName.empty()) a = pendingAssumption(next->range.line, [&](const Waypoint& w) { return w.name == lhsName; });
        if (!a && next->text.rfind("scanf: conversion", 0) == 0 && pendingAssumption(next->range.line, [](const Waypoint&) { return true; })) {
          nondets.push_back(1);
          continue;
        }
        if (!a && (next->text == "scanf input" || lhsName.empty()))
          a = pendingAssumption(next->range.line, [](const Waypoint&) { return true; });  // checked where it stands
        std::optional<uint64_t> bits;
        if (a) bits = assumedBits(*a, next->lhs ? prog.vars[*next->lhs].width : 0);
        if (bits) {
          a->used = true;
          nondets.push_back(*bits);
          continue;
        }
      }
      if (defaulted++ == 0) firstDefault = next->text + " at " + where(next->range);
      nondets.push_back(0);
      continue;
    }
    // Every assumption must hold where its waypoint stands: before the first step of the
    // run on the waypoint's line after the previous waypoint's place (function_return
    // waypoints are placed by their calls above; an assumption's NAME is a register
    // variable of the function there, or a variable in memory read as the last store to
    // its address wrote it).
    std::string broken;
    {
      std::map<cfa::VarId, uint64_t> regs;
      std::map<uint64_t, uint8_t> mem;
      std::map<uint64_t, uint32_t> storeBytes;  // address -> bytes of the last store there
      size_t wi = 0;
      for (size_t si = 0; si < rr.steps.size() && wi < follow.size(); ++si) {
        const result::ReplayStep& st = rr.steps[si];
        const cfa::Edge& e = prog.functions[st.func].edges[st.edge];
        while (wi < follow.size() && follow[wi].type != "assumption") {
          if (follow[wi].type == "target") break;
          // a function_return waypoint: passed at its call's Havoc
          if (e.kind == cfa::EdgeKind::Havoc && e.range.line == follow[wi].line) ++wi;
          break;
        }
        if (wi < follow.size() && follow[wi].type == "assumption" && e.range.line == follow[wi].line) {
          const Waypoint& w = follow[wi];
          std::optional<uint64_t> got;
          uint32_t width = 0;
          for (cfa::VarId v = 0; v < prog.vars.size() && !got; ++v) {
            const cfa::Variable& var = prog.vars[v];
            if (var.cName != w.name || (var.func != st.func && var.func != cfa::kNoFunc)) continue;
            if (var.kind == cfa::VarKind::Address) {
              auto a = regs.find(v);
              auto b = a == regs.end() ? storeBytes.end() : storeBytes.find(a->second);
              if (b == storeBytes.end()) continue;
              uint64_t x = 0;
              for (uint32_t k = 0; k < b->second && k < 8; ++k) x |= uint64_t(mem[a->second + k]) << (8 * k);
              got = x;
              width = 8 * b->second;
            } else if (auto a = regs.find(v); a != regs.end()) {
              if ((var.shape == cfa::ValueShape::Float) != w.fvalue.has_value()) continue;  // C's == converts
              got = a->second;
              width = var.width;
            }
          }
          uint64_t mask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
          std::optional<uint64_t> want = assumedBits(w, width);
          if (!got || !want || (*got & mask) != (*want & mask)) {
            broken = "the assumption " + w.name + " == " + w.text + " at line " + std::to_string(w.line) +
                     (got ? " does not hold there" : " names no variable the run has set there");
            break;
          }
          follow[wi].bound = true;
          ++wi;
          --si;  // the next waypoint may stand at the same step
          continue;
        }
        for (const auto& [v, x] : st.assigned) regs[v] = x;
        if (st.stored) {
          for (uint32_t k = 0; k < e.bytes && k < 8; ++k)
            mem[st.stored->first + k] = static_cast<uint8_t>(st.stored->second >> (8 * k));
          storeBytes[st.stored->first] = e.bytes;
        }
      }
      if (broken.empty())
        for (const Waypoint& w : follow)
          if (w.type == "assumption" && !w.bound) {
            broken = "the run does not reach the assumption " + w.name + " == " + w.text + " at line " +
                     std::to_string(w.line);
            break;
          }
    }
    bool followed = returnsPassed == returns && broken.empty();
    bool determined = defaulted == 0 && rr.uninitialisedReads == 0;
    std::string defaults =
        defaulted == 0 ? std::string()
                       : " (" + std::to_string(defaulted) + " value(s) the witness leaves open were taken as 0, the first " +
                             firstDefault + ")";
    if (!broken.empty()) defaults += " (" + broken + ")";
    if (rr.outcome == result::ReplayOutcome::ReachedError) {
      const result::ReplayStep& last = rr.steps.back();
      const cfa::Edge& e = prog.functions[last.func].edges[last.edge];
      if (followed && e.range.line == follow.back().line) {
        out.witness = "confirmed";
        out.verdict = "false";
        out.notes.push_back("the run with the witness's values reaches the error at " + where(e.range) + " after " +
                            std::to_string(rr.stepCount) + " steps" + defaults);
        return;
      }
      out.witness = determined ? "rejected" : "unknown";
      out.notes.push_back("the run reaches an error at " + where(e.range) + " after passing " +
                          std::to_string(returnsPassed) + " of the " + std::to_string(returns) +
                          " function_return waypoints, not the target at line " + std::to_string(follow.back().line) +
                          defaults);
      return;
    }
    if (rr.outcome == result::ReplayOutcome::Terminated || rr.outcome == result::ReplayOutcome::Blocked) {
      out.witness = determined ? "rejected" : "unknown";
      out.notes.push_back("the run with the witness's values passes " + std::to_string(returnsPassed) + " of the " +
                          std::to_string(returns) + " function_return waypoints and ends without an error: " +
                          result::outcomeName(rr.outcome) + (rr.message.empty() ? "" : " (" + rr.message + ")") +
                          defaults);
      return;
    }
    out.notes.push_back(std::string("the run stopped: ") + result::outcomeName(rr.outcome) +
                        (rr.message.empty() ? "" : " (" + rr.message + ")"));
    return;
  }
  out.notes.push_back("too many values");
}

// A violation sequence with nothing but its target says only "an error at this line is
// reachable". When the run above could not show it (it needs values no waypoint gives,
// such as uninitialised memory), bounded model checking looks for any path to an error
// on the target's line; its counterexample is replayed on the concrete interpreter (with
// the values the model gives, uninitialised memory included) before it is reported, so
// a confirmation is a real execution that matches the witness.
void validateTargetOnly(const json& entry, const std::string& file, const std::string& source, frontend::DataModel dm,
                        double timeoutS, Outcome& out) {
  const json& content = entry["content"];
  if (!content.is_array() || content.size() != 1) return;
  const json& seg = content[0].is_object() && content[0].contains("segment") ? content[0]["segment"] : json();
  if (!seg.is_array() || seg.size() != 1) return;
  const json w = seg[0].is_object() && seg[0].contains("waypoint") ? seg[0]["waypoint"] : json();
  if (!w.is_object() || w.value("type", "") != "target" || w.value("action", "follow") != "follow") return;
  const json loc = w.contains("location") ? w["location"] : json();
  if (!loc.is_object() || !loc.contains("line") || !loc["line"].is_number_integer()) return;
  uint32_t line = loc["line"].get<uint32_t>();
  engine::VerifyRequest req;
  req.file = file;
  req.source = source;
  req.dataModel = dm;
  req.algorithm = engine::Algorithm::Bmc;
  req.timeoutS = timeoutS > 0 ? timeoutS : 30;
  engine::VerifyOutcome r = engine::verify(req);
  const auto& cex = r.result.counterexample;
  if (r.result.verdict == result::Verdict::False && cex && cex->replayed && !cex->steps.empty() &&
      cex->steps.back().line == line) {
    out.witness = "confirmed";
    out.verdict = "false";
    out.notes.push_back("the witness gives only its target: bounded model checking finds a path to the error at line " +
                        std::to_string(line) + ", replayed on the concrete interpreter (" +
                        std::to_string(cex->steps.size()) + " steps)");
  } else {
    out.notes.push_back("the witness gives only its target: bounded model checking finds no replayed path to line " +
                        std::to_string(line) + " (" + result::verdictName(r.result.verdict) +
                        (r.result.reason.empty() ? "" : ": " + r.result.reason) + ")");
  }
}

// ------------------------------------------------------------------ correctness witnesses

void validateCorrectness(const json& entry, const std::string& file, const std::string& source,
                         frontend::DataModel dm, double timeoutS, Outcome& out) {
  std::vector<LoopInv> invs;
  const json& content = entry["content"];
  if (!content.is_array()) {
    out.notes.push_back("the invariant set has no content list");
    return;
  }
  for (const json& item : content) {
    const json inv = item.is_object() && item.contains("invariant") ? item["invariant"] : json();
    if (!inv.is_object() || inv.value("type", "") != "loop_invariant" || inv.value("format", "c_expression") != "c_expression") {
      out.notes.push_back("only loop_invariant entries in c_expression format are validated");
      return;
    }
    const json loc = inv.contains("location") ? inv["location"] : json();
    LoopInv v;
    if (loc.is_object() && loc.contains("line") && loc["line"].is_number_integer()) v.line = loc["line"].get<uint32_t>();
    if (loc.is_object() && loc.contains("column") && loc["column"].is_number_integer()) v.column = loc["column"].get<uint32_t>();
    v.value = inv.value("value", "");
    if (v.line == 0 || v.value.empty()) {
      out.notes.push_back("an invariant without a line or a value");
      return;
    }
    if (v.column == 0) {  // leftmost loop keyword on the line
      std::string l;
      size_t p = offsetOf(source, v.line, 1);
      if (p != std::string::npos) l = source.substr(p, source.find('\n', p) - p);
      size_t a = std::min(l.find("while"), l.find("for"));
      v.column = a == std::string::npos ? 1 : static_cast<uint32_t>(a + 1);
    }
    invs.push_back(v);
  }
  // the check: a failing invariant is an error at its loop (the program's own error
  // calls stay, so a `false` there shows the program itself is wrong)
  std::string note;
  const std::string decl = "extern void reach_error(void); extern void __VERIFIER_assume(int);\n";
  // one invariant at a time may show up as failing (the search stops at the first
  // error): drop it from the checked set and check the rest again
  std::vector<LoopInv> checking = invs;
  engine::VerifyRequest req;
  req.file = file;
  req.dataModel = dm;
  req.timeoutS = timeoutS;
  while (true) {
    std::string checked = instrumentLoops(
        source, checking,
        [](size_t k, const std::string& v) {
          return "(" + v + ") ? 0 : (reach_error() /*argus-inv-" + std::to_string(k) + "*/, 0)";
        },
        note);
    if (checked.empty()) {
      out.notes.push_back(note);
      return;
    }
    // the declaration line before the program shifts every line by one (the frontend
    // reports spelling lines, #line does not move them)
    req.source = decl + checked;
    req.algorithm = engine::Algorithm::Kind;
    // where each check's error call is in the checked text (1-based line and column, as
    // the counterexample reports them)
    std::map<std::pair<uint32_t, uint32_t>, size_t> checkAt;
    for (size_t k = 0; k < checking.size(); ++k) {
      const std::string& text = *req.source;
      size_t m = text.find("reach_error() /*argus-inv-" + std::to_string(k) + "*/");
      if (m == std::string::npos) continue;
      size_t lineStart = text.rfind('\n', m);
      lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
      uint32_t line = 1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + static_cast<long>(m), '\n'));
      checkAt[{line, static_cast<uint32_t>(m - lineStart + 1)}] = k;
    }
    engine::VerifyOutcome r1 = engine::verify(req);
    if (r1.inputError) {
      // the witness's fault only if the same places take a plain `1`
      std::vector<LoopInv> ones = checking;
      for (LoopInv& v : ones) v.value = "1";
      std::string plain = instrumentLoops(source, ones, [](size_t, const std::string& v) { return "(" + v + ") ? 0 : 0"; }, note);
      frontend::FrontendOptions fo;
      fo.dataModel = dm;
      bool instrumentationParses = !plain.empty() && frontend::parseSource(plain, file, fo).ok();
      out.notes.push_back(std::string("the program with the invariants checked does not parse") +
                          (instrumentationParses ? " (an invariant is not a C expression over its loop's variables): "
                                                 : " (nor with `1` for every invariant: this validator's instrumentation "
                                                   "fails here): ") +
                          r1.error);
      if (instrumentationParses) out.witness = "rejected";
      return;
    }
    if (r1.result.verdict == result::Verdict::False) {
      const auto& steps = r1.result.counterexample->steps;
      uint32_t line = steps.empty() || steps.back().line == 0 ? 0 : steps.back().line - 1;
      auto at = steps.empty() ? checkAt.end() : checkAt.find({steps.back().line, steps.back().column});
      auto bad = at == checkAt.end() ? checking.end() : checking.begin() + static_cast<long>(at->second);
      out.witness = "rejected";
      if (bad == checking.end()) {
        out.verdict = "false";
        out.notes.push_back("the program reaches an error at line " + std::to_string(line) +
                            " (the witness claims it is correct)");
        return;
      }
      out.failed.push_back({{"line", bad->line}, {"column", bad->column}, {"value", bad->value}});
      out.notes.push_back("the invariant at line " + std::to_string(line) + " does not hold (an execution violates it)");
      checking.erase(bad);
      if (checking.empty()) return;
      continue;
    }
    if (r1.result.verdict != result::Verdict::True) {
      out.notes.push_back("the invariants could not all be checked: " + r1.result.reason);
      if (!out.failed.empty()) out.witness = "rejected";
      return;
    }
    break;
  }
  if (!out.failed.empty()) {
    out.notes.push_back("the other " + std::to_string(checking.size()) + " invariant(s) hold");
    return;
  }
  out.notes.push_back("every invariant holds at its loop (k-induction, with the program's own errors also unreachable)");
  // strength: the invariants assumed, k-induction without its own invariant generator
  std::string assumed = instrumentLoops(source, invs,
                                   [](size_t, const std::string& v) { return "__VERIFIER_assume(" + v + "), 0"; }, note);
  req.source = decl + assumed;
  req.algorithm = engine::Algorithm::KindNoInv;
  engine::VerifyOutcome r2 = engine::verify(req);
  out.witness = "confirmed";
  out.verdict = "true";
  if (!r2.inputError && r2.result.verdict == result::Verdict::True)
    out.notes.push_back("with them assumed, k-induction without generated invariants proves the program");
  else
    out.notes.push_back("with them assumed, k-induction without generated invariants does not prove the program (" +
                        (r2.inputError ? r2.error : r2.result.reason) + "): the proof also needs invariants of its own");
}

}  // namespace

int runValidate(const std::vector<std::string>& args) {
  std::string witnessFile, file, format = "text";
  frontend::DataModel dm = frontend::DataModel::LP64;
  bool dmGiven = false;
  double timeoutS = 30;
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size()) throw std::invalid_argument("option " + a + " needs a value");
        return args[++i];
      };
      if (a == "--help" || a == "-h") {
        std::cout << kUsage;
        return 0;
      }
      if (a == "--witness") witnessFile = value();
      else if (a == "--data-model") {
        dm = frontend::parseDataModel(value());
        dmGiven = true;
      } else if (a == "--timeout") timeoutS = std::stod(value());
      else if (a == "--format") {
        format = value();
        if (format != "text" && format != "json") throw std::invalid_argument("bad --format '" + format + "'");
      } else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option '" + a + "'");
      else if (file.empty()) file = a;
      else throw std::invalid_argument("more than one input file");
    }
  } catch (const std::exception& e) {
    std::cerr << "argus validate: " << e.what() << "\n" << kUsage;
    return 2;
  }
  if (witnessFile.empty() || file.empty()) {
    std::cerr << "argus validate: needs --witness W.yml and a C file\n" << kUsage;
    return 2;
  }
  bool ok1 = false, ok2 = false;
  std::string wtext = readFile(witnessFile, ok1), source = readFile(file, ok2);
  if (!ok1 || !ok2) {
    std::cerr << "argus validate: cannot read " << (!ok1 ? witnessFile : file) << "\n";
    return 2;
  }
  Outcome out;
  json doc;
  try {
    doc = result::parseYamlSubset(wtext);
  } catch (const std::exception& e) {
    out.notes.push_back(std::string("the witness is not YAML this validator reads: ") + e.what());
  }
  if (out.notes.empty() && (!doc.is_array() || doc.empty() || !doc[0].is_object())) out.notes.push_back("the witness is not a list of entries");
  if (out.notes.empty()) {
    const json& entry = doc[0];
    out.type = entry.value("entry_type", "");
    const json meta = entry.contains("metadata") ? entry["metadata"] : json();
    const json task = meta.is_object() && meta.contains("task") ? meta["task"] : json();
    std::string hash = support::sha256Hex(source);
    if (task.is_object() && task.contains("input_file_hashes") && task["input_file_hashes"].is_object()) {
      for (const auto& [f, h] : task["input_file_hashes"].items())
        if (baseName(f) == baseName(file) && h.is_string() && h.get<std::string>() != hash)
          out.notes.push_back("the witness's hash of " + f + " is not this file's (" + hash + "); validating anyway");
    }
    if (!dmGiven && task.is_object() && task.value("data_model", "") == "ILP32") dm = frontend::DataModel::ILP32;
    if (doc.size() > 1) out.notes.push_back("only the first of " + std::to_string(doc.size()) + " entries is validated");
    if (out.type == "violation_sequence") {
      validateViolation(entry, file, source, dm, out);
      if (out.witness == "unknown") validateTargetOnly(entry, file, source, dm, timeoutS, out);
    }
    else if (out.type == "invariant_set") validateCorrectness(entry, file, source, dm, timeoutS, out);
    else out.notes.push_back("entry type '" + out.type + "' is outside this validator");
  }
  if (format == "json") {
    json j = {{"witness", out.witness}, {"verdict", out.verdict}, {"entry_type", out.type}, {"notes", out.notes}};
    if (out.type == "invariant_set") j["failed_invariants"] = out.failed;
    std::cout << j.dump(2) << "\n";
  } else {
    for (const std::string& n : out.notes) std::cout << n << "\n";
    for (const json& f : out.failed)
      std::cout << "failed invariant at line " << f["line"] << ": " << f["value"].get<std::string>() << "\n";
    std::cout << "WITNESS: " << out.witness << "\nVERDICT: " << out.verdict << "\n";
  }
  return 0;
}

}  // namespace argus::cli
