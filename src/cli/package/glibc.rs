//! The newest glibc symbol version an ELF binary needs: a binary built
//! against glibc 2.17 runs on every Linux distribution of the last decade.

use anyhow::Context;
use object::read::elf::{FileHeader, SectionTable};
use std::path::Path;

/// The oldest glibc the release binary supports (CentOS 7, Ubuntu 14.04).
pub const PORTABLE: (u32, u32) = (2, 17);

/// The highest `GLIBC_x.y` version `binary` requires, or `None` when it
/// needs none (a static binary).
pub fn required(binary: &Path) -> anyhow::Result<Option<(u32, u32)>> {
    let data = std::fs::read(binary).with_context(|| format!("reading {}", binary.display()))?;
    highest(&data).with_context(|| format!("{} is not a 64-bit ELF binary", binary.display()))
}

fn highest(data: &[u8]) -> object::read::Result<Option<(u32, u32)>> {
    let header = object::elf::FileHeader64::<object::Endianness>::parse(data)?;
    let endian = header.endian()?;
    let sections: SectionTable<_, &[u8]> = header.sections(endian, data)?;
    let Some((mut needs, link)) = sections.gnu_verneed(endian, data)? else {
        return Ok(None);
    };
    let strings = sections.strings(endian, data, link)?;
    let mut best = None;
    while let Some((_, mut aux)) = needs.next()? {
        while let Some(entry) = aux.next()? {
            if let Some(v) = parse(entry.name(endian, strings)?) {
                best = best.max(Some(v));
            }
        }
    }
    Ok(best)
}

/// `GLIBC_2.17` → (2, 17); other version names → `None`.
fn parse(name: &[u8]) -> Option<(u32, u32)> {
    let rest = std::str::from_utf8(name).ok()?.strip_prefix("GLIBC_")?;
    let mut parts = rest.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().map_or(Ok(0), str::parse).ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_names() {
        assert_eq!(super::parse(b"GLIBC_2.17"), Some((2, 17)));
        assert_eq!(super::parse(b"GLIBC_2.2.5"), Some((2, 2)));
        assert_eq!(super::parse(b"GLIBC_PRIVATE"), None);
        assert_eq!(super::parse(b"GCC_3.0"), None);
    }

    #[test]
    fn the_running_test_binary_needs_some_glibc() {
        let exe = std::env::current_exe().unwrap();
        assert!(super::required(&exe).unwrap().is_some());
    }
}
