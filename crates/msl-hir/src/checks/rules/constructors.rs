//! Constructors (C++17 [class.ctor], [dcl.init], [over.match.ctor]): how a local of a
//! class of the unit is initialized must pick a constructor the class has.
//! - `C x;` (and arrays of `C`) needs a default constructor: one that takes no
//!   arguments, not deleted; without constructors of its own, a class has one unless a
//!   member cannot be default-initialized (a member of a class without one, a reference or
//!   a `const` number without a default member initializer: [class.default.ctor]/2);
//! - `C x(a, b)` needs a constructor that takes that many arguments of those types; a
//!   class without constructors takes no parenthesized list in C++17 (aggregates are
//!   initialized with braces);
//! - `C x = v` with one value of another type needs a converting constructor that is not
//!   `explicit` ([class.conv.ctor]);
//! - a constructor that is private or protected is only for the class and its friends
//!   ([class.access]);
//! - a member initializer names a data member of the class ([class.base.init]/2).
//!
//! Only classes whose constructors are all known are judged: defined once in the unit,
//! no bases, not templates.

use msl_syntax::{SyntaxKind, SyntaxNode, TextRange};

use super::{Rule, RuleCx};
use crate::body::{Expr, LocalKind};
use crate::defs::{DefKind, FunctionData};
use crate::ty::{DefId, Ty, TyKind};

/// How a local is initialized, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Default,
    /// `= v`
    Copy,
    /// `(a, ...)`
    Paren,
    /// `{...}` or `= {...}`
    Braces,
}

pub(super) fn check(cx: &mut RuleCx, syntax: Option<&SyntaxNode>) {
    let Some(syntax) = syntax else { return };
    if cx.infer.in_template || !cx.unit_complete {
        return;
    }
    member_initializers(cx, syntax);
    for (i, l) in cx.body.locals.iter().enumerate() {
        if l.kind != LocalKind::Var || !l.ty.ops.iter().all(|op| matches!(op, crate::ty::TypeRefOp::Array(_))) {
            continue;
        }
        let Some(t) = cx.infer.local_types.get(i) else { continue };
        let is_array = !l.ty.ops.is_empty();
        let class_ty = match t.strip().kind() {
            TyKind::Array { elem, .. } if is_array => elem.strip(),
            _ if !is_array => t.strip(),
            _ => continue,
        };
        let Some(&name_range) = cx.map.local_ranges.get(i) else { continue };
        if let (TyKind::Scalar(target), false, Some(init)) = (class_ty.kind(), is_array, l.init)
            && form_of(syntax, name_range, true) == Form::Braces
            && !designated(syntax, name_range)
        {
            let elems = braced_elements(cx, init);
            if let [one] = elems.as_slice() {
                narrowing(cx, *one, *target);
            }
            continue;
        }
        let TyKind::Class { def, args, .. } = class_ty.kind() else { continue };
        if !args.is_empty() || !known_class(cx, *def) {
            continue;
        }
        let form = form_of(syntax, name_range, l.init.is_some());
        if is_array && form != Form::Default {
            continue;
        }
        let args: Vec<crate::body::ExprId> = match (form, l.init) {
            (Form::Default, _) | (_, None) => Vec::new(),
            (Form::Paren, Some(init)) => match cx.body.exprs.get(init.0 as usize) {
                Some(Expr::InitList { elems }) => elems.clone(),
                _ => vec![init],
            },
            (_, Some(init)) => vec![init],
        };
        if args.iter().any(|a| !cx.decided(*a)) {
            continue;
        }
        match form {
            Form::Default => default_construction(cx, *def, name_range),
            Form::Paren => paren_construction(cx, *def, name_range, &args),
            Form::Copy => copy_construction(cx, *def, name_range, &args),
            Form::Braces => {
                if let Some(init) = l.init
                    && constructors(cx, *def).is_empty()
                    && !designated(syntax, name_range)
                {
                    let elems = braced_elements(cx, init);
                    aggregate(cx, *def, &elems);
                }
            }
        }
    }
}

