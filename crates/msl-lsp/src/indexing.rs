//! The background index: finds the Metal sources of the workspace folders and indexes
//! them one at a time on a thread of its own, at low priority: it waits while the user
//! edits, and work made stale by an edit is done again. Progress goes to the client as
//! `$/progress` ("Indexing 37/120").

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use tower_lsp_server::ls_types::notification::Progress;
use tower_lsp_server::ls_types::request::WorkDoneProgressCreate;
use tower_lsp_server::ls_types::*;

use crate::Backend;

/// How long the index waits after the last edit before indexing a unit it indexed before
/// (new units wait less: nothing answers for them yet).
const QUIET_AFTER_EDIT: Duration = Duration::from_millis(800);
const QUIET_FOR_NEW: Duration = Duration::from_millis(100);

/// Shared between the server and the indexing thread.
pub(crate) struct IndexControl {
    wake: Condvar,
    pending: Mutex<bool>,
    /// Milliseconds since `start` of the last edit.
    last_edit: AtomicU64,
    start: Instant,
    started: AtomicBool,
    /// Set when the server shuts down.
    stop: AtomicBool,
}

impl Default for IndexControl {
    fn default() -> Self {
        IndexControl {
            wake: Condvar::new(),
            pending: Mutex::new(false),
            last_edit: AtomicU64::new(0),
            start: Instant::now(),
            started: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        }
    }
}

impl IndexControl {
    /// There may be work: wake the thread.
    pub fn notify(&self) {
        if let Ok(mut p) = self.pending.lock() {
            *p = true;
        }
        self.wake.notify_all();
    }

    /// The user edited: indexing waits for a quiet moment.
    pub fn edited(&self) {
        self.last_edit.store(self.start.elapsed().as_millis() as u64, Ordering::Relaxed);
    }

    fn since_edit(&self) -> Duration {
        let last = Duration::from_millis(self.last_edit.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(last)
    }

    fn wait(&self, timeout: Duration) {
        let Ok(mut p) = self.pending.lock() else { return };
        if !*p {
            p = match self.wake.wait_timeout(p, timeout) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
        *p = false;
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.notify();
    }
}

/// Finds the workspace's units (again) and queues what changed.
pub(crate) async fn discover(b: &Backend) {
    let (roots, exts) = {
        let st = b.lock();
        let mut exts: Vec<String> = Vec::new();
        for r in &st.roots {
            if let Ok(Some(cfg)) = st.finder.find(r) {
                exts.extend(cfg.file.extensions.iter().cloned());
            }
        }
        (st.roots.clone(), exts)
    };
    if roots.is_empty() {
        return;
    }
    let found = tokio::task::spawn_blocking(move || msl_ide::find_sources(&roots, &exts)).await.unwrap_or_default();
    let n = found.len();
    {
        let mut st = b.lock();
        let units: Vec<(PathBuf, msl_ide::FileSettings)> = found
            .into_iter()
            .map(|p| {
                let (s, _) = st.settings.for_file(&p, &st.roots, &st.finder);
                (p, s)
            })
            .collect();
        st.host.workspace_mut().set_units(units);
    }
    b.info(format!("workspace: {n} Metal source{} to index", if n == 1 { "" } else { "s" })).await;
    start(b);
    b.index.notify();
    // includers' settings may have changed
    crate::context::update(b, None).await;
}

/// Starts the indexing thread (once).
pub(crate) fn start(b: &Backend) {
    if b.index.started.swap(true, Ordering::SeqCst) {
        return;
    }
    let backend = b.clone();
    let handle = tokio::runtime::Handle::current();
    let spawned = std::thread::Builder::new()
        .name("msl-index".into())
        .stack_size(msl_ide::ANALYSIS_STACK_SIZE)
        .spawn(move || run(backend, handle));
    if spawned.is_err() {
        b.index.started.store(false, Ordering::SeqCst);
    }
}

/// What the client is shown of indexing.
struct Reporter {
    token: Option<NumberOrString>,
    shown: Option<Instant>,
    serial: u64,
}

impl Reporter {
    fn update(&mut self, b: &Backend, rt: &tokio::runtime::Handle, p: msl_ide::IndexProgress) {
        let supported = b.lock().work_done_progress;
        if !supported {
            return;
        }
        let message = format!("{}/{}", p.done, p.total);
        let percentage = (p.done * 100).checked_div(p.total).map(|x| x as u32);
        match &self.token {
            None => {
                self.serial += 1;
                let token = NumberOrString::String(format!("msl-index-{}", self.serial));
                let client = b.client.clone();
                let t = token.clone();
                let created = rt.block_on(async move {
                    client.send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: t }).await
                });
                if created.is_err() {
                    return;
                }
                self.send(
                    b,
                    rt,
                    &token,
                    WorkDoneProgress::Begin(WorkDoneProgressBegin {
                        title: "Indexing".into(),
                        cancellable: Some(false),
                        message: Some(message),
                        percentage,
                    }),
                );
                self.token = Some(token);
                self.shown = Some(Instant::now());
            }
            Some(token) => {
                // at most ten reports a second
                if self.shown.is_some_and(|s| s.elapsed() < Duration::from_millis(100)) {
                    return;
                }
                let token = token.clone();
                self.send(
                    b,
                    rt,
                    &token,
                    WorkDoneProgress::Report(WorkDoneProgressReport {
                        cancellable: Some(false),
                        message: Some(message),
                        percentage,
                    }),
                );
                self.shown = Some(Instant::now());
            }
        }
    }

