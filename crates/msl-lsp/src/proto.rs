//! The protocol handlers: LSP requests to `msl-ide` calls and its data back to LSP types.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use msl_ide::{CompletionKind, FileDiagnostic, FoldKind, InlayKind, NavTarget, SymbolKind as IdeSymbolKind, TextSize};
use msl_syntax::Severity;
use ropey::Rope;
use rustc_hash::FxHashMap;
use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;

use crate::convert::{Encoding, LineIndex};
use crate::{Backend, Doc, DocView, uri_of, uri_to_path};

pub(crate) const COMMAND_SYNTAX_TREE: &str = "msl.syntaxTree";
/// `msl.expandMacro` with `{"uri", "position"}`: the macro invocation there and what it
/// expands to, `{"name", "range", "expansion"}`, or `null`.
pub(crate) const COMMAND_EXPAND_MACRO: &str = "msl.expandMacro";
pub(crate) const COMMAND_PANIC: &str = "msl.internal.panic";

pub(crate) async fn initialize(b: &Backend, params: InitializeParams) -> Result<InitializeResult> {
    let offered = params.capabilities.general.as_ref().and_then(|g| g.position_encodings.clone()).unwrap_or_default();
    let enc = if offered.contains(&PositionEncodingKind::UTF8) { Encoding::Utf8 } else { Encoding::Utf16 };
    let config_pull = params.capabilities.workspace.as_ref().and_then(|w| w.configuration).unwrap_or(false);
    let work_done_progress = params.capabilities.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false);
    let type_hierarchy_dynamic = params
        .capabilities
        .text_document
        .as_ref()
        .and_then(|t| t.type_hierarchy.as_ref())
        .and_then(|t| t.dynamic_registration)
        .unwrap_or(false);
    let dynamic_watch = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false);
    let mut roots: Vec<PathBuf> =
        params.workspace_folders.unwrap_or_default().iter().filter_map(|f| uri_to_path(&f.uri)).collect();
    #[allow(deprecated)]
    if roots.is_empty()
        && let Some(p) = params.root_uri.as_ref().and_then(uri_to_path)
    {
        roots.push(p);
    }
    {
        let mut st = b.lock();
        st.enc = enc;
        st.config_pull = config_pull;
        st.dynamic_watch = dynamic_watch;
        st.work_done_progress = work_done_progress;
        st.type_hierarchy_dynamic = type_hierarchy_dynamic;
        st.roots = roots;
    }
    if let Some(opts) = params.initialization_options.as_ref() {
        b.apply_settings_json(opts).await;
    }
    let legend = SemanticTokensLegend {
        token_types: msl_ide::TOKEN_TYPES.iter().map(|t| SemanticTokenType::new(t)).collect(),
        token_modifiers: msl_ide::TOKEN_MODIFIERS.iter().map(|m| SemanticTokenModifier::new(m)).collect(),
    };
    let capabilities = ServerCapabilities {
        position_encoding: Some(if enc == Encoding::Utf8 {
            PositionEncodingKind::UTF8
        } else {
            PositionEncodingKind::UTF16
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions { include_text: Some(false) })),
            ..Default::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            resolve_provider: Some(true),
            trigger_characters: Some([".", ":", "[", ">", "<", "#"].iter().map(|s| s.to_string()).collect()),
            ..Default::default()
        }),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(vec!["(".into(), ",".into()]),
            retrigger_characters: Some(vec![",".into()]),
            ..Default::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        declaration_provider: Some(DeclarationCapability::Simple(true)),
        type_definition_provider: Some(TypeDefinitionProviderCapability::Simple(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        call_hierarchy_provider: Some(CallHierarchyServerCapability::Simple(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend,
                range: Some(true),
                full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                ..Default::default()
            },
        )),
        inlay_hint_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        document_link_provider: Some(DocumentLinkOptions {
            resolve_provider: Some(false),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..Default::default()
        })),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![
                COMMAND_SYNTAX_TREE.into(),
                COMMAND_EXPAND_MACRO.into(),
                crate::compiler::COMMAND_SHOW_AIR.into(),
                crate::context::COMMAND_CANDIDATES.into(),
                crate::context::COMMAND_SET.into(),
            ],
            ..Default::default()
        }),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..Default::default()
    };
    Ok(InitializeResult {
        capabilities,
        server_info: Some(ServerInfo { name: "msl-lsp".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        offset_encoding: None,
    })
}

pub(crate) async fn initialized(b: &Backend) {
    b.info(format!("msl-lsp {} ready", env!("CARGO_PKG_VERSION"))).await;
    let dynamic = b.lock().dynamic_watch;
    if dynamic {
        let watchers = ["**/*.metal", "**/*.h", "**/*.hpp", "**/*.inc", "**/*.metalh", "**/msl.toml"]
            .iter()
            .map(|g| FileSystemWatcher { glob_pattern: GlobPattern::String(g.to_string()), kind: None })
            .collect();
        let options = DidChangeWatchedFilesRegistrationOptions { watchers };
        let registration = Registration {
            id: "msl-watch".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: serde_json::to_value(options).ok(),
        };
        if let Err(e) = b.client.register_capability(vec![registration]).await {
            b.warn(format!("could not watch files: {}", e.message)).await;
        }
    }
    // the protocol's types have no static capability for the type hierarchy: register it
    let type_hierarchy = b.lock().type_hierarchy_dynamic;
    if type_hierarchy {
        let registration = Registration {
            id: "msl-type-hierarchy".into(),
            method: "textDocument/prepareTypeHierarchy".into(),
            register_options: Some(json!({"documentSelector": [{"language": "metal"}, {"pattern": "**/*.metal"}]})),
        };
        if let Err(e) = b.client.register_capability(vec![registration]).await {
            b.warn(format!("could not offer the type hierarchy: {}", e.message)).await;
        }
    }
    b.pull_configuration().await;
    b.refresh_settings().await;
}

pub(crate) async fn did_open(b: &Backend, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    let Some(path) = uri_to_path(&doc.uri) else {
        b.warn(format!("ignoring {}: only file URIs are analysed", doc.uri.as_str())).await;
        return;
    };
    let problem = {
        let mut st = b.lock();
        let (settings, problem) = st.settings.for_file(&path, &st.roots, &st.finder);
        let text: Arc<str> = Arc::from(doc.text.as_str());
        st.host.open(&path, text.clone(), settings);
        st.docs.insert(
            path.clone(),
            Doc {
                uri: doc.uri.clone(),
                version: doc.version,
                rope: Rope::from_str(&doc.text),
                index: Arc::new(LineIndex::new(&text)),
                text,
            },
        );
        problem
    };
    if let Some(p) = problem {
        b.warn(p).await;
    }
    // a file that units of the workspace include is analysed inside one of them
    crate::context::update(b, Some(vec![path.clone()])).await;
    let affected = b.lock().host.units_reading(&path);
    b.schedule_diagnostics(affected);
}

pub(crate) async fn did_change(b: &Backend, params: DidChangeTextDocumentParams) {
    let Some(path) = uri_to_path(&params.text_document.uri) else { return };
    // applied before any await, so that requests that arrive later see the edit
    let version = params.text_document.version;
    let affected = {
        let mut st = b.lock();
        let enc = st.enc;
        let Some(doc) = st.docs.get_mut(&path) else { return };
        let mut edits = Vec::new();
        for change in params.content_changes {
            match change.range {
                Some(range) => {
                    let cs = rope_char(&doc.rope, range.start, enc);
                    let ce = rope_char(&doc.rope, range.end, enc).max(cs);
                    edits.push(crate::compiler::Edit {
                        start: doc.rope.char_to_byte(cs),
                        end: doc.rope.char_to_byte(ce),
                        new_len: change.text.len(),
                    });
                    doc.rope.remove(cs..ce);
                    doc.rope.insert(cs, &change.text);
                }
                None => {
                    edits.push(crate::compiler::Edit {
                        start: 0,
                        end: doc.rope.len_bytes(),
                        new_len: change.text.len(),
                    });
                    doc.rope = Rope::from_str(&change.text);
                }
            }
        }
        doc.version = version;
        let text: Arc<str> = Arc::from(doc.rope.to_string());
        doc.index = Arc::new(LineIndex::new(&text));
        doc.text = text.clone();
        for e in edits {
            st.compiler.edited(&path, e);
        }
        st.host.set_file_text(&path, text);
        st.host.workspace_mut().file_changed(&path);
        st.host.units_reading(&path)
    };
    b.index.edited();
    b.index.notify();
    b.schedule_diagnostics(affected);
    crate::compiler::after_edit(b, &path, version);
}

/// The char index of a position in a rope, clamped to the line and the text.
fn rope_char(rope: &Rope, pos: Position, enc: Encoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_chars();
    }
    let start = rope.line_to_char(line);
    let slice = rope.line(line);
    // the line without its line break
    let mut len = slice.len_chars();
    while len > 0 && matches!(slice.char(len - 1), '\n' | '\r') {
        len -= 1;
    }
    let col = pos.character as usize;
    let within = match enc {
        Encoding::Utf16 => {
            let units = slice.char_to_utf16_cu(len);
            slice.utf16_cu_to_char(col.min(units))
        }
        Encoding::Utf8 => {
            let bytes = slice.char_to_byte(len);
            slice.byte_to_char(col.min(bytes))
        }
    };
    start + within.min(len)
}

