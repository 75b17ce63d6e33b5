//! The salsa database: inputs, and the queries that parse units and extract items.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use msl_syntax::lexer::Lexed;
use msl_syntax::vfs::LoadIssue;
use msl_syntax::vfs::normalize;
use msl_syntax::{FileId, FileResolver, Parse, PpConfig, SyntaxKind, Vfs, parse_file};
use rowan::{GreenNode, GreenNodeData, NodeOrToken, TextSize};
use rustc_hash::FxHashMap;

use crate::items::ItemTree;

/// The text of one file.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: Arc<str>,
    /// Problems met while decoding the file (invalid UTF-8, a truncated huge file).
    #[returns(ref)]
    pub load_issues: Arc<[LoadIssue]>,
}

/// The files the analysis knows, by normalized path (open buffers and loaded headers).
#[salsa::input(debug)]
pub struct FileSet {
    #[returns(ref)]
    pub files: Arc<FxHashMap<PathBuf, SourceFile>>,
}

/// A translation unit to analyse: its main file and how it is compiled.
#[salsa::input(debug)]
pub struct Unit {
    pub main: SourceFile,
    pub file_set: FileSet,
    #[returns(ref)]
    pub config: PpConfig,
}

/// A function of a unit, by its position among the unit's functions (file order).
#[salsa::interned(debug)]
pub struct FunctionId<'db> {
    pub unit: Unit,
    pub index: u32,
}

#[salsa::db]
pub trait Db: salsa::Database {
    /// Files outside the file set are read from the disk (an untracked read) when this
    /// returns a loader; `None` keeps analysis to the file set.
    fn disk(&self) -> Option<&DiskFiles>;
    /// The last parse of each unit, from which an edit inside one function body is
    /// reparsed locally; `None` parses every change from scratch.
    fn parse_cache(&self) -> Option<&ParseCache> {
        None
    }
    /// The item-tree parts of top-level nodes, reused across reparses.
    fn item_cache(&self) -> Option<&crate::items::ItemCache> {
        None
    }
    /// Another handle on the same storage, for checking a unit's functions on a second
    /// thread (`None`: check them on the calling thread only).
    fn fork(&self) -> Option<Box<dyn Db + Send>> {
        None
    }
}

/// The latest parse of each unit, with what it was computed from, and the tokens of the
/// headers parses read.
#[derive(Default)]
pub struct ParseCache {
    last: Mutex<FxHashMap<Unit, CachedParse>>,
    /// What the lexer made of each header, by path, with the text it was lexed from (see
    /// [`FileResolver::lexed`]): shared by the units that include the header, and by the
    /// parses of a unit after an edit to its main file.
    lexed: Mutex<FxHashMap<PathBuf, (Arc<str>, Lexed)>>,
    full: std::sync::atomic::AtomicUsize,
    local: std::sync::atomic::AtomicUsize,
}

struct CachedParse {
    files: Arc<FxHashMap<PathBuf, SourceFile>>,
    config: PpConfig,
    parse: Arc<Parse>,
}

impl ParseCache {
    /// How many parses were of whole units, and how many reparsed one body.
    pub fn counts(&self) -> (usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.full.load(Relaxed), self.local.load(Relaxed))
    }

    /// How many headers have their tokens kept.
    pub fn headers_lexed(&self) -> usize {
        self.lexed.lock().map_or(0, |kept| kept.len())
    }

    /// Drops what is kept for `unit` (when it is closed).
    pub fn forget(&self, unit: Unit) {
        if let Ok(mut last) = self.last.lock() {
            last.remove(&unit);
        }
    }
}

/// Headers read from the disk because they were not in the file set.
#[derive(Default)]
pub struct DiskFiles {
    vfs: Mutex<Vfs>,
}

impl DiskFiles {
    fn load(&self, path: &Path) -> Option<LoadedFile> {
        let vfs = self.vfs.lock().ok()?;
        let id = vfs.resolve(path)?;
        Some(LoadedFile { path: vfs.path(id), text: vfs.text(id), issues: vfs.load_issues(id).into() })
    }
}

