//! Markdown for hovers: a signature block, the summary and paragraph, parameter notes, an
//! example, and a footer with availability, platforms, spec section and header.

use std::fmt::Write;

use crate::{Binding, BindingSpec, Entry, MetalVersion, Method, Overload, Platform, PlatformFloor};

/// How many signatures a hover lists before summarising the rest.
const MAX_SIGNATURES: usize = 6;

/// Hover markdown for an entry.
pub fn hover(entry: &Entry) -> String {
    let mut out = String::new();
    match entry {
        Entry::Function(f) => {
            signatures(&mut out, f.overloads.iter(), f.name, "");
            bindings_note(&mut out, f.overloads);
            body(&mut out, f.summary, f.doc);
            params(&mut out, f.params, f.overloads);
            example(&mut out, f.example);
            let ns = f.namespaces.iter().filter(|n| **n != "metal").map(|n| format!("`{n}::`")).collect::<Vec<_>>();
            let mut extra = Vec::new();
            if !ns.is_empty() {
                extra.push(format!("also in {}", ns.join(", ")));
            }
            footer(&mut out, f.since, f.platforms, f.section, f.header, &extra);
        }
        Entry::Method(m) => {
            method_block(&mut out, m, None);
            bindings_note(&mut out, m.overloads);
            body(&mut out, m.summary, m.doc);
            params(&mut out, m.params, m.overloads);
            example(&mut out, m.example);
            footer(&mut out, m.since, m.platforms, m.section, None, &[]);
        }
        Entry::Type(t) => {
            out.push_str("```metal\n");
            if let Some(tpl) = t.template {
                let _ = writeln!(out, "{tpl}");
            }
            match t.alias_of {
                Some(of) => {
                    let _ = writeln!(out, "typedef {of} {};", t.name);
                }
                None => {
                    let _ = writeln!(
                        out,
                        "{} {}",
                        if t.kind == "scalar" { "type" } else { "struct" },
                        qualified(t.namespace, t.name)
                    );
                }
            }
            out.push_str("```\n");
            bindings_list(&mut out, t.bindings);
            body(&mut out, t.summary, t.doc);
            example(&mut out, t.example);
            footer(&mut out, t.since, t.platforms, t.section, t.header, &[]);
        }
        Entry::Member(m) => {
            let _ = writeln!(out, "```metal\n{} {}::{}\n```", m.ty, m.of.join("/"), m.name);
            body(&mut out, m.summary, m.doc);
            footer(&mut out, m.since, &[], m.section, None, &[]);
        }
        Entry::Attribute(a) => {
            let _ = writeln!(out, "```metal\n[[{}{}]]\n```", a.name, a.args);
            body(&mut out, a.summary, a.doc);
            let positions: Vec<String> = a.positions.iter().map(|p| p.replace('_', " ")).collect();
            let _ = writeln!(out, "\n**Allowed on:** {}", positions.join(", "));
            if !a.types.is_empty() {
                let types: Vec<String> = a.types.iter().map(|t| format!("`{t}`")).collect();
                let _ = writeln!(out, "\n**Types:** {}", types.join(", "));
            }
            if let Some(d) = a.deprecated {
                let _ = writeln!(out, "\n**Deprecated:** {d}");
            }
            example(&mut out, a.example);
            footer(&mut out, a.since, a.platforms, a.section, None, &[]);
        }
        Entry::Enum(e) => {
            let members: Vec<&str> = e.members.iter().map(|m| m.name).collect();
            let _ = writeln!(
                out,
                "```metal\nenum {}{} {{ {} }}\n```",
                if e.scoped { "class " } else { "" },
                qualified(e.namespace, e.name),
                members.join(", ")
            );
            body(&mut out, e.summary, e.doc);
            example(&mut out, e.example);
            footer(&mut out, e.since, e.platforms, e.section, e.header, &[]);
        }
        Entry::EnumMember(e, m) => {
            let _ = writeln!(out, "```metal\n{}::{}\n```", qualified(e.namespace, e.name), m.name);
            let _ = writeln!(out, "{}", m.summary);
            let _ = writeln!(out, "\nA value of `{}`: {}", e.name, e.summary);
            footer(&mut out, m.since, e.platforms, e.section, e.header, &[]);
        }
        Entry::Constant(c) => {
            out.push_str("```metal\n");
            match (c.kind, c.value) {
                ("macro", Some(v)) => {
                    let _ = writeln!(out, "#define {} {v}", c.name);
                }
                ("macro", None) => {
                    let _ = writeln!(out, "#define {} /* {} */", c.name, c.ty);
                }
                (_, Some(v)) => {
                    let _ = writeln!(out, "constexpr {} {} = {v};", c.ty, c.name);
                }
                (_, None) => {
                    let _ = writeln!(out, "constexpr {} {};", c.ty, c.name);
                }
            }
            out.push_str("```\n");
            body(&mut out, c.summary, c.doc);
            example(&mut out, c.example);
            footer(&mut out, c.since, &[], c.section, c.header, &[]);
        }
        Entry::Keyword(k) => {
            let _ = writeln!(out, "```metal\n{}\n```", k.name);
            body(&mut out, k.summary, k.doc);
            example(&mut out, k.example);
            footer(&mut out, k.since, k.platforms, k.section, None, &[]);
        }
    }
    out
}

