//! Context-aware completion: attributes inside `[[ ]]`, members and swizzles after `.`,
//! a namespace's or enum's names after `::`, otherwise what is in scope (locals, the unit's
//! declarations, macros, the library, keywords) and snippets for entry points.

use msl_stdlib::{Entry, Stdlib};
use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};
use rustc_hash::FxHashSet;

use crate::locate::{FileCtx, compact, name_idents};
use msl_hir::{MemberKind, Ty};

use crate::resolve::{self, Def};
use crate::symbols::{SymbolKind, fuzzy_match, strip_attributes};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompletionKind {
    Function,
    Method,
    Field,
    Variable,
    Parameter,
    Constant,
    Struct,
    Enum,
    EnumMember,
    Type,
    TypeParameter,
    Namespace,
    Macro,
    Keyword,
    Attribute,
    Snippet,
    /// A file to include.
    File,
    /// A folder on the way to a file to include.
    Folder,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    /// Documentation known up front (short); the rest comes from [`crate::completion_docs`].
    pub documentation: Option<String>,
    /// Text to insert instead of the label; a snippet (`$1`, `${1:name}`) when `is_snippet`.
    pub insert_text: Option<String>,
    pub is_snippet: bool,
    /// Orders items: lower first.
    pub sort_group: u8,
    /// Key for [`crate::completion_docs`].
    pub resolve_key: Option<String>,
}

/// Completions and the range of the main file they replace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completions {
    pub items: Vec<CompletionItem>,
    pub replace: TextRange,
}

const KEYWORDS: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "class",
    "const",
    "constant",
    "constexpr",
    "continue",
    "default",
    "device",
    "do",
    "else",
    "enum",
    "false",
    "float",
    "for",
    "fragment",
    "half",
    "if",
    "int",
    "kernel",
    "long",
    "namespace",
    "object_data",
    "ray_data",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "struct",
    "switch",
    "template",
    "thread",
    "threadgroup",
    "threadgroup_imageblock",
    "true",
    "typedef",
    "typename",
    "uint",
    "union",
    "unsigned",
    "using",
    "vertex",
    "void",
    "volatile",
    "while",
];

fn item(label: impl Into<String>, kind: CompletionKind, detail: Option<String>, group: u8) -> CompletionItem {
    CompletionItem {
        label: label.into(),
        kind,
        detail,
        documentation: None,
        insert_text: None,
        is_snippet: false,
        sort_group: group,
        resolve_key: None,
    }
}

pub(crate) fn completions(cx: &FileCtx, offset: TextSize) -> Completions {
    let text = cx.text();
    let off = usize::from(offset).min(text.len());
    let bytes = text.as_bytes();
    let mut start = off;
    while start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
        start -= 1;
    }
    let prefix = &text[start..off];
    let replace = TextRange::new((start as u32).into(), (off as u32).into());
    let mut before = start;
    while before > 0 && matches!(bytes[before - 1], b' ' | b'\t') {
        before -= 1;
    }
    let lead = &text[..before];
    let mut items = if in_comment_or_string(cx, offset) {
        Vec::new()
    } else if lead.ends_with('.') && !lead.ends_with("..") || lead.ends_with("->") {
        let op_len = if lead.ends_with("->") { 2 } else { 1 };
        member_completions(cx, TextSize::from((before - op_len) as u32))
    } else if lead.ends_with("::") {
        qualified_completions(cx, &text[..before - 2], TextSize::from((before - 2) as u32))
    } else if let Some(open) = open_attribute(lead) {
        attribute_completions(cx, TextSize::from(open as u32))
    } else if line_prefix_is_directive(lead) {
        directive_completions(cx, lead)
    } else {
        scope_completions(cx, TextSize::from(start as u32), prefix)
    };
    if !prefix.is_empty() {
        items.retain(|i| fuzzy_match(prefix, &i.label));
    }
    let mut seen = FxHashSet::default();
    items.retain(|i| seen.insert((i.label.clone(), i.kind)));
    items.sort_by(|a, b| a.sort_group.cmp(&b.sort_group).then_with(|| a.label.cmp(&b.label)));
    Completions { items, replace }
}

