//! Errors inside instantiations (C++17 [temp.res]/8, [temp.inst]): a template's body is
//! checked again with what each instantiation binds its parameters to, and a mistake that
//! only that binding makes (a member the bound class lacks) is reported in the template,
//! with the place that instantiates it as related information.
//!
//! Which templates: those declared once in their scope, without default template
//! arguments or packs (an overload set or a default may rule a template out, SFINAE,
//! before its body is looked at). The instantiations are those the unit's functions make,
//! followed through such templates; an instantiation's body is checked when the template
//! uses a member of something whose type depends on its parameters (nothing else can go
//! wrong only in an instantiation for the rules run here).

use std::sync::Arc;

use msl_syntax::TextRange;

use super::RuleCx;
use crate::Unit;
use crate::body::Expr;
use crate::checks::HirDiagnostic;
use crate::db::{Db, FunctionId, Instance, UnitInstances};
use crate::defs::{DefKind, GenericKind};

/// The instantiations whose bodies are checked (see the module's documentation). Only
/// functions that may lead to a template with dependent members are followed: those
/// templates, and every function whose body names one of them or names a template that
/// does (read from the names in the bodies, as for assertions).
#[salsa::tracked(returns(ref))]
pub(crate) fn checked_instances(db: &dyn Db, unit: Unit) -> Arc<UnitInstances<'_>> {
    let list = crate::db::functions(db, unit);
    // functions that are not templates, and templates nothing can rule out, are followed
    let followed: Vec<bool> =
        list.iter().map(|f| !crate::db::infer_function(db, *f).in_template || safe_template(db, *f)).collect();
    let targets: Vec<bool> = list
        .iter()
        .zip(&followed)
        .map(|(f, follow)| *follow && crate::db::infer_function(db, *f).in_template && dependent_uses(db, *f))
        .collect();
    if !targets.contains(&true) {
        return Arc::new(UnitInstances { list: Vec::new(), sites: Vec::new(), runaways: Vec::new() });
    }
    let reaching = crate::checks::consts::functions_reaching(db, unit, &targets, |i| followed[i]);
    let keep: rustc_hash::FxHashSet<u32> = (0..list.len() as u32).filter(|&i| reaching[i as usize]).collect();
    Arc::new(crate::db::walk_instances(db, unit, Some(&keep)))
}

/// A function template that nothing can rule out before its body is instantiated.
fn safe_template(db: &dyn Db, f: FunctionId<'_>) -> bool {
    let unit = *f.unit(db);
    let defs = crate::db::unit_defs(db, unit);
    let Some(def) = defs.function_defs.get(*f.index(db) as usize).copied().flatten() else { return false };
    let d = defs.def(def);
    let Some(generics) = &d.generics else { return false };
    if generics.parent.is_some()
        || generics.params.iter().any(|p| {
            p.pack
                || matches!(
                    p.kind,
                    GenericKind::Type { default: Some(_) } | GenericKind::Value { has_default: true, .. }
                )
        })
    {
        return false;
    }
    // one function template of the name in its scope (declarations of it aside)
    let others = defs
        .lookup_in(d.scope, &d.name)
        .into_iter()
        .filter(|&o| matches!(&defs.def(o).kind, DefKind::Function(g) if g.has_body))
        .count();
    others == 1
}

/// Whether a template's body uses a member of something whose type depends on its
/// parameters, or declares a local of a type named through a parameter (`T::value`).
fn dependent_uses(db: &dyn Db, f: FunctionId<'_>) -> bool {
    dependent_members(db, f) || !nested_type_locals(db, f).is_empty()
}

/// The locals of a template declared with a type named through one of its type
/// parameters (`typename F::storage x`): each local's number, the parameter and the name.
fn nested_type_locals(db: &dyn Db, f: FunctionId<'_>) -> Vec<(usize, Arc<str>, Arc<str>)> {
    let unit = *f.unit(db);
    let defs = crate::db::unit_defs(db, unit);
    let Some(def) = defs.function_defs.get(*f.index(db) as usize).copied().flatten() else { return Vec::new() };
    let Some(generics) = &defs.def(def).generics else { return Vec::new() };
    let (body, _) = &**crate::db::function_body(db, f);
    body.locals
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let crate::ty::TypeBase::Path(p) = &l.ty.base else { return None };
            let [first, second] = p.segments.as_slice() else { return None };
            if p.global || first.args.is_some() || second.args.is_some() {
                return None;
            }
            generics
                .params
                .iter()
                .any(|g| g.name == first.name && !g.pack && matches!(g.kind, GenericKind::Type { .. }))
                .then(|| (i, first.name.clone(), second.name.clone()))
        })
        .collect()
}

