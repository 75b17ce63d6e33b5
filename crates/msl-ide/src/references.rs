//! Navigation: definitions, declarations, type definitions, references, highlights and
//! renames.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use msl_syntax::ast::{self, AstNode};
use msl_syntax::{Origin, SyntaxKind, SyntaxToken, TextRange, TextSize};
use rustc_hash::FxHashMap;

use crate::actions::FileEdit;
use crate::builtins::{BUILTIN_LIBRARY_PATH, builtin_library_text, entry_range};
use crate::locate::{At, FileCtx, word_at};
use crate::resolve::{Def, LocalKind, item_of_def, resolve};
use crate::workspace::{self, Doubt, Indexer, Key, UnitIndex};
use crate::{FileRange, NavTarget, Snapshot};

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
        if let Some(inc) = cx.parse.includes().iter().find(|i| i.file == cx.focus && i.range.contains_inclusive(offset))
        {
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
pub(crate) struct Use {
    pub file: u32,
    pub range: TextRange,
    pub write: bool,
    /// Spelled in a file (renaming it there renames it), not in a macro's body.
    pub renamable: bool,
}

/// Where the identifier `tok` is written, as a use of the symbol declared at `decl_name`
/// (a tree range, when the symbol has one): exact where it is spelled or comes from a
/// macro's arguments, the invocation where a macro's body produced it.
pub(crate) fn use_site(cx: &FileCtx, tok: &SyntaxToken, decl_name: Option<TextRange>) -> Option<Use> {
    let write = Some(tok.text_range()) == decl_name || is_write(tok) || is_declaration_name(tok);
    match cx.parse.token_origin(tok)? {
        Origin::Spelled { file, range } => {
            let range = TextRange::at(range.start(), tok.text_range().len());
            Some(Use { file, range, write, renamable: true })
        }
        // written in the invocation's arguments: that text is the use
        Origin::Macro { call_file, call_range, spelling, .. } => match spelling {
            Some((f, r)) if f == call_file && call_range.contains_range(r) => {
                Some(Use { file: f, range: r, write, renamable: true })
            }
            _ => Some(Use { file: call_file, range: call_range, write, renamable: false }),
        },
    }
}

/// The uses of a local (a parameter, variable or template parameter) in its function.
fn local_uses(cx: &FileCtx, def: &Def) -> Vec<Use> {
    let mut out = Vec::new();
    let Def::Local { name, decl, kind, .. } = def else { return out };
    let Some(name_tok) = cx.root.covering_element(*name).into_token() else { return out };
    let text = name_tok.text().to_string();
    // locals are only seen inside their function; a template parameter's scope is the
    // template
    let scope = decl
        .ancestors()
        .find(|a| matches!(a.kind(), SyntaxKind::FUNCTION | SyntaxKind::LAMBDA_EXPR | SyntaxKind::TEMPLATE_DECL))
        .map(|f| {
            f.ancestors()
                .find(|a| a.kind() == SyntaxKind::TEMPLATE_DECL)
                .filter(|_| *kind == LocalKind::TemplateParam)
                .unwrap_or(f)
        })
        .unwrap_or_else(|| cx.root.clone());
    for tok in scope.descendants_with_tokens().filter_map(|e| e.into_token()) {
        if tok.kind() != SyntaxKind::IDENT || tok.text() != text {
            continue;
        }
        let Some(d) = resolve(cx, &tok, false) else { continue };
        if !d.same_local(def) {
            continue;
        }
        out.extend(use_site(cx, &tok, Some(*name)));
    }
    out.sort_by_key(|u| (u.file, u.range.start()));
    out.dedup_by_key(|u| (u.file, u.range));
    out
}

pub(crate) fn is_declaration_name(tok: &SyntaxToken) -> bool {
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

/// A use found anywhere in the workspace.
#[derive(Debug, Clone)]
pub(crate) struct FoundUse {
    pub path: PathBuf,
    pub range: TextRange,
    pub renamable: bool,
    pub declaration: bool,
}

/// What a search for one symbol over the workspace found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub uses: Vec<FoundUse>,
    /// Occurrences of the name that may mean the symbol.
    pub doubts: Vec<(PathBuf, TextRange, Doubt)>,
    /// The texts of the files of `uses` and `doubts`.
    pub texts: FxHashMap<PathBuf, Arc<str>>,
    /// Units that may read the declaration but are not indexed yet.
    pub unindexed: usize,
}

/// At most this many units that were never indexed are indexed during a rename; with more,
/// the rename waits for the background index.
pub(crate) const INDEX_NOW_LIMIT: usize = 32;

/// Every use of the symbol `key`, named `name`, in the workspace: open units are searched
/// now, the others are read from their index. With `indexer`, units whose index is older
/// than their files are indexed again first.
pub(crate) fn workspace_uses(snap: &Snapshot, key: &Key, name: &str, mut indexer: Option<&mut Indexer>) -> Found {
    let mut found = Found::default();
    let take = |found: &mut Found, idx: &UnitIndex, texts: &mut dyn FnMut(&Path) -> Option<Arc<str>>| {
        let Some(local) = idx.local(key) else { return };
        let mut touched: Vec<u32> = Vec::new();
        for u in idx.uses.iter().filter(|u| u.key == local) {
            found.uses.push(FoundUse {
                path: idx.path(u.file).to_path_buf(),
                range: u.range,
                renamable: u.renamable,
                declaration: u.declaration,
            });
            touched.push(u.file);
        }
        for d in idx.doubts.iter().filter(|d| &*d.name == name) {
            found.doubts.push((idx.path(d.file).to_path_buf(), d.range, d.why));
            touched.push(d.file);
        }
        touched.sort_unstable();
        touched.dedup();
        for f in touched {
            let p = idx.path(f);
            if !found.texts.contains_key(&**p)
                && let Some(t) = texts(p)
            {
                found.texts.insert(p.to_path_buf(), t);
            }
        }
    };
    // open units: now
    let mut paths: Vec<&PathBuf> = snap.units.keys().collect();
    paths.sort();
    for path in paths {
        let Some(cx) = snap.file(path) else { continue };
        if !cx.parse.files().iter().any(|f| !f.is_virtual && *f.path == *key.path) {
            continue;
        }
        let idx = workspace::build(&cx, Some(name));
        let files = cx.parse.files();
        let mut texts = |p: &Path| files.iter().find(|f| f.path == p).map(|f| f.text.clone());
        take(&mut found, &idx, &mut texts);
    }
    // the other units of the workspace: from their index
    let mut units: Vec<(&PathBuf, &crate::workspace::UnitEntry)> =
        snap.workspace.units.iter().filter(|(p, _)| !snap.units.contains_key(*p)).collect();
    units.sort_by(|a, b| a.0.cmp(b.0));
    // a few units not indexed yet are indexed now (when asked to be exact); more make the
    // answer incomplete
    let never = units.iter().filter(|(_, e)| e.index.is_none()).count();
    let index_now = indexer.is_some() && never <= INDEX_NOW_LIMIT;
    // the open buffers, read only when a unit is indexed here
    let overlays = std::cell::OnceCell::new();
    let overlays = || overlays.get_or_init(|| snap.overlays());
    for (path, entry) in units {
        let Some(old) = &entry.index else {
            if index_now
                && let Some(indexer) = indexer.as_deref_mut()
                && let Some((idx, texts)) = indexer.index(path, &entry.settings, overlays())
            {
                let texts: FxHashMap<Arc<Path>, Arc<str>> = texts.into_iter().collect();
                take(&mut found, &idx, &mut |p: &Path| texts.get(p).cloned());
            } else {
                found.unindexed += 1;
            }
            continue;
        };
        if old.file_of(&key.path).is_none() && !entry.stale {
            continue;
        }
        if entry.stale
            && let Some(indexer) = indexer.as_deref_mut()
        {
            if let Some((idx, texts)) = indexer.index(path, &entry.settings, overlays()) {
                let texts: FxHashMap<Arc<Path>, Arc<str>> = texts.into_iter().collect();
                take(&mut found, &idx, &mut |p: &Path| texts.get(p).cloned());
            }
            continue;
        }
        take(&mut found, old, &mut |p: &Path| snap.workspace.text(p));
    }
    found.uses.sort_by(|a, b| a.path.cmp(&b.path).then(a.range.start().cmp(&b.range.start())));
    found.uses.dedup_by(|a, b| a.path == b.path && a.range == b.range);
    found.doubts.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.start().cmp(&b.1.start())));
    found.doubts.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    // an occurrence that is a use somewhere (another unit resolved it) is no doubt
    let sure: rustc_hash::FxHashSet<(&Path, TextRange)> =
        found.uses.iter().map(|u| (u.path.as_path(), u.range)).collect();
    let doubts = std::mem::take(&mut found.doubts);
    found.doubts = doubts.into_iter().filter(|(p, r, _)| !sure.contains(&(p.as_path(), *r))).collect();
    found
}

