//! Where a file's formatting options come from: the `[format]` table of the nearest
//! `msl.toml`, or, when that has none, the common keys of the nearest `.clang-format`, or
//! the defaults.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rustc_hash::FxHashMap;
use serde::Deserialize;

use crate::{Options, ShortFunctions};

/// The `[format]` table of `msl.toml` (every key optional).
#[derive(Debug, Default, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FormatConfig {
    pub indent_width: Option<usize>,
    pub use_tabs: Option<bool>,
    pub line_width: Option<usize>,
    pub function_brace_next_line: Option<bool>,
    pub control_brace_next_line: Option<bool>,
    pub cuddle_else: Option<bool>,
    /// `left` (`float* p`) or `right` (`float *p`).
    pub pointer_alignment: Option<String>,
    pub indent_case_labels: Option<bool>,
    /// Directives at the indentation of the code around them (default: column 0).
    pub indent_directives: Option<bool>,
    /// Functions kept on one line with their body when it fits: `none`, `empty`, `inline`
    /// (defined in a class, or empty) or `all`.
    pub short_functions: Option<String>,
}

impl FormatConfig {
    /// The options it sets over the defaults, or what is wrong with it.
    pub fn options(&self) -> Result<Options, String> {
        let mut o = Options::default();
        if let Some(w) = self.indent_width {
            if !(1..=16).contains(&w) {
                return Err(format!("[format] indent-width must be 1 to 16, not {w}"));
            }
            o.print.indent_width = w;
        }
        if let Some(t) = self.use_tabs {
            o.print.use_tabs = t;
        }
        if let Some(w) = self.line_width {
            if !(20..=1000).contains(&w) {
                return Err(format!("[format] line-width must be 20 to 1000, not {w}"));
            }
            o.print.line_width = w;
        }
        if let Some(b) = self.function_brace_next_line {
            o.style.function_brace_next_line = b;
        }
        if let Some(b) = self.control_brace_next_line {
            o.style.control_brace_next_line = b;
        }
        if let Some(b) = self.cuddle_else {
            o.style.cuddle_else = b;
        }
        if let Some(b) = self.indent_case_labels {
            o.style.indent_case_labels = b;
        }
        if let Some(b) = self.indent_directives {
            o.style.indent_directives = b;
        }
        o.style.short_functions = match self.short_functions.as_deref() {
            None => o.style.short_functions,
            Some("none") => ShortFunctions::None,
            Some("empty") => ShortFunctions::Empty,
            Some("inline") => ShortFunctions::Inline,
            Some("all") => ShortFunctions::All,
            Some(other) => {
                return Err(format!("[format] short-functions is `none`, `empty`, `inline` or `all`, not `{other}`"));
            }
        };
        match self.pointer_alignment.as_deref() {
            None => {}
            Some("right") => o.style.pointer_left = false,
            Some("left") => o.style.pointer_left = true,
            Some(other) => return Err(format!("[format] pointer-alignment is `left` or `right`, not `{other}`")),
        }
        Ok(o)
    }
}

/// Reads the `[format]` table of a `msl.toml` text: `None` when it has none.
pub fn format_table(text: &str) -> Result<Option<FormatConfig>, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.message().to_string())?;
    match table.get("format") {
        None => Ok(None),
        Some(v) => v.clone().try_into().map(Some).map_err(|e: toml::de::Error| format!("[format]: {}", e.message())),
    }
}

/// The `Key: value` lines of a `.clang-format` document, and those under `BraceWrapping`.
type Keys = Vec<(String, String)>;

/// What a directory resolves to: its options and where they came from, or an error.
type Resolved = Result<(Options, Source), String>;

/// Options translated from a `.clang-format` file, with a note for each key that was
/// not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    pub options: Options,
    pub notes: Vec<String>,
}

/// Translates the keys of a `.clang-format` file that have a meaning here: `BasedOnStyle`,
/// `IndentWidth`, `TabWidth`, `UseTab`, `ColumnLimit`, `BreakBeforeBraces` (and
/// `BraceWrapping` with `Custom`), `PointerAlignment`, `IndentCaseLabels`,
/// `IndentPPDirectives`. The document
/// for C++ (`Language: Cpp`) is read, or the one without a language. Other keys are
/// listed in the notes.
pub fn translate_clang_format(text: &str) -> Translated {
    translate_clang_format_on(text, None)
}