pub(crate) async fn did_save(b: &Backend, params: DidSaveTextDocumentParams) {
    let Some(path) = uri_to_path(&params.text_document.uri) else { return };
    // a saved `msl.toml` in the editor changes settings
    if path.file_name().is_some_and(|n| n == "msl.toml") {
        b.lock().finder = msl_ide::config::ConfigFinder::default();
        b.refresh_settings().await;
        return;
    }
    let affected = b.lock().host.units_reading(&path);
    crate::compiler::after_save(b, &affected);
    b.schedule_diagnostics(affected);
}

pub(crate) async fn did_close(b: &Backend, params: DidCloseTextDocumentParams) {
    let Some(path) = uri_to_path(&params.text_document.uri) else { return };
    let affected = {
        let mut st = b.lock();
        st.docs.remove(&path);
        st.semantic.remove(&path);
        st.context_pins.remove(&path);
        st.compiler.closed(&path);
        st.host.close(&path);
        // the file on disk is what other units read now
        match std::fs::read(&path) {
            Ok(bytes) => {
                st.host.set_file_bytes(&path, &bytes);
            }
            Err(_) => {
                st.host.set_file_text(&path, Arc::from(""));
            }
        }
        // the index read the buffer: now the disk
        st.host.workspace_mut().file_changed(&path);
        st.host.units_reading(&path)
    };
    b.index.notify();
    b.client.publish_diagnostics(params.text_document.uri, Vec::new(), None).await;
    b.schedule_diagnostics(affected);
}

pub(crate) async fn did_change_watched_files(b: &Backend, params: DidChangeWatchedFilesParams) {
    let mut settings_changed = false;
    let mut affected = Vec::new();
    for change in params.changes {
        let Some(path) = uri_to_path(&change.uri) else { continue };
        if path.file_name().is_some_and(|n| n == "msl.toml") {
            settings_changed = true;
            continue;
        }
        let mut st = b.lock();
        // the workspace's units: a source created or deleted, a file that units read
        let deleted = change.typ == FileChangeType::DELETED;
        if deleted {
            st.host.workspace_mut().remove_unit(&path);
        } else if change.typ == FileChangeType::CREATED && is_source(&st, &path) {
            let (settings, _) = st.settings.for_file(&path, &st.roots, &st.finder);
            st.host.workspace_mut().add_unit(&path, settings);
        }
        if st.docs.contains_key(&path) {
            // the editor's buffer is the truth for open files
            continue;
        }
        st.host.workspace_mut().file_changed(&path);
        match std::fs::read(&path) {
            Ok(bytes) if !deleted => {
                st.host.set_file_bytes(&path, &bytes);
            }
            _ => {
                st.host.set_file_text(&path, Arc::from(""));
            }
        }
        affected.extend(st.host.units_reading(&path));
    }
    b.index.notify();
    if settings_changed {
        b.lock().finder = msl_ide::config::ConfigFinder::default();
        // refreshing finds the workspace's units again, with the new settings
        b.refresh_settings().await;
    }
    affected.sort();
    affected.dedup();
    b.schedule_diagnostics(affected);
}

