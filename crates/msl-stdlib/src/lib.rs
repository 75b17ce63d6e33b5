//! The Metal Shading Language standard library as data.
//!
//! Every builtin type, free function, member function, data member, attribute, enum,
//! constant and keyword of MSL 4.1, with its signatures (overloads with generic
//! placeholders bound to the exact type sets they stand for), availability (Metal version
//! and platforms), spec section, header and documentation written for this project. The
//! tables are generated at compile time from the reviewable TOML under `data/`; the
//! name index is built on first use.
//!
//! Hover, completion, signature help, overload resolution and availability checks all
//! read these tables.

mod calls;
mod hover;

use std::sync::OnceLock;

pub use calls::{SCALAR_TYPES, split_top_level};
pub use hover::{hover, hover_overload};
pub use msl_syntax::{MetalVersion, Platform};
use rustc_hash::FxHashMap;

/// An OS where availability differs, with its own first Metal version if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlatformFloor {
    pub platform: Platform,
    pub since: Option<MetalVersion>,
}

/// What a generic placeholder (`T`, `Ti`, `N`) stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingSpec {
    /// A named type set and its members.
    Set(&'static str, &'static [&'static str]),
    /// An explicit list of types.
    Types(&'static [&'static str]),
    /// Values of a non-type placeholder (vector sizes).
    Values(&'static [&'static str]),
    /// Derived from another placeholder: `int_of(T)`, `vec_of(T, 4)`, `scalar_of(T)`.
    Derived(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    pub name: &'static str,
    pub spec: BindingSpec,
}

impl Binding {
    /// The concrete types (or values) the placeholder stands for; empty when derived.
    pub fn members(&self) -> &'static [&'static str] {
        match self.spec {
            BindingSpec::Set(_, m) | BindingSpec::Types(m) | BindingSpec::Values(m) => m,
            BindingSpec::Derived(_) => &[],
        }
    }
}

/// One signature of a function or member function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overload {
    /// A C++ declaration: `T clamp(T x, T minval, T maxval)`.
    pub sig: &'static str,
    pub bindings: &'static [Binding],
    /// Set when this overload is newer than the function itself.
    pub since: Option<MetalVersion>,
    /// For texture members: the access qualifiers that allow it.
    pub access: &'static [&'static str],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    pub name: &'static str,
    /// `metal`, and for math functions also `metal::fast` and `metal::precise`.
    pub namespaces: &'static [&'static str],
    pub section: &'static str,
    pub header: Option<&'static str>,
    pub since: MetalVersion,
    pub platforms: &'static [PlatformFloor],
    pub summary: &'static str,
    pub doc: &'static str,
    pub example: Option<&'static str>,
    pub params: &'static [(&'static str, &'static str)],
    pub overloads: &'static [Overload],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeDef {
    pub name: &'static str,
    /// `scalar`, `vector`, `texture`, `atomic`, ...
    pub kind: &'static str,
    /// `template <typename T, access a = access::sample>` for type templates.
    pub template: Option<&'static str>,
    pub bindings: &'static [Binding],
    pub namespace: &'static str,
    pub section: &'static str,
    pub header: Option<&'static str>,
    pub since: MetalVersion,
    pub platforms: &'static [PlatformFloor],
    pub summary: &'static str,
    pub doc: &'static str,
    pub example: Option<&'static str>,
    pub aliases: &'static [&'static str],
    /// For names that stand for another type (`float4` is `vec<float, 4>`).
    pub alias_of: Option<&'static str>,
}

/// A member function of one or more builtin types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Method {
    pub of: &'static [&'static str],
    pub name: &'static str,
    pub section: &'static str,
    pub since: MetalVersion,
    pub platforms: &'static [PlatformFloor],
    pub summary: &'static str,
    pub doc: &'static str,
    pub example: Option<&'static str>,
    pub params: &'static [(&'static str, &'static str)],
    pub overloads: &'static [Overload],
}

/// A data member or member constant of builtin types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub of: &'static [&'static str],
    pub name: &'static str,
    pub ty: &'static str,
    pub section: &'static str,
    pub since: MetalVersion,
    pub summary: &'static str,
    pub doc: &'static str,
}

