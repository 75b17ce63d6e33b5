//! `msl-lsp`: a language server for the Metal Shading Language.
//!
//! One [`AnalysisHost`] holds the analysis; edits are applied to it in the order they
//! arrive. Requests run on snapshots in blocking threads: a newer edit cancels them (they
//! answer `ContentModified`), and a panic in one is caught, logged and answered with an
//! error while the server keeps running.

mod compiler;
mod context;
pub mod convert;
mod indexing;
pub mod memory;
mod proto;
pub mod settings;
pub mod test_client;
mod transport;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use msl_ide::config::ConfigFinder;
use msl_ide::{AnalysisHost, Cancellable, Snapshot};
use ropey::Rope;
use rustc_hash::FxHashMap;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

use convert::{Encoding, LineIndex};
use settings::ClientSettings;

/// Set when the client asked the server to shut down (before `exit`).
static SHUTDOWN_REQUESTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs the server on standard input and output until the client exits or closes the
/// input. Returns the process exit code the protocol asks for: 0 when `shutdown` came
/// before the end, 1 otherwise.
///
/// The caller should exit the process right away: the thread reading standard input may
/// still be blocked in a read that only ends when the client closes the pipe, and some
/// clients keep it open after `exit`.
pub async fn run_stdio(log_file: Option<PathBuf>) -> i32 {
    serve(tokio::io::stdin(), tokio::io::stdout(), log_file).await;
    use tokio::io::AsyncWriteExt;
    let _ = tokio::io::stdout().flush().await;
    if SHUTDOWN_REQUESTED.load(std::sync::atomic::Ordering::SeqCst) { 0 } else { 1 }
}

/// Runs the server over any pair of streams (tests use in-memory pipes).
pub async fn serve<R, W>(input: R, output: W, log_file: Option<PathBuf>)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (guarded_write, guarded_read) = tokio::io::duplex(1 << 20);
    let (ended_tx, ended_rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        transport::guard(input, guarded_write).await;
        let _ = ended_tx.send(());
    });
    let (service, socket) = LspService::build(move |client| Backend::new(client, log_file.clone()))
        .custom_method(transport::MALFORMED, Backend::malformed_message)
        .custom_method(transport::INVALID_REQUEST, Backend::invalid_request)
        .finish();
    // After `exit` (or the end of the input) the protocol's server waits for every handler
    // still running, and one awaiting an answer from the client never gets it: the input
    // is no longer read. The session ends a moment later regardless.
    tokio::select! {
        _ = Server::new(guarded_read, output, socket).serve(service) => {}
        _ = async {
            let _ = ended_rx.await;
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        } => {}
    }
}

/// An open document.
#[derive(Clone)]
pub(crate) struct Doc {
    pub uri: Uri,
    pub version: i32,
    pub rope: Rope,
    pub text: Arc<str>,
    pub index: Arc<LineIndex>,
}

/// What a request needs of its document, at the snapshot's revision.
#[derive(Clone)]
pub(crate) struct DocView {
    pub path: PathBuf,
    pub text: Arc<str>,
    pub index: Arc<LineIndex>,
    pub enc: Encoding,
}

impl DocView {
    pub fn offset(&self, pos: Position) -> msl_ide::TextSize {
        self.index.offset(pos, self.enc)
    }
    pub fn range(&self, r: msl_ide::TextRange) -> Range {
        self.index.range(r, self.enc)
    }
    pub fn position(&self, o: msl_ide::TextSize) -> Position {
        self.index.position(o, self.enc)
    }
}