/// [`translate_clang_format`] for a file whose `BasedOnStyle: InheritParentConfig` takes
/// `parent` (the options of the `.clang-format` above it) as its base.
pub fn translate_clang_format_on(text: &str, parent: Option<&Options>) -> Translated {
    let mut keys: Keys = Vec::new();
    let mut wrapping: Keys = Vec::new();
    let mut chosen: Option<(Keys, Keys)> = None;
    let mut language: Option<String> = None;
    let mut in_wrapping = false;
    let flush = |keys: &mut Vec<(String, String)>,
                 wrapping: &mut Vec<(String, String)>,
                 language: &mut Option<String>,
                 chosen: &mut Option<(Keys, Keys)>| {
        let fits = match language.as_deref() {
            None => chosen.is_none(),
            Some(l) => l.eq_ignore_ascii_case("cpp") || l.eq_ignore_ascii_case("objc"),
        };
        if fits && !keys.is_empty() {
            *chosen = Some((std::mem::take(keys), std::mem::take(wrapping)));
        }
        keys.clear();
        wrapping.clear();
        *language = None;
    };
    for raw in text.lines() {
        let line = raw.split(" #").next().unwrap_or("").trim_end();
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if line.trim() == "---" || line.trim() == "..." {
            flush(&mut keys, &mut wrapping, &mut language, &mut chosen);
            in_wrapping = false;
            continue;
        }
        let nested = line.starts_with(' ') || line.starts_with('\t');
        let Some((k, v)) = line.trim().split_once(':') else { continue };
        let (k, v) = (k.trim().to_string(), v.trim().trim_matches(['"', '\'']).to_string());
        if nested {
            if in_wrapping {
                wrapping.push((k, v));
            }
            continue;
        }
        in_wrapping = k == "BraceWrapping";
        if k == "Language" {
            language = Some(v);
        } else if !in_wrapping {
            keys.push((k, v));
        }
    }
    flush(&mut keys, &mut wrapping, &mut language, &mut chosen);
    let (keys, wrapping) = chosen.unwrap_or_default();
    let mut notes = Vec::new();
    let mut o = Options::default();
    let base = keys.iter().find(|(k, _)| k == "BasedOnStyle").map(|(_, v)| v.to_ascii_lowercase());
    // the parent's options, or the named style's values for the keys read here
    let inherited = match (base.as_deref(), parent) {
        (Some("inheritparentconfig"), Some(p)) => Some(*p),
        (Some("inheritparentconfig"), None) => {
            notes
                .push("BasedOnStyle: InheritParentConfig has no .clang-format above it; LLVM's values are used".into());
            None
        }
        _ => None,
    };
    use ShortFunctions::{All, Inline};
    let (indent, width, braces, left, case, short) = match base.as_deref() {
        Some("google") => (2, 80, "Attach", true, true, All),
        Some("chromium") => (2, 80, "Attach", true, true, Inline),
        Some("mozilla") => (2, 80, "Mozilla", true, true, Inline),
        Some("webkit") => (4, 0, "WebKit", true, false, All),
        Some("microsoft") => (4, 120, "Allman", false, false, ShortFunctions::None),
        Some("gnu") => (2, 79, "GNU", false, false, All),
        Some("llvm") | Some("inheritparentconfig") | None => (2, 80, "Attach", false, false, All),
        Some(other) => {
            notes.push(format!("BasedOnStyle: {other} is not known; LLVM's values are used"));
            (2, 80, "Attach", false, false, All)
        }
    };
    o.print.indent_width = indent;
    o.print.line_width = if width == 0 { 1000 } else { width };
    o.style.pointer_left = left;
    o.style.indent_case_labels = case;
    o.style.short_functions = short;
    if let Some(p) = inherited {
        o = p;
    }
    // `None`: the inherited brace options stay
    let mut braces = if inherited.is_some() { None } else { Some(braces.to_string()) };
    for (k, v) in &keys {
        let number = v.parse::<usize>().ok();
        match (k.as_str(), number) {
            ("BasedOnStyle", _) => {}
            ("IndentWidth", Some(n)) if (1..=16).contains(&n) => o.print.indent_width = n,
            ("TabWidth", Some(_)) => {}
            ("ColumnLimit", Some(n)) => o.print.line_width = if n == 0 { 1000 } else { n.clamp(20, 1000) },
            ("UseTab", _) => o.print.use_tabs = !v.eq_ignore_ascii_case("never") && !v.eq_ignore_ascii_case("false"),
            ("BreakBeforeBraces", _) => braces = Some(v.clone()),
            ("PointerAlignment", _) => match v.as_str() {
                "Left" => o.style.pointer_left = true,
                "Right" => o.style.pointer_left = false,
                _ => notes.push(format!("PointerAlignment: {v} is not supported; `Right` is used")),
            },
            ("DerivePointerAlignment", _) => {}
            ("IndentCaseLabels", _) => o.style.indent_case_labels = v == "true",
            ("IndentPPDirectives", _) => match v.as_str() {
                "None" => o.style.indent_directives = false,
                "BeforeHash" => o.style.indent_directives = true,
                _ => notes.push(format!("IndentPPDirectives: {v} is not supported; `None` is used")),
            },
            ("AllowShortFunctionsOnASingleLine", _) => match v.as_str() {
                "None" | "false" => o.style.short_functions = ShortFunctions::None,
                "Empty" => o.style.short_functions = ShortFunctions::Empty,
                "Inline" => o.style.short_functions = Inline,
                "InlineOnly" => {
                    o.style.short_functions = Inline;
                    notes.push("AllowShortFunctionsOnASingleLine: InlineOnly is read as `Inline`".into());
                }
                "All" | "true" => o.style.short_functions = All,
                _ => notes.push(format!("AllowShortFunctionsOnASingleLine: {v} is not known")),
            },
            _ => notes.push(format!("{k} is not read")),
        }
    }
    let Some(braces) = braces else { return Translated { options: o, notes } };
    let (function, control, cuddle) = match braces.as_str() {
        "Attach" => (false, false, true),
        "Linux" | "Mozilla" | "WebKit" => (true, false, true),
        "Stroustrup" => (true, false, false),
        "Allman" | "Whitesmiths" | "GNU" => (true, true, false),
        "Custom" => {
            let flag = |name: &str| wrapping.iter().any(|(k, v)| k == name && v == "true");
            (flag("AfterFunction"), flag("AfterControlStatement"), !flag("BeforeElse"))
        }
        other => {
            notes.push(format!("BreakBeforeBraces: {other} is not known; `Attach` is used"));
            (false, false, true)
        }
    };
    o.style.function_brace_next_line = function;
    o.style.control_brace_next_line = control;
    o.style.cuddle_else = cuddle;
    Translated { options: o, notes }
}

