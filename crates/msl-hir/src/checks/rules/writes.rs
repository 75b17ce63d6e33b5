//! Writes (C++17 [expr.ass]/1, [expr.pre.incr], [expr.post.incr]): what is assigned to,
//! incremented or decremented must be a modifiable lvalue.
//! - A temporary value of a builtin type (the result of arithmetic, of a function that
//!   returns by value, a literal, a conversion) is no lvalue: E1715. Temporaries of class
//!   type are left alone, since a class's `operator=` may be called on them.
//! - An lvalue reached through a reference or pointer to `const`, a member of a `const`
//!   object, or a member written in a `const` member function is not modifiable
//!   ([dcl.type.cv]/4, [class.this]): E1704. Plain `const` variables and the `constant`
//!   address space are the syntax checks' (E1704, E1601).

use super::{Rule, RuleCx};
use crate::body::{Expr, ExprId, LocalKind, UnaryOp};
use crate::defs::DefKind;
use crate::infer::Resolution;
use crate::ty::{AddressSpace, TyKind, TypeBase, TypeRefOp};

/// Why an expression cannot be written.
pub(super) enum NotWritable {
    /// A temporary: what it is.
    Temporary(&'static str),
    /// A `const` lvalue: why.
    Const(String),
}

pub(super) fn check(cx: &mut RuleCx) {
    if cx.infer.in_template {
        return;
    }
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let id = ExprId(i as u32);
        let (target, verb) = match e {
            Expr::Assign { lhs, .. } => (*lhs, "assign to"),
            Expr::Unary { op: UnaryOp::PreInc | UnaryOp::PostInc, expr } => (*expr, "increment"),
            Expr::Unary { op: UnaryOp::PreDec | UnaryOp::PostDec, expr } => (*expr, "decrement"),
            _ => continue,
        };
        if !cx.decided(id) {
            continue;
        }
        match not_writable(cx, target, 0) {
            Some(NotWritable::Temporary(what)) => {
                let at = cx.range(target);
                cx.report(
                    Rule::NotAssignable,
                    at,
                    format!("cannot {verb} {what}: it is a temporary value, not an object"),
                )
                .hint("write to a variable, a parameter, an element or a member");
            }
            Some(NotWritable::Const(why)) => {
                let at = cx.range(target);
                cx.report(Rule::ConstWrite, at, format!("cannot {verb} here: {why}"))
                    .hint("drop the `const` where it is declared, or write the new value into a variable of your own");
            }
            None => {}
        }
    }
}

/// Whether the type of `e` is a number or a pointer (whose temporaries no operator can
/// assign to).
fn builtin(cx: &RuleCx, e: ExprId) -> bool {
    let t = cx.infer.type_of(e);
    if t.is_uncertain() {
        return false;
    }
    matches!(
        t.non_reference().strip().kind(),
        TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. } | TyKind::Pointer { .. }
    )
}

