//! The layout document: a flat list of elements (text, line breaks, and the starts and
//! ends of groups and indents) and the printer that lays it out within a line width.
//!
//! The model is Wadler's "prettier printer", in the form Prettier, Biome and Ruff use:
//! a *group* is printed on one line when all of it fits in what is left of the line,
//! and otherwise every line break that belongs to it (not to a nested group) breaks.
//! A hard line break, or text that spans lines, inside a group breaks that group and
//! every group around it.

/// What a line break is when its group is printed on one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// One space when flat (between two arguments after the comma).
    Space,
    /// Always a line break.
    Hard,
    /// Always a line break, with one empty line after it.
    Empty,
    /// Always a line break, to the indentation of the enclosing block (not of an
    /// alignment) plus this many columns: a continuation line that keeps the offset the
    /// author gave it.
    Offset(u32),
    /// A place where a long line may break inside a statement: one space (or, when
    /// `space` is false, nothing) unless what follows up to the next such place does not
    /// fit on the line. A break goes to the alignment in force (one level further when
    /// `extra`: the continuation of a list item), or one level deeper than the block.
    /// What has to fit for the line not to break there: see [`Fit`].
    Soft { space: bool, extra: bool, fit: Fit },
}

/// What has to fit after a [`Line::Soft`] for the line not to break there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// What follows up to the next break of its group (an operand, a list item).
    Item,
    /// What follows up to its first possible break in whatever group, the last-resort
    /// breaks aside (after a `=`, or before a function's name: the breaks inside what
    /// follows are tried first).
    Head,
    /// A last-resort break (between template arguments): what follows up to the next
    /// possible break of any kind; taken only when that then fits.
    Last,
}

impl Line {
    /// One space when it does not break (`Space`, and `Soft` with a space).
    pub(crate) fn spaced(self) -> bool {
        matches!(self, Line::Space | Line::Soft { space: true, .. })
    }