pub(crate) struct State {
    pub host: AnalysisHost,
    pub docs: FxHashMap<PathBuf, Doc>,
    pub enc: Encoding,
    pub settings: ClientSettings,
    pub finder: ConfigFinder,
    pub roots: Vec<PathBuf>,
    pub config_pull: bool,
    pub dynamic_watch: bool,
    /// The client shows `$/progress` of work the server starts.
    pub work_done_progress: bool,
    /// The client lets the type hierarchy be registered after `initialize`.
    pub type_hierarchy_dynamic: bool,
    /// Contexts the user chose with `msl.setContext`: an includer, or the file alone.
    pub context_pins: FxHashMap<PathBuf, Option<PathBuf>>,
    /// The last `msl/status` without the files' contexts (`null` until settings are read).
    pub status: Value,
    /// The last semantic tokens sent per document: result id and data.
    pub semantic: FxHashMap<PathBuf, (String, Vec<u32>)>,
    /// Where the built-in library document was written.
    pub builtin_file: Option<PathBuf>,
    /// Apple's compiler: discovery, runs and their diagnostics.
    pub compiler: compiler::CompilerState,
}

/// Writes log lines to the `--log-file`, when there is one.
pub(crate) struct Logger {
    file: Option<Mutex<std::fs::File>>,
}

impl Logger {
    fn line(&self, level: &str, message: &str) {
        if let Some(f) = &self.file
            && let Ok(mut f) = f.lock()
        {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0);
            let _ = writeln!(f, "{now:.3} {level} {message}");
        }
    }
}

#[derive(Clone)]
pub struct Backend {
    pub(crate) client: Client,
    pub(crate) state: Arc<Mutex<State>>,
    pub(crate) log: Arc<Logger>,
    /// Generation of each document's diagnostics, to drop stale results.
    pub(crate) diag_generation: Arc<Mutex<FxHashMap<PathBuf, u64>>>,
    pub(crate) counter: Arc<AtomicU64>,
    /// The background index's thread.
    pub(crate) index: Arc<indexing::IndexControl>,
}

fn content_modified() -> Error {
    Error {
        code: ErrorCode::ContentModified,
        message: "the document changed; the request was cancelled".into(),
        data: None,
    }
}