/// Whether `path` is a Metal source of the workspace (not a header): in a workspace
/// folder, with the extension `metal` or one `msl.toml` adds.
fn is_source(st: &crate::State, path: &Path) -> bool {
    if !st.roots.iter().any(|r| path.starts_with(r)) {
        return false;
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
    if ext == "metal" {
        return true;
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    matches!(st.finder.find(dir), Ok(Some(cfg)) if cfg.file.extensions.iter().any(|x| x.trim_start_matches('.') == ext))
}

// ---- diagnostics -------------------------------------------------------------------------

pub(crate) fn diagnostics(ds: &[FileDiagnostic], view: &DocView) -> Vec<Diagnostic> {
    // the line index of each other file named by a related location, made once
    let mut indexes: FxHashMap<&Path, LineIndex> = FxHashMap::default();
    ds.iter()
        .map(|d| {
            let mut message = d.message.clone();
            if let Some(h) = &d.hint {
                message.push_str(&format!("\nhelp: {h}"));
            }
            let related: Vec<DiagnosticRelatedInformation> = d
                .related
                .iter()
                .map(|r| {
                    let index = indexes.entry(&r.path).or_insert_with(|| LineIndex::new(&r.text));
                    DiagnosticRelatedInformation {
                        location: Location { uri: uri_of(&r.path), range: index.range(r.range, view.enc) },
                        message: r.message.clone(),
                    }
                })
                .collect();
            Diagnostic {
                range: view.range(d.range),
                severity: Some(match d.severity {
                    Some(Severity::Error) => DiagnosticSeverity::ERROR,
                    Some(Severity::Warning) => DiagnosticSeverity::WARNING,
                    // notes on how the unit was set up (`N0034`: a header found above) are hints
                    Some(Severity::Note) if d.code.starts_with('N') => DiagnosticSeverity::HINT,
                    Some(Severity::Note) => DiagnosticSeverity::INFORMATION,
                    None => DiagnosticSeverity::HINT,
                }),
                code: Some(NumberOrString::String(d.code.to_string())),
                code_description: None,
                source: Some("msl".into()),
                message,
                related_information: (!related.is_empty()).then_some(related),
                tags: d.unnecessary.then(|| vec![DiagnosticTag::UNNECESSARY]),
                data: None,
            }
        })
        .collect()
}

// ---- hover, completion, signatures -------------------------------------------------------

pub(crate) async fn hover(b: &Backend, params: HoverParams) -> Result<Option<Hover>> {
    let pos = params.text_document_position_params.position;
    let uri = params.text_document_position_params.text_document.uri;
    b.with_doc(&uri, "hover", move |snap, view| {
        Ok(snap.hover(&view.path, view.offset(pos))?.map(|h| Hover {
            contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown }),
            range: Some(view.range(h.range)),
        }))
    })
    .await
}

fn completion_kind(k: CompletionKind) -> CompletionItemKind {
    match k {
        CompletionKind::Function => CompletionItemKind::FUNCTION,
        CompletionKind::Method => CompletionItemKind::METHOD,
        CompletionKind::Field => CompletionItemKind::FIELD,
        CompletionKind::Variable => CompletionItemKind::VARIABLE,
        CompletionKind::Parameter => CompletionItemKind::VARIABLE,
        CompletionKind::Constant => CompletionItemKind::CONSTANT,
        CompletionKind::Struct => CompletionItemKind::STRUCT,
        CompletionKind::Enum => CompletionItemKind::ENUM,
        CompletionKind::EnumMember => CompletionItemKind::ENUM_MEMBER,
        CompletionKind::Type => CompletionItemKind::CLASS,
        CompletionKind::TypeParameter => CompletionItemKind::TYPE_PARAMETER,
        CompletionKind::Namespace => CompletionItemKind::MODULE,
        CompletionKind::Macro => CompletionItemKind::CONSTANT,
        CompletionKind::Keyword => CompletionItemKind::KEYWORD,
        CompletionKind::Attribute => CompletionItemKind::PROPERTY,
        CompletionKind::Snippet => CompletionItemKind::SNIPPET,
        CompletionKind::File => CompletionItemKind::FILE,
        CompletionKind::Folder => CompletionItemKind::FOLDER,
    }
}

pub(crate) async fn completion(b: &Backend, params: CompletionParams) -> Result<Option<CompletionResponse>> {
    let pos = params.text_document_position.position;
    let uri = params.text_document_position.text_document.uri;
    b.with_doc(&uri, "completion", move |snap, view| {
        let c = snap.completions(&view.path, view.offset(pos))?;
        let replace = view.range(c.replace);
        let items = c
            .items
            .into_iter()
            .map(|i| {
                let new_text = i.insert_text.clone().unwrap_or_else(|| i.label.clone());
                CompletionItem {
                    label: i.label.clone(),
                    kind: Some(completion_kind(i.kind)),
                    detail: i.detail,
                    documentation: i
                        .documentation
                        .map(|d| Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: d })),
                    sort_text: Some(format!("{}{}", i.sort_group, i.label)),
                    filter_text: Some(i.label.clone()),
                    insert_text_format: Some(if i.is_snippet {
                        InsertTextFormat::SNIPPET
                    } else {
                        InsertTextFormat::PLAIN_TEXT
                    }),
                    text_edit: Some(CompletionTextEdit::Edit(TextEdit { range: replace, new_text })),
                    data: i.resolve_key.map(|k| json!({"key": k})),
                    ..Default::default()
                }
            })
            .collect();
        Ok(Some(CompletionResponse::List(CompletionList { is_incomplete: false, items })))
    })
    .await
}

