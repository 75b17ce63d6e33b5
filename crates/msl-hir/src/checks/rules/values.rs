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
            Expr::Unary { op: op @ (UnaryOp::Neg | UnaryOp::Plus | UnaryOp::BitNot), expr } => {
                let Some(t) = sure(cx, *expr) else { continue };
                let sym = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Plus => "+",
                    _ => "~",
                };
                if plain_class(cx, &t, &format!("operator{sym}")) {
                    let at = cx.range(id);
                    cx.report(Rule::OperandTypes, at, format!("unary `{sym}` is not defined for `{t}`"))
                        .hint("apply it to the members, or declare the operator for the class");
                } else if *op == UnaryOp::BitNot && floating(&t) {
                    let at = cx.range(id);
                    cx.report(Rule::OperandTypes, at, format!("`~` needs an integer, not `{t}`"))
                        .hint("for a complement of a fraction, write `1.0 - x`");
                }
            }
            Expr::Unary { op: UnaryOp::AddrOf, expr } if temporary(cx, *expr) => {
                let at = cx.range(id);
                cx.report(Rule::NotAssignable, at, "`&` needs an object with an address, not a temporary value")
                    .hint("store the value in a local variable and take that variable's address");
            }
            Expr::Binary { op: op @ (BinaryOp::And | BinaryOp::Or), lhs, rhs } => {
                let sym = op.symbol();
                for side in [*lhs, *rhs] {
                    if let Some(t) = sure(cx, side).filter(|t| plain_class(cx, t, &format!("operator{sym}"))) {
                        let at = cx.range(side);
                        cx.report(
                            Rule::OperandTypes,
                            at,
                            format!("`{sym}` needs operands that convert to `bool`, not `{t}`"),
                        )
                        .hint("test one of its members");
                    }
                }
            }
            Expr::Conditional { then, other, .. } => {
                let (Some(a), Some(b)) = (sure(cx, *then), sure(cx, *other)) else { continue };
                let (sa, sb) = (a.strip(), b.strip());
                let mismatch = match (sa.kind(), sb.kind()) {
                    (TyKind::Vector { len: x, .. }, TyKind::Vector { len: y, .. }) => x != y,
                    (TyKind::Class { def: x, .. }, TyKind::Class { def: y, .. }) => {
                        x != y && plain_class(cx, &a, "operator=") && plain_class(cx, &b, "operator=")
                    }
                    (TyKind::Class { .. }, _) if numeric(&b) => plain_class(cx, &a, "operator="),
                    (_, TyKind::Class { .. }) if numeric(&a) => plain_class(cx, &b, "operator="),
                    _ => false,
                };
                if mismatch && !class_with_constructors(cx, &a) && !class_with_constructors(cx, &b) {
                    let at = cx.range(id);
                    cx.report(
                        Rule::OperandTypes,
                        at,
                        format!("the two results of `?:` have unrelated types, `{a}` and `{b}`"),
                    )
                    .hint("convert one of them so that both have the same type");
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
    initializations(cx);
}

/// E1702: a pointer initialized with an object of a class (its address was meant), a
/// number initialized with a library object that converts to none (`simd_vote`, textures,
/// samplers: MSL 4.1 section 6.9.2 makes `simd_vote`'s conversion explicit).
fn initializations(cx: &mut RuleCx) {
    let mut found = Vec::new();
    for (i, l) in cx.body.locals.iter().enumerate() {
        let Some(init) = l.init else { continue };
        if !matches!(l.kind, crate::body::LocalKind::Var) || !cx.decided(init) {
            continue;
        }
        let Some(target) = cx.infer.local_types.get(i).filter(|t| !t.is_uncertain()) else { continue };
        let Some(value) = sure(cx, init) else { continue };
        let bad = match (target.strip().kind(), value.strip().kind()) {
            (TyKind::Pointer { pointee, .. }, TyKind::Class { .. }) => {
                plain_class(cx, &value, "operator") && pointee.strip() == value.strip()
            }
            (TyKind::Scalar(_) | TyKind::Vector { .. }, TyKind::Library { name, .. }) => {
                *name == "simd_vote" || *name == "sampler" || name.starts_with("texture") || name.starts_with("depth")
            }
            _ => false,
        };
        if bad {
            found.push((i, init, target.clone(), value));
        }
    }
    for (i, init, target, value) in found {
        let name = cx.body.locals[i].name.clone();
        let at = cx.range(init);
        let report =
            cx.report(Rule::NoConversion, at, format!("`{name}` is a `{target}`; a `{value}` does not convert to it"));
        if target.is_pointer() {
            report.hint("take the object's address with `&`").fix(crate::checks::Fix::replace(
                "Take the address".into(),
                msl_syntax::TextRange::empty(at.start()),
                "&",
            ));
        } else {
            report.hint(format!("convert it explicitly: `{target}(...)`"));
        }
    }
}

/// The type of `e` when it is sure.
fn sure(cx: &RuleCx, e: ExprId) -> Option<Ty> {
    let t = cx.infer.type_of(e).non_reference();
    (!t.is_uncertain()).then_some(t)
}

fn numeric(t: &Ty) -> bool {
    matches!(t.strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. })
}