/// The database used by the command line and the server.
#[salsa::db]
#[derive(Clone, Default)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    disk: Option<Arc<DiskFiles>>,
    parses: Arc<ParseCache>,
    items: Arc<crate::items::ItemCache>,
    /// Check a unit's functions on two threads (see [`RootDatabase::set_parallel_checks`]).
    parallel: bool,
}

impl RootDatabase {
    /// Whether [`crate::unit_diagnostics`] checks the functions of a large unit on a second
    /// thread as well. Worth it for one unit at a time (an editor's open file, one file on
    /// the command line); a tool that already checks several units at once leaves it off.
    pub fn set_parallel_checks(&mut self, on: bool) {
        self.parallel = on;
    }

    /// A database that also reads headers missing from the file set from the disk.
    pub fn with_disk() -> RootDatabase {
        RootDatabase {
            storage: salsa::Storage::default(),
            disk: Some(Arc::new(DiskFiles { vfs: Mutex::new(Vfs::with_disk()) })),
            parses: Arc::default(),
            items: Arc::default(),
            parallel: false,
        }
    }

    /// A database whose storage reports every query it executes to `log`, as the query
    /// and the thread that ran it (for tests of incrementality and parallel checks).
    pub fn with_event_log(log: Arc<Mutex<Vec<String>>>) -> RootDatabase {
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind
                && let Ok(mut l) = log.lock()
            {
                l.push(format!("{database_key:?} on {:?}", event.thread_id));
            }
        })));
        RootDatabase { storage, disk: None, parses: Arc::default(), items: Arc::default(), parallel: false }
    }
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

#[salsa::db]
impl Db for RootDatabase {
    fn disk(&self) -> Option<&DiskFiles> {
        self.disk.as_deref()
    }

    fn parse_cache(&self) -> Option<&ParseCache> {
        Some(&self.parses)
    }

    fn item_cache(&self) -> Option<&crate::items::ItemCache> {
        Some(&self.items)
    }

    fn fork(&self) -> Option<Box<dyn Db + Send>> {
        self.parallel.then(|| Box::new(self.clone()) as Box<dyn Db + Send>)
    }
}

struct LoadedFile {
    path: PathBuf,
    text: Arc<str>,
    issues: Arc<[LoadIssue]>,
}

/// The preprocessor's view of the database's files.
struct DbResolver<'a> {
    db: &'a dyn Db,
    set: &'a FxHashMap<PathBuf, SourceFile>,
    files: std::cell::RefCell<Vec<LoadedFile>>,
    ids: std::cell::RefCell<FxHashMap<PathBuf, FileId>>,
}

impl DbResolver<'_> {
    fn register(&self, file: LoadedFile) -> FileId {
        let mut files = self.files.borrow_mut();
        let id = FileId(files.len() as u32);
        self.ids.borrow_mut().insert(file.path.clone(), id);
        files.push(file);
        id
    }

    fn register_input(&self, path: PathBuf, file: SourceFile) -> FileId {
        self.register(LoadedFile { path, text: file.text(self.db).clone(), issues: file.load_issues(self.db).clone() })
    }
}

