//! What needs every unit of the workspace: workspace symbols, definitions in other units,
//! the call hierarchy and the type hierarchy. Open units are read now; the others from the
//! workspace index.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use msl_syntax::{TextRange, TextSize};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::locate::FileCtx;
use crate::references::{Target, target};
use crate::resolve::Def;
use crate::symbols::{SymbolKind, WorkspaceSymbol, fuzzy_match};
use crate::workspace::{self, IndexDecl, Key, UnitIndex};
use crate::{NavTarget, Snapshot};

/// A function or type of the workspace, as an item of a hierarchy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HierarchyItem {
    pub name: String,
    pub kind: SymbolKind,
    pub container: Option<String>,
    pub path: PathBuf,
    pub full: TextRange,
    pub focus: TextRange,
    /// The file's text, to convert offsets.
    pub text: Arc<str>,
    /// Names the symbol in later requests: the file of its first declaration and the
    /// offset of its name there.
    pub id: SymbolId,
}

/// A symbol of the workspace, by its first declaration.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SymbolId {
    pub path: PathBuf,
    pub offset: u32,
}

impl SymbolId {
    fn key(&self) -> Key {
        Key { path: Arc::from(self.path.as_path()), offset: self.offset }
    }
}

/// A call between two functions: the other function and where the calls are (in the
/// caller's file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub item: HierarchyItem,
    pub ranges: Vec<TextRange>,
}

/// The unit indexes that may hold `path`: open units built now (fully), the others from
/// the workspace index. Each comes with a way to read its files' texts.
/// Reads the text of a file of a unit.
type Texts<'a> = &'a dyn Fn(&Path) -> Option<Arc<str>>;

fn units_reading(snap: &Snapshot, path: &Path, f: &mut dyn FnMut(&UnitIndex, Texts)) {
    let mut open: Vec<&PathBuf> = snap.units.keys().collect();
    open.sort();
    for p in open {
        let Some(cx) = snap.file(p) else { continue };
        if !cx.parse.files().iter().any(|f| !f.is_virtual && f.path == path) {
            continue;
        }
        let idx = workspace::build(&cx, None);
        let files = cx.parse.files();
        f(&idx, &|q: &Path| files.iter().find(|x| x.path == q).map(|x| x.text.clone()));
    }
    let mut rest: Vec<(&PathBuf, &Arc<UnitIndex>)> = snap
        .workspace
        .units
        .iter()
        .filter(|(p, _)| !snap.units.contains_key(*p))
        .filter_map(|(p, e)| Some((p, e.index.as_ref()?)))
        .filter(|(_, i)| i.file_of(path).is_some())
        .collect();
    rest.sort_by(|a, b| a.0.cmp(b.0));
    for (_, idx) in rest {
        f(idx, &|q: &Path| snap.workspace.text(q));
    }
}

fn item(idx: &UnitIndex, d: &IndexDecl, text: Option<Arc<str>>) -> Option<HierarchyItem> {
    let key = idx.global(d.key);
    Some(HierarchyItem {
        name: d.name.to_string(),
        kind: d.kind,
        container: d.container.as_ref().map(|c| c.to_string()),
        path: idx.path(d.file).to_path_buf(),
        full: d.full,
        focus: d.focus,
        text: text?,
        id: SymbolId { path: key.path.to_path_buf(), offset: key.offset },
    })
}

/// The function or class at `offset`, as a hierarchy item.
pub(crate) fn prepare(snap: &Snapshot, cx: &FileCtx, offset: TextSize, types: bool) -> Vec<HierarchyItem> {
    let Some((Target::Global { def: Def::Item(sym), key, .. }, _)) = target(cx, offset) else { return Vec::new() };
    let wanted = if types {
        matches!(sym.kind, SymbolKind::Struct | SymbolKind::Class | SymbolKind::Union)
    } else {
        sym.kind.is_callable()
    };
    if !wanted {
        return Vec::new();
    }
    find_decl(snap, &key).into_iter().collect()
}

/// The declaration of a symbol: its definition when one is known, else its first
/// declaration.
fn find_decl(snap: &Snapshot, key: &Key) -> Option<HierarchyItem> {
    let mut best: Option<(bool, HierarchyItem)> = None;
    units_reading(snap, &key.path, &mut |idx, texts| {
        if best.as_ref().is_some_and(|(def, _)| *def) {
            return;
        }
        let Some(local) = idx.local(key) else { return };
        let Some(d) = idx.decl(local) else { return };
        if best.is_none() || d.definition {
            best = item(idx, d, texts(idx.path(d.file))).map(|i| (d.definition, i));
        }
    });
    best.map(|(_, i)| i)
}

/// The functions that call `id`, with where.
pub(crate) fn incoming_calls(snap: &Snapshot, id: &SymbolId) -> Vec<Call> {
    let key = id.key();
    let mut by_caller: FxHashMap<Key, (HierarchyItem, FxHashSet<TextRange>)> = FxHashMap::default();
    units_reading(snap, &key.path, &mut |idx, texts| {
        let Some(local) = idx.local(&key) else { return };
        for u in idx.uses.iter().filter(|u| u.key == local && u.call) {
            let Some(caller) = u.caller.and_then(|c| idx.decls.get(c as usize)) else { continue };
            // a call written in a macro's body shows at the invocation, in the caller's file
            if u.file != caller.file {
                continue;
            }
            let ck = idx.global(caller.key);
            if let Some(e) = by_caller.get_mut(&ck) {
                e.1.insert(u.range);
                continue;
            }
            if let Some(it) = item(idx, caller, texts(idx.path(caller.file))) {
                by_caller.insert(ck, (it, std::iter::once(u.range).collect()));
            }
        }
    });
    finish(by_caller)
}