/// A floating-point scalar or vector.
fn floating(t: &Ty) -> bool {
    match t.strip().kind() {
        TyKind::Scalar(s) => s.is_float(),
        TyKind::Vector { elem, .. } => elem.is_float(),
        _ => false,
    }
}

/// A class of the unit with constructors (which may convert other types to it).
fn class_with_constructors(cx: &RuleCx, t: &Ty) -> bool {
    let stripped = t.strip();
    let TyKind::Class { def, .. } = stripped.kind() else { return false };
    let d = cx.defs.def(*def);
    let DefKind::Class { inner, .. } = &d.kind else { return true };
    !cx.defs.lookup_in(*inner, &d.name).is_empty()
}

/// A value that has no address: arithmetic on numbers, a literal other than a string.
fn temporary(cx: &RuleCx, e: ExprId) -> bool {
    match cx.body.exprs.get(e.0 as usize) {
        // the built-in operators on numbers give values, not objects
        Some(Expr::Binary { lhs, rhs, .. }) => {
            sure(cx, e).is_some_and(|t| numeric(&t))
                && [*lhs, *rhs].iter().all(|o| sure(cx, *o).is_some_and(|t| numeric(&t)))
        }
        Some(Expr::Literal(l)) => !matches!(l, crate::body::Literal::String),
        _ => false,
    }
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
        TyKind::Class { .. } if plain_class(cx, &b, "operator[]") => {
            let at = cx.range(id);
            cx.report(Rule::OperandTypes, at, format!("`[]` is not defined for `{b}`"))
                .hint("index an array or a buffer of it, or declare an `operator[]` for the class");
        }
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
    // a data member of a number type, called
    if let Some(Expr::Member { name, .. }) = cx.body.exprs.get(callee.0 as usize)
        && let Some(Resolution::Def(d)) = cx.infer.resolutions.get(&callee)
        && matches!(cx.defs.def(*d).kind, DefKind::Field(_))
        && let Some(t) = sure(cx, callee).filter(numeric)
    {
        let name = name.clone();
        let at = cx.range(id);
        cx.report(Rule::NotCallable, at, format!("`{name}` is a data member of type `{t}`, not a function"))
            .hint(format!("use the value `{name}` without `(...)`"));
        return;
    }
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
            && (matches!(t.strip().kind(), TyKind::Vector { .. } | TyKind::Matrix { .. })
                || plain_class(cx, &t, "operator bool"))
        {
            found.push((c, t));
        }
    }
    for (c, t) in found {
        let at = cx.range(c);
        let bools = matches!(t.strip().kind(), TyKind::Vector { elem, .. } if elem.name() == "bool");
        let hint = if bools {
            "reduce it to one `bool` with `all(...)` or `any(...)`"
        } else if matches!(t.strip().kind(), TyKind::Class { .. }) {
            "test one of its members"
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
