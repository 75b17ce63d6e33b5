//! The server from the project's GitHub releases, for when it is neither configured nor
//! on `PATH`: which archive fits the machine, where it is unpacked, how the unpacked
//! program is checked, and what the user is told when any of it fails. Plain data in and
//! out, so the decisions are tested on the host; `lib.rs` does the downloading.

/// The GitHub repository whose releases carry the archives (`cargo xtask dist --all`).
pub const REPO: &str = "msl-tools/msl";

/// The operating systems Zed runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Mac,
    Linux,
    Windows,
}

/// The processor architectures Zed reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    Aarch64,
    X86,
    X86_64,
}

/// How a release archive is packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    TarGz,
    Zip,
}

/// The release archive for a machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    /// The Rust target it was built for, which names the archive and its folder.
    pub triple: &'static str,
    pub packing: Packing,
    pub os: Os,
}

impl Asset {
    /// The archive's name among the release's assets.
    pub fn name(&self) -> String {
        match self.packing {
            Packing::TarGz => format!("msl-{}.tar.gz", self.triple),
            Packing::Zip => format!("msl-{}.zip", self.triple),
        }
    }

    /// Where release `version` is unpacked, inside the extension's working directory.
    pub fn install_dir(&self, version: &str) -> String {
        format!("msl-lsp-{version}")
    }

    /// The server's path once release `version` is unpacked: the archive holds one folder,
    /// `msl-<triple>`, with the programs in it.
    pub fn server_path(&self, version: &str) -> String {
        let exe = if self.os == Os::Windows { ".exe" } else { "" };
        format!("{}/msl-{}/msl-lsp{exe}", self.install_dir(version), self.triple)
    }
}

/// The archive to download on `os`/`arch`. Linux gets the static build, which runs on any
/// distribution.
pub fn asset_for(os: Os, arch: Arch) -> Result<Asset, String> {
    let (triple, packing) = match (os, arch) {
        (Os::Mac, Arch::Aarch64) => ("aarch64-apple-darwin", Packing::TarGz),
        (Os::Mac, Arch::X86_64) => ("x86_64-apple-darwin", Packing::TarGz),
        (Os::Linux, Arch::X86_64) => ("x86_64-unknown-linux-musl", Packing::TarGz),
        (Os::Linux, Arch::Aarch64) => ("aarch64-unknown-linux-gnu", Packing::TarGz),
        (Os::Windows, Arch::X86_64) => ("x86_64-pc-windows-gnu", Packing::Zip),
        _ => {
            return Err(format!(
                "msl-lsp has no prebuilt release for {os:?} on {arch:?}. Build it with \
                 `cargo install --path crates/msl-lsp` from the msl repository and put it on PATH, \
                 or set `lsp.msl-lsp.binary.path` in your Zed settings."
            ));
        }
    };
    Ok(Asset { triple, packing, os })
}

/// Whether the start of an unpacked file is an executable for `os` (ELF, PE or a 64-bit
/// Mach-O), so that an error page or a truncated download is not started.
pub fn looks_like_server(head: &[u8], os: Os) -> bool {
    match os {
        Os::Linux => head.starts_with(b"\x7fELF"),
        Os::Windows => head.starts_with(b"MZ"),
        Os::Mac => head.starts_with(&[0xcf, 0xfa, 0xed, 0xfe]),
    }
}

/// The message when the download (or unpacking) failed.
pub fn download_failed(version: &str, asset: &Asset, error: &str) -> String {
    format!(
        "Could not download msl-lsp {version} ({}) from github.com/{REPO}: {error}. {}",
        asset.name(),
        INSTALL_YOURSELF
    )
}

/// The message when the latest release cannot be read, or lacks this machine's archive.
pub fn no_release(asset: &Asset, error: &str) -> String {
    format!("Could not find {} in the latest release of github.com/{REPO}: {error}. {}", asset.name(), INSTALL_YOURSELF)
}

/// The message when what was unpacked is not a program for this machine.
pub fn not_a_server(path: &str) -> String {
    format!("The downloaded {path} is not a program for this machine; it was removed. {INSTALL_YOURSELF}")
}