impl FileResolver for DbResolver<'_> {
    fn resolve(&self, path: &Path) -> Option<FileId> {
        let path = normalize(path);
        if let Some(id) = self.ids.borrow().get(&path) {
            return Some(*id);
        }
        if let Some(&file) = self.set.get(&path) {
            return Some(self.register_input(path, file));
        }
        let disk = self.db.disk()?;
        // not tracked by salsa: the query runs again in later revisions
        self.db.report_untracked_read();
        Some(self.register(disk.load(&path)?))
    }

    fn text(&self, file: FileId) -> Arc<str> {
        self.files.borrow().get(file.0 as usize).map(|f| f.text.clone()).unwrap_or_else(|| Arc::from(""))
    }

    fn path(&self, file: FileId) -> PathBuf {
        self.files.borrow().get(file.0 as usize).map(|f| f.path.clone()).unwrap_or_default()
    }

    fn load_issues(&self, file: FileId) -> Vec<LoadIssue> {
        self.files.borrow().get(file.0 as usize).map(|f| f.issues.to_vec()).unwrap_or_default()
    }

    fn is_project_root(&self, dir: &Path) -> bool {
        if self.db.disk().is_none() {
            return false;
        }
        // not tracked by salsa, as reads from the disk are not
        self.db.report_untracked_read();
        msl_syntax::vfs::is_project_root_on_disk(dir)
    }

    fn lexed(&self, file: FileId, text: &Arc<str>) -> Option<Lexed> {
        let cache = self.db.parse_cache()?;
        let files = self.files.borrow();
        let kept = cache.lexed.lock().ok()?;
        let (lexed_from, lexed) = kept.get(&files.get(file.0 as usize)?.path)?;
        // the same text, not merely an equal one: the kept `Arc` keeps its address taken
        Arc::ptr_eq(lexed_from, text).then(|| lexed.clone())
    }

    fn keep_lexed(&self, file: FileId, text: &Arc<str>, lexed: &Lexed) {
        let Some(cache) = self.db.parse_cache() else { return };
        let files = self.files.borrow();
        if let Some(f) = files.get(file.0 as usize)
            && let Ok(mut kept) = cache.lexed.lock()
        {
            kept.insert(f.path.clone(), (text.clone(), lexed.clone()));
        }
    }
}

/// Preprocesses and parses a unit. When the previous parse of the unit differs only by
/// an edit inside one function body of the main file, only that body is parsed again
/// (the result is the same as a full parse).
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse_unit(db: &dyn Db, unit: Unit) -> Arc<Parse> {
    let set = unit.file_set(db).files(db).clone();
    let main = *unit.main(db);
    let text = main.text(db).clone();
    let config = unit.config(db);
    let resolver = DbResolver { db, set: &set, files: Default::default(), ids: Default::default() };
    let cache = db.parse_cache();
    if let Some(cache) = cache
        && let Some(parse) = reparse(cache, &resolver, &set, unit, main, &text, config)
    {
        return parse;
    }
    let id = resolver.register_input(normalize(main.path(db)), main);
    let parse = Arc::new(parse_file(id, &resolver, config));
    if let Some(cache) = cache
        && let Ok(mut last) = cache.last.lock()
    {
        cache.full.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        last.insert(unit, CachedParse { files: set.clone(), config: config.clone(), parse: parse.clone() });
    }
    parse
}

/// The parse of `unit` from its previous one, if only the main file changed and only
/// inside one function body.
#[allow(clippy::too_many_arguments)]
fn reparse(
    cache: &ParseCache,
    resolver: &DbResolver<'_>,
    set: &Arc<FxHashMap<PathBuf, SourceFile>>,
    unit: Unit,
    main: SourceFile,
    text: &Arc<str>,
    config: &PpConfig,
) -> Option<Arc<Parse>> {
    let db = resolver.db;
    let previous = {
        let last = cache.last.lock().ok()?;
        let prev = last.get(&unit)?;
        // the same files known (an include could otherwise resolve differently)
        if !Arc::ptr_eq(&prev.files, set) && *prev.files != **set {
            return None;
        }
        if prev.config != *config {
            return None;
        }
        prev.parse.clone()
    };
    let files = previous.files();
    if files.first()?.path != normalize(main.path(db)) || !main.load_issues(db).is_empty() {
        return None;
    }
    // read every header as a full parse would (so salsa sees the same dependencies), and
    // make sure none changed
    for file in files.iter().skip(1).filter(|f| !f.is_virtual) {
        let id = resolver.resolve(&file.path)?;
        if *resolver.text(id) != *file.text {
            return None;
        }
    }
    let parse = Arc::new(previous.reparse(text)?);
    cache.local.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Ok(mut last) = cache.last.lock() {
        last.insert(unit, CachedParse { files: set.clone(), config: config.clone(), parse: parse.clone() });
    }
    Some(parse)
}

