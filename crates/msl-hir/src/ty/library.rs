//! The library's signatures as typed values.
//!
//! Each overload of `msl-stdlib` is a C++ declaration in text (`T clamp(T x, T minval, T
//! maxval)`, `Tv sample(sampler s, float2 coord, int2 offset = int2(0)) const`). It is
//! parsed once, with the same parser as user code, and its types are lowered with the same
//! lowering, its placeholders (`T`, `Tv`, a template's parameters) becoming
//! [`TyKind::Param`] types that overload resolution binds.

use std::sync::{Arc, Mutex, OnceLock};

use msl_stdlib::Overload;
use msl_syntax::SyntaxKind;
use msl_syntax::ast::{self, AstNode};
use rustc_hash::FxHashMap;

use super::{AddressSpace, PathRef, TemplateArg, Ty, TyKind, TypeEnv, TypeRef};

/// One parameter of a library signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibParam {
    pub name: Option<Arc<str>>,
    pub ty: Ty,
    /// It has a default argument, so a call may leave it out.
    pub has_default: bool,
}

/// A library overload, typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibSignature {
    pub name: Arc<str>,
    pub ret: Ty,
    pub params: Vec<LibParam>,
    pub variadic: bool,
    /// The names its types use as placeholders: the overload's bindings and its own
    /// template parameters.
    pub placeholders: Vec<Arc<str>>,
    /// Of a member function: `const`, and the address space written after the parameters.
    pub is_const: bool,
    pub space: Option<AddressSpace>,
}

impl LibSignature {
    /// How many arguments a call needs at least.
    pub fn required(&self) -> usize {
        self.params.iter().take_while(|p| !p.has_default).count()
    }
}

/// The typed signature of an overload, made on first use (`None` when its text does not
/// parse as a declaration, which a test rules out for the whole library).
pub fn signature(o: &'static Overload) -> Option<Arc<LibSignature>> {
    static CACHE: OnceLock<Mutex<FxHashMap<usize, Option<Arc<LibSignature>>>>> = OnceLock::new();
    let key = o as *const Overload as usize;
    let cache = CACHE.get_or_init(Default::default);
    if let Ok(c) = cache.lock()
        && let Some(s) = c.get(&key)
    {
        return s.clone();
    }
    let sig = parse_signature(o.sig, o.bindings.iter().map(|b| b.name)).map(Arc::new);
    if let Ok(mut c) = cache.lock() {
        c.insert(key, sig.clone());
    }
    sig
}

/// Placeholders resolve to parameter types; every other name to the library's.
struct Placeholders<'a>(&'a [Arc<str>]);

impl TypeEnv for Placeholders<'_> {
    fn resolve_type(&self, path: &PathRef, args: &[TemplateArg]) -> Option<Ty> {
        let name = path.name();
        if path.segments.len() != 1 {
            return None;
        }
        // a placeholder, or a name that is no library type: a member type of the class the
        // signature belongs to (`rank_type`, `const_iterator`) or a parameter of its
        // template, which depend on the class as placeholders do
        let placeholder = self.0.iter().any(|p| &**p == name);
        (placeholder || super::library_type(name, args).is_none()).then(|| Ty::param(name))
    }
}

/// Member types the signatures use by their short name (`iterator`, `result_type`), and
/// other names that stand for types only inside the library's own declarations.
const MEMBER_TYPES: [&str; 8] =
    ["iterator", "element_type", "result_type", "value_type", "index_type", "size_type", "extents_type", "E"];

