//! The Zed extension for the Metal Shading Language.
//!
//! Zed loads this crate as a WebAssembly component (`wasm32-wasip2`). It starts
//! `msl-lsp` for files of the "Metal" language and hands it its settings. The decisions
//! live in [`launch`] and [`config`] as plain functions over plain data, tested with
//! `cargo test` on the host; this file only moves values between them and Zed.

mod config;
mod launch;

use zed_extension_api::{self as zed, LanguageServerId, Worktree, serde_json::Value, settings::LspSettings};

use config::{PROJECT_SETTINGS_FILE, ProjectSettings};
use launch::{BinarySetting, SERVER};

struct MetalExtension;

impl MetalExtension {
    /// The merged (user and project) `lsp.msl-lsp` settings of a worktree.
    fn settings(worktree: &Worktree) -> LspSettings {
        LspSettings::for_worktree(SERVER, worktree).unwrap_or_default()
    }

    /// What the worktree's own `.zed/settings.json` sets for the server.
    fn project(worktree: &Worktree) -> ProjectSettings {
        ProjectSettings::from_file(worktree.read_text_file(PROJECT_SETTINGS_FILE).ok().as_deref())
    }
}

impl zed::Extension for MetalExtension {
    fn new() -> Self {
        MetalExtension
    }

    fn language_server_command(&mut self, _id: &LanguageServerId, worktree: &Worktree) -> zed::Result<zed::Command> {
        if let Some(refusal) = Self::project(worktree).refusal() {
            return Err(refusal);
        }
        let binary = Self::settings(worktree).binary.map(|b| BinarySetting {
            path: b.path,
            arguments: b.arguments,
            env: b.env.map(|env| env.into_iter().collect()),
        });
        let launch = launch::choose_binary(binary, worktree.which(SERVER))?;
        Ok(zed::Command {
            command: launch.command,
            args: launch.args,
            env: launch::merge_env(worktree.shell_env(), launch.env),
        })
    }

    fn language_server_initialization_options(
        &mut self,
        _id: &LanguageServerId,
        worktree: &Worktree,
    ) -> zed::Result<Option<Value>> {
        // Zed asks for these even when it starts a configured `binary.path` itself, so this
        // is where a project that names the compiler is always stopped.
        if let Some(refusal) = Self::project(worktree).refusal() {
            return Err(refusal);
        }
        Ok(Some(config::initialization_options(Self::settings(worktree).initialization_options)))
    }

    fn language_server_workspace_configuration(
        &mut self,
        _id: &LanguageServerId,
        worktree: &Worktree,
    ) -> zed::Result<Option<Value>> {
        let settings = Self::settings(worktree);
        Ok(Some(config::workspace_configuration(
            settings.initialization_options,
            settings.settings,
            &Self::project(worktree),
        )))
    }
}

zed::register_extension!(MetalExtension);
