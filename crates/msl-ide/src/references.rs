//! Navigation: definitions, declarations, type definitions, references, highlights and
//! renames.

use std::path::PathBuf;
use std::sync::Arc;

use msl_syntax::ast::{self, AstNode};
use msl_syntax::{Origin, SyntaxKind, SyntaxToken, TextRange, TextSize};
use rustc_hash::FxHashMap;

use crate::actions::FileEdit;
use crate::builtins::{BUILTIN_LIBRARY_PATH, builtin_library_text, entry_range};
use crate::locate::{At, FileCtx, word_at};
use crate::resolve::{Def, LocalKind, item_of_def, resolve};
use crate::{FileRange, NavTarget};

/// What is at `offset`, resolved.
fn def_at(cx: &FileCtx, offset: TextSize, prefer_declaration: bool) -> Option<(Def, Option<SyntaxToken>)> {
    match cx.at(offset)? {
        At::Token(tok) => resolve(cx, &tok, prefer_declaration).map(|d| (d, Some(tok))),
        At::MacroCall { call, .. } => {
            let c = cx.parse.macro_calls().get(call as usize)?;
            // only the macro's name, not its arguments, stands for the macro
            let name = &cx.parse.macros().get(c.def as usize)?.name;
            let name_end = c.range.start() + TextSize::of(&**name);
            if offset > name_end {
                return None;
            }
            Some((Def::Macro(c.def), None))
        }
        At::Directive { piece } => {
            let word = directive_word(cx, piece, offset)?;
            crate::resolve::macro_named(cx, &word).map(|m| (Def::Macro(m), None))
        }
    }
}

fn directive_word(cx: &FileCtx, piece: usize, offset: TextSize) -> Option<String> {
    let p = cx.parse.piece(piece)?;
    let rel = usize::from(offset).checked_sub(usize::from(p.range.start()))?;
    word_at(p.text, rel).map(|r| p.text[r].to_string())
}

pub(crate) fn definition(cx: &FileCtx, offset: TextSize, prefer_declaration: bool) -> Vec<NavTarget> {
    // `#include "file"` goes to the file
    if let Some(At::Directive { .. }) = cx.at(offset) {
        if let Some(inc) = cx.parse.includes().iter().find(|i| i.file == 0 && i.range.contains_inclusive(offset)) {
            if let Some(t) = inc.target
                && let Some(f) = cx.parse.files().get(t as usize)
                && !f.is_virtual
            {
                let empty = TextRange::empty(0.into());
                return vec![NavTarget { path: f.path.clone(), full: empty, focus: empty, text: f.text.clone() }];
            }
            return Vec::new();
        }
    }
    let Some((def, _)) = def_at(cx, offset, prefer_declaration) else { return Vec::new() };
    nav_targets(cx, &def)
}

pub(crate) fn nav_targets(cx: &FileCtx, def: &Def) -> Vec<NavTarget> {
    match def {
        Def::Local { name, decl, .. } => tree_target(cx, *name, decl.text_range()).into_iter().collect(),
        Def::Item(sym) => {
            let mut node = sym.node.text_range();
            if let Some(p) = sym.node.parent()
                && p.kind() == SyntaxKind::TEMPLATE_DECL
            {
                node = p.text_range();
            }
            tree_target(cx, sym.name_range, node).into_iter().collect()
        }
        Def::Macro(m) => {
            let Some(info) = cx.parse.macros().get(*m as usize) else { return Vec::new() };
            let Some(f) = cx.parse.files().get(info.file as usize) else { return Vec::new() };
            if f.is_virtual {
                return Vec::new();
            }
            vec![NavTarget {
                path: f.path.clone(),
                full: info.name_range,
                focus: info.name_range,
                text: f.text.clone(),
            }]
        }
        Def::Builtin(entries) => entries.iter().filter_map(builtin_target).take(1).collect(),
        Def::Attribute(a) => builtin_target(&msl_stdlib::Entry::Attribute(a)).into_iter().collect(),
        Def::Swizzle { .. } => Vec::new(),
    }
}

fn builtin_target(entry: &msl_stdlib::Entry) -> Option<NavTarget> {
    let range = entry_range(entry)?;
    Some(NavTarget {
        path: PathBuf::from(BUILTIN_LIBRARY_PATH),
        full: range,
        focus: range,
        text: Arc::from(builtin_library_text()),
    })
}

/// A target from tree ranges, in the file where the name is spelled.
fn tree_target(cx: &FileCtx, name: TextRange, full: TextRange) -> Option<NavTarget> {
    let (file, focus) = cx.any_file_range(name);
    let (full_file, full) = cx.any_file_range(full);
    let full = if full_file == file { full.cover(focus) } else { focus };
    let f = cx.parse.files().get(file as usize)?;
    if f.is_virtual {
        return None;
    }
    Some(NavTarget { path: f.path.clone(), full, focus, text: f.text.clone() })
}

