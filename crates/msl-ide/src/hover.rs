//! Hover: documentation for library entries and attributes, declarations of the user's
//! symbols with their types and doc comments, and macro expansions.

use std::fmt::Write;

use msl_stdlib::{Entry, Stdlib};
use msl_syntax::ast::{self, AstNode};
use msl_syntax::{SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

use crate::locate::{At, FileCtx, compact, doc_comment, join_tokens, word_at};
use crate::resolve::{Def, LocalKind, resolve};
use crate::symbols::{SymbolKind, strip_attributes};

/// Markdown for a range of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    pub range: TextRange,
    pub markdown: String,
}

pub(crate) fn hover(cx: &FileCtx, offset: TextSize) -> Option<Hover> {
    match cx.at(offset)? {
        At::MacroCall { call } => macro_call_hover(cx, call),
        At::Directive { piece } => directive_hover(cx, piece, offset),
        At::Token(tok) => token_hover(cx, &tok),
    }
}

fn token_hover(cx: &FileCtx, tok: &SyntaxToken) -> Option<Hover> {
    let range = cx.file_range(tok.text_range())?;
    if tok.kind().is_keyword() {
        let entry = Stdlib::get()
            .lookup(tok.text())
            .iter()
            .copied()
            .find(|e| matches!(e, Entry::Keyword(_) | Entry::Type(_)))?;
        return Some(Hover { range, markdown: with_availability(cx, &entry, msl_stdlib::hover(&entry)) });
    }
    let def = resolve(cx, tok, false)?;
    let markdown = def_markdown(cx, &def, Some(tok))?;
    Some(Hover { range, markdown })
}

/// Markdown describing a definition; `at` is the name being hovered (for overloads).
pub(crate) fn def_markdown(cx: &FileCtx, def: &Def, at: Option<&SyntaxToken>) -> Option<String> {
    match def {
        Def::Builtin(entries) => {
            let mut parts = Vec::new();
            for e in entries.iter().take(3) {
                let md = match (e, at) {
                    (Entry::Function(f), Some(tok)) => match applicable_overload(tok, f.overloads) {
                        Some(i) => msl_stdlib::hover_overload(e, i),
                        None => msl_stdlib::hover(e),
                    },
                    _ => msl_stdlib::hover(e),
                };
                parts.push(with_availability(cx, e, md));
            }
            Some(parts.join("\n\n---\n\n"))
        }
        Def::Attribute(a) => {
            let e = Entry::Attribute(a);
            Some(with_availability(cx, &e, msl_stdlib::hover(&e)))
        }
        Def::Swizzle { vector, components, ty } => Some(format!(
            "```metal\n{ty} {components}\n```\nComponents `{components}` of a `{vector}`: a {} of {} component{}.",
            if components.len() == 1 { "scalar" } else { "vector" },
            components.len(),
            if components.len() == 1 { "" } else { "s" }
        )),
        Def::Macro(m) => {
            let info = cx.parse.macros().get(*m as usize)?;
            Some(macro_definition(info))
        }
        Def::Local { decl, kind, ty, deduced, .. } => {
            let label = match kind {
                LocalKind::Param => "parameter",
                LocalKind::Var => "local variable",
                LocalKind::TemplateParam => "template parameter",
            };
            let text = match kind {
                LocalKind::Param => strip_attributes(&compact(decl)),
                LocalKind::TemplateParam => compact(decl),
                LocalKind::Var => variable_text(decl)?,
            };
            let mut md = format!("```metal\n// {label}\n{text}\n```");
            // what `auto` (or `decltype`) stands for
            if *deduced && let Some(t) = ty.as_ref().filter(|t| !t.is_unknown()) {
                let _ = write!(md, "\n*type:* `{t}`");
            }
            if let Some(space) = address_space_note(&text) {
                let _ = write!(md, "\n{space}");
            }
            let doc_node =
                if *kind == LocalKind::Var { decl.parent().unwrap_or_else(|| decl.clone()) } else { decl.clone() };
            if let Some(doc) = doc_comment(&doc_node) {
                let _ = write!(md, "\n\n{doc}");
            }
            Some(md)
        }
        Def::Item(sym) => {
            let (label, text) = match sym.kind {
                SymbolKind::Function | SymbolKind::Method => {
                    let f = ast::Function::cast(sym.node.clone())?;
                    (if sym.kind == SymbolKind::Method { "method" } else { "function" }, function_signature(&f))
                }
                SymbolKind::Struct | SymbolKind::Class | SymbolKind::Union => ("type", struct_outline(&sym.node)),
                SymbolKind::Enum => ("enum", enum_outline(&sym.node)),
                SymbolKind::EnumMember => {
                    ("enumerator", format!("{}{}", qualified_prefix(&sym.container), compact(&sym.node)))
                }
                SymbolKind::Field => ("field", member_variable_text(&sym.node, &sym.container)?),
                SymbolKind::Variable | SymbolKind::Constant => ("global", variable_text(&sym.node)?),
                SymbolKind::Typedef => ("alias", compact(&sym.node)),
                SymbolKind::Namespace => ("namespace", format!("namespace {}", sym.name)),
                _ => ("", compact(&sym.node)),
            };
            let mut md = format!("```metal\n// {label}\n{text}\n```");
            if matches!(sym.kind, SymbolKind::Field | SymbolKind::Variable | SymbolKind::Constant)
                && let Some(space) = address_space_note(&text)
            {
                let _ = write!(md, "\n{space}");
            }
            model_notes(cx, sym, &mut md);
            let doc_node = if matches!(sym.kind, SymbolKind::Field | SymbolKind::Variable | SymbolKind::Constant) {
                sym.node.parent().unwrap_or_else(|| sym.node.clone())
            } else {
                sym.node.clone()
            };
            if let Some(doc) = doc_comment(&doc_node) {
                let _ = write!(md, "\n\n{doc}");
            }
            let (file, _) = cx.any_file_range(sym.name_range);
            if file != 0 {
                let path = cx.path_of(file);
                let shown = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
                let _ = write!(md, "\n\n*declared in* `{shown}`");
            }
            Some(md)
        }
    }
}