fn in_comment_or_string(cx: &FileCtx, offset: TextSize) -> bool {
    let Some(tree) = cx.tree_offset(offset) else { return false };
    let Some(tok) = cx.root.token_at_offset(tree).left_biased() else { return false };
    let inside = tok.text_range().start() < tree && tree < tok.text_range().end();
    let line_comment_to_end =
        tok.kind() == SyntaxKind::COMMENT && tok.text().starts_with("//") && tok.text_range().start() < tree;
    (inside && matches!(tok.kind(), SyntaxKind::COMMENT | SyntaxKind::STRING_LIT | SyntaxKind::CHAR_LIT))
        || line_comment_to_end
}

/// The offset of an unclosed `[[` on the text before the cursor.
fn open_attribute(lead: &str) -> Option<usize> {
    let window_start = lead.len().saturating_sub(600);
    let window_start = (window_start..=lead.len()).find(|&i| lead.is_char_boundary(i)).unwrap_or(lead.len());
    let window = &lead[window_start..];
    let open = window.rfind("[[")?;
    let after = &window[open..];
    if after.contains("]]") || after.contains(';') || after.contains('{') || after.contains('}') {
        return None;
    }
    Some(window_start + open)
}

fn line_prefix_is_directive(lead: &str) -> bool {
    let line = lead.rsplit('\n').next().unwrap_or(lead);
    line.trim_start().starts_with('#')
}

fn directive_completions(cx: &FileCtx, lead: &str) -> Vec<CompletionItem> {
    let line = lead.rsplit('\n').next().unwrap_or(lead).trim_start();
    let directive = line.trim_start_matches('#').trim_start();
    if directive.is_empty() || !directive.contains(' ') {
        return [
            "include", "import", "define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif", "pragma",
            "error", "warning", "line",
        ]
        .iter()
        .map(|d| item(*d, CompletionKind::Keyword, None, 0))
        .collect();
    }
    let word = directive.split_whitespace().next().unwrap_or("");
    match word {
        "include" | "import" => include_completions(cx, directive[word.len()..].trim_start()),
        "ifdef" | "ifndef" | "undef" | "if" | "elif" => macro_items(cx, &|_| true),
        _ => Vec::new(),
    }
}

/// The extensions of files offered after `#include`.
const INCLUDABLE: [&str; 8] = ["h", "hh", "hpp", "hxx", "inc", "ipp", "metal", "inl"];

/// Completion of the path in `#include "..."` or `<...>` (`typed`: the directive's text
/// from the quote or bracket to the cursor): the folders and headers in the folder typed
/// so far, looked for next to the file (quoted only) and in the include directories, and
/// the library's headers after `<` with no folder typed.
fn include_completions(cx: &FileCtx, typed: &str) -> Vec<CompletionItem> {
    let angled = typed.starts_with('<');
    let Some(path) = typed.strip_prefix('<').or_else(|| typed.strip_prefix('"')) else { return Vec::new() };
    // the folders typed so far (`inc/` in `inc/co`)
    let folder = path.rfind('/').map_or("", |i| &path[..=i]);
    let mut out = Vec::new();
    if angled && folder.is_empty() {
        out.extend(
            msl_syntax::LIBRARY_HEADERS
                .iter()
                .map(|h| item(*h, CompletionKind::Namespace, Some("built-in header".into()), 0)),
        );
    }
    let mut bases: Vec<std::path::PathBuf> = Vec::new();
    if !angled && let Some(dir) = cx.path_of(cx.focus).parent() {
        bases.push(dir.to_path_buf());
    }
    bases.extend(cx.settings.config.include_dirs.iter().cloned());
    let mut seen = FxHashSet::default();
    for base in bases {
        let Ok(entries) = std::fs::read_dir(base.join(folder)) else { continue };
        // a folder of thousands of files is cut short rather than read whole
        for entry in entries.flatten().take(2000) {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with('.') {
                continue;
            }
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            let includable = std::path::Path::new(&name)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| INCLUDABLE.contains(&e.to_ascii_lowercase().as_str()));
            if !(is_dir || includable) || !seen.insert((name.clone(), is_dir)) {
                continue;
            }
            let shown = base.join(folder).join(&name).display().to_string();
            out.push(if is_dir {
                item(format!("{name}/"), CompletionKind::Folder, Some(shown), 1)
            } else {
                item(name, CompletionKind::File, Some(shown), 0)
            });
        }
    }
    out
}