fn parse_signature<'a>(sig: &str, bindings: impl Iterator<Item = &'a str>) -> Option<LibSignature> {
    let mut placeholders: Vec<Arc<str>> = bindings.map(Arc::from).collect();
    // the placeholders and member types are declared as types first, so that the
    // declaration parses as one
    let mut text = String::new();
    for p in placeholders.iter().map(|p| &**p).chain(MEMBER_TYPES) {
        text.push_str(&format!("struct {p};\n"));
    }
    // a constructor (`bias(float value)`, `template <...> tensor(...) thread`) is declared
    // in its class
    let ctor = constructor_of(sig);
    // the library writes `<...>` for template arguments it leaves unspecified
    let sig = sig.replace("<...>", "<>");
    match ctor {
        // in a class template, its name with arguments names the class
        Some(class) if msl_syntax::is_library_template_name(class) => {
            text.push_str(&format!("template <typename... Args> struct {class} {{ {sig}; }};\n"))
        }
        Some(class) => text.push_str(&format!("struct {class} {{ {sig}; }};\n")),
        None => text.push_str(&format!("{sig};\n")),
    }
    let parse = msl_syntax::parse_text(&text, &msl_syntax::PpConfig::default());
    if parse.errors().next().is_some() {
        return None;
    }
    let function = parse.syntax().descendants().filter_map(ast::Function::cast).last()?;
    // template parameters of the overload itself: `template <typename U> U f(...)`
    if let Some(tpl) = function.syntax().parent().filter(|p| p.kind() == SyntaxKind::TEMPLATE_DECL) {
        for list in tpl.children().filter_map(ast::TemplateParamList::cast) {
            for p in list.params() {
                let name = p.syntax().descendants().find_map(ast::Name::cast).map(|n| n.text());
                if let Some(n) = name {
                    placeholders.push(Arc::from(n));
                }
            }
        }
    }
    placeholders.extend(MEMBER_TYPES.iter().map(|m| Arc::from(*m)));
    let env = Placeholders(&placeholders);
    // a declaration without a body keeps its declarator in an INIT_DECLARATOR
    let decl = function.declarator().or_else(|| {
        function
            .syntax()
            .children()
            .find(|c| c.kind() == SyntaxKind::INIT_DECLARATOR)
            .and_then(|i| i.children().find_map(ast::Declarator::cast))
    })?;
    let name: Arc<str> = Arc::from(decl.name()?.text());
    let ret = match ctor {
        // what a constructor makes
        Some(class) => super::library_type(class, &[]).unwrap_or_else(Ty::unknown),
        None => TypeRef::from_syntax(function.decl_specifiers().as_ref(), Some(&decl)).returned()?.lower(&env).ty,
    };
    let list = decl.param_list()?;
    // a trailing parameter pack (`OtherIndexTypes... index`) takes any number of arguments
    let pack = list.params().last().and_then(|p| p.declarator()).is_some_and(|d| d.is_pack());
    let mut params = Vec::new();
    for p in list.params() {
        let t = TypeRef::from_syntax(p.decl_specifiers().as_ref(), p.declarator().as_ref());
        let ty = super::lower::decay(t.lower(&env).ty);
        if matches!(ty.kind(), TyKind::Void) {
            continue;
        }
        let is_pack = p.declarator().is_some_and(|d| d.is_pack());
        let has_default = is_pack || p.syntax().children_with_tokens().any(|e| e.kind() == SyntaxKind::EQ);
        params.push(LibParam { name: p.name().map(|n| Arc::from(n.text())), ty, has_default });
    }
    let quals: Vec<_> = decl.function_qualifiers().collect();
    Some(LibSignature {
        name,
        ret,
        params,
        variadic: list.is_variadic() || pack,
        placeholders,
        is_const: quals.iter().any(|t| t.kind() == SyntaxKind::CONST_KW),
        space: quals.iter().find_map(|t| AddressSpace::from_keyword(t.text())),
    })
}

/// The class a signature constructs, when it is a constructor: its name is the first
/// word (after `template <...>`, `constexpr` and `explicit`), followed by `(`.
fn constructor_of(sig: &str) -> Option<&str> {
    let mut rest = sig.trim_start();
    if let Some(after) = rest.strip_prefix("template") {
        let open = after.find('<')?;
        let mut depth = 0;
        let mut end = None;
        for (i, c) in after[open..].char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = after[end?..].trim_start();
    }
    for word in ["constexpr ", "explicit "] {
        rest = rest.strip_prefix(word).unwrap_or(rest).trim_start();
    }
    let name_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    (name_end > 0 && rest[name_end..].starts_with('(')).then(|| &rest[..name_end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_overloads() -> impl Iterator<Item = &'static Overload> {
        let functions = msl_stdlib::FUNCTIONS.iter().flat_map(|f| f.overloads.iter());
        let methods = msl_stdlib::METHODS.iter().flat_map(|m| m.overloads.iter());
        functions.chain(methods)
    }

    #[test]
    fn every_library_signature_is_typed() {
        let mut failed = Vec::new();
        let mut unknown = Vec::new();
        let mut count = 0;
        for o in all_overloads() {
            count += 1;
            match signature(o) {
                None => failed.push(o.sig),
                Some(s) => {
                    let types = std::iter::once(&s.ret).chain(s.params.iter().map(|p| &p.ty));
                    if types.into_iter().any(|t| t.is_unknown()) {
                        unknown.push(format!("{} => {} ({})", o.sig, s.ret, s.params.len()));
                    }
                }
            }
        }
        assert!(count > 1500, "{count}");
        assert!(failed.is_empty(), "{} of {count} do not parse:\n{}", failed.len(), failed.join("\n"));
        assert!(unknown.is_empty(), "{} of {count} have unknown types:\n{}", unknown.len(), unknown.join("\n"));
    }

    #[test]
    fn signatures_read_as_declarations() {
        let clamp = msl_stdlib::FUNCTIONS.iter().find(|f| f.name == "clamp").unwrap();
        let s = signature(&clamp.overloads[0]).unwrap();
        assert_eq!(&*s.name, "clamp");
        assert_eq!(s.ret, Ty::param("T"));
        assert_eq!(s.params.len(), 3);
        assert_eq!(s.required(), 3);
        let sample = msl_stdlib::METHODS
            .iter()
            .filter(|m| m.name == "sample")
            .flat_map(|m| m.overloads.iter())
            .filter_map(signature)
            .find(|s| s.params.iter().any(|p| p.has_default))
            .expect("a sample overload with a default argument");
        assert!(sample.is_const);
        assert!(sample.required() < sample.params.len());
    }
}