/// What a request at `offset` is about: a local of the unit, a symbol of the workspace, or
/// something else (the library).
pub(crate) enum Target {
    Local(Def),
    Global { def: Def, key: Key, name: String },
    Other,
}

pub(crate) fn target(cx: &FileCtx, offset: TextSize) -> Option<(Target, Option<SyntaxToken>)> {
    let (def, tok) = def_at(cx, offset, false)?;
    let t = match &def {
        Def::Local { .. } => Target::Local(def),
        Def::Item(_) | Def::Macro(_) => match workspace::global_key(cx, &def) {
            Some(key) => {
                let name = match &def {
                    Def::Item(s) => s.name.clone(),
                    Def::Macro(m) => cx.parse.macros().get(*m as usize).map(|i| i.name.to_string()).unwrap_or_default(),
                    _ => String::new(),
                };
                Target::Global { def, key, name }
            }
            None => Target::Other,
        },
        _ => Target::Other,
    };
    Some((t, tok))
}

pub(crate) fn references(snap: &Snapshot, cx: &FileCtx, offset: TextSize, include_declaration: bool) -> Vec<FileRange> {
    let Some((target, _)) = target(cx, offset) else { return Vec::new() };
    match target {
        Target::Local(def) => {
            let decl = match &def {
                Def::Local { name, .. } => Some(cx.any_file_range(*name)),
                _ => None,
            };
            local_uses(cx, &def)
                .into_iter()
                .filter(|u| include_declaration || Some((u.file, u.range)) != decl)
                .filter_map(|u| {
                    let f = cx.parse.files().get(u.file as usize)?;
                    (!f.is_virtual).then(|| FileRange { path: f.path.clone(), range: u.range })
                })
                .collect()
        }
        Target::Global { key, name, .. } => workspace_uses(snap, &key, &name, None)
            .uses
            .into_iter()
            .filter(|u| include_declaration || !u.declaration)
            .map(|u| FileRange { path: u.path, range: u.range })
            .collect(),
        Target::Other => Vec::new(),
    }
}

