// A reader for the block-style YAML subset that verification witnesses use (what
// core/result/witness.cpp writes and what other verifiers write for format 2.0): block
// mappings and sequences by indentation, `- key: value` items, plain / single-quoted /
// double-quoted scalars, empty or one-line flow collections (`[]`, `[a, b]`, `{}`),
// comments, `---`. Anchors, tags, multi-line scalars and block scalars (`|`, `>`) are
// rejected, not guessed. Integers become numbers, everything else strings.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace argus::result {

// Throws std::runtime_error("line N: ...") on input outside the subset.
nlohmann::json parseYamlSubset(const std::string& text);

}  // namespace argus::result
