//! What a name refers to: a parameter or local variable, a declaration of the unit, a
//! macro, or something of the standard library.

use msl_stdlib::{AttributeDef, Entry, Stdlib};
use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

use crate::index::{ItemIndex, ItemSym};
use crate::locate::{FileCtx, name_idents};
use crate::symbols::SymbolKind;

/// The meaning of a name.
#[derive(Debug, Clone)]
pub(crate) enum Def {
    /// A parameter, local variable or template parameter: `decl` is the parameter,
    /// the init-declarator or the template parameter; `name` the tree range of its name.
    Local {
        name: TextRange,
        decl: SyntaxNode,
        kind: LocalKind,
    },
    /// A declaration of the unit outside function bodies.
    Item(ItemSym),
    /// A macro, by index into the unit's macro definitions.
    Macro(u32),
    /// Library entries of that name (overloads of a function are one entry).
    Builtin(Vec<Entry>),
    Attribute(&'static AttributeDef),
    /// Components of a vector.
    Swizzle {
        vector: String,
        components: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LocalKind {
    Param,
    Var,
    TemplateParam,
}

impl Def {
    /// Two meanings are the same symbol (for references and renames).
    pub fn same(&self, other: &Def) -> bool {
        match (self, other) {
            (Def::Local { name: a, .. }, Def::Local { name: b, .. }) => a == b,
            (Def::Item(a), Def::Item(b)) => {
                a.name_range == b.name_range
                    || (a.name == b.name && a.kind.is_callable() && b.kind.is_callable() && a.container == b.container)
            }
            (Def::Macro(a), Def::Macro(b)) => a == b,
            _ => false,
        }
    }
}

/// Resolves the identifier `tok` of the tree.
pub(crate) fn resolve(cx: &FileCtx, tok: &SyntaxToken, prefer_declaration: bool) -> Option<Def> {
    if tok.kind() != SyntaxKind::IDENT {
        return None;
    }
    let name = tok.text();
    let parent = tok.parent()?;
    let lib = Stdlib::get();
    if parent.kind() == SyntaxKind::ATTRIBUTE {
        let first = parent.children_with_tokens().find(|e| e.kind() == SyntaxKind::IDENT)?;
        if first.as_token() == Some(tok) {
            return lib.attributes_named(name).next().map(Def::Attribute);
        }
        return None;
    }
    // inside `[[ ]]` arguments (`[[user(locn0)]]`) names mean nothing in C++ scope
    if parent.ancestors().any(|a| a.kind() == SyntaxKind::ATTR_ARGS) {
        return None;
    }
    // the name of a declaration
    if parent.kind() == SyntaxKind::NAME
        && let Some(def) = declaration_of_name(cx, tok, &parent)
    {
        return Some(def);
    }
    // `x.member`, `p->member`
    if parent.kind() == SyntaxKind::MEMBER_EXPR && is_after_member_operator(tok) {
        return resolve_member(cx, &parent, name);
    }
    let qualifier = qualifier(tok);
    if !qualifier.is_empty() {
        return resolve_qualified(cx, &qualifier, name);
    }
    if let Some(def) = resolve_local(tok, name) {
        return Some(def);
    }
    let index = cx.index();
    let context = containers_at(tok);
    if let Some(sym) = index.resolve(name, &context, prefer_declaration) {
        return Some(Def::Item(sym.clone()));
    }
    if let Some(m) = macro_named(cx, name) {
        return Some(Def::Macro(m));
    }
    builtin(name)
}

pub(crate) fn builtin(name: &str) -> Option<Def> {
    // an unqualified name never means an enumerator of a scoped enum (`depth_clip_mode::clamp`)
    let entries: Vec<Entry> = Stdlib::get()
        .lookup(name)
        .iter()
        .copied()
        .filter(|e| !matches!(e, Entry::Attribute(_) | Entry::Method(_) | Entry::Member(_)))
        .filter(|e| !matches!(e, Entry::EnumMember(en, _) if en.scoped))
        .collect();
    (!entries.is_empty()).then_some(Def::Builtin(entries))
}

/// The last definition of a macro named `name`.
pub(crate) fn macro_named(cx: &FileCtx, name: &str) -> Option<u32> {
    cx.parse.preprocessed().macros.iter().rposition(|m| &*m.name == name).map(|i| i as u32)
}

fn is_after_member_operator(tok: &SyntaxToken) -> bool {
    let mut prev = tok.prev_sibling_or_token();
    while let Some(p) = &prev {
        if p.kind().is_trivia() || p.kind() == SyntaxKind::TEMPLATE_KW {
            prev = p.prev_sibling_or_token();
            continue;
        }
        return matches!(p.kind(), SyntaxKind::DOT | SyntaxKind::ARROW);
    }
    false
}

/// The qualifier written before a name: `metal` for `metal::clamp`, `A::B` for `A::B::c`.
pub(crate) fn qualifier(tok: &SyntaxToken) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut el = tok.prev_sibling_or_token();
    let mut expect_colons = true;
    while let Some(e) = el {
        let k = e.kind();
        if k.is_trivia() || k == SyntaxKind::TEMPLATE_ARG_LIST || k == SyntaxKind::TEMPLATE_KW {
            el = e.prev_sibling_or_token();
            continue;
        }
        if expect_colons {
            if k != SyntaxKind::COLON2 {
                break;
            }
            expect_colons = false;
        } else {
            if k != SyntaxKind::IDENT {
                break;
            }
            if let Some(t) = e.as_token() {
                parts.push(t.text().to_string());
            }
            expect_colons = true;
        }
        el = e.prev_sibling_or_token();
    }
    parts.reverse();
    parts.join("::")
}

/// The structs and namespaces around a token, innermost first, then file scope (`""`).
pub(crate) fn containers_at(tok: &SyntaxToken) -> Vec<String> {
    let mut out = Vec::new();
    let mut namespaces: Vec<String> = Vec::new();
    for a in tok.parent_ancestors() {
        match a.kind() {
            SyntaxKind::STRUCT | SyntaxKind::ENUM => {
                let name = a.children().find(|c| c.kind() == SyntaxKind::NAME).map(|n| name_text(&n));
                if let Some(n) = name {
                    out.push(n);
                }
            }
            SyntaxKind::NAMESPACE => {
                if let Some(n) = a.children().find(|c| c.kind() == SyntaxKind::NAME) {
                    namespaces.push(name_text(&n));
                }
            }
            SyntaxKind::FUNCTION => {
                // a member function defined outside its class: `void S::f() { ... }`
                if let Some(n) = ast::Function::cast(a.clone()).and_then(|f| f.name()) {
                    let qualifier = crate::index::qualifier_of(&n);
                    if !qualifier.is_empty() {
                        out.push(qualifier);
                    }
                }
            }
            _ => {}
        }
    }
    // nested namespaces as the index names them: `a::b`
    for i in 0..namespaces.len() {
        let mut parts: Vec<&str> = namespaces[i..].iter().map(|s| s.as_str()).collect();
        parts.reverse();
        out.push(parts.join("::"));
    }
    out.push(String::new());
    out
}

fn name_text(name: &SyntaxNode) -> String {
    name_idents(name).last().map(|t| t.text().to_string()).unwrap_or_default()
}

/// When `tok` is the name being declared: the local or item it declares.
fn declaration_of_name(cx: &FileCtx, tok: &SyntaxToken, name: &SyntaxNode) -> Option<Def> {
    let holder = name.parent()?;
    let range = tok.text_range();
    let in_body =
        holder.ancestors().any(|a| a.kind() == SyntaxKind::COMPOUND_STMT || a.kind() == SyntaxKind::LAMBDA_EXPR);
    match holder.kind() {
        SyntaxKind::DECLARATOR => {
            let decl = holder.ancestors().find(|a| {
                matches!(
                    a.kind(),
                    SyntaxKind::PARAM | SyntaxKind::INIT_DECLARATOR | SyntaxKind::FUNCTION | SyntaxKind::TYPEDEF_DECL
                )
            })?;
            match decl.kind() {
                SyntaxKind::PARAM => {
                    return Some(Def::Local { name: range, decl, kind: LocalKind::Param });
                }
                SyntaxKind::INIT_DECLARATOR if in_body => {
                    return Some(Def::Local { name: range, decl, kind: LocalKind::Var });
                }
                _ => {}
            }
        }
        SyntaxKind::TYPE_PARAM | SyntaxKind::NON_TYPE_PARAM => {
            return Some(Def::Local { name: range, decl: holder, kind: LocalKind::TemplateParam });
        }
        _ => {}
    }
    if in_body {
        return None;
    }
    let index = cx.index();
    index.syms.iter().find(|s| s.name_range == range).map(|s| Def::Item(s.clone()))
}

/// A parameter, local variable or template parameter named `name` visible at `tok`.
pub(crate) fn resolve_local(tok: &SyntaxToken, name: &str) -> Option<Def> {
    let at = tok.text_range().start();
    for anc in tok.parent_ancestors() {
        match anc.kind() {
            SyntaxKind::COMPOUND_STMT => {
                let mut found = None;
                for stmt in anc.children() {
                    if stmt.text_range().start() >= at {
                        break;
                    }
                    if stmt.kind() == SyntaxKind::DECL_STMT {
                        for v in stmt.children().filter(|c| c.kind() == SyntaxKind::VAR_DECL) {
                            if let Some(d) = declarator_named(&v, name, at) {
                                found = Some(d);
                            }
                        }
                    }
                }
                if found.is_some() {
                    return found;
                }
            }
            SyntaxKind::FOR_STMT
            | SyntaxKind::RANGE_FOR_STMT
            | SyntaxKind::IF_STMT
            | SyntaxKind::WHILE_STMT
            | SyntaxKind::SWITCH_STMT => {
                for part in anc.children().filter(|c| {
                    matches!(
                        c.kind(),
                        SyntaxKind::FOR_INIT | SyntaxKind::CONDITION | SyntaxKind::VAR_DECL | SyntaxKind::PARAM
                    )
                }) {
                    for v in std::iter::once(part.clone()).chain(part.children()) {
                        if v.kind() == SyntaxKind::VAR_DECL
                            && let Some(d) = declarator_named(&v, name, at)
                        {
                            return Some(d);
                        }
                        if v.kind() == SyntaxKind::PARAM
                            && let Some(d) = param_named(&v, name)
                        {
                            return Some(d);
                        }
                    }
                }
            }
            SyntaxKind::LAMBDA_EXPR | SyntaxKind::CATCH_CLAUSE => {
                for list in anc.children().filter(|c| c.kind() == SyntaxKind::PARAM_LIST) {
                    for p in list.children() {
                        if let Some(d) = param_named(&p, name) {
                            return Some(d);
                        }
                    }
                }
                for p in anc.children().filter(|c| c.kind() == SyntaxKind::PARAM) {
                    if let Some(d) = param_named(&p, name) {
                        return Some(d);
                    }
                }
            }
            SyntaxKind::FUNCTION => {
                if let Some(params) = ast::Function::cast(anc.clone()).and_then(|f| f.param_list()) {
                    for p in params.params() {
                        if let Some(d) = param_named(p.syntax(), name) {
                            return Some(d);
                        }
                    }
                }
            }
            SyntaxKind::TEMPLATE_DECL => {
                for list in anc.children().filter(|c| c.kind() == SyntaxKind::TEMPLATE_PARAM_LIST) {
                    for p in list.children() {
                        let n = p.children().find(|c| c.kind() == SyntaxKind::NAME).or_else(|| {
                            p.children()
                                .find(|c| c.kind() == SyntaxKind::DECLARATOR)
                                .and_then(|d| d.children().find(|c| c.kind() == SyntaxKind::NAME))
                        });
                        if let Some(n) = n
                            && let Some(t) = name_idents(&n).last()
                            && t.text() == name
                        {
                            return Some(Def::Local { name: t.text_range(), decl: p, kind: LocalKind::TemplateParam });
                        }
                    }
                }
            }
            _ => {}
        }
    }
    None
}

fn declarator_named(var: &SyntaxNode, name: &str, before: TextSize) -> Option<Def> {
    let v = ast::VarDecl::cast(var.clone())?;
    let mut found = None;
    for d in v.declarators() {
        if let Some(n) = d.name()
            && let Some(t) = n.ident()
            && t.text() == name
            && t.text_range().start() < before
        {
            found = Some(Def::Local { name: t.text_range(), decl: d.syntax().clone(), kind: LocalKind::Var });
        }
    }
    found
}

fn param_named(param: &SyntaxNode, name: &str) -> Option<Def> {
    let p = ast::Param::cast(param.clone())?;
    let t = p.name()?.ident()?;
    (t.text() == name).then(|| Def::Local { name: t.text_range(), decl: param.clone(), kind: LocalKind::Param })
}

fn resolve_qualified(cx: &FileCtx, qualifier: &str, name: &str) -> Option<Def> {
    let lib = Stdlib::get();
    let last = qualifier.rsplit("::").next().unwrap_or(qualifier);
    if last != "metal" && last != "std" {
        let index = cx.index();
        if let Some(s) = index.named(name).find(|s| s.container == last || s.container.ends_with(&format!("::{last}")))
        {
            return Some(Def::Item(s.clone()));
        }
    }
    let entries: Vec<Entry> = lib
        .lookup_qualified(last, name)
        .into_iter()
        .filter(|e| !matches!(e, Entry::Attribute(_) | Entry::Method(_) | Entry::Member(_)))
        .collect();
    if !entries.is_empty() {
        return Some(Def::Builtin(entries));
    }
    if last == "metal" || last == "std" {
        return builtin(name);
    }
    None
}

/// The type of an expression as far as navigation needs it: the name of a struct or
/// library type, with its template arguments as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TypeName {
    /// `float4`, `texture2d`, `Params`, `metal::float4` stripped to `float4`.
    pub base: String,
    /// The whole type as written (`texture2d<float, access::read>`).
    pub written: String,
}

/// The declared type of a definition (variables, parameters, fields, functions' return
/// types), when it names one type.
pub(crate) fn declared_type(def: &Def) -> Option<(TypeName, bool)> {
    let (spec, declarator) = match def {
        Def::Local { decl, kind: LocalKind::Param, .. } => {
            let p = ast::Param::cast(decl.clone())?;
            (p.decl_specifiers()?, p.declarator())
        }
        Def::Local { decl, kind: LocalKind::Var, .. } => {
            let var = decl.parent()?;
            let v = ast::VarDecl::cast(var)?;
            (v.decl_specifiers()?, ast::InitDeclarator::cast(decl.clone()).and_then(|d| d.declarator()))
        }
        Def::Item(sym) => match sym.kind {
            SymbolKind::Field | SymbolKind::Variable | SymbolKind::Constant => {
                let var = sym.node.parent()?;
                let v = ast::VarDecl::cast(var)?;
                (v.decl_specifiers()?, ast::InitDeclarator::cast(sym.node.clone()).and_then(|d| d.declarator()))
            }
            SymbolKind::Function | SymbolKind::Method => {
                let f = ast::Function::cast(sym.node.clone())?;
                (f.decl_specifiers()?, f.declarator())
            }
            _ => return None,
        },
        _ => return None,
    };
    let ts = spec.type_spec()?;
    let written = crate::locate::compact(ts.syntax());
    let base = match &ts {
        ast::TypeSpec::Path(p) => {
            let segs: Vec<String> = p.segments().map(|s| s.text().to_string()).collect();
            segs.last()?.clone()
        }
        _ => written.clone(),
    };
    // pointers and arrays: indexing yields the element, members need `->`
    let indirect = declarator.is_some_and(|d| {
        d.ptr_operators().any(|p| p.kind_token().is_some_and(|t| t.kind() == SyntaxKind::STAR))
            || d.array_suffixes().next().is_some()
    });
    Some((TypeName { base, written }, indirect))
}

/// The type of an expression, where names and members lead to a declared type.
pub(crate) fn expr_type(cx: &FileCtx, expr: &SyntaxNode) -> Option<TypeName> {
    match expr.kind() {
        SyntaxKind::PAREN_EXPR => expr_type(cx, &expr.children().next()?),
        SyntaxKind::PATH_EXPR => {
            let tok = expr
                .children_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| t.kind() == SyntaxKind::IDENT)
                .last()?;
            if tok.text() == "this" {
                return None;
            }
            let def = resolve(cx, &tok, false)?;
            declared_type(&def).map(|(t, _)| t)
        }
        SyntaxKind::THIS_EXPR => {
            let s = expr.ancestors().find(|a| a.kind() == SyntaxKind::STRUCT)?;
            let n = s.children().find(|c| c.kind() == SyntaxKind::NAME)?;
            let name = name_text(&n);
            Some(TypeName { base: name.clone(), written: name })
        }
        SyntaxKind::INDEX_EXPR => {
            let base = expr_type(cx, &expr.children().next()?)?;
            // indexing a vector gives its element type
            if let Some(elem) = vector_element(&base.base) {
                return Some(TypeName { base: elem.clone(), written: elem });
            }
            Some(base)
        }
        SyntaxKind::MEMBER_EXPR => {
            let member = expr
                .children_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| t.kind() == SyntaxKind::IDENT)
                .last()?;
            match resolve_member(cx, expr, member.text())? {
                Def::Swizzle { vector, components } => {
                    let elem = vector_element(&vector)?;
                    let t = if components.len() == 1 { elem } else { format!("{elem}{}", components.len()) };
                    Some(TypeName { base: t.clone(), written: t })
                }
                def => declared_type(&def).map(|(t, _)| t),
            }
        }
        SyntaxKind::CALL_EXPR => {
            let callee = expr.children().next()?;
            if callee.kind() == SyntaxKind::PATH_EXPR {
                let tok = callee
                    .children_with_tokens()
                    .filter_map(|e| e.into_token())
                    .filter(|t| t.kind() == SyntaxKind::IDENT)
                    .last()?;
                match resolve(cx, &tok, false)? {
                    d @ Def::Item(_) => declared_type(&d).map(|(t, _)| t),
                    Def::Builtin(entries) if entries.iter().any(|e| matches!(e, Entry::Type(_))) => {
                        Some(TypeName { base: tok.text().to_string(), written: tok.text().to_string() })
                    }
                    _ => None,
                }
            } else {
                None
            }
        }
        SyntaxKind::CONSTRUCT_EXPR | SyntaxKind::CAST_EXPR | SyntaxKind::CXX_CAST_EXPR => {
            let ty =
                expr.descendants().find(|d| matches!(d.kind(), SyntaxKind::PATH_TYPE | SyntaxKind::BUILTIN_TYPE))?;
            let written = crate::locate::compact(&ty);
            let base = ty
                .children_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| t.kind() == SyntaxKind::IDENT)
                .last()
                .map(|t| t.text().to_string())
                .unwrap_or_else(|| written.clone());
            Some(TypeName { base, written })
        }
        _ => None,
    }
}