/// Where an attribute may be written.
pub type Position = &'static str;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttributeDef {
    pub name: &'static str,
    pub section: &'static str,
    pub since: MetalVersion,
    /// `""` for none, else a pattern such as `(index)`, `(quad, N)`, `[(type)]`.
    pub args: &'static str,
    /// `kernel_param`, `vertex_output`, `function`, ... (see the data README).
    pub positions: &'static [Position],
    /// Parameter or member types accepted; empty when any.
    pub types: &'static [&'static str],
    pub platforms: &'static [PlatformFloor],
    pub summary: &'static str,
    pub doc: &'static str,
    pub example: Option<&'static str>,
    pub deprecated: Option<&'static str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnumMember {
    pub name: &'static str,
    pub summary: &'static str,
    pub since: MetalVersion,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnumDef {
    pub name: &'static str,
    pub namespace: &'static str,
    pub scoped: bool,
    pub section: &'static str,
    pub header: Option<&'static str>,
    pub since: MetalVersion,
    pub platforms: &'static [PlatformFloor],
    pub summary: &'static str,
    pub doc: &'static str,
    pub example: Option<&'static str>,
    pub members: &'static [EnumMember],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantDef {
    pub name: &'static str,
    /// `macro`, `constexpr` or `enum_value`.
    pub kind: &'static str,
    pub ty: &'static str,
    pub value: Option<&'static str>,
    pub section: &'static str,
    pub header: Option<&'static str>,
    pub since: MetalVersion,
    pub summary: &'static str,
    pub doc: &'static str,
    pub example: Option<&'static str>,
}

/// Address spaces and function qualifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeywordDef {
    pub name: &'static str,
    pub section: &'static str,
    pub since: MetalVersion,
    pub platforms: &'static [PlatformFloor],
    pub summary: &'static str,
    pub doc: &'static str,
    pub example: Option<&'static str>,
}

/// Names a section of the specification defines (extracted from the spec text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChecklistSection {
    pub section: &'static str,
    pub title: &'static str,
    pub names: &'static [&'static str],
}

mod tables {
    use super::*;
    use msl_syntax::{MetalVersion, Platform};
    include!(concat!(env!("OUT_DIR"), "/tables.rs"));
}

pub use tables::{ATTRIBUTES, CHECKLIST, CONSTANTS, ENUMS, FUNCTIONS, KEYWORDS, MEMBERS, METHODS, TYPES};

