//! Metal's rules on what a function body declares: a texture variable declared in a
//! function must have `access::read` or `access::sample` (MSL 4.1 section 2.9); one that
//! may be written is only received as an argument.

use super::{Rule, RuleCx};
use crate::body::LocalKind;
use crate::ty::{TemplateArg, TyKind};

pub(super) fn check(cx: &mut RuleCx) {
    for (i, l) in cx.body.locals.iter().enumerate() {
        if l.kind != LocalKind::Var || !l.ty.ops.is_empty() {
            continue;
        }
        let Some(t) = cx.infer.local_types.get(i) else { continue };
        let TyKind::Library { name, args } = t.kind() else { continue };
        if !(name.starts_with("texture") || name.starts_with("depth")) {
            continue;
        }
        let access = args.iter().find_map(|a| match a {
            TemplateArg::Name(n) => n.rsplit("::").next().filter(|a| matches!(*a, "write" | "read_write")),
            _ => None,
        });
        let (Some(access), Some(&at)) = (access, cx.map.local_ranges.get(i)) else { continue };
        let name = l.name.clone();
        cx.report(
            Rule::LocalTextureAccess,
            at,
            format!("the local texture `{name}` has `access::{access}`; a texture declared in a function can only be read or sampled"),
        )
        .hint("write through the texture argument itself, or declare the local with `access::read` or `access::sample`");
    }
}
