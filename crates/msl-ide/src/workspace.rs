//! The workspace index: what each unit of the workspace declares and uses, kept without
//! its tree, so that symbols, references, renames and hierarchies reach the files that are
//! not open.
//!
//! A unit is indexed in a database of its own ([`Indexer`]), which is dropped every few
//! units: the index keeps plain data (paths, ranges, names) and the texts of the files it
//! points into, never trees or query results. A symbol is known across units by its
//! [`Key`]: the file and offset of its first declaration (see
//! [`msl_hir::Semantics::canonical_def`]), which every unit that includes that declaration
//! agrees on.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use msl_syntax::{SyntaxKind, SyntaxToken, TextRange, TextSize};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::FileSettings;
use crate::locate::FileCtx;
use crate::references::{Use, is_declaration_name, use_site};
use crate::resolve::{Def, resolve};
use crate::symbols::SymbolKind;

/// A symbol across units: the file of its first declaration and the offset of its name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Key {
    pub path: Arc<Path>,
    pub offset: u32,
}

/// A symbol in one unit's numbering of files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct LocalKey {
    pub file: u32,
    pub offset: u32,
}

/// A declaration.
#[derive(Debug, Clone)]
pub(crate) struct IndexDecl {
    pub name: Arc<str>,
    pub kind: SymbolKind,
    pub container: Option<Arc<str>>,
    pub file: u32,
    pub focus: TextRange,
    pub full: TextRange,
    pub key: LocalKey,
    /// A function with a body, a class with its members: not only a declaration.
    pub definition: bool,
}

/// A use of a declared name (declarations included).
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexUse {
    pub key: LocalKey,
    pub file: u32,
    pub range: TextRange,
    pub write: bool,
    /// Spelled where renaming it renames it (not only produced by a macro).
    pub renamable: bool,
    /// The name of a declaration (or definition).
    pub declaration: bool,
    /// The name called (`f(...)`, `s.f(...)`).
    pub call: bool,
    /// The function around the use (index into the declarations).
    pub caller: Option<u32>,
}

/// Why an occurrence of a name may mean a symbol without the analysis being sure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Doubt {
    /// Inside an `#if` branch that is not compiled.
    Inactive,
    /// In a preprocessor directive: a macro's replacement list or a condition.
    Directive,
    /// In code, but the name could not be resolved (an unknown or ambiguous name).
    Unresolved,
}

