//! IDE features for the Metal Shading Language as plain data: diagnostics, hover,
//! completion, signature help, navigation, symbols, semantic tokens, inlay hints, folding,
//! selection ranges and quick fixes.
//!
//! Positions are byte offsets into a file's text and ranges are [`TextRange`]s; the server
//! converts them to its protocol's positions. Nothing here knows about LSP or JSON.
//!
//! An [`AnalysisHost`] owns the database and applies changes; a [`Snapshot`] is a cheap,
//! consistent view for answering requests on other threads. A change made through the host
//! cancels the queries running on snapshots: their methods then return [`Cancelled`].

pub mod config;
pub mod rules;
pub mod xcode;

mod actions;
mod builtins;
mod completion;
mod diagnostics;
mod expand;
mod folding;
mod hierarchy;
mod hover;
mod index;
mod inlay;
mod links;
mod locate;
mod references;
mod resolve;
mod semantic;
mod signature;
mod symbols;
mod workspace;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use msl_hir::{Analysis, Db, RootDatabase, SourceFile, Unit};
use msl_syntax::PpConfig;
use rustc_hash::FxHashMap;
use salsa::Setter;

pub use actions::{CodeAction, FileEdit};
pub use builtins::{BUILTIN_LIBRARY_PATH, builtin_library_text};
pub use completion::{CompletionItem, CompletionKind, Completions, docs as completion_docs};
pub use diagnostics::{FileDiagnostic, Related};
pub use expand::MacroExpansion;
pub use folding::{Fold, FoldKind};
pub use hierarchy::{Call, HierarchyItem, SymbolId};
pub use hover::Hover;
pub use inlay::{InlayHint, InlayKind};
pub use links::DocumentLink;
/// The stack size of a thread that runs analyses (see [`msl_hir::ANALYSIS_STACK_SIZE`]).
pub use msl_hir::ANALYSIS_STACK_SIZE;
pub use msl_syntax::{TextRange, TextSize, free_in_background};
pub use rules::RuleLevels;
pub use salsa::Cancelled;
pub use semantic::{SemanticToken, TOKEN_MODIFIERS, TOKEN_TYPES, TokenModifier, TokenType};
pub use signature::{SignatureHelp, SignatureInfo};
pub use symbols::{Symbol, SymbolKind, WorkspaceSymbol};
pub use workspace::{IndexJob, IndexProgress, Indexer, UnitIndex, WorkspaceIndex, find_sources};

/// A result that is `Err` when a newer change cancelled the computation.
pub type Cancellable<T> = Result<T, Cancelled>;

/// A range in a file: where a definition is, or a reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileRange {
    pub path: PathBuf,
    pub range: TextRange,
}

/// A place to go to: the whole declaration (`full`) and its name (`focus`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NavTarget {
    pub path: PathBuf,
    pub full: TextRange,
    pub focus: TextRange,
    /// The file's text, so that callers can convert offsets of files they have not opened.
    pub text: Arc<str>,
}

/// How a file is analysed: its preprocessor configuration and the levels of its rules.
#[derive(Debug, Clone, Default)]
pub struct FileSettings {
    pub config: PpConfig,
    pub rules: RuleLevels,
}

struct OpenFile {
    /// The file as a unit of its own.
    unit: Unit,
    settings: FileSettings,
    /// A unit that includes the file, in whose context it is analysed.
    context: Option<Context>,
}

/// The unit of another file that includes an open file, with that file's settings.
#[derive(Clone)]
struct Context {
    includer: PathBuf,
    unit: Unit,
    settings: FileSettings,
}

/// How a snapshot sees an open file.
#[derive(Clone)]
struct OpenView {
    unit: Unit,
    settings: FileSettings,
    context: Option<Context>,
}

/// Owns the database: files, units and their settings. Changes go through it.
pub struct AnalysisHost {
    analysis: Analysis,
    open: FxHashMap<PathBuf, OpenFile>,
    /// The index of the workspace's units (changed in place while no snapshot holds it).
    workspace: Arc<WorkspaceIndex>,
}

