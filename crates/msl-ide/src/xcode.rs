//! Metal build settings of Xcode projects: the `MTL_*` keys and `SDKROOT` of a
//! `project.pbxproj`, for the files of that project (those under the folder that holds the
//! `.xcodeproj`). They come before `msl.toml` and the command line, which win.
//!
//! The file is an old-style property list: `{ key = value; }` dictionaries, `( a, b, )`
//! arrays, quoted or bare strings and comments. Of its build configurations, the project's
//! and then the first target's that sets any Metal key are taken, each from its `Release`
//! configuration when there is one (else its first).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use msl_syntax::{MetalVersion, Platform, PpConfig};

/// The Metal settings an Xcode project gives its files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct XcodeSettings {
    /// The `.xcodeproj` they were read from.
    pub project: PathBuf,
    /// `MTL_HEADER_SEARCH_PATHS`, with `$(SRCROOT)` and the like expanded.
    pub include_dirs: Vec<PathBuf>,
    /// `MTL_PREPROCESSOR_DEFINITIONS`: `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    /// `MTL_LANGUAGE_REVISION` (`Metal32` is 3.2; `UseDeploymentTarget` gives none).
    pub version: Option<MetalVersion>,
    /// From `SDKROOT`: `macosx`, `iphoneos`, `appletvos`, `xros`.
    pub platform: Option<Platform>,
    /// `MTL_FAST_MATH`.
    pub fast_math: Option<bool>,
}

impl XcodeSettings {
    /// Reads the project at `xcodeproj` (a `.xcodeproj` folder).
    pub fn load(xcodeproj: &Path) -> Result<XcodeSettings, String> {
        let file = xcodeproj.join("project.pbxproj");
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let root = xcodeproj.parent().unwrap_or(Path::new("."));
        XcodeSettings::parse(&text, xcodeproj, root).map_err(|e| format!("{}: {e}", file.display()))
    }

    /// The settings in `text`, a `project.pbxproj` of the project at `xcodeproj` whose
    /// source root is `root`.
    pub fn parse(text: &str, xcodeproj: &Path, root: &Path) -> Result<XcodeSettings, String> {
        let plist = Reader { bytes: text.as_bytes(), pos: 0, depth: 0 }.document()?;
        let objects = plist.get("objects").and_then(Value::dict).ok_or("no `objects` in the project")?;
        let of_kind = |isa: &str| {
            let mut found: Vec<(&String, &HashMap<String, Value>)> = objects
                .iter()
                .filter_map(|(id, v)| Some((id, v.dict()?)))
                .filter(|(_, d)| d.get("isa").and_then(Value::str) == Some(isa))
                .collect();
            // the file's own order is not kept by the map: sort by id for a stable answer
            found.sort_by(|a, b| a.0.cmp(b.0));
            found
        };
        // the build settings of a configuration list: its `Release` configuration, else its first
        let settings_of = |list_id: Option<&str>| -> Option<&HashMap<String, Value>> {
            let list = objects.get(list_id?)?.dict()?;
            let configs: Vec<&HashMap<String, Value>> = list
                .get("buildConfigurations")?
                .array()?
                .iter()
                .filter_map(|id| objects.get(id.str()?)?.dict())
                .collect();
            let chosen = configs
                .iter()
                .find(|c| c.get("name").and_then(Value::str) == Some("Release"))
                .or_else(|| configs.first())?;
            chosen.get("buildSettings")?.dict()
        };
        let mut out = XcodeSettings { project: xcodeproj.to_path_buf(), ..XcodeSettings::default() };
        let vars = Variables { root, project: xcodeproj };
        for (_, project) in of_kind("PBXProject") {
            if let Some(s) = settings_of(project.get("buildConfigurationList").and_then(Value::str)) {
                out.apply(s, &vars);
            }
        }
        let metal_keys = |s: &HashMap<String, Value>| s.keys().any(|k| k.starts_with("MTL_") || k == "SDKROOT");
        let targets = of_kind("PBXNativeTarget");
        if let Some(s) = targets
            .iter()
            .filter_map(|(_, t)| settings_of(t.get("buildConfigurationList").and_then(Value::str)))
            .find(|s| metal_keys(s))
        {
            out.apply(s, &vars);
        }
        Ok(out)
    }