impl Doubt {
    pub fn describe(self) -> &'static str {
        match self {
            Doubt::Inactive => "inside an `#if` branch that is not compiled",
            Doubt::Directive => "in a preprocessor directive",
            Doubt::Unresolved => "where it could not be resolved",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct IndexDoubt {
    pub name: Arc<str>,
    pub file: u32,
    pub range: TextRange,
    pub why: Doubt,
}

/// What one unit declares and uses.
#[derive(Debug, Clone, Default)]
pub struct UnitIndex {
    /// The files the unit reads, main file first, with a hash of the text read.
    pub(crate) files: Vec<(Arc<Path>, u64)>,
    pub(crate) decls: Vec<IndexDecl>,
    pub(crate) uses: Vec<IndexUse>,
    pub(crate) doubts: Vec<IndexDoubt>,
    /// Classes and the classes they name as bases.
    pub(crate) bases: Vec<(LocalKey, LocalKey)>,
}

impl UnitIndex {
    /// The unit's number of a file, when the unit reads it.
    pub(crate) fn file_of(&self, path: &Path) -> Option<u32> {
        self.files.iter().position(|(p, _)| &**p == path).map(|i| i as u32)
    }

    pub(crate) fn path(&self, file: u32) -> &Arc<Path> {
        &self.files[file as usize].0
    }

    pub(crate) fn global(&self, key: LocalKey) -> Key {
        Key { path: self.path(key.file).clone(), offset: key.offset }
    }

    pub(crate) fn local(&self, key: &Key) -> Option<LocalKey> {
        Some(LocalKey { file: self.file_of(&key.path)?, offset: key.offset })
    }

    /// The paths of the files the unit reads.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|(p, _)| &**p)
    }

    /// The number of declarations and uses (for statistics).
    pub fn len(&self) -> (usize, usize) {
        (self.decls.len(), self.uses.len())
    }

    /// The declaration with key `key` (its first, and a definition when there is one).
    pub(crate) fn decl(&self, key: LocalKey) -> Option<&IndexDecl> {
        let mut found: Option<&IndexDecl> = None;
        for d in self.decls.iter().filter(|d| d.key == key) {
            if found.is_none_or(|f| !f.definition && d.definition) {
                found = Some(d);
            }
        }
        found
    }
}

pub(crate) fn text_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

/// The key of what `def` means in `cx`'s unit: its first declaration, in the unit's
/// numbering of files. `None` for what has no declaration in a file (locals are keyed by
/// callers, the library has none).
pub(crate) fn key_of(cx: &FileCtx, def: &Def) -> Option<(u32, TextSize)> {
    match def {
        Def::Item(sym) => {
            let sema = cx.sema();
            let name = match sema.def_declared_at(sym.name_range) {
                Some(id) => sema.def_source(sema.canonical_def(id)).map(|s| s.name).unwrap_or(sym.name_range),
                None => sym.name_range,
            };
            if !cx.is_spelled(name) {
                return None;
            }
            let (file, range) = cx.any_file_range(name);
            let f = cx.parse.files().get(file as usize)?;
            (!f.is_virtual).then_some((file, range.start()))
        }
        Def::Macro(m) => {
            let info = cx.parse.macros().get(*m as usize)?;
            let f = cx.parse.files().get(info.file as usize)?;
            (!f.is_virtual).then_some((info.file, info.name_range.start()))
        }
        _ => None,
    }
}

/// The global key of what `def` means in `cx`'s unit.
pub(crate) fn global_key(cx: &FileCtx, def: &Def) -> Option<Key> {
    let (file, offset) = key_of(cx, def)?;
    let path = cx.parse.files().get(file as usize)?.path.as_path();
    Some(Key { path: Arc::from(path), offset: offset.into() })
}

/// Whether `tok` names what is called: `f(...)`, `ns::f(...)`, `s.f(...)`, `p->f(...)`.
pub(crate) fn is_called(tok: &SyntaxToken) -> bool {
    let Some(mut node) = tok.parent() else { return false };
    if !matches!(node.kind(), SyntaxKind::PATH_EXPR | SyntaxKind::MEMBER_EXPR) {
        return false;
    }
    // `s.f` is one member expression around `s`; the name must be its last identifier
    if node.kind() == SyntaxKind::MEMBER_EXPR {
        let last =
            node.children_with_tokens().filter_map(|e| e.into_token()).filter(|t| t.kind() == SyntaxKind::IDENT).last();
        if last.as_ref() != Some(tok) {
            return false;
        }
    }
    while let Some(p) = node.parent() {
        if p.kind() == SyntaxKind::PAREN_EXPR {
            node = p;
            continue;
        }
        return p.kind() == SyntaxKind::CALL_EXPR && p.children().next().as_ref() == Some(&node);
    }
    false
}

/// Builds the index of `cx`'s unit; with `only`, only the declarations, uses and doubtful
/// occurrences of names spelled `only` (what a search for one symbol needs; uses then
/// have no callers).
pub(crate) fn build(cx: &FileCtx, only: Option<&str>) -> UnitIndex {
    let parse = &cx.parse;
    let mut index = UnitIndex::default();
    // the parse's numbering of files to ours: real files, each path once
    let mut map: Vec<Option<u32>> = Vec::with_capacity(parse.files().len());
    let mut by_path: FxHashMap<&Path, u32> = FxHashMap::default();
    for f in parse.files() {
        if f.is_virtual {
            map.push(None);
            continue;
        }
        let n = *by_path.entry(f.path.as_path()).or_insert_with(|| {
            index.files.push((Arc::from(f.path.as_path()), text_hash(&f.text)));
            (index.files.len() - 1) as u32
        });
        map.push(Some(n));
    }
    let local = |file: u32, offset: TextSize| -> Option<LocalKey> {
        Some(LocalKey { file: (*map.get(file as usize)?)?, offset: offset.into() })
    };
    let mut names: FxHashMap<String, Arc<str>> = FxHashMap::default();
    let mut intern = |s: &str| names.entry(s.to_string()).or_insert_with(|| Arc::from(s)).clone();

    // declarations, and where each function's tree lies (for callers)
    let items = cx.index();
    let mut function_decl: FxHashMap<TextRange, u32> = FxHashMap::default();
    let sema = cx.sema();
    for sym in &items.syms {
        if matches!(sym.kind, SymbolKind::Parameter | SymbolKind::TypeParameter)
            || only.is_some_and(|n| n != sym.name)
            || !cx.is_spelled(sym.name_range)
        {
            continue;
        }
        let def = Def::Item(sym.clone());
        let Some((kf, ko)) = key_of(cx, &def) else { continue };
        let Some(key) = local(kf, ko) else { continue };
        let (file, focus) = cx.any_file_range(sym.name_range);
        let Some(file) = map.get(file as usize).copied().flatten() else { continue };
        let mut node = sym.node.clone();
        if let Some(p) = node.parent()
            && p.kind() == SyntaxKind::TEMPLATE_DECL
        {
            node = p;
        }
        let (ff, full) = cx.any_file_range(node.text_range());
        let full = if map.get(ff as usize).copied().flatten() == Some(file) { full.cover(focus) } else { focus };
        let definition = match sym.kind {
            SymbolKind::Function | SymbolKind::Method => sym.has_body,
            SymbolKind::Struct | SymbolKind::Class | SymbolKind::Union => {
                sym.node.descendants().any(|n| n.kind() == SyntaxKind::MEMBER_LIST)
            }
            _ => true,
        };
        if sym.kind.is_callable() {
            function_decl.insert(sym.node.text_range(), index.decls.len() as u32);
        }
        if matches!(sym.kind, SymbolKind::Struct | SymbolKind::Class)
            && let Some(id) = sema.def_declared_at(sym.name_range)
        {
            for base in sema.direct_bases(id) {
                let Some(src) = sema.def_source(sema.canonical_def(base)) else { continue };
                if !cx.is_spelled(src.name) {
                    continue;
                }
                let (bf, br) = cx.any_file_range(src.name);
                if let Some(bk) = local(bf, br.start()) {
                    index.bases.push((key, bk));
                }
            }
        }
        index.decls.push(IndexDecl {
            name: intern(&sym.name),
            kind: sym.kind,
            container: (!sym.container.is_empty()).then(|| intern(&sym.container)),
            file,
            focus,
            full,
            key,
            definition,
        });
    }
    let mut macro_names: FxHashSet<Arc<str>> = FxHashSet::default();
    for m in parse.macros() {
        if only.is_some_and(|n| n != &*m.name) {
            continue;
        }
        let Some(key) = local(m.file, m.name_range.start()) else { continue };
        macro_names.insert(m.name.clone());
        if only.is_none_or(|n| n == &*m.name) {
            index.uses.push(IndexUse {
                key,
                file: key.file,
                range: m.name_range,
                write: true,
                renamable: true,
                declaration: true,
                call: false,
                caller: None,
            });
        }
        index.decls.push(IndexDecl {
            name: intern(&m.name),
            kind: SymbolKind::Macro,
            container: None,
            file: key.file,
            focus: m.name_range,
            full: m.name_range,
            key,
            definition: true,
        });
    }
    index.bases.sort_by_key(|(a, b)| (a.file, a.offset, b.file, b.offset));
    index.bases.dedup();
    let declared: FxHashSet<Arc<str>> = index.decls.iter().map(|d| d.name.clone()).collect();

    // uses of names in code
    let functions: Vec<(TextRange, u32)> = {
        let mut v: Vec<(TextRange, u32)> = function_decl.iter().map(|(r, i)| (*r, *i)).collect();
        v.sort_by_key(|(r, _)| (r.start(), std::cmp::Reverse(r.end())));
        v
    };
    let caller_at = |offset: TextSize| -> Option<u32> {
        // the innermost function around the offset (a lambda belongs to its function)
        let i = functions.partition_point(|(r, _)| r.start() <= offset);
        functions[..i].iter().rev().find(|(r, _)| r.contains(offset)).map(|(_, d)| *d)
    };
    for tok in cx.root.descendants_with_tokens().filter_map(|e| e.into_token()) {
        if tok.kind() != SyntaxKind::IDENT || only.is_some_and(|n| n != tok.text()) {
            continue;
        }
        let def = resolve(cx, &tok, false);
        let def = match def {
            Some(d @ (Def::Item(_) | Def::Macro(_))) => d,
            Some(_) => continue,
            None => {
                let in_attribute = tok.parent_ancestors().any(|a| a.kind() == SyntaxKind::ATTR_ARGS);
                if !in_attribute
                    && declared.contains(tok.text())
                    && let Some(u) = use_site(cx, &tok, None)
                    && let Some(file) = map.get(u.file as usize).copied().flatten()
                {
                    index.doubts.push(IndexDoubt {
                        name: intern(tok.text()),
                        file,
                        range: u.range,
                        why: Doubt::Unresolved,
                    });
                }
                continue;
            }
        };
        let Some((kf, ko)) = key_of(cx, &def) else { continue };
        let Some(key) = local(kf, ko) else { continue };
        let name = match &def {
            Def::Item(s) => Some(s.name_range),
            _ => None,
        };
        let Some(Use { file, range, write, renamable }) = use_site(cx, &tok, name) else { continue };
        let Some(file) = map.get(file as usize).copied().flatten() else { continue };
        index.uses.push(IndexUse {
            key,
            file,
            range,
            write,
            renamable,
            declaration: is_declaration_name(&tok),
            call: is_called(&tok),
            caller: caller_at(tok.text_range().start()),
        });
    }
    for c in parse.macro_calls() {
        if only.is_some_and(|n| Some(n) != parse.macros().get(c.def as usize).map(|m| &*m.name)) {
            continue;
        }
        let Some(info) = parse.macros().get(c.def as usize) else { continue };
        let Some(key) = local(info.file, info.name_range.start()) else { continue };
        let Some(file) = map.get(c.file as usize).copied().flatten() else { continue };
        index.uses.push(IndexUse {
            key,
            file,
            range: TextRange::at(c.range.start(), TextSize::of(&*info.name)),
            write: false,
            renamable: true,
            declaration: false,
            call: false,
            caller: None,
        });
    }
    // names written where the analysis cannot tell what they mean
    for (i, f) in parse.files().iter().enumerate() {
        let Some(file) = map[i] else { continue };
        if f.is_virtual {
            continue;
        }
        for p in parse.pieces_of_file(i as u32) {
            let why = match p.kind {
                SyntaxKind::PP_INACTIVE => Doubt::Inactive,
                SyntaxKind::PP_DIRECTIVE => Doubt::Directive,
                _ => continue,
            };
            for (at, word) in words(p.text) {
                if only.is_some_and(|n| n != word) || !(declared.contains(word) || macro_names.contains(word)) {
                    continue;
                }
                let range = TextRange::at(p.range.start() + TextSize::from(at as u32), TextSize::of(word));
                index.doubts.push(IndexDoubt { name: intern(word), file, range, why });
            }
        }
    }
    index.uses.sort_by_key(|u| (u.file, u.range.start()));
    index.uses.dedup_by_key(|u| (u.file, u.range, u.key));
    index.doubts.sort_by_key(|d| (d.file, d.range.start()));
    index.doubts.dedup_by_key(|d| (d.file, d.range));
    index
}

/// The identifiers of a text (a directive or a skipped branch) with their offsets, comments
/// and string literals left out.
pub(crate) fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
        } else if b == b'"' || b == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((start, &text[start..i]));
        } else if b.is_ascii_digit() {
            // a number's suffix is not a name
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The state of a unit of the workspace.
#[derive(Debug, Clone)]
pub(crate) struct UnitEntry {
    pub settings: FileSettings,
    /// The latest index, possibly made before the latest change.
    pub index: Option<Arc<UnitIndex>>,
    /// Changed since `index` was made (or never indexed).
    pub stale: bool,
    /// Bumped by every change, so that an index made from older texts is recognized.
    pub generation: u64,
}

/// The index of every unit of the workspace.
#[derive(Debug, Clone, Default)]
pub struct WorkspaceIndex {
    pub(crate) units: FxHashMap<PathBuf, UnitEntry>,
    /// The latest text of each indexed file.
    pub(crate) texts: FxHashMap<Arc<Path>, Arc<str>>,
}

/// A unit to index: its main file, its settings and the generation it was taken at.
#[derive(Debug, Clone)]
pub struct IndexJob {
    pub path: PathBuf,
    pub settings: FileSettings,
    pub generation: u64,
    /// The unit was never indexed.
    pub fresh: bool,
}

/// How far indexing is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexProgress {
    /// Units whose index is current.
    pub done: usize,
    pub total: usize,
}

