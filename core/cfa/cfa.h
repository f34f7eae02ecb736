// Control-flow automata.
//
// A Program holds one CFA per C function with a body, the register variables of all
// functions, and the global-initialisation function. A CFA is a graph of locations
// joined by edges; each edge carries one operation (see EdgeKind) and the source range
// of the C code it came from.
//
// Variables: scalars whose address is never taken (ints, pointers, enums, _Bool) are
// *register variables* (VarId), assigned directly. Everything else (arrays, structs,
// unions, address-taken scalars, heap) lives in the flat byte memory; such an object
// is reached through a register variable holding its address (`x$addr`), set by an
// Alloc edge at the object's declaration. Globals are allocated and zero-initialised
// (then initialised) by the `__argus_init` function, which runs before the entry.
//
// Allocation: a bump allocator `brk` starting at Program::heapBase; Alloc(v, size) sets
// v := brk and advances brk by size rounded up to 8 (and at least 8), so distinct
// objects never overlap and 0 is never a valid address. Allocation never fails
// (SV-COMP's convention).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cfa/expr.h"

namespace argus::cfa {

using LocId = uint32_t;
using FuncId = uint32_t;
constexpr FuncId kNoFunc = UINT32_MAX;

struct SourceRange {
  std::string file;
  uint32_t line = 0, column = 0;
  uint32_t endLine = 0, endColumn = 0;
};

enum class VarKind : uint8_t { Global, Local, Param, Temp, Return, Address };

// C linkage of a global variable or a function, recorded by the frontend in link mode
// (FrontendOptions::linkMode) for cfa::link (core/cfa/link.h); None otherwise.
enum class Linkage : uint8_t { None, Internal, External };

// How a value is shown to a person (counterexample steps): an integer (its sign from
// isSigned / storeSigned), an address, or the bit image of a float/double.
enum class ValueShape : uint8_t { Integer, Pointer, Float };

struct Variable {
  std::string name;       // unique in the program, e.g. "main::i", "g", "main::tmp3"
  std::string cName;      // the C identifier (for counterexamples), "" for temporaries
  uint32_t width;         // bits
  bool isSigned = false;
  VarKind kind = VarKind::Local;
  FuncId func = kNoFunc;  // owner (kNoFunc for globals)
  Linkage linkage = Linkage::None;  // globals, link mode only
  ValueShape shape = ValueShape::Integer;  // of the C value (Address variables: Pointer)
};

enum class EdgeKind : uint8_t {
  Blank,    // no effect (declarations without initialiser of memory objects, labels, ...)
  Assume,   // proceed iff (cond != 0) == positive
  Assign,   // lhsVar := rhs
  Store,    // mem[addr .. addr+bytes) := value (little-endian), value has width 8*bytes
  Havoc,    // lhsVar := nondeterministic value (from __VERIFIER_nondet_*, an uninitialised
            // local, or a call to a function without a body)
  Alloc,    // lhsVar := brk; brk += align8(max(size, 1)); zeroInit: the bytes are set to 0.
            // Memory-safety layout (Program::objectBits): rhs is the object's size and
            // bytes its MemKind (size is 1 << objectBits; see `memlayout` below)
  Free,     // no effect on the encoding. Memory-safety layout: addr is the freed pointer,
            // bytes 0 for free()/realloc, 1 for the end of a stack object's lifetime; the
            // replay interpreter updates its own object table from it
  Call,     // call callee(args); on return, lhsVar (if any) := callee's return variable
  Return,   // (callee exit) pass control back to the caller; the value is already in the
            // function's return variable
  Error,    // the property is violated here (reach_error, failed assertion); target is the
            // function's error location
  Abort,    // abort()/exit(): the execution ends here without error; target is a sink
  Unsupported,  // a construct the frontend cannot translate (Edge::text names it). An
            // analysis stops the path here; if such an edge is reachable it must not
            // answer `true`, and it reports the construct and its file:line.
};

// What an Error edge added by a property check (core/frontend/lower_checks.cpp) checks,
// so the replay interpreter can confirm the violation on its own (core/result/replay.cpp):
// Edge::args are the operands as lowered (for shifts: the amount, then the width of the
// shifted operand as a constant). None for an error call or a failed assertion.
enum class CheckKind : uint8_t {
  None,
  SignedAdd, SignedSub, SignedMul, SignedDiv, SignedNeg,  // no-overflow: args a, b (a for Neg)
  DivByZero,                                             // div-by-zero: args divisor
  ShiftSigned, ShiftUnsigned,                            // shift: amount (of that signedness), width
  // memory safety (Program::objectBits > 0; the interpreter decides them from its own
  // object table, not from the metadata the program keeps in memory):
  Deref,     // valid-deref: args address, byte count (pointer width) [, base]: not inside a live
             // object [or not in the object of the pointer `base` it was indexed from]
  Index,     // valid-deref: args index, element count (pointer width): index >= count (unsigned)
  Free,      // valid-free: args pointer: neither null nor the start of a live heap block
  Leak,      // valid-memcleanup / valid-memtrack: no args: some heap block is still allocated
};

// Contracts (README "Contracts"; core/frontend/contracts.h, cfa::applyContracts in
// core/cfa/entry_harness.h). A contract check is an Error edge behind a *gate*: an Assume
// edge whose condition is the constant 1 (open) or 0 (closed), which the engine sets for
// each run from the entry it verifies. The frontend's defaults are those of a run whose
// entry is none of these functions: `requires` checked, leading __VERIFIER_assume not
// checked (an assume, as before), entry-only edges skipped, leading `assert` checked.
enum class ContractGate : uint8_t {
  None,
  Requires,       // before the Error edge of an ACSL `requires` clause (open by default)
  LeadingAssume,  // before the Error edge of a leading __VERIFIER_assume (closed by default)
  EntryOnly,      // before edges run only when the function is the verified entry (closed)
  NotEntry,       // the other branch of an EntryOnly fork (open by default)
  Condition,      // not a gate: an Assume of a contract's own condition (the replay does not
                  // count it as an input decision where the entry's contract is assumed)
  GlobalModel,    // before the entry model of a global in the nondeterministic initialisation
                  // (open: the harness model; closed by --entry-model arbitrary; README
                  // "Entry models"): both edges of the fork carry it, cond 1 or 0
  LeadingAssert,  // before the Error edge of an `assert(e)` that opens a function's body
                  // (open by default: closed only in the entry itself when it is not `main`)
  AssertCondition,  // not a gate: an Assume of such an assertion's condition (as Condition);
                    // on a Call edge: a call the condition makes (`assert( sqlite3_mutex_held(
                    // db->mutex) )`), whose own assertions are part of the precondition where
                    // it is assumed (cfa::withContracts)
};

// Memory-safety layout (issue 26), used only when a memory-safety property is checked
// (Program::objectBits > 0; nothing changes otherwise). An address is (object id <<
// objectBits) | offset: every Alloc takes a fresh id (its size is 1 << objectBits, the
// heap starts at id 1), so the object a pointer belongs to is its high bits, and pointer
// arithmetic that leaves the object is visible. Id 0 is never an object (null and small
// constants are invalid); its range holds the metadata, as ordinary memory the frontend
// writes with Store edges and reads in the check edges, so every algorithm handles it:
// per id at kMetaBase + 16 * id the object's size (pointer width) at +0, its state (one
// byte) at +8 and its kind at +9; the next free id at kNextId (pointer width, set by the
// global initialisation; the heap count is a register, memlayout.h, where pointers outside
// objects are too). maxIds, maxObjectSize bound the ids, objects. B is 33 under LP64 so
// that an object of any size an `unsigned` holds (up to 2^32 - 1 bytes: `malloc(n)`,
// `alloca(n)` with a nondeterministic unsigned n) fits below maxObjectSize = 2^B - 2^(B-4);
// 20 under ILP32.
namespace memlayout {
inline uint32_t offsetBits(uint32_t ptrWidth) { return ptrWidth == 32 ? 20 : 33; }
inline uint64_t maxIds(uint32_t ptrWidth) { return ptrWidth == 32 ? 0xE00 : 0x3800; }  // below function addresses
constexpr uint64_t kMetaBase = 0x10000, kNextId = 0xFF00;
enum State : uint8_t { kNone = 0, kLive = 1, kFreed = 2, kDead = 3 };
enum Kind : uint8_t { kHeap = 1, kStack = 2, kGlobal = 3 };
}  // namespace memlayout

struct Edge {
  EdgeKind kind = EdgeKind::Blank;
  LocId from = 0, to = 0;
  SourceRange range;
  std::string text;                 // the C statement or expression, for traces