/// What the model knows of a declaration: a class's size, alignment and members' offsets,
/// a member's offset, a constant's value, a kernel's threadgroup memory.
fn model_notes(cx: &FileCtx, sym: &crate::index::ItemSym, md: &mut String) {
    let sema = cx.sema();
    let Some(id) = sema.def_declared_at(sym.name_range) else { return };
    match sym.kind {
        SymbolKind::Struct | SymbolKind::Class | SymbolKind::Union => {
            let Some(layout) = sema.class_layout(id) else { return };
            let _ = write!(md, "\n*size* {} bytes, *alignment* {}", layout.layout.size, layout.layout.align);
            if !layout.fields.is_empty() {
                md.push_str("\n\n| offset | size | member |\n|---:|---:|---|");
                for f in &layout.fields {
                    let name = sema.defs().def(f.def).name.clone();
                    let name = if name.is_empty() { "(anonymous)".to_string() } else { format!("`{name}`") };
                    let _ = write!(md, "\n| {} | {} | {name} |", f.offset, f.layout.size);
                }
            }
        }
        SymbolKind::Field => {
            let defs = sema.defs();
            let Some(class) = defs.owner_class(id) else { return };
            // a member of an anonymous union or struct: its offset is within that
            if defs.def(class).name.is_empty() {
                return;
            }
            let Some(layout) = sema.class_layout(class) else { return };
            if let Some(f) = layout.fields.iter().find(|f| f.def == id) {
                let _ = write!(md, "\n*offset* {}, *size* {} bytes", f.offset, f.layout.size);
            }
        }
        SymbolKind::Variable | SymbolKind::Constant | SymbolKind::EnumMember => {
            if let Some(v) = sema.const_value(id) {
                let _ = write!(md, "\n*value* `{v}`");
            }
        }
        SymbolKind::Function => {
            if let Some(m) = sema.threadgroup_memory(id) {
                let at_least = if m.complete { "" } else { "at least " };
                let _ = write!(md, "\n*threadgroup memory:* {at_least}{} bytes declared in the body", m.declared);
                match m.host_sized {
                    0 => {}
                    1 => md.push_str(", plus 1 `[[threadgroup(n)]]` buffer the host sizes"),
                    n => {
                        let _ = write!(md, ", plus {n} `[[threadgroup(n)]]` buffers the host sizes");
                    }
                }
            }
        }
        _ => {}
    }
}

fn qualified_prefix(container: &str) -> String {
    if container.is_empty() { String::new() } else { format!("{container}::") }
}

/// `device float *data` → a note on what `device` means for the variable.
fn address_space_note(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
    let space = ["device", "constant", "threadgroup", "threadgroup_imageblock", "thread", "ray_data", "object_data"]
        .into_iter()
        .find(|s| words.contains(s))?;
    let what = match space {
        "device" => "device memory: readable and writable by every thread of the dispatch",
        "constant" => "constant memory: read-only, shared by every thread",
        "threadgroup" => "threadgroup memory: shared by the threads of one threadgroup",
        "threadgroup_imageblock" => "imageblock memory of the threadgroup",
        "thread" => "the thread's private memory",
        "ray_data" => "the ray's payload, shared by intersection functions",
        _ => "the object stage's payload for the mesh stage",
    };
    Some(format!("*address space:* `{space}`, {what}"))
}