/// A class whose constructors are all known: declared once in its scope, no bases, no
/// template, not a specialization.
fn known_class(cx: &RuleCx, def: DefId) -> bool {
    let d = cx.defs.def(def);
    let DefKind::Class { bases, pattern: None, .. } = &d.kind else { return false };
    if !bases.is_empty() || d.generics.is_some() || d.name.is_empty() {
        return false;
    }
    let classes = cx
        .defs
        .lookup_in(d.scope, &d.name)
        .into_iter()
        .filter(|&c| matches!(cx.defs.def(c).kind, DefKind::Class { .. }))
        .count();
    classes == 1
}

/// The constructors a class declares in its definition.
fn constructors<'a>(cx: &RuleCx<'a>, def: DefId) -> Vec<(DefId, &'a FunctionData)> {
    let d = cx.defs.def(def);
    let Some(inner) = cx.defs.inner_scope(def) else { return Vec::new() };
    cx.defs
        .lookup_in(inner, &d.name)
        .into_iter()
        .filter_map(|c| match &cx.defs.def(c).kind {
            DefKind::Function(f) if f.ret.is_none() && !f.qualified => Some((c, &**f)),
            _ => None,
        })
        .collect()
}

fn takes(f: &FunctionData, n: usize) -> bool {
    let required = f.params.iter().filter(|p| !p.has_default).count();
    n >= required && (n <= f.params.len() || f.variadic)
}

/// Whether a class can be default-initialized, when that is sure (`None`: not known).
fn default_constructible(cx: &RuleCx, def: DefId, depth: u32) -> Option<bool> {
    if depth > 4 || !known_class(cx, def) {
        return None;
    }
    let ctors = constructors(cx, def);
    if !ctors.is_empty() {
        return Some(ctors.iter().any(|(_, f)| takes(f, 0) && !f.deleted));
    }
    let DefKind::Class { fields, inner, .. } = &cx.defs.def(def).kind else { return None };
    let resolver = crate::infer::Resolver::new(cx.defs, *inner, None);
    for &field in fields {
        let DefKind::Field(data) = &cx.defs.def(field).kind else { continue };
        if data.has_init {
            continue;
        }
        let lowered = data.ty.lower(&resolver);
        match lowered.ty.strip().kind() {
            TyKind::Reference { .. } => return Some(false),
            TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. } if lowered.cv.is_const => {
                return Some(false);
            }
            TyKind::Class { def: member, args, .. } if args.is_empty() => {
                if default_constructible(cx, *member, depth + 1)? {
                    continue;
                }
                return Some(false);
            }
            TyKind::Array { elem, .. } => {
                if let TyKind::Class { def: member, args, .. } = elem.strip().kind()
                    && args.is_empty()
                    && !default_constructible(cx, *member, depth + 1)?
                {
                    return Some(false);
                }
            }
            _ if lowered.ty.is_uncertain() => return None,
            _ => {}
        }
    }
    Some(true)
}

fn default_construction(cx: &mut RuleCx, def: DefId, at: TextRange) {
    let name = cx.defs.def(def).name.clone();
    let ctors = constructors(cx, def);
    if ctors.is_empty() {
        if default_constructible(cx, def, 0) == Some(false) {
            cx.report(
                Rule::NoConstructor,
                at,
                format!("`{name}` cannot be default-initialized: a member of it has no default value"),
            )
            .hint("give the members default initializers, or initialize the variable with values");
        }
        return;
    }
    let usable: Vec<&(DefId, &FunctionData)> = ctors.iter().filter(|(_, f)| takes(f, 0)).collect();
    if usable.is_empty() {
        cx.report(Rule::NoConstructor, at, format!("`{name}` has no default constructor"))
            .hint(format!("pass the arguments a constructor of `{name}` takes, or declare `{name}() = default;`"));
    } else if usable.iter().all(|(_, f)| f.deleted) {
        cx.report(Rule::NoConstructor, at, format!("the default constructor of `{name}` is deleted"))
            .hint(format!("pass the arguments another constructor of `{name}` takes"));
    } else {
        inaccessible(cx, def, at, &usable);
    }
}