  ExprPtr cond;                     // Assume
  bool positive = true;             // Assume
  std::optional<VarId> lhs;         // Assign, Havoc, Alloc, Call
  ExprPtr rhs;                      // Assign
  ExprPtr addr;                     // Store, Free
  ExprPtr value;                    // Store
  uint32_t bytes = 0;               // Store
  ExprPtr size;                     // Alloc (pointer width)
  bool zeroInit = false;            // Alloc
  FuncId callee = kNoFunc;          // Call
  std::vector<ExprPtr> args;        // Call (already converted to the parameter widths)
  bool isNondetCall = false;        // Havoc from __VERIFIER_nondet_* or a body-less call
  // Havoc: the function the program declares without a body (and that is not a library
  // function nor a __VERIFIER_nondet_*/nondet_* input) whose result or object this value
  // is; a counterexample through it assumes "NAME() may return any value". Empty otherwise.
  std::string externalCallee;
  // Havoc standing for the result of a call: the called function's name (what a native
  // harness must define to replay the path, core/result/harness.h); "" otherwise.
  std::string nondetFunction;
  // Error: the property it violates (SV-COMP names: "no-overflow", "div-by-zero",
  // "shift", ...); "" for reach_error and failed assertions (unreach-call). `check` and
  // `args` say what the interpreter must find violated when it takes the edge.
  std::string property;
  // (Also on the passing Assume edge of a memory-safety check, with the same args: the
  // interpreter confirms there that its object table sees no violation.)
  CheckKind check = CheckKind::None;
  // Store: the C type of the lvalue written (how the value is shown in a trace).
  ValueShape storeShape = ValueShape::Integer;
  bool storeSigned = false;
  // Alloc of a declared array: the size of one element (a trace shows `buf[3]`), else 0.
  uint64_t elemBytes = 0;
  // Assume: a contract gate (ContractGate above); Error: the check a Requires or
  // LeadingAssume gate leads to (its text says which precondition); else None.
  ContractGate gate = ContractGate::None;
  // Assume: one branch of the entry model's choice of a function for a pointer field
  // (EntryFunctions::field and type); 0 otherwise.
  uint64_t choiceField = 0, choiceType = 0;
  // Abort: an Error edge the engine cut for this run (a latent finding's check, after which
  // the run goes on: engine::VerifyRequest::cutErrors). Not serialized: set per run.
  bool cutError = false;
};

struct Location {
  LocId id = 0;
  std::vector<uint32_t> out;        // indices into Function::edges
  std::vector<uint32_t> in;
  bool isLoopHead = false;
  SourceRange range;                // the C construct that starts here (loop heads: the loop)
};

// The entry model of a function's parameters (README "Entry models"), recorded by the
// frontend from the C types and read by the engine's harness (core/cfa/entry_harness.h)
// when the function is verified as its own entry. Pure data: no variable or function ids,
// so slicing and linking copy it as it is.
//
// An EntryObject is one fresh object the harness allocates (nondeterministic contents):
// `size` bytes, and at each of `pointers` a pointer slot the harness sets to a further
// fresh object (`object` >= 0, an index into Function::entryObjects), or to null
// (`object` < 0: beyond the depth bound, or a union member the harness leaves alone when
// `keep` is set). A slot that some code of the translation unit tests against NULL is
// `nullable`: the harness lets it be null or the object.
//
// A function pointer (a slot, or a parameter) holds one of `functions`: the functions
// whose address the translation unit takes and that a call through the pointer's type can
// reach (the indirect call's own targets, Lowerer::dispatchOverFunctions), or, for a field
// the unit only ever stores certain functions in, those; null too when `nullable`. With
// no such function it is left nondeterministic (`keep`).
//
// `field`, `type`: for a pointer that is a field of a struct, the field and its function
// type (fieldKey); its choice is dropped from a program in which no call calls through
// that field, nor through a variable of that type (pruneFunctionChoices,
// entry_harness.h). 0 for a parameter or a global variable.
struct EntryFunctions {
  std::vector<uint64_t> addrs;      // the functions' addresses (constants of the program)
  std::vector<std::string> names;   // their names, for the trace
  uint64_t field = 0, type = 0;
  bool empty() const { return addrs.empty(); }
};
// A 64-bit hash (never 0) naming a struct field ("record.field") or a function type
// ("type:" and its spelling) across functions and units.
uint64_t fieldKey(std::string_view name);
struct EntryObject {
  struct Slot {
    uint64_t offset = 0;
    int32_t object = -1;
    bool nullable = false;
    bool keep = false;              // leave the slot's bytes nondeterministic
    EntryFunctions functions;       // a function pointer's choices (see above)
    // At the depth bound (`object` < 0): an enclosing object of the slot's pointee type
    // (an index into Function::entryObjects) the slot points back to instead of null
    // (`db->pParse == pParse`); null stays a choice only when `nullable`. -1: none.
    int32_t back = -1;
  };
  uint64_t size = 0;
  std::vector<Slot> pointers;
};
// One per parameter of Function::params (empty: no parameter needs a model). A scalar
// parameter has `object` < 0 and is left nondeterministic; a pointer parameter (or a
// struct passed by value, whose register holds the address of its bytes) is set to the
// fresh object `object`, or may also be null when `nullable` (the function compares it
// with NULL, or it is declared _Nullable).
//
// A pointer parameter may also be the same pointer as an earlier one (`mayAlias`: their
// indices) when their pointee types are the same (qualifiers aside) and neither is
// `restrict`: the harness then lets it be that parameter's object instead of its own.
struct EntryParam {
  int32_t object = -1;
  bool nullable = false;
  EntryFunctions functions;         // a function-pointer parameter's choices (see above)
  std::vector<uint32_t> mayAlias;   // earlier parameters it may be the same object as
};

struct Function {
  FuncId id = 0;
  std::string name;
  // Link mode: the function's linkage, and whether this is a stub for a function defined
  // in another translation unit (its body is Unsupported until cfa::link resolves it).
  Linkage linkage = Linkage::None;
  bool linkStub = false;
  SourceRange range;
  std::vector<Location> locs;
  std::vector<Edge> edges;
  LocId entry = 0, exit = 0, error = 0, sink = 0;  // exit: after Return; error/sink: no out-edges
  std::vector<VarId> params;
  std::optional<VarId> retVar;      // absent for void functions
  bool variadic = false;
  // Defined in a system header (a static inline function of <byteswap.h>, say): a
  // callee of the user's code, never an entry of its own.
  bool systemHeader = false;
  // The entry model (see EntryObject); filled by the frontend for functions with a body.
  std::vector<EntryParam> entryParams;
  std::vector<EntryObject> entryObjects;
  // What its indirect calls call through (fieldKey): the field (`p->ops->xRead(...)`), or
  // for a call through anything else (a variable, a parameter) the function type; sorted,
  // each once.
  std::vector<uint64_t> callsThrough;