impl WorkspaceIndex {
    /// Makes `units` the units of the workspace: new ones are queued, those no longer
    /// listed are forgotten, those whose settings changed are queued again.
    pub fn set_units(&mut self, units: Vec<(PathBuf, FileSettings)>) {
        let keep: FxHashSet<PathBuf> = units.iter().map(|(p, _)| msl_syntax::vfs::normalize(p)).collect();
        self.units.retain(|p, _| keep.contains(p));
        for (path, settings) in units {
            let path = msl_syntax::vfs::normalize(&path);
            match self.units.get_mut(&path) {
                Some(e) => {
                    if e.settings.config != settings.config {
                        e.stale = true;
                        e.generation += 1;
                    }
                    e.settings = settings;
                }
                None => {
                    self.units.insert(path, UnitEntry { settings, index: None, stale: true, generation: 0 });
                }
            }
        }
        self.forget_unused_texts();
    }

    /// Adds one unit (a file created), or queues it again.
    pub fn add_unit(&mut self, path: &Path, settings: FileSettings) {
        let path = msl_syntax::vfs::normalize(path);
        let e = self.units.entry(path).or_insert(UnitEntry {
            settings: settings.clone(),
            index: None,
            stale: true,
            generation: 0,
        });
        e.settings = settings;
        e.stale = true;
        e.generation += 1;
    }