fn macro_items(cx: &FileCtx, wanted: &dyn Fn(&str) -> bool) -> Vec<CompletionItem> {
    let mut out = Vec::new();
    for m in cx.parse.macros().iter().filter(|m| wanted(&m.name)) {
        let detail = match &m.params {
            Some(p) => format!("#define {}({}) {}", m.name, p.join(", "), m.body),
            None => format!("#define {} {}", m.name, m.body),
        };
        let detail: String = detail.chars().take(120).collect();
        let is_predefined = cx.parse.files().get(m.file as usize).is_some_and(|f| f.is_virtual);
        out.push(item(m.name.to_string(), CompletionKind::Macro, Some(detail), if is_predefined { 6 } else { 2 }));
    }
    out
}

/// The token of the tree right before `offset` of the main file (skipping trivia).
fn token_before(cx: &FileCtx, offset: TextSize) -> Option<SyntaxToken> {
    let mut o = offset;
    // the tree offset of the nearest spelled byte at or before `offset`
    for _ in 0..64 {
        if let Some(t) = cx.tree_offset(o) {
            let tok = cx.root.token_at_offset(t + TextSize::from(1)).left_biased()?;
            return Some(tok);
        }
        o = o.checked_sub(1.into())?;
    }
    None
}

fn member_completions(cx: &FileCtx, dot: TextSize) -> Vec<CompletionItem> {
    let Some(op) = token_before(cx, dot) else { return Vec::new() };
    if !matches!(op.kind(), SyntaxKind::DOT | SyntaxKind::ARROW) {
        return Vec::new();
    }
    let receiver_type = receiver_of(cx, &op);
    let Some(ty) = receiver_type else { return Vec::new() };
    members_of_type(cx, &ty)
}

/// The type of what `.` or `->` applies to, as the model infers it.
fn receiver_of(cx: &FileCtx, op: &SyntaxToken) -> Option<Ty> {
    let sema = cx.sema();
    if let Some(parent) = op.parent()
        && parent.kind() == SyntaxKind::MEMBER_EXPR
        && let Some(recv) = parent.children().next()
        && recv.text_range().end() <= op.text_range().start()
    {
        return sema.type_of_expr(&recv);
    }
    // an unfinished expression: the name right before the operator
    let mut prev = op.prev_token();
    while let Some(p) = &prev {
        if p.kind().is_trivia() {
            prev = p.prev_token();
        } else {
            break;
        }
    }
    let prev = prev?;
    if prev.kind() != SyntaxKind::IDENT {
        return None;
    }
    if let Some(t) = prev.parent().and_then(|p| sema.type_of_expr(&p)) {
        return Some(t);
    }
    match resolve::resolve(cx, &prev, false)? {
        Def::Local { ty, .. } => ty,
        Def::Item(sym) => sema.def_declared_at(sym.name_range).and_then(|id| sema.type_of_def(id)),
        _ => None,
    }
}

