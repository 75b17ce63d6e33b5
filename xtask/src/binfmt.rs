//! What a built executable says about itself: its format (ELF, PE, Mach-O), the machine it
//! is for, whether it needs a dynamic loader, and for Mach-O the least macOS version it
//! runs on. Read from the headers and load commands, so that cross builds can be checked
//! on a machine that cannot run them.

/// The machines the release targets are built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Machine {
    X86_64,
    Aarch64,
    Other(u32),
}

/// What an executable's headers say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Executable {
    /// Linux: `interpreter` is the dynamic loader it names (none for a static build).
    Elf { machine: Machine, interpreter: Option<String> },
    /// Windows.
    Pe { machine: Machine },
    /// macOS: the least version it runs on, as (major, minor, patch), when it says.
    MachO { machine: Machine, min_macos: Option<(u32, u32, u32)> },
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Reads the headers of a 64-bit little-endian executable.
pub fn read(b: &[u8]) -> Result<Executable, String> {
    if b.starts_with(b"\x7fELF") {
        return elf(b).ok_or_else(|| "a truncated ELF file".to_string());
    }
    if b.starts_with(b"MZ") {
        return pe(b).ok_or_else(|| "a truncated PE file".to_string());
    }
    if u32_at(b, 0) == Some(0xfeed_facf) {
        return macho(b).ok_or_else(|| "a truncated Mach-O file".to_string());
    }
    Err("not an ELF, PE or 64-bit Mach-O executable".into())
}

fn elf(b: &[u8]) -> Option<Executable> {
    // 64-bit, little-endian
    if b.get(4) != Some(&2) || b.get(5) != Some(&1) {
        return None;
    }
    let machine = match u16_at(b, 0x12)? {
        0x3e => Machine::X86_64,
        0xb7 => Machine::Aarch64,
        m => Machine::Other(m.into()),
    };
    let phoff = usize::try_from(u64_at(b, 0x20)?).ok()?;
    let phentsize = usize::from(u16_at(b, 0x36)?);
    let phnum = usize::from(u16_at(b, 0x38)?);
    let mut interpreter = None;
    for k in 0..phnum {
        let ph = phoff + k * phentsize;
        // PT_INTERP: the path of the loader, NUL-terminated
        if u32_at(b, ph)? == 3 {
            let off = usize::try_from(u64_at(b, ph + 8)?).ok()?;
            let size = usize::try_from(u64_at(b, ph + 32)?).ok()?;
            let path = b.get(off..off + size)?;
            let path = path.split(|&c| c == 0).next().unwrap_or(path);
            interpreter = Some(String::from_utf8_lossy(path).into_owned());
        }
    }
    Some(Executable::Elf { machine, interpreter })
}

/// The newest glibc symbol version an ELF executable asks for (`GLIBC_2.17` as (2, 17)),
/// from its version needs (`.gnu.version_r`); `None` when it needs no glibc symbol.
pub fn newest_glibc(b: &[u8]) -> Option<(u32, u32)> {
    let shoff = usize::try_from(u64_at(b, 0x28)?).ok()?;
    let shentsize = usize::from(u16_at(b, 0x3a)?);
    let shnum = usize::from(u16_at(b, 0x3c)?);
    let section = |k: usize| -> Option<(u32, usize, u32, u32)> {
        let at = shoff + k * shentsize;
        let offset = usize::try_from(u64_at(b, at + 24)?).ok()?;
        Some((u32_at(b, at + 4)?, offset, u32_at(b, at + 40)?, u32_at(b, at + 44)?))
    };
    let mut newest = None;
    for k in 0..shnum {
        // SHT_GNU_verneed: `info` entries; `link` is the section of their names
        let (kind, offset, link, count) = section(k)?;
        if kind != 0x6fff_fffe {
            continue;
        }
        let (_, names, _, _) = section(link as usize)?;
        let mut need = offset;
        for _ in 0..count {
            let mut aux = need + u32_at(b, need + 8)? as usize;
            for _ in 0..u16_at(b, need + 2)? {
                let name = names + u32_at(b, aux + 8)? as usize;
                let name = b.get(name..)?.split(|&c| c == 0).next()?;
                let version = std::str::from_utf8(name).ok().and_then(|n| n.strip_prefix("GLIBC_"));
                if let Some((major, minor)) = version.and_then(|v| {
                    let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
                    Some((parts.next()??, parts.next()??))
                }) {
                    newest = newest.max(Some((major, minor)));
                }
                aux += u32_at(b, aux + 12)? as usize;
            }
            need += u32_at(b, need + 12)? as usize;
        }
    }
    newest
}

fn pe(b: &[u8]) -> Option<Executable> {
    let pe = usize::try_from(u32_at(b, 0x3c)?).ok()?;
    if b.get(pe..pe + 4)? != b"PE\0\0" {
        return None;
    }
    let machine = match u16_at(b, pe + 4)? {
        0x8664 => Machine::X86_64,
        0xaa64 => Machine::Aarch64,
        m => Machine::Other(m.into()),
    };
    Some(Executable::Pe { machine })
}

