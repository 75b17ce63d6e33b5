//! Types named in declarations: a local declared with a type name that nothing declares
//! (C++17 [dcl.type.simple]; the unit, its namespaces and the library are all known). The
//! name is reported where it is written, with the closest type as a suggestion.

use msl_syntax::{SyntaxKind, SyntaxNode, TextRange};

use super::{Rule, RuleCx};
use crate::defs::{DefKind, ScopeKind};
use crate::ty::TypeBase;

pub(super) fn check(cx: &mut RuleCx, syntax: Option<&SyntaxNode>) {
    let Some(syntax) = syntax else { return };
    if cx.unit_complete && !cx.infer.in_template && !declares_types(syntax) {
        before_declaration(cx, syntax);
        return_type(cx, syntax);
    }
    if !cx.names_checkable || cx.infer.in_template {
        return;
    }
    let lib = msl_stdlib::Stdlib::get();
    let mut reported: Vec<TextRange> = Vec::new();
    for (i, l) in cx.body.locals.iter().enumerate() {
        let TypeBase::Path(p) = &l.ty.base else { continue };
        if p.global {
            continue;
        }
        if p.segments.len() == 2 {
            if let Some(&name_range) = cx.map.local_ranges.get(i) {
                qualified(cx, syntax, name_range, p, &mut reported);
            }
            continue;
        }
        if p.segments.len() != 1 {
            continue;
        }
        let name = &*p.segments[0].name;
        if let Some(&name_range) = cx.map.local_ranges.get(i)
            && nested_elsewhere(cx, syntax, name_range, name, &mut reported)
        {
            continue;
        }
        let known = cx.tree.types.contains(name)
            || cx.tree.typedefs.contains_key(name)
            || cx.tree.declared.contains(name)
            || cx.body.type_aliases.iter().any(|(n, _)| &**n == name)
            || !lib.lookup(name).is_empty()
            || lib.type_named(name).is_some()
            || crate::ty::library_type(name, &[]).is_some()
            || crate::ty::Scalar::from_name(name).is_some()
            || msl_syntax::is_library_name(name)
            || name.starts_with("__");
        // a class, enum or alias declared in the body itself
        if known || declared_in_body(syntax, name) {
            continue;
        }
        // where the type is written: the declaration's specifiers, before the name
        let Some(&name_range) = cx.map.local_ranges.get(i) else { continue };
        let Some(at) = type_name_range(syntax, name_range, name) else { continue };
        if reported.contains(&at) {
            continue;
        }
        reported.push(at);
        let mut candidates: Vec<String> = cx.tree.types.iter().cloned().collect();
        candidates.extend(cx.tree.typedefs.keys().cloned());
        candidates.extend(lib.names().filter(|n| lib.type_named(n).is_some()).map(str::to_string));
        let closest = crate::checks::closest(name, candidates.iter().map(|s| s.as_str())).map(str::to_string);
        let report = cx.report(Rule::UnknownType, at, format!("unknown type name `{name}`"));
        if let Some(c) = closest {
            report.hint(format!("did you mean `{c}`?")).fix(crate::checks::Fix::replace(
                format!("Change to `{c}`"),
                at,
                c,
            ));
        }
    }
}

/// The range of the identifier `name` among the declaration specifiers of the local whose
/// name is at `name_range`.
pub(super) fn type_name_range(syntax: &SyntaxNode, name_range: TextRange, name: &str) -> Option<TextRange> {
    let tok = syntax.covering_element(name_range).into_token()?;
    let decl = tok.parent_ancestors().find(|a| matches!(a.kind(), SyntaxKind::VAR_DECL | SyntaxKind::PARAM))?;
    let specs = decl.children().find(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS)?;
    specs
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .find(|t| t.kind() == SyntaxKind::IDENT && t.text() == name)
        .map(|t| t.text_range())
}

/// Whether the function's own text declares a type named `name` (a local class or enum).
fn declared_in_body(syntax: &SyntaxNode, name: &str) -> bool {
    syntax.descendants().filter(|n| matches!(n.kind(), SyntaxKind::STRUCT | SyntaxKind::ENUM)).any(|n| {
        n.children()
            .filter(|c| c.kind() == SyntaxKind::NAME)
            .any(|c| c.descendants_with_tokens().filter_map(|e| e.into_token()).any(|t| t.text() == name))
    })
}

/// Whether the function's text declares classes, enums or aliases of its own.
fn declares_types(syntax: &SyntaxNode) -> bool {
    syntax.descendants().any(|n| {
        matches!(n.kind(), SyntaxKind::STRUCT | SyntaxKind::ENUM | SyntaxKind::ALIAS_DECL | SyntaxKind::TYPEDEF_DECL)
    })
}

