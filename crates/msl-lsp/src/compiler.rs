//! Apple's compiler beside our own checks: found once per setting, run in the background
//! after a save (or when typing pauses, if the user asks), its diagnostics kept aligned
//! with later edits and published with ours (source `metal`), and `msl.showAir`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use msl_compiler::{Discover, Discovery, Job, LineCol, RunError};
use msl_ide::{TextRange, TextSize};
use msl_syntax::Platform;
use rustc_hash::FxHashMap;
use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::*;

use crate::convert::{Encoding, LineIndex};
use crate::settings::{CompilerMode, CompilerSettings};
use crate::{Backend, DocView, uri_of, uri_to_path};

pub(crate) const COMMAND_SHOW_AIR: &str = "msl.showAir";
/// How long typing must pause before an `onIdle` run.
const IDLE: Duration = Duration::from_millis(1200);
/// Extensions of files that are included rather than compiled on their own.
const HEADER_EXTENSIONS: [&str; 8] = ["h", "hh", "hpp", "hxx", "inc", "inl", "ipp", "metalh"];

/// `msl/status`: what the server works with, for a status bar.
pub(crate) enum StatusNotification {}

impl Notification for StatusNotification {
    type Params = Value;
    const METHOD: &'static str = "msl/status";
}

/// A diagnostic of the compiler, in the current text of the file it was published for.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    pub range: TextRange,
    pub severity: DiagnosticSeverity,
    pub message: String,
    pub code: Option<String>,
    pub related: Vec<DiagnosticRelatedInformation>,
    pub fixits: Vec<(TextRange, String)>,
}

/// A change of a file's text in bytes: `start..end` became `new_len` bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edit {
    pub start: usize,
    pub end: usize,
    pub new_len: usize,
}

struct Running {
    id: u64,
    cancel: Arc<AtomicBool>,
    /// Edits made since the run started (its results are moved through them).
    edits: Vec<Edit>,
}

#[derive(Default)]
pub(crate) struct CompilerState {
    /// Discovery by (explicit path, platform).
    found: FxHashMap<(Option<PathBuf>, Platform), Discovery>,
    /// The diagnostics of each file's last finished run.
    pub diags: FxHashMap<PathBuf, Vec<Stored>>,
    runs: FxHashMap<PathBuf, Running>,
    next_id: u64,
    /// The settings the status was last sent for.
    announced: Option<CompilerSettings>,
    told_toolchain: bool,
}

impl CompilerState {
    /// Moves stored diagnostics through an edit; those the edit touches are dropped.
    pub fn edited(&mut self, path: &Path, e: Edit) {
        if let Some(ds) = self.diags.get_mut(path) {
            ds.retain_mut(|d| match shift(d.range, e) {
                Some(r) => {
                    d.range = r;
                    d.fixits.retain_mut(|(fr, _)| match shift(*fr, e) {
                        Some(n) => {
                            *fr = n;
                            true
                        }
                        None => false,
                    });
                    true
                }
                None => false,
            });
        }
        if let Some(r) = self.runs.get_mut(path) {
            r.edits.push(e);
        }
    }

    /// Stops the file's run, if one is going.
    pub fn cancel(&mut self, path: &Path) {
        if let Some(r) = self.runs.remove(path) {
            r.cancel.store(true, Ordering::Relaxed);
        }
    }

    pub fn closed(&mut self, path: &Path) {
        self.cancel(path);
        self.diags.remove(path);
    }
}

/// A range after an edit: unchanged before it, moved after it, gone if it overlaps.
fn shift(r: TextRange, e: Edit) -> Option<TextRange> {
    let (s, t) = (usize::from(r.start()), usize::from(r.end()));
    if t <= e.start {
        Some(r)
    } else if s >= e.end {
        let moved = |x: usize| TextSize::from((x - e.end + e.start + e.new_len) as u32);
        Some(TextRange::new(moved(s), moved(t)))
    } else {
        None
    }
}