    /// Forgets a unit (a file deleted).
    pub fn remove_unit(&mut self, path: &Path) {
        self.units.remove(&msl_syntax::vfs::normalize(path));
        self.forget_unused_texts();
    }

    /// Queues again every unit that reads `path` (its text changed). Returns how many.
    pub fn file_changed(&mut self, path: &Path) -> usize {
        let path = msl_syntax::vfs::normalize(path);
        let mut n = 0;
        for (p, e) in self.units.iter_mut() {
            let reads = *p == path || e.index.as_ref().is_some_and(|i| i.file_of(&path).is_some());
            if reads {
                e.stale = true;
                e.generation += 1;
                n += 1;
            }
        }
        n
    }

    /// The next unit to index: units never indexed first, then those changed.
    pub fn next_job(&self) -> Option<IndexJob> {
        self.next_job_except(&|_| false)
    }

    /// [`WorkspaceIndex::next_job`] among the units for which `skip` is false.
    pub fn next_job_except(&self, skip: &dyn Fn(&Path) -> bool) -> Option<IndexJob> {
        let pick = |fresh: bool| {
            self.units
                .iter()
                .filter(|(p, e)| e.stale && e.index.is_none() == fresh && !skip(p))
                .min_by(|a, b| a.0.cmp(b.0))
                .map(|(p, e)| IndexJob {
                    path: p.clone(),
                    settings: e.settings.clone(),
                    generation: e.generation,
                    fresh: e.index.is_none(),
                })
        };
        pick(true).or_else(|| pick(false))
    }

