//! Reparsing after an edit inside one function body.
//!
//! An editor changes a few characters at a time, nearly always inside a function body.
//! Preprocessing and parsing the whole unit again costs tens of milliseconds on a large
//! file; this module preprocesses and parses only the body that contains the edit and
//! splices the result into the old parse. It declines (returns `None`, and the caller
//! parses from scratch) whenever the result could differ from a full parse:
//!
//! - the edit is not strictly inside the `{ ... }` of a function body written in the
//!   main file;
//! - the body's directives are not the same before and after the edit (same lines, in
//!   the same order), or one of them includes a file, sets line numbers, asks about
//!   files, or leaves a conditional open; a `#define` moved;
//! - a macro invocation crosses the body's braces, or a macro of a modelled header the
//!   body uses was brought in at or after the body;
//! - the body declares a type or namespace (it changes how the rest of the file parses),
//!   or the parser looked beyond the body;
//! - `__COUNTER__` is used anywhere, `__LINE__` is used after the body and the edit adds
//!   or removes lines, or an expansion limit was reached;
//! - many bodies were reparsed since the last full parse (their old macro invocations
//!   accumulate).
//!
//! Directives inside the body (`#define`/`#undef` pairs around a kernel's code, `#pragma`,
//! `#if 0` regions) are preprocessed again with the macro table as it stood at the body's
//! `{`, rebuilt from the history of definitions. Unchanged directives from an unchanged
//! start leave the same table behind, so the rest of the unit is not affected.
//!
//! `tests/reparse.rs` checks on real files that every reparse it accepts equals a full
//! parse of the new text: the tree, every token's origin, and the diagnostics.

use std::sync::Arc;

use rowan::TextRange;

use crate::SyntaxKind;
use crate::lexer;
use crate::parse::{Diagnostic, Parse, ParseState, build_tree};
use crate::parser::{BodyStart, OwnedScopeOp, ScopeLog, parse_body_events};
use crate::pp::{self, NO_CALL, Piece, Preprocessed, preprocess_fragment};

/// Pieces after a body that its parse may look at. Look-aheads are bounded (the longest
/// scans stop within 512 tokens, or at the first `;`, `{` or `}`).
const LOOKAHEAD_TAIL: usize = 8192;

/// The start of the parser's message for a `{` closed by the end of the file.
const UNCLOSED: &str = "this `{` is never closed";

/// Bodies reparsed in a row before a full parse is required.
const MAX_GENERATIONS: u32 = 10_000;

/// The byte range of `old` replaced in `new`, and the replacement's length: the longest
/// common prefix and suffix removed, at character boundaries.
fn diff(old: &str, new: &str) -> (usize, usize, usize) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = common_prefix(a, b);
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = a.len().min(b.len()) - prefix;
    let mut suffix = common_suffix(&a[a.len() - max_suffix..], &b[b.len() - max_suffix..]);
    while !old.is_char_boundary(a.len() - suffix) || !new.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    (prefix, a.len() - suffix, b.len() - suffix - prefix)
}

/// Length of the common prefix, comparing 64-byte blocks first.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    i + a[i..n].iter().zip(&b[i..n]).take_while(|(x, y)| x == y).count()
}

/// Length of the common suffix of two slices of equal length.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut k = 0;
    while k + BLOCK <= n && a[n - k - BLOCK..n - k] == b[n - k - BLOCK..n - k] {
        k += BLOCK;
    }
    k + a[..n - k].iter().rev().zip(b[..n - k].iter().rev()).take_while(|(x, y)| x == y).count()
}

fn shift_by(v: u32, from: u32, delta: i64) -> u32 {
    if v >= from { (v as i64 + delta) as u32 } else { v }
}

/// Moves a range whose ends lie at or after `from`. Live ranges never straddle `from`
/// (the end of the reparsed body); invocations left behind by earlier reparses may, and
/// are only kept consistent.
fn shift_range(r: TextRange, from: u32, delta: i64) -> TextRange {
    let start = shift_by(r.start().into(), from, delta);
    let end = shift_by(r.end().into(), from, delta).max(start);
    TextRange::new(start.into(), end.into())
}

impl Parse {
    /// The parse of the unit after the main file's text became `new_text`, computed by
    /// reparsing only the function body that contains the change. `None` when that cannot
    /// be done with certainty of the same result as [`crate::parse_file`] on the new text;
    /// the caller then parses from scratch.
    pub fn reparse(&self, new_text: &Arc<str>) -> Option<Parse> {
        self.try_reparse(new_text).ok()
    }