pub(crate) fn is_main_file(path: &Path) -> bool {
    !path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| HEADER_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Discovery for a setting and platform, done once; `true` when it was done just now.
fn discovery(b: &Backend, setting: Option<PathBuf>, platform: Platform) -> (Discovery, bool) {
    let key = (setting.clone(), platform);
    if let Some(d) = b.lock().compiler.found.get(&key) {
        return (d.clone(), false);
    }
    let d = Discover::from_env(setting, platform).run();
    b.lock().compiler.found.insert(key, d.clone());
    (d, true)
}

/// Says what discovery found, once per setting and platform.
async fn announce(b: &Backend, d: &Discovery) {
    match &d.compiler {
        Some(c) => b.info(format!("Metal compiler: {}", c.describe())).await,
        None => {
            b.info(format!(
                "no Apple Metal compiler found (looked at: {}); msl's own checks run as usual. To use one, set \
                 the `compiler.path` setting (`msl.compiler.path` in VS Code) or $MSL_COMPILER",
                d.tried.join("; ")
            ))
            .await
        }
    }
    if let Some(p) = &d.problem {
        b.warn(format!("Metal compiler: {p}")).await;
    }
}

/// Sends `msl/status` and, when the compiler settings changed, finds the compiler for
/// them. Called after `initialized` and after every settings change.
pub(crate) async fn settings_changed(b: &Backend) {
    let (cs, std, platform, changed) = {
        let mut st = b.lock();
        let cs = st.settings.compiler.clone();
        let changed = st.compiler.announced.as_ref() != Some(&cs);
        st.compiler.announced = Some(cs.clone());
        let version = st.settings.std.map(|(v, _)| v).unwrap_or(msl_syntax::MetalVersion::LATEST);
        let platform = st.settings.platform.or(st.settings.std.and_then(|(_, p)| p)).unwrap_or_default();
        (cs, version, platform, changed)
    };
    if changed && cs.mode == CompilerMode::Off {
        // forget what it said
        let paths: Vec<PathBuf> = {
            let mut st = b.lock();
            let paths = st.compiler.diags.keys().cloned().collect();
            st.compiler.diags.clear();
            let running: Vec<PathBuf> = st.compiler.runs.keys().cloned().collect();
            for p in running {
                st.compiler.cancel(&p);
            }
            paths
        };
        b.schedule_diagnostics(paths);
    }
    let found = if cs.mode == CompilerMode::Off {
        None
    } else {
        let b2 = b.clone();
        let setting = cs.path.clone();
        match tokio::task::spawn_blocking(move || discovery(&b2, setting, platform)).await {
            Ok((d, fresh)) => {
                if fresh {
                    announce(b, &d).await;
                }
                d.compiler
            }
            Err(_) => None,
        }
    };
    let mode = match cs.mode {
        CompilerMode::OnSave => "onSave",
        CompilerMode::OnIdle => "onIdle",
        CompilerMode::Off => "off",
    };
    let status = json!({
        "std": format!("metal{std}"),
        "version": std.to_string(),
        "platform": platform.name(),
        "compiler": found.map(|c| json!({"path": c.path.display().to_string(), "version": c.version})),
        "compilerMode": mode,
    });
    b.lock().status = status;
    crate::context::send_status(b).await;
}

/// After a save: runs the compiler on the open files that read `paths`.
pub(crate) fn after_save(b: &Backend, paths: &[PathBuf]) {
    for p in paths {
        start(b, p.clone());
    }
}

/// After an edit of `path`: in `onIdle` mode, stops its run and starts another once
/// typing pauses.
pub(crate) fn after_edit(b: &Backend, path: &Path, version: i32) {
    {
        let mut st = b.lock();
        if st.settings.compiler.mode != CompilerMode::OnIdle {
            return;
        }
        st.compiler.cancel(path);
    }
    let b = b.clone();
    let path = path.to_path_buf();
    tokio::spawn(async move {
        tokio::time::sleep(IDLE).await;
        let current = b.lock().docs.get(&path).map(|d| d.version);
        if current == Some(version) {
            start(&b, path);
        }
    });
}

/// What a compiler job on `path` needs besides its text: the file's settings (the same
/// as our checker's) and the other open buffers.
fn job_inputs(st: &crate::State, path: &Path) -> (msl_syntax::PpConfig, Vec<(PathBuf, String)>) {
    let (fs, _) = st.settings.for_file(path, &st.roots, &st.finder);
    let unsaved =
        st.docs.iter().filter(|(p, _)| p.as_path() != path).map(|(p, d)| (p.clone(), d.text.to_string())).collect();
    (fs.config, unsaved)
}

/// Starts a run on an open file (replacing the one going).
pub(crate) fn start(b: &Backend, path: PathBuf) {
    if !is_main_file(&path) {
        return;
    }
    let prepared = {
        let mut st = b.lock();
        let cs = st.settings.compiler.clone();
        if cs.mode == CompilerMode::Off {
            return;
        }
        let Some(doc) = st.docs.get(&path) else { return };
        let text = doc.text.clone();
        let (config, unsaved) = job_inputs(&st, &path);
        st.compiler.cancel(&path);
        st.compiler.next_id += 1;
        let id = st.compiler.next_id;
        let cancel = Arc::new(AtomicBool::new(false));
        st.compiler.runs.insert(path.clone(), Running { id, cancel: cancel.clone(), edits: Vec::new() });
        (cs, text, config, unsaved, id, cancel, st.enc)
    };
    let (cs, text, config, unsaved, id, cancel, enc) = prepared;
    let b = b.clone();
    tokio::spawn(async move {
        let b2 = b.clone();
        let p2 = path.clone();
        let text2 = text.clone();
        let platform = config.platform;
        let outcome = tokio::task::spawn_blocking(move || {
            let (d, fresh) = discovery(&b2, cs.path.clone(), platform);
            let Some(compiler) = d.compiler.clone() else { return (d, fresh, None) };
            let job = Job {
                main: &p2,
                main_text: Some(&text2),
                unsaved: &unsaved,
                config: &config,
                timeout: cs.timeout,
                cancel: Some(&cancel),
                temp_dir: None,
            };
            let r = msl_compiler::check(&compiler, &job);
            (d, fresh, Some((compiler, r)))
        })
        .await;
        let (d, fresh, ran) = match outcome {
            Ok(x) => x,
            Err(e) => {
                b.error(format!("the Metal compiler run on {} failed: {e}", path.display())).await;
                return;
            }
        };
        if fresh {
            announce(&b, &d).await;
        }
        let Some((compiler, result)) = ran else {
            b.lock().compiler.runs.remove(&path);
            return;
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match result {
            Ok(checked) => {
                let stored = {
                    let mut st = b.lock();
                    let current = st.compiler.runs.get(&path).map(|r| r.id);
                    if current != Some(id) {
                        return; // a newer run replaced this one
                    }
                    let Some(run) = st.compiler.runs.remove(&path) else { return };
                    let stored = convert(&checked.diagnostics, &path, &text, enc, &st.docs);
                    st.compiler.diags.insert(path.clone(), stored);
                    for e in run.edits {
                        st.compiler.edited(&path, e);
                    }
                    st.compiler.diags.get(&path).map_or(0, Vec::len)
                };
                let errors = checked.diagnostics.iter().filter(|d| d.severity == msl_compiler::Severity::Error).count();
                b.info(format!(
                    "metal checked {name} in {:.2} s: {errors} error(s), {} other message(s)",
                    checked.elapsed.as_secs_f64(),
                    stored.saturating_sub(errors)
                ))
                .await;
                b.schedule_diagnostics(vec![path]);
            }
            Err(RunError::Cancelled) => {}
            Err(e) => {
                {
                    let mut st = b.lock();
                    if st.compiler.runs.get(&path).map(|r| r.id) == Some(id) {
                        st.compiler.runs.remove(&path);
                    }
                }
                let message = format!("{} on {name}: {e}", compiler.path.display());
                if let RunError::MissingToolchain { .. } = e {
                    let first = !std::mem::replace(&mut b.lock().compiler.told_toolchain, true);
                    if first {
                        b.client.show_message(MessageType::WARNING, e.to_string()).await;
                    }
                }
                b.warn(message).await;
            }
        }
    });
}

/// Text and line index of files other than the one being converted, read once each.
struct Texts<'a> {
    docs: &'a FxHashMap<PathBuf, crate::Doc>,
    cache: FxHashMap<PathBuf, Option<(Arc<str>, LineIndex)>>,
}

impl Texts<'_> {
    fn position(&mut self, path: &Path, at: LineCol, enc: Encoding) -> Position {
        let fallback = Position::new(at.line.saturating_sub(1), at.column.saturating_sub(1));
        let entry = self.cache.entry(path.to_path_buf()).or_insert_with(|| {
            let text: Arc<str> = match self.docs.get(path) {
                Some(d) => d.text.clone(),
                None => Arc::from(std::fs::read_to_string(path).ok()?.as_str()),
            };
            let index = LineIndex::new(&text);
            Some((text, index))
        });
        match entry {
            Some((text, index)) => match at.offset_in(text) {
                Some(o) => index.position(TextSize::from(o as u32), enc),
                None => fallback,
            },
            None => fallback,
        }
    }

    fn location(
        &mut self,
        path: &Path,
        at: Option<LineCol>,
        line: u32,
        end: Option<LineCol>,
        enc: Encoding,
    ) -> Location {
        let start_at = at.unwrap_or(LineCol::new(line, 1));
        let start = self.position(path, start_at, enc);
        let end = end.map(|e| self.position(path, e, enc)).unwrap_or(start);
        Location { uri: uri_of(path), range: Range { start, end } }
    }
}