pub(crate) fn type_definition(cx: &FileCtx, offset: TextSize) -> Vec<NavTarget> {
    let Some((def, _)) = def_at(cx, offset, false) else { return Vec::new() };
    let sema = cx.sema();
    let ty = match &def {
        Def::Local { kind: LocalKind::TemplateParam, .. } => return Vec::new(),
        Def::Item(s) if s.kind.is_type() => return nav_targets(cx, &def),
        Def::Local { ty, .. } => ty.clone(),
        Def::Item(s) => sema.def_declared_at(s.name_range).and_then(|id| sema.type_of_def(id)),
        _ => None,
    };
    let Some(ty) = ty else { return Vec::new() };
    // a function's type leads to what it returns
    let ty = match ty.strip().kind() {
        msl_hir::ty::TyKind::Function(f) => f.ret.clone(),
        _ => ty,
    };
    if let Some(id) = sema.def_of_type(&ty) {
        return item_of_def(cx, id, false).map(|s| nav_targets(cx, &Def::Item(s))).unwrap_or_default();
    }
    match sema.library_type_name(&ty).and_then(|n| msl_stdlib::Stdlib::get().type_named(n)) {
        Some(t) => nav_targets(cx, &Def::Builtin(vec![msl_stdlib::Entry::Type(t)])),
        None => Vec::new(),
    }
}

/// A use of a symbol: where it is and whether it writes.
struct Use {
    file: u32,
    range: TextRange,
    write: bool,
    /// Spelled in a file (renaming it there renames it), not in a macro's body.
    renamable: bool,
}

fn uses(cx: &FileCtx, def: &Def) -> Vec<Use> {
    let mut out = Vec::new();
    if let Def::Macro(m) = def {
        if let Some(info) = cx.parse.macros().get(*m as usize) {
            out.push(Use { file: info.file, range: info.name_range, write: true, renamable: true });
            for c in cx.parse.macro_calls().iter().filter(|c| c.def == *m) {
                let range = TextRange::at(c.range.start(), TextSize::of(&*info.name));
                out.push(Use { file: c.file, range, write: false, renamable: true });
            }
        }
        return out;
    }
    let name = match def {
        Def::Local { name, .. } => *name,
        Def::Item(s) => s.name_range,
        _ => return out,
    };
    let Some(name_tok) = cx.root.covering_element(name).into_token() else { return out };
    let text = name_tok.text().to_string();
    // locals are only seen inside their function
    let scope = match def {
        Def::Local { decl, .. } => decl
            .ancestors()
            .find(|a| matches!(a.kind(), SyntaxKind::FUNCTION | SyntaxKind::LAMBDA_EXPR | SyntaxKind::TEMPLATE_DECL))
            .map(|f| {
                // a template parameter's scope is the template
                f.ancestors()
                    .find(|a| a.kind() == SyntaxKind::TEMPLATE_DECL)
                    .filter(|_| matches!(def, Def::Local { kind: LocalKind::TemplateParam, .. }))
                    .unwrap_or(f)
            })
            .unwrap_or_else(|| cx.root.clone()),
        _ => cx.root.clone(),
    };
    for tok in scope.descendants_with_tokens().filter_map(|e| e.into_token()) {
        if tok.kind() != SyntaxKind::IDENT || tok.text() != text {
            continue;
        }
        let Some(d) = resolve(cx, &tok, false) else { continue };
        if !d.same(def) {
            continue;
        }
        let write = tok.text_range() == name || is_write(&tok) || is_declaration_name(&tok);
        match cx.parse.token_origin(&tok) {
            Some(Origin::Spelled { file, range }) => {
                let range = TextRange::at(range.start(), tok.text_range().len());
                out.push(Use { file, range, write, renamable: true });
            }
            Some(Origin::Macro { call_file, call_range, spelling, .. }) => {
                // written in the invocation's arguments: that text is the use
                match spelling {
                    Some((f, r)) if f == call_file && call_range.contains_range(r) => {
                        out.push(Use { file: f, range: r, write, renamable: true })
                    }
                    _ => out.push(Use { file: call_file, range: call_range, write, renamable: false }),
                }
            }
            None => {}
        }
    }
    out.sort_by_key(|u| (u.file, u.range.start()));
    out.dedup_by_key(|u| (u.file, u.range));
    out
}

fn is_declaration_name(tok: &SyntaxToken) -> bool {
    tok.parent().is_some_and(|p| p.kind() == SyntaxKind::NAME)
}