pub(crate) fn completion_resolve(mut item: CompletionItem) -> Result<CompletionItem> {
    let Some(data) = item.data.clone() else { return Ok(item) };
    let Some(key) = data.get("key").and_then(|k| k.as_str()).map(str::to_string) else { return Ok(item) };
    if let Some(d) = msl_ide::completion_docs(&key) {
        item.documentation = Some(Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: d }));
    }
    Ok(item)
}

pub(crate) async fn signature_help(b: &Backend, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
    let pos = params.text_document_position_params.position;
    let uri = params.text_document_position_params.text_document.uri;
    b.with_doc(&uri, "signature help", move |snap, view| {
        let Some(h) = snap.signature_help(&view.path, view.offset(pos))? else { return Ok(None) };
        let signatures = h
            .signatures
            .into_iter()
            .map(|s| {
                // parameter offsets are in UTF-16 code units of the label
                let params = s
                    .params
                    .iter()
                    .map(|r| {
                        let a = s.label[..usize::from(r.start())].encode_utf16().count() as u32;
                        let e = s.label[..usize::from(r.end())].encode_utf16().count() as u32;
                        ParameterInformation { label: ParameterLabel::LabelOffsets([a, e]), documentation: None }
                    })
                    .collect();
                SignatureInformation {
                    label: s.label,
                    documentation: s
                        .doc
                        .map(|d| Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: d })),
                    parameters: Some(params),
                    active_parameter: None,
                }
            })
            .collect();
        Ok(Some(SignatureHelp {
            signatures,
            active_signature: Some(h.active_signature),
            active_parameter: Some(h.active_parameter),
        }))
    })
    .await
}

// ---- navigation --------------------------------------------------------------------------

pub(crate) enum GotoKind {
    Definition,
    Declaration,
    TypeDefinition,
}

pub(crate) async fn goto(
    b: &Backend,
    params: GotoDefinitionParams,
    kind: GotoKind,
) -> Result<Option<GotoDefinitionResponse>> {
    let pos = params.text_document_position_params.position;
    let uri = params.text_document_position_params.text_document.uri;
    let builtin = b.builtin_file();
    b.with_doc(&uri, "go to definition", move |snap, view| {
        let offset = view.offset(pos);
        let targets = match kind {
            GotoKind::Definition => snap.definition(&view.path, offset)?,
            GotoKind::Declaration => snap.declaration(&view.path, offset)?,
            GotoKind::TypeDefinition => snap.type_definition(&view.path, offset)?,
        };
        // the open document's own index serves its targets
        let mut indexes = FxHashMap::default();
        indexes.insert(view.path.as_path(), view.index.clone());
        let links: Vec<Location> =
            targets.iter().filter_map(|t| location(t, view.enc, builtin.as_deref(), &mut indexes)).collect();
        Ok((!links.is_empty()).then_some(GotoDefinitionResponse::Array(links)))
    })
    .await
}

/// Where a target is, with the line index of its file from `indexes` (made there once per
/// file: overloads of a library function are many targets in one long text).
fn location<'a>(
    t: &'a NavTarget,
    enc: Encoding,
    builtin: Option<&Path>,
    indexes: &mut FxHashMap<&'a Path, Arc<LineIndex>>,
) -> Option<Location> {
    let path = if t.path == Path::new(msl_ide::BUILTIN_LIBRARY_PATH) { builtin?.to_path_buf() } else { t.path.clone() };
    let index = indexes.entry(&t.path).or_insert_with(|| Arc::new(LineIndex::new(&t.text)));
    Some(Location { uri: uri_of(&path), range: index.range(t.focus, enc) })
}

pub(crate) async fn references(b: &Backend, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let pos = params.text_document_position.position;
    let uri = params.text_document_position.text_document.uri;
    let include = params.context.include_declaration;
    b.with_doc(&uri, "references", move |snap, view| {
        let refs = snap.references(&view.path, view.offset(pos), include)?;
        let mut indexes: FxHashMap<PathBuf, Arc<LineIndex>> = FxHashMap::default();
        indexes.insert(view.path.clone(), view.index.clone());
        let mut out = Vec::new();
        for r in refs {
            if !indexes.contains_key(&r.path) {
                let text = snap.file_text(&r.path)?.unwrap_or_else(|| Arc::from(""));
                indexes.insert(r.path.clone(), Arc::new(LineIndex::new(&text)));
            }
            let index = &indexes[&r.path];
            out.push(Location { uri: uri_of(&r.path), range: index.range(r.range, view.enc) });
        }
        Ok(Some(out))
    })
    .await
}

pub(crate) async fn document_highlight(
    b: &Backend,
    params: DocumentHighlightParams,
) -> Result<Option<Vec<DocumentHighlight>>> {
    let pos = params.text_document_position_params.position;
    let uri = params.text_document_position_params.text_document.uri;
    b.with_doc(&uri, "document highlight", move |snap, view| {
        let hs = snap.highlights(&view.path, view.offset(pos))?;
        Ok(Some(
            hs.into_iter()
                .map(|(r, write)| DocumentHighlight {
                    range: view.range(r),
                    kind: Some(if write { DocumentHighlightKind::WRITE } else { DocumentHighlightKind::READ }),
                })
                .collect(),
        ))
    })
    .await
}

pub(crate) async fn prepare_rename(
    b: &Backend,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    let pos = params.position;
    let uri = params.text_document.uri;
    let result = b
        .with_doc(&uri, "prepare rename", move |snap, view| {
            Ok(Some(snap.prepare_rename(&view.path, view.offset(pos))?.map(|(r, name)| (view.range(r), name))))
        })
        .await?;
    match result {
        Some(Ok((range, placeholder))) => Ok(Some(PrepareRenameResponse::RangeWithPlaceholder { range, placeholder })),
        Some(Err(why)) => Err(Error { code: ErrorCode::InvalidRequest, message: why.into(), data: None }),
        None => Ok(None),
    }
}

