// Lowering of a Clang AST into CFAs (internal to the frontend).
//
// One Lowerer walks the translation unit. A pre-pass finds address-taken variables,
// string literals and defined functions; then every function body is lowered with a
// "cursor" location: statements append edges at the cursor, side effects inside
// expressions are emitted as edges before the pure expression that uses their result,
// and control flow (if/loops/switch/goto/short-circuit) creates branching Assume edges.
// Finally the two global-initialisation functions are built.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Frontend/ASTUnit.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/cfa/cfa.h"
#include "core/frontend/frontend.h"

namespace argus::frontend {

struct ContractRewrite;
// `contracts`: the contract clauses the main file's text was rewritten with
// (core/frontend/contracts.h), or null.
std::unique_ptr<cfa::Program> lowerTranslationUnit(clang::ASTUnit& ast, const std::string& file,
                                                   const FrontendOptions* opts = nullptr,
                                                   const ContractRewrite* contracts = nullptr);

// A function of the C library (libc_names.cpp), by name.
bool isCLibraryName(std::string_view name);

// The C models of library functions (lower_libc.cpp, core/frontend/models/libc_models.c):
// their source and the in-memory path frontend.cpp includes it from.
extern const char* const kLibcModelsPath;
std::string_view libcModelsSource();

// Overflow of a * c for a constant c of a's width (lower_builtins.cpp), as a condition of
// width rw; nullopt when c is not a constant.
std::optional<cfa::ExprPtr> mulOverflowByConstant(const cfa::ExprPtr& a, const cfa::ExprPtr& c, bool isSigned,
                                                  uint32_t rw);

class Lowerer {
public:
  Lowerer(clang::ASTContext& ctx, cfa::Program& prog);
  void run();

  // ---- shared state and helpers (used by the statement/expression/builtin parts) ----
  struct VarRef {
    bool inMemory = false;  // true: `reg` holds the object's address
    cfa::VarId reg = 0;
  };
  // A place a value can be stored to.
  struct LValue {
    bool isReg = false;
    cfa::VarId reg = 0;
    cfa::ExprPtr addr;       // memory: address of the first byte
    clang::QualType type;
    // Bit-field (bitWidth > 0): bits [bitOffset, bitOffset + bitWidth) of the
    // little-endian value of the spanBytes bytes at addr.
    uint32_t bitOffset = 0, bitWidth = 0, spanBytes = 0;
    // Memory-safety layout: the place is inside a named object (a variable, a member of
    // one, an element of an array variable whose index is checked), so accessing it
    // needs no valid-deref check.
    bool direct = false;
    // Memory-safety layout: the pointer an element access p[i] indexes from; the access
    // is also a violation when its address left p's object (the offset carried into the id).
    cfa::ExprPtr base;
  };
  // The bit-field `fd` of the record at `base`.
  LValue bitFieldLValue(cfa::ExprPtr base, const clang::FieldDecl* fd, const clang::Stmt* at);

  clang::ASTContext& ctx;
  cfa::Program& prog;
  uint32_t ptrWidth;