    /// Like [`Parse::reparse`], saying why a body could not be reparsed alone.
    #[doc(hidden)]
    pub fn try_reparse(&self, new_text: &Arc<str>) -> Result<Parse, &'static str> {
        let state = self.state.as_deref().ok_or("no parser state kept")?;
        let pp_state = self.pp.state.as_deref().ok_or("no preprocessor state kept")?;
        let old_text = self.pp.files.first().ok_or("no main file")?.text.clone();
        if *old_text == **new_text {
            return Ok(self.clone());
        }
        if state.stuck || state.generation >= MAX_GENERATIONS || self.pp.diagnostics.len() >= 5_000 {
            return Err("the parse hit a limit or reparsed too often");
        }
        if self.pp.calls.len() > 2 * pp_state.full_calls + 10_000 {
            return Err("too many stale macro invocations");
        }
        // the main file's decoding problems come with its text, not from this parse
        if self.pp.diagnostics.iter().any(|d| d.file == 0 && d.code == "E0003") {
            return Err("the main file has decoding problems");
        }
        let (edit_start, old_edit_end, inserted) = diff(&old_text, new_text);
        let delta = inserted as i64 - (old_edit_end - edit_start) as i64;
        let pieces = &self.pp.pieces;

        // the body: the last one whose `{` (spelled in the main file) is before the edit
        let spelled_main = |i: u32| pieces.get(i as usize).filter(|p| p.file == 0 && p.call == NO_CALL);
        let body_index = state
            .bodies
            .iter()
            .rposition(|b| !b.nested && spelled_main(b.piece).is_some_and(|p| (p.start as usize) < edit_start))
            .ok_or("no function body before the edit")?;
        let body = &state.bodies[body_index];
        let open = body.piece as usize;
        let open_piece = spelled_main(body.piece).ok_or("the body's `{` is not spelled in the main file")?;
        if open_piece.kind != SyntaxKind::L_CURLY {
            return Err("not a `{`");
        }
        let root = self.syntax();
        let tree_open = *self.piece_starts().get(open).ok_or("no tree offset for the body")?;
        let brace = root.token_at_offset(tree_open.into()).right_biased().ok_or("no token at the body's start")?;
        let block =
            brace.parent().filter(|n| n.kind() == SyntaxKind::COMPOUND_STMT).ok_or("the `{` does not open a block")?;
        if block.text_range().start() != tree_open.into() {
            return Err("the block does not start at its `{`");
        }
        // closed by its own `}` (not cut short by recovery)
        let last = block
            .last_child_or_token()
            .and_then(|e| e.into_token())
            .filter(|t| t.kind() == SyntaxKind::R_CURLY)
            .ok_or("the block is not closed by its own `}`")?;
        let tree_close: u32 = last.text_range().start().into();
        let mut close = open + self.piece_starts()[open..].partition_point(|&s| s < tree_close);
        while pieces.get(close).is_some_and(|p| p.len == 0 && p.kind != SyntaxKind::R_CURLY) {
            close += 1;
        }
        let close_piece = pieces
            .get(close)
            .filter(|p| p.kind == SyntaxKind::R_CURLY && p.file == 0 && p.call == NO_CALL)
            .ok_or("the block's `}` is not spelled in the main file")?;
        let (open_off, close_start) = (open_piece.start, close_piece.start);
        let close_end = close_start + 1;
        // strictly inside the braces
        if edit_start <= open_off as usize || old_edit_end > close_start as usize {
            return Err("the edit is not strictly inside the body");
        }
        // a `{` before the body that the file never closes: what it encloses was decided
        // by recovery at the end of the file, which the body's tokens take part in
        if self.diagnostics.iter().any(|d| {
            d.file == 0 && d.code == "E0100" && d.message.starts_with(UNCLOSED) && u32::from(d.range.start()) < open_off
        }) {
            return Err("a `{` before the body is never closed");
        }
        // a syntax error before the body: its recovery (or a look-ahead past unbalanced
        // brackets) may have read into the body, so what the code before it became can
        // depend on the body's tokens
        if self.diagnostics.iter().any(|d| d.code == "E0100" && (d.file != 0 || u32::from(d.range.start()) < open_off))
        {
            return Err("a syntax error before the body");
        }
        // everything between the braces comes from the main file's text of the body
        let mut old_directives: Vec<&str> = Vec::new();
        for p in &pieces[open..=close] {
            if p.call == NO_CALL {
                if p.file != 0 {
                    return Err("the body holds text from other files");
                }
                if p.kind == SyntaxKind::PP_DIRECTIVE {
                    let text =
                        old_text.get(p.start as usize..(p.start + p.len) as usize).ok_or("bad directive range")?;
                    if !directive_allowed(text) {
                        return Err("the body holds a directive that includes, numbers lines or asks about files");
                    }
                    old_directives.push(text);
                }
            } else {
                let c = self.pp.calls.get(p.call as usize).ok_or("unknown macro invocation")?;
                if c.file != 0 || u32::from(c.range.start()) <= open_off || u32::from(c.range.end()) > close_start {
                    return Err("a macro invocation crosses the body's braces");
                }
            }
        }
        let new_close_end = (close_end as i64 + delta) as usize;
        let old_body =
            old_text.get(open_off as usize..close_end as usize).ok_or("the old body is not at a character boundary")?;
        let new_body =
            new_text.get(open_off as usize..new_close_end).ok_or("the new body is not at a character boundary")?;
        let lines_moved = old_body.matches('\n').count() != new_body.matches('\n').count();
        if lines_moved && pp_state.uses_line_after(open_off) {
            return Err("lines moved before a use of `__LINE__`");
        }
        // the old body left nothing in the scopes
        let log = &state.scope_log;
        let cut = log.ops.partition_point(|(at, _)| *at <= body.piece);
        if log.ops.get(cut).is_some_and(|(at, _)| *at <= close as u32) {
            return Err("the old body declared types or namespaces");
        }