    fn end(&mut self, b: &Backend, rt: &tokio::runtime::Handle, p: msl_ide::IndexProgress) {
        if let Some(token) = self.token.take() {
            let message = format!("{} units indexed", p.total);
            self.send(b, rt, &token, WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(message) }));
        }
    }

    fn send(&self, b: &Backend, rt: &tokio::runtime::Handle, token: &NumberOrString, value: WorkDoneProgress) {
        let client = b.client.clone();
        let params = ProgressParams { token: token.clone(), value: ProgressParamsValue::WorkDone(value) };
        rt.block_on(async move { client.send_notification::<Progress>(params).await });
    }
}

fn run(b: Backend, rt: tokio::runtime::Handle) {
    let mut indexer = msl_ide::Indexer::new();
    let mut reporter = Reporter { token: None, shown: None, serial: 0 };
    let mut started_at: Option<Instant> = None;
    loop {
        if b.index.stop.load(Ordering::Relaxed) {
            return;
        }
        let (job, progress) = {
            let st = b.lock();
            (st.host.next_index_job(), st.host.index_progress())
        };
        let Some(job) = job else {
            if let Some(t) = started_at.take() {
                b.log.line("INFO", &format!("indexed {} units in {:.2} s", progress.total, t.elapsed().as_secs_f64()));
                reporter.end(&b, &rt, progress);
            }
            b.index.wait(Duration::from_secs(5));
            continue;
        };
        // the user comes first
        let quiet = if job.fresh { QUIET_FOR_NEW } else { QUIET_AFTER_EDIT };
        let since = b.index.since_edit();
        if since < quiet {
            std::thread::sleep(quiet - since);
            continue;
        }
        started_at.get_or_insert_with(Instant::now);
        reporter.update(&b, &rt, progress);
        let overlays = b.lock().host.overlays();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            indexer.index(&job.path, &job.settings, &overlays)
        }));
        let (index, texts) = match result {
            Ok(Some(done)) => done,
            // unreadable: an empty index, so that it is not tried again and again
            Ok(None) => (msl_ide::UnitIndex::default(), Vec::new()),
            Err(_) => {
                b.log.line("ERROR", &format!("indexing {} failed", job.path.display()));
                indexer = msl_ide::Indexer::new();
                (msl_ide::UnitIndex::default(), Vec::new())
            }
        };
        // open files this unit includes may now take their context from it
        // (or stop taking it, when it no longer includes them)
        let includes_open: Vec<PathBuf> = {
            let st = b.lock();
            let old = st.host.workspace().unit_index(&job.path).cloned();
            let mut v: Vec<PathBuf> = index
                .paths()
                .chain(old.iter().flat_map(|o| o.paths()))
                .filter(|p| *p != job.path && st.docs.contains_key(*p))
                .map(|p| p.to_path_buf())
                .collect();
            v.sort();
            v.dedup();
            v
        };
        b.lock().host.workspace_mut().finish(&job, index, texts);
        if !includes_open.is_empty() {
            rt.block_on(crate::context::update(&b, Some(includes_open)));
        }
    }
}
