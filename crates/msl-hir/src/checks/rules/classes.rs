//! Classes (C++17 [class.access], [class.static], [class.mfct.non-static], [over.match.funcs];
//! MSL 4.1 §4 for the address space of `this`), on members the model resolved:
//! - a `private` or `protected` member named outside its class (the class declares no
//!   friends, and the function is a member of no class): E1720;
//! - a non-static member named in a `static` member function, which has no object, or a
//!   non-static member function called through its class's name from outside the class:
//!   E1721;
//! - a member function that is not `const` called on a `const` object, when no overload of
//!   that name is `const`: E1722.

use super::writes::{NotWritable, not_writable};
use super::{Rule, RuleCx};
use crate::body::{Expr, ExprId, LocalKind};
use crate::defs::DefKind;
use crate::infer::Resolution;
use crate::ty::DefId;

pub(super) fn check(cx: &mut RuleCx) {
    if cx.infer.in_template {
        return;
    }
    let Some(me) = cx.def else { return };
    let my_class = cx.defs.owner_class(me);
    let me_static = matches!(&cx.defs.def(me).kind, DefKind::Function(f) if f.is_static);
    let mut reports: Vec<(Rule, ExprId, String, String)> = Vec::new();
    let callees: rustc_hash::FxHashSet<ExprId> = cx
        .body
        .exprs
        .iter()
        .filter_map(|x| match x {
            Expr::Call { callee, .. } => Some(*callee),
            _ => None,
        })
        .collect();
    let called = |e: ExprId| callees.contains(&e);
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let id = ExprId(i as u32);
        if !cx.decided(id) {
            continue;
        }
        let named = match e {
            Expr::Member { .. } | Expr::Path(_) => match cx.infer.resolutions.get(&id) {
                Some(Resolution::Def(d)) => *d,
                _ => continue,
            },
            _ => continue,
        };
        let Some(class) = cx.defs.owner_class(named) else { continue };
        let member = cx.defs.def(named).name.clone();
        let class_name = cx.defs.qualified_name(class);
        // access
        if cx.defs.is_non_public(named)
            && my_class.is_none()
            && !cx.defs.befriended.contains(&class)
            && !inside(cx, me, class)
        {
            reports.push((
                Rule::Inaccessible,
                id,
                format!("`{member}` is not accessible here: `{class_name}` does not make it public"),
                format!("use a public member of `{class_name}`, or declare `{member}` after `public:`"),
            ));
            continue;
        }
        let instance_member = match &cx.defs.def(named).kind {
            DefKind::Field(_) => true,
            DefKind::Function(f) => !f.is_static && f.ret.is_some(),
            _ => false,
        };
        // a non-static member without an object
        if let Expr::Path(p) = e
            && instance_member
        {
            if me_static && my_class == Some(class) && p.segments.len() == 1 {
                reports.push((
                    Rule::NoObject,
                    id,
                    format!(
                        "`{member}` is a non-static member: a static member function has no object to take it from"
                    ),
                    format!("pass the object as a parameter, or make `{member}` static"),
                ));
            } else if my_class.is_none() && p.segments.len() > 1 && called(id) {
                reports.push((
                    Rule::NoObject,
                    id,
                    format!("`{class_name}::{member}` is a non-static member function: it is called on an object"),
                    format!("call it on an object (`value.{member}(...)`), or declare it `static`"),
                ));
            }
        }
        // a member function of the class called without an object in a `const` member
        // function: on `*this`, which is `const` there
        if let Expr::Path(p) = e
            && p.segments.len() == 1
            && called(id)
            && my_class == Some(class)
            && let DefKind::Function(f) = &cx.defs.def(named).kind
            && !f.is_static
            && !f.is_const
            && f.ret.is_some()
            && matches!(&cx.defs.def(me).kind, DefKind::Function(mine) if mine.is_const)
            && methods(cx, class, &member).iter().all(|c| !c)
        {
            reports.push((
                Rule::ObjectQualifiers,
                id,
                format!("`{member}` is not a `const` member function: a `const` member function cannot call it on its object"),
                format!("declare `{member}` `const` if it does not change the object, or drop `const` from this function"),
            ));
        }
        // a deleted function chosen by a call
        if called(id)
            && let DefKind::Function(f) = &cx.defs.def(named).kind
            && f.deleted
        {
            reports.push((
                Rule::DeletedFunction,
                id,
                format!("the overload of `{member}` these arguments choose is deleted"),
                format!("convert the arguments so that another overload of `{member}` is chosen"),
            ));
        }
        // a member function named but not called
        if let Expr::Member { .. } = e
            && !called(id)
            && matches!(&cx.defs.def(named).kind, DefKind::Function(f) if f.ret.is_some())
            && used_as_operand(cx, id)
        {
            reports.push((
                Rule::OperandTypes,
                id,
                format!("`{member}` is a member function: it must be called to give a value"),
                format!("write `{member}()`"),
            ));
        }
        // the object a member function is called on
        if let Expr::Member { base, arrow, name, .. } = e
            && called(id)
            && let DefKind::Function(f) = &cx.defs.def(named).kind
            && !f.is_static
            && f.ret.is_some()
        {
            let overloads = methods(cx, class, name);
            if !*arrow && const_object(cx, *base) && !f.is_const && overloads.iter().all(|c| !c) {
                reports.push((
                    Rule::ObjectQualifiers,
                    id,
                    format!("`{name}` is not a `const` member function: it cannot be called on a `const` object"),
                    format!("declare `{name}` `const` (after its parameters) if it does not change the object"),
                ));
            }
        }
    }
    for (rule, id, message, hint) in reports {
        let at = name_range(cx, id);
        cx.report(rule, at, message).hint(hint);
    }
}

