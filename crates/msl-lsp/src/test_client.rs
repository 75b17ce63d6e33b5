//! A small LSP client: frames JSON-RPC messages, matches responses to requests, answers
//! the server's own requests, and queues notifications. Used by the tests (in process,
//! over in-memory pipes) and by the benchmark (over a child process's pipes).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Notify, mpsc, oneshot};

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>;

pub struct LspClient {
    out: mpsc::UnboundedSender<Vec<u8>>,
    pending: Pending,
    notifications: Arc<Mutex<VecDeque<Value>>>,
    arrived: Arc<Notify>,
    next_id: Mutex<i64>,
    /// What the client answers to `workspace/configuration`.
    pub configuration: Arc<Mutex<Value>>,
}

/// Writes one framed message.
pub fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

impl LspClient {
    /// A client talking to a server through `read` (the server's output) and `write`.
    pub fn new<R, W>(read: R, write: W) -> LspClient
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let mut write = write;
        tokio::spawn(async move {
            while let Some(bytes) = rx.recv().await {
                if write.write_all(&bytes).await.is_err() || write.flush().await.is_err() {
                    break;
                }
            }
        });
        let pending: Pending = Arc::default();
        let notifications: Arc<Mutex<VecDeque<Value>>> = Arc::default();
        let arrived = Arc::new(Notify::new());
        let configuration = Arc::new(Mutex::new(Value::Null));
        {
            let pending = pending.clone();
            let notifications = notifications.clone();
            let arrived = arrived.clone();
            let configuration = configuration.clone();
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut reader = BufReader::new(read);
                while let Some(msg) = read_message(&mut reader).await {
                    let has_method = msg.get("method").is_some();
                    match (msg.get("id").cloned(), has_method) {
                        (Some(id), true) => {
                            // a request from the server: answer it
                            let result = match msg["method"].as_str() {
                                Some("workspace/configuration") => {
                                    let n = msg["params"]["items"].as_array().map(|a| a.len()).unwrap_or(1);
                                    let v = configuration.lock().map(|c| c.clone()).unwrap_or(Value::Null);
                                    Value::Array(vec![v; n])
                                }
                                _ => Value::Null,
                            };
                            let _ = tx.send(frame(&json!({"jsonrpc": "2.0", "id": id, "result": result})));
                            if let Ok(mut n) = notifications.lock() {
                                n.push_back(msg);
                            }
                            arrived.notify_waiters();
                        }
                        (Some(id), false) => {
                            let sender = id.as_i64().and_then(|i| pending.lock().ok().and_then(|mut p| p.remove(&i)));
                            if let Some(s) = sender {
                                let _ = s.send(msg);
                            }
                        }
                        (None, _) => {
                            if let Ok(mut n) = notifications.lock() {
                                n.push_back(msg);
                            }
                            arrived.notify_waiters();
                        }
                    }
                }
            });
        }
        LspClient { out: tx, pending, notifications, arrived, next_id: Mutex::new(1), configuration }
    }

    /// Sends a request and waits for its response (the whole message: `result` or `error`).
    pub async fn request_raw(&self, method: &str, params: Value) -> Value {
        let id = {
            let mut n = self.next_id.lock().expect("id lock");
            *n += 1;
            *n
        };
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id, tx);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        match tokio::time::timeout(Duration::from_secs(60), rx).await {
            Ok(Ok(v)) => v,
            _ => panic!("no response to {method} within 60 s"),
        }
    }

    /// Sends a request and returns its `result`; panics on an error response.
    pub async fn request(&self, method: &str, params: Value) -> Value {
        let r = self.request_raw(method, params).await;
        if let Some(e) = r.get("error") {
            panic!("{method} failed: {e}");
        }
        r.get("result").cloned().unwrap_or(Value::Null)
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub fn send(&self, message: &Value) {
        let _ = self.out.send(frame(message));
    }

    /// Sends raw bytes (for tests of malformed input).
    pub fn send_bytes(&self, bytes: Vec<u8>) {
        let _ = self.out.send(bytes);
    }

    /// Waits for a notification (or server request) for which `pred` holds; the ones
    /// before it are dropped.
    pub async fn wait_for(&self, timeout: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.arrived.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut q = self.notifications.lock().expect("queue lock");
                while let Some(m) = q.pop_front() {
                    if pred(&m) {
                        return Some(m);
                    }
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return None;
            }
        }
    }

    /// Waits for `publishDiagnostics` for `uri` (with `version`, when given).
    pub async fn diagnostics(&self, uri: &str, version: Option<i64>) -> Option<Value> {
        self.diagnostics_within(Duration::from_secs(30), uri, version).await
    }

    /// [`Self::diagnostics`], waiting up to `timeout`.
    pub async fn diagnostics_within(&self, timeout: Duration, uri: &str, version: Option<i64>) -> Option<Value> {
        let uri = uri.to_string();
        self.wait_for(timeout, move |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && version.is_none_or(|v| m["params"]["version"] == v)
        })
        .await
        .map(|m| m["params"]["diagnostics"].clone())
    }

    /// `initialize` with a typical client's capabilities, then `initialized`.
    pub async fn initialize(&self, root: &str, options: Value) -> Value {
        let result = self
            .request(
                "initialize",
                json!({
                    "processId": null,
                    "rootUri": root,
                    "workspaceFolders": [{"uri": root, "name": "root"}],
                    "initializationOptions": options,
                    "capabilities": {
                        "general": {"positionEncodings": ["utf-16"]},
                        "workspace": {"configuration": true, "didChangeWatchedFiles": {"dynamicRegistration": true}, "workspaceFolders": true},
                        "window": {"workDoneProgress": true},
                        "textDocument": {
                            "hover": {"contentFormat": ["markdown", "plaintext"]},
                            "completion": {"completionItem": {"snippetSupport": true}},
                            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true, "tagSupport": {"valueSet": [1, 2]}},
                            "typeHierarchy": {"dynamicRegistration": true}
                        }
                    }
                }),
            )
            .await;
        self.notify("initialized", json!({}));
        result
    }

    pub fn open(&self, uri: &str, text: &str, version: i64) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "metal", "version": version, "text": text}}),
        );
    }
}

/// Reads one framed message; `None` at the end of the stream.
async fn read_message<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<Value> {
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).await.ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length:") {
                length = v.trim().parse::<usize>().ok();
            }
        }
        let len = length?;
        let mut body = vec![0u8; len];
        reader.read_exact(&mut body).await.ok()?;
        if let Ok(v) = serde_json::from_slice(&body) {
            return Some(v);
        }
    }
}
