// A compact binary form of a whole cfa::Program, so a translation unit is parsed by
// Clang once per version and its CFAs are shared with every worker process (argusd's
// analysis worker writes it, verification workers load it instead of parsing again).
//
// Format (version 10): the magic "ARGUSCFA" and a format number, then varints and
// length-prefixed strings. Strings (file names repeat in every source range) are written
// once into a table and referred to by index. A header holds everything but the bodies:
// variables, each function's name, parameters and entry model, the init pieces, the
// dependency graph of closures (core/cfa/closure.h) and an index of the sections that
// follow: per function its locations and its edges in blocks (one per init piece of an
// init function represented by its pieces, else one), each block with its own expression
// table (a DAG: shared subexpressions stay shared). deserialize(serialize(p)) is a program
// whose dump() equals p's. Malformed input throws std::runtime_error; it never crashes.
//
// A ProgramImage keeps the bytes and decodes only the header; slice(entry) decodes only
// what the entry's closure keeps. A verification worker of argusd holds one image per
// translation unit (SQLite's amalgamation: 36 MB of bytes against ~300 MB decoded) and
// builds each job's slice from it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/cfa/cfa.h"

namespace argus::cfa {

std::string serialize(const Program& p);
std::unique_ptr<Program> deserialize(std::string_view bytes);

class ProgramImage {
 public:
  explicit ProgramImage(std::string bytes);  // decodes the header; throws std::runtime_error
  ~ProgramImage();
  ProgramImage(const ProgramImage&) = delete;
  ProgramImage& operator=(const ProgramImage&) = delete;
  // Variables, functions without bodies (names, parameters, entry models), init pieces.
  const Program& shell() const;
  std::unique_ptr<Program> program() const;           // everything (what deserialize gives)
  std::unique_ptr<Program> slice(FuncId entry) const;  // cfa::slice(*program(), entry), decoding the closure only
  size_t size() const;                                 // bytes

  struct Impl;  // serialize.cpp

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace argus::cfa