/// `float` for `float4`, `packed_float3`; `None` for other names.
pub(crate) fn vector_element(name: &str) -> Option<String> {
    let rest = name.strip_prefix("packed_").unwrap_or(name);
    let digits = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let elem = &rest[..rest.len() - digits.len()];
    (msl_stdlib::SCALAR_TYPES.contains(&elem) && matches!(digits, "2" | "3" | "4")).then(|| elem.to_string())
}

/// The member `name` of the receiver of `member_expr`.
pub(crate) fn resolve_member(cx: &FileCtx, member_expr: &SyntaxNode, name: &str) -> Option<Def> {
    let receiver = member_expr.children().next()?;
    let ty = expr_type(cx, &receiver)?;
    member_of_type(cx, &ty, name)
}

pub(crate) fn member_of_type(cx: &FileCtx, ty: &TypeName, name: &str) -> Option<Def> {
    let index = cx.index();
    if let Some(sym) = struct_member(&index, &ty.base, name) {
        return Some(Def::Item(sym.clone()));
    }
    if let Some(size) = vector_size(&ty.base)
        && is_swizzle(name, size)
    {
        return Some(Def::Swizzle { vector: ty.base.clone(), components: name.to_string() });
    }
    let lib = Stdlib::get();
    let methods: Vec<Entry> = lib.method(&ty.base, name).map(Entry::Method).collect();
    if !methods.is_empty() {
        return Some(Def::Builtin(methods));
    }
    let members: Vec<Entry> =
        lib.members_of(&ty.base).iter().filter(|m| m.name == name).map(|m| Entry::Member(m)).collect();
    (!members.is_empty()).then_some(Def::Builtin(members))
}