fn macho(b: &[u8]) -> Option<Executable> {
    let machine = match u32_at(b, 4)? {
        0x0100_0007 => Machine::X86_64,
        0x0100_000c => Machine::Aarch64,
        m => Machine::Other(m),
    };
    let ncmds = u32_at(b, 16)? as usize;
    let mut at = 32;
    let mut min_macos = None;
    let version = |v: u32| (v >> 16, (v >> 8) & 0xff, v & 0xff);
    for _ in 0..ncmds {
        let (cmd, size) = (u32_at(b, at)?, u32_at(b, at + 4)? as usize);
        match cmd {
            // LC_BUILD_VERSION: platform 1 is macOS
            0x32 if u32_at(b, at + 8)? == 1 => min_macos = Some(version(u32_at(b, at + 12)?)),
            // LC_VERSION_MIN_MACOSX
            0x24 => min_macos = Some(version(u32_at(b, at + 8)?)),
            _ => {}
        }
        if size < 8 {
            return None;
        }
        at += size;
    }
    Some(Executable::MachO { machine, min_macos })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put32(b: &mut Vec<u8>, at: usize, v: u32) {
        if b.len() < at + 4 {
            b.resize(at + 4, 0);
        }
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn mach_o_machine_and_least_macos_version() {
        // header, then a segment command to skip, then LC_BUILD_VERSION (macOS 11.0.0)
        let mut b = Vec::new();
        put32(&mut b, 0, 0xfeed_facf);
        put32(&mut b, 4, 0x0100_000c);
        put32(&mut b, 16, 2);
        put32(&mut b, 32, 0x19);
        put32(&mut b, 36, 72);
        put32(&mut b, 104, 0x32);
        put32(&mut b, 108, 24);
        put32(&mut b, 112, 1);
        put32(&mut b, 116, 11 << 16);
        assert_eq!(read(&b), Ok(Executable::MachO { machine: Machine::Aarch64, min_macos: Some((11, 0, 0)) }));
        // the older command, on x86-64: 10.12
        let mut b = Vec::new();
        put32(&mut b, 0, 0xfeed_facf);
        put32(&mut b, 4, 0x0100_0007);
        put32(&mut b, 16, 1);
        put32(&mut b, 32, 0x24);
        put32(&mut b, 36, 16);
        put32(&mut b, 40, (10 << 16) | (12 << 8));
        assert_eq!(read(&b), Ok(Executable::MachO { machine: Machine::X86_64, min_macos: Some((10, 12, 0)) }));
        // a load command that claims no size is refused, not looped on
        put32(&mut b, 36, 0);
        assert!(read(&b).is_err());
    }

    #[test]
    fn elf_machine_and_loader() {
        let loader = b"/lib/ld-linux-aarch64.so.1\0";
        let mut b = vec![0x7f, b'E', b'L', b'F', 2, 1];
        b.resize(64, 0);
        b[0x12..0x14].copy_from_slice(&0xb7u16.to_le_bytes());
        b[0x20..0x28].copy_from_slice(&64u64.to_le_bytes());
        b[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        b[0x38..0x3a].copy_from_slice(&1u16.to_le_bytes());
        // one program header, PT_INTERP, pointing after itself
        b.resize(64 + 56, 0);
        b[64..68].copy_from_slice(&3u32.to_le_bytes());
        b[72..80].copy_from_slice(&120u64.to_le_bytes());
        b[96..104].copy_from_slice(&(loader.len() as u64).to_le_bytes());
        b.extend_from_slice(loader);
        let want = Some("/lib/ld-linux-aarch64.so.1".to_string());
        assert_eq!(read(&b), Ok(Executable::Elf { machine: Machine::Aarch64, interpreter: want }));
        // no PT_INTERP: static
        b[64..68].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(read(&b), Ok(Executable::Elf { machine: Machine::Aarch64, interpreter: None }));
    }

    #[test]
    fn newest_glibc_of_this_program() {
        // the test program itself, linked against this machine's glibc
        let exe = std::fs::read(std::env::current_exe().expect("exe")).expect("read");
        if cfg!(all(target_os = "linux", target_env = "gnu")) {
            let (major, minor) = newest_glibc(&exe).expect("glibc symbols");
            assert!(major == 2 && minor >= 3, "{major}.{minor}");
        }
        // an ELF header without sections
        let mut b = vec![0x7f, b'E', b'L', b'F', 2, 1];
        b.resize(64, 0);
        assert_eq!(newest_glibc(&b), None);
    }

    #[test]
    fn pe_machine() {
        let mut b = vec![b'M', b'Z'];
        b.resize(0x40, 0);
        b[0x3c..0x40].copy_from_slice(&0x40u32.to_le_bytes());
        b.extend_from_slice(b"PE\0\0");
        b.extend_from_slice(&0x8664u16.to_le_bytes());
        assert_eq!(read(&b), Ok(Executable::Pe { machine: Machine::X86_64 }));
        assert!(read(b"#!/bin/sh\n").is_err());
    }
}