    /// Records the index of a job's unit, unless the unit changed since the job was taken.
    /// Returns whether it was recorded.
    pub fn finish(&mut self, job: &IndexJob, index: UnitIndex, texts: FileTexts) -> bool {
        let Some(e) = self.units.get_mut(&job.path) else { return false };
        if e.generation != job.generation {
            return false;
        }
        e.index = Some(Arc::new(index));
        e.stale = false;
        for (p, t) in texts {
            self.texts.insert(p, t);
        }
        true
    }

    /// Progress of indexing; units for which `skip` holds count as done.
    pub fn progress_except(&self, skip: &dyn Fn(&Path) -> bool) -> IndexProgress {
        IndexProgress { done: self.units.iter().filter(|(p, e)| !e.stale || skip(p)).count(), total: self.units.len() }
    }

    /// Whether `path` is a unit of the workspace.
    pub fn contains(&self, path: &Path) -> bool {
        self.units.contains_key(&msl_syntax::vfs::normalize(path))
    }

    /// The units of the workspace.
    pub fn units(&self) -> impl Iterator<Item = &Path> {
        self.units.keys().map(|p| p.as_path())
    }

    /// The index of a unit, when it has one.
    pub fn unit_index(&self, path: &Path) -> Option<&Arc<UnitIndex>> {
        self.units.get(&msl_syntax::vfs::normalize(path))?.index.as_ref()
    }

