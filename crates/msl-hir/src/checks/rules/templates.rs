//! Templates and calls (C++17 [temp.arg], [temp.deduct], [over.match]):
//! - a class template named with more arguments than it has parameters, fewer than those
//!   without defaults, or a literal value for a type parameter or a type keyword for a
//!   value parameter; a function template given more explicit arguments than it has
//!   parameters: E1723;
//! - a call of a function of the unit that none of its declarations takes, although the
//!   number of arguments fits one (argument types that do not convert, template arguments
//!   that cannot be deduced consistently): E1724. Only where every argument's type is
//!   sure, every declaration of the name is a function of the unit, and the library has
//!   no function of that name.

use super::{Rule, RuleCx};
use crate::body::{Expr, ExprId};
use crate::defs::{DefKind, GenericKind, Generics};
use crate::ty::{DefId, TyKind, TypeArgRef, TypeBase, TypeRef, TypeRefOp};

pub(super) fn check(cx: &mut RuleCx) {
    if cx.infer.in_template {
        return;
    }
    let mut reports = Vec::new();
    // types written in the body: locals and the types of constructions and casts
    for (i, l) in cx.body.locals.iter().enumerate() {
        if let Some(&at) = cx.map.local_ranges.get(i) {
            class_arguments(cx, &l.ty, at, &mut reports);
        }
    }
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let id = ExprId(i as u32);
        if !cx.decided(id) {
            continue;
        }
        match e {
            Expr::Construct { ty, .. } | Expr::Cast { ty, .. } => class_arguments(cx, ty, cx.range(id), &mut reports),
            Expr::Call { callee, .. } => function_arguments(cx, *callee, &mut reports),
            _ => {}
        }
    }
    for (at, message, hint) in reports {
        cx.report(Rule::TemplateArguments, at, message).hint(hint);
    }
    unmatched_calls(cx);
}

type Reports = Vec<(msl_syntax::TextRange, String, String)>;

/// The only definition named `name` in the unit, when it is a template of the kind asked.
fn only_template(cx: &RuleCx, name: &str, class: bool) -> Option<(DefId, std::sync::Arc<Generics>)> {
    if crate::ty::numeric_type(name).is_some() {
        return None;
    }
    let mut found = None;
    for id in cx.defs.named(name) {
        let d = cx.defs.def(id);
        let fits = match &d.kind {
            DefKind::Class { pattern: None, .. } => class,
            DefKind::Function(_) => !class,
            _ => false,
        };
        // a second definition (an overload, a specialization, a namesake elsewhere): unsure
        if !fits || found.is_some() {
            return None;
        }
        found = Some((id, d.generics.clone()?));
    }
    let lib = msl_stdlib::Stdlib::get();
    if !lib.lookup(name).is_empty() || msl_syntax::is_library_name(name) {
        return None;
    }
    found
}

/// What parameters take: (least, most) arguments (`usize::MAX` with a pack).
fn counts(g: &Generics) -> (usize, usize) {
    let pack = g.params.iter().any(|p| p.pack);
    // the parameters before the first with a default (defaults come last) or the pack
    let required = g
        .params
        .iter()
        .take_while(|p| {
            !p.pack
                && match &p.kind {
                    GenericKind::Type { default } => default.is_none(),
                    GenericKind::Value { has_default, .. } => !has_default,
                    // a template template parameter's default is not kept
                    GenericKind::Template => false,
                }
        })
        .count();
    (required, if pack { usize::MAX } else { g.params.len() })
}

fn class_arguments(cx: &RuleCx, ty: &TypeRef, at: msl_syntax::TextRange, out: &mut Reports) {
    let TypeBase::Path(p) = &ty.base else { return };
    if p.global || p.segments.len() != 1 {
        return;
    }
    let seg = &p.segments[0];
    let Some((_, g)) = only_template(cx, &seg.name, true) else { return };
    let args: &[TypeArgRef] = seg.args.as_deref().unwrap_or(&[]);
    if seg.args.is_none() {
        // without arguments: class template argument deduction may apply (C++17)
        return;
    }
    let (least, most) = counts(&g);
    let name = &seg.name;
    if args.len() > most {
        out.push((
            at,
            format!("`{name}` takes at most {most} template argument{}, but {} were given", plural(most), args.len()),
            format!("remove the extra arguments of `{name}<...>`"),
        ));
        return;
    }
    if args.len() < least {
        out.push((
            at,
            format!("`{name}` needs {least} template argument{}, but {} given", plural(least), was_were(args.len())),
            format!("give every parameter of `{name}` without a default an argument"),
        ));
        return;
    }
    kinds(name, &g, args, at, out);
}

fn kinds(name: &str, g: &Generics, args: &[TypeArgRef], at: msl_syntax::TextRange, out: &mut Reports) {
    for (k, (a, p)) in args.iter().zip(&g.params).enumerate() {
        if p.pack {
            return;
        }
        match (&p.kind, a) {
            (GenericKind::Type { .. }, TypeArgRef::Value(v)) => out.push((
                at,
                format!("template argument {} of `{name}` must be a type, not the value `{v}`", k + 1),
                format!("`{}` is a type parameter", p.name),
            )),
            (GenericKind::Value { .. }, TypeArgRef::Type(t))
                if matches!(&t.base, TypeBase::Builtin(_)) && t.ops.is_empty() =>
            {
                out.push((
                    at,
                    format!("template argument {} of `{name}` must be a value, not a type", k + 1),
                    format!("`{}` is a value parameter", p.name),
                ))
            }
            _ => {}
        }
    }
}