impl Default for AnalysisHost {
    fn default() -> Self {
        AnalysisHost::new()
    }
}

impl AnalysisHost {
    /// A host whose units read headers they include from the disk when no open buffer
    /// holds them.
    pub fn new() -> AnalysisHost {
        let mut analysis = Analysis::with_disk();
        // one open file is checked at a time: its functions may use a second core
        analysis.db.set_parallel_checks(true);
        AnalysisHost { analysis, open: FxHashMap::default(), workspace: Arc::default() }
    }

    /// Sets the text of a file (an open buffer, or a header that changed on disk).
    pub fn set_file_text(&mut self, path: &Path, text: Arc<str>) -> SourceFile {
        self.analysis.set_file(path, text)
    }

    /// Sets a file's text from bytes; invalid UTF-8 is replaced and reported.
    pub fn set_file_bytes(&mut self, path: &Path, bytes: &[u8]) -> SourceFile {
        self.analysis.set_file_bytes(path, bytes)
    }

    /// Opens (or re-opens) `path` as the main file of a unit analysed with `settings`.
    pub fn open(&mut self, path: &Path, text: Arc<str>, settings: FileSettings) {
        let path = msl_syntax::vfs::normalize(path);
        let file = self.analysis.set_file(&path, text);
        if self.open.contains_key(&path) {
            self.set_settings(&path, settings);
        } else {
            let unit = self.analysis.unit(file, settings.config.clone());
            self.open.insert(path, OpenFile { unit, settings, context: None });
        }
    }

    /// Changes the settings of an open file.
    pub fn set_settings(&mut self, path: &Path, settings: FileSettings) {
        let path = msl_syntax::vfs::normalize(path);
        if let Some(open) = self.open.get_mut(&path) {
            if open.settings.config != settings.config {
                open.unit.set_config(&mut self.analysis.db).to(settings.config.clone());
            }
            open.settings = settings;
        }
    }

    /// Stops analysing `path` as a unit (its text stays known for units that include it).
    pub fn close(&mut self, path: &Path) {
        let path = msl_syntax::vfs::normalize(path);
        if let Some(open) = self.open.remove(&path) {
            let units = std::iter::once(open.unit).chain(open.context.map(|c| c.unit));
            for unit in units {
                if let Some(cache) = self.analysis.db.parse_cache() {
                    cache.forget(unit);
                }
                if let Some(cache) = self.analysis.db.item_cache() {
                    cache.forget(unit);
                }
            }
        }
    }

    /// Analyses the open file `path` inside the unit of `includer` (a file that includes
    /// it), with `settings` (the includer's), or again on its own (`None`). Returns
    /// whether the context changed.
    pub fn set_context(&mut self, path: &Path, includer: Option<(&Path, FileSettings)>) -> bool {
        let path = msl_syntax::vfs::normalize(path);
        let Some(current) = self.open.get(&path).map(|o| o.context.as_ref().map(|c| c.includer.clone())) else {
            return false;
        };
        let wanted = includer.as_ref().map(|(p, _)| msl_syntax::vfs::normalize(p));
        if current == wanted {
            // the includer's settings may have changed
            if let (Some((_, settings)), Some(open)) = (includer, self.open.get_mut(&path))
                && let Some(c) = open.context.as_mut()
                && c.settings.config != settings.config
            {
                c.unit.set_config(&mut self.analysis.db).to(settings.config.clone());
                c.settings = settings;
            }
            return false;
        }
        let context = match (includer, wanted) {
            (Some((_, settings)), Some(includer)) => {
                // the includer's text: its buffer when open, else the disk
                let file = match self.analysis.file(&includer) {
                    Some(f) => f,
                    None => match std::fs::read(&includer) {
                        Ok(bytes) => self.analysis.set_file_bytes(&includer, &bytes),
                        Err(_) => return false,
                    },
                };
                let unit = self.analysis.unit(file, settings.config.clone());
                Some(Context { includer, unit, settings })
            }
            _ => None,
        };
        if let Some(open) = self.open.get_mut(&path) {
            let old = std::mem::replace(&mut open.context, context);
            if let Some(old) = old {
                if let Some(cache) = self.analysis.db.parse_cache() {
                    cache.forget(old.unit);
                }
                if let Some(cache) = self.analysis.db.item_cache() {
                    cache.forget(old.unit);
                }
            }
        }
        true
    }

