//! The type a call to a library function returns, from its arguments' types.
//!
//! Overloads are matched the way template deduction and exact matches work: a placeholder
//! (`T`) takes an argument's type when that type is in its set, every use of it must then
//! agree; a concrete parameter type must be the argument's type exactly. An argument whose
//! type is unknown matches anything. The answer is given only when every overload that
//! may apply returns the same type; an overload reached only through a conversion is not
//! considered, so a call that needs one gets no answer rather than a wrong one.

use rustc_hash::FxHashMap;

use crate::{Binding, BindingSpec, Entry, Overload, Stdlib};

/// A parameter or return type of a signature, stripped of qualifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SigType<'a> {
    /// A plain named type or placeholder: `float3`, `T`.
    Named(&'a str),
    /// Anything else: pointers, references, templates (`vec<T, N>`).
    Other,
}

/// Splits `RET name(P1 a, P2 b) const` into the return type and the parameter types.
/// `None` for signatures this does not read (templates, operators, variadic, defaults).
fn split_signature(sig: &str) -> Option<(SigType<'_>, Vec<SigType<'_>>)> {
    if sig.starts_with("template") || sig.contains("operator") || sig.contains("...") || sig.contains('=') {
        return None;
    }
    let open = sig.find('(')?;
    let close = sig.rfind(')')?;
    let head = sig[..open].trim_end();
    let name_start = head.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map(|i| i + 1).unwrap_or(0);
    let ret = sig_type(head[..name_start].trim());
    let params = sig[open + 1..close].trim();
    if params.is_empty() || params == "void" {
        return Some((ret, Vec::new()));
    }
    Some((ret, split_top_level(params).into_iter().map(param_type).collect()))
}

/// Splits a list at the commas outside brackets (`()`, `[]`, `<>`, `{}`), as in template
/// arguments or parameter lists. The pieces are not trimmed; the last one is always there
/// (`""` gives one empty piece).
pub fn split_top_level(list: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in list.char_indices() {
        match c {
            '(' | '[' | '<' | '{' => depth += 1,
            ')' | ']' | '>' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&list[start..]);
    out
}

/// A parameter's type: the declaration without its name.
fn param_type(p: &str) -> SigType<'_> {
    let p = p.trim();
    // the last word is the parameter's name when something precedes it
    let ty = match p.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        Some(i) if p[i + 1..].chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') => &p[..=i],
        _ => p,
    };
    sig_type(ty.trim())
}

fn sig_type(t: &str) -> SigType<'_> {
    let t = t.strip_prefix("const ").unwrap_or(t).trim();
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return SigType::Other;
    }
    match t {
        "thread" | "device" | "constant" | "threadgroup" | "static" | "inline" => SigType::Other,
        _ => SigType::Named(t),
    }
}

/// The scalar of a vector type name (`float3` -> `float`), or the name itself.
fn scalar_of(t: &str) -> &str {
    t.trim_end_matches(|c: char| c.is_ascii_digit())
}

/// The vector size of a type name (`float3` -> `3`), empty for scalars.
fn size_of(t: &str) -> &str {
    &t[scalar_of(t).len()..]
}

/// `bool_of(T)`, `int_of(T)`, `uint_of(T)`, `scalar_of(T)`: the derived type for `base`.
fn derived(spec: &str, bound: &FxHashMap<&str, String>) -> Option<String> {
    let (func, arg) = spec.strip_suffix(')')?.split_once('(')?;
    let base = bound.get(arg.trim())?;
    let size = size_of(base);
    Some(match func {
        "scalar_of" => scalar_of(base).to_string(),
        "bool_of" => format!("bool{size}"),
        "int_of" => format!("int{size}"),
        "uint_of" => format!("uint{size}"),
        _ => return None,
    })
}