    /// Takes the Metal keys of one configuration's build settings (over earlier ones).
    fn apply(&mut self, settings: &HashMap<String, Value>, vars: &Variables<'_>) {
        if let Some(v) = settings.get("MTL_HEADER_SEARCH_PATHS") {
            self.include_dirs = items(v)
                .into_iter()
                .filter_map(|item| vars.expand(&item))
                .map(|p| {
                    // `dir/**` asks Xcode to search below `dir` too; `dir` is what is kept
                    let p = p.strip_suffix("/**").unwrap_or(&p).to_string();
                    let p = PathBuf::from(p);
                    if p.is_absolute() { p } else { vars.root.join(p) }
                })
                .collect();
        }
        if let Some(v) = settings.get("MTL_PREPROCESSOR_DEFINITIONS") {
            self.defines = items(v).into_iter().filter_map(|item| vars.expand(&item)).collect();
        }
        if let Some(v) = settings.get("MTL_LANGUAGE_REVISION").and_then(Value::str) {
            self.version = language_revision(v);
        }
        if let Some(v) = settings.get("SDKROOT").and_then(Value::str) {
            self.platform = sdk_platform(v).or(self.platform);
        }
        if let Some(v) = settings.get("MTL_FAST_MATH").and_then(Value::str) {
            self.fast_math = match v {
                "YES" => Some(true),
                "NO" => Some(false),
                _ => self.fast_math,
            };
        }
    }

    /// Applies the settings to a preprocessor configuration (before `msl.toml` and the
    /// command line, which override them).
    pub fn apply_to(&self, pp: &mut PpConfig) {
        if let Some(v) = self.version {
            pp.version = v;
        }
        if let Some(p) = self.platform {
            pp.platform = p;
        }
        if let Some(f) = self.fast_math {
            pp.fast_math = f;
        }
        pp.include_dirs.extend(self.include_dirs.iter().cloned());
        for d in &self.defines {
            pp.define(d);
        }
    }
}

/// `Metal32` is Metal 3.2, `Metal1_2` 1.2; anything else (`UseDeploymentTarget`) gives
/// none.
fn language_revision(v: &str) -> Option<MetalVersion> {
    let digits: String = v.strip_prefix("Metal")?.chars().filter(char::is_ascii_digit).collect();
    let mut d = digits.chars();
    let (major, minor) = (d.next()?, d.next().unwrap_or('0'));
    MetalVersion::parse(&format!("{major}.{minor}"))
}

fn sdk_platform(v: &str) -> Option<Platform> {
    let v = v.to_ascii_lowercase();
    if v.starts_with("macosx") {
        Some(Platform::MacOS)
    } else if v.starts_with("iphone") {
        Some(Platform::IOS)
    } else if v.starts_with("appletv") {
        Some(Platform::TvOS)
    } else if v.starts_with("xr") {
        Some(Platform::VisionOS)
    } else {
        None
    }
}

/// The items of a setting: an array's strings, or a string's words (quotes keep spaces).
fn items(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().filter_map(Value::str).flat_map(words).collect(),
        Value::Str(s) => words(s),
        Value::Dict(_) => Vec::new(),
    }
}

/// Splits a setting's string into words as Xcode does: at spaces, except inside quotes.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut any = false;
    for c in s.chars() {
        match (c, quote) {
            ('"' | '\'', None) => {
                quote = Some(c);
                any = true;
            }
            (c, Some(q)) if c == q => quote = None,
            (c, None) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (c, _) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The build variables a Metal setting may use.
struct Variables<'a> {
    root: &'a Path,
    project: &'a Path,
}

impl Variables<'_> {
    /// `item` with `$(SRCROOT)`, `${PROJECT_DIR}` and the like replaced; `None` for
    /// `$(inherited)` and for items with a variable that is not known here.
    fn expand(&self, item: &str) -> Option<String> {
        let mut out = String::new();
        let mut rest = item;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let close = match after.chars().next() {
                Some('(') => ')',
                Some('{') => '}',
                _ => {
                    out.push('$');
                    rest = after;
                    continue;
                }
            };
            let end = after.find(close)?;
            let name = &after[1..end];
            let value = match name {
                "SRCROOT" | "PROJECT_DIR" | "SOURCE_ROOT" => self.root.display().to_string(),
                "PROJECT_FILE_PATH" => self.project.display().to_string(),
                "PROJECT_NAME" | "TARGET_NAME" | "PRODUCT_NAME" => {
                    self.project.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
                }
                _ => return None,
            };
            out.push_str(&value);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        (!out.trim().is_empty()).then_some(out)
    }
}

