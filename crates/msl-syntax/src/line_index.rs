//! Offsets to lines and columns, and back.

use crate::TextSize;

/// Line starts of a text, for converting byte offsets to (line, column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<u32>,
    len: u32,
}

/// A 0-based line and a 0-based column in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0u32];
        starts.extend(memchr_newlines(text.as_bytes()).map(|i| i as u32 + 1));
        LineIndex { starts, len: text.len() as u32 }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Line and byte column of `offset` (clamped to the text).
    pub fn line_col(&self, offset: TextSize) -> LineCol {
        let off = u32::from(offset).min(self.len);
        let line = self.starts.partition_point(|&s| s <= off) - 1;
        LineCol { line: line as u32, col: off - self.starts[line] }
    }

    /// Byte offset of a line and byte column, if it is inside the text.
    pub fn offset(&self, lc: LineCol) -> Option<TextSize> {
        let start = *self.starts.get(lc.line as usize)?;
        let end = self.starts.get(lc.line as usize + 1).copied().unwrap_or(self.len);
        let off = start.checked_add(lc.col)?;
        (off <= end).then(|| off.into())
    }

    /// The byte range of line `line` without its line terminator.
    pub fn line_range(&self, line: u32, text: &str) -> std::ops::Range<usize> {
        let start = self.starts.get(line as usize).copied().unwrap_or(self.len) as usize;
        let mut end = self.starts.get(line as usize + 1).copied().unwrap_or(self.len) as usize;
        let bytes = text.as_bytes();
        while end > start && matches!(bytes.get(end - 1), Some(b'\n' | b'\r')) {
            end -= 1;
        }
        start..end
    }
}

fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i)
}

/// Number of characters (Unicode scalar values) in `text[..byte_col]` of a line.
pub fn char_col(line_text: &str, byte_col: u32) -> u32 {
    let mut b = (byte_col as usize).min(line_text.len());
    while !line_text.is_char_boundary(b) {
        b -= 1;
    }
    line_text[..b].chars().count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let text = "ab\ncé\r\n\nx";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(0.into()), LineCol { line: 0, col: 0 });
        assert_eq!(idx.line_col(4.into()), LineCol { line: 1, col: 1 });
        assert_eq!(idx.line_col(9.into()), LineCol { line: 3, col: 0 });
        assert_eq!(idx.line_col(100.into()), LineCol { line: 3, col: 1 });
        assert_eq!(idx.offset(LineCol { line: 1, col: 1 }), Some(4.into()));
        assert_eq!(idx.offset(LineCol { line: 9, col: 0 }), None);
        assert_eq!(&text[idx.line_range(1, text)], "cé");
        assert_eq!(char_col("cé!", 3), 2);
    }
}
