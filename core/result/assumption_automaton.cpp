#include "core/result/assumption_automaton.h"

#include <nlohmann/json.hpp>

#include <sstream>
#include <stdexcept>

#include "core/cfa/cfa_hash.h"

namespace argus::result {

std::string programHash(const cfa::Program& prog, const std::string& entry) {
  auto hs = cfa::closureHashes(prog);
  auto it = hs.find(entry);
  return programHashFromClosure(prog, it == hs.end() ? "" : it->second);
}

std::string programHashFromClosure(const cfa::Program& prog, const std::string& h) {
  // the ids in transitions are indices: bind them to the program's shape too
  cfa::Hasher x;
  x.add(h);
  x.add(static_cast<uint64_t>(prog.functions.size()));
  for (const cfa::Function& f : prog.functions) {
    x.add(f.name);
    x.add(static_cast<uint64_t>(f.locs.size()));
    x.add(static_cast<uint64_t>(f.edges.size()));
  }
  return x.hex();
}

nlohmann::json toJson(const AssumptionAutomaton& a) {
  nlohmann::json j;
  j["format"] = "argus-assumption-automaton-1";
  j["program_hash"] = a.programHash;
  j["entry"] = a.entry;
  j["initial"] = a.initial;
  j["verified_state"] = AssumptionAutomaton::kVerified;
  j["open_state"] = AssumptionAutomaton::kOpen;
  nlohmann::json states = nlohmann::json::array();
  for (size_t i = 0; i < a.states.size(); ++i) {
    const AutomatonState& s = a.states[i];
    nlohmann::json js;
    js["id"] = i;
    js["func"] = s.func;
    js["loc"] = s.loc;
    if (!s.note.empty()) js["note"] = s.note;
    nlohmann::json out = nlohmann::json::array();
    for (const AutomatonTransition& t : s.out)
      out.push_back({t.kind, t.func, t.edge, t.caller == UINT32_MAX ? -1 : static_cast<int64_t>(t.caller), t.toFunc,
                     t.toLoc, t.target});
    js["out"] = out;
    states.push_back(js);
  }
  j["states"] = states;
  return j;
}

AssumptionAutomaton automatonFromJson(const nlohmann::json& j) {
  try {
    if (j.at("format").get<std::string>() != "argus-assumption-automaton-1")
      throw std::runtime_error("not an argus assumption automaton");
    AssumptionAutomaton a;
    a.programHash = j.at("program_hash").get<std::string>();
    a.entry = j.value("entry", std::string("main"));
    a.initial = j.at("initial").get<uint32_t>();
    const auto& states = j.at("states");
    if (states.size() < 2) throw std::runtime_error("fewer than two states");
    a.states.assign(states.size(), {});
    for (size_t i = 0; i < states.size(); ++i) {
      const auto& js = states[i];
      if (js.at("id").get<size_t>() != i) throw std::runtime_error("state ids must be 0, 1, 2, ...");
      AutomatonState& s = a.states[i];
      s.func = js.at("func").get<uint32_t>();
      s.loc = js.at("loc").get<uint32_t>();
      s.note = js.value("note", std::string());
      for (const auto& t : js.at("out")) {
        AutomatonTransition tr;
        tr.kind = t.at(0).get<uint8_t>();
        tr.func = t.at(1).get<uint32_t>();
        tr.edge = t.at(2).get<uint32_t>();
        int64_t caller = t.at(3).get<int64_t>();
        tr.caller = caller < 0 ? UINT32_MAX : static_cast<uint32_t>(caller);
        tr.toFunc = t.at(4).get<uint32_t>();
        tr.toLoc = t.at(5).get<uint32_t>();
        tr.target = t.at(6).get<uint32_t>();
        if (tr.kind > 3) throw std::runtime_error("bad step kind");
        s.out.push_back(tr);
      }
    }
    for (const AutomatonState& s : a.states)
      for (const AutomatonTransition& t : s.out)
        if (t.target >= a.states.size()) throw std::runtime_error("transition to an unknown state");
    if (a.initial >= a.states.size()) throw std::runtime_error("unknown initial state");
    return a;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed assumption automaton: ") + e.what());
  }
}

namespace {

std::string specString(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += ' ';
      continue;
    }
    o += c;
  }
  return o + "\"";
}

std::string stateName(uint32_t i) {
  if (i == AssumptionAutomaton::kVerified) return "__TRUE";
  if (i == AssumptionAutomaton::kOpen) return "__FALSE";
  return "ARG" + std::to_string(i);
}

// The statement a transition matches, spelled like CPAchecker's raw edge statements.
std::string rawStatement(const AutomatonTransition& t, const cfa::Program& p) {
  if (t.kind == 3) return "";
  if (t.func >= p.functions.size() || t.edge >= p.functions[t.func].edges.size()) return "";
  if (t.kind == 2) {
    if (t.caller >= p.functions.size() || t.edge >= p.functions[t.caller].edges.size()) return "";
    return "Return edge from " + p.functions[t.func].name + " to " + p.functions[t.caller].name;
  }
  const cfa::Edge& e = p.functions[t.func].edges[t.edge];
  if (e.kind == cfa::EdgeKind::Assume) return e.positive ? "[" + e.text + "]" : "[!(" + e.text + ")]";
  return e.text;
}

}  // namespace

std::string toCpachecker(const AssumptionAutomaton& a, const cfa::Program& prog) {
  std::ostringstream o;
  o << "// assumption automaton written by argus (program hash " << a.programHash << ")\n";
  o << "OBSERVER AUTOMATON AssumptionAutomaton\n\n";
  o << "INITIAL STATE " << stateName(a.initial) << ";\n\n";
  o << "STATE __TRUE :\n    TRUE -> GOTO __TRUE;\n\n";
  o << "STATE __FALSE :\n    TRUE -> GOTO __FALSE;\n\n";
  for (uint32_t i = 2; i < a.states.size(); ++i) {
    const AutomatonState& s = a.states[i];
    o << "STATE USEFIRST " << stateName(i) << " :\n";
    for (const AutomatonTransition& t : s.out) {
      std::string raw = rawStatement(t, prog);
      o << "    " << (t.kind == 3 ? std::string("TRUE") : "MATCH " + specString(raw)) << " -> ";
      if (t.target == AssumptionAutomaton::kOpen) o << "ASSUME {false} ";
      o << "GOTO " << stateName(t.target) << ";\n";
    }
    o << "    TRUE -> GOTO __TRUE;\n\n";
  }
  o << "END AUTOMATON\n";
  return o.str();
}

}  // namespace argus::result