/// The unit's functions (outside other functions) in file order, with their offsets.
/// Walks the green tree (no syntax nodes are made).
pub(crate) fn green_functions(root: &GreenNodeData) -> Vec<(TextSize, &GreenNodeData)> {
    green_functions_in_context(root).into_iter().map(|(at, node, ..)| (at, node)).collect()
}

/// The tree offsets of the unit's functions, in the order of [`functions`].
pub fn function_offsets(root: &GreenNodeData) -> Vec<TextSize> {
    green_functions(root).into_iter().map(|(at, _)| at).collect()
}

/// Where a function is declared: what its unqualified names may refer to besides locals,
/// globals and the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FunctionContext {
    /// Inside a template: names may be dependent, calls may find functions by argument-
    /// dependent lookup when instantiated.
    pub template: bool,
    /// A member of a class.
    pub member: bool,
    /// A member of a class with base classes (whose members it sees).
    pub member_with_bases: bool,
}

/// [`green_functions`], with each function's context and the namespace it is defined in
/// (`""` for the global one; `None` when not known, as for members of a class defined
/// with a qualified name).
pub(crate) fn green_functions_in_context(
    root: &GreenNodeData,
) -> Vec<(TextSize, &GreenNodeData, FunctionContext, Option<String>)> {
    let mut out = Vec::new();
    // namespaces met on the way; the stack refers to them by index
    let mut namespaces: Vec<Option<String>> = vec![Some(String::new())];
    let mut stack: Vec<(TextSize, &GreenNodeData, FunctionContext, usize)> =
        vec![(TextSize::from(0), root, FunctionContext::default(), 0)];
    let mut children = Vec::new();
    while let Some((offset, node, cx, ns)) = stack.pop() {
        let kind = SyntaxKind::from(node.kind().0);
        if kind == SyntaxKind::FUNCTION {
            out.push((offset, node, cx, namespaces[ns].clone()));
            continue;
        }
        // functions of the unit are items of the file, of namespaces, classes, templates
        // and linkage blocks; other nodes (declarations, expressions, the initializers of
        // large tables) need not be searched
        if !holds_functions(kind) {
            continue;
        }
        let mut inner = cx;
        let mut inner_ns = ns;
        match kind {
            SyntaxKind::TEMPLATE_DECL => inner.template = true,
            SyntaxKind::STRUCT => {
                inner.member = true;
                inner.member_with_bases |= node
                    .children()
                    .any(|c| c.as_node().is_some_and(|n| SyntaxKind::from(n.kind().0) == SyntaxKind::BASE_CLAUSE));
                // `struct a::S { ... }`: its members see `a`, which is not tracked here
                if crate::items::is_qualified_definition(node) {
                    namespaces.push(None);
                    inner_ns = namespaces.len() - 1;
                }
            }
            SyntaxKind::NAMESPACE => {
                let path = match (&namespaces[ns], crate::items::namespace_name(node)) {
                    (Some(outer), Some(name)) => Some(crate::items::join(outer, &name)),
                    // an unnamed namespace's names belong to the enclosing one
                    (outer, None) => outer.clone(),
                    (None, _) => None,
                };
                namespaces.push(path);
                inner_ns = namespaces.len() - 1;
            }
            _ => {}
        }
        let mut at = offset;
        children.clear();
        for child in node.children() {
            if let NodeOrToken::Node(n) = child {
                children.push((at, n, inner, inner_ns));
            }
            at += child.text_len();
        }
        stack.extend(children.drain(..).rev());
    }
    out
}

/// Node kinds whose children may be functions of the unit.
pub(crate) fn holds_functions(kind: SyntaxKind) -> bool {
    use SyntaxKind::*;
    matches!(
        kind,
        SOURCE_FILE
            | ERROR
            | NAMESPACE
            | DECL_LIST
            | TEMPLATE_DECL
            | EXPLICIT_INSTANTIATION
            | LINKAGE_SPEC
            | STRUCT
            | MEMBER_LIST
            | FRIEND_DECL
    )
}

