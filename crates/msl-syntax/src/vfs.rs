//! How the preprocessor reaches files: a small trait, and an implementation over the disk
//! with an in-memory overlay (unsaved buffers, tests).

use std::cell::RefCell;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::TextRange;
use crate::lexer::Lexed;

/// Identifies a file known to a [`FileResolver`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A problem found while loading a file (e.g. bytes that are not UTF-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadIssue {
    pub range: TextRange,
    pub message: String,
}

/// Files as the preprocessor sees them.
pub trait FileResolver {
    /// The file at `path`, loading it if needed; `None` if there is no such file.
    fn resolve(&self, path: &Path) -> Option<FileId>;
    /// The text of a file returned by `resolve` (or otherwise known).
    fn text(&self, file: FileId) -> Arc<str>;
    /// The path of a file.
    fn path(&self, file: FileId) -> PathBuf;
    /// Problems met while loading the file, such as invalid UTF-8.
    fn load_issues(&self, _file: FileId) -> Vec<LoadIssue> {
        Vec::new()
    }
    /// What the lexer made of `text`, the text of `file` as [`FileResolver::text`] gave
    /// it, if an earlier parse offered it through [`FileResolver::keep_lexed`] and the
    /// resolver kept it. A header included by many units is then lexed once. The answer
    /// must be for this very text (the same `Arc`): a file's text can change between
    /// parses.
    fn lexed(&self, _file: FileId, _text: &Arc<str>) -> Option<Lexed> {
        None
    }
    /// Offers what the lexer made of `text`, the text of `file`, to later parses (see
    /// [`FileResolver::lexed`]). The preprocessor offers the headers it lexes.
    fn keep_lexed(&self, _file: FileId, _text: &Arc<str>, _lexed: &Lexed) {}
    /// Whether `dir` is the root of a project (see [`is_project_root_on_disk`]): where the
    /// search for a quoted include in the folders above its includer stops. Resolvers
    /// without a disk have none.
    fn is_project_root(&self, _dir: &Path) -> bool {
        false
    }
}

/// Whether the folder `dir` on disk is the root of a project: it holds `.git`, `msl.toml`,
/// `Package.swift` or an Xcode project or workspace, or it is the top of a CMake tree (it
/// holds a `CMakeLists.txt` and its parent folder none).
pub fn is_project_root_on_disk(dir: &Path) -> bool {
    let has = |name: &str| dir.join(name).exists();
    if has(".git") || has("msl.toml") || has("Package.swift") {
        return true;
    }
    let xcode = std::fs::read_dir(dir).into_iter().flatten().flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name.ends_with(".xcodeproj") || name.ends_with(".xcworkspace")
    });
    xcode || (has("CMakeLists.txt") && !dir.parent().is_some_and(|p| p.join("CMakeLists.txt").exists()))
}

struct Entry {
    path: PathBuf,
    text: Arc<str>,
    issues: Vec<LoadIssue>,
    /// The tokens of `text`, once a parse has lexed it as a header.
    lexed: Option<Lexed>,
}

/// A [`FileResolver`] over in-memory files, falling back to the disk when enabled.
#[derive(Default)]
pub struct Vfs {
    inner: RefCell<VfsInner>,
    use_disk: bool,
}

#[derive(Default)]
struct VfsInner {
    entries: Vec<Entry>,
    by_path: FxHashMap<PathBuf, Option<FileId>>,
}

/// Largest file the loader accepts; larger ones are cut with an error.
pub const MAX_FILE_BYTES: usize = 256 * 1024 * 1024;

impl Vfs {
    /// An in-memory file system only.
    pub fn new() -> Vfs {
        Vfs::default()
    }

    /// In-memory files first, then the disk.
    pub fn with_disk() -> Vfs {
        Vfs { use_disk: true, ..Vfs::default() }
    }

    /// Adds (or replaces) an in-memory file.
    pub fn add_file(&self, path: impl AsRef<Path>, text: impl Into<Arc<str>>) -> FileId {
        self.insert(normalize(path.as_ref()), text.into(), Vec::new())
    }

    /// Adds a file from raw bytes, decoding UTF-8 and recording where it was invalid.
    pub fn add_bytes(&self, path: impl AsRef<Path>, bytes: &[u8]) -> FileId {
        let (text, issues) = decode(bytes);
        self.insert(normalize(path.as_ref()), text.into(), issues)
    }

    fn insert(&self, path: PathBuf, text: Arc<str>, issues: Vec<LoadIssue>) -> FileId {
        let mut inner = self.inner.borrow_mut();
        if let Some(Some(id)) = inner.by_path.get(&path).copied() {
            inner.entries[id.0 as usize] = Entry { path, text, issues, lexed: None };
            return id;
        }
        let id = FileId(inner.entries.len() as u32);
        inner.entries.push(Entry { path: path.clone(), text, issues, lexed: None });
        inner.by_path.insert(path, Some(id));
        id
    }

