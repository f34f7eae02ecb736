// The harness of a function verified as its own entry (issue 29 item 3; README "Entry
// models"). The frontend records each function's entry model from the C types
// (Function::entryParams / entryObjects, see core/cfa/cfa.h and
// core/frontend/lower_entry_model.cpp); withEntryHarness turns it into edges at the
// start of the entry, before its body reads the parameters:
//
//   for each modelled parameter p (in order):
//     Alloc p, size          (fresh object, nondeterministic contents)
//     for each pointer slot of the object, depth first:
//       Alloc t, size'       (the slot's own fresh object, and its slots)  | Store 0
//       Store [p + off] := t
//       nullable: a nondeterministic choice between the object and null
//     nullable p: a nondeterministic choice p := 0
//   a parameter q that may alias earlier ones p (same pointee type): a choice between
//     q := p (not null) for each, and its own object
//   a function pointer (parameter p, or a slot): a branch per function f it may hold,
//     Assume p == &f (for a slot: Havoc t, the branches on t, Store [p + off] := t)
//
// The parameter's incoming value is still read (the replay interpreter and the encoder
// treat entry parameters as inputs) and then overwritten, so the counterexample's
// trace shows the harness's own steps ("entry model: ...").
//
// An entry called inside its closure (recursion) runs the harness only on the first
// entry: a global register flag, set to 0 at the start of the init function and to 1
// by the harness, guards it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/cfa/cfa.h"