/// A value of the property list.
#[derive(Debug, Clone)]
enum Value {
    Str(String),
    Array(Vec<Value>),
    Dict(HashMap<String, Value>),
}

impl Value {
    fn str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    fn array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    fn dict(&self) -> Option<&HashMap<String, Value>> {
        match self {
            Value::Dict(d) => Some(d),
            _ => None,
        }
    }
}

/// Nesting deeper than this is not a project file.
const MAX_DEPTH: u32 = 64;

/// Reads an old-style property list.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: u32,
}

impl Reader<'_> {
    fn document(mut self) -> Result<HashMap<String, Value>, String> {
        self.skip_trivia();
        match self.value()? {
            Value::Dict(d) => Ok(d),
            _ => Err("the project file is not a dictionary".into()),
        }
    }

    fn error(&self, what: &str) -> String {
        let line = self.bytes[..self.pos.min(self.bytes.len())].iter().filter(|&&b| b == b'\n').count() + 1;
        format!("line {line}: {what}")
    }

    /// Skips spaces and comments.
    fn skip_trivia(&mut self) {
        loop {
            while self.bytes.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
                self.pos += 1;
            }
            if self.bytes[self.pos.min(self.bytes.len())..].starts_with(b"//") {
                while self.bytes.get(self.pos).is_some_and(|&b| b != b'\n') {
                    self.pos += 1;
                }
            } else if self.bytes[self.pos.min(self.bytes.len())..].starts_with(b"/*") {
                match self.bytes[self.pos + 2..].windows(2).position(|w| w == b"*/") {
                    Some(i) => self.pos += i + 4,
                    None => self.pos = self.bytes.len(),
                }
            } else {
                return;
            }
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        self.skip_trivia();
        if self.bytes.get(self.pos) == Some(&b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", b as char)))
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_trivia();
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        match self.bytes.get(self.pos) {
            Some(b'{') => {
                self.pos += 1;
                self.depth += 1;
                let mut d = HashMap::new();
                loop {
                    self.skip_trivia();
                    if self.bytes.get(self.pos) == Some(&b'}') {
                        self.pos += 1;
                        break;
                    }
                    let key = match self.value()? {
                        Value::Str(s) => s,
                        _ => return Err(self.error("a key must be a string")),
                    };
                    self.expect(b'=')?;
                    let v = self.value()?;
                    self.expect(b';')?;
                    d.insert(key, v);
                }
                self.depth -= 1;
                Ok(Value::Dict(d))
            }
            Some(b'(') => {
                self.pos += 1;
                self.depth += 1;
                let mut a = Vec::new();
                loop {
                    self.skip_trivia();
                    if self.bytes.get(self.pos) == Some(&b')') {
                        self.pos += 1;
                        break;
                    }
                    a.push(self.value()?);
                    self.skip_trivia();
                    match self.bytes.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b')') => {}
                        _ => return Err(self.error("expected `,` or `)`")),
                    }
                }
                self.depth -= 1;
                Ok(Value::Array(a))
            }
            Some(b'"') => {
                self.pos += 1;
                let mut s = Vec::new();
                loop {
                    match self.bytes.get(self.pos) {
                        None => return Err(self.error("unterminated string")),
                        Some(b'"') => {
                            self.pos += 1;
                            break;
                        }
                        Some(b'\\') => {
                            let c = self.bytes.get(self.pos + 1).copied().unwrap_or(b'\\');
                            s.push(match c {
                                b'n' => b'\n',
                                b't' => b'\t',
                                c => c,
                            });
                            self.pos += 2;
                        }
                        Some(&c) => {
                            s.push(c);
                            self.pos += 1;
                        }
                    }
                }
                Ok(Value::Str(String::from_utf8_lossy(&s).into_owned()))
            }
            Some(_) => {
                let start = self.pos;
                while self.bytes.get(self.pos).is_some_and(|&b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'/' | b'.' | b'-' | b':' | b'+')
                }) {
                    self.pos += 1;
                }
                if self.pos == start {
                    return Err(self.error("unexpected character"));
                }
                Ok(Value::Str(String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned()))
            }
            None => Err(self.error("unexpected end of the file")),
        }
    }
}