/// The range of the member's name the expression `id` ends with.
fn name_range(cx: &RuleCx, id: ExprId) -> msl_syntax::TextRange {
    match cx.body.exprs.get(id.0 as usize) {
        Some(Expr::Member { name, .. }) => cx.name_range(id, name),
        Some(Expr::Path(p)) => cx.name_range(id, p.segments.last().map_or("", |s| &*s.name)),
        _ => cx.range(id),
    }
}

/// Whether a definition lies inside `class` (a member, or a member of a nested class).
fn inside(cx: &RuleCx, def: DefId, class: DefId) -> bool {
    let Some(inner) = cx.defs.inner_scope(class) else { return false };
    cx.defs.enclosing_scopes(cx.defs.def(def).scope).any(|s| s == inner)
}

/// The member functions named `name` of `class`: whether each can be called on a `const`
/// object.
fn methods(cx: &RuleCx, class: DefId, name: &str) -> Vec<bool> {
    let Some(inner) = cx.defs.inner_scope(class) else { return Vec::new() };
    cx.defs
        .lookup_in(inner, name)
        .into_iter()
        .filter_map(|d| match &cx.defs.def(d).kind {
            DefKind::Function(f) => Some(f.is_const || f.is_static),
            _ => None,
        })
        .collect()
}

/// Whether `e` designates a `const` object: a variable declared `const`, what a reference or
/// pointer to `const` designates, or a member of such an object.
fn const_object(cx: &RuleCx, e: ExprId) -> bool {
    if let Some(Expr::Local(l)) = cx.body.exprs.get(e.0 as usize)
        && let Some(local) = cx.body.locals.get(l.0 as usize)
        && matches!(local.kind, LocalKind::Var | LocalKind::Param)
        && local.ty.ops.is_empty()
        && local.ty.cv.is_const
    {
        return true;
    }
    matches!(not_writable(cx, e, 0), Some(NotWritable::Const(_)))
}

/// Whether `e` is an operand of an arithmetic, comparison or logical operator.
fn used_as_operand(cx: &RuleCx, e: ExprId) -> bool {
    cx.body.exprs.iter().any(|x| match x {
        Expr::Binary { lhs, rhs, .. } => *lhs == e || *rhs == e,
        Expr::Unary { op, expr } => *expr == e && !matches!(op, crate::body::UnaryOp::AddrOf),
        _ => false,
    })
}