/// A data member's declaration with its class before its name: `float4x4 Params::transform`.
fn member_variable_text(init_declarator: &SyntaxNode, container: &str) -> Option<String> {
    let d = ast::InitDeclarator::cast(init_declarator.clone())?;
    let v = init_declarator.parent().and_then(ast::VarDecl::cast);
    let spec = v.and_then(|v| v.decl_specifiers()).map(|s| compact(s.syntax())).unwrap_or_default();
    let declarator = d.declarator();
    let text = declarator.as_ref().map(|d| strip_attributes(&compact(d.syntax()))).unwrap_or_default();
    // the class put before the name's first whole-word occurrence (pointer and reference
    // operators come before it, bounds after)
    let name = declarator.and_then(|d| d.name()).map(|n| n.text()).filter(|_| !container.is_empty());
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let at = name.as_ref().and_then(|name| {
        text.match_indices(name.as_str())
            .map(|(i, _)| i)
            .find(|&i| !is_word(text[..i].chars().next_back()) && !is_word(text[i + name.len()..].chars().next()))
    });
    let declarator = match at {
        Some(i) => format!("{}{}{}", &text[..i], qualified_prefix(container), &text[i..]),
        None => text,
    };
    let bits = d.bit_field().map(|b| format!(" {}", compact(b.syntax()))).unwrap_or_default();
    Some(format!("{spec} {declarator}{bits}").trim().to_string())
}

/// A variable's declaration without its initializer: `const uint i`.
fn variable_text(init_declarator: &SyntaxNode) -> Option<String> {
    member_variable_text(init_declarator, "")
}

/// A function's declaration up to its body, attributes of parameters kept.
fn function_signature(f: &ast::Function) -> String {
    let mut parts = Vec::new();
    for child in f.syntax().children() {
        if matches!(child.kind(), SyntaxKind::COMPOUND_STMT | SyntaxKind::FUNCTION_BODY | SyntaxKind::CTOR_INITIALIZER)
        {
            break;
        }
        parts.push(compact(&child));
    }
    let mut text = parts.join(" ");
    // put each parameter on its own line when the signature is long
    if text.len() > 80
        && let (Some(open), Some(close)) = (text.find('('), text.rfind(')'))
    {
        let params = split_top_level(&text[open + 1..close]);
        if params.len() > 1 {
            let inner = params.iter().map(|p| format!("    {}", p.trim())).collect::<Vec<_>>().join(",\n");
            text = format!("{}(\n{inner}\n){}", &text[..open], &text[close + 1..]);
        }
    }
    if let Some(tpl) = f.syntax().parent().filter(|p| p.kind() == SyntaxKind::TEMPLATE_DECL)
        && let Some(list) = tpl.children().find(|c| c.kind() == SyntaxKind::TEMPLATE_PARAM_LIST)
    {
        text = format!("template {}\n{text}", compact(&list));
    }
    text
}

/// Splits at commas outside brackets, dropping an empty last piece.
pub(crate) fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = msl_stdlib::split_top_level(s);
    if out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out
}

fn struct_outline(node: &SyntaxNode) -> String {
    let Some(s) = ast::Struct::cast(node.clone()) else { return compact(node) };
    let keyword = s.keyword().map(|k| k.text().to_string()).unwrap_or_else(|| "struct".into());
    let name = s.name().map(|n| n.text()).unwrap_or_default();
    let bases = s.base_clause().map(|b| format!(" {}", compact(b.syntax()))).unwrap_or_default();
    let mut out = format!("{keyword} {name}{bases} {{\n");
    let mut shown = 0;
    let mut more = 0;
    for m in s.members() {
        if let ast::Item::VarDecl(v) = &m {
            for d in v.declarators() {
                if shown >= 24 {
                    more += 1;
                    continue;
                }
                if let Some(t) = variable_text(d.syntax()) {
                    let attrs: Vec<String> = d
                        .declarator()
                        .into_iter()
                        .flat_map(|d| d.attribute_lists().collect::<Vec<_>>())
                        .map(|a| compact(a.syntax()))
                        .collect();
                    let attrs = if attrs.is_empty() { String::new() } else { format!(" {}", attrs.join(" ")) };
                    let _ = writeln!(out, "    {t}{attrs};");
                    shown += 1;
                }
            }
        }
    }
    if more > 0 {
        let _ = writeln!(out, "    // {more} more");
    }
    out.push('}');
    out
}

