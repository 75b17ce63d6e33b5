//! Names and scopes: a local used before its declaration, or after the block that declares
//! it ended (C++17 [basic.scope.block]: a local's scope runs from its declarator to the end
//! of its block). Reported as undeclared, with where the local is.

use super::{Rule, RuleCx};
use crate::body::Expr;

pub(super) fn check(cx: &mut RuleCx) {
    if !cx.names_checkable || cx.infer.in_template {
        return;
    }
    let lib = msl_stdlib::Stdlib::get();
    for &e in &cx.infer.unresolved_names {
        let Some(Expr::Path(p)) = cx.body.exprs.get(e.0 as usize) else { continue };
        if p.global || p.segments.len() != 1 || p.segments[0].args.is_some() || !cx.decided(e) {
            continue;
        }
        let name = &*p.segments[0].name;
        // a name the unit or the library declares elsewhere may be meant: not this rule's
        if cx.tree.declared.contains(name)
            || cx.tree.types.contains(name)
            || cx.tree.typedefs.contains_key(name)
            || lib.lookup(name).iter().any(|e| {
                // what an unqualified name can mean: not a method, a member, an attribute
                // or an enumerator of a scoped enum
                !matches!(
                    e,
                    msl_stdlib::Entry::Method(_) | msl_stdlib::Entry::Member(_) | msl_stdlib::Entry::Attribute(_)
                ) && !matches!(e, msl_stdlib::Entry::EnumMember(en, _) if en.scoped)
            })
            || msl_syntax::is_library_name(name)
        {
            continue;
        }
        let at = cx.range(e);
        let mut later = None;
        let mut ended = None;
        for (i, l) in cx.body.locals.iter().enumerate() {
            if &*l.name != name {
                continue;
            }
            let (Some(decl), Some(&end)) = (cx.map.local_ranges.get(i), cx.map.local_scope_ends.get(i)) else {
                continue;
            };
            if at.end() <= decl.start() && at.end() <= end {
                later.get_or_insert(*decl);
            } else if end <= at.start() {
                ended = Some(*decl);
            }
        }
        if let Some(decl) = later {
            cx.report(Rule::NotInScope, at, format!("`{name}` is used before its declaration"))
                .hint(format!("declare `{name}` before this use"))
                .related(decl, format!("`{name}` is declared here"));
        } else if let Some(decl) = ended {
            cx.report(
                Rule::NotInScope,
                at,
                format!("`{name}` is not declared here: the block that declares it has ended"),
            )
            .hint(format!("declare `{name}` in a block that encloses this use"))
            .related(decl, format!("`{name}` is declared here, in a block that ends before the use"));
        }
    }
}
