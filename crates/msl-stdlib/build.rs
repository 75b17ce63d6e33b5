//! Turns `data/*.toml` into static Rust tables (`$OUT_DIR/tables.rs`), validating the
//! data on the way: required keys, known type sets, versions, platforms, positions.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    typesets: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    function: Vec<Function>,
    #[serde(default, rename = "type")]
    ty: Vec<Type>,
    #[serde(default)]
    method: Vec<Method>,
    #[serde(default)]
    member: Vec<Member>,
    #[serde(default)]
    attribute: Vec<Attribute>,
    #[serde(default, rename = "enum")]
    enums: Vec<Enum>,
    #[serde(default)]
    constant: Vec<Constant>,
    #[serde(default)]
    keyword: Vec<Keyword>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Overload {
    sig: String,
    #[serde(default, rename = "where")]
    bindings: Ordered,
    since: Option<String>,
    #[serde(default)]
    access: Vec<String>,
}

/// A `where` table in the order it is written: explicit template arguments bind the
/// placeholders in that order.
#[derive(Default)]
struct Ordered(Vec<(String, Binding)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of placeholders")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Binding>()? {
                    out.push(entry);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Binding {
    Named(String),
    List(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Function {
    name: String,
    #[serde(default)]
    namespaces: Vec<String>,
    section: String,
    header: Option<String>,
    since: String,
    #[serde(default)]
    platforms: Vec<String>,
    summary: String,
    doc: String,
    example: Option<String>,
    #[serde(default)]
    params: BTreeMap<String, String>,
    overload: Vec<Overload>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Type {
    name: String,
    kind: String,
    template: Option<String>,
    #[serde(default, rename = "where")]
    bindings: Ordered,
    namespace: Option<String>,
    section: String,
    header: Option<String>,
    since: String,
    #[serde(default)]
    platforms: Vec<String>,
    summary: String,
    doc: String,
    example: Option<String>,
    #[serde(default)]
    aliases: Vec<String>,
    alias_of: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Method {
    of: Vec<String>,
    name: String,
    section: String,
    since: String,
    #[serde(default)]
    platforms: Vec<String>,
    summary: String,
    doc: String,
    example: Option<String>,
    #[serde(default)]
    params: BTreeMap<String, String>,
    overload: Vec<Overload>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Member {
    of: Vec<String>,
    name: String,
    #[serde(rename = "type")]
    ty: String,
    section: String,
    since: String,
    summary: String,
    doc: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Attribute {
    name: String,
    section: String,
    since: String,
    args: String,
    #[serde(rename = "where")]
    positions: Vec<String>,
    #[serde(default)]
    types: Vec<String>,
    #[serde(default)]
    platforms: Vec<String>,
    summary: String,
    doc: String,
    example: Option<String>,
    deprecated: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnumMember {
    name: String,
    summary: String,
    since: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Enum {
    name: String,
    namespace: Option<String>,
    scoped: bool,
    section: String,
    header: Option<String>,
    since: String,
    #[serde(default)]
    platforms: Vec<String>,
    summary: String,
    doc: String,
    example: Option<String>,
    members: Vec<EnumMember>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Constant {
    name: String,
    kind: String,
    #[serde(rename = "type")]
    ty: String,
    value: Option<String>,
    section: String,
    header: Option<String>,
    since: String,
    summary: String,
    doc: String,
    example: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keyword {
    name: String,
    section: String,
    since: String,
    #[serde(default)]
    platforms: Vec<String>,
    summary: String,
    doc: String,
    example: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Checklist {
    sections: BTreeMap<String, Section>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Section {
    title: String,
    names: Vec<String>,
}

const VERSIONS: &[&str] = &["1.0", "1.1", "1.2", "2.0", "2.1", "2.2", "2.3", "2.4", "3.0", "3.1", "3.2", "4.0", "4.1"];
const POSITIONS: &[&str] = &[
    "function",
    "kernel_param",
    "vertex_param",
    "fragment_param",
    "mesh_param",
    "object_param",
    "intersection_param",
    "tile_param",
    "vertex_output",
    "fragment_input",
    "fragment_output",
    "mesh_output",
    "object_output",
    "intersection_output",
    "post_tess_vertex_input",
    "stage_in_member",
    "struct_member",
    "variable",
    "param",
    "type",
];
const TYPE_KINDS: &[&str] = &[
    "scalar",
    "vector",
    "packed_vector",
    "matrix",
    "texture",
    "sampler",
    "atomic",
    "array",
    "imageblock",
    "raytracing",
    "mesh",
    "tensor",
    "simdgroup_matrix",
    "function_table",
    "other",
];
const HELPERS: &[&str] = &["int_of(", "uint_of(", "scalar_of(", "bool_of(", "vec_of("];

struct Ctx {
    errors: Vec<String>,
    typesets: BTreeMap<String, Vec<String>>,
}

impl Ctx {
    fn version(&mut self, what: &str, v: &str) -> String {
        if !VERSIONS.contains(&v) {
            self.errors.push(format!("{what}: unknown version `{v}`"));
            return "V1_0".into();
        }
        format!("V{}", v.replace('.', "_"))
    }

    fn platforms(&mut self, what: &str, ps: &[String]) -> String {
        let mut out = String::from("&[");
        for p in ps {
            let (name, since) = match p.split_once(':') {
                Some((n, v)) => (n, Some(v)),
                None => (p.as_str(), None),
            };
            let plat = match name {
                "macos" => "MacOS",
                "ios" => "IOS",
                "tvos" => "TvOS",
                "visionos" => "VisionOS",
                other => {
                    self.errors.push(format!("{what}: unknown platform `{other}`"));
                    continue;
                }
            };
            let since = match since {
                Some(v) => format!("Some(MetalVersion::{})", self.version(what, v)),
                None => "None".into(),
            };
            let _ = write!(out, "PlatformFloor {{ platform: Platform::{plat}, since: {since} }},");
        }
        out.push(']');
        out
    }

    fn bindings(&mut self, what: &str, b: &Ordered) -> String {
        let mut out = String::from("&[");
        for (name, binding) in &b.0 {
            let spec = match binding {
                Binding::List(items) => {
                    format!("BindingSpec::Types(&[{}])", items.iter().map(|i| lit(i)).collect::<Vec<_>>().join(","))
                }
                Binding::Named(s) => {
                    let s = s.trim();
                    if let Some(members) = self.typesets.get(s) {
                        format!(
                            "BindingSpec::Set({}, &[{}])",
                            lit(s),
                            members.iter().map(|i| lit(i)).collect::<Vec<_>>().join(",")
                        )
                    } else if HELPERS.iter().any(|h| s.starts_with(h)) {
                        format!("BindingSpec::Derived({})", lit(s))
                    } else if s.split(',').all(|n| n.trim().parse::<u32>().is_ok()) {
                        format!(
                            "BindingSpec::Values(&[{}])",
                            s.split(',').map(|n| lit(n.trim())).collect::<Vec<_>>().join(",")
                        )
                    } else {
                        // a single concrete type name
                        if s.contains(' ') || s.is_empty() {
                            self.errors.push(format!("{what}: `{name}` is bound to `{s}`, which is not a type set"));
                        }
                        format!("BindingSpec::Types(&[{}])", lit(s))
                    }
                }
            };
            let _ = write!(out, "Binding {{ name: {}, spec: {spec} }},", lit(name));
        }
        out.push(']');
        out
    }

    fn overloads(&mut self, what: &str, os: &[Overload]) -> String {
        let mut out = String::from("&[");
        for o in os {
            if o.sig.trim().is_empty() {
                self.errors.push(format!("{what}: empty signature"));
            }
            let since = match &o.since {
                Some(v) => format!("Some(MetalVersion::{})", self.version(what, v)),
                None => "None".into(),
            };
            let bindings = self.bindings(what, &o.bindings);
            let access = format!("&[{}]", o.access.iter().map(|a| lit(a)).collect::<Vec<_>>().join(","));
            let _ = write!(
                out,
                "Overload {{ sig: {}, bindings: {bindings}, since: {since}, access: {access} }},",
                lit(o.sig.trim())
            );
        }
        out.push(']');
        out
    }
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn opt(s: &Option<String>) -> String {
    match s {
        Some(v) => format!("Some({})", lit(v.trim())),
        None => "None".into(),
    }
}

fn params(p: &BTreeMap<String, String>) -> String {
    format!("&[{}]", p.iter().map(|(k, v)| format!("({}, {})", lit(k), lit(v.trim()))).collect::<Vec<_>>().join(","))
}

fn strs(v: &[String]) -> String {
    format!("&[{}]", v.iter().map(|s| lit(s)).collect::<Vec<_>>().join(","))
}

fn main() {
    let data = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir")).join("data");
    println!("cargo:rerun-if-changed=data");
    let mut files: Vec<(String, File)> = Vec::new();
    let mut ctx = Ctx { errors: Vec::new(), typesets: BTreeMap::new() };
    let mut paths: Vec<PathBuf> =
        read_dir(&data).into_iter().filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    paths.sort();
    for path in &paths {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(path).expect("data file is readable");
        match toml::from_str::<File>(&text) {
            Ok(f) => files.push((path.file_name().unwrap().to_string_lossy().into_owned(), f)),
            Err(e) => ctx.errors.push(format!("{}: {e}", path.display())),
        }
    }
    for (name, f) in &files {
        for (set, members) in &f.typesets {
            if let Some(prev) = ctx.typesets.get(set)
                && prev != members
            {
                ctx.errors.push(format!("{name}: type set `{set}` is defined twice with different members"));
            }
            ctx.typesets.insert(set.clone(), members.clone());
        }
    }

    let mut out = String::new();
    out.push_str("// Generated by build.rs from data/*.toml. Do not edit.\n");
    // functions
    out.push_str("pub static FUNCTIONS: &[Function] = &[\n");
    for (file, f) in &files {
        for e in &f.function {
            let what = format!("{file}: function `{}`", e.name);
            let namespaces = if e.namespaces.is_empty() { vec!["metal".to_string()] } else { e.namespaces.clone() };
            let since = ctx.version(&what, &e.since);
            let platforms = ctx.platforms(&what, &e.platforms);
            let overloads = ctx.overloads(&what, &e.overload);
            let _ = writeln!(
                out,
                "Function {{ name: {}, namespaces: {}, section: {}, header: {}, since: MetalVersion::{since}, platforms: {platforms}, summary: {}, doc: {}, example: {}, params: {}, overloads: {overloads} }},",
                lit(&e.name),
                strs(&namespaces),
                lit(&e.section),
                opt(&e.header),
                lit(e.summary.trim()),
                lit(e.doc.trim()),
                opt(&e.example),
                params(&e.params),
            );
        }
    }
    out.push_str("];\n");
    // types
    out.push_str("pub static TYPES: &[TypeDef] = &[\n");
    for (file, f) in &files {
        for e in &f.ty {
            let what = format!("{file}: type `{}`", e.name);
            if !TYPE_KINDS.contains(&e.kind.as_str()) {
                ctx.errors.push(format!("{what}: unknown kind `{}`", e.kind));
            }
            let since = ctx.version(&what, &e.since);
            let platforms = ctx.platforms(&what, &e.platforms);
            let bindings = ctx.bindings(&what, &e.bindings);
            let _ = writeln!(
                out,
                "TypeDef {{ name: {}, kind: {}, template: {}, bindings: {bindings}, namespace: {}, section: {}, header: {}, since: MetalVersion::{since}, platforms: {platforms}, summary: {}, doc: {}, example: {}, aliases: {}, alias_of: {} }},",
                lit(&e.name),
                lit(&e.kind),
                opt(&e.template),
                lit(e.namespace.as_deref().unwrap_or("metal")),
                lit(&e.section),
                opt(&e.header),
                lit(e.summary.trim()),
                lit(e.doc.trim()),
                opt(&e.example),
                strs(&e.aliases),
                opt(&e.alias_of),
            );
        }
    }
    out.push_str("];\n");
    // methods
    out.push_str("pub static METHODS: &[Method] = &[\n");
    for (file, f) in &files {
        for e in &f.method {
            let what = format!("{file}: method `{}`", e.name);
            let since = ctx.version(&what, &e.since);
            let platforms = ctx.platforms(&what, &e.platforms);
            let overloads = ctx.overloads(&what, &e.overload);
            let _ = writeln!(
                out,
                "Method {{ of: {}, name: {}, section: {}, since: MetalVersion::{since}, platforms: {platforms}, summary: {}, doc: {}, example: {}, params: {}, overloads: {overloads} }},",
                strs(&e.of),
                lit(&e.name),
                lit(&e.section),
                lit(e.summary.trim()),
                lit(e.doc.trim()),
                opt(&e.example),
                params(&e.params),
            );
        }
    }
    out.push_str("];\n");
    // members
    out.push_str("pub static MEMBERS: &[Member] = &[\n");
    for (file, f) in &files {
        for e in &f.member {
            let what = format!("{file}: member `{}`", e.name);
            let since = ctx.version(&what, &e.since);
            let _ = writeln!(
                out,
                "Member {{ of: {}, name: {}, ty: {}, section: {}, since: MetalVersion::{since}, summary: {}, doc: {} }},",
                strs(&e.of),
                lit(&e.name),
                lit(&e.ty),
                lit(&e.section),
                lit(e.summary.trim()),
                lit(e.doc.trim()),
            );
        }
    }
    out.push_str("];\n");
    // attributes
    out.push_str("pub static ATTRIBUTES: &[AttributeDef] = &[\n");
    for (file, f) in &files {
        for e in &f.attribute {
            let what = format!("{file}: attribute `{}`", e.name);
            for p in &e.positions {
                if !POSITIONS.contains(&p.as_str()) {
                    ctx.errors.push(format!("{what}: unknown position `{p}`"));
                }
            }
            let since = ctx.version(&what, &e.since);
            let platforms = ctx.platforms(&what, &e.platforms);
            let _ = writeln!(
                out,
                "AttributeDef {{ name: {}, section: {}, since: MetalVersion::{since}, args: {}, positions: {}, types: {}, platforms: {platforms}, summary: {}, doc: {}, example: {}, deprecated: {} }},",
                lit(&e.name),
                lit(&e.section),
                lit(&e.args),
                strs(&e.positions),
                strs(&e.types),
                lit(e.summary.trim()),
                lit(e.doc.trim()),
                opt(&e.example),
                opt(&e.deprecated),
            );
        }
    }
    out.push_str("];\n");
    // enums
    out.push_str("pub static ENUMS: &[EnumDef] = &[\n");
    for (file, f) in &files {
        for e in &f.enums {
            let what = format!("{file}: enum `{}`", e.name);
            let since = ctx.version(&what, &e.since);
            let platforms = ctx.platforms(&what, &e.platforms);
            let mut members = String::from("&[");
            for m in &e.members {
                let ms = match &m.since {
                    Some(v) => ctx.version(&what, v),
                    None => since.clone(),
                };
                let _ = write!(
                    members,
                    "EnumMember {{ name: {}, summary: {}, since: MetalVersion::{ms} }},",
                    lit(&m.name),
                    lit(m.summary.trim())
                );
            }
            members.push(']');
            let _ = writeln!(
                out,
                "EnumDef {{ name: {}, namespace: {}, scoped: {}, section: {}, header: {}, since: MetalVersion::{since}, platforms: {platforms}, summary: {}, doc: {}, example: {}, members: {members} }},",
                lit(&e.name),
                lit(e.namespace.as_deref().unwrap_or("metal")),
                e.scoped,
                lit(&e.section),
                opt(&e.header),
                lit(e.summary.trim()),
                lit(e.doc.trim()),
                opt(&e.example),
            );
        }
    }
    out.push_str("];\n");
    // constants
    out.push_str("pub static CONSTANTS: &[ConstantDef] = &[\n");
    for (file, f) in &files {
        for e in &f.constant {
            let what = format!("{file}: constant `{}`", e.name);
            if !matches!(e.kind.as_str(), "macro" | "constexpr" | "enum_value") {
                ctx.errors.push(format!("{what}: unknown kind `{}`", e.kind));
            }
            let since = ctx.version(&what, &e.since);
            let _ = writeln!(
                out,
                "ConstantDef {{ name: {}, kind: {}, ty: {}, value: {}, section: {}, header: {}, since: MetalVersion::{since}, summary: {}, doc: {}, example: {} }},",
                lit(&e.name),
                lit(&e.kind),
                lit(&e.ty),
                opt(&e.value),
                lit(&e.section),
                opt(&e.header),
                lit(e.summary.trim()),
                lit(e.doc.trim()),
                opt(&e.example),
            );
        }
    }
    out.push_str("];\n");
    // keywords
    out.push_str("pub static KEYWORDS: &[KeywordDef] = &[\n");
    for (file, f) in &files {
        for e in &f.keyword {
            let what = format!("{file}: keyword `{}`", e.name);
            let since = ctx.version(&what, &e.since);
            let platforms = ctx.platforms(&what, &e.platforms);
            let _ = writeln!(
                out,
                "KeywordDef {{ name: {}, section: {}, since: MetalVersion::{since}, platforms: {platforms}, summary: {}, doc: {}, example: {} }},",
                lit(&e.name),
                lit(&e.section),
                lit(e.summary.trim()),
                lit(e.doc.trim()),
                opt(&e.example),
            );
        }
    }
    out.push_str("];\n");

    // checklist: sections merged across files
    let mut sections: BTreeMap<String, (String, BTreeSet<String>)> = BTreeMap::new();
    let mut cpaths = read_dir(&data.join("checklist"));
    cpaths.sort();
    for path in &cpaths {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(path).expect("checklist is readable");
        match toml::from_str::<Checklist>(&text) {
            Ok(c) => {
                for (num, sec) in c.sections {
                    let e = sections.entry(num).or_insert_with(|| (sec.title.clone(), BTreeSet::new()));
                    e.1.extend(sec.names);
                }
            }
            Err(e) => ctx.errors.push(format!("{}: {e}", path.display())),
        }
    }
    out.push_str("pub static CHECKLIST: &[ChecklistSection] = &[\n");
    for (num, (title, names)) in &sections {
        let names: Vec<String> = names.iter().cloned().collect();
        let _ = writeln!(
            out,
            "ChecklistSection {{ section: {}, title: {}, names: {} }},",
            lit(num),
            lit(title),
            strs(&names)
        );
    }
    out.push_str("];\n");

    if !ctx.errors.is_empty() {
        for e in &ctx.errors {
            println!("cargo:warning={e}");
        }
        panic!("{} problems in the standard library data (see the warnings above)", ctx.errors.len());
    }
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("out dir")).join("tables.rs");
    std::fs::write(dest, out).expect("write generated tables");
}

fn read_dir(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default()
}