  // pre-pass results
  std::set<const clang::VarDecl*> addressTaken;
  std::vector<const clang::StringLiteral*> literals;
  std::map<const clang::StringLiteral*, cfa::VarId> literalAddr;
  std::map<const clang::FunctionDecl*, cfa::FuncId> funcIds;       // canonical decl -> CFA
  std::map<const clang::FunctionDecl*, uint64_t> funcAddrs;        // canonical decl -> address
  std::vector<const clang::VarDecl*> globals;                      // in order (incl. static locals)
  std::map<const clang::VarDecl*, VarRef> vars;                    // canonical decl -> variable
  // Canonical decls of the functions whose address is taken (referenced other than as
  // the callee of a call): the only targets an indirect call or atexit can dispatch to.
  std::set<const clang::FunctionDecl*> addressTakenFuncs;
  // Function types joined by casts (C lets a pointer to one function type be cast to
  // another and back): union-find over canonical function types, nullptr standing for
  // every non-function type (void *, integers) a function pointer is cast to or from.
  // An indirect call through type T reaches the address-taken functions of a type
  // compatible with T, or joined with it and taking parameters of the same shapes
  // (mayCallThrough, paramShape).
  std::map<const clang::Type*, const clang::Type*> fnTypeParent;
  const clang::Type* fnTypeClass(const clang::Type* t);
  void joinFnTypes(clang::QualType a, clang::QualType b);  // pre-pass: a cast from a to b
  bool mayCallThrough(const clang::FunctionDecl* def, clang::QualType calleeFnType, unsigned nargs);
  std::string paramShape(clang::QualType t);
  // Function-pointer fields (issue 29 item 2, "refined by a points-to analysis where it is
  // cheap"; field-based, per translation unit): for a field of a struct, the functions the
  // unit stores in it (initialisers, assignments of a function, of null, or of the same
  // field of another object). A field written any other way (from a variable, a call, a
  // cast of something else; its address taken; its struct a memcpy/memmove destination or
  // a union) is *open*: calls through it dispatch by type only. A call through a closed
  // field dispatches to its functions only; a pointer holding anything else takes the
  // dispatch's "unknown function" branch (unsupported), so a function left out is never
  // a wrong verdict.
  std::map<const clang::FieldDecl*, std::set<const clang::FunctionDecl*>> fieldFuncs;
  std::set<const clang::FieldDecl*> openFields;
  // Function-pointer fields some call of the unit calls through (`p->f(...)`,
  // `(*p->f)(...)`): only these get a function choice in the entry model (a field no call
  // reads as its callee is never dispatched on; SQLite's globals hold over a thousand
  // function-pointer fields, most of them in tables no call of a given slice reads).
  std::set<const clang::FieldDecl*> calledFields;
  bool inGlobalModel = false;  // buildGlobalModel is running (entrySlots)
  std::set<const clang::Decl*> openRecords;  // every function-pointer field open
  void storeInField(const clang::FieldDecl* f, const clang::Expr* value);
  // The closed field a call's callee reads (`s.f(...)`, `p->f(...)`), or nullptr.
  const clang::FieldDecl* closedCalleeField(const clang::CallExpr* ce) const;
  bool fieldClosed(const clang::FieldDecl* f) const;
  // The field a call calls through (`p->f(...)`, `(*p->f)(...)`), or null.
  static const clang::FieldDecl* calleeField(const clang::CallExpr* ce);
  // cfa::fieldKey of "record type.field".
  uint64_t fieldKeyOf(const clang::FieldDecl* f) const;
  // cfa::fieldKey of "type:" and the function type a pointer of type `fnPtr` points to.
  uint64_t fnTypeKeyOf(clang::QualType fnPtr) const;
  // The entry model of a function pointer of type `fnPtr` (cfa::EntryFunctions): the
  // address-taken functions a call through that type dispatches to, only those stored in
  // `field` when it is closed.
  cfa::EntryFunctions entryFunctionChoices(clang::QualType fnPtr, const clang::FieldDecl* field);
  std::set<const clang::DeclRefExpr*> directCallees;                // pre-pass only
  std::unordered_set<std::string> varNames;  // names of prog.vars[0, namedVars) (varFor)
  size_t namedVars = 0;

  // per-function cursor state
  cfa::Function* fn = nullptr;
  const clang::FunctionDecl* fnDecl = nullptr;
  cfa::LocId cur = 0;
  const clang::Stmt* curStmt = nullptr;   // source of the edges being emitted
  std::vector<cfa::LocId> breakTargets, continueTargets;
  std::map<const clang::LabelDecl*, cfa::LocId> labels;
  struct SwitchCtx {
    std::map<const clang::SwitchCase*, cfa::LocId> caseLocs;
  };
  std::vector<SwitchCtx*> switches;
  unsigned tempCounter = 0;
  bool addressOnly_ = false;  // lowering the operand of & (one-past-the-end is allowed)

  // types
  bool isScalar(clang::QualType t) const;
  // A floating type this lowering does not model: long double, complex, half,
  // __float128 (float and double are scalars, see isFloatT).
  bool isFloating(clang::QualType t) const;
  // float or double: a scalar carried as its IEEE 754 bit image (core/cfa/expr.h).
  bool isFloatT(clang::QualType t) const;
  // The name of an unmodelled floating type, for the unsupported message.
  std::string floatTypeName(clang::QualType t) const;
  uint32_t widthOf(clang::QualType t) const;     // bits
  uint64_t sizeOf(clang::QualType t) const;      // bytes (0 for incomplete/VLA)
  bool isSignedT(clang::QualType t) const;
  // How a value of type t is shown in a trace (pointer, float bit image, integer).
  cfa::ValueShape shapeOf(clang::QualType t) const;