fn members_of_type(cx: &FileCtx, ty: &Ty) -> Vec<CompletionItem> {
    let lib = Stdlib::get();
    let mut out = Vec::new();
    for m in cx.sema().members_of(ty) {
        let detail = m.ty.as_ref().map(|t| t.to_string());
        match m.kind {
            MemberKind::Field(_) => out.push(item(&*m.name, CompletionKind::Field, detail, 0)),
            MemberKind::Method(_) => out.push(item(&*m.name, CompletionKind::Method, detail, 0)),
            // single components first, then the common whole-prefix selections
            MemberKind::Swizzle => {
                let group = if m.name.len() == 1 { 1 } else { 2 };
                out.push(item(&*m.name, CompletionKind::Field, detail, group));
            }
            MemberKind::LibraryMethod(base) => {
                let summary = lib.method(base, &m.name).next().map(|x| x.summary.to_string());
                let mut it = item(&*m.name, CompletionKind::Method, summary, 0);
                it.resolve_key = Some(format!("method:{base}:{}", m.name));
                out.push(it);
            }
            MemberKind::LibraryMember(base) => {
                let ty = lib.members_of(base).iter().find(|x| x.name == &*m.name).map(|x| x.ty.to_string());
                out.push(item(&*m.name, CompletionKind::Field, ty, 0));
            }
        }
    }
    out
}

/// Completion after `q::`: the library's names after `metal::` (or `std::`), a library
/// enum's members, and what the model says `q` names (a namespace's, class's or enum's
/// names, through aliases and template arguments).
fn qualified_completions(cx: &FileCtx, lead: &str, colons: TextSize) -> Vec<CompletionItem> {
    // the qualifier: the identifier (path) right before `::`
    let bytes = lead.as_bytes();
    let mut s = lead.len();
    while s > 0 && (bytes[s - 1].is_ascii_alphanumeric() || bytes[s - 1] == b'_') {
        s -= 1;
    }
    let qualifier = &lead[s..];
    let lib = Stdlib::get();
    let mut out = Vec::new();
    if qualifier == "metal" || qualifier == "std" {
        out.extend(library_items(cx, &|_| true));
    }
    if let Some(e) = lib.lookup(qualifier).iter().find_map(|e| match e {
        Entry::Enum(e) => Some(*e),
        _ => None,
    }) {
        for m in e.members {
            let mut it = item(m.name, CompletionKind::EnumMember, Some(format!("{}::{}", e.name, m.name)), 0);
            it.documentation = Some(m.summary.to_string());
            out.push(it);
        }
    }
    let Some(op) = token_before(cx, colons).filter(|t| t.kind() == SyntaxKind::COLON2) else { return out };
    let sema = cx.sema();
    let def = match sema.qualifier_of(&op) {
        Some(msl_hir::Definition::Def(def)) => def,
        // a class or enum named where a value could be (`return Tile::`)
        Some(msl_hir::Definition::Type(t)) => match sema.def_of_type(&t) {
            Some(def) => def,
            None => return out,
        },
        _ => return out,
    };
    let names = sema.names_in(def);
    if names.is_empty() {
        return out;
    }
    // the index's entry of each definition, for its documentation and signature
    let index = cx.index();
    let by_range: rustc_hash::FxHashMap<TextRange, &crate::index::ItemSym> =
        index.syms.iter().map(|s| (s.name_range, s)).collect();
    for id in names {
        let found = sema.def_source(id).and_then(|src| by_range.get(&src.name).copied());
        match found {
            Some(sym) => out.push(sym_item(cx, sym)),
            None => out.push(def_item(cx, id)),
        }
    }
    out
}

/// A completion item for a definition the index does not list (a template parameter's
/// class, say): its name, kind and type from the model.
fn def_item(cx: &FileCtx, id: msl_hir::DefId) -> CompletionItem {
    use msl_hir::defs::DefKind;
    let sema = cx.sema();
    let d = sema.defs().def(id);
    let kind = match &d.kind {
        DefKind::Namespace { .. } => CompletionKind::Namespace,
        DefKind::Class { .. } => CompletionKind::Struct,
        DefKind::Enum { .. } => CompletionKind::Enum,
        DefKind::Enumerator { .. } => CompletionKind::EnumMember,
        DefKind::Function(_) => CompletionKind::Function,
        DefKind::Field(_) => CompletionKind::Field,
        DefKind::Alias { .. } => CompletionKind::Type,
        _ => CompletionKind::Variable,
    };
    let detail = sema.type_of_def(id).map(|t| t.to_string());
    item(d.name.to_string(), kind, detail, 1)
}

