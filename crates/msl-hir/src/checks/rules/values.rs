//! What operators, conditions and calls require of their operands, where the operand's
//! type is sure and is a number, a pointer or a class of the unit without operators:
//! - `*e` needs a pointer ([expr.unary.op]/1); `a[i]` needs an array, a pointer or a
//!   vector, and an integer (or unscoped enumeration) index ([expr.sub]; MSL 4.1 §2.2 for
//!   vector components); `!e` and `==` need operands that convert to `bool` or are
//!   numbers or pointers ([expr.unary.op]/9, [expr.eq]); a pointer compares with a
//!   pointer, not with a floating-point value: E1703.
//! - an `if`, `while`, `do` or `for` condition must convert to `bool`
//!   ([stmt.select]/4): a vector does not (a comparison of vectors gives a vector of
//!   `bool`, reduced with `all` or `any`): E1716.
//! - only a function or an object with `operator()` can be called ([expr.call]): E1717.
//! - the result of a call to a `void` function has no value: it cannot initialize a
//!   variable or be an operand ([basic.fundamental]/9): E1718.
//! - `as_type<T>(x)` reinterprets the bytes of `x` as `T`: both must have the same size
//!   (MSL 4.1 §2.19; a three-component vector takes the size of four): E1719.

use super::{Rule, RuleCx};
use crate::body::{BinaryOp, Expr, ExprId, Stmt, UnaryOp};
use crate::defs::DefKind;
use crate::infer::Resolution;
use crate::ty::{Ty, TyKind};

pub(super) fn check(cx: &mut RuleCx) {
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let id = ExprId(i as u32);
        if !cx.decided(id) {
            continue;
        }
        match e {
            Expr::Unary { op: UnaryOp::Deref, expr } => {
                let t = sure(cx, *expr);
                if let Some(t) = t.filter(numeric) {
                    let at = cx.range(id);
                    cx.report(Rule::OperandTypes, at, format!("`*` needs a pointer, not `{t}`"))
                        .hint("use the value itself, or declare it as a pointer");
                }
            }
            Expr::Unary { op: UnaryOp::Not, expr } => {
                if let Some(t) = sure(cx, *expr).filter(|t| plain_class(cx, t, "operator!")) {
                    let at = cx.range(id);
                    cx.report(Rule::OperandTypes, at, format!("`!` needs a value that converts to `bool`, not `{t}`"))
                        .hint("test one of its members");
                }
            }
            Expr::Index { base, index } => index_operands(cx, id, *base, *index),
            Expr::Binary { op: op @ (BinaryOp::Eq | BinaryOp::Ne), lhs, rhs } => {
                let (Some(l), Some(r)) = (sure(cx, *lhs), sure(cx, *rhs)) else { continue };
                let sym = op.symbol();
                let class = [&l, &r].into_iter().find(|t| plain_class(cx, t, &format!("operator{sym}")));
                if let Some(t) = class {
                    let at = cx.range(id);
                    cx.report(Rule::OperandTypes, at, format!("`{sym}` is not defined for `{t}`"))
                        .hint("compare the members, or declare an `operator==` for the class");
                } else if (l.is_pointer() && floating_scalar(&r)) || (r.is_pointer() && floating_scalar(&l)) {
                    let at = cx.range(id);
                    cx.report(Rule::OperandTypes, at, format!("`{sym}` cannot compare `{l}` with `{r}`"))
                        .hint("compare the value the pointer points to (`*p`)");
                }
            }
            Expr::Call { callee, .. } => calls(cx, id, *callee),
            _ => {}
        }
    }
    conditions(cx);
    void_initializers(cx);
}

/// The type of `e` when it is sure.
fn sure(cx: &RuleCx, e: ExprId) -> Option<Ty> {
    let t = cx.infer.type_of(e).non_reference();
    (!t.is_uncertain()).then_some(t)
}

fn numeric(t: &Ty) -> bool {
    matches!(t.strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. })
}

fn floating_scalar(t: &Ty) -> bool {
    matches!(t.strip().kind(), TyKind::Scalar(s) if s.is_float())
}

/// A class of the unit that surely has no operator `op` nor a conversion: defined, not a
/// template, no bases, no operators among its members, and no function of the unit named
/// `op` (a free operator may take it).
fn plain_class(cx: &RuleCx, t: &Ty, op: &str) -> bool {
    let stripped = t.strip();
    let TyKind::Class { def, args, .. } = stripped.kind() else { return false };
    if !args.is_empty() {
        return false;
    }
    let d = cx.defs.def(*def);
    let DefKind::Class { inner, bases, defined, .. } = &d.kind else { return false };
    if !defined || !bases.is_empty() || d.generics.is_some() {
        return false;
    }
    let members_have_operators = cx.defs.scope(*inner).names.keys().any(|n| n.starts_with("operator"));
    let free_operator = cx.defs.named(op).into_iter().any(|d| matches!(cx.defs.def(d).kind, DefKind::Function(_)));
    !members_have_operators && !free_operator
}

/// `a[i]`: the base must be an array, a pointer or a vector, the index an integer.
fn index_operands(cx: &mut RuleCx, id: ExprId, base: ExprId, index: ExprId) {
    let Some(b) = sure(cx, base) else { return };
    match b.strip().kind() {
        TyKind::Scalar(_) => {
            let at = cx.range(id);
            cx.report(Rule::OperandTypes, at, format!("`[]` needs an array, a pointer or a vector, not `{b}`"))
                .hint("index the buffer the value came from, or declare it as an array");
        }
        TyKind::Array { .. } | TyKind::Pointer { .. } | TyKind::Vector { .. } => {
            let Some(i) = sure(cx, index) else { return };
            let bad = match i.strip().kind() {
                TyKind::Scalar(s) => s.is_float(),
                TyKind::Vector { .. } | TyKind::Matrix { .. } | TyKind::Pointer { .. } => true,
                TyKind::Class { .. } => plain_class(cx, &i, "operator int"),
                _ => false,
            };
            if bad {
                let at = cx.range(index);
                cx.report(Rule::OperandTypes, at, format!("an index must be an integer, not `{i}`"))
                    .hint("convert it, for example with `uint(...)`");
            }
        }
        _ => {}
    }
}