  LocId addLoc(const SourceRange& r = {});
  uint32_t addEdge(Edge e);         // fills in/out lists; returns the edge index
};

// One piece of a global-initialisation function (__argus_init or __argus_init_nondet):
// the edges [firstEdge, endEdge) of `func`, which lead from location `from` to location
// `to` (the next piece starts there), allocate or initialise the variables `defines`
// (a global, a string literal, the atexit table) and touch nothing else but what their
// expressions name. The frontend records them so an entry's closure can keep only the
// pieces it needs (core/cfa/closure.h); an init function without pieces is kept whole.
struct InitPart {
  FuncId func = kNoFunc;
  uint32_t firstEdge = 0, endEdge = 0;
  LocId from = 0, to = 0;
  std::vector<VarId> defines;
};

struct Program;
// The zero page of the flat layout (README "Memory model"): the addresses below heapBase,
// the first address brk hands out (kFlatHeapBase = 4 KiB under ILP32, kFlatHeapBase64 =
// 1 TiB under LP64, so that a null pointer plus any 32-bit index times a record size
// stays in it), so no object lies there; an access there is a null pointer plus an
// offset, and every engine reads it as zero (the program would crash there, or is outside
// every object: nothing it does after such a read is defined, so any value is sound for
// `true`, and one fixed value keeps the encodings small and the replay in step with
// them). Its end (= heapBase), or 0 under the
// memory-safety layout (objectBits > 0), where the metadata lives at low addresses and
// valid-deref checks every access, and for any other heapBase (tests that build programs
// with their own layout, e.g. one whose break wraps around to address 0).
uint64_t zeroPageEnd(const Program& p);
constexpr uint64_t kFlatHeapBase = 0x1000;
constexpr uint64_t kFlatHeapBase64 = uint64_t(1) << 40;

struct Program {
  std::string mainFile;
  uint32_t ptrWidth = 64;           // 32 (ILP32) or 64 (LP64)
  uint64_t heapBase = 0x1000;       // first address brk hands out (the frontend: kFlatHeapBase64 under LP64)
  // Memory-safety layout (memlayout above): offset bits of an address, 0 = the flat
  // layout. Set by the frontend when a memory-safety property is checked.
  uint32_t objectBits = 0;
  std::vector<Function> functions;
  std::vector<Variable> vars;
  std::map<std::string, FuncId> funcByName;
  FuncId initFunc = kNoFunc;        // __argus_init: allocates and initialises globals
  // __argus_init_nondet: allocates globals but leaves their contents nondeterministic
  // (register globals are havocked); used when verifying a function other than main.
  FuncId initNondetFunc = kNoFunc;
  std::vector<InitPart> initParts;  // in order, per init function