impl Backend {
    fn new(client: Client, log_file: Option<PathBuf>) -> Backend {
        let file =
            log_file.and_then(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).ok()).map(Mutex::new);
        Backend {
            client,
            state: Arc::new(Mutex::new(State {
                host: AnalysisHost::new(),
                docs: FxHashMap::default(),
                enc: Encoding::Utf16,
                settings: ClientSettings::default(),
                finder: ConfigFinder::default(),
                roots: Vec::new(),
                config_pull: false,
                dynamic_watch: false,
                work_done_progress: false,
                type_hierarchy_dynamic: false,
                context_pins: FxHashMap::default(),
                status: Value::Null,
                semantic: FxHashMap::default(),
                builtin_file: None,
                compiler: compiler::CompilerState::default(),
            })),
            log: Arc::new(Logger { file }),
            diag_generation: Arc::default(),
            counter: Arc::new(AtomicU64::new(0)),
            index: Arc::default(),
        }
    }

    async fn malformed_message(&self, params: Value) {
        let why = params.get("error").and_then(|e| e.as_str()).unwrap_or("malformed message").to_string();
        self.warn(format!("ignored a message: {why}")).await;
    }

    async fn invalid_request(&self, params: Value) -> Result<()> {
        let _ = params;
        Err(Error { code: ErrorCode::InvalidRequest, message: "not a valid JSON-RPC 2.0 request".into(), data: None })
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(g) => g,
            // a panic while holding the lock leaves consistent data (every change is
            // applied in one step); keep serving
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    pub(crate) async fn info(&self, message: String) {
        self.log.line("INFO", &message);
        self.client.log_message(MessageType::INFO, message).await;
    }

    pub(crate) async fn warn(&self, message: String) {
        self.log.line("WARN", &message);
        self.client.log_message(MessageType::WARNING, message).await;
    }

    pub(crate) async fn error(&self, message: String) {
        self.log.line("ERROR", &message);
        self.client.log_message(MessageType::ERROR, message).await;
    }

    /// Runs `f` on a snapshot with the document at `uri`, in a blocking thread. Cancelled
    /// work answers `ContentModified`; a panic is logged and answered with an error.
    pub(crate) async fn with_doc<T, F>(&self, uri: &Uri, what: &'static str, f: F) -> Result<Option<T>>
    where
        T: Send + 'static,
        F: FnOnce(&Snapshot, &DocView) -> Cancellable<Option<T>> + Send + 'static,
    {
        let Some(path) = uri_to_path(uri) else { return Ok(None) };
        let (snap, view) = {
            let st = self.lock();
            let Some(doc) = st.docs.get(&path) else { return Ok(None) };
            let view = DocView { path: path.clone(), text: doc.text.clone(), index: doc.index.clone(), enc: st.enc };
            (st.host.snapshot(), view)
        };
        self.run_blocking(what, move || f(&snap, &view)).await
    }

    pub(crate) async fn run_blocking<T, F>(&self, what: &'static str, f: F) -> Result<Option<T>>
    where
        T: Send + 'static,
        F: FnOnce() -> Cancellable<Option<T>> + Send + 'static,
    {
        match tokio::task::spawn_blocking(f).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_cancelled)) => Err(content_modified()),
            Err(join) => {
                let message = panic_message(join);
                self.error(format!("{what} failed: {message}")).await;
                Err(Error {
                    code: ErrorCode::InternalError,
                    message: format!("msl-lsp: {what} failed: {message}").into(),
                    data: None,
                })
            }
        }
    }

    /// Computes and publishes the diagnostics of open documents, newest edit wins.
    pub(crate) fn schedule_diagnostics(&self, paths: Vec<PathBuf>) {
        for path in paths {
            let (snap, view, uri, version, from_compiler) = {
                let st = self.lock();
                let Some(doc) = st.docs.get(&path) else { continue };
                let view =
                    DocView { path: path.clone(), text: doc.text.clone(), index: doc.index.clone(), enc: st.enc };
                let from_compiler = st.compiler.diags.get(&path).cloned().unwrap_or_default();
                (st.host.snapshot(), view, doc.uri.clone(), doc.version, from_compiler)
            };
            let generation = {
                let mut g = match self.diag_generation.lock() {
                    Ok(g) => g,
                    Err(p) => p.into_inner(),
                };
                let n = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
                g.insert(path.clone(), n);
                n
            };
            let client = self.client.clone();
            let generations = self.diag_generation.clone();
            let log = self.log.clone();
            let backend = self.clone();
            // The snapshot goes to a blocking thread right away. Kept in a task that has
            // not run yet, it could wait behind the next edit, which (on the same worker)
            // blocks until every snapshot is dropped.
            let p2 = path.clone();
            let computing = tokio::task::spawn_blocking(move || {
                let result = snap.diagnostics(&p2).map(|ds| {
                    let mut all = proto::diagnostics(&ds, &view);
                    compiler::merge(&mut all, &from_compiler, &view);
                    all
                });
                drop(snap);
                result
            });
            tokio::spawn(async move {
                let result = computing.await;
                let latest = |generations: &Mutex<FxHashMap<PathBuf, u64>>| {
                    generations.lock().map(|g| g.get(&path).copied()).unwrap_or(None) == Some(generation)
                };
                let diags = match result {
                    Ok(Ok(d)) => d,
                    // Any change of the analysis' inputs cancels every computation under
                    // way, also of other documents (opening six files at once cancels the
                    // first five's). Unless a newer computation of this document has been
                    // scheduled since, start again on the new state: a result dropped
                    // here would never be published.
                    Ok(Err(_cancelled)) => {
                        if latest(&generations) {
                            backend.schedule_diagnostics(vec![path]);
                        }
                        return;
                    }
                    Err(join) => {
                        let message = panic_message(join);
                        log.line("ERROR", &format!("diagnostics of {} failed: {message}", path.display()));
                        client
                            .log_message(
                                MessageType::ERROR,
                                format!("diagnostics of {} failed: {message}", path.display()),
                            )
                            .await;
                        return;
                    }
                };
                if !latest(&generations) {
                    return;
                }
                client.publish_diagnostics(uri, diags, Some(version)).await;
            });
        }
    }

    /// Re-reads settings for every open document and re-checks them.
    pub(crate) async fn refresh_settings(&self) {
        let mut problems = Vec::new();
        let paths: Vec<PathBuf> = {
            let mut st = self.lock();
            let paths: Vec<PathBuf> = st.docs.keys().cloned().collect();
            for p in &paths {
                let (fs, problem) = st.settings.for_file(p, &st.roots, &st.finder);
                if let Some(problem) = problem {
                    problems.push(problem);
                }
                st.host.set_settings(p, fs);
            }
            paths
        };
        for p in problems {
            self.warn(p).await;
        }
        self.schedule_diagnostics(paths);
        // finding the compiler may take a moment (xcrun, `--version`): not in the way
        let b = self.clone();
        tokio::spawn(async move { compiler::settings_changed(&b).await });
        // the workspace's units, with their settings
        let b = self.clone();
        tokio::spawn(async move { indexing::discover(&b).await });
    }

    /// Asks the client for the `msl` section of its settings, when it can answer.
    pub(crate) async fn pull_configuration(&self) {
        let pull = self.lock().config_pull;
        if !pull {
            return;
        }
        let items = vec![ConfigurationItem { scope_uri: None, section: Some("msl".into()) }];
        match self.client.configuration(items).await {
            Ok(values) => {
                if let Some(v) = values.into_iter().next()
                    && !v.is_null()
                {
                    self.apply_settings_json(&v).await;
                }
            }
            Err(e) => self.warn(format!("workspace/configuration failed: {}", e.message)).await,
        }
    }

    pub(crate) async fn apply_settings_json(&self, v: &Value) {
        let mut problems = Vec::new();
        let s = ClientSettings::from_json(v, &mut problems);
        for p in problems {
            self.warn(format!("settings: {p}")).await;
        }
        self.lock().settings = s;
    }

    /// The built-in library document on disk (written once, read-only), for navigation.
    pub(crate) fn builtin_file(&self) -> Option<PathBuf> {
        let mut st = self.lock();
        if let Some(p) = &st.builtin_file
            && p.is_file()
        {
            return Some(p.clone());
        }
        let dir = std::env::temp_dir().join(format!("msl-lsp-{}", env!("CARGO_PKG_VERSION")));
        let path = dir.join("metal_stdlib.metal");
        let text = msl_ide::builtin_library_text();
        let current = std::fs::read_to_string(&path).ok();
        if current.as_deref() != Some(text) {
            std::fs::create_dir_all(&dir).ok()?;
            // replace atomically so a reader never sees half a file
            let tmp = dir.join(format!("metal_stdlib.{}.tmp", std::process::id()));
            std::fs::write(&tmp, text).ok()?;
            if let Ok(meta) = std::fs::metadata(&tmp) {
                let mut perms = meta.permissions();
                perms.set_readonly(true);
                let _ = std::fs::set_permissions(&tmp, perms);
            }
            std::fs::rename(&tmp, &path).ok()?;
        }
        st.builtin_file = Some(path.clone());
        Some(path)
    }
}