/// `f<A, B, C>(...)` for a function template with fewer parameters.
fn function_arguments(cx: &RuleCx, callee: ExprId, out: &mut Reports) {
    let Some(Expr::Path(p)) = cx.body.exprs.get(callee.0 as usize) else { return };
    if p.global || p.segments.len() != 1 {
        return;
    }
    let seg = &p.segments[0];
    let Some(args) = &seg.args else { return };
    let Some((_, g)) = only_template(cx, &seg.name, false) else { return };
    let (_, most) = counts(&g);
    let name = &seg.name;
    if args.len() > most {
        out.push((
            cx.range(callee),
            format!("`{name}` takes at most {most} template argument{}, but {} were given", plural(most), args.len()),
            format!("remove the extra arguments of `{name}<...>`"),
        ));
    } else {
        kinds(name, &g, args, cx.range(callee), out);
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn was_were(n: usize) -> String {
    if n == 1 { "1 was".into() } else { format!("{n} were") }
}

/// E1724: calls of the unit's functions that no declaration takes.
fn unmatched_calls(cx: &mut RuleCx) {
    let lib = msl_stdlib::Stdlib::get();
    let mut found = Vec::new();
    for &e in &cx.infer.unresolved_calls {
        let Some(Expr::Call { callee, args }) = cx.body.exprs.get(e.0 as usize) else { continue };
        let Some(Expr::Path(p)) = cx.body.exprs.get(callee.0 as usize) else { continue };
        if p.global || p.segments.len() != 1 || !cx.decided(e) {
            continue;
        }
        let name = &*p.segments[0].name;
        if !lib.lookup(name).is_empty() || msl_syntax::is_library_name(name) || name.starts_with("operator") {
            continue;
        }
        let types: Vec<crate::ty::Ty> = args.iter().map(|a| cx.infer.type_of(*a)).collect();
        // numbers only: where the model's overload resolution is complete
        let number =
            |t: &crate::ty::Ty| matches!(t.non_reference().strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. });
        if types.iter().any(|t| t.is_uncertain() || !number(t)) {
            continue;
        }
        let candidates: Vec<&crate::defs::DefData> = cx.defs.named(name).into_iter().map(|d| cx.defs.def(d)).collect();
        if candidates.is_empty() {
            continue;
        }
        let mut arity_fits = false;
        let mut templates = 0;
        let mut sure = true;
        for d in &candidates {
            let DefKind::Function(f) = &d.kind else {
                sure = false;
                break;
            };
            // members may be called through `this`, and a class's scope is not judged here
            if cx.defs.scope(d.scope).kind == crate::defs::ScopeKind::Class || f.variadic {
                sure = false;
                break;
            }
            // parameters of number types or of a template parameter, by value or reference
            let simple = f.params.iter().all(|p| {
                let by_value_or_ref =
                    p.ty.ops.is_empty() || matches!(p.ty.ops.as_slice(), [TypeRefOp::Reference { .. }]);
                let base = match &p.ty.base {
                    TypeBase::Builtin(_) => true,
                    TypeBase::Path(path) => {
                        path.segments.len() == 1
                            && path.segments[0].args.is_none()
                            && (crate::ty::numeric_type(&path.segments[0].name).is_some()
                                || d.generics.as_ref().is_some_and(|g| g.find(&path.segments[0].name).is_some()))
                    }
                    _ => false,
                };
                by_value_or_ref && base
            });
            if !simple {
                sure = false;
                break;
            }
            let least = f.params.iter().filter(|p| !p.has_default).count();
            let pack = d.generics.as_ref().is_some_and(|g| g.params.iter().any(|p| p.pack));
            if pack {
                sure = false;
                break;
            }
            if (least..=f.params.len()).contains(&args.len()) {
                arity_fits = true;
            }
            if d.generics.is_some() {
                templates += 1;
            }
        }
        // calls of functions that are no templates are the argument checks' (E1710)
        if !sure || !arity_fits || templates != candidates.len() {
            continue;
        }
        let listed: Vec<String> = types.iter().map(|t| format!("`{}`", t.non_reference())).collect();
        found.push((*callee, name.to_string(), listed.join(", "), templates == candidates.len()));
    }
    for (callee, name, listed, all_templates) in found {
        let at = cx.range(callee);
        let (message, hint) = if all_templates {
            (
                format!("no instance of the template `{name}` takes arguments of types {listed}"),
                "its template arguments cannot be deduced from these arguments consistently; convert the arguments to one type, or give the template arguments explicitly".to_string(),
            )
        } else {
            (
                format!("no declaration of `{name}` takes arguments of types {listed}"),
                format!("convert the arguments to the parameter types of `{name}`"),
            )
        };
        cx.report(Rule::NoMatchingCall, at, message).hint(hint);
    }
}