fn attribute_completions(cx: &FileCtx, open: TextSize) -> Vec<CompletionItem> {
    let positions = attribute_positions(cx, open);
    let config = &cx.settings.config;
    let mut out = Vec::new();
    for a in msl_stdlib::ATTRIBUTES.iter() {
        if let Some(ps) = &positions
            && !a.positions.iter().any(|p| ps.contains(p))
        {
            continue;
        }
        if !msl_stdlib::available(a.since, a.platforms, config.version, config.platform) {
            continue;
        }
        let mut it = item(a.name, CompletionKind::Attribute, Some(format!("{}{}", a.name, a.args)), 0);
        it.documentation = Some(a.summary.to_string());
        it.resolve_key = Some(format!("attr:{}", a.name));
        // `buffer(n)`: put the cursor in the parentheses
        if a.args.starts_with('(') {
            it.insert_text = Some(format!("{}($1)", a.name));
            it.is_snippet = true;
        }
        out.push(it);
    }
    out
}

/// Where an attribute list at `open` stands, as the library's position names.
fn attribute_positions(cx: &FileCtx, open: TextSize) -> Option<Vec<&'static str>> {
    let tree = cx.tree_offset(open)?;
    let tok = cx.root.token_at_offset(tree).right_biased()?;
    for a in tok.parent_ancestors() {
        match a.kind() {
            SyntaxKind::PARAM => {
                let f = a.ancestors().find(|x| x.kind() == SyntaxKind::FUNCTION).and_then(ast::Function::cast)?;
                let mut ps = vec!["param"];
                ps.push(match f.stage() {
                    Some(ast::Stage::Kernel) => "kernel_param",
                    Some(ast::Stage::Vertex) => "vertex_param",
                    Some(ast::Stage::Fragment) => "fragment_param",
                    _ => return stage_from_attributes(&f),
                });
                return Some(ps);
            }
            SyntaxKind::VAR_DECL => {
                if a.parent().is_some_and(|p| p.kind() == SyntaxKind::MEMBER_LIST) {
                    return Some(vec![
                        "struct_member",
                        "vertex_output",
                        "fragment_input",
                        "fragment_output",
                        "mesh_output",
                        "stage_in_member",
                        "post_tess_vertex_input",
                        "intersection_output",
                    ]);
                }
                return Some(vec!["variable"]);
            }
            SyntaxKind::FUNCTION => return Some(vec!["function"]),
            SyntaxKind::SOURCE_FILE => return Some(vec!["function", "variable"]),
            _ => {}
        }
    }
    None
}

fn stage_from_attributes(f: &ast::Function) -> Option<Vec<&'static str>> {
    let names: Vec<String> =
        f.attribute_lists().flat_map(|l| l.attributes().filter_map(|a| a.name()).collect::<Vec<_>>()).collect();
    for (attr, pos) in [
        ("mesh", "mesh_param"),
        ("object", "object_param"),
        ("intersection", "intersection_param"),
        ("tile", "tile_param"),
        ("kernel", "kernel_param"),
        ("vertex", "vertex_param"),
        ("fragment", "fragment_param"),
    ] {
        if names.iter().any(|n| n == attr) {
            return Some(vec!["param", pos]);
        }
    }
    None
}

