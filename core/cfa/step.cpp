#include "core/cfa/step.h"

namespace argus::cfa {

std::string Step::str(const Program& p) const {
  switch (kind) {
    case StepKind::Edge: {
      const Edge& e = p.functions[func].edges[edge];
      return std::string(edgeKindName(e.kind)) + " " + e.text;
    }
    case StepKind::CallEnter: return "call " + p.functions[toFunc].name;
    case StepKind::Return: return "return from " + p.functions[func].name;
    case StepKind::Start: return "start " + p.functions[toFunc].name;
  }
  return "?";
}

}  // namespace argus::cfa