fn paren_construction(cx: &mut RuleCx, def: DefId, at: TextRange, args: &[crate::body::ExprId]) {
    let name = cx.defs.def(def).name.clone();
    let types: Vec<Ty> = args.iter().map(|a| cx.infer.type_of(*a).non_reference()).collect();
    if types.iter().any(Ty::is_uncertain) {
        return;
    }
    // the copy and move constructors every class has
    if let [one] = types.as_slice()
        && matches!(one.strip().kind(), TyKind::Class { def: d, .. } if *d == def)
    {
        return;
    }
    let ctors = constructors(cx, def);
    if ctors.is_empty() {
        cx.report(
            Rule::NoConstructor,
            at,
            format!("`{name}` has no constructors: it cannot be initialized with `(...)`"),
        )
        .hint(format!("initialize it with braces: `{name} x = {{ ... }};`"));
        return;
    }
    let counted: Vec<&(DefId, &FunctionData)> = ctors.iter().filter(|(_, f)| takes(f, args.len())).collect();
    let list = types.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    if counted.is_empty() {
        let n = args.len();
        cx.report(
            Rule::NoConstructor,
            at,
            format!("no constructor of `{name}` takes {n} argument{}", if n == 1 { "" } else { "s" }),
        )
        .hint(format!("the constructors of `{name}` are shown in its hover"));
        return;
    }
    let fitting: Vec<&(DefId, &FunctionData)> =
        counted.iter().copied().filter(|(c, f)| !certainly_rejects(cx, *c, f, &types)).collect();
    if fitting.is_empty() {
        cx.report(Rule::NoConstructor, at, format!("no constructor of `{name}` takes ({list})"))
            .hint(format!("the constructors of `{name}` are shown in its hover"));
        return;
    }
    if fitting.iter().all(|(_, f)| f.deleted) {
        cx.report(Rule::NoConstructor, at, format!("the constructor of `{name}` that takes ({list}) is deleted"));
        return;
    }
    inaccessible(cx, def, at, &fitting);
}

fn copy_construction(cx: &mut RuleCx, def: DefId, at: TextRange, args: &[crate::body::ExprId]) {
    let [arg] = args else { return };
    let t = cx.infer.type_of(*arg).non_reference();
    if t.is_uncertain() || matches!(t.strip().kind(), TyKind::Class { .. } | TyKind::Library { .. }) {
        return;
    }
    let ctors = constructors(cx, def);
    let converting: Vec<&(DefId, &FunctionData)> =
        ctors.iter().filter(|(c, f)| takes(f, 1) && !certainly_rejects(cx, *c, f, std::slice::from_ref(&t))).collect();
    if !converting.is_empty() && converting.iter().all(|(_, f)| f.explicit) {
        let name = cx.defs.def(def).name.clone();
        cx.report(
            Rule::NoConstructor,
            at,
            format!("the constructor of `{name}` that takes `{t}` is `explicit`: it is not used for `= value`"),
        )
        .hint(format!("write `{name} x(value)` or `{name} x = {name}(value)`"));
    }
}

/// E1720 when every candidate constructor is private or protected and the function is
/// neither a member of the class nor may be its friend.
fn inaccessible(cx: &mut RuleCx, def: DefId, at: TextRange, candidates: &[&(DefId, &FunctionData)]) {
    if candidates.is_empty() || !candidates.iter().all(|(c, _)| cx.defs.is_non_public(*c)) {
        return;
    }
    let inside = cx.def.and_then(|d| cx.defs.owner_class(d)) == Some(def);
    if inside || cx.defs.befriended.contains(&def) {
        return;
    }
    let name = cx.defs.def(def).name.clone();
    cx.report(Rule::Inaccessible, at, format!("the constructor of `{name}` is private"))
        .hint(format!("make it `public`, or build the value with a static function of `{name}`"));
}

/// Whether a constructor certainly cannot take arguments of these types: an argument
/// that is a number where the parameter is a plain class, a plain class where it is a
/// number, or a vector where the parameter is a vector of another size.
fn certainly_rejects(cx: &RuleCx, ctor: DefId, f: &FunctionData, args: &[Ty]) -> bool {
    let Some(scope) = cx.defs.inner_scope(cx.defs.owner_class(ctor).unwrap_or(ctor)) else { return false };
    let resolver = crate::infer::Resolver::new(cx.defs, scope, None);
    f.params.iter().zip(args).any(|(p, a)| {
        let pt = p.ty.lower(&resolver).ty.non_reference().strip();
        if pt.is_uncertain() {
            return false;
        }
        let a = a.strip();
        match (pt.kind(), a.kind()) {
            (TyKind::Vector { len: x, .. }, TyKind::Vector { len: y, .. }) => x != y,
            (TyKind::Scalar(_), TyKind::Vector { .. } | TyKind::Matrix { .. }) => true,
            (TyKind::Vector { .. } | TyKind::Scalar(_) | TyKind::Matrix { .. }, TyKind::Class { .. }) => {
                plain_class(cx, &a)
            }
            (TyKind::Class { def: x, .. }, TyKind::Class { def: y, .. }) => {
                x != y && plain_class(cx, &a) && known_class(cx, *x) && constructors(cx, *x).is_empty()
            }
            _ => false,
        }
    })
}

