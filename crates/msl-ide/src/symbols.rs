//! The outline of a file and the symbols of the workspace.

use std::path::PathBuf;
use std::sync::Arc;

use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, TextRange};

use crate::index::ItemSym;
use crate::locate::FileCtx;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    Function,
    Method,
    Struct,
    Class,
    Union,
    Enum,
    EnumMember,
    Field,
    Variable,
    Constant,
    Parameter,
    Typedef,
    Namespace,
    Macro,
    TypeParameter,
}

impl SymbolKind {
    pub fn is_type(self) -> bool {
        matches!(
            self,
            SymbolKind::Struct | SymbolKind::Class | SymbolKind::Union | SymbolKind::Enum | SymbolKind::Typedef
        )
    }
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method)
    }
}

/// An entry of a file's outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// A short description: a function's parameters, a variable's type, `kernel`.
    pub detail: Option<String>,
    pub kind: SymbolKind,
    pub full: TextRange,
    pub focus: TextRange,
    pub children: Vec<Symbol>,
}

/// A symbol found by a workspace search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceSymbol {
    pub name: String,
    pub kind: SymbolKind,
    pub container: Option<String>,
    pub path: PathBuf,
    pub full: TextRange,
    pub focus: TextRange,
    pub text: Arc<str>,
}

pub(crate) fn document_symbols(cx: &FileCtx) -> Vec<Symbol> {
    let index = cx.index();
    let mut flat: Vec<(String, Symbol)> = Vec::new();
    for s in &index.syms {
        let Some(focus) = cx.file_range(s.name_range) else { continue };
        let full = full_range(cx, s).unwrap_or(focus);
        flat.push((
            s.container.clone(),
            Symbol {
                name: s.name.clone(),
                detail: detail(s),
                kind: s.kind,
                full: full.cover(focus),
                focus,
                children: Vec::new(),
            },
        ));
    }
    // macros defined in the file
    for m in cx.parse.macros().iter().filter(|m| m.file == cx.focus) {
        let detail = m.params.as_ref().map(|p| format!("({})", p.join(", ")));
        let line_end = cx.text()[usize::from(m.name_range.end())..]
            .find('\n')
            .map(|i| usize::from(m.name_range.end()) + i)
            .unwrap_or(cx.text().len());
        let start =
            cx.text()[..usize::from(m.name_range.start())].rfind('#').unwrap_or(usize::from(m.name_range.start()));
        let full = TextRange::new((start as u32).into(), (line_end as u32).into()).cover(m.name_range);
        flat.push((
            String::new(),
            Symbol {
                name: m.name.to_string(),
                detail,
                kind: SymbolKind::Macro,
                full,
                focus: m.name_range,
                children: Vec::new(),
            },
        ));
    }
    flat.sort_by_key(|(_, s)| (s.full.start(), std::cmp::Reverse(s.full.end())));
    nest(flat)
}

/// Puts members inside the struct, enum or namespace whose range holds them.
fn nest(flat: Vec<(String, Symbol)>) -> Vec<Symbol> {
    let mut roots: Vec<Symbol> = Vec::new();
    // a stack of open containers: (name, symbol)
    let mut stack: Vec<Symbol> = Vec::new();
    for (_container, sym) in flat {
        while let Some(top) = stack.last() {
            if top.full.contains_range(sym.full) && top.full != sym.full {
                break;
            }
            let done = stack.pop().expect("stack is not empty");
            attach(&mut stack, &mut roots, done);
        }
        let is_container = matches!(
            sym.kind,
            SymbolKind::Struct | SymbolKind::Class | SymbolKind::Union | SymbolKind::Enum | SymbolKind::Namespace
        );
        if is_container {
            stack.push(sym);
        } else {
            attach(&mut stack, &mut roots, sym);
        }
    }
    while let Some(done) = stack.pop() {
        attach(&mut stack, &mut roots, done);
    }
    roots
}

fn attach(stack: &mut [Symbol], roots: &mut Vec<Symbol>, sym: Symbol) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(sym),
        None => roots.push(sym),
    }
}

fn full_range(cx: &FileCtx, s: &ItemSym) -> Option<TextRange> {
    let mut node = s.node.clone();
    // a template's symbol covers `template <...>` too
    if let Some(p) = node.parent()
        && p.kind() == SyntaxKind::TEMPLATE_DECL
    {
        node = p;
    }
    let range = node.text_range();
    let (file, r) = cx.any_file_range(range);
    (file == cx.focus).then_some(r)
}

fn detail(s: &ItemSym) -> Option<String> {
    match s.kind {
        SymbolKind::Function | SymbolKind::Method => {
            let f = ast::Function::cast(s.node.clone())?;
            let params = f.param_list().map(|p| crate::locate::compact(p.syntax())).unwrap_or_default();
            let stage = match f.stage() {
                Some(ast::Stage::Kernel) => "kernel ",
                Some(ast::Stage::Vertex) => "vertex ",
                Some(ast::Stage::Fragment) => "fragment ",
                _ => "",
            };
            let ret = f
                .decl_specifiers()
                .and_then(|s| s.type_spec())
                .map(|t| crate::locate::compact(t.syntax()))
                .unwrap_or_default();
            Some(format!("{stage}{ret}{}", strip_attributes(&params)).trim().to_string())
        }
        SymbolKind::Field | SymbolKind::Variable | SymbolKind::Constant => {
            let v = ast::VarDecl::cast(s.node.parent()?)?;
            v.decl_specifiers().and_then(|s| s.type_spec()).map(|t| crate::locate::compact(t.syntax()))
        }
        _ => None,
    }
}

/// `(device float *a [[buffer(0)]])` → `(device float *a)`.
pub(crate) fn strip_attributes(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("[[") {
        out.push_str(rest[..i].trim_end());
        match rest[i..].find("]]") {
            Some(j) => rest = &rest[i + j + 2..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

pub(crate) fn workspace_symbols(cx: &FileCtx, query: &str, out: &mut Vec<WorkspaceSymbol>) {
    let index = cx.index();
    for s in &index.syms {
        if s.kind == SymbolKind::Parameter || !fuzzy_match(query, &s.name) {
            continue;
        }
        let (file, focus) = cx.any_file_range(s.name_range);
        if !cx.is_spelled(s.name_range) {
            continue;
        }
        let full = {
            let (f2, r) = cx.any_file_range(s.node.text_range());
            if f2 == file { r.cover(focus) } else { focus }
        };
        out.push(WorkspaceSymbol {
            name: s.name.clone(),
            kind: s.kind,
            container: (!s.container.is_empty()).then(|| s.container.clone()),
            path: cx.path_of(file),
            full,
            focus,
            text: cx.text_of(file),
        });
    }
}

/// Whether the characters of `query` appear in `name` in order (ignoring case).
pub(crate) fn fuzzy_match(query: &str, name: &str) -> bool {
    let mut chars = name.chars().map(|c| c.to_ascii_lowercase());
    query.chars().map(|c| c.to_ascii_lowercase()).all(|q| chars.any(|c| c == q))
}