/// The uses in `cx`'s own unit of what `def` means.
fn unit_uses(cx: &FileCtx, def: &Def) -> Vec<Use> {
    if let Def::Local { .. } = def {
        return local_uses(cx, def);
    }
    let Some(key) = workspace::key_of(cx, def) else { return Vec::new() };
    let name = match def {
        Def::Item(s) => s.name.clone(),
        Def::Macro(m) => cx.parse.macros().get(*m as usize).map(|i| i.name.to_string()).unwrap_or_default(),
        _ => return Vec::new(),
    };
    let idx = workspace::build(cx, Some(&name));
    // the index numbers files its own way: back to the parse's numbers
    let file_no = |p: &Path| cx.parse.files().iter().position(|f| !f.is_virtual && f.path == p).map(|i| i as u32);
    let Some(kf) = cx.parse.files().get(key.0 as usize).and_then(|f| idx.file_of(&f.path)) else { return Vec::new() };
    let local = workspace::LocalKey { file: kf, offset: key.1.into() };
    idx.uses
        .iter()
        .filter(|u| u.key == local)
        .filter_map(|u| {
            Some(Use { file: file_no(idx.path(u.file))?, range: u.range, write: u.write, renamable: u.renamable })
        })
        .collect()
}

pub(crate) fn highlights(cx: &FileCtx, offset: TextSize) -> Vec<(TextRange, bool)> {
    let Some((def, _)) = def_at(cx, offset, false) else { return Vec::new() };
    unit_uses(cx, &def).into_iter().filter(|u| u.file == cx.focus).map(|u| (u.range, u.write)).collect()
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
            let u = unit_uses(cx, &def);
            u.into_iter()
                .find(|u| u.file == cx.focus && u.range.contains_inclusive(offset))
                .map(|u| u.range)
                .ok_or("the name is produced by a macro here")?
        }
    };
    let name = cx.text().get(std::ops::Range::<usize>::from(range)).unwrap_or_default().to_string();
    Ok((range, name))
}

