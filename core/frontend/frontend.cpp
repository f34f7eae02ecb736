// Runs Clang on one file and hands the AST to the lowering (lower.h).
#include "core/frontend/frontend.h"

#include <clang/Frontend/ASTUnit.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/frontend/lower.h"

namespace argus::frontend {

DataModel parseDataModel(const std::string& s) {
  std::string u = s;
  std::transform(u.begin(), u.end(), u.begin(), ::toupper);
  if (u == "ILP32") return DataModel::ILP32;
  if (u == "LP64") return DataModel::LP64;
  throw std::invalid_argument("unknown data model '" + s + "' (expected ILP32 or LP64)");
}

const char* dataModelName(DataModel m) { return m == DataModel::ILP32 ? "ILP32" : "LP64"; }

namespace {

std::vector<std::string> clangArgs(const FrontendOptions& opts) {
  std::vector<std::string> args = {
      "-xc", "-std=gnu11",
      "-target", opts.dataModel == DataModel::ILP32 ? "i386-pc-linux-gnu" : "x86_64-pc-linux-gnu",
      "-resource-dir", ARGUS_CLANG_RESOURCE_DIR,
      // SV-COMP programs rely on implicit declarations and loose pointer conversions.
      "-w", "-Wno-implicit-function-declaration", "-Wno-int-conversion",
      "-Wno-incompatible-pointer-types", "-Wno-return-type", "-ferror-limit=20",
      "-fno-builtin",
      // glibc headers in preprocessed SV-COMP files use GCC's __malloc__(dealloc, n),
      // which Clang 14 rejects; the attribute is irrelevant to verification.
      "-D__malloc__(...)=__malloc__",
  };
  args.insert(args.end(), opts.extraArgs.begin(), opts.extraArgs.end());
  return args;
}

}  // namespace

ParseResult parseSource(const std::string& code, const std::string& fileName,
                        const FrontendOptions& opts) {
  ParseResult result;
  std::string diagText;
  llvm::raw_string_ostream diagStream(diagText);
  auto diagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  diagOpts->ShowColors = false;
  clang::TextDiagnosticPrinter printer(diagStream, diagOpts.get());

  std::unique_ptr<clang::ASTUnit> ast = clang::tooling::buildASTFromCodeWithArgs(
      code, clangArgs(opts), fileName, "argus", std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), clang::tooling::FileContentMappings(),
      &printer);
  diagStream.flush();
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) {
    result.diagnostics = diagText.empty() ? "clang failed to parse " + fileName : diagText;
    return result;
  }
  result.program = lowerTranslationUnit(*ast, fileName);
  result.diagnostics = diagText;
  return result;
}

ParseResult parseFile(const std::string& path, const FrontendOptions& opts) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ParseResult r;
    r.diagnostics = "cannot read " + path;
    return r;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parseSource(ss.str(), path, opts);
}

}  // namespace argus::frontend