/// What one overload returns for these arguments: `Err(())` when it cannot apply,
/// `Ok(None)` when it may apply but its result is not determined.
fn overload_result(o: &Overload, args: &[Option<&str>]) -> Result<Option<String>, ()> {
    let Some((ret, params)) = split_signature(o.sig) else { return Ok(None) };
    if params.len() != args.len() {
        return Err(());
    }
    let binding = |name: &str| -> Option<&Binding> { o.bindings.iter().find(|b| b.name == name) };
    let mut bound: FxHashMap<&str, String> = FxHashMap::default();
    let mut deferred: Vec<(&str, &str)> = Vec::new();
    for (param, arg) in params.iter().zip(args) {
        let SigType::Named(p) = param else { continue };
        let Some(arg) = arg else { continue };
        match binding(p).map(|b| b.spec) {
            None => {
                if p != arg {
                    return Err(());
                }
            }
            Some(BindingSpec::Set(_, members) | BindingSpec::Types(members)) => {
                if !members.contains(arg) {
                    return Err(());
                }
                match bound.get(p) {
                    Some(b) if b != arg => return Err(()),
                    _ => {
                        bound.insert(p, arg.to_string());
                    }
                }
            }
            Some(BindingSpec::Derived(_)) => deferred.push((p, arg)),
            Some(BindingSpec::Values(_)) => return Ok(None),
        }
    }
    for (p, arg) in deferred {
        let Some(BindingSpec::Derived(spec)) = binding(p).map(|b| b.spec) else { continue };
        if let Some(d) = derived(spec, &bound)
            && d != arg
        {
            return Err(());
        }
    }
    Ok(match ret {
        SigType::Named(r) => match binding(r).map(|b| b.spec) {
            None => Some(r.to_string()),
            Some(BindingSpec::Set(..) | BindingSpec::Types(_)) => bound.get(r).cloned(),
            Some(BindingSpec::Derived(spec)) => derived(spec, &bound),
            Some(BindingSpec::Values(_)) => None,
        },
        SigType::Other => None,
    })
}