pub(crate) async fn rename(b: &Backend, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let pos = params.text_document_position.position;
    let uri = params.text_document_position.text_document.uri;
    let new_name = params.new_name;
    let result = b
        .with_doc(&uri, "rename", move |snap, view| {
            let edits = snap.rename(&view.path, view.offset(pos), &new_name)?;
            Ok(Some(edits.map(|files| workspace_edit(&files, view))))
        })
        .await?;
    match result {
        Some(Ok(edit)) => Ok(Some(edit)),
        Some(Err(why)) => Err(Error { code: ErrorCode::InvalidRequest, message: why.into(), data: None }),
        None => Ok(None),
    }
}

fn workspace_edit(files: &[msl_ide::FileEdit], view: &DocView) -> WorkspaceEdit {
    let mut changes = std::collections::HashMap::new();
    for f in files {
        // the open document's text is the snapshot's; others come with their text
        let index = if f.path == view.path { view.index.clone() } else { Arc::new(LineIndex::new(&f.text)) };
        let edits: Vec<TextEdit> =
            f.edits.iter().map(|(r, t)| TextEdit { range: index.range(*r, view.enc), new_text: t.clone() }).collect();
        changes.insert(uri_of(&f.path), edits);
    }
    WorkspaceEdit { changes: Some(changes), document_changes: None, change_annotations: None }
}

// ---- symbols -----------------------------------------------------------------------------

fn symbol_kind(k: IdeSymbolKind) -> SymbolKind {
    match k {
        IdeSymbolKind::Function => SymbolKind::FUNCTION,
        IdeSymbolKind::Method => SymbolKind::METHOD,
        IdeSymbolKind::Struct | IdeSymbolKind::Union => SymbolKind::STRUCT,
        IdeSymbolKind::Class => SymbolKind::CLASS,
        IdeSymbolKind::Enum => SymbolKind::ENUM,
        IdeSymbolKind::EnumMember => SymbolKind::ENUM_MEMBER,
        IdeSymbolKind::Field => SymbolKind::FIELD,
        IdeSymbolKind::Variable => SymbolKind::VARIABLE,
        IdeSymbolKind::Constant => SymbolKind::CONSTANT,
        IdeSymbolKind::Parameter => SymbolKind::VARIABLE,
        IdeSymbolKind::Typedef => SymbolKind::TYPE_PARAMETER,
        IdeSymbolKind::Namespace => SymbolKind::NAMESPACE,
        IdeSymbolKind::Macro => SymbolKind::CONSTANT,
        IdeSymbolKind::TypeParameter => SymbolKind::TYPE_PARAMETER,
    }
}

// ---- call and type hierarchies ----------------------------------------------------------

/// What names a hierarchy item in later requests.
fn hierarchy_data(id: &msl_ide::SymbolId) -> Value {
    json!({"path": id.path, "offset": id.offset})
}

fn hierarchy_id(data: Option<&Value>) -> Result<msl_ide::SymbolId> {
    let d = data.ok_or_else(|| Error::invalid_params("the item carries no `data`: prepare the hierarchy first"))?;
    let path = d.get("path").and_then(|p| p.as_str()).map(PathBuf::from);
    let offset = d.get("offset").and_then(|o| o.as_u64()).and_then(|o| u32::try_from(o).ok());
    match (path, offset) {
        (Some(path), Some(offset)) => Ok(msl_ide::SymbolId { path, offset }),
        _ => Err(Error::invalid_params("the item's `data` is not one this server made")),
    }
}

/// The parts of an item of either hierarchy: uri, range and selection range.
fn item_place(
    it: &msl_ide::HierarchyItem,
    enc: Encoding,
    indexes: &mut FxHashMap<PathBuf, Arc<LineIndex>>,
) -> (Uri, Range, Range) {
    let index = indexes.entry(it.path.clone()).or_insert_with(|| Arc::new(LineIndex::new(&it.text))).clone();
    (uri_of(&it.path), index.range(it.full, enc), index.range(it.focus, enc))
}

fn call_item(
    it: &msl_ide::HierarchyItem,
    enc: Encoding,
    indexes: &mut FxHashMap<PathBuf, Arc<LineIndex>>,
) -> CallHierarchyItem {
    let (uri, range, selection_range) = item_place(it, enc, indexes);
    CallHierarchyItem {
        name: it.name.clone(),
        kind: symbol_kind(it.kind),
        tags: None,
        detail: it.container.clone(),
        uri,
        range,
        selection_range,
        data: Some(hierarchy_data(&it.id)),
    }
}

fn type_item(
    it: &msl_ide::HierarchyItem,
    enc: Encoding,
    indexes: &mut FxHashMap<PathBuf, Arc<LineIndex>>,
) -> TypeHierarchyItem {
    let (uri, range, selection_range) = item_place(it, enc, indexes);
    TypeHierarchyItem {
        name: it.name.clone(),
        kind: symbol_kind(it.kind),
        tags: None,
        detail: it.container.clone(),
        uri,
        range,
        selection_range,
        data: Some(hierarchy_data(&it.id)),
    }
}

pub(crate) async fn prepare_call_hierarchy(
    b: &Backend,
    params: CallHierarchyPrepareParams,
) -> Result<Option<Vec<CallHierarchyItem>>> {
    let pos = params.text_document_position_params.position;
    let uri = params.text_document_position_params.text_document.uri;
    b.with_doc(&uri, "call hierarchy", move |snap, view| {
        let items = snap.prepare_call_hierarchy(&view.path, view.offset(pos))?;
        let mut indexes = FxHashMap::default();
        let out: Vec<CallHierarchyItem> = items.iter().map(|i| call_item(i, view.enc, &mut indexes)).collect();
        Ok((!out.is_empty()).then_some(out))
    })
    .await
}