const INSTALL_YOURSELF: &str = "Install msl-lsp yourself (a release archive from the msl repository, or \
                                `cargo install --path crates/msl-lsp`) and put it on PATH, or set \
                                `lsp.msl-lsp.binary.path` in your Zed settings.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_machine_gets_its_archive() {
        let cases = [
            (Os::Mac, Arch::Aarch64, "msl-aarch64-apple-darwin.tar.gz", "msl-aarch64-apple-darwin/msl-lsp"),
            (Os::Mac, Arch::X86_64, "msl-x86_64-apple-darwin.tar.gz", "msl-x86_64-apple-darwin/msl-lsp"),
            (Os::Linux, Arch::X86_64, "msl-x86_64-unknown-linux-musl.tar.gz", "msl-x86_64-unknown-linux-musl/msl-lsp"),
            (Os::Linux, Arch::Aarch64, "msl-aarch64-unknown-linux-gnu.tar.gz", "msl-aarch64-unknown-linux-gnu/msl-lsp"),
            (Os::Windows, Arch::X86_64, "msl-x86_64-pc-windows-gnu.zip", "msl-x86_64-pc-windows-gnu/msl-lsp.exe"),
        ];
        for (os, arch, name, inside) in cases {
            let asset = asset_for(os, arch).expect("an archive");
            assert_eq!(asset.name(), name);
            assert_eq!(asset.server_path("v0.2.0"), format!("msl-lsp-v0.2.0/{inside}"));
        }
        assert_eq!(asset_for(Os::Windows, Arch::X86_64).map(|a| a.packing), Ok(Packing::Zip));
        assert_eq!(asset_for(Os::Mac, Arch::Aarch64).map(|a| a.packing), Ok(Packing::TarGz));
    }

    #[test]
    fn archives_are_the_ones_the_release_carries() {
        // the names `cargo xtask dist` gives (xtask/src/dist.rs): `msl-<triple>.tar.gz`,
        // `.zip` for Windows, for the targets in the VS Code platform table
        let table = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../vscode/platforms.json"))
            .expect("platforms.json");
        for (os, arch) in [
            (Os::Mac, Arch::Aarch64),
            (Os::Mac, Arch::X86_64),
            (Os::Linux, Arch::X86_64),
            (Os::Linux, Arch::Aarch64),
            (Os::Windows, Arch::X86_64),
        ] {
            let asset = asset_for(os, arch).expect("an archive");
            assert!(table.contains(&format!("\"triple\": \"{}\"", asset.triple)), "{}", asset.triple);
        }
    }

    #[test]
    fn machines_without_a_build_are_told_what_to_do() {
        for (os, arch) in [(Os::Windows, Arch::Aarch64), (Os::Linux, Arch::X86), (Os::Windows, Arch::X86)] {
            let message = asset_for(os, arch).expect_err("no archive");
            assert!(message.contains("cargo install --path crates/msl-lsp"), "{message}");
            assert!(message.contains("lsp.msl-lsp.binary.path"), "{message}");
        }
    }

    #[test]
    fn a_failed_download_names_the_release_and_the_way_out() {
        let asset = asset_for(Os::Mac, Arch::Aarch64).expect("an archive");
        let message = download_failed("v0.2.0", &asset, "connection refused");
        assert!(
            message.starts_with("Could not download msl-lsp v0.2.0 (msl-aarch64-apple-darwin.tar.gz)"),
            "{message}"
        );
        assert!(message.contains("connection refused"), "{message}");
        assert!(message.contains("lsp.msl-lsp.binary.path"), "{message}");
        let message = no_release(&asset, "rate limited");
        assert!(message.contains("msl-aarch64-apple-darwin.tar.gz") && message.contains("rate limited"), "{message}");
    }

    #[test]
    fn only_a_program_for_this_machine_is_started() {
        assert!(looks_like_server(b"\x7fELF\x02\x01", Os::Linux));
        assert!(looks_like_server(b"MZ\x90\x00", Os::Windows));
        assert!(looks_like_server(&[0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0, 0, 1], Os::Mac));
        assert!(!looks_like_server(b"<!DOCTYPE html>", Os::Linux));
        assert!(!looks_like_server(b"\x7fELF", Os::Mac));
        assert!(!looks_like_server(b"", Os::Windows));
    }
}