/// Anything the library defines under a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Function(&'static Function),
    Type(&'static TypeDef),
    Method(&'static Method),
    Member(&'static Member),
    Attribute(&'static AttributeDef),
    Enum(&'static EnumDef),
    EnumMember(&'static EnumDef, &'static EnumMember),
    Constant(&'static ConstantDef),
    Keyword(&'static KeywordDef),
}

impl Entry {
    pub fn name(&self) -> &'static str {
        match self {
            Entry::Function(f) => f.name,
            Entry::Type(t) => t.name,
            Entry::Method(m) => m.name,
            Entry::Member(m) => m.name,
            Entry::Attribute(a) => a.name,
            Entry::Enum(e) => e.name,
            Entry::EnumMember(_, m) => m.name,
            Entry::Constant(c) => c.name,
            Entry::Keyword(k) => k.name,
        }
    }

    pub fn summary(&self) -> &'static str {
        match self {
            Entry::Function(f) => f.summary,
            Entry::Type(t) => t.summary,
            Entry::Method(m) => m.summary,
            Entry::Member(m) => m.summary,
            Entry::Attribute(a) => a.summary,
            Entry::Enum(e) => e.summary,
            Entry::EnumMember(_, m) => m.summary,
            Entry::Constant(c) => c.summary,
            Entry::Keyword(k) => k.summary,
        }
    }

    pub fn doc(&self) -> &'static str {
        match self {
            Entry::Function(f) => f.doc,
            Entry::Type(t) => t.doc,
            Entry::Method(m) => m.doc,
            Entry::Member(m) => m.doc,
            Entry::Attribute(a) => a.doc,
            Entry::Enum(e) => e.doc,
            Entry::EnumMember(e, _) => e.doc,
            Entry::Constant(c) => c.doc,
            Entry::Keyword(k) => k.doc,
        }
    }

    /// The first Metal version that has it.
    pub fn since(&self) -> MetalVersion {
        match self {
            Entry::Function(f) => f.since,
            Entry::Type(t) => t.since,
            Entry::Method(m) => m.since,
            Entry::Member(m) => m.since,
            Entry::Attribute(a) => a.since,
            Entry::Enum(e) => e.since,
            Entry::EnumMember(_, m) => m.since,
            Entry::Constant(c) => c.since,
            Entry::Keyword(k) => k.since,
        }
    }

    pub fn section(&self) -> &'static str {
        match self {
            Entry::Function(f) => f.section,
            Entry::Type(t) => t.section,
            Entry::Method(m) => m.section,
            Entry::Member(m) => m.section,
            Entry::Attribute(a) => a.section,
            Entry::Enum(e) | Entry::EnumMember(e, _) => e.section,
            Entry::Constant(c) => c.section,
            Entry::Keyword(k) => k.section,
        }
    }

    pub fn platforms(&self) -> &'static [PlatformFloor] {
        match self {
            Entry::Function(f) => f.platforms,
            Entry::Type(t) => t.platforms,
            Entry::Method(m) => m.platforms,
            Entry::Attribute(a) => a.platforms,
            Entry::Enum(e) | Entry::EnumMember(e, _) => e.platforms,
            Entry::Keyword(k) => k.platforms,
            Entry::Member(_) | Entry::Constant(_) => &[],
        }
    }

    /// Whether it exists when compiling for `version` on `platform`.
    pub fn available(&self, version: MetalVersion, platform: Platform) -> bool {
        available(self.since(), self.platforms(), version, platform)
    }

    /// Every documentation string of the entry (for the originality check).
    pub fn prose(&self) -> Vec<&'static str> {
        let mut v = vec![self.summary(), self.doc()];
        let example = match self {
            Entry::Function(f) => {
                v.extend(f.params.iter().map(|p| p.1));
                f.example
            }
            Entry::Method(m) => {
                v.extend(m.params.iter().map(|p| p.1));
                m.example
            }
            Entry::Type(t) => t.example,
            Entry::Attribute(a) => a.example,
            Entry::Enum(e) => {
                v.extend(e.members.iter().map(|m| m.summary));
                e.example
            }
            Entry::Constant(c) => c.example,
            Entry::Keyword(k) => k.example,
            Entry::Member(_) | Entry::EnumMember(..) => None,
        };
        v.extend(example);
        v
    }
}

/// Availability rule: the entry's first version, raised by a per-platform floor when one is
/// listed; an entry that lists platforms exists only on those.
pub fn available(since: MetalVersion, platforms: &[PlatformFloor], version: MetalVersion, platform: Platform) -> bool {
    if version < since {
        return false;
    }
    if platforms.is_empty() {
        return true;
    }
    platforms.iter().any(|p| p.platform == platform && p.since.is_none_or(|s| version >= s))
}

/// The library, indexed by name.
pub struct Stdlib {
    by_name: FxHashMap<&'static str, Vec<Entry>>,
    methods_of: FxHashMap<&'static str, Vec<&'static Method>>,
    members_of: FxHashMap<&'static str, Vec<&'static Member>>,
}