/// Calls of either direction: the other function's item and the calls' ranges.
async fn calls(
    b: &Backend,
    data: Option<&Value>,
    incoming: bool,
) -> Result<Option<Vec<(CallHierarchyItem, Vec<Range>)>>> {
    let id = hierarchy_id(data)?;
    let (snap, enc) = {
        let st = b.lock();
        (st.host.snapshot(), st.enc)
    };
    b.run_blocking("call hierarchy", move || {
        let calls = if incoming { snap.incoming_calls(&id)? } else { snap.outgoing_calls(&id)? };
        let mut indexes = FxHashMap::default();
        // incoming: the ranges are in the caller's file; outgoing: in the item's own file
        let own = if incoming { None } else { snap.file_text(&id.path)? };
        let out = calls
            .iter()
            .map(|c| {
                let item = call_item(&c.item, enc, &mut indexes);
                let index = match (&own, incoming) {
                    (Some(text), false) => Arc::new(LineIndex::new(text)),
                    _ => indexes.get(&c.item.path).cloned().unwrap_or_else(|| Arc::new(LineIndex::new(&c.item.text))),
                };
                (item, c.ranges.iter().map(|r| index.range(*r, enc)).collect())
            })
            .collect();
        Ok(Some(out))
    })
    .await
}

pub(crate) async fn incoming_calls(
    b: &Backend,
    params: CallHierarchyIncomingCallsParams,
) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
    let found = calls(b, params.item.data.as_ref(), true).await?;
    Ok(found
        .map(|v| v.into_iter().map(|(from, from_ranges)| CallHierarchyIncomingCall { from, from_ranges }).collect()))
}

pub(crate) async fn outgoing_calls(
    b: &Backend,
    params: CallHierarchyOutgoingCallsParams,
) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
    let found = calls(b, params.item.data.as_ref(), false).await?;
    Ok(found.map(|v| v.into_iter().map(|(to, from_ranges)| CallHierarchyOutgoingCall { to, from_ranges }).collect()))
}

pub(crate) async fn prepare_type_hierarchy(
    b: &Backend,
    params: TypeHierarchyPrepareParams,
) -> Result<Option<Vec<TypeHierarchyItem>>> {
    let pos = params.text_document_position_params.position;
    let uri = params.text_document_position_params.text_document.uri;
    b.with_doc(&uri, "type hierarchy", move |snap, view| {
        let items = snap.prepare_type_hierarchy(&view.path, view.offset(pos))?;
        let mut indexes = FxHashMap::default();
        let out: Vec<TypeHierarchyItem> = items.iter().map(|i| type_item(i, view.enc, &mut indexes)).collect();
        Ok((!out.is_empty()).then_some(out))
    })
    .await
}

pub(crate) async fn type_relatives(
    b: &Backend,
    item: TypeHierarchyItem,
    supertypes: bool,
) -> Result<Option<Vec<TypeHierarchyItem>>> {
    let id = hierarchy_id(item.data.as_ref())?;
    let (snap, enc) = {
        let st = b.lock();
        (st.host.snapshot(), st.enc)
    };
    b.run_blocking("type hierarchy", move || {
        let items = if supertypes { snap.supertypes(&id)? } else { snap.subtypes(&id)? };
        let mut indexes = FxHashMap::default();
        Ok(Some(items.iter().map(|i| type_item(i, enc, &mut indexes)).collect()))
    })
    .await
}

#[allow(deprecated)]
fn document_symbol_of(s: msl_ide::Symbol, view: &DocView) -> DocumentSymbol {
    DocumentSymbol {
        name: if s.name.is_empty() { "(anonymous)".into() } else { s.name },
        detail: s.detail,
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        range: view.range(s.full),
        selection_range: view.range(s.focus),
        children: (!s.children.is_empty())
            .then(|| s.children.into_iter().map(|c| document_symbol_of(c, view)).collect()),
    }
}

pub(crate) async fn document_symbol(
    b: &Backend,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    b.with_doc(&params.text_document.uri, "document symbols", move |snap, view| {
        let syms = snap.document_symbols(&view.path)?;
        Ok(Some(DocumentSymbolResponse::Nested(syms.into_iter().map(|s| document_symbol_of(s, view)).collect())))
    })
    .await
}

#[allow(deprecated)]
pub(crate) async fn workspace_symbol(
    b: &Backend,
    params: WorkspaceSymbolParams,
) -> Result<Option<WorkspaceSymbolResponse>> {
    let (snap, enc) = {
        let st = b.lock();
        (st.host.snapshot(), st.enc)
    };
    let query = params.query;
    b.run_blocking("workspace symbols", move || {
        let syms = snap.workspace_symbols(&query)?;
        // one line index per file, not per symbol
        let mut indexes: FxHashMap<PathBuf, LineIndex> = FxHashMap::default();
        let out = syms
            .into_iter()
            .map(|s| {
                let index = indexes.entry(s.path.clone()).or_insert_with(|| LineIndex::new(&s.text));
                SymbolInformation {
                    name: s.name,
                    kind: symbol_kind(s.kind),
                    tags: None,
                    deprecated: None,
                    location: Location { uri: uri_of(&s.path), range: index.range(s.focus, enc) },
                    container_name: s.container,
                }
            })
            .collect();
        Ok(Some(WorkspaceSymbolResponse::Flat(out)))
    })
    .await
}

// ---- semantic tokens ---------------------------------------------------------------------

fn encode_tokens(tokens: &[msl_ide::SemanticToken], view: &DocView) -> Vec<u32> {
    let mut data = Vec::with_capacity(tokens.len() * 5);
    let (mut prev_line, mut prev_col) = (0u32, 0u32);
    for t in tokens {
        let start = view.position(t.range.start());
        let end = view.position(t.range.end());
        if end.line != start.line {
            continue;
        }
        let len = end.character - start.character;
        let delta_line = start.line - prev_line;
        let delta_col = if delta_line == 0 { start.character - prev_col } else { start.character };
        data.extend_from_slice(&[delta_line, delta_col, len, t.ty as u32, t.modifiers]);
        prev_line = start.line;
        prev_col = start.character;
    }
    data
}