/// A class of the unit without operators or conversion functions, no bases, no template.
fn plain_class(cx: &RuleCx, t: &Ty) -> bool {
    let stripped = t.strip();
    let TyKind::Class { def, args, .. } = stripped.kind() else { return false };
    if !args.is_empty() || !known_class(cx, *def) {
        return false;
    }
    let Some(inner) = cx.defs.inner_scope(*def) else { return false };
    !cx.defs.scope(inner).names.keys().any(|n| n.starts_with("operator"))
}

/// The form of a local's initializer, from its declarator.
fn form_of(syntax: &SyntaxNode, name_range: TextRange, has_init: bool) -> Form {
    if !has_init {
        return Form::Default;
    }
    let Some(tok) = syntax.covering_element(name_range).into_token() else { return Form::Braces };
    let Some(init) = tok
        .parent_ancestors()
        .find(|a| a.kind() == SyntaxKind::INIT_DECLARATOR)
        .and_then(|d| d.children().find(|c| c.kind() == SyntaxKind::INITIALIZER))
    else {
        return Form::Braces;
    };
    let eq = init.children_with_tokens().any(|e| e.kind() == SyntaxKind::EQ);
    let braces = init.descendants_with_tokens().skip(1).find(|e| !e.kind().is_trivia() && e.kind() != SyntaxKind::EQ);
    let first = braces.map(|e| e.kind());
    match (eq, first) {
        (_, Some(SyntaxKind::INIT_LIST | SyntaxKind::L_CURLY)) => Form::Braces,
        (true, _) => Form::Copy,
        (false, Some(SyntaxKind::ARG_LIST | SyntaxKind::L_PAREN)) => Form::Paren,
        _ => Form::Braces,
    }
}

/// E1714: a member initializer of a constructor that names no data member of the class.
fn member_initializers(cx: &mut RuleCx, syntax: &SyntaxNode) {
    let Some(me) = cx.def else { return };
    let Some(class) = cx.defs.owner_class(me) else { return };
    if !known_class(cx, class) {
        return;
    }
    let Some(inner) = cx.defs.inner_scope(class) else { return };
    let class_name = cx.defs.def(class).name.clone();
    let Some(list) = syntax.children().find(|c| c.kind() == SyntaxKind::CTOR_INITIALIZER) else { return };
    for init in list.children().filter(|c| c.kind() == SyntaxKind::MEM_INITIALIZER) {
        // the name initialized: one identifier (a qualified or templated name is a base
        // class's)
        let Some(first) = init.first_child_or_token() else { continue };
        if init.children().any(|c| !matches!(c.kind(), SyntaxKind::ARG_LIST | SyntaxKind::INIT_LIST)) {
            continue;
        }
        let Some(name) = first.into_token().filter(|t| t.kind() == SyntaxKind::IDENT) else { continue };
        let name = &name;
        let text = name.text();
        if *text == *class_name || !cx.defs.lookup_in(inner, text).is_empty() {
            continue;
        }
        let at = name.text_range();
        let mut fields: Vec<String> = match &cx.defs.def(class).kind {
            DefKind::Class { fields, .. } => fields.iter().map(|f| cx.defs.def(*f).name.to_string()).collect(),
            _ => Vec::new(),
        };
        fields.retain(|f| !f.is_empty());
        let closest = crate::checks::closest(text, fields.iter().map(|s| s.as_str())).map(str::to_string);
        let report =
            cx.report(Rule::NoSuchMember, at, format!("`{class_name}` has no member named `{text}` to initialize"));
        if let Some(c) = closest {
            report.hint(format!("did you mean `{c}`?")).fix(crate::checks::Fix::replace(
                format!("Change to `{c}`"),
                at,
                c,
            ));
        }
    }
}

