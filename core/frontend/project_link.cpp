#include "core/frontend/project_link.h"

#include <map>
#include <set>

#include "core/cfa/cfa_hash.h"

namespace argus::frontend {

LinkedProject parseAndLink(const std::vector<UnitSource>& units, const FrontendOptions& base,
                           const std::function<void(const std::string&)>& progress) {
  LinkedProject out;
  const bool linking = units.size() > 1;
  std::vector<std::unique_ptr<cfa::Program>> progs(units.size());
  std::vector<std::string> diags(units.size());
  auto parse = [&](size_t i, const std::set<std::string>& fns, const std::set<std::string>& globals) {
    FrontendOptions o = base;
    o.extraArgs = units[i].flags;
    o.linkMode = linking;
    o.linkFunctions = fns;
    o.linkGlobals = globals;
    ParseResult pr = units[i].text ? parseSource(*units[i].text, units[i].file, o) : parseFile(units[i].file, o);
    progs[i] = std::move(pr.program);
    diags[i] = pr.diagnostics;
  };
  for (size_t i = 0; i < units.size(); ++i) {
    if (progress) progress("parsing " + std::to_string(i + 1) + "/" + std::to_string(units.size()) + " " + units[i].file);
    parse(i, {}, {});
  }
  if (linking) {
    std::map<std::string, size_t> fnDef;  // external function -> defining unit
    std::map<std::string, size_t> gDef;   // external global -> the unit that allocates it
    std::map<std::string, int> gKind;     // 1 tentative, 2 with initialiser
    for (size_t i = 0; i < units.size(); ++i) {
      if (!progs[i]) continue;
      for (const cfa::Function& f : progs[i]->functions)
        if (!f.linkStub && f.linkage == cfa::Linkage::External && !cfa::isSyntheticFunction(f)) fnDef.emplace(f.name, i);
      for (const auto& [g, kind] : progs[i]->link.globalDefs) {
        if (kind == 0) continue;
        auto it = gKind.find(g);
        if (it != gKind.end() && kind == 2 && it->second == 2) {
          out.errors.push_back("multiple definition of global '" + g + "': " + units[gDef[g]].file + " and " + units[i].file);
          continue;
        }
        if (it == gKind.end() || kind > it->second) {
          gKind[g] = kind;
          gDef[g] = i;
        }
      }
    }
    if (!out.errors.empty()) return out;
    for (size_t i = 0; i < units.size(); ++i) {
      if (!progs[i]) continue;
      std::set<std::string> fns, globals;
      for (const std::string& f : progs[i]->link.undefinedFunctions)
        if (auto it = fnDef.find(f); it != fnDef.end() && it->second != i) fns.insert(f);
      for (const auto& [g, kind] : progs[i]->link.globalDefs)
        if (auto it = gDef.find(g); it != gDef.end() && it->second != i) globals.insert(g);
      if (fns.empty() && globals.empty()) continue;
      if (progress) progress("linking " + units[i].file);
      parse(i, fns, globals);
      ++out.reparsed;
    }
  }
  std::vector<cfa::LinkUnit> linkUnits;
  for (size_t i = 0; i < units.size(); ++i) {
    if (!progs[i]) {
      out.parseErrors.push_back(units[i].file + ": cannot parse:\n" + diags[i]);
      continue;
    }
    linkUnits.push_back({units[i].file, std::move(progs[i])});
  }
  if (linkUnits.empty()) return out;
  out.link = cfa::link(std::move(linkUnits));
  for (const std::string& e : out.link.errors) out.errors.push_back(e);
  return out;
}

}  // namespace argus::frontend