        // preprocess the new body
        let (mut tokens, mut lex_errors) = lexer::lex(new_body);
        if tokens.first().map(|t| (t.kind, t.start)) != Some((SyntaxKind::L_CURLY, 0))
            || tokens.last().map(|t| (t.kind, t.start + t.len)) != Some((SyntaxKind::R_CURLY, new_body.len() as u32))
        {
            return Err("the new body does not lex as one braced block");
        }
        for t in &mut tokens {
            t.start += open_off;
        }
        for e in &mut lex_errors {
            e.range += crate::TextSize::from(open_off);
        }
        // the macro records the old body's definitions made, for the new ones to reuse
        let reuse: Vec<u32> = (0..self.pp.macros.len() as u32)
            .filter(|&i| {
                let m = &self.pp.macros[i as usize];
                m.file == 0 && u32::from(m.name_range.start()) > open_off && u32::from(m.name_range.end()) < close_start
            })
            .collect();
        let fragment = preprocess_fragment(&self.pp, pp_state, new_text.clone(), tokens, lex_errors, body.piece, reuse)
            .ok_or("the body's definitions moved, a modelled header's macro changed after it, or a limit was hit")?;
        // the same directives: the macro table after the body is the one the old unit had
        let new_directives = fragment
            .out
            .pieces
            .iter()
            .filter(|p| p.kind == SyntaxKind::PP_DIRECTIVE && p.file == 0 && p.call == NO_CALL)
            .map(|p| new_text.get(p.start as usize..(p.start + p.len) as usize).unwrap_or(""));
        if !new_directives.eq(old_directives.iter().copied()) {
            return Err("the body's directives changed");
        }
        if fragment.out.diagnostics.iter().any(|d| matches!(d.code, "E0010" | "E0014")) {
            return Err("a conditional directive crosses the body's braces");
        }
        let old_history = pp_state.body_history(open as u32, close as u32);
        if !old_history.iter().map(|(n, d)| (n, *d)).eq(fragment.history.iter().map(|(_, n, d)| (n, *d))) {
            return Err("the body's definitions changed");
        }
        let (expanded_tokens, line_uses) = (fragment.expanded_tokens, fragment.line_uses.clone());
        let body_history = fragment.history.clone();
        let fp = &fragment.out.pieces;
        let spelled = |p: Option<&Piece>, kind| p.is_some_and(|p| p.kind == kind && p.file == 0 && p.call == NO_CALL);
        if !spelled(fp.first(), SyntaxKind::L_CURLY) || !spelled(fp.last(), SyntaxKind::R_CURLY) {
            return Err("the new body's braces are not spelled in the main file");
        }

