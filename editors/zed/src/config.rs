//! What msl-lsp is told, and which settings a project may not give it.
//!
//! Zed merges a project's `.zed/settings.json` over the user's settings before the
//! extension sees them, and the API offers no way to ask which file a value came from.
//! The extension therefore reads the project file itself (the worktree's
//! `.zed/settings.json`) and looks for settings that name the Metal compiler msl-lsp
//! runs: `compiler.path` in `initialization_options` or `settings`, and `MSL_COMPILER`
//! in `binary.env`. A project that sets them could make the editor run any program on
//! save, so:
//!
//! - in `settings` (sent as the `msl` section of `workspace/configuration`, which the
//!   extension answers in full) the project's `compiler.path` is dropped;
//! - in `initialization_options` and `binary.env` dropping is not possible, because Zed
//!   itself merges those from the settings after asking the extension, so the extension
//!   refuses to start the server and says why.

use serde_json::{Map, Value, json};

use crate::launch::SERVER;

/// The project settings file, relative to the worktree root.
pub const PROJECT_SETTINGS_FILE: &str = ".zed/settings.json";

/// The environment variable msl-lsp reads as the compiler's path.
const COMPILER_ENV: &str = "MSL_COMPILER";

/// The initialization options: the user's `lsp.msl-lsp.initialization_options` as they
/// are (the server reads the keys at the top level or under `msl`). The extension adds
/// no defaults of its own, so the server's defaults apply to everything left unset;
/// anything but a JSON object becomes an empty object.
pub fn initialization_options(user: Option<Value>) -> Value {
    match user {
        Some(Value::Object(options)) => Value::Object(options),
        _ => Value::Object(Map::new()),
    }
}

/// The answer to `workspace/configuration`: `{"msl": ...}` holding the initialization
/// options with `lsp.msl-lsp.settings` merged over them key by key.
///
/// msl-lsp replaces all of its client settings with this section whenever it reads it
/// (right after starting and after every change), so the section carries the
/// initialization options too; otherwise keys set only there would be lost. A
/// `compiler.path` the project file sets is dropped from the part it came from.
pub fn workspace_configuration(
    initialization_options: Option<Value>,
    settings: Option<Value>,
    project: &ProjectSettings,
) -> Value {
    let mut merged = object_or_empty(initialization_options);
    let mut settings = object_or_empty(settings);
    if project.compiler_in_initialization_options {
        remove_compiler_paths(&mut merged);
    }
    if project.compiler_in_settings {
        remove_compiler_paths(&mut settings);
    }
    merge(&mut merged, settings);
    json!({ "msl": merged })
}

/// What a project's `.zed/settings.json` sets for msl-lsp that only the user may set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectSettings {
    /// `compiler.path` (at any depth) under `lsp.msl-lsp.initialization_options`.
    pub compiler_in_initialization_options: bool,
    /// `compiler.path` (at any depth) under `lsp.msl-lsp.settings`.
    pub compiler_in_settings: bool,
    /// `MSL_COMPILER` under `lsp.msl-lsp.binary.env`.
    pub compiler_in_env: bool,
    /// The file is not JSON (with comments) and mentions a compiler, so every setting
    /// above is assumed to be set.
    pub unreadable: bool,
}

impl ProjectSettings {
    /// Reads the project's settings file; `None` when the worktree has none.
    pub fn from_file(text: Option<&str>) -> ProjectSettings {
        let Some(text) = text else {
            return ProjectSettings::default();
        };
        match serde_json::from_str::<Value>(&strip_jsonc(text)) {
            Ok(value) => {
                let mut found = ProjectSettings::default();
                let mut blocks = Vec::new();
                server_blocks(&value, &mut blocks);
                for block in blocks {
                    found.compiler_in_initialization_options |=
                        block.get("initialization_options").is_some_and(sets_compiler_path);
                    found.compiler_in_settings |= block.get("settings").is_some_and(sets_compiler_path);
                    found.compiler_in_env |= block
                        .pointer("/binary/env")
                        .and_then(Value::as_object)
                        .is_some_and(|env| env.get(COMPILER_ENV).is_some_and(|v| !v.is_null()));
                }
                found
            }
            Err(_) if text.to_ascii_lowercase().contains("compiler") => ProjectSettings {
                compiler_in_initialization_options: true,
                compiler_in_settings: true,
                compiler_in_env: true,
                unreadable: true,
            },
            Err(_) => ProjectSettings::default(),
        }
    }

    /// Why the server must not start for this project, if it must not.
    pub fn refusal(&self) -> Option<String> {
        let reason = if self.unreadable {
            format!(
                "this project's {PROJECT_SETTINGS_FILE} could not be read as JSON and mentions a compiler, \
                 so it may set the compiler msl-lsp runs"
            )
        } else {
            let mut keys = Vec::new();
            if self.compiler_in_initialization_options {
                keys.push(format!("`lsp.{SERVER}.initialization_options.compiler.path`"));
            }
            if self.compiler_in_env {
                keys.push(format!("`lsp.{SERVER}.binary.env.{COMPILER_ENV}`"));
            }
            if keys.is_empty() {
                return None;
            }
            format!("this project's {PROJECT_SETTINGS_FILE} sets {}", keys.join(" and "))
        };
        Some(format!(
            "{SERVER} was not started: {reason}. The Metal compiler that {SERVER} runs is taken only from \
             your user settings; remove the setting from the project file, or move it to your user \
             settings (`zed: open settings`) if you trust it."
        ))
    }
}