/// A member of a struct of the unit, following its base classes.
pub(crate) fn struct_member<'i>(index: &'i ItemIndex, type_name: &str, name: &str) -> Option<&'i ItemSym> {
    struct_and_bases(index, &index.resolve_alias(type_name))
        .into_iter()
        .find_map(|t| index.named(name).find(|s| s.container == t))
}

/// A struct's name and those of its base classes (transitively), nearest first.
pub(crate) fn struct_and_bases(index: &ItemIndex, type_name: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut queue = vec![type_name.to_string()];
    while let Some(t) = queue.pop() {
        if seen.contains(&t) || seen.len() > 16 {
            continue;
        }
        for s in index.named(&t).filter(|s| s.kind.is_type()) {
            if let Some(st) = ast::Struct::cast(s.node.clone())
                && let Some(bases) = st.base_clause()
            {
                queue.extend(bases.bases().filter_map(|b| base_name(&b)));
            }
        }
        seen.push(t);
    }
    seen
}

pub(crate) fn vector_size(name: &str) -> Option<usize> {
    vector_element(name)?;
    name.chars().last()?.to_digit(10).map(|d| d as usize)
}

pub(crate) fn is_swizzle(name: &str, size: usize) -> bool {
    if name.is_empty() || name.len() > 4 {
        return false;
    }
    let xyzw = &"xyzw"[..size];
    let rgba = &"rgba"[..size];
    name.chars().all(|c| xyzw.contains(c)) || name.chars().all(|c| rgba.contains(c))
}

