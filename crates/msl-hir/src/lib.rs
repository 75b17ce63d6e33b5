//! Semantic analysis for the Metal Shading Language.
//!
//! A salsa database holds the inputs (file texts, the set of known files, and each unit's
//! configuration); queries parse units, extract their item trees (declarations outside
//! function bodies) and check each function. Editing inside one function body re-runs only
//! that function's checks.

pub mod body;
mod checks;
pub mod codes;
pub mod consteval;
mod db;
pub mod defs;
pub mod infer;
mod items;
pub mod layout;
pub mod semantics;
pub mod ty;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use msl_syntax::vfs::LoadIssue;
use msl_syntax::{Diagnostic, PpConfig, Severity, TextRange, TextSize};
use rustc_hash::FxHashMap;
use salsa::Setter;

pub use checks::{
    Fix, HirDiagnostic, auto_types, check_declarations, check_function, check_static_asserts,
    functions_reaching_asserts, may_run_away,
};
pub use codes::code_info;
pub use db::{
    Db, DiskFiles, FileSet, FunctionId, FunctionSyntax, Instance, MAX_INSTANCES, ParseCache, RootDatabase, SourceFile,
    Unit, assert_instances, function_body, function_green, function_offsets, functions, infer_function, infer_instance,
    item_tree, parse_unit, unit_def_source, unit_defs, unit_defs_with_source, unit_incomplete, unit_instances,
};
pub use items::{FunctionItem, ItemCache, ItemTree, Overload};
pub use semantics::{Definition, LocalDef, Member, MemberKind, Semantics, ThreadgroupMemory};
pub use ty::{DefId, Ty};

/// A diagnostic of a unit, in a file of the unit, with an optional fix hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitDiagnostic {
    pub diagnostic: Diagnostic,
    pub hint: Option<String>,
    /// Mechanical fixes, best first; their edits are in files of the unit.
    pub fixes: Vec<UnitFix>,
    /// Other places that explain it: `(file index, range, message)`.
    pub related: Vec<(u32, TextRange, String)>,
}

/// A fix whose edits are `(file index, range, replacement)` in files of the unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitFix {
    pub label: String,
    pub edits: Vec<(u32, TextRange, String)>,
}

/// Everything wrong with a unit: preprocessor and syntax diagnostics, then the checks of
/// every function (skipped with `syntax_only`). File indices refer to the unit's parse.
pub fn unit_diagnostics(db: &dyn Db, unit: Unit, syntax_only: bool) -> Vec<UnitDiagnostic> {
    let parse = parse_unit(db, unit);
    let mut out: Vec<UnitDiagnostic> = parse
        .diagnostics()
        .iter()
        .map(|d| UnitDiagnostic { diagnostic: d.clone(), hint: None, fixes: Vec::new(), related: Vec::new() })
        .collect();
    if syntax_only {
        return out;
    }
    let list = functions(db, unit);
    // the unit-wide checks and the functions' on two threads; memoized for the loops below
    check_in_parallel(db, unit, &list);
    for d in check_declarations(db, unit).iter().chain(checks::check_program(db, unit).iter()) {
        let (file, range) = parse.map_range(d.range);
        let fixes = d.fixes.iter().filter_map(|f| map_fix(parse, f, 0.into())).collect();
        out.push(UnitDiagnostic {
            diagnostic: Diagnostic { file, range, severity: d.severity, code: d.code, message: d.message.clone() },
            hint: d.hint.clone(),
            fixes,
            related: map_related(parse, &d.related, 0.into()),
        });
    }
    let starts: Vec<msl_syntax::TextSize> = db::green_functions(parse.green()).into_iter().map(|(at, _)| at).collect();
    // after the functions' checks, which (on two threads) inferred what this needs
    for d in check_static_asserts(db, unit)
        .into_iter()
        .chain(checks::check_runaway(db, unit))
        .chain(checks::check_instances(db, unit))
    {
        let (file, range) = parse.map_range(d.range);
        out.push(UnitDiagnostic {
            diagnostic: Diagnostic { file, range, severity: d.severity, code: d.code, message: d.message.clone() },
            hint: d.hint.clone(),
            fixes: Vec::new(),
            related: map_related(parse, &d.related, 0.into()),
        });
    }
    for (i, function) in list.into_iter().enumerate() {
        let Some(&start) = starts.get(i) else { continue };
        for d in check_function(db, function).iter() {
            let (file, range) = parse.map_range(d.range + start);
            let fixes = d.fixes.iter().filter_map(|f| map_fix(parse, f, start)).collect();
            out.push(UnitDiagnostic {
                diagnostic: Diagnostic { file, range, severity: d.severity, code: d.code, message: d.message.clone() },
                hint: d.hint.clone(),
                fixes,
                related: map_related(parse, &d.related, start),
            });
        }
    }
    out
}