        // parse it in the state the full parse had at its `{`, with the pieces after the
        // body in view for look-aheads
        let body_len = fp.len();
        let shift_piece = |p: &Piece| {
            let mut p = *p;
            if p.file == 0 {
                p.start = shift_by(p.start, close_end, delta);
            }
            p
        };
        let tail_end = (close + 1 + LOOKAHEAD_TAIL).min(pieces.len());
        let tail_complete = tail_end == pieces.len();
        let mut out = fragment.out;
        out.pieces.extend(pieces[close + 1..tail_end].iter().map(shift_piece));
        let layout = crate::parser::line_start_before(&self.pp, open, (true, true));
        let (events, token_pieces, errors, inner_bodies) =
            parse_body_events(&out, body_len, tail_complete, layout, body, log, cut)
                .ok_or("the new body does not parse alone as the full parse would")?;
        out.pieces.truncate(body_len);
        let (green, parse_diagnostics) = build_tree(&out, events, &token_pieces, errors);
        if green.kind() != SyntaxKind::COMPOUND_STMT.into() {
            return Err("the new body is not one block");
        }
        let new_root = block.replace_with(green);

        // splice the preprocessing record
        let piece_delta = body_len as i64 - (close + 1 - open) as i64;
        let old_end = close_end;
        let mut new_pieces = Vec::with_capacity((pieces.len() as i64 + piece_delta) as usize);
        new_pieces.extend_from_slice(&pieces[..open]);
        new_pieces.extend_from_slice(&out.pieces);
        let tail_start = new_pieces.len();
        new_pieces.extend_from_slice(&pieces[close + 1..]);
        if delta != 0 {
            // main-file text after the body moves; macro text spelled before it (in a
            // definition) does not
            for p in &mut new_pieces[tail_start..] {
                if p.file == 0 && p.start >= close_end {
                    p.start = (p.start as i64 + delta) as u32;
                }
            }
        }
        // the old entries move with the text; the body's new ones are already in place
        for c in &mut out.calls[..self.pp.calls.len()] {
            if c.file == 0 {
                c.range = shift_range(c.range, old_end, delta);
            }
        }
        for m in &mut out.macros[..self.pp.macros.len()] {
            if m.file == 0 {
                m.name_range = shift_range(m.name_range, old_end, delta);
            }
        }
        let in_old_body = |file: u32, r: TextRange| {
            file == 0
                && u32::from(r.start()) > open_off
                && u32::from(r.start()) < close_end
                && u32::from(r.end()) <= close_end
        };
        let mut pp_diagnostics: Vec<pp::PpDiagnostic> = Vec::with_capacity(self.pp.diagnostics.len());
        for d in &self.pp.diagnostics {
            if in_old_body(d.file, d.range) {
                continue;
            }
            let mut d = d.clone();
            if d.file == 0 {
                d.range = shift_range(d.range, old_end, delta);
            }
            pp_diagnostics.push(d);
        }
        let fragment_pp_diagnostics = std::mem::take(&mut out.diagnostics);
        pp_diagnostics.extend(fragment_pp_diagnostics.iter().cloned());
        let includes = self
            .pp
            .includes
            .iter()
            .map(|i| {
                let mut i = i.clone();
                if i.file == 0 {
                    i.range = shift_range(i.range, old_end, delta);
                }
                i
            })
            .collect();
        let splice = pp::Splice {
            open_piece: open as u32,
            old_start: open_off,
            old_end: close_end,
            delta,
            old_piece_end: close as u32 + 1,
            piece_delta,
        };
        let new_state = pp_state.shifted(&splice, expanded_tokens, &line_uses, &body_history);
        let new_pp = Preprocessed {
            pieces: new_pieces,
            files: out.files,
            arena: out.arena,
            calls: out.calls,
            macros: out.macros,
            includes,
            diagnostics: pp_diagnostics,
            state: Some(Arc::new(new_state)),
            layout: None,
        };

        // (the pieces' tree offsets are made from the new pieces when first asked for)

        // diagnostics: the old ones outside the body, moved; the body's new ones
        let mut diagnostics = Vec::with_capacity(self.diagnostics.len());
        for d in &self.diagnostics {
            if in_old_body(d.file, d.range) {
                continue;
            }
            let mut d = d.clone();
            if d.file == 0 {
                d.range = shift_range(d.range, old_end, delta);
            }
            diagnostics.push(d);
        }
        diagnostics.extend(fragment_pp_diagnostics.iter().map(Diagnostic::from_pp));
        diagnostics.extend(parse_diagnostics);

