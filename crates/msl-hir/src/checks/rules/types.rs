//! Types named in declarations: a local declared with a type name that nothing declares
//! (C++17 [dcl.type.simple]; the unit, its namespaces and the library are all known). The
//! name is reported where it is written, with the closest type as a suggestion.

use msl_syntax::{SyntaxKind, SyntaxNode, TextRange};

use super::{Rule, RuleCx};
use crate::ty::TypeBase;

pub(super) fn check(cx: &mut RuleCx, syntax: Option<&SyntaxNode>) {
    if !cx.names_checkable || cx.infer.in_template {
        return;
    }
    let Some(syntax) = syntax else { return };
    let lib = msl_stdlib::Stdlib::get();
    let mut reported: Vec<TextRange> = Vec::new();
    for (i, l) in cx.body.locals.iter().enumerate() {
        let TypeBase::Path(p) = &l.ty.base else { continue };
        if p.global || p.segments.len() != 1 || p.segments[0].args.is_some() {
            continue;
        }
        let name = &*p.segments[0].name;
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
fn type_name_range(syntax: &SyntaxNode, name_range: TextRange, name: &str) -> Option<TextRange> {
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