/// Every object stored under an `msl-lsp` key, at any depth of the settings file.
fn server_blocks<'a>(value: &'a Value, out: &mut Vec<&'a Value>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if key == SERVER && child.is_object() {
                    out.push(child);
                }
                server_blocks(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| server_blocks(item, out)),
        _ => {}
    }
}

/// Whether `value` holds, at any depth, a `compiler` that names a program: an object
/// with a non-null `path`, or a bare value in place of the object. A `null` only clears
/// a setting and names nothing.
fn sets_compiler_path(value: &Value) -> bool {
    match value {
        Value::Object(map) => {
            let here = match map.get("compiler") {
                Some(Value::Object(compiler)) => compiler.get("path").is_some_and(|p| !p.is_null()),
                Some(Value::Null) | None => false,
                Some(_) => true,
            };
            here || map.values().any(sets_compiler_path)
        }
        Value::Array(items) => items.iter().any(sets_compiler_path),
        _ => false,
    }
}

/// Removes every `compiler.path` from `value` (and any `compiler` that is not an object),
/// keeping the rest of each `compiler` object, such as `mode`.
fn remove_compiler_paths(value: &mut Value) {
    match value {
        Value::Object(map) => {
            match map.get_mut("compiler") {
                Some(Value::Object(compiler)) => {
                    compiler.remove("path");
                }
                Some(Value::Null) | None => {}
                Some(_) => {
                    map.remove("compiler");
                }
            }
            map.values_mut().for_each(remove_compiler_paths);
        }
        Value::Array(items) => items.iter_mut().for_each(remove_compiler_paths),
        _ => {}
    }
}

fn object_or_empty(value: Option<Value>) -> Value {
    match value {
        Some(Value::Object(map)) => Value::Object(map),
        _ => Value::Object(Map::new()),
    }
}

/// Merges `over` into `base` the way Zed merges settings files: objects key by key,
/// anything else replaced.
fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(&key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (slot, value) => *slot = value,
    }
}