/// The range a compiler diagnostic covers in `text`: its range, else the word at its
/// position, else its line.
fn range_in(text: &str, at: Option<LineCol>, line: u32, range: Option<&msl_compiler::Span>) -> TextRange {
    let to = |o: usize| TextSize::from(o as u32);
    if let Some(r) = range
        && let (Some(s), Some(e)) = (r.start.offset_in(text), r.end.offset_in(text))
        && s <= e
    {
        return TextRange::new(to(s), to(e));
    }
    if let Some(at) = at
        && let Some(s) = at.offset_in(text)
    {
        let word = text[s..].bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
        let len = if word > 0 {
            word
        } else {
            text[s..].chars().next().map_or(0, |c| if c == '\n' { 0 } else { c.len_utf8() })
        };
        return TextRange::new(to(s), to(s + len));
    }
    line_range(text, line)
}

fn line_range(text: &str, line: u32) -> TextRange {
    let to = |o: usize| TextSize::from(o as u32);
    match LineCol::new(line, 1).offset_in(text) {
        Some(s) => {
            let e = text[s..].find('\n').map_or(text.len(), |i| s + i);
            let e = if e > s && text.as_bytes()[e - 1] == b'\r' { e - 1 } else { e };
            // without leading blanks
            let lead = text[s..e].bytes().take_while(|b| *b == b' ' || *b == b'\t').count();
            TextRange::new(to(s + lead), to(e))
        }
        None => TextRange::empty(to(0)),
    }
}