    /// The file whose unit gives `path` its context, when it has one.
    pub fn context_of(&self, path: &Path) -> Option<&Path> {
        self.open.get(&msl_syntax::vfs::normalize(path))?.context.as_ref().map(|c| c.includer.as_path())
    }

    /// The units of the workspace that include `path` (indexed ones), other than itself.
    pub fn includers(&self, path: &Path) -> Vec<PathBuf> {
        let path = msl_syntax::vfs::normalize(path);
        self.workspace.units_reading(&path).into_iter().filter(|p| *p != path).collect()
    }

    /// The open files.
    pub fn open_files(&self) -> impl Iterator<Item = &Path> {
        self.open.keys().map(|p| p.as_path())
    }

    /// Whether `path` is open.
    pub fn is_open(&self, path: &Path) -> bool {
        self.open.contains_key(&msl_syntax::vfs::normalize(path))
    }

    /// The open files whose units read `path` (the file itself included, when open).
    pub fn units_reading(&self, path: &Path) -> Vec<PathBuf> {
        let path = msl_syntax::vfs::normalize(path);
        let snap = self.snapshot();
        let mut out = Vec::new();
        for (p, open) in &self.open {
            if *p == path || open.context.as_ref().is_some_and(|c| c.includer == path) {
                out.push(p.clone());
                continue;
            }
            let unit = open.context.as_ref().map_or(open.unit, |c| c.unit);
            let reads = salsa::Cancelled::catch(AssertUnwindSafe(|| {
                let parse = msl_hir::parse_unit(&snap.db, unit);
                parse.files().iter().any(|f| msl_syntax::vfs::normalize(&f.path) == path)
            }));
            if reads.unwrap_or(true) {
                out.push(p.clone());
            }
        }
        out
    }

    /// The index of the workspace.
    pub fn workspace(&self) -> &WorkspaceIndex {
        &self.workspace
    }

    /// The index of the workspace, to change it.
    pub fn workspace_mut(&mut self) -> &mut WorkspaceIndex {
        Arc::make_mut(&mut self.workspace)
    }

    /// The next unit the background index should index. Open units are left out: they
    /// are analysed as edited, and indexed again when they are closed.
    pub fn next_index_job(&self) -> Option<IndexJob> {
        self.workspace.next_job_except(&|p| self.open.contains_key(p))
    }

    /// How far the background index is (open units count as indexed).
    pub fn index_progress(&self) -> IndexProgress {
        self.workspace.progress_except(&|p| self.open.contains_key(p))
    }

    /// The texts of the open files (what an [`Indexer`] reads in place of the disk).
    pub fn overlays(&self) -> FxHashMap<PathBuf, Arc<str>> {
        self.open
            .iter()
            .map(|(p, o)| (p.clone(), o.unit.main(&self.analysis.db).text(&self.analysis.db).clone()))
            .collect()
    }

    /// A consistent view for answering requests.
    pub fn snapshot(&self) -> Snapshot {
        let units = self
            .open
            .iter()
            .map(|(p, o)| {
                (p.clone(), OpenView { unit: o.unit, settings: o.settings.clone(), context: o.context.clone() })
            })
            .collect();
        Snapshot { db: self.analysis.db.clone(), units: Arc::new(units), workspace: self.workspace.clone() }
    }
}

/// A read-only view of the analysis at one revision.
#[derive(Clone)]
pub struct Snapshot {
    db: RootDatabase,
    units: Arc<FxHashMap<PathBuf, OpenView>>,
    workspace: Arc<WorkspaceIndex>,
}

impl Snapshot {
    fn with<T>(&self, f: impl FnOnce() -> T) -> Cancellable<T> {
        Cancelled::catch(AssertUnwindSafe(f))
    }