fn panic_message(join: tokio::task::JoinError) -> String {
    match join.try_into_panic() {
        Ok(payload) => {
            if let Some(s) = payload.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "panic".to_string()
            }
        }
        Err(e) => e.to_string(),
    }
}

pub(crate) fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| msl_syntax::vfs::normalize(&p))
}

pub(crate) fn uri_of(path: &Path) -> Uri {
    Uri::from_file_path(path).unwrap_or_else(|| {
        // paths that are not absolute (the built-in library's name): a file URI anyway
        Uri::from_file_path(std::env::temp_dir().join(path.file_name().unwrap_or_default()))
            .expect("temp dir is absolute")
    })
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        proto::initialize(self, params).await
    }

    async fn initialized(&self, _: InitializedParams) {
        proto::initialized(self).await;
    }

    async fn shutdown(&self) -> Result<()> {
        SHUTDOWN_REQUESTED.store(true, std::sync::atomic::Ordering::SeqCst);
        self.index.stop();
        self.info("shutting down".into()).await;
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        proto::did_open(self, params).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        proto::did_change(self, params).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        proto::did_save(self, params).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        proto::did_close(self, params).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        if params.settings.is_object() && !params.settings.as_object().is_some_and(|o| o.is_empty()) {
            self.apply_settings_json(&params.settings).await;
        } else {
            self.pull_configuration().await;
        }
        self.refresh_settings().await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        proto::did_change_watched_files(self, params).await;
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        {
            let mut st = self.lock();
            for f in params.event.removed {
                if let Some(p) = uri_to_path(&f.uri) {
                    st.roots.retain(|r| *r != p);
                }
            }
            for f in params.event.added {
                if let Some(p) = uri_to_path(&f.uri) {
                    st.roots.push(p);
                }
            }
        }
        self.refresh_settings().await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        proto::hover(self, params).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        proto::completion(self, params).await
    }

    async fn completion_resolve(&self, item: CompletionItem) -> Result<CompletionItem> {
        proto::completion_resolve(item)
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        proto::signature_help(self, params).await
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        proto::goto(self, params, proto::GotoKind::Definition).await
    }

    async fn goto_declaration(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        proto::goto(self, params, proto::GotoKind::Declaration).await
    }

    async fn goto_type_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        proto::goto(self, params, proto::GotoKind::TypeDefinition).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        proto::references(self, params).await
    }

    async fn document_highlight(&self, params: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
        proto::document_highlight(self, params).await
    }

    async fn prepare_rename(&self, params: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        proto::prepare_rename(self, params).await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        proto::rename(self, params).await
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        proto::document_symbol(self, params).await
    }

    async fn symbol(&self, params: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
        proto::workspace_symbol(self, params).await
    }

    async fn semantic_tokens_full(&self, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        proto::semantic_tokens_full(self, params).await
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        proto::semantic_tokens_delta(self, params).await
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        proto::semantic_tokens_range(self, params).await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        proto::inlay_hint(self, params).await
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        proto::formatting(self, params.text_document.uri, None).await
    }

    async fn range_formatting(&self, params: DocumentRangeFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        proto::formatting(self, params.text_document.uri, Some(params.range)).await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        proto::folding_range(self, params).await
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        proto::document_link(self, params).await
    }

    async fn selection_range(&self, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
        proto::selection_range(self, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        proto::code_action(self, params).await
    }

    async fn prepare_call_hierarchy(
        &self,
        params: CallHierarchyPrepareParams,
    ) -> Result<Option<Vec<CallHierarchyItem>>> {
        proto::prepare_call_hierarchy(self, params).await
    }

    async fn incoming_calls(
        &self,
        params: CallHierarchyIncomingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
        proto::incoming_calls(self, params).await
    }

    async fn outgoing_calls(
        &self,
        params: CallHierarchyOutgoingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
        proto::outgoing_calls(self, params).await
    }

    async fn prepare_type_hierarchy(
        &self,
        params: TypeHierarchyPrepareParams,
    ) -> Result<Option<Vec<TypeHierarchyItem>>> {
        proto::prepare_type_hierarchy(self, params).await
    }

    async fn supertypes(&self, params: TypeHierarchySupertypesParams) -> Result<Option<Vec<TypeHierarchyItem>>> {
        proto::type_relatives(self, params.item, true).await
    }

    async fn subtypes(&self, params: TypeHierarchySubtypesParams) -> Result<Option<Vec<TypeHierarchyItem>>> {
        proto::type_relatives(self, params.item, false).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        proto::execute_command(self, params).await
    }
}