impl Stdlib {
    /// The shared instance; the index is built on the first call.
    pub fn get() -> &'static Stdlib {
        static LIB: OnceLock<Stdlib> = OnceLock::new();
        LIB.get_or_init(Stdlib::build)
    }

    fn build() -> Stdlib {
        let mut by_name: FxHashMap<&'static str, Vec<Entry>> = FxHashMap::default();
        let mut add = |name: &'static str, e: Entry| by_name.entry(name).or_default().push(e);
        for f in FUNCTIONS {
            add(f.name, Entry::Function(f));
        }
        for t in TYPES {
            add(t.name, Entry::Type(t));
            for a in t.aliases {
                add(a, Entry::Type(t));
            }
        }
        for a in ATTRIBUTES {
            add(a.name, Entry::Attribute(a));
        }
        for e in ENUMS {
            add(e.name, Entry::Enum(e));
            for m in e.members {
                add(m.name, Entry::EnumMember(e, m));
            }
        }
        for c in CONSTANTS {
            add(c.name, Entry::Constant(c));
        }
        for k in KEYWORDS {
            add(k.name, Entry::Keyword(k));
        }
        for m in METHODS {
            add(m.name, Entry::Method(m));
        }
        for m in MEMBERS {
            add(m.name, Entry::Member(m));
        }
        let mut methods_of: FxHashMap<&'static str, Vec<&'static Method>> = FxHashMap::default();
        for m in METHODS {
            for t in m.of {
                methods_of.entry(t).or_default().push(m);
            }
        }
        let mut members_of: FxHashMap<&'static str, Vec<&'static Member>> = FxHashMap::default();
        for m in MEMBERS {
            for t in m.of {
                members_of.entry(t).or_default().push(m);
            }
        }
        Stdlib { by_name, methods_of, members_of }
    }

    /// Everything defined under `name` (functions, types, attributes, enum members, ...).
    pub fn lookup(&self, name: &str) -> &[Entry] {
        self.by_name.get(name).map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// Entries reachable as `namespace::name` (`metal::fast::sin`, `access::read`,
    /// `raytracing::ray`); `namespace` may be empty.
    pub fn lookup_qualified(&self, namespace: &str, name: &str) -> Vec<Entry> {
        let ns = namespace.trim_start_matches("::");
        self.lookup(name)
            .iter()
            .copied()
            .filter(|e| match e {
                _ if ns.is_empty() => true,
                Entry::Function(f) => f.namespaces.iter().any(|n| namespace_matches(n, ns)),
                Entry::Type(t) => namespace_matches(t.namespace, ns),
                Entry::Enum(en) => namespace_matches(en.namespace, ns),
                Entry::EnumMember(en, _) => {
                    en.name == ns.rsplit("::").next().unwrap_or(ns)
                        || (!en.scoped && namespace_matches(en.namespace, ns))
                }
                Entry::Constant(_) | Entry::Keyword(_) | Entry::Attribute(_) => ns == "metal",
                Entry::Method(_) | Entry::Member(_) => false,
            })
            .collect()
    }

    /// The free functions named `name`.
    pub fn functions(&self, name: &str) -> impl Iterator<Item = &'static Function> + '_ {
        self.lookup(name).iter().filter_map(|e| match e {
            Entry::Function(f) => Some(*f),
            _ => None,
        })
    }

    pub fn type_named(&self, name: &str) -> Option<&'static TypeDef> {
        self.lookup(name).iter().find_map(|e| match e {
            Entry::Type(t) => Some(*t),
            _ => None,
        })
    }

    /// Member functions of a builtin type (by its template name: `texture2d`).
    pub fn methods_of(&self, type_name: &str) -> &[&'static Method] {
        self.methods_of.get(type_name).map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// Member functions named `method` of `type_name`.
    pub fn method<'a>(&'a self, type_name: &str, method: &'a str) -> impl Iterator<Item = &'static Method> + 'a {
        self.methods_of(type_name).iter().copied().filter(move |m| m.name == method)
    }

    /// Data members of a builtin type.
    pub fn members_of(&self, type_name: &str) -> &[&'static Member] {
        self.members_of.get(type_name).map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// The attributes named `name` (one per position family).
    pub fn attributes_named(&self, name: &str) -> impl Iterator<Item = &'static AttributeDef> + '_ {
        self.lookup(name).iter().filter_map(|e| match e {
            Entry::Attribute(a) => Some(*a),
            _ => None,
        })
    }

    /// Attributes allowed at `position` (`kernel_param`, `fragment_output`, ...).
    pub fn attributes_for<'a>(&self, position: &'a str) -> impl Iterator<Item = &'static AttributeDef> + 'a {
        ATTRIBUTES.iter().filter(move |a| a.positions.contains(&position))
    }

    /// Every name the library defines.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.by_name.keys().copied()
    }
}

fn namespace_matches(decl: &str, wanted: &str) -> bool {
    decl == wanted || decl.strip_prefix("metal::") == Some(wanted) || wanted.strip_prefix("metal::") == Some(decl)
}