fn to_semantic_tokens(data: &[u32]) -> Vec<SemanticToken> {
    data.chunks_exact(5)
        .map(|c| SemanticToken {
            delta_line: c[0],
            delta_start: c[1],
            length: c[2],
            token_type: c[3],
            token_modifiers_bitset: c[4],
        })
        .collect()
}

/// The encoded semantic tokens of a whole document, with its path.
async fn document_tokens(b: &Backend, uri: &Uri) -> Result<Option<(PathBuf, Vec<u32>)>> {
    b.with_doc(uri, "semantic tokens", move |snap, view| {
        let tokens = snap.semantic_tokens(&view.path, None)?;
        Ok(Some((view.path.clone(), encode_tokens(&tokens, view))))
    })
    .await
}

pub(crate) async fn semantic_tokens_full(
    b: &Backend,
    params: SemanticTokensParams,
) -> Result<Option<SemanticTokensResult>> {
    let Some((path, data)) = document_tokens(b, &params.text_document.uri).await? else { return Ok(None) };
    let id = b.counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_string();
    let tokens = to_semantic_tokens(&data);
    b.lock().semantic.insert(path, (id.clone(), data));
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens { result_id: Some(id), data: tokens })))
}

pub(crate) async fn semantic_tokens_delta(
    b: &Backend,
    params: SemanticTokensDeltaParams,
) -> Result<Option<SemanticTokensFullDeltaResult>> {
    let previous_id = params.previous_result_id;
    let Some((path, data)) = document_tokens(b, &params.text_document.uri).await? else { return Ok(None) };
    let id = b.counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_string();
    let previous = b.lock().semantic.insert(path, (id.clone(), data.clone()));
    match previous {
        Some((prev_id, prev)) if prev_id == previous_id => {
            // one edit: the changed middle between the common prefix and suffix (whole tokens)
            let mut start = 0;
            while start < prev.len() && start < data.len() && prev[start] == data[start] {
                start += 1;
            }
            start -= start % 5;
            let mut end = 0;
            while end < prev.len() - start
                && end < data.len() - start
                && prev[prev.len() - 1 - end] == data[data.len() - 1 - end]
            {
                end += 1;
            }
            end -= end % 5;
            let edit = SemanticTokensEdit {
                start: start as u32,
                delete_count: (prev.len() - start - end) as u32,
                data: Some(to_semantic_tokens(&data[start..data.len() - end])),
            };
            let edits = if edit.delete_count == 0 && edit.data.as_ref().is_some_and(|d| d.is_empty()) {
                Vec::new()
            } else {
                vec![edit]
            };
            Ok(Some(SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta { result_id: Some(id), edits })))
        }
        _ => Ok(Some(SemanticTokensFullDeltaResult::Tokens(SemanticTokens {
            result_id: Some(id),
            data: to_semantic_tokens(&data),
        }))),
    }
}

pub(crate) async fn semantic_tokens_range(
    b: &Backend,
    params: SemanticTokensRangeParams,
) -> Result<Option<SemanticTokensRangeResult>> {
    let range = params.range;
    b.with_doc(&params.text_document.uri, "semantic tokens", move |snap, view| {
        let r = view.index.text_range(range, view.enc);
        let tokens = snap.semantic_tokens(&view.path, Some(r))?;
        let data = encode_tokens(&tokens, view);
        Ok(Some(SemanticTokensRangeResult::Tokens(SemanticTokens { result_id: None, data: to_semantic_tokens(&data) })))
    })
    .await
}

// ---- hints, folding, selection, actions --------------------------------------------------

pub(crate) async fn inlay_hint(b: &Backend, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    let range = params.range;
    let (types, names) = {
        let st = b.lock();
        (st.settings.inlay_auto_types, st.settings.inlay_parameter_names)
    };
    b.with_doc(&params.text_document.uri, "inlay hints", move |snap, view| {
        let r = view.index.text_range(range, view.enc);
        let hints = snap.inlay_hints(&view.path, r)?;
        Ok(Some(
            hints
                .into_iter()
                .filter(|h| match h.kind {
                    InlayKind::Type => types,
                    InlayKind::Parameter => names,
                })
                .map(|h| InlayHint {
                    position: view.position(h.offset),
                    label: InlayHintLabel::String(h.label),
                    kind: Some(match h.kind {
                        InlayKind::Type => InlayHintKind::TYPE,
                        InlayKind::Parameter => InlayHintKind::PARAMETER,
                    }),
                    text_edits: None,
                    tooltip: None,
                    padding_left: Some(false),
                    padding_right: Some(h.kind == InlayKind::Parameter),
                    data: None,
                })
                .collect(),
        ))
    })
    .await
}

pub(crate) async fn folding_range(b: &Backend, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
    b.with_doc(&params.text_document.uri, "folding ranges", move |snap, view| {
        let folds = snap.folding_ranges(&view.path)?;
        Ok(Some(
            folds
                .into_iter()
                .filter_map(|f| {
                    let r = view.range(f.range);
                    (r.end.line > r.start.line).then_some(FoldingRange {
                        start_line: r.start.line,
                        start_character: None,
                        end_line: r.end.line,
                        end_character: None,
                        kind: Some(match f.kind {
                            FoldKind::Comment => FoldingRangeKind::Comment,
                            FoldKind::Imports => FoldingRangeKind::Imports,
                            FoldKind::Region | FoldKind::Preprocessor => FoldingRangeKind::Region,
                        }),
                        collapsed_text: None,
                    })
                })
                .collect(),
        ))
    })
    .await
}