/// The functions `id` calls, with where (in `id`'s definition).
pub(crate) fn outgoing_calls(snap: &Snapshot, id: &SymbolId) -> Vec<Call> {
    let key = id.key();
    let mut by_callee: FxHashMap<Key, (HierarchyItem, FxHashSet<TextRange>)> = FxHashMap::default();
    units_reading(snap, &key.path, &mut |idx, texts| {
        let Some(local) = idx.local(&key) else { return };
        for u in idx.uses.iter().filter(|u| u.call) {
            let Some(caller) = u.caller.and_then(|c| idx.decls.get(c as usize)) else { continue };
            if caller.key != local || u.file != caller.file {
                continue;
            }
            let callee_key = idx.global(u.key);
            if let Some(e) = by_callee.get_mut(&callee_key) {
                e.1.insert(u.range);
                continue;
            }
            let Some(callee) = idx.decl(u.key) else { continue };
            if let Some(it) = item(idx, callee, texts(idx.path(callee.file))) {
                by_callee.insert(callee_key, (it, std::iter::once(u.range).collect()));
            }
        }
    });
    finish(by_callee)
}

fn finish(map: FxHashMap<Key, (HierarchyItem, FxHashSet<TextRange>)>) -> Vec<Call> {
    let mut out: Vec<Call> = map
        .into_values()
        .map(|(item, ranges)| {
            let mut ranges: Vec<TextRange> = ranges.into_iter().collect();
            ranges.sort_by_key(|r| r.start());
            Call { item, ranges }
        })
        .collect();
    out.sort_by(|a, b| a.item.path.cmp(&b.item.path).then(a.item.focus.start().cmp(&b.item.focus.start())));
    out
}

/// The classes `id` derives from directly (`supertypes`), or those that derive from it.
pub(crate) fn type_relatives(snap: &Snapshot, id: &SymbolId, supertypes: bool) -> Vec<HierarchyItem> {
    let key = id.key();
    let mut found: FxHashMap<Key, HierarchyItem> = FxHashMap::default();
    units_reading(snap, &key.path, &mut |idx, texts| {
        let Some(local) = idx.local(&key) else { return };
        for (derived, base) in &idx.bases {
            let other = match supertypes {
                true if *derived == local => *base,
                false if *base == local => *derived,
                _ => continue,
            };
            let gk = idx.global(other);
            if found.contains_key(&gk) {
                continue;
            }
            if let Some(it) = idx.decl(other).and_then(|d| item(idx, d, texts(idx.path(d.file)))) {
                found.insert(gk, it);
            }
        }
    });
    let mut out: Vec<HierarchyItem> = found.into_values().collect();
    out.sort_by(|a, b| a.path.cmp(&b.path).then(a.focus.start().cmp(&b.focus.start())));
    out
}

/// Definitions in other units of the symbol at `offset` when its own unit only declares
/// it (a function declared in a shared header and defined in another file).
pub(crate) fn definitions_elsewhere(snap: &Snapshot, cx: &FileCtx, offset: TextSize) -> Vec<NavTarget> {
    let Some((Target::Global { def: Def::Item(sym), key, .. }, _)) = target(cx, offset) else { return Vec::new() };
    let declared_only = match sym.kind {
        SymbolKind::Function | SymbolKind::Method => !sym.has_body,
        _ => false,
    };
    if !declared_only {
        return Vec::new();
    }
    let mut out: Vec<NavTarget> = Vec::new();
    units_reading(snap, &key.path, &mut |idx, texts| {
        let Some(local) = idx.local(&key) else { return };
        for d in idx.decls.iter().filter(|d| d.key == local && d.definition) {
            let path = idx.path(d.file).to_path_buf();
            if out.iter().any(|t| t.path == path && t.focus == d.focus) {
                continue;
            }
            if let Some(text) = texts(&path) {
                out.push(NavTarget { path, full: d.full, focus: d.focus, text });
            }
        }
    });
    out
}

/// Symbols of the units that are not open, from the index (open units are searched by
/// the caller): at most `limit`, the shortest names first.
pub(crate) fn indexed_symbols(snap: &Snapshot, query: &str, limit: usize, out: &mut Vec<WorkspaceSymbol>) {
    let mut seen: FxHashSet<(*const u8, TextSize)> = FxHashSet::default();
    let mut matches: Vec<(&IndexDecl, &Arc<Path>)> = Vec::new();
    for (p, e) in snap.workspace.units.iter() {
        if snap.units.contains_key(p) {
            continue;
        }
        let Some(idx) = &e.index else { continue };
        for d in &idx.decls {
            if !fuzzy_match(query, &d.name) {
                continue;
            }
            let path = idx.path(d.file);
            // texts are shared by path: one pointer per file
            let Some(text) = snap.workspace.texts.get(path) else { continue };
            if seen.insert((text.as_ptr(), d.focus.start())) {
                matches.push((d, path));
            }
        }
    }
    matches.sort_by(|a, b| a.0.name.len().cmp(&b.0.name.len()).then(a.0.name.cmp(&b.0.name)).then(a.1.cmp(b.1)));
    matches.truncate(limit);
    for (d, path) in matches {
        let Some(text) = snap.workspace.text(path) else { continue };
        out.push(WorkspaceSymbol {
            name: d.name.to_string(),
            kind: d.kind,
            container: d.container.as_ref().map(|c| c.to_string()),
            path: path.to_path_buf(),
            full: d.full,
            focus: d.focus,
            text,
        });
    }
}