/// Related places in the files of the unit (tree ranges from `start`).
fn map_related(
    parse: &msl_syntax::Parse,
    related: &[(TextRange, String)],
    start: TextSize,
) -> Vec<(u32, TextRange, String)> {
    related
        .iter()
        .map(|(range, message)| {
            let (file, range) = parse.map_range(*range + start);
            (file, range, message.clone())
        })
        .collect()
}

/// The stack of every thread that analyses code. Deeply nested or very long expressions
/// (a generated sum of thousands of terms is a tree thousands of levels deep) are walked
/// recursively; the default 2 MiB of a spawned thread (8 MiB for the main one) is too
/// little for them, and the space is only reserved: pages are used as the walk reaches
/// them.
pub const ANALYSIS_STACK_SIZE: usize = 64 << 20;

/// Below this many functions a second thread costs more than it saves.
const PARALLEL_MIN_FUNCTIONS: usize = 16;

/// With a forked handle (see [`Db::fork`]), checks the functions of `list` on this thread
/// and another one (and the unit-wide declaration and program checks, one on each); the
/// results are memoized for the caller's pass. The functions are shared out by size,
/// largest first, each to the thread with less text so far (sizes vary a lot: one kernel
/// can be as long as fifty small helpers), which is balanced and the same on every run. A cancellation (or any panic) on the other thread is raised
/// again here.
fn check_in_parallel<'db>(db: &'db dyn Db, unit: Unit, list: &[FunctionId<'db>]) {
    if list.len() < PARALLEL_MIN_FUNCTIONS {
        return;
    }
    let Some(fork) = db.fork() else { return };
    let mut by_size: Vec<(u32, usize)> = list
        .iter()
        .enumerate()
        .map(|(i, f)| (function_green(db, *f).as_ref().map_or(0, |g| u32::from(g.0.text_len())), i))
        .collect();
    by_size.sort_by(|a, b| b.cmp(a));
    let (mut here, mut there) = (Vec::new(), Vec::new());
    let (mut here_size, mut there_size) = (0u64, 0u64);
    for (size, i) in by_size {
        if here_size <= there_size {
            here.push(i);
            here_size += u64::from(size);
        } else {
            there.push(i);
            there_size += u64::from(size);
        }
    }
    // when instantiations may run away, every body's inference is needed to find them:
    // done here too, on both threads (assertions in templates need only the bodies that
    // may lead to them, see `assert_instances`)
    let infer = *checks::may_run_away(db, unit);
    std::thread::scope(|s| {
        let helper = std::thread::Builder::new().stack_size(ANALYSIS_STACK_SIZE).spawn_scoped(s, move || {
            let db: &dyn Db = &*fork;
            if infer {
                unit_defs(db, unit);
            }
            // the program-wide rules (which build the definitions the functions' rules
            // use) here while the other thread checks the declarations
            checks::check_program(db, unit);
            let mine = functions(db, unit);
            for i in there {
                if let Some(function) = mine.get(i) {
                    check_function(db, *function);
                    if infer {
                        checks::function_static_asserts(db, *function);
                        infer_function(db, *function);
                    }
                }
            }
        });
        check_declarations(db, unit);
        for i in here {
            check_function(db, list[i]);
            if infer {
                checks::function_static_asserts(db, list[i]);
                infer_function(db, list[i]);
            }
        }
        // without a thread (the system refused one), this one did its share; the rest
        // is computed on demand
        if let Ok(helper) = helper
            && let Err(panic) = helper.join()
        {
            std::panic::resume_unwind(panic);
        }
    });
}