    /// Loads a file from disk (or the overlay), reporting why it could not be read.
    pub fn load(&self, path: &Path) -> Result<FileId, std::io::Error> {
        let norm = normalize(path);
        if let Some(Some(id)) = self.inner.borrow().by_path.get(&norm).copied() {
            return Ok(id);
        }
        let bytes = std::fs::read(path)?;
        let (text, issues) = decode(&bytes);
        Ok(self.insert(norm, text.into(), issues))
    }
}

impl FileResolver for Vfs {
    fn resolve(&self, path: &Path) -> Option<FileId> {
        let norm = normalize(path);
        if let Some(found) = self.inner.borrow().by_path.get(&norm) {
            return *found;
        }
        if !self.use_disk {
            return None;
        }
        let loaded = match std::fs::metadata(&norm) {
            Ok(m) if m.is_file() => std::fs::read(&norm).ok(),
            _ => None,
        };
        match loaded {
            Some(bytes) => {
                let (text, issues) = decode(&bytes);
                Some(self.insert(norm, text.into(), issues))
            }
            None => {
                self.inner.borrow_mut().by_path.insert(norm, None);
                None
            }
        }
    }

    fn text(&self, file: FileId) -> Arc<str> {
        self.inner.borrow().entries.get(file.0 as usize).map(|e| e.text.clone()).unwrap_or_else(|| Arc::from(""))
    }

    fn path(&self, file: FileId) -> PathBuf {
        self.inner.borrow().entries.get(file.0 as usize).map(|e| e.path.clone()).unwrap_or_default()
    }

    fn load_issues(&self, file: FileId) -> Vec<LoadIssue> {
        self.inner.borrow().entries.get(file.0 as usize).map(|e| e.issues.clone()).unwrap_or_default()
    }

    fn is_project_root(&self, dir: &Path) -> bool {
        self.use_disk && is_project_root_on_disk(dir)
    }

    fn lexed(&self, file: FileId, text: &Arc<str>) -> Option<Lexed> {
        let inner = self.inner.try_borrow().ok()?;
        let e = inner.entries.get(file.0 as usize)?;
        if Arc::ptr_eq(&e.text, text) { e.lexed.clone() } else { None }
    }

    fn keep_lexed(&self, file: FileId, text: &Arc<str>, lexed: &Lexed) {
        let Ok(mut inner) = self.inner.try_borrow_mut() else { return };
        if let Some(e) = inner.entries.get_mut(file.0 as usize)
            && Arc::ptr_eq(&e.text, text)
        {
            e.lexed = Some(lexed.clone());
        }
    }
}

/// Decodes bytes as UTF-8; invalid sequences become U+FFFD and are reported.
pub fn decode(bytes: &[u8]) -> (String, Vec<LoadIssue>) {
    let mut issues = Vec::new();
    let bytes = if bytes.len() > MAX_FILE_BYTES {
        issues.push(LoadIssue {
            range: TextRange::empty(0.into()),
            message: format!("file is larger than {} MiB; only the beginning is read", MAX_FILE_BYTES >> 20),
        });
        &bytes[..MAX_FILE_BYTES]
    } else {
        bytes
    };
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), issues),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len());
            let mut rest = bytes;
            let mut reported = 0;
            loop {
                match std::str::from_utf8(rest) {
                    Ok(s) => {
                        out.push_str(s);
                        break;
                    }
                    Err(e) => {
                        let (good, bad) = rest.split_at(e.valid_up_to());
                        // SAFETY-free: `good` is valid UTF-8 by construction of `valid_up_to`.
                        out.push_str(std::str::from_utf8(good).unwrap_or_default());
                        let at = out.len() as u32;
                        out.push('\u{fffd}');
                        let skip = e.error_len().unwrap_or(bad.len()).max(1);
                        if reported < 20 {
                            issues.push(LoadIssue {
                                range: TextRange::at(at.into(), 3.into()),
                                message: "invalid UTF-8 in source file; the bytes were replaced by U+FFFD".into(),
                            });
                        }
                        reported += 1;
                        rest = &bad[skip.min(bad.len())..];
                    }
                }
            }
            if reported > 20 {
                issues.push(LoadIssue {
                    range: TextRange::empty(0.into()),
                    message: format!("{reported} invalid UTF-8 sequences in total; is this a binary file?"),
                });
            }
            (out, issues)
        }
    }
}

/// Lexically normalizes a path: removes `.` and resolves `..` where possible. Does not
/// touch the disk (files may be unsaved buffers).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let after_parent = matches!(out.components().next_back(), None | Some(Component::ParentDir));
                if after_parent || !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