/// The compiler's diagnostics as they will be published on `main`.
pub(crate) fn convert(
    diags: &[msl_compiler::Diagnostic],
    main: &Path,
    text: &str,
    enc: Encoding,
    docs: &FxHashMap<PathBuf, crate::Doc>,
) -> Vec<Stored> {
    let mut texts = Texts { docs, cache: FxHashMap::default() };
    let mut out = Vec::new();
    for d in diags {
        let severity = match d.severity {
            msl_compiler::Severity::Error => DiagnosticSeverity::ERROR,
            msl_compiler::Severity::Warning => DiagnosticSeverity::WARNING,
            _ => DiagnosticSeverity::INFORMATION,
        };
        let mut related: Vec<DiagnosticRelatedInformation> = Vec::new();
        let (range, message) = if d.path == *main {
            (range_in(text, d.at, d.line, d.range.as_ref()), d.message.clone())
        } else {
            // in a header: at the line of the main file that includes it
            related.push(DiagnosticRelatedInformation {
                location: texts.location(&d.path, d.at, d.line, d.range.as_ref().map(|r| r.end), enc),
                message: d.message.clone(),
            });
            let name = d.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let place = match d.at {
                Some(at) => format!("{name}:{}:{}", at.line, at.column),
                None => format!("{name}:{}", d.line),
            };
            let range = match d.include_stack.iter().rev().find(|(p, _)| p == main) {
                Some((_, line)) => line_range(text, *line),
                None => TextRange::empty(TextSize::from(0)),
            };
            (range, format!("in {place}: {}", d.message))
        };
        for n in &d.notes {
            related.push(DiagnosticRelatedInformation {
                location: texts.location(&n.path, n.at, n.line, n.range.as_ref().map(|r| r.end), enc),
                message: n.message.clone(),
            });
        }
        let fixits = d
            .fixits
            .iter()
            .filter(|f| f.span.path == *main)
            .filter_map(|f| {
                let s = f.span.start.offset_in(text)?;
                let e = f.span.end.offset_in(text)?;
                (s <= e).then(|| (TextRange::new(TextSize::from(s as u32), TextSize::from(e as u32)), f.text.clone()))
            })
            .collect();
        out.push(Stored { range, severity, message, code: d.option.clone(), related, fixits });
    }
    out
}