/// `textDocument/formatting` and `rangeFormatting`: the whitespace edits that format the
/// document (or the part of it in `range`). A file the formatter leaves as it is gets no
/// edits, and a message says why.
pub(crate) async fn formatting(b: &Backend, uri: Uri, range: Option<Range>) -> Result<Option<Vec<TextEdit>>> {
    let outcome = b
        .with_doc(&uri, "formatting", move |snap, view| {
            let within = range.map(|r| view.index.text_range(r, view.enc));
            Ok(Some(match snap.format(&view.path, within)? {
                Ok(edits) => Ok(edits
                    .into_iter()
                    .map(|(r, new_text)| TextEdit { range: view.range(r), new_text })
                    .collect::<Vec<_>>()),
                Err(why) => Err(why),
            }))
        })
        .await?;
    match outcome {
        Some(Ok(edits)) => Ok(Some(edits)),
        Some(Err(why)) => {
            b.warn(format!("not formatted: {why}")).await;
            Ok(None)
        }
        None => Ok(None),
    }
}

pub(crate) async fn document_link(b: &Backend, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
    b.with_doc(&params.text_document.uri, "document links", move |snap, view| {
        let links = snap.document_links(&view.path)?;
        Ok(Some(
            links
                .into_iter()
                .map(|l| DocumentLink {
                    range: view.range(l.range),
                    tooltip: Some(l.target.display().to_string()),
                    target: Some(uri_of(&l.target)),
                    data: None,
                })
                .collect(),
        ))
    })
    .await
}

pub(crate) async fn selection_range(b: &Backend, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
    let positions = params.positions;
    b.with_doc(&params.text_document.uri, "selection ranges", move |snap, view| {
        let offsets: Vec<TextSize> = positions.iter().map(|p| view.offset(*p)).collect();
        let chains = snap.selection_ranges(&view.path, &offsets)?;
        Ok(Some(
            chains
                .into_iter()
                .map(|chain| {
                    let mut parent: Option<Box<SelectionRange>> = None;
                    for r in chain.iter().rev() {
                        parent = Some(Box::new(SelectionRange { range: view.range(*r), parent }));
                    }
                    parent.map(|b| *b).unwrap_or(SelectionRange { range: Range::default(), parent: None })
                })
                .collect(),
        ))
    })
    .await
}

pub(crate) async fn code_action(b: &Backend, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    let range = params.range;
    let client_diags = params.context.diagnostics;
    let uri = params.text_document.uri.clone();
    let from_compiler = uri_to_path(&uri).map(|p| crate::compiler::stored_for(b, &p)).unwrap_or_default();
    b.with_doc(&params.text_document.uri, "code actions", move |snap, view| {
        let r = view.index.text_range(range, view.enc);
        let actions = snap.code_actions(&view.path, r)?;
        let compiler_fixes = crate::compiler::fix_actions(&from_compiler, r, view, &uri, &client_diags);
        Ok(Some(
            actions
                .into_iter()
                .map(|a| {
                    let diagnostics = a.fixes.as_ref().map(|(code, range, _)| {
                        let lsp_range = view.range(*range);
                        client_diags
                            .iter()
                            .filter(|d| {
                                d.range == lsp_range && d.code == Some(NumberOrString::String(code.to_string()))
                            })
                            .cloned()
                            .collect::<Vec<_>>()
                    });
                    CodeActionOrCommand::CodeAction(CodeAction {
                        title: a.title,
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: diagnostics.filter(|d| !d.is_empty()),
                        edit: Some(workspace_edit(&a.edits, view)),
                        command: None,
                        is_preferred: Some(a.preferred),
                        disabled: None,
                        data: None,
                    })
                })
                .chain(compiler_fixes)
                .collect(),
        ))
    })
    .await
}

/// A command's document: `{"uri": ...}` or the URI itself as the first argument.
fn uri_argument(params: &ExecuteCommandParams) -> Result<Uri> {
    params
        .arguments
        .first()
        .and_then(|a| a.get("uri").or(Some(a)))
        .and_then(|u| u.as_str())
        .and_then(|u| u.parse::<Uri>().ok())
        .ok_or_else(|| Error::invalid_params("expected the document's URI as the first argument"))
}

pub(crate) async fn execute_command(b: &Backend, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
    match params.command.as_str() {
        COMMAND_SYNTAX_TREE => {
            let uri = uri_argument(&params)?;
            let tree = b.with_doc(&uri, "syntax tree", move |snap, view| snap.syntax_tree(&view.path)).await?;
            Ok(tree.map(Value::String))
        }
        crate::compiler::COMMAND_SHOW_AIR => {
            let uri = uri_argument(&params)?;
            crate::compiler::show_air(b, &uri).await
        }
        COMMAND_EXPAND_MACRO => {
            let uri = uri_argument(&params)?;
            let position: Position = params
                .arguments
                .first()
                .and_then(|a| a.get("position"))
                .and_then(|p| serde_json::from_value(p.clone()).ok())
                .ok_or_else(|| Error::invalid_params("expected the position as `position` in the first argument"))?;
            b.with_doc(&uri, "macro expansion", move |snap, view| {
                let found = snap.expand_macro(&view.path, view.offset(position))?;
                Ok(found.map(|m| {
                    json!({
                        "name": m.name,
                        "range": view.range(m.range),
                        "expansion": m.expansion,
                    })
                }))
            })
            .await
        }
        crate::context::COMMAND_CANDIDATES => {
            let uri = uri_argument(&params)?;
            crate::context::candidates(b, &uri).await
        }
        crate::context::COMMAND_SET => {
            let uri = uri_argument(&params)?;
            let context = params.arguments.first().and_then(|a| a.get("context")).cloned().unwrap_or(Value::Null);
            crate::context::set(b, &uri, &context).await
        }
        COMMAND_PANIC => {
            b.run_blocking("msl.internal.panic", || -> msl_ide::Cancellable<Option<Value>> {
                panic!("deliberate panic requested through {COMMAND_PANIC}")
            })
            .await
        }
        other => Err(Error::invalid_params(format!("unknown command `{other}`"))),
    }
}