/// A call of something that is no function: a local or a parameter of a number, pointer
/// or plain-class type.
fn calls(cx: &mut RuleCx, id: ExprId, callee: ExprId) {
    let Some(Expr::Local(l)) = cx.body.exprs.get(callee.0 as usize) else { return };
    let Some(t) = sure(cx, callee) else { return };
    let callable = match t.strip().kind() {
        TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. } => false,
        TyKind::Pointer { pointee, .. } => !numeric(pointee),
        TyKind::Class { .. } => !plain_class(cx, &t, "operator()"),
        _ => true,
    };
    if callable {
        return;
    }
    let name = cx.body.locals.get(l.0 as usize).map(|l| l.name.clone()).unwrap_or_default();
    let at = cx.range(id);
    cx.report(Rule::NotCallable, at, format!("`{name}` is a `{t}`, not a function: it cannot be called"))
        .hint(format!("a local named `{name}` hides any function of that name; rename one of them"));
}

/// Conditions of statements that are vectors.
fn conditions(cx: &mut RuleCx) {
    let mut found = Vec::new();
    for s in &cx.body.stmts {
        let cond = match s {
            Stmt::If { cond, .. } | Stmt::While { cond, .. } | Stmt::Do { cond, .. } | Stmt::For { cond, .. } => *cond,
            _ => None,
        };
        let Some(c) = cond else { continue };
        if !cx.decided(c) {
            continue;
        }
        if let Some(t) = sure(cx, c)
            && matches!(t.strip().kind(), TyKind::Vector { .. } | TyKind::Matrix { .. })
        {
            found.push((c, t));
        }
    }
    for (c, t) in found {
        let at = cx.range(c);
        let bools = matches!(t.strip().kind(), TyKind::Vector { elem, .. } if elem.name() == "bool");
        let hint = if bools {
            "reduce it to one `bool` with `all(...)` or `any(...)`"
        } else {
            "compare it, or reduce it with `all(...)` or `any(...)`"
        };
        cx.report(Rule::ConditionType, at, format!("a condition must be a single `bool`, not `{t}`")).hint(hint);
    }
}

/// Variables initialized with the result of a call to a `void` function of the unit.
fn void_initializers(cx: &mut RuleCx) {
    let mut found = Vec::new();
    for (i, l) in cx.body.locals.iter().enumerate() {
        let Some(init) = l.init else { continue };
        let Some(Expr::Call { callee, .. }) = cx.body.exprs.get(init.0 as usize) else { continue };
        if !cx.decided(init) {
            continue;
        }
        let Some(Resolution::Def(d)) = cx.infer.resolutions.get(callee) else { continue };
        let DefKind::Function(f) = &cx.defs.def(*d).kind else { continue };
        let returns_void = f
            .ret
            .as_ref()
            .is_some_and(|r| r.ops.is_empty() && matches!(&r.base, crate::ty::TypeBase::Builtin(b) if &**b == "void"));
        if returns_void && matches!(cx.infer.type_of(init).strip().kind(), TyKind::Void) {
            found.push((i, init, cx.defs.def(*d).name.clone()));
        }
    }
    for (i, init, name) in found {
        let local = cx.body.locals[i].name.clone();
        let at = cx.range(init);
        cx.report(Rule::VoidValue, at, format!("`{name}` returns `void`: it gives no value to initialize `{local}`"))
            .hint(format!("make `{name}` return the value, or call it on its own line"));
    }
}

/// `as_type<T>(x)` between types of different sizes.
pub(super) fn as_type_sizes(cx: &mut RuleCx) {
    let mut found = Vec::new();
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let Expr::Call { callee, args } = e else { continue };
        let [arg] = args.as_slice() else { continue };
        let Some(Expr::Path(p)) = cx.body.exprs.get(callee.0 as usize) else { continue };
        let is_as_type = p.segments.last().is_some_and(|s| &*s.name == "as_type" && s.args.is_some())
            && matches!(cx.infer.resolutions.get(callee), Some(Resolution::Library(_)) | None);
        let id = ExprId(i as u32);
        if !is_as_type || !cx.decided(id) || !cx.defs.named("as_type").is_empty() {
            continue;
        }
        let (Some(to), Some(from)) = (sure(cx, id), sure(cx, *arg)) else { continue };
        let (Some(a), Some(b)) = (byte_size(&to), byte_size(&from)) else { continue };
        if a != b {
            found.push((id, to, a, from, b));
        }
    }
    for (id, to, a, from, b) in found {
        let at = cx.range(id);
        cx.report(Rule::AsTypeSize, at, format!("`as_type` cannot turn `{from}` ({b} bytes) into `{to}` ({a} bytes)"))
            .hint("both types must have the same size; convert the value instead (`T(x)`) to change its type");
    }
}

/// The size of a scalar or vector in bytes (a three-component vector takes four
/// components' room unless packed).
fn byte_size(t: &Ty) -> Option<u32> {
    match t.strip().kind() {
        TyKind::Scalar(s) => Some(s.size()),
        TyKind::Vector { elem, len, packed } => {
            let n = if *len == 3 && !*packed { 4 } else { u32::from(*len) };
            Some(elem.size() * n)
        }
        _ => None,
    }
}