/// The scalar types that vectors are made of (`bool` to `bfloat`; not `double`, which MSL
/// lacks).
pub const SCALAR_TYPES: &[&str] =
    &["bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "bfloat"];

/// The vector size of a plain numeric type name: 1 for scalars, `None` for anything else
/// (matrices, packed vectors, names that are not numeric).
fn numeric_size(t: &str) -> Option<usize> {
    let scalar = scalar_of(t);
    if !SCALAR_TYPES.contains(&scalar) {
        return None;
    }
    match size_of(t) {
        "" => Some(1),
        n @ ("2" | "3" | "4") => n.parse().ok(),
        _ => None,
    }
}

/// Whether one overload surely cannot take arguments of these types (plain numeric type
/// names; `None` for an unknown one, which is left out), even through implicit conversions. Only vector shapes decide: a vector never
/// converts to a vector of another size or to a scalar, and arguments sharing a
/// placeholder share one size. Scalars are never held against an overload (a scalar
/// converts to other scalars and spreads to vectors), nor is anything the signature does
/// not spell as a plain name.
/// `params` are the overload's parameters, as many as `args`.
fn overload_rejects(o: &Overload, params: &[SigType<'_>], args: &[Option<&str>]) -> bool {
    let binding = |name: &str| -> Option<&Binding> { o.bindings.iter().find(|b| b.name == name) };
    let mut sizes: FxHashMap<&str, usize> = FxHashMap::default();
    let mut derived: Vec<(&str, usize)> = Vec::new();
    for (param, arg) in params.iter().zip(args) {
        let SigType::Named(p) = param else { continue };
        let Some(n) = arg.and_then(numeric_size) else { continue };
        if n == 1 {
            continue;
        }
        match binding(p).map(|b| b.spec) {
            None => {
                if numeric_size(p).is_some_and(|m| m != n) {
                    return true;
                }
            }
            Some(BindingSpec::Set(_, members) | BindingSpec::Types(members)) => {
                if !members.iter().any(|m| numeric_size(m) == Some(n)) {
                    return true;
                }
                if sizes.insert(p, n).is_some_and(|before| before != n) {
                    return true;
                }
            }
            Some(BindingSpec::Derived(spec)) => {
                let Some((func, base)) = spec.strip_suffix(')').and_then(|s| s.split_once('(')) else { continue };
                match func {
                    // always a scalar
                    "scalar_of" => return true,
                    "bool_of" | "int_of" | "uint_of" => derived.push((base.trim(), n)),
                    _ => {}
                }
            }
            Some(BindingSpec::Values(_)) => return false,
        }
    }
    derived.iter().any(|(base, n)| sizes.get(base).is_some_and(|m| m != n))
}

impl Stdlib {
    /// When no overload of the library function `name` can take arguments of these types
    /// (plain numeric type names; `None` for an argument of unknown type): the signatures
    /// of the overloads with that many parameters, to show. `None` when some overload may
    /// take them, when no overload has that many parameters (a different problem), or when
    /// `name` is not a function or is also a type.
    pub fn call_rejects(&self, name: &str, args: &[Option<&str>]) -> Option<Vec<&'static str>> {
        let entries = self.lookup(name);
        // a type of that name makes the call a construction
        if entries.iter().any(|e| matches!(e, Entry::Type(_))) {
            return None;
        }
        let mut candidates = Vec::new();
        // attributes and the like share names with functions without meeting them in calls
        for entry in entries {
            let Entry::Function(f) = entry else { continue };
            for o in f.overloads {
                let (_, params) = split_signature(o.sig)?;
                if params.len() != args.len() {
                    continue;
                }
                if !overload_rejects(o, &params, args) {
                    return None;
                }
                candidates.push(o.sig);
            }
        }
        candidates.dedup();
        (!candidates.is_empty()).then_some(candidates)
    }

    /// The type (a canonical name: `float3`, `uint`, `void`) that a call to the library
    /// function `name` returns for arguments of the given types (`None`: unknown). `None`
    /// unless every overload that may apply returns the same, known type.
    pub fn call_result(&self, name: &str, args: &[Option<&str>]) -> Option<String> {
        let mut result: Option<String> = None;
        let mut any = false;
        for entry in self.lookup(name) {
            let f = match entry {
                Entry::Function(f) => f,
                // a type of that name: a construction, not a call
                Entry::Type(_) => return None,
                // enumerators of scoped enums and the like are not found unqualified
                _ => continue,
            };
            for o in f.overloads {
                match overload_result(o, args) {
                    Err(()) => continue,
                    Ok(None) => return None,
                    Ok(Some(r)) => {
                        any = true;
                        match &result {
                            Some(prev) if *prev != r => return None,
                            _ => result = Some(r),
                        }
                    }
                }
            }
        }
        if any { result } else { None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_split() {
        let (r, p) = split_signature("T clamp(T x, T minval, T maxval)").unwrap();
        assert_eq!(r, SigType::Named("T"));
        assert_eq!(p, vec![SigType::Named("T"); 3]);
        let (r, p) = split_signature("uchar2 absdiff(char2 x, char2 y)").unwrap();
        assert_eq!((r, p.len()), (SigType::Named("uchar2"), 2));
        let (_, p) = split_signature("T fract(T x, thread T *iptr)").unwrap();
        assert_eq!(p[1], SigType::Other);
        let (_, p) = split_signature("bool any() const").unwrap();
        assert!(p.is_empty());
        assert!(split_signature("device void *operator new(size_t size, device void *ptr)").is_none());
    }

    #[test]
    fn results_follow_the_arguments() {
        let lib = Stdlib::get();
        assert_eq!(lib.call_result("normalize", &[Some("float3")]).as_deref(), Some("float3"));
        assert_eq!(lib.call_result("normalize", &[Some("half4")]).as_deref(), Some("half4"));
        assert_eq!(lib.call_result("dot", &[Some("float3"), Some("float3")]).as_deref(), Some("float"));
        assert_eq!(
            lib.call_result("clamp", &[Some("float3"), Some("float3"), Some("float3")]).as_deref(),
            Some("float3")
        );
        assert_eq!(lib.call_result("length", &[Some("half3")]).as_deref(), Some("half"));
        assert_eq!(lib.call_result("absdiff", &[Some("char2"), Some("char2")]).as_deref(), Some("uchar2"));
        // an unknown argument that the result depends on: no answer
        assert_eq!(lib.call_result("normalize", &[None]), None);
        // no overload without a conversion: no answer
        assert_eq!(lib.call_result("normalize", &[Some("int3")]), None);
        // disagreeing element types for one placeholder
        assert_eq!(lib.call_result("dot", &[Some("float3"), Some("half3")]), None);
        // not a function
        assert_eq!(lib.call_result("float3", &[Some("float")]), None);
    }

    #[test]
    fn vector_shapes_reject_overloads() {
        let lib = Stdlib::get();
        let rejects = |name: &str, args: &[Option<&str>]| lib.call_rejects(name, args).is_some();
        // one placeholder, two sizes
        assert!(rejects("dot", &[Some("float3"), Some("float4")]));
        assert!(rejects("distance", &[Some("half2"), Some("half3")]));
        // no member of the set has that size
        assert!(rejects("cross", &[Some("float4"), Some("float4")]));
        // fine, or not judged
        assert!(!rejects("dot", &[Some("float3"), Some("float3")]));
        assert!(!rejects("clamp", &[Some("float4"), Some("float"), Some("float")]));
        assert!(!rejects("mix", &[Some("float3"), Some("float3"), Some("float")]));
        assert!(!rejects("dot", &[Some("float3"), None]));
        assert!(!rejects("normalize", &[Some("float")]));
        assert!(!rejects("dot", &[Some("float3"), Some("half3")]));
        // a different number of arguments is another problem
        assert!(!rejects("dot", &[Some("float3")]));
        assert!(!rejects("no_such_function", &[Some("float3")]));
        let sigs = lib.call_rejects("dot", &[Some("float3"), Some("float4")]).unwrap();
        assert!(sigs.iter().all(|s| s.contains("dot(")), "{sigs:?}");
    }
}