/// The types of the unit named `name`, when every declaration of the name is a type of a
/// namespace (or of the global scope).
fn namespace_types(cx: &RuleCx, name: &str) -> Option<Vec<crate::ty::DefId>> {
    if !cx.tree.types.contains(name) && !cx.tree.typedefs.contains_key(name) && !cx.tree.declared.contains(name) {
        return None;
    }
    // the library's types are visible everywhere, whatever the unit declares later
    let lib = msl_stdlib::Stdlib::get();
    if !lib.lookup(name).is_empty()
        || lib.type_named(name).is_some()
        || crate::ty::library_type(name, &[]).is_some()
        || crate::ty::Scalar::from_name(name).is_some()
        || msl_syntax::is_library_name(name)
    {
        return None;
    }
    let named = cx.defs.named(name);
    let all = !named.is_empty()
        && named.iter().all(|&d| {
            let data = cx.defs.def(d);
            matches!(data.kind, DefKind::Class { .. } | DefKind::Enum { .. } | DefKind::Alias { .. })
                && matches!(cx.defs.scope(data.scope).kind, ScopeKind::Namespace | ScopeKind::Global)
        });
    all.then_some(named)
}

/// E1401: a type of the unit named (by a parameter, a local or the return type) in a
/// function that comes before every declaration of it ([basic.lookup.unqual]/1).
fn before_declaration(cx: &mut RuleCx, syntax: &SyntaxNode) {
    let Some(me) = cx.def else { return };
    let here = cx.defs.def(me).node;
    let later = |cx: &RuleCx, name: &str| {
        namespace_types(cx, name).is_some_and(|ids| ids.iter().all(|&d| cx.defs.def(d).node > here))
    };
    let mut reported: Vec<TextRange> = Vec::new();
    for (i, l) in cx.body.locals.iter().enumerate() {
        let TypeBase::Path(p) = &l.ty.base else { continue };
        if p.global || p.segments.len() != 1 {
            continue;
        }
        let name = &*p.segments[0].name;
        if !later(cx, name) {
            continue;
        }
        let Some(&name_range) = cx.map.local_ranges.get(i) else { continue };
        let Some(at) = type_name_range(syntax, name_range, name) else { continue };
        if !reported.contains(&at) {
            reported.push(at);
            cx.report(Rule::NotInScope, at, format!("`{name}` is used before it is declared")).hint(format!(
                "move the declaration of `{name}` above this function, or declare it before (`struct {name};`)"
            ));
        }
    }
    if let Some((name, at)) = written_return(cx, syntax)
        && later(cx, &name)
        && !reported.contains(&at)
    {
        cx.report(Rule::NotInScope, at, format!("`{name}` is used before it is declared"))
            .hint(format!("move the declaration of `{name}` above this function"));
    }
}

/// The single name of the function's return type and where it is written.
fn written_return(cx: &RuleCx, syntax: &SyntaxNode) -> Option<(String, TextRange)> {
    let me = cx.def?;
    let DefKind::Function(f) = &cx.defs.def(me).kind else { return None };
    let ret = f.ret.as_ref()?;
    let TypeBase::Path(p) = &ret.base else { return None };
    if p.global || p.segments.len() != 1 || p.segments[0].args.is_some() {
        return None;
    }
    let name = p.segments[0].name.to_string();
    let specs = syntax.children().find(|c| c.kind() == SyntaxKind::DECL_SPECIFIERS)?;
    let at = specs
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .find(|t| t.kind() == SyntaxKind::IDENT && t.text() == name)?
        .text_range();
    Some((name, at))
}

/// E1405: a return type name that nothing declares.
fn return_type(cx: &mut RuleCx, syntax: &SyntaxNode) {
    if !cx.names_checkable {
        return;
    }
    let Some((name, at)) = written_return(cx, syntax) else { return };
    if known(cx, &name) {
        return;
    }
    cx.report(Rule::UnknownType, at, format!("unknown type name `{name}`"))
        .hint("declare the type at namespace scope, where every function can see it");
}

/// Whether a single type name is declared by the unit or the library.
fn known(cx: &RuleCx, name: &str) -> bool {
    let lib = msl_stdlib::Stdlib::get();
    cx.tree.types.contains(name)
        || cx.tree.typedefs.contains_key(name)
        || !cx.defs.named(name).is_empty()
        || !lib.lookup(name).is_empty()
        || lib.type_named(name).is_some()
        || crate::ty::library_type(name, &[]).is_some()
        || crate::ty::Scalar::from_name(name).is_some()
        || msl_syntax::is_library_name(name)
        || name.starts_with("__")
}