        // the parser's records, moved
        let close_piece_index = close as u32;
        // (`u32::MAX` stands for the end of the unit)
        let move_piece =
            |p: u32| if p > close_piece_index && p != u32::MAX { (p as i64 + piece_delta) as u32 } else { p };
        let scope_log =
            ScopeLog { ops: log.ops.iter().map(|&(at, op)| (move_piece(at), op)).collect(), names: log.names.clone() };
        // the bodies before this one, local functions inside it, the ones after it
        let mut bodies: Vec<BodyStart> = Vec::with_capacity(state.bodies.len());
        bodies.extend(state.bodies.iter().filter(|b| b.piece <= body.piece).cloned());
        bodies.extend(
            inner_bodies.into_iter().filter(|b| b.piece > 0).map(|b| BodyStart { piece: b.piece + open as u32, ..b }),
        );
        bodies.extend(
            state
                .bodies
                .iter()
                .filter(|b| b.piece > close_piece_index)
                .map(|b| BodyStart { piece: move_piece(b.piece), ..b.clone() }),
        );
        let new_parse_state = ParseState { scope_log, bodies, stuck: false, generation: state.generation + 1 };
        Ok(Parse::from_parts(new_root, Arc::new(new_pp), diagnostics, Arc::new(new_parse_state)))
    }
}

impl Parse {
    /// The records kept for reparsing, rendered for comparison in tests: equal for a
    /// reparse and a full parse of the same text.
    #[doc(hidden)]
    pub fn reparse_records(&self) -> String {
        let mut out = String::new();
        if let Some(st) = &self.state {
            for b in &st.bodies {
                out.push_str(&format!("body {} depth {} classes {:?}\n", b.piece, b.depth, b.class_names));
            }
            for &(at, op) in &st.scope_log.ops {
                match op {
                    // the name, not where the log keeps it
                    OwnedScopeOp::Declare { name, sym } => {
                        out.push_str(&format!("scope {at} Declare({:?}, {sym:?})\n", st.scope_log.name(name)))
                    }
                    OwnedScopeOp::DeclareTypeParam { name } => {
                        out.push_str(&format!("scope {at} DeclareTypeParam({:?})\n", st.scope_log.name(name)))
                    }
                    op => out.push_str(&format!("scope {at} {op:?}\n")),
                }
            }
        }
        if let Some(pp) = &self.pp.state {
            out.push_str(&pp.describe());
        }
        out.push_str(&format!("pieces {}\n", self.pp.pieces.len()));
        for (i, p) in self.pp.pieces.iter().enumerate() {
            let call = (p.call != NO_CALL).then(|| self.pp.calls[p.call as usize].range);
            // arena text moves between parses; compare it by content
            let place = if p.file == pp::ARENA {
                format!("{:?}", self.pp.text(p))
            } else {
                format!("{} {:?}", p.file, p.range())
            };
            out.push_str(&format!("{i} {:?} {place} at {} call {call:?}\n", p.kind, self.piece_starts()[i]));
        }
        out
    }
}

/// Whether a directive inside a body can be preprocessed again with the body alone:
/// not one that reads files, sets line numbers, or depends on where it is.
fn directive_allowed(text: &str) -> bool {
    let rest = text.trim_start_matches('#').trim_start_matches([' ', '\t']);
    let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    let allowed = matches!(
        name.as_str(),
        "define"
            | "undef"
            | "if"
            | "ifdef"
            | "ifndef"
            | "elif"
            | "elifdef"
            | "elifndef"
            | "else"
            | "endif"
            | "pragma"
            | "error"
            | "warning"
            | ""
    );
    allowed && !["__has_include", "__LINE__", "__COUNTER__", "__FILE__", "\\"].iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use super::diff;

    #[test]
    fn diffs() {
        assert_eq!(diff("abcdef", "abXdef"), (2, 3, 1));
        assert_eq!(diff("abc", "abc d"), (3, 3, 2));
        assert_eq!(diff("aaaa", "aaa"), (3, 4, 0));
        // multi-byte characters are not split
        assert_eq!(diff("xéy", "xèy"), (1, 3, 2));
        // long texts (block comparison)
        let a = "x".repeat(1000) + "abc" + &"y".repeat(1000);
        let b = "x".repeat(1000) + "aXc" + &"y".repeat(1000);
        assert_eq!(diff(&a, &b), (1001, 1002, 1));
        let c = "z".repeat(130);
        assert_eq!(diff(&c, &(c.clone() + "z")), (130, 130, 1));
    }
}
