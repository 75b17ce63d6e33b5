//! Semantic tokens: what each name of a file is (parameter, local, field, function, type,
//! macro, library entry, attribute), and address-space keywords.

use msl_stdlib::{Entry, Stdlib};
use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize, WalkEvent};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::locate::FileCtx;
use crate::symbols::SymbolKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum TokenType {
    Namespace,
    Type,
    Struct,
    Enum,
    TypeParameter,
    Parameter,
    Variable,
    Property,
    EnumMember,
    Function,
    Method,
    Macro,
    Keyword,
    Modifier,
    Decorator,
}

/// The names of [`TokenType`]s, in order (the legend).
pub const TOKEN_TYPES: &[&str] = &[
    "namespace",
    "type",
    "struct",
    "enum",
    "typeParameter",
    "parameter",
    "variable",
    "property",
    "enumMember",
    "function",
    "method",
    "macro",
    "keyword",
    "modifier",
    "decorator",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum TokenModifier {
    Declaration = 1,
    Readonly = 2,
    DefaultLibrary = 4,
}

/// The names of the modifier bits, lowest first (the legend).
pub const TOKEN_MODIFIERS: &[&str] = &["declaration", "readonly", "defaultLibrary"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemanticToken {
    pub range: TextRange,
    pub ty: TokenType,
    /// A bit set of [`TokenModifier`]s.
    pub modifiers: u32,
}

/// Parameter and local names of one function.
#[derive(Default)]
struct FunctionNames {
    params: FxHashSet<String>,
    locals: FxHashSet<String>,
    template: FxHashSet<String>,
}

pub(crate) fn semantic_tokens(cx: &FileCtx, range: Option<TextRange>) -> Vec<SemanticToken> {
    let index = cx.index();
    let lib = Stdlib::get();
    let mut functions: FxHashMap<TextSize, FunctionNames> = FxHashMap::default();
    let mut out = Vec::new();
    let (start_node, tree_range) =
        match range.and_then(|r| cx.tree_range(r).or_else(|| cx.tree_offset(r.start()).map(TextRange::empty))) {
            Some(tr) if !tr.is_empty() => {
                let n = match cx.root.covering_element(tr) {
                    rowan::NodeOrToken::Node(n) => n,
                    rowan::NodeOrToken::Token(t) => t.parent().unwrap_or_else(|| cx.root.clone()),
                };
                (n, Some(tr))
            }
            _ => (cx.root.clone(), None),
        };
    for event in start_node.preorder_with_tokens() {
        let WalkEvent::Enter(el) = event else { continue };
        let Some(tok) = el.into_token() else { continue };
        if let Some(tr) = tree_range
            && (tok.text_range().end() <= tr.start() || tok.text_range().start() >= tr.end())
        {
            continue;
        }
        let kind = tok.kind();
        if !(kind == SyntaxKind::IDENT || kind == SyntaxKind::MACRO_CALL || is_address_space(kind)) {
            continue;
        }
        let Some(pi) = cx.parse.piece_index_at(tok.text_range().start()) else { continue };
        let Some(piece) = cx.parse.piece(pi) else { continue };
        if piece.file != cx.focus {
            continue;
        }
        if kind == SyntaxKind::MACRO_CALL {
            let text = tok.text();
            let len = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
            if len > 0 {
                out.push(SemanticToken {
                    range: TextRange::at(piece.range.start(), (len as u32).into()),
                    ty: TokenType::Macro,
                    modifiers: 0,
                });
            }
            continue;
        }
        if piece.macro_call.is_some() {
            continue;
        }
        let range = piece.range;
        if is_address_space(kind) {
            out.push(SemanticToken { range, ty: TokenType::Modifier, modifiers: 0 });
            continue;
        }
        if let Some((ty, modifiers)) = classify(&tok, &index, lib, &mut functions) {
            out.push(SemanticToken { range, ty, modifiers });
        }
    }
    if let Some(r) = range {
        out.retain(|t| t.range.intersect(r).is_some_and(|i| !i.is_empty()) || r.contains_range(t.range));
    }
    out.sort_by_key(|t| t.range.start());
    out.dedup_by_key(|t| t.range.start());
    out
}

fn is_address_space(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        SyntaxKind::DEVICE_KW
            | SyntaxKind::CONSTANT_KW
            | SyntaxKind::THREAD_KW
            | SyntaxKind::THREADGROUP_KW
            | SyntaxKind::THREADGROUP_IMAGEBLOCK_KW
            | SyntaxKind::RAY_DATA_KW
            | SyntaxKind::OBJECT_DATA_KW
    )
}

const DECL: u32 = TokenModifier::Declaration as u32;
const READONLY: u32 = TokenModifier::Readonly as u32;
const LIB: u32 = TokenModifier::DefaultLibrary as u32;

fn sym_type(kind: SymbolKind) -> (TokenType, u32) {
    match kind {
        SymbolKind::Function => (TokenType::Function, 0),
        SymbolKind::Method => (TokenType::Method, 0),
        SymbolKind::Struct | SymbolKind::Class | SymbolKind::Union => (TokenType::Struct, 0),
        SymbolKind::Enum => (TokenType::Enum, 0),
        SymbolKind::EnumMember => (TokenType::EnumMember, READONLY),
        SymbolKind::Field => (TokenType::Property, 0),
        SymbolKind::Variable => (TokenType::Variable, 0),
        SymbolKind::Constant => (TokenType::Variable, READONLY),
        SymbolKind::Parameter => (TokenType::Parameter, 0),
        SymbolKind::Typedef => (TokenType::Type, 0),
        SymbolKind::Namespace => (TokenType::Namespace, 0),
        SymbolKind::Macro => (TokenType::Macro, 0),
        SymbolKind::TypeParameter => (TokenType::TypeParameter, 0),
    }
}

fn classify(
    tok: &SyntaxToken,
    index: &crate::index::ItemIndex,
    lib: &Stdlib,
    functions: &mut FxHashMap<TextSize, FunctionNames>,
) -> Option<(TokenType, u32)> {
    let parent = tok.parent()?;
    let name = tok.text();
    match parent.kind() {
        SyntaxKind::ATTRIBUTE => {
            let first = parent.children_with_tokens().find(|e| e.kind() == SyntaxKind::IDENT)?;
            if first.as_token() != Some(tok) {
                return None;
            }
            let known = lib.attributes_named(name).next().is_some();
            return Some((TokenType::Decorator, if known { LIB } else { 0 }));
        }
        SyntaxKind::NAME => {
            if let Some(t) = declaration_type(&parent, index, tok) {
                return Some(t);
            }
        }
        SyntaxKind::MEMBER_EXPR => {
            let after_dot =
                tok.prev_sibling_or_token().is_some_and(|p| matches!(p.kind(), SyntaxKind::DOT | SyntaxKind::ARROW))
                    || tok
                        .prev_sibling_or_token()
                        .and_then(|p| p.prev_sibling_or_token())
                        .is_some_and(|p| matches!(p.kind(), SyntaxKind::DOT | SyntaxKind::ARROW));
            if after_dot {
                let is_call = parent.parent().is_some_and(|p| p.kind() == SyntaxKind::CALL_EXPR);
                if let Some(s) = index.named(name).find(|s| matches!(s.kind, SymbolKind::Field | SymbolKind::Method)) {
                    return Some(sym_type(s.kind));
                }
                return Some(if is_call { (TokenType::Method, LIB) } else { (TokenType::Property, 0) });
            }
        }
        _ => {}
    }
    if parent.ancestors().any(|a| a.kind() == SyntaxKind::ATTR_ARGS) {
        return None;
    }
    let qualified = tok.prev_sibling_or_token().is_some_and(|p| p.kind() == SyntaxKind::COLON2);
    let next_is_colons = tok.next_sibling_or_token().is_some_and(|n| n.kind() == SyntaxKind::COLON2);
    if !qualified {
        if let Some(f) = tok.parent_ancestors().find(|a| a.kind() == SyntaxKind::FUNCTION) {
            let names = functions.entry(f.text_range().start()).or_insert_with(|| function_names(&f));
            if names.params.contains(name) {
                return Some((TokenType::Parameter, 0));
            }
            if names.locals.contains(name) {
                return Some((TokenType::Variable, 0));
            }
            if names.template.contains(name) {
                return Some((TokenType::TypeParameter, 0));
            }
        }
        if let Some(tpl) = tok.parent_ancestors().find(|a| a.kind() == SyntaxKind::TEMPLATE_DECL)
            && template_param_names(&tpl).contains(name)
        {
            return Some((TokenType::TypeParameter, 0));
        }
    }
    if let Some(s) = index.named(name).next() {
        return Some(sym_type(s.kind));
    }
    if next_is_colons {
        if lib.lookup(name).iter().any(|e| matches!(e, Entry::Enum(_))) {
            return Some((TokenType::Enum, LIB));
        }
        return Some((TokenType::Namespace, if name == "metal" { LIB } else { 0 }));
    }
    let entries = lib.lookup(name);
    if let Some(e) = entries.iter().find(|e| !matches!(e, Entry::Attribute(_) | Entry::Method(_) | Entry::Member(_))) {
        return Some(match e {
            Entry::Function(_) => (TokenType::Function, LIB),
            Entry::Type(_) => (TokenType::Type, LIB),
            Entry::Enum(_) => (TokenType::Enum, LIB),
            Entry::EnumMember(..) => (TokenType::EnumMember, LIB | READONLY),
            Entry::Constant(_) => (TokenType::Variable, LIB | READONLY),
            Entry::Keyword(_) => (TokenType::Keyword, LIB),
            _ => return None,
        });
    }
    if msl_syntax::is_library_type_name(name) {
        return Some((TokenType::Type, LIB));
    }
    None
}

fn declaration_type(name: &SyntaxNode, index: &crate::index::ItemIndex, tok: &SyntaxToken) -> Option<(TokenType, u32)> {
    let holder = name.parent()?;
    match holder.kind() {
        SyntaxKind::TYPE_PARAM => return Some((TokenType::TypeParameter, DECL)),
        SyntaxKind::DECLARATOR => {
            let owner = holder.ancestors().find(|a| {
                matches!(
                    a.kind(),
                    SyntaxKind::PARAM
                        | SyntaxKind::INIT_DECLARATOR
                        | SyntaxKind::FUNCTION
                        | SyntaxKind::TYPEDEF_DECL
                        | SyntaxKind::NON_TYPE_PARAM
                )
            })?;
            match owner.kind() {
                SyntaxKind::PARAM => return Some((TokenType::Parameter, DECL)),
                SyntaxKind::NON_TYPE_PARAM => return Some((TokenType::TypeParameter, DECL)),
                SyntaxKind::INIT_DECLARATOR if owner.ancestors().any(|a| a.kind() == SyntaxKind::COMPOUND_STMT) => {
                    return Some((TokenType::Variable, DECL));
                }
                _ => {}
            }
        }
        _ => {}
    }
    let sym = index.syms.iter().find(|s| s.name_range == tok.text_range())?;
    let (t, m) = sym_type(sym.kind);
    Some((t, m | DECL))
}

fn function_names(f: &SyntaxNode) -> FunctionNames {
    let mut names = FunctionNames::default();
    if let Some(params) = ast::Function::cast(f.clone()).and_then(|f| f.param_list()) {
        for p in params.params() {
            if let Some(n) = p.name() {
                names.params.insert(n.text());
            }
        }
    }
    for d in f.descendants() {
        match d.kind() {
            SyntaxKind::VAR_DECL => {
                if let Some(v) = ast::VarDecl::cast(d) {
                    for decl in v.declarators() {
                        if let Some(n) = decl.name() {
                            names.locals.insert(n.text());
                        }
                    }
                }
            }
            SyntaxKind::LAMBDA_EXPR => {
                for p in d.descendants().filter_map(ast::Param::cast) {
                    if let Some(n) = p.name() {
                        names.params.insert(n.text());
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(tpl) = f.parent().filter(|p| p.kind() == SyntaxKind::TEMPLATE_DECL) {
        names.template = template_param_names(&tpl);
    }
    names
}

fn template_param_names(tpl: &SyntaxNode) -> FxHashSet<String> {
    let mut out = FxHashSet::default();
    for list in tpl.children().filter(|c| c.kind() == SyntaxKind::TEMPLATE_PARAM_LIST) {
        for p in list.children() {
            if let Some(n) = p.descendants().find(|d| d.kind() == SyntaxKind::NAME).and_then(ast::Name::cast) {
                out.insert(n.text());
            }
        }
    }
    out
}