/// Adds the compiler's diagnostics to ours, leaving out those that repeat one of ours.
pub(crate) fn merge(ours: &mut Vec<Diagnostic>, theirs: &[Stored], view: &DocView) {
    let mut add = Vec::new();
    for t in theirs {
        let range = view.range(t.range);
        let repeated = ours.iter().any(|o| {
            o.source.as_deref() == Some("msl")
                && o.severity == Some(t.severity)
                && o.range.start.line == range.start.line
                && o.range.start <= range.end.max(range.start)
                && range.start <= o.range.end.max(o.range.start)
                && msl_compiler::same_problem(&o.message, &t.message)
        });
        if repeated {
            continue;
        }
        add.push(Diagnostic {
            range,
            severity: Some(t.severity),
            code: t.code.clone().map(NumberOrString::String),
            code_description: None,
            source: Some("metal".into()),
            message: t.message.clone(),
            related_information: (!t.related.is_empty()).then(|| t.related.clone()),
            tags: None,
            data: None,
        });
    }
    ours.extend(add);
}

/// Quick fixes from the compiler's fix-its that touch `range`.
pub(crate) fn fix_actions(
    stored: &[Stored],
    range: TextRange,
    view: &DocView,
    uri: &Uri,
    client_diags: &[Diagnostic],
) -> Vec<CodeActionOrCommand> {
    let mut out = Vec::new();
    for d in stored {
        if d.fixits.is_empty() || d.range.end() < range.start() || range.end() < d.range.start() {
            continue;
        }
        let lsp_range = view.range(d.range);
        let edits: Vec<TextEdit> =
            d.fixits.iter().map(|(r, t)| TextEdit { range: view.range(*r), new_text: t.clone() }).collect();
        let what = match d.fixits.as_slice() {
            [(r, t)] if r.is_empty() => format!("insert `{t}`"),
            [(r, t)] if t.is_empty() => format!("remove `{}`", &view.text[*r]),
            [(_, t)] => format!("replace with `{t}`"),
            _ => "apply its fixes".to_string(),
        };
        let diagnostics: Vec<Diagnostic> = client_diags
            .iter()
            .filter(|c| c.source.as_deref() == Some("metal") && c.range == lsp_range)
            .cloned()
            .collect();
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Metal compiler: {what}"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
            edit: Some(WorkspaceEdit {
                changes: Some([(uri.clone(), edits)].into_iter().collect()),
                ..Default::default()
            }),
            command: None,
            is_preferred: Some(false),
            disabled: None,
            data: None,
        }));
    }
    out
}

