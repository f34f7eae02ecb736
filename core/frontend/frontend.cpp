// Runs Clang on one file and hands the AST to the lowering (lower.h).
#include "core/frontend/frontend.h"

#include <clang/Frontend/ASTUnit.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/frontend/contracts.h"
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
      // the C models of library functions (lower_libc.cpp), from memory
      "-include", kLibcModelsPath,
  };
  args.insert(args.end(), opts.extraArgs.begin(), opts.extraArgs.end());
  return args;
}

// The real file system restricted to the system header directories.
class SystemHeadersFileSystem final : public llvm::vfs::ProxyFileSystem {
public:
  explicit SystemHeadersFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs)
      : ProxyFileSystem(std::move(fs)) {}

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
    if (!allowed(path)) return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::status(path);
  }
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
    if (!allowed(path)) return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::openFileForRead(path);
  }
  llvm::vfs::directory_iterator dir_begin(const llvm::Twine& dir, std::error_code& ec) override {
    if (!allowed(dir)) {
      ec = std::make_error_code(std::errc::no_such_file_or_directory);
      return {};
    }
    return ProxyFileSystem::dir_begin(dir, ec);
  }

private:
  bool allowed(const llvm::Twine& p) {
    llvm::SmallString<256> path;
    p.toVector(path);
    if (getUnderlyingFS().makeAbsolute(path)) return false;
    llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
    llvm::StringRef s = path.str();
    for (llvm::StringRef root : {llvm::StringRef(ARGUS_CLANG_RESOURCE_DIR), llvm::StringRef("/usr/include"),
                                 llvm::StringRef("/usr/local/include"), llvm::StringRef("/usr/lib/gcc")}) {
      // the directory itself or something below it (never a sibling such as /usr/include2)
      if (s == root || (s.startswith(root) && s.size() > root.size() && s[root.size()] == '/')) return true;
      // ancestors of a root: the header search walks through them
      if (root.startswith(s) && (s == "/" || root[s.size()] == '/')) return true;
    }
    return false;
  }
};

// buildASTFromCodeWithArgs with a file system of our choice.
class BuildAst final : public clang::tooling::ToolAction {
public:
  std::unique_ptr<clang::ASTUnit> ast;
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> invocation, clang::FileManager* files,
                     std::shared_ptr<clang::PCHContainerOperations> pch,
                     clang::DiagnosticConsumer* diags) override {
    ast = clang::ASTUnit::LoadFromCompilerInvocation(
        invocation, std::move(pch),
        clang::CompilerInstance::createDiagnostics(&invocation->getDiagnosticOpts(), diags,
                                                   /*ShouldOwnClient=*/false),
        files);
    return ast != nullptr;
  }
};

}  // namespace

namespace {

// The contracts on prototypes in the headers the main file includes with "..." (found
// beside the file, then in its -I / -iquote directories; only headers with a `/*@`).
std::vector<DeclaredContract> headerContracts(const std::string& code, const std::string& fileName,
                                              const FrontendOptions& opts) {
  std::vector<DeclaredContract> out;
  std::vector<std::string> incs = quotedIncludes(code);
  if (incs.empty()) return out;
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs{fs::path(fileName).parent_path()};
  const std::vector<std::string>& a = opts.extraArgs;
  for (size_t i = 0; i < a.size(); ++i)
    for (const char* flag : {"-I", "-iquote"}) {
      std::string f = flag;
      if (a[i] == f && i + 1 < a.size()) dirs.push_back(a[i + 1]);
      else if (a[i].size() > f.size() && a[i].compare(0, f.size(), f) == 0) dirs.push_back(a[i].substr(f.size()));
    }
  std::set<std::string> seen;
  for (const std::string& inc : incs) {
    for (const fs::path& d : dirs) {
      fs::path p = (d.empty() ? fs::path(inc) : d / inc).lexically_normal();
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) continue;
      if (seen.insert(p.string()).second) {
        std::ifstream in(p, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        std::string text = ss.str();
        if (text.find("/*@") != std::string::npos)
          for (DeclaredContract& dc : declaredContracts(text, p.string())) out.push_back(std::move(dc));
      }
      break;  // the first directory that has it, as the preprocessor does
    }
  }
  return out;
}

ParseResult parseText(const std::string& code, const std::string& fileName, const FrontendOptions& opts,
                      bool withContracts) {
  ParseResult result;
  std::string diagText;
  llvm::raw_string_ostream diagStream(diagText);
  auto diagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  diagOpts->ShowColors = false;
  clang::TextDiagnosticPrinter printer(diagStream, diagOpts.get());

  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> real = llvm::vfs::getRealFileSystem();
  if (opts.systemHeadersOnly) real = llvm::makeIntrusiveRefCnt<SystemHeadersFileSystem>(real);
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(real);
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  overlay->pushOverlay(memory);
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);
  std::vector<std::string> cmd = {"argus", "-fsyntax-only"};
  for (std::string& a : clangArgs(opts)) cmd.push_back(std::move(a));
  cmd.push_back(fileName);
  BuildAst action;
  clang::tooling::ToolInvocation invocation(cmd, &action, files.get(),
                                            std::make_shared<clang::PCHContainerOperations>());
  invocation.setDiagnosticConsumer(&printer);
  // contracts in comments (core/frontend/contracts.h): the text Clang parses
  ContractRewrite contracts = withContracts ? rewriteContracts(code, fileName, !opts.linkMode, headerContracts(code, fileName, opts))
                                            : ContractRewrite{code};
  memory->addFile(fileName, 0, llvm::MemoryBuffer::getMemBufferCopy(contracts.code, fileName));
  std::string_view models = libcModelsSource();
  memory->addFile(kLibcModelsPath, 0,
                  llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(models.data(), models.size()), kLibcModelsPath));
  bool ran = invocation.run();
  std::unique_ptr<clang::ASTUnit> ast = ran ? std::move(action.ast) : nullptr;
  diagStream.flush();
  if (!ast || ast->getDiagnostics().hasErrorOccurred()) {
    if (contracts.changed) {
      // a contract Clang rejects (a name that is no parameter, say) costs the contracts,
      // not the file: parse the text as written, with a warning
      std::string first = diagText.substr(0, diagText.find('\n'));
      ParseResult plain = parseText(code, fileName, opts, false);
      if (plain.ok()) {
        std::string w = fileName + ": warning: the contracts of this file are ignored: Clang rejects them (" + first + ")";
        plain.program->notes.push_back(w);
        plain.diagnostics += w + "\n";
      }
      return plain;
    }
    result.diagnostics = diagText.empty() ? "clang failed to parse " + fileName : diagText;
    return result;
  }
  result.program = lowerTranslationUnit(*ast, fileName, &opts, &contracts);
  result.diagnostics = diagText;
  for (const std::string& w : contracts.warnings) {
    result.program->notes.push_back(w);
    result.diagnostics += w + "\n";
  }
  return result;
}

}  // namespace

ParseResult parseSource(const std::string& code, const std::string& fileName, const FrontendOptions& opts) {
  return parseText(code, fileName, opts, true);
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