    /// The texts of the open files at this revision (what a rename's [`Indexer`] reads in
    /// place of the disk).
    fn overlays(&self) -> FxHashMap<PathBuf, Arc<str>> {
        self.units.iter().map(|(p, v)| (p.clone(), v.unit.main(&self.db).text(&self.db).clone())).collect()
    }

    fn file(&self, path: &Path) -> Option<locate::FileCtx<'_>> {
        let path = msl_syntax::vfs::normalize(path);
        let view = self.units.get(&path)?;
        // in the context of an includer, when that unit reads the file; else on its own
        if let Some(c) = &view.context
            && let Some(cx) = locate::FileCtx::in_context(&self.db, c.unit, &c.settings, &path)
        {
            return Some(cx);
        }
        Some(locate::FileCtx::new(&self.db, view.unit, &view.settings))
    }

    /// Diagnostics of an open file, after its rule levels and suppression comments:
    /// problems in the file itself, and at the `#include` of a header with errors.
    pub fn diagnostics(&self, path: &Path) -> Cancellable<Vec<FileDiagnostic>> {
        self.with(|| self.file(path).map(|f| diagnostics::file_diagnostics(&f)).unwrap_or_default())
    }

    /// Hover documentation at `offset`.
    pub fn hover(&self, path: &Path, offset: TextSize) -> Cancellable<Option<Hover>> {
        self.with(|| self.file(path).and_then(|f| hover::hover(&f, offset)))
    }

    /// Completions at `offset`.
    pub fn completions(&self, path: &Path, offset: TextSize) -> Cancellable<Completions> {
        self.with(|| self.file(path).map(|f| completion::completions(&f, offset)).unwrap_or_default())
    }

    /// Signature help for the call around `offset`.
    pub fn signature_help(&self, path: &Path, offset: TextSize) -> Cancellable<Option<SignatureHelp>> {
        self.with(|| self.file(path).and_then(|f| signature::signature_help(&f, offset)))
    }

    /// Where the symbol at `offset` is defined (a function's body, a variable's
    /// declaration); library names go to the built-in library document.
    pub fn definition(&self, path: &Path, offset: TextSize) -> Cancellable<Vec<NavTarget>> {
        self.with(|| {
            let Some(f) = self.file(path) else { return Vec::new() };
            let here = references::definition(&f, offset, false);
            // a function the unit only declares: its definitions in other units
            let elsewhere = hierarchy::definitions_elsewhere(self, &f, offset);
            if elsewhere.is_empty() { here } else { elsewhere }
        })
    }

    /// Where the symbol at `offset` is declared (a prototype, when there is one).
    pub fn declaration(&self, path: &Path, offset: TextSize) -> Cancellable<Vec<NavTarget>> {
        self.with(|| self.file(path).map(|f| references::definition(&f, offset, true)).unwrap_or_default())
    }

    /// The definition of the type of the symbol at `offset`.
    pub fn type_definition(&self, path: &Path, offset: TextSize) -> Cancellable<Vec<NavTarget>> {
        self.with(|| self.file(path).map(|f| references::type_definition(&f, offset)).unwrap_or_default())
    }

    /// Every reference to the symbol at `offset`: in every open unit that sees its
    /// declaration, and in the index of the workspace's other units.
    pub fn references(&self, path: &Path, offset: TextSize, include_declaration: bool) -> Cancellable<Vec<FileRange>> {
        self.with(|| {
            self.file(path).map(|f| references::references(self, &f, offset, include_declaration)).unwrap_or_default()
        })
    }

    /// The references to the symbol at `offset` in the file itself, with whether each is
    /// a write.
    pub fn highlights(&self, path: &Path, offset: TextSize) -> Cancellable<Vec<(TextRange, bool)>> {
        self.with(|| self.file(path).map(|f| references::highlights(&f, offset)).unwrap_or_default())
    }

    /// The range of the name that a rename at `offset` would change, or why it cannot.
    pub fn prepare_rename(&self, path: &Path, offset: TextSize) -> Cancellable<Result<(TextRange, String), String>> {
        self.with(|| match self.file(path) {
            Some(f) => references::prepare_rename(&f, offset),
            None => Err("the file is not open".into()),
        })
    }

    /// The edits that rename the symbol at `offset` to `new_name` in every file of the
    /// workspace, or why it cannot be done safely.
    pub fn rename(&self, path: &Path, offset: TextSize, new_name: &str) -> Cancellable<Result<Vec<FileEdit>, String>> {
        self.with(|| match self.file(path) {
            Some(f) => references::rename(self, &f, offset, new_name),
            None => Err("the file is not open".into()),
        })
    }

    /// The function at `offset` as the root of a call hierarchy.
    pub fn prepare_call_hierarchy(&self, path: &Path, offset: TextSize) -> Cancellable<Vec<HierarchyItem>> {
        self.with(|| self.file(path).map(|f| hierarchy::prepare(self, &f, offset, false)).unwrap_or_default())
    }

    /// The functions of the workspace that call `id`, with the calls' places.
    pub fn incoming_calls(&self, id: &SymbolId) -> Cancellable<Vec<Call>> {
        self.with(|| hierarchy::incoming_calls(self, id))
    }

    /// The functions that `id` calls, with the calls' places in `id`'s definition.
    pub fn outgoing_calls(&self, id: &SymbolId) -> Cancellable<Vec<Call>> {
        self.with(|| hierarchy::outgoing_calls(self, id))
    }

    /// The class at `offset` as the root of a type hierarchy.
    pub fn prepare_type_hierarchy(&self, path: &Path, offset: TextSize) -> Cancellable<Vec<HierarchyItem>> {
        self.with(|| self.file(path).map(|f| hierarchy::prepare(self, &f, offset, true)).unwrap_or_default())
    }

    /// The direct bases of class `id`.
    pub fn supertypes(&self, id: &SymbolId) -> Cancellable<Vec<HierarchyItem>> {
        self.with(|| hierarchy::type_relatives(self, id, true))
    }

    /// The classes of the workspace that derive from `id` directly.
    pub fn subtypes(&self, id: &SymbolId) -> Cancellable<Vec<HierarchyItem>> {
        self.with(|| hierarchy::type_relatives(self, id, false))
    }

    /// The outline of a file.
    pub fn document_symbols(&self, path: &Path) -> Cancellable<Vec<Symbol>> {
        self.with(|| self.file(path).map(|f| symbols::document_symbols(&f)).unwrap_or_default())
    }

    /// Symbols of the workspace whose name matches `query` (fuzzy): of the open units,
    /// and of the others as indexed.
    pub fn workspace_symbols(&self, query: &str) -> Cancellable<Vec<WorkspaceSymbol>> {
        self.with(|| {
            let mut out = Vec::new();
            let mut paths: Vec<&PathBuf> = self.units.keys().collect();
            paths.sort();
            for p in paths {
                if let Some(f) = self.file(p) {
                    symbols::workspace_symbols(&f, query, &mut out);
                }
            }
            hierarchy::indexed_symbols(self, query, 256, &mut out);
            out.sort_by(|a, b| a.name.len().cmp(&b.name.len()).then(a.name.cmp(&b.name)));
            out.dedup_by(|a, b| a.name == b.name && a.path == b.path && a.focus == b.focus);
            out.truncate(256);
            out
        })
    }

    /// Semantic tokens of a file (in file order), optionally only those in `range`.
    pub fn semantic_tokens(&self, path: &Path, range: Option<TextRange>) -> Cancellable<Vec<SemanticToken>> {
        self.with(|| self.file(path).map(|f| semantic::semantic_tokens(&f, range)).unwrap_or_default())
    }

    /// Inlay hints in `range`: deduced `auto` types and parameter names at calls.
    pub fn inlay_hints(&self, path: &Path, range: TextRange) -> Cancellable<Vec<InlayHint>> {
        self.with(|| self.file(path).map(|f| inlay::inlay_hints(&f, range)).unwrap_or_default())
    }

    /// The files the `#include`s and `#import`s of a file name, on the names.
    pub fn document_links(&self, path: &Path) -> Cancellable<Vec<DocumentLink>> {
        self.with(|| self.file(path).map(|f| links::document_links(&f)).unwrap_or_default())
    }

    /// Folding ranges: braces, comment blocks, `#if` regions, runs of `#include`s.
    pub fn folding_ranges(&self, path: &Path) -> Cancellable<Vec<Fold>> {
        self.with(|| self.file(path).map(|f| folding::folding_ranges(&f)).unwrap_or_default())
    }

    /// For each offset, the ranges of the syntax around it, innermost first.
    pub fn selection_ranges(&self, path: &Path, offsets: &[TextSize]) -> Cancellable<Vec<Vec<TextRange>>> {
        self.with(|| self.file(path).map(|f| folding::selection_ranges(&f, offsets)).unwrap_or_default())
    }

    /// Quick fixes for the diagnostics that touch `range`, and refactorings there.
    pub fn code_actions(&self, path: &Path, range: TextRange) -> Cancellable<Vec<CodeAction>> {
        self.with(|| self.file(path).map(|f| actions::code_actions(&f, range)).unwrap_or_default())
    }

    /// The macro invocation at `offset` and what it expands to.
    pub fn expand_macro(&self, path: &Path, offset: TextSize) -> Cancellable<Option<MacroExpansion>> {
        self.with(|| self.file(path).and_then(|f| expand::expand_macro(&f, offset)))
    }

    /// The edits that format an open file: all of them, or those inside `range` (a gap
    /// between tokens that starts and ends within it), joined into one edit per block of
    /// changed lines. The options are those of the file's
    /// directory (`[format]` of the nearest `msl.toml`, else the nearest `.clang-format`).
    /// `Err` says why the file is left as it is.
    pub fn format(
        &self,
        path: &Path,
        range: Option<TextRange>,
    ) -> Cancellable<Result<Vec<(TextRange, String)>, String>> {
        self.with(|| {
            let path = msl_syntax::vfs::normalize(path);
            let Some(view) = self.units.get(&path) else { return Err(format!("{} is not open", path.display())) };
            let parse = msl_hir::parse_unit(&self.db, view.unit).clone();
            let text = view.unit.main(&self.db).text(&self.db).clone();
            let dir = path.parent().unwrap_or(Path::new("."));
            let (options, _) = msl_fmt::OptionsFinder::default().for_dir(dir)?;
            let (_, edits) = msl_fmt::format_with_edits(&parse, &text, &options).map_err(|e| e.to_string())?;
            let inside = |r: &std::ops::Range<usize>| {
                range.is_none_or(|within| {
                    within.contains_range(TextRange::new((r.start as u32).into(), (r.end as u32).into()))
                })
            };
            let edits: Vec<msl_fmt::Edit> = edits.into_iter().filter(|(r, _)| inside(r)).collect();
            // whole lines: a few edits per changed block rather than one per gap
            let edits = msl_fmt::line_edits(&text, &edits)
                .into_iter()
                .map(|(r, t)| (TextRange::new((r.start as u32).into(), (r.end as u32).into()), t))
                .collect();
            Ok(edits)
        })
    }

    /// The syntax tree of a file, as text (for bug reports).
    pub fn syntax_tree(&self, path: &Path) -> Cancellable<Option<String>> {
        self.with(|| self.file(path).map(|f| f.parse.debug_tree()))
    }

    /// The text of a file the analysis knows (open, or read for a unit).
    pub fn file_text(&self, path: &Path) -> Cancellable<Option<Arc<str>>> {
        self.with(|| {
            if path == Path::new(BUILTIN_LIBRARY_PATH) {
                return Some(Arc::from(builtin_library_text()));
            }
            let path = msl_syntax::vfs::normalize(path);
            for view in self.units.values() {
                let unit = view.context.as_ref().map_or(view.unit, |c| c.unit);
                let parse = msl_hir::parse_unit(&self.db, unit);
                if let Some(f) = parse.files().iter().find(|f| !f.is_virtual && f.path == path) {
                    return Some(f.text.clone());
                }
            }
            self.workspace.text(&path)
        })
    }
}
