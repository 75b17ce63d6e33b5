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
use crate::defs::{DefKind, ScopeKind};

pub(super) fn check(cx: &mut RuleCx, syntax: Option<&SyntaxNode>) {
    redeclarations(cx);
    let local_classes = syntax.is_some_and(|s| s.descendants().any(|n| n.kind() == SyntaxKind::STRUCT));
    if cx.unit_complete && !cx.infer.in_template && !local_classes {
        called_before_declaration(cx);
        ambiguous_variables(cx, syntax);
        this_outside_members(cx);
        not_a_member(cx);
        library_enumerators(cx);
    }
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
                let body_usings = syntax.is_some_and(|s| {
                    s.descendants().any(|n| {
                        matches!(
                            n.kind(),
                            SyntaxKind::USING_DIRECTIVE | SyntaxKind::USING_DECL | SyntaxKind::NAMESPACE_ALIAS
                        )
                    })
                });
                declared_elsewhere(cx, at, name, body_usings);
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
fn declared_elsewhere(cx: &mut RuleCx, at: TextRange, name: &str, body_usings: bool) {
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
        if let Some(of) = of {
            cx.report(Rule::NotInScope, at, format!("`{name}` is not declared in this function"))
                .hint(format!("`{name}` is a parameter of `{}`; pass it to this function as an argument", of.name));
            return;
        }
        // a template's parameter, named outside the template
        let of = cx
            .defs
            .defs
            .iter()
            .find(|d| d.generics.as_ref().is_some_and(|g| g.params.iter().any(|p| &*p.name == name)));
        let Some(of) = of else { return };
        cx.report(
            Rule::NotInScope,
            at,
            format!("`{name}` is a template parameter of `{}` and is not visible outside it", of.name),
        )
        .hint(format!("use the value `{name}` stands for, or pass it to this function"));
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
    if scoped.len() == named.len() && !scoped.is_empty() {
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
        return;
    }
    not_visible(cx, at, name, &named, owner, body_usings);
}

/// E1401 for a name declared only as a member of namespaces the function does not see
/// (nor through using-directives) or as a static member of classes it is no member of
/// ([basic.lookup.unqual]). Silent when the body has using-directives or -declarations
/// of its own, when a using-declaration anywhere names the name, when the unit has
/// namespace aliases, and for a call that argument-dependent lookup could resolve (an
/// argument of a class or enum type).
fn not_visible(
    cx: &mut RuleCx,
    at: TextRange,
    name: &str,
    named: &[crate::ty::DefId],
    owner: Option<crate::ty::DefId>,
    body_usings: bool,
) {
    if body_usings || owner.is_some() {
        return;
    }
    let defs = cx.defs;
    let mut homes: Vec<String> = Vec::new();
    for &d in named {
        let data = defs.def(d);
        let scope = defs.scope(data.scope);
        let member = match &data.kind {
            DefKind::Function(f) => !f.qualified,
            DefKind::Variable { .. } => !data.name.contains("::"),
            _ => false,
        };
        let home = match scope.kind {
            crate::defs::ScopeKind::Namespace => scope.owner,
            crate::defs::ScopeKind::Class => match &data.kind {
                DefKind::Function(f) if f.is_static => scope.owner,
                DefKind::Variable { .. } => scope.owner,
                _ => None,
            },
            _ => None,
        };
        let (true, Some(home)) = (member, home) else { return };
        homes.push(defs.qualified_name(home));
    }
    let uses_declared = defs
        .scopes
        .iter()
        .any(|s| s.using_declarations.iter().any(|p| p.segments.last().is_some_and(|seg| &*seg.name == name)));
    if uses_declared || defs.defs.iter().any(|d| matches!(d.kind, DefKind::NamespaceAlias { .. })) {
        return;
    }
    // argument-dependent lookup looks in the namespaces of class and enum arguments
    let adl = cx.body.exprs.iter().any(|x| match x {
        crate::body::Expr::Call { callee, args } if cx.range(*callee) == at => args.iter().any(|a| {
            let t = cx.infer.type_of(*a);
            t.is_uncertain() || class_or_enum(&t)
        }),
        _ => false,
    });
    if adl {
        return;
    }
    homes.sort();
    homes.dedup();
    let Some(first) = homes.first().cloned() else { return };
    let qualified = format!("{first}::{name}");
    let report = cx
        .report(Rule::NotInScope, at, format!("`{name}` is not visible here: it is declared in `{first}`"))
        .hint(format!("write `{qualified}`, or bring the name into scope with a using-declaration"));
    if homes.len() == 1 {
        report.fix(crate::checks::Fix::replace(format!("Change to `{qualified}`"), at, qualified));
    }
}

/// Whether a type involves a class or enum (through references, pointers, arrays and
/// template arguments).
fn class_or_enum(t: &crate::ty::Ty) -> bool {
    use crate::ty::{TemplateArg, TyKind};
    match t.non_reference().strip().kind() {
        TyKind::Class { .. } | TyKind::Enum { .. } => true,
        TyKind::Pointer { pointee, .. } => class_or_enum(pointee),
        TyKind::Array { elem, .. } => class_or_enum(elem),
        TyKind::Library { args, .. } => args.iter().any(|a| matches!(a, TemplateArg::Type(t) if class_or_enum(t))),
        _ => false,
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

/// E1401: a call of a function of a namespace that is declared (every overload of it)
/// only after the function that calls it ([basic.lookup.unqual]/1: a name is found among
/// the declarations before its use). Calls with class or enum arguments are left to
/// argument-dependent lookup, which may find a friend declared earlier.
fn called_before_declaration(cx: &mut RuleCx) {
    let Some(me) = cx.def else { return };
    let here = cx.defs.def(me).node;
    for e in &cx.body.exprs {
        let Expr::Call { callee, args } = e else { continue };
        let Some(crate::infer::Resolution::Def(id)) = cx.infer.resolutions.get(callee) else { continue };
        let Some(Expr::Path(p)) = cx.body.exprs.get(callee.0 as usize) else { continue };
        if p.global || p.segments.len() != 1 || !cx.decided(*callee) {
            continue;
        }
        let def = cx.defs.def(*id);
        if !matches!(def.kind, DefKind::Function(_))
            || !matches!(
                cx.defs.scope(def.scope).kind,
                crate::defs::ScopeKind::Namespace | crate::defs::ScopeKind::Global
            )
        {
            continue;
        }
        // a function of the library of that name is found where the unit's is not yet
        if !msl_stdlib::Stdlib::get().lookup(&def.name).is_empty() || msl_syntax::is_library_name(&def.name) {
            continue;
        }
        let all = cx.defs.lookup_in(def.scope, &def.name);
        if all.is_empty() || all.iter().any(|&d| cx.defs.def(d).node <= here) {
            continue;
        }
        if args.iter().any(|a| {
            let t = cx.infer.type_of(*a);
            t.is_uncertain() || class_or_enum(&t)
        }) {
            continue;
        }
        let name = def.name.clone();
        let at = cx.range(*callee);
        cx.report(Rule::NotInScope, at, format!("`{name}` is called before it is declared"))
            .hint(format!("move `{name}` above this function, or declare it (a prototype) before"));
    }
}

/// E1401: `this` in a function that is no non-static member function ([expr.prim.this]).
fn this_outside_members(cx: &mut RuleCx) {
    let Some(me) = cx.def else { return };
    let DefKind::Function(f) = &cx.defs.def(me).kind else { return };
    let member = cx.defs.owner_class(me).is_some();
    if member && !f.is_static {
        return;
    }
    for (i, e) in cx.body.exprs.iter().enumerate() {
        if !matches!(e, Expr::This) {
            continue;
        }
        let at = cx.range(crate::body::ExprId(i as u32));
        let message = if member {
            "`this` is not available in a static member function"
        } else {
            "`this` is only available in member functions"
        };
        cx.report(Rule::NotInScope, at, message).hint("pass the object as a parameter");
    }
}

/// E1401: `C::name` where the class `C` (without bases, no template) declares no `name`
/// ([class.qual]).
fn not_a_member(cx: &mut RuleCx) {
    for &e in &cx.infer.unresolved_names {
        let Some(Expr::Path(p)) = cx.body.exprs.get(e.0 as usize) else { continue };
        if p.global || p.segments.len() != 2 || p.segments.iter().any(|s| s.args.is_some()) || !cx.decided(e) {
            continue;
        }
        let (class, name) = (&*p.segments[0].name, &*p.segments[1].name);
        let named = cx.defs.named(class);
        let all_plain_classes = !named.is_empty()
            && named.iter().all(|&d| {
                let data = cx.defs.def(d);
                matches!(&data.kind, DefKind::Class { bases, pattern: None, .. } if bases.is_empty())
                    && data.generics.is_none()
            });
        if !all_plain_classes
            || named.iter().any(|&d| cx.defs.inner_scope(d).is_some_and(|s| !cx.defs.lookup_in(s, name).is_empty()))
        {
            continue;
        }
        let at = cx.name_range(e, name);
        cx.report(Rule::NotInScope, at, format!("`{class}` has no member named `{name}`"))
            .hint(format!("check the name, or the class that declares `{name}`"));
    }
}

/// E1401: `E::x` (or `metal::E::x`) where `E` is an enum of the library (`address`,
/// `filter`, `compare_func`, `mem_flags`, ...) that has no enumerator `x`, and the unit
/// declares nothing named `E`.
fn library_enumerators(cx: &mut RuleCx) {
    for &e in &cx.infer.unresolved_names {
        let Some(Expr::Path(p)) = cx.body.exprs.get(e.0 as usize) else { continue };
        let n = p.segments.len();
        if !(2..=3).contains(&n) || p.segments.iter().any(|s| s.args.is_some()) || !cx.decided(e) {
            continue;
        }
        if n == 3 && &*p.segments[0].name != "metal" {
            continue;
        }
        let (qualifier, name) = (&*p.segments[n - 2].name, &*p.segments[n - 1].name);
        if !cx.defs.named(qualifier).is_empty()
            || cx.tree.declared.contains(qualifier)
            || cx.body.locals.iter().any(|l| &*l.name == qualifier)
        {
            continue;
        }
        let Some(missing) = crate::checks::missing_library_enumerator(qualifier, name) else { continue };
        let at = cx.name_range(e, name);
        let report = cx.report(Rule::NotInScope, at, missing.message).hint(missing.hint);
        if let Some(c) = missing.closest {
            report.fix(crate::checks::Fix::replace(format!("Change to `{c}`"), at, c));
        }
    }
}

/// E1413: a variable's name that unqualified lookup finds in two namespaces at once,
/// through using-directives ([namespace.udir]/6: the program is ill-formed when the
/// names found are not one entity and not all functions). Only namespace-scope variables
/// are judged, in functions whose body has no using-directive of its own.
fn ambiguous_variables(cx: &mut RuleCx, syntax: Option<&SyntaxNode>) {
    let (Some(syntax), Some(def)) = (syntax, cx.def) else { return };
    if syntax.descendants().any(|n| n.kind() == SyntaxKind::USING_DIRECTIVE) {
        return;
    }
    let scope = cx.defs.def(def).scope;
    let resolver = crate::infer::Resolver::new(cx.defs, scope, None);
    let mut seen: Vec<std::sync::Arc<str>> = Vec::new();
    for (i, e) in cx.body.exprs.iter().enumerate() {
        let Expr::Path(p) = e else { continue };
        let id = crate::body::ExprId(i as u32);
        let [segment] = p.segments.as_slice() else { continue };
        if p.global || segment.args.is_some() || !cx.decided(id) {
            continue;
        }
        let Some(crate::infer::Resolution::Def(d)) = cx.infer.resolutions.get(&id) else { continue };
        if !matches!(cx.defs.def(*d).kind, DefKind::Variable { .. }) || seen.contains(&segment.name) {
            continue;
        }
        let found = resolver.lookup(&segment.name);
        if found.iter().any(|f| !matches!(cx.defs.def(*f).kind, DefKind::Variable { .. })) {
            continue;
        }
        let mut scopes: Vec<crate::defs::ScopeId> = found.iter().map(|f| cx.defs.def(*f).scope).collect();
        scopes.sort_by_key(|s| s.0);
        scopes.dedup();
        if scopes.len() < 2 || scopes.iter().any(|s| cx.defs.scope(*s).kind == ScopeKind::Class) {
            continue;
        }
        seen.push(segment.name.clone());
        let mut places: Vec<String> = found.iter().map(|f| format!("`{}`", cx.defs.qualified_name(*f))).collect();
        places.dedup();
        let name = segment.name.clone();
        let first = places[0].clone();
        cx.report(Rule::Ambiguous, cx.range(id), format!("`{name}` is ambiguous: it may be {}", places.join(" or ")))
            .hint(format!("using-directives make several visible here; qualify it, as in {first}"));
    }
}