fn dependent_members(db: &dyn Db, f: FunctionId<'_>) -> bool {
    let (body, _) = &**crate::db::function_body(db, f);
    let r = crate::db::infer_function(db, f);
    body.exprs.iter().enumerate().any(|(i, e)| {
        let Expr::Member { base, .. } = e else { return false };
        !r.is_discarded(crate::body::ExprId(i as u32)) && r.type_of(*base).is_uncertain()
    })
}

/// The findings of the rules in one instantiation (ranges relative to the template's
/// start).
#[salsa::tracked(returns(ref))]
pub(crate) fn instance_findings<'db>(db: &'db dyn Db, inst: Instance<'db>) -> Arc<Vec<HirDiagnostic>> {
    let f = *inst.function(db);
    let unit = *f.unit(db);
    if crate::db::function_body(db, f).0.root.is_none() {
        return Arc::new(Vec::new());
    }
    let nested = nested_type_locals(db, f);
    if nested.is_empty() && !dependent_members(db, f) {
        return Arc::new(Vec::new());
    }
    let infer = crate::db::infer_instance(db, inst);
    if infer.in_template || !infer.undecided.is_empty() {
        return Arc::new(Vec::new());
    }
    let mut cx = RuleCx::new(db, f, infer, false, !crate::db::unit_incomplete(db, unit));
    if cx.unit_complete {
        super::members::check(&mut cx);
        let syntax = crate::db::function_green(db, f).as_ref().map(|g| msl_syntax::SyntaxNode::new_root(g.0.clone()));
        if let Some(syntax) = syntax {
            nested_types(&mut cx, &syntax, &nested, inst.args(db));
        }
    }
    Arc::new(cx.out)
}

/// E1405 for a local whose type names a member type of what a parameter is bound to,
/// when that is a scalar, vector or matrix (no members at all) or a class of the unit
/// that surely lacks it ([basic.lookup.qual]).
fn nested_types(
    cx: &mut RuleCx,
    syntax: &msl_syntax::SyntaxNode,
    locals: &[(usize, Arc<str>, Arc<str>)],
    args: &crate::infer::InstanceArgs,
) {
    use crate::ty::TyKind;
    for (i, param, name) in locals {
        let Some((_, bound)) = args.iter().find(|(n, _)| n == param) else { continue };
        let bound = bound.strip();
        let problem = match bound.kind() {
            TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. } => {
                format!("`{param}::{name}` names nothing: `{param}` is `{bound}`, which has no member types")
            }
            TyKind::Class { def, args, .. } if args.is_empty() => {
                let d = cx.defs.def(*def);
                let DefKind::Class { inner, bases, defined, .. } = &d.kind else { continue };
                if !defined || !bases.is_empty() || d.generics.is_some() || !cx.defs.lookup_in(*inner, name).is_empty()
                {
                    continue;
                }
                format!("`{param}::{name}` names nothing: `{param}` is `{bound}`, which has no member `{name}`")
            }
            _ => continue,
        };
        let Some(&name_range) = cx.map.local_ranges.get(*i) else { continue };
        let Some(at) = super::types::type_name_range(syntax, name_range, name) else { continue };
        if cx.out.iter().any(|d| d.range == at) {
            continue;
        }
        cx.report(super::Rule::UnknownType, at, problem);
    }
}

/// The unit's findings inside instantiations, in tree ranges, each once (the first
/// instantiation that shows it is named).
pub(crate) fn check_instances(db: &dyn Db, unit: Unit) -> Vec<HirDiagnostic> {
    let instances = checked_instances(db, unit);
    if instances.list.is_empty() {
        return Vec::new();
    }
    let parse = crate::db::parse_unit(db, unit);
    let starts = crate::db::function_offsets(parse.green());
    let mut out: Vec<HirDiagnostic> = Vec::new();
    for (inst, site) in instances.list.iter().zip(&instances.sites) {
        let found = instance_findings(db, *inst);
        if found.is_empty() {
            continue;
        }
        let i = *inst.function(db).index(db) as usize;
        let start = starts.get(i).copied().unwrap_or_default();
        let shown = crate::checks::consts::shown_args(inst.args(db));
        let related: Vec<(TextRange, String)> = crate::checks::consts::site_range(db, unit, &starts, *site)
            .map(|r| (r, format!("in the instantiation with {shown}, made here")))
            .into_iter()
            .collect();
        for d in found.iter() {
            let range = d.range + start;
            if out.iter().any(|o| o.range == range && o.code == d.code) {
                continue;
            }
            out.push(HirDiagnostic { range, related: related.clone(), ..d.clone() });
        }
    }
    out
}
