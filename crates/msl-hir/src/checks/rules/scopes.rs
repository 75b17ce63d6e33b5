//! Names and scopes (C++17 [basic.scope]):
//! - a local used before its declaration, or after the block that declares it ended (a
//!   local's scope runs from its declarator to the end of its block, [basic.scope.block]);
//! - a name the unit declares only where the function cannot see it: a member of a class
//!   the function is not a member of, an enumerator of a scoped enum ([dcl.enum]/11: its
//!   enumerators are only found in the enum's scope), a parameter of another function;
//! - a local declared twice in one scope, or a parameter (or a condition's or `for`
//!   statement's variable) declared again in the outermost block of the body it belongs to
//!   ([basic.scope.block]/2, [stmt.stmt]/3).

use msl_syntax::{SyntaxKind, SyntaxNode, TextRange};

use super::{Rule, RuleCx};
use crate::body::{Expr, LocalKind};
use crate::defs::DefKind;

pub(super) fn check(cx: &mut RuleCx, syntax: Option<&SyntaxNode>) {
    redeclarations(cx);
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
        let unit_declares =
            cx.tree.declared.contains(name) || cx.tree.types.contains(name) || cx.tree.typedefs.contains_key(name);
        if lib.lookup(name).iter().any(|e| {
            // what an unqualified name can mean: not a method, a member, an attribute
            // or an enumerator of a scoped enum
            !matches!(e, msl_stdlib::Entry::Method(_) | msl_stdlib::Entry::Member(_) | msl_stdlib::Entry::Attribute(_))
                && !matches!(e, msl_stdlib::Entry::EnumMember(en, _) if en.scoped)
        }) || msl_syntax::is_library_name(name)
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
        if unit_declares {
            // the unit's declaration may be meant where a local of that name is not in
            // scope; one no scope of the function can see is reported (a class defined
            // in the body has members the unit's definitions do not list)
            if later.is_none()
                && ended.is_none()
                && syntax.is_some_and(|s| !s.descendants().any(|n| n.kind() == SyntaxKind::STRUCT))
            {
                declared_elsewhere(cx, at, name);
            }
            continue;
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

/// E1401 for a name that no scope the function sees declares, but the unit declares where
/// the function cannot see it. Silent when any declaration of the name could be visible
/// (a namespace member, a static member, a member function: other checks judge those).
fn declared_elsewhere(cx: &mut RuleCx, at: TextRange, name: &str) {
    if cx.body.locals.iter().any(|l| &*l.name == name) {
        return;
    }
    let named = cx.defs.named(name);
    let owner = cx.def.and_then(|d| cx.defs.owner_class(d));
    if named.is_empty() {
        // nothing outside function bodies defines it: the unit knows it as a parameter of
        // another function (or a template's parameter)
        if !cx.tree.declared.contains(name) || cx.def.is_none() {
            return;
        }
        let of = cx.defs.defs.iter().find(|d| match &d.kind {
            DefKind::Function(f) => f.params.iter().any(|p| p.name.as_deref() == Some(name)),
            _ => false,
        });
        let Some(of) = of else { return };
        cx.report(Rule::NotInScope, at, format!("`{name}` is not declared in this function"))
            .hint(format!("`{name}` is a parameter of `{}`; pass it to this function as an argument", of.name));
        return;
    }
    let fields: Vec<crate::ty::DefId> =
        named.iter().copied().filter(|&d| matches!(cx.defs.def(d).kind, DefKind::Field(_))).collect();
    if fields.len() == named.len() {
        // a member function finds its class's fields (and a class with bases is not judged)
        if owner.is_some() {
            return;
        }
        let Some(class) = cx.defs.owner_class(fields[0]) else { return };
        let class = cx.defs.qualified_name(class);
        cx.report(Rule::NotInScope, at, format!("`{name}` is not declared here: it is a member of `{class}`"))
            .hint(format!("name it through an object of `{class}` (`value.{name}`)"));
        return;
    }
    let scoped: Vec<crate::ty::DefId> = named
        .iter()
        .copied()
        .filter(|&d| match &cx.defs.def(d).kind {
            DefKind::Enumerator { parent, .. } => {
                matches!(cx.defs.def(*parent).kind, DefKind::Enum { scoped: true, .. })
            }
            _ => false,
        })
        .collect();
    if scoped.len() == named.len() {
        let qualified: Vec<String> = scoped.iter().map(|&d| cx.defs.qualified_name(d)).collect();
        let report = cx
            .report(
                Rule::NotInScope,
                at,
                format!("`{name}` is not declared here: the enumerators of a scoped enum must be qualified"),
            )
            .hint(format!("write `{}`", qualified.join("` or `")));
        if let [one] = qualified.as_slice() {
            report.fix(crate::checks::Fix::replace(format!("Change to `{one}`"), at, one.clone()));
        }
    }
}

/// E1406: a local declared twice in one scope. Two locals whose scopes end at the same
/// place are in the same block, or one belongs to a statement (a `for` statement's or a
/// condition's variable, a parameter) and the other to the outermost block of its body:
/// C++ forbids both.
fn redeclarations(cx: &mut RuleCx) {
    let mut seen: rustc_hash::FxHashMap<(&str, msl_syntax::TextSize), usize> = rustc_hash::FxHashMap::default();
    let mut found = Vec::new();
    for (i, l) in cx.body.locals.iter().enumerate() {
        if l.name.is_empty() || l.name.starts_with("__") {
            continue;
        }
        let Some(&end) = cx.map.local_scope_ends.get(i) else { continue };
        if let Some(&first) = seen.get(&(&*l.name, end)) {
            found.push((first, i));
        } else {
            seen.insert((&*l.name, end), i);
        }
    }
    for (first, second) in found {
        let (Some(&a), Some(&b)) = (cx.map.local_ranges.get(first), cx.map.local_ranges.get(second)) else {
            continue;
        };
        let name = cx.body.locals[second].name.clone();
        let (message, related) = match (cx.body.locals[first].kind, cx.body.locals[second].kind) {
            (LocalKind::Param, LocalKind::Param) => {
                (format!("the function has two parameters named `{name}`"), "the first one".to_string())
            }
            (LocalKind::Param, _) => (
                format!("`{name}` redeclares a parameter in the outermost block of its function"),
                format!("the parameter `{name}`"),
            ),
            _ => (format!("`{name}` is already declared in this scope"), format!("`{name}` is first declared here")),
        };
        cx.report(Rule::Redeclared, b, message).hint("rename one of them, or assign to the first").related(a, related);
    }
}