/// The definition of a type name: a struct, enum or alias of the unit, or a library type.
pub(crate) fn type_def(cx: &FileCtx, name: &str) -> Option<Def> {
    let index = cx.index();
    if let Some(s) = index.named(name).find(|s| s.kind.is_type()) {
        return Some(Def::Item(s.clone()));
    }
    Stdlib::get().type_named(name).map(|t| Def::Builtin(vec![Entry::Type(t)]))
}

impl ItemIndex {
    /// Follows `typedef`s and `using` aliases of the unit to the name they stand for.
    pub fn resolve_alias(&self, name: &str) -> String {
        let mut current = name.to_string();
        for _ in 0..8 {
            let Some(alias) = self.named(&current).find(|s| s.kind == SymbolKind::Typedef) else { break };
            let target = alias
                .node
                .descendants()
                .find(|d| d.kind() == SyntaxKind::PATH_TYPE)
                .and_then(|p| {
                    p.children_with_tokens()
                        .filter_map(|e| e.into_token())
                        .filter(|t| t.kind() == SyntaxKind::IDENT)
                        .last()
                })
                .map(|t| t.text().to_string());
            match target {
                Some(t) if t != current => current = t,
                _ => break,
            }
        }
        current
    }
}

/// The name of a base class (`Base` of `public ns::Base<T>`).
pub(crate) fn base_name(b: &ast::BaseSpecifier) -> Option<String> {
    let mut last = None;
    for e in b.syntax().descendants_with_tokens() {
        if e.kind() == SyntaxKind::TEMPLATE_ARG_LIST {
            break;
        }
        if let Some(t) = e.as_token()
            && t.kind() == SyntaxKind::IDENT
        {
            last = Some(t.text().to_string());
        }
    }
    last
}
