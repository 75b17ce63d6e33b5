//! Members: `s.m` or `p->m` where `s` is a class of the unit that surely has no member `m`
//! (C++17 [expr.ref]). Only classes whose members are all known are judged: defined in
//! the unit, no base classes, not a template.

use super::{Rule, RuleCx};
use crate::body::Expr;
use crate::defs::DefKind;
use crate::ty::TyKind;

pub(super) fn check(cx: &mut RuleCx) {
    if cx.infer.in_template {
        return;
    }
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let Expr::Member { base, name, arrow, template_args } = e else { continue };
        let id = crate::body::ExprId(i as u32);
        if template_args.is_some() || cx.infer.resolutions.contains_key(&id) || !cx.decided(id) {
            continue;
        }
        // what a call gives is sure only when the call names a function (the result of
        // calling an object is the model's guess)
        if let Some(Expr::Call { callee, .. }) = cx.body.exprs.get(base.0 as usize)
            && !matches!(
                cx.infer.resolutions.get(callee),
                Some(crate::infer::Resolution::Def(f)) if matches!(cx.defs.def(*f).kind, DefKind::Function(_))
            )
        {
            continue;
        }
        let mut t = cx.infer.type_of(*base).non_reference();
        if *arrow {
            t = match t.strip().kind() {
                TyKind::Pointer { pointee, .. } => pointee.clone(),
                _ => continue,
            };
        }
        if t.is_uncertain() {
            continue;
        }
        if let TyKind::Scalar(scalar) = t.strip().kind() {
            let at = cx.name_range(id, name);
            let swizzle = name.chars().all(|c| "xyzwrgba".contains(c));
            let hint = if swizzle {
                format!("components are selected from vectors; build one first (`{}{}(x)`)", scalar.name(), name.len())
            } else {
                "only classes have members".to_string()
            };
            cx.report(Rule::NoSuchMember, at, format!("`{}` is a scalar: it has no member `{name}`", scalar.name()))
                .hint(hint);
            continue;
        }
        let TyKind::Class { def, name: class_name, args } = t.strip().kind().clone() else { continue };
        if !args.is_empty() {
            continue;
        }
        let d = cx.defs.def(def);
        let DefKind::Class { inner, bases, defined, .. } = &d.kind else { continue };
        if !defined || !bases.is_empty() || d.generics.is_some() {
            continue;
        }
        if !cx.defs.lookup_in(*inner, name).is_empty() || name.starts_with("operator") || name.starts_with('~') {
            continue;
        }
        let at = cx.name_range(id, name);
        let mut members: Vec<String> =
            cx.defs.scope(*inner).names.keys().map(|k| k.to_string()).filter(|k| !k.is_empty()).collect();
        members.sort();
        let closest = crate::checks::closest(name, members.iter().map(|s| s.as_str())).map(str::to_string);
        let report = cx.report(Rule::NoSuchMember, at, format!("`{class_name}` has no member named `{name}`"));
        if let Some(c) = closest {
            report.hint(format!("did you mean `{c}`?")).fix(crate::checks::Fix::replace(
                format!("Change to `{c}`"),
                at,
                c,
            ));
        }
    }
}