/// Whether the name is assigned to (`x = `, `x += `, `x++`).
fn is_write(tok: &SyntaxToken) -> bool {
    let Some(path) = tok.parent().filter(|p| p.kind() == SyntaxKind::PATH_EXPR) else { return false };
    let mut node = path;
    // `a[i] = ...`, `a.x = ...` write to `a`
    while let Some(p) = node.parent() {
        if matches!(p.kind(), SyntaxKind::INDEX_EXPR | SyntaxKind::MEMBER_EXPR)
            && p.children().next().as_ref() == Some(&node)
        {
            node = p;
        } else {
            break;
        }
    }
    let Some(parent) = node.parent() else { return false };
    match parent.kind() {
        SyntaxKind::BIN_EXPR => {
            parent.children().next().as_ref() == Some(&node)
                && ast::BinExpr::cast(parent.clone()).and_then(|b| b.op()).is_some_and(|op| {
                    matches!(
                        op.kind(),
                        SyntaxKind::EQ
                            | SyntaxKind::PLUSEQ
                            | SyntaxKind::MINUSEQ
                            | SyntaxKind::STAREQ
                            | SyntaxKind::SLASHEQ
                            | SyntaxKind::PERCENTEQ
                            | SyntaxKind::AMPEQ
                            | SyntaxKind::PIPEEQ
                            | SyntaxKind::CARETEQ
                            | SyntaxKind::SHLEQ
                            | SyntaxKind::SHREQ
                    )
                })
        }
        SyntaxKind::PREFIX_EXPR | SyntaxKind::POSTFIX_EXPR => {
            parent.children_with_tokens().any(|e| matches!(e.kind(), SyntaxKind::PLUS2 | SyntaxKind::MINUS2))
        }
        _ => false,
    }
}

pub(crate) fn references(cx: &FileCtx, offset: TextSize, include_declaration: bool) -> Vec<FileRange> {
    let Some((def, _)) = def_at(cx, offset, false) else { return Vec::new() };
    let decl_range = declaration_range(cx, &def);
    uses(cx, &def)
        .into_iter()
        .filter(|u| include_declaration || Some((u.file, u.range)) != decl_range)
        .filter_map(|u| {
            let f = cx.parse.files().get(u.file as usize)?;
            (!f.is_virtual).then(|| FileRange { path: f.path.clone(), range: u.range })
        })
        .collect()
}

fn declaration_range(cx: &FileCtx, def: &Def) -> Option<(u32, TextRange)> {
    match def {
        Def::Local { name, .. } => Some(cx.any_file_range(*name)),
        Def::Item(s) => Some(cx.any_file_range(s.name_range)),
        Def::Macro(m) => cx.parse.macros().get(*m as usize).map(|i| (i.file, i.name_range)),
        _ => None,
    }
}

pub(crate) fn highlights(cx: &FileCtx, offset: TextSize) -> Vec<(TextRange, bool)> {
    let Some((def, _)) = def_at(cx, offset, false) else { return Vec::new() };
    uses(cx, &def).into_iter().filter(|u| u.file == 0).map(|u| (u.range, u.write)).collect()
}

pub(crate) fn prepare_rename(cx: &FileCtx, offset: TextSize) -> Result<(TextRange, String), String> {
    let (def, tok) = def_at(cx, offset, false).ok_or_else(|| "there is no symbol to rename here".to_string())?;
    match &def {
        Def::Builtin(_) | Def::Attribute(_) | Def::Swizzle { .. } => {
            return Err("names of the Metal standard library cannot be renamed".into());
        }
        Def::Macro(m) => {
            let info = cx.parse.macros().get(*m as usize).ok_or("unknown macro")?;
            if cx.parse.files().get(info.file as usize).is_some_and(|f| f.is_virtual) {
                return Err("predefined macros cannot be renamed".into());
            }
        }
        _ => {}
    }
    if let Some((file, _)) = declaration_range(cx, &def)
        && cx.parse.files().get(file as usize).is_none_or(|f| f.is_virtual)
    {
        return Err("this symbol is declared in the built-in library".into());
    }
    let range = match &tok {
        Some(t) => cx.file_range(t.text_range()).ok_or("the name is produced by a macro here")?,
        None => {
            // a macro invocation: its name
            let u = uses(cx, &def);
            u.into_iter()
                .find(|u| u.file == 0 && u.range.contains_inclusive(offset))
                .map(|u| u.range)
                .ok_or("the name is produced by a macro here")?
        }
    };
    let name = cx.text().get(std::ops::Range::<usize>::from(range)).unwrap_or_default().to_string();
    Ok((range, name))
}

pub(crate) fn rename(cx: &FileCtx, offset: TextSize, new_name: &str) -> Result<Vec<FileEdit>, String> {
    let valid = !new_name.is_empty()
        && new_name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && new_name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("`{new_name}` is not a valid identifier"));
    }
    if msl_syntax::lexer::lex_single(new_name).is_some_and(|k| k.is_keyword()) {
        return Err(format!("`{new_name}` is a keyword"));
    }
    prepare_rename(cx, offset)?;
    let (def, _) = def_at(cx, offset, false).ok_or("there is no symbol to rename here")?;
    let uses = uses(cx, &def);
    if uses.iter().any(|u| !u.renamable) {
        return Err("the name is also written inside a macro definition; rename it there by hand".into());
    }
    let mut by_file: FxHashMap<u32, Vec<(TextRange, String)>> = FxHashMap::default();
    for u in uses {
        if cx.parse.files().get(u.file as usize).is_none_or(|f| f.is_virtual) {
            continue;
        }
        by_file.entry(u.file).or_default().push((u.range, new_name.to_string()));
    }
    let mut out: Vec<FileEdit> = by_file
        .into_iter()
        .map(|(file, edits)| FileEdit { path: cx.path_of(file), text: cx.text_of(file), edits })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}