/// The Xcode project whose files include those in `dir`: the `.xcodeproj` in `dir` or the
/// nearest folder above it that holds one (the first by name when a folder holds several).
pub fn project_for(dir: &Path) -> Option<PathBuf> {
    for d in dir.ancestors() {
        let mut found: Vec<PathBuf> = std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "xcodeproj") && p.join("project.pbxproj").is_file())
            .collect();
        found.sort();
        if let Some(p) = found.into_iter().next() {
            return Some(p);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROJECT: &str = r#"// !$*UTF8*$!
{
	archiveVersion = 1;
	objects = {
/* Begin PBXNativeTarget section */
		T1 /* Renderer */ = {
			isa = PBXNativeTarget;
			buildConfigurationList = L2 /* Build configuration list for PBXNativeTarget "Renderer" */;
			name = Renderer;
		};
/* End PBXNativeTarget section */
		P1 /* Project object */ = {
			isa = PBXProject;
			buildConfigurationList = L1;
		};
		L1 = { isa = XCConfigurationList; buildConfigurations = ( C1 /* Debug */, C2 /* Release */, ); };
		L2 = { isa = XCConfigurationList; buildConfigurations = ( C3, C4, ); };
		C1 = { isa = XCBuildConfiguration; buildSettings = { MTL_FAST_MATH = NO; SDKROOT = iphoneos; }; name = Debug; };
		C2 = { isa = XCBuildConfiguration; buildSettings = {
			MTL_FAST_MATH = YES;
			SDKROOT = macosx;
			MTL_LANGUAGE_REVISION = Metal31;
		}; name = Release; };
		C3 = { isa = XCBuildConfiguration; buildSettings = { MTL_PREPROCESSOR_DEFINITIONS = "DEBUG=1"; }; name = Debug; };
		C4 = { isa = XCBuildConfiguration; buildSettings = {
			MTL_HEADER_SEARCH_PATHS = (
				"$(inherited)",
				"$(SRCROOT)/Shared",
				"\"$(PROJECT_DIR)/With Space\"",
				"Relative/**",
				"$(UNKNOWN_VAR)/x",
			);
			MTL_PREPROCESSOR_DEFINITIONS = "TILE=16 USE_SIMD $(inherited)";
			MTL_LANGUAGE_REVISION = Metal32;
		}; name = Release; };
	};
	rootObject = P1;
}
"#;

    #[test]
    fn reads_the_metal_settings_of_the_release_configuration() {
        let root = Path::new("/src/App");
        let s = XcodeSettings::parse(PROJECT, &root.join("App.xcodeproj"), root).unwrap();
        assert_eq!(
            s.include_dirs,
            [root.join("Shared"), root.join("With Space"), root.join("Relative")],
            "variables expanded, `$(inherited)` and unknown variables dropped, `/**` cut"
        );
        assert_eq!(s.defines, ["TILE=16", "USE_SIMD"]);
        // the target's revision wins over the project's
        assert_eq!(s.version, Some(MetalVersion::parse("3.2").unwrap()));
        assert_eq!((s.platform, s.fast_math), (Some(Platform::MacOS), Some(true)));
        let mut pp = PpConfig::default();
        s.apply_to(&mut pp);
        assert_eq!(pp.defines, [("TILE".to_string(), Some("16".to_string())), ("USE_SIMD".to_string(), None)]);
        assert_eq!(pp.include_dirs.len(), 3);
    }

    #[test]
    fn language_revisions_and_sdks() {
        assert_eq!(language_revision("Metal24"), MetalVersion::parse("2.4"));
        assert_eq!(language_revision("Metal40"), MetalVersion::parse("4.0"));
        assert_eq!(language_revision("UseDeploymentTarget"), None);
        assert_eq!(sdk_platform("iphoneos17.0"), Some(Platform::IOS));
        assert_eq!(sdk_platform("xros"), Some(Platform::VisionOS));
        assert_eq!(sdk_platform("watchos"), None);
        assert_eq!(words("a \"b c\" 'd' "), ["a", "b c", "d"]);
    }

    #[test]
    fn broken_files_give_an_error_not_a_panic() {
        for bad in ["", "{", "{ a = ; }", "{ objects = { x = (", "\"", "{ a = \"x", &"(".repeat(500), "{ a = b }"] {
            let r = XcodeSettings::parse(bad, Path::new("/p/A.xcodeproj"), Path::new("/p"));
            assert!(r.is_err(), "{bad:?} gave {r:?}");
        }
    }
}