fn enum_outline(node: &SyntaxNode) -> String {
    let Some(e) = ast::Enum::cast(node.clone()) else { return compact(node) };
    let mut head = String::new();
    for c in node.children_with_tokens() {
        if c.kind() == SyntaxKind::ENUMERATOR_LIST {
            break;
        }
        match c {
            rowan::NodeOrToken::Node(n) => head.push_str(&compact(&n)),
            rowan::NodeOrToken::Token(t) if !t.kind().is_trivia() => head.push_str(t.text()),
            _ => {
                head.push(' ');
                continue;
            }
        }
    }
    let head = head.split_whitespace().collect::<Vec<_>>().join(" ");
    let items: Vec<String> = e.enumerators().take(24).map(|en| compact(en.syntax())).collect();
    let count = e.enumerators().count();
    let mut out = format!("{head} {{\n");
    for i in &items {
        let _ = writeln!(out, "    {i},");
    }
    if count > items.len() {
        let _ = writeln!(out, "    // {} more", count - items.len());
    }
    out.push('}');
    out
}

/// The overload of a library function that a call with this many arguments can use,
/// when exactly one can.
fn applicable_overload(name: &SyntaxToken, overloads: &[msl_stdlib::Overload]) -> Option<usize> {
    let path = name.parent()?;
    let call = path.parent().filter(|c| c.kind() == SyntaxKind::CALL_EXPR)?;
    let args = call.children().find(|c| c.kind() == SyntaxKind::ARG_LIST)?;
    let count = args.children().count();
    let fits: Vec<usize> = overloads
        .iter()
        .enumerate()
        .filter(|(_, o)| crate::signature::param_labels(o.sig).len() == count)
        .map(|(i, _)| i)
        .collect();
    (fits.len() == 1).then(|| fits[0])
}

/// Adds a warning when the entry is newer than the file's Metal version or missing on
/// its platform.
fn with_availability(cx: &FileCtx, entry: &Entry, mut md: String) -> String {
    let config = &cx.settings.config;
    if !entry.available(config.version, config.platform) {
        let since = entry.since();
        if since > config.version {
            let _ = write!(md, "\n\n**Needs Metal {since}**; this file is checked as Metal {}.", config.version);
        } else {
            let _ = write!(md, "\n\n**Not available on {}.**", config.platform.name());
        }
    }
    md
}

fn macro_definition(info: &msl_syntax::MacroInfo) -> String {
    let params = match &info.params {
        Some(p) => {
            let mut ps = p.clone();
            if info.variadic {
                ps.push("...".into());
            }
            format!("({})", ps.join(", "))
        }
        None => String::new(),
    };
    format!("```metal\n#define {}{params} {}\n```", info.name, info.body)
}

fn macro_call_hover(cx: &FileCtx, call: u32) -> Option<Hover> {
    let c = cx.parse.macro_calls().get(call as usize)?;
    if c.file != cx.focus {
        return None;
    }
    let info = cx.parse.macros().get(c.def as usize)?;
    let mut md = macro_definition(info);
    // the expansion: the tokens this invocation produced
    let tokens = cx.parse.macro_expansion(call, 2000);
    let mut expansion = join_tokens(tokens.iter().copied());
    if expansion.len() > 4000 {
        let cut = (0..=4000).rev().find(|&i| expansion.is_char_boundary(i)).unwrap_or(0);
        expansion.truncate(cut);
        expansion.push_str(" …");
    }
    let _ =
        write!(md, "\n\nExpands to:\n```metal\n{}\n```", if expansion.is_empty() { "(nothing)" } else { &expansion });
    Some(Hover { range: c.range, markdown: md })
}

fn directive_hover(cx: &FileCtx, piece: usize, offset: TextSize) -> Option<Hover> {
    let p = cx.parse.piece(piece)?;
    if p.kind == SyntaxKind::PP_INACTIVE {
        return None;
    }
    // `#include`: the file it names
    if let Some(inc) = cx.parse.includes().iter().find(|i| i.file == cx.focus && i.range.contains_inclusive(offset)) {
        let md = match inc.target.map(|t| cx.parse.files().get(t as usize)) {
            Some(Some(f)) if !f.is_virtual => format!("`{}`", f.path.display()),
            // a header whose declarations the analysis knows without reading a file
            Some(_) if inc.name.starts_with("MetalPerformancePrimitives/") => {
                format!("`<{}>`: Metal Performance Primitives (built in)", inc.name)
            }
            Some(_) => format!("`<{}>`: a header of the Metal standard library (built in)", inc.name),
            None => format!("`{}` was not found", inc.name),
        };
        return Some(Hover { range: inc.range, markdown: md });
    }
    // a macro name in `#ifdef NAME`, `#if defined(NAME)`, `#undef NAME`
    let text = p.text;
    let rel = usize::from(offset.checked_sub(p.range.start())?);
    let std::ops::Range { start: s, end: e } = word_at(text, rel)?;
    let word = &text[s..e];
    let m = crate::resolve::macro_named(cx, word)?;
    let info = cx.parse.macros().get(m as usize)?;
    let range = TextRange::at(p.range.start() + TextSize::from(s as u32), TextSize::from((e - s) as u32));
    Some(Hover { range, markdown: macro_definition(info) })
}
