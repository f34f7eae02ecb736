// A compact binary form of a whole cfa::Program, so a translation unit is parsed by
// Clang once per version and its CFAs are shared with every worker process (argusd's
// analysis worker writes it, verification workers load it instead of parsing again).
//
// Format (version 2): the magic "ARGUSCFA" and a format number, then varints and
// length-prefixed strings. Strings (file names repeat in every source range) and
// expressions (a DAG: shared subexpressions stay shared) are written once into tables
// and referred to by index. deserialize(serialize(p)) is a program whose dump() equals
// p's. Malformed input throws std::runtime_error; it never crashes.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/cfa/cfa.h"

namespace argus::cfa {

std::string serialize(const Program& p);
std::unique_ptr<Program> deserialize(std::string_view bytes);

}  // namespace argus::cfa
