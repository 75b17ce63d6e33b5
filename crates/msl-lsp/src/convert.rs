//! Positions: byte offsets of the analysis to LSP line/character pairs and back, in UTF-16
//! code units (the protocol's default) or UTF-8 bytes (when the client prefers them).

use msl_ide::{TextRange, TextSize};
use tower_lsp_server::ls_types::{Position, Range};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// Where lines start and where their characters of more than one byte are, so that a
/// conversion costs two binary searches however long the line (a file of random bytes,
/// or a minified one, has lines of many kilobytes and thousands of diagnostics).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<u32>,
    /// The first entry of `wide` in each line, and one more at the end: the line `l` has
    /// `wide[wide_from[l]..wide_from[l + 1]]`. ASCII lines have none.
    wide_from: Vec<u32>,
    wide: Vec<Wide>,
    /// Lines ending with `\r\n`: a position past the end of one stops before the `\r`.
    crlf: Vec<bool>,
    len: u32,
}

/// A character of more than one byte.
#[derive(Debug, Clone, Copy)]
struct Wide {
    at: u32,
    /// Bytes minus UTF-16 code units of the line's wide characters before this one: the
    /// character starts at UTF-16 column `at - line start - before`.
    before: u32,
    len8: u8,
    len16: u8,
}

impl Wide {
    fn saved(&self) -> u32 {
        self.before + u32::from(self.len8) - u32::from(self.len16)
    }
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // newlines found with `memchr`, lines checked a word at a time, and only lines
        // that are not ASCII walked character by character: this runs on every edit,
        // over the whole text
        let bytes = text.as_bytes();
        let mut starts = vec![0u32];
        let mut wide_from = vec![0u32];
        let mut wide = Vec::new();
        let mut crlf = Vec::new();
        let mut start = 0usize;
        let line = |start: usize, end: usize, wide: &mut Vec<Wide>| {
            let s = &text[start..end];
            if !s.is_ascii() {
                let mut before = 0u32;
                for (i, ch) in s.char_indices() {
                    let (len8, len16) = (ch.len_utf8() as u8, ch.len_utf16() as u8);
                    if len8 > 1 {
                        let w = Wide { at: (start + i) as u32, before, len8, len16 };
                        before = w.saved();
                        wide.push(w);
                    }
                }
            }
            end > start && bytes[end - 1] == b'\r'
        };
        for (i, _) in text.match_indices('\n') {
            crlf.push(line(start, i, &mut wide));
            wide_from.push(wide.len() as u32);
            start = i + 1;
            starts.push(start as u32);
        }
        crlf.push(line(start, text.len(), &mut wide));
        wide_from.push(wide.len() as u32);
        LineIndex { starts, wide_from, wide, crlf, len: text.len() as u32 }
    }

    fn wide_in(&self, line: usize) -> &[Wide] {
        &self.wide[self.wide_from[line] as usize..self.wide_from[line + 1] as usize]
    }

    /// The byte offset of a position. Positions past the end of a line or of the text are
    /// clamped to it (clients do send them); one inside a character moves to its start
    /// (UTF-8) or past its end (the second half of a UTF-16 surrogate pair).
    pub fn offset(&self, pos: Position, enc: Encoding) -> TextSize {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return TextSize::from(self.len);
        }
        let start = self.starts[line];
        let mut end = self.starts.get(line + 1).map(|&e| e - 1).unwrap_or(self.len);
        if self.crlf[line] {
            end -= 1;
        }
        let wide = self.wide_in(line);
        let col = pos.character;
        let byte = match enc {
            Encoding::Utf8 => {
                let b = start.saturating_add(col).min(end);
                let k = wide.partition_point(|w| w.at < b);
                match k.checked_sub(1).map(|k| wide[k]) {
                    Some(w) if b < w.at + u32::from(w.len8) => w.at,
                    _ => b,
                }
            }
            Encoding::Utf16 => {
                let col_of = |w: &Wide| w.at - start - w.before;
                let k = wide.partition_point(|w| col_of(w) < col);
                match k.checked_sub(1).map(|k| wide[k]) {
                    None => start.saturating_add(col),
                    Some(w) => {
                        let after = col_of(&w) + u32::from(w.len16);
                        w.at + u32::from(w.len8) + col.saturating_sub(after)
                    }
                }
                .min(end)
            }
        };
        TextSize::from(byte)
    }

    pub fn position(&self, offset: TextSize, enc: Encoding) -> Position {
        let off = u32::from(offset).min(self.len);
        let line = self.starts.partition_point(|&s| s <= off).saturating_sub(1);
        let start = self.starts[line];
        let character = match enc {
            Encoding::Utf8 => off - start,
            Encoding::Utf16 => {
                let wide = self.wide_in(line);
                let k = wide.partition_point(|w| w.at < off);
                match k.checked_sub(1).map(|k| wide[k]) {
                    None => off - start,
                    // inside a character: its start
                    Some(w) if off < w.at + u32::from(w.len8) => w.at - start - w.before,
                    Some(w) => off - start - w.saved(),
                }
            }
        };
        Position { line: line as u32, character }
    }

    pub fn range(&self, range: TextRange, enc: Encoding) -> Range {
        Range { start: self.position(range.start(), enc), end: self.position(range.end(), enc) }
    }

    pub fn text_range(&self, range: Range, enc: Encoding) -> TextRange {
        let s = self.offset(range.start, enc);
        let e = self.offset(range.end, enc);
        if e < s { TextRange::empty(s) } else { TextRange::new(s, e) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_utf8_positions() {
        let text = "ab\n// é𝄞x\nlast";
        let idx = LineIndex::new(text);
        // `x` on line 1: bytes 3 + "// " 3 + é 2 + 𝄞 4 = offset 12
        let x = TextSize::from(text.find('x').unwrap() as u32);
        assert_eq!(idx.position(x, Encoding::Utf16), Position { line: 1, character: 6 });
        assert_eq!(idx.position(x, Encoding::Utf8), Position { line: 1, character: 9 });
        assert_eq!(idx.offset(Position { line: 1, character: 6 }, Encoding::Utf16), x);
        assert_eq!(idx.offset(Position { line: 1, character: 9 }, Encoding::Utf8), x);
        // past the end of a line, past the end of the text
        assert_eq!(idx.offset(Position { line: 0, character: 99 }, Encoding::Utf16), TextSize::from(2));
        assert_eq!(idx.offset(Position { line: 99, character: 0 }, Encoding::Utf16), TextSize::of(text));
        // inside a surrogate pair or a multi-byte character: never a broken offset
        let o = idx.offset(Position { line: 1, character: 8 }, Encoding::Utf8);
        assert!(text.is_char_boundary(o.into()));
        let o = idx.offset(Position { line: 1, character: 5 }, Encoding::Utf16);
        assert_eq!(o, x, "the second half of 𝄞 moves past it");
    }

    /// Line and column by walking the text from its start, as the protocol defines them.
    fn walk_position(text: &str, offset: usize, enc: Encoding) -> Position {
        let mut off = offset.min(text.len());
        let bytes = &text.as_bytes()[..off];
        let line_start = bytes.iter().rposition(|&b| b == b'\n').map(|i| i + 1).unwrap_or(0);
        let line = bytes.iter().filter(|&&b| b == b'\n').count() as u32;
        if enc == Encoding::Utf8 {
            return Position { line, character: (off - line_start) as u32 };
        }
        while !text.is_char_boundary(off) {
            off -= 1;
        }
        Position { line, character: text[line_start..off].encode_utf16().count() as u32 }
    }

    fn walk_offset(text: &str, pos: Position, enc: Encoding) -> usize {
        let mut start = 0;
        for _ in 0..pos.line {
            match text[start..].find('\n') {
                Some(i) => start += i + 1,
                None => return text.len(),
            }
        }
        let line = &text[start..start + text[start..].find('\n').unwrap_or(text.len() - start)];
        let line = line.strip_suffix('\r').unwrap_or(line);
        let col = pos.character as usize;
        if enc == Encoding::Utf8 {
            let mut c = col.min(line.len());
            while !line.is_char_boundary(c) {
                c -= 1;
            }
            return start + c;
        }
        let mut units = 0;
        for (i, ch) in line.char_indices() {
            if units >= col {
                return start + i;
            }
            units += ch.len_utf16();
        }
        start + line.len()
    }

    #[test]
    fn every_offset_and_position_agree_with_walking_the_text() {
        let pieces = ["a", "bc ", "é", "€", "𝄞", "\n", "\r\n", "\r", "ü𝄞", "\t"];
        let mut seed = 0x9e3779b97f4a7c15u64;
        for round in 0..300 {
            let mut text = String::new();
            for _ in 0..round % 40 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            let idx = LineIndex::new(&text);
            for enc in [Encoding::Utf8, Encoding::Utf16] {
                for off in 0..=text.len() + 2 {
                    let want = walk_position(&text, off, enc);
                    assert_eq!(idx.position(TextSize::from(off as u32), enc), want, "{text:?} at {off}, {enc:?}");
                }
                let lines = text.matches('\n').count() as u32 + 2;
                for line in 0..lines {
                    for character in 0..(text.len() as u32 + 3) {
                        let pos = Position { line, character };
                        let want = walk_offset(&text, pos, enc);
                        assert_eq!(usize::from(idx.offset(pos, enc)), want, "{text:?} at {pos:?}, {enc:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_long_line_with_many_wide_characters_converts_in_both_directions() {
        let text: String = "é€𝄞x".repeat(20_000);
        let idx = LineIndex::new(&text);
        // 2 + 3 + 4 + 1 bytes and 1 + 1 + 2 + 1 code units per repetition
        let last_x = TextSize::from((text.len() - 1) as u32);
        let pos = idx.position(last_x, Encoding::Utf16);
        assert_eq!(pos, Position { line: 0, character: 20_000 * 5 - 1 });
        assert_eq!(idx.offset(pos, Encoding::Utf16), last_x);
    }
}
