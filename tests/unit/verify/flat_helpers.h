// Helpers for the tests of the loop-head (flat program) encodings shared by
// k-induction's invariant generator and kIkI: a C snippet parsed into its program
// and main's flat program, and the loop head on a given source line.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "core/algorithms/kinduction/flat_program.h"
#include "core/frontend/frontend.h"
#include "tests/unit/verify/verify_helpers.h"

namespace argus::testing {

struct ParsedFlat {
  std::unique_ptr<cfa::Program> prog;
  std::shared_ptr<const algorithms::FlatProgram> fp;
  cfa::FuncId entry = 0;
};

// kPrelude + body, parsed; main's flat program must be usable. A loop from which no check
// is reachable is a dead end (core/cfa/dead_ends.h) and left out of the flat program, so
// the snippets end with a check after their loops.
inline ParsedFlat parseFlat(const std::string& body) {
  ParsedFlat p;
  auto pr = frontend::parseSource(std::string(kPrelude) + body, "test.c", {});
  EXPECT_TRUE(pr.ok()) << pr.diagnostics;
  if (!pr.ok()) return p;
  p.prog = std::move(pr.program);
  p.entry = p.prog->find("main")->id;
  p.fp = algorithms::buildFlatProgram(*p.prog, p.entry);
  EXPECT_EQ(p.fp->unusable, "");
  return p;
}

// The cut (loop head) on source line `line`.
inline std::optional<uint32_t> cutAtLine(const ParsedFlat& p, uint32_t line) {
  for (uint32_t c = 0; c < p.fp->cuts.size(); ++c) {
    const auto& node = p.fp->nodes[p.fp->cuts[c]];
    const auto& f = p.prog->functions[p.fp->instances[node.inst].func];
    if (f.locs[node.loc].range.line == line) return c;
  }
  return std::nullopt;
}

}  // namespace argus::testing