/// A function's fix in the files of the unit; `None` when an edit does not fall on text
/// spelled in a file (inside a macro expansion, say), where editing would be wrong.
fn map_fix(parse: &msl_syntax::Parse, fix: &Fix, start: TextSize) -> Option<UnitFix> {
    let root = parse.syntax();
    let mut edits = Vec::new();
    for (range, text) in &fix.edits {
        let tree_range = *range + start;
        let (file, mapped) = parse.map_range(tree_range);
        if mapped.len() != tree_range.len() {
            return None;
        }
        let in_file = parse.files().get(file as usize)?.text.get(std::ops::Range::<usize>::from(mapped))?;
        if !tree_range.is_empty() {
            let covering = root.covering_element(tree_range);
            let rel = tree_range - covering.text_range().start();
            let same = match &covering {
                rowan::NodeOrToken::Node(n) => n.text().slice(rel) == in_file,
                rowan::NodeOrToken::Token(t) => t.text().get(std::ops::Range::<usize>::from(rel)) == Some(in_file),
            };
            if !same {
                return None;
            }
        }
        edits.push((file, mapped, text.clone()));
    }
    Some(UnitFix { label: fix.label.clone(), edits })
}

/// A convenient owner of a database and its file set, for the command line and tests.
pub struct Analysis {
    pub db: RootDatabase,
    file_set: FileSet,
    files: FxHashMap<PathBuf, SourceFile>,
}

impl Analysis {
    /// An analysis that reads headers it does not know from the disk.
    pub fn with_disk() -> Analysis {
        Analysis::new(RootDatabase::with_disk())
    }

    pub fn new(db: RootDatabase) -> Analysis {
        let file_set = FileSet::new(&db, Arc::new(FxHashMap::default()));
        Analysis { db, file_set, files: FxHashMap::default() }
    }

    /// The input of a file already known (set, or read for a unit's main file).
    pub fn file(&self, path: &Path) -> Option<SourceFile> {
        self.files.get(&msl_syntax::vfs::normalize(path)).copied()
    }

    /// Adds or changes a file; returns its input.
    pub fn set_file(&mut self, path: &Path, text: Arc<str>) -> SourceFile {
        self.set_file_with_issues(path, text, Arc::from([]))
    }

    /// Adds or changes a file read as bytes: invalid UTF-8 is replaced and reported.
    pub fn set_file_bytes(&mut self, path: &Path, bytes: &[u8]) -> SourceFile {
        let (text, issues) = msl_syntax::vfs::decode(bytes);
        self.set_file_with_issues(path, text.into(), issues.into())
    }

    fn set_file_with_issues(&mut self, path: &Path, text: Arc<str>, issues: Arc<[LoadIssue]>) -> SourceFile {
        let path = msl_syntax::vfs::normalize(path);
        if let Some(&f) = self.files.get(&path) {
            if **f.text(&self.db) != *text {
                f.set_text(&mut self.db).to(text);
            }
            if **f.load_issues(&self.db) != *issues {
                f.set_load_issues(&mut self.db).to(issues);
            }
            return f;
        }
        let f = SourceFile::new(&self.db, path.clone(), text, issues);
        self.files.insert(path, f);
        self.file_set.set_files(&mut self.db).to(Arc::new(self.files.clone()));
        f
    }

    /// A unit with `main` as its main file.
    pub fn unit(&mut self, main: SourceFile, config: PpConfig) -> Unit {
        Unit::new(&self.db, main, self.file_set, config)
    }

    pub fn diagnostics(&self, unit: Unit, syntax_only: bool) -> Vec<UnitDiagnostic> {
        unit_diagnostics(&self.db, unit, syntax_only)
    }

    pub fn parse(&self, unit: Unit) -> Arc<msl_syntax::Parse> {
        parse_unit(&self.db, unit).clone()
    }
}

/// The severity a code has unless configured otherwise.
pub fn default_severity(code: &str) -> Severity {
    code_info(code).map(|c| c.severity).unwrap_or(Severity::Error)
}