fn failed(message: String) -> Error {
    Error { code: ErrorCode::ServerError(-32803), message: message.into(), data: None }
}

/// `msl.showAir`: the AIR of a document, from its current text.
pub(crate) async fn show_air(b: &Backend, uri: &Uri) -> Result<Option<Value>> {
    let path = uri_to_path(uri).ok_or_else(|| Error::invalid_params("expected a file URI"))?;
    let (cs, text, config, unsaved) = {
        let st = b.lock();
        let text = st.docs.get(&path).map(|d| d.text.to_string());
        let (config, unsaved) = job_inputs(&st, &path);
        (st.settings.compiler.clone(), text, config, unsaved)
    };
    if cs.mode == CompilerMode::Off {
        return Err(failed(
            "the Metal compiler is turned off (`compiler.mode` is \"off\", which editors also set for untrusted \
             workspaces)"
                .into(),
        ));
    }
    if text.is_none() && !path.is_file() {
        return Err(Error::invalid_params(format!("{} is not open and does not exist", path.display())));
    }
    let b2 = b.clone();
    let p2 = path.clone();
    let outcome = tokio::task::spawn_blocking(move || {
        let (d, fresh) = discovery(&b2, cs.path.clone(), config.platform);
        let Some(compiler) = d.compiler.clone() else { return (d, fresh, None) };
        let job = Job {
            main: &p2,
            main_text: text.as_deref(),
            unsaved: &unsaved,
            config: &config,
            timeout: cs.timeout,
            cancel: None,
            temp_dir: None,
        };
        let r = msl_compiler::emit_air(&compiler, &job);
        (d, fresh, Some(r))
    })
    .await
    .map_err(|e| failed(format!("the AIR request failed: {e}")))?;
    let (d, fresh, result) = outcome;
    if fresh {
        announce(b, &d).await;
    }
    let Some(result) = result else {
        return Err(failed(format!(
            "no Apple Metal compiler was found on this machine (looked at: {}), so there is no AIR to show. \
             Set the `compiler.path` setting (`msl.compiler.path` in VS Code) or $MSL_COMPILER",
            d.tried.join("; ")
        )));
    };
    let air = result.map_err(|e| failed(e.to_string()))?;
    match air.text {
        Some(t) => Ok(Some(Value::String(t))),
        None => {
            let errors: Vec<String> = air
                .checked
                .diagnostics
                .iter()
                .filter(|d| d.severity == msl_compiler::Severity::Error)
                .take(3)
                .map(|d| {
                    let name = d.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    format!("{name}:{}: {}", d.line, d.message)
                })
                .collect();
            Err(failed(format!("the Metal compiler reported errors, so there is no AIR: {}", errors.join("; "))))
        }
    }
}

/// The compiler's stored fix-it actions for a document (taken under the lock).
pub(crate) fn stored_for(b: &Backend, path: &Path) -> Vec<Stored> {
    b.lock().compiler.diags.get(path).cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(a: u32, b: u32) -> TextRange {
        TextRange::new(a.into(), b.into())
    }

    #[test]
    fn ranges_follow_edits() {
        let ins = Edit { start: 10, end: 10, new_len: 3 };
        assert_eq!(shift(r(2, 5), ins), Some(r(2, 5)));
        assert_eq!(shift(r(5, 10), ins), Some(r(5, 10)));
        assert_eq!(shift(r(10, 12), ins), Some(r(13, 15)));
        assert_eq!(shift(r(8, 12), ins), None);
        let del = Edit { start: 10, end: 20, new_len: 0 };
        assert_eq!(shift(r(25, 30), del), Some(r(15, 20)));
        assert_eq!(shift(r(15, 16), del), None);
    }

    #[test]
    fn headers_are_not_compiled_alone() {
        assert!(is_main_file(Path::new("/a/k.metal")));
        assert!(is_main_file(Path::new("/a/k.frag")));
        assert!(!is_main_file(Path::new("/a/common.h")));
        assert!(!is_main_file(Path::new("/a/x.METALH")));
    }
}