  // CFA building
  cfa::LocId newLoc();
  void emit(cfa::Edge e);                        // from cur to a new location; cur := it
  void emitTo(cfa::Edge e, cfa::LocId to);       // from cur to `to` (cur unchanged)
  void jump(cfa::LocId to);                      // Blank edge cur -> to; cur := fresh dead loc
  cfa::Edge edge(cfa::EdgeKind k) const;         // with range/text of curStmt
  void unsupported(const std::string& what, const clang::Stmt* s);
  cfa::VarId newTemp(uint32_t width, bool isSigned);
  cfa::SourceRange rangeOf(const clang::Stmt* s) const;
  cfa::SourceRange rangeOfDecl(const clang::Decl* d) const;
  std::string textOf(const clang::Stmt* s) const;

  // variables
  VarRef& varFor(const clang::VarDecl* vd);      // creates register/memory variable on demand
  cfa::ExprPtr addrOfFunction(const clang::FunctionDecl* fd);

  // statements (lower_stmt.cpp)
  void declareSignature(const clang::FunctionDecl* fd);
  void lowerMainArgv(const clang::FunctionDecl* fd);
  void lowerFunction(const clang::FunctionDecl* fd);
  // lowerFunction, but an exception (an internal error on an unexpected construct)
  // turns this function's body into one Unsupported edge naming it; the others are
  // lowered as usual.
  void lowerFunctionIsolated(const clang::FunctionDecl* fd);
  void lowerStmt(const clang::Stmt* s);
  void lowerDecl(const clang::VarDecl* vd);
  void branch(const clang::Expr* cond, cfa::LocId onTrue, cfa::LocId onFalse);
  void collectCases(const clang::Stmt* s, SwitchCtx& sw);

  // expressions (lower_expr.cpp)
  cfa::ExprPtr rvalue(const clang::Expr* e);     // scalar value, or address of an aggregate
  cfa::ExprPtr rvalueRaw(const clang::Expr* e);  // rvalue before _ExtInt(N) normalisation
  // _ExtInt(N) / _BitInt(N) narrower than its container: N (else 0). Its values are kept
  // normalised in the container (sign- or zero-extended from N bits), which gives the
  // exact N-bit wraparound.
  uint32_t bitIntBits(clang::QualType t) const;
  cfa::ExprPtr normalizeBitInt(cfa::ExprPtr v, clang::QualType t) const;
  // Signed _ExtInt(N) arithmetic whose result does not fit N bits is undefined (C23
  // 6.5p5; Clang wraps, other tools promote): that path is unsupported.
  void checkBitIntOverflow(cfa::ExprPtr v, clang::QualType t, const clang::Stmt* at);
  LValue lvalue(const clang::Expr* e);
  cfa::ExprPtr load(const LValue& lv);
  void store(const LValue& lv, cfa::ExprPtr v);
  void assignTo(const LValue& lv, const clang::Expr* rhs);
  cfa::ExprPtr convertScalar(cfa::ExprPtr v, clang::QualType from, clang::QualType to);