/// Whether some header of the unit was not found or is not modelled: its declarations are
/// unknown, so names that seem undeclared may come from it.
#[salsa::tracked]
pub fn unit_incomplete(db: &dyn Db, unit: Unit) -> bool {
    parse_unit(db, unit).diagnostics().iter().any(|d| matches!(d.code, "W0030" | "E0033" | "E0031" | "E0032"))
}

/// The declarations of a unit, without function bodies: stable while a body is edited.
#[salsa::tracked(returns(ref))]
pub fn item_tree(db: &dyn Db, unit: Unit) -> Arc<ItemTree> {
    let parse = parse_unit(db, unit);
    match db.item_cache() {
        Some(cache) => ItemTree::build_cached(parse.green(), cache, unit),
        None => Arc::new(ItemTree::build(parse.green())),
    }
}

/// The unit's definitions and where they are in its tree, collected together (the
/// positions change with every edit; see [`unit_defs`]).
#[salsa::tracked(returns(ref), no_eq)]
pub fn unit_defs_with_source(db: &dyn Db, unit: Unit) -> (Arc<crate::defs::Defs>, Arc<crate::defs::DefSourceMap>) {
    let parse = parse_unit(db, unit);
    // after an edit inside a body, the previous definitions with their places moved
    let cache = db.item_cache();
    if let Some(cache) = cache
        && let Ok(last) = cache.defs.lock()
        && let Some(previous) = last.get(&unit)
        && let Some(reused) = crate::defs::reuse(previous, parse.green())
    {
        drop(last);
        if let Ok(mut last) = cache.defs.lock() {
            last.insert(
                unit,
                crate::defs::CachedDefs {
                    root: parse.green().clone(),
                    defs: reused.0.clone(),
                    sources: reused.1.clone(),
                },
            );
        }
        return reused;
    }
    let (defs, source) = crate::defs::collect_with_source(&parse.syntax());
    let (defs, source) = (Arc::new(defs), Arc::new(source));
    if let Some(cache) = cache
        && let Ok(mut last) = cache.defs.lock()
    {
        last.insert(
            unit,
            crate::defs::CachedDefs { root: parse.green().clone(), defs: defs.clone(), sources: source.clone() },
        );
    }
    (defs, source)
}

/// The unit's definitions (see [`crate::defs`]): equal while only function bodies change,
/// so the queries that read them are not run again.
#[salsa::tracked(returns(ref))]
pub fn unit_defs(db: &dyn Db, unit: Unit) -> Arc<crate::defs::Defs> {
    unit_defs_with_source(db, unit).0.clone()
}

/// Where the unit's definitions are (tree ranges).
pub fn unit_def_source(db: &dyn Db, unit: Unit) -> Arc<crate::defs::DefSourceMap> {
    unit_defs_with_source(db, unit).1.clone()
}

/// A function's body, lowered (see [`crate::body`]); ranges relative to its start.
#[salsa::tracked(returns(ref))]
pub fn function_body<'db>(
    db: &'db dyn Db,
    function: FunctionId<'db>,
) -> Arc<(crate::body::Body, crate::body::BodySourceMap)> {
    let lowered = match function_green(db, function).as_ref() {
        Some(FunctionSyntax(green)) => crate::body::lower_function(&msl_syntax::SyntaxNode::new_root(green.clone())),
        None => Default::default(),
    };
    Arc::new(lowered)
}

/// The types and resolutions of a function's body (see [`crate::infer`]). Depends on the
/// function's own body, the unit's definitions and the deduced return types of the
/// `auto` functions it calls.
#[salsa::tracked(returns(ref))]
pub fn infer_function<'db>(db: &'db dyn Db, function: FunctionId<'db>) -> Arc<crate::infer::InferenceResult> {
    Arc::new(infer_function_now(db, function))
}

