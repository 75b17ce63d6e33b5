//! What a translation unit is compiled as: Metal version, platform, macros, include paths.

use std::fmt;
use std::path::PathBuf;

/// A Metal Shading Language version, e.g. 3.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MetalVersion {
    pub major: u8,
    pub minor: u8,
}

impl MetalVersion {
    pub const V1_0: MetalVersion = MetalVersion::new(1, 0);
    pub const V1_1: MetalVersion = MetalVersion::new(1, 1);
    pub const V1_2: MetalVersion = MetalVersion::new(1, 2);
    pub const V2_0: MetalVersion = MetalVersion::new(2, 0);
    pub const V2_1: MetalVersion = MetalVersion::new(2, 1);
    pub const V2_2: MetalVersion = MetalVersion::new(2, 2);
    pub const V2_3: MetalVersion = MetalVersion::new(2, 3);
    pub const V2_4: MetalVersion = MetalVersion::new(2, 4);
    pub const V3_0: MetalVersion = MetalVersion::new(3, 0);
    pub const V3_1: MetalVersion = MetalVersion::new(3, 1);
    pub const V3_2: MetalVersion = MetalVersion::new(3, 2);
    pub const V4_0: MetalVersion = MetalVersion::new(4, 0);
    pub const V4_1: MetalVersion = MetalVersion::new(4, 1);
    /// The newest version we know; the default.
    pub const LATEST: MetalVersion = MetalVersion::V4_1;

    pub const ALL: &'static [MetalVersion] = &[
        Self::V1_0,
        Self::V1_1,
        Self::V1_2,
        Self::V2_0,
        Self::V2_1,
        Self::V2_2,
        Self::V2_3,
        Self::V2_4,
        Self::V3_0,
        Self::V3_1,
        Self::V3_2,
        Self::V4_0,
        Self::V4_1,
    ];

    pub const fn new(major: u8, minor: u8) -> MetalVersion {
        MetalVersion { major, minor }
    }

    /// The value of `__METAL_VERSION__`: major, minor and patch digits (`320` for 3.2).
    pub fn macro_value(self) -> u32 {
        self.major as u32 * 100 + self.minor as u32 * 10
    }

    /// Parses `3.2`.
    pub fn parse(s: &str) -> Option<MetalVersion> {
        let (a, b) = s.trim().split_once('.')?;
        let v = MetalVersion::new(a.parse().ok()?, b.parse().ok()?);
        MetalVersion::ALL.contains(&v).then_some(v)
    }
}

impl fmt::Display for MetalVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The operating system family the shader is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Platform {
    #[default]
    MacOS,
    IOS,
    TvOS,
    VisionOS,
}

impl Platform {
    pub fn parse(s: &str) -> Option<Platform> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "macos" | "osx" | "macosx" => Platform::MacOS,
            "ios" | "iphoneos" => Platform::IOS,
            "tvos" | "appletvos" => Platform::TvOS,
            "visionos" | "xros" => Platform::VisionOS,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Platform::MacOS => "macos",
            Platform::IOS => "ios",
            Platform::TvOS => "tvos",
            Platform::VisionOS => "visionos",
        }
    }
}

/// Parses a `-std=` value: `metal3.2`, `macos-metal2.4`, `ios-metal1.2`. Returns the
/// version and the platform if the value names one.
pub fn parse_std(s: &str) -> Option<(MetalVersion, Option<Platform>)> {
    let s = s.trim().trim_start_matches("-std=").trim_start_matches("--std=");
    let (platform, rest) = match s.split_once('-') {
        Some((p, rest)) => (Some(Platform::parse(p)?), rest),
        None => (None, s),
    };
    let v = rest.strip_prefix("metal").unwrap_or(rest);
    Some((MetalVersion::parse(v)?, platform))
}

/// Everything the preprocessor needs to know about how a unit is compiled.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PpConfig {
    pub version: MetalVersion,
    pub platform: Platform,
    /// `-D NAME[=VALUE]`, in order.
    pub defines: Vec<(String, Option<String>)>,
    /// `-U NAME`.
    pub undefines: Vec<String>,
    /// `-I DIR`, searched in order.
    pub include_dirs: Vec<PathBuf>,
    /// Whether `__FAST_MATH__` is defined (Metal compiles with fast math by default).
    pub fast_math: bool,
    /// Whether a quoted include found neither next to its includer nor in `include_dirs`
    /// is looked for in the folders above the includer (up to the project's root) and in
    /// `search_roots`; a single match is used, with a note that says where it was found.
    pub infer_includes: bool,
    /// Folders where inferred includes are also looked for: the editor's workspace
    /// folders, or the folder `msl-check` runs in.
    pub search_roots: Vec<PathBuf>,
}

impl Default for PpConfig {
    fn default() -> Self {
        PpConfig {
            version: MetalVersion::LATEST,
            platform: Platform::MacOS,
            defines: Vec::new(),
            undefines: Vec::new(),
            include_dirs: Vec::new(),
            fast_math: true,
            infer_includes: true,
            search_roots: Vec::new(),
        }
    }
}

impl PpConfig {
    /// Adds a `-D` flag's value: `NAME`, `NAME=VALUE`.
    pub fn define(&mut self, flag: &str) {
        match flag.split_once('=') {
            Some((n, v)) => self.defines.push((n.trim().to_string(), Some(v.to_string()))),
            None => self.defines.push((flag.trim().to_string(), None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_values() {
        assert_eq!(parse_std("metal3.2"), Some((MetalVersion::V3_2, None)));
        assert_eq!(parse_std("macos-metal2.4"), Some((MetalVersion::V2_4, Some(Platform::MacOS))));
        assert_eq!(parse_std("-std=ios-metal1.2"), Some((MetalVersion::V1_2, Some(Platform::IOS))));
        assert_eq!(parse_std("metal9.9"), None);
        assert_eq!(parse_std("banana-metal3.0"), None);
        assert_eq!(MetalVersion::V2_1.macro_value(), 210);
    }
}