  // floating point (lower_float.cpp)
  cfa::ExprPtr convertFloat(cfa::ExprPtr v, clang::QualType from, clang::QualType to);
  // v != 0.0 (NaN is true, -0.0 false) as 0/1 in `width` bits
  cfa::ExprPtr floatTruth(cfa::ExprPtr v, uint32_t width);
  // The IEEE bit image of x in `width` (32/64) bits.
  static cfa::ExprPtr floatConst(double x, uint32_t width);
  cfa::ExprPtr floatArith(clang::BinaryOperatorKind op, cfa::ExprPtr a, cfa::ExprPtr b, uint32_t resultWidth,
                          const clang::Expr* at);
  // math.h functions and the floating-point builtins (handled = false when `name` is
  // not one of them).
  cfa::ExprPtr mathBuiltin(const clang::CallExpr* ce, const std::string& name, bool& handled);
  cfa::ExprPtr castExpr(const clang::CastExpr* ce);
  cfa::ExprPtr binaryExpr(const clang::BinaryOperator* bo);
  cfa::ExprPtr arith(clang::BinaryOperatorKind op, cfa::ExprPtr a, clang::QualType ta, cfa::ExprPtr b,
                     clang::QualType tb, clang::QualType resultType, const clang::Expr* at);
  cfa::ExprPtr incDec(const clang::UnaryOperator* uo);
  cfa::ExprPtr conditional(const clang::AbstractConditionalOperator* co);
  cfa::ExprPtr logical(const clang::BinaryOperator* bo);
  // base + idx * elemSize. Memory-safety layout: a result outside base's object range
  // (the offset carries into the id) makes the path unsupported, unless guardCarry is
  // false (an element access, whose deref check covers it).
  cfa::ExprPtr ptrOffset(cfa::ExprPtr base, cfa::ExprPtr idx, clang::QualType idxType, uint64_t elemSize, bool negate,
                         bool guardCarry = true);
  bool isPure(const clang::Expr* e) const;       // no side effects (safe to evaluate eagerly)
  void copyBytes(cfa::ExprPtr dst, cfa::ExprPtr src, uint64_t bytes, const clang::Stmt* at);
  void zeroBytes(cfa::ExprPtr dst, uint64_t bytes, const clang::Stmt* at);
  void initObject(cfa::ExprPtr addr, clang::QualType t, const clang::Expr* init, bool alreadyZero);
  cfa::ExprPtr stmtExpr(const clang::StmtExpr* se);
  cfa::ExprPtr addOffset(cfa::ExprPtr addr, uint64_t off);
  cfa::ExprPtr constPtr(uint64_t v) { return cfa::Expr::mkConst(v, ptrWidth); }
  // An integer constant of Clang's (extended to `width` <= 128 bits by its signedness).
  static cfa::ExprPtr constOf(const llvm::APSInt& v, uint32_t width);

  // Variable-length array types: the element count of each, evaluated once where the
  // declaration is reached (C11 6.7.6.2p5), in a temporary of size_t width.
  // Keyed by the size expression: sugared and canonical forms of one VLA type share it.
  std::map<const clang::Expr*, cfa::VarId> vlaCounts;
  void evalVlaSizes(clang::QualType t);
  // sizeof(t) at run time (pointer width); null when t's size is unknown here.
  cfa::ExprPtr runtimeSize(clang::QualType t);

  // calls (lower_call.cpp)
  cfa::ExprPtr call(const clang::CallExpr* ce);
  cfa::ExprPtr builtinCall(const clang::CallExpr* ce, const std::string& name, bool& handled);
  // lower_builtins.cpp: bit-manipulation and overflow-checking builtins (handled = false
  // when `name` is not one of them or the call does not have its shape).
  cfa::ExprPtr bitBuiltin(const clang::CallExpr* ce, const std::string& name, bool& handled);
  cfa::ExprPtr overflowBuiltin(const clang::CallExpr* ce, const std::string& name, bool& handled);
  cfa::ExprPtr materialize(cfa::ExprPtr v, bool isSigned);  // a temporary holding v
  void unsupportedIf(cfa::ExprPtr cond, const std::string& what, const clang::Stmt* s);