fn sym_item(cx: &FileCtx, s: &crate::index::ItemSym) -> CompletionItem {
    let kind = match s.kind {
        SymbolKind::Function => CompletionKind::Function,
        SymbolKind::Method => CompletionKind::Method,
        SymbolKind::Struct | SymbolKind::Class | SymbolKind::Union => CompletionKind::Struct,
        SymbolKind::Enum => CompletionKind::Enum,
        SymbolKind::EnumMember => CompletionKind::EnumMember,
        SymbolKind::Field => CompletionKind::Field,
        SymbolKind::Variable => CompletionKind::Variable,
        SymbolKind::Constant => CompletionKind::Constant,
        SymbolKind::Parameter => CompletionKind::Parameter,
        SymbolKind::Typedef => CompletionKind::Type,
        SymbolKind::Namespace => CompletionKind::Namespace,
        SymbolKind::Macro => CompletionKind::Macro,
        SymbolKind::TypeParameter => CompletionKind::TypeParameter,
    };
    let detail = match s.kind {
        SymbolKind::Function | SymbolKind::Method => ast::Function::cast(s.node.clone())
            .and_then(|f| f.param_list())
            .map(|p| strip_attributes(&compact(p.syntax()))),
        SymbolKind::Field | SymbolKind::Variable | SymbolKind::Constant => {
            let sema = cx.sema();
            sema.def_declared_at(s.name_range).and_then(|id| sema.type_of_def(id)).map(|t| t.to_string())
        }
        _ => None,
    };
    let mut it = item(s.name.clone(), kind, detail, 1);
    it.documentation = crate::locate::doc_comment(&s.node);
    it
}

fn library_items(cx: &FileCtx, wanted: &dyn Fn(&str) -> bool) -> Vec<CompletionItem> {
    let lib = Stdlib::get();
    let config = &cx.settings.config;
    let mut out = Vec::new();
    for name in lib.names().filter(|n| wanted(n)) {
        let Some(e) = lib
            .lookup(name)
            .iter()
            .find(|e| matches!(e, Entry::Function(_) | Entry::Type(_) | Entry::Constant(_) | Entry::Enum(_)))
        else {
            continue;
        };
        if !e.available(config.version, config.platform) {
            continue;
        }
        let kind = match e {
            Entry::Function(_) => CompletionKind::Function,
            Entry::Type(_) => CompletionKind::Type,
            Entry::Constant(_) => CompletionKind::Constant,
            _ => CompletionKind::Enum,
        };
        let detail = match e {
            Entry::Function(f) => f.overloads.first().map(|o| o.sig.to_string()),
            _ => Some(e.summary().to_string()),
        };
        let mut it = item(name, kind, detail, 4);
        it.resolve_key = Some(format!("lib:{name}"));
        out.push(it);
    }
    out
}

fn scope_completions(cx: &FileCtx, start: TextSize, prefix: &str) -> Vec<CompletionItem> {
    let wanted = |name: &str| prefix.is_empty() || fuzzy_match(prefix, name);
    let mut out = Vec::new();
    let anchor = token_before(cx, start);
    let in_function =
        anchor.as_ref().is_some_and(|t| t.parent_ancestors().any(|a| a.kind() == SyntaxKind::COMPOUND_STMT));
    if let Some(tok) = &anchor {
        out.extend(locals_at(cx, tok));
    }
    let index = cx.index();
    let containers = anchor.as_ref().map(containers_at).unwrap_or_else(|| vec![String::new()]);
    for s in &index.syms {
        if s.kind == SymbolKind::Parameter || !wanted(&s.name) {
            continue;
        }
        // members of other structs are reached with `.` or `::`
        if !containers.contains(&s.container) && s.kind != SymbolKind::EnumMember {
            continue;
        }
        if s.kind == SymbolKind::EnumMember && is_scoped_enum_member(s) {
            continue;
        }
        out.push(sym_item(cx, s));
    }
    out.extend(macro_items(cx, &wanted));
    out.extend(library_items(cx, &wanted));
    for k in KEYWORDS.iter().filter(|k| wanted(k)) {
        out.push(item(*k, CompletionKind::Keyword, None, 5));
    }
    if !in_function {
        out.extend(snippets());
    }
    out
}