/// Hover markdown for one overload of a function or member function: the signature that
/// applies first, then the documentation.
pub fn hover_overload(entry: &Entry, overload: usize) -> String {
    match entry {
        Entry::Function(f) => {
            let Some(o) = f.overloads.get(overload) else { return hover(entry) };
            let mut out = String::new();
            signatures(&mut out, std::iter::once(o), f.name, "");
            bindings_list(&mut out, o.bindings);
            overload_note(&mut out, f.overloads.len());
            body(&mut out, f.summary, f.doc);
            params(&mut out, f.params, std::slice::from_ref(o));
            example(&mut out, f.example);
            footer(&mut out, o.since.unwrap_or(f.since), f.platforms, f.section, f.header, &[]);
            out
        }
        Entry::Method(m) => {
            let Some(o) = m.overloads.get(overload) else { return hover(entry) };
            let mut out = String::new();
            method_block(&mut out, m, Some(o));
            bindings_list(&mut out, o.bindings);
            overload_note(&mut out, m.overloads.len());
            body(&mut out, m.summary, m.doc);
            params(&mut out, m.params, std::slice::from_ref(o));
            example(&mut out, m.example);
            footer(&mut out, o.since.unwrap_or(m.since), m.platforms, m.section, None, &[]);
            out
        }
        _ => hover(entry),
    }
}

fn qualified(namespace: &str, name: &str) -> String {
    if namespace.is_empty() || namespace == "metal" { format!("metal::{name}") } else { format!("{namespace}::{name}") }
}

/// Lists distinct signatures (overloads that differ only in what their placeholders stand
/// for are shown once), qualifying the name with `receiver` for member functions.
fn signatures<'a>(out: &mut String, overloads: impl Iterator<Item = &'a Overload>, name: &str, receiver: &str) {
    let mut distinct: Vec<&str> = Vec::new();
    for o in overloads {
        if !distinct.contains(&o.sig) {
            distinct.push(o.sig);
        }
    }
    out.push_str("```metal\n");
    for sig in distinct.iter().take(MAX_SIGNATURES) {
        let _ = writeln!(out, "{}", qualify_name(sig, name, receiver));
    }
    out.push_str("```\n");
    let more = distinct.len().saturating_sub(MAX_SIGNATURES);
    if more > 0 {
        let _ = writeln!(out, "*… and {more} more overload{}*", if more == 1 { "" } else { "s" });
    }
}

/// `Tv sample(...)` with receiver `texture2d::` becomes `Tv texture2d::sample(...)`.
fn qualify_name(sig: &str, name: &str, receiver: &str) -> String {
    if receiver.is_empty() {
        return sig.to_string();
    }
    let needle = format!("{name}(");
    let mut from = 0;
    while let Some(i) = sig[from..].find(&needle).map(|i| i + from) {
        let before = sig[..i].chars().last();
        if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_')) {
            return format!("{}{receiver}{}", &sig[..i], &sig[i..]);
        }
        from = i + needle.len();
    }
    format!("{receiver}{sig}")
}

fn method_block(out: &mut String, m: &Method, only: Option<&Overload>) {
    let receiver = if m.of.len() == 1 { format!("{}::", m.of[0]) } else { String::new() };
    match only {
        Some(o) => signatures(out, std::iter::once(o), m.name, &receiver),
        None => signatures(out, m.overloads.iter(), m.name, &receiver),
    }
    if m.of.len() > 1 {
        let types: Vec<String> = m.of.iter().map(|t| format!("`{t}`")).collect();
        let _ = writeln!(out, "\nMember of {}", types.join(", "));
    }
}