/// E1405 for `N::T` where `N` names only namespaces or classes (without bases or template
/// parameters) of the unit, none of which declares `T` (nor brings names in with
/// using-directives or -declarations).
fn qualified(
    cx: &mut RuleCx,
    syntax: &SyntaxNode,
    name_range: TextRange,
    p: &crate::ty::PathRef,
    reported: &mut Vec<TextRange>,
) {
    if p.segments.iter().any(|s| s.args.is_some()) {
        return;
    }
    let (outer, name) = (&*p.segments[0].name, &*p.segments[1].name);
    let named = cx.defs.named(outer);
    if named.is_empty() {
        return;
    }
    for &d in &named {
        let data = cx.defs.def(d);
        let plain = match &data.kind {
            DefKind::Namespace { inner } => {
                let s = cx.defs.scope(*inner);
                s.using_directives.is_empty() && s.using_declarations.is_empty() && s.inline_children.is_empty()
            }
            DefKind::Class { bases, pattern: None, .. } => bases.is_empty() && data.generics.is_none(),
            _ => false,
        };
        if !plain {
            return;
        }
        let found = cx.defs.inner_scope(d).map(|s| cx.defs.lookup_in(s, name)).unwrap_or_default();
        if !found.is_empty() {
            private_nested(cx, syntax, name_range, d, name, &found, reported);
            return;
        }
    }
    let Some(at) = type_name_range(syntax, name_range, name) else { return };
    if reported.contains(&at) {
        return;
    }
    reported.push(at);
    cx.report(Rule::UnknownType, at, format!("`{outer}` declares no type `{name}`"))
        .hint(format!("check where `{name}` is declared and qualify it with that scope"));
}

/// E1405: a type named without its class where only classes declare it (a nested class
/// or alias, [class.nest]); the function is no member of those classes.
fn nested_elsewhere(
    cx: &mut RuleCx,
    syntax: &SyntaxNode,
    name_range: TextRange,
    name: &str,
    reported: &mut Vec<TextRange>,
) -> bool {
    if !cx.tree.types.contains(name) && !cx.tree.declared.contains(name) {
        return false;
    }
    let named = cx.defs.named(name);
    let lib = msl_stdlib::Stdlib::get();
    if named.is_empty()
        || !lib.lookup(name).is_empty()
        || lib.type_named(name).is_some()
        || cx.tree.typedefs.contains_key(name)
    {
        return false;
    }
    let mut owners = Vec::new();
    for &d in &named {
        let data = cx.defs.def(d);
        if !matches!(data.kind, DefKind::Class { .. } | DefKind::Enum { .. } | DefKind::Alias { .. }) {
            return false;
        }
        let Some(owner) = cx.defs.owner_class(d) else { return false };
        owners.push(owner);
    }
    // a member function of one of them (or of a class nested in one) sees the name
    if let Some(me) = cx.def
        && owners.iter().any(|&o| {
            cx.defs
                .inner_scope(o)
                .is_some_and(|inner| cx.defs.enclosing_scopes(cx.defs.def(me).scope).any(|s| s == inner))
        })
    {
        return false;
    }
    let Some(at) = type_name_range(syntax, name_range, name) else { return false };
    if reported.contains(&at) {
        return true;
    }
    reported.push(at);
    let owner = cx.defs.qualified_name(owners[0]);
    let qualified = format!("{owner}::{name}");
    cx.report(Rule::UnknownType, at, format!("`{name}` is declared inside `{owner}`: name it `{qualified}`"))
        .hint(format!("write `{qualified}`"))
        .fix(crate::checks::Fix::replace(format!("Change to `{qualified}`"), at, qualified.clone()));
    true
}

/// E1720: `C::T` where `T` is a private or protected member type of `C` and the function
/// is neither a member of `C` nor may be its friend.
fn private_nested(
    cx: &mut RuleCx,
    syntax: &SyntaxNode,
    name_range: TextRange,
    class: crate::ty::DefId,
    name: &str,
    found: &[crate::ty::DefId],
    reported: &mut Vec<TextRange>,
) {
    if !matches!(cx.defs.def(class).kind, DefKind::Class { .. })
        || !found.iter().all(|&d| cx.defs.is_non_public(d))
        || cx.defs.befriended.contains(&class)
    {
        return;
    }
    if let Some(me) = cx.def
        && cx
            .defs
            .inner_scope(class)
            .is_some_and(|inner| cx.defs.enclosing_scopes(cx.defs.def(me).scope).any(|s| s == inner))
    {
        return;
    }
    let Some(at) = type_name_range(syntax, name_range, name) else { return };
    if reported.contains(&at) {
        return;
    }
    reported.push(at);
    let class_name = cx.defs.qualified_name(class);
    cx.report(Rule::Inaccessible, at, format!("`{name}` is a private type of `{class_name}`"))
        .hint(format!("declare `{name}` after `public:` in `{class_name}`, or use it only inside the class"));
}