/// [`infer_function`]'s work, also done (not memoized) by [`deduced_return`]: a cycle of
/// deductions then runs through deduction queries only, which end it.
fn infer_function_now(db: &dyn Db, function: FunctionId<'_>) -> crate::infer::InferenceResult {
    let unit = *function.unit(db);
    let defs = unit_defs(db, unit);
    let (body, _) = &**function_body(db, function);
    let def = defs.function_defs.get(*function.index(db) as usize).copied().flatten();
    let (scope, generics) = match def {
        Some(id) => (defs.def(id).scope, defs.def(id).generics.clone()),
        None => (crate::defs::ScopeId::GLOBAL, None),
    };
    // an explicit instantiation or specialization of a template is not inferred as one
    let in_template = generics.is_some() || def.is_none();
    let deduce = |def: crate::ty::DefId, args: &crate::infer::InstanceArgs| deduced_return_of(db, unit, def, args);
    let resolver = crate::infer::Resolver::new(defs, scope, generics).with_deduction(&deduce);
    crate::infer::infer_body(body, &resolver, def, in_template)
}

/// The return type of the unit's function `def` declared `auto`, with template
/// arguments `args` for a template (see [`deduced_return`]).
fn deduced_return_of(
    db: &dyn Db,
    unit: Unit,
    def: crate::ty::DefId,
    args: &crate::infer::InstanceArgs,
) -> Option<crate::ty::Ty> {
    let index = function_with_body(unit_defs(db, unit), def)?;
    let function = FunctionId::new(db, unit, index);
    if args.is_empty() {
        deduced_return(db, function).clone()
    } else {
        deduced_instance_return(db, Instance::new(db, function, args.clone())).clone()
    }
}

/// The type a function declared `auto` returns, from its body's `return` statements.
/// Functions whose return types depend on one another (a recursion, which Metal
/// forbids) end the cycle with no type.
#[salsa::tracked(returns(ref), cycle_result = no_deduced_return)]
pub fn deduced_return<'db>(db: &'db dyn Db, function: FunctionId<'db>) -> Option<crate::ty::Ty> {
    let (body, _) = &**function_body(db, function);
    crate::infer::returned_type(body, &infer_function_now(db, function))
}

fn no_deduced_return<'db>(_db: &'db dyn Db, _id: salsa::Id, _function: FunctionId<'db>) -> Option<crate::ty::Ty> {
    None
}

/// The type an instantiation of a function template declared `auto` returns.
#[salsa::tracked(returns(ref), cycle_result = no_deduced_instance_return)]
pub fn deduced_instance_return<'db>(db: &'db dyn Db, instance: Instance<'db>) -> Option<crate::ty::Ty> {
    let (body, _) = &**function_body(db, *instance.function(db));
    crate::infer::returned_type(body, &infer_instance_now(db, instance))
}

fn no_deduced_instance_return<'db>(
    _db: &'db dyn Db,
    _id: salsa::Id,
    _instance: Instance<'db>,
) -> Option<crate::ty::Ty> {
    None
}

/// An instantiation of a function template (or of a member of a class template): the
/// function and what its template parameters stand for.
#[salsa::interned(debug)]
pub struct Instance<'db> {
    pub function: FunctionId<'db>,
    #[returns(ref)]
    pub args: crate::infer::InstanceArgs,
}

/// How many instantiations a unit may make: templates that instantiate ever new ones stop
/// here.
pub const MAX_INSTANCES: usize = 4096;

/// How deep instantiations may nest, each made by the one before (clang's default
/// `-ftemplate-depth`): a template that instantiates itself with new arguments stops here.
pub const MAX_INSTANCE_DEPTH: u32 = 1024;

/// Where an instantiation is asked for: an expression (a call) in the body of one of the
/// unit's functions (by its number), in the function itself or in one of its instantiations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InstanceSite {
    pub function: u32,
    pub at: crate::body::ExprId,
}