  // ---- property checks (lower_checks.cpp; FrontendOptions::properties) ----
  std::set<std::string> checks;       // properties to instrument
  bool errorCallsAreErrors = true;    // reach_error() & co. are Error edges (unreach-call)
  // Whether `prop` is instrumented in the function being lowered (user code only: not the
  // libc models, system-header functions or the global initialisers).
  bool checking(const char* prop) const;
  // if (violated) goto error [Error edge with property, check kind and operands].
  void checkEdge(cfa::ExprPtr violated, const char* prop, cfa::CheckKind kind,
                 std::vector<cfa::ExprPtr> operands, const clang::Stmt* at);
  // Checks of an integer operation on operands of the (promoted) types ta, tb whose
  // result has type rt: signed overflow of + - * /, division by zero, shift amounts.
  // May replace a and b by temporaries.
  void checkArith(clang::BinaryOperatorKind op, cfa::ExprPtr& a, clang::QualType ta, cfa::ExprPtr& b,
                  clang::QualType tb, clang::QualType rt, const clang::Stmt* at);
  // Whether `e` contains an operation a selected property checks (then it must not be
  // evaluated eagerly where C does not evaluate it: the right operand of && and ||, the
  // branches of ?:). False when no property is checked.
  bool hasCheckedOp(const clang::Expr* e) const;
  // ---- memory safety (lower_checks.cpp; Program::objectBits, cfa::memlayout) ----
  bool memLayout() const { return prog.objectBits != 0; }
  // valid-deref is checked in the function being lowered (user code and the libc models;
  // not system headers or the global initialisers).
  bool derefChecked() const;
  // Emits the Alloc edge `a` (lhs, size, zeroInit, text, range set). With the memory-
  // safety layout: a fresh object id, its metadata (size, live, kind), the heap counter
  // for heap blocks, the zeroing done here; unsupported beyond the ids or offset range.
  void allocObject(cfa::Edge a, uint8_t kind);
  cfa::ExprPtr objId(const cfa::ExprPtr& p);
  cfa::ExprPtr objOff(const cfa::ExprPtr& p);
  cfa::ExprPtr provId(const cfa::ExprPtr& p);  // the object p belongs to (cfa::memlayout)
  cfa::ExprPtr metaLoad(const cfa::ExprPtr& id, uint32_t field, uint32_t bytes);
  void metaStore(const cfa::ExprPtr& id, uint32_t field, cfa::ExprPtr value);
  // The number of allocated heap blocks: the register global cfa::memlayout::kLiveHeapVar,
  // 0 at every entry (both initialisation functions set it), +1 per heap Alloc, -1 per
  // valid free; valid-memtrack and valid-memcleanup read it at termination. A register,
  // not a memory cell, so invariant generators see a loop that does not allocate keep it.
  cfa::VarId liveHeapVar = 0;
  void declareLiveHeap();
  cfa::ExprPtr liveHeap();
  void setLiveHeap(cfa::ExprPtr v);
  // id(p) names an allocated object whose state is live (0/1, 32 bits).
  cfa::ExprPtr liveObject(const cfa::ExprPtr& p);
  // valid-deref check of an access of `bytes` (pointer width) bytes at addr.
  void checkDeref(cfa::ExprPtr addr, cfa::ExprPtr bytes, const clang::Stmt* at, cfa::ExprPtr base = nullptr);
  void checkDeref(const cfa::ExprPtr& addr, uint64_t bytes, const clang::Stmt* at, cfa::ExprPtr base = nullptr) {
    checkDeref(addr, constPtr(bytes), at, std::move(base));
  }
  // free(p) / realloc's release of p: the valid-free check, the Free edge, the metadata.
  void freeObject(cfa::ExprPtr p, const clang::Stmt* at);
  // Address-taken locals and in-memory parameters of the function being lowered (their
  // address registers are null until the declaration is reached) and whether a global
  // can hold a pointer (valid-memtrack, computed once).
  std::vector<cfa::VarId> stackObjects;
  void declareStackObjects(const clang::Stmt* body);
  void endStackObjects();        // at a return: their lifetimes end
  void endOfProgram(bool mainReturn, bool isExit);  // memcleanup / memtrack at termination
  std::optional<bool> globalsHoldPointers_;
  bool globalsHoldPointers();
  bool globalPointerSlots(std::vector<cfa::ExprPtr>& out);
  bool pointerSlotsOf(clang::QualType t, const cfa::ExprPtr& base, uint64_t off, std::vector<cfa::ExprPtr>& out);
  cfa::ExprPtr pointsIntoLiveHeap(const cfa::ExprPtr& v);
  bool typeMayHoldPointer(clang::QualType t);
  // Signed overflow of -a (a of the promoted type t).
  void checkNeg(cfa::ExprPtr& a, clang::QualType t, const clang::Stmt* at);
  cfa::ExprPtr directCall(const clang::CallExpr* ce, const clang::FunctionDecl* callee);
  void dispatchOverFunctions(cfa::ExprPtr fp, const std::function<bool(const clang::FunctionDecl*)>& accept,
                             const std::function<void(const clang::FunctionDecl*, cfa::FuncId)>& callOne,
                             const std::string& textPrefix);
  void byteLoop(cfa::ExprPtr dst, cfa::ExprPtr n, const std::function<cfa::ExprPtr(cfa::ExprPtr)>& byteAt,
                const std::string& what);
  // external: the user-declared body-less function the values come from (Edge::externalCallee)
  void havocBytes(cfa::ExprPtr addr, uint64_t bytes, const std::string& text, const std::string& external = "",
                  clang::QualType type = clang::QualType());  // type: the object's, to show the stored value
  cfa::ExprPtr nondetResult(const clang::CallExpr* ce, const std::string& what, const std::string& external = "");
  cfa::ExprPtr scanfCall(const clang::CallExpr* ce, unsigned fmtIndex, bool& handled);
  std::vector<cfa::ExprPtr> lowerArgs(const clang::CallExpr* ce, const clang::FunctionDecl* callee);
  // Variadic functions. A defined variadic function has one hidden pointer parameter after
  // its named ones (declareSignature): a call stores the arguments after the named ones,
  // as C's default argument promotions left them, in a fresh block, each in a slot of
  // vaSlot(size) bytes, and passes the block's address (variadicArea). A va_list holds a
  // cursor into that block (vaCursor: the first bytes of x86-64's __va_list_tag, or the
  // va_list variable itself where it is a char *); va_start sets it to the hidden
  // parameter, va_arg(ap, T) reads a T at the cursor and moves it on by vaSlot(sizeof T),
  // va_copy copies it, va_end does nothing. A va_list passed to another function (as
  // vprintf-style functions take it) shares the cursor, as the x86-64 ABI's does.
  static uint64_t vaSlot(uint64_t bytes) { return bytes == 0 ? 8 : (bytes + 7) / 8 * 8; }
  cfa::ExprPtr variadicArea(const clang::CallExpr* ce, unsigned named, const std::vector<cfa::ExprPtr>& args,
                            const std::string& callee);
  bool vaCursor(const clang::Expr* ap, LValue& out);  // false (and unsupported) when not modelled
  cfa::ExprPtr vaArg(const clang::VAArgExpr* va);
  cfa::ExprPtr vaBuiltin(const clang::CallExpr* ce, const std::string& name, bool& handled);

