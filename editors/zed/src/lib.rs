//! The Zed extension for the Metal Shading Language.
//!
//! Zed loads this crate as a WebAssembly component (`wasm32-wasip2`). It starts
//! `msl-lsp` for files of the "Metal" language and hands it its settings. The decisions
//! live in [`launch`] and [`config`] as plain functions over plain data, tested with
//! `cargo test` on the host; this file only moves values between them and Zed.

mod config;
mod download;
mod launch;

use zed_extension_api::{self as zed, LanguageServerId, Worktree, serde_json::Value, settings::LspSettings};

use config::{PROJECT_SETTINGS_FILE, ProjectSettings};
use launch::{BinarySetting, SERVER};

struct MetalExtension {
    /// The server downloaded from the releases, once it was found or unpacked.
    downloaded: Option<String>,
}

impl MetalExtension {
    /// The server from the latest release, downloaded and unpacked into the extension's
    /// working directory unless it is there already (older releases are removed).
    fn downloaded_server(&mut self, id: &LanguageServerId) -> Result<String, String> {
        if let Some(path) = self.downloaded.as_ref().filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file())) {
            return Ok(path.clone());
        }
        let (os, arch) = zed::current_platform();
        let os = match os {
            zed::Os::Mac => download::Os::Mac,
            zed::Os::Linux => download::Os::Linux,
            zed::Os::Windows => download::Os::Windows,
        };
        let arch = match arch {
            zed::Architecture::Aarch64 => download::Arch::Aarch64,
            zed::Architecture::X86 => download::Arch::X86,
            zed::Architecture::X8664 => download::Arch::X86_64,
        };
        let asset = download::asset_for(os, arch)?;
        let status = |s: &zed::LanguageServerInstallationStatus| zed::set_language_server_installation_status(id, s);
        status(&zed::LanguageServerInstallationStatus::CheckingForUpdate);
        let options = zed::GithubReleaseOptions { require_assets: true, pre_release: false };
        let release =
            zed::latest_github_release(download::REPO, options).map_err(|e| download::no_release(&asset, &e))?;
        let url = release
            .assets
            .iter()
            .find(|a| a.name == asset.name())
            .map(|a| a.download_url.clone())
            .ok_or_else(|| download::no_release(&asset, "the release has no such file"))?;
        let server = asset.server_path(&release.version);
        let dir = asset.install_dir(&release.version);
        if !std::fs::metadata(&server).is_ok_and(|m| m.is_file()) {
            status(&zed::LanguageServerInstallationStatus::Downloading);
            let packing = match asset.packing {
                download::Packing::TarGz => zed::DownloadedFileType::GzipTar,
                download::Packing::Zip => zed::DownloadedFileType::Zip,
            };
            let failed = |e: String| {
                let message = download::download_failed(&release.version, &asset, &e);
                status(&zed::LanguageServerInstallationStatus::Failed(message.clone()));
                message
            };
            zed::download_file(&url, &dir, packing).map_err(failed)?;
            let head: Vec<u8> = std::fs::read(&server).map(|b| b.into_iter().take(8).collect()).unwrap_or_default();
            if !download::looks_like_server(&head, os) {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(failed(download::not_a_server(&server)));
            }
            if os != download::Os::Windows {
                zed::make_file_executable(&server).map_err(failed)?;
            }
            // earlier releases
            for entry in std::fs::read_dir(".").into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().to_string();
                if name.starts_with("msl-lsp-") && name != dir {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        status(&zed::LanguageServerInstallationStatus::None);
        self.downloaded = Some(server.clone());
        Ok(server)
    }

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
        MetalExtension { downloaded: None }
    }

    fn language_server_command(&mut self, id: &LanguageServerId, worktree: &Worktree) -> zed::Result<zed::Command> {
        if let Some(refusal) = Self::project(worktree).refusal() {
            return Err(refusal);
        }
        let binary = Self::settings(worktree).binary.map(|b| BinarySetting {
            path: b.path,
            arguments: b.arguments,
            env: b.env.map(|env| env.into_iter().collect()),
        });
        // neither configured nor on PATH: the release's server, downloaded
        let configured = binary.as_ref().and_then(|b| b.path.as_ref()).is_some_and(|p| !p.trim().is_empty());
        let found = match worktree.which(SERVER).filter(|p| !p.is_empty()) {
            None if !configured => Some(self.downloaded_server(id)?),
            found => found,
        };
        let launch = launch::choose_binary(binary, found)?;
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