/// Why the unit's instantiations stopped before all were made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runaway {
    /// Nesting (more than [`MAX_INSTANCE_DEPTH`]) or count (more than [`MAX_INSTANCES`]).
    pub depth: bool,
    /// The template and arguments of the instantiation not made.
    pub def: crate::ty::DefId,
    pub args: crate::infer::InstanceArgs,
    /// Where it is asked for, and where the chain that led there started (in a function
    /// that is not a template).
    pub site: Option<InstanceSite>,
    pub root: Option<InstanceSite>,
}

/// The instantiations a unit makes, each with the place that first asks for it (none for
/// an explicit instantiation), and where they stopped: once per place that asks for one
/// nested too deep (the chains that do not run away are all made), and once for too many.
#[derive(Debug, Clone, PartialEq, Eq, salsa::SalsaValue)]
pub struct UnitInstances<'db> {
    pub list: Vec<Instance<'db>>,
    pub sites: Vec<Option<InstanceSite>>,
    pub runaways: Vec<Runaway>,
}

impl<'db> UnitInstances<'db> {
    pub fn iter(&self) -> impl Iterator<Item = &Instance<'db>> {
        self.list.iter()
    }
}

/// The types and resolutions of an instantiation's body: the template's body with its
/// parameters bound.
#[salsa::tracked(returns(ref))]
pub fn infer_instance<'db>(db: &'db dyn Db, instance: Instance<'db>) -> Arc<crate::infer::InferenceResult> {
    Arc::new(infer_instance_now(db, instance))
}

/// [`infer_instance`]'s work (see [`infer_function_now`]).
fn infer_instance_now(db: &dyn Db, instance: Instance<'_>) -> crate::infer::InferenceResult {
    let function = *instance.function(db);
    let unit = *function.unit(db);
    let defs = unit_defs(db, unit);
    let (body, _) = &**function_body(db, function);
    let def = defs.function_defs.get(*function.index(db) as usize).copied().flatten();
    let Some(def) = def else { return Default::default() };
    let d = defs.def(def);
    let deduce = |def: crate::ty::DefId, args: &crate::infer::InstanceArgs| deduced_return_of(db, unit, def, args);
    let resolver = crate::infer::Resolver::new(defs, d.scope, d.generics.clone())
        .with_bindings(instance.args(db))
        .with_deduction(&deduce);
    crate::infer::infer_body(body, &resolver, Some(def), false)
}

/// Every instantiation the unit makes: those its functions' bodies call (and those their
/// bodies call in turn), and its explicit instantiations; at most [`MAX_INSTANCES`], nested
/// at most [`MAX_INSTANCE_DEPTH`] deep.
#[salsa::tracked(returns(ref))]
pub fn unit_instances(db: &dyn Db, unit: Unit) -> Arc<UnitInstances<'_>> {
    Arc::new(walk_instances(db, unit, None))
}

/// The instantiations that may reach a template asserting something (see
/// [`crate::checks::functions_reaching_asserts`]): those [`unit_instances`] makes, leaving
/// out every function and template that cannot lead to one, so checking the assertions
/// infers only the bodies on the way.
#[salsa::tracked(returns(ref))]
pub fn assert_instances(db: &dyn Db, unit: Unit) -> Arc<UnitInstances<'_>> {
    let keep: rustc_hash::FxHashSet<u32> =
        crate::checks::functions_reaching_asserts(db, unit).iter().copied().collect();
    Arc::new(walk_instances(db, unit, Some(&keep)))
}