  // Warnings from the frontend (e.g. constructs it over-approximated), for the log.
  std::vector<std::string> notes;

  // Link mode only (FrontendOptions::linkMode): what cfa::link and `argus project` need.
  struct LinkInfo {
    // external globals of this unit: name -> 0 declared only, 1 tentative definition,
    // 2 definition with an initialiser
    std::map<std::string, int> globalDefs;
    // external functions called here without a body in this unit
    std::vector<std::string> undefinedFunctions;
    // link name (name, or name@unit for internal functions) -> address of the function
    std::map<std::string, uint64_t> functionAddresses;
  } link;

  const Function* find(const std::string& name) const;
  VarId addVar(Variable v);
  std::vector<std::string> varNames() const;
  // Recomputes Location::isLoopHead for every function (targets of DFS back edges).
  void markLoopHeads();
};

// "assume", "assign", ... (for dumps and traces).
const char* edgeKindName(EdgeKind k);

// Splits `bytes` into accesses of 8, 4, 2 and 1 bytes: fn(offset, size) in order. The
// frontend and the encoding use it for block copies, zeroing and scanf targets.
template <class Fn>
void forEachChunk(uint64_t bytes, Fn fn) {
  for (uint64_t off = 0; off < bytes;) {
    uint64_t left = bytes - off;
    uint32_t chunk = left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
    fn(off, chunk);
    off += chunk;
  }
}

// Human-readable dump of all CFAs (for tests and `argus verify --dump-cfa`).
std::string dump(const Program& p);

}  // namespace argus::cfa