  // C models of library functions (lower_libc.cpp). models: name -> definition of every
  // __argus_* function of the models file; neededModels: canonical decls of those the
  // program calls, directly or through other models (only these are lowered).
  std::map<std::string, const clang::FunctionDecl*> models;
  std::set<const clang::FunctionDecl*> neededModels;
  bool isModelDecl(const clang::Decl* d) const;
  bool skipModelDecl(const clang::Decl* d) const;  // a model part the program does not need
  const clang::FunctionDecl* modelFor(const std::string& name) const;
  const char* ctypeTableCall(const clang::ArraySubscriptExpr* as) const;  // model name or null
  void findModels(clang::TranslationUnitDecl* tu);
  cfa::ExprPtr callModel(const clang::FunctionDecl* model, std::vector<cfa::ExprPtr> args, clang::QualType resultType);
  cfa::ExprPtr ctypeTableRead(const clang::ArraySubscriptExpr* as);  // null: not the pattern
  cfa::ExprPtr libcCall(const clang::CallExpr* ce, const std::string& name, bool& handled);

  // atexit (lower_call.cpp): handlers live in a table of kAtexitSlots function pointers
  // allocated by the initialisation; exit() and main's return call the runner, which calls
  // them in reverse order of registration (C11 7.22.4.4).
  static constexpr uint32_t kAtexitSlots = 64;
  cfa::FuncId atexitRunner = cfa::kNoFunc;
  cfa::VarId atexitTable = 0, atexitCount = 0;
  void declareAtexit(clang::TranslationUnitDecl* tu);
  void lowerAtexitRunner();
  void emitRunAtexit();    // Call edge to the runner (when the program uses atexit)
  void emitReturn();       // Return edge to fn->exit; main runs the atexit handlers first

  // globals (lower_stmt.cpp)
  void prepass(clang::TranslationUnitDecl* tu);

