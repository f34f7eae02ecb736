#include "core/cfa/expr.h"

#include <stdexcept>
#include <string>

namespace argus::cfa {

namespace {

uint64_t maskOf(uint32_t width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

void checkWidth(uint32_t width, const char* what, uint32_t max = kMaxWidth) {
  if (width == 0 || width > max)
    throw std::invalid_argument(std::string(what) + ": width " + std::to_string(width) +
                                " is outside 1.." + std::to_string(max));
}

void checkOperand(const ExprPtr& e, const char* what) {
  if (!e) throw std::invalid_argument(std::string(what) + ": null operand");
}

bool isPredicate(BinOp op) {
  switch (op) {
    case BinOp::Eq: case BinOp::Ne: case BinOp::SLt: case BinOp::SLe: case BinOp::ULt:
    case BinOp::ULe: case BinOp::LAnd: case BinOp::LOr: case BinOp::FEq: case BinOp::FLt: case BinOp::FLe:
      return true;
    default:
      return false;
  }
}

void checkFloatWidth(uint32_t width, const char* what) {
  if (width != 32 && width != 64)
    throw std::invalid_argument(std::string(what) + ": floating-point operand width " + std::to_string(width) +
                                " is not 32 or 64");
}

std::shared_ptr<Expr> make(ExprKind k, uint32_t width) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->width = width;
  return e;
}

}  // namespace

ExprPtr Expr::mkConst(uint64_t v, uint32_t width) {
  checkWidth(width, "mkConst", 64);
  auto e = make(ExprKind::Const, width);
  e->value = v & maskOf(width);
  return e;
}

ExprPtr Expr::mkWideConst(Value v, uint32_t width) {
  checkWidth(width, "mkWideConst");
  v &= valueMask(width);
  if (width <= 64) return mkConst(static_cast<uint64_t>(v), width);
  uint64_t lo = static_cast<uint64_t>(v);
  if ((v >> 64) == 0) return mkCast(CastKind::ZExt, mkConst(lo, 64), width);
  Value sx = static_cast<Value>(static_cast<__int128>(static_cast<int64_t>(lo))) & valueMask(width);
  if (sx == v) return mkCast(CastKind::SExt, mkConst(lo, 64), width);
  ExprPtr hi = mkCast(CastKind::ZExt, mkConst(static_cast<uint64_t>(v >> 64), width - 64), width);
  ExprPtr shifted = mkBinary(BinOp::Shl, hi, mkWideConst(64, width));
  return mkBinary(BinOp::Or, shifted, mkCast(CastKind::ZExt, mkConst(lo, 64), width));
}

std::optional<Value> parseValue(const std::string& s) {
  if (s.empty()) return std::nullopt;
  Value v = 0;
  const Value limit = ~Value{0} / 10;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    unsigned d = static_cast<unsigned>(c - '0');
    if (v > limit || (v == limit && d > static_cast<unsigned>(~Value{0} % 10))) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::string valueToString(Value v, uint32_t width, bool isSigned) {
  v &= valueMask(width);
  bool neg = isSigned && width > 0 && ((v >> (width - 1)) & 1);
  if (neg) v = (~v + 1) & valueMask(width);
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return neg ? "-" + s : s;
}

ExprPtr Expr::mkVar(VarId v, uint32_t width) {
  checkWidth(width, "mkVar");
  auto e = make(ExprKind::Var, width);
  e->var = v;
  return e;
}

ExprPtr Expr::mkLoad(ExprPtr addr, uint32_t bytes) {
  checkOperand(addr, "mkLoad");
  if (bytes == 0 || bytes > kMaxWidth / 8)
    throw std::invalid_argument("mkLoad: " + std::to_string(bytes) + " bytes is outside 1..16");
  auto e = make(ExprKind::Load, 8 * bytes);
  e->ops = {std::move(addr)};
  return e;
}

ExprPtr Expr::mkUnary(UnOp op, ExprPtr a) {
  checkOperand(a, "mkUnary");
  if (isFloatOp(op)) checkFloatWidth(a->width, "mkUnary");
  auto e = make(ExprKind::Unary, a->width);
  e->unop = op;
  e->ops = {std::move(a)};
  return e;
}

ExprPtr Expr::mkBinary(BinOp op, ExprPtr a, ExprPtr b, uint32_t width) {
  checkOperand(a, "mkBinary");
  checkOperand(b, "mkBinary");
  if (a->width != b->width)
    throw std::invalid_argument(std::string("mkBinary(") + binOpName(op) + "): operand widths " +
                                std::to_string(a->width) + " and " + std::to_string(b->width) +
                                " differ");
  if (width == 0) {
    width = a->width;
  } else if (!isPredicate(op) && width != a->width) {
    throw std::invalid_argument(std::string("mkBinary(") + binOpName(op) + "): result width " +
                                std::to_string(width) + " differs from operand width " +
                                std::to_string(a->width));
  }
  checkWidth(width, "mkBinary");
  if (isFloatOp(op)) checkFloatWidth(a->width, "mkBinary");
  auto e = make(ExprKind::Binary, width);
  e->binop = op;
  e->ops = {std::move(a), std::move(b)};
  return e;
}

ExprPtr Expr::mkCast(CastKind k, ExprPtr a, uint32_t width) {
  checkOperand(a, "mkCast");
  checkWidth(width, "mkCast");
  if ((k == CastKind::ZExt || k == CastKind::SExt) && width < a->width)
    throw std::invalid_argument("mkCast: extension from " + std::to_string(a->width) + " to " +
                                std::to_string(width) + " bits");
  if (k == CastKind::Trunc && width > a->width)
    throw std::invalid_argument("mkCast: truncation from " + std::to_string(a->width) + " to " +
                                std::to_string(width) + " bits");
  if (k == CastKind::FToF || k == CastKind::FToS || k == CastKind::FToU) checkFloatWidth(a->width, "mkCast");
  if (k == CastKind::FToF || k == CastKind::SToF || k == CastKind::UToF) checkFloatWidth(width, "mkCast");
  auto e = make(ExprKind::Cast, width);
  e->cast = k;
  e->ops = {std::move(a)};
  return e;
}

ExprPtr Expr::convert(ExprPtr a, uint32_t width, bool isSigned) {
  checkOperand(a, "convert");
  checkWidth(width, "convert");
  if (a->width == width) return a;
  if (width < a->width) return mkCast(CastKind::Trunc, std::move(a), width);
  return mkCast(isSigned ? CastKind::SExt : CastKind::ZExt, std::move(a), width);
}

ExprPtr Expr::mkIte(ExprPtr c, ExprPtr t, ExprPtr e) {
  checkOperand(c, "mkIte");
  checkOperand(t, "mkIte");
  checkOperand(e, "mkIte");
  if (t->width != e->width)
    throw std::invalid_argument("mkIte: branch widths " + std::to_string(t->width) + " and " +
                                std::to_string(e->width) + " differ");
  auto r = make(ExprKind::Ite, t->width);
  r->ops = {std::move(c), std::move(t), std::move(e)};
  return r;
}

bool isFloatOp(UnOp op) { return op >= UnOp::FSqrt; }
bool isFloatOp(BinOp op) { return op >= BinOp::FAdd; }
bool isFloatOp(CastKind k) { return k >= CastKind::FToF; }

bool hasFloatOp(const Expr& e) {
  if (e.kind == ExprKind::Unary && isFloatOp(e.unop)) return true;
  if (e.kind == ExprKind::Binary && isFloatOp(e.binop)) return true;
  if (e.kind == ExprKind::Cast && isFloatOp(e.cast)) return true;
  for (const ExprPtr& o : e.ops)
    if (o && hasFloatOp(*o)) return true;
  return false;
}

const char* unOpName(UnOp op) {
  switch (op) {
    case UnOp::Neg: return "-";
    case UnOp::BitNot: return "~";
    case UnOp::LogNot: return "!";
    case UnOp::FSqrt: return "fsqrt ";
    case UnOp::FRint: return "frint ";
    case UnOp::FFloor: return "ffloor ";
    case UnOp::FCeil: return "fceil ";
    case UnOp::FTrunc: return "ftrunc ";
    case UnOp::FRound: return "fround ";
  }
  return "?";
}

const char* binOpName(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::SDiv: return "/s";
    case BinOp::UDiv: return "/u";
    case BinOp::SRem: return "%s";
    case BinOp::URem: return "%u";
    case BinOp::Shl: return "<<";
    case BinOp::LShr: return ">>u";
    case BinOp::AShr: return ">>s";
    case BinOp::And: return "&";
    case BinOp::Or: return "|";
    case BinOp::Xor: return "^";
    case BinOp::Eq: return "==";
    case BinOp::Ne: return "!=";
    case BinOp::SLt: return "<s";
    case BinOp::SLe: return "<=s";
    case BinOp::ULt: return "<u";
    case BinOp::ULe: return "<=u";
    case BinOp::LAnd: return "&&";
    case BinOp::LOr: return "||";
    case BinOp::FAdd: return "+f";
    case BinOp::FSub: return "-f";
    case BinOp::FMul: return "*f";
    case BinOp::FDiv: return "/f";
    case BinOp::FEq: return "==f";
    case BinOp::FLt: return "<f";
    case BinOp::FLe: return "<=f";
    case BinOp::FRem: return "remf";
  }
  return "?";
}

namespace {

// Constants print in decimal; values with the sign bit set (width > 1) print as the
// negative two's-complement value, which is what C code usually meant (-1, INT_MIN).
void constToString(std::string& out, uint64_t v, uint32_t width) {
  v &= maskOf(width);
  if (width > 1 && (v >> (width - 1)) & 1) {
    uint64_t mag = (~v + 1) & maskOf(width);  // |v| as an unsigned number
    out += '-';
    out += std::to_string(mag);
  } else {
    out += std::to_string(v);
  }
}

void toStringRec(std::string& out, const Expr& e, const std::vector<std::string>* names) {
  switch (e.kind) {
    case ExprKind::Const:
      constToString(out, e.value, e.width);
      return;
    case ExprKind::Var:
      if (names && e.var < names->size() && !(*names)[e.var].empty())
        out += (*names)[e.var];
      else
        out += "v" + std::to_string(e.var);
      return;
    case ExprKind::Load:
      out += "mem" + std::to_string(e.width) + "[";
      if (!e.ops.empty() && e.ops[0]) toStringRec(out, *e.ops[0], names);
      out += "]";
      return;
    case ExprKind::Unary:
      out += unOpName(e.unop);
      if (!e.ops.empty() && e.ops[0]) toStringRec(out, *e.ops[0], names);
      return;
    case ExprKind::Binary:
      out += "(";
      if (e.ops.size() > 0 && e.ops[0]) toStringRec(out, *e.ops[0], names);
      out += " ";
      out += binOpName(e.binop);
      out += " ";
      if (e.ops.size() > 1 && e.ops[1]) toStringRec(out, *e.ops[1], names);
      out += ")";
      return;
    case ExprKind::Cast:
      switch (e.cast) {
        case CastKind::ZExt: out += "zext"; break;
        case CastKind::SExt: out += "sext"; break;
        case CastKind::Trunc: out += "trunc"; break;
        case CastKind::ToBool: out += "bool"; break;
        case CastKind::FToF: out += "fcvt"; break;
        case CastKind::SToF: out += "sitof"; break;
        case CastKind::UToF: out += "uitof"; break;
        case CastKind::FToS: out += "ftosi"; break;
        case CastKind::FToU: out += "ftoui"; break;
      }
      out += std::to_string(e.width) + "(";
      if (!e.ops.empty() && e.ops[0]) toStringRec(out, *e.ops[0], names);
      out += ")";
      return;
    case ExprKind::Ite:
      out += "(";
      if (e.ops.size() > 0 && e.ops[0]) toStringRec(out, *e.ops[0], names);
      out += " ? ";
      if (e.ops.size() > 1 && e.ops[1]) toStringRec(out, *e.ops[1], names);
      out += " : ";
      if (e.ops.size() > 2 && e.ops[2]) toStringRec(out, *e.ops[2], names);
      out += ")";
      return;
  }
  out += "<?>";
}

}  // namespace

std::string toString(const ExprPtr& e, const std::vector<std::string>* varNames) {
  if (!e) return "<null>";
  std::string out;
  toStringRec(out, *e, varNames);
  return out;
}

}  // namespace argus::cfa