/// The values of a brace initializer.
fn braced_elements(cx: &RuleCx, init: crate::body::ExprId) -> Vec<crate::body::ExprId> {
    match cx.body.exprs.get(init.0 as usize) {
        Some(Expr::InitList { elems }) => elems.clone(),
        _ => vec![init],
    }
}

/// Whether the local's initializer names members (`{ .x = 1 }`).
fn designated(syntax: &SyntaxNode, name_range: TextRange) -> bool {
    let Some(tok) = syntax.covering_element(name_range).into_token() else { return true };
    let Some(decl) = tok.parent_ancestors().find(|a| a.kind() == SyntaxKind::INIT_DECLARATOR) else { return true };
    decl.descendants().any(|d| d.kind() == SyntaxKind::DESIGNATED_INIT)
}

/// E1702: a floating-point value in braces for an integer ([dcl.init.list]/7: a
/// narrowing conversion, which braces forbid even for constants).
fn narrowing(cx: &mut RuleCx, e: crate::body::ExprId, target: crate::ty::Scalar) -> bool {
    let Some(t) = Some(cx.infer.type_of(e).non_reference()).filter(|t| !t.is_uncertain()) else { return false };
    let stripped = t.strip();
    let TyKind::Scalar(from) = stripped.kind() else { return false };
    if !(from.is_float() && !target.is_float() && target.name() != "bool") {
        return false;
    }
    let at = cx.range(e);
    cx.report(
        Rule::NoConversion,
        at,
        format!("a `{}` in braces cannot become a `{}`: the conversion narrows", from.name(), target.name()),
    )
    .hint(format!("convert it explicitly: `{}(...)`", target.name()));
    true
}

/// An aggregate (a class without constructors) initialized with braces: more values than
/// members, a value of a class where a member is a number, or a narrowing conversion.
/// Only classes whose members are all numbers are judged, with values that each fill one
/// member (a scalar for a vector member could be spread over its components).
fn aggregate(cx: &mut RuleCx, def: DefId, elems: &[crate::body::ExprId]) {
    let DefKind::Class { fields, inner, key, .. } = &cx.defs.def(def).kind else { return };
    if *key == crate::defs::ClassKey::Union || fields.is_empty() {
        return;
    }
    let resolver = crate::infer::Resolver::new(cx.defs, *inner, None);
    let mut types = Vec::new();
    for &f in fields {
        let DefKind::Field(data) = &cx.defs.def(f).kind else { return };
        if data.name.is_empty() {
            return;
        }
        let t = data.ty.lower(&resolver).ty;
        if t.is_uncertain()
            || !matches!(t.strip().kind(), TyKind::Scalar(_) | TyKind::Vector { .. } | TyKind::Matrix { .. })
        {
            return;
        }
        types.push(t.strip());
    }
    let values: Vec<Ty> = elems.iter().map(|e| cx.infer.type_of(*e).non_reference()).collect();
    if values.iter().any(Ty::is_uncertain) || elems.iter().any(|e| !cx.decided(*e)) {
        return;
    }
    let name = cx.defs.def(def).name.clone();
    for (k, (e, v)) in elems.iter().zip(&values).enumerate() {
        let v = v.strip();
        let Some(field) = types.get(k) else {
            let at = cx.range(*e);
            cx.report(
                Rule::ExtraInitializer,
                at,
                format!(
                    "`{name}` has {} member{}; this value has none left to initialize",
                    types.len(),
                    if types.len() == 1 { "" } else { "s" }
                ),
            )
            .hint("remove the extra value, or add the member it is meant for");
            return;
        };
        match (field.kind(), v.kind()) {
            (TyKind::Scalar(target), TyKind::Scalar(_)) => {
                if narrowing(cx, *e, *target) {
                    return;
                }
            }
            (_, TyKind::Class { .. }) if plain_class(cx, &v) => {
                let at = cx.range(*e);
                cx.report(Rule::NoConversion, at, format!("a `{v}` cannot initialize a member of type `{field}`"))
                    .hint("pass the member of it that is meant");
                return;
            }
            // a value that fills the member exactly
            _ if *field == v => {}
            // a scalar may be spread over a vector's components: not judged further
            _ => return,
        }
    }
}