    /// The indexed units that read `path`.
    pub fn units_reading(&self, path: &Path) -> Vec<PathBuf> {
        let path = msl_syntax::vfs::normalize(path);
        let mut out: Vec<PathBuf> = self
            .units
            .iter()
            .filter(|(_, e)| e.index.as_ref().is_some_and(|i| i.file_of(&path).is_some()))
            .map(|(p, _)| p.clone())
            .collect();
        out.sort();
        out
    }

    pub(crate) fn text(&self, path: &Path) -> Option<Arc<str>> {
        self.texts.get(path).cloned()
    }

    fn forget_unused_texts(&mut self) {
        let used: FxHashSet<&Path> =
            self.units.values().filter_map(|e| e.index.as_ref()).flat_map(|i| i.paths()).collect();
        self.texts.retain(|p, _| used.contains(&**p));
    }
}

/// The texts of the files a unit read, by path.
pub type FileTexts = Vec<(Arc<Path>, Arc<str>)>;

/// Makes unit indexes in a database of its own, dropped every few units so that memory
/// stays bounded.
pub struct Indexer {
    analysis: msl_hir::Analysis,
    /// The open buffers' texts given to the database, to notice changes.
    overlays: FxHashMap<PathBuf, Arc<str>>,
    used: usize,
}

/// Units indexed in one database before it is dropped.
const UNITS_PER_DATABASE: usize = 8;

impl Default for Indexer {
    fn default() -> Self {
        Indexer::new()
    }
}

impl Indexer {
    pub fn new() -> Indexer {
        Indexer { analysis: msl_hir::Analysis::with_disk(), overlays: FxHashMap::default(), used: 0 }
    }

    /// Indexes the unit whose main file is `path`, reading `overlays` (the open buffers) in
    /// place of the disk. `None` when the main file cannot be read.
    pub fn index(
        &mut self,
        path: &Path,
        settings: &FileSettings,
        overlays: &FxHashMap<PathBuf, Arc<str>>,
    ) -> Option<(UnitIndex, FileTexts)> {
        if self.used >= UNITS_PER_DATABASE {
            *self = Indexer::new();
        }
        self.used += 1;
        for (p, t) in overlays {
            if self.overlays.get(p) != Some(t) {
                self.analysis.set_file(p, t.clone());
                self.overlays.insert(p.clone(), t.clone());
            }
        }
        let path = msl_syntax::vfs::normalize(path);
        let file = match overlays.get(&path) {
            Some(t) => self.analysis.set_file(&path, t.clone()),
            None => {
                let bytes = std::fs::read(&path).ok()?;
                self.analysis.set_file_bytes(&path, &bytes)
            }
        };
        let unit = self.analysis.unit(file, settings.config.clone());
        let cx = FileCtx::new(&self.analysis.db, unit, settings);
        let index = build(&cx, None);
        let texts = cx
            .parse
            .files()
            .iter()
            .filter(|f| !f.is_virtual)
            .map(|f| (Arc::from(f.path.as_path()), f.text.clone()))
            .collect();
        Some((index, texts))
    }
}

/// The Metal sources under `roots`: files with the extension `metal` or one of
/// `extensions`, with ignore files (`.gitignore`, `.ignore`) respected and hidden folders
/// skipped, the same files `msl-check` finds in a folder.
pub fn find_sources(roots: &[PathBuf], extensions: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in roots {
        for entry in ignore::WalkBuilder::new(root).hidden(true).require_git(false).build().flatten() {
            let p = entry.path();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or_default();
            if entry.file_type().is_some_and(|t| t.is_file())
                && (ext == "metal" || extensions.iter().any(|x| x.trim_start_matches('.') == ext))
            {
                out.push(msl_syntax::vfs::normalize(p));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}
