//! What a name refers to: a parameter or local variable, a declaration of the unit, a
//! macro, or something of the standard library. Names in code are resolved by the
//! semantic model ([`msl_hir::Semantics`]); what the model does not cover (macros,
//! attributes, the template parameters' own declarations) is read from the tree here.

use msl_hir::{Definition, Ty};
use msl_stdlib::{AttributeDef, Entry, Stdlib};
use msl_syntax::{SyntaxKind, SyntaxNode, SyntaxToken, TextRange};

use crate::index::ItemSym;
use crate::locate::{FileCtx, name_idents};

/// The meaning of a name.
#[derive(Debug, Clone)]
pub(crate) enum Def {
    /// A parameter, local variable or template parameter: `decl` is the parameter,
    /// the init-declarator or the template parameter; `name` the tree range of its name;
    /// `ty` its type as the model infers it (`None` for template parameters).
    Local {
        name: TextRange,
        decl: SyntaxNode,
        kind: LocalKind,
        ty: Option<Ty>,
        /// Its type is deduced (`auto`, `decltype`, a structured binding).
        deduced: bool,
    },
    /// A declaration of the unit outside function bodies.
    Item(ItemSym),
    /// A macro, by index into the unit's macro definitions.
    Macro(u32),
    /// Library entries of that name (overloads of a function are one entry).
    Builtin(Vec<Entry>),
    Attribute(&'static AttributeDef),
    /// Components of a vector: the vector's type, the components, the result's type.
    Swizzle {
        vector: String,
        components: String,
        ty: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LocalKind {
    Param,
    Var,
    TemplateParam,
}

impl Def {
    /// Two meanings are the same local (items and macros are compared by their
    /// workspace key, see `workspace::key_of`).
    pub fn same_local(&self, other: &Def) -> bool {
        matches!((self, other), (Def::Local { name: a, .. }, Def::Local { name: b, .. }) if a == b)
    }
}

/// Resolves the identifier `tok` of the tree. `prefer_declaration`: for a function
/// declared before it is defined, the declaration rather than the definition.
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
    // a template parameter's own declaration
    if parent.kind() == SyntaxKind::NAME
        && let Some(holder) = parent.parent()
        && matches!(
            holder.kind(),
            SyntaxKind::TYPE_PARAM | SyntaxKind::NON_TYPE_PARAM | SyntaxKind::TEMPLATE_TEMPLATE_PARAM
        )
    {
        return Some(template_param(tok.text_range(), holder));
    }
    if let Some(def) = cx.sema().resolve_token(tok)
        && let Some(d) = from_definition(cx, def, tok, prefer_declaration)
    {
        return Some(d);
    }
    if let Some(m) = macro_named(cx, name) {
        return Some(Def::Macro(m));
    }
    let qualifier = qualifier(tok);
    if !qualifier.is_empty() {
        return library_qualified(&qualifier, name);
    }
    builtin(name)
}

fn template_param(name: TextRange, decl: SyntaxNode) -> Def {
    let decl = if decl.kind() == SyntaxKind::DECLARATOR { decl.parent().unwrap_or(decl) } else { decl };
    Def::Local { name, decl, kind: LocalKind::TemplateParam, ty: None, deduced: false }
}

/// The IDE's view of what the model resolved `tok` to.
fn from_definition(cx: &FileCtx, def: Definition, tok: &SyntaxToken, prefer_declaration: bool) -> Option<Def> {
    let lib = Stdlib::get();
    Some(match def {
        Definition::Local(l) => {
            let name_tok = cx.root.covering_element(l.name_range).into_token()?;
            let decl = name_tok
                .parent_ancestors()
                .find(|a| matches!(a.kind(), SyntaxKind::PARAM | SyntaxKind::INIT_DECLARATOR))?;
            let kind = if l.is_param { LocalKind::Param } else { LocalKind::Var };
            Def::Local { name: l.name_range, decl, kind, ty: Some(l.ty), deduced: l.deduced }
        }
        Definition::Def(id) => Def::Item(item_of_def(cx, id, prefer_declaration)?),
        Definition::Generic(name) => generic_param(tok, &name)?,
        Definition::Library(name) => {
            let qualifier = qualifier(tok);
            if qualifier.is_empty() { builtin(name)? } else { library_qualified(&qualifier, name)? }
        }
        Definition::LibraryMethod { type_name, name } => {
            Def::Builtin(lib.method(type_name, name).map(Entry::Method).collect()).non_empty()?
        }
        Definition::LibraryMember { type_name, name } => Def::Builtin(
            lib.members_of(type_name).iter().filter(|m| m.name == name).map(|m| Entry::Member(m)).collect(),
        )
        .non_empty()?,
        Definition::Swizzle { vector, components } => {
            let elem = vector.scalar_of().map(|s| s.name()).unwrap_or_default();
            let ty = if components.chars().count() == 1 {
                elem.to_string()
            } else {
                format!("{elem}{}", components.chars().count())
            };
            Def::Swizzle { vector: vector.to_string(), components: components.to_string(), ty }
        }
        Definition::Type(t) => match cx.sema().def_of_type(&t) {
            Some(id) => Def::Item(item_of_def(cx, id, prefer_declaration)?),
            None => builtin(tok.text())?,
        },
    })
}

impl Def {
    fn non_empty(self) -> Option<Def> {
        match &self {
            Def::Builtin(e) if e.is_empty() => None,
            _ => Some(self),
        }
    }
}

/// The declaration of definition `id` in the outline; for a function declared before it
/// is defined, its definition unless `prefer_declaration`.
pub(crate) fn item_of_def(cx: &FileCtx, id: msl_hir::DefId, prefer_declaration: bool) -> Option<ItemSym> {
    let sema = cx.sema();
    let defs = sema.defs();
    let d = defs.def(id);
    let mut chosen = id;
    if let msl_hir::defs::DefKind::Function(f) = &d.kind {
        // the other declarations of the same function (not of its overloads)
        let canonical = sema.canonical_def(id);
        let siblings = defs.lookup_in(d.scope, &d.name);
        let wanted = siblings.into_iter().find(|s| match &defs.def(*s).kind {
            msl_hir::defs::DefKind::Function(g) => {
                g.has_body != prefer_declaration && sema.canonical_def(*s) == canonical
            }
            _ => false,
        });
        if let Some(w) = wanted
            && f.has_body == prefer_declaration
        {
            chosen = w;
        }
    }
    let source = sema.def_source(chosen)?;
    let index = cx.index();
    index.syms.iter().find(|s| s.name_range == source.name).cloned()
}

/// The declaration of template parameter `name` in a template around `tok`.
fn generic_param(tok: &SyntaxToken, name: &str) -> Option<Def> {
    for anc in tok.parent_ancestors().filter(|a| a.kind() == SyntaxKind::TEMPLATE_DECL) {
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
                    return Some(template_param(t.text_range(), p));
                }
            }
        }
    }
    None
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
    cx.parse.macros().iter().rposition(|m| &*m.name == name).map(|i| i as u32)
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

/// A library name written with a qualifier: `metal::clamp`, `access::read`.
fn library_qualified(qualifier: &str, name: &str) -> Option<Def> {
    let last = qualifier.rsplit("::").next().unwrap_or(qualifier);
    let entries: Vec<Entry> = Stdlib::get()
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