/// The worklist of [`unit_instances`], over the functions (by number) in `keep` when given.
pub(crate) fn walk_instances<'db>(
    db: &'db dyn Db,
    unit: Unit,
    keep: Option<&rustc_hash::FxHashSet<u32>>,
) -> UnitInstances<'db> {
    struct Pending {
        def: crate::ty::DefId,
        args: crate::infer::InstanceArgs,
        depth: u32,
        site: Option<InstanceSite>,
        root: Option<InstanceSite>,
    }
    let kept = |index: u32| keep.is_none_or(|k| k.contains(&index));
    let defs = unit_defs(db, unit);
    let mut queue: Vec<Pending> = Vec::new();
    for f in functions(db, unit) {
        let function = *f.index(db);
        if !kept(function) {
            continue;
        }
        let r = infer_function(db, f);
        if !r.in_template {
            queue.extend(r.instances.iter().map(|u| {
                let site = Some(InstanceSite { function, at: u.at });
                Pending { def: u.def, args: u.args.clone(), depth: 1, site, root: site }
            }));
        }
    }
    for (scope, path) in &defs.explicit_instantiations {
        let resolver = crate::infer::Resolver::new(defs, *scope, None);
        if let Some((def, args)) = resolver.explicit_instance(path) {
            queue.push(Pending { def, args, depth: 1, site: None, root: None });
        }
    }
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = UnitInstances { list: Vec::new(), sites: Vec::new(), runaways: Vec::new() };
    let mut next = 0;
    while next < queue.len() {
        let p = &queue[next];
        next += 1;
        if seen.contains(&(p.def, p.args.clone())) {
            continue;
        }
        let Some(index) = function_with_body(defs, p.def) else { continue };
        if !kept(index) {
            continue;
        }
        let too_deep = p.depth > MAX_INSTANCE_DEPTH;
        if too_deep || out.list.len() >= MAX_INSTANCES {
            if out.runaways.iter().all(|r| r.site != p.site) {
                out.runaways.push(Runaway {
                    depth: too_deep,
                    def: p.def,
                    args: p.args.clone(),
                    site: p.site,
                    root: p.root,
                });
            }
            if too_deep {
                continue;
            }
            break;
        }
        seen.insert((p.def, p.args.clone()));
        let instance = Instance::new(db, FunctionId::new(db, unit, index), p.args.clone());
        let (depth, root, site) = (p.depth + 1, p.root, p.site);
        out.list.push(instance);
        out.sites.push(site);
        queue.extend(infer_instance(db, instance).instances.iter().map(|u| Pending {
            def: u.def,
            args: u.args.clone(),
            depth,
            site: Some(InstanceSite { function: index, at: u.at }),
            root,
        }));
    }
    out
}

/// The number among the unit's functions of `def`'s definition with a body (a template
/// may be declared before it is defined).
fn function_with_body(defs: &crate::defs::Defs, def: crate::ty::DefId) -> Option<u32> {
    use crate::defs::DefKind;
    let d = defs.def(def);
    let DefKind::Function(f) = &d.kind else { return None };
    if f.has_body {
        return f.function;
    }
    defs.lookup_in(d.scope, &d.name).into_iter().find_map(|c| match &defs.def(c).kind {
        DefKind::Function(g) if g.params.len() == f.params.len() && g.has_body => g.function,
        _ => None,
    })
}

/// A function's syntax. Equality first compares identity: a reparse shares the green
/// nodes of every function it did not touch, so comparing them costs nothing.
#[derive(Debug, Clone, Eq)]
pub struct FunctionSyntax(pub GreenNode);

impl PartialEq for FunctionSyntax {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq::<GreenNodeData>(&*self.0, &*other.0) || self.0 == other.0
    }
}

/// The syntax of every function of a unit, in order.
#[salsa::tracked(returns(ref))]
pub fn function_greens(db: &dyn Db, unit: Unit) -> Arc<Vec<FunctionSyntax>> {
    let parse = parse_unit(db, unit);
    Arc::new(green_functions(parse.green()).into_iter().map(|(_, g)| FunctionSyntax(g.to_owned())).collect())
}

/// A function's syntax, position-independent: unchanged when other text moves, so the
/// queries that read it are not re-run.
#[salsa::tracked]
pub fn function_green<'db>(db: &'db dyn Db, function: FunctionId<'db>) -> Option<FunctionSyntax> {
    function_greens(db, *function.unit(db)).get(*function.index(db) as usize).cloned()
}

/// The functions of a unit.
pub fn functions(db: &dyn Db, unit: Unit) -> Vec<FunctionId<'_>> {
    let count = item_tree(db, unit).function_count;
    (0..count).map(|i| FunctionId::new(db, unit, i)).collect()
}
