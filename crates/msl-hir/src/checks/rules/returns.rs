//! Return statements against the function's return type (C++17 [stmt.return]): a function
//! that returns a value needs one in every `return`; a `void` function returns none (an
//! expression of type `void` aside).

use super::{Rule, RuleCx};
use crate::body::Stmt;
use crate::defs::DefKind;
use crate::ty::TyKind;

pub(super) fn check(cx: &mut RuleCx) {
    let Some(def) = cx.def else { return };
    let d = cx.defs.def(def);
    let DefKind::Function(f) = &d.kind else { return };
    // constructors, destructors and conversion functions have no written return type;
    // `auto` and `decltype(auto)` take theirs from the returns
    let Some(written) = &f.ret else { return };
    if matches!(written.base, crate::ty::TypeBase::Auto | crate::ty::TypeBase::Decltype(_)) || cx.infer.in_template {
        return;
    }
    let resolver = crate::infer::Resolver::new(cx.defs, d.scope, d.generics.clone());
    let ret = match resolver.value_type_of_def(def).kind() {
        TyKind::Function(sig) => sig.ret.clone(),
        _ => return,
    };
    if ret.is_uncertain() {
        return;
    }
    let is_void = matches!(ret.strip().kind(), TyKind::Void);
    for (i, s) in cx.body.stmts.iter().enumerate() {
        let Stmt::Return(value) = s else { continue };
        if cx.in_lambda.get(i).copied().unwrap_or(true) {
            continue;
        }
        let Some(&range) = cx.map.stmt_ranges.get(i) else { continue };
        match value {
            None if !is_void => {
                cx.report(
                    Rule::ReturnWithoutValue,
                    range,
                    format!("this function returns `{ret}`: `return` needs a value"),
                )
                .hint(format!("return a value of type `{ret}`"));
            }
            Some(e) if is_void => {
                let t = cx.infer.type_of(*e);
                if t.is_uncertain() || matches!(t.strip().kind(), TyKind::Void) || !cx.decided(*e) {
                    continue;
                }
                cx.report(
                    Rule::ReturnValueFromVoid,
                    range,
                    format!("this function returns `void`: it cannot return a value of type `{}`", t.non_reference()),
                )
                .hint("drop the value, or give the function a return type");
            }
            _ => {}
        }
    }
}