pub(super) fn not_writable(cx: &RuleCx, e: ExprId, depth: u32) -> Option<NotWritable> {
    if depth > 16 {
        return None;
    }
    match cx.body.exprs.get(e.0 as usize)? {
        Expr::Literal(_) => Some(NotWritable::Temporary("a literal")),
        Expr::Binary { lhs, rhs, .. } if builtin(cx, *lhs) && builtin(cx, *rhs) && builtin(cx, e) => {
            Some(NotWritable::Temporary("the result of an operator"))
        }
        Expr::Unary { op: UnaryOp::Neg | UnaryOp::Plus | UnaryOp::Not | UnaryOp::BitNot, expr }
            if builtin(cx, *expr) && builtin(cx, e) =>
        {
            Some(NotWritable::Temporary("the result of an operator"))
        }
        Expr::Unary { op: UnaryOp::PostInc | UnaryOp::PostDec, expr } if builtin(cx, *expr) => {
            Some(NotWritable::Temporary("the result of a postfix `++` or `--`"))
        }
        Expr::Unary { op: UnaryOp::AddrOf, expr } if builtin(cx, e) && !class_typed(cx, *expr) => {
            Some(NotWritable::Temporary("an address"))
        }
        Expr::Call { callee, .. } if builtin(cx, e) && returns_value(cx, *callee) => {
            Some(NotWritable::Temporary("the result of a call"))
        }
        Expr::Construct { ty, .. } if ty.ops.is_empty() && builtin(cx, e) => {
            Some(NotWritable::Temporary("a value built from a type"))
        }
        Expr::Cast { ty, .. } if ty.ops.iter().all(|o| !matches!(o, TypeRefOp::Reference { .. })) && builtin(cx, e) => {
            Some(NotWritable::Temporary("the result of a conversion"))
        }
        Expr::Local(l) => {
            let local = cx.body.locals.get(l.0 as usize)?;
            if !matches!(local.kind, LocalKind::Param | LocalKind::Var) {
                return None;
            }
            let ty = &local.ty;
            // a reference to const (not to `constant` memory: E1601 is about that)
            (matches!(ty.ops.as_slice(), [TypeRefOp::Reference { rvalue: false }])
                && ty.cv.is_const
                && ty.space != Some(AddressSpace::Constant)
                && !matches!(ty.base, TypeBase::Auto))
            .then(|| NotWritable::Const(format!("`{}` is a reference to `const`", local.name)))
        }
        Expr::Path(_) => {
            // a field of the class in one of its `const` member functions
            let Some(Resolution::Def(d)) = cx.infer.resolutions.get(&e) else { return None };
            if matches!(cx.defs.def(*d).kind, DefKind::Field(_)) && in_const_member(cx) {
                Some(NotWritable::Const(format!(
                    "`{}` is a member, and this member function is `const`",
                    cx.defs.def(*d).name
                )))
            } else {
                None
            }
        }
        Expr::Member { base, arrow: false, name, .. }
            if matches!(cx.infer.resolutions.get(&e), Some(Resolution::Swizzle))
                && matches!(cx.infer.type_of(*base).non_reference().strip().kind(), TyKind::Vector { .. }) =>
        {
            // components of a vector that is `const` here
            match not_writable(cx, *base, depth + 1) {
                Some(NotWritable::Const(_)) => {
                    Some(NotWritable::Const(format!("`.{name}` selects components of a vector that is `const` here")))
                }
                _ => None,
            }
        }
        Expr::Member { base, arrow, name, .. } => {
            if !field(cx, e) {
                return None;
            }
            if *arrow {
                if matches!(cx.body.exprs.get(base.0 as usize), Some(Expr::This)) {
                    return in_const_member(cx).then(|| {
                        NotWritable::Const(format!("`{name}` is a member, and this member function is `const`"))
                    });
                }
                return const_pointee(cx, *base)
                    .then(|| NotWritable::Const(format!("`{name}` is reached through a pointer to `const`")));
            }
            match not_writable(cx, *base, depth + 1) {
                Some(NotWritable::Const(_)) => {
                    Some(NotWritable::Const(format!("`{name}` is a member of an object that is `const` here")))
                }
                _ => None,
            }
        }
        Expr::Index { base, .. } => {
            let t = cx.infer.type_of(*base);
            if t.is_uncertain() {
                return None;
            }
            match t.non_reference().strip().kind() {
                TyKind::Pointer { .. } => const_pointee(cx, *base)
                    .then(|| NotWritable::Const("the element is reached through a pointer to `const`".into())),
                TyKind::Array { .. } | TyKind::Vector { .. } => match not_writable(cx, *base, depth + 1) {
                    Some(NotWritable::Const(_)) => {
                        Some(NotWritable::Const("the element belongs to an object that is `const` here".into()))
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        Expr::Unary { op: UnaryOp::Deref, expr } => {
            const_pointee(cx, *expr).then(|| NotWritable::Const("it is reached through a pointer to `const`".into()))
        }
        _ => None,
    }
}

/// Whether `e` is a pointer to `const` (not into the `constant` address space).
fn const_pointee(cx: &RuleCx, e: ExprId) -> bool {
    let t = cx.infer.type_of(e);
    if t.is_uncertain() {
        return false;
    }
    match t.non_reference().strip().kind() {
        TyKind::Pointer { cv, space, pointee } => {
            cv.is_const && *space != Some(AddressSpace::Constant) && !pointee.is_uncertain()
        }
        _ => false,
    }
}

/// Whether the member expression `e` names a data member of a class of the unit (not a
/// library member, a swizzle or a method).
fn field(cx: &RuleCx, e: ExprId) -> bool {
    matches!(cx.infer.resolutions.get(&e), Some(Resolution::Def(d)) if matches!(cx.defs.def(*d).kind, DefKind::Field(_)))
}

fn class_typed(cx: &RuleCx, e: ExprId) -> bool {
    matches!(cx.infer.type_of(e).non_reference().strip().kind(), TyKind::Class { .. })
}

/// Whether the function is a `const` member function.
fn in_const_member(cx: &RuleCx) -> bool {
    let Some(d) = cx.def else { return false };
    cx.defs.owner_class(d).is_some()
        && matches!(&cx.defs.def(d).kind, DefKind::Function(f) if f.is_const && !f.is_static)
}

/// Whether a call's callee is a function that returns by value: a function of the unit
/// whose return type is written without `&` (and not deduced), or a library function.
fn returns_value(cx: &RuleCx, callee: ExprId) -> bool {
    match cx.infer.resolutions.get(&callee) {
        Some(Resolution::Def(d)) => match &cx.defs.def(*d).kind {
            DefKind::Function(f) => f.ret.as_ref().is_some_and(|r| {
                !matches!(r.base, TypeBase::Auto | TypeBase::Decltype(_))
                    && r.ops.iter().all(|o| !matches!(o, TypeRefOp::Reference { .. }))
            }),
            _ => false,
        },
        Some(Resolution::Library(_)) => true,
        _ => false,
    }
}