fn declaration_range(cx: &FileCtx, def: &Def) -> Option<(u32, TextRange)> {
    match def {
        Def::Local { name, .. } => Some(cx.any_file_range(*name)),
        Def::Item(s) => Some(cx.any_file_range(s.name_range)),
        Def::Macro(m) => cx.parse.macros().get(*m as usize).map(|i| (i.file, i.name_range)),
        _ => None,
    }
}

/// `path:line` for messages.
fn place(path: &Path, text: Option<&Arc<str>>, at: TextSize) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match text {
        Some(t) => {
            let line = t.get(..usize::from(at)).map(|s| s.matches('\n').count() + 1).unwrap_or(1);
            format!("{name}:{line}")
        }
        None => name,
    }
}

pub(crate) fn rename(snap: &Snapshot, cx: &FileCtx, offset: TextSize, new_name: &str) -> Result<Vec<FileEdit>, String> {
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
    let (target, _) = target(cx, offset).ok_or("there is no symbol to rename here")?;
    let edits: Vec<(PathBuf, Arc<str>, TextRange)> = match target {
        Target::Local(def) => {
            let uses = local_uses(cx, &def);
            if uses.iter().any(|u| !u.renamable) {
                return Err("the name is also written inside a macro definition; rename it there by hand".into());
            }
            uses.into_iter()
                .filter(|u| cx.parse.files().get(u.file as usize).is_some_and(|f| !f.is_virtual))
                .map(|u| (cx.path_of(u.file), cx.text_of(u.file), u.range))
                .collect()
        }
        Target::Global { key, name, .. } => {
            let mut indexer = Indexer::new();
            let found = workspace_uses(snap, &key, &name, Some(&mut indexer));
            if found.unindexed > 0 {
                let n = found.unindexed;
                return Err(format!(
                    "the workspace is still being indexed ({n} {} to go); rename again when indexing is done",
                    if n == 1 { "file" } else { "files" }
                ));
            }
            if let Some(u) = found.uses.iter().find(|u| !u.renamable) {
                return Err(format!(
                    "`{name}` is produced by a macro at {}; rename it there by hand",
                    place(&u.path, found.texts.get(&u.path), u.range.start())
                ));
            }
            if !found.doubts.is_empty() {
                let mut list: Vec<String> = found
                    .doubts
                    .iter()
                    .map(|(p, r, why)| format!("{} ({})", place(p, found.texts.get(p), r.start()), why.describe()))
                    .collect();
                list.dedup();
                let more = list.len().saturating_sub(3);
                list.truncate(3);
                let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                return Err(format!(
                    "`{name}` is also written where it cannot be told whether it means this symbol: {}{more}. \
                     Renaming would leave those places behind",
                    list.join(", ")
                ));
            }
            let mut out = Vec::new();
            for u in found.uses {
                let Some(text) = found.texts.get(&u.path).cloned() else {
                    return Err(format!("{} could not be read", u.path.display()));
                };
                out.push((u.path, text, u.range));
            }
            out
        }
        Target::Other => return Err("this symbol cannot be renamed".into()),
    };
    type Edits = (Arc<str>, Vec<(TextRange, String)>);
    let mut by_file: FxHashMap<PathBuf, Edits> = FxHashMap::default();
    for (path, text, range) in edits {
        by_file.entry(path).or_insert_with(|| (text, Vec::new())).1.push((range, new_name.to_string()));
    }
    let mut out: Vec<FileEdit> =
        by_file.into_iter().map(|(path, (text, edits))| FileEdit { path, text, edits }).collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}