/// Where a file's options came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The `[format]` table of this `msl.toml`.
    MslToml(PathBuf),
    /// This `.clang-format` (with the notes of its translation).
    ClangFormat(PathBuf, Vec<String>),
    Defaults,
}

/// Finds the options of files, caching what each directory resolves to.
#[derive(Default)]
pub struct OptionsFinder {
    cache: Mutex<FxHashMap<PathBuf, Resolved>>,
}

impl OptionsFinder {
    /// The options for a file in directory `dir`: from the nearest `msl.toml` with a
    /// `[format]` table at or above it; if the nearest `msl.toml` has none (or there is
    /// none), from the nearest `.clang-format` (or `_clang-format`); else the defaults.
    pub fn for_dir(&self, dir: &Path) -> Resolved {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        if let Ok(cache) = self.cache.lock()
            && let Some(found) = cache.get(&dir)
        {
            return found.clone();
        }
        let found = resolve(&dir);
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(dir, found.clone());
        }
        found
    }
}

fn resolve(dir: &Path) -> Resolved {
    let mut toml_seen = false;
    for d in dir.ancestors() {
        let toml = d.join("msl.toml");
        if !toml_seen && toml.is_file() {
            toml_seen = true;
            let text = std::fs::read_to_string(&toml).map_err(|e| format!("{}: {e}", toml.display()))?;
            if let Some(f) = format_table(&text).map_err(|e| format!("{}: {e}", toml.display()))? {
                let o = f.options().map_err(|e| format!("{}: {e}", toml.display()))?;
                return Ok((o, Source::MslToml(toml)));
            }
        }
        if let Some(found) = clang_format_in(d)? {
            return Ok(found);
        }
    }
    Ok((Options::default(), Source::Defaults))
}