fn overload_note(out: &mut String, total: usize) {
    if total > 1 {
        let _ = writeln!(out, "\n*One of {total} overloads.*");
    }
}

/// What each placeholder stands for, across all overloads (the union of their sets).
fn bindings_note(out: &mut String, overloads: &[Overload]) {
    let mut merged: Vec<(&str, Vec<&str>, Option<&str>)> = Vec::new();
    for o in overloads {
        for b in o.bindings {
            let slot = match merged.iter().position(|(n, _, _)| *n == b.name) {
                Some(i) => i,
                None => {
                    merged.push((b.name, Vec::new(), None));
                    merged.len() - 1
                }
            };
            match b.spec {
                BindingSpec::Derived(d) => merged[slot].2 = Some(d),
                _ => {
                    for m in b.members() {
                        if !merged[slot].1.contains(m) {
                            merged[slot].1.push(m);
                        }
                    }
                }
            }
        }
    }
    if merged.is_empty() {
        return;
    }
    out.push('\n');
    for (name, members, derived) in merged {
        let what = match (members.is_empty(), derived) {
            (true, Some(d)) => format!("`{d}`"),
            _ => short_list(&members),
        };
        let _ = writeln!(out, "- `{name}`: {what}");
    }
}

fn bindings_list(out: &mut String, bindings: &[Binding]) {
    if bindings.is_empty() {
        return;
    }
    out.push('\n');
    for b in bindings {
        let what = match b.spec {
            BindingSpec::Set(_, members) | BindingSpec::Types(members) => short_list(members),
            BindingSpec::Values(vals) => vals.join(", "),
            BindingSpec::Derived(d) => format!("`{d}`"),
        };
        let _ = writeln!(out, "- `{}`: {what}", b.name);
    }
}

fn short_list(members: &[&str]) -> String {
    const MAX: usize = 16;
    let shown: Vec<String> = members.iter().take(MAX).map(|m| format!("`{m}`")).collect();
    if members.len() > MAX { format!("{}, … ({} in all)", shown.join(", "), members.len()) } else { shown.join(", ") }
}

fn body(out: &mut String, summary: &str, doc: &str) {
    let _ = writeln!(out, "\n{summary}");
    if !doc.is_empty() {
        let _ = writeln!(out, "\n{doc}");
    }
}

/// Parameter notes, in the order the parameters appear in the signatures.
fn params(out: &mut String, params: &[(&str, &str)], overloads: &[Overload]) {
    if params.is_empty() {
        return;
    }
    let position = |name: &str| -> usize {
        for (k, o) in overloads.iter().enumerate() {
            let sig = o.sig;
            let mut from = 0;
            while let Some(i) = sig[from..].find(name).map(|i| i + from) {
                let before = sig[..i].chars().last();
                let after = sig[i + name.len()..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                if !word(before) && !word(after) {
                    return k * 10_000 + i;
                }
                from = i + name.len();
            }
        }
        usize::MAX
    };
    let mut sorted: Vec<&(&str, &str)> = params.iter().collect();
    sorted.sort_by_key(|(n, _)| position(n));
    out.push_str("\n**Parameters**\n");
    for (name, note) in sorted {
        let _ = writeln!(out, "- `{name}`: {note}");
    }
}

fn example(out: &mut String, example: Option<&str>) {
    if let Some(e) = example {
        let _ = writeln!(out, "\n**Example**\n```metal\n{}\n```", e.trim_end());
    }
}

fn platform_name(p: Platform) -> &'static str {
    match p {
        Platform::MacOS => "macOS",
        Platform::IOS => "iOS",
        Platform::TvOS => "tvOS",
        Platform::VisionOS => "visionOS",
    }
}

fn footer(
    out: &mut String,
    since: MetalVersion,
    platforms: &[PlatformFloor],
    section: &str,
    header: Option<&str>,
    extra: &[String],
) {
    let mut parts = vec![format!("Metal {since}+")];
    if !platforms.is_empty() {
        let ps: Vec<String> = platforms
            .iter()
            .map(|p| match p.since {
                Some(v) => format!("{} {v}+", platform_name(p.platform)),
                None => platform_name(p.platform).to_string(),
            })
            .collect();
        parts.push(ps.join(", "));
    }
    parts.push(format!("§{section}"));
    if let Some(h) = header {
        parts.push(format!("`<{h}>`"));
    }
    parts.extend(extra.iter().cloned());
    let _ = writeln!(out, "\n---\n{}", parts.join(" · "));
}
