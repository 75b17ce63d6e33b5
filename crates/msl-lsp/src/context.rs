//! Header and fragment context: an open file that units of the workspace include (a
//! header, or a `.metal` file of a unity build) is analysed inside one of those units, with
//! the macros and declarations that come before its `#include`. The first includer by
//! path is taken unless the user picked one (or the file alone) with `msl.setContext`.
//! `msl/status` lists which file gives each open file its context.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::{Error, Result};

use crate::{Backend, uri_of, uri_to_path};

/// `msl.contextCandidates` with `{"uri"}`: `{"current", "candidates"}`, the URI of the file
/// giving the context now (or `null`) and of every indexed unit that includes the file.
pub(crate) const COMMAND_CANDIDATES: &str = "msl.contextCandidates";
/// `msl.setContext` with `{"uri", "context"}`: analyse the file inside the unit of
/// `context` (a URI among the candidates), or on its own (`null`); the choice stays until
/// the file is closed. Answers as `msl.contextCandidates` does.
pub(crate) const COMMAND_SET: &str = "msl.setContext";

/// Chooses the context of each of `paths` (every open document when `None`) again; when
/// one changes, its diagnostics are computed again and `msl/status` is sent.
pub(crate) async fn update(b: &Backend, paths: Option<Vec<PathBuf>>) {
    let changed: Vec<PathBuf> = {
        let mut st = b.lock();
        let paths = paths.unwrap_or_else(|| st.docs.keys().cloned().collect());
        let mut changed = Vec::new();
        for p in paths {
            if !st.docs.contains_key(&p) {
                continue;
            }
            let wanted: Option<PathBuf> = match st.context_pins.get(&p) {
                Some(pinned) => pinned.clone(),
                None => st.host.includers(&p).into_iter().next(),
            };
            let settings = wanted.as_ref().map(|w| st.settings.for_file(w, &st.roots, &st.finder).0);
            let includer = wanted.as_deref().zip(settings);
            if st.host.set_context(&p, includer) {
                changed.push(p);
            }
        }
        changed
    };
    if changed.is_empty() {
        return;
    }
    for p in &changed {
        let message = match b.lock().host.context_of(p) {
            Some(c) => format!("{} is analysed as included by {}", p.display(), c.display()),
            None => format!("{} is analysed on its own", p.display()),
        };
        b.info(message).await;
    }
    b.schedule_diagnostics(changed);
    send_status(b).await;
}

/// Sends `msl/status`: the last settings part, with the open files' contexts.
pub(crate) async fn send_status(b: &Backend) {
    let status = {
        let st = b.lock();
        let mut status = st.status.clone();
        if !status.is_object() {
            return;
        }
        let mut contexts = serde_json::Map::new();
        let mut paths: Vec<&PathBuf> = st.docs.keys().collect();
        paths.sort();
        for p in paths {
            if let Some(c) = st.host.context_of(p) {
                contexts.insert(uri_of(p).as_str().to_string(), Value::String(uri_of(c).as_str().to_string()));
            }
        }
        status["contexts"] = Value::Object(contexts);
        status
    };
    b.client.send_notification::<crate::compiler::StatusNotification>(status).await;
}

fn answer(b: &Backend, path: &Path) -> Value {
    let st = b.lock();
    let current = st.host.context_of(path).map(|c| uri_of(c).as_str().to_string());
    let candidates: Vec<String> = st.host.includers(path).iter().map(|c| uri_of(c).as_str().to_string()).collect();
    json!({"current": current, "candidates": candidates})
}

pub(crate) async fn candidates(b: &Backend, uri: &tower_lsp_server::ls_types::Uri) -> Result<Option<Value>> {
    let path = uri_to_path(uri).ok_or_else(|| Error::invalid_params("not a file URI"))?;
    if !b.lock().docs.contains_key(&path) {
        return Err(Error::invalid_params("the document is not open"));
    }
    Ok(Some(answer(b, &path)))
}

pub(crate) async fn set(b: &Backend, uri: &tower_lsp_server::ls_types::Uri, context: &Value) -> Result<Option<Value>> {
    let path = uri_to_path(uri).ok_or_else(|| Error::invalid_params("not a file URI"))?;
    let pin = match context {
        Value::Null => None,
        Value::String(s) => {
            let c = s
                .parse::<tower_lsp_server::ls_types::Uri>()
                .ok()
                .and_then(|u| uri_to_path(&u))
                .ok_or_else(|| Error::invalid_params("`context` is not a file URI"))?;
            if !b.lock().host.includers(&path).contains(&c) {
                return Err(Error::invalid_params(format!(
                    "{} does not include {} (as far as the index knows)",
                    c.display(),
                    path.display()
                )));
            }
            Some(c)
        }
        _ => return Err(Error::invalid_params("`context` must be a URI or null")),
    };
    {
        let mut st = b.lock();
        if !st.docs.contains_key(&path) {
            return Err(Error::invalid_params("the document is not open"));
        }
        st.context_pins.insert(path.clone(), pin);
    }
    update(b, Some(vec![path.clone()])).await;
    Ok(Some(answer(b, &path)))
}