/// The options of the `.clang-format` (or `_clang-format`) in `dir`, following
/// `BasedOnStyle: InheritParentConfig` to the one above it (and so on up).
fn clang_format_in(dir: &Path) -> Result<Option<(Options, Source)>, String> {
    for name in [".clang-format", "_clang-format"] {
        let cf = dir.join(name);
        if !cf.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&cf).map_err(|e| format!("{}: {e}", cf.display()))?;
        let inherits = text.lines().any(|l| {
            l.split_once(':').is_some_and(|(k, v)| {
                k.trim() == "BasedOnStyle"
                    && v.trim().trim_matches(['"', '\'']).eq_ignore_ascii_case("InheritParentConfig")
            })
        });
        let mut notes = Vec::new();
        let parent = if inherits {
            let mut found = None;
            for up in dir.ancestors().skip(1) {
                if let Some((o, source)) = clang_format_in(up)? {
                    if let Source::ClangFormat(path, n) = source {
                        notes.extend(n.into_iter().map(|n| format!("{}: {n}", path.display())));
                    }
                    found = Some(o);
                    break;
                }
            }
            found
        } else {
            None
        };
        let t = translate_clang_format_on(&text, parent.as_ref());
        notes.extend(t.notes);
        return Ok(Some((t.options, Source::ClangFormat(cf, notes))));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(t: &Translated) -> String {
        let o = &t.options;
        format!(
            "indent {} tabs {} width {} fn-brace-next {} control-brace-next {} cuddle-else {} pointer-left {} case-indent {} short-functions {:?}\nnotes: {:?}",
            o.print.indent_width,
            o.print.use_tabs,
            o.print.line_width,
            o.style.function_brace_next_line,
            o.style.control_brace_next_line,
            o.style.cuddle_else,
            o.style.pointer_left,
            o.style.indent_case_labels,
            o.style.short_functions,
            t.notes
        )
    }

    #[test]
    fn clang_format_styles_translate() {
        let check = |text: &str, expect: expect_test::Expect| expect.assert_eq(&summary(&translate_clang_format(text)));
        check(
            "BasedOnStyle: LLVM\n",
            expect_test::expect![[r#"
                indent 2 tabs false width 80 fn-brace-next false control-brace-next false cuddle-else true pointer-left false case-indent false short-functions All
                notes: []"#]],
        );
        check(
            "---\nLanguage: JavaScript\nIndentWidth: 8\n---\nLanguage: Cpp\nBasedOnStyle: Google\nIndentWidth: 4\nColumnLimit: 120\nAllowShortFunctionsOnASingleLine: Empty\n",
            expect_test::expect![[r#"
                indent 4 tabs false width 120 fn-brace-next false control-brace-next false cuddle-else true pointer-left true case-indent true short-functions Empty
                notes: []"#]],
        );
        check(
            "BasedOnStyle: WebKit\nUseTab: ForIndentation\nPointerAlignment: Right\n",
            expect_test::expect![[r#"
                indent 4 tabs true width 1000 fn-brace-next true control-brace-next false cuddle-else true pointer-left false case-indent false short-functions All
                notes: []"#]],
        );
        check(
            "BreakBeforeBraces: Custom\nBraceWrapping:\n  AfterFunction: true\n  AfterControlStatement: true\n  BeforeElse: true\nIndentCaseLabels: true # comment\n",
            expect_test::expect![[r#"
                indent 2 tabs false width 80 fn-brace-next true control-brace-next true cuddle-else false pointer-left false case-indent true short-functions All
                notes: []"#]],
        );
        check(
            "BasedOnStyle: Microsoft\nPointerAlignment: Middle\n",
            expect_test::expect![[r#"
                indent 4 tabs false width 120 fn-brace-next true control-brace-next true cuddle-else false pointer-left false case-indent false short-functions None
                notes: ["PointerAlignment: Middle is not supported; `Right` is used"]"#]],
        );
    }

    #[test]
    fn the_format_table_is_read_and_checked() {
        let f = format_table("std = \"metal3.1\"\n[format]\nindent-width = 3\npointer-alignment = \"left\"\n")
            .expect("valid")
            .expect("a table");
        let o = f.options().expect("valid options");
        assert_eq!(o.print.indent_width, 3);
        assert!(o.style.pointer_left);
        assert_eq!(format_table("std = \"metal3.1\"\n").expect("valid"), None);
        assert!(format_table("[format]\nindent = 3\n").is_err());
        let bad = format_table("[format]\npointer-alignment = \"middle\"\n").expect("parses").expect("a table");
        assert!(bad.options().is_err());
    }

    #[test]
    fn inherit_parent_config_builds_on_the_clang_format_above() {
        let root = std::env::temp_dir().join(format!("msl-fmt-inherit-{}", std::process::id()));
        let sub = root.join("shaders");
        std::fs::create_dir_all(&sub).expect("dirs");
        std::fs::write(root.join(".clang-format"), "BasedOnStyle: Microsoft\nIndentWidth: 3\n").expect("write");
        std::fs::write(sub.join(".clang-format"), "BasedOnStyle: InheritParentConfig\nColumnLimit: 90\n")
            .expect("write");
        let (o, source) = OptionsFinder::default().for_dir(&sub).expect("resolves");
        // the parent's indentation and braces, the child's width
        assert_eq!((o.print.indent_width, o.print.line_width), (3, 90));
        assert!(o.style.function_brace_next_line && o.style.control_brace_next_line);
        assert_eq!(o.style.short_functions, ShortFunctions::None);
        assert!(matches!(source, Source::ClangFormat(ref p, _) if p == &sub.join(".clang-format")));
        // a file that inherits with nothing above it gets LLVM's values and a note
        let (t, notes) = {
            let t = translate_clang_format("BasedOnStyle: InheritParentConfig\n");
            (t.options, t.notes)
        };
        assert_eq!(t.print.indent_width, 2);
        assert!(notes.iter().any(|n| n.contains("InheritParentConfig")), "{notes:?}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