namespace argus::cfa {

// The texts of the harness's steps, by which the replay (result/replay.cpp) and the text
// trace (result::toText, which puts a run of pointer choices on one line) know them:
// every step begins with kEntryModelText; a pointer's choice is "entry model: X may be
// null", and its null branch "X is null".
inline constexpr std::string_view kEntryModelText = "entry model: ";
inline constexpr std::string_view kMayBeNullText = " may be null";
inline constexpr std::string_view kIsNullText = " is null";
// A function pointer's choice: "entry model: X holds function NAME" or "entry model: X
// holds no function (null)" (the branch taken); a slot's value is first "entry model: X =
// a function" (Havoc), and after the choice "entry model: X holds its function" (Store).
// The trace shows the branch only (result::toText: a run of them on one line).
inline constexpr std::string_view kFunctionChoiceText = " holds function ";
inline constexpr std::string_view kFunctionNullText = " holds no function (null)";
inline constexpr std::string_view kFunctionHavocText = " = a function";
inline constexpr std::string_view kFunctionStoreText = " holds its function";
// Aliasing parameters (EntryParam::mayAlias): "entry model: Q may be an earlier parameter"
// (Havoc), then the branch "Q == P" (an input decision; then "entry model: Q = P (the same
// object)") or "entry model: Q is its own object".
inline constexpr std::string_view kAliasHavocText = " may be an earlier parameter";
inline constexpr std::string_view kAliasNoneText = " is its own object";

// A copy of `p` whose function `entry` starts with its harness, or null when the entry
// has no modelled parameter (the program is then verified as it is).
std::shared_ptr<Program> withEntryHarness(const Program& p, FuncId entry);
// The same harness added to `p` itself (a program the caller owns, such as a fresh slice:
// no copy of a closure of thousands of functions); false, and `p` unchanged, when
// withEntryHarness would return null.
bool addEntryHarness(Program& p, FuncId entry);

// The edges of one modelled object (an EntryObject tree), appended to `f` at `cur` (which
// moves on; `range` on every edge): with `alloc`, `into` := a fresh object of
// objs[object] first (`nullable`: then a nondeterministic choice `into` := NULL); without,
// `into` already holds the address of an object of that layout (a global in memory) and
// only its pointer slots are set. The frontend builds the globals' entry model with it.
void emitEntryObject(Program& p, Function& f, LocId& cur, const SourceRange& range,
                     const std::vector<EntryObject>& objs, int32_t object, VarId into, const std::string& what,
                     bool alloc, bool nullable);

// A function pointer's entry model (EntryFunctions in cfa.h), appended to `f` at `cur`:
// one branch per function of `fs` (and null when `nullable`), each an Assume that `var`
// holds it. The frontend builds a global function-pointer variable's model with it.
void emitFunctionChoice(Program& p, Function& f, LocId& cur, const SourceRange& range, const EntryFunctions& fs,
                        bool nullable, VarId var, const std::string& what);

// The entry model's function choices for struct fields through which no call of `p`
// calls, nor any call through a variable of the field's type (EntryFunctions::field and
// type, Function::callsThrough): each such choice becomes one edge, so the field holds
// any value (not null where the choice had no null branch), as it would without one. A choice costs
// an edge per function and the havoc and store around it, for nothing where no call
// dispatches on the field (SQLite: the VFS and config tables of its globals, ~750
// unwinding nodes in each slice that reaches sqlite3_initialize). pruneFunctionChoices
// changes `p` and says whether it did; withPrunedFunctionChoices returns a copy, or null
// when nothing is pruned. Edge indices stay as they are (init pieces refer to them): the
// other branches of a pruned choice become Assume edges that never hold.
bool pruneFunctionChoices(Program& p);
std::shared_ptr<Program> withPrunedFunctionChoices(const Program& p);
// The texts of a pruned choice (after kEntryModelText and the pointer's name): a Blank
// edge where the choice had a null branch, else an Assume that the pointer is not null.
inline constexpr std::string_view kFunctionAnyText = " holds any value (no call in the program calls through it)";
inline constexpr std::string_view kFunctionAnyNonNullText =
    " holds any value but null (no call in the program calls through it)";

// --entry-model arbitrary: a copy of `p` with every ContractGate::GlobalModel fork closed
// (globals keep arbitrary contents), or null when `p` has none.
std::shared_ptr<Program> withArbitraryGlobals(const Program& p);

// Contracts (README "Contracts"; ContractGate in core/cfa/cfa.h): a copy of `p` with
// every contract gate set for a run whose entry is `entry`, or null when `p` has no gate.
//  - `requires` checks: closed in the entry itself (its contract is assumed there), open
//    everywhere else (asserted at every call);
//  - leading __VERIFIER_assume checks: closed when the entry is `main` (a whole program:
//    SV-COMP's meaning, the assume cuts paths) and in the entry itself, open in every
//    other function when the entry is not `main` (a per-function run: the assume is the
//    callee's precondition, which its callers must establish);
//  - entry-only edges (the object of a `\valid(p + (0 .. n-1))` parameter): open in the
//    entry only.
// A recursive entry (called inside its closure) keeps its own checks open and its
// entry-only edges closed: a violation on its first invocation is then a finding that
// depends on the entry's inputs (latent), never a verdict `false` of its own.
std::shared_ptr<Program> withContracts(const Program& p, FuncId entry);
// Whether the entry model of `entry` (its harness and, for an entry other than `main`, the
// globals' model in the nondeterministic initialisation) leaves a pointer slot null at its
// depth bound: then a verdict covers only the inputs whose deeper pointers are null.
bool entryModelDepthBounded(const Program& p, FuncId entry);

// The global a recursive entry's harness sets while its first invocation checks nothing
// of its own leading assertions: this prefix and the entry's name.
inline constexpr const char* kEntryFirstPrefix = "$entry_first$";
// 1 while the entry's assumed leading assertions make their calls (withContracts)
inline const std::string kPreconditionPrefix = "$precondition$";

// The clauses of the entry's own contract that `p` (as withContracts set it) assumes,
// each as written with its place: "assert(s != NULL) (f.c:6)", "requires x < 10
// (f.c:3)". Empty for `main` (its leading assumes are C's, not a contract).
std::vector<std::string> assumedPreconditions(const Program& p, FuncId entry);

}  // namespace argus::cfa
