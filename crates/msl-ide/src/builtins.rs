//! A read-only document that declares the built-in library, so that "go to definition"
//! on a library name has somewhere to go: every function with its overloads, every type,
//! enum, constant, member function and attribute, each with its summary.

use std::fmt::Write;
use std::sync::OnceLock;

use msl_stdlib::{ATTRIBUTES, CONSTANTS, ENUMS, Entry, FUNCTIONS, KEYWORDS, MEMBERS, METHODS, TYPES};
use msl_syntax::TextRange;
use rustc_hash::FxHashMap;

/// The path the built-in library document is known by (the server maps it to a file it
/// writes, or to a URI of its own).
pub const BUILTIN_LIBRARY_PATH: &str = "<metal builtins>/metal_stdlib.metal";

struct Library {
    text: String,
    /// Keys such as `fn:clamp`, `type:float4`, `method:texture2d:sample` to the range of
    /// the name in `text`.
    names: FxHashMap<String, TextRange>,
}

fn library() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(build)
}

/// The text of the built-in library document.
pub fn builtin_library_text() -> &'static str {
    &library().text
}

/// Where an entry is declared in the built-in library document.
pub(crate) fn entry_range(entry: &Entry) -> Option<TextRange> {
    let key = match entry {
        Entry::Function(f) => format!("fn:{}", f.name),
        Entry::Type(t) => format!("type:{}", t.name),
        Entry::Method(m) => format!("method:{}:{}", m.of.first().copied().unwrap_or(""), m.name),
        Entry::Member(m) => format!("member:{}:{}", m.of.first().copied().unwrap_or(""), m.name),
        Entry::Attribute(a) => format!("attr:{}", a.name),
        Entry::Enum(e) => format!("enum:{}", e.name),
        Entry::EnumMember(e, m) => format!("enumval:{}:{}", e.name, m.name),
        Entry::Constant(c) => format!("const:{}", c.name),
        Entry::Keyword(k) => format!("kw:{}", k.name),
    };
    library().names.get(&key).copied()
}

struct Writer {
    text: String,
    names: FxHashMap<String, TextRange>,
}

impl Writer {
    fn comment(&mut self, s: &str) {
        for line in s.lines() {
            let _ = writeln!(self.text, "/// {line}");
        }
    }

    /// Writes `line`, recording where `name` first appears in it under `key`.
    fn decl(&mut self, key: String, line: &str, name: &str) {
        let start = self.text.len();
        let _ = writeln!(self.text, "{line}");
        let at = find_word(line, name).map(|i| start + i).unwrap_or(start);
        self.names.entry(key).or_insert_with(|| TextRange::at((at as u32).into(), (name.len() as u32).into()));
    }
}

fn find_word(line: &str, word: &str) -> Option<usize> {
    if word.is_empty() {
        return None;
    }
    let bytes = line.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(i) = line[from..].find(word) {
        let s = from + i;
        let e = s + word.len();
        if (s == 0 || !is_ident(bytes[s - 1])) && (e >= bytes.len() || !is_ident(bytes[e])) {
            return Some(s);
        }
        from = s + 1;
    }
    None
}

fn build() -> Library {
    let mut w = Writer { text: String::new(), names: FxHashMap::default() };
    w.text.push_str(
        "// The Metal standard library as msl models it: declarations for reading and navigation.\n\
         // This document is generated and read-only; the real headers ship with Apple's SDK.\n\n",
    );
    w.text.push_str("namespace metal {\n\n// ---- types ----\n\n");
    for t in TYPES.iter() {
        w.comment(t.summary);
        let decl = match (t.alias_of, t.template) {
            (Some(of), _) => format!("typedef {of} {};", t.name),
            (None, Some(tpl)) => format!("{tpl}\nstruct {};", t.name),
            (None, None) => format!("struct {}; // {}", t.name, t.kind),
        };
        w.decl(format!("type:{}", t.name), &decl, t.name);
        for a in t.aliases {
            w.decl(format!("type:{a}"), &format!("typedef {} {a};", t.name), a);
        }
        w.text.push('\n');
    }
    w.text.push_str("// ---- enumerations ----\n\n");
    for e in ENUMS.iter() {
        w.comment(e.summary);
        let head = format!("enum {}{} {{", if e.scoped { "class " } else { "" }, e.name);
        w.decl(format!("enum:{}", e.name), &head, e.name);
        for m in e.members {
            let line = format!("    {}, // {}", m.name, m.summary.lines().next().unwrap_or(""));
            w.decl(format!("enumval:{}:{}", e.name, m.name), &line, m.name);
        }
        w.text.push_str("};\n\n");
    }
    w.text.push_str("// ---- constants ----\n\n");
    for c in CONSTANTS.iter() {
        w.comment(c.summary);
        let value = c.value.map(|v| format!(" = {v}")).unwrap_or_default();
        w.decl(format!("const:{}", c.name), &format!("constexpr constant {} {}{value};", c.ty, c.name), c.name);
        w.text.push('\n');
    }
    w.text.push_str("// ---- functions ----\n\n");
    for f in FUNCTIONS.iter() {
        w.comment(f.summary);
        for o in f.overloads {
            w.decl(format!("fn:{}", f.name), &format!("{};", o.sig), f.name);
        }
        w.text.push('\n');
    }
    w.text.push_str("// ---- member functions ----\n\n");
    for m in METHODS.iter() {
        let of = m.of.join(", ");
        w.comment(&format!("{} ({of})", m.summary));
        for o in m.overloads {
            w.decl(
                format!("method:{}:{}", m.of.first().copied().unwrap_or(""), m.name),
                &format!("{};", o.sig),
                m.name,
            );
        }
        for other in m.of.iter().skip(1) {
            let key = format!("method:{other}:{}", m.name);
            if let Some(r) = w.names.get(&format!("method:{}:{}", m.of[0], m.name)).copied() {
                w.names.entry(key).or_insert(r);
            }
        }
        w.text.push('\n');
    }
    w.text.push_str("// ---- data members ----\n\n");
    for m in MEMBERS.iter() {
        w.comment(&format!("{} ({})", m.summary, m.of.join(", ")));
        w.decl(
            format!("member:{}:{}", m.of.first().copied().unwrap_or(""), m.name),
            &format!("{} {};", m.ty, m.name),
            m.name,
        );
        w.text.push('\n');
    }
    w.text.push_str("} // namespace metal\n\n// ---- attributes ----\n\n");
    for a in ATTRIBUTES.iter() {
        w.comment(a.summary);
        w.decl(
            format!("attr:{}", a.name),
            &format!("// [[{}{}]] on: {}", a.name, a.args, a.positions.join(", ")),
            a.name,
        );
        w.text.push('\n');
    }
    w.text.push_str("// ---- keywords ----\n\n");
    for k in KEYWORDS.iter() {
        w.comment(k.summary);
        w.decl(format!("kw:{}", k.name), &format!("// {}", k.name), k.name);
        w.text.push('\n');
    }
    Library { text: w.text, names: w.names }
}