  // The entry model (lower_entry_model.cpp): Function::entryParams/entryObjects.
  static constexpr unsigned kEntryDepth = 2;           // objects reached through pointers
  static constexpr uint64_t kEntryBufferBytes = 64;    // void*, char*, incomplete pointees
  static constexpr size_t kEntryMaxObjects = 64;       // per function
  static constexpr uint64_t kEntryArraySlots = 16;     // pointer elements of an array
  std::set<const clang::Decl*> nullTested;  // parameters, globals and fields tested against NULL
  void collectNullTests(clang::TranslationUnitDecl* tu);
  void buildEntryModel(const clang::FunctionDecl* fd);
  bool buildGlobalModel(const clang::VarDecl* vd, const VarRef& ref, clang::QualType t);
  bool buildGlobalFunctionModel(const clang::VarDecl* vd, const VarRef& ref, clang::QualType t);
  void globalModelGate(const clang::VarDecl* vd, const std::function<void()>& model);
  // root: a parameter's own object, made even beyond kEntryMaxObjects (only slots become null)
  int32_t entryObjectFor(clang::QualType pointee, unsigned depth, std::vector<cfa::EntryObject>& objs,
                         bool root = false);
  // A method table: a struct whose fields are all scalars or function pointers, some call
  // of the unit calling through one of them (SQLite's sqlite3_io_methods behind a file's
  // pMethods). A pointer to one gets its object beyond kEntryDepth too (lower_entry_model.cpp).
  std::map<const clang::RecordDecl*, bool> methodTables;
  // While buildEntryModel runs: for each union the entry's body reads exactly one member
  // of (`pWalker->u.pRefSrcList`), that member; the harness models the union as that
  // member (entrySlots). Empty for globals' models.
  std::map<const clang::RecordDecl*, const clang::FieldDecl*> unionUse;
  bool isMethodTable(clang::QualType t);
  // The objects entryObjectFor is filling, outermost first (type, index in the objects):
  // a slot at the depth bound may point back to one of them (cfa::EntryObject::Slot::back).
  std::vector<std::pair<clang::QualType, int32_t>> entryAncestors;
  void entrySlots(clang::QualType t, uint64_t offset, unsigned depth, std::vector<cfa::EntryObject::Slot>& slots,
                  std::vector<cfa::EntryObject>& objs, const clang::FieldDecl* field = nullptr);
  void buildInit(bool nondet);

  // ---- link mode (lower_link.cpp; FrontendOptions::linkMode) ----
  const FrontendOptions* linkOpts = nullptr;  // null: not in link mode
  // ---- contracts (README "Contracts"; core/frontend/contracts.h, lower_call.cpp) ----
  const ContractRewrite* contracts = nullptr;
  // the calls at the start of the body being lowered that are its contract: the
  // `__argus_requires` calls the rewrite inserted and leading __VERIFIER_assume calls
  std::unordered_set<const clang::Stmt*> contractCalls;
  // the `assert(e)` statements that open the body (README "Contracts": the function's
  // precondition when it is verified on its own), and whether one is being lowered
  std::unordered_set<const clang::Stmt*> leadingAsserts;
  bool inLeadingAssert = false;
  void findContractCalls(const clang::FunctionDecl* fd);
  void lowerLeadingAssert(const clang::Stmt* s);
  // the C library's assertion-failure functions, which a failed `assert` calls
  static bool isAssertFailure(const std::string& name) {
    return name == "__assert_fail" || name == "__assert_rtn" || name == "__assert" || name == "__assert_perror_fail";
  }
  const clang::Expr* assertCondition(const clang::Expr* e) const;
  void leadingAssertGate();
  void contractCheck(const clang::CallExpr* ce, const std::string& what, const cfa::SourceRange& where,
                     cfa::ContractGate gate);
  void contractEntryObject(const clang::CallExpr* ce);
  cfa::ExprPtr validExpr(const clang::CallExpr* ce);
  cfa::ExprPtr contractCall(const clang::CallExpr* ce, const std::string& name, bool& handled);
  std::string unitFile;
  bool linkMode() const { return linkOpts && linkOpts->linkMode; }
  cfa::Linkage linkageOf(const clang::FunctionDecl* fd) const;
  // The function's address from its link name (same in every unit), recorded in prog.link.
  uint64_t linkAddress(const clang::FunctionDecl* fd);
  // For a body-less callee: the stub's id if declareLinkStubs made one (else recorded as undefined).
  std::optional<cfa::FuncId> linkStub(const clang::FunctionDecl* callee);
  void declareLinkStubs(clang::TranslationUnitDecl* tu);
  // Records an external global's definition kind; true if another unit defines it
  // (linkGlobals), so this unit neither allocates nor initialises it.
  bool definedElsewhere(const clang::VarDecl* vd);
  void markLiterals(const clang::Stmt* s);  // give referenced string literals an address variable
};

}  // namespace argus::frontend
