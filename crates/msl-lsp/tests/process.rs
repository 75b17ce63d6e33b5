//! The `msl-lsp` binary as a client starts it: it ends when told to, even when the client
//! keeps its standard input open, with the exit code the protocol asks for.

use std::process::Stdio;
use std::time::Duration;

use msl_lsp::test_client::LspClient;
use serde_json::{Value, json};

async fn start() -> (tokio::process::Child, LspClient) {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_msl-lsp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("msl-lsp starts");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let client = LspClient::new(stdout, stdin);
    client.initialize("file:///tmp", json!({})).await;
    (child, client)
}

async fn exit_code(child: &mut tokio::process::Child) -> Option<i32> {
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the server ends within 10 s of `exit` while its input stays open")
        .expect("wait");
    status.code()
}

#[tokio::test]
async fn exits_after_shutdown_and_exit_with_the_input_still_open() {
    let (mut child, client) = start().await;
    let answer = client.request_raw("shutdown", Value::Null).await;
    assert!(answer.get("error").is_none(), "{answer}");
    client.notify("exit", Value::Null);
    // `client` (and the pipe to the server's input) is still alive here
    assert_eq!(exit_code(&mut child).await, Some(0));
    drop(client);
}

#[tokio::test]
async fn exit_without_shutdown_is_an_error_exit() {
    let (mut child, client) = start().await;
    client.notify("exit", Value::Null);
    assert_eq!(exit_code(&mut child).await, Some(1));
    drop(client);
}