fn is_scoped_enum_member(s: &crate::index::ItemSym) -> bool {
    s.node.ancestors().find(|a| a.kind() == SyntaxKind::ENUM).and_then(ast::Enum::cast).is_some_and(|e| e.is_scoped())
}

/// Parameters and local variables in scope at `tok` (innermost first, as the model
/// scopes them: declared before it, in a block not yet closed, not hidden by a later
/// one), then the template parameters in view.
fn locals_at(cx: &FileCtx, tok: &SyntaxToken) -> Vec<CompletionItem> {
    let sema = cx.sema();
    let at = tok.text_range().end();
    let mut out: Vec<CompletionItem> = sema
        .locals_visible_at(at)
        .into_iter()
        .map(|l| {
            let kind = if l.is_param { CompletionKind::Parameter } else { CompletionKind::Variable };
            let detail = (!l.ty.is_unknown()).then(|| l.ty.to_string());
            item(l.name.to_string(), kind, detail, 0)
        })
        .collect();
    let (_, mut generics) = sema.scope_at(at);
    while let Some(g) = generics {
        for p in &g.params {
            out.push(item(p.name.to_string(), CompletionKind::TypeParameter, None, 0));
        }
        generics = g.parent.clone();
    }
    out
}

fn snippets() -> Vec<CompletionItem> {
    let make = |label: &str, detail: &str, body: &str| {
        let mut it = item(label, CompletionKind::Snippet, Some(detail.to_string()), 3);
        it.insert_text = Some(body.to_string());
        it.is_snippet = true;
        it
    };
    vec![
        make(
            "kernel",
            "compute kernel",
            "kernel void ${1:name}(device ${2:float} *${3:data} [[buffer(0)]],\n            uint ${4:gid} [[thread_position_in_grid]])\n{\n    $0\n}",
        ),
        make(
            "vertex",
            "vertex function",
            "struct ${1:VertexOut} {\n    float4 position [[position]];\n};\n\nvertex ${1:VertexOut} ${2:vertex_main}(uint vid [[vertex_id]],\n                               constant float4 *positions [[buffer(0)]])\n{\n    ${1:VertexOut} out;\n    out.position = positions[vid];\n    $0\n    return out;\n}",
        ),
        make(
            "fragment",
            "fragment function",
            "fragment float4 ${1:fragment_main}(${2:VertexOut} in [[stage_in]],\n                              texture2d<float> ${3:tex} [[texture(0)]],\n                              sampler ${4:smp} [[sampler(0)]])\n{\n    return ${3:tex}.sample(${4:smp}, ${5:float2(0)});$0\n}",
        ),
        make("struct", "struct definition", "struct ${1:Name} {\n    $0\n};"),
    ]
}

/// Documentation for a completion item, from the key it carried (library entries need no
/// analysis, so this needs no snapshot).
pub fn docs(key: &str) -> Option<String> {
    let lib = Stdlib::get();
    if let Some(name) = key.strip_prefix("lib:") {
        let parts: Vec<String> = lib
            .lookup(name)
            .iter()
            .filter(|e| !matches!(e, Entry::Attribute(_) | Entry::Method(_) | Entry::Member(_)))
            .take(2)
            .map(msl_stdlib::hover)
            .collect();
        return (!parts.is_empty()).then(|| parts.join("\n\n---\n\n"));
    }
    if let Some(name) = key.strip_prefix("attr:") {
        return lib.attributes_named(name).next().map(|a| msl_stdlib::hover(&Entry::Attribute(a)));
    }
    if let Some(rest) = key.strip_prefix("method:") {
        let (ty, name) = rest.split_once(':')?;
        return lib.method(ty, name).next().map(|m| msl_stdlib::hover(&Entry::Method(m)));
    }
    None
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
