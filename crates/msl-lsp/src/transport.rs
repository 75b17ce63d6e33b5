//! A guard in front of the protocol's framing: every message the server's codec sees is a
//! well-formed JSON-RPC object. Malformed input would otherwise end the session (the codec
//! stops at its first error); here it becomes a message the server answers or logs:
//! - an unparsable body, a batch, a body that is not UTF-8, garbage between messages: a
//!   `$/msl/malformedMessage` notification, logged by the server;
//! - an object that is not a valid request or response but has an `id`: a
//!   `$/msl/invalidRequest` request with that id, answered with `InvalidRequest`.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

pub(crate) const MALFORMED: &str = "$/msl/malformedMessage";
pub(crate) const INVALID_REQUEST: &str = "$/msl/invalidRequest";

/// Bodies larger than this are refused (a 10 MB document fits many times over).
const MAX_BODY: usize = 512 * 1024 * 1024;

fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

fn malformed(why: String) -> Vec<u8> {
    frame(&json!({"jsonrpc": "2.0", "method": MALFORMED, "params": {"error": why}}))
}

/// What to forward for one message body.
pub(crate) fn check_body(body: &[u8]) -> Vec<u8> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return malformed(format!("the message is not valid JSON: {e}")),
    };
    let Some(obj) = value.as_object() else {
        return malformed("the message is not a JSON object (batches are not supported)".into());
    };
    let version_ok = obj.get("jsonrpc").and_then(|v| v.as_str()) == Some("2.0");
    let id = obj.get("id").filter(|id| id.is_string() || id.is_i64() || id.is_u64());
    let is_request = obj.get("method").is_some_and(|m| m.is_string())
        && obj.get("params").is_none_or(|p| p.is_object() || p.is_array() || p.is_null());
    let is_response =
        id.is_some() && obj.get("method").is_none() && (obj.contains_key("result") || obj.contains_key("error"));
    if version_ok && (is_request || is_response) {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        return out;
    }
    match id {
        Some(id) => {
            frame(&json!({"jsonrpc": "2.0", "id": id, "method": INVALID_REQUEST, "params": {"message": value}}))
        }
        None => malformed("the message is not a JSON-RPC 2.0 request, notification or response".into()),
    }
}

/// Whether a message body is the `exit` notification.
fn is_exit(body: &[u8]) -> bool {
    // most messages are ruled out without parsing them
    if !body.windows(6).any(|w| w == b"\"exit\"") {
        return false;
    }
    serde_json::from_slice::<Value>(body)
        .is_ok_and(|v| v.get("method").and_then(Value::as_str) == Some("exit") && v.get("id").is_none())
}

/// Copies framed messages from `input` to `output`, checking each, until the input ends
/// or the `exit` notification has been passed on (what follows it is not read).
pub(crate) async fn guard<R, W>(input: R, mut output: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(input);
    loop {
        let mut length: Option<usize> = None;
        let mut saw_header = false;
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\r', '\n']);
            if text.is_empty() {
                if saw_header {
                    break;
                }
                continue;
            }
            saw_header = true;
            if let Some((name, value)) = text.split_once(':')
                && name.trim().eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().ok();
            }
        }
        let mut exit = false;
        let forward = match length {
            Some(len) if len <= MAX_BODY => {
                let mut body = vec![0u8; len];
                if reader.read_exact(&mut body).await.is_err() {
                    return;
                }
                exit = is_exit(&body);
                check_body(&body)
            }
            Some(len) => {
                // too large: skip it
                let mut rest = (&mut reader).take(len as u64);
                let _ = tokio::io::copy(&mut rest, &mut tokio::io::sink()).await;
                malformed(format!("a message of {len} bytes is too large"))
            }
            None => malformed("a message without a valid Content-Length header".into()),
        };
        if output.write_all(&forward).await.is_err() || output.flush().await.is_err() || exit {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_is_recognised() {
        assert!(is_exit(br#"{"jsonrpc":"2.0","method":"exit"}"#));
        assert!(is_exit(br#"{"method": "exit", "jsonrpc": "2.0", "params": null}"#));
        assert!(!is_exit(br#"{"jsonrpc":"2.0","id":3,"method":"exit"}"#));
        assert!(!is_exit(br#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"text":"\"exit\""}}"#));
        assert!(!is_exit(br#"{"jsonrpc":"2.0","method":"shutdown","id":1}"#));
    }

    #[test]
    fn bodies_are_checked() {
        let ok = br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        assert!(check_body(ok).ends_with(ok));
        let s = String::from_utf8(check_body(b"{not json")).unwrap();
        assert!(s.contains(MALFORMED), "{s}");
        let s = String::from_utf8(check_body(b"[]")).unwrap();
        assert!(s.contains(MALFORMED), "{s}");
        let s = String::from_utf8(check_body(br#"{"jsonrpc":"2.0","id":7,"params":3}"#)).unwrap();
        assert!(s.contains(INVALID_REQUEST) && s.contains(r#""id":7"#), "{s}");
        let s = String::from_utf8(check_body(br#"{"jsonrpc":"1.0","method":"x"}"#)).unwrap();
        assert!(s.contains(MALFORMED), "{s}");
    }
}