    fn is_hard(self) -> bool {
        matches!(self, Line::Hard | Line::Empty | Line::Offset(_))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Element<'a> {
    /// Text without line breaks.
    Text(&'a str),
    /// Text kept as written, line breaks included (a directive, a block comment, a macro
    /// invocation): printed at the current column, its later lines as they are.
    Verbatim(&'a str),
    Line(Line),
    /// One space, unless a line break follows.
    Space,
    /// Start of a group: `true` when it must break (set by [`Document::finish`]).
    GroupStart(bool),
    /// Start of a group that, when it does not fit, breaks only the lines it must: each
    /// of its line breaks stays a space when what follows up to its next one fits (a list
    /// of numbers packed into lines, the operands of a long expression). Ends with
    /// [`Element::GroupEnd`].
    FillStart,
    GroupEnd,
    /// One more level of indentation for the line breaks up to the matching end.
    IndentStart,
    IndentEnd,
    /// Line breaks up to the matching end go to the column where this stands.
    AlignStart,
    AlignEnd,
    /// A preprocessor directive, kept as written: printed from column 0, or (`true`) at
    /// the indentation of the line.
    Directive(&'a str, bool),
    /// Spaces printed only when the innermost group that is not a fill breaks (padding
    /// that aligns columns).
    PadIfBreak(usize),
    /// Right after an open bracket, before its alignment starts: a line break, one level
    /// deeper than the line, when the bracket stands in the right half of the line and
    /// its contents do not fit after it; they then align on the new line.
    BracketBreak,
}

/// A document under construction.
#[derive(Debug, Default)]
pub struct Document<'a> {
    pub elements: Vec<Element<'a>>,
}

impl<'a> Document<'a> {
    pub fn text(&mut self, s: &'a str) {
        if !s.is_empty() {
            self.elements.push(Element::Text(s));
        }
    }

    pub fn verbatim(&mut self, s: &'a str) {
        if s.contains('\n') {
            self.elements.push(Element::Verbatim(s));
        } else {
            self.text(s);
        }
    }

    pub fn line(&mut self, l: Line) {
        self.elements.push(Element::Line(l));
    }

    pub fn space(&mut self) {
        self.elements.push(Element::Space);
    }

    pub fn group_start(&mut self) {
        self.elements.push(Element::GroupStart(false));
    }

    pub fn fill_start(&mut self) {
        self.elements.push(Element::FillStart);
    }

    pub fn group_end(&mut self) {
        self.elements.push(Element::GroupEnd);
    }

    pub fn indent_start(&mut self) {
        self.elements.push(Element::IndentStart);
    }

    pub fn indent_end(&mut self) {
        self.elements.push(Element::IndentEnd);
    }

    /// Marks every group that holds a hard line break or multi-line text as one that
    /// must break.
    pub fn finish(&mut self) {
        let mut open: Vec<usize> = Vec::new();
        // groups already marked, so that a long run of hard breaks marks each group once
        let mut marked_to = 0usize;
        for i in 0..self.elements.len() {
            match &self.elements[i] {
                Element::GroupStart(_) | Element::FillStart => open.push(i),
                Element::GroupEnd => {
                    open.pop();
                    marked_to = marked_to.min(open.len());
                }
                Element::Line(l) if l.is_hard() => {
                    for &g in &open[marked_to..] {
                        if matches!(self.elements[g], Element::GroupStart(_)) {
                            self.elements[g] = Element::GroupStart(true);
                        }
                    }
                    marked_to = open.len();
                }
                Element::Verbatim(_) | Element::Directive(..) => {
                    for &g in &open[marked_to..] {
                        if matches!(self.elements[g], Element::GroupStart(_)) {
                            self.elements[g] = Element::GroupStart(true);
                        }
                    }
                    marked_to = open.len();
                }
                _ => {}
            }
        }
    }
}

/// How the printer indents and how long a line may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrintOptions {
    pub line_width: usize,
    pub indent_width: usize,
    pub use_tabs: bool,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions { line_width: 100, indent_width: 4, use_tabs: false }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Flat,
    Break,
    /// A broken group whose padding is left out (an item would not fit with it).
    BreakUnpadded,
    /// A fill group that did not fit: each line break decides for itself.
    Fill,
}

/// A level of indentation: tabs (when the options ask for them) and spaces after them,
/// and whether it is an alignment.
#[derive(Clone, Copy)]
struct Indent {
    tabs: usize,
    spaces: usize,
    align: bool,
}

impl Indent {
    fn width(&self, options: &PrintOptions) -> usize {
        self.tabs * options.indent_width + self.spaces
    }

    /// One level of indentation more (not an alignment).
    fn deeper(&self, options: &PrintOptions) -> Indent {
        if options.use_tabs && self.spaces == 0 {
            Indent { tabs: self.tabs + 1, spaces: 0, align: false }
        } else {
            Indent { tabs: self.tabs, spaces: self.spaces + options.indent_width, align: false }
        }
    }
}

/// Lays the document out. Lines end with `\n` and carry no trailing spaces.
pub fn print(doc: &Document<'_>, options: &PrintOptions) -> String {
    let els = &doc.elements;
    // the text, and about a byte of whitespace per other element (grown once if short)
    let size: usize = els
        .iter()
        .map(|e| match e {
            Element::Text(s) | Element::Verbatim(s) | Element::Directive(s, _) => s.len(),
            _ => 2,
        })
        .sum();
    let mut out = String::with_capacity(size);
    let mut column = 0usize;
    let mut indents: Vec<Indent> = vec![Indent { tabs: 0, spaces: 0, align: false }];
    // the mode of each open group, innermost last
    let mut modes: Vec<Mode> = vec![Mode::Break];
    // the modes of the open groups that are not fills (padding belongs to them)
    let mut group_modes: Vec<Mode> = Vec::new();
    // for each open group, whether it is a fill
    let mut fills: Vec<bool> = Vec::new();
    let mut pending_space = false;
    let width = |s: &str| s.chars().count();
    for (i, e) in els.iter().enumerate() {
        let mode = modes.last().copied().unwrap_or(Mode::Break);
        let top = indents.last().copied().unwrap_or(Indent { tabs: 0, spaces: 0, align: false });
        match e {
            Element::Text(s) => {
                if pending_space {
                    out.push(' ');
                    column += 1;
                    pending_space = false;
                }
                out.push_str(s);
                column += width(s);
            }
            Element::Verbatim(s) => {
                if pending_space {
                    out.push(' ');
                    column += 1;
                    pending_space = false;
                }
                out.push_str(s);
                column = match s.rfind('\n') {
                    Some(n) => width(&s[n + 1..]),
                    None => column + width(s),
                };
            }
            Element::Directive(s, indented) => {
                pending_space = false;
                // on a line of its own; from column 0, unless indented: the indentation
                // the line break wrote goes
                let line_start = out.trim_end_matches([' ', '\t']).len();
                if !(line_start == 0 || out[..line_start].ends_with('\n')) {
                    trim_trailing_spaces(&mut out);
                    out.push('\n');
                    column = 0;
                } else if !indented {
                    out.truncate(line_start);
                    column = 0;
                }
                out.push_str(s);
                column = match s.rfind('\n') {
                    Some(n) => width(&s[n + 1..]),
                    None => column + width(s),
                };
            }
            Element::Space => pending_space = true,
            Element::PadIfBreak(n) => {
                if group_modes.last() == Some(&Mode::Break) {
                    out.extend(std::iter::repeat_n(' ', *n));
                    column += n;
                }
            }
            Element::Line(l) => {
                let to = match l {
                    Line::Offset(n) => {
                        let block = indents.iter().rev().find(|x| !x.align).copied().unwrap_or(top);
                        Indent { spaces: block.spaces + *n as usize, ..block }
                    }
                    Line::Soft { extra, .. } if *extra || !top.align => top.deeper(options),
                    _ => top,
                };
                let space = l.spaced();
                // in a fill group a break is taken when the next item does not fit on this
                // line, and the break moves it to the left
                let flat = match l {
                    Line::Space | Line::Soft { .. } if mode == Mode::Flat => true,
                    Line::Soft { fit: Fit::Head, .. } if mode == Mode::Fill => {
                        fits_head(els, i + 1, column + space as usize, true, options) || to.width(options) >= column
                    }
                    // a last-resort break only when what follows then fits
                    Line::Soft { fit: Fit::Last, .. } if mode == Mode::Fill => {
                        fits_head(els, i + 1, column + space as usize, false, options)
                            || to.width(options) >= column
                            || !fits_head(els, i + 1, to.width(options), false, options)
                    }
                    Line::Space | Line::Soft { .. } if mode == Mode::Fill => {
                        fits_item(els, i + 1, column + space as usize, options) || to.width(options) >= column
                    }
                    _ => false,
                };
                if flat {
                    if space {
                        pending_space = true;
                    }
                } else {
                    pending_space = false;
                    trim_trailing_spaces(&mut out);
                    out.push('\n');
                    if *l == Line::Empty {
                        out.push('\n');
                    }
                    column = push_indent(&mut out, to, options);
                }
            }
            Element::GroupStart(must_break) => {
                let at = column + pending_space as usize;
                let m = if *must_break || mode != Mode::Flat && !fits(els, i, at, options) {
                    // its padding only when every item then fits, padded, after the bracket
                    if padded_items_fit(els, i, at, options) { Mode::Break } else { Mode::BreakUnpadded }
                } else {
                    Mode::Flat
                };
                // a group inside a flat group is flat
                let m = if mode == Mode::Flat { Mode::Flat } else { m };
                modes.push(m);
                group_modes.push(m);
                fills.push(false);
            }
            Element::FillStart => {
                let at = column + pending_space as usize;
                let m = if mode != Mode::Flat && !fits(els, i, at, options) { Mode::Fill } else { Mode::Flat };
                modes.push(if mode == Mode::Flat { Mode::Flat } else { m });
                fills.push(true);
            }
            Element::GroupEnd => {
                if modes.len() > 1 {
                    modes.pop();
                }
                if fills.pop() == Some(false) {
                    group_modes.pop();
                }
            }
            Element::BracketBreak => {
                let to = top.deeper(options);
                // brackets in the left half of the line keep their contents aligned after
                // them; those further right move their contents that do not fit to a new
                // line, unless that line would start in the right half too (brackets
                // nested that deep would make a staircase of short lines)
                if mode != Mode::Flat
                    && column > options.line_width / 2
                    && to.width(options) <= options.line_width / 2
                    && !contents_fit(els, i + 1, column, options)
                {
                    pending_space = false;
                    trim_trailing_spaces(&mut out);
                    out.push('\n');
                    column = push_indent(&mut out, to, options);
                }
            }
            Element::IndentStart => indents.push(top.deeper(options)),
            Element::AlignStart => {
                let at = column + pending_space as usize;
                let spaces = at.saturating_sub(top.tabs * options.indent_width);
                indents.push(Indent { tabs: top.tabs, spaces, align: true });
            }
            Element::IndentEnd | Element::AlignEnd => {
                if indents.len() > 1 {
                    indents.pop();
                }
            }
        }
    }
    trim_trailing_spaces(&mut out);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Whether the group starting at `start` fits flat on the line from `column`, together
/// with what follows it up to the next possible line break.
fn fits(els: &[Element<'_>], start: usize, column: usize, options: &PrintOptions) -> bool {
    let mut remaining = options.line_width as isize - column as isize;
    let mut depth = 0usize;
    let mut space = false;
    for e in &els[start..] {
        match e {
            Element::Text(s) => {
                remaining -= s.chars().count() as isize + space as isize;
                space = false;
            }
            Element::Verbatim(_) | Element::Directive(..) => return depth == 0 && remaining >= 0,
            Element::Space => space = true,
            Element::Line(l) => {
                if depth == 0 {
                    // after the group: the rest of the line ends at the next break
                    return true;
                }
                if l.is_hard() {
                    return false;
                }
                space |= l.spaced();
            }
            Element::GroupStart(must_break) => {
                if *must_break && depth > 0 {
                    return false;
                }
                depth += 1;
            }
            Element::FillStart => depth += 1,
            Element::GroupEnd => depth = depth.saturating_sub(1),
            Element::IndentStart
            | Element::IndentEnd
            | Element::AlignStart
            | Element::AlignEnd
            | Element::BracketBreak
            | Element::PadIfBreak(_) => {}
        }
        if remaining < 0 {
            return false;
        }
    }
    true
}

/// In a fill group, whether the item starting at `start` fits on the line from `column`:
/// up to the group's next line break, or, for the last item, up to the first break after
/// the group.
fn fits_item(els: &[Element<'_>], start: usize, column: usize, options: &PrintOptions) -> bool {
    let mut remaining = options.line_width as isize - column as isize;
    // 1: in the fill group; 0: after it
    let mut depth = 1usize;
    let mut space = false;
    for e in &els[start..] {
        match e {
            Element::Text(s) => {
                remaining -= s.chars().count() as isize + space as isize;
                space = false;
            }
            Element::Verbatim(_) | Element::Directive(..) => return remaining >= 0,
            Element::Space => space = true,
            Element::Line(l) => {
                if depth <= 1 {
                    return true;
                }
                if l.is_hard() {
                    return remaining >= 0;
                }
                space |= l.spaced();
            }
            Element::GroupStart(_) | Element::FillStart => depth += 1,
            Element::GroupEnd => depth = depth.saturating_sub(1),
            Element::PadIfBreak(n) => remaining -= *n as isize,
            Element::IndentStart
            | Element::IndentEnd
            | Element::AlignStart
            | Element::AlignEnd
            | Element::BracketBreak => {}
        }
        if remaining < 0 {
            return false;
        }
    }
    true
}

/// For a group starting at `start` (its first text the opening bracket) at `column`
/// that holds padding: whether each of its items fits, padded and flat, on a line of its
/// own after the bracket (an item that breaks inside leaves nothing to align). Without
/// padding: true.
fn padded_items_fit(els: &[Element<'_>], start: usize, column: usize, options: &PrintOptions) -> bool {
    let mut depth = 0usize;
    let mut bracket: Option<usize> = None;
    let mut item = 0usize;
    let mut space = false;
    let mut padded = false;
    let mut all_fit = true;
    for e in &els[start..] {
        match e {
            Element::Text(s) => {
                let w = s.chars().count() + space as usize;
                space = false;
                match bracket {
                    None => bracket = Some(column + w),
                    Some(_) => item += w,
                }
            }
            Element::PadIfBreak(n) => {
                item += n;
                padded = true;
            }
            Element::Verbatim(_) | Element::Directive(..) => return true,
            Element::Space => space = true,
            Element::Line(_) if depth == 1 => {
                all_fit &= bracket.is_some_and(|b| b + item <= options.line_width);
                item = 0;
                space = false;
            }
            Element::Line(l) if l.spaced() => space = true,
            Element::GroupStart(_) | Element::FillStart => depth += 1,
            Element::GroupEnd => {
                depth -= 1;
                if depth == 0 {
                    all_fit &= bracket.is_some_and(|b| b + item <= options.line_width);
                    return !padded || all_fit;
                }
            }
            _ => {}
        }
    }
    true
}

/// Whether the contents of the brackets whose alignment starts at `start` fit flat on
/// the line from `column` (up to a line break that must be, if there is one inside),
/// with what follows them up to the next possible break.
fn contents_fit(els: &[Element<'_>], start: usize, column: usize, options: &PrintOptions) -> bool {
    let mut remaining = options.line_width as isize - column as isize;
    let mut aligns = 0usize;
    let mut space = false;
    // past the closing bracket
    let mut closed = false;
    for e in &els[start..] {
        match e {
            Element::Text(s) => {
                remaining -= s.chars().count() as isize + space as isize;
                space = false;
            }
            Element::Space => space = true,
            Element::Line(_) if closed => return remaining >= 0,
            Element::Line(l) if l.is_hard() => return remaining >= 0,
            Element::Line(l) if l.spaced() => space = true,
            Element::AlignStart => aligns += 1,
            Element::AlignEnd => {
                aligns = aligns.saturating_sub(1);
                closed |= aligns == 0;
            }
            Element::Verbatim(_) | Element::Directive(..) => return remaining >= 0,
            _ => {}
        }
        if remaining < 0 {
            return false;
        }
    }
    true
}

/// Whether what starts at `start` fits on the line from `column` up to its first possible
/// line break, in whatever group (with `skip_last`, last-resort breaks aside).
fn fits_head(els: &[Element<'_>], start: usize, column: usize, skip_last: bool, options: &PrintOptions) -> bool {
    let mut remaining = options.line_width as isize - column as isize;
    let mut space = false;
    for e in &els[start..] {
        match e {
            Element::Text(s) => {
                remaining -= s.chars().count() as isize + space as isize;
                space = false;
            }
            Element::Line(Line::Soft { fit: Fit::Last, space: s, .. }) if skip_last => space |= s,
            Element::Verbatim(_) | Element::Directive(..) | Element::Line(_) | Element::BracketBreak => {
                return remaining >= 0;
            }
            Element::Space => space = true,
            Element::PadIfBreak(_)
            | Element::GroupStart(_)
            | Element::FillStart
            | Element::GroupEnd
            | Element::IndentStart
            | Element::IndentEnd
            | Element::AlignStart
            | Element::AlignEnd => {}
        }
        if remaining < 0 {
            return false;
        }
    }
    true
}

fn push_indent(out: &mut String, indent: Indent, options: &PrintOptions) -> usize {
    out.extend(std::iter::repeat_n('\t', indent.tabs));
    out.extend(std::iter::repeat_n(' ', indent.spaces));
    indent.width(options)
}

fn trim_trailing_spaces(out: &mut String) {
    let kept = out.trim_end_matches([' ', '\t']).len();
    out.truncate(kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call<'a>(doc: &mut Document<'a>, name: &'a str, args: &[&'a str]) {
        doc.text(name);
        doc.group_start();
        doc.text("(");
        doc.indent_start();
        doc.line(Line::Space);
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                doc.text(",");
                doc.line(Line::Space);
            }
            doc.text(a);
        }
        doc.indent_end();
        doc.line(Line::Space);
        doc.text(")");
        doc.group_end();
        doc.text(";");
    }

    #[test]
    fn a_group_that_fits_stays_on_one_line() {
        let mut d = Document::default();
        call(&mut d, "f", &["a", "b"]);
        d.finish();
        assert_eq!(print(&d, &PrintOptions::default()), "f( a, b );\n");
    }

    #[test]
    fn a_group_too_long_breaks_every_one_of_its_lines() {
        let mut d = Document::default();
        call(&mut d, "f", &["alpha", "beta", "gamma"]);
        d.finish();
        let o = PrintOptions { line_width: 12, ..PrintOptions::default() };
        assert_eq!(print(&d, &o), "f(\n    alpha,\n    beta,\n    gamma\n);\n");
    }

    #[test]
    fn a_hard_break_inside_breaks_the_group() {
        let mut d = Document::default();
        d.group_start();
        d.text("a");
        d.line(Line::Space);
        d.text("// c");
        d.line(Line::Hard);
        d.text("b");
        d.group_end();
        d.finish();
        assert_eq!(print(&d, &PrintOptions::default()), "a\n// c\nb\n");
    }

    #[test]
    fn text_after_the_group_counts_up_to_the_next_break() {
        let mut d = Document::default();
        call(&mut d, "f", &["a", "b"]);
        d.text(" + something_long");
        d.line(Line::Hard);
        d.finish();
        let o = PrintOptions { line_width: 16, ..PrintOptions::default() };
        assert_eq!(print(&d, &o), "f(\n    a,\n    b\n); + something_long\n");
    }
}
