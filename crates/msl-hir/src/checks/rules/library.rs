//! Calls of the library's texture methods whose arguments no form of the method takes
//! (MSL 4.1 section 6.12: each texture kind's `sample`, `read`, `write`, `gather` take
//! coordinates of one type, a sampler where they sample, an LOD or gradient option). Only
//! calls whose receiver and arguments the model types for sure are judged.

use super::{Rule, RuleCx};
use crate::body::Expr;
use crate::infer::Resolution;
use crate::ty::TyKind;

pub(super) fn check(cx: &mut RuleCx) {
    if cx.infer.in_template {
        return;
    }
    let lib = msl_stdlib::Stdlib::get();
    for &call in &cx.infer.unresolved_calls {
        let Some(Expr::Call { callee, args }) = cx.body.exprs.get(call.0 as usize) else { continue };
        if !cx.decided(call) {
            continue;
        }
        if let Some(Resolution::Library(function)) = cx.infer.resolutions.get(callee) {
            free_function(cx, call, function, args);
            continue;
        }
        let Some(Expr::Member { base, name, arrow: false, template_args: None }) = cx.body.exprs.get(callee.0 as usize)
        else {
            continue;
        };
        let recv = cx.infer.type_of(*base).non_reference();
        let stripped = recv.strip();
        let TyKind::Library { name: type_name, .. } = stripped.kind() else { continue };
        if !(type_name.starts_with("texture") || type_name.starts_with("depth")) || recv.is_uncertain() {
            continue;
        }
        if !cx.infer.resolutions.contains_key(callee)
            && !lib.methods_of(type_name).is_empty()
            && lib.method(type_name, name).next().is_none()
        {
            // a member function this kind of texture does not have
            let at = cx.name_range(*callee, name);
            let others: Vec<&str> = lib.methods_of(type_name).iter().map(|m| m.name).collect();
            let closest = crate::checks::closest(name, others.iter().copied()).map(str::to_string);
            let report = cx.report(Rule::NoSuchMember, at, format!("`{type_name}` has no member function `{name}`"));
            match closest {
                Some(c) => {
                    report.hint(format!("did you mean `{c}`?")).fix(crate::checks::Fix::replace(
                        format!("Change to `{c}`"),
                        at,
                        c,
                    ));
                }
                None => {
                    report.hint(format!("`{name}` belongs to other kinds of textures"));
                }
            }
            continue;
        }
        if !matches!(cx.infer.resolutions.get(callee), Some(Resolution::LibraryMethod(_))) {
            continue;
        }
        let arg_types: Vec<crate::ty::Ty> = args.iter().map(|a| cx.infer.type_of(*a).non_reference()).collect();
        if arg_types.iter().any(|t| t.is_uncertain()) {
            continue;
        }
        // sampling without a sampler first has a rule of its own (E1502)
        let samples = name.starts_with("sample") || name.starts_with("gather");
        let sampler_first = arg_types
            .first()
            .is_some_and(|t| matches!(t.strip().kind(), TyKind::Library { name, .. } if *name == "sampler"));
        if samples && !sampler_first {
            continue;
        }
        let list = arg_types.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
        let range = cx.range(call);
        cx.report(Rule::LibraryArguments, range, format!("no form of `{type_name}::{name}` takes ({list})"))
            .hint(format!("see the forms of `{name}` for `{recv}` in the hover of `{name}`"));
    }
}

/// A call of a library function that no overload takes, its arguments all known.
fn free_function(cx: &mut RuleCx, call: crate::body::ExprId, function: &str, args: &[crate::body::ExprId]) {
    let arg_types: Vec<crate::ty::Ty> = args.iter().map(|a| cx.infer.type_of(*a).non_reference()).collect();
    if arg_types.iter().any(|t| t.is_uncertain()) {
        return;
    }
    // a count no form takes has a rule of its own (E1402)
    let lib = msl_stdlib::Stdlib::get();
    let counts_fit = lib
        .functions(function)
        .flat_map(|f| f.overloads)
        .any(|o| crate::checks::arity(o.sig, function).is_none_or(|(lo, hi)| (lo..=hi).contains(&args.len())));
    if !counts_fit {
        return;
    }
    let list = arg_types.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    let range = cx.range(call);
    cx.report(Rule::LibraryArguments, range, format!("no form of `{function}` takes ({list})"))
        .hint(format!("see the forms of `{function}` in its hover"));
}