/// Zed's settings files are JSON with `//` and `/* */` comments and trailing commas;
/// this returns plain JSON for `serde_json`, leaving string contents untouched.
fn strip_jsonc(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    // A comma is held back until the next token shows whether it closes a container.
    let mut held_comma = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'/') => while chars.next_if(|&n| n != '\n').is_some() {},
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = '\0';
                for n in chars.by_ref() {
                    if previous == '*' && n == '/' {
                        break;
                    }
                    previous = n;
                }
                out.push(' ');
            }
            ',' => {
                if held_comma {
                    out.push(',');
                }
                held_comma = true;
            }
            c if c.is_whitespace() => out.push(c),
            c => {
                if held_comma && c != '}' && c != ']' {
                    out.push(',');
                }
                held_comma = false;
                in_string = c == '"';
                out.push(c);
            }
        }
    }
    if held_comma {
        out.push(',');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(text: &str) -> ProjectSettings {
        ProjectSettings::from_file(Some(text))
    }

    #[test]
    fn initialization_options_pass_through() {
        let user =
            json!({"std": "metal3.2", "inlayHints": {"autoTypes": false}, "compiler": {"path": "/usr/bin/metal"}});
        assert_eq!(initialization_options(Some(user.clone())), user);
        assert_eq!(initialization_options(None), json!({}));
        assert_eq!(initialization_options(Some(json!("metal3.2"))), json!({}));
    }

    #[test]
    fn settings_merge_over_initialization_options_under_msl() {
        let config = workspace_configuration(
            Some(
                json!({"std": "metal3.1", "defines": ["A"], "inlayHints": {"autoTypes": false, "parameterNames": false}}),
            ),
            Some(json!({"std": "metal3.2", "inlayHints": {"parameterNames": true}, "rules": {"W1101": "off"}})),
            &ProjectSettings::default(),
        );
        assert_eq!(
            config,
            json!({"msl": {
                "std": "metal3.2",
                "defines": ["A"],
                "inlayHints": {"autoTypes": false, "parameterNames": true},
                "rules": {"W1101": "off"},
            }})
        );
        assert_eq!(workspace_configuration(None, None, &ProjectSettings::default()), json!({"msl": {}}));
    }

    #[test]
    fn user_compiler_path_is_kept_when_the_project_sets_none() {
        let text =
            r#"{ "lsp": { "msl-lsp": { "settings": { "std": "metal3.1", "compiler": { "mode": "onSave" } } } } }"#;
        let found = project(text);
        assert_eq!(found, ProjectSettings::default());
        assert_eq!(found.refusal(), None);
        let config = workspace_configuration(
            Some(json!({"compiler": {"path": "/Applications/Xcode.app/metal"}})),
            Some(json!({"std": "metal3.1", "compiler": {"mode": "onSave"}})),
            &found,
        );
        assert_eq!(
            config,
            json!({"msl": {"std": "metal3.1", "compiler": {"path": "/Applications/Xcode.app/metal", "mode": "onSave"}}})
        );
    }

    #[test]
    fn project_compiler_path_in_settings_is_dropped_but_the_mode_kept() {
        let text = r#"
            // project settings, as Zed writes them
            {
              "lsp": {
                "msl-lsp": {
                  "settings": {
                    "compiler": { "path": "./tools/not-a-compiler.sh", "mode": "onIdle", }, /* trailing commas */
                  },
                },
              },
            }"#;
        let found = project(text);
        assert!(found.compiler_in_settings);
        assert!(!found.compiler_in_initialization_options && !found.compiler_in_env && !found.unreadable);
        assert_eq!(found.refusal(), None, "settings are answered by the extension, so it can drop the key");
        // The merged value Zed hands over is the project's; the user's own path from the
        // initialization options survives.
        let config = workspace_configuration(
            Some(json!({"compiler": {"path": "/usr/local/bin/metal"}})),
            Some(json!({"compiler": {"path": "./tools/not-a-compiler.sh", "mode": "onIdle"}})),
            &found,
        );
        assert_eq!(config, json!({"msl": {"compiler": {"path": "/usr/local/bin/metal", "mode": "onIdle"}}}));
    }

    #[test]
    fn project_compiler_path_in_initialization_options_refuses_to_start() {
        let text = r#"{"lsp": {"msl-lsp": {"initialization_options": {"msl": {"compiler": {"path": "/tmp/x"}}}}}}"#;
        let found = project(text);
        assert!(found.compiler_in_initialization_options);
        let message = found.refusal().unwrap();
        assert!(message.contains("`lsp.msl-lsp.initialization_options.compiler.path`"), "{message}");
        assert!(message.contains("user settings"), "{message}");
        // Should the server still be asked for its configuration, the project's path is not in it.
        let config = workspace_configuration(Some(json!({"msl": {"compiler": {"path": "/tmp/x"}}})), None, &found);
        assert_eq!(config, json!({"msl": {"msl": {"compiler": {}}}}));
    }

    #[test]
    fn a_bare_compiler_value_names_a_program_and_null_does_not() {
        assert!(project(r#"{"lsp": {"msl-lsp": {"settings": {"compiler": "/tmp/x"}}}}"#).compiler_in_settings);
        assert!(!project(r#"{"lsp": {"msl-lsp": {"settings": {"compiler": null}}}}"#).compiler_in_settings);
        assert!(!project(r#"{"lsp": {"msl-lsp": {"settings": {"compiler": {"path": null}}}}}"#).compiler_in_settings);
        let mut settings = json!({"compiler": "/tmp/x", "std": "metal3.2"});
        remove_compiler_paths(&mut settings);
        assert_eq!(settings, json!({"std": "metal3.2"}));
    }

    #[test]
    fn compiler_environment_variable_refuses_to_start() {
        let found =
            project(r#"{"lsp": {"msl-lsp": {"binary": {"env": {"MSL_COMPILER": "/tmp/x", "RUST_LOG": "info"}}}}}"#);
        assert!(found.compiler_in_env);
        assert!(found.refusal().unwrap().contains("`lsp.msl-lsp.binary.env.MSL_COMPILER`"));
        let harmless = project(r#"{"lsp": {"msl-lsp": {"binary": {"env": {"RUST_LOG": "info"}}}}}"#);
        assert_eq!(harmless.refusal(), None);
    }

    #[test]
    fn other_servers_and_comments_are_not_mistaken_for_msl_lsp() {
        let text = r#"{
            // "msl-lsp": { "settings": { "compiler": { "path": "/tmp/x" } } }
            "lsp": { "clangd": { "initialization_options": { "compiler": { "path": "/usr/bin/clang" } } } },
            "tab_size": 4
        }"#;
        assert_eq!(project(text), ProjectSettings::default());
        assert_eq!(ProjectSettings::from_file(None), ProjectSettings::default());
    }

    #[test]
    fn unreadable_file_that_mentions_a_compiler_fails_closed() {
        let found = project(r#"{"lsp": {"msl-lsp": {"settings": {"compiler": {"path": "/tmp/x"}}}"#);
        assert!(found.unreadable && found.compiler_in_settings && found.compiler_in_initialization_options);
        assert!(found.refusal().unwrap().contains("could not be read as JSON"));
        assert_eq!(project(r#"{"tab_size": 4"#), ProjectSettings::default());
    }

    #[test]
    fn jsonc_keeps_strings_and_drops_comments_and_trailing_commas() {
        let text = "\u{feff}{\n  // a comment\n  \"url\": \"http://example.com/*not a comment*/\", /* block */\n  \"list\": [1, 2,],\n  \"quote\": \"a \\\" // b\",\n}";
        let value: Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(value, json!({"url": "http://example.com/*not a comment*/", "list": [1, 2], "quote": "a \" // b"}));
    }
}
